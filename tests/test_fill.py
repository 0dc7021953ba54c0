"""The runtime's placeholder filling, against the definition it implements."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from spellbook.responses import fill

# The definition: `{{name}}` or `{{name:arg}}`, replaced when its key is known.
PATTERN = r"\{\{(\w+)(?::([^{}]*))?\}\}"
KEYS = ["next_steps", "does:Accio", "content:plan.md", "x"]


def by_pattern(text: str, values: dict[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        key = m.group(1) + (":" + m.group(2) if m.group(2) is not None else "")
        return values.get(key, m.group(0))

    return re.sub(PATTERN, value, text)


pieces = st.sampled_from(["{{", "}}", "{", "}", ":", "a", " ", "\n", *KEYS])


@given(
    st.lists(pieces, max_size=30).map("".join),
    st.dictionaries(st.sampled_from(KEYS), st.text(max_size=5)),
)
def test_fill_replaces_exactly_the_known_placeholders(text: str, values: dict[str, str]) -> None:
    assert fill(text, values) == by_pattern(text, values)


def test_fill_leaves_unknown_placeholders_and_does_not_refill_values() -> None:
    values = {"x": "{{next_steps}}", "next_steps": "NEXT"}
    assert fill("a {{x}} b {{y}} {{next_steps}}", values) == "a {{next_steps}} b {{y}} NEXT"


def test_a_brace_before_a_placeholder_stays_a_brace() -> None:
    assert fill("{{{next_steps}}", {"next_steps": ""}) == "{"
    assert fill("a {{{{x}} b", {"x": "X"}) == "a {{X b"
