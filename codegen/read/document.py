"""Parsing the spec's sections: the Spells list, the States list and every transition table.

Input is the located blocks of `read.markdown`; output is IR objects that
still hold names as written. Resolving names and expanding notation is the
next stage (`expand`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache

from spellbook.disk.paths import path_problem
from spellbook.records.words import known_word, singular

from ..model import (
    Atom,
    Kind,
    Notice,
    Policy,
    ResponseTemplate,
    RuleRow,
    Spell,
    StateSpec,
    Term,
    ValidAction,
)
from ..spec_error import SpecError, fail
from .above import SPELL_SECTIONS, claims_of
from .above import STATE_SECTIONS as ABOVE_STATE_SECTIONS
from .conditions import Words, parse_condition, parse_indicators
from .identifiers import ascii_name, identifier, split_outside, unspelled
from .initial import (
    Claim,
    claimed,
    final_kind,
    final_marks,
    front_matter_ends,
    initial_first,
    initial_mark,
    marks_column,
    trailing_mark,
    type_column,
)
from .lexicon import EMPTY, Lexicon, ReadOptions, normal
from .light_tables import (
    LightReader,
    LightReading,
    from_tables,
    keeping_over,
    light_columns,
    reason_rows,
    terminal_rows,
    why_column,
)
from .markdown import (
    Block,
    BrokenTable,
    Cell,
    Code,
    FrontMatter,
    Heading,
    Html,
    Inline,
    Item,
    ItemList,
    LooseRows,
    Paragraph,
    Quote,
    Segment,
    Table,
    TableRow,
    as_written,
    split_cells,
    struck,
)
from .no_table import arrows_of, listed_moves, why_no_table
from .policies import unlisted_policy, unread_policies
from .rows import (
    ASIDE_NOTE,
    REQUIRED,
    TERM_ROLES,
    AsideBy,
    Columns,
    RowReader,
    aside,
    aside_heading,
    aside_note,
    aside_paragraph,
    columns_of,
    details_aside,
    folded_over,
    group_kind,
    light_roles,
    limit_note,
    parse_terms,
    roles_found,
    skipped,
    title_of,
    with_extra_names,
)
from .rows import title as role_title
from .sections import PERSISTENCE, STATE_FILE_FORMS, prose_paths, state_files_in

_COMMA = re.compile(r"\s*,\s*")
STATE_SECTIONS = ABOVE_STATE_SECTIONS
DEFAULT_STATE_FILE = "state.json"
TEMPLATE_KINDS = (
    ("blocked", "blocked"),
    ("no-op", "noop"),
    ("noop", "noop"),
    ("confirmation", "confirmation"),
    ("standard", "standard"),
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A family of states, `NAME_[G/A]`, as a States list may declare it: expansion (`expand`)
# makes it its members, NAME_G and NAME_A; here only that each member is a name.
_FAMILY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*_\[\s*[A-Za-z0-9_]+(?:\s*[/|]\s*[A-Za-z0-9_]+)*\s*\]")
_STATE = re.compile(f"{_IDENTIFIER.pattern}|{_FAMILY.pattern}")


@dataclass(frozen=True)
class Document:
    """What the parser read: everything still named as written."""

    title: str
    state_file: str
    spells: tuple[Spell, ...]
    states: tuple[StateSpec, ...]
    rows: tuple[RuleRow, ...]
    templates: tuple[ResponseTemplate, ...]
    state_example: dict[str, object] | None = None
    spell_word: str = "spell"
    terms: tuple[Term, ...] = ()
    words: dict[Atom, tuple[str, str]] = field(default_factory=dict)
    notices: tuple[Notice, ...] = ()
    vocabulary: str = ""
    unlisted: Policy | None = None  # "transitions not listed are rejected", where said
    layout: tuple[str, ...] = ()  # the first transition table's roles, by column
    own_code: bool = False
    section: str = ""  # the section of a file of several machines this one is read from
    started: str = ""  # the line that says where the machine starts, and its words
    state_line: int = 0  # the line that names the state file (0: none does, the default)


@dataclass(frozen=True)
class _Placed:
    """A block with the headings above it, innermost last."""

    block: Block
    headings: tuple[Heading, ...]
    before: Block | None = None  # the block right before it, where no heading is between

    def within(self, names: Iterable[str]) -> bool:
        wanted = set(names)
        return any(h.text.strip().lower() in wanted for h in self.headings)

    @property
    def group(self) -> str:
        return self.headings[-1].text if self.headings else ""


def parse_document(blocks: tuple[Block, ...], options: ReadOptions | None = None) -> Document:
    """Read the Spells and States lists, the Terms and the transition tables; fail on
    unusable input."""
    if not blocks:
        fail("the file is empty: expected a markdown spec with States, Spells and tables", 1)
    options = options or ReadOptions()
    placed = list(_place(blocks))
    state_file, state_line = state_file_at(placed)
    workspace = state_file.rpartition("/")[0]
    term_notices: list[Notice] = list(_state_file_unread(placed, state_file, state_line))
    terms = _terms(placed, term_notices)
    lexicon = Lexicon.of(options).with_terms([*terms, *options.terms]).with_files(options)
    words = Words()
    reader = RowReader(lexicon, workspace, words)
    reader.notices.extend(term_notices)
    spells = tuple(_spells(placed))
    roles = with_extra_names(options.columns)
    placed = _from_headings(placed, roles)
    placed = _event_headings(placed, roles)
    light = None if _has_id_table(placed, roles) else LightReader(reader)
    if light is not None:
        light.foresee((p.block for p in placed if isinstance(p.block, Table)), roles)
    named = light.state if light is not None else None
    states, prose, claims = _states(placed, workspace, lexicon, words, reader.notices, named)
    reader.declared = frozenset(s.name for s in states)
    rows = tuple(_rows(placed, reader, roles, light, spells))
    if light is not None:
        rows = light.refused_events(rows)
        reader.notices.extend(light.summary_of(rows))
        reader.notices.extend(light.joined_events())
    rows = _with_templates(rows, lexicon, workspace, words)
    if rows:
        reader.notices.extend(_moves_in_lists(placed, rows))
        if light is not None:
            reader.notices.extend(_moves_in_unread_tables(placed, rows, roles))
    if not rows:
        unread = next((n for n in reader.notices if n.kind == "unknown_column"), None)
        if unread is not None:
            fail(
                f"not a state-machine spec as read (no transition table): {unread.message}",
                unread.line,
            )
        unread_header = _colon_header(placed, roles) or _partial_table(placed, roles)
        if unread_header is not None:
            fail(*unread_header)
        example = next((n for n in reader.notices if ASIDE_NOTE in n.message), None)
        if example is not None:
            fail(
                f"not a state-machine spec as read (no transition table): {example.message}",
                example.line,
            )
        unread_block = why_no_table((p.block, p.headings[-1:]) for p in placed)
        if unread_block is not None:
            fail(*unread_block)
        fail(
            "not a state-machine spec: no transition table (a table with columns "
            + ", ".join(role_title(c) for c in REQUIRED)
            + ", or one with From and To columns and maybe an Event column, "
            "`| From | Event | To |`)",
            1,
        )
    reading = light.reading if light is not None else LightReading()
    if not states:
        states, marked = _states_line(placed, reader.notices)
        claims += marked
    first = _first_table(placed, roles)
    word = _spell_word(placed, first)
    listed = bool(states)
    states, spells = from_tables(states, spells, rows, reading, prose, reader.notices, word)
    if not listed:  # the states are the tables': a table of them is checked against them
        reader.notices.extend(_state_table_unread(placed, roles, states))
        states = _state_table_columns(placed, roles, states, lexicon, workspace, words)
        _table_of_states_said(reader.notices, placed, roles)
    if reading.initial is not None:
        claims.append(Claim(reading.initial[0], reading.initial[1], "a `(start)` row"))
    states, started = initial_first(states, [*claims, *_initial_said(placed)], reader.notices)
    if started is None and not listed:
        reader.notices.extend(_start_after_catch_all(states, rows))
        reader.notices.extend(_start_not_first_listed(placed, roles, states))
        said = {n.line for n in reader.notices if n.kind == "states_unread"}
        reader.notices.extend(_start_unread(placed, states, said))
    _said_in_note(reader.notices, states, started)
    for front in (p.block for p in placed if isinstance(p.block, FrontMatter)):
        leaving = {normal(n): n for r in rows if not r.current.wildcard for n in r.current.names}
        reader.notices.extend(front_matter_ends(front, leaving))
    reader.notices.extend(_finals_unread(placed, states, reading, rows))
    rows += terminal_rows(reading, spells, rows)
    unlisted = unlisted_policy(blocks) or _configured(options)
    if unlisted is None:
        reader.notices.extend(unread_policies(blocks))
    title = next((b.text for b in blocks if isinstance(b, Heading)), "")
    return Document(
        title,
        state_file,
        spells,
        states,
        rows,
        tuple(_templates(placed)),
        _state_example(placed),
        word,
        tuple(terms),
        words.said,
        tuple(reader.notices),
        lexicon.vocabulary,
        unlisted,
        _layout(first),
        lexicon.own_code,
        options.section,
        _started(started),
        state_line,
    )


def _start_after_catch_all(
    states: tuple[StateSpec, ...], rows: tuple[RuleRow, ...]
) -> Iterator[Notice]:
    """A warning where no line says where the machine starts, and the first state the
    tables name, where it then starts, is first named as where a catch-all row leads
    (`| Any state | cancel | cancelled |` above the rest): a new workspace would start
    cancelled, with every state still reachable and no other word."""
    if not states:
        return
    start = states[0].name
    for row in rows:
        if not row.current.wildcard and start in row.current.names:
            return
        if row.current.wildcard and row.target.name == start:
            other = next(
                (n for r in rows if not r.current.wildcard for n in r.current.names if n != start),
                "NAME",
            )
            yield Notice(
                "states_unread",
                f"no line of the spec says where the machine starts, so it starts in {start}, "
                f"the first state the tables name; but the first row to name it is {row.id}, "
                f"a row for any state leading there, which says nothing of where a workspace "
                f"starts: say where, ``The initial state is `{other}`.``",
                row.line,
            )
            return


def _start_unread(
    placed: list[_Placed], states: tuple[StateSpec, ...], said: set[int]
) -> Iterator[Notice]:
    """A warning for the first line of prose that names a state of the machine in
    backticks beside a word of starting (`initial`, `created`, `new`, `begin`...) where no
    line is read as saying where the machine starts: a way of saying it this reading
    does not know (`The ticket's initial state is `open`.`) is said, never dropped; but
    a line said already (`said`), or one naming the state it starts in anyway."""
    if not states:
        return
    for p in placed:
        blocks = [p.block] if isinstance(p.block, Paragraph) else []
        if isinstance(p.block, Quote):
            blocks = [b for b in p.block.blocks if isinstance(b, Paragraph)]
        for line in (ln for b in blocks for ln in b.lines):
            words = " ".join(line.plain.split())[:400]
            if line.line in said or not _starting_words().search(words):
                continue
            if re.search(r"\b(?:never|not|no longer|cannot)\b|n't\b", words, re.IGNORECASE):
                continue  # `An order never starts in `review``: said of where it does not
            texts = [seg.text for seg in line.segments]
            for at, seg in enumerate(line.segments):
                before, after = "".join(texts[:at]), "".join(texts[at + 1 :])
                if seg.kind != "code" or not _says_start(before, after):
                    continue  # a state the line names, but not as where anything starts
                state = claimed(Claim(seg.text.strip(), line.line, ""), states)
                if state is not None and state.name == states[0].name:
                    break  # `land in `draft` and move to `review``: where it does start
                if state is not None:
                    name = state.title or state.name
                    yield Notice(
                        "states_unread",
                        f"this line may say where the machine starts ({name}), in words this "
                        f"reading does not take, so it starts in {states[0].name}, its first "
                        f"state; if it starts in {name}, say so: ``The initial state is "
                        f"`{name}`.``",
                        line.line,
                    )
                    return


@cache
def _starting_words() -> re.Pattern[str]:
    """Words of a line that may say where the machine starts."""
    return re.compile(rf"\b(?:{_STARTING})\b", re.IGNORECASE)


# The words of starting a line that says where the machine starts may use.
_STARTING = (
    r"initial|initially|initiali[sz]ed|start\w*|creat\w*|new|default|begin\w*"
    r"|entry|first|born|land\w*|placed"
)


def _says_start(before: str, after: str) -> bool:
    """Whether a line says where something starts of the state it names between `before`
    and `after`: a word of starting right before it (`_starting_before`: `created in
    the`, `new orders are always`); a verb of starting (`_STRONG`: `begins`, `created`,
    `lands`) at most five words before it in its sentence, not of another thing (`create a
    checklist`); or, after it, that it is where things start (`` `review` is where
    every new ticket starts ``, `` `review` is the first state ``)."""
    if _starting_before().search(before):
        return True
    sentence = re.split(r"[.!?;]\s", before)[-1]
    verb = rf"\b(?:{_STRONG})\b(?!\s+(?:a|an|the|when|if|once|after|before|until|while)\b)"
    near = rf"{verb}(?:\W+\w+){{0,5}}\W*$"
    if re.search(near, sentence, re.IGNORECASE):
        return True
    # further before it, a verb of starting with no object (`created by the intake bot of
    # the sales team in`, `land, after spam filtering, in`; not `start work on tickets in`)
    # whose words lead to the state as a place
    # (`start, as a rule, in`: the place right after the aside; `created by the bot
    # in`: no other verb between, as `created by the job are kept in` has)
    verb = rf"\b(?:{_STRONG}|start|land)\b"
    aside = r"\s*,[^,]*,\s*(?:in|into|at)\W*$"
    agent = (
        r"\s+(?:by|through|via|from|automatically|always|usually|first)\b"
        r"(?:(?!\b(?:is|are|was|were|be|been|get|gets|stay|stays)\b)[^.!?;])*"
        r"\b(?:in|into|at)\W*$"
    )
    if re.search(rf"{verb}(?:{aside}|{agent})", sentence, re.IGNORECASE):
        return True
    rest = re.split(r"[.!?;](?:\s|$)", after)[0]
    return re.match(_STARTS_HERE, rest, re.IGNORECASE) is not None


# The verbs of starting that say where the item starts a few words before the state
# (not `new`, `first` or `default`, nor `placed` or `landing`, as often said of others).
_STRONG = (
    r"initial|initially|initiali[sz]ed|created|creates|create|begins|began|begin|starts"
    r"|started|lands|landed"
)
# After a state: that it is where things start (`is where every ticket starts`, `: where
# orders are created`, `is our starting point`, `- every new order starts here`).
_STARTS_HERE = (
    r"\W*(?:(?:(?:is|are)\s+)?where\s+(?:\w+\s+){0,3}(?:starts?|begins?|(?:is|are)\s+created)\b"
    r"|(?:is|are)\s+(?:the|our)\s+(?:first|initial|starting)\b"
    r"|.*\b(?:starts?|begins?)\s+here\b)"
)


@cache
def _starting_before() -> re.Pattern[str]:
    """The end of a line's text right before a state it names as where something starts:
    a word of starting, the thing that starts, then only words that lead to a name
    (`created in the`, `initial status is`, `Entry point:`, `new orders are always`),
    never another thing (`a new comment on an order in`, `the default reviewer for`)."""
    return re.compile(
        rf"\b(?:{_STARTING})\b(?:\s+[^\W\d_]+)?"  # the thing that starts (`new orders`)
        r"(?:\s*[:,]?\s*\b(?:in|into|at|as|is|are|be|the|a|an|state|status|stage|phase|step"
        r"|out|off|point|with|by|from|on|always|go|goes|straight|to|sit|sits|get|gets"
        r"|put)\b)*\s*[:,]?\s*$",
        re.IGNORECASE,
    )


def _start_not_first_listed(
    placed: list[_Placed], roles: dict[str, tuple[str, ...]], states: tuple[StateSpec, ...]
) -> Iterator[Notice]:
    """A warning where no line says where the machine starts, so that it starts in the
    first state the transition tables name, and a table of states lists another state
    first (`| Draft | every article starts here |` above the rest): the author's order
    is most likely the lifecycle's, which is not read as where it starts."""
    table = next(iter(_state_tables(placed, roles)), None)
    if table is None or not states:
        return
    named = (_state_cell_name(row) for row in table.rows)
    first = next((n for n in named if n and normal(n) not in EMPTY), "")
    state = claimed(Claim(first, table.line, ""), states) if first else None
    if state is not None and state.name != states[0].name:
        yield Notice(
            "states_unread",
            f"no line of the spec says where the machine starts, so it starts in "
            f"{states[0].name}, the first state the transition tables name; this table of "
            f"states lists {state.title or state.name} first: if the machine starts there, "
            f"say so, ``The initial state is `{state.title or state.name}`.``",
            table.line,
        )


def _finals_unread(
    placed: list[_Placed],
    states: tuple[StateSpec, ...],
    reading: LightReading,
    rows: tuple[RuleRow, ...],
) -> Iterator[Notice]:
    """A warning for each state a States table ticks as final (`| shipped | ... | ✓ |`
    under `Final`) that no `(none)` row declares terminal: where the tick is read (as a
    goal, `_columns_of`), that a row leads out of it all the same; else that the tick is
    not read (a table of states beside a States list, which says the goals)."""
    for p in placed:
        if not isinstance(p.block, Table):
            continue
        for name, line, column in final_marks(p.block):
            state = claimed(Claim(name, line, ""), states)
            if state is not None and state.name in reading.terminal:
                continue
            shown = state.name if state is not None else name
            out = next(
                (
                    r
                    for r in rows
                    if not r.current.wildcard
                    and shown in r.current.names
                    and r.target.kind is Kind.TRANSITION
                    and r.target.name != shown
                ),
                None,
            )
            if state is not None and state.goal and out is None:
                continue
            said = (
                f"this row ticks {shown} in the {column!r} column, read as a goal the "
                f"workflow ends in; but row {out.id} (line {out.line}) leads out of it on "
                f"{', '.join(out.triggers)}: take that row out, or the tick"
                if state is not None and state.goal and out is not None
                else f"this row ticks {shown} in the {column!r} column, which is not read: a "
                f"state is final where a row of the transition table says so, `| {shown} | - "
                "| (none) |` (and no row leads out of it)"
            )
            yield Notice("states_unread", said, line)


# The first header of a table of states (`| State | Description |`); beside a heading
# naming states, the others a team writes (`## States` over `| Status | Meaning |`).
_STATE_HEADERS = frozenset({"state", "state name"})
_STATE_HEADERS_UNDER = frozenset({"status", "name", "phase", "stage"})
_STATUS = {"statu": "status", "statuse": "status"}  # what `singular` makes of them


@cache
def _states_heading() -> re.Pattern[str]:
    return re.compile(
        r"(?:\d+[.)]?\s+)?(?:the\s+)?(?:states?|statuses|status|phases?|stages?)"
        r"(?:\s+(?:table|list|of the \w+))?\s*:?"
    )


def _state_tables(placed: list[_Placed], roles: dict[str, tuple[str, ...]]) -> Iterator[Table]:
    """The tables of states (`| State | Description | Indicators |`) beside light tables,
    each row's state named in its first column."""
    for p in placed:
        table = p.block
        if not isinstance(table, Table) or not table.header.cells:
            continue
        first = _header(table.header.cells[0])
        numbered = all(  # `1`, `#2`, `3.`, `S4`, `ST-5`: numbers, not the states' names
            re.fullmatch(_ROW_NUMBER, " ".join(r.cells[0].plain.split()))
            for r in table.rows
            if r.cells and r.cells[0].plain.strip()
        )
        if first in _ROW_NUMBERS and numbered and len(table.header.cells) > 2:  # `| # | State |`
            table = Table(
                table.line,
                TableRow(table.header.line, table.header.cells[1:]),
                tuple(TableRow(r.line, r.cells[1:]) for r in table.rows),
            )
            first = _header(table.header.cells[0])
        first = _STATUS.get(first, first)
        # `## States` (`2. States:`, `States table`) right above it: not a title that has
        # the word (`# Order stages` over a table of files)
        near = p.headings[-1].text if p.headings else ""
        under = _states_heading().fullmatch(" ".join(near.lower().split())) is not None
        if first not in _STATE_HEADERS and not (under and first in _STATE_HEADERS_UNDER):
            continue
        if "next state" in roles_found(table, light_roles(roles, table)):
            continue
        yield table


_ROW_NUMBER = r"(?:#\s*|[A-Za-z]{1,3}[-_]?)?\d+[.)]?"  # one cell of such a column
# A first column of a table of states that numbers its rows: `#`, `No.`, `Step`, `ID`
# (where its cells are numbers: `| ID | Name |` of `DRAFT` names the states).
_ROW_NUMBERS = frozenset(
    {"#", "no", "no.", "nr", "nr.", "n\u00b0", "number", "id", "step", "order"}
)


def _moves_in_lists(placed: list[_Placed], rows: tuple[RuleRow, ...]) -> Iterator[Notice]:
    """A `table_unread` warning for each list beside the transition tables whose items are
    moves written as arrows (`- **review** --reject--> draft`), but one an example: not
    read, so the moves it means are not the machine's, and `not listed` refuses them."""
    title = _doc_title(placed)
    for p in placed:
        if (
            isinstance(p.block, ItemList)
            and aside_heading(p.headings, title, None) is None  # not under `## Examples`
            and not aside_paragraph(p.before)  # nor after `For example:`
        ):
            heading = " ".join(p.headings[-1].text.strip("#*_` ").split()) if p.headings else ""
            found = listed_moves(p.block, heading)
            if found is not None and "as arrows" in found[0]:  # sentences: most often prose
                if all(_made(rows, move) for move in arrows_of(p.block, heading)):
                    continue  # a picture of the rows (`Flow at a glance`)
                said = found[0].split(": ", 1)[1]
                yield Notice(
                    "table_unread",
                    f"{said}; the machine's moves are its tables' rows, and this list's are "
                    "none of them",
                    found[1],
                )


def _moves_in_unread_tables(
    placed: list[_Placed], rows: tuple[RuleRow, ...], roles: dict[str, tuple[str, ...]]
) -> Iterator[Notice]:
    """A `table_unread` warning for each table beside the transition tables that has an
    Event column, none of whose rows is read, and two other columns whose cells all name
    the machine's states (`| From status | Event | To status |`, `| Before | Event | After
    |`): a table of moves under headers not read, its moves not the machine's."""
    states = {identifier(n).lower() for r in rows for n in r.current.names}
    states |= {identifier(r.target.name).lower() for r in rows if r.target.name is not None}
    read = {r.line for r in rows}
    for p in placed:
        table = p.block
        if not isinstance(table, Table) or not table.rows:
            continue
        if any(row.line in read for row in table.rows):
            continue
        found = roles_found(table, light_roles(roles, table))
        if "trigger" not in found or {"current state", "next state"} <= found.keys():
            continue
        event = found["trigger"][0]
        named = [
            i
            for i in range(len(table.header.cells))
            if i != event
            and all(
                i < len(row.cells) and identifier(row.cells[i].plain).lower() in states
                for row in table.rows
            )
        ]
        if len(named) < 2:
            continue
        moves = [
            tuple(row.cells[i].plain for i in (named[0], event, named[-1])) for row in table.rows
        ]
        if all(_made(rows, (a, b, c)) for a, b, c in moves):
            continue  # a recap of the machine's own moves
        source, target = (_cell_named(table, [i]) for i in (named[0], named[-1]))
        wanted = [("current_state", source)] if "current state" not in found else []
        wanted += [("next_state", target)] if "next state" not in found else []
        said = ", ".join(f'{key} = ["{name}"]' for key, name in wanted)
        yield Notice(
            "table_unread",
            f"this table has an Event column ({_cell_named(table, [event])!r}) and two "
            f"columns of the machine's states ({source!r}, {target!r}), but no From and To "
            "column as read, so none of its rows is read and the machine has none of its "
            f"moves; name them `From` and `To`, or give the names under [tool.spellbook] "
            f"(`columns = {{ {said} }}`)",
            table.line,
        )


def _made(rows: tuple[RuleRow, ...], move: tuple[str, str, str]) -> bool:
    """Whether a row makes the move `(source, event, target)` (an event "" is any)."""
    source, event, target = (identifier(m).lower() for m in move)
    return any(
        source in {identifier(n).lower() for n in r.current.names}
        and r.target.name is not None
        and identifier(r.target.name).lower() == target
        and (not event or event in {identifier(t).lower() for t in r.triggers})
        for r in rows
    )


def _table_of_states_said(
    notices: list[Notice], placed: list[_Placed], roles: dict[str, tuple[str, ...]]
) -> None:
    """The `names_from_tables` note, saying where a table of states is that the states
    read from the tables are checked against, and what it says of each read from."""
    first = next(_state_tables(placed, roles), None)
    at = next((i for i, n in enumerate(notices) if n.kind == "names_from_tables"), None)
    if first is None or at is None or "read from the transition tables" not in notices[at].message:
        return
    note = notices[at]
    unread = [
        c.plain.strip()
        for table in _state_tables(placed, roles)
        for i, c in enumerate(table.header.cells)
        if i
        and c.plain.strip()
        and not any(_header(c) in names for names in _STATE_COLUMNS.values())
        and not marks_column(c.plain)
        and i != type_column(table)
        and any(i < len(r.cells) and r.cells[i].plain.strip() for r in table.rows)
    ]
    unread = list(dict.fromkeys(unread))
    said = (
        "read from the transition tables (the table of states at line "
        f"{first.line} is checked against them, and read for what it says of each"
        + (
            f"; its column{'s' if len(unread) > 1 else ''} "
            + ", ".join(repr(u) for u in unread)
            + f" {'are' if len(unread) > 1 else 'is'} not read"
            if unread
            else ""
        )
        + ")"
    )
    notices[at] = replace(
        note, message=note.message.replace("read from the transition tables", said, 1)
    )


def _state_table_columns(
    placed: list[_Placed],
    roles: dict[str, tuple[str, ...]],
    states: tuple[StateSpec, ...],
    lexicon: Lexicon,
    workspace: str,
    words: Words,
) -> tuple[StateSpec, ...]:
    """The states with what a table of them says in its columns (`_columns_of`), read
    as a States list's fields are."""
    by_name = {s.name: s for s in states}
    read: set[str] = set()
    for table in _state_tables(placed, roles):
        _columns_of(table, states, by_name, read, lexicon, workspace, words)
    return tuple(by_name[s.name] for s in states)


def _columns_of(
    table: Table,
    states: tuple[StateSpec, ...],
    by_name: dict[str, StateSpec],
    read: set[str],
    lexicon: Lexicon,
    workspace: str,
    words: Words,
) -> None:
    """What `table` says of each state, into `by_name`, as a States list item's fields say
    it: its Indicators, Description (or Meaning), Valid Actions (`Allowed events`) and
    Goal columns; a state is a goal too where its name is marked so (`done (final)`) or
    its row is ticked under `Final` or `Terminal`. A state two rows list is read at the
    first (`read`)."""
    headers = [_header(c) for c in table.header.cells]
    at = {
        field: next((i for i, h in enumerate(headers) if i and h in names), None)
        for field, names in _STATE_COLUMNS.items()
    }
    ended = {line for _, line, _ in final_marks(table)}
    typed = type_column(table)  # `| done | final |` under `Type`
    ended |= {r.line for r in table.rows if typed and final_kind(_column(r, typed))}
    for row in table.rows:
        name = _state_cell_name(row)
        found = claimed(Claim(name, row.line, ""), states) if name else None
        state = by_name[found.name] if found is not None else None
        if state is None or state.name in read:
            continue
        read.add(state.name)
        indicators = _column(row, at["indicators"], written=True)
        evidence, inferable = parse_indicators(indicators, lexicon, workspace, words)
        goal = _column(row, at["goal"]).lower().rstrip(".").strip("*_` ")
        goal = goal.replace("\ufe0f", "").replace("\ufe0e", "")  # `☑️`, `✔️`
        by_name[state.name] = replace(
            state,
            description=_column(row, at["description"]),
            indicators=indicators,
            evidence=evidence,
            inferable=inferable,
            valid_actions=_valid_actions(_column(row, at["valid actions"]), row.line),
            goal=state.goal
            or goal in _GOAL_MARKS  # `yes`, `✓`: not `✗`, `false`, `0`
            or row.line in ended
            or _end_marked(row),
        )


# What a Goal column's cell says the workflow ends in its state with.
_GOAL_MARKS = frozenset(
    {"yes", "y", "x", "true", "goal", "final", "\u2713", "\u2714", "\u2714\ufe0f", "\u2705"}
    | {"\u2611", "\u2b50", "\u2605", "\U0001f3c1", "(final)", "(goal)", "\u2714\ufe0e"}
)
# The columns of a table of states read as a States list item's fields, by their headers
# (as `_header` gives them: lower case, the last word singular).
_STATE_COLUMNS = {
    "indicators": frozenset({"indicator"}),
    "description": frozenset({"description", "meaning"}),
    "valid actions": frozenset(
        {
            f"{a} {b}"
            for a in ("valid", "allowed", "available")
            for b in ("action", "event", "spell")
        }
    ),
    "goal": frozenset({"goal", "goal state"}),
}


def _column(row: TableRow, at: int | None, written: bool = False) -> str:
    """A row's cell in column `at` ("" where it has none): its text as rendered, or as
    written (facts)."""
    if at is None or at >= len(row.cells):
        return ""
    return as_written(row.cells[at].source) if written else row.cells[at].plain.strip()


def _end_marked(row: TableRow) -> bool:
    """Whether a row of a table of states marks its state as where the workflow ends
    (`done (final)`, `done — terminal`)."""
    cell = row.cells[0].plain.strip() if row.cells else ""
    mark = _end_mark().search(cell)
    return mark is not None and bool(cell[: mark.start()].strip())


def _state_cell_name(row: TableRow) -> str:
    """The state a row of a table of states names: its first cell, a mark after it aside
    (`review (initial)`, `done (final)`, `done — terminal`)."""
    cell = row.cells[0].plain.strip() if row.cells else ""
    for mark in (trailing_mark().search(cell), _end_mark().search(cell)):
        if mark is not None and cell[: mark.start()].strip():
            cell = cell[: mark.start()]
    return cell.strip().strip("`*")


@cache
def _end_mark() -> re.Pattern[str]:
    """A mark after a state's name that says the workflow ends there: no part of it."""
    words = r"(?:final|terminal|goal|end|done|accepting)(?:\s+state)?"
    return re.compile(rf"\s*(?:\(\s*{words}\s*\)|[\u2014\u2013-]\s+{words})\s*\.?\s*$", re.I)


def _header(cell: Cell) -> str:
    """A header cell's words, lower case, one space apart, the last one singular."""
    return singular(" ".join(cell.plain.strip().strip("*_`").lower().split()))


def _state_table_unread(
    placed: list[_Placed], roles: dict[str, tuple[str, ...]], states: tuple[StateSpec, ...]
) -> Iterator[Notice]:
    """A warning for each difference between a table of states (`| State | Description
    |`), whose names are not read as the machine's states, and the states the transition
    tables name: a name it lists that is no state (at its row), and the states it does
    not list (at its header)."""
    seen: set[str] = set()
    first = 0  # the first table's line, where what none of them lists is said
    for table in _state_tables(placed, roles):
        first = first or table.line
        ticked = {line for _, line, _ in final_marks(table)}  # said by `_finals_unread`
        for row in table.rows:
            name = _state_cell_name(row)
            if not name or normal(name) in EMPTY:
                continue
            state = claimed(Claim(name, row.line, ""), states)
            if state is not None:
                seen.add(state.name)
            elif row.line not in ticked:
                yield Notice(
                    "states_unread",
                    f"this table of states (line {table.line}) lists {name!r}, which no "
                    "transition table names: the states are the tables', so it is no state "
                    "of the machine; give it its "
                    f"rows (`| {name} | - | (none) |` where it has no way out), or take it "
                    "off the table",
                    row.line,
                )
    missing = [st.title or st.name for st in states if st.name not in seen]
    if seen and missing:
        yield Notice(
            "states_unread",
            "this table of states is not read as the machine's states, and it does not "
            f"list {', '.join(repr(m) for m in missing)}, which the transition tables "
            "name: list each, or correct its name in the rows",
            first,
        )


def _started(claim: Claim | None) -> str:
    """Where the spec says the machine starts, for `--explain`: `line 5: "The initial
    state is review."`; "" where nothing says so."""
    if claim is None:
        return ""
    return f'line {claim.line}: "{claim.said}"' if claim.said else f"line {claim.line}, {claim.how}"


def _said_in_note(
    notices: list[Notice], states: tuple[StateSpec, ...], claim: Claim | None
) -> None:
    """The `names_from_tables` note of states read from the tables, saying where the
    machine starts where a line other than a `(start)` row says so (that row's own words
    are the note's already)."""
    at = next((i for i, n in enumerate(notices) if n.kind == "names_from_tables"), None)
    if at is None or claim is None or claim.how == "a `(start)` row":
        return
    if "read from the transition tables" not in notices[at].message:
        return
    note = notices[at]
    start = f"; it starts in {states[0].name} ({_started(claim)})"
    head, sep, named = note.message.partition("; names written otherwise")
    notices[at] = replace(note, message=head + start + sep + named)


def _configured(options: ReadOptions) -> Policy | None:
    """The project's `unlisted = "rejected"`, as a policy said outside the spec."""
    return Policy(f'unlisted = "{options.unlisted}"') if options.unlisted else None


def _layout(first: tuple[Table, Columns] | None) -> tuple[str, ...]:
    """The roles of the first transition table's columns, in order ("" for none)."""
    return first[1].layout(len(first[0].header.cells)) if first else ()


def _first_table(
    placed: list[_Placed], roles: dict[str, tuple[str, ...]]
) -> tuple[Table, Columns] | None:
    """The first transition table, and its columns by role."""
    full = _has_id_table(placed, roles)
    title = _doc_title(placed)
    for p in placed:
        if not isinstance(p.block, Table) or _aside(p, title):
            continue
        if columns_of(p.block, TERM_ROLES, tuple(TERM_ROLES)) is None:
            try:
                light = None if full else light_columns(p.block, roles)
                columns = light or columns_of(p.block, roles)
            except SpecError:
                continue  # a table the reading of the rows refuses, or says why it skips
            if columns:
                return p.block, columns
    return None


# Facts about a file's sections or JSON keys, which its template says it can have.
_SHAPED = frozenset(
    {"items", "unchecked", "section_text", "items_at_least", "unchecked_at_least"}
    | {"checked_at_least", "field", "value", "count_at_least"}
)


def _with_templates(
    rows: tuple[RuleRow, ...], lexicon: Lexicon, workspace: str, words: Words
) -> tuple[RuleRow, ...]:
    """The rows, where a file is made `from` a template of the spec's own (`Create F from
    T`, which rows read after the conditions that ask of F), with the conditions about
    F's sections and keys read again against T (`shapes`). A file made from two
    templates is checked against neither."""
    named: dict[str, set[tuple[str, str]]] = {}
    for r in rows:
        for a in r.actions:
            if a.verb == "create" and a.target and a.content and not a.problem:
                named.setdefault(a.files[0], set()).add((a.target, a.content))
    known = {f: next(iter(t)) if len(t) == 1 else ("", "") for f, t in named.items()}
    changed = {f for f, t in known.items() if lexicon.template_of(f) != t}
    if not changed:
        return rows
    lexicon.known.update({f: known[f] for f in changed})
    return tuple(
        replace(r, condition=parse_condition(r.condition.text, lexicon, workspace, words))
        if any(a.file in changed and a.probe in _SHAPED for a in r.condition.atoms)
        else r
        for r in rows
    )


def _place(blocks: tuple[Block, ...]) -> Iterator[_Placed]:
    stack: list[Heading] = []
    before: Block | None = None
    folded: list[Heading | None] = []  # `details_aside` summaries of the `<details>` open here
    for block in blocks:
        if isinstance(block, Heading):
            while stack and stack[-1].level >= block.level:
                stack.pop()
            stack.append(block)
            before = None
            continue
        yield _Placed(block, tuple(stack) + folded_over(folded), before)
        before = block
        if isinstance(block, Html):
            details_aside(block, folded)


def _from_headings(placed: list[_Placed], roles: dict[str, tuple[str, ...]]) -> list[_Placed]:
    """The blocks, a table of the moves out of one state under a heading naming it
    (`### Open` over `| Event | Goes to |`, no From column) read as if a From column named
    that state in each row. A heading is taken for a state only where a row of such a
    table leads to it, or it is beside a heading so taken (under the same heading, at
    its level: the state it starts in, one no row leads to): never a section's title
    that no row names (`## Normal flow` over `| Event | To |`)."""
    found: list[tuple[int, Table, Heading]] = []
    over: dict[int, tuple[Heading, ...]] = {}  # the headings over each state's heading
    title = _doc_title(placed)
    led: dict[str, str] | None = None  # a state a row leads to, as the first To cell writes it
    for at, p in enumerate(placed):
        table = p.block
        headings = _moves_heading(p.headings)
        if not isinstance(table, Table) or not headings or headings[-1].level == 1:
            continue
        held = roles_found(table, light_roles(roles, table))
        if "trigger" not in held or "next state" not in held or {"current state", "id"} & set(held):
            continue
        if aside_heading(headings[-1:], title, table) is not None:
            led = _led(placed, roles) if led is None else led
            if not any(normal(f) in led for f in _heading_names(headings[-1].text)):
                continue  # `### Example`: no state; `### Deprecated` a row leads to is one
        found.append((at, table, headings[-1]))
        over[at] = headings[:-1]
    if not found:
        return placed
    led = _led(placed, roles) if led is None else led
    named: dict[int, str] = {}
    titles = {normal(_heading_names(heading.text)[-1]) for _, _, heading in found}
    for at, _, heading in found:
        forms = _heading_names(heading.text)
        # `### Phase review` is `review` where no heading of its own names that state
        loose = re.sub(_PREFIXED, "", forms[-1]).strip()
        if loose != forms[-1] and normal(loose) not in titles:
            forms.append(loose)
        state = next((led[normal(f)] for f in forms if normal(f) in led), None)
        if state is not None:  # as the rows write it (`### Review` over `review` rows)
            named[at] = state
    # and the headings beside those, of such tables too (`### Open`, where it starts, or
    # `### Archived`, which no row leads to: a state, unreachable)
    beside = {(*over[at], heading.level) for at, _, heading in found if at in named}
    for at, _, heading in found:
        if at not in named and (*over[at], heading.level) in beside:
            name = _heading_names(heading.text)[-1]
            if not set(normal(name).split()) & _SECTION_WORDS:  # not `### Overview`
                named[at] = name
    out = list(placed)
    for at, table, _ in found:
        if at in named:
            out[at] = replace(placed[at], block=_with_from(table, named[at]))
    return out


def _led(placed: list[_Placed], roles: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """The states the rows of the tables lead to, by their normal form, as the first To
    cell that names each writes it."""
    led: dict[str, str] = {}
    for table in (p.block for p in placed if isinstance(p.block, Table)):
        for i in roles_found(table, light_roles(roles, table)).get("next state", []):
            for row in table.rows:
                if i < len(row.cells):
                    written = " ".join(row.cells[i].plain.split())
                    led.setdefault(normal(written), written)
    return led


# Words of a heading that names a part of a document, not a state: a heading no row leads
# to beside states' headings is no state where it has one (`### Overview`, `### Happy path`).
_SECTION_WORDS = frozenset(
    {"overview", "summary", "notes", "note", "example", "examples", "flow", "flows", "path"}
    | {"paths", "transitions", "events", "details", "diagram", "table", "reference", "general"}
    | {"description", "introduction", "background", "appendix", "glossary", "all", "common"}
)


def _moves_heading(headings: tuple[Heading, ...]) -> tuple[Heading, ...]:
    """The headings over a table, to the one that may name its state: a sub-heading that
    only says the table holds moves (`### Open`, then `#### Transitions` or `#### Outgoing
    moves` over the table) gives way to the heading it is under."""
    if len(headings) > 1 and _moves_title(headings[-1].text):
        return headings[:-1]
    return headings


def _moves_title(text: str) -> bool:
    words = normal(text.strip().strip(":")).split()
    return bool(words) and set(words) <= _MOVES_WORDS and bool(set(words) & _MOVES_NOUNS)


# A sub-heading's words that say its table holds its state's moves, and no more.
_MOVES_NOUNS = frozenset({"transitions", "transition", "moves", "events", "exits", "triggers"})
_MOVES_WORDS = _MOVES_NOUNS | {"outgoing", "allowed", "valid", "possible", "its", "the"}


# A word before a state's name in its heading that may be part of the name (`### Phase
# review`): dropped only where the rest is a state the rows name and no heading's own.
_PREFIXED = r"(?i)^(?:status|phase|stage|step)\s+"  # compiled at first use, by `re`


def _heading_names(text: str) -> list[str]:
    """The names a heading over a state's moves may call it, most as written first:
    `1. Open`, `2.1 Open`, `Step 1: Open`, `State: Open`, `State Open`, `Open state`,
    `Open (initial)`, `Open:`, `Open {#open}`, `Open — waiting for triage`, `Open: the
    ticket waits`, `Transitions from Open`, `From: Open` are `Open` too."""
    forms = [" ".join(text.split())[:200]]  # a name is short: never a search of a long line
    for pattern in (
        r"^(?::[a-z0-9_+-]+:\s*|[^\w\s(`*\[]+\s*)+",  # `🟡 Pending`, `→ Open`, `:rocket: Live`
        r"\s*\{#[^{}]*\}$",
        r"\s*(?:\((?:initial|start|final|terminal|end|goal)\)|\[(?:initial|start)\]"
        r"|[:\u2705\u2713\u2714]+)$",
        r"^\d+(?:\.\d+)*[.)]?\s+",
        r"^(?:step|stage|phase|state)\s+\d+(?:\.\d+)*\s*[:.\u2013\u2014-]?\s+",
        r"^(?:(?:transitions|moves|events)\s+(?:from|out of|in)|from|when|while|leaving"
        r"|in(?=\s+(?:the\s+)?state\b))\s*:?\s+(?:the\s+)?(?:state\s+)?",
        # `State Open`, `Status: New`; `Phase review`, `Step up auth` are names themselves
        r"^(?:the\s+)?(?:state\s*[:\-\u2013\u2014]?|(?:status|phase|stage|step)\s*[:\-\u2013\u2014])\s+",
        r"\s+state$",
        r"^the\s+",
        r"\s+[\u2013\u2014]\s.*$|:\s.*$|\s-\s.*$",  # a description after the name
    ):
        stripped = re.sub(pattern, "", forms[-1], flags=re.IGNORECASE).strip().strip("`*")
        if stripped and stripped != forms[-1]:
            forms.append(stripped)
    return forms


def _with_from(table: Table, state: str, title: str = "From") -> Table:
    """`table` with a first column, `From` (or `title`), naming `state` in each row."""

    def cell(line: int, text: str) -> Cell:
        return Cell(line, text, Inline(line, (Segment("text", text),), text))

    header = TableRow(table.header.line, (cell(table.header.line, title), *table.header.cells))
    rows = tuple(TableRow(r.line, (cell(r.line, state), *r.cells)) for r in table.rows)
    ragged = tuple((line, count + 1) for line, count in table.ragged)
    written = tuple((line, (state, *cells)) for line, cells in table.written)
    sources = tuple((line, f"| {state} {text.strip()}") for line, text in table.sources)
    return Table(table.line, header, rows, ragged, written, sources)


def _event_headings(placed: list[_Placed], roles: dict[str, tuple[str, ...]]) -> list[_Placed]:
    """The blocks, a table of the moves one event makes (`| From | To |`, no Event
    column) under a heading naming that event (`## Event: submit`, `### submit` under
    `## Events`) read as if an Event column named it in each row: read without it, every
    move was `to_<state>`, and the heading's event nowhere."""
    out = list(placed)
    for at, p in enumerate(placed):
        table = p.block
        if not isinstance(table, Table) or not p.headings:
            continue
        heading = p.headings[-1]
        m = re.fullmatch(_EVENT_HEADING, " ".join(heading.text.split()))
        parent = p.headings[-2] if len(p.headings) > 1 else None
        under = parent is not None and normal(parent.text.strip(":")) in _EVENTS_TITLES
        name = (m.group("name") if m else heading.text if under else "").strip().strip("`*")
        if not name.strip():
            continue  # the common case, told without reading the table's columns
        held = roles_found(table, light_roles(roles, table))
        if "current state" not in held or "next state" not in held or {"trigger", "id"} & set(held):
            continue
        out[at] = replace(p, block=_with_from(table, name.strip(), "Event"))
    return out


# A heading over the moves of one event: `Event: submit`, `Trigger - pay`.
_EVENT_HEADING = r"(?i)(?:event|trigger|message|command)\s*[:\-\u2013\u2014]\s*(?P<name>\S.*)"
# A heading whose sub-headings each name an event, over the moves it makes.
_EVENTS_TITLES = frozenset({"events", "triggers", "messages", "commands", "moves by event"})


@dataclass(frozen=True)
class _Aside:
    """What says a table is an example, or rules kept only as a record: where it is
    (`under the heading`, `after the paragraph`), its words and their line."""

    where: AsideBy
    text: str
    line: int


def _aside(p: _Placed, title: Heading | None) -> _Aside | None:
    """What says the table placed at `p` is no part of the machine: a heading above it
    (`rows.aside_heading`), or the paragraph right before it (`rows.aside_paragraph`)."""
    heading = aside_heading(p.headings, title, p.block if isinstance(p.block, Table) else None)
    if heading is not None:
        return _Aside(AsideBy.of(heading), heading.text, heading.line)
    said = aside_paragraph(p.before) if isinstance(p.block, Table) else ""
    if said and p.before is not None:
        return _Aside(AsideBy.PARAGRAPH, said, p.before.line)
    return None


# --- Spells and States --------------------------------------------------------


def _spells(placed: list[_Placed]) -> Iterator[Spell]:
    section = _spell_section(placed)
    for p in placed:
        if p.within(section):
            for lines in _entries(p.block):
                yield parse_spell_item(lines)


def _spell_section(placed: list[_Placed]) -> tuple[str, ...]:
    """The name of the spec's list of spells: the first of SPELL_SECTIONS it has a list under."""
    for name in SPELL_SECTIONS:
        if any(p.within((name,)) and next(_entries(p.block), None) for p in placed):
            return (name,)
    return ()


def _states(
    placed: list[_Placed],
    workspace: str,
    lexicon: Lexicon,
    words: Words,
    notices: list[Notice],
    named: Callable[[str, int], str] | None = None,
) -> tuple[tuple[StateSpec, ...], int, list[Claim]]:
    """The States list, 0, and the item marked the initial state (`- `review` (initial)`,
    `1. **IDLE** (start)`); or, where the States section holds prose (an item that is
    neither a bold title nor a name: `- Story newly created`), no states and the line
    of that item: such a section describes states, it does not list them (an item's
    mark still says where the machine starts). `named`: how the light tables name a
    state as written (`parse_state_item`)."""
    entries = []
    claims: list[Claim] = []
    ended: set[int] = set()  # the lines of items marked where the workflow ends
    for p in placed:
        if p.within(STATE_SECTIONS):
            for lines in _entries(p.block):
                title, marked = _unmarked(_code_title(lines[0]))
                if marked:
                    name = next((s.text for s in title.segments if s.kind == "strong"), "")
                    claims.append(Claim(name or title.plain, title.line, "an `(initial)` mark"))
                tail = title.plain.rstrip()[-60:]  # a mark is short: never a search of all
                if _end_mark().search(tail) and any(s.kind == "strong" for s in title.segments):
                    ended.add(title.line)  # `- **closed** \u2013 no more changes (final)`
                entries.append((title, *lines[1:]))
    prose = next((lines[0].line for lines in entries if _prose(lines[0])), 0)
    if prose:
        return (), prose, claims
    states = []
    for lines in entries:
        state = parse_state_item(lines, workspace, lexicon, words, named)
        notices.extend(_recovered(state.name, lines))
        said = " ".join(line.plain for line in lines[1:]).lower()
        keys = (*_INITIAL_FIELDS, *_FINAL_FIELDS)
        fields = _fields(lines[1:]) if any(f"{k}:" in said for k in keys) else {}
        # `- *Initial*: yes` says where it starts, as an `(initial)` mark does; `- *Final*:
        # yes` (`*Terminal*`, `*End*`) that the workflow ends there, as `*Goal*: yes` does
        for key in _INITIAL_FIELDS:
            value, at = fields.get(key, ("", 0))
            if _said_yes(value):
                claims.append(Claim(state.name, at, f"a `*{key.capitalize()}*: yes` field"))
        final = any(_said_yes(fields.get(k, ("", 0))[0]) for k in _FINAL_FIELDS)
        states.append(replace(state, goal=True) if lines[0].line in ended or final else state)
    return tuple(states), 0, claims


# The fields of a States item that say the workflow ends there, as `*Goal*: yes` does,
# and those that say it starts there, as an `(initial)` mark does.
_FINAL_FIELDS = ("final", "final state", "terminal", "end", "end state")
_INITIAL_FIELDS = ("initial", "initial state", "start", "start state")


def _said_yes(value: str) -> bool:
    """Whether a field's value says yes (`yes`, `true`, `x`), not no nor nothing."""
    said = re.split(r"[\s:;,.(\u2013\u2014-]", value.strip().strip("*_`").lower(), maxsplit=1)[0]
    return said in {"yes", "y", "true", "x", "\u2713", "\u2714", "\u2705"}


def _code_title(line: Inline) -> Inline:
    """An item's title whose name is in backticks before a dash or a colon and its
    description (`- `open` \u2013 a new ticket`), its name made bold: read as `- **open** \u2013
    a new ticket` is."""
    segs = [s for s in line.segments if s.kind != "text" or s.text.strip()]
    if len(segs) < 2 or segs[0].kind != "code" or segs[1].kind != "text":
        return line
    if re.search(r"[./\\]", segs[0].text):  # `state.json` \u2013 ...: a file, no state's name
        return line
    if not re.match(r"\s*(?:[-\u2013\u2014:]\s)", segs[1].text + " "):
        return line
    first = line.segments.index(segs[0])
    bold = Segment("strong", segs[0].text, segs[0].target)
    return Inline(line.line, (*line.segments[:first], bold, *line.segments[first + 1 :]))


def _prose(line: Inline) -> bool:
    """A list item's title that is no state's name: not bold, not a name."""
    if any(s.kind == "strong" for s in line.segments):
        return False
    return _STATE.fullmatch(line.plain) is None


# `**States**: `a` (default), `b`, `c``: a machine's states on one line.
@cache
def _states_word() -> re.Pattern[str]:
    return re.compile(r"states?:?", re.IGNORECASE)


def _unmarked(line: Inline) -> tuple[Inline, bool]:
    """An item's title without its initial-state mark, and whether it had one (the mark
    as text, `(initial)`, or in emphasis, `*(initial)*`)."""
    segs = list(line.segments)
    while segs and segs[-1].kind == "text" and not segs[-1].text.strip():
        segs.pop()
    if not segs:
        return line, False
    last = segs[-1]
    if last.kind in ("emphasis", "strong") and initial_mark().fullmatch(last.text.strip()):
        segs.pop()
    elif last.kind == "text" and (mark := trailing_mark().search(last.text)) is not None:
        head = last.text[: mark.start()]
        segs[-1:] = [Segment("text", head)] if head.strip() else []
    else:
        return line, False
    if not segs:
        return line, False
    return Inline(line.line, tuple(segs)), True


def _states_line(
    placed: list[_Placed], notices: list[Notice]
) -> tuple[tuple[StateSpec, ...], list[Claim]]:
    """The states a `**States**: `a` (default), `b`` line names, as written (the table
    reading makes them identifiers), and each one marked `(default)` or `(initial)`; a
    warning (`states_unread`) for a States line whose names are not read."""
    found: list[StateSpec] = []
    claims: list[Claim] = []
    for p in placed:
        if not isinstance(p.block, Paragraph):
            continue
        for line in p.block.lines:
            segs = line.segments
            if segs and segs[0].kind == "text" and (plain := _plain_states().match(segs[0].text)):
                segs = (Segment("strong", "States"), Segment("text", plain["rest"]), *segs[1:])
            if not segs or segs[0].kind != "strong" or not _states_word().fullmatch(segs[0].text):
                continue
            rest = segs[1:]
            if not any(seg.kind == "code" for seg in rest):
                written_rest = "".join(seg.text for seg in rest).strip(" :.")
                rest = _plain_names(rest)
                if not rest and written_rest:
                    notices.append(_unread_states_line(written_rest, line.line))
            for i, seg in enumerate(rest):
                if seg.kind != "code" or not seg.text.strip():
                    continue
                upto = next((j for j in range(i + 1, len(rest)) if rest[j].kind == "code"), None)
                after = "".join(s.text for s in rest[i + 1 : upto])  # `(initial)`, `*(initial)*`
                written = seg.text.strip()
                name = identifier(written) or written
                title = written if name != written else ""
                state = StateSpec(name, "", "", (), line.line, title=title)
                found.append(state)
                if initial_mark().match(after.split(",")[0].strip()):
                    claims.append(Claim(name, line.line, "an `(initial)` mark"))
    return tuple(found), claims


def _unread_states_line(written: str, line: int) -> Notice:
    return Notice(
        "states_unread",
        f"this States line is not read as the machine's states ({written[:80]!r} is not a "
        "list of names), so its states are read from the transition tables; write the "
        "names apart, each in backticks: ``**States**: `draft` (initial), `in review`, "
        "`done` ``",
        line,
    )


# `States: a, b` written without bold.
@cache
def _plain_states() -> re.Pattern[str]:
    return re.compile(r"\s*states\s*:(?P<rest>.*)", re.IGNORECASE | re.DOTALL)


# A name of a States line without backticks, maybe of a few words, and its note:
# `PAID (default)`, `in review (initial)`, `in review — initial`.
@cache
def _plain_name() -> re.Pattern[str]:
    return re.compile(
        r"\s*(?P<name>[A-Za-z_][\w-]*(?: [A-Za-z0-9_][\w-]*){0,3})\s*"
        r"(?P<note>\([^()]*\)|[\u2014\u2013]\s*\w[\w ]*)?\s*"
    )


def _plain_names(rest: tuple[Segment, ...]) -> tuple[Segment, ...]:
    """A States line's names written without backticks (`NEW (default), PAID`, `in
    review (initial), done`) as the segments of one written with them; none where a
    part is not a name and its note: a word, or up to four words with their mark (`see
    below` and `review and done` are no names)."""
    if any(seg.kind != "text" for seg in rest):
        return ()
    text = "".join(seg.text for seg in rest).strip().removeprefix(":").rstrip(".")
    found: list[Segment] = []
    for part in text.split(","):
        name = _plain_name().fullmatch(part)
        if name is None or (" " in name["name"] and not name["note"]):
            return ()  # a name of words is one only with its mark: `in review (initial)`
        found += [Segment("code", name["name"]), Segment("text", f" {name['note'] or ''},")]
    return tuple(found)


def _initial_said(placed: list[_Placed]) -> Iterator[Claim]:
    """Each claim of the spec's prose (a paragraph's lines, a list item's first line, a
    block quote's paragraphs, a States table's marks, the front matter) that says where
    the machine starts (`above.claims_of`, as a file of several machines reads it)."""
    for p in placed:
        yield from claims_of(p.block, p.headings, _item_first_line)


def _item_first_line(item: Item) -> Inline:
    return _item_lines(item)[0]


def _recovered(state: str, lines: tuple[Inline, ...]) -> Iterator[Notice]:
    """A name a formatter mangled in a state's title or fields, and how it was read."""
    title = next((s for s in lines[0].segments if s.kind == "strong"), None)
    named = (Inline(lines[0].line, (title,)),) if title is not None else ()
    for line in (*named, *lines[1:]):
        _, fragments = line.recovered()
        if fragments:
            shown = "; ".join(f"'{w}' as '{r}'" for w, r in fragments[:4])
            yield Notice(
                "name_recovered",
                f"state {state}: read {shown} (markdown emphasis a formatter wrote into names)",
                line.line,
            )


def _entries(block: Block) -> Iterator[tuple[Inline, ...]]:
    """The items of a States or Spells section, each as its title line and field lines.

    An item numbered like `14a.` is not a list item in markdown: on its own it is a
    paragraph (whose first line is the title), a formatter may join it into one line,
    and right under another item it runs into that item's last line. Each is split
    back out at its numbered title.
    """
    if isinstance(block, ItemList):
        for item in block.items:
            yield from _split_items(_item_lines(item))
    elif isinstance(block, Paragraph) and _numbered(block.lines[0]):
        yield from _split_items(tuple(part for line in block.lines for part in _unjoin(line)))


_NUMBER = re.compile(r"\s*\d+[A-Za-z]?[.)]\s*")


def _numbered(line: Inline) -> bool:
    """A line that starts an item outside a list: `14a. **NAME**` (prose with a bold word
    in it is not one)."""
    segs = line.segments
    return (
        len(segs) > 1
        and segs[0].kind == "text"
        and _NUMBER.fullmatch(segs[0].text) is not None
        and segs[1].kind == "strong"
    )


def _split_items(lines: tuple[Inline, ...]) -> Iterator[tuple[Inline, ...]]:
    start = 0
    for i, line in enumerate(lines):
        if i and _numbered(line):
            yield lines[start:i]
            start = i
    yield lines[start:]


def _unjoin(line: Inline) -> list[Inline]:
    """A line a formatter joined, `**NAME** - _Description_: ... - _Indicators_: ...`,
    split back into its title and its fields."""
    parts: list[list[Segment]] = [[]]
    segments = line.segments
    for i, seg in enumerate(segments):
        after = segments[i + 1] if i + 1 < len(segments) else None
        field_next = (
            after is not None
            and after.kind in ("emphasis", "strong")
            and i + 2 < len(segments)
            and segments[i + 2].kind == "text"
            and segments[i + 2].text.startswith(":")
        )
        if seg.kind == "text" and field_next and seg.text.rstrip().endswith(" -"):
            head = seg.text.rstrip()[:-2]
            if head.strip():
                parts[-1].append(Segment("text", head))
            parts.append([])
        else:
            parts[-1].append(seg)
    return [Inline(line.line, tuple(p)) for p in parts if p]


def _spell_word(placed: list[_Placed], first: tuple[Table, Columns] | None) -> str:
    """What the spec calls its spells: from the heading of their list ("spell",
    "trigger"); in a spec with no such list, from the header of its first transition
    table's trigger column, where that is a word `VERBS` knows (`| From | Event | To |`:
    "event"); "spell" for any other (`On`, `Action`) and for a table with no trigger
    column."""
    section = _spell_section(placed)
    if section:
        return singular(section[0])
    if first is None or "trigger" not in first[1].roles:
        return "spell"
    return known_word(first[0].header.cells[first[1].roles["trigger"]].plain) or "spell"


def parse_spell_item(lines: tuple[Inline, ...]) -> Spell:
    name, line = _title(lines[0], "spell")
    fields = _fields(lines[1:])
    return Spell(
        name=name,
        description=fields.get("description", ("", line))[0],
        usage=fields.get("usage", ("", line))[0],
        line=line,
        target=fields.get("target", ("", line))[0].strip("`* "),
        usage_line=fields["usage"][1] if "usage" in fields else 0,
        formerly=_former_names(fields.get("formerly", ("", line))[0]),
    )


def parse_state_item(
    lines: tuple[Inline, ...],
    workspace: str = "",
    lexicon: Lexicon | None = None,
    words: Words | None = None,
    named: Callable[[str, int], str] | None = None,
) -> StateSpec:
    """A States list item: one state, or a family of states written `**NAME_[G/A]**`
    (one State named so, which expansion makes one per member, each with its fields).

    Beside light tables (`named`: `LightReader.state`), a name is written as the tables
    write it (`**ci-running**`): its identifier names the state, the name as written is
    its title, and the tables' rule holds for both (two spellings of one identifier are
    refused)."""
    written = next((s.text.strip() for s in lines[0].segments if s.kind == "strong"), None)
    title = ""
    if named is not None and written is not None and not _STATE.fullmatch(written):
        line = lines[0].line
        name = named(written, line)
        title = written
    else:
        name, line = _title(lines[0], "state", families=True)
        if named is not None and _IDENTIFIER.fullmatch(name):
            named(name, line)
    fields = _fields(lines[1:])
    actions_text, actions_line = fields.get("valid actions", ("", line))
    indicators = fields.get("indicators", ("", line))[0]
    evidence, inferable = parse_indicators(indicators, lexicon, workspace, words)
    goal = fields.get("goal", ("", line))[0]
    return StateSpec(
        name=name,
        description=fields.get("description", ("", line))[0],
        indicators=indicators,
        valid_actions=_valid_actions(actions_text, actions_line),
        line=line,
        evidence=evidence,
        inferable=inferable,
        goal=bool(goal.strip()) and goal.strip().lower().rstrip(".") not in _NO,
        formerly=_former_names(fields.get("formerly", ("", line))[0]),
        title=title,
    )


def _former_names(text: str) -> tuple[str, ...]:
    """The names of a `*Formerly*` field: `OLD_NAME`, `**OLD**`, `A, B`, each maybe with a
    remark in parentheses after it. A part that is not a name is kept as written, for
    the verifier to point out (`former_name`)."""
    names = []
    for part in re.split(r"[,;]", text):
        name = re.sub(r"\s*\([^()]*\)\s*$", "", part).strip().strip("*`").replace("\\", "")
        if name:
            names.append(name)
    return tuple(dict.fromkeys(names))


_NO = frozenset({"no", "-"})


def _item_lines(item: Item) -> tuple[Inline, ...]:
    """The title line of an item followed by the lines of each nested item's text (a
    field, and any numbered item that ran into it)."""
    lines: list[Inline] = []
    for block in item.blocks:
        if isinstance(block, Paragraph):
            lines.extend(block.lines)
        elif isinstance(block, ItemList):
            for sub in block.items:
                first = next((b for b in sub.blocks if isinstance(b, Paragraph)), None)
                if first is not None:
                    lines.extend(_continued(first.lines))
    if not lines:
        fail("list item is empty", item.line)
    return tuple(lines)


def _continued(lines: tuple[Inline, ...]) -> list[Inline]:
    """A field's lines, a value that goes on over several lines joined into its first
    (`- *Indicators*: a.md exists AND` then `b.md exists`); a line that starts a field
    of its own (`*Goal*: yes`) or a numbered item that ran into it stays a line."""
    joined: list[Inline] = []
    for line in lines:
        if not joined or _numbered(line) or _starts_field(line):
            joined.append(line)
            continue
        last = joined[-1]
        source = f"{last.source.rstrip()} {line.source.strip()}" if last.source else ""
        joined[-1] = Inline(
            last.line, (*last.segments, Segment("text", " "), *line.segments), source
        )
    return joined


def _starts_field(line: Inline) -> bool:
    """Whether a line starts a field, `*Goal*: yes` (`**Goal:** yes`): a key in emphasis
    and a colon, or a key the reader knows (`*Goal* yes`); `*nothing* is paid yet` goes
    on with the field above."""
    shown = [s for s in line.segments if s.text.strip()]
    if not shown or shown[0].kind not in ("emphasis", "strong"):
        return False
    after = shown[1].text.lstrip() if len(shown) > 1 and shown[1].kind == "text" else ""
    key = shown[0].text.rstrip()
    return key.endswith(":") or after.startswith(":") or _field_key(key) in _FIELD_KEYS


def _title(line: Inline, what: str, families: bool = False) -> tuple[str, int]:
    """An item's name, in bold: an identifier, or with `families` a family `NAME_[G/A]`."""
    strong = next((s.text.strip() for s in line.segments if s.kind == "strong"), None)
    name = strong if strong is not None else line.plain
    if not (_STATE if families else _IDENTIFIER).fullmatch(name):
        example = "**NAME**, or **NAME_[G/A]** for a family of states" if families else "**NAME**"
        if strong is None and _starts_field(line):
            # `   - *Description*: ...` under `10. **NAME**`: markdown takes a line indented
            # less than `10. ` is wide for an item of the list, not a line of the item
            how = (
                "it is a line of the item above (its field) that markdown read as an item of "
                "its own: indent an item's lines as far as its number is wide (4 spaces "
                "under `10. `, 3 under `9. `)"
            )
        elif strong is None:
            how = f"write it in bold, e.g. {example}"
        else:  # in bold already: its characters are what is wrong
            # a name in another script (`Черновик`) is offered in Latin letters, if any
            said = (ascii_name(name) or "") if unspelled(name) else name
            joined = re.sub(r"\W+", "_", said).strip("_")
            camel = "".join(w[:1].upper() + w[1:] for w in re.split(r"\W+", said) if w)
            suggest = joined and camel and "[" not in name
            how = (
                "a name is ASCII letters, digits and underscores, starting with a letter, with no "
                "spaces or other marks"
                + (f", e.g. **{camel}**" if suggest else "")
                + (f" or **{joined}**" if suggest and joined != camel else "")
                + ("; a family of states is written **NAME_[G/A]**" if families else "")
            )
        fail(f"{what} name {name!r} is not an identifier ({how})", line.line)
    return name, line.line


# The fields of a States or Spells list item the reader reads.
_FIELD_KEYS = frozenset(
    {"description", "indicators", "valid actions", "goal", "formerly", "target", "usage"}
)
# Fields whose value is read as written (`as_written`): facts, never rendered markdown.
_WRITTEN_FIELDS = frozenset({"indicators"})
# A field's key as written at the start of its line: `*Key*:`, `**Key:**`, `_Key_`.
_WRITTEN_KEY = re.compile(r"\s*(?P<mark>\*\*|__|\*|_)(?P<key>.+?)(?P=mark)")


def _fields(lines: Iterable[Inline]) -> dict[str, tuple[str, int]]:
    """`- *Key*: value` lines as {key: (value as markdown, line)}; first one wins. The
    value of a field in `_WRITTEN_FIELDS` is its text as written."""
    fields: dict[str, tuple[str, int]] = {}
    for line in lines:
        index = next(
            (i for i, s in enumerate(line.segments) if s.kind in ("emphasis", "strong")), None
        )
        if index is not None:
            key = line.segments[index].text
            value = Inline(line.line, line.segments[index + 1 :]).recovered(markdown=True)[0]
            written = _WRITTEN_KEY.match(line.source)
            if (
                written is not None
                and _field_key(written.group("key")) in _WRITTEN_FIELDS
                and _field_key(written.group("key")) == _field_key(key)
            ):
                value = as_written(line.source[written.end() :])  # facts: no state names
        elif ":" in line.plain:
            key, value = line.plain.lstrip("-*+ ").split(":", 1)
        else:
            continue
        fields.setdefault(_field_key(key), (value.strip().lstrip(":").strip(), line.line))
    return fields


def _field_key(key: str) -> str:
    return " ".join(key.strip().rstrip(":").split()).lower()


def _valid_actions(text: str, line: int) -> tuple[ValidAction, ...]:
    """The spells a Valid Actions field lists; `-` or `none` (a state where no spell
    does anything) lists none."""
    if text.strip().strip("*_()").strip().lower() in _NONE_LISTED:
        return ()
    actions: list[ValidAction] = []
    for part in split_outside(text, _VALID_SEPARATOR):
        part = part.strip().strip("*").strip()
        if not part:
            continue
        name, _, note = part.partition("(")
        actions.append(ValidAction(name.strip().strip("*"), note.rstrip(")").strip(), line))
    return tuple(actions)


_NONE_LISTED = frozenset({"-", "—", "none", "n/a"})
# What parts the spells a Valid Actions field lists: `,`, ` / ` (`Approve / Reject`).
_VALID_SEPARATOR = re.compile(r"\s*,\s*|\s+/\s+|\s+or\s+", re.IGNORECASE)


# --- Transition tables --------------------------------------------------------


def state_file_of(blocks: tuple[Block, ...]) -> tuple[str, int]:
    """The state file the blocks of one machine name, and the line naming it (0 where
    none does: the default, `state.json`)."""
    return state_file_at(list(_place(blocks)))


def state_file_at(placed: list[_Placed]) -> tuple[str, int]:
    """The state file the spec names, preferably in its State Persistence section, and
    the line naming it (0 where none does: the default)."""
    found = [
        (within, path, line)
        for p in placed
        for path, line, within in state_files_in(p.block, p.within([PERSISTENCE]))
    ]
    preferred = [(path, at) for in_section, path, at in found if in_section] or [
        (path, at) for _, path, at in found
    ]
    path, line = preferred[0] if preferred else (DEFAULT_STATE_FILE, 0)
    path = path[2:] if path.startswith("./") else path
    if path_problem(path):
        fail(
            f"the state file `{path}` is not a path inside the repository: name it relative "
            "to the repository's top folder, with no `..`, `~`, drive or `.git` in it "
            "(`.ai/task/state.json`)",
            line or 1,
        )
    return path, line


def _state_file_unread(placed: list[_Placed], path: str, line: int) -> Iterator[Notice]:
    """A State Persistence section whose prose names no state file as read: where the
    state file and workspace then are, at the line that names a path the reader does
    not take (or the section's first line of prose)."""
    lines = [
        inline
        for p in placed
        if isinstance(p.block, Paragraph) and p.within([PERSISTENCE])
        for inline in p.block.lines
        if inline.plain
    ]
    if not lines or any(
        within for p in placed for _, _, within in state_files_in(p.block, p.within([PERSISTENCE]))
    ):
        return
    named = [
        (inline, word)
        for inline in lines
        for seg in inline.segments
        for word in prose_paths(f"{seg.text} {seg.target}")
    ]
    at, word = named[0] if named else (lines[0], "")
    said = f"{word!r} is no state file as read" if word else "it names no path"
    taken = (
        f"`{path}` (named at line {line}), so the workspace is `{path.rpartition('/')[0] or '.'}`"
        if line
        else "`state.json` in the repository's top folder, the default, and so is the "
        "workspace, where the rules' files are"
    )
    yield Notice(
        "state_file_unread",
        f"the State Persistence section names no state file ({said}): the state file is "
        f"{taken}; to name one, write {STATE_FILE_FORMS}",
        at.line,
    )


def _state_example(placed: list[_Placed]) -> dict[str, object] | None:
    """The JSON example of the State Persistence section (`//` comment lines allowed)."""
    for p in placed:
        if isinstance(p.block, Code) and p.within(["state persistence", "state file schema"]):
            text = "\n".join(
                ln for ln in p.block.text.split("\n") if not ln.strip().startswith("//")
            )
            try:
                value = json.loads(text)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    return None


def _templates(placed: list[_Placed]) -> Iterator[ResponseTemplate]:
    """The code blocks under a `Response Format` heading, by the kind their heading names."""
    seen: set[str] = set()
    for p in placed:
        if not isinstance(p.block, Code) or not any(
            "response format" in h.text.lower() for h in p.headings
        ):
            continue
        heading = p.group.lower()
        kind = next((k for word, k in TEMPLATE_KINDS if word in heading), None)
        if kind is not None and kind not in seen:
            seen.add(kind)
            yield ResponseTemplate(kind, p.block.text, p.block.line)


def _terms(placed: list[_Placed], notices: list[Notice]) -> list[Term]:
    """The spec's own terms: the rows of every `| Phrase | Means |` table."""
    terms: list[Term] = []
    for p in placed:
        if isinstance(p.block, Table):
            columns = columns_of(p.block, TERM_ROLES, tuple(TERM_ROLES))
            if columns is not None:
                terms.extend(parse_terms(p.block, columns, notices))
    return terms


def _has_id_table(placed: list[_Placed], roles: dict[str, tuple[str, ...]]) -> bool:
    """Whether a table of the document has an ID column: a spec in the full dialect,
    whose tables without one are summaries, not rules (`light_tables`)."""
    return _id_table(placed, roles) is not None


def _id_table(placed: list[_Placed], roles: dict[str, tuple[str, ...]]) -> Table | None:
    """The document's first table of rules with an ID column (it and two more roles, as
    `rows.columns_of` takes one: not `| ID | State | Description |`, a table of states)
    that no heading or paragraph sets aside as an example, if it has one."""
    title = _doc_title(placed)
    return next(
        (
            p.block
            for p in placed
            if isinstance(p.block, Table)
            and "id" in (found := roles_found(p.block, roles))
            and len(found) >= 3
            and _aside(p, title) is None
        ),
        None,
    )


def _other_dialect(table: Table, roles: dict[str, tuple[str, ...]]) -> bool:
    """Whether a table is a transition table of the light dialect with an Event column,
    which a spec whose rules have an ID column does not read (`_refuse_other_dialect`)."""
    columns = light_columns(table, roles)
    return columns is not None and "trigger" in columns.roles


def _refuse_other_dialect(
    table: Table, roles: dict[str, tuple[str, ...]], placed: list[_Placed]
) -> None:
    """Refuse a transition table of the light dialect (a From, an Event and a To column
    and no ID column, `| From | Event | To |`, `| Source | Event | Target |`) in a spec
    whose rules are tables with an ID column, which reads none of its rows: the error
    says why, and how to write them in the spec's dialect. A summary with no Event
    column (`| From | To | Notes |`) says no move, and stays a note (`table_skipped`)."""
    first = _id_table(placed, roles)
    if first is None or not _other_dialect(table, roles):
        return
    header = " | ".join(c.plain for c in table.header.cells)
    theirs = " | ".join(c.plain for c in first.header.cells)
    fail(
        f"this table (`| {header} |`) has the columns of a transition table but no ID "
        f"column, so none of its rows is read: in a spec with a transition table that has "
        f"an ID column (line {first.line}), every transition table is read by that table's "
        f"columns; write its rows in a table with them, `| {theirs} |`, one rule ID each, "
        "or, if the spec's rules are tables like this one, write the table at line "
        f"{first.line} that way, without its ID column",
        table.line,
    )


def _doc_title(placed: list[_Placed]) -> Heading | None:
    """The document's title (`rows.title_of`), of its blocks placed under their headings."""
    return title_of(next((p.headings for p in placed if p.headings), ()))


def _cells(count: int) -> str:
    return f"{count} cell" + ("s" if count != 1 else "")


def _ragged(table: Table) -> Iterator[Notice]:
    """A warning for each row of a table read that has more or fewer cells than its header."""
    width = len(table.header.cells)
    for line, count in table.ragged:
        dropped = [t for t in dict(table.written).get(line, ())[width:] if t]
        how = (
            f"{_cells(count - width)} past the last column dropped"
            + (f" ({', '.join(repr(t) for t in dropped)})" if dropped else "")
            if count > width
            else f"{_cells(width - count)} it lacks read as empty"
        )
        yield Notice(
            "ragged_row",
            f"this row has {count} cells where its table's header (line {table.line}) has "
            f"{width}: read as GitHub shows it, {how}; give the row {width} cells"
            f"{_double_bar(table, line, count)}",
            line,
        )


def _double_bar(table: Table, line: int, count: int) -> str:
    """Where a row with too many cells has an empty one between two written ones, the
    `||` that made it, most likely an `or` (`a.md exists || b.md exists`): what to write."""
    if count <= len(table.header.cells):
        return ""
    texts = dict(table.written).get(line, ())
    source = dict(table.sources).get(line, "")
    for i in range(1, len(texts) - 1):
        if not texts[i] and texts[i - 1] and texts[i + 1]:
            before, after = texts[i - 1], texts[i + 1]
            if not re.search(re.escape(before) + r"\s*\|\|\s*" + re.escape(after), source):
                continue  # `| done | | note |`: an empty cell, no `||`
            return (
                f"; '{before} || {after}' is one cell split at `||` (a table cell ends at "
                f"every '|'): for either condition write `OR`, '{before} OR {after}', or "
                "escape the bars, `\\|\\|`"
            )
    return ""


@contextmanager
def _short(table: Table, line: int = 0) -> Iterator[None]:
    """An error reading a row written with too few or too many cells says so."""
    try:
        yield
    except SpecError as err:
        count = dict(table.ragged).get(err.line) if not line or err.line == line else None
        if count is None or "empty" not in err.message:
            raise
        raise SpecError(
            f"{err.message} (the row has {count} cells where its table's header, line "
            f"{table.line}, has {len(table.header.cells)}){_double_bar(table, err.line, count)}",
            err.line,
        ) from None


def _rows(
    placed: list[_Placed],
    reader: RowReader,
    roles: dict[str, tuple[str, ...]],
    light: LightReader | None = None,
    spells: tuple[Spell, ...] = (),
) -> Iterator[RuleRow]:
    # The last rule table, with the headings above it and how a row of it is read: rows
    # cut off from it below, in the same section, are its rows.
    last: _Last | None = None
    # The last rule table of any section: rows under a heading of their own with no
    # header row are written for its columns, most likely.
    earlier: _Last | None = None
    previous: Block | None = None
    reasons = 0  # rows read from tables of refused moves (`reason_rows`)
    title = _doc_title(placed)
    for p in placed:
        block, before = p.block, previous
        previous = block
        if last is not None:
            earlier = last
        if last is not None and last.headings != p.headings:
            last = None
        example = aside_heading(p.headings, title, block if isinstance(block, Table) else None)
        if isinstance(block, (ItemList, Quote, Html)):
            reader.notices.extend(_refuse_enclosed(block, roles, light is not None, example))
        if isinstance(block, Table):
            if columns_of(block, TERM_ROLES, tuple(TERM_ROLES)) is not None:
                continue
            aside_by = _aside(p, title)
            if aside_by is not None and (
                _reads_as_rules(block, roles, light is not None) or _other_dialect(block, roles)
            ):
                last = None
                reader.notices.append(
                    aside_note(block.line, aside_by.where, aside_by.text, aside_by.line)
                )
                continue
            limited = limit_note(p.headings, title)
            if (
                limited is not None
                and limited not in reader.notices
                and _reads_as_rules(block, roles, light is not None)
            ):
                reader.notices.append(limited)
            light_read = light_columns(block, roles) if light is not None else None
            if light is not None and light_read is not None:
                last = _Last(block, light_read, p.headings, light.row_reader(p.group))
                reader.notices.extend(light_read.notices)
                reader.notices.extend(_ragged(block))
                _refuse_struck(block.rows, block.header)
                with _short(block):
                    read = light.rows(block, light_read, p.group)
                yield from read
                continue
            why = why_column(block, roles) if light is None else None
            if why is not None:
                last = None
                _refuse_struck(block.rows, block.header)
                with _short(block):
                    read = reason_rows(block, why, p.group, spells, reader, reasons)
                reasons += len(read)
                yield from read
                continue
            columns = _columns(block, roles)
            last = (
                _Last(block, columns, p.headings, _rule_reader(reader, p.group))
                if columns
                else None
            )
            if columns is None and light is None:
                _refuse_other_dialect(block, roles, placed)
            note = _not_read(block, roles) if columns is None else None
            if columns is None and light is not None:
                note = _without_from(block, roles) or note
            if note is not None:
                reader.notices.append(note)
            if columns:
                reader.notices.extend(columns.notices)
                reader.notices.extend(_ragged(block))
                kind = group_kind(p.group)
                _refuse_struck(block.rows, block.header)
                for row in block.rows:
                    with _short(block, row.line):
                        rule = reader.rule(row, columns, p.group, kind)
                    yield rule
        elif (
            isinstance(block, ItemList) and light and (said := keeping_over(p.headings, before))[0]
        ):
            if example is not None:
                reader.notices.append(
                    aside_note(block.line, AsideBy.of(example), example.text, example.line, "list")
                )
                continue
            items = [line for item in block.items for line in _item_lines(item)[:1]]
            yield from light.keeping(items, said[0], block.line, said[1])
        elif isinstance(block, LooseRows):
            if last is not None:
                blank = before is last.table and not block.after_text
                html = before if isinstance(before, Html) and not block.after_text else None
                _refuse_struck(block.rows, last.table.header)
                yield from _detached(block, last, reader, blank, html)
            elif (
                earlier is not None
                and example is None
                and p.headings
                and not block.after_text
                and all(len(r.cells) == len(earlier.table.header.cells) for r in block.rows)
            ):
                _refuse_struck(block.rows, earlier.table.header)
                yield from _detached(block, earlier, reader, False, headed=p.headings[-1])
        elif isinstance(block, BrokenTable):
            after_rule_table = last is not None and block.line == last.table.end_line + 1
            if example is None and (after_rule_table or _names_rule_columns(block.text, roles)):
                fail(block.reason, block.bad_line)
            last = None


def _columns(table: Table, roles: dict[str, tuple[str, ...]]) -> Columns | None:
    """The table's columns by role (`rows.columns_of`). A transition table that lacks
    roles and has columns no role is called may be written for a project's own names:
    the error says how to name them as well."""
    try:
        return columns_of(table, roles)
    except SpecError as err:
        found, unknown = _headers(table, roles)
        if not unknown:
            raise
        missing = [r for r in REQUIRED if r not in found]
        fail(
            f"{err.message}; or, for a project's own names, {_naming(found, missing, unknown)}",
            err.line,
        )


# A cell that numbers a row (`1`, `#2`, `R3`, `T-4`, `12a`) rather than naming an event.
_NUMBERING = re.compile(r"#?[A-Za-z]{0,3}[-_.]?\d+[a-z]?")


def _events_first(table: Table, found: set[str]) -> Notice | None:
    """Why a table of moves whose first column, named for no role, holds names (`| Transition
    | From | To |` of `pay`, `ship`) and that has no trigger column is not read: its names
    are most likely the events, and the notice says how to read them so; None where the
    column numbers the rows or the table has a trigger column."""
    first = table.header.cells[0].plain.strip()
    cells = [" ".join(row.cells[0].plain.split()) for row in table.rows if row.cells]
    names = [c for c in cells if normal(c) not in EMPTY]
    if "trigger" in found or not names or any(_NUMBERING.fullmatch(c) for c in names):
        return None
    if not all(identifier(c) for c in names):
        return None
    shown = ", ".join(repr(c) for c in list(dict.fromkeys(names))[:3])
    return Notice(
        "unknown_column",
        f"this table is not read as transition rules: its first column {first!r} is named "
        "for no role, and it has no Event column; its cells "
        f"({shown}) name the moves, most likely their events: call the column 'Event', or "
        f"name it under [tool.spellbook] in pyproject.toml: "
        f"columns = {{ trigger = [{json.dumps(first)}] }}",
        table.line,
    )


def _not_read(table: Table, roles: dict[str, tuple[str, ...]]) -> Notice | None:
    """Why a table that names some transition roles, too few to be read, is not read.

    Where its other columns are named for no role and it looks like a transition table
    (an ID column and another role's, or three roles'), it may be one whose columns a
    project names in its configuration (`columns` under `[tool.spellbook]`), read here
    without it: a warning (`unknown_column`) names those columns and how to name them,
    since its rows would be missing from the machine without a word. Otherwise a note
    (`table_skipped`, a summary like `| From | To |`)."""
    found, unknown = _headers(table, roles)
    present = [r for r in REQUIRED if r in found]
    first = table.header.cells[0].plain.strip()
    moves = {"current state", "next state"} <= found and "id" not in found and first in unknown
    if moves and (named_events := _events_first(table, found)) is not None:
        return named_events
    if not unknown or not (len(present) >= 3 or ("id" in present and len(present) >= 2)):
        return skipped(table, roles)
    if not {"next state", "trigger"} & found:  # `| ID | State | Description |`: says no move
        return skipped(table, roles)
    missing = [r for r in REQUIRED if r not in found]
    named = ", ".join(repr(h) for h in unknown[:-1]) + (" or " if len(unknown) > 1 else "")
    if moves:
        # `| # | From | Event | To |`: a table of moves but for a first column that numbers
        # the rows; naming it `id` makes the table the full dialect's, which needs more.
        return Notice(
            "unknown_column",
            f"this table is not read as transition rules: its first column {first!r} is "
            "named for no role, and a table of moves (`| From | Event | To |`) is read only "
            "where its first column is one of them (a first column of its own most likely "
            "numbers the rows, as an ID column): delete the column (rows are then numbered "
            "by position, R1, R2, ...), or, to keep its numbers as the rows' IDs, write the "
            f"table in the full dialect, `| ID | {' | '.join(role_title(r) for r in REQUIRED[1:])}"
            " |`, naming the column with `columns = { id = ["
            f"{json.dumps(first)}] }}` under [tool.spellbook] where it is not called `ID`",
            table.line,
        )
    return Notice(
        "unknown_column",
        "this table is not read as transition rules: it has columns for "
        f"{', '.join(role_title(r) for r in present)} but none for "
        f"{', '.join(role_title(r) for r in missing)}, and no column role is called "
        f"{named}{unknown[-1]!r}; if it is a transition table, "
        f"{_naming(found, missing, unknown)}, or verify the spec where its project's "
        "configuration applies",
        table.line,
    )


def _headers(table: Table, roles: dict[str, tuple[str, ...]]) -> tuple[set[str], list[str]]:
    """The roles a table's header names, and its columns that no role is called."""
    role_of = {normal(n): role for role, names in roles.items() for n in names}
    headers = [c.plain for c in table.header.cells]
    found = {role_of[normal(h)] for h in headers if normal(h) in role_of}
    return found, [h for h in headers if h.strip() and normal(h) not in role_of]


def _naming(found: set[str], missing: list[str], unknown: list[str]) -> str:
    """How a project names its own columns, for the roles a table lacks."""
    keys = [r.replace(" ", "_") for r in missing] + ([] if "response" in found else ["response"])
    example = f"columns = {{ {keys[0]} = [{json.dumps(unknown[0])}] }}"
    return (
        "name each column's role under [tool.spellbook] in pyproject.toml, e.g. "
        f"{example} (the keys: {', '.join(keys)})"
    )


@dataclass(frozen=True)
class _Last:
    """The last rule table read, the headings above it, and how a row of it is read
    (a row of a light table may be no rule: one that says a state has no way out)."""

    table: Table
    columns: Columns
    headings: tuple[Heading, ...]
    read: Callable[[TableRow, Columns], RuleRow | None]


def _rule_reader(reader: RowReader, group: str) -> Callable[[TableRow, Columns], RuleRow]:
    kind = group_kind(group)
    return lambda row, columns: reader.rule(row, columns, group, kind)


def _detached(
    block: LooseRows,
    last: _Last,
    reader: RowReader,
    blank: bool,
    html: Html | None = None,
    headed: Heading | None = None,
) -> Iterator[RuleRow]:
    """Rows cut off from the rule table above: read as that table's rows (what their
    author meant), and reported, since markdown does not show them as part of it. Rows
    under a heading of their own (`headed`) with no header row, as many cells as the
    last rule table's, are read with its columns and reported the same way."""
    table = last.table
    width = len(table.header.cells)
    if headed is not None:
        why = (
            f"under the heading {headed.text!r} (line {headed.line}), with no header row "
            "of its own: markdown shows the rows as a paragraph of '|' characters, not a "
            f"table; put the header row and its `|---|` line of line {table.line} above them"
        )
    elif html is not None:
        what = "an HTML comment" if html.comment else "a block of HTML"
        gap = (
            f" and the blank line at line {block.line - 1}"
            if block.line > html.end_line + 1
            else ""
        )
        why = (
            f"by {what} at line {html.line}{gap}: markdown ends a table at an HTML block, "
            "so the row shows as a paragraph of '|' characters; move the "
            f"{'comment' if html.comment else 'HTML'} out of the table (above or below it)"
            f"{' and delete the blank line' if gap else ''}"
        )
    elif blank:
        why = (
            f"by a blank line at line {block.line - 1}: markdown ends a table at a blank "
            "line, so the row shows as a paragraph of '|' characters; delete the blank line"
        )
    else:
        why = (
            "by text between them: markdown shows the row as part of that text; move the "
            "row up into the table"
        )
    for row in block.rows:
        if len(row.cells) != width:
            reader.notices.append(
                Notice(
                    "detached_row",
                    f"this line looks like a rule row but belongs to no table: it has "
                    f"{len(row.cells)} cells where the table above (line {table.line}) has "
                    f"{width}; join it to the table, with the table's cells",
                    row.line,
                )
            )
            continue
        rule = last.read(row, last.columns)
        what = f"rule {rule.id}" if rule is not None else "this row"
        reader.notices.append(
            Notice(
                "detached_row",
                f"{what} is cut off from its table (line {table.line}) {why}; it is "
                "read as a row of that table",
                row.line,
                rule.id if rule is not None else None,
            )
        )
        if rule is not None:
            yield rule


def _names_rule_columns(text: str, roles: dict[str, tuple[str, ...]]) -> bool:
    """Whether a line's cells name at least two of a transition table's roles."""
    cells = {normal(c) for c in split_cells(text)}
    return sum(bool(cells & {normal(n) for n in roles[r]}) for r in REQUIRED) >= 2


# Where a transition table markdown shows inside something else is, and the fix.
_ENCLOSED = {
    "quote": (
        "inside a block quote (its lines start with '>'), where it is not read: a spec's "
        "rules are read from tables outside block quotes, list items and HTML; move the "
        "table out of the block quote (take the '>' off its lines)"
    ),
    "alert": (
        "inside a GitHub alert (`> [!NOTE]`, `> [!WARNING]`), where it is not read: a "
        "spec's rules are read from tables outside block quotes, list items and HTML; move "
        "the table out of the alert (take the '>' off its lines; the alert's words can "
        "stay above it)"
    ),
    "list": (
        "inside a list item (indented under its '- ' or '1. '), where it is not read: a "
        "spec's rules are read from tables outside block quotes, list items and HTML; move "
        "the table out of the list (unindent its lines, with a blank line above)"
    ),
    "html": (
        "written as an HTML <table>, which is not read: write it as a markdown table, "
        "`| From | Event | To |`"
    ),
}


# A list item's text that says the table in it is an example (`for example:`): its line
# and its words.
_Said = tuple[int, str]


def _enclosed(
    block: Block, where: str = "", said: _Said | None = None
) -> Iterator[tuple[int, str, Table | str, _Said | None]]:
    """(line, where, the table or its header as written, the list item's text that says
    it is an example) of each table inside a list, a block quote or HTML: where is the
    outermost of these."""
    if isinstance(block, Html) and block.header:
        yield block.line, where or "html", " | ".join(block.header), said
    elif isinstance(block, Table) and where:
        yield block.line, where, block, said
    elif isinstance(block, BrokenTable) and where:
        yield block.line, where, block.text, said
    elif isinstance(block, ItemList):
        for item in block.items:
            mine = said
            for inner in item.blocks:
                if mine is None and isinstance(inner, Paragraph) and inner.lines:
                    text = " ".join(line.plain for line in inner.lines)
                    mine = (inner.lines[0].line, text) if aside(text) else None
                yield from _enclosed(inner, where or "list", mine)
    elif isinstance(block, Quote):
        for inner in block.blocks:
            yield from _enclosed(inner, where or ("alert" if block.alert else "quote"), said)


def _refuse_enclosed(
    block: Block, roles: dict[str, tuple[str, ...]], light: bool, example: Heading | None = None
) -> list[Notice]:
    """Refuse a transition table GitHub shows inside a block quote, an alert, a list
    item or HTML, at its line, with the fix; other tables there (a summary, a glossary)
    are not rules and stay unread. One under a heading that says it is an example, or in
    a list item whose text says so (`for example:`), is one: a note says so."""
    notes: list[Notice] = []
    for line, where, found, said in _enclosed(block):
        if isinstance(found, Table):
            rules = _reads_as_rules(found, roles, light)
        else:
            rules = _names_rule_columns(found, roles)
        if not rules:
            continue
        if example is not None:
            notes.append(aside_note(line, AsideBy.of(example), example.text, example.line))
        elif said is not None:
            notes.append(aside_note(line, AsideBy.LIST_ITEM, said[1], said[0]))
        else:
            fail(f"this transition table is {_ENCLOSED[where]}", line)
    return notes


def _reads_as_rules(table: Table, roles: dict[str, tuple[str, ...]], light: bool) -> bool:
    """Whether a table would be read as rules where it stood on its own."""
    if columns_of(table, TERM_ROLES, tuple(TERM_ROLES)) is not None:
        return False
    try:
        if light and light_columns(table, roles) is not None:
            return True
        if not light and why_column(table, roles) is not None:
            return True
        return bool(columns_of(table, roles))
    except SpecError:
        return True  # a transition table whose reading would be refused


def _refuse_struck(rows: Iterable[TableRow], header: TableRow) -> None:
    """Refuse a rule row with struck-out text in a cell: GitHub shows it crossed out, so
    it is no live part of the rule, and it must never reach anyone as an instruction."""
    for row in rows:
        for i, cell in enumerate(row.cells):
            shown = struck(cell.source)
            if not shown:
                continue
            column = header.cells[i].plain if i < len(header.cells) else ""
            fail(
                f"the {column or 'row'} cell has struck-out text, {shown}: GitHub shows it "
                "crossed out, so it is not read as part of the rule; delete it (or the whole "
                "row, if the rule is gone), or take the strike marks off if it is meant",
                row.line,
            )


def _colon_header(
    placed: list[_Placed], roles: dict[str, tuple[str, ...]]
) -> tuple[str, int] | None:
    """Why a table whose header names transition columns with a colon (`| From: |`) is
    not a transition table, and its line; None where no table is such."""
    for p in placed:
        if not isinstance(p.block, Table):
            continue
        cells = [c.plain for c in p.block.header.cells]
        bare = [c.strip().rstrip(":").strip() for c in cells]
        if bare != cells and _names_rule_columns(" | ".join(bare), roles):
            colons = ", ".join(repr(c) for c, b in zip(cells, bare, strict=True) if c != b)
            return (
                "not a state-machine spec as read (no transition table): this table's "
                f"header writes {colons} with a ':', and a column is known by its name "
                f"alone; take the ':' off, `| {' | '.join(bare)} |`",
                p.block.line,
            )
    return None


def _partial_table(
    placed: list[_Placed], roles: dict[str, tuple[str, ...]]
) -> tuple[str, int] | None:
    """Why the first table with a column of a transition table (a From, an Event or a
    To column, by its name) is none, and its line; None where no table has one. The
    spec has no transition table, so this is most likely the one its author meant."""
    wanted = {"current state": "From", "trigger": "Event", "next state": "To"}
    for p in placed:
        if not isinstance(p.block, Table):
            continue
        found = roles_found(p.block, light_roles(roles, p.block))
        named = [r for r in wanted if r in found]
        if not named or "id" in found:
            continue
        header = " | ".join(" ".join(c.plain.split()) for c in p.block.header.cells)
        missing = [wanted[r] for r in ("current state", "next state") if r not in found]
        if not missing:
            continue
        columns = ", ".join(f"{wanted[r]} ({_cell_named(p.block, found[r])})" for r in named)
        return (
            "not a state-machine spec as read (no transition table): this table "
            f"(`| {header} |`) has a column read as {columns} but none read as "
            f"{' or '.join(missing)}, which a transition table needs: name its "
            "columns `| From | Event | To |`, or give the names the spec uses under "
            '[tool.spellbook] (`columns = { current_state = ["Status"] }`)',
            p.block.line,
        )
    return None


def _without_from(table: Table, roles: dict[str, tuple[str, ...]]) -> Notice | None:
    """A warning for a table of a `| From | Event | To |` spec that has an Event and a To
    column but no From column (`| Event | Next state |` under `## State: review`): its
    rows are moves, and no machine has them. None for any other table."""
    found = roles_found(table, light_roles(roles, table))
    if "current state" in found or "trigger" not in found or "next state" not in found:
        return None
    event, to = _cell_named(table, found["trigger"]), _cell_named(table, found["next state"])
    return Notice(
        "table_unread",
        f"this table has an Event column ({event!r}) and a To column ({to!r}) but no From "
        "column, so none of its rows is read and the machine has none of its moves; write "
        "them in a `| From | Event | To |` table, each row naming the state it leaves",
        table.line,
    )


def _cell_named(table: Table, indexes: list[int]) -> str:
    return " ".join(table.header.cells[indexes[0]].plain.split())
