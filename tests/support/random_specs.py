"""Random small machines for property tests, written by hypothesis.

Rows with explicit and wildcard sources (`Any state`, `Any state except ...`), random
conditions over a few files and p.md's acceptance criteria, with OR and with phrases
nothing defines, and every kind of Next State; read with the spell workflow's vocabulary.
"""

from __future__ import annotations

from hypothesis import strategies as st

from codegen.read.lexicon import ReadOptions
from tests.support.specs import row, spec_text

STATES = ["S0", "S1", "S2", "S3"]
SPELLS = ["Go", "Hop"]
PHRASES = [
    "a.md exists",
    "a.md missing",
    "b.md exists",
    "b.md missing",
    "c.md exists",
    "≥1 AC in p.md",
    "No AC in p.md",
    "No unchecked AC in p.md",
    "≥1 unchecked AC in p.md",
    "p.md missing",
    "a.md exists OR b.md missing",
    "c.md missing OR No AC in p.md",
    "the moon is full",
    "the tide is low",
]
READ_OPTIONS = ReadOptions("spell_workflow")


@st.composite
def machines(draw: st.DrawFn) -> str:
    states = STATES[: draw(st.integers(2, 4))]
    spells = SPELLS[: draw(st.integers(1, 2))]
    rows = []
    for i in range(draw(st.integers(1, 9))):
        shape = draw(st.sampled_from(["list", "any", "except"]))
        if shape == "list":
            current = ", ".join(
                draw(st.lists(st.sampled_from(states), min_size=1, max_size=3, unique=True))
            )
        elif shape == "any":
            current = "Any state"
        else:
            current = "Any state except " + draw(st.sampled_from(states))
        phrases = draw(st.lists(st.sampled_from(PHRASES), max_size=2, unique=True))
        target = draw(st.sampled_from([*states, "Same state", "[BLOCKED]"]))
        rows.append(
            row(
                f"R{i}",
                current,
                draw(st.sampled_from(spells)),
                " AND ".join(phrases) or "-",
                target,
            )
        )
    return spec_text(states, spells, rows)
