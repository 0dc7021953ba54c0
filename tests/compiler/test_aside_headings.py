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


@pytest.mark.parametrize("heading", ["Admin only", "Manual overrides (ops only)"])
def test_a_heading_that_limits_its_moves_is_a_warning_at_its_line(heading: str) -> None:
    text = f"{_LIVE}\n### {heading}\n\n{_LATER}"
    spec = parse_spec_text(text)
    assert "escalate" in _events(spec)
    (warning,) = [f for f in analyse(spec) if f.kind == "heading_limit"]
    assert warning.line == text.split("\n").index(f"### {heading}") + 1
    assert warning.severity.value == "warning"
    assert "firing always" in warning.message and "[guard]" in warning.message
