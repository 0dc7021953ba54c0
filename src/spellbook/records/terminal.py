"""Text made safe to print: what `spell` writes never drives the terminal it lands on.

A response can carry what a workspace file holds (a task's results loaded for the AI),
what a command printed, or a name read off the disk; any of them may hold a
terminal's controls: an escape sequence that writes the clipboard (OSC 52), sets the
window's title or clears the screen, a C1 control that starts one in a single byte, a
carriage return that writes over a line, a right-to-left override that reorders what
is shown. Every path that prints (the text and the JSON of `spell`, its errors,
`check-transition`, a command's output kept in the state file) passes its text
through here, whether or not it is printed to a terminal.
"""

from __future__ import annotations

# What a terminal acts on or that reorders what it shows: C0 controls but tab and line
# feed, DEL and the C1 controls; the bidirectional marks, embeddings, overrides and
# isolates; the line and paragraph separators; and lone surrogates, which are no text.
# A regular expression, compiled (by `re`, once) only for a text that may hold one.
UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
REPLACEMENT = "\ufffd"


def text(said: str) -> str:
    """`said` for a reader: a line ends in a line feed (`\\r\\n` and a lone `\\r` are one),
    tabs stay, and every other character a terminal would act on is U+FFFD."""
    if "\r" in said:
        said = said.replace("\r\n", "\n").replace("\r", "\n")
    if _printable(said):
        return said
    import re

    return re.sub(UNSAFE, REPLACEMENT, said)


def json_text(value: object) -> str:
    """`value` as JSON (two spaces of indent, text as it is), with every character a
    terminal would act on written as a `\\uXXXX` escape: the same JSON value, safe to
    print. (JSON escapes the C0 controls itself; DEL, C1 and the rest it leaves raw.)"""
    import json

    dumped = json.dumps(value, indent=2, ensure_ascii=False)
    if _printable(dumped):
        return dumped
    import re

    return re.sub(UNSAFE, lambda m: f"\\u{ord(m.group()):04x}", dumped)


def _printable(said: str) -> bool:
    """Whether `said` holds nothing but printable characters, line feeds and tabs (the
    usual case, told at C speed); every unsafe character is unprintable to Python."""
    return said.replace("\n", "").replace("\t", "").isprintable()


def to_null(stream: object) -> None:
    """What is left to write to `stream` (stdout, stderr), whose reader has gone or which
    cannot take it, goes to the null device, so that the exit, which flushes it, cannot
    fail on it."""
    import contextlib
    import os

    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())  # type: ignore[attr-defined]
        os.close(devnull)
