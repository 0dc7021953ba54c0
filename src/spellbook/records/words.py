"""What a machine calls its spells (`SPELL_WORD`), said right: its plural, its article,
and the verb the responses use for running one.

A spec heads its list of spells `Spells`, `Triggers`, `Commands`, `Events` or
`Actions` (`codegen.read.document.SPELL_SECTIONS`); the responses then call them by
that word, and run them with its verb (`VERBS`): a spell is cast, an event sent (as
SCXML's `<send>` and XState's `send` do), a command run. A trigger is cast too: the
coding session's spec, the one shipped machine that calls them triggers, says "cast
Advance" in its own words. A word not in the table is used (`use`, `used`).

A spec with no such list says its word in the header of its transition table's trigger
column (`| From | Event | To |`: event), when that header is a word of the table
(`known_word`); any other header (`On`, `Action`) leaves them spells. The verifier's
reports, the generated module and the responses all say the word through the functions
here, its one home: its plural, its article, its verb.
"""

from __future__ import annotations

# word -> the verb, as "Cast **Accio**", "`spell cast x` casts ...", "You cast **Accio**".
VERBS = {
    "spell": ("cast", "casts", "cast"),
    "trigger": ("cast", "casts", "cast"),
    "event": ("send", "sends", "sent"),
    "command": ("run", "runs", "ran"),
}
NEUTRAL = ("use", "uses", "used")


def plural(word: str, count: int = 2) -> str:
    """`word` for `count` of them: "spell", "spells"; "family", "families"."""
    if count == 1:
        return word
    if word[-1:] == "y" and word[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return word[:-1] + "ies"
    return word + "s"


def singular(word: str) -> str:
    """One of the `word` a list heading names: "spells" -> "spell", "families" -> "family"."""
    if word[-3:] == "ies" and len(word) > 3:
        return word[:-3] + "y"
    return word.removesuffix("s")


def known_word(header: str) -> str | None:
    """The word of `VERBS` a column header names, in the singular or the plural, any
    case ("Events" -> "event", "Trigger" -> "trigger"); None for a header that names none
    ("On", "Action", "Event / command")."""
    said = " ".join(header.split()).lower()
    return next((word for word in VERBS if said in (word, plural(word))), None)


def counted(count: int, word: str) -> str:
    """`count` and `word` in agreement: "1 spell", "3 spells"."""
    return f"{count} {plural(word, count)}"


def a(word: str) -> str:
    """`word` after its indefinite article: "a spell", "an event"."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def verb(word: str) -> str:
    """The verb for running one of `word`: "cast" (a spell), "send" (an event)."""
    return VERBS.get(word.lower(), NEUTRAL)[0]


def does(word: str) -> str:
    """It said of one: "casts", "sends"."""
    return VERBS.get(word.lower(), NEUTRAL)[1]


def did(word: str) -> str:
    """Its past: "cast", "sent"."""
    return VERBS.get(word.lower(), NEUTRAL)[2]
