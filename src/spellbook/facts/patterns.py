"""The regular expressions of a spec, run in time that grows with the text, never faster.

A spec's pattern (``F matches `RE` ``, a ledger's matches, ``F.json has `Q` matching
`RE` ``) runs with RE2 (the `google-re2` package): its time is the text's length times
the pattern's size, whatever the text. Python's `re` backtracks: on a line of a
million capitals with no dash, `[A-Z]+-\\d+` tries every start and every length of the
run, hours of work; `(a+)+$` takes exponential time. RE2 has no backreferences and
no lookarounds, so such a pattern is refused when the spec is verified (`problem`,
naming the row), and the runtime never runs one with another engine: a pattern RE2
cannot take stops the cast (`Undefined`). Its compiled program may have at most
PROGRAM_LIMIT instructions, since a match costs at worst the text's length times the
program's size.

A pattern with no choice in it (`_without_choices`: no repeat, no alternative, no
class escape or flag; ASCII literals, sets, groups and anchors, as `contains` and
`[A-Za-z0-9]` are) runs with Python's `re`, already loaded: with nothing to choose
there is nothing to backtrack, so each position costs at most the pattern's length,
and both engines read such a pattern alike. A vocabulary's own patterns are its
Python code's, bounded by their author: the compiler marks each with VOCABULARY (a
comment to Python's `re`, which RE2 refuses, so no spec can write it), and they run
with `re`.

RE2 is imported the first time a pattern with a choice runs (about 2.5 ms), never by
a cast that runs none.
"""

from __future__ import annotations

import re

from spellbook.records.errors import Undefined

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The mark of a vocabulary's pattern (see the module's docstring).
VOCABULARY = "(?#vocabulary)"
# Instructions of a compiled pattern: a match of a 1 MB text (the read limit) costs at
# most about 4 s at this size, on a pattern made to defeat RE2's fast path.
PROGRAM_LIMIT = 1_000

_COMPILED: dict[tuple[str, bool], Any] = {}


def problem(pattern: str) -> str:
    """Why `pattern` cannot be a spec's regular expression, or ""."""
    try:
        _compiled(pattern, True)
    except Undefined as err:
        return str(err)
    return ""


def search(pattern: str, text: str, lines: bool = True) -> bool:
    """Whether `pattern` matches somewhere in `text`; with `lines`, `^` and `$` match at
    each line's start and end (`re.MULTILINE`), a line ending as markdown ends one."""
    if lines:
        text = _lines(text)
    if pattern.startswith(VOCABULARY) or _without_choices(pattern, lines):
        return _python(pattern, lines).search(text) is not None
    return _compiled(pattern, lines).search(_bytes(text)) is not None


def found(pattern: str, text: str) -> list[str]:
    """What every match of `pattern` in `text` found, in order (`^` and `$` at lines),
    none empty: its first group's text if the pattern has a group (as `re.findall`
    has it: `^- \\[x\\] (\\S+)` finds the word after a ticked box), else the whole
    match's."""
    text = _lines(text)
    if pattern.startswith(VOCABULARY) or _without_choices(pattern, True):
        python = _python(pattern, True)
        group = 1 if python.groups else 0
        matches = [m.group(group) for m in python.finditer(text)]
    else:
        program = _compiled(pattern, True)
        group = 1 if program.groups else 0
        matches = [
            (m.group(group) or b"").decode("utf-8", "replace")
            for m in program.finditer(_bytes(text))
        ]
    return [match for match in matches if match]


def _lines(text: str) -> str:
    """`text` with every line ending as markdown reads one (`\\r\\n`, `\\r`) a line feed,
    the only one at which either engine's `^` and `$` match (`spellbook.facts.sections`)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def shown(pattern: str) -> str:
    """A pattern as its author wrote it, without the vocabulary's mark."""
    return pattern.removeprefix(VOCABULARY)


def _without_choices(pattern: str, lines: bool) -> bool:
    """Whether `pattern` has nothing a match could choose between: ASCII only, no
    repeat (`*`, `+`, `?`, `{`), no alternative (`|`), no escape of a letter or digit
    (`\\d`, `\\b`, `\\1`: Python's and RE2's differ, or need backtracking), no `(?`
    (flags, lookarounds), no nested set or set operation; `$` only at a line's end
    (Python's `$` without lines also matches before a final line feed; RE2's does not)."""
    if not pattern.isascii() or any(s in pattern for s in ("[[", "[:", "&&", "--", "~~")):
        return False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1 : i + 2].isalnum() or i + 1 == len(pattern):
                return False
            i += 2
            continue
        if c in "*+?{}|" or (c == "$" and not lines):
            return False
        if c == "(" and pattern[i + 1 : i + 2] == "?":
            return False
        i += 1
    return True


def _python(pattern: str, lines: bool) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.MULTILINE if lines else 0)
    except (re.error, OverflowError, RecursionError, ValueError) as err:
        raise Undefined(f"`{shown(pattern)}` is not a regular expression ({err})") from None


def _bytes(text: str) -> bytes:
    # RE2 reads UTF-8; a lone surrogate (a JSON text may hold one) matches as bytes.
    return text.encode("utf-8", "surrogatepass")


def _compiled(pattern: str, lines: bool) -> Any:
    """The RE2 program of a spec's pattern; Undefined, saying why, if RE2 cannot run it
    or it is larger than PROGRAM_LIMIT."""
    key = (pattern, lines)
    found = _COMPILED.get(key)
    if found is None:
        import re2  # only a spec's pattern pays for it (about 3 ms)

        options = re2.Options()
        options.log_errors = False  # an error is ours to say, not RE2's on stderr
        try:
            found = re2.compile(_bytes(("(?m)" if lines else "") + pattern), options)
        except re2.error as err:
            found = _why(pattern, err.args[0] if err.args else str(err))
        else:
            if found.programsize > PROGRAM_LIMIT:
                found = _why(
                    pattern,
                    f"its program has {found.programsize} instructions, more than "
                    f"{PROGRAM_LIMIT} (a count like {{0,200}} copies what it repeats that "
                    "many times, and a Unicode class like \\pL is large): write a smaller one",
                )
        _COMPILED[key] = found
    if isinstance(found, str):
        raise Undefined(found)
    return found


def _why(pattern: str, error: str | bytes) -> str:
    if isinstance(error, bytes):
        error = error.decode("utf-8", "replace")
    hint = ""
    if re.search(r"\\[1-9]|\(\?P=|\\k<|\\g<", pattern):
        hint = "; a backreference needs backtracking, which can take exponential time"
    elif "(?=" in pattern or "(?!" in pattern or "(?<=" in pattern or "(?<!" in pattern:
        hint = "; a lookahead or lookbehind needs backtracking, which can take exponential time"
    elif "\\Z" in pattern:
        hint = "; RE2 has no `\\Z`: `$` is the end of a line (of the text, in a value)"
    return (
        f"`{shown(pattern)}` cannot run in linear time (RE2: {error}){hint}; Spellbook runs "
        "a spec's patterns only so, since a backtracking match of a long line can take hours"
    )
