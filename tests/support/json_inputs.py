"""JSON as the runtime might be given it, for property tests of what reads it.

Values with and without lone surrogates (halves of a character), integers too long
for Python to read, nesting too deep for the parser, a byte order mark, CRLF,
truncation, binary: as text, or as the bytes a file holding it would.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

SURROGATES = ["\ud83d", "\ude00", "\ud800", "\udfff"]  # halves of a character
ESCAPED_SURROGATES = ['"\\ud83d"', '"\\ude00"', '"\\uDBFF"', '"\\ude00\\ud83d"', '{"\\ud800": 1}']
BOM = "\ufeff"
# An integer longer than Python reads from text (4,300 digits).
HUGE = "1" * 4400
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)


def _trees(leaves: st.SearchStrategy[Any], keys: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=20,
    )


# JSON values with no lone surrogate in them: they round-trip.
json_values = _trees(scalars, st.text(max_size=8))
# Text that may hold halves of a character, alone or in pairs.
wild_text = st.text(st.characters() | st.sampled_from(SURROGATES), max_size=20)
wild_values = _trees(scalars | wild_text, wild_text)


def huge_integers(low: int = 4_301, high: int = 6_000) -> st.SearchStrategy[str]:
    """An integer literal longer than Python reads (4,300 digits)."""
    return st.builds(
        lambda n, sign: sign + "1" * n, st.integers(low, high), st.sampled_from(["", "-"])
    )


def deep_nesting() -> st.SearchStrategy[str]:
    return st.builds(
        lambda n, shape: {
            "open": "[" * n,
            "closed": "[" * n + "]" * n,
            "objects": '{"a":' * n + "1" + "}" * n,
            "mixed": '[{"a":' * n,
        }[shape],
        st.integers(1, 200_000),
        st.sampled_from(["open", "closed", "objects", "mixed"]),
    )


hostile_fragments = st.one_of(
    st.sampled_from(ESCAPED_SURROGATES),
    st.sampled_from(SURROGATES),
    huge_integers(),
    deep_nesting(),
    st.sampled_from(["\r\n", BOM, "\x00", "NaN", "Infinity", "-", "1e999999", '"\\', "\\u12"]),
    st.text(max_size=10),
)


def serialized(value: Any, ensure_ascii: bool, indent: int | None, crlf: bool, bom: bool) -> str:
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    if crlf:
        text = text.replace("\n", "\r\n")  # json.dumps writes a newline only between tokens
    return BOM + text if bom else text


def as_input(text: str, as_bytes: bool) -> bytes | str:
    """The text as a str, or as the bytes a file holding it would (a lone surrogate
    becomes the three bytes no UTF-8 decoder accepts)."""
    return text.encode("utf-8", "surrogatepass") if as_bytes else text


@st.composite
def documents(draw: st.DrawFn) -> bytes | str:
    """A file or an event, as the runtime might be given it."""
    kind = draw(st.sampled_from(["value", "fragment", "binary"]))
    if kind == "binary":
        return draw(st.binary(max_size=200))
    if kind == "fragment":
        text = draw(hostile_fragments)
    else:
        text = serialized(
            draw(wild_values),
            draw(st.booleans()),
            draw(st.none() | st.just(1)),
            draw(st.booleans()),
            draw(st.booleans()),
        )
    for _ in range(draw(st.integers(0, 2))):  # splice hostile pieces in
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(hostile_fragments) + text[at:]
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]  # cut short
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text = BOM + text
    return as_input(text, draw(st.booleans()))


def to_bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
