"""Property tests: on small random machines, the verifier agrees with brute force.

Hypothesis writes specs with random rows (explicit and wildcard sources, random
conditions over a few files and plan.md's acceptance criteria, with OR and with
phrases nothing defines, all kinds of Next State). For every (state, spell,
world) the oracle in tests/worlds.py picks the winner by the priority policy;
gaps, overlaps, dead rules and unreachable states must be exactly what the
verifier reports. A gap or an overlap counts only where it happens whatever the
undefined phrases mean: for some values of the known facts, for every value of
the unknown ones.
"""

from __future__ import annotations

from collections import deque

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.model import Spec
from codegen.read.lexicon import Dialect
from tests.specs import row, spec_text
from tests.worlds import cell_atoms, holds, winner, worlds

STATES = ["S0", "S1", "S2", "S3"]
SPELLS = ["Go", "Hop"]
PHRASES = [
    "a.md exists",
    "a.md missing",
    "b.md exists",
    "b.md missing",
    "c.md exists",
    "≥1 AC in p.md",
    "No AC in p.md",
    "No unchecked AC in p.md",
    "≥1 unchecked AC in p.md",
    "p.md missing",
    "a.md exists OR b.md missing",
    "c.md missing OR No AC in p.md",
    "the moon is full",
    "the tide is low",
]
DIALECT = Dialect("spell_workflow")


@st.composite
def machines(draw: st.DrawFn) -> str:
    states = STATES[: draw(st.integers(2, 4))]
    spells = SPELLS[: draw(st.integers(1, 2))]
    rows = []
    for i in range(draw(st.integers(1, 9))):
        shape = draw(st.sampled_from(["list", "any", "except"]))
        if shape == "list":
            current = ", ".join(
                draw(st.lists(st.sampled_from(states), min_size=1, max_size=3, unique=True))
            )
        elif shape == "any":
            current = "Any state"
        else:
            current = "Any state except " + draw(st.sampled_from(states))
        phrases = draw(st.lists(st.sampled_from(PHRASES), max_size=2, unique=True))
        target = draw(st.sampled_from([*states, "Same state", "[BLOCKED]"]))
        rows.append(
            row(
                f"R{i}",
                current,
                draw(st.sampled_from(spells)),
                " AND ".join(phrases) or "-",
                target,
            )
        )
    return spec_text(states, spells, rows)


def brute_force(spec: Spec) -> dict[str, set[object]]:
    gaps: set[object] = set()
    overlaps: set[object] = set()
    won: set[tuple[str, int]] = set()
    edges: dict[str, set[str]] = {s.name: set() for s in spec.states}
    for state in spec.states:
        for spell in spec.spells:
            rules = spec.cell(state.name, spell.name)
            if not rules:
                continue
            # Known facts -> (does some rule fire for some unknown value, the rules that
            # fire for every unknown value).
            by_known: dict[tuple[object, ...], tuple[bool, set[int]]] = {}
            for world in worlds(cell_atoms(spec, state.name, spell.name)):
                known = tuple(sorted((a, v) for a, v in world.items() if a.probe != "unknown"))
                firing = {i for i, r in enumerate(rules) if holds(r.condition, world)}
                some, every = by_known.get(known, (False, firing))
                by_known[known] = (some or bool(firing), every & firing)
                best = winner(spec, state.name, spell.name, world)
                if best is not None:
                    won.add((best.source, best.line))
                    if best.changes_state:
                        edges[state.name].add(best.dest)
            for some, every in by_known.values():
                if not some:
                    gaps.add((spell.name, state.name))
                if len(every) > 1:
                    first = rules[min(every)]
                    for i in every:
                        other = rules[i]
                        if other is not first and other.specificity == first.specificity:
                            overlaps.add((spell.name, state.name, first.id, other.id))
    dead = {
        r.line
        for r in spec.rules
        if not any((x.source, x.line) in won for x in spec.rules if x.line == r.line)
    }
    reached = {spec.initial}
    queue = deque([spec.initial])
    while queue:
        for dest in edges[queue.popleft()]:
            if dest not in reached:
                reached.add(dest)
                queue.append(dest)
    unreachable = {s.name for s in spec.states} - reached
    return {"gap": gaps, "overlap": overlaps, "dead": dead, "unreachable": set(unreachable)}


def reported(spec: Spec) -> dict[str, set[object]]:
    findings = analyse(spec)
    out: dict[str, set[object]] = {
        "gap": set(),
        "overlap": set(),
        "dead": set(),
        "unreachable": set(),
    }
    for f in findings:
        if f.kind == "gap":
            out["gap"].update((f.spell, s) for s in f.states)
        elif f.kind in ("overlap", "conflict"):
            first = f.message.split("rules ", 1)[1].split(" and ", 1)[0]
            out["overlap"].update((f.spell, s, first, f.rule) for s in f.states)
        elif f.kind == "dead_rule":
            out["dead"].add(f.line)
        elif f.kind == "unreachable_state":
            out["unreachable"].add(f.state)
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(machines())
def test_verifier_agrees_with_brute_force(text: str) -> None:
    spec = parse_spec_text(text, dialect=DIALECT)
    assert reported(spec) == brute_force(spec)


@settings(max_examples=100, deadline=None)
@given(machines())
def test_every_cell_has_rules_in_priority_order(text: str) -> None:
    spec = parse_spec_text(text, dialect=DIALECT)
    for state in spec.states:
        for spell in spec.spells:
            priorities = [r.priority for r in spec.cell(state.name, spell.name)]
            assert priorities == sorted(priorities)
