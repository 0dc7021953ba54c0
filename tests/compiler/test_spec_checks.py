"""consolidation: only rows that could really be one row."""

from __future__ import annotations

from tests.support.specs import fill, findings_of, row, spec_text

STATES = ["P", "Q", "E_G", "E_A", "T_G", "T_A"]
SPELLS = ["Go"]


def merges(rows: list[str]) -> list[str | None]:
    skip = {f"{s}/Go" for r in rows for s in STATES if f"| {s} |" in r or f" {s}," in r}
    text = spec_text(STATES, SPELLS, [*rows, *fill(STATES, SPELLS, skip=sorted(skip))])
    return [f.rule for f in findings_of(text, {"consolidation"}) if f.rule and f.rule[0] == "R"]


def test_suffixed_rows_that_follow_their_source_merge() -> None:
    rows = [
        row("R1", "E_G", "Go", nxt="T_G", action="Update state to T_G"),
        row("R2", "E_A", "Go", nxt="T_A", action="Update state to T_A"),
    ]
    assert merges(rows) == ["R2"]


def test_rows_from_states_without_suffix_to_fixed_suffixes_do_not_merge() -> None:
    rows = [
        row("R1", "P", "Go", nxt="T_G", action="Update state to T_G"),
        row("R2", "Q", "Go", nxt="T_A", action="Update state to T_A"),
    ]
    assert merges(rows) == []


def test_identical_rows_for_other_states_merge() -> None:
    rows = [row("R1", "P", "Go", nxt="[BLOCKED]"), row("R2", "Q", "Go", nxt="[BLOCKED]")]
    assert merges(rows) == ["R2"]


def test_an_unknown_phrase_and_its_negation_are_one_finding() -> None:
    """`X` in one row and `NOT X` in another are one phrase the spec does not define:
    said once, with both rows (the docs: once per phrase)."""
    from codegen import parse_spec_text
    from codegen.analyse import analyse

    text = (
        "# C\n\nState is kept in `.c/state.json`.\n\n"
        "| ID | Current State | Event | Condition | Next State | Action | Response |\n"
        "|----|---|---|---|---|---|---|\n"
        "| R1 | A | Go | the moon is full | B | - | ok |\n"
        "| R2 | A | Go | NOT the moon is full | Same state | - | no |\n"
        "| R3 | B | Go | - | A | - | back |\n"
    )
    found = [
        f for f in analyse(parse_spec_text(text, "spec/C.md")) if f.kind == "unknown_condition"
    ]
    assert [f.message.split(" is not")[0] for f in found] == [
        "condition 'the moon is full' in rules R1, R2"
    ]


def test_a_response_of_a_row_that_archives_twice_says_archive_path_is_the_last() -> None:
    """`{{archive_path}}` is the folder one Archive moved files to: a row that archives
    to two folders says the last in every cast, with no word; and `{{content:F}}` of a
    file the row archives says it is not there, unless the row loads it first."""
    from codegen import parse_spec_text
    from codegen.analyse import analyse

    text = (
        "# C\n\nState is kept in `.c/state.json`.\n\n"
        "| ID | Current State | Event | Condition | Next State | Action | Response |\n"
        "|----|---|---|---|---|---|---|\n"
        "| R1 | A | Go | - | B | (1) Archive a.md to `done/`; (2) Archive b.md to `old/` "
        "| Filed {{content:a.md}} at {{archive_path}} |\n"
        "| R2 | B | Go | - | A | (1) Load b.md content; (2) Archive b.md to `old/` "
        "| Was {{content:b.md}} at {{archive_path}} |\n"
    )
    said = [f.message for f in analyse(parse_spec_text(text)) if f.kind == "response_placeholder"]
    assert len(said) == 2, said
    assert (
        "`{{content:a.md}}` names a.md, which the row's `Archive a.md to `done/`` takes" in said[0]
    )
    assert "the row archives to 2 (done/, old/): every cast says the last" in said[1]
