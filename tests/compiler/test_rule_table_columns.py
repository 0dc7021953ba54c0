"""The cells of a table of rules with an ID column that no role reads: a second Condition
column (`Guard` beside `Condition`) or a column of notes (`Notes`, `Status`) whose cell
limits the row is a `column_note` warning at the row, never a row silently read as
firing always; an empty Condition cell is an error at its row."""

from __future__ import annotations

import pytest

from codegen import SpecError, parse_spec_text
from codegen.analyse import analyse
from codegen.model import Spec
from tests.support.specs import fill, row, spec_text

STATES, SPELLS = ["A", "B"], ["Go", "Stop"]


def with_column(name: str, cells: dict[str, str], after: str = "Condition") -> str:
    """The rules of A and B, with a column `name` put after the column `after`: each
    row's cell is what `cells` gives its ID, empty for the others."""
    text = spec_text(STATES, SPELLS, fill(STATES, SPELLS))
    lines = []
    for line in text.split("\n"):
        cells_of = line.split("|")
        if line.startswith("| ID |"):
            at = next(i for i, c in enumerate(cells_of) if c.strip() == after) + 1
            cells_of.insert(at, f" {name} ")
        elif line.startswith("|--"):
            cells_of.insert(at, "---")
        elif line.startswith("| Z"):
            cells_of.insert(at, f" {cells.get(cells_of[1].strip(), '')} ")
        lines.append("|".join(cells_of))
    return "\n".join(lines)


def line_of(text: str, words: str) -> int:
    return next(i for i, ln in enumerate(text.split("\n"), 1) if words in ln)


def notes(spec: Spec) -> list[tuple[int | None, str | None, str]]:
    return [(f.line, f.rule, f.message) for f in analyse(spec) if f.kind == "column_note"]


@pytest.mark.parametrize("guard", ["CI is green", "notes.md contains `approved`"])
def test_a_guard_column_beside_the_condition_column_is_a_warning_at_each_row_it_says_more(
    guard: str,
) -> None:
    text = with_column("Guard", {"Z1": guard, "Z2": "-"})
    spec = parse_spec_text(text)
    ((line, rule, message),) = notes(spec)
    assert (line, rule) == (line_of(text, "| Z1 |"), "Z1")
    assert f"'Guard' cell says {guard!r}" in message and "only 'Condition' is read" in message
    assert "columns.condition" in message and "AND" in message
    (finding,) = [f for f in analyse(spec) if f.kind == "column_note"]
    assert finding.severity.value == "warning"


def test_a_second_condition_column_that_says_what_the_first_does_is_only_a_column_choice() -> None:
    text = with_column("MCP Condition", {f"Z{i}": "-" for i in range(1, 5)})
    spec = parse_spec_text(text)
    assert notes(spec) == []
    assert [f.kind for f in analyse(spec) if f.kind == "column_choice"] == ["column_choice"]


@pytest.mark.parametrize(
    ("column", "note"),
    [
        ("Notes", "not implemented yet"),
        ("Notes", "only on weekdays, never on Fridays"),
        ("Status", "removed in v2"),
        ("Implementation", "❌ disabled"),
    ],
)
def test_a_limiting_note_in_an_unread_column_of_a_rule_table_is_a_warning_at_its_row(
    column: str, note: str
) -> None:
    text = with_column(column, {"Z2": note}, "Response")
    ((line, rule, message),) = notes(parse_spec_text(text))
    assert (line, rule) == (line_of(text, "| Z2 |"), "Z2")
    assert repr(column) in message and repr(note) in message
    assert "read as firing always" in message


@pytest.mark.parametrize("note", ["yes", "Sends the receipt once", "Item removed from the cart"])
def test_a_descriptive_note_in_a_rule_table_is_no_warning(note: str) -> None:
    assert notes(parse_spec_text(with_column("Notes", {"Z1": note}, "Response"))) == []


def test_an_old_response_that_opens_with_only_is_no_note() -> None:
    text = with_column("Old Response", {"Z1": "Only the author may do that."}, "Action")
    assert notes(parse_spec_text(text)) == []


def test_an_empty_condition_cell_is_an_error_at_its_row_asking_for_a_dash() -> None:
    rows = [row("T1", "A", "Go", "", "B", "Update state to B"), *fill(STATES, SPELLS)]
    text = spec_text(STATES, SPELLS, rows)
    with pytest.raises(SpecError) as err:
        parse_spec_text(text)
    assert err.value.line == line_of(text, "| T1 |")
    assert "empty 'Condition' cell" in err.value.message and "`-`" in err.value.message


def test_a_light_table_s_empty_guard_cell_still_means_always() -> None:
    text = (
        "# Door\n\n## Transitions\n\n| From | Event | Guard | To |\n|---|---|---|---|\n"
        "| open | close |  | closed |\n| closed | open | key fits | open |\n"
    )
    spec = parse_spec_text(text)
    assert [r.condition.text for r in spec.rows] == ["-", "key fits"]
