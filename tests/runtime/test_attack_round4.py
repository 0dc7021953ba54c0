"""Defects an attack on the new verbs and facts found, each fixed and held here: a write
into `.git`, bytes rewritten that were not text, globs that take exponential time,
counters deleted by hand, `exists` through a symbolic link, values JSON cannot hold, a
copy after a move, extracted values in text, and paths no action may name."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from codegen.read.action_phrases import parse_actions
from codegen.read.lexicon import Dialect, Lexicon
from spellbook import Workflow
from spellbook.disk.state_file import Record
from spellbook.disk.store import Workspace
from spellbook.records.errors import ActionError, UnsafePath
from spellbook.schema import Action, Row, Rule
from spellbook.verbs.actions import plan

CORE = Lexicon.of(Dialect(""))


def problem(text: str, workspace: str = "") -> str:
    (action,) = parse_actions(text, workspace, CORE)
    return action.problem or action.hint or action.verb


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Move `tools/hook.sh` to `.git/hooks/pre-commit`", "in a .git folder"),
        ('Append "[core] fsmonitor = x" to `.git/config`', "in a .git folder"),
        ("Create `.GIT/config`", "in a .git folder"),
        ("Copy `docs/*.md` to out/", "not a file's name"),
        ("Move `notes-${date}.md` to old/", "not a file's name"),
        ('Append "x" to `<date>.log`', "not a file's name"),
        ('Append "x" to `.trash/note`', "Spellbook's own file"),
        ("Delete `.intent.json`", "Spellbook's own file"),
        ("Set big in r.json to 1e400", "not a JSON value"),
        ("Set big in r.json to NaN", "not a JSON value"),
    ],
)
def test_an_action_no_spec_may_take_is_refused_when_it_is_read(text: str, said: str) -> None:
    assert said in problem(text)


def test_the_runtime_never_touches_a_git_folder(tmp_path: Path) -> None:
    workspace = Workspace(str(tmp_path), "")
    for rel in (".git/config", "a/.git/hooks/x", ".Git./config"):
        with pytest.raises(UnsafePath, match=r"\.git folder"):
            workspace.path(rel)


def rule(*actions: Action) -> Rule:
    row = Row("R1", "Go", ("A",), actions=actions)
    return Rule(row, "A", "Go", "A", (0, 0))


def test_a_rule_acting_on_the_state_file_or_the_runtime_s_files_is_refused(
    tmp_path: Path,
) -> None:
    workspace = Workspace(str(tmp_path), ".w")
    moving = rule(Action("move", "Move state.json to old/", ("state.json", "old/")))
    with pytest.raises(ActionError, match="Spellbook's own file"):
        plan(moving, workspace, Record("A"), own=("state.json",))
    trash = rule(Action("append", 'Append "x" to .trash/n', (".trash/n",), "x"))
    with pytest.raises(ActionError, match="Spellbook's own file"):
        plan(trash, workspace, Record("A"))


def test_a_file_that_is_not_utf8_is_never_rewritten(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    log = tmp_path / ".w" / "log.txt"
    log.write_bytes(b"caf\xe9 na\xefve\n")
    workspace = Workspace(str(tmp_path), ".w")
    for action in (
        Action("append", 'Append "x" to log.txt', ("log.txt",), "x"),
        Action("copy", "Copy log.txt to b.txt", ("log.txt", "b.txt")),
        Action("set_field", "Set x in log.txt to 1", ("log.txt",), '["x", 1]'),
    ):
        with pytest.raises(ActionError, match="not UTF-8 text"):
            plan(rule(action), workspace, Record("A"))
    assert log.read_bytes() == b"caf\xe9 na\xefve\n"
    # A move only renames: any bytes may move.
    moved = plan(rule(Action("move", "Move log.txt to old/", ("log.txt", "old/"))), workspace)
    assert moved.operations == [["move", "log.txt", "old/log.txt"]]


def test_a_glob_of_many_double_stars_walks_each_folder_once(tmp_path: Path) -> None:
    deep = tmp_path / ".w"
    for _ in range(25):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "x.zz").write_text("")
    started = time.perf_counter()
    found = Workspace(str(tmp_path), ".w").glob("**/**/**/**/**/**/**/**/*.zz")
    assert found == ["d/" * 25 + "x.zz"]
    assert time.perf_counter() - started < 30  # exponential before: never finished


def test_exists_refuses_a_symbolic_link_on_the_way_as_reading_does(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_text("")
    (tmp_path / ".w").mkdir()
    os.symlink(outside, tmp_path / ".w" / "docs")
    with pytest.raises(UnsafePath, match="symbolic link"):
        Workspace(str(tmp_path), ".w").exists("docs/a.md")


def test_a_copy_after_a_move_writes_where_the_moved_file_was(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    (tmp_path / ".w" / "draft.md").write_text("old\n")
    (tmp_path / ".w" / "template.md").write_text("new\n")
    planned = plan(
        rule(
            Action("move", "Move draft.md to done/", ("draft.md", "done/")),
            Action("copy", "Copy template.md to draft.md", ("template.md", "draft.md")),
        ),
        Workspace(str(tmp_path), ".w"),
    )
    assert ["create", "draft.md", "new\n"] in planned.operations


def test_an_extracted_value_is_written_into_a_line_as_it_is(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    (tmp_path / ".w" / "r.json").write_text(json.dumps({"version": "2.0.0-RC.1+Build.7"}))
    planned = plan(
        rule(
            Action("extract", "Extract version from r.json", ("r.json",), "version"),
            Action("append", 'Append "v${version}" to C.md', ("C.md",), "v${version}"),
            Action("copy", "Copy r.json to r-${version}.json", ("r.json", "r-${version}.json")),
        ),
        Workspace(str(tmp_path), ".w"),
    )
    assert ["create", "C.md", "v2.0.0-RC.1+Build.7\n"] in planned.operations
    assert any(op[:2] == ["create", "r-2.0.0-rc.1-build.7.json"] for op in planned.operations)


def test_the_hook_refuses_a_counter_or_entered_at_deleted_by_hand(tmp_path: Path) -> None:
    from spellbook.machines import session_machine

    flow = Workflow(tmp_path, machine=session_machine)
    folder = tmp_path / ".claude" / "progress"
    folder.mkdir(parents=True)
    (folder / "state.json").write_text(
        json.dumps({"state": "IMPLEMENT", "attempts": 2, "entered_at": "2020-01-01T00:00:00Z"})
    )
    allowed, why = flow.judge_file(b'{"state": "IMPLEMENT", "entered_at": "2020-01-01T00:00:00Z"}')
    assert not allowed and "leaves out `attempts`" in why
    allowed, why = flow.judge_file(b'{"state": "IMPLEMENT", "attempts": 2}')
    assert not allowed and "leaves out `entered_at`" in why
