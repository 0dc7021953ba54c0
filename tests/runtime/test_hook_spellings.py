"""The hook judges a file by what it is, not by how a tool call spells it: case variants,
Unicode normalization, trailing dots and spaces, `..`, `/proc/self/cwd`, hard links, and
any tool that names a path (NotebookEdit's `notebook_path`, an MCP tool's `path`). No
spelling lets a move the spec forbids through (IMPLEMENT -> COMPLETE skips testing)."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spellbook.hook import judge_event
from tests.sessions import PROGRESS, session_in

FORBIDDEN = json.dumps({"state": "COMPLETE", "attempts": 1, "feature_id": "F1"})


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    (root / ".git").mkdir()
    session_in(root, "IMPLEMENT", "false")
    os.link(root / PROGRESS / "state.json", root / PROGRESS / "second-name.json")
    os.link(root / PROGRESS / "state.json", root / "outside.json")
    return root


def name_spellings() -> st.SearchStrategy[str]:
    def vary(name: str, upper: list[bool], tail: str, form: str) -> str:
        cased = "".join(c.upper() if u else c for c, u in zip(name, upper, strict=False))
        return unicodedata.normalize(form, cased + name[len(upper) :]) + tail

    return st.one_of(
        st.builds(
            vary,
            st.just("state.json"),
            st.lists(st.booleans(), max_size=10),
            st.sampled_from(["", ".", " ", ". ", "..."]),
            st.sampled_from(["NFC", "NFD"]),
        ),
        st.just("second-name.json"),
    )


def folder_spellings(root: Path) -> st.SearchStrategy[str]:
    progress = str(root / PROGRESS)
    return st.sampled_from(
        [
            progress,
            f"{root}/.claude/../.claude/progress",
            f"{root}/./.claude/progress/",
            f"/proc/self/cwd/{PROGRESS}" if os.path.isdir("/proc/self/cwd") else progress,
        ]
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_no_spelling_of_the_state_file_lets_a_forbidden_move_through(
    repo: Path, data: st.DataObject
) -> None:
    folder = data.draw(folder_spellings(repo))
    name = data.draw(name_spellings())
    key = data.draw(st.sampled_from(["file_path", "notebook_path", "path"]))
    tool = {key: f"{folder.rstrip('/')}/{name}", "content": FORBIDDEN}
    event = {
        "tool_name": data.draw(st.sampled_from(["Write", "NotebookEdit", "mcp__fs__write"])),
        "tool_input": tool,
        "cwd": str(repo),
    }
    here = os.getcwd()
    os.chdir(repo)  # `/proc/self/cwd` is the judging process's folder: the repository
    try:
        allowed, why = judge_event(None, "session", json.dumps(event).encode())
    finally:
        os.chdir(here)
    assert not allowed, (tool, why)


def test_a_hard_link_outside_the_workspace_is_judged_as_the_state_file(repo: Path) -> None:
    event = {
        "tool_input": {"file_path": str(repo / "outside.json"), "content": FORBIDDEN},
        "cwd": str(repo),
    }
    assert not judge_event(None, "session", json.dumps(event).encode())[0]


def test_a_tool_whose_change_the_hook_cannot_read_is_blocked_on_a_guarded_file(
    repo: Path,
) -> None:
    event = {
        "tool_name": "NotebookEdit",
        "cwd": str(repo),
        "tool_input": {"notebook_path": str(repo / PROGRESS / "state.json"), "new_source": "x"},
    }
    allowed, why = judge_event(None, "session", json.dumps(event).encode())
    assert not allowed and "cannot tell what this tool would write" in why
    # A file of no workspace stays the tool's business.
    event["tool_input"] = {"notebook_path": str(repo / "notes.ipynb"), "new_source": "x"}
    assert judge_event(None, "session", json.dumps(event).encode())[0]


def test_a_tool_that_only_reads_the_state_file_is_let_through(repo: Path) -> None:
    """Reading is no move: a Read of the state file is allowed, whatever the matcher."""
    state = str(repo / PROGRESS / "state.json")
    read = {"tool_name": "Read", "cwd": str(repo), "tool_input": {"file_path": state}}
    assert judge_event(None, "session", json.dumps(read).encode())[0]
    read["tool_name"] = "Write"  # the same event from a tool that writes: judged, refused
    assert not judge_event(None, "session", json.dumps(read).encode())[0]
