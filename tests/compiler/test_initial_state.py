"""Where a spec says its machine starts: front matter, labels, key/value tables,
headings and a States table's columns (`codegen.read.initial`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import SpecError, parse_spec_text
from codegen.analyse import analyse

_TABLE = (
    "Transitions not listed are rejected.\n\n| From | Event | To |\n|---|---|---|\n"
    "| draft | submit | review |\n| review | approve | shipped |\n"
    "| review | reject | draft |\n| shipped | - | (none) |\n"
)


@pytest.mark.parametrize(
    "front",
    [
        "initial_state: review\n",
        "initial: review\n",
        "machine: order\ninitial-state: review\n",
    ],
)
def test_front_matter_says_where_the_machine_starts(front: str) -> None:
    spec = parse_spec_text(f"---\ntitle: Order lifecycle\n{front}---\n\n# Order\n\n{_TABLE}")
    assert spec.initial == "review"


def test_front_matter_is_never_a_heading_that_makes_the_file_an_example() -> None:
    text = f"---\ntitle: Order lifecycle\ntags: [payments, example]\n---\n\n{_TABLE}"
    spec = parse_spec_text(text)
    assert {r.current.names for r in spec.rows} >= {("draft",), ("review",)}
    assert not [f for f in analyse(spec) if f.kind == "table_skipped"]


def test_front_matter_and_a_sentence_that_disagree_are_an_error_naming_both() -> None:
    text = f"---\ninitial: review\n---\n\n# Order\n\nThe initial state is `draft`.\n\n{_TABLE}"
    with pytest.raises(SpecError) as err:
        parse_spec_text(text)
    assert "line 2" in err.value.message and "line 7" in err.value.message


def test_front_matter_that_is_not_yaml_is_an_error_at_its_line() -> None:
    with pytest.raises(SpecError) as err:
        parse_spec_text(f"---\ntitle: [unclosed\n---\n\n# Order\n\n{_TABLE}")
    assert err.value.line == 2 and "not valid YAML" in err.value.message


@pytest.mark.parametrize(
    ("value", "named"),
    [("true", "'true'"), ("2024-01-02", "'2024-01-02'"), ("\n  - review", "review")],
)
def test_front_matter_initial_that_is_no_name_is_a_warning_not_an_error(
    value: str, named: str
) -> None:
    spec = parse_spec_text(f"---\ntitle: Orders\ninitial: {value}\n---\n\n# Order\n\n{_TABLE}")
    assert spec.initial == "draft"
    (warning,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert warning.line == 3 and named in warning.message


@pytest.mark.parametrize(
    "said",
    [
        "**Start**: `review`",
        "Start: review",
        "Initial state \u2014 `review`",
        "| Setting | Value |\n|---|---|\n| Initial state | review |\n| Owner | payments |",
        "## Initial state\n\n`review`",
        "## States\n\n| State | Meaning | Initial |\n|---|---|---|\n"
        "| draft | edited | |\n| review | waiting | \u2713 |\n| shipped | sent | |",
        # Each of these was no claim: the machine started in draft, its first state.
        "`review` is the initial state.",
        "Review is the first state.",
        "The first state is `review`.",
        "Orders start in `review`.",
        "Orders never start in `draft`; they start in `review`.",
        # and these too, each the author's words for where it starts
        "Orders are created in the `review` state.",
        "The initial status is `review`.",
        "Entry point: `review`.",
        "All orders start out `review`.",
    ],
)
def test_more_ways_of_saying_the_initial_state_are_read(said: str) -> None:
    spec = parse_spec_text(f"# Order\n\n{said}\n\n## Transitions\n\n{_TABLE}")
    assert spec.initial == "review"
    assert not [f for f in analyse(spec) if f.kind == "states_unread"]


@pytest.mark.parametrize(
    "said",
    [
        "Start: review the order before it ships.",
        "| Event | Leads to |\n|---|---|\n| start | review |\n| approve | shipped |",
        "| Event | Meaning |\n|---|---|\n| start | Starts the timer |",
        "| Trigger | Initial state |\n|---|---|\n| submit | review |",
        "| Setting | Value |\n|---|---|\n| Start | review |",
        "## States\n\n| State | Meaning |\n|---|---|\n| draft | edited |\n"
        "| entry | Badge checked |\n| review | waiting |",
    ],
)
def test_events_tables_and_sentences_that_do_not_name_the_initial_state_are_no_claim(
    said: str,
) -> None:
    spec = parse_spec_text(f"# Order\n\n{said}\n\n## Transitions\n\n{_TABLE}")
    assert spec.initial == "draft"
    # (the States table's `entry`, no state of the tables, is a warning of its own)
    assert not [f for f in analyse(spec) if f.kind == "states_unread" and "starts" in f.message]


@pytest.mark.parametrize(
    "said",
    [
        "| Setting | Value |\n|---|---|\n| Start state | review |",
        "| Starting state | review |\n|---|---|\n| Owner | payments |",
        "Entry: `review`",
    ],
)
def test_a_start_state_row_or_a_start_line_in_backticks_is_read(said: str) -> None:
    spec = parse_spec_text(f"# Order\n\n{said}\n\n## Transitions\n\n{_TABLE}")
    assert spec.initial == "review"


def test_a_key_value_row_naming_no_state_is_a_warning() -> None:
    said = "| Setting | Value |\n|---|---|\n| Initial state | reviewing |"
    spec = parse_spec_text(f"# Order\n\n{said}\n\n{_TABLE}")
    assert spec.initial == "draft"
    (warning,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert warning.line == 5 and "'reviewing'" in warning.message


@pytest.mark.parametrize(("last", "warned"), [("| shipped | reopen | review |", True), ("", False)])
def test_a_final_column_tick_is_a_warning_unless_a_none_row_ends_the_state(
    last: str, warned: bool
) -> None:
    states = (
        "## States\n\n| State | Meaning | Final |\n|---|---|---|\n"
        "| draft | edited | |\n| review | waiting | |\n| shipped | sent | \u2713 |\n"
    )
    table = _TABLE.replace(
        "| shipped | - | (none) |\n", last + "\n" if last else "| shipped | - | (none) |\n"
    )
    spec = parse_spec_text(f"# Order\n\n{states}\n## Transitions\n\n{table}")
    # the tick is read: the workflow ends there (no `no_goal`, no `dead_end`)
    assert spec.goals == ("shipped",)
    found = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert len(found) == int(warned)
    if warned:  # a row leads out of a state ticked final
        assert found[0].line == 9 and "'Final'" in found[0].message
        assert "read as a goal" in found[0].message and "on reopen" in found[0].message


@pytest.mark.parametrize("header", ["Final?", "Is final", "**Terminal?**", "End state"])
def test_a_final_column_is_read_however_its_header_asks(header: str) -> None:
    # `Final?` and `Is final` were dropped: a false `dead_end`, and `no_goal`.
    states = (
        f"## States\n\n| State | Meaning | {header} |\n|---|---|---|\n"
        "| draft | edited | |\n| review | waiting | |\n| shipped | sent | \u2713 |\n"
    )
    table = _TABLE.replace("| shipped | - | (none) |\n", "")
    spec = parse_spec_text(f"# Order\n\n{states}\n## Transitions\n\n{table}")
    assert spec.goals == ("shipped",)


def test_a_type_column_says_where_it_starts_and_ends() -> None:
    # `| draft | initial |` and `| shipped | final |` under `Type` were dropped: the machine
    # started in the first state named, and shipped was a `dead_end`.
    states = (
        "## States\n\n| State | Type | Meaning |\n|---|---|---|\n| review | normal | waiting |\n"
        "| draft | initial | edited |\n| shipped | final | sent |\n"
    )
    table = _TABLE.replace("| shipped | - | (none) |\n", "")
    spec = parse_spec_text(f"# Order\n\n{states}\n## Transitions\n\n{table}")
    assert (spec.initial, spec.goals) == ("draft", ("shipped",))
    assert spec.started is not None and "'initial' in the 'Type' column" in spec.started


@pytest.mark.parametrize(
    "opening",
    [
        "---\n\n# Order\n\nSome text.\n\n---\n\n",  # a thematic break, a blank line
        "---\n# Order\n\nSome text.\n\n---\n\n",  # YAML reads no mapping there
    ],
)
def test_a_thematic_break_that_opens_the_file_is_no_front_matter(opening: str) -> None:
    spec = parse_spec_text(f"{opening}{_TABLE}")
    assert spec.initial == "draft" and spec.title == "Order"


@pytest.mark.parametrize(
    "front", ["start: review\n", "initialState: review\n", "start_state: review\n"]
)
def test_front_matter_keys_spelled_otherwise_say_where_the_machine_starts(front: str) -> None:
    spec = parse_spec_text(f"---\ninitial_notes: none\n{front}---\n\n# Order\n\n{_TABLE}")
    assert spec.initial == "review"
    assert spec.started is not None and "line 3" in spec.started


@pytest.mark.parametrize(
    ("front", "line"),
    [("default: review\n", 2), ("machine:\n  initial: review\n", 3)],
)
def test_front_matter_that_may_say_where_it_starts_is_a_warning(front: str, line: int) -> None:
    spec = parse_spec_text(f"---\n{front}---\n\n# Order\n\n{_TABLE}")
    assert spec.initial == "draft"
    (warning,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert warning.line == line and "review" in warning.message


def test_a_comment_after_the_front_matter_s_initial_state_is_no_part_of_it() -> None:
    spec = parse_spec_text(f"---\ninitial: off # lights out\n---\n\n# Lamp\n\n{_TABLE}")
    (warning,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert "'off'" in warning.message and "#" not in warning.message.split("starts in")[1][:12]


def test_a_catch_all_row_first_is_no_word_on_where_the_machine_starts() -> None:
    table = (
        "| From | Event | To |\n|---|---|---|\n| Any state | cancel | cancelled |\n"
        "| cancelled | reopen | new |\n| new | pay | paid |\n"
    )
    spec = parse_spec_text(f"# Orders\n\n{table}")
    (warning,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert warning.line == 5 and "starts in cancelled" in warning.message
    assert "``The initial state is `new`.``" in warning.message
    said = parse_spec_text(f"# Orders\n\nThe initial state is `new`.\n\n{table}")
    assert said.initial == "new" and not [f for f in analyse(said) if f.kind == "states_unread"]
    # A first row leaving from a state of its own says nothing more.
    plain = parse_spec_text(f"# Orders\n\n{table.replace('Any state', 'new')}")
    assert not [f for f in analyse(plain) if f.kind == "states_unread"]


def test_an_initial_mark_on_the_heading_over_a_state_s_moves_says_where_it_starts() -> None:
    text = (
        "# Ticket\n\nTransitions not listed are rejected.\n\n"
        "### Closed\n\n| Event | Next state |\n|---|---|\n| reopen | Open |\n\n"
        "### Open (initial)\n\n| Event | Next state |\n|---|---|\n| close | Closed |\n"
    )
    assert parse_spec_text(text).initial == "Open"


def test_a_table_of_states_that_lists_another_state_first_says_where_it_starts() -> None:
    # No line says where it starts, so the first state the tables name (review) is where
    # it starts; the table of states lists draft first: said, not taken.
    states = "## States\n\n| State | Meaning |\n|---|---|\n| draft | new |\n| review | read |\n"
    states += "| shipped | sent |\n\n"
    table = _TABLE.replace("| draft | submit | review |\n", "") + "| draft | submit | review |\n"
    spec = parse_spec_text(f"# Order\n\n{states}## Transitions\n\n{table}")
    assert spec.initial == "review"
    (said,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert "this table of states lists draft first" in said.message
    assert "``The initial state is `draft`.``" in said.message
    # listed first where it starts: no word
    same = parse_spec_text(f"# Order\n\n{states}## Transitions\n\n{_TABLE}")
    assert same.initial == "draft"
    assert not [f for f in analyse(same) if f.kind == "states_unread"]


@pytest.mark.parametrize("mark", ["\u2611\ufe0f", "\u2b50", "\U0001f7e2", "(initial)", "\u2705"])
def test_an_initial_column_marked_otherwise_than_a_tick_says_where_it_starts(mark: str) -> None:
    # `☑️` (GitHub's :ballot_box_with_check:), a star, a dot: dropped with no word, the
    # machine starting in its first state.
    states = (
        "## States\n\n| State | Initial | Meaning |\n|---|---|---|\n| draft | | edited |\n"
        f"| review | {mark} | waiting |\n| shipped | | sent |\n\n"
    )
    spec = parse_spec_text(f"# Order\n\n{states}## Transitions\n\n{_TABLE}")
    assert spec.initial == "review"


@pytest.mark.parametrize("mark", ["\u2611\ufe0f", "\U0001f3c1", "\u2b50", "(final)"])
def test_a_goal_or_final_column_marked_otherwise_than_a_tick_is_read(mark: str) -> None:
    for column in ("Goal", "Final"):
        states = (
            f"## States\n\n| State | {column} | Meaning |\n|---|---|---|\n| draft | | edited |\n"
            f"| review | | waiting |\n| shipped | {mark} | sent |\n\n"
        )
        table = _TABLE.replace("| shipped | - | (none) |\n", "")
        spec = parse_spec_text(f"# Order\n\n{states}## Transitions\n\n{table}")
        assert spec.goals == ("shipped",), (column, mark)


@pytest.mark.parametrize("name", ["`{}`", "**{}**"])
def test_a_states_list_of_names_before_a_dash_and_a_description_reads_its_marks(name: str) -> None:
    # `- `open` \u2013 a new ticket (initial)` was taken for prose: the mark then named "open \u2013
    # a new ticket", no state, and the warning's fix named the wrong one; `(final)` was
    # dropped.
    items = "".join(
        f"- {name.format(n)} \u2013 {said}\n"
        for n, said in (
            ("review", "being read (initial)"),
            ("draft", "edited"),
            ("shipped", "sent (final)"),
        )
    )
    table = _TABLE.replace("| shipped | - | (none) |\n", "")
    spec = parse_spec_text(f"# Order\n\n## States\n\n{items}\n## Transitions\n\n{table}")
    assert [s.name for s in spec.states] == ["review", "draft", "shipped"]
    assert spec.initial == "review" and spec.goals == ("shipped",)
    assert not [f for f in analyse(spec) if f.kind == "states_unread"]


def test_a_list_of_files_in_backticks_under_a_states_heading_is_no_states_list() -> None:
    # `- `state.json` \u2013 where the state is kept` names a file, not a state.
    items = "- `state.json` \u2013 where the state is kept\n- `notes.md` \u2013 the notes\n\n"
    spec = parse_spec_text(f"# Order\n\n## States\n\n{items}## Transitions\n\n{_TABLE}")
    assert [s.name for s in spec.states] == ["draft", "review", "shipped"]


@pytest.mark.parametrize("key", ["final", "terminal", "final_states", "goals"])
def test_front_matter_that_says_where_the_workflow_ends_is_a_warning(key: str) -> None:
    # `terminal: [review]` beside `initial:` was dropped with no word, rows leading out.
    spec = parse_spec_text(f"---\ninitial: draft\n{key}: [review]\n---\n\n# Order\n\n{_TABLE}")
    (said,) = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert said.line == 3 and f"the front matter's {key!r}" in said.message
    listed = parse_spec_text(f"---\n{key}:\n  - review\n---\n\n# Order\n\n{_TABLE}")
    assert [f.line for f in analyse(listed) if f.kind == "states_unread"] == [2]


@pytest.mark.parametrize(
    "value", ["[shipped]", "Describe how an order moves from draft to shipping", "bash", "true"]
)
def test_front_matter_that_agrees_or_names_no_state_is_no_warning(value: str) -> None:
    """`final: [shipped]` where no row leads out of shipped, or `goal:` of a document's
    purpose: nothing the reading says otherwise."""
    for key in ("final", "goal", "terminal"):
        spec = parse_spec_text(f"---\n{key}: {value}\n---\n\n# Order\n\n{_TABLE}")
        assert not [f for f in analyse(spec) if f.kind == "states_unread"], (key, value)


@pytest.mark.parametrize("number", ["#", "No.", "Step", "ID"])
def test_a_table_of_states_whose_first_column_numbers_its_rows_is_read(number: str) -> None:
    # `| # | State | Meaning |` was read as no table of states: its order, and a state
    # it lists that no row names, were not said.
    states = (
        f"## States\n\n| {number} | State | Meaning |\n|---|---|---|\n| 1 | draft | new |\n"
        "| 2 | review | read |\n| 3 | shipped | sent |\n| 4 | archived | gone |\n\n"
    )
    table = _TABLE.replace("| draft | submit | review |\n", "") + "| draft | submit | review |\n"
    spec = parse_spec_text(f"# Order\n\n{states}## Transitions\n\n{table}")
    said = [f.message for f in analyse(spec) if f.kind == "states_unread"]
    assert any("this table of states lists draft first" in m for m in said), said
    assert any("lists 'archived', which no transition table names" in m for m in said), said


def test_an_id_column_of_codes_with_numbers_numbers_the_rows() -> None:
    states = (
        "## States\n\n| ID | State | Meaning |\n|---|---|---|\n| S1 | draft | new |\n"
        "| S2 | review | read |\n| S3 | shipped | sent |\n| S4 | archived | gone |\n\n"
    )
    spec = parse_spec_text(f"# Order\n\n{states}## Transitions\n\n{_TABLE}")
    said = [f.message for f in analyse(spec) if f.kind == "states_unread"]
    assert any("lists 'archived', which no transition table names" in m for m in said), said


def test_an_id_column_of_names_is_the_states_not_row_numbers() -> None:
    """`| ID | Name | Description |` of `DRAFT`, `IN_REVIEW`: the IDs are the states the
    rows name, not numbers; the names beside them were said to be states no row has."""
    states = (
        "## States\n\n| ID | Name | Description |\n|---|---|---|\n"
        "| draft | Being written | new |\n| review | Under review | read |\n"
        "| shipped | Sent out | sent |\n\n"
    )
    spec = parse_spec_text(f"# Order\n\n{states}## Transitions\n\n{_TABLE}")
    assert not [f.message for f in analyse(spec) if f.kind == "states_unread"]


@pytest.mark.parametrize(
    "said",
    [
        "The order's initial state is `draft`.",
        "Orders are initialized in state `draft`.",
        "New orders land in `draft`.",
        "> **Note:** new orders are always `draft`.",
        "Every order begins its life in `draft`.",
        "When created, an order is in `draft`.",
        "A new order goes straight to `draft`.",
        "Newly created orders sit in `draft` until triaged.",
        "`draft` is where every new order starts.",
        "Orders are created by the intake bot in `draft`.",
        # a verb of starting further before it, a place word right before it
        "Orders are created by the intake bot of the sales team in `draft`.",
        "Tickets filed through the web form land, after spam filtering by the bot, in `draft`.",
        "Orders start, as a rule, in `draft`.",
        # after it: where things start, or are created
        "`draft` - every new order starts here.",
        "`draft`: where orders start.",
        "`draft` is where orders are created.",
        "`draft` is our starting point.",
    ],
)
def test_a_line_that_may_say_where_it_starts_in_other_words_is_a_warning(said: str) -> None:
    # Each was dropped with no word, the machine starting in the first state the rows name.
    table = _TABLE.replace("| draft | submit | review |\n", "") + "| draft | submit | review |\n"
    spec = parse_spec_text(f"# Order\n\n{said}\n\n## Transitions\n\n{table}")
    notes = [f for f in analyse(spec) if f.kind == "states_unread"]
    assert [f.line for f in notes] == [3], notes
    assert "``The initial state is `draft`.``" in notes[0].message
    # naming the state it starts in anyway, or no word of starting: no warning
    other = parse_spec_text(f"# Order\n\nSee `draft` for details.\n\n## Transitions\n\n{table}")
    assert not [f for f in analyse(other) if f.kind == "states_unread"]


@pytest.mark.parametrize(
    "said",
    [
        "A new comment on an order in `draft` notifies the author.",
        "Reviewers create a checklist when the order enters `draft`.",
        "In `draft`, the first reviewer to approve wins.",
        "The default reviewer for `draft` is the team lead.",
        "Start the review in `draft` only after CI is green.",
        # names where it does start (the first state the rows name) before another
        "New orders land in `review` and move to `draft` when sent back.",
        # a word of starting of something else, or far from the state
        "The landing page shows orders in `draft` with a badge.",
        "The creator of an order may edit it while in `draft`.",
        "From `draft`, the author starts over.",
        "An order in `draft` starts the SLA timer.",
        "Starting Monday, reviewers handle `draft` orders too.",
        "The created_at field is kept while in `draft`.",
        "Orders placed by admins skip `draft`.",
        "The SLA timer starts when an order is in `draft`.",
        "Reviewers start after lunch on orders in `draft`.",
        "Agents start work on the orders in `draft`.",
        "Reviewers start, once CI is green, on orders in `draft`.",
        "`draft`: where orders are reviewed before they start.",
        "Reports created by the nightly job are kept in `draft`.",
        "Orders created through the API are listed at `draft`.",
    ],
)
def test_a_word_of_starting_that_leads_to_no_state_named_is_no_warning(said: str) -> None:
    """A word like new, first, create beside a state, but not leading to it (`a new
    comment on an order in `review``): prose about the state, never where it starts."""
    table = _TABLE.replace("| draft | submit | review |\n", "") + "| draft | submit | review |\n"
    spec = parse_spec_text(f"# Order\n\n{said}\n\n## Transitions\n\n{table}")
    assert spec.states[0].name == "review", [s.name for s in spec.states]
    assert not [f for f in analyse(spec) if f.kind == "states_unread"], said


def test_a_states_item_s_initial_and_final_fields_are_read() -> None:
    """`- *Initial*: yes` under a state of the user's States list was ignored: the
    machine started in the first state listed; `- *Final*: yes` was no goal."""
    text = (Path(__file__).resolve().parents[2] / "spec" / "STATE_MACHINE.md").read_text("utf-8")
    mark = "    - *Indicators*: `.ai/task/plan.md` exists\n"
    spec = parse_spec_text(text.replace(mark, mark + "    - *Initial*: yes\n", 1), "spec/S.md")
    assert spec.initial == "GATHER_EDITING"
    final = parse_spec_text(text.replace("- *Goal*: yes", "- *Final*: yes", 1), "spec/S.md")
    ours = parse_spec_text(text, "spec/S.md")
    assert [s.name for s in final.states if s.goal] == [s.name for s in ours.states if s.goal]
    assert [s.name for s in ours.states if s.goal]


@pytest.mark.parametrize("cell", ["\u2192 Idle", "Idle \u23f5", "\u25b6 Idle", "-> Idle"])
def test_an_arrow_by_a_state_in_a_table_of_states_says_where_it_starts(cell: str) -> None:
    """`| → Idle | waiting |` in a table of states: the arrow was stripped from the name
    and not read, so a cyclic machine started in the first state the rows name."""
    text = (
        "# Job\n\n| State | Description |\n|---|---|\n| Running | working |\n"
        f"| Done | finished |\n| {cell} | waiting |\n\n| From | Event | To |\n|---|---|---|\n"
        "| Running | finish | Done |\n| Idle | start | Running |\n| Done | reset | Idle |\n"
    )
    assert parse_spec_text(text, "spec/J.md").initial == "Idle"
