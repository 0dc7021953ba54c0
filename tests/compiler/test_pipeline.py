"""Fuzzing the readers of hand-written input: the spec, its conditions, task frontmatter.

Whatever the bytes, each reader either returns its result or raises its own
error (SpecError, ActionError), never anything else. The default run makes
10,000 examples in all (CI); a longer run is

    SPELLBOOK_FUZZ=20 python -m pytest tests/compiler/test_pipeline.py

which multiplies every count by 20.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import SpecError, parse_spec_text
from codegen.model import Term
from codegen.read.conditions import parse_condition
from codegen.read.lexicon import Dialect, Lexicon
from spellbook.actions import frontmatter
from spellbook.errors import ActionError
from tests.specs import fill, spec_text

SCALE = int(os.environ.get("SPELLBOOK_FUZZ", "1"))


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


GOOD = spec_text(["A", "B"], ["Go", "Stop"], fill(["A", "B"], ["Go", "Stop"]))
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


@st.composite
def mutated_spec(draw: st.DrawFn) -> str:
    """The good spec with a few random cuts, insertions and replacements."""
    text = GOOD
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 40))
        text = text[:at] + draw(TEXT) + text[at + cut :]
    return text


def test_the_spec_being_mutated_is_a_good_one() -> None:
    assert len(parse_spec_text(GOOD, "good.md").rules) == 4


@fuzz(2_000)
@given(mutated_spec() | TEXT)
def test_spec_parser_returns_a_spec_or_a_spec_error(text: str) -> None:
    try:
        spec = parse_spec_text(text, "fuzz.md")
    except SpecError as err:
        assert err.line >= 0 and str(err).startswith("fuzz.md")
    else:
        assert spec.states and spec.spells


# The vocabulary's nouns, and terms that name each other, for the condition parser.
LEXICON = Lexicon.of(Dialect("spell_workflow")).with_terms(
    [Term("busy", "comments.md exists OR idle"), Term("idle", "NOT busy AND plan.md missing")]
)
CONDITION_WORDS = st.lists(
    st.sampled_from(
        [
            " AND ", " OR ", "; ", ", ", "NOT ", "(", ")", "`", "plan.md", " exists", " missing",
            "≥1 AC in ", "No ", "Reads ", " content", "Counts ", "acceptance criteria",
            " (finds ≥1)", " (finds none)", "Checks ", "busy", "idle", "attempts < 3",
        ]
    )
    | st.text(max_size=5),
    max_size=25,
).map("".join)  # fmt: skip


@fuzz(5_000)
@given(TEXT | CONDITION_WORDS)
def test_condition_parser_returns_a_condition(text: str) -> None:
    condition = parse_condition(text, LEXICON, ".ai/task")
    for literal in condition.literals:
        assert literal.atom.name
    assert condition.always or condition.clauses or not condition.unknown


@st.composite
def task_files(draw: st.DrawFn) -> str:
    body = draw(
        st.lists(
            st.sampled_from(
                [
                    "task_name: ", "a", "../", "/", "&a [*a, *a]", "*a", "!!python/object:os",
                    "[", "]", "{", "}", "- ", "\n", "  ", "'", '"', "\x00", "\udcff", "---", "...",
                    "7", "~", "null", "key: value",
                ]
            )
            | st.text(max_size=6),
            max_size=30,
        ).map("".join)
    )  # fmt: skip
    close = draw(st.sampled_from(["\n---\n", "\n...\n", ""]))
    return "---\n" + body + close + draw(st.text(max_size=10))


@fuzz(3_000)
@given(task_files())
def test_frontmatter_reader_returns_a_mapping_or_an_action_error(text: str) -> None:
    try:
        data = frontmatter(text, "task.md")
    except ActionError as err:
        assert str(err).startswith("task.md")
    else:
        assert isinstance(data, dict) and all(isinstance(k, str) for k in data)
