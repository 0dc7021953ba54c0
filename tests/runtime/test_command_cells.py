"""A cast in a cell whose rules use a command's outcome is whole in every shape of the
cell: no rule fires before the command is needed, the only candidate needs the command
and it passes, or it fails. No internal exception reaches the caller, and the history
entry and the response say what happened (before, an unhandled cast in the first shape
raised NeedsRun after its history entry was written)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from spellbook import Workflow
from tests.runtime.test_migrations import machine_of
from tests.support.fuzzing import fuzz

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


MIXED = """# Mixed

## States
- **A**: start
- **B**: middle
- **C**: end

## Spells
- **Go**: go
- **Halt**: halt

## Spell Transitions

| Rule | From | Spell | Condition | Action | Next State |
|---|---|---|---|---|---|
| R1 | A | Go | `x.md` exists AND the command `check` of `cfg.json` passes | - | B |
| R2 | A | Go | `x.md` missing AND `y.md` exists | - | C |
| R3 | B | Go | the command `check` of `cfg.json` fails | - | A |
| R4 | B | Go | `y.md` exists AND the command `check` of `cfg.json` passes | - | C |
| R5 | C | Go | the command `check` of `cfg.json` passes AND `x.md` exists | - | A |
| R6 | C | Go | the command `check` of `cfg.json` passes | - | Same state |
| R7 | Any state | Halt | `y.md` missing AND the command `check` of `cfg.json` passes | - | A |
"""
# Each rule of MIXED as (state or "*", spell, condition over x, y, passes, next state).
ORACLE = (
    ("A", "Go", lambda x, y, ok: x and ok, "B", "R1"),
    ("A", "Go", lambda x, y, ok: not x and y, "C", "R2"),
    ("B", "Go", lambda x, y, ok: not ok, "A", "R3"),
    ("B", "Go", lambda x, y, ok: y and ok, "C", "R4"),
    ("C", "Go", lambda x, y, ok: ok and x, "A", "R5"),
    ("C", "Go", lambda x, y, ok: ok, "C", "R6"),
    ("*", "Halt", lambda x, y, ok: not y and ok, "A", "R7"),
)


@fuzz(40)
@given(
    state=st.sampled_from("ABC"),
    spell=st.sampled_from(["Go", "Halt"]),
    x=st.booleans(),
    y=st.booleans(),
    passes=st.booleans(),
)
def test_no_exception_leaves_a_cast_in_cells_that_mix_commands_and_files(
    state: str, spell: str, x: bool, y: bool, passes: bool
) -> None:
    """Random worlds through a machine whose every cell mixes a command's outcome with
    file facts, with gaps before, between and after the command is needed: the cast
    returns, the rule is the oracle's, and the state file agrees with the result."""
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="mixed-"))
    try:
        (root / "cfg.json").write_text(json.dumps({"check": "exit 0" if passes else "exit 4"}))
        for name, present in (("x.md", x), ("y.md", y)):
            if present:
                (root / name).write_text(name)
        (root / "state.json").write_text(json.dumps({"current_state": state, "history": []}))
        flow = Workflow(root, machine=machine_of(MIXED, "mixed_command"))
        result = flow.cast(spell)  # any exception fails the test
        expected = next(
            (
                (rule, nxt)
                for src, sp, holds, nxt, rule in ORACLE
                if src in (state, "*") and sp == spell and holds(x, y, passes)
            ),
            (None, state),
        )
        assert (result.rule, result.after) == expected, result
        assert result.outcome == (
            "unhandled" if expected[0] is None else "noop" if expected[1] == state else "transition"
        )
        data = json.loads((root / "state.json").read_text())
        assert data["current_state"] == result.after
        (entry,) = data["history"]
        assert entry["rule"] == result.rule and entry["outcome"] == result.outcome
        assert "NeedsRun" not in result.response
    finally:
        shutil.rmtree(root, ignore_errors=True)
