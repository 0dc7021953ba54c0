"""A workspace carried across a spec change: a state renamed with `*Formerly*` moves to its
new name, keeping its history, in a cast, in repair and in a judged move; a state gone
with no migration stops and names the spec change."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from codegen import parse_spec_text
from codegen.config import load_config
from codegen.render import render_machine
from spellbook import Workflow
from spellbook.records.errors import StateFileError
from tests.support.specs import renamed
from tests.support.workspaces import plan, write

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "spec" / "STATE_MACHINE.md"
READ_OPTIONS = load_config(ROOT).machine_for("spec/STATE_MACHINE.md").options
TEXT = PROJECT.read_text(encoding="utf-8")


def machine_of(text: str, name: str) -> ModuleType:
    spec = parse_spec_text(text, "spec/STATE_MACHINE.md", options=READ_OPTIONS)
    module = ModuleType(name)
    exec(compile(render_machine(spec, name), f"{name}.py", "exec"), module.__dict__)
    return module


def _editing(tmp_path: Path) -> list[dict[str, object]]:
    """A workspace the project's machine left in GATHER_EDITING; its history."""
    old = Workflow(tmp_path)
    old.cast("accio")
    write(tmp_path, "plan.md", plan(unchecked=1))
    old.cast("lumos")
    assert old.state == "GATHER_EDITING"
    history = json.loads((tmp_path / ".ai/task/state.json").read_text())["history"]
    assert len(history) == 2
    return list(history)


def test_a_workspace_in_a_renamed_state_moves_to_the_new_name_keeping_its_history(
    tmp_path: Path,
) -> None:
    before = _editing(tmp_path)
    text = renamed(TEXT, "GATHER_EDITING", "GATHER_PLAN_EDITING", migration=True)
    new = Workflow(tmp_path, machine=machine_of(text, "renamed"))  # type: ignore[arg-type]
    status = new.status()
    assert (status["state"], status["formerly"]) == ("GATHER_PLAN_EDITING", "GATHER_EDITING")
    result = new.cast("lumos")
    assert (result.before, result.after) == ("GATHER_PLAN_EDITING", "GATHER_PLAN_EDITING")
    assert (
        ".ai/task/state.json named GATHER_EDITING, which the spec now calls "
        "GATHER_PLAN_EDITING: the workflow moved there first" in result.response
    )
    saved = json.loads((tmp_path / ".ai/task/state.json").read_text())
    assert saved["current_state"] == "GATHER_PLAN_EDITING"
    history = saved["history"]
    assert history[:2] == before  # as the old machine wrote it
    assert history[2]["transition"] == "GATHER_EDITING → GATHER_PLAN_EDITING"
    assert history[2]["outcome"] == "migrated"
    assert history[3]["trigger"] == "Lumos" and len(history) == 4
    assert new.status()["formerly"] is None
    # and it goes on as the new spec says
    assert new.cast("accio").after == "ACHIEVE_TASK_DRAFTING"


def test_repair_records_the_move_to_the_new_name(tmp_path: Path) -> None:
    _editing(tmp_path)
    text = renamed(TEXT, "GATHER_EDITING", "GATHER_PLAN_EDITING", migration=True)
    new = Workflow(tmp_path, machine=machine_of(text, "renamed"))  # type: ignore[arg-type]
    said_ = new.repair()
    assert "named GATHER_EDITING, which the spec now calls GATHER_PLAN_EDITING" in said_
    history = json.loads((tmp_path / ".ai/task/state.json").read_text())["history"]
    assert [e["outcome"] for e in history][-1] == "migrated" and len(history) == 3
    assert "nothing to repair" in new.repair()


def test_a_state_gone_with_no_migration_stops_and_names_the_spec_change(tmp_path: Path) -> None:
    _editing(tmp_path)
    text = renamed(TEXT, "GATHER_EDITING", "GATHER_PLAN_EDITING", migration=False)
    new = Workflow(tmp_path, machine=machine_of(text, "renamed"))  # type: ignore[arg-type]
    with pytest.raises(StateFileError) as raised:
        new.cast("lumos")
    message = str(raised.value)
    assert "names state 'GATHER_EDITING', which spec/STATE_MACHINE.md does not have" in message
    assert "`- *Formerly*: GATHER_EDITING`" in message and "spell repair" in message


def test_a_move_made_by_hand_names_states_by_either_name(tmp_path: Path) -> None:
    _editing(tmp_path)
    text = renamed(TEXT, "GATHER_EDITING", "GATHER_PLAN_EDITING", migration=True)
    new = Workflow(tmp_path, machine=machine_of(text, "renamed"))  # type: ignore[arg-type]
    ok, why = new.judge("GATHER_EDITING", "ACHIEVE_TASK_DRAFTING")
    assert ok, why
    assert new.judge("GATHER_PLAN_EDITING", "ACHIEVE_COMPLETE")[0] is False


def test_a_failed_cast_after_a_migration_says_the_move_was_made(tmp_path: Path) -> None:
    from spellbook.records.errors import ActionError

    _editing(tmp_path)
    Workflow(tmp_path).cast("accio")  # ACHIEVE_TASK_DRAFTING, task.md from its template
    write(tmp_path, "task.md", "---\ntask_name: do-it\n---\n# Task\n\nDo it.\n")
    write(tmp_path, "task-results.md", "# Results\n")
    Workflow(tmp_path).cast("accio")  # ACHIEVE_TASK_EXECUTED
    # The frontmatter broken after A1 checked it: A2 cannot read task_name to archive.
    write(tmp_path, "task.md", "---\ntask_name: [unclosed\n---\n# Task\n\nDo it.\n")
    text = renamed(TEXT, "ACHIEVE_TASK_EXECUTED", "ACHIEVE_TASK_DONE", migration=True)
    new = Workflow(tmp_path, machine=machine_of(text, "renamed"))  # type: ignore[arg-type]
    with pytest.raises(ActionError) as raised:
        new.cast("accio")
    assert (
        "nothing was changed but the move from ACHIEVE_TASK_EXECUTED to ACHIEVE_TASK_DONE"
        in str(raised.value)
    )
    assert new.state == "ACHIEVE_TASK_DONE"


def test_a_cast_interrupted_before_the_rename_is_finished_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import spellbook.verbs.actions
    from spellbook.records.errors import Interrupted

    real = spellbook.verbs.operations.apply

    def crash(operations: list[list[str]], workspace: object, unmoved: object = None) -> list[str]:
        raise OSError("the disk went away")

    Workflow(tmp_path).cast("lumos")  # the state file names GATHER_NEEDS_PLAN
    monkeypatch.setattr(spellbook.verbs.operations, "apply", crash)
    with pytest.raises(Interrupted):
        Workflow(tmp_path).cast("accio")  # G1: GATHER_NEEDS_PLAN -> GATHER_EDITING
    monkeypatch.setattr(spellbook.verbs.operations, "apply", real)
    assert (tmp_path / ".ai/task/.intent.json").exists()
    text = renamed(TEXT, "GATHER_NEEDS_PLAN", "GATHER_NO_PLAN", migration=True)
    text = renamed(text, "GATHER_EDITING", "GATHER_PLAN_EDITING", migration=True)
    new = Workflow(tmp_path, machine=machine_of(text, "renamed"))  # type: ignore[arg-type]
    result = new.cast("lumos")
    assert result.before == "GATHER_PLAN_EDITING"
    assert (tmp_path / ".ai/task/plan.md").exists()
    history = json.loads((tmp_path / ".ai/task/state.json").read_text())["history"]
    assert [(e["transition"], e["outcome"]) for e in history] == [
        ("GATHER_NEEDS_PLAN → GATHER_NEEDS_PLAN", "noop"),
        ("GATHER_NEEDS_PLAN → GATHER_NO_PLAN", "migrated"),
        ("GATHER_NEEDS_PLAN → GATHER_EDITING", "transition"),  # as the cast wrote it
        ("GATHER_PLAN_EDITING → GATHER_PLAN_EDITING", "noop"),
    ]
