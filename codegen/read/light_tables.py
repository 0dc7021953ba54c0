"""Transition tables as people write them: `| From | Event | To |` and its kin, read into rule rows.

A table with a Current State and a Next State column (`From`/`To`, `From State`/`To
State`, `Current State`/`Next State`, `fromState`/`toState`) and no ID column is a
transition table of this kind, in a document where no table has an ID column (a spec
in the full dialect keeps one with no trigger column as a summary, `table_skipped`, and
refuses one with a trigger column, whose rows it would not read). Its rows:

- are numbered by position: `R1`, `R2`, ... in document order over every such table
  (the first row of the first table is R1), the ID every finding shows;
- read `-` (nothing) for a Condition or Action column the table does not have;
- keep the columns no role is called (`Actor`, `Idempotent`) as notes (`RuleRow.extra`);
  one whose header names a guard or what a move does (`If`, `Output`, `Callback`) and
  whose cells say something is an `unknown_column` warning (`_role_columns`);
- take the trigger `to_<state>` where the table has no trigger column: the `transitions`
  library's name for the move to a state (`to_SHIPPED`).

Names are kept as written (`paused-manual`, `Deleted logically`, `Facilitator
archives`) as the display names of the states and triggers (`State.title`,
`Spell.title`), and code uses their identifiers (`read.identifiers.identifier`). Two
names written differently that give one identifier are refused, naming both lines.
A trigger cell is one trigger, commas and all, unless every comma-separated part is an
identifier (`submit, resubmit`); a parenthesis that ends it (`Facilitator archives
(read-only retention)`) is a note, not part of the name, and one right after a name that
holds parameters (`addItem(item)`) a call's, not read (`event_parameters`).

A From cell `(start)`, `[*]`, `(none)`, `initial` or `start` names no state (but the
words `initial` and `start` where a To cell or the States list names that state, or the
row leaves it on an event: `_start_state`): its row says which state the machine starts
in, and its trigger is the creation event, kept as a note (no trigger of the machine:
`transitions` starts a model in its initial state). A To cell `(none)` declares the From
state terminal: a row (numbered after the tables' rows) refuses every trigger there, and
the state counts as a goal (no `dead_end`); its trigger cell, `Terminal state`, is a
note; so does a To cell `none` on a row with no event (`| archived | none | none |`),
where no From cell or States list names a state so. A row to such a marker on an event
(`| ASSIGNED | resolve | [*] |`, a statechart's way to end on it) is refused, naming
both forms that read: the marker is no state `resolve` could lead to. A To cell with
more than a state (`LIVE + EXTENDED`) is read as the state, the rest kept as a note,
with a `target_note` warning. A From cell that is a selector (`Any state`, `any
non-terminal`, `same`, `A / B`) reaches `rows.parse_selector` as written; a list `A, B`
has each name made an identifier. Under a heading that says its moves are refused
(`Invalid transitions`, `Blocked`), a table's rows refuse their trigger (`[BLOCKED]`); a
heading that says so of something else (`Handling rejected payments`) keeps them as
moves. A column that says why a move is refused (`Why Blocked`, `WHY`) refuses the rows'
trigger too, and is their Response; in a table with no Event column, the trigger is each
event the other rows lead to the To state on (`refused_events`), not `to_<state>`, but
one the From state's rows already take elsewhere (`refusal_agrees` where none is left).

In a spec whose tables have an ID column, a table of refused moves with their reasons
(`| From | To | Why Blocked |`, `why_column`) is read as blocked rows of the spells
whose `*Target*` is each To (`reason_rows`), not skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cache

from spellbook.records.words import counted

from ..model import Condition, Kind, Notice, RuleRow, Selector, Spell, StateSpec, Target
from ..spec_error import fail
from .identifiers import ascii_name, identifier, is_identifier, split_outside, unspelled
from .lexicon import EMPTY, normal
from .light_cells import (
    EventCell,
    column_notes,
    event_call,
    event_cell,
    guard_word,
    limiting,
    listed_states,
    parameters_note,
    shown,
    state_names,
    yes_columns,
)
from .markdown import Block, Cell, Heading, Inline, Paragraph, Segment, Table, TableRow
from .rows import (
    BACK,
    SAME,
    STAY,
    Columns,
    RowReader,
    columns_of,
    group_kind,
    light_roles,
    roles_found,
    title,
    written_row,
)

# The From cells that name no state but the start of the machine.
START = frozenset(
    {"(start)", "[*]", "(none)", "initial", "start", "(initial)", "__start__", "n/a", "none"}
    | {"null", "nil", "(new)"}
)
# The markers that are words, and so may be a state's name: `| initial | begin | configuring |`.
_START_WORDS = frozenset({"initial", "start", "n/a", "none", "null", "nil", "(new)"})
# The To cells that say the From state has no way out.
TERMINAL = frozenset({"(none)", "[*]", "(end)"})


# A trigger cell of a row to a terminal marker that names no event (`Terminal state`).
@cache
def _no_event() -> re.Pattern[str]:
    return re.compile(
        r"^(?:-|\u2014|\u2013|\u2012|\u2015|--|n/?a|none|\(none\))$|\b(?:terminal|final)\b",
        re.IGNORECASE,
    )


def terminal_row(layout: tuple[str, ...], state: str) -> str:
    """The row that says `state` has no way out, in the columns of a table of `layout`
    (`| done | - | (none) |` under `| From | Event | To |`, `| done | (none) | - |` under
    `| From | To | Trigger |`): its To cell `(none)`, every other cell `-`."""
    return written_row(layout, {"current state": state, "next state": "(none)"})


def _as_written(row: TableRow, layout: tuple[str, ...], target: str) -> str:
    """The row as written, its To cell `target`: the same row leading to a state."""
    cells = [" ".join(cell.plain.split()) or "-" for cell in row.cells[: len(layout)]]
    cells += ["-"] * (len(layout) - len(cells))
    cells[layout.index("next state")] = target
    return "| " + " | ".join(cells) + " |"


# A From cell the selector reading takes as written: a wildcard, a state kept, alternatives
# (unless it is a state's name: `All clear`, `Same day`).
_SELECTOR = re.compile(r"^(?:any|all|every|same)\b|^\*$|/| except ", re.IGNORECASE)
# From cells that look like a wildcard but are no form of one: refused, naming `Any state`.
_NOT_WILDCARD = frozenset({"(any)", "(all)", "(every)", "(any state)", "(all states)", "[any]"})
# Event cells that say the move happens by itself: no event someone sends.
_AUTOMATIC = frozenset(
    {"auto", "(auto)", "automatic", "(automatic)", "automatically", "(automatically)"}
)
# From cells that say "as the row above" (`same as above`, `ditto`, `"`, `〃`, `^`): a
# cell is not carried down, so each is refused, naming the state to repeat.
_DITTO = frozenset(
    {"same as above", "(same as above)", "as above", "ditto", "do.", '"', "\u3003", "^", "''"}
    | {"\u201d", "\u201c"}
)
# More ways to say "as the row above", in an Event or To cell as in a From cell.
_DITTO_WORDS = frozenset({"(ditto)", "(as above)", "(same)", "dto.", "id.", "idem"})
# To cells that are a dash alone: no state (`| archived | - | - |`, `| heating | tick | — |`).
_DASHES = frozenset({"-", "--", "\u2014", "\u2013", "\u2012", "\u2015"})
# Event cells that say "every event", which no row says: `*`, `any`, `any event`.
_EVERY_EVENT = frozenset(
    {"*", "(*)", "any", "(any)", "all", "(all)", "any event", "any other event", "all events"}
    | {"every event", "every other event", "all other events", "(any event)", "others", "*any*"}
)
# To cells that say the move leads nowhere.
_NOWHERE = frozenset({"n/a", "(n/a)", "none"})
# The names to offer where a state's or a trigger's (True) cell names none code can use.
_EXAMPLES = {False: "(`SHIPPED`, `Parcel shipped`)", True: "(`submit`, `Ship parcel`)"}
# A To cell the target reading takes as written.
_TARGET_WORDS = frozenset({"[blocked]"}) | SAME


# A note at the end of a name: `Facilitator archives (read-only retention)`.
@cache
def _note() -> re.Pattern[str]:
    return re.compile(r"^(?P<name>.*?\S)\s*\((?P<note>[^()]*)\)$")


# A state and what else a To cell says: `LIVE + AUCTION_EXTENDED`.
_MORE = re.compile(r"^(?P<name>[^+]*?\S)\s*(?P<rest>\+.*)$")
# A state and a guard or action after it: `review if valid`, `review [valid]`, `review /
# notify()`.
_GUARDED_TARGET = re.compile(
    r"(?P<name>[^\[\]/]*?\S)\s*(?:\s(?:if|when|unless)\s+\S.*|\[[^\]]+\]|/\s*(?P<other>\S.*))",
    re.IGNORECASE,
)
# A state and a note in parentheses after it: `done (terminal)`.
_NOTE_AFTER = re.compile(r"^(?P<name>[^()]*?\S)\s*(?P<rest>\([^()]*\))$")
# A state and a note after a long dash or a colon: `Delivered — final`, `Paid: captured`
# (a hyphen may be in a name: `Pre-flight - check` is not read so).
_DASH_NOTE = re.compile(
    r"^(?P<name>[^:\u2014\u2013]*?\S)(?:\s+[\u2014\u2013]\s*|:\s+)(?P<rest>\S.*)$"
)

# A heading over a table of moves that are refused: its rows block their trigger. The
# word of refusal must be about the moves (`Invalid transitions`, `Transitions not
# allowed`) or the whole heading (`Blocked`): `Handling rejected payments` is about
# payments, and its rows are moves the machine makes.
_REFUSAL = r"(?:invalid|blocked|rejected|forbidden|illegal|disallowed|not allowed|denied)"
_MOVE_NOUNS = (
    r"(?:state )?(?:transitions|moves|events|triggers|changes|paths|(?:transition|move) examples)"
)
_REFUSED = re.compile(
    rf"^(?:[\d.]+ *)?{_REFUSAL}$|\b{_REFUSAL} {_MOVE_NOUNS}\b"
    rf"|\b{_MOVE_NOUNS} (?:that|which)? ?(?:are )?{_REFUSAL}\b",
    re.IGNORECASE,
)


# A heading over a list of events that are legal everywhere and keep the state
# (`Events that never change state`): each item is a row `Any state | e | Same state`.
@cache
def keeping() -> re.Pattern[str]:
    return re.compile(
        r"(?:\bnever|\bnot|n't|\bwithout) chang\w* (?:the )?state|\bleaves? the state unchanged"
        r"|\bno state change|\bkeep\w* the state\b|\bstate unchanged\b|\bunchanged state\b"
        r"|^self[- ]?transitions?$",
        re.IGNORECASE,
    )


def keeping_over(headings: tuple[Heading, ...], before: Block | None) -> tuple[str, str]:
    """What says that the list after it names events that keep the state (`keeping()`):
    a heading above it (the innermost, or one a sub-heading is under), or a paragraph
    right before it ending in a colon (`**Events that never change state:**`); and a
    sub-heading in between, which is not read (`### In review only`). ("", "") for
    none."""
    last = headings[-1] if headings else None
    if (
        isinstance(before, Paragraph)
        and (last is None or before.line > last.line)
        and len(before.lines) == 1
    ):
        said = " ".join(before.lines[0].plain.split())
        if said.endswith(":") and keeping().search(said):
            return said.rstrip(": "), ""
    for i, heading in enumerate(reversed(headings)):
        if keeping().search(" ".join(heading.text.split())):
            return heading.text, headings[-1].text if i else ""
    return "", ""


# Where the cells a row is read from sit in the row handed to `RowReader.rule`.
_ROLES = ("id", "current state", "trigger", "condition", "next state", "action", "response")
# The roles of a column that says more of a move than where it leads (`_summary`).
_RULE_ROLES = frozenset({"id", "trigger", "condition", "action", "response"})
# The column of a table of refused moves that says why each is refused: its rows'
# Response (`| From | To | Why Blocked |`).
WHY = frozenset({"why blocked", "why refused", "why rejected", "why not allowed"})


def light_columns(table: Table, roles: dict[str, tuple[str, ...]]) -> Columns | None:
    """The columns of a transition table of this kind, by role: one with a Current State
    and a Next State column and no ID column; None for any other table, and for one whose
    first column no role is called (`| Nr | Current State | ... |`: most likely an ID
    column a project names, read without its configuration, which the full dialect's
    reading refuses naming the `columns` key)."""
    roles = light_roles(roles, table)
    found = roles_found(table, roles)
    if "current state" not in found or "next state" not in found or "id" in found:
        return None
    if not any(0 in columns for columns in found.values()):
        return None  # a first column no role is called: an ID column of the project's own
    columns = columns_of(table, roles, ("current state", "next state"), 2)
    if columns is None:
        return columns
    columns = replace(columns, notices=columns.notices + _role_columns(table, columns))
    if "trigger" in columns.roles:
        return columns
    return replace(columns, notices=columns.notices + _event_columns(table, columns))


# Words of a header no role is called that most likely names a guard (`If`, `Requires`,
# `Check`) or what a move does (`Output`, `Callback`, `What happens`): its cells are not read.
_GUARD_WORDS = frozenset(
    {"if", "unless", "requires", "require", "required", "requirement", "requirements"}
    | {"needs", "check", "checks", "guard", "guards", "condition", "conditions"}
    | {"precondition", "preconditions", "pre-condition", "pre-conditions", "allowed"}
    | {"prerequisite", "prerequisites", "constraint", "constraints", "criteria", "criterion"}
    | {"gate", "gates", "validation", "restriction", "restrictions"}
    # in other languages: German, Spanish, French, Italian, Dutch, Portuguese
    | {"bedingung", "bedingungen", "voraussetzung", "wächter", "condición", "condicion"}
    | {"condiciones", "condizione", "condizioni", "garde", "voorwaarde", "condição", "guardia"}
    | {"guarda", "warunek", "warunki", "pré-condition", "pré-conditions", "requisito"}
    | {"requisitos", "voraussetzungen", "条件", "前提条件", "pre-req", "pre-reqs", "prereq"}
    | {"prereqs", "permission", "permissions", "rule", "rules"}
)
_ACTION_WORDS = frozenset(
    {"action", "actions", "effect", "effects", "side-effect", "side-effects", "output"}
    | {"outputs", "callback", "callbacks", "hook", "hooks", "happens", "emits", "emit"}
    | {"steps", "tasks", "operations", "handler", "handlers", "runs"}
    | {"aktion", "aktionen", "wirkung", "acción", "accion", "acciones", "azione", "azioni"}
    | {"effet", "effets", "actie", "acties", "ação", "acao", "efecto", "efectos"}
)
# Headers that name what a move does only as a whole: `Then`, `Do`, `On transition`.
_ACTION_HEADERS = frozenset(
    {"then", "do", "does", "on transition", "on enter", "on exit", "on entry", "step", "task"}
)


def _role_columns(table: Table, columns: Columns) -> tuple[Notice, ...]:
    """An `unknown_column` warning for each column no role reads whose header names a
    guard or what a move does (`If`, `Requires`, `Output`, `Callback`, `Then`) and whose
    cells say something: none of it is read, so each row fires always and does nothing
    more; the warning names the role's column and the `columns` key that reads it."""
    notices = []
    for name, index in columns.extra:
        header = normal(name)
        words = _header_words(header)
        said = list(dict.fromkeys(c for c in _cells(table, index) if normal(c) not in _NOTHING))
        if header in WHY or not said:
            continue
        action = bool(words & _ACTION_WORDS) or header in _ACTION_HEADERS
        if words & _GUARD_WORDS or (not action and _all_conditions(said)):
            role, says, reads = "condition", "when a move may happen", "fires always"
        elif action or _all_actions(said):
            role, says, reads = "action", "what a move does", "does nothing more"
        else:
            notices.extend(_state_column(table, columns, name, index, said))
            continue
        key = f"columns = {{ {role} = [{json.dumps(name)}] }}"
        read = columns.roles.get(role)
        where = (
            f"only {table.header.cells[read].plain!r} is read as the {title(role)}: write "
            f"what it says there, or read this column instead with {key}"
            if read is not None
            else f"if it says {says}, call the column {title(role)!r}, or name it under "
            f"[tool.spellbook] in pyproject.toml: {key}"
        )
        if role == "condition" and words & _NEGATING:
            # `Unless`, `Blocked if`: its cells say when a move may NOT happen; read as
            # the Condition, every guard would be the opposite of what it says.
            first = f"({said[0]})" if re.search(r"\b(?:AND|OR|and|or)\b", said[0]) else said[0]
            where = (
                f"if its cells say when a move may not happen, write each one's negation "
                f"(`NOT {first}`) in a Condition column; naming {name!r} the Condition "
                "would read each as when the move happens"
            )
        elif role == "condition" and words & _AFTER:
            # `Result`, `Postcondition` of `sent.md exists`: what holds after the move,
            # which a Condition, asked before it, is not
            where = (
                "a Condition is asked before a move; if its cells say what holds after it, "
                "that is the target state's Indicators, or an Action that makes it so"
            )
        notices.append(
            Notice(
                "unknown_column",
                f"no column role is called {name!r}, so its cells "
                f"({', '.join(repr(c) for c in said[:3])}) are not read: each row "
                f"{reads}, whatever they say; {where}",
                table.line,
            )
        )
    return tuple(notices)


# Words of a header that say its cells are when a move may not happen (`Unless`,
# `Except when`, `Blocked if`): read as a Condition, each would say the opposite.
_NEGATING = frozenset(
    {"unless", "except", "blocked", "blocking", "not", "never", "forbidden", "disallowed"}
)


# Words of a header whose cells say what holds after the move (`Result`, `Ensures`).
_AFTER = frozenset(
    {"result", "results", "outcome", "outcomes", "ensures", "postcondition", "postconditions"}
    | {"post-condition", "post-conditions", "after", "afterwards", "then", "consequence"}
    | {"consequences", "guarantees", "post"}
)


def _all_conditions(said: list[str]) -> bool:
    """Whether every cell reads as conditions of the core (`invoice.md exists`), whatever
    the column is called (`Provided`, `Given`, `As long as`): a guard column."""
    from .conditions import parse_condition

    def read(cell: str) -> bool:
        condition = parse_condition(cell)
        return not condition.unknown and any(clause for clause in condition.clauses)

    return bool(said) and all(read(cell) for cell in said)


def _all_actions(said: list[str]) -> bool:
    """Whether every cell reads as actions of the core (`Create sent.md`), whatever the
    column is called (`Result`, `Outcome`, `Consequences`): what a move does."""
    from .action_phrases import parse_actions

    def read(cell: str) -> bool:
        actions = parse_actions(cell, "")
        return bool(actions) and all(a.verb != "instruct" and not a.problem for a in actions)

    return bool(said) and all(read(cell) for cell in said)


def _cells(table: Table, index: int) -> list[str]:
    """The text of each row's cell in column `index`, its spaces made one."""
    return [_cell_text(row, index) for row in table.rows]


def _state_column(
    table: Table, columns: Columns, name: str, index: int, said: list[str]
) -> list[Notice]:
    """An `unknown_column` warning for a column no role is called whose every cell names
    a state of the table (`| From | Event | Guard | To | Else |` of `incomplete`): a move
    it means (where a row leads when its guard fails) is read nowhere, so it never
    happens; it is a row of its own, written here from the first row that has one."""
    states = {
        normal(part)
        for role in ("current state", "next state")
        if role in columns.roles
        for cell in _cells(table, columns.roles[role])
        for part in re.split(r"\s*,\s*", cell)
    }
    if not all(normal(cell) in states for cell in said):
        return []
    example = next(filter(None, (_else_row(table, columns, row, index) for row in table.rows)), "")
    return [
        Notice(
            "unknown_column",
            f"no column role is called {name!r}, so its cells "
            f"({', '.join(repr(c) for c in said[:3])}) are not read, though each names a "
            "state of the table: no move leads there because of them. A move made when a "
            f"row's guard does not hold is a row of its own{f': `{example}`' if example else ''}",
            table.line,
        )
    ]


def _else_row(table: Table, columns: Columns, row: TableRow, index: int) -> str:
    """The row that says what `row`'s cell in column `index` means, a move to that state
    when the row's guard does not hold; "" for a row with no guard or no such cell."""
    said = {role: _cell_text(row, i) for role, i in columns.roles.items()}
    other, guard = _cell_text(row, index), said.get("condition", "")
    if normal(other) in _NOTHING or normal(guard) in _NOTHING:
        return ""
    said |= {"condition": f"NOT {guard}", "next state": other}
    return written_row(columns.layout(len(table.header.cells)), said)


def _cell_text(row: TableRow, index: int) -> str:
    """The text of the row's cell `index`, its spaces made one ("" past the row's end)."""
    return " ".join(row.cells[index].plain.split()) if index < len(row.cells) else ""


@cache
def _someone_does() -> re.Pattern[str]:
    """A cell that says what someone does, as an event does (`Customer pays`, `Reviewer
    approves the draft`): a capitalised subject, then a verb in `-s`; never an instruction
    (`Send the receipt`)."""
    verbs = "|".join(_ORDERS)
    return re.compile(
        rf"(?:The |A |An )?(?!(?:{verbs})\b)[A-Z][a-z]+ (?!is\b|has\b)[a-z]+(?:s|es)\b(?: .*)?$"
    )


# Verbs an instruction starts with (`Run tests`, `Notify reviewers`): never a subject.
_ORDERS = (
    *("Run", "Send", "Notify", "Update", "Create", "Delete", "Email", "Check", "Set", "Add"),
    *("Remove", "Close", "Open", "Review", "Merge", "Deploy", "Build", "Test", "Write"),
    *("Read", "Move", "Archive", "Copy", "Ask", "Tell", "Call", "Start", "Stop", "Mark"),
    *("Assign", "Post", "Publish", "Log", "Record", "Save", "Load", "Fetch", "Sync"),
    *("Reset", "Clear", "Lock", "Unlock", "Tag", "Label", "Ping", "Alert", "Escalate"),
    *("Approve", "Reject", "Cancel", "Retry", "Refund", "Charge", "Ship", "Pay", "Invoice"),
)


# Headers that most likely name what makes a move (`Message`, `Signal`).
_EVENT_HEADER_WORDS = frozenset(
    {"message", "messages", "signal", "signals", "input", "inputs", "stimulus", "cause"}
)
# Words that, anywhere in a header, say its cells are what makes a move (`Transition
# trigger`, `Event description`, `Triggered when`, and in other languages `Ereignis`).
_EVENT_WORDS = frozenset(
    {"trigger", "triggers", "triggered", "event", "events", "ereignis", "ereignisse"}
    | {"auslöser", "evento", "eventos", "disparador", "événement", "événements", "evenement"}
    | {"déclencheur", "declencheur", "gebeurtenis", "trigger-event"}
)


# Words of a header of notes on the moves, never their events: `Notes`, `Comment`.
_NOTE_WORDS = frozenset(
    {"note", "notes", "comment", "comments", "remark", "remarks", "why", "reason", "reasons"}
    | {"example", "examples", "owner", "owners", "who", "actor", "actors", "role", "roles"}
    | {"sla", "timeout", "since", "version", "link", "links", "ticket", "see"}
    | {"rationale", "explanation", "explanations", "details", "detail", "reasoning"}
    | {"justification", "context", "background", "commentary"}
)


@cache
def _happening() -> re.Pattern[str]:
    """A cell that may tell what happens: two words or more of letters, no figure, file,
    address or name of code (`Payment received`; not `2 days`, `welcome_email`)."""
    return re.compile(r"[^\W\d_][^\W\d_'-]*(?:\s+[^\W\d_][^\W\d_'-]*)+")


def _happens(cell: str) -> bool:
    """Whether a cell may tell what happens (`_happening`), its punctuation aside
    (`Payment received.`, `Approve order (manager)`, `Paid, order confirmed`), never a
    file, a path or a name of code (`sent.md`, `a/b`, `welcome_email`)."""
    if re.search(r"\w\.\w|[\d_/`]", cell):
        return False
    words = " ".join(re.sub(r"[.,;:!?()\[\]\"\u2018\u2019\u201c\u201d]", " ", cell).split())
    return bool(_happening().fullmatch(words))


def _header_words(header: str) -> set[str]:
    """The words of a header as `normal` writes it, letters of any language."""
    return set(re.findall(r"[^\W\d_][\w-]*", header))


def _event_columns(table: Table, columns: Columns) -> tuple[Notice, ...]:
    """A warning for each column of a table with no trigger column whose every cell is a
    name alone (`| From | Action | To |` of `submit`, `approve`): most likely its events,
    which the table without a trigger column reads as `to_<state>`."""
    notices = []
    extra = {i for name, i in columns.extra if normal(name) not in WHY}
    for index in sorted(i for r, i in columns.roles.items() if r in ("action", "condition")) + [
        i for name, i in columns.extra if normal(name) not in WHY
    ]:
        cells = [
            " ".join(row.cells[index].plain.split()) for row in table.rows if index < len(row.cells)
        ]
        said = [c for c in cells if normal(c) not in _NOTHING]
        name = table.header.cells[index].plain
        # names alone, or a column whose header says events (`Message`, `Signal`, `Input`
        # as the whole header: not `Test input`; `Transition trigger`, `Ereignis`)
        named = normal(name) in _EVENT_HEADER_WORDS or bool(
            _header_words(normal(name)) & _EVENT_WORDS
        )
        happened = all(_someone_does().match(c) for c in said)  # `Customer pays`
        # or text that differs row by row, in a column no note is called (`Payment received`)
        varied = (
            index in extra  # a column no role reads: an Action column says what is done
            and len(said) > 1
            and len(set(said)) == len(said)
            and all(_happens(c) for c in said)
            and not _header_words(normal(name)) & _NOTE_WORDS
        )
        if not said or not (named or happened or varied or all(is_identifier(c) for c in said)):
            continue
        holds = (
            "holds"
            if named
            else "holds what someone does"
            if happened and not all(is_identifier(c) for c in said)
            else "holds names alone"
            if all(is_identifier(c) for c in said)
            else "holds text that differs row by row"
        )
        notices.append(
            Notice(
                "event_column",
                f"this table has no Event column, so each move's trigger is read as "
                f"`to_<state>`, and its column {name!r} {holds} "
                f"({', '.join(repr(c) for c in dict.fromkeys(said[:3]))}), "
                f"{'which may be' if holds.endswith('row by row') else 'most likely'} the "
                f"events: if they are, rename the column {name!r} to 'Event'",
                table.line,
            )
        )
    return tuple(notices)


@dataclass
class WrittenName:
    """A name as written, where it was first written, and its identifier."""

    written: str
    line: int


@dataclass
class LightReading:
    """What the light tables of a document say beyond their rows."""

    states: dict[str, WrittenName] = field(default_factory=dict)
    triggers: dict[str, WrittenName] = field(default_factory=dict)
    # (state, line, the creation event as written) of a row from `(start)`.
    initial: tuple[str, int, str] | None = None
    # A state a row declares terminal -> (its line, the row's table's heading).
    terminal: dict[str, tuple[int, str]] = field(default_factory=dict)
    count: int = 0
    first_line: int = 0


class LightReader:
    """Reads the rows of a document's light tables, numbering them in document order."""

    def __init__(self, reader: RowReader) -> None:
        self.reader = reader
        self.reading = LightReading()
        self._folded: dict[tuple[str, str], WrittenName] = {}
        # The first row of each From cell, guard and events: its ID, line and note.
        self._noted: dict[str, tuple[str, int, str]] = {}
        # Events listed as keeping the state (their line), and moved on by a row (its
        # ID, line and move); those said to be both.
        self._kept: dict[str, int] = {}
        self._answered: frozenset[str] = frozenset()  # of the table being read (`rows`)
        self._moved: dict[str, tuple[str, int, str]] = {}
        self._told: set[str] = set()
        # The identifiers of the To cells of the tables read so far (and the one being read),
        # but the words that say no state (`stay`, `back`): a selector that is one of them
        # is a state (`All clear`, `_declared`).
        self._targets: set[str] = set()
        # The identifiers of the From cells of every light table (`foresee`), and of the
        # tables read so far: a To cell `current`, `self` or `back` that one of them names
        # is that state, whether its row comes before the rows leaving it or after.
        self._sources: set[str] = set()
        # The roles of the first table's columns, in order: a row suggested goes there.
        self.layout: tuple[str, ...] = ()
        # The rows of refused moves in a table with no Event column (`| From | To | Why
        # Blocked |`): their ID -> (the To state, line, From cell as written).
        self._refused_to: dict[str, tuple[str, int, str]] = {}
        # The From cell of the row read last, as written: the state a row under it that
        # says "as above" means.
        self._last_from = ""
        # Whether a table read has an Event column: where none has, every move's trigger
        # is `to_<state>`, and so is a refused move's.
        self._evented = False
        # Event cells written as calls, `addItem(item)`: how many, and the first (as
        # written, its event, line, and the place of its notice).
        self._calls = 0
        self._first_call = ("", "", 0, 0)
        # The line of the first table with an Event column (`foresee`): a table of From
        # and To alone beside it is a summary of the moves (`summary_of`), not rules.
        self._evented_at = 0
        self._summaries: list[tuple[Table, Columns]] = []
        self._own_section = False  # the table read is its heading's state's (`_state_section`)

    def rows(self, table: Table, columns: Columns, group: str) -> list[RuleRow]:
        if self._summary(columns) and _REFUSED.search(" ".join(group.split())) is None:
            self._summaries.append((table, columns))
            return []
        if not self.reading.first_line:
            self.reading.first_line = table.line
        read = []
        width = len(table.header.cells)
        self.layout = self.layout or columns.layout(width)
        self._evented = self._evented or "trigger" in columns.roles
        at = columns.roles.get("next state")
        for row in table.rows:
            if at is not None and at < len(row.cells):
                said = " ".join(row.cells[at].plain.split())
                if normal(said) not in STAY | BACK | _NOWHERE | _TARGET_WORDS | TERMINAL:
                    self._targets.add(identifier(said).lower())
        self._scan(table, columns)
        self._own_section = self._state_section(table, columns, group)
        # the columns of yes and no, whose `no` answers a question of the move
        self._answered = yes_columns((name, _cells(table, i)) for name, i in columns.extra)
        for row in table.rows:
            rule = self._row(row, columns, group, width)
            if rule is not None:
                read.append(rule)
        return read

    def _state_section(self, table: Table, columns: Columns, group: str) -> bool:
        """Whether a table under a heading of refused moves that is a state's name alone
        (`## Rejected`) is that state's section: every row of it leaves the state (it is
        then read as its moves). Where some rows name the state and others not, it is
        read as refused moves, and a `heading_limit` warning says the heading may be the
        state's."""
        heading = " ".join(group.split())
        at = columns.roles.get("current state")
        if at is None or _REFUSED.search(heading) is None:
            return False
        sources = [normal(_cell_text(r, at)) for r in table.rows]
        named = normal(re.sub(r"^[\d.]+\s*", "", heading))  # `### 3. Rejected`
        if sources and all(s == named for s in sources):
            return True
        to = columns.roles.get("next state")
        targets = [normal(_cell_text(r, to)) for r in table.rows] if to is not None else []
        if named in sources or named in targets:
            self.reader.notices.append(
                Notice(
                    "heading_limit",
                    f"the heading {heading!r} says the moves under it are refused, and it is "
                    f"the name of the state {heading} that rows of this table name: they are "
                    "all read as refused moves; if the table is that state's moves, call the "
                    f"heading `{heading} state` (or give the refused moves a heading of their "
                    "own, `Refused moves`)",
                    table.line,
                )
            )
        return False

    def foresee(self, tables: Iterable[Table], roles: dict[str, tuple[str, ...]]) -> None:
        """Note the From cells of every light table of the document before any is read."""
        for table in tables:
            columns = light_columns(table, roles)
            if columns is not None:
                self._scan(table, columns)
                if "trigger" in columns.roles and not self._evented_at:
                    self._evented_at = table.line

    def _summary(self, columns: Columns) -> bool:
        """Whether a table is a summary of the moves: a From and a To column and nothing
        a rule says beyond them (no Event, guard, action, response or why column), in a
        document whose other tables have an Event column (and not under a heading that
        says its moves are refused, which refuses them). Read as rules, its rows would
        be moves on `to_<state>` events of their own, with no guard: moves the tables
        beside it do not make."""
        if not self._evented_at or set(columns.roles) & _RULE_ROLES:
            return False
        return not any(normal(name) in WHY for name, _ in columns.extra)

    def joined_events(self) -> list[Notice]:
        """A `trigger_note` warning for each event read as one name from words joined by
        `,` or `;` (or with a note in parentheses inside them) where a part of them is
        another event of the tables (`Payment received (late fee added); manager waives`
        beside `Payment received`): most likely that event and one more, each missed
        where this one is read; said once per event, where no warning of the cell is."""
        known = self.reading.triggers
        noted = {n.line for n in self.reader.notices if n.kind == "trigger_note"}
        notices = []
        for key, name in known.items():
            if name.line in noted:
                continue
            bare = re.sub(r"\s*\([^()]*\)\s*", " ", name.written)
            parts = [p.strip() for p in re.split(r"[,;]", bare) if p.strip()]
            if len(parts) < 2 and bare.split() == name.written.split():
                continue
            same = [
                (p, known[k]) for p in parts if (k := identifier(p).lower()) in known and k != key
            ]
            if not same:
                continue
            part, other = same[0]
            notices.append(
                Notice(
                    "trigger_note",
                    f"the Event cell {name.written!r} is read as one event, {identifier(key)!r}, "
                    f"though its part {part!r} is the event of line {other.line}: a row that "
                    f"answers that event writes it alone, more events after `or` "
                    f"(`{' or '.join(parts)}`), and a note at the end of the cell in "
                    "parentheses; for one event, write its name without the punctuation",
                    name.line,
                )
            )
        return notices

    def summary_of(self, rows: tuple[RuleRow, ...]) -> list[Notice]:
        """Each summary table's moves (`_summary`) checked against the moves the rules
        make: a `summary_table` info saying how it was read, and a `summary_disagrees`
        warning for each move of it no rule makes (`(start) → X` where the machine does
        not start in X). A move to no state (`(none)`, `-`) is not checked, nor one from the
        start where no `(start)` row of the rules says where the machine starts."""
        made: set[tuple[str, str]] = set()
        for rule in rows:
            leads = rule.target
            if rule.current.wildcard:
                sources = {identifier(n).lower() for n in self.reading.states} - {
                    identifier(n).lower() for n in rule.current.names
                }
            else:
                sources = {identifier(n).lower() for n in rule.current.names}
            for source in sources:
                if leads.kind is Kind.TRANSITION and leads.name:
                    made.add((source, identifier(leads.name).lower()))
                elif leads.kind is Kind.NOOP:
                    made.add((source, source))
        notices = []
        known = {identifier(n).lower() for n in self.reading.states}
        initial = identifier(self.reading.initial[0]).lower() if self.reading.initial else ""
        for table, columns in self._summaries:
            moves, unchecked, missing = 0, [], []
            for row in table.rows:
                source, target = (
                    " ".join(row.cells[i].plain.split()) if i < len(row.cells) else ""
                    for i in (columns.roles["current state"], columns.roles["next state"])
                )
                move = f"{source} → {target}"
                if normal(target) in TERMINAL | _NOWHERE or normal(target) in _DASHES:
                    unchecked.append(move)
                    continue
                # `paid, cancelled`, `paid or cancelled`: each a move of the summary's
                written = [t.strip() for t in split_outside(target, _summary_targets())]
                written = [t for t in written if t] or [target]
                tos = [identifier(t).lower() for t in written]
                if normal(source) in START and not self._declared(source):
                    if not initial:  # where it starts is said later, if at all
                        unchecked.append(move)
                        continue
                    made_by_rule = tos == [initial]  # `(start) → X`: the machine starts in X
                else:
                    named = [identifier(n).lower() for n in state_names(source)[0]]
                    if not named:
                        unchecked.append(move)
                        continue
                    unmade = [
                        w
                        for w, to in zip(written, tos, strict=True)
                        if to not in known or not all((n, to) in made for n in named)
                    ]
                    made_by_rule = not unmade
                    if unmade and len(written) > 1:  # the moves of it no rule makes
                        move = f"{source} → {', '.join(unmade)}"
                moves += 1
                if not made_by_rule:
                    missing.append((move, row.line))
            checked = (
                f"{counted(moves, 'move')} checked against the rules"
                + (
                    f", {len(missing)} of them made by no rule"
                    if missing
                    else ", all made by a rule"
                )
                + (f"; not checked: {', '.join(unchecked)}" if unchecked else "")
            )
            notices.append(
                Notice(
                    "summary_table",
                    f"the table at line {table.line} has From and To columns and no Event "
                    f"column, beside the transition table at line {self._evented_at} that "
                    "has one: it is read as a summary of the moves, not as rules (its rows "
                    f"would be moves on `to_<state>` events of their own): {checked}",
                    table.line,
                )
            )
            notices.extend(
                Notice(
                    "summary_disagrees",
                    f"the summary table at line {table.line} says {move}, and no rule makes "
                    "that move: correct the summary, or add the row to the transition table "
                    f"at line {self._evented_at}",
                    line,
                )
                for move, line in missing
            )
        return notices

    def _scan(self, table: Table, columns: Columns) -> None:
        source = columns.roles.get("current state")
        for row in table.rows:
            if source is not None and source < len(row.cells):
                self._sources.add(identifier(" ".join(row.cells[source].plain.split())).lower())

    def row_reader(self, group: str) -> Callable[[TableRow, Columns], RuleRow | None]:
        """How a row cut off from a light table under `group` is read: as one more row
        of it, numbered after the rows before it (None for a row that is no rule)."""
        return lambda row, columns: self._row(row, columns, group, len(row.cells))

    def keeping(self, items: list[Inline], group: str, line: int, under: str = "") -> list[RuleRow]:
        """The rows of a list of events under a heading that says they keep the state
        (`keeping()`, `keeping_over`): each item, a name alone (`` `pr_opened` ``) or a
        name and a note after a dash or a colon (`` `ping` — heartbeat only ``), is the row
        `Any state | e | Same state`, numbered after the rows before it. A list with an
        item that is neither is not read, and a warning says which; so does a sub-heading
        `under` the heading that says so (`### In review only`), which is not read."""
        names = [_list_name(item) for item in items]
        if not names or any(n is None for n in names):
            bad = next((i for i, n in zip(items, names, strict=True) if n is None), None)
            self.reader.notices.append(
                Notice(
                    "keeping_unread",
                    f"the list under {group!r} is not read as events that keep the state, "
                    "so its events are no events of the machine: "
                    + (
                        f"its item at line {bad.line} is not a name alone, nor a name and a "
                        "note after a dash or colon"
                        if bad is not None
                        else "it has no items"
                    )
                    + "; write each event as its name (`pr_opened`), or as a row "
                    f"`{self._keeping_row('pr_opened')}`",
                    line,
                )
            )
            return []
        if under:
            self.reader.notices.append(
                Notice(
                    "keeping_unread",
                    f"the list under {under!r} is read as events that keep the state in every "
                    f"state, as {group!r} above it says; the sub-heading {under!r} is not "
                    "read: where it limits the states, write a row for each "
                    f"(`{self._keeping_row('pr_opened').replace('Any state', '<state>')}`)",
                    line,
                )
            )
        rows = []
        for item, named in zip(items, names, strict=True):
            assert named is not None
            name, note = named
            self.reading.count += 1
            rule_id = f"R{self.reading.count}"
            at = item.line
            trigger = self.trigger(name, at)
            cells = (
                _cell(at, rule_id),
                _cell(at, "Any state"),
                _cell(at, trigger),
                _cell(at, "-"),
                _cell(at, "Same state"),
                _cell(at, "-"),
                _cell(at, ""),
            )
            standard = Columns({role: i for i, role in enumerate(_ROLES)}, ())
            rule = self.reader.rule(TableRow(at, cells), standard, group, Kind.NOOP, light=True)
            rows.append(
                replace(
                    rule,
                    action="",
                    id_written=False,
                    numbered=True,
                    extra=rule.extra + ((("Trigger note", note),) if note else ()),
                )
            )
            self._kept.setdefault(trigger.lower(), at)
            self._both(trigger.lower())
        return rows

    def _both(self, trigger: str) -> None:
        """A warning where an event is listed as keeping the state and a row moves on it."""
        kept, moved = self._kept.get(trigger), self._moved.get(trigger)
        if kept is None or moved is None or trigger in self._told:
            return
        self._told.add(trigger)
        rule, line, move = moved
        name = self.reading.triggers[trigger].written
        self.reader.notices.append(
            Notice(
                "keeping_moves",
                f"{name!r} is listed at line {kept} as an event that keeps the state, and row "
                f"{rule} (line {line}) moves {move} on it: whichever comes first wins where "
                "both apply; drop the event from the list, or the row",
                max(kept, line),
            )
        )

    def _keeping_row(self, event: str) -> str:
        """The row that says `event` keeps the state everywhere, in the columns of the
        first table (or `| From | Event | To |` where it has no trigger column)."""
        layout = self.layout if "trigger" in self.layout else ("current state", "trigger")
        if "next state" not in layout:
            layout = (*layout, "next state")
        said = {"current state": "Any state", "trigger": event, "next state": "Same state"}
        return written_row(layout, said)

    # -- names --

    def _name(self, names: dict[str, WrittenName], written: str, line: int, what: str) -> str:
        """The identifier of a name as written; the first spelling of an identifier is
        its display name, and another spelling of it is refused. A ditto (`same as above`)
        names nothing: a cell is not carried down."""
        said = " ".join(written.lower().split())
        if (said in _DITTO or said in _DITTO_WORDS) and (
            said not in names and said not in {n.lower() for n in names}
        ):
            fail(
                f"{what} {written!r} says `as the row above`, which names no "
                f"{'event' if what == 'trigger' else 'state'}: a cell is not carried down "
                "from the row above; write it again",
                line,
            )
        name = identifier(written)
        lost = unspelled(written)
        if lost:
            latin = ascii_name(written)
            fail(
                f"{what} {written!r} has "
                + (f"a word, {lost!r}, with " if name else "")
                + "no ASCII letter or digit, and the names code uses "
                "(in the generated module, the state file and `spell`) are ASCII: write its "
                "name in ASCII letters "
                + (f"(`{latin}`)" if latin else _EXAMPLES[what == "trigger"])
                + " wherever the spec names it",
                line,
            )
        if not name:
            fail(
                f"{what} {written!r} has no letter or digit to name it by: write a name "
                + _EXAMPLES[what == "trigger"],
                line,
            )
        key = name.lower() if what == "trigger" else name
        # `Draft` and `draft` are one name to a reader: never two states
        seen = names.get(key) or self._folded.get((what, name.lower()))
        if seen is None:
            names[key] = self._folded[(what, name.lower())] = WrittenName(written, line)
        elif identifier(seen.written) == name and written.strip() == name:
            pass  # the identifier itself (as a suggestion of the verifier writes it)
        elif identifier(seen.written) == name and seen.written == name:
            # the name as written, seen after its identifier
            names[key] = self._folded[(what, name.lower())] = WrittenName(written, seen.line)
        elif " ".join(seen.written.split()) != " ".join(written.split()):
            fail(
                f"{what} {written!r} and {seen.written!r} (line {seen.line}) are two names for "
                f"one identifier, {name} (in any case): write them alike"
                + _unalike(written, seen.written),
                line,
            )
        return name

    def state(self, written: str, line: int) -> str:
        return self._name(self.reading.states, written, line, "state")

    def trigger(self, written: str, line: int) -> str:
        return self._name(self.reading.triggers, written, line, "trigger")

    # -- one row --

    def _row(self, row: TableRow, columns: Columns, group: str, width: int) -> RuleRow | None:
        def cell(role: str) -> Cell | None:
            index = columns.roles.get(role)
            return row.cells[index] if index is not None and index < len(row.cells) else None

        def plain(role: str) -> str:
            found = cell(role)
            return " ".join(found.plain.split()) if found is not None else ""

        def shown_of(role: str, what: str) -> str:
            found = cell(role)
            return shown(found, what) if found is not None else ""

        line = row.line
        notes: list[tuple[str, str]] = []
        for role, what in (("current state", "From"), ("next state", "To"), ("trigger", "Event")):
            self.reader.special(cell(role), what)
        source, target = shown_of("current state", "From"), shown_of("next state", "To")
        trigger_text = shown_of("trigger", "Event")
        start = normal(source) in START and not self._start_state(source)
        if normal(target) in TERMINAL or self._no_state(target, trigger_text):
            if start:
                fail(f"rule row leads from {source} to {target}: it names no state", line)
            layout = columns.layout(width)
            if trigger_text and not _no_event().search(trigger_text):
                fail(
                    f"rule row leads from {source} to {target} on {trigger_text!r}: {target} is "
                    "no state, and a To cell of it says the From state has no way out, not "
                    f"where {trigger_text!r} leads; name the state it leads to, "
                    f"`{_as_written(row, layout, '<state>')}`, or say {source} has no way "
                    f"out: `{terminal_row(layout, source)}`",
                    line,
                )
            if source and not start:
                unread = _unread("", plain("condition"), plain("action"), _NOTHING)
                if unread:
                    fail(
                        f"the To cell {target} says {source} has no way out, and this row also "
                        f"names {unread}, which a terminal state cannot have: leave those "
                        "cells `-`, or make the row a move to a state of its own "
                        f"(`{_as_written(row, layout, 'ENDED')}`)",
                        line,
                    )
                self.reading.terminal.setdefault(self.state(source, line), (line, group))
            return None
        if not source or (normal(source) in _DITTO and not self._declared(source)):
            above = (
                f"; a cell is not carried down from the row above: repeat {self._last_from!r}"
                if self._last_from
                else ""
            )
            fail(
                (
                    f"rule row has the From cell {source!r}, which names no state"
                    if source
                    else "rule row has an empty 'From' cell"
                )
                + ": name the state the row leaves, "
                "`(start)` for the state the machine starts in, or `Any state`" + above,
                line,
            )
        nested = re.fullmatch(r"(?P<parent>.+?)\s*(?:\.|::|/|>)\s*\*+", source or "")
        if nested is not None:  # `review.*`: every state under review, never review itself
            fail(
                f"the From cell {source!r} names the states under {nested['parent']!r}, a "
                "wildcard of nested states this reading does not take (it is not "
                f"{nested['parent']!r} itself): list the states it means, `A, B`, or write a "
                "row for each",
                line,
            )
        from_cell = "" if start else self._source(source, line)
        self._last_from = source
        if not target:
            fail(
                "rule row has an empty 'To' cell: name the state the row leads to, "
                "`(none)` for a state with no way out, or `Same state`",
                line,
            )
        target_cell, more = self._target(target, line)
        if more:
            notes.append(("Next State note", more))
        if start:
            unread = _unread("", plain("condition"), plain("action"), _NOTHING)
            if unread:
                fail(
                    f"a `{source}` row says where the machine starts ({target_cell}); it also "
                    f"names {unread}, which the start cannot have (a `transitions` model "
                    "starts in its initial state: no guard is asked, no callback runs); "
                    "leave those cells `-`, or give the start a state of its own and make "
                    "this a row from it",
                    line,
                )
            if (
                normal(source) in _START_WORDS
                and trigger_text
                and normal(trigger_text) not in (_NOTHING | _DASHES)
            ):  # `| Start | begin | Details |`: a wizard's first page, as often as the marker
                self.reader.notices.append(
                    Notice(
                        "states_unread",
                        f"this row's {source!r} is read as where the machine starts, no state "
                        f"of it: it starts in {target_cell}, and {trigger_text!r} is kept as a "
                        f"note, no event of it; if {source} is a state the workflow waits in "
                        f"for {trigger_text}, declare it (a row leading to it, or a States "
                        f"list); if not, write `(start)` for it, and `-` for the event",
                        line,
                    )
                )
            if self.reading.initial is None:
                self.reading.initial = (target_cell, line, trigger_text)
            elif self.reading.initial[0] != target_cell:
                fail(
                    f"two rows say where the machine starts: line {self.reading.initial[1]} "
                    f"in {self.reading.initial[0]}, this one in {target_cell}; keep one",
                    line,
                )
            return None
        has_trigger = "trigger" in columns.roles
        if has_trigger and normal(trigger_text) in TERMINAL:
            layout = columns.layout(width)
            fail(
                f"rule row leads from {source} to {target} on {trigger_text}, which names no "
                f"event: name the event that leads to {target}, or, if {source} has no way "
                f"out, say so: `{terminal_row(layout, source)}`",
                line,
            )
        self.reading.count += 1
        rule_id = f"R{self.reading.count}"
        event = event_cell(cell("trigger") or _cell(line, "")) if has_trigger else None
        triggers = self._triggers(event, target_cell, line, notes)
        if event is not None:
            key = f"{from_cell} | {plain('condition')} {event.guard} | {', '.join(triggers)}"
            self._event_notices(event, trigger_text, notes, key, line)
        refused = (
            # a heading that is the name of the state every row of its table leaves
            # (`### Rejected` over the moves out of a state called Rejected) is its section
            _REFUSED.search(" ".join(group.split())) is not None and not self._own_section
        ) or any(normal(name) in WHY for name, _ in columns.extra)
        if refused and event is None:
            self._refused_to[rule_id] = (target_cell, line, source)
        cells = (
            _cell(line, rule_id),
            _cell(line, from_cell),
            _cell(line, ", ".join(triggers)),
            _said(cell("condition"), event.guard if event else "", "guard", trigger_text, line),
            _cell(line, "[BLOCKED]" if refused else target_cell),
            _said(cell("action"), event.action if event else "", "action", trigger_text, line),
            cell("response") or _why(row, columns) or _cell(line, ""),
        )
        extra = tuple(
            (name, row.cells[i] if i < len(row.cells) else _cell(line, ""))
            for name, i in columns.extra
            if normal(name) not in WHY
        )
        self.reader.notices.extend(
            column_notes(
                ((name, found.plain) for name, found in extra), rule_id, line, self._answered
            )
        )
        width = len(cells)
        standard = Columns(
            {role: i for i, role in enumerate(_ROLES)},
            tuple((name, width + i) for i, (name, _) in enumerate(extra)),
        )
        rule = self.reader.rule(
            TableRow(line, (*cells, *(c for _, c in extra))),
            standard,
            group,
            group_kind(group),
            light=True,
        )
        if rule.target.kind is Kind.TRANSITION and rule.target.name not in rule.current.names:
            for trigger in triggers:
                move = f"{source} → {rule.target.name}"
                self._moved.setdefault(trigger.lower(), (rule_id, line, move))
                self._both(trigger.lower())
        return replace(
            rule,
            action=rule.action if "action" in columns.roles or (event and event.action) else "",
            extra=rule.extra + tuple(notes),
            id_written=False,
            numbered=True,
        )

    def _no_state(self, written: str, event: str) -> bool:
        """Whether a To cell `none` (no state the spec names so) on a row with no event
        (`| archived | none | none |`) says, as `(none)` does, that the From state has no
        way out; on an event it is refused (`_target`)."""
        said = " ".join(event.split())
        return (
            normal(written) == "none"
            and not self._known(written)
            and not (said and not _no_event().search(said))
        )

    def _known(self, written: str) -> bool:
        """Whether the spec names a state so: in its States list or a From cell."""
        name = identifier(written).lower()
        return ("state", name) in self._folded or name in self._sources

    def refused_events(self, rows: tuple[RuleRow, ...]) -> tuple[RuleRow, ...]:
        """`rows` with each row of refused moves from a table with no Event column (`| From
        | To | Why Blocked |`, or `| From | To |` under `Invalid transitions`) refusing the
        events the other rows lead to its To state on, not a `to_<state>` no one sends (where
        no table has an Event column, `to_<state>` is every move's trigger, and stays).

        In a From state a row names, an event is refused where no row takes it there, or
        a row takes it to the To state (a conflict the author sees); an event the From
        state's rows already take elsewhere is not (`draft --submit--> review` beside
        `review --submit--> published`: `| draft | published |` leaves submit alone). A row
        with nothing left to refuse is dropped, with a `refusal_agrees` info: the tables
        already agree. A To state no row leads to on an event is an error naming the row
        to write."""
        if not self._refused_to or not self._evented:
            return rows
        leading: dict[str, list[str]] = {}
        moves = [r for r in rows if r.id not in self._refused_to]
        for rule in moves:
            name = rule.target.name
            if rule.target.kind is not Kind.TRANSITION or not name:
                continue
            events = leading.setdefault(name, [])
            events += [t for t in rule.triggers if t not in events]
        read = []
        for rule in rows:
            told = self._refused_to.get(rule.id)
            if told is None:
                read.append(rule)
                continue
            target, line, source = told
            events = leading.get(target, [])
            if not events:
                fail(
                    f"the row refuses the move {source} → {target}, and no row leads to "
                    f"{target} on an event, so there is no event to refuse: write the row "
                    f"with the event it refuses, `| {source} | <event> | [BLOCKED] |`",
                    line,
                )
            elsewhere = {e: _taken_elsewhere(moves, rule.current, e, target) for e in events}
            refused = tuple(e for e in events if not elsewhere[e])
            if refused:
                read.append(replace(rule, triggers=refused))
                continue
            taken = "; ".join(
                f"{e} in {state} {_outcome(rule_of, state)}: rule {rule_of.id}, line {rule_of.line}"
                for e in events
                for state, rule_of in elsewhere[e][:1]
            )
            self.reader.notices.append(
                Notice(
                    "refusal_agrees",
                    f"the row refusing the move {source} → {target} has no event to refuse: "
                    f"the tables already agree with it, as {source} takes each event that "
                    f"leads to {target} elsewhere ({taken}); the row is no rule. To refuse "
                    f"an event there, name it: `| {source} | <event> | [BLOCKED] |`",
                    line,
                )
            )
        return tuple(read)

    def _start_state(self, written: str) -> bool:
        """Whether a From cell that is a start marker's word (`initial`, `Start`) is a state
        of that name: one the spec declares (a States list, a To cell). A row leaving it on
        an event that nothing leads back to (`| start | create | draft |`) is the marker
        with its creation event."""
        return normal(written) in _START_WORDS and self._declared(written)

    def _declared(self, written: str) -> bool:
        """Whether a cell as written is a state the spec declares: in its States list,
        or in a To cell of its tables."""
        name = identifier(" ".join(written.split())).lower()
        return ("state", name) in self._folded or name in self._targets

    def _source(self, written: str, line: int) -> str:
        """A From cell: a state's identifier, a list's identifiers, or a selector as written."""
        negated = _NEGATED_FROM.fullmatch(" ".join(written.split()))
        if negated is not None:
            name = negated.group("name")
            fail(
                f"the From cell {written!r} says every state but {name}, which is written "
                f"`Any state except {name}`",
                line,
            )
        if normal(written) in _NOT_WILDCARD:
            fail(
                f"the From cell {written!r} is no form of a wildcard: write `Any state` for "
                "every state, or name the state",
                line,
            )
        if _SELECTOR.search(written) and "[" not in written and self._declared(written):
            # `All clear`, `Same day`, `A/B test`: a state's name, not a selector
            return self.state(" ".join(written.split()), line)
        names, note = state_names(written)
        if len(names) == 1 and not self._declared(written):
            names = listed_states(written, self._declared) or names
        if len(names) > 1 and identifier(" ".join(written.split())) not in self.reading.states:
            # `draft or review`, `draft<br>review`: each a state, but for a name a row
            # before led to as one state (`shipped and invoiced`)
            return ", ".join(self.state(name, line) for name in names)
        if note and not _SELECTOR.search(written):
            fail(
                f"the From cell {written!r} names a state and a note, {note!r}: a note is no "
                f"part of a state's name; write the state alone ({names[0]!r}), and the note "
                "in a column of its own",
                line,
            )
        written = " ".join(written.split())
        parts = _alternatives(written)
        if parts:  # `awaiting-payment / vending`: each part a state
            return ", ".join(self.state(part, line) for part in parts)
        if _SELECTOR.search(written):
            return written
        return ", ".join(self.state(part.strip(), line) for part in written.split(",") if part)

    def _target(self, written: str, line: int) -> tuple[str, str]:
        """A To cell's state (its identifier) and what else it says. A word that says the
        state stays (`stay`, `(no-op)`, `itself`) is `Same state`, one that says "the state
        before" (`(previous)`, `back`) or none (`n/a`) is refused, unless a state of that
        name is declared (a States list, a From cell, or a To cell that is not one of these)."""
        if normal(written) in _TARGET_WORDS:
            return written, ""
        cell = " ".join(written.split())
        noted = _keyword_note().fullmatch(cell)
        begun = noted or _keyword_note().match(cell)
        if noted is None and begun is not None and normal(begun["word"]) in _TARGET_WORDS:
            fail(  # `Same state (logs) then review`: no state of that name, nor the word alone
                f"the To cell {written!r} says {begun['word']!r} and more after its note "
                f"({cell[begun.end() :].strip()!r}): a To cell names one state, or says "
                "`Same state` or `[BLOCKED]`; write the rest in a column of its own, or a row "
                "of its own for another move",
                line,
            )
        if noted is not None and (
            normal(noted["word"]) in _TARGET_WORDS
            or (normal(noted["word"]) in STAY and not self._known(noted["word"]))
        ):  # `[BLOCKED] — not allowed`, `Same state (logs)`, `stays (no-op)`, `Same state ✅`
            word = noted["word"] if normal(noted["word"]) in _TARGET_WORDS else "Same state"
            said = "[BLOCKED]" if normal(word) == "[blocked]" else "Same state"
            self._target_said(written, f"read as {said}, {noted['rest']!r} kept as a note", line)
            return word, noted["rest"]
        words = normal(written)
        if words in STAY | BACK | _NOWHERE and not self._known(written):
            if words in STAY:
                if words.strip("()") in _MAY_NAME:  # `ignored`: a state's name as often
                    self._target_said(
                        written,
                        "read as Same state (the move keeps the state), no state of that name "
                        "being declared; if it names a state, declare it: give it a row of its "
                        f"own (`| {written} | - | (none) |` where it has no way out)",
                        line,
                    )
                return "Same state", ""
            said = (
                "the state before it, but this machine keeps no history of its states"
                if words in BACK
                else "no state, but this machine has no state of none"
            )
            fail(
                f"the To cell {written!r} says {said}: name the state the move leads to "
                "(a row for each state it may come from), write `Same state` where it stays, "
                "`[BLOCKED]` where the event is refused, or `(none)` with no event "
                "(`| <state> | - | (none) |`) where the state has no way out",
                line,
            )
        if words in _DASHES:
            fail(
                f"the To cell {written!r} names no state: write `Same state` where the move "
                "keeps the state, the row `| <state> | - | (none) |` where the From state has "
                "no way out, or name the state the move leads to",
                line,
            )
        guarded = _GUARDED_TARGET.fullmatch(" ".join(written.split()))
        if guarded is not None and self._known(guarded["name"]):
            other = guarded["other"] or ""
            if other and self._known(other.strip()):
                fail(
                    f"the To cell {written!r} names 2 states: a move leads to one; write a "
                    "row for each",
                    line,
                )
            fail(
                f"the To cell {written!r} names the state {guarded['name']!r} and a guard or "
                "an action: a To cell names the state alone; write the guard in a Condition "
                "column (or `event [guard]` in the Event cell), and the action in an Action "
                "column",
                line,
            )
        cell = " ".join(written.split())
        listed = [p for p in split_outside(cell, _listing_marks()) if p]
        if len(listed) == 1 and "/" in cell:  # `done/failed`, one a state it knows
            parts = cell.split("/")
            if all(is_identifier(p) for p in parts) and any(self._known(p) for p in parts):
                listed = parts  # (not `A/B test`, nor `A/B` of no state it knows)
        if len(listed) > 1:  # `done / failed`, `done, failed`: one new state, `done_failed`
            fail(
                f"the To cell {written!r} names {len(listed)} states ("
                + ", ".join(repr(p.strip()) for p in listed)
                + "): a move leads to one; write a row for each, with the guard that says "
                "when it goes there (or an event of its own)",
                line,
            )
        names, _ = state_names(written, target=True)
        if len(names) > 1:
            fail(
                f"the To cell {written!r} names {len(names)} states: a move leads to one; "
                "write a row for each",
                line,
            )
        written = " ".join(written.split())
        more = _MORE.match(written) or _NOTE_AFTER.match(written)
        if more is None and not self._known(written):  # `Delivered — final`, `Paid: captured`
            more = _DASH_NOTE.match(written)
        if more is not None:
            state = more.group("name")
            if normal(state) in SAME:  # `unchanged (logged)`: no state of its own
                self._target_said(
                    written, f"read as Same state, {more['rest']!r} kept as a note", line
                )
                return "Same state", more.group("rest")
            self.reader.notices.append(
                Notice(
                    "target_note",
                    f"the To cell {written!r} names a state and more: read as the state "
                    f"{state!r}, {more.group('rest')!r} kept as a note ("
                    + (
                        "a guard belongs in a Condition column, what else happens in an "
                        "Action column)"
                        if more.group("rest").startswith("(")
                        else "what else happens belongs in an Action column)"
                    ),
                    line,
                    f"R{self.reading.count + 1}",
                )
            )
            return self.state(state, line), more.group("rest")
        return self.state(written, line), ""

    def _target_said(self, written: str, said: str, line: int) -> None:
        """A `target_note` warning: how the To cell `written` is read."""
        self.reader.notices.append(
            Notice(
                "target_note",
                f"the To cell {written!r} is {said}",
                line,
                f"R{self.reading.count + 1}",
            )
        )

    def _triggers(
        self, event: EventCell | None, target: str, line: int, notes: list[tuple[str, str]]
    ) -> list[str]:
        if event is None:
            return [f"to_{target}"] if is_identifier(target) else [f"to_{identifier(target)}"]
        if len(event.names) > 1:  # `approve / accept`: each a trigger of the row
            return [self.trigger(name, line) for name in event.names]
        written = event.names[0]
        if not written:
            fail(
                "rule row has an empty trigger cell: write the event that makes the move, "
                "or leave the table without a trigger column for `to_<state>` triggers",
                line,
            )
        if event.literal:  # `` `approve or reject` ``: one name, as written
            return [self.trigger(written, line)]
        if (
            normal(written) in _EVERY_EVENT
            and identifier(written).lower() not in self.reading.triggers
        ):
            fail(
                f"the Event cell {written!r} says every event, which a row does not: name "
                "the events (`a or b`), a row for each, or, where every event not listed is "
                "refused, say so once: `Transitions not listed are rejected.`",
                line,
            )
        if normal(written) in _AUTOMATIC:
            fail(
                f"the Event cell {written!r} says the move happens by itself, and this machine "
                "moves only on events someone sends: make the row of the event that leads "
                f"into this row's From state lead on to {target} itself, or name the event "
                "that makes this move",
                line,
            )
        called = event_call(written)
        if called is not None:
            self._called(written, called, line)
            return [self.trigger(called, line)]
        note = _note().match(written) or _said_after().match(written)
        if note is not None and note.groupdict().get("colon"):
            # `approve: maintainers only` (a limit), never `Reviewer: approve` (who does it)
            note = note if limiting().search(note.group("note")) else None
        if note is not None:  # `close (withdrawn)`, `close — author withdrew`, `approve: admins`
            written = note.group("name")
            notes.append(("Trigger note", note.group("note")))
        if _sequence().search(written):
            fail(
                f"the Event cell {written!r} names events one after another: a row's move "
                "happens on one event; write a row for each, the first leading to a state "
                "the second leaves",
                line,
            )
        joined = re.split(r"\s+(?:&&?|\+)\s+", written)
        if len(joined) > 1 and all(is_identifier(p.strip()) for p in joined):
            mark = "&&" if "&&" in written else "&" if "&" in written else "+"
            fail(  # either event, or both at once: never said by the cell
                f"the Event cell {written!r} joins events with `{mark}`, which may mean "
                "either or both: write "
                f"`{', '.join(p.strip() for p in joined)}` where either makes the move, or a "
                "row for each",
                line,
            )
        parts = [p.strip() for p in written.split(",")]
        if len(parts) > 1 and all(is_identifier(p) for p in parts):
            return [self.trigger(p, line) for p in parts]
        return [self.trigger(written, line)]

    def _called(self, written: str, name: str, line: int) -> None:
        """Say once, in an `event_parameters` info at the first, that Event cells written
        as calls (`addItem(item)`) are read as their events, parameters unread; it counts
        the rows so written."""
        self._calls += 1
        if self._calls == 1:
            self._first_call = (written, name, line, len(self.reader.notices))
            self.reader.notices.append(Notice("event_parameters", "", line))
        first, event, at, index = self._first_call
        said = parameters_note(first, event, self._calls, self.reader.lexicon.own_code)
        self.reader.notices[index] = Notice("event_parameters", said, at)

    def _event_notices(
        self, event: EventCell, written: str, notes: list[tuple[str, str]], key: str, line: int
    ) -> None:
        """A warning for an Event cell whose reading may not be what its author meant:
        names parted by a slash (`submit / notify`: two events, or UML's event / action;
        `submit / notify reviewer`, read as the event and its action),
        and a note in parentheses (`submit (admin only)`), kept but not read; where two
        rows (of one From cell, guard and events: `key`) differ only by such notes, the
        warning says that is why they conflict."""
        rule = f"R{self.reading.count}"
        if event.slash:
            first, second = event.names[0], event.names[1]
            self.reader.notices.append(
                Notice(
                    "slash_events",
                    f"the Event cell {written!r} is read as {len(event.names)} events, "
                    f"{', '.join(repr(n) for n in event.names)}; a slash also reads as "
                    f"UML's `event / action` (the event {first!r} doing {second!r}): write "
                    f"`{first} or {second}` for {len(event.names)} events, or "
                    f"`{first} / {second}()` (or an Action column) for the event and its action",
                    line,
                    rule,
                )
            )
        if event.acted:
            first, action = event.names[0], event.action
            self.reader.notices.append(
                Notice(
                    "slash_events",
                    f"the Event cell {written!r} is read as UML's `event / action`: the event "
                    f"{first!r} doing {action!r}, which opens with a verb of actions "
                    f"({action.split()[0]!r}); write `{first} / {action}()` (or an Action "
                    f"column) to say so, or `{first} or {action}` for 2 events",
                    line,
                    rule,
                )
            )
        if event.shared:
            first, last = event.names[0], event.names[-1]
            whole = f"{first} {' '.join(last.split()[1:])}"
            self.reader.notices.append(
                Notice(
                    "trigger_note",
                    f"the Event cell {written!r} is read as {len(event.names)} events, "
                    f"{', '.join(repr(n) for n in event.names)}; if {first!r} shares the "
                    f"words after {last.split()[0]!r} ({whole!r}), write each event in full "
                    f"(`{whole} or {last}`)",
                    line,
                    rule,
                )
            )
        if event.joined:
            parts = event.joined
            self.reader.notices.append(
                Notice(
                    "trigger_note",
                    f"the Event cell {written!r} is read as one event, "
                    f"{identifier(event.names[0])!r}; its parts "
                    f"{', '.join(repr(p) for p in parts)} may each name an event: for "
                    f"{len(parts)} events write `{' or '.join(parts)}` (or a row for each); "
                    f"for one, write its name without the {event.joiner!r}",
                    line,
                    rule,
                )
            )
        note = next((text for name, text in notes if name == "Trigger note"), "")
        guarding = _guarding(event.names[0]) if len(event.names) == 1 else None
        if guarding is not None and not (event.guard or event.literal or note):
            name = event.names[0]
            self.reader.notices.append(
                Notice(
                    "trigger_note",
                    f"the Event cell {written!r} is read as one event, "
                    f"{identifier(name)!r}: from {guarding.group('word')!r} on it may say when "
                    "the move happens, which is not read as a guard, so the move happens "
                    "whatever it says; write a guard as `event if guard`, `event [guard]` or "
                    "in a Condition column, or the event as one name",
                    line,
                    rule,
                )
            )
        both = _and_guard(event.names[0]) if len(event.names) == 1 else None
        if both is not None and not (event.guard or event.literal or guarding or note):
            happens, holds = both
            self.reader.notices.append(
                Notice(
                    "trigger_note",
                    f"the Event cell {written!r} is read as one event, "
                    f"{identifier(event.names[0])!r}: after its 'and' it may say what must "
                    "hold for the move (a guard), which is not read, so two rows of one "
                    "event and two guards are two events; write "
                    f"`{happens} [{holds}]` (or the guard in a Condition column), or the "
                    "event as one name",
                    line,
                    rule,
                )
            )
        compared = _comparison().search(event.names[0]) if len(event.names) == 1 else None
        if compared is not None and not (event.guard or event.literal or guarding):
            self.reader.notices.append(
                Notice(
                    "trigger_note",
                    f"the Event cell {written!r} is read as one event, "
                    f"{identifier(event.names[0])!r}, though it compares "
                    f"(`{compared.group().strip()}`), which no event's name does: a "
                    "comparison is a guard (`event [x = y]` or a Condition column), and a "
                    "move on either of two things is two events (`event or other`) or two rows",
                    line,
                    rule,
                )
            )
        timed = _duration().search(event.names[0]) if len(event.names) == 1 else None
        if timed is not None and not (event.literal or guarding or compared or note):
            self.reader.notices.append(
                Notice(
                    "trigger_note",
                    f"the Event cell {written!r} is read as an event someone sends, "
                    f"{identifier(event.names[0])!r}, though it names a time "
                    f"({timed.group().strip()!r}): a machine moves when an event is sent, "
                    "never by a clock, so this move happens only when that event is; to move "
                    "once the state has lasted so long, give the row of an event that is "
                    "sent the condition `in this state for more than N minutes`, or have a "
                    "timer of the project's own send the event",
                    line,
                    rule,
                )
            )
        seen = self._noted.setdefault(key, (rule, line, note))
        pair = ""
        if seen[0] != rule and seen[2] != note:
            said = " and ".join(f"'({n})'" if n else "none" for n in (seen[2], note))
            pair = (
                f"rows {seen[0]} (line {seen[1]}) and {rule} differ only by their notes "
                f"({said}), which are not read, so both are read as the same event in the "
                "same state: that is why they conflict"
            )
        if note:
            message = (
                f"the Event cell {written!r} is read without its note '({note})', which is "
                "kept but not read: the move happens whatever the note says"
                + (f"; {pair}" if pair else "")
                + "; write a guard as `event [guard]` or in a Condition column, more events "
                "as `event or other`, and what else happens in an Action column"
            )
        elif pair:
            message = (
                f"the Event cell {written!r}: {pair}; write each row's guard as `event [guard]`"
            )
        else:
            return
        self.reader.notices.append(Notice("trigger_note", message, line, rule))


# A time an Event cell names (`30 minutes of inactivity`, `every 5 minutes`, `24h`).
@cache
def _duration() -> re.Pattern[str]:
    units = r"secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|wks?|weeks?|months?"
    days = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?"
    return re.compile(
        rf"(?:\bevery\s+)?(?<![\w.])\d+(?:[.,]\d+)?\s*(?:{units})(?![\w])"
        # a time of day or a day: `at 17:00`, `at 5pm`, `at midnight`, `daily`, `on Monday`
        r"|\bat\s+(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?|midnight|noon)(?![\w:])"
        r"|(?<![\w:])\d{1,2}:\d{2}(?![\w:])"
        r"|\b(?:daily|nightly|hourly|weekly|monthly|yearly)\b"
        rf"|\bevery\s+(?:day|night|hour|morning|evening|week|month|year|{days})\b"
        rf"|\bon\s+(?:{days})\b|\bend\s+of\s+(?:day|week|month|year)\b",
        re.IGNORECASE,
    )


# A comparison in words of an Event cell (`auto-approve = true`, `retries >= 3`).
@cache
def _comparison() -> re.Pattern[str]:
    return re.compile(r"\s(?:==?|!=|<=?|>=?|[\u2264\u2265\u2260])\s|(?:==|!=|<=|>=)")


def _and_guard(name: str) -> tuple[str, str] | None:
    """An event's name that joins two clauses with `and` (`webhook arrives AND amount
    matches`: capital `AND`, or two parts of two words or more each), as (what happens,
    what holds); None for one that names a compound event (`save and close`)."""
    found = re.search(r"\s(and)\s", name, re.IGNORECASE)
    if found is None:
        return None
    happens, holds = name[: found.start()].strip().rstrip(","), name[found.end() :].strip()
    if (
        "," in happens  # `a, b and c`, `a, b, and c`: a list told in a row
        or ";" in happens
        or re.match(r"(?:both|either|neither)\s", happens, re.I)
    ):
        return None  # steps told in a row, a subject of two (`Both x and y`)
    capital = re.search(r"(?<!\S)AND(?!\S)", name) is not None
    if capital or (len(happens.split()) >= 2 and len(holds.split()) >= 2):
        return happens, holds
    return None


def _guarding(name: str) -> re.Match[str] | None:
    """The first word of an event's name of several words that may begin a guard
    (`GUARD_WORDS`) with more after it: `approve once CI is green`, `reject, provided
    ...`, `After 24 hours ...`, `If CI fails`."""
    for found in guard_word().finditer(name):
        start, end = found.start(), found.end()
        if (start == 0 or name[start - 1] in " \t\n,;") and re.match(r"\s+\S", name[end:]):
            return found
    return None


# An item of a list of events: its name, and a note after a dash or a colon.
@cache
def _named_item() -> re.Pattern[str]:
    return re.compile(r"^(?P<name>[^\s:]+?)(?:\s*:|\s+[-\u2013\u2014])\s+(?P<note>\S.*)$")


def _list_name(item: Inline) -> tuple[str, str] | None:
    """The name an item of a list is and the note after it: written alone (`` `pr_opened`
    ``, `pr_opened`), or with a note after a dash or a colon (`` `ping` — heartbeat only
    ``, `ping: heartbeat`); None for any other item."""
    parts = [seg for seg in item.segments if seg.text.strip()]
    if not parts or parts[0].kind not in ("code", "text"):
        return None
    full = "".join(seg.text for seg in item.segments).strip()
    if len(parts) == 1 and is_identifier(full):
        return full, ""
    found = _named_item().match(full)
    if found is None or not is_identifier(found.group("name")):
        return None
    if parts[0].kind == "code" and parts[0].text.strip() != found.group("name"):
        return None
    return found.group("name"), found.group("note")


# What a guard or effects cell says where it says nothing (`-`, `N/A`, `no-op`).
_NOTHING = EMPTY | {"n/a", "(n/a)", "no-op", "(no-op)", "noop"}


# A From cell that negates a state in the signs of code: `!done`, `~done`, `^done`,
# `-done`, `!= done`, `≠ done`, `¬done`, `* - done`, `* \ done` (never the state itself).
_NEGATED_FROM = re.compile(
    r"(?:!=?|~|\^|-|\u2260|\u00ac|\*\s*[-\\])\s*(?P<name>`?\w[^`]*?`?)", re.IGNORECASE
)


def _alternatives(written: str) -> list[str]:
    """The states of a From cell `A / B` (each part a name; no family `NAME_[G/A]`, list,
    wildcard or `except`), or []."""
    if any(mark in written for mark in "[,*"):
        return []
    if re.match(r"\s*(?:any|all|every|same)\b", written, re.I):
        return []
    if " except " in f" {written.lower()} " or "/" not in written:
        return []
    parts = [part.strip() for part in written.split("/")]
    return parts if all(parts) else []


def _said(found: Cell | None, said: str, what: str, written: str, line: int) -> Cell:
    """A row's Condition or Action cell: its column's, or the guard or action its Event
    cell says (`written`); both saying something is refused."""
    if not said:
        return (
            found if found is not None and normal(found.plain) not in _NOTHING else _cell(line, "-")
        )
    if found is not None and normal(found.plain) not in _NOTHING:
        column = "Condition" if what == "guard" else "Action"
        fail(
            f"the Event cell {written!r} says the {what} {said!r}, and the {column} cell says "
            f"{found.plain!r}: write the {what} in one place, the {column} column",
            line,
        )
    return _cell(line, said)


def _unread(event: str, guard: str, effects: str, empty: frozenset[str]) -> str:
    """What a marker row says beyond the marker: its event, guard and effects, as written
    ("" where they say nothing)."""
    said = [
        f"{what} {text!r}"
        for what, text in (("the event", event), ("the guard", guard), ("the effects", effects))
        if normal(text) not in empty
    ]
    return " and ".join(said)


def _why(row: TableRow, columns: Columns) -> Cell | None:
    """The row's cell of a column that says why a move is refused (`WHY`), if any."""
    for name, i in columns.extra:
        if normal(name) in WHY and i < len(row.cells):
            return row.cells[i]
    return None


def why_column(table: Table, roles: dict[str, tuple[str, ...]]) -> Columns | None:
    """The columns of a table of refused moves with their reasons, `| From | To | Why
    Blocked |`: a From and a To column, one that says why (`WHY`), and no ID or trigger
    column. None for any other table."""
    columns = light_columns(table, roles)
    if columns is None or "trigger" in columns.roles:
        return None
    if not any(normal(name) in WHY for name, _ in columns.extra):
        return None
    return columns


def reason_rows(
    table: Table,
    columns: Columns,
    group: str,
    spells: tuple[Spell, ...],
    reader: RowReader,
    first: int,
) -> list[RuleRow]:
    """The rows of a table of refused moves (`why_column`) in a spec whose transition
    tables have an ID column: each row `| From | To | Why |` is the blocked row `| From
    | <the spell whose *Target* is To> | - | [BLOCKED] | - | Why |`, numbered `WB<n>`
    from `first`. A To no spell asks for is an error saying what to add; a note says how
    the table was read."""
    asking: dict[str, list[str]] = {}
    for spell in spells:
        if spell.target:
            asking.setdefault(spell.target, []).append(spell.name)
    rows: list[RuleRow] = []
    read = []
    for row in table.rows:
        line = row.line

        def plain(role: str, row: TableRow = row) -> str:
            index = columns.roles.get(role)
            found = row.cells[index] if index is not None and index < len(row.cells) else None
            return " ".join(found.plain.split()) if found is not None else ""

        source, target = plain("current state"), plain("next state")
        if not source or not target:
            fail(
                f"a row of the table of refused moves under {group!r} has an empty "
                f"{'From' if not source else 'To'} cell: name the state",
                line,
            )
        names = asking.get(target) or asking.get(identifier(target), [])
        if len(names) != 1:
            told = (
                f"no spell asks for {target}: give the spell a hook judges this move by "
                f"`- *Target*: {target}` in the Spells list"
                if not names
                else f"spells {', '.join(names)} all ask for {target}: keep one `*Target*`"
            )
            fail(
                f"the table of refused moves under {group!r} refuses {source} → {target}, "
                f"and {told}, or write the row in a transition table (`| ID | {source} | "
                f"<spell> | - | [BLOCKED] | - | {plain('response') or '<why>'} |`)",
                line,
            )
        rule_id = f"WB{first + len(rows) + 1}"
        cells = (
            _cell(line, rule_id),
            _cell(line, "Any state" if normal(source) == "any" else source),
            _cell(line, names[0]),
            _cell(line, "-"),
            _cell(line, "[BLOCKED]"),
            _cell(line, "-"),
            _why(row, columns) or _cell(line, ""),
        )
        standard = Columns({role: i for i, role in enumerate(_ROLES)}, ())
        rule = reader.rule(TableRow(line, cells), standard, group, Kind.BLOCKED, light=True)
        rows.append(replace(rule, id_written=False, numbered=True))
        where = "every state" if normal(source) == "any" else source
        read.append(f"{rule_id} {source} → {target} as {names[0]} refused in {where}")
    reader.notices.append(
        Notice(
            "blocked_reasons",
            f"the table of refused moves under {group!r} is read as blocked rows, its "
            f"reasons their responses: {'; '.join(read)}",
            table.line,
        )
    )
    return rows


def _cell(line: int, text: str) -> Cell:
    return Cell(line, text, Inline(line, (Segment("text", text),) if text else ()))


def from_tables(
    states: tuple[StateSpec, ...],
    spells: tuple[Spell, ...],
    rows: tuple[RuleRow, ...],
    reading: LightReading,
    prose: int,
    notices: list[Notice],
    word: str = "trigger",
) -> tuple[tuple[StateSpec, ...], tuple[Spell, ...]]:
    """The states and spells of a document: its lists where it has them, else those its
        transition tables name (in the order they first name them, the state a `(start)` row
        names first), each once; one `names_from_tables` note says which were read so, calling
    the spells by the spec's `word`.

        States listed as written (a `**States**:` line) become identifiers, and a state a
        table declares terminal is a goal (no `dead_end` for it)."""
    said: list[str] = []
    if not states:
        states = _table_states(rows, reading)
        where = (
            f"the States section (line {prose}) describes states in prose rather than "
            "listing their names, so "
            if prose
            else "no States list, so "
        )
        said.append(
            f"{where}its {counted(len(states), 'state')} "
            f"{'is' if len(states) == 1 else 'are'} read from the transition tables"
        )
    if not spells:
        spells = _table_spells(rows, reading)
        said.append(
            f"no Spells list, so its {counted(len(spells), word)} "
            f"{'is' if len(spells) == 1 else 'are'} read from them"
        )
    if reading.terminal:
        states = tuple(replace(s, goal=True) if s.name in reading.terminal else s for s in states)
    if said:
        titled = [f"{s.title!r} as {s.name}" for s in states if s.title]
        titled += [f"{s.title!r} as {s.name}" for s in spells if s.title]
        named = (
            "; names written otherwise are used in code as identifiers: "
            + ", ".join(titled[:4])
            + (f" and {len(titled) - 4} more" if len(titled) > 4 else "")
            if titled
            else ""
        )
        start = (
            f"; it starts in {reading.initial[0]} (line {reading.initial[1]}"
            + (f", on {reading.initial[2]!r}, kept as a note" if reading.initial[2] else "")
            + ")"
            if reading.initial is not None
            else ""
        )
        notices.append(
            Notice(
                "names_from_tables",
                "; ".join(said) + start + named,
                prose or reading.first_line or (rows[0].line if rows else 1),
            )
        )
    return states, spells


def _table_states(rows: tuple[RuleRow, ...], reading: LightReading) -> tuple[StateSpec, ...]:
    """The states the tables name, in the order they first name them, the state a
    `(start)` row names first. Light tables (`reading`) name them in From and To cells
    (a selector names none); other tables by the identifiers their rows name."""
    found: dict[str, int] = {}
    if reading.initial is not None:
        found[reading.initial[0]] = reading.initial[1]
    if reading.states:
        for name, named in reading.states.items():
            found.setdefault(name, named.line)
    else:
        for row in rows:
            names = [] if row.current.wildcard else list(row.current.names)
            if row.target.kind is Kind.TRANSITION and row.target.name is not None:
                names.append(row.target.name)
            for name in names:
                if is_identifier(name):
                    found.setdefault(name, row.line)
    return tuple(
        StateSpec(name, "", "", (), line, title=_title(reading.states.get(name), name))
        for name, line in found.items()
    )


def _table_spells(rows: tuple[RuleRow, ...], reading: LightReading) -> tuple[Spell, ...]:
    found: dict[str, int] = {}
    for row in rows:
        for trigger in row.triggers:
            found.setdefault(trigger, row.line)
    return tuple(
        Spell(name, "", "", line, title=_title(reading.triggers.get(name.lower()), name))
        for name, line in found.items()
    )


def _title(named: WrittenName | None, name: str) -> str:
    """The name as written, where it is not the identifier."""
    return named.written if named is not None and named.written != name else ""


@cache
def _keyword_note() -> re.Pattern[str]:
    """A To cell's word that is no state (`[BLOCKED]`, `Same state`, `stays`) and a note
    after it: in parentheses, after a dash, or marks (`✅`)."""
    return re.compile(
        r"(?P<word>\[blocked\]|[^()\u2014\u2013]*?[^\s()\u2014\u2013-])\s*"
        r"(?P<rest>\([^()]*\)|[\u2014\u2013:]\s*\S.*|-\s+\S.*|[^\w\s()\[\]:]+(?:\s+\S.*)?)",
        re.IGNORECASE,
    )


# Words a To cell may say "it stays" with that name states as often (`| new | ignore |
# ignored |`): read as Same state where no state of that name is declared, and said so.
_MAY_NAME = frozenset({"ignored", "current", "stay", "self", "remains"})


@cache
def _said_after() -> re.Pattern[str]:
    """An event's name and a note after a dash or a colon and a space: `close — author
    withdrew`, `approve: maintainers only`, `reset - by an admin` (not `order:created`,
    nor `check\u2013in`, whose en dash joins words as `-` does)."""
    return re.compile(
        r"^(?P<name>[^\u2014\u2013:]*?\w)(?:\s*\u2014\s*|\s+\u2013\s+|\s-\s+|(?P<colon>:)\s+)"
        r"(?P<note>\S.*)$"
    )


@cache
def _sequence() -> re.Pattern[str]:
    """Events one after another in one cell: `approve → merge`, `approve -> merge`,
    `approve and then merge`, `approve, then merge`."""
    return re.compile(r"\w\s*(?:\u2192|->|=>)\s*\w|\w(?:\s+and|\s*[,;])\s+then\s+\w", re.I)


def _unalike(one: str, other: str) -> str:
    """Where two names that look alike differ in characters outside ASCII (a non-breaking
    hyphen pasted from a word processor, a no-break space): which, by their Unicode names."""
    import unicodedata

    odd = sorted({c for c in one + other if not c.isascii() and not c.isalpha()})
    if not odd:
        return ""
    named = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in odd)
    return f" (they differ in characters that look alike: {named})"


@cache
def _summary_targets() -> re.Pattern[str]:
    """What parts the states a summary's To cell lists: `,`, `;`, ` / `, ` or `."""
    return re.compile(r"\s*[,;]\s*|\s+/\s+|\s+or\s+", re.IGNORECASE)


@cache
def _listing_marks() -> re.Pattern[str]:
    """What lists states, or a way through them, in a To cell: ` / ` (spaced: `A/B test`
    is one name), `,`, an arrow."""
    return re.compile(r"\s+/\s+|\s*(?:,|\u2192|->|=>)\s*")


def terminal_rows(
    reading: LightReading, spells: tuple[Spell, ...], rows_read: tuple[RuleRow, ...] = ()
) -> tuple[RuleRow, ...]:
    """For each state a table declares terminal (`| merged | (none) | Terminal state |`),
    a row that refuses every trigger there, numbered after the tables' rows: a terminal
    state has no way out. A row of the tables naming such a state in its From cell is an
    error (the spec says both that the state ends and that something leads out of it)."""
    for row in rows_read:
        if row.current.wildcard or row.target.kind is Kind.BLOCKED:
            continue  # a refused move out of it says what its `(none)` row says
        for state, (line, _) in reading.terminal.items():
            if state in row.current.names:
                fail(
                    f"{state} is declared terminal at line {line} (a `(none)` row), but row "
                    f"{row.id} (line {row.line}) leads out of it on {', '.join(row.triggers)}: "
                    "a terminal state has no way out; drop the `(none)` row, or that row",
                    row.line,
                )
    rows = []
    for number, (state, (line, group)) in enumerate(reading.terminal.items(), reading.count + 1):
        rows.append(
            RuleRow(
                id=f"R{number}",
                id_written=False,
                line=line,
                group=group,
                group_kind=Kind.BLOCKED,
                current=Selector(False, (state,)),
                triggers=tuple(s.name for s in spells),
                condition=Condition("-", ((),)),
                target=Target(Kind.BLOCKED, None),
                action="",
                actions=(),
                response="",
                response_ref="",
                extra=(("Next State note", "(none): a terminal state"),),
                numbered=True,
            )
        )
    return tuple(rows)


def _taken_elsewhere(
    moves: list[RuleRow], current: Selector, event: str, target: str
) -> tuple[tuple[str, RuleRow], ...]:
    """For a refused move out of `current` to `target` (a state, no event written), where
    `event` leads to `target`: each state `current` names, with a row that already takes
    `event` there other than to `target` (to another state, or refusing it), where every
    state has one and none leads to `target`; else empty (`event` is refused), as for a
    wildcard `current`, whose rows come after the rows naming a state. The rows that
    take `event` in a state are those naming it; where none does, a wildcard row's."""
    if current.wildcard:
        return ()
    found = []
    for state in current.names:
        on = [r for r in moves if event in r.triggers]
        here = [r for r in on if not r.current.wildcard and state in r.current.names] or [
            r for r in on if r.current.wildcard and state not in r.current.names
        ]
        if not here or any(_dest(r, state) == target for r in here):
            return ()
        found.append((state, here[0]))
    return tuple(found)


def _dest(rule: RuleRow, state: str) -> str:
    """Where `rule` leads from `state`: a state, or `[BLOCKED]`."""
    if rule.target.kind is Kind.BLOCKED:
        return "[BLOCKED]"
    return rule.target.name or state if rule.target.kind is Kind.TRANSITION else state


def _outcome(rule: RuleRow, state: str) -> str:
    dest = _dest(rule, state)
    return "is refused" if dest == "[BLOCKED]" else f"leads to {dest}"
