"""A spec with no transition table is refused at the block its author most likely meant
as one, saying why it is none and what to write (`read.no_table`); it was refused at
line 1 with the table's general form only."""

from __future__ import annotations

import pytest

from codegen import ReadOptions, SpecError, parse_spec_text

RULE = "Transitions not listed are rejected.\n\n"


def refusal(text: str) -> SpecError:
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    return raised.value


def test_a_table_under_other_column_names_is_told_the_columns_setting() -> None:
    table = "| Von | Ereignis | Nach |\n|---|---|---|\n| a | go | b |\n| b | back | a |\n"
    err = refusal("# Bestellung\n\n" + RULE + table)
    assert err.line == 5
    assert "this table (`| Von | Ereignis | Nach |`) has no column named as" in err.message
    assert (
        '`columns = { current_state = ["Von"], trigger = ["Ereignis"], next_state = ["Nach"] }`'
    ) in err.message


@pytest.mark.parametrize("corner", ["State \\ Event", "State / Event", ""])
def test_a_matrix_of_states_by_events_is_told_to_write_a_row_per_move(corner: str) -> None:
    text = (
        "# Door\n\n" + RULE + f"| {corner} | open | close |\n|---|---|---|\n"
        "| closed | opened | - |\n| opened | - | closed |\n"
    )
    err = refusal(text)
    assert err.line == 5
    assert "is a matrix of states by events, which is not read" in err.message
    assert err.message.endswith("e.g. `| closed | open | opened |`"), err.message


def test_a_confluence_header_is_told_the_markdown_form() -> None:
    err = refusal("# Invoice\n\n" + RULE + "|| From || Event || To ||\n| a | go | b |\n")
    assert err.line == 5
    assert "`|| From || Event || To ||` is a header in Confluence's wiki markup" in err.message
    assert "write it `| From | Event | To |`, with a line `|---|` under it" in err.message


@pytest.mark.parametrize(
    ("fence", "diagram"),
    [
        ("mermaid", "stateDiagram-v2\n    [*] --> Red\n    Red --> Green : timer\n"),
        ("plantuml", "@startuml\n[*] --> Red\nRed --> Green : timer\n@enduml\n"),
    ],
)
def test_a_diagram_alone_is_told_it_is_only_compared(fence: str, diagram: str) -> None:
    err = refusal(f"# Light\n\n```{fence}\n{diagram}```\n")
    assert err.line == 3
    assert "diagram is only compared with a transition table, never read" in err.message
    assert err.message.endswith("e.g. `| Red | timer | Green |`"), err.message


def test_a_table_of_meanings_is_passed_over_for_the_diagram_after_it() -> None:
    text = (
        "# Light\n\n| Colour | Meaning |\n|---|---|\n| Red | stop |\n\n"
        "```mermaid\nstateDiagram-v2\n    Red --> Green : timer\n```\n"
    )
    err = refusal(text)
    assert err.line == 7 and "a Mermaid diagram is only compared" in err.message
    err = refusal("# Light\n\n| Colour | Meaning |\n|---|---|\n| Red | stop |\n")
    assert err.line == 1 and "no transition table (a table with columns" in err.message


def test_a_table_whose_rows_are_no_moves_keeps_the_general_refusal() -> None:
    text = "# Notes\n\n| file | repository | path |\n|---|---|---|\n| a.md | x/y | docs/a.md |\n"
    err = refusal(text)
    assert err.line == 1 and "no transition table (a table with columns" in err.message


@pytest.mark.parametrize(
    ("items", "example"),
    [
        ("1. red --timer--> green\n2. green --timer--> red\n", "e.g. `| red | timer | green |`"),
        (
            "- `closed` → `open` on **open**\n- `open` → `closed` on **close**\n",
            "`| closed | open | open |`",
        ),
        ("- draft -> review\n- review -> done\n", "e.g. `| draft | <event> | review |`"),
    ],
)
def test_moves_written_as_a_list_of_arrows_are_told_the_row_to_write(
    items: str, example: str
) -> None:
    err = refusal("# Light\n\n## Transitions\n\n" + items)
    assert err.line == 5
    assert "the list at line 5 writes the moves as arrows" in err.message
    assert err.message.endswith(example), err.message


def test_moves_listed_under_their_state_by_event_are_told_the_row_of_that_state() -> None:
    # `on cancel → Cancelled` under `### Pending`: the state is the heading, the event is
    # what follows `on`; not a state named "on cancel".
    err = refusal(
        "# Orders\n\n### Pending\n\n- on `pay` → **Paid**\n- on `cancel` → **Cancelled**\n"
    )
    assert "writes the moves as arrows (`on pay → Paid`)" in err.message, err.message
    assert err.message.endswith("e.g. `| Pending | pay | Paid |`"), err.message
    no_heading = refusal("- when pay → Paid\n- when cancel → Cancelled\n")
    assert no_heading.message.endswith("e.g. `| <state> | pay | Paid |`"), no_heading.message


def test_moves_said_in_sentences_are_told_to_be_rows_of_a_table() -> None:
    items = (
        "- When the light is **red** and the timer fires, go to **green**.\n"
        "- When the light is **green** and the timer fires, go to **red**.\n"
    )
    err = refusal("# Light\n\n## States\n\n1. **red**\n2. **green**\n\n## Moves\n\n" + items)
    assert err.line == 10
    assert "the list at line 10 says the moves in sentences" in err.message


def test_a_list_of_states_alone_keeps_the_general_refusal() -> None:
    err = refusal("# Light\n\n## States\n\n1. **red**\n2. **green**\n")
    assert "the list at line" not in err.message


@pytest.mark.parametrize("first", ["#", "No."])
def test_a_table_of_moves_with_a_numbering_column_is_told_to_drop_it_or_use_the_full_dialect(
    first: str,
) -> None:
    # It was offered `columns = { id = ["#"] }` alone, which makes the table the full
    # dialect's, refused again for lacking Condition and Action columns.
    table = f"| {first} | From | Event | To |\n|---|---|---|---|\n"
    table += "| 1 | a | go | b |\n| 2 | b | back | a |\n"
    err = refusal("# T\n\n" + RULE + table)
    assert err.line == 5
    assert f"its first column {first!r} is named for no role" in err.message
    assert "delete the column (rows are then numbered by position" in err.message
    assert "| ID | Current State | Trigger | Condition | Next State | Action |" in err.message


@pytest.mark.parametrize(
    "header",
    ["| Transition | From | To | Guard |", "| Name | From | To | Action |", "| Name | From | To |"],
)
def test_a_table_of_moves_whose_first_column_names_them_is_told_it_is_the_event(
    header: str,
) -> None:
    # It was told its first column most likely numbers the rows, or given the general
    # form at line 1, though its cells are the events' names.
    width = header.count("|") - 1
    extra = " - |" * (width - 3)
    table = (
        f"{header}\n|{'---|' * width}\n| pay | new | paid |{extra}\n| ship | paid | sent |{extra}\n"
    )
    err = refusal("# T\n\n" + RULE + table)
    first = header.split("|")[1].strip()
    assert err.line == 5
    assert "its cells ('pay', 'ship') name the moves, most likely their events" in err.message
    assert f'columns = {{ trigger = ["{first}"] }}' in err.message
    assert "numbers the rows" not in err.message


def test_a_first_column_of_numbers_like_t1_is_not_taken_for_events() -> None:
    table = "| Step | From | Event | To |\n|---|---|---|---|\n"
    table += "| T1 | a | go | b |\n| T2 | b | back | a |\n"
    err = refusal("# T\n\n" + RULE + table)
    assert "most likely their events" not in err.message
    assert "delete the column (rows are then numbered by position" in err.message


def test_the_columns_setting_the_refusal_names_reads_the_table() -> None:
    text = "# T\n\n" + RULE + "| Name | From | To |\n|---|---|---|\n| pay | new | paid |\n"
    spec = parse_spec_text(text, options=ReadOptions(columns=(("trigger", ("Name",)),)))
    assert [r.triggers for r in spec.rows] == [("pay",)]
    assert [s.name for s in spec.states] == ["new", "paid"]


@pytest.mark.timeout(60)
def test_a_long_list_item_is_judged_without_a_pattern_running_over_it() -> None:
    # A pattern over the item took 56 s for one of 20 KB (`a -> x on x on ... (`).
    items = "- a -> " + "x on " * 20_000 + "(\n- b -> c\n"
    err = refusal("# Light\n\n## Transitions\n\n" + items)
    assert "writes the moves as arrows (`b -> c`)" in err.message, err.message[:300]
