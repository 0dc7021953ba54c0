"""`spell repair`: a damaged state file is put right to the state it still names, its
fields kept, and an interrupted cast that cannot be finished is set aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands import clean, session_cli, spell
from tests.sessions import PROGRESS, session_in
from tests.workspaces import (
    TASK,
    executed,
    files,
    history,
    history_entries,
    plan,
    set_state,
    task,
    write,
)


def test_a_lone_surrogate_in_the_state_file_is_refused_and_repair_keeps_the_state(
    tmp_path: Path,
) -> None:
    executed(tmp_path)
    state = tmp_path / TASK / "state.json"
    state.write_text('{"current_state": "ACHIEVE_TASK_EXECUTED",\n "context": {"note": "\\ud83d"}}')
    before = files(tmp_path)
    result = spell(tmp_path, "accio")
    assert result.returncode == 2
    assert "state.json:2" in clean(result) and "surrogate" in result.stderr
    assert files(tmp_path) == before  # A2 moved nothing
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "Chose ACHIEVE_TASK_EXECUTED: the damaged file still names it" in repaired.stdout
    assert spell(tmp_path, "accio").returncode == 0
    assert history(tmp_path)[-1]["rule"] == "A2"


@pytest.mark.timeout(120)
def test_repair_keeps_a_state_file_that_is_only_too_large(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_REVIEW_TASK_DRAFT_G", history_entries(80_000))
    size = (tmp_path / TASK / "state.json").stat().st_size
    assert size > 10_000_000
    result = spell(tmp_path, "lumos")
    assert result.returncode == 2 and "spell repair" in clean(result)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "The workflow is in PR_REVIEW_TASK_DRAFT_G" in repaired.stdout
    assert not list((tmp_path / TASK).glob("state.json.bad-*"))
    assert json.loads((tmp_path / TASK / "state.json").read_text())["current_state"] == (
        "PR_REVIEW_TASK_DRAFT_G"
    )
    assert spell(tmp_path, "lumos").returncode == 0


def test_repair_sets_aside_an_interrupted_cast_that_cannot_be_finished(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", task())
    write(tmp_path, "tasks", "a file where the archive folder goes\n")
    entry = {
        "timestamp": "2026-01-01T00:00:00Z",
        "transition": "x",
        "trigger": "Accio",
        "rule": "A2",
        "outcome": "transition",
        "cast": "c0ffee000000",
    }
    intent = {
        "cast": "c0ffee000000",
        "before": "ACHIEVE_TASK_EXECUTED",
        "after": "ACHIEVE_TASK_DRAFTING",
        "entry": entry,
        "extra": {},
        "operations": [["folder", "tasks/x"], ["move", "task.md", "tasks/x/task.md"]],
    }
    write(tmp_path, ".intent.json", json.dumps(intent))
    stuck = spell(tmp_path, "lumos")
    assert stuck.returncode in (1, 2) and "tasks" in clean(stuck)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "Set its record aside" in repaired.stdout
    assert spell(tmp_path, "lumos").returncode == 0
    assert (tmp_path / TASK / "task.md").exists()


def test_repair_keeps_the_fields_a_damaged_state_file_still_holds(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true")
    state = tmp_path / PROGRESS / "state.json"
    state.write_text(
        '{"state": "TEST", "feature_id": "F1", "attempts": 2, "context": {"x": "\\ud83d"}}'
    )
    repaired = session_cli("--root", str(tmp_path), "repair")
    assert repaired.returncode == 0, repaired.stderr
    kept = json.loads(state.read_text())
    assert (kept["state"], kept["feature_id"], kept["attempts"]) == ("TEST", "F1", 2)
