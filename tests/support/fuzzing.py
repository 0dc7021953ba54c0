"""Fuzzing the readers of hand-written input: how many examples, and text made of the
fragments that mean something to the readers.

Whatever the bytes, each reader either returns its result or raises its own error
(SpecError, ActionError), never anything else: the spec's (tests/compiler/
test_pipeline.py), a condition's (tests/compiler/test_conditions.py) and task
frontmatter's (tests/runtime/test_actions.py). The default run makes 10,000 examples
in all (CI); `SPELLBOOK_FUZZ=20` multiplies every count by 20:

    SPELLBOOK_FUZZ=20 python -m pytest tests -k "parser_returns or reader_returns"
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SCALE = int(os.environ.get("SPELLBOOK_FUZZ", "1"))


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# Fragments that mean something to the readers, mixed with anything at all.
MARKS = st.sampled_from(
    [
        "|", "||", "---", "\n", "**", "*", "`", "#", "## ", "1. ", "- ", "[G/A]", "_[G/A]",
        "AND", "OR", "NOT", "exists", "missing", "≥", "≤", "<", ">", "0", "3", "AC", "plan.md",
        "Any state", "(except ", ")", "[BLOCKED]", "Same state", ":", "&", "{", "}", "\\", "\t",
        "\x00", "\ufeff", "\r", "...", "*Description*:", "| ID | Current State |",
    ]
)  # fmt: skip
TEXT = st.lists(MARKS | st.text(max_size=8), max_size=40).map("".join)
