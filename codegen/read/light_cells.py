"""What a cell of a light transition table (`| From | Event | To |`) says beyond a name.

A cell is read as GitHub shows it: an HTML comment (`<!-- TODO -->`) is dropped, a
formatting tag (`<kbd>submit</kbd>`, `<b>`) is the text it holds, and `<br>` is a line
break. A footnote mark (`submit[^1]`, `submit<sup>1</sup>`, a name's trailing `*`, `†` or
`‡`, `shipped*`) or another tag is refused: the note it points at is not read, and may say
what changes the move.

An Event cell may say more than one event's name:

- several events, each a name alone, separated by `,`, `;`, `/`, an escaped bar `\\|`
  (read like a slash), `or` or a line break (`approve / accept`, `approve<br>accept`):
  the row's triggers, as a From cell `A, B` names states;
- several events of up to four words each, none a word that may begin a guard (`if`,
  `when`, `only`, `after`, ...), separated by `or`, `/`, `\\|` or a line break (`Submit
  for review or Resubmit`, `Draft done<br>Editor asks`): the row's triggers too. Joined
  by `,` or `;` they are read as one event (`Branch pushed, PR created` says one thing
  that happened, in steps), and where no part says what happened (`-ed`, `-ing`) the
  reading says so (`EventCell.joined`), naming `or`;
- a guard, `submit [valid]`, `submit / if valid`, `submit when valid`, `submit (only if
  the form is valid)`: the row's condition, as a Condition column says it;
- an action after a slash, `submit / save()`: the row's action, as an Action column says it;
  so are words after a slash that open with a verb the action grammar knows (`submit /
  notify reviewer`: `near_verbs.opens_with_verb`), UML's `event / action`, never two
  events (one word after the slash, `approve / reject`, is two).

Anything else is one event's name, as written (`Facilitator approves; security
pipeline re-runs on the approved content`).
A From or To cell may name several states the same ways (`draft or review`), and a
parenthesis after a state (`done (terminal)`) is a note about it, never part of its name.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import cache

from ..model import Notice
from ..spec_error import fail
from .identifiers import is_identifier
from .markdown import Cell, line_break
from .near_verbs import opens_with_verb


@cache
def _comment() -> re.Pattern[str]:
    return re.compile(r"<!--.*?-->", re.DOTALL)


@cache
def _tag() -> re.Pattern[str]:
    # The name ends where its characters do, so a long unclosed tag is read once.
    return re.compile(r"</?(?P<tag>[A-Za-z][\w-]*)(?:[^\w<>-][^<>]*)?>")


# Tags that only change how their text looks: the text is the name.
_FORMATTING = frozenset({"kbd", "b", "strong", "em", "i", "code", "samp", "tt", "span", "mark"})


@cache
def _footnote() -> re.Pattern[str]:
    return re.compile(r"\[\^[^\]]*\]")


@cache
def _sup() -> re.Pattern[str]:
    return re.compile(r"<sup\b[^<>]*>", re.IGNORECASE)


def _footnote_mark(text: str) -> str | None:
    """The first footnote mark of `text` (`[^1]`, `<sup>1</sup>`), None for none. Each
    pattern is tried only where a mark can end, so a cell of many unclosed marks is
    read in one pass."""
    marks = []
    bracket = _footnote().search(text, 0, text.rfind("]") + 1)
    if bracket is not None:
        marks.append((bracket.start(), bracket.group(0)))
    lower = text.lower()
    last = lower.rfind("</sup>")
    for sup in _sup().finditer(text, 0, max(last, 0)):
        end = lower.find("</sup>", sup.end())
        marks.append((sup.start(), text[sup.start() : end + len("</sup>")]))
        break
    return min(marks)[1] if marks else None


# What separates several names in one cell: an escaped bar (`reject \\| cancel`, shown
# `reject | cancel`) reads like a slash.
@cache
def _separator() -> re.Pattern[str]:
    return re.compile(r"\s*(?:\n|;|,|/|\||\s+or\s+)\s*", re.IGNORECASE)


# Phrases of a note that say a move is limited (`only if paid`, `admins only`, `editors
# only`, `guard: ...`, `max 3 times`, `after 24h`, `needs 2 approvals`, `except for
# guests`, `guests cannot do this`, `admin role required`, `v2 only`, `once per order`,
# a note that opens with `provided` or `until`, `never for enterprise accounts`, `must
# have a reason`, `given an open ticket`, `after 3 failed payments`, `needs the MCP
# server`, a note that opens
# with `if`, `unless` or `only`, or with `when` and a comparison: `when stock > 0`), not built (`not
# implemented yet`, `TODO`) or gone (`removed in v2`, `deprecated`, `disabled`, `❌`):
# the one list of them. Phrases, not words: `Item removed from the cart`, `Sends the
# receipt once` and `Up to the warehouse` describe a row. A note in a column no role
# reads that says so is a warning (`column_note`): the row is read as firing always.
@cache
def limiting() -> re.Pattern[str]:
    return re.compile(
        r"^\W*(?:only|if|unless)\b"
        r"|\bonly (?:if|when|for|by|after|once)\b"
        r"|\b(?:admins?|owners?|staff|managers?|moderators?|internal)[- ]only\b"
        r"|^\W*(?!(?:read|write|display|info|information|reference|audit|logging|logs?)\b)"
        r"[a-z]+(?:s|-)? ?only\W*$"
        r"|^\W*when\b[^.]*?(?:[<>=\u2264\u2265]|\b(?:is|are|has|have)\b)"
        r"|\bafter \d+ ?(?:s|m|h|d|w|secs?|mins?|hrs?|seconds?|minutes?|hours?|days?|weeks?)\b"
        r"|\bneeds? (?:\d|an? |approval|sign-?off|review)"
        r"|\brequires? \w|\bguard(?:ed)?\s*(?::|by\b)"
        r"|\bmax(?:imum)?\.?:? \d|\bat most (?:\d+|once|twice)\b|\bup to \d+ times\b"
        r"|\bnot (?:yet )?(?:implemented|built|supported|available|enabled|live|shipped)\b"
        r"|\bremoved in v?\d|\b(?:deprecated|disabled|obsolete|retired)\b"
        r"|\bfeature[- ]flag(?:ged)?\b|(?-i:\b(?:TODO|TBD|WIP)\b)|[\u274c\U0001f6ab]"
        r"|^\W*(?:provided|until)\b|\bexcept for\b|\b(?:blocked|skipped|disabled) for\b"
        r"|\b(?:cannot|can't|may not)\b|\b\w+ (?:role |permission |approval )?required\b"
        r"|^\W*v\d[\w.]* only\W*$|\bnot in (?:the )?(?:mvp|v\d)|^\W*not yet\W*$|\bcoming soon\b"
        r"|\b\d+ ?(?:h|hrs?|hours?|d|days?|min|mins|minutes?) after\b|\bonce per\b"
        r"|^\W*within \d|^\W*before (?:the |its )?(?:deadline|cut-?off|due date|expiry|freeze)\b"
        r"|^\W*once (?:\w+ed|approved)\b"
        r"|^\W*except\b|\bexcept (?:on|in|during|when|while|if)\b|\bas long as\b"
        r"|\b(?:blocked|disabled|skipped|frozen) (?:while|when|during|until)\b"
        r"|\bbut never\b|^\W*(?:planned|proposed)(?: for\b.*)?\W*$"
        r"|\bnever (?:for|on|in|during|when|while|if|after|before|by|from)\b"
        r"|\bafter \d+ (?:failed|unsuccessful|missed|rejected|attempts?|tries|retries)\b"
        r"|\bmust have\b|^\W*given (?:an?|the|that)\b"
        r"|\bneeds? the\b",
        re.IGNORECASE,
    )


def column_notes(
    extra: Iterable[tuple[str, str]], rule: str, line: int, answered: Collection[str] = ()
) -> list[Notice]:
    """A `column_note` warning for each cell of a column no role reads (`Notes`, `Status`,
    an empty header), given as (header, text), that says the row is limited, not built or
    removed (`limiting()`): the row is read as firing always. Light tables and tables of
    rules with an ID column are checked here alike. `answered`: the headers of columns
    with a `yes` in some row (`yes_columns`), whose `no` answers a question of the move
    (`Breaking change: no`) unless the header asks whether it is allowed (`Valid`)."""
    notes = []
    for name, text in extra:
        said = " ".join(text.split())
        if not said:
            continue
        column = f"column {name!r}" if name.strip() else "column with no header"
        # a bare `no` refuses the move, or says it is not there yet (`Valid`, `In scope`),
        # but under a header of a property of the move (`Idempotent`, `Billable`)
        mark = not said.strip(" \u274c\U0001f6ab\ufe0f")  # a cross alone: a bare `no` too
        words = set(re.findall(r"[a-z]+", name.lower()))
        refusing = (mark or _refusing().fullmatch(said) is not None) and not (
            words & _PROPERTY or (name in answered and not words & _ALLOWING)
        )
        if (mark or limiting().search(said) is None) and not refusing:
            continue
        notes.append(
            Notice(
                "column_note",
                f"the {column} says {said!r}, which no role reads: row {rule} is read "
                "as firing always, whatever it says; write a guard in a Condition "
                "column (or `event [guard]`), `[BLOCKED]` in the To cell where the move "
                "is refused, and drop a row the machine does not have",
                line,
                rule,
            )
        )
    return notes


# The words of a header of a property of a move, which a bare `no` under it denies of the
# move (`Idempotent: no`), never saying the move is refused or not built.
_PROPERTY = frozenset(
    {"idempotent", "billable", "reversible", "manual", "automatic", "auto", "sends", "send"}
    | {"email", "emails", "visible", "customer", "retry", "retryable", "safe", "notifies"}
    | {"notify", "notification", "audited", "logged", "async", "sync", "synchronous"}
    | {"asynchronous", "approval", "undoable", "destructive", "public", "refundable"}
    | {"cancellable", "cancelable", "optional", "mandatory", "blocking", "background"}
)


# The words of a header that asks whether the move is allowed (`Valid`, `Allowed`, `In
# scope`): a `no` under it refuses the move, beside a `yes` in another row or not.
_ALLOWING = frozenset(
    {"valid", "allowed", "allow", "permitted", "possible", "enabled", "supported", "available"}
    | {"scope", "legal", "ok", "accepted", "applicable", "v1", "mvp", "implemented", "live"}
    | {"release", "released", "works", "working", "ready", "done", "shipped", "built"}
    | {"active", "on", "wired", "phase", "included", "exists", "possible"}
)


def yes_columns(columns: Iterable[tuple[str, Iterable[str]]]) -> frozenset[str]:
    """The headers of the columns, given as (header, cells), with a `yes` in some cell:
    a column of yes and no answers a question of each move."""
    return frozenset(
        name
        for name, cells in columns
        if any(re.fullmatch(_YES, " ".join(c.split())) for c in cells)
    )


_YES = r"(?i)\W*(?:yes|y|true|\u2713|\u2714|\u2705)\W*"  # compiled at first use, by `re`


# A cell that says the move is refused (`no`, `✗`, `invalid`), in a column no role
# reads (`Valid`, `Allowed`): the row fires all the same.
@cache
def _refusing() -> re.Pattern[str]:
    return re.compile(
        r"\W*(?:no|n|false|x|blocked|forbidden|invalid|not allowed|disallowed|denied|never"
        r"|[\u2717\u2718\u26d4\u2716])\W*",
        re.IGNORECASE,
    )


# A mark after a name that points at a footnote: `shipped*`, `approve†`.
@cache
def _trailing_mark() -> re.Pattern[str]:
    return re.compile(r"[\w)\]][*\u2020\u2021]+$")


# Between the events of a parenthesis `(or resubmit, auto-approve)`.
@cache
def _others() -> re.Pattern[str]:
    return re.compile(r"\s*(?:,|\s+or\s+)\s*", re.IGNORECASE)


@cache
def _state_separator() -> re.Pattern[str]:
    return re.compile(r"\s*(?:\n|;|\||\s+or\s+|\s+and\s+)\s*", re.IGNORECASE)


# In a To cell, which names one state, `and` is part of a name: `shipped and invoiced`.
@cache
def _target_separator() -> re.Pattern[str]:
    return re.compile(r"\s*(?:\n|;|\||\s+or\s+)\s*", re.IGNORECASE)


# An event and its guard: `submit [valid]` (UML), `submit / if valid`, `submit when valid`.
@cache
def _bracket_guard() -> re.Pattern[str]:
    return re.compile(r"^(?P<event>.*?[^\s_])\s*\[(?P<guard>[^\]^][^\]]*)\]\s*(?P<rest>.*)$")


# Where `_bracket_guard` can match: a `[` after a name's last character, and a `]` after it.
@cache
def _bracket_open() -> re.Pattern[str]:
    return re.compile(r"[^\s_]\s*\[[^\]^]")


def _may_bracket(text: str) -> bool:
    """Whether `_bracket_guard` can match `text`: checked first, as the guard's pattern
    reads to the end of the cell from each `[` that no `]` follows."""
    return _bracket_open().search(text, 0, max(text.rfind("]"), 0)) is not None


# `unless` says the guard that keeps the move from happening: its negation is the guard.
@cache
def _word_guard() -> re.Pattern[str]:
    return re.compile(
        r"^(?P<event>[^\s,/]+?(?:(?:\s*,\s*|\s+or\s+)[^\s,/]+?)*?)\s*(?:,\s*|/\s*|\s)"
        r"(?:but\s+)?(?:only\s+)?"
        r"(?P<word>if|when|unless|(?:except|not|never)\s+(?:if|when))\s+(?P<guard>\S.*)$",
        re.IGNORECASE,
    )


@cache
def _paren_guard() -> re.Pattern[str]:
    return re.compile(
        r"^(?P<event>.*?\S)\s*\(\s*(?:only\s+)?(?P<word>if|when|unless)\s+(?P<guard>[^()]*?)\s*\)$",
        re.IGNORECASE,
    )


# More events in a parenthesis after one: `submit (or resubmit)`.
@cache
def _paren_more() -> re.Pattern[str]:
    return re.compile(r"^(?P<event>[^()]*?\S)\s*\(\s*or\s+(?P<more>[^()]*?)\s*\)$", re.I)


@cache
def _word() -> re.Pattern[str]:
    return re.compile(r"^[A-Za-z_][\w-]*$")


# An event and the action after a slash: `submit / save()`.
@cache
def _action() -> re.Pattern[str]:
    return re.compile(r"^(?P<event>[^/]*?\S)\s*/\s*(?P<action>\S.*\(.*\).*)$")


# A state and a note in parentheses: `done (terminal)`.
@cache
def _state_note() -> re.Pattern[str]:
    return re.compile(r"^(?P<name>[^()]*?\S)\s*(?P<note>\([^()]*\))$")


@dataclass(frozen=True)
class EventCell:
    """An Event cell read: the events' names as written, and a guard or action it says."""

    names: tuple[str, ...]
    guard: str = ""
    action: str = ""
    # The names were parted by a slash (`submit / notify`), which may be UML's `event / action`.
    slash: bool = False
    # The cell is one code span (`` `approve or reject` ``): one name, as written.
    literal: bool = False
    # Names of words joined by `,` or `;` read as one event: each part, and the separator.
    joined: tuple[str, ...] = ()
    joiner: str = ""
    # A word or a verb and its object (`Pay or cancel order`): the first may share the
    # last one's object (`Pay order`), which the names read do not say.
    shared: bool = False
    # The action after a slash was read because it opens with a verb the action grammar
    # knows (`submit / notify reviewer`), not because a `()` marks it.
    acted: bool = False


# An HTML entity (`&amp;`, `&nbsp;`, `&#x2713;`), which markdown shows as the character it
# names, outside a code span (where markdown shows it as written).
ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def shown(cell: Cell, what: str) -> str:
    """A cell's text as GitHub shows it (see the module's doc), a line break as `\\n`;
    code spans as written, an HTML entity as its character (`in&nbsp;review` is the
    state `in review`, `R&amp;D` is `R&D`), and a name written as Python writes a special
    one (`__end__`, shown in bold as `end`)."""
    if cell.special:
        return cell.special
    text = "".join(
        s.text if s.kind == "code" else _entities(_unmarked(s.text, cell, what))
        for s in cell.inline.segments
    )
    last = next((s for s in reversed(cell.inline.segments) if s.text.strip()), None)
    mark = _trailing_mark().search(text.rstrip())
    if mark is not None and last is not None and last.kind != "code":
        fail(
            f"the {what} cell {cell.source!r} ends in a footnote mark "
            f"{mark.group(0)[1:]!r}: the note it points at is not read; write the name "
            "alone in the cell, and what the note says in a Condition or Action column "
            "where it changes the move",
            cell.line,
        )
    return "\n".join(" ".join(part.split()) for part in text.split("\n")).strip()


def _entities(text: str) -> str:
    """`text` with each HTML entity in it as the character it names."""
    return ENTITY.sub(lambda m: html.unescape(m.group()), text) if "&" in text else text


def _uncommented(text: str) -> str:
    """`text` without its HTML comments, Obsidian's `%%comments%%` and GitHub's emoji
    shortcodes (`:rocket:`, shown as the emoji, which a name does not keep). A comment
    ends at a `-->`, so only the text up to the last one is searched: an unclosed `<!--`
    is not read to the end again."""
    end = text.rfind("-->") + len("-->")
    if end >= len("-->"):
        text = _comment().sub("", text[:end]) + text[end:]
    if "%%" in text:
        end = text.rfind("%%") + len("%%")
        text = _obsidian_comment().sub("", text[:end]) + text[end:]
    return _shortcode().sub("", text) if ":" in text else text


# An Obsidian comment, hidden where the note is read: `fail %%only on main%%`.
@cache
def _obsidian_comment() -> re.Pattern[str]:
    return re.compile(r"%%.*?%%", re.DOTALL)


# A GitHub emoji shortcode standing alone: `submit :rocket:`.
@cache
def _shortcode() -> re.Pattern[str]:
    return re.compile(r"(?<!\S):[a-z0-9_+\-]+:(?!\S)")


def _unmarked(text: str, cell: Cell, what: str) -> str:
    text = _uncommented(text)
    mark = _footnote_mark(text)
    if mark is not None:
        fail(
            f"the {what} cell {cell.source!r} has a footnote mark {mark!r}: the note "
            "it points at is not read; write the name alone in the cell, and what the note "
            "says in a Condition or Action column where it changes the move",
            cell.line,
        )
    text = line_break().sub("\n", text)
    for tag in _tag().finditer(text):
        if tag.group("tag").lower() not in _FORMATTING:
            fail(
                f"the {what} cell {cell.source!r} has the HTML tag {tag.group(0)!r}, which is "
                "not read: write the name as plain text",
                cell.line,
            )
    return _tag().sub("", text)


def _names(text: str, separator: re.Pattern[str]) -> tuple[str, ...] | None:
    """The names of a cell that lists several, each a name alone; None for any other."""
    parts = separator.split(text)
    if len(parts) > 1 and all(is_identifier(p) for p in parts):
        return tuple(parts)
    return None


def listed_states(text: str, declared: Callable[[str], bool]) -> tuple[str, ...] | None:
    """The states of a From cell that lists several whose names have spaces (`In progress
    or Blocked`, `Waiting for review and Blocked`), where each part is a state the spec
    declares elsewhere (`declared`); None for any other cell."""
    parts = [" ".join(p.split()) for p in _state_separator().split(text)]
    if len(parts) > 1 and all(p and declared(p) for p in parts):
        return tuple(parts)
    return None


def _one_line(text: str, line: int, what: str) -> str:
    if "\n" in text:
        odd = next((p for p in text.split("\n") if not _phrase(p)), "")
        fail(
            f"the {what} cell {text.replace(chr(10), '<br>')!r} has a line break, and its line "
            f"{odd!r} is no event's name alone (up to four words, none of which may begin a "
            "guard): write one event's name, each event's name on a line of its own, or a "
            "guard as `event [guard]`",
            line,
        )
    return text


# Words that may begin a guard, the one list of them: in an Event cell, a part of words
# with one is no event's name alone (`approve once CI is green`, `_phrase`), and one event
# of several words with one is a `trigger_note` (`light_tables`); in a State Guards item,
# one limits the guard by a condition (`guards`). Read as whole words (`guard_word`).
GUARD_WORDS: tuple[str, ...] = (
    "once",
    "provided",
    "after",
    "before",
    "until",
    "while",
    "as long as",
    "but",
    "if",
    "when",
    "whenever",
    "unless",
    "only",
    "except",
    "given",
)


# An event written as a call: `addItem(item)`, `pay(amount, card: Card)`, no space
# before the parenthesis.
@cache
def _call() -> re.Pattern[str]:
    return re.compile(r"^(?P<name>[A-Za-z_]\w*)\((?P<params>[^()]*)\)$")


@cache
def _parameter() -> re.Pattern[str]:
    return re.compile(
        r"^(?P<name>[A-Za-z_]\w*)(?:\s*:\s*[A-Za-z_][\w.\[\]]*)?"
        r"(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[\w.\-]+))?$"  # a value given: `reason="late"`
    )


def _parameters(written: str) -> bool:
    """Whether what a call's parentheses hold is a list of parameters: names, each maybe
    with a type (`item`, `amount, card: Card`), none a word that may begin a guard (as
    `submit(only)` is), and at least one."""
    found = [_parameter().match(p.strip()) for p in written.split(",")]
    return all(
        f is not None and not guard_word().fullmatch(f.group("name")) for f in found
    ) and bool(written.strip())


def event_call(written: str) -> str | None:
    """The event an Event cell written as a call names (`addItem(item)`: `addItem`), or
    None where it is no call of parameters (`submit(only)` is a guard's word)."""
    call = _call().match(written)
    if call is not None and _parameters(call["params"]):
        return call.group("name")  # `submit(form)`, `submit(reason="late")`
    return None


def parameters_note(first: str, event: str, rows: int, own_code: bool) -> str:
    """The `event_parameters` note: Event cells written as calls (the first `first`,
    read as `event`; `rows` of them) are read as their events, parameters unread."""
    more = f"; {rows} rows are written so" if rows > 1 else ""
    carried = (
        "the trigger passes what it is called with to the guards and callbacks of the "
        f"project's code (`model.{event}(...)`), and the move happens whatever it is "
        "unless a guard says otherwise"
        if own_code
        else "an event carries no data, and the move happens whatever they are"
    )
    return (
        f"the Event cell {first!r} is read as the event {event!r}, as a call's "
        f"parameters are no part of an event's name; they are not read: {carried} "
        f"(a condition on them goes in a Condition column){more}"
    )


@cache
def guard_word() -> re.Pattern[str]:
    """A word of `GUARD_WORDS`, whole (a hyphen or an apostrophe is part of a word:
    `follow-up`), as `group("word")`; any case, any space inside `as long as`."""
    words = sorted(GUARD_WORDS, key=len, reverse=True)
    either = "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)
    return re.compile(rf"(?<![\w'-])(?P<word>{either})(?![\w'-])", re.IGNORECASE)


# Words that join two happenings in an event's name of words: a part with one is no
# name alone either (`edit and approve`).
_JOINING = frozenset({"and", "or", "then"})


@cache
def _words() -> re.Pattern[str]:
    return re.compile(r"^[A-Za-z][\w'.-]*(?: [A-Za-z0-9][\w'.-]*){0,3}$")


def _phrase(part: str) -> bool:
    """Whether a part of an Event cell is an event's name alone: up to four words, the
    first beginning with a letter, none a word of `GUARD_WORDS` or `_JOINING`."""
    part = part.strip()
    return (
        bool(_words().match(part))
        and not _JOINING & set(part.lower().split())
        and guard_word().search(part) is None
    )


@cache
def _alternative() -> re.Pattern[str]:
    return re.compile(r"\s*(?:\n|/|\||\s+or\s+)\s*", re.IGNORECASE)


@cache
def _joining() -> re.Pattern[str]:
    return re.compile(r"\s*[,;]\s*")


# Past participles that do not end in `-ed`: `fresh snapshot sent`.
_DONE = frozenset({"sent", "done", "gone", "made", "run", "ran", "set", "paid", "built", "won"})


def _happened(part: str) -> bool:
    """Whether a part of words says what happened (`Branch pushed`, `CI passing`): a cell
    of such parts joined by `,` or `;` tells one event as its steps, no list of events."""
    words = part.lower().split()
    last = words[-1] if len(words) > 1 else ""
    return last.endswith(("ed", "ing")) or last in _DONE


def _phrases(text: str, separator: re.Pattern[str]) -> tuple[str, ...] | None:
    """The names of words of a cell that lists several (`_phrase`); None for any other."""
    parts = separator.split(text)
    if len(parts) > 1 and all(_phrase(p) for p in parts):
        return tuple(parts)
    return None


def event_cell(cell: Cell) -> EventCell:
    """What an Event cell says (see the module's doc)."""
    text, line = shown(cell, "Event"), cell.line
    if " ".join(text.lower().split()) in ("n/a", "(n/a)", "n.a.", "n. a."):
        fail(  # not the events `n` and `a`
            f"the Event cell {text!r} names no event: write the event that makes the move; "
            "where the state has no way out, say so with the row `| <state> | - | (none) |`",
            line,
        )
    if re.fullmatch(r"\s*\[\s*blocked\s*\]\s*", text, re.IGNORECASE):
        fail(
            f"the Event cell {text!r} names no event: `[BLOCKED]` goes in the To cell of the "
            "event it refuses (`| <state> | <event> | [BLOCKED] |`)",
            line,
        )
    if re.fullmatch(r"\s*(?:\[[^\]]*\]\s*(?:/.*)?|/\s*\S.*)", text):
        fail(
            f"the Event cell {text!r} names no event, only a guard or an action (UML's "
            "label of a move made with no event, which a machine of events has not): "
            "write the event before it, `event [guard] / action`, and the guard and "
            "action in Condition and Action columns if the table has them",
            line,
        )
    spans = [s for s in cell.inline.segments if s.text.strip()]
    if len(spans) == 1 and spans[0].kind == "code":
        return EventCell((text,), literal=True)  # backticks mark one literal name
    # `either pay or request changes`: either no event's name, where one word follows it
    # before the `or` (`Either party withdraws or ...` may be one)
    text = re.sub(r"^\s*either\s+(?=[\w-]+,?\s+or\s+\S)", "", text, flags=re.IGNORECASE)
    several = _names(text, _separator())
    acted = None if several is not None else _verb_action(text)
    if acted is not None:
        return EventCell((acted[0],), "", acted[1], acted=True)
    phrases = None if several is not None else _phrases(text, _alternative())
    if several is not None or phrases is not None:
        names = several or phrases or ()
        shared = (
            phrases is not None
            and re.search(r"\sor\s", text, re.I) is not None
            and len(names[0].split()) == 1
            and len(names[-1].split()) == 2
        )
        return EventCell(names, slash="/" in text or "|" in text, shared=shared)
    joined = _phrases(text, _joining())
    if joined is not None and not any(_happened(p) for p in joined):
        return EventCell((text,), joined=joined, joiner=";" if ";" in text else ",")
    more = _paren_more().match(text)
    if more is not None and is_identifier(more.group("event")):
        others = _others().split(more.group("more"))
        if all(_word().match(o) for o in others):
            return EventCell((more.group("event"), *others))
    text = _one_line(text, line, "Event")
    for guarded in (_bracket_guard(), _paren_guard(), _word_guard()):
        if guarded is _bracket_guard() and not _may_bracket(text):
            continue
        found = guarded.match(text)
        if found is None:
            continue
        rest = found.groupdict().get("rest") or ""
        action = ""
        if rest:
            after = re.match(r"^/\s*(?P<action>\S.*)$", rest)
            if after is None:
                break  # `a [b] c`: no guard of a UML label
            action = after.group("action")
        guard = _guard_as_written(cell, guarded, found)
        word = " ".join((found.groupdict().get("word") or "").lower().split())
        if word == "unless" or word.split()[:1] in (["except"], ["not"], ["never"]):
            guard = f"NOT {guard}" if is_identifier(guard) else f"NOT ({guard})"
        event = found.group("event")
        # `approve or accept [checks pass]`: the events a guard is written after are read
        # as they are without it (`approve or accept` is two events)
        names = _names(event, _separator()) or _phrases(event, _alternative()) or (event,)
        _no_guard_word(names, text, line)
        slash = len(names) > 1 and ("/" in event or "|" in event)
        return EventCell(tuple(names), guard, action, slash=slash)
    acting = _action().match(text)
    called = acting.group("event") if acting is not None else ""
    if acting is not None and (
        is_identifier(called)
        or event_call(called) is not None
        or re.fullmatch(r"[A-Za-z_]\w*\(\s*\)", called) is not None
    ):  # `submit / save()`, `approve(by) / notify()`: the call read as its event
        return EventCell((acting.group("event"),), "", acting.group("action"))
    opened = text.find("[")
    if opened >= 0 and text.find("]", opened) > 0:  # `[plan.md exists] submit`, `[a] [b]`
        fail(
            f"the Event cell {text!r} holds a guard in brackets this reading does not take, "
            "which would make it part of the event's name: write the guard once, after the "
            "event (`submit [plan.md exists]`, two joined by AND in one bracket), or in a "
            "Condition column",
            line,
        )
    return EventCell((text,))


# Words that say how a guard holds, never an event's name: `save, even if X` is no event
# `even`.
_NOT_EVENTS = frozenset({"even", "also", "never", "only", "but", "unless", "except", "not"})


def _no_guard_word(names: Iterable[str], text: str, line: int) -> None:
    """Refuse an Event cell whose guard is written after a word that says how it holds,
    which would be read as an event of its own (`save, even if lock.md exists`)."""
    odd = next((n for n in names if n.strip().lower() in _NOT_EVENTS), None)
    if odd is not None:
        fail(
            f"the Event cell {text!r} reads {odd!r} as an event, but it says how the guard "
            "after it holds: write the event and its guard as `event if GUARD` (`event "
            "unless GUARD` where it must not hold), or the guard in a Condition column",
            line,
        )


def _verb_action(text: str) -> tuple[str, str] | None:
    """The event and the action of UML's `event / action` whose action is words that open
    with a verb the action grammar knows (`submit / notify reviewer`): more likely that
    than two events. None for any other cell, and for one word after the slash
    (`approve / reject`, `submit / notify`: two events, a `slash_events` warning)."""
    event, slash, action = text.partition("/")
    event, action = event.strip(), action.strip()
    if not slash or "/" in action or any(mark in text for mark in "\n|[("):
        return None
    if not _phrase(event) or len(action.split()) < 2 or not opens_with_verb(action):
        return None
    return event, action


def _guard_as_written(cell: Cell, guarded: re.Pattern[str], found: re.Match[str]) -> str:
    """The guard `found` in an Event cell as shown, taken from the cell as written where
    it has code spans: read as a Condition cell is, its backticks kept (``if ci.json has
    `green` ``)."""
    guard = found.group("guard").strip()
    if "`" not in cell.source:
        return guard
    written = guarded.match(" ".join(cell.written.split()))
    if written is None or written.group("event") != found.group("event"):
        return guard
    return written.group("guard").strip()


def state_names(text: str, target: bool = False) -> tuple[tuple[str, ...], str]:
    """The states a From or To cell names as written, and a note in parentheses after
    the one it names (`done (terminal)` is `done` and `(terminal)`), "" for none. Several
    states (`draft or review`, `draft<br>review`; in a From cell `draft and review` too)
    each a name alone. `text` is the cell as `shown`; `target`: a To cell's."""
    several = _names(text, _target_separator() if target else _state_separator())
    if several is not None:
        return several, ""
    text = " ".join(text.split())
    found = _state_note().match(text)
    if found is not None:
        return (found.group("name"),), found.group("note")
    return (text,), ""
