"""A machine generated from a spec with gaps (`allow_errors`): a (state, spell) no rule
covers, a state no rule leaves, a spell no state allows. Every spell is still a trigger
of the model, whatever states the machine was built from; status says that such a spell
does nothing in the state and why, its cast is unhandled with nothing changed, and a move
made by hand is judged, as in any other state."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from spellbook import Workflow
from tests.runtime.test_migrations import machine_of
from tests.support.specs import row, spec_text

MACHINES = {
    # Poke has no rule in B.
    "a gap": [row("R1", "A", "Go", nxt="B"), row("R2", "B", "Go", nxt="A"), row("R3", "A", "Poke")],
    # No rule leaves B, or is for any spell there.
    "a state no rule leaves": [row("R1", "A", "Go", nxt="B"), row("R2", "A", "Poke")],
    # No state allows Poke.
    "a spell no state allows": [row("R1", "A", "Go", nxt="B"), row("R2", "B", "Go", nxt="A")],
}


def machine(kind: str) -> ModuleType:
    return machine_of(spec_text(["A", "B"], ["Go", "Poke"], MACHINES[kind]), "gaps")


def in_state(root: Path, state: str) -> None:
    (root / "state.json").write_text(json.dumps({"current_state": state}), encoding="utf-8")


@pytest.mark.parametrize("kind", list(MACHINES))
def test_status_says_a_spell_no_rule_covers_in_the_state_does_nothing(
    kind: str, tmp_path: Path
) -> None:
    in_state(tmp_path, "B")
    status = Workflow(tmp_path, machine=machine(kind)).status()  # type: ignore[arg-type]
    assert status["state"] == "B"
    assert status["spells"]["Poke"] == "nothing: the spec has no rule for it in B"


@pytest.mark.parametrize("kind", list(MACHINES))
def test_a_cast_no_rule_covers_in_the_state_is_unhandled_and_changes_nothing(
    kind: str, tmp_path: Path
) -> None:
    in_state(tmp_path, "B")
    result = Workflow(tmp_path, machine=machine(kind)).cast("poke")  # type: ignore[arg-type]
    assert (result.outcome, result.rule, result.before, result.after) == (
        "unhandled",
        None,
        "B",
        "B",
    )
    assert "You cast **Poke**, but the spec has no rule for it in **B**. Nothing" in (
        result.response
    )
    assert "- **Poke**: nothing: the spec has no rule for it in **B**" in result.response
    saved = json.loads((tmp_path / "state.json").read_text(encoding="utf-8"))
    assert saved["current_state"] == "B"
    assert [e["outcome"] for e in saved["history"]] == ["unhandled"]


@pytest.mark.parametrize("kind", list(MACHINES))
def test_a_move_by_hand_is_judged_in_a_state_with_a_gap(kind: str, tmp_path: Path) -> None:
    in_state(tmp_path, "B")
    flow = Workflow(tmp_path, machine=machine(kind))  # type: ignore[arg-type]
    assert flow.judge("B", "B") == (True, "B stays B")
    allowed, why = flow.judge("B", "A")
    assert allowed is (kind != "a state no rule leaves"), why
    assert flow.judge_file(b'{"current_state": "B"}')[0] is True


def test_a_gap_is_told_apart_from_rules_that_do_not_apply_now(tmp_path: Path) -> None:
    text = spec_text(
        ["A", "B"],
        ["Go", "Poke"],
        [row("R1", "A", "Go", "x.md exists", nxt="B"), row("R2", "A", "Poke")],
    )
    flow = Workflow(tmp_path, machine=machine_of(text, "gaps"))  # type: ignore[arg-type]
    assert flow.status()["spells"]["Go"] == "nothing: no rule of the spec applies now"
    result = flow.cast("go")
    assert result.outcome == "unhandled"
    assert "the spec has no rule for it in **A** when x.md missing." in result.response


@pytest.mark.parametrize("kind", list(MACHINES))
def test_every_spell_is_a_trigger_whatever_states_the_machine_is_built_from(kind: str) -> None:
    module = machine(kind)

    class Facts:
        def check(self, probe: str, file: str, param: str) -> bool:
            return True

    for sources in (("B",), None):
        model = module.Model(Facts())
        module.build(model, initial="B", sources=sources)
        assert model.may_poke() is False and model.poke() is False
        assert (model.state, model.fired, model.refused) == ("B", None, None)
        assert "Poke" not in model.available_spells()
