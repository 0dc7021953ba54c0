"""Notation expansion and the priority policy, each form on a small spec, and every cell's
rules in priority order on random ones."""

from __future__ import annotations

from hypothesis import given, settings

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.model import Kind, Specificity
from tests.support.random_specs import READ_OPTIONS, machines
from tests.support.specs import fill, findings_of, row, spec_text

STATES = ["START", "WORK_G", "WORK_A", "DONE_G", "DONE_A"]
SPELLS = ["Go", "Look"]


def line_of(text: str, prefix: str) -> int:
    return next(i for i, ln in enumerate(text.split("\n"), 1) if ln.startswith(prefix))


def kinds(text: str) -> list[str]:
    return [f.kind for f in findings_of(text)]


def test_families_group_one_letter_suffixes() -> None:
    spec = parse_spec_text(spec_text(STATES, SPELLS, fill(STATES, SPELLS)))
    assert [f.name for f in spec.families] == ["START", "WORK_[G/A]", "DONE_[G/A]"]
    assert spec.family_of("DONE_A").members == ("DONE_G", "DONE_A")
    assert spec.initial == "START"


def test_family_source_and_destination_keep_the_suffix() -> None:
    rows = [
        row("P1", "WORK_[G/A]", "Go", nxt="DONE_[G/A]"),
        *fill(STATES, SPELLS, skip=["WORK_G/Go", "WORK_A/Go"]),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    assert [(r.source, r.dest) for r in spec.rules if r.id == "P1"] == [
        ("WORK_G", "DONE_G"),
        ("WORK_A", "DONE_A"),
    ]
    assert kinds(spec_text(STATES, SPELLS, rows)) == []


def test_fixed_suffix_source_resolves_family_destination() -> None:
    rows = [row("P1", "WORK_A", "Go", nxt="DONE_[G/A]"), *fill(STATES, SPELLS, ["WORK_A/Go"])]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    assert [(r.source, r.dest) for r in spec.rules if r.id == "P1"] == [("WORK_A", "DONE_A")]


def test_family_destination_from_state_without_suffix_is_a_finding() -> None:
    rows = [row("S1", "START", "Go", nxt="WORK_[G/A]"), *fill(STATES, SPELLS, ["START/Go"])]
    text = spec_text(STATES, SPELLS, rows)
    findings = findings_of(text)
    ga = [f for f in findings if f.kind == "ga_notation"]
    assert len(ga) == 1
    assert ga[0].rule == "S1" and ga[0].state == "START"
    assert "START has no suffix" in ga[0].message
    # The rule cannot be expanded, so the cell it meant to cover is reported too.
    assert [f.state for f in findings if f.kind == "missing_cell"] == ["START"]


def test_comma_lists_expand_to_each_state_and_spell() -> None:
    rows = [
        row("M1", "START, WORK_G", "Go, Look"),
        *fill(STATES, SPELLS, skip=["START/Go", "START/Look", "WORK_G/Go", "WORK_G/Look"]),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    assert sorted((r.source, r.spell) for r in spec.rules if r.id == "M1") == [
        ("START", "Go"),
        ("START", "Look"),
        ("WORK_G", "Go"),
        ("WORK_G", "Look"),
    ]


def test_any_state_is_a_wildcard_over_every_state() -> None:
    rows = [row("L1", "Any state", "Look"), *fill(STATES, ["Go"])]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    looks = [r for r in spec.rules if r.id == "L1"]
    assert [r.source for r in looks] == STATES
    assert all(r.specificity is Specificity.WILDCARD for r in looks)
    assert kinds(spec_text(STATES, SPELLS, rows)) == []


def test_any_state_except_accepts_family_items() -> None:
    rows = [
        row("F1", "Any state except START, DONE_[G/A]", "Go"),
        row("F2", "START, DONE_[G/A]", "Go"),
        *fill(STATES, ["Look"]),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    assert [r.source for r in spec.rules if r.id == "F1"] == ["WORK_G", "WORK_A"]
    assert kinds(spec_text(STATES, SPELLS, rows)) == []


def test_same_state_blocked_and_no_state_change() -> None:
    rows = [
        row("N1", "START", "Go", nxt="Same state"),
        row("B1", "START", "Look", nxt="[BLOCKED]"),
        row("N2", "WORK_G", "Go", nxt="No state change"),
        row("T1", "WORK_A", "Go", nxt="WORK_A"),
        *fill(STATES, SPELLS, ["START/Go", "START/Look", "WORK_G/Go", "WORK_A/Go"]),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    by_id = {r.id: r for r in spec.rules}
    assert (by_id["N1"].kind, by_id["N1"].dest) == (Kind.NOOP, "START")
    assert (by_id["B1"].kind, by_id["B1"].dest) == (Kind.BLOCKED, "START")
    assert by_id["N2"].kind is Kind.NOOP
    assert (by_id["T1"].kind, by_id["T1"].changes_state) == (Kind.TRANSITION, False)


def test_row_with_empty_id_gets_a_line_based_id() -> None:
    rows = [row("", "START", "Go"), *fill(STATES, SPELLS, ["START/Go"])]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    (empty,) = [r for r in spec.rows if not r.id_written]
    assert empty.id == f"#{empty.line}"
    assert spec.cell("START", "Go")[0].id == empty.id


def test_unknown_state_names_are_reported_with_rule_line_and_suggestion() -> None:
    rows = [row("X1", "WORK, DONE_[G/A]", "Go"), row("X2", "START", "Go", nxt="DONEE_G")]
    text = spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS))
    findings = [f for f in analyse(parse_spec_text(text)) if f.kind == "unknown_state"]
    assert [(f.rule, f.line) for f in findings] == [
        ("X1", line_of(text, "| X1 |")),
        ("X2", line_of(text, "| X2 |")),
    ]
    assert "did you mean WORK_[G/A]?" in findings[0].message
    assert "did you mean DONE_G?" in findings[1].message


def test_unknown_spell_is_reported_with_suggestion() -> None:
    rows = [row("X1", "START", "Loook"), *fill(STATES, SPELLS)]
    findings = findings_of(spec_text(STATES, SPELLS, rows))
    assert [(f.kind, f.rule) for f in findings] == [("unknown_spell", "X1")]
    assert "did you mean Look?" in findings[0].message


def test_unknown_spell_in_valid_actions_is_reported() -> None:
    text = spec_text(STATES, SPELLS, fill(STATES, SPELLS), valid_actions={"START": "Go, Jump"})
    findings = findings_of(text)
    assert [(f.kind, f.state) for f in findings] == [("unknown_spell", "START")]


def test_missing_cells_are_errors_with_the_state_line() -> None:
    text = spec_text(STATES, SPELLS, fill(STATES, SPELLS, skip=["DONE_A/Look"]))
    spec = parse_spec_text(text)
    (finding,) = findings_of(text)
    assert (finding.kind, finding.state, finding.spell) == ("missing_cell", "DONE_A", "Look")
    assert finding.line == spec.state("DONE_A").line


def test_duplicate_ids_are_reported() -> None:
    rows = [row("D1", "START", "Go"), row("D1", "START", "Look")]
    text = spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS, ["START/Go", "START/Look"]))
    findings = findings_of(text)
    assert [(f.kind, f.rule) for f in findings] == [("duplicate_id", "D1")]
    assert f"first at line {findings[0].line - 1}" in findings[0].message


def test_explicit_row_beats_wildcard_row_even_when_later() -> None:
    rows = [row("W1", "Any state", "Go"), row("E1", "START", "Go"), *fill(STATES, ["Look"])]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    assert [r.id for r in spec.cell("START", "Go")] == ["E1", "W1"]
    assert [r.id for r in spec.cell("WORK_G", "Go")] == ["W1"]


def test_among_equals_the_earlier_row_wins() -> None:
    rows = [
        row("A1", "START", "Go", condition="x.md exists"),
        row("A2", "START", "Go"),
        row("A3", "START", "Go", condition="x.md missing"),
        *fill(STATES, SPELLS, ["START/Go"]),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows))
    assert [r.id for r in spec.cell("START", "Go")] == ["A1", "A2", "A3"]


def test_unknown_destination_on_a_multi_state_row_is_reported_once() -> None:
    rows = [row("X1", "START, WORK_[G/A]", "Go", nxt="NOWHERE")]
    text = spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS))
    findings = [f for f in analyse(parse_spec_text(text)) if f.kind == "unknown_state"]
    assert [(f.rule, f.message.count("NOWHERE")) for f in findings] == [("X1", 1)]


@settings(max_examples=100, deadline=None)
@given(machines())
def test_every_cell_has_rules_in_priority_order(text: str) -> None:
    spec = parse_spec_text(text, options=READ_OPTIONS)
    for state in spec.states:
        for spell in spec.spells:
            priorities = [r.priority for r in spec.cell(state.name, spell.name)]
            assert priorities == sorted(priorities)


def test_a_cells_order_is_the_generated_machines_policy_rules_included() -> None:
    """Where a rule stands in its cell is written once (`spellbook.schema.priority`): every
    rule of the model, a rule of the policy that fills a cell's gap too, has the place the
    generated machine gives it."""
    from codegen.render.machine_records import machine_records
    from spellbook.schema import priority

    rows = [
        row("W1", "Any state", "Go", condition="x.md exists"),
        row("E1", "START", "Go", condition="y.md exists"),
        *fill(STATES, ["Look"]),
    ]
    text = spec_text(STATES, SPELLS, rows) + "\nAny transition not listed here is rejected.\n"
    spec = parse_spec_text(text)
    assert [r.id for r in spec.cell("START", "Go")] == ["E1", "W1", "not listed"]
    placed = [priority(r.specificity is not Specificity.EXPLICIT, r.order) for r in spec.rules]
    assert [r.priority for r in spec.rules] == placed
    records = machine_records(spec)
    for state in STATES:
        for spell in SPELLS:
            machine = [r for r in records.rules if (r.source, r.spell) == (state, spell)]
            assert [records.rule(r) for r in spec.cell(state, spell)] == machine


def test_a_valid_actions_entry_names_its_spell_in_any_case_as_a_trigger_cell_does() -> None:
    """A Spells list that writes `**lumos**` while the tables and Valid Actions write
    `Lumos`: one spell, listed in every state, and no mismatch said of it."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "spec" / "STATE_MACHINE.md").read_text()
    assert "6. **Lumos**" in text
    spec = parse_spec_text(text.replace("6. **Lumos**", "6. **lumos**"), "spec.md")
    assert [sp.name for sp in spec.spells][-1] == "lumos"
    listed = [a.spell for st in spec.states for a in st.valid_actions]
    assert "lumos" in listed and "Lumos" not in listed
    assert not [f for f in analyse(spec) if f.kind == "valid_actions_mismatch"]
