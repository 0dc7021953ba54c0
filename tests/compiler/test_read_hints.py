"""What a cell that does not read is told, where the cause is in how it was written: a
`*` wildcard among states, a parenthesis or a slash in a Trigger cell, an HTML comment in
a Condition cell; and cells that read as their author means: `n/a` for no condition, a
comma joining as AND beside OR, a family's suffixes written in another order."""

from __future__ import annotations

import pytest

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.reading import read_spec
from codegen.model import Spec
from tests.support.specs import row, spec_text

STATES = ["OPEN_A", "OPEN_B", "SHUT"]
SPELLS = ["Go", "Stop"]


def _spec(rows: list[str], states: list[str] = STATES) -> Spec:
    return parse_spec_text(spec_text(states, SPELLS, rows), "spec/HINTS.md")


def _messages(spec: Spec, kind: str) -> list[str]:
    return [f.message for f in analyse(spec) if f.kind == kind]


def _kinds(spec: Spec) -> set[str]:
    return {f.kind for f in analyse(spec)}


# -- a `*` among states --


@pytest.mark.parametrize(
    "written",
    ["OPEN_*", "Any state except OPEN_*", "OPEN_*, SHUT_*", "Any state except OPEN_*, SHUT_*"],
)
def test_a_wildcard_among_states_is_said_not_to_read_never_a_name_it_invents(
    written: str,
) -> None:
    spec = _spec([row("T1", written, "Go"), row("T2", "*", "Stop")])
    messages = _messages(spec, "unknown_state")
    assert messages, written
    assert "'OPEN_*'" in messages[0] and "not read as a wildcard" in messages[0]
    assert "would match are written `OPEN_[A/B]`" in messages[0]
    assert "NAME_[G/A]" in messages[0] and "`Any state except NAME`" in messages[0]
    assert not any("OPEN__" in m or "'OPEN_'" in m for m in messages)
    assert not any("did you mean OPEN_" in m for m in messages)
    assert "name_recovered" not in _kinds(spec)


def test_a_wildcard_matching_part_of_a_family_lists_the_states() -> None:
    spec = _spec(
        [row("T1", "Any state except OPEN_A*", "Go"), row("T2", "*", "Stop")],
        ["OPEN_A", "OPEN_AB", "OPEN_B"],
    )
    (message,) = _messages(spec, "unknown_state")
    assert "would match are written `OPEN_A, OPEN_AB`" in message


def test_a_wildcard_in_a_next_state_is_said_not_to_read() -> None:
    spec = _spec([row("T1", "SHUT", "Go", nxt="OPEN_*"), row("T2", "*", "Stop")])
    (message,) = _messages(spec, "unknown_state")
    assert "'OPEN_*' in Next State: a `*` is not read as a wildcard" in message
    assert "did you mean" not in message


def test_a_formatter_s_stars_in_a_name_are_still_read_back() -> None:
    states = ["GATE_OPEN_A", "GATE_OPEN_B", "SHUT"]
    spec = _spec([row("T1", "GATE*OPEN*[A/B]", "Go", nxt="SHUT"), row("T2", "*", "Stop")], states)
    assert "unknown_state" not in _kinds(spec)
    assert _messages(spec, "name_recovered")


@pytest.mark.parametrize(
    ("guard", "kind"),
    [
        ("- **Go Guard**: Only allowed in OPEN_*", "guard_unread"),
        ("- **Go Guard**: Only allowed in OPEN_*, SHUT_*", "guard_unread"),
        ("- **Go Guard**: Blocked in SHUT (except OPEN_*)", "guard_unread"),
    ],
)
def test_a_wildcard_in_a_guard_is_said_not_to_read(guard: str, kind: str) -> None:
    text = spec_text(STATES, SPELLS, [row("T1", "*", "Go"), row("T2", "*", "Stop")])
    text = text.replace(
        "### Transition Rules", f"### State Guards\n\n{guard}\n\n### Transition Rules"
    )
    (message,) = _messages(parse_spec_text(text, "spec/HINTS.md"), kind)
    assert "'OPEN_*' is a wildcard, which is not read" in message
    assert "`OPEN states`" in message
    assert "'OPEN_'" not in message and "OPEN__" not in message


def test_a_wildcard_in_a_usage_is_said_not_to_read() -> None:
    text = spec_text(STATES, SPELLS, [row("T1", "*", "Go"), row("T2", "*", "Stop")])
    text = text.replace(
        "   - *Description*: does Go",
        "   - *Description*: does Go\n   - *Usage*: Only allowed in OPEN_* states",
    )
    (message,) = _messages(parse_spec_text(text, "spec/HINTS.md"), "usage_unread")
    assert "'OPEN_*' is a wildcard, which is not read" in message


# -- a Trigger cell --


def test_a_parenthesis_after_a_spell_in_a_trigger_cell_is_named_as_the_cause() -> None:
    spec = _spec([row("T1", "*", "Go (confirm)"), row("T2", "*", "Go"), row("T3", "*", "Stop")])
    (message,) = _messages(spec, "unknown_spell")
    assert "'Go (confirm)'" in message
    assert "the parenthesis is read as part of the name" in message
    assert "write `Go`" in message and "`(confirm)`" in message and "Condition cell" in message


@pytest.mark.parametrize(
    "written", ["Go / Stop", "Go/Stop", "Go and Stop", "Go & Stop", "Go or Stop"]
)
def test_spells_joined_by_a_slash_or_a_word_are_told_to_take_a_comma(written: str) -> None:
    spec = _spec([row("T1", "*", written), row("T2", "*", "Go, Stop")])
    (message,) = _messages(spec, "unknown_spell")
    assert "written with a comma between them, `Go, Stop` (or on a row each)" in message
    assert "did you mean Go?" not in message


def test_a_comma_between_spells_reads_as_two() -> None:
    spec = _spec([row("T1", "*", "Go, Stop")])
    assert not _messages(spec, "unknown_spell")
    assert not _messages(spec, "missing_cell")


def test_a_spell_s_typo_in_a_trigger_cell_is_still_offered_the_spell() -> None:
    spec = _spec([row("T1", "*", "Stopp"), row("T2", "*", "Go"), row("T3", "*", "Stop")])
    (message,) = _messages(spec, "unknown_spell")
    assert "did you mean Stop?" in message


# -- a Condition cell --


def test_an_html_comment_in_a_condition_cell_is_named_as_the_cause() -> None:
    condition = "x.md exists <!-- TODO: also y.md -->"
    spec = _spec([row("T1", "*", "Go", condition), row("T2", "*", "Go"), row("T3", "*", "Stop")])
    (message,) = _messages(spec, "unknown_condition")
    assert "cannot be read: it holds an HTML comment" in message
    assert "GitHub hides" in message and "move the comment out of the table" in message
    assert "Terms table" not in message


@pytest.mark.parametrize(
    ("cells", "kind"),
    [
        (("SHUT <!-- x -->", "Go", "OPEN_A"), "unknown_state"),
        (("SHUT", "Go <!-- x -->", "OPEN_A"), "unknown_spell"),
        (("SHUT", "Go", "OPEN_A <!-- x -->"), "unknown_state"),
    ],
)
def test_an_html_comment_in_a_name_cell_is_named_as_the_cause(
    cells: tuple[str, str, str], kind: str
) -> None:
    current, trigger, nxt = cells
    spec = _spec(
        [row("T1", current, trigger, "-", nxt), row("T2", "*", "Go"), row("T3", "*", "Stop")]
    )
    (message,) = _messages(spec, kind)
    assert "<!-- x -->" in message and "it holds an HTML comment" in message
    assert "did you mean" not in message


@pytest.mark.parametrize("written", ["n/a", "N/A", "(n/a)", "—", "None", "-"])
def test_n_a_in_a_condition_cell_reads_as_always_as_a_dash_does(written: str) -> None:
    spec = _spec([row("T1", "*", "Go", written), row("T2", "*", "Stop")])
    assert "unknown_condition" not in _kinds(spec)
    (t1,) = [r for r in read_spec(spec).rows if r.id == "T1"]
    assert t1.when == "always"


@pytest.mark.parametrize(
    ("condition", "read"),
    [
        ("a.md exists, b.md exists OR c.md exists", "(a.md exists, b.md exists) OR c.md exists"),
        ("a.md exists; b.md exists OR c.md exists", "(a.md exists; b.md exists) OR c.md exists"),
        ("c.md exists OR a.md exists, b.md exists", "c.md exists OR (a.md exists, b.md exists)"),
    ],
)
def test_a_comma_joining_as_and_beside_or_is_said_as_and_is(condition: str, read: str) -> None:
    spec = _spec([row("T1", "*", "Go", condition), row("T2", "*", "Go"), row("T3", "*", "Stop")])
    (message,) = _messages(spec, "mixed_and_or")
    assert f"it is read as {read!r}" in message
    assert "(read as AND)" in message


def test_or_alone_is_no_mixed_join() -> None:
    rows = [row("T1", "*", "Go", "a.md exists OR b.md exists"), row("T2", "*", "Go")]
    spec = _spec([*rows, row("T3", "*", "Stop")])
    assert not _messages(spec, "mixed_and_or")


# -- a family's suffixes in another order --

FAMILIES = ["ASK_G", "ASK_A", "ERR_G", "ERR_A"]


def test_a_next_state_family_in_another_order_is_paired_by_suffix_and_said() -> None:
    rows = [
        row("T1", "ASK_[G/A]", "Go", "-", "ERR_[A/G]", "Update state to ERR_[A/G]"),
        row("T2", "*", "Stop"),
        row("T3", "ERR_[G/A]", "Go"),
    ]
    spec = _spec(rows, FAMILIES)
    (message,) = _messages(spec, "family_order")
    assert "ERR_[A/G]" in message and "ASK_[G/A]" in message
    assert "ASK_G to ERR_G, ASK_A to ERR_A" in message
    pairs = {(r.source, r.dest) for r in spec.rules if r.id == "T1"}
    assert pairs == {("ASK_G", "ERR_G"), ("ASK_A", "ERR_A")}
    found = [f for f in analyse(spec) if f.kind == "family_order"]
    assert found[0].severity.value == "warning" and found[0].line is not None


def test_a_next_state_family_in_the_same_order_says_nothing() -> None:
    rows = [
        row("T1", "ASK_[G/A]", "Go", "-", "ERR_[G/A]", "Update state to ERR_[G/A]"),
        row("T2", "*", "Stop"),
        row("T3", "ERR_[G/A]", "Go"),
    ]
    assert not _messages(_spec(rows, FAMILIES), "family_order")
