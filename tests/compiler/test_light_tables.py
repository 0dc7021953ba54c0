"""Transition tables as people write them (`read.light_tables`): `| From | Event | To |` and
its kin, without ID, Condition, Action or Response columns, states and triggers taken
from the tables, names as written with identifiers for code, `(start)` and `(none)`
markers, and rows with more or fewer cells than their header read as GitHub shows them."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from codegen import SpecError, parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.report import format_text, to_json, to_markdown, to_sarif
from codegen.diff import compare
from codegen.diff.report import format_text as diff_text
from codegen.diff.report import to_markdown as diff_markdown
from codegen.model import Kind, Spec
from codegen.read.identifiers import identifier
from codegen.read.lexicon import ReadOptions
from codegen.read.light_cells import GUARD_WORDS, guard_word
from codegen.read.rows import parse_selector
from codegen.render import render_machine

# A generated event log, one row per legal move, `(start)` before the first event.
LOANS = """\
# Library loan lifecycle

Each row is a legal `(from, event) -> to` move; `(start)` is before the first event.

| from | event | to |
|------|-------|----|
| `(start)` | `book_catalogued` | `ON_SHELF` |
| `ON_SHELF` | `loan_opened` | `ON_LOAN` |
| `ON_SHELF` | `book_withdrawn` | `WITHDRAWN` |
| `ON_LOAN` | `loan_renewed` | `ON_LOAN` |
| `ON_LOAN` | `loan_closed` | `ON_SHELF` |
| `ON_LOAN` | `loan_overdue` | `OVERDUE` |
| `OVERDUE` | `loan_closed` | `ON_SHELF` |
"""

# A story lifecycle with prose under its States section and a terminal marker row.
PARCELS = """\
# Parcel lifecycle

## States

### 1. waiting
**Entry Conditions:**
- Parcel label newly printed
- Or parcel sent back to the depot

### 2. on-the-road
**Exit Conditions:**
- Courier hands it over

## Moves

| From State  | To State    | Trigger                         | Quality Gate |
|-------------|-------------|---------------------------------|--------------|
| waiting     | on-the-road | Courier collects, scans label   | -            |
| on-the-road | delivered   | Recipient signs                 | -            |
| on-the-road | waiting     | Nobody home (second attempt)    | -            |
| delivered   | (none)      | Terminal state                  | N/A          |
"""

# A catalogue line of states, `(default)` marking the first, and a row one cell long.
SUBSCRIPTION = """\
# Subscription

**States**: `trial`, `active` (default), `paused-by-user`, `cancelled`

| From | To | Trigger | Idempotent |
|---|---|---|---|
| `trial` | `active` | Card accepted | yes |
| `active` | `paused-by-user` | Member pauses (keeps the seat) | yes |
| `paused-by-user` | `active` | Member resumes | yes |
| `active` | `cancelled` | Member cancels | terminal | final |
| `paused-by-user` | `cancelled` | Member cancels |
"""

# A full table of commands and actors, with a state written as words.
ESCROW = """\
# Deposit

| Current State | Command       | Actor    | Next State       |
| ------------- | ------------- | -------- | ---------------- |
| OPEN          | LodgeDeposit  | Tenant   | HELD             |
| OPEN          | Abandon       | Landlord | Closed unfunded  |
| HELD          | ReturnDeposit | Agent    | RETURNED         |
| HELD          | ReturnDeposit | Agent    | HELD + `AUDITED` |
"""

# Rules without a trigger column: `to_<state>` triggers, and core actions.
ORDERS = """\
# Order rules

| fromState | toState | actorRole | requiredPreconditions | sideEffects |
| --- | --- | --- | --- | --- |
| `NEW` | `PAID` | `buyer` | - | Create receipt.md |
| `PAID` | `SHIPPED` | warehouse | receipt.md exists | Delete receipt.md |
"""


def read(text: str) -> Spec:
    return parse_spec_text(text)


def notices(spec: Spec, kind: str) -> list[str]:
    return [f.message for f in analyse(spec) if f.kind == kind]


def test_a_from_event_to_table_is_the_machine() -> None:
    spec = read(LOANS)
    assert [s.name for s in spec.states] == ["ON_SHELF", "ON_LOAN", "WITHDRAWN", "OVERDUE"]
    assert spec.initial == "ON_SHELF"  # the `(start)` row's state, not the first row's
    assert [s.name for s in spec.spells] == [
        *("loan_opened", "book_withdrawn", "loan_renewed", "loan_closed", "loan_overdue"),
    ]
    # Numbered by position, the `(start)` row not a rule: R1 is the first move.
    assert [(r.id, r.line) for r in spec.rows][:2] == [("R1", 8), ("R2", 9)]
    assert all(r.numbered and not r.id_written for r in spec.rows)
    assert {r.condition.text for r in spec.rows} == {"-"} and {r.actions for r in spec.rows} == {()}
    (said,) = notices(spec, "names_from_tables")
    assert "its 4 states are read from the transition tables" in said
    assert "its 5 events are read from them" in said
    assert "it starts in ON_SHELF (line 7, on 'book_catalogued', kept as a note)" in said
    assert not notices(spec, "id_pattern")  # a table with no ID column is no row without one


def test_states_and_triggers_written_as_words_get_identifiers_and_keep_their_names() -> None:
    spec = read(PARCELS)
    assert [(s.name, s.title) for s in spec.states] == [
        ("waiting", ""),
        ("on_the_road", "on-the-road"),
        ("delivered", ""),
    ]
    # One trigger, commas and all; a closing parenthesis is a note, not part of the name.
    assert [(s.name, s.title) for s in spec.spells] == [
        ("courier_collects_scans_label", "Courier collects, scans label"),
        ("recipient_signs", "Recipient signs"),
        ("nobody_home", "Nobody home"),
    ]
    third = spec.rows[2]
    assert third.triggers == ("nobody_home",)
    assert ("Trigger note", "second attempt") in third.extra
    # The prose States section is no list: the states come from the table, said once.
    (said,) = notices(spec, "names_from_tables")
    assert said.startswith("the States section (line 7) describes states in prose")


def test_a_terminal_marker_row_refuses_every_trigger_in_its_state() -> None:
    spec = read(PARCELS)
    (terminal,) = [r for r in spec.rows if r.target.kind is Kind.BLOCKED]
    assert terminal.current.names == ("delivered",) and terminal.id == "R4"
    assert set(terminal.triggers) == {s.name for s in spec.spells}
    assert spec.state("delivered").goal
    about = {(f.kind, f.state) for f in analyse(spec)}
    assert not about & {("missing_cell", "delivered"), ("dead_end", "delivered")}


def test_the_guide_numbers_a_terminal_state_s_row_as_the_reading_does() -> None:
    # The terminal row has an ID (R4 above, after the tables' rows): the guide says so.
    guide = Path(__file__).parents[2] / "docs" / "guide" / "reading-specs.md"
    text = " ".join(guide.read_text(encoding="utf-8").split())
    assert "`(none)` row takes no number" not in text
    assert "`(none)` row declares terminal is numbered after the tables' rows" in text


@pytest.mark.parametrize("end", ["[*]", "(none)", "(end)"])
def test_a_row_to_the_end_marker_on_an_event_is_refused_never_a_dropped_trigger(end: str) -> None:
    # `ASSIGNED --> [*] : resolve` in a statechart: the event ends the machine. Reading the
    # row as "ASSIGNED has no way out" dropped `resolve` and refused `unassign` there.
    text = (
        "# Ticket\n\n| From | Event | To |\n|---|---|---|\n"
        "| (start) | created | OPEN |\n| OPEN | assign | ASSIGNED |\n"
        f"| ASSIGNED | unassign | OPEN |\n| ASSIGNED | resolve | {end} |\n"
    )
    with pytest.raises(SpecError) as raised:
        read(text)
    said = str(raised.value)
    assert raised.value.line == 8
    assert "'resolve'" in said and "| ASSIGNED | resolve | <state> |" in said
    # both in the table's own order, From | Event | To
    assert "| ASSIGNED | - | (none) |" in said


def test_a_row_from_the_start_to_the_end_marker_is_refused_never_dropped() -> None:
    text = LOANS + "| (start) | book_lost | (none) |\n"
    with pytest.raises(SpecError, match=r"from \(start\) to \(none\): it names no state"):
        read(text)


@pytest.mark.parametrize("trigger", ["Terminal state", "-", "", "N/A", "final"])
def test_a_terminal_marker_row_whose_trigger_cell_names_no_event_is_read(trigger: str) -> None:
    text = PARCELS.replace("| Terminal state                  |", f"| {trigger} |")
    (terminal,) = [r for r in read(text).rows if r.target.kind is Kind.BLOCKED]
    assert terminal.current.names == ("delivered",)


def test_display_names_show_in_the_report_and_the_generated_module() -> None:
    spec = read(PARCELS)
    report = format_text(spec, analyse(spec), explain=True)
    assert "state 'on-the-road': on_the_road" in report
    assert "trigger 'Nobody home': nobody_home" in report
    module = render_machine(spec, "parcels")
    assert 'State("on_the_road", description="on-the-road")' in module
    assert '"nobody_home": "Nobody home."' in module


def test_a_states_line_names_the_states_and_its_default_first() -> None:
    spec = read(SUBSCRIPTION)
    assert [(s.name, s.title) for s in spec.states] == [
        ("active", ""),
        ("trial", ""),
        ("paused_by_user", "paused-by-user"),
        ("cancelled", ""),
    ]
    assert spec.initial == "active"
    said = notices(spec, "names_from_tables")
    assert len(said) == 1 and "States list" not in said[0]  # the states were listed
    assert "no Spells list, so its 4 triggers" in said[0]
    assert spec.rows[0].extra == (("Idempotent", "yes"),)


@pytest.mark.parametrize(
    "line",
    [
        "**States**: NEW (default), PAID, SHIPPED, REFUNDED",
        "**States:** NEW (default), PAID, SHIPPED, REFUNDED",
        "States: NEW (default), PAID, SHIPPED, REFUNDED",
    ],
)
def test_a_states_line_without_backticks_names_the_states(line: str) -> None:
    # The line was taken as declaring states (one machine for the file) but its names
    # were not read: REFUNDED, which no row reaches, vanished without a word.
    text = (
        f"# Orders\n\n{line}\n\n| From | Event | To |\n|---|---|---|\n"
        "| PAID | ship | SHIPPED |\n| NEW | pay | PAID |\n| SHIPPED | return | NEW |\n"
    )
    spec = read(text)
    assert [s.name for s in spec.states] == ["NEW", "PAID", "SHIPPED", "REFUNDED"]
    assert spec.initial == "NEW"
    assert "REFUNDED" in {f.state for f in analyse(spec) if f.kind == "unreachable_state"}


_DRAFT_FIRST = (
    "| From | Event | To |\n|---|---|---|\n"
    "| draft | submit | in review |\n| in review | approve | done |\n"
    "| in review | reject | draft |\n"
)


@pytest.mark.parametrize(
    "said",
    [
        "**Initial state**: `in review`",
        "Initial state: in review",
        "The initial state is `in review`.",
        "An order starts in `in review`.",
        "The machine starts in in review and waits.",
        "## States\n\n- `in review` (initial)\n- `draft`\n- `done`",
        "## States\n\n- in review (initial)\n- draft\n- done",
        "**States**: in review (initial), draft, done",
        "**States**: draft, in review (initial state), done",
        "**States**: `draft`, `in review` (start state), `done`",
        "**States**: `draft`, `in review` (entry), `done`",
        "**States**: `draft`, `in review` \u2014 initial, `done`",
        "**States**: `draft`, `in review` *(initial)*, `done`",
    ],
)
def test_the_initial_state_is_the_one_the_spec_says(said: str) -> None:
    """However the spec says where the machine starts, it starts there, not in the
    state its first row leaves."""
    spec = read(f"# Orders\n\n{said}\n\n## Transitions\n\n{_DRAFT_FIRST}")
    assert spec.initial == "in_review"
    assert {s.name for s in spec.states} == {"draft", "in_review", "done"}
    assert not notices(spec, "states_unread")


def test_two_initial_states_said_are_an_error_naming_both_lines() -> None:
    text = (
        "# Orders\n\n**States**: `draft` (initial), `in review`, `done`\n\n"
        f"The initial state is `done`.\n\n## Transitions\n\n{_DRAFT_FIRST}"
    )
    with pytest.raises(SpecError) as err:
        read(text)
    assert err.value.line == 5
    assert "line 3" in err.value.message and "line 5" in err.value.message
    assert "draft" in err.value.message and "done" in err.value.message


def test_an_initial_state_said_that_is_no_state_is_a_warning_at_its_line() -> None:
    spec = read(f"# Orders\n\nThe initial state is `reviewing`.\n\n{_DRAFT_FIRST}")
    assert spec.initial == "draft"
    (said,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert said.line == 3 and said.severity.value == "warning" and "'reviewing'" in said.message


@pytest.mark.parametrize(
    "line",
    [
        "**States**: see the (long) list below",
        "States: see below.",
        "States: draft, review and done.",
    ],
)
def test_a_states_line_not_read_as_names_is_a_warning_not_dropped_silently(line: str) -> None:
    """Words are a name only with their mark (`in review (initial)`): never a state
    `see_below` or `review_and_done` that turns every row's state unknown."""
    spec = read(f"# Orders\n\n{line}\n\n{_DRAFT_FIRST}")
    (said,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert said.line == 3 and said.severity.value == "warning"
    assert "draft" in [s.name for s in spec.states]


@pytest.mark.parametrize(
    "said",
    [
        "An order never starts in `in review`.",
        "The initial state is not `in review`.",
        "An order no longer starts in `in review`.",
    ],
)
def test_a_denied_initial_state_is_no_claim(said: str) -> None:
    spec = read(f"# Orders\n\n{said}\n\n## Transitions\n\n{_DRAFT_FIRST}")
    assert spec.initial == "draft" and not notices(spec, "states_unread")


@pytest.mark.parametrize(
    ("said", "why"),
    [
        ("An order starts in `in review` unless it is a draft.", "'unless'"),
        ("The initial state is `in review` only for imports.", "'only'"),
        ("The SLA timer starts in `in review`: two days.", "'The SLA timer'"),
        ("A hotfix starts in `in review`.", "'A hotfix'"),
        ("A reopened order starts in `in review` again.", "'A reopened order'"),
        ("Every resubmitted order starts in `in review`.", "'Every resubmitted order'"),
        (
            "The payment service has its own machine. Its initial state is `in review`.",
            "another machine",
        ),
    ],
)
def test_a_qualified_or_other_subjects_initial_state_is_a_warning_not_taken(
    said: str, why: str
) -> None:
    spec = read(f"# Orders\n\n{said}\n\n## Transitions\n\n{_DRAFT_FIRST}")
    assert spec.initial == "draft"
    (warned,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert warned.line == 3 and warned.severity.value == "warning" and why in warned.message


def test_every_starts_in_of_a_sentence_is_a_claim() -> None:
    said = "The order starts in `draft`, and then the order starts in `in review`."
    with pytest.raises(SpecError, match="two lines say where the machine starts"):
        read(f"# Orders\n\n{said}\n\n## Transitions\n\n{_DRAFT_FIRST}")
    other = "A resubmission starts in `in review`, and the order starts in `draft`."
    spec = read(f"# Orders\n\n{other}\n\n## Transitions\n\n{_DRAFT_FIRST}")
    assert spec.initial == "draft"
    assert ["'A resubmission'" in m for m in notices(spec, "states_unread")] == [True]


@pytest.mark.parametrize(
    "said",
    [
        "Initially the order is in `in review`.",
        "Default state: `in review`",
        "**Initial**: `in review`",
        "An order starts as `in review`.",
        "> The initial state is `in review`.",
        "| State | Meaning |\n|---|---|\n| draft | written |\n| in review (initial) | read |",
    ],
)
def test_more_ways_of_saying_the_initial_state(said: str) -> None:
    spec = read(f"# Orders\n\n{said}\n\n## Transitions\n\n{_DRAFT_FIRST}")
    assert spec.initial == "in_review"
    # (a States table that leaves out a state of the tables is a warning of its own)
    assert not [m for m in notices(spec, "states_unread") if "starts" in m]


def test_explain_and_the_note_say_where_the_machine_starts_and_why() -> None:
    spec = read(f"# Orders\n\nThe initial state is `in review`.\n\n{_DRAFT_FIRST}")
    (note,) = notices(spec, "names_from_tables")
    assert 'it starts in in_review (line 3: "The initial state is `in review`.")' in note
    text = format_text(spec, analyse(spec), explain=True)
    assert 'Starts in: in_review (line 3: "The initial state is `in review`.")' in text
    plain = read(f"# Orders\n\n{_DRAFT_FIRST}")
    assert "Starts in: draft (its first state" in format_text(plain, analyse(plain), explain=True)


def test_prose_about_starting_is_no_initial_state() -> None:
    spec = read(f"# Orders\n\nA review starts in the morning.\n\n{_DRAFT_FIRST}")
    assert spec.initial == "draft" and not notices(spec, "states_unread")


def test_rows_with_more_or_fewer_cells_are_read_as_github_shows_them() -> None:
    spec = read(SUBSCRIPTION)
    assert [r.target.name for r in spec.rows[-2:]] == ["cancelled", "cancelled"]
    assert spec.rows[-2].extra == (("Idempotent", "terminal"),)  # `final` dropped
    assert spec.rows[-1].extra == (("Idempotent", ""),)
    found = [f for f in analyse(spec) if f.kind == "ragged_row"]
    assert [(f.line, f.severity.value) for f in found] == [(10, "warning"), (11, "warning")]
    assert "5 cells where its table's header (line 5) has 4" in found[0].message
    assert "1 cell past the last column dropped" in found[0].message
    assert "1 cell it lacks read as empty" in found[1].message


def test_a_ragged_row_that_lacks_a_needed_cell_says_why_it_is_empty() -> None:
    text = SUBSCRIPTION.replace("| `paused-by-user` | `cancelled` | Member cancels |", "| x |")
    with pytest.raises(SpecError, match=r"empty 'To' cell.*1 cells where.*has 4") as err:
        read(text)
    assert err.value.line == 11


def test_rows_cut_off_from_a_light_table_are_read_as_its_rows_and_reported() -> None:
    """A blank line ends a markdown table: the rows after it are what their author
    meant, rows of the table above; read so, each a `detached_row` error, never dropped."""
    marker = "| `ON_LOAN` | `loan_closed` | `ON_SHELF` |"
    assert LOANS.count(marker) == 1
    spec = read(LOANS.replace(marker, "\n" + marker))
    assert [replace(r, line=0) for r in spec.rows] == [replace(r, line=0) for r in read(LOANS).rows]
    found = [f for f in analyse(spec) if f.kind == "detached_row"]
    assert [(f.severity.value, f.line, f.rule) for f in found] == [
        ("error", 12, "R4"),
        ("error", 13, "R5"),
        ("error", 14, "R6"),
    ]
    assert all("delete the blank line" in f.message for f in found)


def test_a_terminal_row_cut_off_from_a_light_table_is_read_and_reported() -> None:
    spec = read(PARCELS.replace("| delivered   | (none)", "\n| delivered   | (none)"))
    assert [replace(r, line=0) for r in spec.rows] == [
        replace(r, line=0) for r in read(PARCELS).rows
    ]
    said = [(f.kind, f.state, f.message) for f in analyse(spec) if f.kind != "detached_row"]
    assert said == [(f.kind, f.state, f.message) for f in analyse(read(PARCELS))]
    (found,) = [f for f in analyse(spec) if f.kind == "detached_row"]
    assert found.message.startswith("this row is cut off from its table (line 16)")
    assert found.rule is None


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            "`ON_LOAN` | `loan_closed` | `ON_SHELF`",
            "write it `| `ON_LOAN` | `loan_closed` | `ON_SHELF` |`",
        ),
        ("Moves not listed are refused.", "put a blank line between the table and the text"),
    ],
)
def test_a_line_right_under_a_light_table_that_is_no_row_is_refused_never_dropped(
    line: str, said: str
) -> None:
    """GitHub shows both as rows of the table; markdown's parser ends the table there."""
    text = LOANS.replace("| `OVERDUE` | `loan_closed` | `ON_SHELF` |", line)
    with pytest.raises(SpecError, match="line is not a table row") as err:
        read(text)
    assert err.value.line == 13
    assert said in err.value.message


def test_other_columns_are_notes_and_a_state_with_more_keeps_the_rest_as_a_note() -> None:
    spec = read(ESCROW)
    assert spec.rows[0].extra == (("Actor", "Tenant"),)
    assert spec.state("closed_unfunded").title == "Closed unfunded"
    last = spec.rows[3]
    assert last.target.name == "HELD"
    assert ("Next State note", "+ AUDITED") in last.extra
    (note,) = [f for f in analyse(spec) if f.kind == "target_note"]
    assert (note.line, note.rule, note.severity.value) == (8, "R4", "warning")
    assert "read as the state 'HELD'" in note.message


def test_a_table_without_a_trigger_column_moves_by_to_state() -> None:
    spec = read(ORDERS)
    assert [s.name for s in spec.spells] == ["to_PAID", "to_SHIPPED"]
    assert [r.triggers for r in spec.rows] == [("to_PAID",), ("to_SHIPPED",)]
    assert [a.verb for a in spec.rows[0].actions] == ["create"]
    assert [lit.atom.probe for lit in spec.rows[1].condition.literals] == ["exists"]
    assert spec.rows[0].extra == (("actorRole", "`buyer`"),)  # as written


def test_a_list_wins_over_the_table_and_a_name_missing_from_it_is_an_error() -> None:
    listed = (
        "# Loans\n\n### Spells\n\n1. **lend**\n\n### States\n\n1. **SHELF**\n"
        "    - *Description*: x\n    - *Valid Actions*: lend\n\n### Moves\n\n"
        "| From | Event | To |\n|---|---|---|\n| SHELF | lend | LENT |\n"
    )
    spec = read(listed)
    assert [s.name for s in spec.states] == ["SHELF"]
    assert not notices(spec, "names_from_tables")
    (unknown,) = [f for f in analyse(spec) if f.kind == "unknown_state"]
    assert "'LENT'" in unknown.message


def test_two_spellings_of_one_identifier_are_refused_naming_both_lines() -> None:
    text = LOANS.replace("| `ON_LOAN` | `loan_closed` |", "| `ON_LOAN` | Loan closed |")
    text = text.replace("| `ON_LOAN` | `loan_overdue` |", "| `ON_LOAN` | Loan-Closed |")
    with pytest.raises(SpecError, match=r"'Loan-Closed' and 'Loan closed' \(line 11\)") as err:
        read(text)
    assert err.value.line == 12


def test_two_states_written_alike_but_for_case_are_refused_naming_both_lines() -> None:
    # `Draft` and `draft` were two states: the move back to `draft` led to a dead end.
    text = LOANS.replace(
        "| `OVERDUE` | `loan_closed` | `ON_SHELF` |", "| `OVERDUE` | `loan_closed` | `on_shelf` |"
    )
    with pytest.raises(SpecError, match=r"'on_shelf' and 'ON_SHELF' \(line 7\)") as err:
        read(text)
    assert err.value.line == 13


def test_a_selector_in_a_from_cell_reaches_the_selector_reading_as_written() -> None:
    text = LOANS + "| ON_SHELF / OVERDUE | book_lost | WITHDRAWN |\n"
    (row,) = [r for r in read(text).rows if r.triggers == ("book_lost",)]
    assert row.current.names == ("ON_SHELF", "OVERDUE")  # each part a state of the tables
    text = LOANS + "| Any state except WITHDRAWN | book_lost | WITHDRAWN |\n"
    (row,) = [r for r in read(text).rows if r.triggers == ("book_lost",)]
    assert row.current == parse_selector("Any state except WITHDRAWN")


def test_a_table_of_moves_that_are_refused_blocks_them() -> None:
    text = LOANS + "\n## Invalid moves\n\n| From | To |\n|---|---|\n| WITHDRAWN | ON_LOAN |\n"
    spec = read(text)
    (row,) = [r for r in spec.rows if r.group == "Invalid moves"]
    # the events that lead to ON_LOAN, not a made-up `to_ON_LOAN`
    assert row.target.kind is Kind.BLOCKED and row.triggers == ("loan_opened", "loan_renewed")


@pytest.mark.parametrize(
    "heading",
    [
        "Blocked",
        "Not allowed",
        "Invalid transitions",
        "Forbidden moves",
        "Illegal state changes",
        "Transitions that are not allowed",
        "Moves rejected",
        "4. Invalid transition examples",
    ],
)
def test_a_heading_that_refuses_the_moves_blocks_them(heading: str) -> None:
    text = LOANS + f"\n## {heading}\n\n| From | To |\n|---|---|\n| WITHDRAWN | ON_LOAN |\n"
    (row,) = [r for r in read(text).rows if r.group == heading]
    assert row.target.kind is Kind.BLOCKED


@pytest.mark.parametrize(
    "heading",
    [
        "Handling rejected payments",
        "When a card is declined or blocked",
        "Rejected transition",
        "Invalid addresses",
        "Returns of forbidden items",
    ],
)
def test_a_heading_that_uses_a_word_of_refusal_about_something_else_keeps_the_moves(
    heading: str,
) -> None:
    # "Handling rejected payments" is about payments a bank rejected: its rows are moves
    # the machine makes, and blocking them hid a whole path.
    table = "| From | Event | To |\n|---|---|---|\n| WITHDRAWN | book_found | ON_LOAN |\n"
    text = LOANS + f"\n## {heading}\n\n{table}"
    (row,) = [r for r in read(text).rows if r.group == heading]
    assert row.target.kind is Kind.TRANSITION and row.target.name == "ON_LOAN"


def test_a_table_of_from_and_to_beside_one_with_events_is_a_summary_checked_against_it() -> None:
    """Read as rules, its rows would move on `to_<state>` events with no guard, past the
    guards of the table beside it; as a summary each of its moves is checked."""
    summary = "\nIn short:\n\n| From | To | Notes |\n|---|---|---|\n"
    made, unmade = "| ON_SHELF | ON_LOAN | lent |\n", "| WITHDRAWN | ON_LOAN | found |\n"
    spec = read(LOANS + summary + made + unmade)
    assert not [t for r in spec.rows for t in r.triggers if t.startswith("to_")]
    (said,) = [f for f in analyse(spec) if f.kind == "summary_table"]
    assert "2 moves checked against the rules, 1 of them made by no rule" in said.message
    (wrong,) = [f for f in analyse(spec) if f.kind == "summary_disagrees"]
    assert "WITHDRAWN → ON_LOAN" in wrong.message and wrong.line == said.line + 3


def test_a_summary_listing_several_next_states_checks_each_move() -> None:
    # `ON_SHELF | ON_LOAN, WITHDRAWN` was one move to a state `on_loan_withdrawn`, which
    # no rule makes: a false `summary_disagrees`.
    summary = "\nIn short:\n\n| From | To | Notes |\n|---|---|---|\n"
    spec = read(LOANS + summary + "| ON_SHELF | ON_LOAN, WITHDRAWN | lent or gone |\n")
    assert not [f for f in analyse(spec) if f.kind == "summary_disagrees"]
    wrong = read(LOANS + summary + "| ON_SHELF | ON_LOAN or OVERDUE | lent |\n")
    (said,) = [f for f in analyse(wrong) if f.kind == "summary_disagrees"]
    assert "says ON_SHELF → OVERDUE, and no rule makes that move" in said.message


_FULL = (
    "# S\n\n### Spells\n\n1. **Go**\n\n### States\n\n1. **A**\n    - *Valid Actions*: Go\n"
    "2. **B**\n    - *Valid Actions*: Go\n\n### Rules\n\n"
    "| ID | Current State | Trigger | Condition | Next State | Action | Response |\n"
    "|---|---|---|---|---|---|---|\n| T1 | A, B | Go | - | B | - | ok |\n\n"
)


def test_a_summary_table_in_a_spec_of_the_full_dialect_is_still_a_summary() -> None:
    """A spec with an ID column anywhere reads its `| From | To |` tables as before."""
    spec = read(_FULL + "### Summary\n\n| From | To | Notes |\n|---|---|---|\n| A | B | Go |\n")
    assert [r.id for r in spec.rows] == ["T1"]
    assert notices(spec, "table_skipped")


@pytest.mark.parametrize(
    "header",
    [
        "| From | To | Event |",
        "| Source | Event | Target |",
        "| Current State | Trigger | Next State |",
    ],
)
def test_a_transition_table_without_an_id_column_beside_one_with_it_is_refused(
    header: str,
) -> None:
    # Every transition table of a spec with an ID column is read by its columns: one of
    # `| From | Event | To |` would have its rows missing from the machine without a word.
    text = _FULL + f"### More moves\n\n{header}\n|---|---|---|\n| A | B | Go |\n"
    with pytest.raises(SpecError) as raised:
        read(text)
    assert raised.value.line == text.split("\n").index(header) + 1
    assert f"this table (`{header}`) has the columns of a transition table but no ID" in (
        raised.value.message
    )
    at = text.split("\n").index(_FULL.split("\n")[-5]) + 1
    assert f"has an ID column (line {at})" in raised.value.message
    assert "`| ID | Current State | Trigger | Condition | Next State | Action | Response |`" in (
        raised.value.message
    )


def test_an_id_table_among_from_event_to_tables_is_said_at_the_first_one_it_hides() -> None:
    # The mirror case: one table with an ID column makes every other transition table
    # unread; the error names both, and that the ID table may be the one to rewrite.
    ids = "| ID | Current State | Trigger | Condition | Next State | Action | Response |\n"
    text = LOANS + "\n## Late fees\n\n" + ids + "|---|---|---|---|---|---|---|\n"
    text += "| X1 | OVERDUE | pay | - | ON_SHELF | - | Paid. |\n"
    with pytest.raises(SpecError) as raised:
        read(text)
    assert raised.value.line == text.split("\n").index("| from | event | to |") + 1
    at = text.split("\n").index(ids.strip()) + 1
    assert f"write the table at line {at} that way, without its ID column" in raised.value.message


def test_a_from_event_to_table_set_aside_beside_an_id_table_is_a_note() -> None:
    text = _FULL + "For example:\n\n| From | Event | To |\n|---|---|---|\n| A | Go | B |\n"
    spec = read(text)
    assert [r.id for r in spec.rows] == ["T1"]
    assert any("after the paragraph 'For example:'" in n for n in notices(spec, "table_skipped"))


def test_refusals_name_the_forms_that_read() -> None:
    with pytest.raises(SpecError, match=r"`\| From \| Event \| To \|`"):
        read("# Notes\n\nNo table here.\n")
    with pytest.raises(SpecError, match=r"`\(none\)` for a state with no way out"):
        read("| From | To |\n|---|---|\n| A |  |\n")
    with pytest.raises(SpecError, match=r"`\(start\)` for the state the machine starts in"):
        read("| From | To |\n|---|---|\n|  | B |\n")
    with pytest.raises(SpecError, match="leave the table without a trigger column"):
        read("| From | Event | To |\n|---|---|---|\n| A |  | B |\n")


def test_a_list_of_events_that_keep_the_state_is_read_as_rows_for_every_state() -> None:
    text = LOANS + (
        "\n## Events that never change state\n\nThese are legal anywhere and change nothing:\n\n"
        "- `barcode_scanned`\n- `shelf_audited`\n"
    )
    spec = parse_spec_text(text, "loans.md")
    assert [s.name for s in spec.spells][-2:] == ["barcode_scanned", "shelf_audited"]
    kept = [r for r in spec.rules if r.spell == "barcode_scanned"]
    assert {r.source for r in kept} == {s.name for s in spec.states}
    assert all(r.kind is Kind.NOOP and r.id == "R7" for r in kept)


def test_a_list_under_such_a_heading_that_is_not_names_is_a_warning_not_read() -> None:
    text = LOANS + ("\n## Events that never change state\n\n- a reader asks where the book is\n")
    spec = parse_spec_text(text, "loans.md")
    assert "a_reader_asks_where_the_book_is" not in {s.name for s in spec.spells}
    notes = [n for n in spec.notices if n.kind == "keeping_unread"]
    assert notes and "not a name alone" in notes[0].message


def test_the_row_a_list_not_read_suggests_is_in_the_table_s_columns_and_reads_so() -> None:
    # Under `| From | To | Event |` the row `| Any state | pr_opened | Same state |` made
    # a state `pr_opened` and a trigger `Same state`.
    text = "# Loans\n\n| From | To | Event |\n|---|---|---|\n| ON_SHELF | ON_LOAN | lend |\n"
    listed = text + "\n## Events that never change state\n\n- a reader asks\n"
    (note,) = [n for n in read(listed).notices if n.kind == "keeping_unread"]
    assert "`| Any state | Same state | pr_opened |`" in note.message
    after = read(text + "| Any state | Same state | pr_opened |\n")
    assert [s.name for s in after.states] == [s.name for s in read(text).states]
    assert [s.name for s in after.spells] == ["lend", "pr_opened"]


# A ticket lifecycle in the words such tables use for several states at once.
TICKETS = """\
# Ticket lifecycle

| From | To | Trigger |
|---|---|---|
| (none) | `new` | Customer writes in |
| `new` / `reopened` | `assigned` | Agent picks it up |
| `assigned` | `solved` | Agent answers |
| `solved` | `reopened` | Customer replies |
| `solved` | `closed` | Seven days pass |
| any non-terminal | `spam` | Agent marks spam |
| any terminal | `archived` | Nightly sweep |
| * | `new` | Customer writes in |

Any transition not listed here is rejected.
"""


def test_several_states_in_one_from_cell_read_as_the_author_means() -> None:
    spec = parse_spec_text(TICKETS, "tickets.md")
    by_row: dict[str, set[str]] = {}
    for rule in spec.rules:
        if rule.id.startswith("R"):
            by_row.setdefault(rule.id, set()).add(rule.source)
    states = {s.name for s in spec.states}
    assert by_row["R1"] == {"new", "reopened"}
    # new, reopened, assigned and solved have a way out; spam, closed, archived do not
    assert by_row["R5"] == {"new", "reopened", "assigned", "solved"}
    assert by_row["R6"] == {"closed", "spam", "archived"}
    # `*` is every state (a wildcard, below the rows naming one), never the start marker
    assert by_row["R7"] == states
    assert spec.initial == "new"


def test_a_light_table_with_the_policy_sentence_has_no_missing_cell() -> None:
    spec = parse_spec_text(TICKETS, "tickets.md")
    kinds = [f.kind for f in analyse(spec)]
    assert "missing_cell" not in kinds
    assert kinds.count("unlisted_rejected") == 1
    without = parse_spec_text(TICKETS.replace("Any transition not listed here is rejected.", ""))
    missing = [f for f in analyse(without) if f.kind == "missing_cell"]
    assert missing and any("Transitions not listed are rejected." in f.message for f in missing)


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ("| `ON_LOAN` | `loan_archived` | `(none)` |", "on 'loan_archived'"),
        ("| (start) | ON_SHELF | book_catalogued | stock checked | - |", "the guard"),
        ("| (start) | ON_SHELF | book_catalogued | - | print a label |", "the effects"),
    ],
)
def test_a_marker_row_that_says_more_than_the_marker_is_refused(row: str, said: str) -> None:
    header = "| from | to | event | guard | effects |\n|---|---|---|---|---|\n"
    if "(start)" in row:
        text = "# Loans\n\n" + header + row + "\n| ON_SHELF | ON_LOAN | loan_opened | - | - |\n"
    else:
        text = LOANS.replace("| `OVERDUE` | `loan_closed` | `ON_SHELF` |", row)
    with pytest.raises(SpecError, match=said):
        parse_spec_text(text, "loans.md")


def test_a_terminal_state_with_a_row_out_of_it_is_refused_naming_both() -> None:
    text = LOANS + "| `OVERDUE` | Terminal state | `(none)` |\n"
    with pytest.raises(SpecError, match=r"OVERDUE is declared terminal at line 14 .* row R6"):
        parse_spec_text(text, "loans.md")


def test_states_written_as_words_read_in_a_slash_list_and_by_their_identifiers() -> None:
    text = """\
# Vending

| From | To | Event |
|---|---|---|
| (start) | idle | Machine powered on |
| idle | awaiting-payment | Customer selects |
| awaiting-payment / vending | idle | Customer cancels |
| awaiting_payment | vending | Customer pays |
| vending | idle | customer_pays |
"""
    spec = parse_spec_text(text, "vending.md")
    assert {s.name for s in spec.states} == {"idle", "awaiting_payment", "vending"}
    assert {r.source for r in spec.rules if r.id == "R2"} == {"awaiting_payment", "vending"}
    # a name written as its identifier is that name, and keeps the words it was given
    titles = {s.name: s.title for s in spec.spells}
    assert titles["customer_pays"] == "Customer pays"
    assert {s.name: s.title for s in spec.states}["awaiting_payment"] == "awaiting-payment"


# -- tables of refused moves with their reasons ------------------------------------------

_ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
_PATTERNS = (_ROOT / "tests" / "data" / "fixtures" / "seed_session_patterns.md").read_text(
    encoding="utf-8"
)
_REASONS = _PATTERNS[
    _PATTERNS.index("## Invalid Transitions (Blocked by Hooks)") : _PATTERNS.index(
        "## State File Schema"
    )
].replace("## ", "### ", 1)
_SESSION = (_ROOT / "spec" / "SESSION_STATE_MACHINE.md").read_text(encoding="utf-8")


def _session_with_reasons(session: str = _SESSION) -> str:
    """The coding session's spec with its rows B1-B4 left out and the seed's table of
    refused moves, `| From | To | Why Blocked |`, in their place at the end."""
    kept = [
        line
        for line in session.splitlines()
        if not line.startswith(("| B1 ", "| B2 ", "| B3 ", "| B4 "))
    ]
    return "\n".join(kept) + "\n\n" + _REASONS


def test_a_light_table_s_why_column_is_each_refusal_s_response() -> None:
    spec = parse_spec_text(_PATTERNS)
    read = {
        (r.current.names or ("Any",))[0]: (r.triggers, r.target.kind, r.response) for r in spec.rows
    }
    assert read["INIT"] == (("to_COMPLETE",), Kind.BLOCKED, "Skips implementation and testing")
    assert read["Any"] == (("to_START",), Kind.BLOCKED, "Cannot restart")
    assert all(not r.extra for r in spec.rows)  # the reason is no note beside the response


def test_a_table_of_refused_moves_is_read_as_blocked_rows_of_the_spells_that_ask() -> None:
    """Beside tables with an ID column, `| From | To | Why Blocked |` is no summary to skip:
    each row refuses the spell whose *Target* is To, in From, with its reason."""
    spec = parse_spec_text(_session_with_reasons(), options=ReadOptions("coding_session"))
    read = {
        r.id: (r.current.names or ("Any",), r.triggers, r.target.kind, r.response)
        for r in spec.rows
        if r.id.startswith("WB")
    }
    assert read == {
        "WB1": (("INIT",), ("Finish",), Kind.BLOCKED, "Skips implementation and testing"),
        "WB2": (("IMPLEMENT",), ("Finish",), Kind.BLOCKED, "Skips testing"),
        "WB3": (("TEST",), ("Finish",), Kind.BLOCKED, "Without passing tests (code verified)"),
        "WB4": (("Any",), ("Restart",), Kind.BLOCKED, "Cannot restart"),
    }
    findings = analyse(spec)
    (note,) = [f for f in findings if f.kind == "blocked_reasons"]
    assert "WB4 Any → START as Restart refused in every state" in note.message
    assert not [f for f in findings if f.kind == "table_skipped"]
    # TEST -> COMPLETE is refused only while the tests fail: the verifier says so.
    overlaps = [f.message for f in findings if f.kind == "overlap"]
    assert overlaps and all("and WB3 both fire when" in m for m in overlaps), overlaps


def test_a_refused_move_no_spell_asks_for_is_an_error_saying_what_to_add() -> None:
    session = _SESSION.replace("   - *Target*: START\n", "")
    with pytest.raises(SpecError) as raised:
        parse_spec_text(_session_with_reasons(session), options=ReadOptions("coding_session"))
    assert "refuses Any → START, and no spell asks for START" in raised.value.message
    assert "`- *Target*: START` in the Spells list" in raised.value.message


# A spec with no Spells list calls its triggers what its trigger column's header does.
@pytest.mark.parametrize(
    ("header", "word"),
    [
        ("Event", "event"),
        ("Events", "event"),
        ("event", "event"),
        ("Trigger", "trigger"),
        ("Command", "command"),
        ("Spell", "spell"),
        # Two words the table knows, neither of them the one: the default.
        ("Event / command", "spell"),
    ],
)
def test_the_trigger_column_s_header_is_the_spec_s_word(header: str, word: str) -> None:
    text = f"# M\n\n| From | {header} | To |\n|---|---|---|\n| A | go | B |\n| B | stop | A |\n"
    assert parse_spec_text(text).spell_word == word


def test_a_header_the_word_table_does_not_know_keeps_the_default() -> None:
    text = "# M\n\n| From | On | To |\n|---|---|---|\n| A | go | B |\n| B | stop | A |\n"
    spec = parse_spec_text(text, options=ReadOptions(columns=(("trigger", ("On",)),)))
    assert [s.name for s in spec.spells] == ["go", "stop"] and spec.spell_word == "spell"
    # No trigger column at all: `to_<state>` triggers, and the default word.
    spec = parse_spec_text("# M\n\n| From | To |\n|---|---|\n| A | B |\n| B | A |\n")
    assert spec.spell_word == "spell"


def test_a_spells_list_heading_wins_over_the_trigger_column_s_header() -> None:
    text = "# M\n\n## Commands\n\n1. **go**\n2. **stop**\n\n" + (
        "| From | Event | To |\n|---|---|---|\n| A | go | B |\n| B | stop | A |\n"
    )
    assert parse_spec_text(text).spell_word == "command"


def test_the_reports_call_an_event_table_s_triggers_events() -> None:
    spec = parse_spec_text(LOANS, "loans.md")
    assert spec.spell_word == "event"
    findings = analyse(spec)
    text = format_text(spec, findings)
    lines = text.splitlines()
    assert lines[0] == ("loans.md: 4 states, 5 events, 6 rule rows expanding to 6 rules"), lines[0]
    # No families: one matrix, by state, saying so.
    assert lines[3].endswith("(4 states x 5 events; no state families, so no matrix by family)")
    assert "state WITHDRAWN: no event leads out of it [dead_end]" in text
    assert "its 5 events are read from them" in text
    assert "spell" not in text.replace("spellbook", "")
    markdown = to_markdown(spec, findings)
    assert "## Coverage: 4 states x 5 events (no state families)" in markdown
    assert "spell" not in markdown.replace("spellbook", "")
    # JSON and SARIF keep their keys; the messages in them are the text's.
    report = to_json(spec, findings)
    assert report["spells"] == [s.name for s in spec.spells]
    dead = next(f for f in report["findings"] if f["kind"] == "dead_end")
    assert "spell" in dead and dead["message"].endswith("no event leads out of it")
    sarif = json.dumps(to_sarif(spec, findings))
    assert "no event leads out of it" in sarif and "no spell" not in sarif


def test_the_generated_module_of_an_event_table_says_event() -> None:
    source = render_machine(parse_spec_text(LOANS, "loans.md"), "loans")
    assert "SPELL_WORD = 'event'" in source or 'SPELL_WORD = "event"' in source
    assert "# What the spec calls its events." in source
    assert (
        "# Event -> its Description and Usage from the spec; the state it asks for, for events"
        in source
    )
    assert "# Every (state, event)'s rules, in priority order." in source
    assert "spell." not in source and "(state, spell)" not in source


def test_a_change_of_an_event_table_is_told_in_events() -> None:
    old = parse_spec_text(LOANS, "old.md")
    changed = LOANS.replace("`loan_renewed` | `ON_LOAN`", "`loan_renewed` | `OVERDUE`")
    new = parse_spec_text(changed + "| `OVERDUE` | `book_lost` | `WITHDRAWN` |\n", "new.md")
    diff = compare(old, new)
    text = diff_text(diff)
    assert "Events: added book_lost" in text, text
    markdown = diff_markdown(diff)
    assert "| Event | In | When | Was | Now |" in markdown, markdown
    assert "## States, events and rows" in markdown
    said = re.sub(r"no\s+Spells\s+list|spellbook", "", text + markdown)
    assert "Spell" not in said and "spell" not in said


def _order(header: str, *rows: str) -> str:
    """A small order machine under `header`, `rows` its moves after `draft -> review`."""
    cells = [c for c in header.strip("|").split("|")]
    body = "\n".join(rows)
    return f"# Order\n\n## Transitions\n\n{header}\n|{'---|' * len(cells)}\n{body}\n"


@pytest.mark.parametrize(
    "header",
    [
        "| From | Trigger / Event | To |",
        "| From | On | To |",
        "| State | Transition | Next State |",
        "| Source | Event | Target |",
        "| Current | Event | Next |",
        "| From | Event name | To |",
        "| From | Trigger event | To |",
        "| From | Triggered by | To |",
        "| From state | Event type | To state |",
        "| From | Caused by | To |",
        "| From | Transition trigger | To |",
        "| From | Transition event | To |",
    ],
)
def test_a_trigger_column_under_the_headers_people_write_is_read_as_the_events(
    header: str,
) -> None:
    spec = read(_order(header, "| draft | submit | review |", "| review | approve | done |"))
    assert [(r.current.names, r.triggers, r.target.name) for r in spec.rows] == [
        (("draft",), ("submit",), "review"),
        (("review",), ("approve",), "done"),
    ]


def test_a_column_of_events_under_another_name_is_a_warning_naming_the_rename() -> None:
    spec = read(_order("| From | Action | To |", "| draft | submit | review |"))
    (note,) = [f for f in analyse(spec) if f.kind == "event_column"]
    assert (note.line, note.severity.value) == (5, "warning")
    assert "rename the column 'Action' to 'Event'" in note.message


def test_an_action_column_of_what_someone_does_is_a_warning_naming_the_rename() -> None:
    # `Customer pays` was told to the AI as an instruction, every move `to_<state>`.
    spec = read(_order("| From | Action | To |", "| draft | Customer pays | paid |"))
    (note,) = [f for f in analyse(spec) if f.kind == "event_column"]
    assert "holds what someone does ('Customer pays')" in note.message
    for cell in ("Send the invoice", "Run tests", "Notify reviewers"):  # instructions
        told = read(_order("| From | Action | To |", f"| draft | {cell} | paid |"))
        assert not [f for f in analyse(told) if f.kind == "event_column"], cell
    command = read(_order("| From | Test command | To |", "| draft | make test | paid |"))
    assert not [f for f in analyse(command) if f.kind == "event_column"]


@pytest.mark.parametrize("header", ["Transition name", "Operation", "Description", "Gatilho"])
def test_a_column_of_text_that_differs_row_by_row_beside_no_event_column_is_a_warning(
    header: str,
) -> None:
    # `| From | Transition name | To |` over `Payment received`: every move was read as
    # `to_<state>` with no word.
    rows = ("| draft | Payment received | paid |", "| paid | Parcel handed over | shipped |")
    spec = read(_order(f"| From | {header} | To |", *rows))
    (note,) = [f for f in analyse(spec) if f.kind == "event_column"]
    assert "holds text that differs row by row" in note.message
    assert "which may be the events" in note.message
    # its punctuation aside: a full stop, a comma, who does it in parentheses
    for said in (("Payment received.", "Parcel handed over."), ("Pay (customer)", "Ship, track")):
        told = (f"| draft | {said[0]} | paid |", f"| paid | {said[1]} | shipped |")
        noted = read(_order(f"| From | {header} | To |", *told))
        assert [f for f in analyse(noted) if f.kind == "event_column"], said
    # nor durations, nor a column a role reads (`sideEffects`: what is done)
    timed = ("| draft | 2 days | paid |", "| paid | 5 days | shipped |")
    assert not [
        f
        for f in analyse(read(_order(f"| From | {header} | To |", *timed)))
        if f.kind == "event_column"
    ]
    acts = ("| draft | emit ORDER_PAID; write audit | paid |", "| paid | emit SHIPPED | shipped |")
    assert not [
        f
        for f in analyse(read(_order("| From | sideEffects | To |", *acts)))
        if f.kind == "event_column"
    ]
    # a column of notes is none, nor one whose rows say one thing
    for quiet in ("Notes", "Owner", "Rationale", "Details", "Explanation"):
        assert not [
            f
            for f in analyse(read(_order(f"| From | {quiet} | To |", *rows)))
            if f.kind == "event_column"
        ]


@pytest.mark.parametrize(
    "header",
    ["Message", "Signal", "Input", "Event description", "Triggered when", "Ereignis", "Evento"],
)
def test_a_column_headed_as_events_is_a_warning_whatever_its_cells(header: str) -> None:
    # `| From | Message | To |` of `User submits the form` was dropped with no word: every
    # move's trigger `to_<state>`.
    spec = read(_order(f"| From | {header} | To |", "| draft | User submits the form | review |"))
    (note,) = [f for f in analyse(spec) if f.kind == "event_column"]
    assert f"rename the column {header!r} to 'Event'" in note.message
    owned = read(_order("| From | Owner | To |", "| draft | The support team | review |"))
    assert not [f for f in analyse(owned) if f.kind == "event_column"]


@pytest.mark.parametrize(
    ("cell", "triggers"),
    [
        ("approve / accept", ("approve", "accept")),
        ("approve or accept", ("approve", "accept")),
        ("approve OR accept", ("approve", "accept")),
        ("approve; accept", ("approve", "accept")),
        ("approve<br>accept", ("approve", "accept")),
        ("<kbd>approve</kbd>", ("approve",)),
        ("approve <!-- TODO rename -->", ("approve",)),
        ("approve %%only on main%%", ("approve",)),
        ("approve :rocket:", ("approve",)),
        (":white_check_mark: approve", ("approve",)),
    ],
)
def test_an_event_cell_naming_two_events_or_with_markup_reads_the_events(
    cell: str, triggers: tuple[str, ...]
) -> None:
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    assert spec.rows[0].triggers == triggers
    assert {s.name for s in spec.spells} == set(triggers)


@pytest.mark.parametrize(
    ("cell", "guard", "action"),
    [
        ("submit [valid]", "valid", ""),
        ("submit / if valid", "valid", ""),
        ("submit when valid", "valid", ""),
        ("submit (only if the form is valid)", "the form is valid", ""),
        ("submit / save()", "-", "save()"),
        ("submit [valid] / save()", "valid", "save()"),
        # UML's event written as a call, then an action: was one event `submit_doc_notify`
        ("submit(doc) / notify(reviewers)", "-", "notify(reviewers)"),
        ("submit() / notify()", "-", "notify()"),
        ("submit if ci.json has `green`", "ci.json has `green`", ""),
        ("submit [`plan.md` exists]", "`plan.md` exists", ""),
        ("submit (only if `a*b.md` exists)", "`a*b.md` exists", ""),
        ("submit, if valid", "valid", ""),
        ("submit, only if valid", "valid", ""),
        ("submit but only when valid", "valid", ""),
        # A guard after a word that denies it: `save, except when X` was the event
        # `save_except` guarded by X, the opposite of the author's meaning.
        ("submit, except when locked", "NOT locked", ""),
        ("submit, except if locked", "NOT locked", ""),
        ("submit, not when locked", "NOT locked", ""),
        ("submit, never if locked", "NOT locked", ""),
        ("submit but not when locked", "NOT locked", ""),
        ("submit, except when `lock.md` exists", "NOT (`lock.md` exists)", ""),
    ],
)
def test_a_guard_or_action_in_an_event_cell_is_the_rows_condition_or_action(
    cell: str, guard: str, action: str
) -> None:
    spec = read(_order("| From | Event | To |", f"| draft | {cell} | review |"))
    row = spec.rows[0]
    assert row.triggers == ("submit",)
    assert row.condition.text == guard
    assert row.action == action


def test_a_guard_in_the_event_cell_and_the_condition_column_is_refused() -> None:
    text = _order(
        "| From | Event | Condition | To |", "| draft | submit [valid] | ready | review |"
    )
    with pytest.raises(SpecError, match="write the guard in one place") as err:
        read(text)
    assert err.value.line == 7


@pytest.mark.parametrize("cell", ["submit[^1]", "submit<sup>1</sup>", "<del>submit</del>"])
def test_an_event_cell_with_a_mark_pointing_elsewhere_is_refused(cell: str) -> None:
    with pytest.raises(SpecError, match="is not read") as err:
        read(_order("| From | Event | To |", f"| draft | {cell} | review |"))
    assert err.value.line == 7


@pytest.mark.parametrize("cell", ["(same)", "(unchanged)", "no change", "(same state)"])
def test_a_same_word_in_a_to_cell_keeps_the_state_and_names_no_state(cell: str) -> None:
    spec = read(
        _order(
            "| From | Event | To |", "| draft | submit | review |", f"| review | comment | {cell} |"
        )
    )
    assert spec.rows[1].target.kind is Kind.NOOP
    assert [s.name for s in spec.states] == ["draft", "review"]


@pytest.mark.parametrize(
    "cell",
    [
        "done (terminal)",
        "done<br>(terminal)",
        "done \u2014 final",
        "done \u2013 final",
        "done: all set",
    ],
)
def test_a_note_after_a_to_state_is_a_warned_note_never_a_new_state(cell: str) -> None:
    spec = read(_order("| From | Event | To |", f"| draft | submit | {cell} |"))
    assert spec.rows[0].target.name == "done"
    (note,) = [f for f in analyse(spec) if f.kind == "target_note"]
    assert (note.line, note.severity.value) == (7, "warning")


def test_a_to_cell_of_a_state_named_with_a_dash_or_colon_elsewhere_is_that_state() -> None:
    # `Phase: review` named so in a From cell too is a state of that name, no note.
    spec = read(
        _order(
            "| From | Event | To |",
            "| draft | submit | Phase: review |",
            "| Phase: review | approve | done |",
        )
    )
    assert spec.rows[0].target.name == spec.rows[1].current.names[0]
    assert not [f for f in analyse(spec) if f.kind == "target_note"]


def test_a_note_after_a_from_state_is_refused_never_a_new_state() -> None:
    with pytest.raises(SpecError, match="names a state and a note") as err:
        read(_order("| From | Event | To |", "| draft (pending) | submit | review |"))
    assert err.value.line == 7


@pytest.mark.parametrize(
    "cell", ["draft or review", "draft and review", "draft<br>review", "draft \\| review"]
)
def test_two_states_in_a_from_cell_are_each_a_state(cell: str) -> None:
    spec = read(
        _order(
            "| From | Event | To |", "| draft | submit | review |", f"| {cell} | cancel | gone |"
        )
    )
    assert spec.rows[1].current.names == ("draft", "review")
    assert [s.name for s in spec.states] == ["draft", "review", "gone"]


@pytest.mark.parametrize(
    "cell", ["In review or On hold", "In review and On hold", "In review<br>On hold"]
)
def test_states_of_several_words_listed_in_a_from_cell_are_each_a_state(cell: str) -> None:
    # `In review or On hold` was one state `in_review_or_on_hold`, which no row leads to,
    # while the author named two states the table's To cells declare.
    spec = read(
        _order(
            "| From | Event | To |",
            "| Draft | submit | In review |",
            "| In review | pause | On hold |",
            f"| {cell} | cancel | Gone |",
        )
    )
    assert spec.rows[2].current.names == ("in_review", "on_hold")
    assert "in_review_or_on_hold" not in [s.name for s in spec.states]


def test_a_from_cell_of_names_joined_by_or_stays_one_state_unless_each_is_a_state() -> None:
    # `Approved or waiting for legal` is not two states where the second is no state.
    spec = read(
        _order(
            "| From | Event | To |",
            "| Draft | submit | Approved |",
            "| Approved or waiting for legal | archive | Archived |",
        )
    )
    assert spec.rows[1].current.names == ("approved_or_waiting_for_legal",)


_MOVES = "| From | Event | To |\n|---|---|---|\n| draft | submit | review |\n"
_MORE = "| From | Event | To |\n|---|---|---|\n| review | cancel | cancelled |\n"


@pytest.mark.parametrize(
    ("enclosed", "says"),
    [
        ("> " + _MORE.replace("\n", "\n> ").rstrip("> "), "move the table out of the block quote"),
        (
            "> [!WARNING]\n> Admins may also:\n>\n> " + _MORE.replace("\n", "\n> ").rstrip("> "),
            "move the table out of the alert",
        ),
        (
            "- Cancelling:\n\n  " + _MORE.replace("\n", "\n  ").rstrip(),
            "move the table out of the list",
        ),
        (
            "<table>\n<tr><th>From</th><th>Event</th><th>To</th></tr>\n"
            "<tr><td>review</td><td>cancel</td><td>cancelled</td></tr>\n</table>\n",
            "write it as a markdown table",
        ),
    ],
    ids=["block_quote", "alert", "list_item", "html_table"],
)
@pytest.mark.parametrize("alone", [True, False], ids=["alone", "after_a_table"])
def test_a_transition_table_inside_a_quote_list_or_html_is_refused_at_its_line(
    enclosed: str, says: str, alone: bool
) -> None:
    head = "# Order\n\n## Transitions\n\n" + ("" if alone else _MOVES + "\n")
    text = head + enclosed
    line = (
        head.count("\n")
        + 1
        + next(i for i, ln in enumerate(enclosed.split("\n")) if "From" in ln or "<table" in ln)
    )
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    assert raised.value.line == line
    assert says in raised.value.message


def test_a_summary_table_inside_a_block_quote_stays_unread() -> None:
    text = (
        "# Order\n\n## Transitions\n\n"
        + _MOVES
        + "\n> | State | Meaning |\n> |---|---|\n> | draft | new |\n"
    )
    assert [r.id for r in parse_spec_text(text).rows] == ["R1"]


@pytest.mark.parametrize(
    "cell", ["~~approve~~", "<del>approve</del>", "<s>approve</s>", "~approve~", "**~~approve~~**"]
)
def test_struck_out_text_in_a_rule_row_is_refused_at_its_line(cell: str) -> None:
    text = "# Order\n\n## Transitions\n\n" + _MOVES + f"| review | {cell} | done |\n"
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    assert raised.value.line == 8
    assert "struck-out" in raised.value.message and "Event cell" in raised.value.message


def test_tildes_in_a_code_span_or_a_home_path_are_not_struck_out() -> None:
    text = "# Order\n\n## Transitions\n\n" + _MOVES + "| review | `~~approve~~` | done |\n"
    assert len(parse_spec_text(text).rows) == 2


def test_a_header_with_colons_says_why_it_is_no_transition_table() -> None:
    text = "# Order\n\n## Transitions\n\n" + _MOVES.replace("From", "From:").replace("To ", "To: ")
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    assert raised.value.line == 5
    assert "'From:'" in raised.value.message and "take the ':' off" in raised.value.message


def test_a_header_without_bars_over_rows_with_them_says_why_at_its_line() -> None:
    table = "From | Event | To\n--- | --- | ---\n| draft | submit | review |\n"
    text = "# Order\n\n## Transitions\n\n" + table
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    assert raised.value.line == 5
    assert "GitHub shows these lines as a table" in raised.value.message


PR_TABLE = """# PR lifecycle

| From | Event | To |
|---|---|---|
| (start) | open | ci-running |
| ci-running | ci_pass | merge-queued |
| ci-running | ci_fail | checks-failed |
| checks-failed | push | ci-running |
| merge-queued | merge | merged |
| merged | (none) | (none) |
"""


def test_a_states_list_beside_light_tables_takes_names_as_the_tables_write_them() -> None:
    listed = PR_TABLE + (
        "\n## States\n\n1. **ci-running**\n2. **merge-queued**\n3. **checks-failed**\n"
        "   - *Formerly*: ci_failed\n4. **merged**\n"
    )
    spec = read(listed)
    assert [(s.name, s.title) for s in spec.states] == [
        ("ci_running", "ci-running"),
        ("merge_queued", "merge-queued"),
        ("checks_failed", "checks-failed"),
        ("merged", ""),
    ]
    assert spec.formerly == {"ci_failed": "checks_failed"}
    assert not notices(spec, "unknown_state")


@pytest.mark.parametrize(
    ("listed", "message"),
    [
        # the list and a table spell one identifier two ways
        ("2. **merge queued**", "'merge-queued' and 'merge queued' (line 15)"),
        # two items of the list do
        ("2. **merge-queued**\n5. **Merge-Queued**", "'Merge-Queued' and 'merge-queued'"),
    ],
)
def test_a_states_list_refuses_two_spellings_of_one_identifier_as_the_tables_do(
    listed: str, message: str
) -> None:
    text = PR_TABLE + (
        f"\n## States\n\n1. **ci-running**\n{listed}\n3. **checks-failed**\n4. **merged**\n"
    )
    with pytest.raises(SpecError, match=re.escape(message)) as error:
        read(text)
    assert "two names for one identifier" in str(error.value)


# An order in three rows, its Event cell at line 7 to fill in.
DRAFT = "# Order\n\n## Transitions\n\n| From | Event | To |\n|---|---|---|\n"
DRAFT_REST = "| review | approve | done |\n| review | reject | draft |\n"


def _drafted(event: str, more: str = "") -> Spec:
    return read(f"{DRAFT}| draft | {event} | review |\n{DRAFT_REST}{more}")


def _noticed(spec: Spec, kind: str) -> list[tuple[int, str]]:
    return [(n.line, n.message) for n in spec.notices if n.kind == kind]


@pytest.mark.parametrize(
    ("event", "more"),
    [
        ("submit (or resubmit)", ["resubmit"]),
        ("submit (or resubmit, auto-submit)", ["resubmit", "auto_submit"]),
    ],
)
def test_more_events_in_a_parenthesis_are_triggers_of_the_row(event: str, more: list[str]) -> None:
    spec = _drafted(event)
    assert [r.spell for r in spec.rules if r.source == "draft"] == ["submit", *more]
    assert _noticed(spec, "trigger_note") == []


def test_unless_in_a_parenthesis_or_after_the_event_is_the_guard_negated() -> None:
    for event in ("submit (unless locked)", "submit unless locked"):
        (rule,) = [r for r in _drafted(event).rules if r.source == "draft"]
        assert (rule.spell, rule.condition.text) == ("submit", "NOT locked"), event


@pytest.mark.parametrize(
    "note", ["admin only", "valid only", "requires approval", "after 24h", "on timeout", "auto"]
)
def test_a_note_after_an_event_is_a_warning_at_its_line(note: str) -> None:
    ((line, message),) = _noticed(_drafted(f"submit ({note})"), "trigger_note")
    assert line == 7 and f"'({note})'" in message and "kept but not read" in message


def test_rows_that_differ_only_by_their_notes_are_said_to_conflict_for_it() -> None:
    text = DRAFT + "| draft | submit (valid) | review |\n| draft | submit (invalid) | draft |\n"
    notes = _noticed(read(text), "trigger_note")
    assert [line for line, _ in notes] == [7, 8]
    assert "rows R1 (line 7) and R2 differ only by their notes" in notes[1][1]
    assert "that is why they conflict" in notes[1][1]


@pytest.mark.parametrize("event", ["submit / notify", "submit/notify"])
def test_a_slash_between_two_names_reads_as_two_events_with_a_warning(event: str) -> None:
    spec = _drafted(event)
    assert [r.spell for r in spec.rules if r.source == "draft"] == ["submit", "notify"]
    ((line, message),) = _noticed(spec, "slash_events")
    assert line == 7 and "`submit or notify`" in message and "`submit / notify()`" in message


@pytest.mark.parametrize(
    ("event", "action"),
    [
        ("submit / notify reviewer", "notify reviewer"),
        ("Submit draft / send the email", "send the email"),
    ],
)
def test_a_slash_before_words_that_open_with_a_verb_is_the_event_and_its_action(
    event: str, action: str
) -> None:
    """UML's `event / action`, the action of several words: not two events."""
    spec = _drafted(event)
    (rule,) = [r for r in spec.rules if r.source == "draft"]
    assert rule.action == action
    ((line, message),) = _noticed(spec, "slash_events")
    assert line == 7 and "is read as UML's `event / action`" in message
    assert f"/ {action}()`" in message and " or " in message


@pytest.mark.parametrize("event", ["approve / reject", "Approve request / Reject request"])
def test_a_slash_before_words_that_open_with_no_verb_of_actions_is_two_events(event: str) -> None:
    spec = _drafted(event)
    assert len([r for r in spec.rules if r.source == "draft"]) == 2
    assert all(r.action == "" for r in spec.rules if r.source == "draft")


def test_an_event_written_as_a_call_is_the_event_and_one_info_that_its_parameters_are_unread() -> (
    None
):
    """`addItem(item)`: the parentheses hold parameters, no note to warn of on each row."""
    spec = read(
        _table(
            "| empty | addItem(item) | active |\n| active | addItem(item) | active |\n"
            "| active | pay(amount, card: Card) | paid |\n| paid | close() | done |\n"
        )
    )
    assert [r.triggers for r in spec.rows] == [("addItem",), ("addItem",), ("pay",), ("close",)]
    assert _noticed(spec, "trigger_note") == []
    ((line, message),) = _noticed(spec, "event_parameters")
    assert line == 5 and "'addItem(item)' is read as the event 'addItem'" in message
    assert "3 rows are written so" in message


def test_an_event_written_as_a_call_in_a_table_of_ids_is_the_event_too() -> None:
    # `submit(form)` was an event of its own beside `submit`, which the not-listed
    # policy then refused in editing, with no word.
    spec = read(
        "# Forms\n\nTransitions not listed are rejected.\n\n"
        "| ID | From | Event | Condition | To | Action |\n|---|---|---|---|---|---|\n"
        "| T1 | editing | submit(form) | form.json exists | submitted | - |\n"
        "| T2 | editing | submit(form) | form.json missing | editing | - |\n"
        "| T3 | submitted | reopen, pay(amount, card: Card) | - | editing | - |\n"
        "| T4 | submitted | submit | - | submitted | - |\n"
    )
    assert [r.triggers for r in spec.rows] == [
        ("submit",),
        ("submit",),
        ("reopen", "pay"),
        ("submit",),
    ]
    ((line, message),) = _noticed(spec, "event_parameters")
    assert line == 7 and "'submit(form)' is read as the event 'submit'" in message
    assert "3 rows are written so" in message


def test_a_call_s_parameters_under_the_project_s_code_are_said_to_reach_its_methods() -> None:
    # Under own code the trigger does carry what it is called with, to the guards and
    # callbacks (`model.pay(amount=5)`): "an event carries no data" was untrue there.
    table = _table("| empty | pay(amount) | paid |\n| paid | close | done |\n")
    own = parse_spec_text(table, options=ReadOptions(own_code=True))
    ((_, message),) = _noticed(own, "event_parameters")
    assert "the trigger passes what it is called with to the guards and callbacks" in message
    assert "`model.pay(...)`" in message and "carries no data" not in message
    ((_, core),) = _noticed(read(table), "event_parameters")
    assert "an event carries no data" in core


@pytest.mark.parametrize("cell", ["submit (item)", "submit(admin only)", "submit(only)"])
def test_parentheses_that_hold_no_parameters_are_a_note(cell: str) -> None:
    spec = _drafted(cell)
    assert _noticed(spec, "event_parameters") == []
    assert [line for line, _ in _noticed(spec, "trigger_note")] == [7]


def test_a_code_span_event_cell_is_one_literal_name() -> None:
    spec = _drafted("`submit or notify`")
    assert [r.spell for r in spec.rules if r.source == "draft"] == ["submit_or_notify"]


KEEPING = "- `ping`\n- `log`\n"


@pytest.mark.parametrize(
    "over",
    [
        "## Events that don't change the state\n\n",
        "## Informational events (state unchanged)\n\n",
        "## Self-transitions\n\nThese are accepted in every state and leave it as it is:\n\n",
        "**Events that never change state:**\n\n",
    ],
)
def test_more_ways_of_saying_events_keep_the_state_are_read(over: str) -> None:
    spec = read(f"{DRAFT}| draft | submit | review |\n{DRAFT_REST}\n{over}{KEEPING}")
    assert {r.spell for r in spec.rules if r.kind is Kind.NOOP} == {"ping", "log"}
    assert _noticed(spec, "keeping_unread") == []


@pytest.mark.parametrize(
    "items", ["- `ping` — heartbeat only\n- `log`\n", "- `ping`: heartbeat\n- log: audit\n"]
)
def test_an_item_with_a_note_after_a_dash_or_colon_is_its_name(items: str) -> None:
    text = (
        f"{DRAFT}| draft | submit | review |\n{DRAFT_REST}\n## Events that never change state\n\n"
    )
    spec = read(text + items)
    assert {r.spell for r in spec.rules if r.kind is Kind.NOOP} == {"ping", "log"}


def test_a_sub_heading_under_the_heading_is_read_with_a_warning_it_is_not() -> None:
    text = (
        f"{DRAFT}| draft | submit | review |\n{DRAFT_REST}\n## Events that never change state\n\n"
    )
    spec = read(text + "### In review only\n\n" + KEEPING)
    assert {r.spell for r in spec.rules if r.kind is Kind.NOOP} == {"ping", "log"}
    ((_, message),) = _noticed(spec, "keeping_unread")
    assert "'In review only' is not read" in message


@pytest.mark.parametrize(
    "item", ["- `log` (except in done)", "- `log` and `audit`", "- Sensors:\n  - `log`"]
)
def test_a_list_under_such_a_heading_not_read_is_a_warning(item: str) -> None:
    text = (
        f"{DRAFT}| draft | submit | review |\n{DRAFT_REST}\n## Events that never change state\n\n"
    )
    spec = read(text + "- `ping`\n" + item + "\n")
    assert [n.kind for n in spec.notices if "keep the state" in n.message] == ["keeping_unread"]
    assert not any(r.kind is Kind.NOOP for r in spec.rules)


def test_an_event_listed_as_keeping_the_state_and_moving_in_a_row_is_a_warning() -> None:
    text = (
        f"{DRAFT}| draft | submit | review |\n{DRAFT_REST}\n## Events that never change state\n\n"
    )
    ((line, message),) = _noticed(read(text + "- `ping`\n- `approve`\n"), "keeping_moves")
    assert line == 14 and "listed at line 14" in message and "R2 (line 8)" in message


@pytest.mark.parametrize(
    "heading", ["Example of a row (not part of the machine)", "Old rules (v1, superseded)"]
)
def test_a_light_table_under_a_heading_that_says_it_is_an_example_is_no_rule(
    heading: str,
) -> None:
    text = "# Order\n\n## Transitions\n\n" + _MOVES + f"\n## {heading}\n\n" + _MORE
    spec = read(text)
    assert [(r.id, r.current.names) for r in spec.rows] == [("R1", ("draft",))]
    assert "cancelled" not in [s.name for s in spec.states]
    lines = text.split("\n")
    (note,) = [f for f in analyse(spec) if f.kind == "table_skipped"]
    assert note.line == len(lines) - 3  # the header of the last table
    assert f"under the heading {heading!r} (line {lines.index(f'## {heading}') + 1})" in (
        note.message
    )


def test_a_light_table_under_a_heading_of_refused_moves_is_still_refused_moves() -> None:
    text = "# Order\n\n## Transitions\n\n" + _MOVES + "\n### Invalid transition examples\n\n"
    spec = read(text + _MORE)
    assert [r.target.kind for r in spec.rows] == [Kind.TRANSITION, Kind.BLOCKED]


@pytest.mark.parametrize(
    ("lead", "marked"),
    [
        ("## How to add a move\n\n1. Add a row to the table, for example:", "item"),
        ("## How to add a move\n\n1. Add a row, e.g.", "item"),
        ("## Example of a new move\n\n1. Add a row to the table:", "heading"),
    ],
)
def test_a_table_in_a_list_item_that_says_it_is_an_example_is_skipped_with_a_note(
    lead: str, marked: str
) -> None:
    text = (
        "# Order\n\n## Transitions\n\n"
        + _MOVES
        + f"\n{lead}\n\n   "
        + _MORE.replace("\n", "\n   ").rstrip()
        + "\n\n2. Run the verifier.\n"
    )
    spec = read(text)
    assert [r.id for r in spec.rows] == ["R1"]
    lines = text.split("\n")
    (note,) = [f for f in analyse(spec) if f.kind == "table_skipped"]
    assert note.line == max(
        i for i, ln in enumerate(lines, 1) if ln.strip() == "| From | Event | To |"
    )
    said, start = ("in the list item", "1. ") if marked == "item" else ("under the heading", "## ")
    at = max(i for i, ln in enumerate(lines, 1) if ln.startswith(start))
    assert f"{said} " in note.message and f"(line {at})" in note.message


def test_a_state_named_with_and_is_one_state_in_a_to_cell_and_after_it() -> None:
    """`and` parts two states of a From cell (`draft and review`), but a To cell names one
    state, and a From cell naming a state a row before led to is that state."""
    text = (
        "# Shop\n\n| From | Event | To |\n|---|---|---|\n"
        "| draft | ship | shipped and invoiced |\n| shipped and invoiced | close | draft |\n"
    )
    spec = read(text)
    assert [s.name for s in spec.states] == ["draft", "shipped_and_invoiced"]
    assert [r.current.names for r in spec.rows] == [("draft",), ("shipped_and_invoiced",)]


def _one_row(event: str) -> str:
    return f"# Order\n\n| From | Event | To |\n|---|---|---|\n| draft | {event} | review |\n"


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "event",
    [
        "<a" + "x" * 100_000,  # a tag never closed
        "a[" * 100_000,  # brackets never closed
        "]" + "a[" * 100_000,
    ],
)
def test_a_long_event_cell_of_unclosed_marks_is_read_at_once(event: str) -> None:
    spec = read(_one_row(event))
    assert len(spec.rules) == 1


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "event",
    ["<!--" * 50_000, "<sup>" * 60_000, "<sup" * 60_000 + "</sup>", "[^" * 100_000],
)
def test_a_long_event_cell_of_unclosed_comments_or_notes_is_refused_at_once(event: str) -> None:
    with pytest.raises(SpecError):
        read(_one_row(event))


@pytest.mark.parametrize(
    ("event", "mark"),
    [("submit<sup>1</sup>", "<sup>1</sup>"), ("submit[^1] <sup>2</sup>", "[^1]")],
)
def test_a_footnote_mark_is_named_in_the_refusal(event: str, mark: str) -> None:
    with pytest.raises(SpecError, match=re.escape(repr(mark))):
        read(_one_row(event))


@pytest.mark.timeout(30)
@pytest.mark.parametrize("gap", [" " * 100_000, "\t" * 100_000])
def test_a_paragraph_with_a_long_run_of_spaces_is_read_at_once(gap: str) -> None:
    spec = read(_one_row("submit") + f"\nNote a{gap}b.\n\nThe order is{gap}x.\n")
    assert spec.initial == "draft"


def _table(rows: str, header: str = "| From | Event | To |", head: str = "") -> str:
    """A light table of `rows` after `head` (a States line, say)."""
    rule = "|" + "---|" * (header.count("|") - 1)
    return f"# Ticket\n\n{head}{header}\n{rule}\n{rows}"


@pytest.mark.parametrize(
    ("column", "note"),
    [
        ("Notes", "only admins"),
        ("Notes", "not implemented yet"),
        ("Notes", "guard: previous release exists"),
        ("Notes", "max 3 times"),
        ("Status", "Deprecated: removed in v2"),
        ("", "❌ removed"),
        ("Since", "v1, removed in v2"),
        ("Notes", "editors only"),
        ("Notes", "editor only"),
        ("Notes", "Desktop-only"),
        ("Notes", "when stock > 0"),
        ("Notes", "When the payment is confirmed"),
        ("Notes", "after 24h"),
        ("Notes", "after 3 days"),
        ("Notes", "needs 2 approvals"),
        ("Notes", "Needs sign-off from legal"),
        ("Notes", "Provided the cart is not empty"),
        ("Notes", "Except for guests"),
        ("Notes", "Until stock runs out"),
        ("Notes", "Blocked for guests"),
        ("Notes", "Guests cannot do this"),
        ("Notes", "Admin role required"),
        ("Notes", "v2 only"),
        ("Notes", "Not in MVP"),
        ("Notes", "Not yet"),
        ("Notes", "Coming soon"),
        ("Notes", "Happens 24h after payment"),
        ("Notes", "Fires once per order"),
        # limits of when the move may happen that were read as firing always, no word
        ("Notes", "within 7 days"),
        ("Notes", "before the deadline"),
        ("Notes", "except on weekends"),
        ("Notes", "once approved by QA"),
        ("Notes", "as long as the lock is held"),
        ("Notes", "blocked while frozen"),
        ("Notes", "planned for v2"),
        ("Status", "Proposed"),
        ("Notes", "but never on Fridays"),
        ("Notes", "never for enterprise accounts"),
        ("Notes", "after 3 failed payments"),
        ("Notes", "must have a reason"),
        ("Notes", "given an open ticket"),
        ("Notes", "needs the Atlassian MCP server"),
        # A column that says the move is refused, or asks a fact of a file: the row fired
        # always, with no word (`Valid: no`, `Prerequisites: plan.md exists AND ...`).
        ("Valid", "no"),
        ("Valid", "✗"),
        ("Allowed", "false"),
        ("Valid", "invalid"),
        ("Allowed", "forbidden"),
    ],
)
def test_a_limiting_note_in_an_unread_column_is_a_warning_at_its_line(
    column: str, note: str
) -> None:
    spec = read(
        _table(
            f"| open | fix | fixed | {note} |\n| fixed | close | closed | |\n",
            f"| From | Event | To | {column} |",
        )
    )
    ((line, message),) = _noticed(spec, "column_note")
    assert line == 5
    assert (repr(column) if column else "no header") in message
    assert repr(note) in message and "read as firing always" in message


@pytest.mark.parametrize(
    ("column", "role"),
    [
        ("Prerequisites", "condition"),
        ("Constraints", "condition"),
        ("Gate", "condition"),
        ("Validation", "condition"),
        ("Steps", "action"),
        ("On entry", "action"),
        ("Operations", "action"),
        ("Handler", "action"),
    ],
)
def test_a_column_named_for_a_role_in_other_words_is_said_unread(column: str, role: str) -> None:
    # `Prerequisites: plan.md exists AND ...` was dropped with no word: the row fired always.
    spec = read(
        _table(
            "| open | fix | fixed | plan.md exists |\n| fixed | close | closed | - |\n",
            f"| From | Event | To | {column} |",
        )
    )
    ((_, message),) = _noticed(spec, "unknown_column")
    assert f'columns = {{ {role} = ["{column}"] }}' in message


@pytest.mark.parametrize(
    "cell",
    [
        "Payment received (late fee added); manager waives",
        "Payment received; manager waives",
        "Payment received, manager waived",
    ],
)
def test_an_event_joined_from_another_rows_event_and_more_is_warned(cell: str) -> None:
    # read as one new event, so `Payment received` in overdue was rejected, with no word
    spec = read(
        _table(
            f"| sent | paid | Payment received |\n| overdue | paid | {cell} |\n"
            "| sent | overdue | Due date passes |\n",
            "| From | To | Trigger |",
        )
    )
    ((line, message),) = _noticed(spec, "trigger_note")
    assert line == 6
    assert f"{cell!r} is read as one event" in message
    assert "'Payment received' is the event of line 5" in message


def test_an_html_entity_in_a_name_is_read_as_the_character_it_shows() -> None:
    # `in&nbsp;review` was the state `in_nbsp_review`, another than `in review`, which
    # GitHub shows alike; `R&amp;D` was `r_amp_d`, another than `R&D`.
    spec = read(
        _table(
            "| draft | submit | in&nbsp;review |\n| in review | approve | R&amp;D |\n"
            "| R&D | ship | draft |\n| draft | hold&#x21;  | draft |\n"
        )
    )
    assert [s.name for s in spec.states] == ["draft", "in_review", "R_D"]
    assert [s.name for s in spec.spells] == ["submit", "approve", "ship", "hold"]


@pytest.mark.parametrize(
    ("cell", "sign"),
    [("Admin approves OR auto-approve = true", "="), ("Timer fires, retries >= 3", ">=")],
)
def test_an_event_cell_that_compares_is_warned(cell: str, sign: str) -> None:
    # one event, `admin_approves_or_auto_approve_true`, with the comparison in its name
    spec = read(_table(f"| pending | {cell} | active |\n| active | suspend | pending |\n"))
    ((line, message),) = _noticed(spec, "trigger_note")
    assert line == 5 and f"though it compares (`{sign}`)" in message


@pytest.mark.parametrize("column", ["Else", "On failure", "Otherwise", "Fallback"])
def test_a_column_of_states_no_role_reads_is_said_unread_with_the_row_it_means(column: str) -> None:
    # `| From | Event | Guard | To | Else |`: where `submit` leads when `form.json` is
    # missing was dropped with no word, and the move never happened.
    spec = read(
        _table(
            "| draft | submit | form.json exists | review | incomplete |\n"
            "| draft | abandon | - | incomplete | |\n| incomplete | fix | - | draft | |\n",
            f"| From | Event | Guard | To | {column} |",
        )
    )
    ((_, message),) = _noticed(spec, "unknown_column")
    assert f"{column!r}" in message and "'incomplete'" in message
    assert "`| draft | submit | NOT form.json exists | incomplete | - |`" in message


def test_a_column_of_notes_that_are_not_all_states_is_not_said_to_name_states() -> None:
    spec = read(
        _table(
            "| draft | submit | review | incomplete |\n| review | approve | done | signed |\n",
            "| From | Event | To | Remark |",
        )
    )
    assert not _noticed(spec, "unknown_column")


@pytest.mark.parametrize(
    "note",
    [
        "User clicks submit",
        "Item removed from the cart",
        "yes",
        "Nothing else",
        "Creates the invoice",
        "See notes.md for why",
        "Sends the receipt once",
        "Up to the warehouse which carrier",
        "Must be signed by the author",
        "When the user clicks submit",
        "Shown read only",
        "Sends what it needs to the warehouse",
        "after the review",
        "logs only",
        "within reason",
        "Before submitting, check the form",
        "Proposed changes go to the reviewers",
        "Before the merge the bot squashes commits",
    ],
)
def test_a_descriptive_note_in_an_unread_column_is_no_warning(note: str) -> None:
    spec = read(_table(f"| open | fix | fixed | {note} |\n", "| From | Event | To | Notes |"))
    assert _noticed(spec, "column_note") == []


@pytest.mark.parametrize("column", ["Idempotent", "Billable", "Sends email", "Customer visible"])
@pytest.mark.parametrize("note", ["no", "No", "\u274c", "false"])
def test_a_bare_no_under_a_header_of_a_property_is_no_warning(column: str, note: str) -> None:
    # `Idempotent: no` says the move is not idempotent, not that it is refused; under
    # `Valid` or `Allowed` (or no header) it is (above).
    spec = read(_table(f"| open | fix | fixed | {note} |\n", f"| From | Event | To | {column} |"))
    assert _noticed(spec, "column_note") == []
    for asks in ("Valid?", "In scope", "In v1", "Phase 1", "Wired up"):
        valid = read(
            _table(f"| open | fix | fixed | {note} |\n", f"| From | Event | To | {asks} |")
        )
        assert len(_noticed(valid, "column_note")) == 1, asks


@pytest.mark.parametrize("column", ["Breaking change", "Requires 2FA", "Tested", "Webhook"])
def test_a_no_beside_a_yes_in_the_column_answers_a_question_of_the_move(column: str) -> None:
    """`| Breaking change |` of `no` and `yes`: each `no` was a warning that the row is
    refused. A column of yes and no is a property of each move, unless its header asks
    whether the move is allowed (`Valid`)."""
    rows = "| open | fix | fixed | no |\n| fixed | close | closed | yes |\n"
    spec = read(_table(rows, f"| From | Event | To | {column} |"))
    assert _noticed(spec, "column_note") == []
    for asks in ("Valid", "In release 1", "Works"):
        valid = read(_table(rows, f"| From | Event | To | {asks} |"))
        assert len(_noticed(valid, "column_note")) == 1, asks


@pytest.mark.parametrize(
    "stay", ["(stay)", "stay", "(no-op)", "no change", "unchanged", "itself", "self", "current"]
)
def test_a_to_cell_that_says_stay_is_the_same_state(stay: str) -> None:
    spec = read(_table(f"| open | fix | fixed |\n| open | poke | {stay} |\n"))
    assert [s.name for s in spec.states] == ["open", "fixed"]
    poke = next(r for r in spec.rows if "poke" in r.triggers)
    assert poke.target.kind is Kind.NOOP


def test_a_state_named_like_a_stay_word_in_a_states_list_is_that_state() -> None:
    spec = read(
        _table(
            "| open | fix | Current |\n| Current | close | open |\n",
            head="## States\n\n- open\n- Current\n\n## Moves\n\n",
        )
    )
    fix = next(r for r in spec.rows if "fix" in r.triggers)
    assert fix.target.kind is Kind.TRANSITION and fix.target.name == "Current"


@pytest.mark.parametrize(
    ("word", "said"),
    [
        ("(previous)", "keeps no history"),
        ("previous state", "keeps no history"),
        ("back", "keeps no history"),
        ("history", "keeps no history"),
        ("n/a", "no state of none"),
        ("N/A", "no state of none"),
    ],
)
def test_a_to_cell_that_says_go_back_or_none_is_an_error_at_its_line(word: str, said: str) -> None:
    with pytest.raises(SpecError) as raised:
        read(_table(f"| open | fix | fixed |\n| fixed | undo | {word} |\n"))
    assert raised.value.line == 6
    assert said in str(raised.value)
    assert "`Same state`" in str(raised.value) and "`[BLOCKED]`" in str(raised.value)


@pytest.mark.parametrize(("event", "to"), [("approve", "fixed*"), ("approve*", "fixed")])
def test_a_trailing_asterisk_footnote_mark_is_an_error_at_its_line(event: str, to: str) -> None:
    with pytest.raises(SpecError, match=r"ends in a footnote mark '\*'") as raised:
        read(_table(f"| open | fix | done |\n| open | {event} | {to} |\n"))
    assert raised.value.line == 6


def test_an_escaped_bar_in_an_event_cell_reads_like_a_slash() -> None:
    spec = read(_table("| open | fix \\| patch | fixed |\n"))
    assert spec.rows[0].triggers == ("fix", "patch")
    ((line, _),) = _noticed(spec, "slash_events")
    assert line == 5


@pytest.mark.parametrize("nothing", ["N/A", "n/a", "no-op", "(none)"])
def test_an_action_cell_that_says_nothing_is_no_action(nothing: str) -> None:
    spec = read(_table(f"| open | fix | fixed | {nothing} |\n", "| From | Event | To | Action |"))
    assert spec.rows[0].actions == ()
    assert notices(spec, "unknown_action") == []


@pytest.mark.parametrize("auto", ["(automatic)", "auto", "automatic"])
def test_an_automatic_event_cell_is_an_error_at_its_line(auto: str) -> None:
    with pytest.raises(SpecError, match="happens by itself") as raised:
        read(_table(f"| open | fix | checking |\n| checking | {auto} | fixed |\n"))
    assert raised.value.line == 6


@pytest.mark.parametrize("name", ["All clear", "Same day"])
def test_a_from_cell_naming_a_state_a_to_cell_declares_is_that_state(name: str) -> None:
    spec = read(_table(f"| open | fix | {name} |\n| {name} | close | open |\n"))
    close = next(r for r in spec.rows if "close" in r.triggers)
    assert not close.current.wildcard
    assert close.current.names == (identifier(name),)


@pytest.mark.parametrize("cell", ["(any)", "(all)"])
def test_a_parenthesised_any_in_a_from_cell_is_an_error_naming_any_state(cell: str) -> None:
    with pytest.raises(SpecError, match="`Any state`") as raised:
        read(_table(f"| open | fix | fixed |\n| {cell} | reset | open |\n"))
    assert raised.value.line == 6


@pytest.mark.parametrize(
    ("state", "event", "to"),
    [
        ("State", "On event", "Go to"),
        ("Current status", "Event", "New status"),
        ("State", "Event", "New state"),
        ("From", "Event", "Resulting status"),
        ("From", "Trigger", "Moves to"),
    ],
)
def test_a_to_column_under_the_names_authors_give_it_is_read(
    state: str, event: str, to: str
) -> None:
    text = (
        f"# Deploy\n\n| {state} | {event} | {to} |\n|---|---|---|\n"
        "| pending | build | building |\n| building | fail | pending |\n"
    )
    spec = parse_spec_text(text)
    moves = {(r.source, r.spell, r.dest) for r in spec.rules}
    assert moves == {("pending", "build", "building"), ("building", "fail", "pending")}


def test_a_spec_whose_only_table_lacks_a_from_column_is_refused_at_that_table() -> None:
    text = "# Review\n\nTransitions not listed are rejected.\n\n## State: review\n\n"
    text += "| Event | Next state |\n|---|---|\n| approve | done |\n"
    with pytest.raises(SpecError) as caught:
        parse_spec_text(text)
    assert caught.value.line == 7, caught.value
    said = caught.value.message
    assert "(`| Event | Next state |`)" in said and "none read as From" in said, said


def test_a_table_of_one_state_s_moves_beside_the_transition_table_is_a_warning() -> None:
    text = (
        "# Review\n\n| From | Event | To |\n|---|---|---|\n| draft | submit | review |\n"
        "| review | approve | done |\n\n## State: review\n\n"
        "| Event | Next state |\n|---|---|\n| reject | draft |\n"
    )
    # Under a heading that names a state a row leads to, the table is that state's moves.
    spec = parse_spec_text(text)
    (row,) = [r for r in spec.rows if r.triggers == ("reject",)]
    assert (row.current.names, row.target.name) == (("review",), "draft")
    # under any other heading, it is not read, and said so
    other = parse_spec_text(text.replace("## State: review", "## What a reviewer may do"))
    assert "reject" not in {s.name for s in other.spells}
    (unread,) = [f for f in analyse(other) if f.kind == "table_unread"]
    assert unread.line == 10 and unread.severity.value == "warning", unread
    assert "no From column" in unread.message, unread.message


@pytest.mark.parametrize("dash", ["\u2013", "\u2014", "--"])
def test_a_dash_of_any_kind_names_no_event_of_a_row_that_ends_its_state(dash: str) -> None:
    # `| b | \u2013 | (none) |` (an en dash) was refused as an event leading nowhere.
    spec = parse_spec_text(
        f"# M\n\n| From | Event | To |\n|---|---|---|\n| a | go | b |\n| b | {dash} | (none) |\n"
    )
    assert spec.goals == ("b",)


def test_a_trigger_without_a_name_is_told_to_write_an_event_s_name() -> None:
    text = "# M\n\n| From | Event | To |\n|---|---|---|\n| a | — | b |\n| b | go | a |\n"
    with pytest.raises(SpecError) as caught:
        parse_spec_text(text)
    assert caught.value.line == 5
    assert caught.value.message.endswith("write a name (`submit`, `Ship parcel`)"), caught.value


@pytest.mark.parametrize(
    ("word", "rows"),
    [
        ("current", ["| pending | activate | current |", "| current | miss | overdue |"]),
        ("current", ["| current | miss | overdue |", "| pending | activate | current |"]),
        ("back", ["| details | next | back |", "| back | miss | overdue |"]),
        ("self", ["| pending | activate | self |", "| self | miss | overdue |"]),
    ],
)
def test_a_stay_or_back_word_a_from_cell_names_is_that_state_wherever_its_rows_are(
    word: str, rows: list[str]
) -> None:
    table = "\n".join(["| From | Event | To |", "|---|---|---|", *rows])
    spec = parse_spec_text(f"# Accounts\n\n{table}\n| overdue | pay | {word} |\n")
    assert {r.target.name for r in spec.rows} == {word, "overdue"}


def test_a_stay_word_a_later_tables_from_cell_names_is_that_state() -> None:
    spec = parse_spec_text(
        "# Accounts\n\n| From | Event | To |\n|---|---|---|\n"
        "| pending | activate | current |\n\nOnce active:\n\n| From | Event | To |\n"
        "|---|---|---|\n| current | miss | overdue |\n| overdue | pay | pending |\n"
    )
    assert {r.target.name for r in spec.rows} == {"current", "overdue", "pending"}


@pytest.mark.parametrize(
    ("cell", "word"),
    [
        ("approve once CI is green", "once"),
        ("reject, provided the author was told", "provided"),
        ("After 24 hours without a reviewer", "After"),
        ("If CI fails", "If"),
    ],
)
def test_an_event_of_several_words_that_may_say_a_guard_is_warned(cell: str, word: str) -> None:
    spec = read(_order("| From | Event | To |", f"| draft | {cell} | review |"))
    (said,) = [f for f in analyse(spec) if f.kind == "trigger_note"]
    assert said.line == 7 and f"from {word!r} on" in said.message, said.message


@pytest.mark.parametrize(
    "cell", ["!done", "~done", "^done", "-done", "!= done", "≠ done", "* - done"]
)
def test_a_from_cell_negating_a_state_in_signs_is_refused_never_read_as_the_state(
    cell: str,
) -> None:
    # `!done` was read as `done`: the rule fired in the one state it excludes.
    with pytest.raises(SpecError, match="which is written `Any state except done`") as err:
        read(_order("| From | Event | To |", "| draft | submit | done |", f"| {cell} | x | y |"))
    assert err.value.line == 8


@pytest.mark.parametrize(
    ("cell", "says"),
    [
        ("[paid.md exists]", "names no event, only a guard or an action"),
        ("/ Create notes.md", "names no event, only a guard or an action"),
        ("[ready] / save()", "names no event, only a guard or an action"),
        ("[BLOCKED]", "`[BLOCKED]` goes in the To cell"),
    ],
)
def test_an_event_cell_of_a_guard_or_action_alone_is_refused(cell: str, says: str) -> None:
    # `[paid.md exists]` was an event `paid_md_exists` that fired always.
    with pytest.raises(SpecError, match=re.escape(says)) as err:
        read(_order("| From | Event | To |", f"| draft | {cell} | review |"))
    assert err.value.line == 7


@pytest.mark.parametrize(
    "cell", ["(no state change)", "(stays)", "ignored", "no transition", "(remains)"]
)
def test_more_to_cells_that_say_the_state_stays_are_the_same_state(cell: str) -> None:
    # Each was a new state of that name, which no row left.
    spec = read(_table(f"| open | fix | fixed |\n| open | poke | {cell} |\n"))
    poke = [r for r in spec.rules if r.spell == "poke"]
    assert poke and all(r.dest == r.source == "open" for r in poke)


@pytest.mark.parametrize(
    ("cell", "says"),
    [
        ("review if valid", "names the state 'review' and a guard or an action"),
        ("review [valid]", "names the state 'review' and a guard or an action"),
        ("review / notify()", "names the state 'review' and a guard or an action"),
        ("review / draft", "names 2 states: a move leads to one"),
        ("review \\| draft", "names 2 states: a move leads to one"),
    ],
)
def test_a_to_cell_with_a_guard_or_a_second_state_is_refused(cell: str, says: str) -> None:
    # `review if valid` was a new state `review_if_valid`, the guard lost.
    with pytest.raises(SpecError, match=re.escape(says)) as err:
        read(
            _order(
                "| From | Event | To |", f"| draft | submit | {cell} |", "| review | back | draft |"
            )
        )
    assert err.value.line == 7


def test_a_guarded_wildcard_row_written_first_and_never_asked_is_a_warning() -> None:
    # `| any | cancel | frozen | freeze.md exists |` above the states' own cancel rows: its
    # guard is never asked where they are, which was only an info, and `--strict` passed.
    text = (
        "# Orders\n\nTransitions not listed are rejected.\n\n"
        "| From | Event | To | Condition |\n|---|---|---|---|\n"
        "| any | cancel | frozen | freeze.md exists |\n"
        "| new | cancel | cancelled | - |\n| new | pay | paid | - |\n"
        "| paid | ship | shipped | - |\n| shipped | - | (none) | |\n"
        "| cancelled | - | (none) | |\n| frozen | - | (none) | |\n"
    )
    (found,) = [f for f in analyse(read(text)) if f.kind == "shadowed_rule"]
    assert found.severity.value == "warning", found
    above = found.message.split("it is written above ")[1].split(", but")[0]
    assert "R2" in above.split(", "), above
    assert "`NOT (freeze.md exists)`" in found.message
    below = text.replace("| any | cancel | frozen | freeze.md exists |\n", "").replace(
        "| frozen | - | (none) | |\n", "| any | cancel | frozen | freeze.md exists |\n"
    )
    assert all(
        f.severity.value == "info" for f in analyse(read(below)) if f.kind == "shadowed_rule"
    )


def test_an_html_entity_in_a_condition_is_said_to_be_shown_otherwise() -> None:
    # `under "Q&amp;A"` never matched the author's `## Q&A`, which GitHub shows the cell as.
    text = _table(
        '| draft | submit | review | plan.md has text under "Q&amp;A" |\n'
        '| draft | submit | draft | plan.md has no section "Q&amp;A" with text |\n'
        "| review | back | draft | `&amp;` is literal here: notes.md exists |\n",
        "| From | Event | To | Condition |",
    )
    found = [f for f in analyse(read(text)) if f.kind == "rendered_differently"]
    assert [f.line for f in found] == [5, 6]
    assert "shows the HTML entity '&amp;' as '&'" in found[0].message


def test_a_state_whose_name_has_a_slash_is_one_state_in_a_from_cell() -> None:
    # `A/B test` was split into two new states `A` and `b_test`, though a To cell names it.
    spec = read(
        _order(
            "| From | Event | To |",
            "| running | split | A/B test |",
            "| A/B test | conclude | done |",
        )
    )
    assert spec.rows[1].current.names == ("a_b_test",)


@pytest.mark.parametrize(
    ("cell", "kind", "note"),
    [
        ("[BLOCKED] — not allowed", Kind.BLOCKED, "'— not allowed'"),
        ("[BLOCKED] (until paid)", Kind.BLOCKED, "'(until paid)'"),
        ("Same state ✅", Kind.NOOP, "'✅'"),
        ("Same state (logs)", Kind.NOOP, "'(logs)'"),
        ("no change (audit only)", Kind.NOOP, "'(audit only)'"),
        ("stays (no-op)", Kind.NOOP, "'(no-op)'"),
        ("unchanged (logged)", Kind.NOOP, "'(logged)'"),
    ],
)
def test_a_to_cell_word_with_a_note_is_that_word_never_a_new_state(
    cell: str, kind: Kind, note: str
) -> None:
    # `[BLOCKED] — not allowed` was a new state `blocked_not_allowed` the event moved to.
    spec = read(_order("| From | Event | To |", f"| review | ping | {cell} |"))
    assert [s.name for s in spec.states] == ["review"]  # and no other
    (row,) = [r for r in spec.rows if r.triggers == ("ping",)]
    assert row.target.kind is kind
    (said,) = notices(spec, "target_note")
    assert f"is read as {'[BLOCKED]' if kind is Kind.BLOCKED else 'Same state'}, {note}" in said


def test_a_to_cell_word_with_more_after_its_note_is_refused() -> None:
    # `Same state (logs) then review` dropped `then review` (a move) with no word.
    with pytest.raises(SpecError, match="says 'Same state' and more after its note"):
        read(_order("| From | Event | To |", "| review | ping | Same state (logs) then review |"))
    spec = read(_order("| From | Event | To |", "| review | ping | [BLOCKED]: not allowed |"))
    (said,) = notices(spec, "target_note")
    assert "': not allowed' kept as a note" in said


def test_a_to_cell_word_that_names_states_as_often_is_said_how_it_is_read() -> None:
    # `| new | ignore | ignored |` kept the alert in `new` with no word.
    spec = read(_order("| From | Event | To |", "| review | ignore | ignored |"))
    (said,) = notices(spec, "target_note")
    assert "'ignored' is read as Same state" in said and "`| ignored | - | (none) |`" in said
    declared = _order(
        "| From | Event | To |", "| review | ignore | ignored |", "| ignored | - | (none) |"
    )
    assert "ignored" in [s.name for s in read(declared).states]


@pytest.mark.parametrize(
    ("cell", "events", "note"),
    [
        ("close — author withdrew", ("close",), "author withdrew"),
        ("approve: maintainers only", ("approve",), "maintainers only"),
        ("reset - by an admin", ("reset",), "by an admin"),
        ("order:created", ("order:created",), ""),
        ("check\u2013in", ("check_in",), ""),  # an en dash joining words, no note
        ("Reviewer: approve", ("Reviewer: approve",), ""),  # who does it: no limit
    ],
)
def test_an_event_cell_s_note_or_join_is_never_part_of_an_event_s_name(
    cell: str, events: tuple[str, ...], note: str
) -> None:
    # `close — author withdrew` was the event close_author_withdrew, `approve & merge` the
    # event approve_merge: no `spell close`, no word.
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    (row,) = spec.rows
    assert row.triggers == tuple(identifier(e) for e in events)
    assert (("Trigger note", note) in row.extra) == bool(note)


@pytest.mark.parametrize(
    "cell", ["approve → merge", "approve and then merge", "approve, then merge"]
)
def test_events_one_after_another_in_an_event_cell_are_refused(cell: str) -> None:
    with pytest.raises(SpecError, match="names events one after another"):
        read(_order("| From | Event | To |", f"| review | {cell} | done |"))


def test_either_before_events_joined_by_or_is_no_part_of_the_first() -> None:
    # `either pay or confirm` was the events `either_pay` and `confirm`
    spec = read(_order("| From | Event | To |", "| review | either pay or confirm | done |"))
    assert spec.rows[0].triggers == ("pay", "confirm")
    # nor where the second event is of two words (it was `either_approve`)
    two = "Either approve or request changes"
    spec = read(_order("| From | Event | To |", f"| review | {two} | done |"))
    assert spec.rows[0].triggers[0] == "approve"
    # a subject that says either is its event's (`Either party withdraws or ...`)
    cell = "Either party withdraws or the deal expires"
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    assert spec.rows[0].triggers[0].startswith("either_party")


@pytest.mark.parametrize("cell", ["approve & merge", "pay + ship", "pay && confirm"])
def test_events_joined_by_and_or_plus_are_refused_either_or_both(cell: str) -> None:
    # `approve & merge` was the event approve_merge, then two events `approve or merge`.
    with pytest.raises(SpecError, match="which may mean either or both"):
        read(_order("| From | Event | To |", f"| review | {cell} | done |"))


@pytest.mark.parametrize("cell", ["n/a", "N/A", "(n/a)"])
def test_an_event_cell_that_says_not_applicable_is_refused_not_two_events(cell: str) -> None:
    # `n/a` was the events `n` and `a` in every state's coverage.
    with pytest.raises(SpecError, match="names no event") as err:
        read(_order("| From | Event | To |", f"| review | {cell} | review |"))
    assert err.value.line == 7


def test_a_non_breaking_hyphen_in_a_name_is_a_hyphen_and_said_where_it_differs() -> None:
    # `in\u2011review` (pasted from a word processor) was the state `inreview` beside
    # `in_review`, two states that look alike, "differing by a letter or two".
    assert identifier("in\u2011review") == identifier("in-review") == "in_review"
    with pytest.raises(SpecError, match="U\\+2011 NON-BREAKING HYPHEN"):
        read(
            _order(
                "| From | Event | To |",
                "| draft | submit | in\u2011review |",
                "| in-review | approve | done |",
            )
        )


def test_a_list_of_a_state_s_moves_under_its_heading_names_that_state_in_the_row() -> None:
    # The row to write named the document's title as the state the event leaves.
    table = _order("| From | Event | To |", "| draft | submit | review |")
    (said,) = notices(read(table + "\n## Review\n\n- on hold → waiting\n"), "table_unread")
    assert "`| Review | hold | waiting |`" in said


def test_a_list_of_moves_as_arrows_beside_the_tables_is_a_warning() -> None:
    # Its moves were "not listed", refused, with no word; the same list alone is an error.
    table = _order("| From | Event | To |", "| draft | submit | review |")
    moves = "\n- **review** --reject--> draft\n- `review` → `closed` on **close**\n"
    (said,) = notices(read(table + "\nAlso:\n" + moves), "table_unread")
    assert "writes the moves as arrows (`review --reject--> draft`)" in said
    assert "`| review | reject | draft |`" in said
    assert not notices(read(table + "\nFor example:\n" + moves), "table_unread")
    # a list that only draws the rows is a picture of them, no warning
    glance = "\n- **draft** --submit--> review\n"
    assert not notices(read(table + "\nAt a glance:\n" + glance), "table_unread")


@pytest.mark.parametrize(
    "cell", ["done / failed", "done, failed", "done → archived", "done/failed"]
)
def test_a_to_cell_listing_states_is_refused_never_one_new_state(cell: str) -> None:
    # `done / failed` was one new state, `done_failed`, a dead end, with no other word.
    with pytest.raises(SpecError, match="names 2 states") as err:
        read(
            _order(
                "| From | Event | To |",
                f"| running | finish | {cell} |",
                "| running | fail | failed |",
                "| failed | retry | running |",
            )
        )
    assert err.value.line == 7


@pytest.mark.parametrize("word", ["even", "also"])
def test_a_word_that_says_how_a_guard_holds_is_never_an_event(word: str) -> None:
    # `save, even if X` was the events `save` and `even`, guarded by X.
    with pytest.raises(SpecError, match=f"reads '{word}' as an event") as err:
        read(_order("| From | Event | To |", f"| draft | save, {word} if locked | review |"))
    assert err.value.line == 7


@pytest.mark.parametrize(
    "cell",
    ["submit", "Reviewer approves the draft", "submit if ready", "`approve once`", "after_review"],
)
def test_an_event_with_no_word_of_a_guard_left_unread_is_not_warned(cell: str) -> None:
    spec = read(_order("| From | Event | To |", f"| draft | {cell} | review |"))
    assert [f for f in analyse(spec) if f.kind == "trigger_note"] == []


@pytest.mark.parametrize(
    ("cell", "said"),
    [
        ("Черновик", "state 'Черновик' has no ASCII letter or digit, "),
        ("下書き", "state '下書き' has no ASCII letter or digit, "),
        ("Этап 2", "state 'Этап 2' has a word, 'Этап', with no ASCII letter or digit, "),
    ],
)
def test_a_name_in_another_script_is_refused_as_not_ascii_with_a_name_to_write(
    cell: str, said: str
) -> None:
    # It was refused as having "no letter or digit", and `Этап 2` was read as `_2`.
    text = f"# M\n\n| From | Event | To |\n|---|---|---|\n| {cell} | go | b |\n| b | back | a |\n"
    with pytest.raises(SpecError) as caught:
        parse_spec_text(text)
    assert caught.value.line == 5
    assert caught.value.message.startswith(said), caught.value.message
    assert "the state file and `spell`) are ASCII" in caught.value.message
    written = {"Черновик": "(`Chernovik`)", "Этап 2": "(`Etap 2`)", "下書き": "(`SHIPPED`"}
    assert f"write its name in ASCII letters {written[cell]}" in caught.value.message


def test_a_states_list_name_in_another_script_is_offered_in_latin_letters() -> None:
    text = "# M\n\n## States\n\n1. **Черновик**\n2. **B**\n\n| From | Event | To |\n|---|---|---|\n"
    with pytest.raises(SpecError) as caught:
        parse_spec_text(text + "| Черновик | go | B |\n")
    assert "ASCII letter" in caught.value.message and "Chernovik" in caught.value.message


def test_a_wikilink_names_the_state_it_links_to_with_or_without_an_alias() -> None:
    # `[[Rejected\|Rejected candidate]]` was a state of its own beside `[[Rejected]]`.
    text = (
        "# Hiring\n\n| From | Event | To |\n|---|---|---|\n"
        "| [[Applied]] | screen | [[Phone screen]] |\n"
        "| [[Phone screen]] | fail | [[Rejected\\|Rejected candidate]] |\n"
        "| [[Rejected#Why]] | reopen | [[Applied]] |\n"
    )
    spec = parse_spec_text(text)
    assert [s.name for s in spec.states] == ["Applied", "phone_screen", "Rejected"]
    assert {s.title for s in spec.states} >= {"Phone screen"}
    findings = analyse(spec)
    assert not [f for f in findings if f.kind in ("unreachable_state", "dead_end")], findings


def test_a_table_of_states_that_disagrees_with_the_transition_tables_says_each_difference() -> None:
    # The table was ignored: `archived` vanished and `suspended` came in without a word.
    text = (
        "# Subscription\n\n## States\n\n| State | Description |\n|---|---|\n"
        "| trial | free period |\n| active | paying |\n| archived | kept |\n\n"
        "## Transitions\n\n| From | Event | To |\n|---|---|---|\n"
        "| trial | subscribe | active |\n| active | suspend | suspended |\n"
        "| suspended | resume | active |\n"
    )
    said = [(f.line, f.message) for f in analyse(read(text)) if f.kind == "states_unread"]
    assert [line for line, _ in said] == [5, 9], said
    assert "does not list 'suspended', which the transition tables name" in said[0][1]
    assert "lists 'archived', which no transition table names" in said[1][1]
    agreeing = text.replace("| archived | kept |", "| suspended | on hold |")
    assert not notices(read(agreeing), "states_unread")
    # Headed otherwise under a heading naming states, it is the same table.
    for header in ("Status | Meaning", "Name | Description", "Phase | Description"):
        other = text.replace("State | Description", header)
        assert [f.line for f in analyse(read(other)) if f.kind == "states_unread"] == [5, 9]
    # A table of statuses elsewhere is no table of states.
    elsewhere = text.replace("## States", "## Codes").replace("State | Description", "Status | X")
    assert not notices(read(elsewhere), "states_unread")
    # Nor is a table of names under a title that has the word (`# Order stages`).
    titled = "# Order stages\n\n## Files\n\n| Name | Description |\n|---|---|\n| plan.md | x |\n\n"
    said = [f.message for f in analyse(read(titled + text.split("\n", 2)[2]))]
    assert not any("plan.md" in m for m in said), said
    # Two tables of states are one list.
    split = text.replace("| archived | kept |\n", "").replace(
        "## Transitions",
        "## More states\n\n| State | Description |\n|---|---|\n"
        "| archived | kept |\n\n## Transitions",
    )
    said = [f.message for f in analyse(read(split)) if f.kind == "states_unread"]
    assert not any("does not list 'archived'" in m for m in said), said


@pytest.mark.parametrize(
    "table",
    [
        "| From | Event | To |\n|---|---|---|\n| drafting | finish | done |\n"
        "| done | archive | archived |\n",
        "| ID | From | Event | Condition | To | Action |\n|---|---|---|---|---|---|\n"
        "| T1 | drafting | finish | - | done | - |\n| T3 | done | archive | - | archived | - |\n",
    ],
    ids=["light", "with IDs"],
)
def test_a_table_of_states_gives_them_its_indicators_and_descriptions(table: str) -> None:
    # Its Indicators were dropped with no word: no `indicators_broken` for the archive
    # row, and `spell repair` could not read the files.
    text = (
        "# Drafts\n\nTransitions not listed are rejected.\n\n## States\n\n"
        "| State | Description | Indicators |\n|---|---|---|\n"
        "| drafting | being written | draft.md exists |\n| done | finished | draft.md exists |\n"
        f"| archived | kept | draft.md missing |\n\n## Transitions\n\n{table}"
    )
    spec = read(text)
    archived = next(s for s in spec.states if s.name == "archived")
    assert (archived.description, archived.indicators) == ("kept", "draft.md missing")
    assert archived.inferable
    (broken,) = [f for f in analyse(spec) if f.kind == "indicators_broken"]
    assert "leads to archived, whose Indicators say draft.md missing" in broken.message


def test_a_table_of_states_says_valid_actions_and_goals_as_a_states_list_does() -> None:
    # Its Valid actions and Goal columns were dropped with no word: `no_goal` told the
    # author to write a States list, `done` was a `dead_end`, and a row leading out of a
    # state listed as taking no action went unremarked.
    text = (
        "# Order\n\nTransitions not listed are rejected.\n\n## States\n\n"
        "| State | Description | Valid actions | Goal |\n|---|---|---|---|\n"
        "| draft | being written | submit | |\n| review | reviewed | approve, reject | no |\n"
        "| done | finished | — | yes |\n\n## Transitions\n\n"
        "| From | Event | To |\n|---|---|---|\n| draft | submit | review |\n"
        "| review | approve | done |\n| review | reject | draft |\n"
    )
    spec = read(text)
    assert spec.goals == ("done",)
    assert [a.spell for a in spec.state("review").valid_actions] == ["approve", "reject"]
    found = analyse(spec)
    assert not [f for f in found if f.kind in ("no_goal", "dead_end", "valid_actions_mismatch")]
    (note,) = notices(spec, "names_from_tables")
    assert "the table of states at line 7 is checked against them" in note
    assert "not read" not in note  # every column is
    owned = read(text.replace(" Goal |", " Owner |").replace("| yes |", "| ops |"))
    (note,) = notices(owned, "names_from_tables")
    assert "its column 'Owner' is not read" in note
    # Where the rows disagree with the table, the verifier says so at the state's row.
    reopened = read(text.replace("| review | reject | draft |", "| done | reopen | draft |"))
    found = analyse(reopened)
    said = [f.message for f in found if f.kind == "valid_actions_mismatch"]
    assert said == ["state done: Valid Actions lists nothing, but the tables also allow reopen"]
    # and a name it lists that no row names is a name with no definition
    (unknown,) = [f for f in found if f.kind == "unknown_spell"]
    assert unknown.line == 10 and "'reject' in Valid Actions" in unknown.message
    # A Goal cell that says no (`✗`, `false`) is no goal; `Approve / Reject` two spells.
    crossed = read(text.replace("| done | finished | — | yes |", "| done | finished | — | ✗ |"))
    assert crossed.goals == ()
    for listed in ("approve / reject", "approve or reject"):
        slashed = read(text.replace("approve, reject", listed))
        assert [a.spell for a in slashed.state("review").valid_actions] == ["approve", "reject"]
    # A mark after the name says the same as a Goal column (`done (final)`).
    marked = read(text.replace(" Goal |", " Owner |").replace("| done |", "| done (final) |"))
    assert marked.goals == ("done",)
    # With no goal at all, the advice is the column, not a list to write.
    none = read(text.replace("| yes |", "| |") + "| done | reopen | draft |\n")
    (advice,) = notices(none, "no_goal")
    assert "give the table of states (line 7) a `Goal` column" in advice


def test_a_table_of_the_moves_out_of_a_state_under_its_heading_is_read_so() -> None:
    # `### Open` over `| Event | Goes to | When |`: refused as a table with no From column.
    text = (
        "# Tickets\n\nTransitions not listed are rejected.\n\n## States\n\n"
        "### Open\n\n| Event | Goes to |\n|---|---|\n| assign | In progress |\n"
        "| close | Closed |\n\n"
        "### In progress\n\n| Event | Goes to |\n|---|---|\n| resolve | Closed |\n"
        "| unassign | Open |\n\n### Closed\n\n| Event | Goes to |\n|---|---|\n| - | (none) |\n"
    )
    spec = read(text)
    assert [s.name for s in spec.states] == ["Open", "in_progress", "Closed"]
    moves = {(r.current.names, tuple(r.triggers), r.target.name) for r in spec.rows[:4]}
    assert moves == {
        (("Open",), ("assign",), "in_progress"),
        (("Open",), ("close",), "Closed"),
        (("in_progress",), ("resolve",), "Closed"),
        (("in_progress",), ("unassign",), "Open"),
    }
    assert spec.goals == ("Closed",)
    assert not [f for f in analyse(spec) if f.severity.name == "ERROR"]
    # Numbered, or called a state, the heading names it; one beside them that no row
    # leads to is a state too, one that cannot be reached.
    other = text.replace("### Open", "### 1. Open").replace("### Closed", "### State: Closed")
    other = other.replace("### In progress", "### Transitions from In progress")
    the = read(text.replace("### Open", "### The Open state"))
    assert next(s.name for s in the.states) == "Open"
    other += "\n### Archived\n\n| Event | Goes to |\n|---|---|\n| restore | Open |\n"
    spec = read(other)
    assert [s.name for s in spec.states] == ["Open", "in_progress", "Closed", "Archived"]
    assert [f.state for f in analyse(spec) if f.kind == "unreachable_state"] == ["Archived"]
    # A heading no row leads to, and that is no first of several such tables, is no state:
    # a section's title over a table of events stays refused.
    titled = "# Tickets\n\n## Transitions\n\n| Event | To |\n|---|---|\n| close | Closed |\n"
    with pytest.raises(SpecError, match="none read as From"):
        read(titled)
    # nor are sections no row leads to, however many (`## Normal flow`, `## Error flow`)
    flows = "".join(
        f"## {h}\n\n| Event | To |\n|---|---|\n| {e} | {t} |\n\n"
        for h, e, t in (("Normal flow", "pay", "paid"), ("Error flow", "fail", "failed"))
    )
    with pytest.raises(SpecError, match="none read as From"):
        read("# Orders\n\n" + flows)
    # A heading a section is called beside the states' (`### Overview`) is none of them;
    # a heading written in another case or with a mark is the state the rows name.
    overview = "### Overview\n\n| Event | Goes to |\n|---|---|\n| assign | In progress |\n\n"
    more = read(text.replace("### Open\n", overview + "### Open (initial)\n"))
    assert "overview" not in {s.name.lower() for s in more.states}
    assert "Open" in [s.name for s in more.states]
    cased = read(text.replace("### Closed", "### CLOSED").replace("| Closed |", "| closed |"))
    assert "closed" in [s.name for s in cased.states]
    # `In state Open`, `When Open`, `Leaving Open` name Open; `In progress` is a name
    for heading in (
        *("In state Open", "When Open", "While Open", "Leaving Open", "2.1 Open"),
        *("Step 1: Open", "State 1 \u2014 Open", "State Open", "Open {#open}"),
        *("Open \u2014 waiting for triage", "Open: waiting for triage", "Open - it waits"),
        *("Open \u2014 initial", "Open [initial]"),
        *("\U0001f7e1 Open", "\u2192 Open", ":rocket: Open", "Status: Open", "Phase: Open"),
    ):
        prefixed = read(text.replace("### Open\n", f"### {heading}\n"))
        assert [s.name for s in prefixed.states] == ["Open", "in_progress", "Closed"], heading
    # `Phase review`, `Status check` are names where a heading of its own names `Review`
    for name, state in (("Phase review", "phase_review"), ("Status check", "status_check")):
        alone = text.replace("### Open\n", f"### {name}\n").replace("Closed", "Review")
        assert read(alone).states[0].name == state, name
    # and the state the rows name where it has no heading of its own (`### Phase open`)
    prefixed = read(text.replace("### Open\n", "### Phase open\n"))
    assert [s.name for s in prefixed.states] == ["Open", "in_progress", "Closed"]
    # A sub-heading that only says the table holds the moves (`#### Transitions`) gives way
    # to the state's heading above it.
    for sub in ("Transitions", "Outgoing transitions", "Allowed moves:", "Events"):
        nested = text.replace("\n\n| Event", f"\n\n#### {sub}\n\n| Event")
        spec = read(nested)
        assert [s.name for s in spec.states] == ["Open", "in_progress", "Closed"], sub
        assert {(r.current.names, r.target.name) for r in spec.rows[:4]} == {
            (("Open",), "in_progress"),
            (("Open",), "Closed"),
            (("in_progress",), "Closed"),
            (("in_progress",), "Open"),
        }
    # one of other words is the heading it is (`#### Happy path` names no state)
    with pytest.raises(SpecError, match="none read as From"):
        read(text.replace("\n\n| Event", "\n\n#### Happy path\n\n| Event"))


@pytest.mark.parametrize("name", ["Tous les états", "Jeder Zustand", "Todos los estados"])
def test_a_from_cell_meaning_every_state_in_another_language_is_offered_any_state(
    name: str,
) -> None:
    text = (
        "# M\n\nTransitions not listed are rejected.\n\n| From | Event | To |\n|---|---|---|\n"
        f"| draft | submit | sent |\n| {name} | cancel | cancelled |\n"
        "| sent | - | (none) |\n| cancelled | - | (none) |\n"
    )
    (said,) = [m for m in notices(read(text), "unreachable_state") if "no rule leads" in m]
    assert said.endswith(f"; if {name!r} means every state, write `Any state` in its From cells")
    # a state of other words gets no such hint
    plain = text.replace(name, "On hold")
    assert not [m for m in notices(read(plain), "unreachable_state") if "Any state" in m]


def test_a_wikilink_in_a_condition_or_action_is_read_as_written_without_a_warning() -> None:
    text = (
        "# M\n\n| From | Event | To | Condition | Action |\n|---|---|---|---|---|\n"
        '| draft | submit | sent | notes.md contains "[[TODO]]" | Append "[[x]] done" to log.md |\n'
        "| sent | - | (none) | - | - |\n"
    )
    spec = read(text)
    row = next(r for r in spec.rows if r.triggers == ("submit",))
    assert "[[TODO]]" in str(row.condition) and row.actions[0].target == "[[x]] done"
    assert not notices(spec, "rendered_differently")


@pytest.mark.parametrize(
    ("column", "role"),
    [
        ("Guard Condition", "condition"),
        ("Guard condition", "condition"),
        ("Pre-condition", "condition"),
        ("Pre-conditions", "condition"),
        ("Condition(s)", "condition"),
        ("Effect", "action"),
        ("Side effect", "action"),
        ("Side-effects", "action"),
        ("Action(s)", "action"),
    ],
)
def test_a_common_name_of_a_guard_or_action_column_is_read_as_its_role(
    column: str, role: str
) -> None:
    spec = read(
        _table("| open | fix | fixed | tests pass |\n", f"| From | Event | To | {column} |")
    )
    (row,) = spec.rows
    said = " ".join(str(row.condition).split()) if role == "condition" else row.action
    assert "tests pass" in said
    assert _noticed(spec, "unknown_column") == []


@pytest.mark.parametrize(
    ("column", "role"),
    [
        ("If", "Condition"),
        ("Requires", "Condition"),
        ("Only if", "Condition"),
        ("Guard (optional)", "Condition"),
        ("Check", "Condition"),
        ("Output", "Action"),
        ("Outputs", "Action"),
        ("Do", "Action"),
        ("Then", "Action"),
        ("Actions taken", "Action"),
        ("What happens", "Action"),
        ("On transition", "Action"),
        ("Callback", "Action"),
        ("Hook", "Action"),
        ("Entry action", "Action"),
        ("Bedingung", "Condition"),
        ("Condición", "Condition"),
        ("Guarda", "Condition"),
        ("\u6761\u4ef6", "Condition"),
        ("Pre-req", "Condition"),
        ("Business rule", "Condition"),
        ("Permission", "Condition"),
        ("Aktion", "Action"),
        ("Acción", "Action"),
        ("Effet", "Action"),
    ],
)
def test_a_column_named_like_a_guard_or_action_that_no_role_reads_is_a_warning(
    column: str, role: str
) -> None:
    spec = read(
        _table(
            "| open | fix | fixed | notify the author |\n| fixed | close | closed | - |\n",
            f"| From | Event | To | {column} |",
        )
    )
    ((line, message),) = _noticed(spec, "unknown_column")
    assert line == 3
    assert f"no column role is called {column!r}" in message
    assert "'notify the author'" in message and f"call the column {role!r}" in message
    assert f"columns = {{ {role.lower()} = [{json.dumps(column)}] }}" in message


@pytest.mark.parametrize(
    ("column", "cells", "role"),
    [
        ("Provided", ("invoice.md exists", "NOT paid.md exists"), "Condition"),
        ("As long as", ("invoice.md exists", "paid.md missing"), "Condition"),
        ("Guarded by", ("invoice.md exists", "paid.md missing"), "Condition"),
        ("Result", ("Create sent.md", "Delete draft.md"), "Action"),
        ("Consequences", ("Create sent.md", "Archive draft.md to old/"), "Action"),
    ],
)
def test_a_column_of_any_name_whose_cells_all_read_as_guards_or_actions_is_a_warning(
    column: str, cells: tuple[str, str], role: str
) -> None:
    """`| From | Event | To | Provided |` of `invoice.md exists`: every cell is a guard
    the core reads, so the header's name does not decide whether it is said."""
    spec = read(
        _table(
            f"| open | fix | fixed | {cells[0]} |\n| fixed | close | closed | {cells[1]} |\n",
            f"| From | Event | To | {column} |",
        )
    )
    ((line, message),) = _noticed(spec, "unknown_column")
    assert line == 3 and f"call the column {role!r}" in message


@pytest.mark.parametrize("column", ["Unless", "Blocked if", "Except when"])
def test_a_column_saying_when_a_move_may_not_happen_is_told_to_write_the_negation(
    column: str,
) -> None:
    """Read as the Condition, `Unless` would invert every guard: the advice is the
    negation in a Condition column, never to call this one the Condition."""
    spec = read(
        _table("| open | fix | fixed | invoice.md exists |\n", f"| From | Event | To | {column} |")
    )
    ((_, message),) = _noticed(spec, "unknown_column")
    assert "(`NOT invoice.md exists`) in a Condition column" in message
    assert "call the column" not in message and "columns = {" not in message


def test_a_column_of_what_holds_after_a_move_is_never_told_to_be_the_condition() -> None:
    """`| Postcondition |` of `sent.md exists`: read as the Condition, each would be asked
    before the move; and `Unless` of `a AND b` is negated whole, `NOT (a AND b)`."""
    rows = "| open | fix | fixed | sent.md exists AND paid.md missing |\n"
    for column in ("Postcondition", "Result", "Ensures"):
        ((_, message),) = _noticed(
            read(_table(rows, f"| From | Event | To | {column} |")), "unknown_column"
        )
        assert "call the column" not in message and "Indicators" in message, column
    ((_, message),) = _noticed(
        read(_table(rows, "| From | Event | To | Unless |")), "unknown_column"
    )
    assert "`NOT (sent.md exists AND paid.md missing)`" in message


@pytest.mark.parametrize("cell", ["the invoice goes out", "Create the invoice", "tell the team"])
def test_a_column_of_prose_with_no_role_s_name_is_no_warning(cell: str) -> None:
    spec = read(_table(f"| open | fix | fixed | {cell} |\n", "| From | Event | To | Description |"))
    assert _noticed(spec, "unknown_column") == []


def test_a_guard_like_column_beside_a_condition_column_says_which_is_read() -> None:
    spec = read(
        _table(
            "| open | fix | - | fixed | the fix is reviewed |\n",
            "| From | Event | Guard | To | If |",
        )
    )
    ((_, message),) = _noticed(spec, "unknown_column")
    assert "only 'Guard' is read as the Condition" in message


@pytest.mark.parametrize("column", ["Notes", "Actor", "Output"])
def test_a_column_no_role_reads_that_says_nothing_or_names_no_role_is_no_warning(
    column: str,
) -> None:
    cell = "-" if column == "Output" else "the author"
    spec = read(_table(f"| open | fix | fixed | {cell} |\n", f"| From | Event | To | {column} |"))
    assert _noticed(spec, "unknown_column") == []


@pytest.mark.parametrize(
    ("cell", "triggers"),
    [
        ("Submit for review or Resubmit", ("submit_for_review", "Resubmit")),
        ("Request changes / Reject", ("request_changes", "Reject")),
        ("Draft done<br>Editor asks", ("draft_done", "editor_asks")),
        ("Approve \\| Send to print", ("Approve", "send_to_print")),
    ],
)
def test_events_of_several_words_joined_by_or_a_slash_or_a_break_are_each_a_trigger(
    cell: str, triggers: tuple[str, ...]
) -> None:
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    assert spec.rows[0].triggers == triggers
    assert _noticed(spec, "trigger_note") == []


@pytest.mark.parametrize(
    ("cell", "parts"),
    [
        ("Submit for review, Resubmit", "'Submit for review', 'Resubmit'"),
        ("Approve; Merge now", "'Approve', 'Merge now'"),
    ],
)
def test_events_of_several_words_joined_by_a_comma_are_one_event_and_a_warning(
    cell: str, parts: str
) -> None:
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    (trigger,) = spec.rows[0].triggers
    ((line, message),) = _noticed(spec, "trigger_note")
    assert line == 7 and f"is read as one event, {trigger!r}" in message
    assert f"its parts {parts} may each name an event" in message
    assert " or ".join(p.strip("'") for p in parts.split("', '")) in message


@pytest.mark.parametrize(
    "cell", ["submit / if the form is valid", "approve once CI is green / merge", "submit / save()"]
)
def test_a_part_that_may_begin_a_guard_or_is_an_action_is_not_an_event_of_words(
    cell: str,
) -> None:
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    assert len(spec.rows[0].triggers) == 1


@pytest.mark.parametrize("word", GUARD_WORDS)
def test_every_word_that_may_begin_a_guard_keeps_a_part_from_being_an_event_of_words(
    word: str,
) -> None:
    """`Approve whenever ready or Reject` is no two events (`Approve whenever ready`,
    `Reject`): each word of the one list of them, `as long as` and `whenever` too."""
    cell = f"Approve {word.upper()} ready or Reject"
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    assert len(spec.rows[0].triggers) == 1


@pytest.mark.parametrize("word", ["whenever", "as long as", "given"])
def test_an_event_of_words_with_a_word_that_may_begin_a_guard_is_a_trigger_note(word: str) -> None:
    spec = read(_order("| From | Event | To |", f"| review | Approve {word} CI is green | done |"))
    ((line, message),) = _noticed(spec, "trigger_note")
    assert line == 7 and f"from {word!r} on it may say when the move happens" in message


@pytest.mark.parametrize(
    ("cell", "said"),
    [
        ("webhook arrives AND amount matches", "`webhook arrives [amount matches]`"),
        ("webhook arrives and amount matches", "`webhook arrives [amount matches]`"),
        ("pay AND ready", "`pay [ready]`"),
        ("Customer pays, and stock is available", "`Customer pays [stock is available]`"),
    ],
)
def test_an_event_of_two_clauses_joined_by_and_is_a_trigger_note(cell: str, said: str) -> None:
    # `webhook arrives AND amount matches` and `... AND amount differs`: one event and
    # two guards, read as two events with no word.
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    ((line, message),) = _noticed(spec, "trigger_note")
    assert line == 7 and said in message and "read as one event" in message
    # a compound event's name is no such cell, nor steps told in a row, nor a subject of two
    for name in (
        *("save and close", "Save and Close", "seller publishes, confirms facts, and freezes"),
        "Both structured and fallback paths failed",
        "Customer pays, order confirmed and invoice sent",  # a list with no Oxford comma
    ):
        plain = read(_order("| From | Event | To |", f"| review | {name} | done |"))
        assert _noticed(plain, "trigger_note") == [], name


def test_a_word_that_may_begin_a_guard_is_read_whole() -> None:
    assert guard_word().search("pre-if check, once-off") is None
    assert guard_word().search("check, As  Long as ready").group("word") == "As  Long as"


def test_a_line_break_before_what_is_no_event_name_says_which_line() -> None:
    with pytest.raises(SpecError, match=r"its line 'only when the editor is back' is no event's"):
        read(
            _order(
                "| From | Event | To |",
                "| review | Editor asks<br>only when the editor is back | done |",
            )
        )


@pytest.mark.parametrize(
    ("rows", "head"),
    [
        # a To cell names it
        ("| initial | begin | configuring |\n| configuring | reset | initial |\n", ""),
        # the States list names it
        (
            "| initial | begin | configuring |\n| configuring | save | ready |\n",
            "## States\n\n- initial\n- configuring\n- ready\n\n## Moves\n\n",
        ),
    ],
)
def test_a_state_named_like_the_start_marker_is_a_state(rows: str, head: str) -> None:
    spec = read(_table(rows, head=head))
    first = spec.rows[0]
    assert first.id == "R1" and first.current.names[0].lower() in ("initial", "start")
    assert spec.initial == first.current.names[0]
    assert not [m for m in notices(spec, "dead_end") if first.current.names[0] in m]


def test_a_start_row_that_nothing_leads_back_to_is_the_start_marker_with_its_event() -> None:
    """`| start | create | draft |`, no row leading to `start`: the machine starts in
    draft, `create` its creation event; no state `start` that a cast must leave first."""
    spec = read(_table("| start | create | draft |\n| draft | submit | review |\n"))
    assert spec.initial == "draft"
    assert all(r.current.names[0].lower() != "start" for r in spec.rows)
    # It may as well be a first page a wizard waits in (`| Start | begin | Details |`):
    # the reading is said, with both ways to write it.
    (said,) = notices(spec, "states_unread")
    assert "'start' is read as where the machine starts" in said and "'create'" in said
    assert "write `(start)` for it" in said
    marked = read(_table("| (start) | create | draft |\n| draft | submit | review |\n"))
    assert not notices(marked, "states_unread")


@pytest.mark.parametrize("placeholder", ["N/A", "n/a", "None", "null", "(new)"])
def test_a_from_cell_that_says_no_state_yet_is_the_start_marker_said(placeholder: str) -> None:
    # `N/A` was split at its slash into states N and A, `None` a state none the machine
    # started in: each, exit 0 or a finding about the misread states.
    spec = read(_table(f"| {placeholder} | create | draft |\n| draft | submit | review |\n"))
    assert spec.initial == "draft"
    assert [s.name for s in spec.states] == ["draft", "review"]
    (said,) = notices(spec, "states_unread")
    assert f"{placeholder.lower()!r} is read as where the machine starts" in said.lower()


@pytest.mark.parametrize("marker", ["start", "initial", "(start)"])
def test_the_start_marker_with_no_event_is_where_the_machine_starts(marker: str) -> None:
    spec = read(_table(f"| {marker} | - | configuring |\n| configuring | save | ready |\n"))
    assert spec.initial == "configuring"
    assert [s.name for s in spec.states] == ["configuring", "ready"]


@pytest.mark.parametrize("cell", ["Branch pushed, PR created", "Cookie check passes; row resolved"])
def test_one_event_told_in_steps_is_one_event_and_no_warning(cell: str) -> None:
    spec = read(_order("| From | Event | To |", f"| review | {cell} | done |"))
    assert spec.rows[0].triggers == (identifier(cell),)
    assert _noticed(spec, "trigger_note") == []


@pytest.mark.parametrize("event", ["none", "-", ""])
def test_a_to_cell_none_on_a_row_with_no_event_says_the_state_has_no_way_out(event: str) -> None:
    spec = read(_table(f"| open | close | archived |\n| archived | {event} | none |\n"))
    assert [s.name for s in spec.states] == ["open", "archived"]
    assert [s.name for s in spec.spells] == ["close"]
    assert spec.state("archived").goal
    assert not notices(spec, "dead_end")


def test_a_to_cell_none_on_an_event_is_refused_naming_the_terminal_row() -> None:
    with pytest.raises(SpecError, match=r"the To cell 'none' says no state.*`\(none\)`"):
        read(_table("| open | close | none |\n"))


def test_a_state_named_none_that_a_from_cell_names_is_that_state() -> None:
    spec = read(_table("| open | close | none |\n| none | reopen | open |\n"))
    assert [s.name for s in spec.states] == ["open", "none"]


_PR = "| open | approve | approved |\n| approved | merge | merged |\n| open | close | closed |\n"


def test_a_table_of_refused_moves_with_no_event_column_refuses_the_events_into_its_state() -> None:
    spec = read(
        _table(_PR)
        + "\n## Invalid transitions\n\n| From | To | Why Blocked |\n|---|---|---|\n"
        + "| open | merged | must be approved first |\n"
    )
    assert [s.name for s in spec.spells] == ["approve", "merge", "close"]
    (blocked,) = [r for r in spec.rows if r.target.kind is Kind.BLOCKED]
    assert blocked.triggers == ("merge",) and blocked.current.names == ("open",)
    assert blocked.response == "must be approved first"


_REFUSED = "\n## Invalid transitions\n\n| From | To | Why Blocked |\n|---|---|---|\n"


def test_a_refused_move_leaves_alone_an_event_its_state_already_takes_elsewhere() -> None:
    """submit leads to published from review, but from draft to review: the row refusing
    draft → published refuses no event, the tables already agree (no conflict, no dead
    rule), where it refused submit in draft against R1."""
    spec = read(
        _table("| draft | submit | review |\n| review | submit | published |\n")
        + "| review | reject | draft |\n| published | - | (none) |\n"
        + _REFUSED
        + "| draft | published | must be reviewed first |\n"
    )
    assert not [
        r for r in spec.rows if "draft" in r.current.names and r.target.kind is Kind.BLOCKED
    ]
    findings = analyse(spec)
    assert not [f for f in findings if f.kind in ("conflict", "dead_rule")]
    (agrees,) = [f for f in findings if f.kind == "refusal_agrees"]
    assert agrees.line == 14
    assert "submit in draft leads to review: rule R1, line 5" in agrees.message


def test_a_refused_move_refuses_only_the_events_its_state_does_not_take_elsewhere() -> None:
    """publish and submit both lead to published; draft takes submit to review, so only
    publish is refused there. A row leading there from draft is the author's conflict."""
    rows = "| draft | submit | review |\n| review | submit | published |\n"
    rows += "| review | publish | published |\n"
    spec = read(_table(rows) + _REFUSED + "| draft | published | must be reviewed first |\n")
    (blocked,) = [r for r in spec.rows if r.target.kind is Kind.BLOCKED]
    assert blocked.triggers == ("publish",) and blocked.current.names == ("draft",)
    rows += "| draft | publish | published |\n"
    spec = read(_table(rows) + _REFUSED + "| draft | published | must be reviewed first |\n")
    (blocked,) = [r for r in spec.rows if r.target.kind is Kind.BLOCKED]
    assert blocked.triggers == ("publish",)
    assert [f.rule for f in analyse(spec) if f.kind == "conflict"]


def test_a_refused_move_overrides_a_wildcard_row_only_where_it_leads_to_its_state() -> None:
    """A row for every state that takes the event elsewhere is what the From state does
    with it; one that takes it to the To state is overridden, as the author says."""
    rows = "| draft | review | review |\n| review | publish | published |\n"
    spec = read(
        _table(rows + "| Any state | publish | archived |\n")
        + _REFUSED
        + "| draft | published | must be reviewed first |\n"
    )
    assert not [r for r in spec.rows if r.target.kind is Kind.BLOCKED]
    spec = read(
        _table(rows + "| Any state | publish | published |\n")
        + _REFUSED
        + "| draft | published | must be reviewed first |\n"
    )
    (blocked,) = [r for r in spec.rows if r.target.kind is Kind.BLOCKED]
    assert blocked.triggers == ("publish",)


def test_a_refused_move_into_a_state_no_event_leads_to_is_an_error() -> None:
    with pytest.raises(SpecError, match=r"refuses the move open → shipped.*\| open \| <event> \|"):
        read(
            _table(_PR)
            + "\n## Invalid transitions\n\n| From | To | Why Blocked |\n|---|---|---|\n"
            + "| open | shipped | no such thing |\n"
        )


@pytest.mark.parametrize("dash", ["-", "—", "\u2013"])
def test_a_to_cell_that_is_a_dash_is_refused_naming_same_state_and_the_terminal_row(
    dash: str,
) -> None:
    with pytest.raises(SpecError, match=r"names no state: write `Same state`.*\(none\)"):
        read(_table(f"| open | close | closed |\n| closed | tick | {dash} |\n"))


@pytest.mark.parametrize("every", ["*", "any", "any event", "all events"])
def test_an_event_cell_that_says_every_event_is_refused_naming_the_policy(every: str) -> None:
    with pytest.raises(SpecError, match=r"says every event.*Transitions not listed"):
        read(_table(f"| open | close | closed |\n| closed | {every} | closed |\n"))


@pytest.mark.parametrize("ditto", ["", "same as above", "ditto", '"', "\u3003", "^"])
def test_a_from_cell_that_says_as_above_is_refused_naming_the_state_to_repeat(
    ditto: str,
) -> None:
    with pytest.raises(SpecError, match=r"not carried down from the row above: repeat 'draft'"):
        read(_table(f"| draft | submit | review |\n| {ditto} | cancel | gone |\n"))


@pytest.mark.parametrize(
    ("cell", "warned"),
    [
        ("Pay or cancel order", True),
        ("Approve or reject request", True),
        ("Submit for review or Resubmit", False),  # the first is whole
        ("pay or cancel", False),  # words alone
    ],
)
def test_a_word_or_words_in_an_event_cell_may_share_an_object_and_say_so(
    cell: str, warned: bool
) -> None:
    """`Pay or cancel order` is read as `Pay` and `cancel order`; where `Pay` may mean
    `Pay order`, a `trigger_note` says how to write each event in full."""
    spec = read(_order("| From | Event | To |", f"| cart | {cell} | decided |"))
    said = [m for m in notices(spec, "trigger_note") if "write each event in full" in m]
    assert bool(said) == warned, said


@pytest.mark.parametrize(
    "event",
    [
        "approve or accept [checks pass]",
        "approve, accept [checks pass]",
        "approve or accept if checks pass",
        "approve, accept (if checks pass)",
    ],
)
def test_events_written_before_a_guard_are_read_as_without_it(event: str) -> None:
    """`approve or accept [checks pass]` was one event `approve_or_accept`, and the guard
    of `accept or confirm if checks pass` was dropped, while `approve, accept [checks
    pass]` gave two events."""
    text = (
        "# Review\n\nTransitions not listed are rejected.\n\n| From | Event | To |\n"
        f"|---|---|---|\n| review | {event} | approved |\n| approved | reopen | review |\n"
    )
    (row,) = [r for r in read(text).rows if r.current.names == ("review",)]
    assert row.triggers == ("approve", "accept")
    assert row.condition.text.lower().replace("`", "") == "checks pass"


@pytest.mark.parametrize("own_code", [False, True])
@pytest.mark.parametrize("last", ["[else]", "otherwise", "in all other cases"])
def test_else_and_otherwise_are_refused_with_the_condition_to_write(
    last: str, own_code: bool
) -> None:
    """Under the project's own code, UML's `[else]` was a guard `else_()` and `otherwise`
    one `otherwise()`, which the project's code would answer: neither says the other
    rows' cases. As in the core's words, the row is refused with the condition to write."""
    header = "| From | Event | To | Guard |\n|---|---|---|---|\n"
    rows = f"| a | go | b | card ok |\n| a | go | c | {last} |\n| b | back | a | - |\n"
    text = "# S\n\nTransitions not listed are rejected.\n\n" + header + rows
    options = ReadOptions("", own_code=True) if own_code else None
    spec = parse_spec_text(text, options=options)
    (said,) = [f.message for f in analyse(spec) if f.rule == "R2" and f.severity.value == "error"]
    assert "write the negation of the other rows' conditions in its cell" in said, said
    if own_code:
        assert said.endswith("`NOT card ok`"), said


@pytest.mark.parametrize(
    ("event", "time"),
    [
        ("30 minutes of inactivity", "30 minutes"),
        ("every 5 minutes", "every 5 minutes"),
        ("24h passed", "24h"),
        ("idle for 2 days", "2 days"),
        ("at 17:00", "at 17:00"),
        ("at 5pm", "at 5pm"),
        ("nightly", "nightly"),
        ("every day at 9:00", "every day"),
        ("report on Monday", "on Monday"),
        ("end of day", "end of day"),
    ],
)
def test_an_event_naming_a_time_is_said_to_be_sent_never_a_clock_s(event: str, time: str) -> None:
    # `30 minutes of inactivity` was an event sent by hand, with only a naming note.
    spec = read(_table(f"| active | {event} | expired |\n| active | go | done |\n"))
    (said,) = [m for _, m in _noticed(spec, "trigger_note")]
    assert f"though it names a time ({time!r})" in said
    assert "`in this state for more than N minutes`" in said


@pytest.mark.parametrize(
    "event", ["3d secure", "step 2 done", "retry 3 times", "v1.5 hours", "look at it", "turn on"]
)
def test_an_event_with_a_number_but_no_time_is_no_time(event: str) -> None:
    spec = read(_table(f"| active | {event} | expired |\n| active | go | done |\n"))
    assert not [m for _, m in _noticed(spec, "trigger_note") if "names a time" in m]


def test_a_table_of_states_marks_where_it_starts_and_ends_under_any_of_its_headers() -> None:
    # `| Status | Meaning |` with `review (initial)` started in the first state; `done
    # (final)` was a name no transition table has, with advice to add a state so named.
    text = (
        "# Docs\n\nTransitions not listed are rejected.\n\n## States\n\n"
        "| Status | Meaning |\n|---|---|\n| draft | written |\n| review (initial) | read |\n"
        "| done (final) | out |\n| gone — terminal | dropped |\n\n## Transitions\n\n"
        "| From | Event | To |\n|---|---|---|\n| draft | submit | review |\n"
        "| review | approve | done |\n| review | drop | gone |\n"
        "| done | - | (none) |\n| gone | - | (none) |\n"
    )
    spec = read(text)
    assert spec.initial == "review"
    assert not [f.message for f in analyse(spec) if f.kind == "states_unread"]


def test_a_call_in_a_table_of_ids_with_no_or_given_parameters_is_its_event() -> None:
    spec = read(
        "# Forms\n\nTransitions not listed are rejected.\n\n"
        "| ID | From | Event | Condition | To | Action |\n|---|---|---|---|---|---|\n"
        "| T1 | editing | submit() | form.json exists | submitted | - |\n"
        '| T2 | editing | submit(reason="late") | form.json missing | editing | - |\n'
        "| T3 | submitted | reopen(form) [ok] | - | editing | - |\n"
        "| T4 | submitted | submit | - | submitted | - |\n"
    )
    assert [r.triggers for r in spec.rows][:2] == [("submit",), ("submit",)]
    ((line, message),) = _noticed(spec, "trigger_note")
    assert line == 9 and "'reopen(form) [ok]' is read as one event named so" in message


def test_a_spell_cell_of_words_that_may_be_a_name_is_no_trigger_note() -> None:
    spec = read(
        "# Orders\n\nTransitions not listed are rejected.\n\n"
        "| ID | From | Event | Condition | To | Action |\n|---|---|---|---|---|---|\n"
        "| T1 | open | On hold | - | held | - |\n| T2 | held | resume | - | open | - |\n"
    )
    assert _noticed(spec, "trigger_note") == []


@pytest.mark.parametrize("name", ["Rejected", "Blocked", "Denied", "Invalid"])
def test_a_state_named_with_a_word_of_refusal_is_its_section_not_refused_moves(name: str) -> None:
    # `## Rejected` over the moves out of a state called Rejected: its moves, not refusals.
    text = (
        "# Expense claim\n\n| From | Event | To |\n|---|---|---|\n| Draft | submit | Submitted |\n"
        f"| Submitted | approve | Approved |\n| Submitted | reject | {name} |\n"
        "| Approved | - | (none) |\n\n"
        f"## {name}\n\n| From | Event | To |\n|---|---|---|\n| {name} | resubmit | Submitted |\n"
        f"| {name} | edit | Draft |\n"
    )
    spec = read(text)
    moves = {(r.source, r.spell, r.dest) for r in spec.rules if not r.policy}
    assert (name, "resubmit", "Submitted") in moves and (name, "edit", "Draft") in moves
    # so too in a section of its own over a table of its moves (no From column)
    per_state = (
        "# Ticket\n\nTransitions not listed are rejected.\n\n"
        f"### New\n\n| Event | Next state |\n|---|---|\n| block | {name} |\n| finish | Done |\n\n"
        f"### {name}\n\n| Event | Next state |\n|---|---|\n| unblock | New |\n| cancel | Done |\n\n"
        "### Done\n\n| Event | Next state |\n|---|---|\n| - | (none) |\n"
    )
    moves = {(r.source, r.spell, r.dest) for r in read(per_state).rules if not r.policy}
    assert (name, "unblock", "New") in moves and (name, "cancel", "Done") in moves
    numbered = read(per_state.replace(f"### {name}\n", f"### 3. {name}\n"))
    moves = {(r.source, r.spell, r.dest) for r in numbered.rules if not r.policy}
    assert (name, "unblock", "New") in moves, "numbered"
    # rows under such a heading that leave other states are still refused moves
    # A table under it whose rows leave other states too is refused moves, every row of
    # it (its heading may be either's): said, in a heading_limit warning
    refusals = text.replace(f"| {name} | resubmit | Submitted |", "| Draft | approve | Approved |")
    spec = read(refusals)
    refused = {(r.source, r.spell) for r in spec.rules if r.kind is Kind.BLOCKED}
    assert {("Draft", "approve"), (name, "edit")} <= refused
    (said,) = notices(spec, "heading_limit")
    assert f"call the heading `{name} state`" in said


@pytest.mark.parametrize("name", ["Deprecated", "Planned", "Retired", "Disabled"])
def test_a_state_s_section_named_as_an_aside_is_read_where_a_row_leads_to_it(name: str) -> None:
    text = (
        "# Flags\n\nTransitions not listed are rejected.\n\n"
        f"### Active\n\n| Event | Next state |\n|---|---|\n| mark | {name} |\n\n"
        f"### {name}\n\n| Event | Next state |\n|---|---|\n| revive | Active |\n"
        "| remove | Removed |\n\n"
        "### Removed\n\n| Event | Next state |\n|---|---|\n| - | (none) |\n"
    )
    moves = {(r.source, r.spell, r.dest) for r in read(text).rules if not r.policy}
    assert (name, "revive", "Active") in moves and (name, "remove", "Removed") in moves


def test_a_table_of_invalid_transitions_beside_the_transitions_is_read_as_their_refusals() -> None:
    # Under `## Transitions` and `## Invalid transitions`: refused as "one machine or
    # several"; and a refused row out of a state a `(none)` row ends was "leading out".
    moves = (
        "| From | Event | To |\n|---|---|---|\n| pending | pay | paid |\n"
        "| paid | ship | shipped |\n| shipped | - | (none) |\n"
    )
    invalid = (
        "| From | Event | To |\n|---|---|---|\n| pending | ship | shipped |\n"
        "| shipped | pay | paid |\n"
    )
    for heading in ("## Transitions\n\n", ""):
        spec = read(f"# Order\n\n{heading}{moves}\n## Invalid transitions\n\n{invalid}")
        refused = {(r.source, r.spell) for r in spec.rules if r.kind is Kind.BLOCKED}
        assert {("pending", "ship"), ("shipped", "pay")} <= refused, heading


def test_a_numbered_table_of_states_is_no_table_of_rules_with_an_id_column() -> None:
    # `| ID | State | Description |` was taken for the ID dialect's rules, and the real
    # transition table refused, told to take its columns.
    states = "## States\n\n| ID | State | Description |\n|---|---|---|\n| 1 | draft | new |\n"
    states += "| 2 | review | read |\n| 3 | done | over |\n\n"
    moves = "## Moves\n\n| From | Event | To |\n|---|---|---|\n| draft | submit | review |\n"
    moves += "| review | approve | done |\n"
    spec = read(f"# M\n\n{states}{moves}")
    assert [(r.source, r.spell, r.dest) for r in spec.rules if not r.policy][:2] == [
        ("draft", "submit", "review"),
        ("review", "approve", "done"),
    ]
    assert not notices(spec, "unknown_column")


def test_two_trigger_columns_that_say_different_things_are_a_warning() -> None:
    """`| From | Event | To | Trigger |` of `submit` and `customer`: the spells are those
    of the column read first (Trigger), which may be who makes the move, not the event;
    only an info said so. Columns that say the same are only a column choice."""
    rows = ("| draft | submit | review | customer |", "| review | approve | done | manager |")
    spec = read(_order("| From | Event | To | Trigger |", *rows))
    (note,) = [f for f in analyse(spec) if f.kind == "event_column"]
    assert note.severity.value == "warning"
    assert "'Trigger' holds 'customer', 'manager'" in note.message
    assert "'Event' holds 'submit', 'approve'" in note.message
    same = ("| draft | submit | review | Submit |", "| review | approve | done | `approve` |")
    spec = read(_order("| From | Event | To | Trigger |", *same))
    assert not [f for f in analyse(spec) if f.kind == "event_column"]
    assert [f.kind for f in analyse(spec) if f.kind == "column_choice"] == ["column_choice"]


@pytest.mark.parametrize("layout", ["Event: {e}", "Trigger - {e}", "Events/{e}"])
def test_a_table_of_one_event_s_moves_under_a_heading_naming_it_reads_the_event(
    layout: str,
) -> None:
    """`## Event: submit` over `| From | To |`: the moves became `to_review`, ... with
    no word, and the headings' events were nowhere."""

    def section(event: str, rows: str) -> str:
        if layout.startswith("Events/"):
            return f"### {event}\n\n| From | To |\n|---|---|\n{rows}\n"
        return f"## {layout.format(e=event)}\n\n| From | To |\n|---|---|\n{rows}\n"

    text = (
        "# Review\n\n**States**: draft (initial), review, approved\n\n"
        "Transitions not listed are rejected.\n\n"
        + ("## Events\n\n" if layout.startswith("Events/") else "")
        + section("submit", "| draft | review |")
        + section("approve", "| review | approved |")
        + section("reject", "| review | draft |")
    )
    spec = read(text)
    assert [(r.current.names, r.triggers, r.target.name) for r in spec.rows[:3]] == [
        (("draft",), ("submit",), "review"),
        (("review",), ("approve",), "approved"),
        (("review",), ("reject",), "draft"),
    ]
    # a heading of a state, or of a part, names no event
    plain = read(text.replace("Event: ", "").replace("Trigger - ", "").replace("## Events\n", ""))
    assert all(t.startswith("to_") for r in plain.rows[:3] for t in r.triggers)


@pytest.mark.parametrize(
    "written",
    [
        "* except done, cancelled",
        "All except done, cancelled",
        "Any state other than done, cancelled",
    ],
)
def test_every_state_but_some_in_other_words_is_the_wildcard_with_exceptions(written: str) -> None:
    """`* except done, cancelled` was split at its comma, `cancelled` taken for a second
    From state, and the refusal blamed the terminal row."""
    assert parse_selector(written) == parse_selector("Any state except done, cancelled")
    rows = (
        "| open | start | working |",
        "| working | finish | done |",
        f"| {written} | cancel | cancelled |",
        "| done | - | (none) |",
        "| cancelled | - | (none) |",
    )
    spec = read(_order("| From | Event | To |", *rows))
    cancel = next(r for r in spec.rows if "cancel" in r.triggers)
    assert cancel.current.wildcard and set(cancel.current.names) == {"done", "cancelled"}


_EXCEPTIONS = """# Expense claim

Transitions not listed are rejected.

## Main flow

| From | Event | To |
|---|---|---|
| (start) | - | Draft |
| Draft | submit | Submitted |
| Submitted | approve | Approved |
| Approved | pay | Paid |

## Exceptions

| HEADER |
|---|---|---|
| Submitted | reject | Draft |
| Approved | revoke | Submitted |
"""


@pytest.mark.parametrize(
    ("header", "config"),
    [
        ("From status | Event | To status", 'current_state = ["From status"], next_state = ["To'),
        ("Stage | Event | Next stage", 'current_state = ["Stage"], next_state = ["Next stage"]'),
        ("Before | Event | After", 'current_state = ["Before"], next_state = ["After"] }'),
        ("Current | Event | Becomes", '{ next_state = ["Becomes"] }'),
    ],
)
def test_a_second_table_of_moves_under_headers_not_read_is_said(header: str, config: str) -> None:
    """A machine's second table, `| From status | Event | To status |`, was dropped with
    no word: `reject` and `revoke` were no events of the machine, exit 0."""
    spec = parse_spec_text(_EXCEPTIONS.replace("HEADER", header), "spec/E.md")
    (said,) = [f for f in analyse(spec) if f.kind == "table_unread"]
    assert said.line == 16 and config in said.message, said.message
    # an events table beside it, its cells no states: no word
    events = _EXCEPTIONS.replace("HEADER", "Event | Meaning | Who").replace(
        "| Submitted | reject | Draft |\n| Approved | revoke | Submitted |",
        "| submit | sent for approval | employee |",
    )
    assert not [
        f for f in analyse(parse_spec_text(events, "spec/E.md")) if f.kind == "table_unread"
    ]
    # a recap of moves the machine has: no word
    recap = _EXCEPTIONS.replace("HEADER", header).replace(
        "| Submitted | reject | Draft |\n| Approved | revoke | Submitted |",
        "| Draft | submit | Submitted |\n| Approved | pay | Paid |",
    )
    assert not [f for f in analyse(parse_spec_text(recap, "spec/E.md")) if f.kind == "table_unread"]


@pytest.mark.parametrize(
    "cell", ["[plan.md exists] submit", "submit [plan.md exists] [notes.md exists]"]
)
def test_a_guard_in_brackets_not_after_the_event_is_refused_never_a_name(cell: str) -> None:
    """`[plan.md exists] submit` made the event `plan_md_exists_submit`, exit 0."""
    with pytest.raises(SpecError, match="holds a guard in brackets this reading does not take"):
        read(_order("| From | Event | To |", f"| draft | {cell} | review |"))


@pytest.mark.parametrize(
    ("row", "what"),
    [
        ("| Assigned | same as above | Closed |", "trigger 'same as above'"),
        ("| Assigned | ditto | Closed |", "trigger 'ditto'"),
        ("| Assigned | dto. | Closed |", "trigger 'dto.'"),
        ("| Assigned | close | (ditto) |", "state '(ditto)'"),
        ("| Assigned | close | as above |", "state 'as above'"),
    ],
)
def test_a_ditto_in_an_event_or_to_cell_is_refused_as_in_a_from_cell(row: str, what: str) -> None:
    """`same as above` in an Event cell made an event `same_as_above` (in a To cell, a
    state), exit 0; in a From cell it was refused: a cell is not carried down."""
    text = (
        "# Ticket\n\n| From | Event | To |\n|---|---|---|\n| Open | close | Closed |\n"
        f"{row}\n| Open | assign | Assigned |\n"
    )
    with pytest.raises(SpecError, match=re.escape(what) + " says `as the row above`"):
        parse_spec_text(text, "spec/T.md")


@pytest.mark.parametrize("cell", ["review.*", "review.**", "review::*", "Review / *"])
def test_a_wildcard_of_nested_states_is_refused_never_the_parent_state(cell: str) -> None:
    """`review.*` in a From cell was read as the state `review`, the star dropped: the
    move out of `review.in_progress` was refused with no word."""
    text = (
        "# Review\n\n| From | Event | To |\n|---|---|---|\n| (start) | - | draft |\n"
        "| draft | submit | review |\n| review | assign | review.in_progress |\n"
        f"| {cell} | withdraw | draft |\n"
    )
    with pytest.raises(SpecError, match="a wildcard of nested states this reading does not take"):
        parse_spec_text(text, "spec/R.md")
