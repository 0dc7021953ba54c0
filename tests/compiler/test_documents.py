"""A document's spellbook parts, refreshed (`codegen.render.documents`): everything outside
the parts is kept byte for byte, whatever its mix of line endings, and a part's lines
take the ending of the line that opens it."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codegen.render.documents import refresh

MADE = "```mermaid\nstateDiagram-v2\n\n  A --> B\n```"  # what a part holds, LF only
ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])
TEXT = st.text(st.characters(blacklist_characters="\r\n", codec="utf-8"), max_size=12).filter(
    lambda line: not line.strip().startswith(("<!--", "`", "~"))
)
INDENTS = st.sampled_from(["", "  ", "\t"])


@st.composite
def blocks(draw: st.DrawFn) -> tuple[str, str, int]:
    """A piece of a document as written, as refresh must leave it, and its number of
    lines: plain lines, a fenced code block (markers in it are an example), or a part."""
    kind = draw(st.sampled_from(["text", "fence", "part"]))
    if kind == "text":
        line = draw(TEXT) + draw(ENDINGS)
        return line, line, 1
    if kind == "fence":
        inner = draw(st.sampled_from(["<!-- spellbook: diagram m -->", "<!-- /spellbook -->"]))
        written = "".join(
            text + draw(ENDINGS) for text in ("```markdown", inner, draw(TEXT), "```")
        )
        return written, written, 4
    indent, opened, closed = draw(INDENTS), draw(ENDINGS), draw(ENDINGS)
    opening = f"{indent}<!-- spellbook: diagram m -->{opened}"
    closing = f"{indent}<!-- /spellbook -->{closed}"
    count = draw(st.integers(0, 3))
    old = "".join(draw(TEXT) + draw(ENDINGS) for _ in range(count))
    new = "".join((indent + x if x else x) + opened for x in MADE.split("\n"))
    return opening + old + closing, opening + new + closing, 2 + count


@settings(max_examples=300, deadline=None)
@given(st.lists(blocks(), max_size=8), TEXT)
def test_outside_the_parts_every_byte_is_kept_whatever_the_line_endings(
    pieces: list[tuple[str, str, int]], last: str
) -> None:
    document = "".join(written for written, _, _ in pieces) + last  # the last line unended
    expected = "".join(refreshed for _, refreshed, _ in pieces) + last
    # A line ended by CR before an empty one ended by LF is one CRLF line: not this case.
    assume(len(re.findall(r"\r\n|\r|\n", document)) == sum(n for _, _, n in pieces))
    assert refresh("doc.md", document, lambda kind, machine: MADE) == expected


def test_a_part_opened_by_a_crlf_line_is_written_with_crlf() -> None:
    document = "a\n<!-- spellbook: diagram m -->\r\nold\n<!-- /spellbook -->\nb"
    done = refresh("doc.md", document, lambda kind, machine: MADE)
    part = "".join(f"{x}\r\n" for x in MADE.split("\n"))
    assert done == f"a\n<!-- spellbook: diagram m -->\r\n{part}<!-- /spellbook -->\nb"
