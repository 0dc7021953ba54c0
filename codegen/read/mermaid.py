"""A spec's state diagrams, Mermaid and PlantUML: each ```` ```mermaid ```` block that
is a `stateDiagram` (or `stateDiagram-v2`), and each PlantUML block (`read.
diagram_blocks` says which) that is a state diagram, read into a `SpecDiagram` of its
arrows.

Mermaid, read: `[*] --> S`, `S --> T`, `S --> T: label`, `S --> [*]`, `state "Long name"
as S`, `state S`, `S : description`, `state S { ... }` (composite states, nested),
`state S <<choice>>` (and `<<fork>>`, `<<join>>`), `%%` comments and `%%{init}%%`
directives, `direction`, notes (one line or up to `end note`), `classDef`, `class`,
`style`, `:::` classes, `--` (concurrent regions), titles and accessibility lines, front
matter.

PlantUML, read: `@startuml`/`@enduml`, `'` and `/' ... '/` comments, arrows `-->`, `->`,
`--->`, with a direction (`-down->`, `-d->`) or a style (`-[#red]->`, `-[dashed]->`),
`S --> T : label`, `state S`, `state "Long name" as S`, `state S : description`, `state
S #color`, `state S { ... }`, `state S <<choice>>` (and `<<fork>>`, `<<join>>`), `S :
description`, notes (`note left of S : ...`, up to `end note`, `note "..." as N1` and
its `N1 .. S`), `skinparam` (and its `{ ... }` block), `hide`, `show`, `left to right
direction`, `title`, `--` and `||` (concurrent regions). A PlantUML block is a state
diagram where it draws `[*]` or declares a `state`; a sequence or an activity diagram
is not read.

Any other line of a state diagram is kept as not read, with its text, rather than
guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..model import DiagramArrow, SpecDiagram
from .diagram_blocks import MERMAID, PLANTUML, diagram_language
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

# PlantUML: a name has no `-` (the arrows' dashes end it); an arrow's style (`[#red]`,
# `[dashed]`) and direction (`down`, `d`) sit between its dashes, each dash run followed
# by what is not a dash, so a long line is read in one pass; a state's colors and line
# styles (`#pink`, `##[dashed]`), each from its own `#`.
_PU_NAME = r"(?:\[\*\]|[^\s:\[\]{}\"<>#-]+)"
_PU_STYLE = r"\[[^\]\n]*\]"
_PU_WAY = r"(?:up|down|left|right|do|le|ri|u|d|l|r)"
_PU_ARROW = rf"-+(?:>|(?:{_PU_STYLE}{_PU_WAY}?|{_PU_WAY})(?:{_PU_STYLE})?-*>)"
_PU_MOVE = re.compile(rf"({_PU_NAME})\s*{_PU_ARROW}\s*({_PU_NAME})\s*(?::\s*(.*))?")
_PU_COLORS = r"(?:\s*#[^\s{:#]*)*"
_PU_STATE = re.compile(
    r'state\s+(?:"([^"]*)"\s+as\s+([^\s"{<:#]+)|([^\s"{<:#]+)(?:\s+as\s+"([^"]*)")?)'
    rf"(?:\s*<<\s*(\w+)\s*>>)?{_PU_COLORS}\s*(?:(\{{)|:.*)?"
)
_PU_NOTE = re.compile(
    r"note\s+(?:(?:left|right|top|bottom)\s+of\s+[^\s:#]+|on\s+link|as\s+\S+)"
    rf"{_PU_COLORS}\s*(:.*)?"
)
_PU_SKIPPED = re.compile(
    r"(?:@startuml\b.*|@enduml|(?:hide|show|title)\b.*|skinparam\s.*"
    r"|(?:left\s+to\s+right|top\s+to\s+bottom)\s+direction|-{2,}|\|{2,}"
    r'|note\s+"[^"]*"\s+as\s+\S+|[^\s.]+\s*\.{2,}\s*[^\s.]+)'
)
_PU_SKIN_BLOCK = re.compile(r"skinparam\b[^{]*\{")
_PU_SHAPES = ("choice", "fork", "join")


@dataclass
class _Composite:
    name: str
    initial: str = ""
    members: list[str] = field(default_factory=list)


def read_diagrams(blocks: Iterable[Block]) -> tuple[SpecDiagram, ...]:
    """Every state diagram among `blocks` (Mermaid and PlantUML code blocks), in order;
    other diagrams and other code are not diagrams."""
    found: list[SpecDiagram] = []
    for block in blocks:
        language = diagram_language(block)
        if not isinstance(block, Code) or language is None:
            continue
        read = parse_diagram if language == MERMAID else parse_plantuml
        diagram = read(block.text, block.line)
        if diagram is not None:
            found.append(diagram)
    return tuple(found)


class _Drawing:
    """A state diagram as its lines are read: its arrows, long names, composites and
    choice, fork and join states, and the lines not read."""

    def __init__(self, line: int, language: str) -> None:
        self.line = line
        self.language = language
        self.moves: list[DiagramArrow] = []
        self.names: dict[str, str] = {}
        self.composites: list[_Composite] = []
        self.open: list[_Composite] = []
        self.pseudo: list[tuple[str, int]] = []
        self.unread: list[tuple[int, str]] = []

    def drawn(self, name: str) -> None:
        inside = self.open[-1] if self.open else None
        if inside is not None and name not in (_START, inside.name, *inside.members):
            inside.members.append(name)

    def state(self, name: str, long: str, brace: bool) -> None:
        self.names.update({name: long} if long else {})
        self.drawn(name)
        if brace:
            found = _Composite(name)
            self.composites.append(found)
            self.open.append(found)

    def arrow(self, source: str, dest: str, label: str, at: int) -> None:
        within = self.open[-1].name if self.open else ""
        for name in (source, dest):
            self.drawn(name)
        if source == _START and self.open and dest != _START:
            self.open[-1].initial = self.open[-1].initial or dest
        self.moves.append(DiagramArrow(_end(source), _end(dest), label.strip(), at, within))

    def shape(self, name: str, at: int) -> None:
        self.drawn(name)
        self.pseudo.append((name, at))

    def close(self, at: int) -> None:
        if self.open:
            self.open.pop()
        else:
            self.unread.append((at, "a `}` that closes no `state ... {`"))

    def not_read(self, at: int, statement: str) -> None:
        shown = statement if len(statement) <= 60 else statement[:57] + "..."
        self.unread.append((at, f"`{shown}` is not an arrow, a state or a note as read"))

    def done(self, first: int) -> SpecDiagram:
        for left in self.open:
            self.unread.append((first, f"`state {left.name} {{` is never closed with `}}`"))
        return SpecDiagram(
            self.line,
            tuple(self.moves),
            tuple(self.names.items()),
            tuple((c.name, c.initial, tuple(c.members)) for c in self.composites),
            tuple(self.pseudo),
            tuple(self.unread),
            self.language,
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
    drawing = _Drawing(line, MERMAID)
    in_note = False
    for at, statement in statements:
        if in_note:
            in_note = statement != "end note"
            continue
        if statement == "}":
            drawing.close(at)
            continue
        move = _MOVE.fullmatch(statement)
        if move is not None:
            source, dest = (_CLASSED.sub("", move.group(i)) for i in (1, 2))
            drawing.arrow(source, dest, move.group(3) or "", at)
            continue
        pseudo_state = _PSEUDO.fullmatch(statement)
        if pseudo_state is not None:
            drawing.shape(pseudo_state.group(1), at)
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
            drawing.state(name, long, bool(brace))
            continue
        note = _NOTE.fullmatch(statement)
        if note is not None:
            in_note = note.group(1) is None
            continue
        if _SKIPPED.fullmatch(statement) or _DESCRIBED.fullmatch(statement):
            continue
        drawing.not_read(at, statement)
    return drawing.done(header[0])


def _plantuml_statements(text: str, first: int) -> list[tuple[int, str]]:
    """Each line of a PlantUML block with something on it, stripped, with its line
    number; `'` and `/' ... '/` comments left out (a `/'` never closed is no comment)."""
    kept: list[str] = []
    at = 0
    while (opened := text.find("/'", at)) >= 0 and (closed := text.find("'/", opened + 2)) >= 0:
        kept += [text[at:opened], "\n" * text.count("\n", opened, closed)]
        at = closed + 2
    lines = (line.strip() for line in "".join([*kept, text[at:]]).split("\n"))
    return [(first + i, s) for i, s in enumerate(lines) if s and not s.startswith("'")]


def parse_plantuml(text: str, line: int) -> SpecDiagram | None:
    """The state diagram a PlantUML block's `text` draws (the block's fence is line
    `line` of the spec), or None where the block draws no `[*]` and declares no
    `state`: a sequence, an activity or some other diagram."""
    statements = _plantuml_statements(text, line + 1)
    if not statements:
        return None
    drawing = _Drawing(line, PLANTUML)
    in_note = in_skin = declared = False
    opened = (0, "")
    for at, statement in statements:
        if in_note:
            in_note = statement not in ("end note", "endnote")
            continue
        if in_skin:
            in_skin = statement != "}"
            continue
        if statement == "}":
            drawing.close(at)
            continue
        move = _PU_MOVE.fullmatch(statement)
        if move is not None:
            drawing.arrow(move.group(1), move.group(2), move.group(3) or "", at)
            continue
        state = _PU_STATE.fullmatch(statement)
        shape = (state.group(5) or "").lower() if state is not None else ""
        if state is not None and shape in ("", *_PU_SHAPES):
            declared = True
            long, name = state.group(1) or state.group(4) or "", state.group(2) or state.group(3)
            if shape:
                drawing.shape(name, at)
            else:
                drawing.state(name, long, state.group(6) is not None)
            continue
        note = _PU_NOTE.fullmatch(statement)
        if note is not None:
            in_note, opened = note.group(1) is None, (at, statement)
            continue
        if _PU_SKIN_BLOCK.fullmatch(statement):
            in_skin, opened = True, (at, statement)
            continue
        if _PU_SKIPPED.fullmatch(statement) or _DESCRIBED.fullmatch(statement):
            continue
        declared = declared or statement.startswith("state ")
        drawing.not_read(at, statement)
    if not declared and not any(not m.source or not m.dest for m in drawing.moves):
        return None
    if in_note or in_skin:
        end = "`end note`" if in_note else "`}`"
        why = f"`{opened[1][:40]}` is never closed with {end}, so no line after it is read"
        drawing.unread.append((opened[0], why))
    return drawing.done(statements[0][0])


def _end(name: str) -> str:
    return "" if name == _START else name
