"""Identifiers for names written as prose: a state, a trigger or a guard a table names
in words (`paused-manual`, `Story newly created`, "payment accepted") gets one name
for code, derived the same way wherever it is needed.

A name that is an identifier already is kept as written (`PLAN_APPROVED`,
`code_review_failed`). Otherwise its words (runs of ASCII letters and digits, accents
taken off) are joined with `_`: in capitals where every word is written in capitals
(`PAYMENT HELD` is `PAYMENT_HELD`), in lower case otherwise (`Facilitator pauses` is
`facilitator_pauses`). A name that would start with a digit gets a leading `_`, one
that is a Python keyword a trailing one. Text with no letter or digit has none ("").
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
