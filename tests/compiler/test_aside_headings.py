"""Tables the spec keeps beside its machine: under a heading (or a `<details>` summary)
that says its rules are not live yet, and headings that limit the moves under them."""

from __future__ import annotations

import pytest

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.model import Spec

_LIVE = (
    "# Order\n\nTransitions not listed are rejected.\n\n## Transitions\n\n"
    "| From | Event | To |\n|---|---|---|\n"
    "| draft | submit | review |\n| review | approve | shipped |\n"
    "| review | reject | draft |\n| shipped | - | (none) |\n"
)
_LATER = (
    "| From | Event | To |\n|---|---|---|\n"
    "| review | escalate | escalated |\n| escalated | approve | shipped |\n"
)


def _events(spec: Spec) -> set[str]:
    return {t for r in spec.rows for t in r.triggers}


@pytest.mark.parametrize(
    "heading",
    [
        "Planned (not yet implemented)",
        "Not implemented yet",
        "Proposed changes",
        "Future",
        "Disabled",
        "Feature-flagged (off)",
        "Under discussion",
        "Ideas / backlog",
        "v3 draft",
    ],
)
def test_a_table_under_a_heading_of_rules_not_live_yet_is_skipped_with_a_note(
    heading: str,
) -> None:
    text = f"{_LIVE}\n### {heading}\n\n{_LATER}"
    spec = parse_spec_text(text)
    assert "escalate" not in _events(spec)
    assert "escalated" not in {s.name for s in spec.states}
    (note,) = [f for f in analyse(spec) if f.kind == "table_skipped"]
    line = text.split("\n").index(f"### {heading}") + 1
    assert f"under the heading {heading!r} (line {line})" in note.message


@pytest.mark.parametrize("heading", ["Draft", "Review", "Backlog", "Disabled accounts"])
def test_a_heading_that_names_a_state_or_a_subject_keeps_its_table_read(heading: str) -> None:
    spec = parse_spec_text(f"{_LIVE}\n### {heading}\n\n{_LATER}")
    assert "escalate" in _events(spec)
    assert not [f for f in analyse(spec) if f.kind == "table_skipped"]


def test_a_state_s_own_section_is_read_though_its_name_says_disabled() -> None:
    text = (
        "# Account\n\n## Transitions\n\n| From | Event | To |\n|---|---|---|\n"
        "| active | disable | disabled |\n\n### Disabled\n\n"
        "| From | Event | To |\n|---|---|---|\n| disabled | enable | active |\n"
    )
    assert "enable" in _events(parse_spec_text(text))


@pytest.mark.parametrize(
    ("summary", "read"),
    [
        ("Old transitions (v1)", False),
        ("Example: adding an escalation path", False),
        ("Full table", True),
    ],
)
def test_a_table_in_details_is_skipped_where_its_summary_says_it_is_no_rule(
    summary: str, read: bool
) -> None:
    text = f"{_LIVE}\n<details>\n<summary>{summary}</summary>\n\n{_LATER}\n</details>\n"
    spec = parse_spec_text(text)
    assert ("escalate" in _events(spec)) is read
    skipped = [f for f in analyse(spec) if f.kind == "table_skipped"]
    assert len(skipped) == (0 if read else 1)


def test_a_details_summary_ends_at_its_closing_tag() -> None:
    text = (
        f"{_LIVE}\n<details>\n<summary>Old transitions (v1)</summary>\n\n"
        "| From | Event | To |\n|---|---|---|\n| review | escalate | escalated |\n\n"
        f"</details>\n\n{_LATER}"
    )
    assert "escalate" in _events(parse_spec_text(text))


@pytest.mark.parametrize(
    "heading",
    [
        "Admin only",
        "Manual overrides (ops only)",
        # limits that were read as none, the moves under them firing always with no word
        "Weekend only",
        "Requires 2FA",
        "When the feature flag is on",
        "If payment succeeded",
        "Transitions for admins",
    ],
)
def test_a_heading_that_limits_its_moves_is_a_warning_at_its_line(heading: str) -> None:
    text = f"{_LIVE}\n### {heading}\n\n{_LATER}"
    spec = parse_spec_text(text)
    assert "escalate" in _events(spec)
    (warning,) = [f for f in analyse(spec) if f.kind == "heading_limit"]
    assert warning.line == text.split("\n").index(f"### {heading}") + 1
    assert warning.severity.value == "warning"
    assert "firing always" in warning.message and "[guard]" in warning.message


@pytest.mark.parametrize("heading", ["Happy path", "Error handling", "Requirements", "Refunds"])
def test_a_heading_that_names_its_moves_is_no_limit(heading: str) -> None:
    spec = parse_spec_text(f"{_LIVE}\n### {heading}\n\n{_LATER}")
    assert not [f for f in analyse(spec) if f.kind == "heading_limit"]


_ROWS = "| From | Event | To |\n|---|---|---|\n| draft | submit | review |\n"


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "text",
    [
        # A heading `Rules (` and a long run of spaces: the `(… only)` limit.
        "# M\n\nRules (" + " " * 200_000 + "x\n------\n\n" + _ROWS,
        # `v1.` over and over, as a heading and as a paragraph in bold: `v1 draft`.
        "# M\n\n## " + "v1." * 66_000 + "\n\n" + _ROWS,
        "# M\n\nText.\n\n**" + "v1." * 66_000 + "**\n\n" + _ROWS,
        # `<summary>` never closed, or never ended by `>`.
        "# M\n\n<details>" + "<summary>" * 44_000 + "\n\n" + _ROWS,
        "# M\n\n<details>" + "<summary " * 150_000 + "\n\n" + _ROWS,
    ],
    ids=["limit-spaces", "v-draft-heading", "v-draft-bold", "summary-unclosed", "summary-open"],
)
def test_a_long_heading_or_summary_is_read_in_one_pass(text: str) -> None:
    spec = parse_spec_text(text)
    assert "submit" in _events(spec)


@pytest.mark.timeout(30)
def test_many_unclosed_details_put_one_summary_over_what_follows() -> None:
    folds = "<details><summary>Example</summary>\n\nSome text.\n\n" * 20_000
    spec = parse_spec_text(f"{_LIVE}\n{folds}{_LATER}")
    assert "escalate" not in _events(spec)
    (note,) = [f for f in analyse(spec) if f.kind == "table_skipped"]
    assert "in the `<details>` whose summary is 'Example'" in note.message


@pytest.mark.parametrize(
    ("first", "second", "read"),
    [("Old transitions (v1)", "Current transitions", True), ("Transitions", "Example", False)],
)
def test_a_details_closed_and_the_next_opened_in_one_block_are_taken_in_order(
    first: str, second: str, read: bool
) -> None:
    text = (
        f"{_LIVE}\n<details>\n<summary>{first}</summary>\n\nSome text.\n\n"
        f"</details>\n<details>\n<summary>{second}</summary>\n\n{_LATER}\n</details>\n"
    )
    spec = parse_spec_text(text)
    assert ("escalate" in _events(spec)) is read


def test_a_table_in_details_is_said_to_be_in_the_details_and_moved_out_of_it() -> None:
    text = f"{_LIVE}\n<details>\n<summary>Old transitions (v1)</summary>\n\n{_LATER}\n</details>\n"
    (note,) = [f for f in analyse(parse_spec_text(text)) if f.kind == "table_skipped"]
    line = text.split("\n").index("<details>") + 1
    assert (
        f"it is in the `<details>` whose summary is 'Old transitions (v1)' (line {line})"
        in note.message
    )
    assert note.message.endswith("move it out of the `<details>`")
    assert "heading" not in note.message


@pytest.mark.parametrize(
    ("heading", "rows"),
    [
        ("Draft transitions", "| draft | park | parked |\n"),
        ("Draft rules", "| draft | park | parked |\n"),
        ("Todo", "| todo | start | review |\n| * | cancel | cancelled |\n"),
        ("Draft", "| draft | park | parked |\n| * | cancel | cancelled |\n"),
    ],
)
def test_a_heading_naming_a_state_its_rows_leave_is_that_state_s_section(
    heading: str, rows: str
) -> None:
    table = "| From | Event | To |\n|---|---|---|\n" + rows
    spec = parse_spec_text(f"{_LIVE}\n### {heading}\n\n{table}")
    assert {t for r in spec.rows for t in r.triggers} >= {
        r.split(" | ")[1] for r in rows.split("\n") if r
    }
    assert not [f for f in analyse(spec) if f.kind == "table_skipped"]


def test_draft_transitions_over_rows_of_no_state_draft_stay_aside() -> None:
    spec = parse_spec_text(f"{_LIVE}\n### Draft transitions\n\n{_LATER}")
    assert "escalate" not in _events(spec)


@pytest.mark.parametrize(
    ("paragraph", "read"),
    [
        ("Previously, an order went straight to shipped; now it must be paid first:", True),
        ("In v2, the transitions are:", True),
        ("Previously:", False),
        ("In v1:", False),
        ("Old:", False),
    ],
)
def test_only_a_bare_introduction_of_old_rules_sets_the_table_after_it_aside(
    paragraph: str, read: bool
) -> None:
    spec = parse_spec_text(f"{_LIVE}\n### More\n\n{paragraph}\n\n{_LATER}")
    assert ("escalate" in _events(spec)) is read
