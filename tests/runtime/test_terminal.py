"""Text made safe to print (`spellbook.records.terminal`): no control a terminal acts on gets
through, the text stays readable, and the JSON stays the same value."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from spellbook.records import terminal
from tests.support.fuzzing import fuzz

# What a terminal acts on: C0 but tab and line feed, DEL, C1; and what reorders or
# breaks what it shows.
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
SEQUENCES = st.sampled_from(
    ["\x1b]52;c;cHduZWQ=\x07", "\x1b]0;title\x1b\\", "\x1b[2J", "\x9b31m", "\x9d0;t\x9c",
     "\r", "\r\n", "\n", "\t", "\x7f", "\u202e", "\u2028", "\x0c", "\udc9b", "é", "→", "\u00a0"]
)  # fmt: skip
TEXTS = st.lists(SEQUENCES | st.text(max_size=6), max_size=30).map("".join)


def _surrogate(c: str) -> bool:
    return 0xD800 <= ord(c) <= 0xDFFF


@fuzz(500)
@given(TEXTS)
def test_text_keeps_no_control_and_every_other_character(said: str) -> None:
    safe = terminal.text(said)
    assert not CONTROLS.search(safe) and not any(_surrogate(c) for c in safe)
    lines = said.replace("\r\n", "\n").replace("\r", "\n")  # a line ends in a line feed
    assert len(safe) == len(lines)
    for was, now in zip(lines, safe, strict=True):
        assert now == was or (now == "\ufffd" and (CONTROLS.match(was) or _surrogate(was)))


@fuzz(500)
@given(st.recursive(TEXTS | st.integers() | st.booleans(), lambda inner: st.lists(inner)))
def test_json_text_is_the_same_value_with_every_control_escaped(value: object) -> None:
    dumped = terminal.json_text({"response": value})
    assert json.loads(dumped) == {"response": value}
    assert not CONTROLS.search(dumped.replace("\n", ""))
    dumped.encode("utf-8")  # no lone surrogate left raw


def test_an_escape_sequence_is_shown_not_obeyed() -> None:
    said = "done \x1b]0;pwned\x07\x1b[2J\x9b31m\r\nnext\tline\rover"
    assert terminal.text(said) == "done \ufffd]0;pwned\ufffd\ufffd[2J\ufffd31m\nnext\tline\nover"
    assert (
        terminal.json_text(said)
        == '"done \\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\r\\nnext\\tline\\rover"'
    )


def test_every_unsafe_character_is_unprintable_so_a_printable_text_is_left_as_it_is() -> None:
    unsafe = re.compile(terminal.UNSAFE)
    assert not [c for c in map(chr, range(0x110000)) if unsafe.match(c) and c.isprintable()]
    said = "Plain text → café, tabs\tand lines\n"
    assert terminal.text(said) is said
