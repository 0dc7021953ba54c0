"""Hostile input, third round: a workspace outside the repository, a drive in a path, and
frontmatter values YAML renames (issue items 3, 15 and 16; item 1 is held by
tests/compiler/test_freshness_bytes.py, item 5 by test_attack_round4.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codegen import parse_spec_text
from codegen.read.conditions import parse_condition
from codegen.read.lexicon import Dialect, Lexicon
from codegen.spec_error import SpecError
from spellbook import Workflow
from spellbook.disk.store import Workspace
from spellbook.records.errors import ActionError, UnsafePath
from tests.workspaces import TASK, plan, set_state, write

SPEC = """\
# S

### Spells

1. **Go**

### States

1. **A**
    - *Description*: a
    - *Valid Actions*: Go

### State Persistence

The state is kept in `STATE`.

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| G1 | A | Go | - | Same state | No state change | Done. |
"""


@pytest.mark.parametrize(
    "state_file",
    [
        "../escaped/state.json",
        "/tmp/state.json",
        "~/state.json",
        "C:/w/state.json",
        "a/../../state.json",
        ".git/state.json",
    ],
)
def test_a_state_file_outside_the_repository_is_refused_at_its_line(state_file: str) -> None:
    with pytest.raises(SpecError, match="not a path inside the repository") as err:
        parse_spec_text(SPEC.replace("STATE", state_file))
    assert err.value.line == 15


@pytest.mark.parametrize("folder", ["../escaped", "/tmp/x", "~/x", "C:/x", "a/../..", ".git"])
def test_the_runtime_refuses_a_workspace_outside_the_repository(
    tmp_path: Path, folder: str
) -> None:
    with pytest.raises(UnsafePath, match="not a folder inside the repository"):
        Workspace(str(tmp_path), folder)


def test_a_path_with_a_drive_is_refused_by_the_verifier_as_by_the_runtime() -> None:
    condition = parse_condition("`C:/x.md` exists", Lexicon.of(Dialect("")), ".w")
    assert condition.unknown


@pytest.mark.parametrize(
    ("written", "read"), [("0x1f", "31"), ("017", "15"), ("1:20", "80"), ("1.5e+3", "1500.0")]
)
def test_a_name_yaml_reads_as_another_number_is_refused_not_renamed(
    tmp_path: Path, written: str, read: str
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", f"---\ntask_name: {written}\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    with pytest.raises(ActionError, match=re.escape(f"`{written}` is read by YAML as {read}")):
        Workflow(tmp_path).cast("accio")
    assert (tmp_path / TASK / "task.md").is_file()  # nothing moved


def test_a_number_written_as_yaml_reads_it_names_the_folder(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", "---\ntask_name: 42\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    assert Workflow(tmp_path).cast("accio").archive.startswith(f"{TASK}/tasks/task-42-")
