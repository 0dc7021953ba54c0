"""A cast in a cell whose rules use a command's outcome is whole in every shape of the
cell: no rule fires before the command is needed, the only candidate needs the command
and it passes, or it fails. No internal exception reaches the caller, and the history
entry and the response say what happened (before, an unhandled cast in the first shape
raised NeedsRun after its history entry was written)."""

from __future__ import annotations

import json
from pathlib import Path

from spellbook import Workflow
from tests.runtime.test_migrations import machine_of

SPEC = """# Go

## States
- **A**: start
- **B**: done

## Spells
- **Go**: go

## Spell Transitions

| Rule | From | Spell | Condition | Action | Next State |
|---|---|---|---|---|---|
| R1 | A | Go | `x.md` exists AND the command `check` of `cfg.json` passes | - | B |
| R2 | B | Go | - | - | Same state |
"""


def _flow(tmp_path: Path, command: str, x: bool) -> Workflow:
    (tmp_path / "cfg.json").write_text(json.dumps({"check": command}))
    if x:
        (tmp_path / "x.md").write_text("x\n")
    return Workflow(tmp_path, machine=machine_of(SPEC, "go_command"))


def _history(tmp_path: Path) -> list[dict[str, object]]:
    data = json.loads((tmp_path / "state.json").read_text())
    return list(data["history"])


def test_no_rule_fires_before_the_command_is_needed(tmp_path: Path) -> None:
    result = _flow(tmp_path, "touch RAN", x=False).cast("Go")
    assert (result.outcome, result.rule, result.after) == ("unhandled", None, "A")
    assert "(not run: no rule needed it)" in result.response
    assert not (tmp_path / "RAN").exists()
    (entry,) = _history(tmp_path)
    assert entry["outcome"] == "unhandled" and entry["rule"] is None


def test_the_only_candidate_needs_the_command_and_it_passes(tmp_path: Path) -> None:
    result = _flow(tmp_path, "touch RAN", x=True).cast("Go")
    assert (result.outcome, result.rule, result.after) == ("transition", "R1", "B")
    assert (tmp_path / "RAN").exists()
    (entry,) = _history(tmp_path)
    assert entry["rule"] == "R1"


def test_the_command_fails(tmp_path: Path) -> None:
    result = _flow(tmp_path, "echo broken; exit 3", x=True).cast("Go")
    assert (result.outcome, result.rule, result.after) == ("unhandled", None, "A")
    # The response says the command failed, as it ran, not that it was not run.
    assert "the command `check` of cfg.json fails" in result.response
    assert "not run" not in result.response
    (entry,) = _history(tmp_path)
    assert entry["outcome"] == "unhandled"
    runs = json.loads((tmp_path / "state.json").read_text())["runs"]
    assert runs["check"]["status"] == 3
