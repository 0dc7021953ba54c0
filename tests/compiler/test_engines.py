"""The two engines of the verifier agree: a cell of up to 16 facts is checked on sets of
worlds (`Worlds`), a larger one with a SAT solver (`codegen.solver`); on random cells
of up to 12 facts, with implications, exclusions and facts nothing defines, the
solver gives the same result, example worlds included. Then cells far past 16 facts
(64, 200) are checked with findings, where they used to be `cell_too_complex`."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.cells import Signature, _analyse, _symbolic, signature
from codegen.config import options_for
from codegen.diff.cells import _held_pairs, _pairs
from codegen.logic import closure, describer
from codegen.model import Atom, LiteralSpec
from codegen.read.conditions import parse_condition
from codegen.read.lexicon import Lexicon, ReadOptions
from codegen.spec_error import SpecError
from tests.support.spec_builders import wide
from tests.support.specs import one_machine_cases

PHRASES = [
    "a.md exists",
    "b.md exists",
    'p.md has checklist items under "Goals"',
    "≥1 AC in p.md",
    "≥1 unchecked AC in p.md",
    "attempts < 3",
    "attempts < 5",
    "x.md is newer than y.md",
    "y.md is newer than x.md",
    "the moon is full",
    "the tide is low",
]
LEXICON = Lexicon.of(ReadOptions("spell_workflow"))
POOL: list[Atom] = sorted(
    {lit.atom for p in PHRASES for c in parse_condition(p, LEXICON).clauses for lit in c}
)


# Facts of one JSON key, some pairs of which hold together only of a list: the example
# world shown is one that one value makes, where there is one, by either engine.
JSON_PHRASES = [
    "r.json has `k`",
    'r.json has `k` = ""',
    'r.json has `k` = "x"',
    'r.json has `k` ≠ "x"',
    "count of k in r.json ≥ 2",
    "a.md exists",
    "the moon is full",
]
JSON_POOL: list[Atom] = sorted(
    {lit.atom for p in JSON_PHRASES for c in parse_condition(p, LEXICON).clauses for lit in c}
)


@st.composite
def cells(draw: st.DrawFn, pool: list[Atom] = POOL) -> Signature:
    literal = st.builds(LiteralSpec, st.sampled_from(pool), st.booleans())
    alternative = st.lists(literal, min_size=0, max_size=3, unique_by=lambda lit: lit.atom)
    condition = st.lists(alternative.map(tuple), min_size=1, max_size=3, unique=True)
    rules = st.tuples(st.integers(0, 1), condition.map(tuple))
    return tuple(draw(st.lists(rules, min_size=1, max_size=7)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells() | cells(JSON_POOL))
def test_the_solver_gives_what_the_sets_of_worlds_give(sig: Signature) -> None:
    atoms = closure(lit.atom for _, clauses in sig for clause in clauses for lit in clause)
    assert len(atoms) <= 16
    listed = _analyse.__wrapped__(sig)  # type: ignore[attr-defined]
    solved = _symbolic(sig, atoms)
    assert solved is not None
    assert solved == listed


def test_cells_of_64_and_200_facts_are_checked_with_findings() -> None:
    for facts in (64, 200):
        found = analyse(parse_spec_text(wide(facts), "spec/WIDE.md"))
        kinds = {f.kind for f in found}
        assert "cell_too_complex" not in kinds
        (dead,) = [f for f in found if f.kind == "dead_rule"]
        assert dead.rule == "R3" and "R1 comes first" in dead.message
        overlaps = {
            (f.rule, f.message.split(" both fire when ")[0]) for f in found if f.kind == "overlap"
        }
        assert ("R2", "Go in A: rules R1 and R2") in overlaps, overlaps
        assert "gap" not in kinds  # K takes every other world


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cells(), cells())
def test_the_diff_says_the_same_worlds_in_the_same_words_either_way(
    old: Signature, new: Signature
) -> None:
    was = tuple(clauses for _, clauses in old)
    now = tuple(clauses for _, clauses in new)
    listed = _pairs.__wrapped__(was, now)  # type: ignore[attr-defined]
    assert listed is not None
    atoms, by_sets = listed
    by_formula = _held_pairs(was, now, atoms)
    assert list(by_formula) == list(by_sets)  # the same pairs, in the same order
    when = describer({})
    for pair, worlds in by_sets.items():
        assert when(atoms, by_formula[pair]) == when(atoms, worlds), pair


ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted(
    [
        *(ROOT / "spec").glob("*.md"),
        *(ROOT / "tests" / "data" / "fixtures").glob("*.md"),
        *one_machine_cases(ROOT),
    ]
)


@pytest.mark.parametrize("path", SPECS, ids=lambda p: str(p.relative_to(ROOT)))
def test_both_engines_give_every_cell_of_the_shipped_specs_the_same_result(path: Path) -> None:
    try:
        spec = load_spec(path, options=options_for(path, ROOT, trust=True))
    except SpecError:
        pytest.skip("a case of a spec that cannot be read")
    checked = 0
    for state in spec.states:
        for spell in spec.spells:
            rules = spec.cell(state.name, spell.name)
            sig = signature(rules)
            atoms = closure(lit.atom for _, c in sig for clause in c for lit in clause)
            if rules and len(atoms) <= 16:
                assert _symbolic(sig, atoms) == _analyse.__wrapped__(sig), (state, spell)  # type: ignore[attr-defined]
                checked += 1
    assert checked or not spec.rules
