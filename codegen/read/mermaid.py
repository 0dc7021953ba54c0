"""A spec's Mermaid state diagrams: each ```` ```mermaid ```` block that is a
`stateDiagram` (or `stateDiagram-v2`) read into a `SpecDiagram` of its arrows.

Read: `[*] --> S`, `S --> T`, `S --> T: label`, `S --> [*]`, `state "Long name" as S`,
`state S`, `S : description`, `state S { ... }` (composite states, nested), `state S
<<choice>>` (and `<<fork>>`, `<<join>>`), `%%` comments and `%%{init}%%` directives,
`direction`, notes (one line or up to `end note`), `classDef`, `class`, `style`, `:::`
classes, `--` (concurrent regions), titles and accessibility lines, front matter. Any
other line is kept as not read, with its text, rather than guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..model import DiagramArrow, SpecDiagram
from .markdown import Block, Code

_START = "[*]"
_NAME = r"(?:\[\*\]|[^\s:\[\]{}\"<>]+?)(?::::[\w-]+)?"
_MOVE = re.compile(rf"({_NAME})\s*-->\s*({_NAME})\s*(?::\s*(.*))?")
_CLASSED = re.compile(r":::[\w-]+$")
_ALIAS = re.compile(r'state\s+"([^"]*)"\s+as\s+([^\s{]+)\s*(\{)?')
_ALIAS_AFTER = re.compile(r'state\s+([^\s"{]+)\s+as\s+"([^"]*)"\s*(\{)?')
_STATE = re.compile(r"state\s+([^\s\"{<]+)\s*(\{)?")
_PSEUDO = re.compile(r"state\s+([^\s\"{<]+)\s*<<\s*(choice|fork|join)\s*>>")
_DESCRIBED = re.compile(r"[^\s:\"]+\s*:\s*\S.*")
_NOTE = re.compile(r"note\s+(?:left|right)\s+of\s+\S+(\s*:.*)?")
_SKIPPED = re.compile(
    r"(?:direction\s+(?:TB|BT|LR|RL)|(?:classDef|class|style|linkStyle)\s.*|--"
    r"|title(?:\s.*)?|acc(?:Title|Descr)\s*:.*|hide empty description)"
)
_HEADER = re.compile(r"stateDiagram(?:-v2)?")


@dataclass
class _Composite:
    name: str
    initial: str = ""
    members: list[str] = field(default_factory=list)


def read_diagrams(blocks: Iterable[Block]) -> tuple[SpecDiagram, ...]:
    """Every Mermaid state diagram among `blocks` (code blocks whose info string is
    `mermaid`), in order; other Mermaid diagrams and other code are not diagrams."""
    return tuple(
        d
        for b in blocks
        if isinstance(b, Code) and b.info.strip().lower().split()[:1] == ["mermaid"]
        for d in [parse_diagram(b.text, b.line)]
        if d is not None
    )


def _statements(text: str, first: int) -> Iterator[tuple[int, str]]:
    """Each line with something on it, stripped, with its line number; the front matter
    (`---` ... `---` at the top) and `%%` comments left out."""
    lines = text.split("\n")
    at = 0
    if lines and lines[0].strip() == "---":
        closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if closing is not None:
            at = closing + 1
    for i in range(at, len(lines)):
        line = lines[i].strip().removesuffix(";").strip()
        if line and not line.startswith("%%"):
            yield first + i, line


def parse_diagram(text: str, line: int) -> SpecDiagram | None:
    """The state diagram a Mermaid block's `text` draws (the block's fence is line
    `line` of the spec), or None where the block is some other kind of diagram."""
    statements = _statements(text, line + 1)
    header = next(statements, None)
    if header is None or not _HEADER.fullmatch(header[1]):
        return None
    moves: list[DiagramArrow] = []
    names: dict[str, str] = {}
    composites: list[_Composite] = []
    open_: list[_Composite] = []
    pseudo: list[tuple[str, int]] = []
    unread: list[tuple[int, str]] = []
    in_note = False

    def drawn(name: str) -> None:
        inside = open_[-1] if open_ else None
        if inside is not None and name not in (_START, inside.name, *inside.members):
            inside.members.append(name)

    def opened(name: str) -> None:
        drawn(name)
        found = _Composite(name)
        composites.append(found)
        open_.append(found)

    for at, statement in statements:
        if in_note:
            in_note = statement != "end note"
            continue
        if statement == "}":
            if open_:
                open_.pop()
            else:
                unread.append((at, "a `}` that closes no `state ... {`"))
            continue
        move = _MOVE.fullmatch(statement)
        if move is not None:
            source, dest = (_CLASSED.sub("", move.group(i)) for i in (1, 2))
            within = open_[-1].name if open_ else ""
            for name in (source, dest):
                drawn(name)
            if source == _START and open_ and dest != _START:
                open_[-1].initial = open_[-1].initial or dest
            moves.append(
                DiagramArrow(_end(source), _end(dest), (move.group(3) or "").strip(), at, within)
            )
            continue
        pseudo_state = _PSEUDO.fullmatch(statement)
        if pseudo_state is not None:
            drawn(pseudo_state.group(1))
            pseudo.append((pseudo_state.group(1), at))
            continue
        alias = _ALIAS.fullmatch(statement)
        after = _ALIAS_AFTER.fullmatch(statement) if alias is None else None
        state = _STATE.fullmatch(statement) if alias is None and after is None else None
        if alias is not None:
            long, name, brace = alias.groups()
        elif after is not None:
            name, long, brace = after.groups()
        elif state is not None:
            long, name, brace = "", state.group(1), state.group(2)
        if alias is not None or after is not None or state is not None:
            names.update({name: long} if long else {})
            (opened if brace else drawn)(name)
            continue
        note = _NOTE.fullmatch(statement)
        if note is not None:
            in_note = note.group(1) is None
            continue
        if _SKIPPED.fullmatch(statement) or _DESCRIBED.fullmatch(statement):
            continue
        shown = statement if len(statement) <= 60 else statement[:57] + "..."
        unread.append((at, f"`{shown}` is not an arrow, a state or a note as read"))
    for left in open_:
        unread.append((header[0], f"`state {left.name} {{` is never closed with `}}`"))
    return SpecDiagram(
        line,
        tuple(moves),
        tuple(names.items()),
        tuple((c.name, c.initial, tuple(c.members)) for c in composites),
        tuple(pseudo),
        tuple(unread),
    )


def _end(name: str) -> str:
    return "" if name == _START else name
