"""Why a spec with no transition table has none, said at the first block its author most
likely meant as one: a table whose columns no role reads (`| Von | Ereignis | Nach |`),
a state x event matrix (`| State \\ Event | open | close |`), rows with no header and
`|---|` line (Confluence's `|| From || Event || To ||`), or a state diagram alone, which
is only ever compared with a table. None where the spec has no such block."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .diagram_blocks import MERMAID, diagram_language
from .markdown import Block, Code, Heading, ItemList, LooseRows, Paragraph, Table

_NONE = "not a state-machine spec as read (no transition table)"
# The first header cell of a matrix: `State \ Event`, `State / Trigger`, `From x Event`.
_CORNER = re.compile(r"^\s*\w[\w ]*?\s*[\\/\u00d7]\s*\w[\w ]*$")
_EMPTY = frozenset({"", "-", "\u2014", "\u2013", "n/a", "x", "\u2717", "\u2718"})


def why_no_table(blocks: Iterable[tuple[Block, tuple[Heading, ...]]]) -> tuple[str, int] | None:
    """The reason a spec's first table-like block or diagram is no transition table,
    with what to write instead, and its line; None where it has none. Each block comes
    with the heading it is under, if any."""
    for block, over in blocks:
        heading = " ".join(over[0].text.strip("#*_` ").split()) if over else ""
        if isinstance(block, Table) and len(block.header.cells) >= 2:
            matrix = _matrix(block)
            if matrix is not None:
                return matrix
            if not _describes(block) and _moves(block):
                return _unnamed(block)
        if isinstance(block, LooseRows) and block.rows:
            return _loose(block)
        if isinstance(block, Code) and diagram_language(block) is not None:
            return _diagram(block)
        if isinstance(block, ItemList):
            listed = listed_moves(block, heading)
            if listed is not None:
                return listed
    return None


# A move written in a list item: `red --timer--> green`, `closed → open on open`,
# `A -> B`, or in words, `When the light is red and the timer fires, go to green`. An
# item longer than a move is written is none (and no pattern runs over a long line).
_ARROW = re.compile(r"--\s*(?P<event>[^->]{1,80}?)\s*-->|-->|->|→|⟶|=>")
_ON = re.compile(r"\s(?:on|when|by|via)\s")
_LONGEST = 300
_TRIGGER_FIRST = re.compile(r"(?:on|when|upon)\s+(?=\S)", re.IGNORECASE)
_WORDS = re.compile(
    r"\b(?:go(?:es)? to|moves? to|transitions? to|becomes?|switch(?:es)? to)\b", re.IGNORECASE
)


def _arrow(text: str, heading: str = "") -> tuple[str, str, str] | None:
    """(source, event or "", target) of an item written as an arrow, else None. An
    item that starts with its event (`on cancel → Cancelled`) is of the state its list
    is under (`heading`)."""
    found = _ARROW.search(text) if len(text) <= _LONGEST else None
    if found is None:
        return None
    source, rest = text[: found.start()].strip(), text[found.end() :].strip().rstrip(".;")
    event = found.group("event") or ""
    on = _ON.search(rest)
    if on is not None:
        rest, event = rest[: on.start()].strip(), event or rest[on.end() :].strip()
    if not source or not rest or any(c in source + rest for c in "-→⟶>,;:()"):
        return None
    trigger = _TRIGGER_FIRST.match(source)
    if trigger is not None and not event:  # `on cancel → Cancelled`, under the state's heading
        source, event = heading or "<state>", source[trigger.end() :].strip()
    return source, event, rest


def arrows_of(block: ItemList, heading: str) -> list[tuple[str, str, str]]:
    """(source, event or "", target) of each item of a list written as an arrow."""
    found = []
    for item in block.items:
        first = next((b for b in item.blocks if isinstance(b, Paragraph)), None)
        text = " ".join(line.plain for line in first.lines).strip() if first else ""
        move = _arrow(text, heading)
        if move is not None:
            found.append(tuple(" ".join(p.strip("`*_ ").split()) for p in move))
    return found  # type: ignore[return-value]


def listed_moves(block: ItemList, heading: str) -> tuple[str, int] | None:
    """Why a list whose items are moves (arrows, or sentences that say where a state
    goes) is no transition table, and its line; None for any other list."""
    texts = []
    for item in block.items:
        first = next((b for b in item.blocks if isinstance(b, Paragraph)), None)
        if first is None or not first.lines:
            return None
        texts.append(" ".join(line.plain for line in first.lines).strip())
    arrows = [(t, m) for t in texts if (m := _arrow(t, heading)) is not None]
    if len(arrows) >= max(1, len(texts) - 1):
        written, (source, event, target) = arrows[0]
        parts = (source, event or "<event>", target)
        example = " | ".join(" ".join(p.strip("`*_ ").split()) for p in parts)
        return (
            f"{_NONE}: the list at line {block.line} writes the moves as arrows "
            f"(`{written}`), which are not read: write one row per move in a table, "
            f"`| From | Event | To |`, e.g. `| {example} |`",
            block.line,
        )
    said = [t for t in texts if len(t) <= _LONGEST and _WORDS.search(t)]
    if said and len(said) >= max(1, len(texts) - 1):
        return (
            f"{_NONE}: the list at line {block.line} says the moves in sentences "
            f"(`{said[0]}`), which are not read: write one row per move in a table, "
            "`| From | Event | To |` (the state, what happens, the state it goes to)",
            block.line,
        )
    return None


# Header words of a table that describes states or events rather than moves between them.
_DESCRIBING = frozenset(
    {"state", "states", "event", "events", "description", "meaning", "notes", "phrase", "means"}
)


def _describes(table: Table) -> bool:
    """A table of states or events and what each means (`| State | Description |`)."""
    return any(c.plain.strip().strip("*_`").lower() in _DESCRIBING for c in table.header.cells)


def _moves(table: Table) -> bool:
    """Whether a table reads as moves: a name of its first column is also in another
    (`| Entwurf | absenden | Geprüft |` then `| Geprüft | bezahlen | Bezahlt |`)."""
    columns = [
        {" ".join(c.plain.split()).lower() for c in cells}
        for cells in zip(*(r.cells for r in table.rows if len(r.cells) >= 2), strict=False)
    ]
    return len(columns) >= 2 and any(columns[0] & other - {"", "-"} for other in columns[1:])


def _header(table: Table) -> str:
    return "| " + " | ".join(" ".join(c.plain.split()) for c in table.header.cells) + " |"


def _matrix(table: Table) -> tuple[str, int] | None:
    """A table of states by events, each cell the state the event leads to."""
    events = [" ".join(c.plain.split()) for c in table.header.cells[1:]]
    states = {" ".join(r.cells[0].plain.split()) for r in table.rows if r.cells}
    moves = [
        (" ".join(r.cells[0].plain.split()), event, " ".join(c.plain.split()))
        for r in table.rows
        for event, c in zip(events, r.cells[1:], strict=False)
        if " ".join(c.plain.split()).lower() not in _EMPTY
    ]
    corner = table.header.cells[0].plain
    named = [m for m in moves if m[2] in states]
    # a table with an event column has at most half its cells states
    if not moves or not (_CORNER.match(corner) or 3 * len(named) >= 2 * len(moves) > 2):
        return None
    source, event, target = (named or moves)[0]
    return (
        f"{_NONE}: this table (`{_header(table)}`) is a matrix of states by events, which "
        "is not read: write one row per move, `| From | Event | To |`, "
        f"e.g. `| {source} | {event} | {target} |`",
        table.line,
    )


def _unnamed(table: Table) -> tuple[str, int]:
    """A table none of whose columns is named as a transition table's."""
    names = [" ".join(c.plain.split()) for c in table.header.cells]
    keys = ["current_state", "next_state"] if len(names) == 2 else ["current_state", "trigger"]
    said = [f'{k} = ["{n}"]' for k, n in zip(keys, names, strict=False)]
    if len(names) >= 3:
        said.append(f'next_state = ["{names[2]}"]')
    return (
        f"{_NONE}: this table (`{_header(table)}`) has no column named as a transition "
        "table's: name its columns `| From | Event | To |`, or give the names it uses "
        f"under [tool.spellbook] (`columns = {{ {', '.join(said)} }}`)",
        table.line,
    )


def _loose(block: LooseRows) -> tuple[str, int]:
    first = block.rows[0]
    if first.cells and not first.cells[0].source and any(c.source for c in first.cells):
        header = " || ".join(c.source for c in first.cells if c.source)
        return (
            f"{_NONE}: `|| {header} ||` is a header in Confluence's wiki markup, which "
            "markdown does not read: write it `| "
            + " | ".join(c.source for c in first.cells if c.source)
            + " |`, with a line `|---|` under it",
            first.line,
        )
    return (
        f"{_NONE}: the rows at line {first.line} are no table, as they have no header row "
        "with a `|---|` line under it: write `| From | Event | To |` then `|---|---|---|` "
        "above them",
        first.line,
    )


def _diagram(block: Code) -> tuple[str, int]:
    from .mermaid import parse_diagram, parse_plantuml

    language = diagram_language(block)
    read = (parse_diagram if language == MERMAID else parse_plantuml)(block.text, block.line)
    moves = [m for m in (read.moves if read else ()) if m.source and m.dest and m.label]
    example = (
        f", e.g. `| {moves[0].source} | {moves[0].label} | {moves[0].dest} |`" if moves else ""
    )
    return (
        f"{_NONE}: a {language} diagram is only compared with a transition table, never "
        f"read as the machine: write its arrows as rows of `| From | Event | To |`{example}",
        block.line,
    )
