"""Reading a spec, fuzzed: whatever the text, `parse_spec_text` returns a Spec or raises
SpecError naming the file and line, never anything else (tests/support/fuzzing.py says how to
run it longer)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codegen import SpecError, parse_spec_text
from tests.support.fuzzing import TEXT, fuzz
from tests.support.specs import fill, spec_text

GOOD = spec_text(["A", "B"], ["Go", "Stop"], fill(["A", "B"], ["Go", "Stop"]))


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
