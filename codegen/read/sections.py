"""Several machines in one file: which sections of a document are machines of their own.

Input is the located blocks of `read.markdown`, before `read.document` reads one
machine from them. A document is one machine, read as always, unless its
transition tables (any table with a Current State and a Next State column, as
`rows.columns_of` finds them, whatever else it has) sit under two or more
different sections: the headings of the shallowest level that tells the tables
apart. Then:

- a document that declares states outside every such section (a States list, or a
  `**States**:` line) is one machine: it said which states it has;
- each section is a machine of its own when each declares its own states, or when
  no two sections' tables name the same state (a row's `Any state` names them all);
- otherwise it is an error naming the sections, the state they share and the ways
  to say which reading is meant: never one machine merged out of several.

`select` gives the blocks one section is read from: the document's title, its
Terms tables outside every machine's section, what is written outside every section
that is this machine's (`read.above`), and the section; `unread_above` says what is
written there that no machine reads.

A state file named outside every machine's section of a file of several machines
(`State is kept in `.desk/state.json`.` above the sections, as a file of one machine
writes it) is no machine's: each machine reads its own section only, and two machines
cannot share one state file. It is an error at its line, saying to name each
machine's state file in its own section; never a sentence dropped in silence, with
every machine falling back to `state.json`. A state file named there that a section
names too is that section's, said again.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from ..model import Notice
from ..spec_error import NoSection, fail
from .above import Machines, claim_heading, said_of, unread
from .identifiers import identifier
from .lexicon import normal
from .light_tables import _NOWHERE as NOWHERE
from .light_tables import _REFUSED as REFUSED
from .markdown import Block, Heading, Html, Inline, ItemList, Paragraph, Table
from .rows import (
    BACK,
    ROLES,
    SAME,
    STAY,
    TERM_ROLES,
    aside_heading,
    aside_paragraph,
    columns_of,
    details_aside,
    folded_over,
    state_separator,
    title_of,
)

# The roles a table needs to count as a transition table here: where it came from and
# where it goes. Reading it (what its other columns must be) is `read.document`'s job.
MOVES = ("current state", "next state")


# A section's number as written before its name: `1.`, `3.2`, `7)`.
@cache
def _number() -> re.Pattern[str]:
    return re.compile(r"^\s*\d+(?:\.\d+)*[.)]?\s+")


# Cells that name no state: empty, a start marker, no state at all, a refusal, the state
# kept (`[BLOCKED]`, `Same state`: no section's state).
_NO_STATE = frozenset(
    {"", "-", "\u2013", "\u2014", "(start)", "[*]", "(none)", "none", "initial", "(end)"}
    | {"[blocked]"}
    | SAME
    | STAY
    | BACK
    | NOWHERE
)


# A cell that names states by what they are, not by name: `Any state`, `any`, `*`.
@cache
def _every() -> re.Pattern[str]:
    return re.compile(r"^(?:any|all|every)\b|^\*$")


@dataclass(frozen=True)
class Section:
    """One section that holds transition tables: its heading and its blocks (the heading
    first, up to the next heading of its level or above)."""

    heading: Heading
    blocks: tuple[Block, ...]

    @property
    def name(self) -> str:
        """The heading's text without its number (`1. Session lifecycle` is `Session
        lifecycle`)."""
        return _number().sub("", self.heading.text, count=1).strip() or self.heading.text

    @property
    def line(self) -> int:
        return self.heading.line

    def matches(self, wanted: str) -> bool:
        """Whether `wanted` names this section: its text with or without its number, in
        any case."""
        return normal(wanted) in (normal(self.name), normal(self.heading.text))


def machines(
    blocks: tuple[Block, ...], roles: dict[str, tuple[str, ...]] = ROLES
) -> tuple[Section, ...]:
    """The sections that are machines of their own, in document order; () for a document
    that is one machine. A SpecError where the sections may be one machine or several
    and the document does not say which."""
    found = sections(blocks, roles)
    if len(found) < 2 or _declared_outside(blocks, found):
        return ()
    if any(REFUSED.search(" ".join(s.name.split())) for s in found):
        return ()  # `## Invalid transitions` refuses moves of the machine beside it
    if all(_declares_states(s.blocks) for s in found):
        return _state_file_placed(blocks, found)
    shared = _shared(blocks, found, roles)
    if shared is None:
        _one_heading_over(blocks, found)
        return _state_file_placed(blocks, found)
    (first, first_line), (second, second_line), what = shared
    undeclared = [s for s in found if not _declares_states(s.blocks)]
    fail(
        f"the transition tables under {_named(first)} and {_named(second)} {what} "
        f"(lines {first_line} and {second_line}), and "
        + ("neither section declares" if len(undeclared) > 1 else _lacks(undeclared[0]))
        + " its states, so this file may be one machine or several: "
        + _choices(found),
        second_line,
    )


def sections(
    blocks: tuple[Block, ...], roles: dict[str, tuple[str, ...]] = ROLES
) -> tuple[Section, ...]:
    """The sections that hold the document's transition tables, where they sit under two
    or more: the headings of the shallowest level that tells the tables apart; () where
    they all sit under one (or some sit outside every heading of that level)."""
    tables = [(i, stack) for i, _, stack in _rule_tables(blocks, roles)]
    if not tables:
        return ()
    levels = sorted({h.level for _, stack in tables for _, h in stack})
    for level in levels:
        owners = [next((at for at, h in stack if h.level == level), None) for _, stack in tables]
        if any(o is None for o in owners):
            if all(o is None for o in owners):
                continue  # no table sits under a heading of this level: look deeper
            return ()
        distinct = sorted({o for o in owners if o is not None})
        if len(distinct) > 1:
            return tuple(_section(blocks, at) for at in distinct)
    return ()


def select(
    blocks: tuple[Block, ...], wanted: str, roles: dict[str, tuple[str, ...]] = ROLES
) -> tuple[Section, tuple[Block, ...]]:
    """The section named `wanted` and the blocks it is read from (`read_from`). An error
    for a name no section has (listing those it has), and for a document of one
    machine."""
    found = sections(blocks, roles)
    if not found or _declared_outside(blocks, found):
        whole = _holding_all(blocks, wanted, roles)
        if whole is not None:  # the one machine's own section: the file, read as ever
            return whole, blocks
        raise NoSection(
            f"section {wanted!r} was chosen, but this file is one machine, not one per "
            "section"
            + (" (its states are declared above its sections)" if found else "")
            + ": remove the section setting (`section` in [tool.spellbook.machines], "
            "--section)",
            0,
        )
    named = [s for s in found if s.matches(wanted)]
    if len(named) > 1:
        fail(
            f"section {wanted!r} was chosen, and {len(named)} sections are headed so: "
            + ", ".join(f"{s.heading.text!r} (line {s.line})" for s in named)
            + "; a section is chosen by its heading, so give each its own (rename one)"
            + (
                ", or choose one by its heading with its number"
                if len({normal(s.heading.text) for s in named}) == len(named)
                else ""
            ),
            named[1].line,
        )
    chosen = named[0] if named else None
    if chosen is None:
        raise NoSection(
            f"no section {wanted!r} holds a transition table; the sections are "
            + ", ".join(f"{s.name!r} (line {s.line})" for s in found),
            0,
        )
    _state_file_placed(blocks, found)
    return chosen, read_from(blocks, chosen, found)


# The heading of the section that says where the state is kept.
PERSISTENCE = "state persistence"
# A path in prose (`State is kept in .oncall/state.json.`): a run of the characters a
# path is written with, its sentence's closing punctuation left off.
_PROSE_PATH = re.compile(r"[\w.~/\\:-]+")
# The forms of a state file's path that read, as a warning names them.
STATE_FILE_FORMS = (
    "a path ending in `state.json`, in backticks (State is kept in `.x/state.json`.), "
    "bare (State is kept in .x/state.json.), bold (**.x/state.json**) or as a link "
    "([.x/state.json](.x/state.json)), or a folder and then the file "
    "(under `.x/` in `state.json`)"
)


def state_files_named(blocks: Iterable[Block]) -> Iterator[tuple[str, int, bool]]:
    """Each state file the paragraphs of `blocks` name, with its line and whether it is
    named under a State Persistence heading, in document order. Anywhere, code that ends
    `state.json`; under that heading, also a path that ends so written bare, bold or as a
    link (its text, or else its target); and a file name that ends so with no folder
    (`state.json`) after a folder on its line (`.release/`) is in that folder."""
    headings: list[Heading] = []
    for block in blocks:
        if isinstance(block, Heading):
            headings = [h for h in headings if h.level < block.level] + [block]
        else:
            within = any(h.text.strip().lower() == PERSISTENCE for h in headings)
            yield from state_files_in(block, within)


def state_files_in(block: Block, within: bool) -> Iterator[tuple[str, int, bool]]:
    """The state files one block names (see `state_files_named`), `within` a State
    Persistence section or not."""
    if isinstance(block, Paragraph):
        for inline in block.lines:
            for path in _paths_on(inline, within):
                yield path, inline.line, within


def prose_paths(text: str) -> Iterator[str]:
    """The words of `text` that may be paths (`.oncall/state.json`, `.release/`), without
    a sentence's closing punctuation."""
    for m in _PROSE_PATH.finditer(text):
        word = m.group().rstrip(".,;:")
        if "/" in word or "." in word.strip("."):
            yield word


def _paths_on(inline: Inline, loose: bool) -> Iterator[str]:
    """The state files one line names (see `state_files_named`)."""
    words: list[str] = []
    for seg in inline.segments:
        if seg.kind == "code":
            words.append(seg.text.strip())
        elif loose and seg.kind == "link":
            text = seg.text.strip()
            words.append(text if text.endswith("state.json") else seg.target.strip())
        elif loose:
            words.extend(prose_paths(seg.text))
    folder = ""
    for word in words:
        if word.endswith("state.json"):
            yield folder + word if folder and "/" not in word else word
            folder = ""
        elif word.endswith("/") and loose:
            folder = word


def _state_file_placed(
    blocks: tuple[Block, ...], found: tuple[Section, ...]
) -> tuple[Section, ...]:
    """The machines' sections `found`, once no state file is named outside all of them
    that none of them names (see the module's doc): an error at its line if one is."""
    inside = {id(b) for s in found for b in s.blocks}
    own = {_kept(path) for s in found for path, _, _ in state_files_named(s.blocks)}
    for path, line, _ in state_files_named(b for b in blocks if id(b) not in inside):
        if _kept(path) in own:
            continue
        folder = posixpath.dirname(_kept(path))
        examples = ", and ".join(
            f"under {_named(s)} the sentence State is kept in "
            f"`{posixpath.join(folder, identifier(s.name).lower() or 'machine', 'state.json')}`"
            for s in found[:2]
        )
        fail(
            f"the state file `{path}` is named above the sections of this file of "
            f"{len(found)} machines ({', '.join(_named(s) for s in found)}), so it is no "
            "machine's: each machine is read from its own section alone, and two machines "
            "cannot share one state file; name each machine's own state file in its "
            f"section, e.g. {examples}",
            line,
        )
    return found


def _kept(path: str) -> str:
    """A state file's path as a machine keeps it: without `./`, `//` or `/./`."""
    return posixpath.normpath(path.strip())


def _holding_all(
    blocks: tuple[Block, ...], wanted: str, roles: dict[str, tuple[str, ...]]
) -> Section | None:
    """The section named `wanted` that holds every transition table of a file of one
    machine, if it has one."""
    stacks = [stack for _, _, stack in _rule_tables(blocks, roles)]
    if not stacks:
        return None
    common = set.intersection(*({at for at, _ in stack} for stack in stacks))
    return next(
        (s for s in (_section(blocks, at) for at in sorted(common)) if s.matches(wanted)), None
    )


def read_from(
    blocks: tuple[Block, ...], chosen: Section, found: tuple[Section, ...]
) -> tuple[Block, ...]:
    """The blocks one machine's section is read from, of the document's `blocks` and its
    machines' sections `found`: the document's title, its Terms tables outside every
    section, the blocks outside every section that are this machine's (`above.said_of`:
    a policy for transitions not listed, every machine's; a line saying where it starts
    in a state only its tables name; a Mermaid diagram of its states), and the section's
    own blocks, in document order."""
    inside = {id(b) for s in found for b in s.blocks}
    own = {id(b) for b in chosen.blocks}
    title = next((b for b in blocks if isinstance(b, Heading)), None)
    known = _machines(blocks, found)
    mine = found.index(chosen)
    above = {
        id(b): tuple(h for _, h in stack) for _, b, stack in _placed(blocks) if id(b) not in inside
    }
    taken = {id(b) for b in blocks if id(b) in above and said_of(b, mine, known, above[id(b)])}
    # The heading a paragraph taken is a claim under (`## Initial state` over `` `b2` ``).
    taken |= {
        id(heading)
        for b in blocks
        if id(b) in taken and (heading := claim_heading(b, above[id(b)])) is not None
    }
    return tuple(
        b
        for b in blocks
        if id(b) in own
        or (b is title and id(b) not in inside)
        or (id(b) not in inside and isinstance(b, Table) and _terms(b))
        or id(b) in taken
    )


def unread_above(
    blocks: tuple[Block, ...], chosen: Section, roles: dict[str, tuple[str, ...]] = ROLES
) -> tuple[Notice, ...]:
    """A notice, for the machine of the section `chosen`, of each thing written outside
    every section of a file of several machines that no machine reads (`above.unread`);
    () for a file of one machine."""
    found = sections(blocks, roles)
    if chosen not in found or _declared_outside(blocks, found):
        return ()
    inside = {id(b) for s in found for b in s.blocks}
    placed = []
    before: Block | None = None
    for _, block, stack in _placed(blocks):
        if id(block) not in inside:
            placed.append((block, tuple(h for _, h in stack), before))
        before = block
    return tuple(unread(placed, found.index(chosen), _machines(blocks, found)))


def _machines(blocks: tuple[Block, ...], found: tuple[Section, ...]) -> Machines:
    """The machines of the sections `found`, with the states their tables name: built
    once for a file (the last file's are kept), not once for each of its machines, so
    each diagram above the sections is read once (`Machines.diagram`)."""
    last = _LAST_MACHINES[0] if _LAST_MACHINES else None
    if last is not None and last[0] is blocks and last[1] == found:
        return last[2]
    live = {id(table) for _, table, _ in _rule_tables(blocks, ROLES)}
    known = Machines(
        tuple(s.name for s in found),
        tuple(s.line for s in found),
        tuple(frozenset(_names(s, ROLES, {}, live)) - {""} for s in found),
    )
    _LAST_MACHINES[:] = [(blocks, found, known)]
    return known


# The machines `_machines` built last, with the blocks and sections they are of.
_LAST_MACHINES: list[tuple[tuple[Block, ...], tuple[Section, ...], Machines]] = []


def _placed(
    blocks: tuple[Block, ...],
) -> Iterator[tuple[int, Block, tuple[tuple[int, Heading], ...]]]:
    """Each block that is not a heading, with the headings above it (and where they
    are), innermost last."""
    stack: list[tuple[int, Heading]] = []
    folded: list[Heading | None] = []  # `rows.details_aside`
    for i, block in enumerate(blocks):
        if isinstance(block, Heading):
            while stack and stack[-1][1].level >= block.level:
                stack.pop()
            stack.append((i, block))
            continue
        yield i, block, tuple(stack) + tuple((i, h) for h in folded_over(folded))
        if isinstance(block, Html):
            details_aside(block, folded)


def _rule_tables(
    blocks: tuple[Block, ...], roles: dict[str, tuple[str, ...]]
) -> Iterator[tuple[int, Block, tuple[tuple[int, Heading], ...]]]:
    """Each transition table (`_moves`) with the headings above it, but one under a
    heading, or after a paragraph, that says it is an example or no part of the machine
    (`rows.aside`, `rows.aside_paragraph`)."""
    first = next((b for b in blocks if isinstance(b, Heading)), None)
    title = title_of((first,) if first is not None else ())
    for i, block, stack in _placed(blocks):
        table = block if isinstance(block, Table) else None
        if (
            _moves(block, roles)
            and aside_heading(tuple(h for _, h in stack), title, table) is None
            and not (i and aside_paragraph(blocks[i - 1]))
        ):
            yield i, block, stack


def _section(blocks: tuple[Block, ...], at: int) -> Section:
    heading = blocks[at]
    assert isinstance(heading, Heading)
    end = next(
        (
            i
            for i in range(at + 1, len(blocks))
            if isinstance(blocks[i], Heading) and blocks[i].level <= heading.level  # type: ignore[union-attr]
        ),
        len(blocks),
    )
    return Section(heading, blocks[at:end])


def _moves(block: Block, roles: dict[str, tuple[str, ...]]) -> bool:
    """Whether `block` is a transition table: a Current State and a Next State column."""
    return (
        isinstance(block, Table)
        and not _terms(block)
        and columns_of(block, roles, MOVES, len(MOVES)) is not None
    )


def _terms(table: Table) -> bool:
    return columns_of(table, TERM_ROLES, tuple(TERM_ROLES)) is not None


def _declares_states(blocks: tuple[Block, ...] | list[Block]) -> bool:
    """Whether these blocks declare states: a list under a `States` heading, or a line
    that starts `**States**:` (or `States:`)."""
    under_states = False
    for block in blocks:
        if isinstance(block, Heading):
            under_states = normal(block.text).rstrip(":") == "states"
        elif (isinstance(block, ItemList) and under_states) or (
            isinstance(block, Paragraph) and _states_line(block)
        ):
            return True
    return False


def _states_line(paragraph: Paragraph) -> bool:
    segments = [s for s in paragraph.lines[0].segments if s.text.strip()]
    if not segments:
        return False
    first = segments[0]
    if first.kind == "strong":
        return normal(first.text).rstrip(":").strip() == "states"
    return first.kind == "text" and re.match(r"\s*states\s*:", first.text, re.I) is not None


def _declared_outside(blocks: tuple[Block, ...], found: tuple[Section, ...]) -> bool:
    """Whether the document declares states outside every section of the machines'
    level (one without a transition table too, which may be a machine whose table
    could not be read): states said once for the whole file, which is one machine."""
    level = found[0].heading.level
    every = [_section(blocks, i) for i, b in enumerate(blocks) if _beside(b, level)]
    inside = {id(b) for s in every for b in s.blocks}
    return _declares_states([b for b in blocks if id(b) not in inside])


def _beside(block: Block, level: int) -> bool:
    """Whether `block` heads a section of the machines' level that is not the States
    section itself (`### States` beside `### Transitions` declares the file's states)."""
    return (
        isinstance(block, Heading)
        and block.level == level
        and normal(block.text).rstrip(":") != "states"
    )


def _names(
    section: Section, roles: dict[str, tuple[str, ...]], written: dict[str, str], live: set[int]
) -> dict[str, int]:
    """The states a section's tables name, by the lower case of their identifiers, each
    at the first line naming it (a cell naming states by what they are, `Any state`, as
    "" for all of them); `written` gets each one's first spelling."""
    found: dict[str, int] = {}
    for block in section.blocks:
        if not isinstance(block, Table) or id(block) not in live:
            continue
        columns = columns_of(block, roles, MOVES, len(MOVES))
        assert columns is not None
        for row in block.rows:
            for role in MOVES:
                index = columns.roles[role]
                if index >= len(row.cells):
                    continue
                for part in state_separator().split(row.cells[index].plain.strip()):
                    name = part.strip().strip("`*_").strip()
                    if normal(name) in _NO_STATE:
                        continue
                    # a state written otherwise (`In review`, `in-review`) is the same
                    key = "" if _every().match(normal(name)) else identifier(name).lower() or name
                    found.setdefault(key, row.line)
                    written.setdefault(key, name)
    return found


def _shared(
    blocks: tuple[Block, ...], found: tuple[Section, ...], roles: dict[str, tuple[str, ...]]
) -> tuple[tuple[Section, int], tuple[Section, int], str] | None:
    """The first two sections whose tables name the same state (or one naming every
    state), where, and what they share; None if each names states of its own."""
    written: dict[str, str] = {}
    live = {id(block) for _, block, _ in _rule_tables(blocks, roles)}
    named = [(s, _names(s, roles, written, live)) for s in found]
    for i, (first, mine) in enumerate(named):
        for second, theirs in named[i + 1 :]:
            both = [n for n in mine if n and n in theirs]  # in the order the first names them
            if both:
                state = both[0]
                shared = f"share the state {written[state]!r}"
                return (first, mine[state]), (second, theirs[state]), shared
            every = next(((s, n) for s, n in ((first, mine), (second, theirs)) if "" in n), None)
            if every is not None:
                at = every[1][""]
                other = theirs if every[0] is first else mine
                line = min(other.values(), default=every[0].line)
                return (
                    (first, mine[""] if every[0] is first else line),
                    (second, theirs[""] if every[0] is second else line),
                    f"may share states (a row of {_named(every[0])} at line {at} names "
                    "states by what they are, not by name)",
                )
    return None


def _one_heading_over(blocks: tuple[Block, ...], found: tuple[Section, ...]) -> None:
    """An error where two sections that share no state sit under one heading that is not
    the document's title (`### Happy path` and `### Errors` under `## Payment`), and do
    not each declare their states: the parts of one machine, or two machines, as the
    author means; never two machines without a word."""
    first = next((b for b in blocks if isinstance(b, Heading)), None)
    title = title_of((first,) if first is not None else ())
    under: dict[int, list[Section]] = {}
    for section in found:
        at = next(i for i, b in enumerate(blocks) if b is section.heading)
        parent = next(
            (
                i
                for i in range(at - 1, -1, -1)
                if isinstance(blocks[i], Heading) and blocks[i].level < section.heading.level  # type: ignore[union-attr]
            ),
            None,
        )
        if parent is not None and blocks[parent] is not title:
            under.setdefault(parent, []).append(section)
    for parent, group in under.items():
        if len(group) < 2 or all(_declares_states(s.blocks) for s in group):
            continue
        over = blocks[parent]
        assert isinstance(over, Heading)
        one, two = group[0], group[1]
        fail(
            f"the transition tables under {_named(one)} and {_named(two)} share no state, "
            f"and both sit under the heading {over.text!r} (line {over.line}), so they may "
            f"be one machine, {over.text!r}, or two: for one machine, declare its states "
            f"once under {over.text!r}, above {one.name!r} (a **States**: line, or a States "
            "list); for one machine per section, declare each section's states in it; or "
            f"read one section alone: section = {json.dumps(one.name)} in its entry of "
            f"[tool.spellbook.machines], or spellbook-verify --section {_quoted(one.name)}",
            two.line,
        )


def _named(section: Section) -> str:
    return f"{section.name!r} (line {section.line})"


def _lacks(section: Section) -> str:
    return f"{section.name!r} does not declare"


def _choices(found: tuple[Section, ...]) -> str:
    first = found[0].name
    return (
        "for one machine per section, declare each section's states in it (a **States**: "
        "line, or a States list); for one machine, declare its states once, above the "
        f"sections; or read one section alone: section = {json.dumps(first)} in its "
        "entry of [tool.spellbook.machines], or spellbook-verify --section "
        f"{_quoted(first)}"
    )


def _quoted(name: str) -> str:
    return name if re.fullmatch(r"[\w.-]+", name) else f"'{name}'"
