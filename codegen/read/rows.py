"""Reading table rows: transition tables by column role, and the Terms table.

A transition table is a table with a column for each of the roles ID, Current
State, Trigger, Condition, Next State and Action (Response is optional). Each
role has several names (`Condition`, `MCP Condition`, `Guard`, ...; a machine
may add its own in `[tool.spellbook]`); where a table has two columns for one
role, the first name in the role's list is read, and the reader says so. Columns
with no role (`Implementation`, `Notes`, `Old Response`) are kept with the row; a cell
of one that limits the row, or of a second Condition column that says more than the
first, is a `column_note` warning at the row (`RowReader.rule`).

Cells that hold names (Current State, Next State, Trigger, Condition, Action)
are read with emphasis a formatter glued to a word turned back into the
underscores it was (`PR*GATHERING_COMMENTS*[G/A]` is `PR_GATHERING_COMMENTS_[G/A]`),
and each such reading is noted.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from enum import Enum
from functools import cache

from ..model import ActionSpec, Condition, Kind, Notice, RuleRow, Selector, Target, Term
from ..spec_error import fail
from .action_phrases import parse_actions
from .conditions import Words, parse_condition
from .identifiers import identifier, is_identifier, split_outside
from .lexicon import EMPTY, Lexicon, normal
from .light_cells import ENTITY, column_notes, event_call, parameters_note
from .markdown import Cell, Heading, Html, Paragraph, Table, TableRow, has_markup

# Role -> the header names that mean it, preferred first (compared without case).
ROLES: dict[str, tuple[str, ...]] = {
    "id": ("ID", "Rule", "Rule ID"),
    "current state": ("Current State", "From", "From State", "Source State", "State", "fromState"),
    "trigger": (
        *("Trigger", "Triggers", "Spell", "Spells", "Event", "Events", "Command"),
        "Event / command",
    ),
    "condition": (
        *("MCP Condition", "Condition", "Conditions", "Guard", "Guards", "When"),
        *("Quality Gate", "Precondition", "Preconditions", "requiredPreconditions"),
        *("Guard Condition", "Guard Conditions", "Condition(s)", "Guard(s)"),
        *("Pre-condition", "Pre-conditions"),
    ),
    "next state": ("Next State", "To", "To State", "Target State", "Next", "toState"),
    "action": (
        *("MCP Actions", "MCP Action", "Action", "Actions"),
        *("Side Effects", "sideEffects", "Effects", "Effect", "Side Effect"),
        *("Side-effect", "Side-effects", "Action(s)"),
    ),
    "response": ("Response", "Responses"),
}
# More names a light table (`| From | Event | To |`, no ID column) is read by: the names
# people give a transition's columns there, which a table of the full dialect does not take.
LIGHT_ROLES: dict[str, tuple[str, ...]] = {
    "current state": ("Source", "Current", "Current Status"),
    "trigger": (
        *("Trigger / Event", "Trigger/Event", "Event / Trigger", "Event/Trigger"),
        *("On", "On Event", "Event name", "Event Name", "Trigger event", "Triggered by"),
        *("Event type", "Caused by", "Transition trigger", "Transition event"),
    ),
    "next state": (
        *("Target", "Next Status", "New State", "New Status"),
        *("Resulting State", "Resulting Status", "Go To", "Goes To", "Moves To"),
    ),
}
# A trigger column's name in a light table whose From column is `State` (`| State |
# Transition | Next State |`): a name of the transition elsewhere, never read as one.
LIGHT_TRANSITION = "Transition"
REQUIRED = ("id", "current state", "trigger", "condition", "next state", "action")
# A table with at least this many of the required roles (or an ID column and two
# more) is a transition table, and one that lacks the others is an error; with fewer
# it is some other table (a summary, a glossary), noted as not read.
ENOUGH = 4
TERM_ROLES: dict[str, tuple[str, ...]] = {
    "phrase": ("Phrase", "Term", "Words"),
    "means": ("Means", "Meaning", "Definition", "Defined As"),
}
# A Response cell that is only a link takes its text from this column, if there is one.
RESPONSE_TEXT = "old response"
# The cells read with mangled names recovered.
NAME_ROLES = ("current state", "trigger", "condition", "next state", "action")
# Cells whose text is read as written (`Cell.written`), never as markdown renders it.
WRITTEN_ROLES = ("condition", "action")


TITLES = {
    "id": "ID",
    "current state": "Current State",
    "trigger": "Trigger",
    "condition": "Condition",
    "next state": "Next State",
    "action": "Action",
    "response": "Response",
    "phrase": "Phrase",
    "means": "Means",
}


def title(role: str) -> str:
    """A role as the docs name it: `Current State`, `ID`."""
    return TITLES.get(role, role.title())


@dataclass(frozen=True)
class Columns:
    """Where each role's column is in one table, and the columns with no role."""

    roles: dict[str, int]
    extra: tuple[tuple[str, int], ...]
    notices: tuple[Notice, ...] = ()
    # The columns of a role the table names twice that are not read: (header, index,
    # role, the header of the role's column read).
    doubles: tuple[tuple[str, int, str, str], ...] = ()

    def layout(self, width: int) -> tuple[str, ...]:
        """The role of each of the table's `width` columns, in order ("" for none)."""
        at = {i: role for role, i in self.roles.items()}
        return tuple(at.get(i, "") for i in range(width))


def written_row(layout: tuple[str, ...], said: dict[str, str], other: str = "-") -> str:
    """A row the verifier suggests, as the author pastes it into a table whose columns
    have the roles `layout`: each column's cell is what `said` gives its role, `other`
    where it gives none (a role not named, a column no role is called). Every suggested
    row is written here, so it reads back in the table's own order as what it says."""
    return "| " + " | ".join(said.get(role, other) for role in layout) + " |"


def roles_found(table: Table, roles: dict[str, tuple[str, ...]]) -> dict[str, list[int]]:
    """Each role the table's header names -> the columns that name it, in order."""
    return _found(table, roles)


def _found(table: Table, roles: dict[str, tuple[str, ...]]) -> dict[str, list[int]]:
    headers = [normal(c.plain) for c in table.header.cells]
    found: dict[str, list[int]] = {}
    for role, names in roles.items():
        for name in names:
            wanted = normal(name)
            found.setdefault(role, []).extend(i for i, h in enumerate(headers) if h == wanted)
    return {role: idx for role, idx in found.items() if idx}


def columns_of(
    table: Table,
    roles: dict[str, tuple[str, ...]] = ROLES,
    required: tuple[str, ...] = REQUIRED,
    enough: int = ENOUGH,
) -> Columns | None:
    """The table's columns by role; None for a table that is not of this kind (fewer than
    `enough` of the required roles), and an error for one that lacks the others."""
    found = _found(table, roles)
    present = sum(1 for r in required if r in found)
    # An ID column with two other roles is a rule table too, missing columns or not.
    if present < min(enough, len(required)) and not ("id" in found and present >= 3):
        return None
    missing = [r for r in required if r not in found]
    if missing:
        fail(
            "table has no "
            + ", ".join(repr(title(r)) for r in missing)
            + " column (it has "
            + _listed([repr(c.plain) for c in table.header.cells])
            + "); "
            + "; ".join(f"{title(r)} may be called {_either(roles[r])}" for r in missing),
            table.line,
        )
    chosen = {role: idx[0] for role, idx in found.items()}
    notices = []
    for role, idx in found.items():
        if len(idx) > 1:
            read = table.header.cells[idx[0]].plain
            others = ", ".join(repr(table.header.cells[i].plain) for i in idx[1:])
            # Two columns of events that say different things (`| Event | ... | Trigger |`
            # of `submit` and `customer`): which are the spells is the machine itself.
            differ = role == "trigger" and any(
                _event_names(table, i) != _event_names(table, idx[0]) for i in idx[1:]
            )
            notices.append(
                Notice(
                    "event_column" if differ else "column_choice",
                    f"the table has {len(idx)} {title(role)} columns: {read!r} is read, "
                    f"{others} kept as a note"
                    + (
                        f" ({read!r} holds {_shown(_column(table, idx[0]))}, "
                        f"{table.header.cells[idx[1]].plain!r} holds "
                        f"{_shown(_column(table, idx[1]))}: the spells are those of {read!r})"
                        if differ
                        else ""
                    )
                    + f"; name the one to read first under "
                    f"[tool.spellbook] columns.{role.replace(' ', '_')} to choose another",
                    table.line,
                )
            )
    used = set(chosen.values())
    extra = tuple(
        (table.header.cells[i].plain, i) for i in range(len(table.header.cells)) if i not in used
    )
    doubles = tuple(
        (table.header.cells[i].plain, i, role, table.header.cells[idx[0]].plain)
        for role, idx in found.items()
        for i in idx[1:]
    )
    return Columns(chosen, extra, tuple(notices), doubles)


def _column(table: Table, index: int) -> list[str]:
    """The text of each row's cell in column `index`, its spaces made one."""
    return [
        " ".join(row.cells[index].plain.split()) if index < len(row.cells) else ""
        for row in table.rows
    ]


def _event_names(table: Table, index: int) -> list[str]:
    """The column's cells as names compare (`Submit`, `` `submit` ``: one event)."""
    return [normal(c.strip("`*_ ")) for c in _column(table, index)]


def _shown(cells: list[str]) -> str:
    """The first three cells that say something, as a message quotes them."""
    said = [c for c in dict.fromkeys(cells) if c.lower() not in EMPTY]
    return ", ".join(repr(c) for c in said[:3])


def skipped(table: Table, roles: dict[str, tuple[str, ...]] = ROLES) -> Notice | None:
    """A note for a table that names some transition roles but too few to be read as one."""
    found = _found(table, roles)
    present = [r for r in REQUIRED if r in found]
    if len(present) < 2:
        return None
    missing = [title(r) for r in REQUIRED if r not in found]
    return Notice(
        "table_skipped",
        "this table has columns for "
        + ", ".join(title(r) for r in present)
        + " but none for "
        + ", ".join(missing)
        + ", so it is not read as transition rules; if it is one, give it those columns",
        table.line,
    )


# A heading over a table that is no part of the machine: an example of a row, or rules
# the spec keeps only as a record. Each word stands alone (`Counterexamples`, `ExampleCorp`
# are other words); `old`, `removed`, `deprecated` only about the rules themselves (`Old
# rules`, `(v1, superseded)`, `(removed)`), never a machine's own subject (`Old state
# cleanup`, `Errors`).
_EXAMPLE_WORDS = r"(?<![\w-])(?:examples?|e\.g\.|for instance)(?![\w-])(?!\.\w)"
_RECORD_WORDS = (
    r"\bnot (?:part of|used by|read as) (?:the|this) (?:machine|spec|workflow)\b"
    r"|\bnot (?:the|this) machine'?s\b"
    r"|\((?:v?\d[\w.]*,?\s*)?(?:superseded|deprecated|removed|obsolete|outdated|retired"
    r"|no longer (?:used|valid|in use))\)"
    r"|\b(?:old|superseded|deprecated|obsolete|outdated|removed|retired|previous) "
    r"(?:transition |state )?(?:rules?|transitions|tables?|machine|spec)\b"
    r"|\bsuperseded by\b|^\W*(?:superseded|deprecated|obsolete|removed|retired)\W*$"
    # Rules not live yet: planned, proposed, disabled, a draft of a version. `Draft`,
    # `Backlog` or `Disabled` alone may be a state's own section (`aside_heading`).
    r"|\bnot (?:yet )?(?:implemented|built|live|enabled|supported|in use)\b"
    r"|\bnot (?:yet )?shipped\W*$"
    r"|\bunimplemented\b|\bunder discussion\b|\bcoming soon\b|\bto be (?:implemented|built)\b"
    r"|\bfeature[- ]flag(?:ged)?(?: is)?\s*\(?off\b|\bbehind a (?:feature )?flag\b"
    r"|^\W*(?:planned|proposed|proposals?|future|disabled|ideas|wishlist|roadmap|todo|tbd)"
    r"\s*(?:$|[(:/\u2014\u2013]|-\s)"
    r"|\b(?:planned|proposed|future|disabled|draft|upcoming) (?:rules?|transitions|changes"
    r"|moves|additions|features|work|tables?)\b"
    r"|\((?:planned|proposed|future|disabled|draft|todo|tbd|wip)\)|(?<![\w.])v\d[\w.]* draft\b"
)
_ASIDE_WORDS = f"{_EXAMPLE_WORDS}|{_RECORD_WORDS}"
_RECORD = re.compile(_RECORD_WORDS, re.IGNORECASE)
# Example words that make a heading an example's: at its start (`Example`, `Examples of
# rows`, `An example table`, `e.g.`, `Illustrative transitions`), or as its last words
# (`Cancellation example`, `(example)`, `Add a row, e.g.`). Said in passing after its subject
# (`Cancellations, e.g. by the customer`, `Failures, for example timeouts`), they tell
# what the subject takes in: that table is the machine's.
_EXAMPLE_HEADING = re.compile(
    r"^\W*(?:(?:an?|one|another|some)\s+)?(?:examples?|e\.g\.|for (?:instance|example)"
    r"|illustrative)(?![\w-])"
    r"|(?<![\w-])(?:examples?|e\.g\.|for (?:instance|example))\W*$"
    r"|\(\s*(?:an? )?examples?\s*\)",
    re.IGNORECASE,
)
# A paragraph right before a table that introduces it as an example or a record: its last
# sentence ends in a colon and opens with a heading's words above (`For example:`,
# `Example:`, `An example table:`, `e.g.:`, `Old rules (v1, superseded):`), or is one of
# the words only an introduction says (`Such a table looks like:`, `Previously:`, `Before
# the change:`, `Old:`). The words said in passing do not (`The transitions, for example
# those of the review, are:`): that table is the machine's.
_INTRODUCING = re.compile(
    r"(?:(?:here is|here's|below is|this is)\s+)?(?:(?:an?|one|another)\s+)?"
    r"(?:for\s+(?=examples?\b))?"
    rf"(?:{_ASIDE_WORDS}"
    r"|such an? (?:\w+ )?(?:table|row)s? (?:looks|would look) like(?: this)?$"
    r"|(?:previously|formerly|before(?: (?:the|this))? change|old|in v?\d[\w.]*)$)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
# A heading that says its rows are refused is a table of refused moves, read as today
# (`Invalid transition examples`).
_REFUSING = re.compile(
    r"\b(?:invalid|blocked|rejected|forbidden|illegal|disallowed|not allowed|denied|refused)\b",
    re.IGNORECASE,
)
# A heading that limits who may make the moves under it (`Admin only`, `Manual overrides
# (ops only)`), which no row reads as a guard.
_LIMIT = re.compile(
    r"\b(?:admins?|administrators?|ops|staff|operators?|managers?|internal|support|owners?"
    r"|superusers?|moderators?|privileged|authori[sz]ed|maintainers?|root)"
    r"(?: users?| team| roles?)? only\b|\(\s*[\w-]+(?: [\w-]+)* only\s*\)"
    r"|\bonly (?:for|by|when|if|after|with)\b|\brequires? (?:an? )?(?:admin|approval|role|flag)\b"
    r"|\brequires? (?:an? )?\w*\d\w*\b|\bfeature[- ]flag|^(?:\d+[.)]\s*)?(?:if|unless)\b"
    r"|\b(?:weekends?|weekdays?|business hours|office hours)(?: only)?\b"
    r"|\bfor (?:admins?|administrators?|managers?|staff|owners?|moderators?|maintainers?)\b",
    re.IGNORECASE,
)
# Words an example note says, which the error for a file with no transition table finds.
ASIDE_NOTE = "which says it is an example or no part of the machine"


def aside(text: str) -> bool:
    """Whether a heading (or a list item's text) says what is under it is an example, or
    rules kept only as a record, not the machine's (`Example of a row`, `e.g.`, `Old
    rules (v1, superseded)`): never one that says its rows are refused."""
    said = " ".join(text.split())
    if _REFUSING.search(said) is not None:
        return False
    return _RECORD.search(said) is not None or _EXAMPLE_HEADING.search(said) is not None


def aside_paragraph(block: object) -> str:
    """The words of a paragraph that introduces the table after it as an example, or as
    rules kept only as a record (`For example:`, `Previously:`, `**Example**`); "" for
    any other block, and for a paragraph that only says such words in passing."""
    if not isinstance(block, Paragraph) or not block.lines:
        return ""
    said = " ".join(" ".join(line.plain for line in block.lines).split())
    segments = [s for line in block.lines for s in line.segments if s.text.strip()]
    if len(segments) == 1 and segments[0].kind in ("strong", "emphasis"):
        return said if aside(said.rstrip(":")) else ""  # a line in bold, read as a heading
    opening = _SENTENCE.split(said)[-1]
    if not opening.endswith(":") or _REFUSING.search(opening):
        return ""
    return said if _INTRODUCING.match(opening[:-1].strip()) else ""


def aside_heading(
    headings: tuple[Heading, ...], title: Heading | None, table: Table | None = None
) -> Heading | None:
    """The innermost of `headings` (those above a table) that says the table is an
    example or a record (`aside`), if one does; never the document's title, nor a
    heading that names a state a row of `table` leaves (`### Disabled`, `## Todo`,
    `### Draft transitions` over the rows of the state `draft`: that state's own
    section)."""
    return next(
        (
            h
            for h in reversed(headings)
            if h is not title and aside(h.text) and not _state_section(h, table)
        ),
        None,
    )


# A heading over one state's rules: `Draft transitions`, `Todo rules`.
_STATE_RULES = re.compile(r"(?P<state>.+?)(?: state)? (?:transitions|rules)")


def _state_section(heading: Heading, table: Table | None) -> bool:
    """Whether the heading names a state (alone, or as `<state> transitions` or `<state>
    rules`) that the From cell of a row of `table` names; in a table with no From
    column, whether every row has a cell that is the heading's words."""
    if table is None or not table.rows:
        return False
    said = normal(heading.text)
    rules = _STATE_RULES.fullmatch(said)
    named = {said, rules["state"]} if rules else {said}
    named |= {identifier(n).lower() for n in named}
    at = _found(table, light_roles(ROLES, table)).get("current state")
    if not at:
        return all(any(normal(c.plain) == said for c in row.cells) for row in table.rows)
    return any(
        at[0] < len(row.cells)
        and any(
            n in named or identifier(n).lower() in named
            for n in state_separator().split(normal(row.cells[at[0]].plain))
        )
        for row in table.rows
    )


# Where a From cell names several states: `a, b`, `a / b`.
@cache
def state_separator() -> re.Pattern[str]:
    """Where a From cell names more than one state: `A, B`, `A / B`."""
    return re.compile(r"\s*,\s*|\s+/\s+")


def details_aside(block: Html, folded: list[Heading | None]) -> None:
    """Keep `folded` one entry for each `<details>` open after `block` (its tags taken in
    the order written: `</details>` then the next `<details><summary>` in one block close
    one fold and open the next): the innermost summary of those open that says what it
    folds is an example or a record (`aside`: `<summary>Old transitions (v1)</summary>`),
    as a heading over the blocks up to its `</details>`, else None. The last entry is the
    one heading the folds put over a block, however many are open."""
    for said in block.details:
        if said is None:
            if folded:
                folded.pop()
        elif said and aside(said):
            folded.append(Heading(block.line, FOLD_LEVEL, said))
        else:
            folded.append(folded[-1] if folded else None)


def folded_over(folded: list[Heading | None]) -> tuple[Heading, ...]:
    """The heading the open `<details>` put over a block (`details_aside`): () for none."""
    return (folded[-1],) if folded and folded[-1] is not None else ()


def title_of(headings: tuple[Heading, ...]) -> Heading | None:
    """The document's title among the headings above its first block under one: its
    first heading, where that is of level 1 (`# Example: an order`)."""
    return headings[0] if headings and headings[0].level == 1 else None


def limit_note(headings: tuple[Heading, ...], title: Heading | None) -> Notice | None:
    """A warning at the innermost of `headings` over a table read as rules that limits
    who or when its moves are made (`Admin only`): a heading sets no condition."""
    limited = next(
        (
            h
            for h in reversed(headings)
            if h is not title and _LIMIT.search(" ".join(h.text.split()))
        ),
        None,
    )
    if limited is None:
        return None
    return Notice(
        "heading_limit",
        f"the heading {limited.text!r} limits the moves under it, but a heading sets no "
        "condition: its rows are read as firing always; write the limit on each row, as "
        "`event [guard]` in the Event cell or in a Condition column",
        limited.line,
    )


class AsideBy(Enum):
    """What says a table is an example or a record, as its note names it."""

    HEADING = "under the heading"
    LIST_ITEM = "in the list item"
    PARAGRAPH = "after the paragraph"
    DETAILS = "in the `<details>` whose summary is"

    @staticmethod
    def of(heading: Heading) -> AsideBy:
        """A heading's kind: a `<details>` summary (`details_aside`) or a heading."""
        return AsideBy.DETAILS if heading.level == FOLD_LEVEL else AsideBy.HEADING


# The level of the heading a `<details>` summary is read as (`details_aside`): below
# every heading markdown has.
FOLD_LEVEL = 7

_ASIDE_FIX = {
    AsideBy.HEADING: "give it a heading of its own that does not say so",
    AsideBy.LIST_ITEM: "move it out of the list, under a heading that does not say so",
    AsideBy.PARAGRAPH: "reword the paragraph before it so that it does not say so",
    AsideBy.DETAILS: "move it out of the `<details>`",
}


def aside_note(line: int, where: AsideBy, text: str, at: int, what: str = "table") -> Notice:
    """The note for a transition table (or a list of events that keep the state) under a
    heading, in a list item, after a paragraph or in a `<details>` whose summary says it
    is an example: `where` which, `text` its words and `at` their line."""
    return Notice(
        "table_skipped",
        f"this {what} is not read as rules: it is {where.value} {text!r} (line {at}), "
        f"{ASIDE_NOTE}, so it is read as the spec means it; if its rows are the machine's, "
        + _ASIDE_FIX[where],
        line,
    )


def with_extra_names(extra: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, tuple[str, ...]]:
    """The roles with a machine's own header names put first."""
    roles = dict(ROLES)
    for role, names in extra:
        key = role.replace("_", " ").lower()
        if key in roles:
            own = {normal(n) for n in names}
            roles[key] = tuple(names) + tuple(n for n in roles[key] if normal(n) not in own)
    return roles


def light_roles(roles: dict[str, tuple[str, ...]], table: Table) -> dict[str, tuple[str, ...]]:
    """The roles a light table is read by: `roles` and `LIGHT_ROLES`; a `Transition`
    column is its trigger where it is not the first column (`| State | Transition | Next
    State |`; a first column `Transition` most likely numbers the rows)."""
    more = dict(roles)
    for role, names in LIGHT_ROLES.items():
        more[role] = roles.get(role, ()) + names
    headers = [normal(c.plain) for c in table.header.cells]
    if normal(LIGHT_TRANSITION) in headers[1:]:
        more["trigger"] = (*more["trigger"], LIGHT_TRANSITION)
    return more


def group_kind(heading: str) -> Kind:
    """The kind a table's heading announces: `... Blocked ...`, `... No-op ...`, or transitions."""
    words = normal(heading)
    if "blocked" in words:
        return Kind.BLOCKED
    if re.search(r"\bno-?op\b", words):
        return Kind.NOOP
    return Kind.TRANSITION


# What no event's name holds: brackets, parentheses, a guard's `if` or `when`
# (`submit(form) [valid]`, `submit if valid`); `On hold` may well be a name.
_UNNAMED = re.compile(r"[()\[\]]|\s(?:if|when|unless)\s", re.IGNORECASE)
# Spells of one Spell cell: `Approve, Reject` (never inside a call's parentheses).
_COMMA = re.compile(",")


class RowReader:
    """Reads the rows of a spec's transition tables with one lexicon."""

    def __init__(self, lexicon: Lexicon, workspace: str, words: Words) -> None:
        self.lexicon = lexicon
        self.workspace = workspace
        self.words = words
        self.notices: list[Notice] = []
        # Specs repeat cells word for word: each text is read once.
        self._conditions: dict[str, Condition] = {}
        self._actions: dict[str, tuple[ActionSpec, ...]] = {}
        # The names written as Python writes a special one that the reading has told of.
        self._special: set[str] = set()
        # The states a States list declares: a Next State cell naming one (`SAME`) is it.
        self.declared: frozenset[str] = frozenset()
        # Spell cells written as calls (`submit(form)`): how many, and the first's note.
        self._calls = 0
        self._first_call: tuple[str, str, int, int] = ("", "", 0, 0)

    def _called(self, written: str, line: int) -> str:
        """The spell a Spell cell names, a call's parameters aside (`submit(form)` is
        `submit`, said once in an `event_parameters` info that counts the rows)."""
        if written.endswith("()") and is_identifier(written[:-2]):
            return written[:-2]  # `submit()`: a call of no parameters, nothing unread
        event = event_call(written)
        if event is None:
            if _UNNAMED.search(written):  # `submit(form) [valid]`: no name of its own
                self.notices.append(
                    Notice(
                        "trigger_note",
                        f"the Spell cell {written!r} is read as one event named so, "
                        f"{identifier(written)!r}: a name is the event's alone; write its "
                        "guard in the Condition column and its name as the event's "
                        "(`submit`, or `submit(form)` whose parameters are not read)",
                        line,
                    )
                )
            return written
        self._calls += 1
        if self._calls == 1:
            self._first_call = (written, event, line, len(self.notices))
            self.notices.append(Notice("event_parameters", "", line))
        first, name, at, index = self._first_call
        said = parameters_note(first, name, self._calls, self.lexicon.own_code)
        self.notices[index] = Notice("event_parameters", said, at)
        return event

    def special(self, cell: Cell | None, what: str, written: bool = True) -> None:
        """Tell once of a name written as Python writes a special one (`__end__`), which
        markdown shows in bold (`end`): read as written (a light table's), or as shown (a
        rule table's, whose names start with a letter)."""
        if cell is None or not cell.special or cell.special in self._special:
            return
        name, shown = cell.special, cell.inline.plain
        self._special.add(name)
        self.notices.append(
            Notice(
                "rendered_differently",
                f"the {what} cell {name!r} is read as written, but markdown shows it in bold "
                f"as {shown!r}, so the spec as a reader sees it names another thing; write "
                f"the name in backticks (`` `{name}` ``)"
                if written
                else f"the {what} cell {name!r} is read as markdown shows it, {shown!r} in "
                f"bold, the names of this spec's States list starting with a letter; write "
                f"{shown!r} if that is the name",
                cell.line,
            )
        )

    def rule(
        self, row: TableRow, columns: Columns, group: str, kind: Kind, light: bool = False
    ) -> RuleRow:
        """A row of a table of rules. An empty Condition cell is an error (`-` says the
        row fires always), and a cell of a column no role reads that limits the row, or of
        a second Condition column that says more than the first, a `column_note` warning;
        a row a light table made (`light`) has its Condition cell empty for always, and
        its notes told of there."""

        def cell(role: str) -> Cell | None:
            index = columns.roles.get(role)
            return row.cells[index] if index is not None and index < len(row.cells) else None

        recovered: list[tuple[str, str]] = []

        def text(role: str) -> str:
            found = cell(role)
            if found is None:
                return ""
            if role not in NAME_ROLES:
                return found.plain
            if role in WRITTEN_ROLES:
                # Conditions and actions are read as written: `*` and `_` are never
                # emphasis there, and code spans keep their backticks.
                read, fragments = found.written_and_recovered
                shown = rendered_otherwise(found, read)
                entity = ENTITY.search(_CODE_SPAN.sub("", read))
                if entity is not None and shown is None:
                    self.notices.append(
                        Notice(
                            "rendered_differently",
                            f"rule {rule_label()}: its {role.title()} cell is read as written, "
                            f"{read!r}, but markdown shows the HTML entity "
                            f"{entity.group()!r} as {html.unescape(entity.group())!r}, so "
                            "the spec as a reader sees it says something else, and a file "
                            "is read with the entity's letters: write the character itself",
                            row.line,
                            rule_label(),
                        )
                    )
                if shown is not None:
                    self.notices.append(
                        Notice(
                            "rendered_differently",
                            f"rule {rule_label()}: its {role.title()} cell is read as written, "
                            f"{read!r}, but markdown shows it as {shown!r} (stars or "
                            "underscores taken for emphasis), so the spec as a reader sees "
                            "it says something else; write the name in backticks, or "
                            "escape the marks (`\\*`, `\\_`)",
                            row.line,
                            rule_label(),
                        )
                    )
            else:
                self.special(found, role.title(), written=False)
                read, fragments = found.inline.recovered()
            recovered.extend(f for f in fragments if f not in recovered)
            if "\\_" in found.source:
                for m in re.finditer(r"[\w\\]*\\_[\w\\\[\]/]*", found.source):
                    pair = (m.group(0), m.group(0).replace("\\_", "_"))
                    if pair not in recovered:
                        recovered.append(pair)
            return read

        def required(role: str) -> str:
            found = text(role)
            if not found:
                fail(f"rule row has an empty {role.title()!r} cell", row.line)
            return found

        def rule_label() -> str:
            id_cell = cell("id")
            return (id_cell.plain if id_cell is not None else "") or f"#{row.line}"

        written_id = text("id")
        rule_id = written_id or f"#{row.line}"
        triggers = tuple(
            self._called(t.strip(), row.line)
            for t in split_outside(required("trigger"), _COMMA)
            if t.strip()
        )
        extra = tuple(
            (name, row.cells[i].source if i < len(row.cells) else "") for name, i in columns.extra
        )
        response_cell = cell("response")
        links = (
            [s for s in response_cell.inline.segments if s.kind == "link"] if response_cell else []
        )
        response = ""
        if response_cell is not None and not (links and _only_links(response_cell)):
            response = response_cell.source
        if not response:
            response = next((v for k, v in extra if normal(k) == RESPONSE_TEXT), "")
        written = text("condition")
        if not light:
            if not written.strip():
                fail(
                    "rule row has an empty 'Condition' cell: write `-` for a row that fires "
                    "always (a merged cell, `same as above`, exports empty)",
                    row.line,
                )
            self._unread(row, columns, rule_id, written)
        condition = self._conditions.get(written)
        if condition is None:
            condition = self._conditions[written] = parse_condition(
                written, self.lexicon, self.workspace, self.words
            )
        action_text = text("action")
        actions = self._actions.get(action_text)
        if actions is None:
            actions = self._actions[action_text] = parse_actions(
                action_text, self.workspace, self.lexicon
            )
        action_cell = cell("action")
        parsed = RuleRow(
            id=rule_id,
            id_written=bool(written_id),
            line=row.line,
            group=group,
            group_kind=kind,
            current=parse_selector(required("current state")),
            triggers=triggers,
            condition=condition,
            target=parse_target(required("next state"), self.declared),
            action=action_cell.source if action_cell is not None else "",
            actions=actions,
            response=response,
            response_ref=links[0].target if links else "",
            extra=extra,
        )
        swapped = family_order(parsed.current, parsed.target, rule_id)
        if swapped:
            self.notices.append(Notice("family_order", swapped, row.line, rule_id))
        if recovered:
            shown = "; ".join(f"'{w}' as '{r}'" for w, r in recovered[:4])
            more = f" and {len(recovered) - 4} more" if len(recovered) > 4 else ""
            self.notices.append(
                Notice(
                    "name_recovered",
                    f"rule {rule_id}: read {shown}{more} (markdown emphasis or escapes a "
                    "formatter wrote into names)",
                    row.line,
                    rule_id,
                )
            )
        return parsed

    def _unread(self, row: TableRow, columns: Columns, rule: str, condition: str) -> None:
        """A `column_note` warning for each cell of the row a table of rules does not read
        that limits the row: one of a column no role reads (`Notes`, `Status`) that says
        so (`column_notes`), and one of a second Condition column (`Guard` beside
        `Condition`) that says something (not `-`, not empty) other than the cell read."""

        def at(i: int) -> str:
            return row.cells[i].plain if i < len(row.cells) else ""

        doubled = {i for _, i, _, _ in columns.doubles}
        self.notices.extend(
            column_notes(
                (
                    (name, at(i))
                    for name, i in columns.extra
                    if i not in doubled and normal(name) != RESPONSE_TEXT
                ),
                rule,
                row.line,
            )
        )
        for name, i, role, header in columns.doubles:
            said = " ".join(row.cells[i].written.split()) if i < len(row.cells) else ""
            if role != "condition" or normal(said) in EMPTY or normal(said) == normal(condition):
                continue
            shown = " ".join(condition.split())
            self.notices.append(
                Notice(
                    "column_note",
                    f"rule {rule}: its {name!r} cell says {said!r}, but the table has two "
                    f"Condition columns and only {header!r} is read ({shown!r}): the row "
                    f"fires whatever {name!r} says; write it in the {header!r} cell, joined "
                    "with AND, or name the column to read first under [tool.spellbook] "
                    "columns.condition",
                    row.line,
                    rule,
                )
            )


# A family written `BASE_[G/A]`: its base and its suffixes, in the order written.
_FAMILY = re.compile(r"(?P<base>[A-Za-z0-9_]+?)_\[(?P<suffixes>[^\]]*)\]")


def _family_order(name: str) -> tuple[str, tuple[str, ...]] | None:
    m = _FAMILY.fullmatch(name.strip())
    if m is None:
        return None
    return m["base"], tuple(s.strip() for s in re.split(r"\\?[/|]", m["suffixes"]) if s.strip())


def family_order(current: Selector, target: Target, rule: str) -> str:
    """What to say of a row whose Next State family writes the suffixes of its Current
    State family in another order (`A_[G/A]` -> `B_[A/G]`), or "": each state is read to
    the one with its own suffix, where the order written may mean the other pairing."""
    if current.wildcard or target.kind is not Kind.TRANSITION or target.name is None:
        return ""
    to = _family_order(target.name)
    sources = [f for f in map(_family_order, current.names) if f is not None]
    if to is None or not sources:
        return ""
    order = sources[0][1]
    if any(o != order for _, o in sources) or order == to[1] or sorted(order) != sorted(to[1]):
        return ""  # sources written in several orders, or no other order of the same suffixes
    base = sources[0][0]
    pairs = ", ".join(f"{base}_{s} to {to[0]}_{s}" for s in order)
    return (
        f"rule {rule}: Next State {target.name.strip()} writes its suffixes in the order "
        f"{'/'.join(to[1])}, and Current State {base}_[{'/'.join(order)}] in the order "
        f"{'/'.join(order)}: each state is read to the one with its own suffix ({pairs}); "
        "write the suffixes in the same order to say so, or a row for each state where one "
        "suffix is to move to the other"
    )


_CODE_SPAN = re.compile(r"`[^`]*`")


def rendered_otherwise(cell: Cell, read: str) -> str | None:
    """What markdown shows of a cell read as written (`read`), where that says another
    thing: its stars or underscores rendered as emphasis (`sql/*.up.sql exists AND no
    sql/*.down.sql` shows as `sql/.up.sql exists AND no sql/.down.sql`)."""
    if not has_markup(cell.source):
        return None  # nothing markdown would show otherwise
    shown, _ = cell.inline.recovered(code=True)
    if " ".join(shown.split()) == " ".join(read.split()):
        return None
    return " ".join(shown.split())


def _only_links(cell: Cell) -> bool:
    return all(s.kind == "link" or not s.text.strip() for s in cell.inline.segments)


def parse_terms(table: Table, columns: Columns, notices: list[Notice] | None = None) -> list[Term]:
    """The rows of a Terms table: `| Phrase | Means |`; a cell markdown shows as saying
    another thing is a `rendered_differently` notice."""
    terms = []
    for row in table.rows:
        cells = row.cells
        phrase_at, means_at = columns.roles["phrase"], columns.roles["means"]
        if max(phrase_at, means_at) >= len(cells):
            continue
        phrase = cells[phrase_at].written
        means = cells[means_at].written
        for role, found, read in (
            ("Phrase", cells[phrase_at], phrase),
            ("Means", cells[means_at], means),
        ):
            shown = rendered_otherwise(found, read)
            if shown is not None and notices is not None:
                notices.append(
                    Notice(
                        "rendered_differently",
                        f"term {phrase!r}: its {role} cell is read as written, {read!r}, but "
                        f"markdown shows it as {shown!r} (stars or underscores taken for "
                        "emphasis); write the name in backticks, or escape the marks",
                        row.line,
                    )
                )
        if phrase.strip() and means.strip():
            terms.append(Term(" ".join(phrase.split()), " ".join(means.split()), row.line))
    return terms


_WILDCARD = re.compile(
    r"(?:(?:any|all) states?|(?:(?:any|all)(?: states?)?|\*)(?=\s+(?:except|other than)\s))"
    r"(?:\s+(?:except|other than)\s+(?P<rest>.+))?",
    re.IGNORECASE,
)
# Other ways of writing `Any state`: `any`, `*`, `any status`.
_EVERY = frozenset({"any", "*", "any status", "every state"})
# `any terminal` / `any non-terminal` (state), and the scope each selects.
_SCOPED = re.compile(r"any (?P<scope>non-?terminal|terminal)(?: states?)?", re.IGNORECASE)
# Next State cells that say the state does not change.
SAME = frozenset(
    {"same state", "no state change", "same", "same status", "unchanged", "(no change)"}
    | {"no change", "(unchanged)", "(same)", "(same state)", "(no state change)"}
    | {"no transition", "(no transition)", "no move", "(no move)"}
)
# Next State cells that say so too but may be a state's name (`current`, `self`): a light
# table reads them as `Same state` where no state of that name is declared.
STAY = frozenset(
    {"stay", "(stay)", "stays", "remain", "remains", "no-op", "(no-op)", "noop", "no-change"}
    | {"itself", "(itself)", "self", "(self)", "current", "(current)", "current state"}
    | {"(stays)", "(remains)", "ignored", "(ignored)", "stay put", "(stay put)"}
)
# Next State cells that say "the state before", which a machine without history has not.
BACK = frozenset(
    {"previous", "(previous)", "previous state", "(previous state)", "back", "(back)"}
    | {"go back", "(go back)", "history", "(history)", "[h]", "(h)"}
)


def parse_selector(text: str) -> Selector:
    """`A, B` / `Any state` / `Any state except A, NAME_[G/A]` (`* except A, B`, `All
    except A`, `Any state other than A`); `any`, `*` as `Any
    state`; `any terminal` and `any non-terminal` as the states with no way out and
    those with one (resolved in `expand`). A name `A / B` stays whole here: it is
    several states only where each part is one (`expand`)."""
    stripped = " ".join(text.split())
    m = _WILDCARD.fullmatch(stripped)
    if m:
        return Selector(True, _names(m.group("rest") or ""))
    if normal(stripped) in _EVERY:
        return Selector(True, ())
    scoped = _SCOPED.fullmatch(stripped)
    if scoped:
        scope = scoped.group("scope").lower()
        return Selector(True, (), "terminal" if scope == "terminal" else "non-terminal")
    return Selector(False, _names(text))


def parse_target(text: str, declared: frozenset[str] = frozenset()) -> Target:
    """`STATE` / `NAME_[G/A]` / `[BLOCKED]` / `Same state` (or `No state change`, `same`,
    `same status`, `unchanged`, `(no change)`), but a state `declared` by that very name
    (`SAME`, `UNCHANGED`) is that state."""
    words = normal(text)
    if words == "[blocked]":
        return Target(Kind.BLOCKED, None)
    if words in SAME and text.strip().strip("`*") not in declared:
        return Target(Kind.NOOP, None)
    return Target(Kind.TRANSITION, text.strip())


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


def _either(names: tuple[str, ...]) -> str:
    shown = [repr(n) for n in names]
    return ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0]


def _listed(items: list[str], most: int = 10) -> str:
    """Items joined with commas, the list cut short after `most`."""
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")
