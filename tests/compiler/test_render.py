"""The generated spell machine behaves as the spec says, rule by rule."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import pytest

from codegen import load_spec
from codegen.model import Rule, Spec
from spellbook.machines import spell_machine
from tests.worlds import World, WorldFacts, cell_atoms, winner, winning_world, worlds

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec(ROOT / "spec" / "STATE_MACHINE.md", shown="spec/STATE_MACHINE.md")


def fire(spec: Spec, state: str, spell: str, world: World) -> spell_machine.Model:
    model = spell_machine.Model(WorldFacts(world))
    spell_machine.build(model, initial=state)
    trigger = getattr(model, spell_machine.TRIGGERS[spell])
    trigger()
    return model


@pytest.mark.parametrize("rule", SPEC.rules, ids=lambda r: f"{r.id}@{r.source}")
def test_rule_fires_where_it_wins(rule: Rule) -> None:
    world = winning_world(SPEC, rule)
    if world is None:
        # Never first in any world: the machine must never fire it either.
        for other in worlds(cell_atoms(SPEC, rule.source, rule.spell)):
            assert fire(SPEC, rule.source, rule.spell, other).fired != rule.id
        return
    model = fire(SPEC, rule.source, rule.spell, world)
    assert model.fired == rule.id
    assert model.state == rule.dest


@pytest.mark.parametrize(
    ("spec_file", "module"),
    [("STATE_MACHINE.md", "spell_machine"), ("SESSION_STATE_MACHINE.md", "session_machine")],
)
def test_machine_agrees_with_the_priority_policy_in_every_world(
    spec_file: str, module: str
) -> None:
    """Every cell, every consistent world: the generated machine fires the rule the
    policy picks, or nothing when no rule's condition holds."""
    spec = load_spec(ROOT / "spec" / spec_file)
    machine = import_module(f"spellbook.machines.{module}")
    checked = 0
    for state in spec.states:
        for spell in spec.spells:
            for world in worlds(cell_atoms(spec, state.name, spell.name)):
                expected = winner(spec, state.name, spell.name, world)
                model = machine.Model(WorldFacts(world))
                machine.build(model, initial=state.name)
                getattr(model, machine.TRIGGERS[spell.name])()
                if expected is None:
                    assert (model.fired, model.state) == (None, state.name)
                else:
                    assert (model.fired, model.state) == (expected.id, expected.dest)
                checked += 1
    print(f"\n{module}: {checked} (state, spell, world) combinations agree with the spec")
    assert checked > len(spec.states) * len(spec.spells)


def test_rule_win_figures() -> None:
    can_win = [r for r in SPEC.rules if winning_world(SPEC, r) is not None]
    never = sorted(
        {f"{r.id}@{r.source}" for r in SPEC.rules} - {f"{r.id}@{r.source}" for r in can_win}
    )
    print(f"\n{len(can_win)} of {len(SPEC.rules)} expanded rules can fire; never first: {never}")
    assert can_win


def test_generated_tables_match_the_model() -> None:
    assert spell_machine.SPEC == "spec/STATE_MACHINE.md"
    assert SPEC.sha256 == spell_machine.SPEC_SHA256
    assert [s.name for s in spell_machine.STATES] == [s.name for s in SPEC.states]
    assert spell_machine.INITIAL == SPEC.initial == "GATHER_NEEDS_PLAN"
    ordered = [
        (r.id, r.source, r.spell, r.dest)
        for st in SPEC.states
        for sp in SPEC.spells
        for r in SPEC.cell(st.name, sp.name)
    ]
    assert [(r.id, r.source, r.spell, r.dest) for r in spell_machine.RULES] == ordered


def test_machine_has_one_trigger_per_spell_and_internal_moves_for_kept_states() -> None:
    model = spell_machine.Model(WorldFacts({}))
    machine = spell_machine.build(model)
    assert sorted(machine.events) == sorted(spell_machine.TRIGGERS.values())
    internal = [
        t
        for ev in machine.events.values()
        for ts in ev.transitions.values()
        for t in ts
        if t.dest is None
    ]
    kept = [r for r in spell_machine.RULES if not r.changes_state]
    assert len(internal) == len(kept)


def test_may_trigger_answers_without_moving() -> None:
    from codegen.model import Atom

    world = {Atom("exists", "plan.md"): True}
    model = spell_machine.Model(WorldFacts(world))
    spell_machine.build(model, initial="GATHER_NEEDS_PLAN")
    assert model.may_accio() is True
    assert model.state == "GATHER_NEEDS_PLAN" and model.fired is None
