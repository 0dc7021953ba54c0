"""Where a spec says its machine starts: the claims its marks, lines and sentences make.

A claim is a state named as the one the machine starts in: a mark after a name
(`- `review` (initial)`, a States table's `review (initial)`), a line (`**Initial
state**: `review``, `Default state: review`, `**Initial**: `review``), a sentence
(`The initial state is `review`.`, `An order starts in `review`.`, `Initially the
order is in `review`.`) or a `(start)` row. A sentence is a claim only where its
subject is the machine: `the machine`, `the workflow`, a word of the title or of
a heading above it (`An order` under `# Order lifecycle`), or `it` (unless the
sentence before it, in the same paragraph, speaks of another machine, service,
system or component). Every "starts in" of a sentence is a claim of its own. A
negated sentence (`never`, `not`, `no longer`) is none; a qualified one (`unless`,
`except`, `if`, `when`, `only`), and one whose subject is something else (`The SLA
timer starts in `review``), is not taken but said: a `states_unread` warning where
it names a state of the machine (a qualified one: or any name in backticks).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from spellbook.records.words import singular

from ..model import Notice, StateSpec
from ..spec_error import fail
from .identifiers import identifier
from .lexicon import normal
from .markdown import Cell, FrontMatter, Heading, Inline, Table

# The words that name the initial state, alone or before `state`: `Initial`, `Start state`.
# Their one home: every mark, line, label and heading below is built from them.
_WORDS = r"(?:initial|default|start|starting|entry)"

# A state's mark as the one the machine starts in: `(initial)`, `(start state)`,
# `(entry)`, `(default)`, `— initial`.
_MARK_WORD = rf"{_WORDS}(?:\s+state)?"
_MARK = rf"\(\s*{_MARK_WORD}\s*\)|[\u2014\u2013]\s*{_MARK_WORD}|-\s+{_MARK_WORD}"


@cache
def initial_mark() -> re.Pattern[str]:
    return re.compile(_MARK, re.IGNORECASE)


# The mark at the end of an item's title: `- `review` (initial)`.
@cache
def trailing_mark() -> re.Pattern[str]:
    return re.compile(rf"\s*(?:{_MARK})\s*\.?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """A state the spec says the machine starts in: its name as written, its line, how
    it is said, whether a name that is no state is no claim (`starts in the morning`),
    the words that say it, why it is not taken ("" where it is), and whether a loose
    claim of several words may name a state by its first (`starts in review and ...`)."""

    name: str
    line: int
    how: str
    loose: bool = False
    said: str = ""
    refused: str = ""
    whole: bool = False  # only its whole name counts, never its first word (`Start: ...`)


# `**Initial state**: `review``, `Initial state: review`, `The initial state is review.`,
# `Default state: review`, `Its initial state is `review`.`
@cache
def _initial_sentence() -> re.Pattern[str]:
    return re.compile(
        r"(?:the\s+)?(?P<owner>machine's\s+|workflow's\s+|its\s+)?"
        rf"(?:{_WORDS}|first)\s+(?:state|status)"
        r"\s*(?::|\bis\b|=|[\u2014\u2013]|\s-\s)\s*(?P<name>\S(?:.*?\S)?)\s*[.!]?",
        re.IGNORECASE,
    )


# `` `review` is the initial state. ``, `Review is the first state.`: the name first.
@cache
def _named_initial() -> re.Pattern[str]:
    return re.compile(
        r"(?P<name>`[^`]+`|[\w-]+)\s+is\s+(?:the|its)\s+(?P<owner>machine's\s+|workflow's\s+)?"
        rf"(?:{_WORDS}|first)\s+(?:state|status)\s*[.!]?",
        re.IGNORECASE,
    )


# `**Initial**: `review``, `Default: review`, `**Start**: `review``: no `state`, so only a
# name in backticks, or the whole of a state's name, counts (`Start: running the race is
# done by the starter.` names no state).
@cache
def _initial_line() -> re.Pattern[str]:
    return re.compile(rf"{_WORDS}(?:\s+point)?\s*:\s*(?P<name>\S(?:.*?\S)?)\s*[.!]?", re.IGNORECASE)


# One name in backticks, and nothing else: `` `review` ``.
_CODE = re.compile(r"`[^`]+`")


# A column that ticks the initial state in a States table: `Initial`, `Start state`.
@cache
def _label() -> re.Pattern[str]:
    return re.compile(rf"{_WORDS}(?:\s+state)?", re.IGNORECASE)


# A row label that names the initial state in a table of two columns, and a heading over
# its name: `Initial state`, `Start state` (not `Start` nor `Entry`, most often an event
# or a state of that name); a heading may also say `Initial`.
@cache
def _state_label() -> re.Pattern[str]:
    return re.compile(rf"{_WORDS}\s+state", re.IGNORECASE)


@cache
def _heading_label() -> re.Pattern[str]:
    return re.compile(rf"initial|{_WORDS}\s+state", re.IGNORECASE)


# A header cell of a table that lists events, triggers or states, not settings: a row of
# it that says `Initial state` is one of them, not a claim.
@cache
def _listing() -> re.Pattern[str]:
    return re.compile(r"\b(?:events?|triggers?|states?)\b", re.IGNORECASE)


# A column that marks a States table's final states: `Final`, `Terminal`, `End state`.
@cache
def _final_label() -> re.Pattern[str]:
    return re.compile(r"(?:final|terminal|end)(?:\s+state)?", re.IGNORECASE)


# A cell that ticks a States table's row in a column: `✓`, `yes`, `x`.
_TICKS = frozenset(
    {"\u2713", "\u2714", "\u2714\ufe0f", "\u2705", "yes", "y", "x", "true", "\u2611"}
)
# Marks a States table's Initial or Final column puts on its row beside the ticks: a star,
# a dot, a flag, the word itself.
_MARKS = frozenset(
    {"\u2b50", "\u2605", "\U0001f7e2", "\u25cf", "\u25c9", "\U0001f3c1", "\u2611"}
    | {"(initial)", "initial", "(start)", "start", "(final)", "final", "(end)", "end"}
)


def _labelled(text: str, label: re.Pattern[str]) -> bool:
    """Whether a header or label is `label`'s, marks and a question aside (`**Final?**`,
    `Is final`, `Final state:`)."""
    said = text.strip().strip("*_`:?").strip()
    said = re.sub(r"^(?:is|is it)\s+", "", said, flags=re.IGNORECASE)
    return label.fullmatch(said) is not None


_NAME = r"(?P<name>`[^`]+`|[\w-]+(?:\s+[\w-]+)?)(?:\s+state)?(?!\w)"


# `... starts in `review``, `... begins in review`, `... starts out in ...`, `... starts as
# ...`, `... start out `review``, `... are created in the `review` state`
@cache
def _starts() -> re.Pattern[str]:
    return re.compile(
        r"\b(?:(?:starts?|begins?)\s+(?:out(?:\s+(?:in|at|as))?|in|at|as)"
        r"|(?:is|are|gets?)\s+(?:first\s+)?created\s+(?:in|as))"
        rf"\s+(?:the\s+)?{_NAME}",
        re.IGNORECASE,
    )


# `Initially the order is in `review``, `The order is initially in `review``.
@cache
def _initially() -> re.Pattern[str]:
    return re.compile(
        rf"(?:initially,?\s+(?P<subject>\S(?:.*?\S)?)\s+(?:is|sits|waits)\s+in\s+(?:the\s+)?"
        rf"{_NAME}|(?P<subject2>\S(?:.*?\S)?)\s+(?:is|sits|waits)\s+initially\s+in\s+(?:the\s+)?"
        rf"{_NAME.replace('name', 'name2')})",
        re.IGNORECASE,
    )


# Words that deny a sentence: `An order never starts in `review``.
@cache
def _negated() -> re.Pattern[str]:
    return re.compile(r"\b(?:never|not|no longer|cannot)\b|n't\b", re.IGNORECASE)


# Words that make a sentence true only sometimes: `... unless it is a draft`.
@cache
def _qualifier() -> re.Pattern[str]:
    return re.compile(r"\b(?:unless|except|if|when|whenever|only)\b", re.IGNORECASE)


# Where a clause ends, before the next one's subject: `A starts in x, and B starts in y`.
@cache
def _clause() -> re.Pattern[str]:
    return re.compile(r"[,;:()]|\b(?:and|but|while|whereas|then)\b", re.IGNORECASE)


# Words of a subject that are not its noun: `An order always starts ...`.
_FILLER = frozenset(
    {"a", "an", "the", "every", "each", "this", "our", "new", "always", "now", "also"}
    | {"usually", "normally", "first", "so", "state", "all"}
)
# A subject that is the machine whatever the spec's title.
_MACHINE = frozenset({"machine", "workflow", "lifecycle", "process"})
# Words of a sentence that speak of another machine: `The payment service has its own machine.`
_OTHER = re.compile(r"\b(?:machine|service|system|component)s?\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[A-Za-z][\w'-]*")


def machine_words(headings: Iterable[str]) -> frozenset[str]:
    """The words a sentence's subject may name the machine by: the words of the title
    and of the headings above the sentence, each in the singular."""
    return frozenset(singular(w.lower()) for h in headings for w in _WORD.findall(h))


def claims_said(lines: Iterable[Inline], words: frozenset[str]) -> Iterator[Claim]:
    """Each claim the sentences of one paragraph's `lines` make, under headings whose
    words are `words` (`machine_words`)."""
    other = False  # whether the sentence before speaks of another machine
    for line in lines:
        text = "".join(f"`{s.text}`" if s.kind == "code" else s.text for s in line.segments)
        for sentence in _SENTENCES.split(text.strip()):
            sentence = sentence.strip().lstrip("> ")
            yield from _sentence(sentence, line.line, words, other)
            other = bool(_OTHER.search(sentence)) and not _names_machine(sentence, words)


def _names_machine(sentence: str, words: frozenset[str]) -> bool:
    return any(singular(w.lower()) in words for w in _WORD.findall(sentence))


# No sentence that says a state is the initial one is longer.
_LONGEST = 400


def _sentence(sentence: str, line: int, words: frozenset[str], other: bool) -> Iterator[Claim]:
    sentence = " ".join(sentence.split())
    qualified = _qualifier().search(sentence)
    refused = f"{sentence!r} is qualified ({qualified[0]!r} ...)" if qualified else ""
    short = len(sentence) <= _LONGEST
    declared = (
        _initial_sentence().fullmatch(sentence) or _named_initial().fullmatch(sentence)
        if short
        else None
    )
    bare = None if declared or not short else _initial_line().fullmatch(sentence)
    if declared or bare:
        found = declared or bare
        assert found is not None
        name = found["name"]
        if _negated().match(name) or _negated().search(sentence[: found.start("name")]):
            return
        owner = (declared["owner"] or "").strip().lower() if declared else ""
        why = refused or (_about_other(sentence) if owner == "its" and other else "")
        if declared:
            yield Claim(name.strip("`* "), line, "a sentence", False, sentence, why)
        else:  # `Start: `review``, or `Start: review` where `review` is the whole of a name
            code = _CODE.fullmatch(name.strip("* ")) is not None
            yield Claim(name.strip("`* "), line, "a sentence", not code, sentence, why, True)
        return
    initially = _initially().match(sentence) if short else None
    if initially is not None:
        subject = initially["subject"] or initially["subject2"]
        name = initially["name"] or initially["name2"]
        if not _negated().search(sentence[: initially.end()]):
            yield _claim(name, line, sentence, refused or _subject(subject, words, other))
        return
    start = 0
    for starts in _starts().finditer(sentence):
        before = sentence[start : starts.start()]
        start = starts.end()
        clause = _clause().split(before)[-1]
        if _negated().search(clause):
            continue
        yield _claim(starts["name"], line, sentence, refused or _subject(clause, words, other))


def _claim(name: str, line: int, sentence: str, refused: str) -> Claim:
    return Claim(name.strip("`"), line, "a sentence", not name.startswith("`"), sentence, refused)


def _subject(clause: str, words: frozenset[str], other: bool) -> str:
    """Why a clause's subject is not the machine ("" where it is, or where there is none:
    `Starts in `review`.`): each of its words but the articles and fillers names the
    machine (`An order` under `# Order lifecycle`; not `A reopened order`, which is
    some orders, nor `The SLA timer`)."""
    said = [w.lower() for w in _WORD.findall(clause) if w.lower() not in _FILLER]
    if not said:
        return ""
    head = singular(said[-1])
    if head in ("it", "its", "they"):
        return _about_other(clause) if other else ""
    if all(singular(w) in _MACHINE or singular(w) in words for w in said):
        return ""  # every word of it names the machine: `An order`, `The order workflow`
    return (
        f"its subject ({clause.strip()!r}) is not this machine (write `the machine`, "
        "`it`, or words of its title or heading alone)"
    )


def _about_other(clause: str) -> str:
    return (
        f"{clause.strip()!r} follows a sentence about another machine or service, so `it` "
        "may be that one"
    )


def marks_column(header: str) -> bool:
    """Whether a States table's column of that header marks states (`Initial`, `Final`,
    `Terminal`): read for its ticks."""
    return _labelled(header, _label()) or _labelled(header, _final_label())


def type_column(table: Table) -> int:
    """The column of a States table that says what kind each state is (`Type`, `Kind`:
    `initial`, `normal`, `final`); 0 where it has none."""
    return next(
        (
            i
            for i, c in enumerate(table.header.cells)
            if i and c.plain.strip().strip("*_`:").lower() in ("type", "kind", "state type")
        ),
        0,
    )


def final_kind(text: str) -> bool:
    """Whether a Type column's cell says the workflow ends in its state (`final`)."""
    return _labelled(text.strip().strip("*_`"), _final_label())


def table_marks(table: Table) -> Iterator[Claim]:
    """The state a table names as the initial one: a States table (`| State | Meaning
    |`) by a mark in its first column (`review (initial)`) or a tick in an `Initial`
    column (`✓`, `yes`, `x`); a table of two columns by a row `| Initial state | review |`
    (`state` said: a row `| start | running |` is most often an event), unless its header
    names events, triggers or states (`| Event | Leads to |`), whose rows are those."""
    header = table.header.cells
    keyed = len(header) == 2 and _labelled(header[0].plain, _state_label())
    if len(header) == 2 and (keyed or not any(_listing().search(c.plain) for c in header)):
        for row in (table.header, *table.rows):
            if len(row.cells) == 2 and _labelled(row.cells[0].plain, _state_label()):
                name = row.cells[1].plain.strip().strip("`*")
                if name:
                    said = f"| {row.cells[0].plain} | {row.cells[1].plain} |"
                    yield Claim(name, row.line, "a table row", said=said)
    if not header or singular(header[0].plain.strip().lower()) not in _STATE_COLUMN:
        return
    ticked = next((i for i, c in enumerate(header) if i and _labelled(c.plain, _label())), 0)
    typed = type_column(table)
    for row in table.rows:
        if not row.cells:
            continue
        cell = row.cells[0].plain.strip()
        kind = row.cells[typed].plain.strip().strip("*_`").lower() if typed < len(row.cells) else ""
        if typed and cell and _labelled(kind, _label()):  # `| draft | initial |` under `Type`
            how = f"{kind!r} in the {header[typed].plain!r} column"
            yield Claim(cell.strip("`*"), row.line, how)
            continue
        mark = trailing_mark().search(cell)
        pointed = re.match(_POINTER, cell) or re.search(_POINTER_AFTER, cell)
        if mark is not None and cell[: mark.start()].strip():
            name = cell[: mark.start()].strip().strip("`*")
            yield Claim(name, row.line, "an `(initial)` mark", said=cell)
        elif pointed is not None and (cell[: pointed.start()] + cell[pointed.end() :]).strip():
            # an arrow before the name, or after it
            name = (cell[: pointed.start()] + cell[pointed.end() :]).strip().strip("`*")
            yield Claim(name, row.line, f"a {pointed.group(0).strip()!r} mark", said=cell)
        elif ticked and _ticked(row.cells, ticked) and cell:
            how = f"ticked in the {header[ticked].plain!r} column"
            yield Claim(cell.strip("`*"), row.line, how)


# An arrow or pointer marking the state a machine starts in, before its name in a
# table of states (`→ Idle`) or after it (`Idle ▶`): UML's and many a team's.
_ARROWS = "\u2192\u279c\u2794\u25b6\u25ba\u23f5\u27a4\u21d2"
_POINTER = rf"^\s*(?:[{_ARROWS}]|->|=>)\s*"
_POINTER_AFTER = rf"\s*(?:[{_ARROWS}\u25c0\u2190]|<-)\s*$"
# The first column of a table of states: `State`, `Status` (which `singular` makes
# `statu`).
_STATE_COLUMN = frozenset({"state", "state name", "statu", "status"})


def final_marks(table: Table) -> Iterator[tuple[str, int, str]]:
    """The states a States table ticks in a `Final` or `Terminal` column, each with its
    row's line and the column's name."""
    header = table.header.cells
    if not header or singular(header[0].plain.strip().lower()) not in _STATE_COLUMN:
        return
    at = next((i for i, c in enumerate(header) if i and _labelled(c.plain, _final_label())), 0)
    for row in table.rows if at else ():
        if row.cells and row.cells[0].plain.strip() and _ticked(row.cells, at):
            yield row.cells[0].plain.strip().strip("`*"), row.line, header[at].plain


def _ticked(cells: tuple[Cell, ...], at: int) -> bool:
    """Whether the cell `at` ticks its row: `✓`, `yes`, `x`, `☑️`, a star or a dot, or
    the column's word in parentheses (`(initial)`); a variation selector aside."""
    if at >= len(cells):
        return False
    said = cells[at].plain.strip().replace("\ufe0f", "").replace("\ufe0e", "").lower()
    return said in _TICKS or said in _MARKS


def heading_mark(heading: Heading) -> Claim | None:
    """The state a heading over a table names with an `(initial)` mark (`### Open
    (initial)` over the moves out of Open), or None."""
    text = " ".join(heading.text.split())
    tail = len(text) - 40  # a mark is short: a search of the whole could take long
    mark = trailing_mark().search(text, max(tail, 0))
    name = text[: mark.start()].strip().strip("`*_") if mark is not None else ""
    return Claim(name, heading.line, "an `(initial)` mark", said=text) if name else None


def heading_claim(heading: str, lines: tuple[Inline, ...]) -> Claim | None:
    """The state a paragraph of one name names under a heading `Initial state`
    (`## Initial state` and below it `` `review` ``)."""
    if len(lines) != 1 or not _labelled(heading, _heading_label()):
        return None
    text = lines[0].plain.strip().rstrip(".").strip("*_")
    if not text or " " in text.strip("`").strip():
        return None
    code = all(s.kind == "code" or not s.text.strip(" .") for s in lines[0].segments)
    return Claim(text.strip("`"), lines[0].line, f"under the heading {heading!r}", not code)


def claimed(claim: Claim, states: tuple[StateSpec, ...]) -> StateSpec | None:
    """The state a claim names: by its name, its title or its identifier; a loose claim
    of two words by either (`starts in review and ...`: `review`)."""
    names = [claim.name]
    if claim.loose and not claim.whole and " " in claim.name:
        names.append(claim.name.split()[0])
    for written in names:
        for exact in (True, False):
            for state in states:
                said = {state.name, state.title, identifier(state.title) if state.title else ""}
                if not exact:
                    said = {n.lower() for n in said}
                    written = written.lower()
                if written in said or identifier(written) in said:
                    return state
    return None


def initial_first(
    states: tuple[StateSpec, ...], claims: list[Claim], notices: list[Notice]
) -> tuple[tuple[StateSpec, ...], Claim | None]:
    """The states, the one the spec says the machine starts in first (a mark, a sentence,
    a `(start)` row), and the claim that says so; an error where two say different
    states; a warning for a claim that names no state, which leaves the first state
    listed as the initial state, and for one not taken (see the module's doc)."""
    first: tuple[Claim, StateSpec] | None = None
    for claim in claims:
        state = claimed(claim, states)
        if claim.refused:
            if states and (state is not None or not claim.loose):
                named = state.name if state is not None else repr(claim.name)
                notices.append(
                    Notice(
                        "states_unread",
                        f"this line says something starts in {named}, which is not taken as "
                        f"where the machine starts: {claim.refused}; say it plainly if it "
                        f"is: ``The initial state is `{named.strip(chr(39))}`.``",
                        claim.line,
                    )
                )
            continue
        if state is None:
            if not claim.loose and states:
                notices.append(
                    Notice(
                        "states_unread",
                        f"this line says the machine starts in {claim.name!r}, which is no "
                        f"state of it, so it starts in {states[0].name}, its first state; "
                        "name one of its states: ``The initial state is `"
                        f"{states[0].title or states[0].name}`.``",
                        claim.line,
                    )
                )
            continue
        if first is None:
            first = (claim, state)
        elif first[1].name != state.name:
            fail(
                f"two lines say where the machine starts: line {first[0].line} ({first[0].how}) "
                f"in {first[1].name}, line {claim.line} ({claim.how}) in {state.name}; keep one",
                claim.line,
            )
    if first is None:
        return states, None
    if states[0].name == first[1].name:
        return states, first[0]
    return (first[1], *(s for s in states if s.name != first[1].name)), first[0]


# The keys of a spec's front matter that name the state its machine starts in, written
# without case, `_`, `-` or spaces (`initial_state`, `initialState`, `start-state`), as
# the sentences that say it do (`Initial state:`, `Start state:`, `Default state:`).
_FRONT_KEYS = frozenset(
    {"initial", "initialstate", "start", "startstate", "startingstate", "defaultstate"}
)
# Keys that may say it, or something else: a claim not taken, with a word.
_FRONT_MAYBE = frozenset({"default", "begin", "first", "firststate", "entry", "entrystate"})


def _front_key(key: object) -> str:
    return re.sub(r"[\s_-]+", "", str(key)).lower()


def front_matter_claims(front: FrontMatter) -> Iterator[Claim]:
    """The state the spec's front matter names as the initial one (`initial: review`,
    `initial_state`, `initialState`, `start`, `start-state`, `default_state`); an error
    for front matter that is not YAML. A value YAML reads as no name (`initial: true`, a
    date, a list) is taken as written, so one that names no state is a warning
    (`initial_first`), as a sentence's is; so is a key that may say it or something
    else (`default`), and one of those keys under another (`machine: {initial: x}`)."""
    from spellbook.facts.frontmatter import frontmatter
    from spellbook.records.errors import ActionError

    try:
        # Its text as the reader gave it but its first blank lines, which `frontmatter`
        # would take for a thematic break's and read nothing of.
        body = re.sub(r"\A(?:[ \t]*\n)+", "", front.text)
        data = frontmatter(f"---\n{body}\n---\n", "the front matter")
    except ActionError as err:
        said, line = "", front.line
        if "not valid YAML" in str(err):
            said, line = _yaml_problem(front)
        why = said or " ".join(str(err).split()).replace(": its frontmatter", "")
        fail(f"{why}; write it as `key: value` lines, or remove it", line)
    lines = front.text.split("\n")

    def line_of(key: str, top: bool) -> tuple[int, str]:
        for at, text in enumerate(lines):
            written, colon, _ = text.partition(":")
            if colon and written.strip() == key and (not top or not text[:1].isspace()):
                return front.line + 1 + at, text.strip()
        return front.line + 1, ""

    for key, value in data.items():
        if _front_key(key) not in _FRONT_KEYS | _FRONT_MAYBE:
            if isinstance(value, dict):  # `machine:` then `  initial: review`
                inner = next((k for k in value if _front_key(k) in _FRONT_KEYS), None)
                if inner is not None:
                    line, said = line_of(str(inner), False)
                    why = f"it is under {key!r}; the front matter's top level says it"
                    yield Claim(str(value[inner]), line, "front matter", said=said, refused=why)
            continue
        line, said = line_of(key, True)
        if _front_key(key) in _FRONT_MAYBE:
            why = f"{key!r} may say other things than where the machine starts"
            yield Claim(str(value), line, "front matter", said=said, refused=why)
            continue
        if isinstance(value, (list, dict)):
            why = f"the front matter's {key!r} holds a {type(value).__name__}, not a name"
            yield Claim(str(value), line, "front matter", said=said, refused=why)
            continue
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            # `initial: true`, a date: as written (a comment aside), most often no state
            written = said.partition(":")[2].split(" #", 1)[0].strip()
            value = written.strip("'\"") or str(value)
        yield Claim(str(value).strip("`* "), line, "front matter", said=said)


# Keys of front matter that say where the workflow ends (`final: [published]`): not read.
_FRONT_ENDS = frozenset(
    {"final", "finals", "finalstate", "finalstates", "terminal", "terminalstate"}
    | {"terminalstates", "endstate", "endstates", "goal", "goals", "goalstate", "goalstates"}
)


def front_matter_ends(front: FrontMatter, leaving: dict[str, str]) -> Iterator[Notice]:
    """A `states_unread` warning for each key of the front matter that says where the
    workflow ends (`final: [published]`, `terminal_states`), naming a state that a row
    leads out of (`leaving`: such states by their names as `normal` writes them): no
    part of the reading, and the reading says otherwise. A key of other words (`goal:
    Describe how an order moves`), or of states the reading ends in too, is none."""
    lines = front.text.split("\n")
    for at, text in enumerate(lines):
        key, colon, value = text.partition(":")
        if not colon or text[:1].isspace() or _front_key(key) not in _FRONT_ENDS:
            continue
        items = [value]
        for more in lines[at + 1 :]:  # a YAML list of its own lines: `  - Published`
            if not more.strip().startswith("- "):
                break
            items.append(more.strip()[2:])
        said = [p.strip(" `'\"") for item in items for p in re.split(r"[\[\],]", item)]
        if any(normal(name) in leaving for name in said if name):
            yield Notice(
                "states_unread",
                f"the front matter's {key.strip()!r} ({value.strip()[:60]!r}) is not read: "
                "a state the workflow ends in is one a row says has no way out (`| <state> "
                "| - | (none) |`), or a Goal column's tick in a table of states",
                front.line + 1 + at,
            )


def _yaml_problem(front: FrontMatter) -> tuple[str, int]:
    """What YAML finds wrong with front matter it cannot read (within the runtime's
    bounds, `spellbook.facts.frontmatter`), and the spec's line where it finds it."""
    import yaml

    try:
        yaml.safe_load(front.text)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        line = front.line + 1 + (mark.line if mark is not None else 0)
        return f"the front matter is not valid YAML: {err.problem or 'cannot be read'}", line
    except (yaml.YAMLError, RecursionError, ValueError):
        pass
    return "", front.line
