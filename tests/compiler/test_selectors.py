"""Current State and Next State cells as people write them: `any`, `*`, `any
non-terminal`, `A / B`, `same status`, `unchanged`; and what a cell that does not read
is told: the form that reads, never a name of the opposite meaning."""

from __future__ import annotations

import pytest

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.reading import read_spec
from codegen.model import Kind, Spec
from tests.support.specs import fill, row, spec_text

STATES = ["DRAFT", "OPEN", "DONE"]
SPELLS = ["Go", "Stop"]


def _spec(rows: list[str], states: list[str] = STATES, spells: list[str] = SPELLS) -> Spec:
    return parse_spec_text(spec_text(states, spells, rows), "spec/SEL.md")


def _sources(spec: Spec, rule_id: str) -> list[str]:
    return [r.source for r in spec.rules if r.id == rule_id]


def _messages(spec: Spec, kind: str) -> list[str]:
    return [f.message for f in analyse(spec) if f.kind == kind]


@pytest.mark.parametrize("written", ["any", "Any", "any state", "*", "`*`", "Any state"])
def test_any_and_star_read_as_any_state(written: str) -> None:
    spec = _spec([row("W1", written, "Stop", nxt="[BLOCKED]")])
    assert _sources(spec, "W1") == STATES
    assert all(r.specificity.name == "WILDCARD" for r in spec.rules if r.id == "W1")


# DRAFT -> OPEN -> DONE; DONE has no way out but the wildcard row, which does not count.
FLOW = [
    row("T1", "DRAFT", "Go", nxt="OPEN", action="Update state to OPEN"),
    row("T2", "OPEN", "Go", nxt="DONE", action="Update state to DONE"),
    row("T3", "DONE", "Go", nxt="Same state"),
]


def test_any_non_terminal_is_every_state_a_row_leads_out_of() -> None:
    rows = [*FLOW, row("W1", "any non-terminal", "Stop", nxt="DONE", action="-")]
    rows.append(row("W2", "any terminal", "Stop", nxt="DRAFT", action="-"))
    spec = _spec(rows)
    assert _sources(spec, "W1") == ["DRAFT", "OPEN"]
    # W2 leads out of DONE, but a wildcard row does not make its states non-terminal.
    assert _sources(spec, "W2") == ["DONE"]
    said = {r.id: r.states for r in read_spec(spec).rows}
    assert said["W1"] == "any non-terminal state (DRAFT, OPEN)"
    assert said["W2"] == "any terminal state (DONE)"
    assert not [f for f in analyse(spec) if f.severity.value == "error"]


def test_a_row_that_stays_does_not_lead_out() -> None:
    rows = [*FLOW, row("W1", "Any non-terminal states", "Stop", nxt="[BLOCKED]")]
    spec = _spec([*rows, row("T4", "DONE", "Stop", nxt="DONE", action="-")])
    assert _sources(spec, "W1") == ["DRAFT", "OPEN"]


@pytest.mark.parametrize("written", ["DRAFT / OPEN", "DRAFT/OPEN", "`DRAFT` / `OPEN`"])
def test_states_separated_by_slashes_are_each_a_state(written: str) -> None:
    spec = _spec([*fill(STATES, SPELLS, ["DRAFT/Go", "OPEN/Go"]), row("T1", written, "Go")])
    assert _sources(spec, "T1") == ["DRAFT", "OPEN"]
    assert not _messages(spec, "unknown_state")


def test_three_states_separated_by_slashes() -> None:
    spec = _spec([row("T1", "DRAFT/OPEN/DONE", "Go"), row("T2", "Any state", "Stop")])
    assert _sources(spec, "T1") == STATES


def test_a_slashed_name_with_a_part_that_is_no_state_names_the_part_and_the_list() -> None:
    spec = _spec([row("T1", "DRAFT / OPEM", "Go"), row("T2", "Any state", "Stop")])
    (message,) = _messages(spec, "unknown_state")
    assert "'DRAFT / OPEM'" in message and "OPEM is not a state" in message
    assert "`DRAFT, OPEN`" in message
    assert _sources(spec, "T1") == []


def test_a_family_keeps_its_slash() -> None:
    states = ["A_G", "A_A", "B"]
    spec = _spec([row("T1", "A_[G/A] / B", "Go"), row("T2", "Any state", "Stop")], states)
    assert _sources(spec, "T1") == ["A_G", "A_A", "B"]


@pytest.mark.parametrize(
    "written",
    ["same", "Same status", "same state", "unchanged", "(no change)", "No change", "Same."],
)
def test_next_state_words_for_staying_read_as_same_state(written: str) -> None:
    spec = _spec([row("T1", "Any state", "Go", nxt=written, action="-"), row("T2", "*", "Stop")])
    rules = [r for r in spec.rules if r.id == "T1"]
    assert rules and all(r.kind is Kind.NOOP and r.dest == r.source for r in rules)


COMPLETED = ["ACTIVE", "COMPLETED"]


def test_a_negated_state_is_offered_any_state_except_it_never_the_state() -> None:
    spec = _spec([row("T1", "any non-completed", "Go"), row("T2", "*", "Stop")], COMPLETED)
    (message,) = _messages(spec, "unknown_state")
    assert "did you mean `Any state except COMPLETED`?" in message
    assert "did you mean COMPLETED?" not in message


@pytest.mark.parametrize(
    "written",
    [
        "non-completed",
        "not COMPLETED",
        "anything except COMPLETED",
        "all but completed",
        # Capitalised, in parentheses: each was told only the forms that read (`All
        # except COMPLETED` and `* except COMPLETED` are read as that form).
        "Every state but COMPLETED",
        "Any state (except COMPLETED)",
        # The signs of code: `!COMPLETED` was offered COMPLETED, the state it excludes.
        "!COMPLETED",
        "~COMPLETED",
        "!= COMPLETED",
        "-COMPLETED",
    ],
)
def test_every_negated_form_is_offered_the_except_form(written: str) -> None:
    spec = _spec([row("T1", written, "Go"), row("T2", "*", "Stop")], COMPLETED)
    (message,) = _messages(spec, "unknown_state")
    assert "`Any state except COMPLETED`" in message


@pytest.mark.parametrize(("written", "known"), [("NOT_STARTD", "STARTED"), ("unpaid", "PAID")])
def test_a_negated_name_is_never_offered_its_positive(written: str, known: str) -> None:
    spec = _spec([row("T1", written, "Go"), row("T2", "*", "Stop")], [known, "OTHER"])
    (message,) = _messages(spec, "unknown_state")
    assert f"did you mean {known}" not in message


def test_a_typo_of_a_negated_name_is_still_offered_the_name() -> None:
    spec = _spec([row("T1", "NOT_STRTED", "Go"), row("T2", "*", "Stop")], ["NOT_STARTED", "X"])
    (message,) = _messages(spec, "unknown_state")
    assert "did you mean NOT_STARTED?" in message


def test_a_selector_that_does_not_read_names_the_forms_that_do() -> None:
    spec = _spec([row("T1", "any open", "Go"), row("T2", "*", "Stop")])
    (message,) = _messages(spec, "unknown_state")
    assert "`Any state`" in message and "`Any state except NAME`" in message
    assert "`A, B`" in message and "did you mean" not in message


@pytest.mark.parametrize(
    ("written", "offered"),
    [("stays", "`Same state`"), ("same as before", "`Same state`"), ("rejected", "`[BLOCKED]`")],
)
def test_a_next_state_that_does_not_read_is_offered_the_form_it_means(
    written: str, offered: str
) -> None:
    spec = _spec([row("T1", "Any state", "Go", nxt=written, action="-"), row("T2", "*", "Stop")])
    (message,) = _messages(spec, "unknown_state")
    assert f"did you mean {offered}?" in message


@pytest.mark.parametrize("written", ["DRAFT and OPEN", "DRAFT or OPEN", "DRAFT & OPEN"])
def test_states_joined_by_words_are_offered_the_list(written: str) -> None:
    spec = _spec([row("T1", written, "Go"), row("T2", "*", "Stop")])
    (message,) = _messages(spec, "unknown_state")
    assert "did you mean `DRAFT, OPEN`?" in message
