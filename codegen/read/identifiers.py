"""Identifiers for names written as prose: a state, a trigger or a guard a table names
in words (`paused-manual`, `Story newly created`, "payment accepted") gets one name
for code, derived the same way wherever it is needed.

A name that is an identifier already is kept as written (`PLAN_APPROVED`,
`code_review_failed`). Otherwise its words (runs of ASCII letters and digits, accents
taken off) are joined with `_`: in capitals where every word is written in capitals
(`PAYMENT HELD` is `PAYMENT_HELD`), in lower case otherwise (`Facilitator pauses` is
`facilitator_pauses`). A name that would start with a digit gets a leading `_`, one
that is a Python keyword a trailing one. Text with no ASCII letter or digit has none
(""): identifiers are ASCII (the generated module's names, the state file, `spell`'s
arguments), so a name in another script (`Черновик`, `下書き`) is refused, and
`ascii_name` says what to write instead.
"""

from __future__ import annotations

import keyword
import re
import unicodedata

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
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = _WORD.findall(plain)
    if not words:
        return ""
    shouting = all(w.upper() == w for w in words)
    name = "_".join(w if shouting else w.lower() for w in words)
    if name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


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
    which is ASCII or has an ASCII base (`Этап` in `Этап 2`; `Straße` keeps `Stra`)."""
    words: list[str] = re.findall(r"[^\W_]+", written)
    return next((w for w in words if not _WORD.search(unicodedata.normalize("NFKD", w))), "")


def ascii_name(written: str) -> str:
    """An ASCII name to write for `written`, a name with words in no ASCII letter:
    its Cyrillic and Greek letters spelled in Latin ones (`Na proverke`),
    or "" where it has others (`下書き`)."""
    text = unicodedata.normalize("NFC", " ".join(written.split()))
    out = []
    for c in text:
        latin = _LATIN.get(c.lower(), _LATIN.get(unicodedata.normalize("NFD", c.lower())[0]))
        if latin is None and c.isalnum() and not c.isascii():
            return ""
        if latin is None:
            out.append(c)
        else:
            out.append(latin.capitalize() if c.isupper() else latin)
    return "".join(out)
