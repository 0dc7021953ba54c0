"""Near misses of the core's verbs: an Action phrase that does not read as a verb but is
aimed at one all the same, and the forms of that verb that would read.

A phrase is aimed at a verb when its first word is one of the verb's words, in any
person (`Delete`, `Deletes`), misspelt by one edit (a letter added, dropped or changed,
or two swapped: `Delet`, `Incremnt`; only in words of five letters or more, since a
shorter word one edit away is another word: `get`, `test`), or a synonym (`Remove`,
`Increase`, `Bump`, `Add 1 to`); and when what follows has the shape of what the verb
acts on: a file (a name in backticks or with an extension, or a file group of the
vocabulary) after a file's verb, one word (a counter) after a counter's, `state` after
`Update`. A synonym of a counter's verb needs a counter the spec compares or counts, or
a number (`Increase the timeout` is the AI's to do). Every other phrase is plainly the
AI's (`Ask the developer to review`, `Summarise the diff`, `Set up the CI`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cache
from itertools import pairwise

from spellbook.facts.json_values import is_json

from .lexicon import Lexicon, normal

# A file as an action names one: in backticks, or a name with an extension. Phrases are
# cut into words first, so each word is matched once (in time linear in its length).
_FILE = re.compile(r"`[^`\s]+`|[\w.\-/$<>{}]*\w\.[A-Za-z][\w\-]*")
_LEADING = re.compile(r"^(?:(?:the|a|an|new|empty|existing|all|this|that)\s+)*", re.I)


# One counter, maybe with a number: `attempts`, `the attempts counter`, `attempts = 1`.
@cache
def _counter_phrase() -> re.Pattern[str]:
    return re.compile(
        r"(?:the\s+)?(?P<w>[A-Za-z_]\w*)(?:\s+counter)?"
        r"(?:\s*(?P<op>to|=|:=|by|at)\s*(?P<n>\S+))?",
        re.I,
    )


# `Add 1 to attempts`, `Add one to the attempts counter`.
@cache
def _add() -> re.Pattern[str]:
    return re.compile(
        r"(?P<n>\d+|one|an?)\s+to\s+(?:the\s+)?(?P<w>[A-Za-z_]\w*)(?:\s+counter)?", re.I
    )


_STATE = re.compile(r"(?:the\s+)?(?P<s>\w+)(?:.*?\bto\s+`?(?P<to>[\w\[\]/]+)`?)?", re.I)
# `attempts++`, `attempts += 1`: a counter counted; `attempts = 0`: set.
_PLUS = re.compile(r"(?P<w>[A-Za-z_]\w*)\s*(?:\+\+|\+=\s*\d+)")
_ASSIGN = re.compile(r"(?P<w>[A-Za-z_]\w*)\s*:?=\s*(?P<n>\d+)")
# `Set rounds to rounds + 1`, `rounds = rounds + 1`: one more, as Increment says it.
_SELF_PLUS = re.compile(r"(?:set\s+)?(?P<w>[A-Za-z_]\w*)\s*(?:to|:?=)\s*(?P=w)\s*\+\s*1", re.I)
# `Decrement rounds`, `rounds--`, `rounds -= 1`: a count down, which no verb makes.
_MINUS = re.compile(
    r"(?:decrement|decrease|reduce|lower)\s+(?P<w>[A-Za-z_]\w*)(?:\s+by\s+\S+)?"
    r"|(?P<v>[A-Za-z_]\w*)\s*(?:--|-=\s*\d+|=\s*(?P=v)\s*-\s*\d+)",
    re.I,
)
_RECORD_NOUN = "NOUN a pattern: a vocabulary's noun, or a Terms row meaning ``matches of `RE` ``"


@dataclass(frozen=True)
class Aim:
    """The verb an unread phrase is aimed at, and the forms of it that would read."""

    verb: str
    forms: tuple[str, ...]
    note: str = ""

    def said(self) -> str:
        """`write `A` or `B` (note)`, for a finding."""
        forms = " or ".join(f"`` {f} ``" if "`" in f else f"`{f}`" for f in self.forms)
        return f"write {forms}" + (f" ({self.note})" if self.note else "")


# What follows a verb's word -> the names the forms are filled with, or None if it is
# not what the verb acts on.
Shape = Callable[[str, Lexicon, Collection[str], bool], "dict[str, str] | None"]


def _words(text: str) -> list[str]:
    """The phrase's words, without the commas and colons after them."""
    return [w.rstrip(",;:") for w in text.split()]


def _file(word: str) -> bool:
    return bool(word) and _FILE.fullmatch(word) is not None


def _after(words: list[str], marks: tuple[str, ...]) -> str:
    """The first file that follows one of the words `marks`, or ""."""
    return next(
        (b for a, b in pairwise(words) if a.lower() in marks and _file(b)),
        "",
    )


def _files_first(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    """A file (or a file group) right after the verb: `Remove a.md`, `Delet the old a.md`."""
    body = _LEADING.sub("", rest)
    for group in lexicon.file_groups:
        if normal(body).startswith(group):
            return {"F": body[: len(group)], "G": "G", "all": body[: len(group)]}
    words = _words(body)
    if not words or not _file(words[0]):
        return None
    files = [w for w in words if _file(w)]
    to = _after(words, ("to",))
    if not to and "from" in (w.lower() for w in words):  # `Copies a.md from elsewhere`
        return {"F": "F", "G": files[0], "all": " and ".join(files)}
    if to and _FOLDER_WORDS.search(body) and "." not in to.strip("`").rsplit("/", 1)[-1]:
        to = to.rstrip("`").rstrip("/") + "/" + ("`" if to.startswith("`") else "")
    return {"F": files[0], "G": to or "G", "all": " and ".join(files)}


# `... to old folder`, `... to the \`old\` directory`: the place is a folder.
_FOLDER_WORDS = re.compile(r"\b(?:folder|directory|dir)\b", re.I)


def _to_file(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    """A file it goes to: `Append shipped to CHANGES.md`, `Record keys of a.md in .seen`."""
    words = rest.split()
    if len(words) < 2 or words[-2].lower() not in ("to", "into", "in") or not _file(words[-1]):
        # `Append "x" to log.md and commit it`: more words after the file it goes to.
        at = next((i for i, w in enumerate(words[1:-1], 1) if w.lower() in ("to", "into", "in")), 0)
        if not at or not _file(words[at + 1].rstrip(",;:")) or at + 2 == len(words):
            return None
        words = words[: at + 2]
    return {"F": _after(words[:-2], ("of", "from")) or "F", "G": words[-1].rstrip(",;:")}


def _text_to_file(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    """Quoted text a file gets: `Write "started" to log.md`, `Write 'x' into a.md`."""
    m = re.fullmatch(r"(?P<t>\"[^\"]*\"|'[^']*'|“[^”]*”)\s+(?:to|into|in)\s+(?P<f>\S+)", rest)
    if m is None or not _file(m["f"].rstrip(".")):
        return None
    return {"T": '"' + m["t"][1:-1] + '"', "G": m["f"].rstrip(".")}


def _key_from_file(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    """`Extract version from release.md`, `Extract the version of package.json`."""
    words = _words(rest)
    if words and words[0].lower() == "the":
        words = words[1:]
    if len(words) < 3 or words[1].lower() not in ("from", "of", "in") or not _file(words[2]):
        return None
    key = words[0].strip("`")
    return {"w": key, "F": words[2]} if re.fullmatch(r"[\w-]+", key) else None


def _field_of_file(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    """`Set approved = true in review.json`: a JSON file's key, with a value."""
    words = _words(rest)
    if words and words[0].lower() == "the":
        words = words[1:]
    files = [w for w in words[1:] if _file(w) and is_json(w)]
    key = words[0].strip("`") if words else ""
    # A key, or a query naming one place (`tickets[id=$ticket].status`).
    named = re.fullmatch(r"[\w-]+|[\w\-.\[\]=$]+", key)
    return {"w": key, "F": files[0]} if files and named else None


def _item_to_list(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    """`Append {"id": 1} to done of progress.json`, `Push 3 to `done` in p.json`: a value
    added to a JSON file's list."""
    words = rest.split()
    if len(words) < 4 or words[-2].lower() not in ("in", "of", "into") or not is_json(words[-1]):
        return None
    lowered = [w.lower() for w in words[:-2]]
    if "to" not in lowered[1:] or not _file(words[-1]):
        return None
    after = len(lowered) - 1 - lowered[::-1].index("to")
    key = " ".join(words[after + 1 : -2]).strip("`")
    return {"w": key, "F": words[-1]} if re.fullmatch(r"[\w\-.\[\]=$]+", key) else None


# `ticket_id in the state file ...`, `the ticket_id field to X in the state file`.
_IN_STATE_FILE = re.compile(
    r"(?:the\s+)?`?(?P<w>[A-Za-z_]\w*)`?\s.*?\bstate\s+file\b.*", re.I | re.S
)


# `ticket_id to "T1"`, `ticket_id = null`: a value that is no number, so no counter's.
@cache
def _to_value() -> re.Pattern[str]:
    return re.compile(
        r"(?:the\s+)?`?(?P<w>[A-Za-z_]\w*)`?\s*(?:to|=|:=)\s*(?:\"[^\"]*\"|true|false|null)", re.I
    )


def _state_field(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    """`Set ticket_id in the state file to T1`, `Store ticket_id in the state file`,
    `Set ticket_id to "T1"`: a field of the state file, with a value that is no number."""
    m = _IN_STATE_FILE.fullmatch(rest.strip()) or (exact and _to_value().fullmatch(rest.strip()))
    return {"w": m["w"]} if m and m["w"].lower() not in ("up", "out") else None


def _counter(
    rest: str, counters: Collection[str], exact: bool, valued: bool
) -> dict[str, str] | None:
    m = _counter_phrase().fullmatch(rest.strip())
    if m is None and exact and not valued:
        # `Reset attempts to 0 and delete notes.md`, `Increment attempts twice`: the
        # verb's own word and a counter, with more words after it.
        m = _counter_phrase().match(rest.strip())
        m = m if m is not None and rest.strip()[m.end() : m.end() + 1].isspace() else None
    if not m or (valued and not m["op"]):
        return None
    if not exact and m["w"] not in counters and not m["op"]:
        return None  # `Increase the timeout`: a synonym, and no counter of the spec
    n = m["n"] if m["n"] and m["n"].isdigit() else "N"
    return {"w": m["w"], "n": n}


def _counted(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    return _counter(rest, counters, exact, valued=False)


def _valued(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    return _counter(rest, counters, exact, valued=True)


def _added(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    m = _add().fullmatch(rest.strip())
    return {"w": m["w"]} if m else None


def _state(
    rest: str, lexicon: Lexicon, counters: Collection[str], exact: bool
) -> dict[str, str] | None:
    m = _STATE.match(rest.strip())
    if not m or not _near(m["s"].lower(), "state"):
        return None
    return {"to": m["to"] or "STATE"}


@dataclass(frozen=True)
class _Verb:
    verb: str
    words: tuple[str, ...]  # its own words: exact, or misspelt
    synonyms: tuple[str, ...]  # other words for it
    shape: Shape
    forms: tuple[str, ...]  # filled from the shape's names
    note: str = ""


# In order: the first whose word and shape fit is the aim (`Set state to X` is the state,
# `Set approved in review.json to true` a JSON key, `Set attempts = 1` a counter).
VERBS: tuple[_Verb, ...] = (
    _Verb("set_state", ("update",), ("set", "change", "switch"), _state, ("Update state to {to}",)),
    _Verb(
        "increment",
        ("increment",),
        ("increase", "bump", "raise", "incr", "inc"),
        _counted,
        ("Increment {w}",),
    ),
    _Verb("increment", (), ("add",), _added, ("Increment {w}",)),
    _Verb("reset", ("reset",), ("zero", "clear"), _counted, ("Reset {w}", "Reset {w} to {n}")),
    _Verb(
        "set_field",
        ("set",),
        (),
        _field_of_file,
        ("Set {w} in {F} to VALUE",),
        'VALUE a JSON value: true, 2, "done"',
    ),
    _Verb(
        "set_state_field",
        ("set",),
        ("store", "save", "keep", "remember", "put", "write"),
        _state_field,
        (
            "Set `{w}` in the state file to VALUE",
            "Set `{w}` in the state file to the first `QUERY` of F.json",
        ),
        'VALUE "text", a number, true, false or null; QUERY as a condition\'s: '
        "`tickets[status=open].id`",
    ),
    _Verb("reset", ("set",), (), _valued, ("Set {w} to {n}",), "N a whole number"),
    _Verb(
        "create",
        ("create",),
        (),
        _files_first,
        ("Create {F}", "Create empty {F}", "Create {F} from T"),
    ),
    _Verb("create", (), ("touch",), _files_first, ("Create empty {all}",)),
    _Verb("archive", ("archive",), (), _files_first, ("Archive {all} to FOLDER/",)),
    _Verb(
        "delete",
        ("delete",),
        ("remove", "erase", "trash", "rm", "discard"),
        _files_first,
        ("Delete {all}",),
    ),
    _Verb("load", ("load",), (), _files_first, ("Load {F} content",)),
    _Verb(
        "extract",
        ("extract",),
        (),
        _key_from_file,
        ("Extract {w} from {F} frontmatter", "Extract {w} from FILE.json"),
    ),
    _Verb("copy", ("copy",), ("duplicate",), _files_first, ("Copy {F} to {G}",)),
    _Verb(
        "move",
        ("move", "rename"),
        ("mv",),
        _files_first,
        ("Move {F} to {G}", "Move {F} to FOLDER/"),
    ),
    _Verb(
        "append_item",
        ("append",),
        ("push",),
        _item_to_list,
        ("Append VALUE to `{w}` in {F}",),
        'VALUE a JSON value: {"id": "$ticket"}, 2, "done"',
    ),
    _Verb("append", ("append",), (), _to_file, ('Append "TEXT" to {G}',)),
    _Verb(
        "append",
        (),
        ("write", "add", "log"),
        _text_to_file,
        ("Append {T} to {G}",),
    ),
    _Verb(
        "record",
        ("record",),
        (),
        _to_file,
        ("Record NOUN of {F} in {G}", "Append matches of `RE` from {F} to {G}"),
        _RECORD_NOUN,
    ),
)


@cache
def _verb_first() -> re.Pattern[str]:
    from .action_phrases import STEP_VERBS

    near = {word for verb in VERBS for word in (*verb.words, *verb.synonyms)}
    return re.compile(rf"^(?:{STEP_VERBS}|{'|'.join(sorted(near))})(?:e?s)?\b", re.I)


def opens_with_verb(phrase: str) -> bool:
    """Whether `phrase` opens with a verb the action grammar knows: a step's
    (`action_phrases.STEP_VERBS`), or a word `VERBS` reads as one of the core's verbs
    (`notify reviewer`, `Send the receipt`, `Save the draft`)."""
    return _verb_first().match(phrase.strip()) is not None


def aimed_at(phrase: str, lexicon: Lexicon, counters: Collection[str] = ()) -> Aim | None:
    """The core verb an unread Action phrase is aimed at, or None if it is plainly the AI's.
    `counters`: the counters the spec compares or counts."""
    text = " ".join(phrase.split())
    steps = _steps(text, lexicon)
    if steps is not None:
        return steps
    for shape, verb in ((_PLUS, "increment"), (_SELF_PLUS, "increment"), (_ASSIGN, "reset")):
        m = shape.fullmatch(text)
        if m:
            form = f"Increment {m['w']}" if verb == "increment" else f"Set {m['w']} to {m['n']}"
            return Aim(verb, (form,))
    m = _MINUS.fullmatch(text)
    if m is not None and (m["w"] or m["v"]) in counters:
        counter = m["w"] or m["v"]
        return Aim(
            "reset",
            (f"Reset {counter} to N",),
            "a counter counts up (Increment) or is set (Reset); none counts down, and the AI "
            "cannot change the state file's counters",
        )
    first, _, rest = text.partition(" ")
    word = first.lower().rstrip(":,.")
    for entry in VERBS:
        exact = _said(word, entry.words)
        if exact is None and _said(word, entry.synonyms) is None:
            continue
        names = entry.shape(rest.strip(), lexicon, counters, exact is not None)
        if names is None:
            continue
        forms = tuple(_filled(f, names) for f in entry.forms)
        if entry.verb == "extract" and is_json(names.get("F", "")):
            forms = (f"Extract {names['w']} from {names['F']}",)
        # The note says what a placeholder left in the forms stands for.
        note = entry.note if entry.note.split(" ")[0] in " ".join(forms).split() else ""
        return Aim(entry.verb, forms, note)
    return None


# A `;` or a line break (`<br>`) outside backticks: where a cell written without the
# core's numbers would part its steps.
_STEP = re.compile(r"(?:;|<br\s*/?>)\s*(?=(?:[^`]*`[^`]*`)*[^`]*$)", re.I)
# A step numbered as in a markdown list, `1. a 2. b` or `1) a 2) b`: the number, after
# the start or a space.
_LISTED = re.compile(r"(?:^|(?<=\s))(\d+)[.)]\s+")


# A list's mark before a step: a bullet, or a number as a markdown list writes it.
_MARK = r"^(?:[\u2022\u00b7\u2023\u25e6*+-]|\d+[.)])\s+"  # compiled at first use, by `re`


def _listed(text: str) -> list[str] | None:
    """`1. a 2. b` -> ['a', 'b']: a cell that starts at `1.` and counts up by one; None
    for any other (`Archive to v1.2.0`, `Set retries to 3. Then ...`)."""
    marks = list(_LISTED.finditer(text))
    if len(marks) < 2 or marks[0].start() != 0:
        return None
    if [int(m[1]) for m in marks] != list(range(1, len(marks) + 1)):
        return None
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [text[m.end() : end] for m, end in zip(marks, ends, strict=True)]


def _steps(text: str, lexicon: Lexicon) -> Aim | None:
    """Several steps written as one phrase, without the core's numbers (`Increment
    attempts; Set ...`, `Delete a.md<br>Delete b.md`, `1. Delete a.md 2. Delete b.md`,
    a list in a cell, `• Create a.md<br>• Create b.md`), one of which the core reads:
    the numbered form that it would carry out."""
    split = _listed(text) or _STEP.split(text)
    # each line's list mark, as a list in a cell writes it (`• a<br>• b`, `1. a<br>2. b`)
    split = [re.sub(_MARK, "", p.strip(), count=1) for p in split]
    parts = [p.strip().rstrip(".;") for p in split if p.strip().rstrip(".;")]
    if len(parts) < 2:
        return None
    from .action_phrases import parse_action  # which imports this module's neighbours

    read = [p for p in parts if parse_action(p, "", lexicon=lexicon).verb != "instruct"]
    if not read:
        return None
    numbered = "; ".join(f"({i}) {p}" for i, p in enumerate(parts, start=1))
    return Aim(
        "steps",
        (numbered,),
        f"a cell's steps are numbered; unnumbered it is one phrase, and {read[0]!r} "
        "reads as a step of the core",
    )


def _filled(form: str, names: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: names.get(m[1], m[1].upper()), form)


def _said(word: str, words: tuple[str, ...]) -> str | None:
    """Which of `words` `word` says, in any person or misspelt by one edit; None if none.
    A misspelling counts only in a word of five letters or more."""
    for candidate in _persons(word):
        if candidate in words:
            return candidate
    if len(word) < 5:
        return None
    return next((w for w in words if any(_near(c, w) for c in _persons(word))), None)


def _persons(word: str) -> tuple[str, ...]:
    """`copies` -> copy, `deletes` -> delete, `moves` -> move: the word and its stems."""
    stems = [word]
    if word.endswith("ies"):
        stems.append(word[:-3] + "y")
    if word.endswith("es"):
        stems.append(word[:-2])
    if word.endswith("s"):
        stems.append(word[:-1])
    return tuple(stems)


def _near(a: str, b: str) -> bool:
    """`a` is `b` or one edit from it (a letter added, dropped or changed, two swapped),
    where `b` has five letters or more."""
    return a == b or (len(b) >= 5 and _distance(a, b) <= 1)


def _distance(a: str, b: str) -> int:
    """Edits from `a` to `b`: letters added, dropped or changed, and neighbours swapped
    (the optimal string alignment distance)."""
    if abs(len(a) - len(b)) > 1:
        return 2  # more than one edit: all a caller asks
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]
