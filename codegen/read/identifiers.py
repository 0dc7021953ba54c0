"""Identifiers for names written as prose: a state, a trigger or a guard a table names
in words (`paused-manual`, `Story newly created`, "payment accepted") gets one name
for code, derived the same way wherever it is needed.

A name that is an identifier already is kept as written (`PLAN_APPROVED`,
`code_review_failed`). Otherwise its words (runs of ASCII letters and digits, once
`folded`: accents taken off, and a Latin letter with no ASCII base written as it is
without one, `Straße` as `Strasse`, `Søknad` as `Soknad`) are joined with `_`: in
capitals where every word is written in capitals (`PAYMENT HELD` is `PAYMENT_HELD`), in
lower case otherwise (`Facilitator pauses` is `facilitator_pauses`). A name that would
start with a digit gets a leading `_`, one that is a Python keyword a trailing one. Text
with no letter or digit `folded` keeps has none (""): identifiers are ASCII (the
generated module's names, the state file, `spell`'s arguments), so a name in another
script (`Черновик`, `下書き`) is refused, and `ascii_name` says what to write instead.
"""

from __future__ import annotations

import keyword
import re
import unicodedata
from collections.abc import Iterator

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z0-9]+")


def is_identifier(name: str) -> bool:
    """Whether `name` is usable as written: ASCII letters, digits and `_`, not first a digit."""
    return _IDENTIFIER.fullmatch(name) is not None and not keyword.iskeyword(name)


def identifier(written: str) -> str:
    """The identifier code uses for a name written as `written` (see the module's doc)."""
    text = written.strip()
    if is_identifier(text):
        return text
    words = _WORD.findall(folded(text))
    if not words:
        return ""
    shouting = all(w.upper() == w for w in words)
    name = "_".join(w if shouting else w.lower() for w in words)
    if name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


# Latin letters with no ASCII base (NFKD keeps them whole, so taking the marks off would
# drop them), as they are written without one: `Straße` is `Strasse`, `Æsir` `Aesir`.
_FOLD: dict[str, str] = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d"}
# eth, thorn, a dotless i, h and t with a stroke, eng
_FOLD |= {"ð": "d", "þ": "th", "\u0131": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng"}
# Hyphens and dashes a word processor writes for `-` (a non-breaking hyphen pasted from
# Word or Confluence): a break between words, as `-` is (`in\u2011review` is `in_review`).
_FOLD |= dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d", "-")
_FOLD |= {"ẞ": "SS"} | {
    c.upper(): v.upper()
    for c, v in _FOLD.items()
    if len(c.upper()) == 1 and not c.upper().isascii()
}


def folded(text: str) -> str:
    """`text` in ASCII, as names are read: accents taken off (`é` is `e`, `ǽ` `ae`), the
    letters of `_FOLD` written so, and every other character outside ASCII dropped. The
    one folding of the project: identifiers, the names the generated module allocates and
    the words a hint looks for all read a name so."""
    plain = "".join(_FOLD.get(c, c) for c in unicodedata.normalize("NFKD", text))
    return plain.encode("ascii", "ignore").decode("ascii")


# Cyrillic and Greek letters, one for one, as ISO 9 / ELOT 743 write them without marks:
# enough to offer an author a name to write (`Черновик` -> `Chernovik`), never to read one.
_LATIN: dict[str, str] = {
    **dict(
        zip(
            map(chr, range(0x430, 0x450)),  # Cyrillic a to ya
            re.split(
                " ",
                "a b v g d e zh z i j k l m n o p r s t u f h c ch sh shch  y  e yu ya",
            ),
            strict=True,
        )
    ),
    **dict(
        zip(
            map(chr, range(0x3B1, 0x3CA)),  # Greek alpha to omega
            re.split(" ", "a v g d e z i th i k l m n x o p r s s t y f ch ps o"),
            strict=True,
        )
    ),
    "\u0456": "i",  # Ukrainian i
    "\u0454": "e",  # Ukrainian ye
    "\u0491": "g",  # Ukrainian ghe
}


def unspelled(written: str) -> str:
    """The first word of `written` that its identifier would drop: letters or digits none of
    which `folded` writes in ASCII (`Этап` in `Этап 2`; `Straße` is `Strasse`)."""
    words: list[str] = re.findall(r"[^\W_]+", written)
    return next((w for w in words if not _WORD.search(folded(w))), "")


def ascii_name(written: str) -> str:
    """An ASCII name to write for `written`, a name with words in no ASCII letter:
    its Cyrillic and Greek letters spelled in Latin ones (`Na proverke`), its other
    letters `folded` (`Straße` is `Strasse`), or "" where it has others (`下書き`)."""
    text = unicodedata.normalize("NFC", " ".join(written.split()))
    out = []
    for c in text:
        latin = _LATIN.get(c.lower(), _LATIN.get(unicodedata.normalize("NFD", c.lower())[0]))
        if latin is not None:
            out.append(latin.capitalize() if c.isupper() else latin)
        elif c.isalnum() and not c.isascii():
            if not folded(c):
                return ""
            out.append(folded(c))
        else:
            out.append(c)
    return "".join(out)


# Where a quote that `split_outside` skips over ends, by where it starts.
_OPENING = {"`": "`", '"': '"', "“": "”"}


def split_outside(text: str, separator: re.Pattern[str]) -> Iterator[str]:
    """`text` split at `separator`, except inside backticks, quotes or parentheses."""
    start, depth, closing = 0, 0, ""
    i = 0
    while i < len(text):
        char = text[i]
        if closing:
            if char == closing:
                closing = ""
        elif char in _OPENING:
            closing = _OPENING[char]
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = separator.match(text, i)
            if m and m.end() > i:
                yield text[start:i]
                start = i = m.end()
                continue
        i += 1
    yield text[start:]
