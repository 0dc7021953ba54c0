"""Findings after a row is dropped for a name that does not resolve: those the row would
have changed say they may follow from it; the others say nothing of it."""

from __future__ import annotations

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.findings import Finding
from tests.support.specs import row, spec_text

STATES = ["START", "MIDDLE", "END", "ASIDE"]
SPELLS = ["Go", "Look"]
LOOK = row("L1", "Any state", "Look")


def _findings(rows: list[str], states: list[str] = STATES) -> dict[str, list[Finding]]:
    text = spec_text(states, SPELLS, rows)
    found: dict[str, list[Finding]] = {}
    for finding in analyse(parse_spec_text(text, "spec/K.md")):
        found.setdefault(finding.kind, []).append(finding)
    return found


def _line(rows: list[str], rule: str) -> int:
    text = spec_text(STATES, SPELLS, rows)
    return next(i for i, t in enumerate(text.split("\n"), 1) if t.startswith(f"| {rule} |"))


GO = [
    row("T1", "START", "Go", nxt="MIDDLE", action="Update state to MIDDLE"),
    row("T3", "END", "Go"),
    row("T4", "ASIDE", "Go"),
]


def test_a_state_only_a_dropped_row_led_to_says_so() -> None:
    # T2 names ENDE: dropped. END is unreachable only because of it; ASIDE anyway.
    rows = [*GO, row("T2", "MIDDLE", "Go", nxt="ENDE", action="-"), LOOK]
    found = _findings(rows)
    said = {f.state: f.message for f in found["unreachable_state"]}
    line = _line(rows, "T2")
    assert said["END"].endswith(
        f"no rule leads to it; this may follow from row T2 (line {line}), which was not read"
    )
    assert "row T2" not in said["ASIDE"]
    assert "row T2" not in found["unknown_state"][0].message


def test_a_state_a_dropped_row_led_out_of_says_so() -> None:
    rows = [*GO, row("T2", "MIDDLE", "Go", nxt="ENDE", action="-"), LOOK]
    (dead_end,) = [f for f in _findings(rows)["dead_end"] if f.state == "MIDDLE"]
    assert "may follow from row T2" in dead_end.message


def test_cells_a_row_with_an_unknown_spell_would_fill_say_so() -> None:
    rows = [
        row("G1", "Any state", "Go"),
        row("L1", "START, MIDDLE", "Lokk"),
        row("L2", "END", "Look"),
    ]
    found = _findings(rows)
    said = {f.state: f.message for f in found["missing_cell"]}
    assert set(said) == {"START", "MIDDLE", "ASIDE"}
    assert "may follow from row L1" in said["START"] and "may follow from row L1" in said["MIDDLE"]
    # L1 never named ASIDE: its missing cell is its own, and says how to refuse the spell.
    assert "may follow" not in said["ASIDE"] and "[BLOCKED]" in said["ASIDE"]
    # Where the drop is the cause, the fix is the row's, not a policy.
    assert "[BLOCKED]" not in said["START"]


def test_an_unknown_name_with_no_close_name_may_stand_for_any() -> None:
    rows = [*GO, row("T2", "MIDDLE", "Go", nxt="ELSEWHERE", action="-"), LOOK]
    said = {f.state: f.message for f in _findings(rows)["unreachable_state"]}
    assert all("may follow from row T2" in m for m in said.values())


def test_a_rule_read_in_part_says_so_where_it_is_shadowed() -> None:
    # W1 meant every state but END; END's exclusion is not read, so W1 is read for END
    # too, where T3 beats it.
    rows = [
        row("T1", "START", "Go", nxt="MIDDLE", action="Update state to MIDDLE"),
        row("T2", "MIDDLE", "Go", nxt="END", action="Update state to END"),
        row("T3", "END", "Go"),
        row("W1", "Any state except EDN", "Go", nxt="[BLOCKED]"),
        LOOK,
    ]
    found = _findings(rows)
    (shadowed,) = found["shadowed_rule"]
    assert shadowed.rule == "W1"
    assert shadowed.message.endswith("which was not read in full")


def test_without_a_dropped_row_findings_say_nothing_of_one() -> None:
    rows = [*GO, LOOK]
    found = _findings(rows)
    assert found["unreachable_state"]
    assert not any("may follow" in f.message for fs in found.values() for f in fs)


def test_a_wildcard_row_dropped_for_its_next_state_may_have_filled_any_cell() -> None:
    rows = [row("W1", "Any state", "Go", nxt="NOWHERE_AT_ALL", action="-"), LOOK]
    said = [f.message for f in _findings(rows)["missing_cell"]]
    assert len(said) == len(STATES) and all("may follow from row W1" in m for m in said)


def test_a_blocked_row_dropped_leads_nowhere() -> None:
    rows = [*GO, row("T2", "MIDDLE, ENDE", "Go", nxt="[BLOCKED]"), LOOK]
    found = _findings(rows)
    assert not any("may follow" in f.message for f in found["unreachable_state"])
