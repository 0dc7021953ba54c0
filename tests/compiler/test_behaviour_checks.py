"""What the machine does in every world: on small random machines, the verifier agrees
with brute force.

Hypothesis writes the specs (tests/support/random_specs.py). For every (state, spell,
world) the oracle in tests/support/worlds.py picks the winner by the priority policy;
gaps, overlaps, dead rules and unreachable states must be exactly what the
verifier reports. A gap or an overlap counts only where it happens whatever the
undefined phrases mean: for some values of the known facts, for every value of
the unknown ones.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.model import Spec
from tests.support.random_specs import READ_OPTIONS, machines
from tests.support.specs import fill, row, spec_text
from tests.support.worlds import cell_atoms, holds, winner, worlds

STATES, SPELLS = ["A", "B"], ["Go"]


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
    spec = parse_spec_text(text, options=READ_OPTIONS)
    assert reported(spec) == brute_force(spec)


def test_counter_limits_imply_each_other() -> None:
    rows = [
        row("T1", "A", "Go", "attempts < 3", "B", "Update state to B"),
        row("T2", "A", "Go", "attempts ≥ 3 AND attempts < 5", "B", "Update state to B"),
        row("T3", "A", "Go", "attempts ≥ 5"),
        row("T4", "A", "Go", "attempts < 2"),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS, ["A/Go"])))
    found = {(f.kind, f.rule) for f in analyse(spec)}
    assert ("dead_rule", "T4") in found  # `attempts < 2` is within `attempts < 3`
    # No gap, and no overlap in an impossible world (`attempts < 3` and `attempts ≥ 5`).
    assert {(k, r) for k, r in found if k in ("gap", "overlap")} == {("overlap", "T4")}


def test_a_gap_says_the_facts_another_fact_of_it_implies_as_following_from_it() -> None:
    """A world is said by the facts that pick it: `draft.md missing`, and what that
    implies after it, as following from it (`so draft.md is not filled in`), never side
    by side, where the two seem to contradict each other."""
    rows = [
        row("T1", "A", "Go", "draft.md is filled in", "B", "Update state to B"),
        row("T2", "A", "Go", "draft.md exists AND draft.md is not filled in", "[BLOCKED]"),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS, ["A/Go"])))
    (gap,) = [f for f in analyse(spec) if f.kind == "gap"]
    assert gap.world == "draft.md missing (so draft.md is not filled in)", gap.message
    assert "when draft.md missing (so draft.md is not filled in) (the cell's" in gap.message


def test_an_overlap_only_a_list_makes_says_so_and_a_list_makes_it(tmp_path: Path) -> None:
    """`has `reviewer`` and `has `reviewer` = ""` both hold only where `reviewer` is a list
    holding "": the overlap is real (a file makes both rows fire), and its world says
    what it takes. Where one value makes two rows fire, that is the world shown."""
    from spellbook.disk.state_file import Record
    from spellbook.disk.store import Workspace
    from spellbook.facts.answers import Facts

    rows = [
        row("T1", "A", "Go", "task.md frontmatter has `reviewer`", "B", "Update state to B"),
        row("T2", "A", "Go", 'task.md frontmatter has `reviewer` = ""'),
        row("T3", "A", "Go", "task.md frontmatter has no `reviewer`"),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS, ["A/Go"])))
    said = {(f.rule, f.world) for f in analyse(spec) if f.kind == "overlap"}
    assert said == {
        (
            "T2",
            'task.md frontmatter has `reviewer`, task.md frontmatter has `reviewer` = "" '
            "(so task.md exists; only where `reviewer` is a list)",
        ),
        (
            "T3",
            'task.md frontmatter has no `reviewer`, task.md frontmatter has `reviewer` = "" '
            "(so task.md exists)",
        ),
    }
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "task.md").write_text('---\nreviewer: ["", "ann"]\n---\n# Task\n')
    facts = Facts(Workspace(str(tmp_path), "ws"), Record("S"))
    firing = [
        r.id
        for r in spec.cell("A", "Go")
        if any(
            all(
                facts.check(lit.atom.probe, lit.atom.file, lit.atom.param) == lit.positive
                for lit in clause
            )
            for clause in r.condition.clauses
        )
    ]
    assert firing == ["T1", "T2"]

    either = 'task.json has `reviewer` = "" OR task.json has `reviewer` = "bob"'
    rows = [
        row("T1", "A", "Go", "task.json has `reviewer`", "B", "Update state to B"),
        row("T2", "A", "Go", either),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS, ["A/Go"])))
    (overlap,) = [f for f in analyse(spec) if f.kind == "overlap" and f.rule == "T2"]
    assert overlap.world == (
        'task.json has no `reviewer` = "", task.json has `reviewer` = "bob" '
        "(so task.json exists, task.json has `reviewer`)"
    )


_PICKING = """# C

State is kept in `.c/state.json`.

| ID | Current State | Event | Condition | Next State | Action | Response |
|----|---|---|---|---|---|---|
| R1 | PICKING | Pack | list.md exists | PACKED | - | Packed. |
| R2 | PICKING | Pack | list.md missing | Same state | - | {advice} |
| R3 | PICKING | Pick | - | [BLOCKED] | - | Already picking. |
| R4 | PACKED | Pick | - | PICKING | - | Again. |
| R5 | PACKED | Pack | - | [BLOCKED] | - | Done. |
"""


@pytest.mark.parametrize(
    ("advice", "named"),
    [
        ("Pick every item first.", False),  # the word, beginning a sentence
        ('The list is short. "Pick every item first."', False),
        ("Then cast Pick.", True),  # the spell, inside a sentence
        ("**Pick** every item first.", True),  # marked: the spell
        ("`Pick` first.", True),
    ],
)
def test_a_spell_s_name_beginning_a_sentence_is_the_word_unless_marked(
    advice: str, named: bool
) -> None:
    """misleading_advice reads a spell's name where the Response names the spell: not an
    ordinary word that happens to be the name, beginning a sentence unmarked."""
    from codegen import parse_spec_text
    from codegen.analyse import analyse

    spec = parse_spec_text(_PICKING.format(advice=advice), "spec/C.md")
    found = [f for f in analyse(spec) if f.kind == "misleading_advice"]
    assert bool(found) is named, [f.message for f in found]


_TWO_SPELLS = """# C

State is kept in `.c/state.json`.

| ID | Current State | Event | Condition | Next State | Action | Response |
|----|---|---|---|---|---|---|
| R1 | STUCK | Undo | - | [BLOCKED] | - | Nothing to undo here. |
| R2 | STUCK | Peek, Undo | - | [BLOCKED] | - | Cannot run Peek here. Fix it with Go first. |
| R3 | STUCK | Go | - | FREE | - | Free. |
| R4 | FREE | Peek, Undo | - | Same state | - | Looked. |
| R5 | FREE | Go | - | [BLOCKED] | - | Already free. |
"""


def test_advice_is_judged_only_where_the_row_fires() -> None:
    """misleading_advice reads a Response only in the cells where its row wins: R2's
    words about Peek are its own answer to Peek in STUCK, and its Undo never fires
    there (R1 comes first), so no one is ever told them after an Undo."""
    from codegen import parse_spec_text
    from codegen.analyse import analyse

    found = analyse(parse_spec_text(_TWO_SPELLS, "spec/C.md"))
    assert [f.message for f in found if f.kind == "misleading_advice"] == []
    assert [f.rule for f in found if f.kind == "shadowed_rule"] == ["R2"]
    # Where the row does fire for the other spell, its words about Peek are advice.
    without = _TWO_SPELLS.replace(
        "| R1 | STUCK | Undo | - | [BLOCKED] | - | Nothing to undo here. |\n", ""
    )
    fired = parse_spec_text(without, "spec/C.md")
    (advice,) = [f for f in analyse(fired) if f.kind == "misleading_advice"]
    assert advice.rule == "R2" and advice.spell == "Peek", advice.message


_NESTED = """# Player

## Transitions

| From | Event | To |
|---|---|---|
| stopped | play | playing |
| playing | stop | stopped |

### Playing (composite)

| From | Event | To |
|---|---|---|
| buffering | ready | streaming |
| streaming | stall | buffering |
"""


def test_a_table_under_a_heading_sharing_no_state_with_the_start_says_why_it_is_unreachable() -> (
    None
):
    # A composite state's table under its own heading was read into one flat machine:
    # only "cannot be reached", with no word of the heading or of nested states.
    found = [
        f for f in analyse(parse_spec_text(_NESTED, "player.md")) if f.kind == "unreachable_state"
    ]
    assert [f.state for f in found] == ["buffering", "streaming"]
    assert all(
        "its rows, under 'Playing (composite)', share no state with those under 'Transitions'"
        in f.message
        and "not as states nested in another" in f.message
        for f in found
    )
    joined = _NESTED.replace("| streaming | stall | buffering |", "| streaming | stall | playing |")
    joined = joined.replace("| stopped | play | playing |", "| stopped | play | buffering |")
    assert not [
        f for f in analyse(parse_spec_text(joined, "player.md")) if f.kind == "unreachable_state"
    ]
