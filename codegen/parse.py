"""Parsing the spec's sections: the Spells list, the States list and every transition table.

Input is the located blocks of `codegen.markdown`; output is IR objects that
still hold names as written. Resolving names and expanding notation is the
next stage (`codegen.expand`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .actions import parse_actions
from .errors import fail
from .glossary import parse_condition, parse_indicators
from .markdown import (
    Block,
    BrokenTable,
    Cell,
    Code,
    Heading,
    Inline,
    Item,
    ItemList,
    Paragraph,
    Row,
    Table,
)
from .model import (
    Kind,
    ResponseTemplate,
    RuleRow,
    Selector,
    Spell,
    State,
    Target,
    ValidAction,
)

REQUIRED_COLUMNS = ("id", "current state", "trigger", "condition", "next state", "action")
SPELL_SECTIONS = ("spells", "triggers")
STATE_SECTIONS = ("states",)
DEFAULT_STATE_FILE = "state.json"
TEMPLATE_KINDS = (
    ("blocked", "blocked"),
    ("no-op", "noop"),
    ("noop", "noop"),
    ("confirmation", "confirmation"),
    ("standard", "standard"),
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Document:
    """What the parser read: everything still named as written."""

    title: str
    state_file: str
    spells: tuple[Spell, ...]
    states: tuple[State, ...]
    rows: tuple[RuleRow, ...]
    templates: tuple[ResponseTemplate, ...]
    state_example: dict[str, object] | None = None
    spell_word: str = "spell"


@dataclass(frozen=True)
class _Placed:
    """A block with the headings above it, innermost last."""

    block: Block
    headings: tuple[Heading, ...]

    def within(self, names: Iterable[str]) -> bool:
        wanted = set(names)
        return any(h.text.strip().lower() in wanted for h in self.headings)

    @property
    def group(self) -> str:
        return self.headings[-1].text if self.headings else ""


def parse_document(blocks: tuple[Block, ...]) -> Document:
    """Read the Spells and States lists and the transition tables; fail on unusable input."""
    if not blocks:
        fail("the file is empty: expected a markdown spec with States, Spells and tables", 1)
    placed = list(_place(blocks))
    state_file = _state_file(placed)
    workspace = state_file.rpartition("/")[0]
    spells = tuple(_spells(placed))
    states = tuple(_states(placed, workspace))
    rows = tuple(_rows(placed, workspace))
    if not states:
        fail(
            "not a state-machine spec: no 'States' section with a list of **STATE_NAME** items",
            1,
        )
    if not spells:
        fail("not a state-machine spec: no 'Spells' section with a list of **Spell** items", 1)
    if not rows:
        fail(
            "not a state-machine spec: no transition table (a table with columns "
            + ", ".join(c.title() for c in REQUIRED_COLUMNS)
            + ")",
            1,
        )
    title = next((b.text for b in blocks if isinstance(b, Heading)), "")
    return Document(
        title,
        state_file,
        spells,
        states,
        rows,
        tuple(_templates(placed)),
        _state_example(placed),
        _spell_word(placed),
    )


def _place(blocks: tuple[Block, ...]) -> Iterator[_Placed]:
    stack: list[Heading] = []
    for block in blocks:
        if isinstance(block, Heading):
            while stack and stack[-1].level >= block.level:
                stack.pop()
            stack.append(block)
            continue
        yield _Placed(block, tuple(stack))


# --- Spells and States --------------------------------------------------------


def _spells(placed: list[_Placed]) -> Iterator[Spell]:
    for p in placed:
        if p.within(SPELL_SECTIONS) and isinstance(p.block, ItemList):
            for item in p.block.items:
                yield parse_spell_item(item)


def _states(placed: list[_Placed], workspace: str) -> Iterator[State]:
    for p in placed:
        if not p.within(STATE_SECTIONS):
            continue
        if isinstance(p.block, ItemList):
            for item in p.block.items:
                yield parse_state_item(_item_lines(item), workspace)
        elif isinstance(p.block, Paragraph) and _has_title(p.block.lines[0]):
            # An item numbered like `14a.` is not a list item in markdown: it is a
            # paragraph whose first line is the title and whose other lines are fields.
            yield parse_state_item(p.block.lines, workspace)


def _spell_word(placed: list[_Placed]) -> str:
    """What the spec calls its spells, from the heading of their list: "spell", "trigger"."""
    for p in placed:
        if isinstance(p.block, ItemList):
            for h in reversed(p.headings):
                name = h.text.strip().lower()
                if name in SPELL_SECTIONS:
                    return name.removesuffix("s")
    return "spell"


def parse_spell_item(item: Item) -> Spell:
    lines = _item_lines(item)
    name, line = _title(lines[0], "spell")
    fields = _fields(lines[1:])
    return Spell(
        name=name,
        description=fields.get("description", ("", line))[0],
        usage=fields.get("usage", ("", line))[0],
        line=line,
        target=fields.get("target", ("", line))[0].strip("`* "),
    )


def parse_state_item(lines: tuple[Inline, ...], workspace: str = "") -> State:
    name, line = _title(lines[0], "state")
    fields = _fields(lines[1:])
    actions_text, actions_line = fields.get("valid actions", ("", line))
    indicators = fields.get("indicators", ("", line))[0]
    evidence, inferable = parse_indicators(indicators, workspace)
    return State(
        name=name,
        description=fields.get("description", ("", line))[0],
        indicators=indicators,
        valid_actions=_valid_actions(actions_text, actions_line),
        line=line,
        evidence=evidence,
        inferable=inferable,
    )


def _item_lines(item: Item) -> tuple[Inline, ...]:
    """The title line of an item followed by the first line of each nested item."""
    lines: list[Inline] = []
    for block in item.blocks:
        if isinstance(block, Paragraph):
            lines.extend(block.lines)
        elif isinstance(block, ItemList):
            for sub in block.items:
                first = next((b for b in sub.blocks if isinstance(b, Paragraph)), None)
                if first is not None:
                    lines.append(first.lines[0])
    if not lines:
        fail("list item is empty", item.line)
    return tuple(lines)


def _has_title(line: Inline) -> bool:
    return any(s.kind == "strong" for s in line.segments)


def _title(line: Inline, what: str) -> tuple[str, int]:
    strong = next((s.text.strip() for s in line.segments if s.kind == "strong"), None)
    name = strong if strong is not None else line.plain
    if not _IDENTIFIER.fullmatch(name):
        fail(
            f"{what} name {name!r} is not an identifier (write it in bold, e.g. **NAME**)",
            line.line,
        )
    return name, line.line


def _fields(lines: Iterable[Inline]) -> dict[str, tuple[str, int]]:
    """`- *Key*: value` lines as {key: (value as markdown, line)}; first one wins."""
    fields: dict[str, tuple[str, int]] = {}
    for line in lines:
        index = next(
            (i for i, s in enumerate(line.segments) if s.kind in ("emphasis", "strong")), None
        )
        if index is not None:
            key = line.segments[index].text
            value = "".join(s.markdown for s in line.segments[index + 1 :])
        elif ":" in line.plain:
            key, value = line.plain.lstrip("-*+ ").split(":", 1)
        else:
            continue
        key = " ".join(key.strip().rstrip(":").split()).lower()
        fields.setdefault(key, (value.strip().lstrip(":").strip(), line.line))
    return fields


def _valid_actions(text: str, line: int) -> tuple[ValidAction, ...]:
    actions: list[ValidAction] = []
    for part in _split_outside_parens(text):
        part = part.strip().strip("*").strip()
        if not part:
            continue
        name, _, note = part.partition("(")
        actions.append(ValidAction(name.strip().strip("*"), note.rstrip(")").strip(), line))
    return tuple(actions)


def _split_outside_parens(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


# --- Transition tables --------------------------------------------------------


def _state_file(placed: list[_Placed]) -> str:
    """The state file the spec names, preferably in its State Persistence section."""
    found: list[tuple[bool, str]] = []
    for p in placed:
        if isinstance(p.block, Paragraph):
            for line in p.block.lines:
                for seg in line.segments:
                    if seg.kind == "code" and seg.text.strip().endswith("state.json"):
                        found.append((p.within(["state persistence"]), seg.text.strip()))
    preferred = [path for in_section, path in found if in_section] or [path for _, path in found]
    path = preferred[0] if preferred else DEFAULT_STATE_FILE
    return path[2:] if path.startswith("./") else path


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


def _rows(placed: list[_Placed], workspace: str) -> Iterator[RuleRow]:
    previous_rule_table: Table | None = None
    for p in placed:
        block = p.block
        if isinstance(block, Table):
            columns = _rule_columns(block)
            previous_rule_table = block if columns else None
            if columns:
                kind = group_kind(p.group)
                for row in block.rows:
                    yield parse_rule_row(row, columns, p.group, kind, workspace)
        elif isinstance(block, BrokenTable):
            after_rule_table = (
                previous_rule_table is not None and block.line == previous_rule_table.end_line + 1
            )
            if after_rule_table or _names_rule_columns(block.text):
                fail(block.reason, block.bad_line)
            previous_rule_table = None
        else:
            previous_rule_table = None


def _normal(text: str) -> str:
    return " ".join(text.split()).lower()


def _rule_columns(table: Table) -> dict[str, int]:
    """Column name -> index for a transition table; {} for any other table."""
    names = [_normal(c.plain) for c in table.header.cells]
    present = [c for c in REQUIRED_COLUMNS if c in names]
    if len(present) < 2:
        return {}
    missing = [c for c in REQUIRED_COLUMNS if c not in names]
    if missing:
        fail(
            "transition table has no "
            + ", ".join(repr(m.title()) for m in missing)
            + " column (it has "
            + _listed([repr(c.plain) for c in table.header.cells])
            + ")",
            table.line,
        )
    columns: dict[str, int] = {}
    for index, name in enumerate(names):
        columns.setdefault(name, index)
    return columns


def _names_rule_columns(text: str) -> bool:
    normal = _normal(text)
    return sum(column in normal for column in REQUIRED_COLUMNS) >= 2


def group_kind(heading: str) -> Kind:
    """The kind a table's heading announces: `... Blocked ...`, `... No-op ...`, or transitions."""
    words = _normal(heading)
    if "blocked" in words:
        return Kind.BLOCKED
    if re.search(r"\bno-?op\b", words):
        return Kind.NOOP
    return Kind.TRANSITION


def parse_rule_row(
    row: Row, columns: dict[str, int], group: str, kind: Kind, workspace: str = ""
) -> RuleRow:
    def cell(name: str) -> Cell | None:
        index = columns.get(name)
        return row.cells[index] if index is not None and index < len(row.cells) else None

    def plain(name: str) -> str:
        c = cell(name)
        return c.plain if c is not None else ""

    def required(name: str) -> str:
        text = plain(name)
        if not text:
            fail(f"rule row has an empty {name.title()!r} cell", row.line)
        return text

    written_id = plain("id")
    triggers = tuple(t.strip() for t in required("trigger").split(",") if t.strip())
    response_cell = cell("response")
    old_response = cell("old response")
    links = [s for s in response_cell.inline.segments if s.kind == "link"] if response_cell else []
    response = old_response.source if old_response is not None else ""
    if not response and response_cell is not None and not links:
        response = response_cell.source
    action = cell("action")
    return RuleRow(
        id=written_id or f"#{row.line}",
        id_written=bool(written_id),
        line=row.line,
        group=group,
        group_kind=kind,
        current=parse_selector(required("current state")),
        triggers=triggers,
        condition=parse_condition(plain("condition"), workspace),
        target=parse_target(required("next state")),
        action=action.source if action is not None else "",
        actions=parse_actions(action.plain if action is not None else "", workspace),
        response=response,
        response_ref=links[0].target if links else "",
    )


_WILDCARD = re.compile(r"(?:any|all) states?(?:\s+except\s+(?P<rest>.+))?", re.IGNORECASE)


def parse_selector(text: str) -> Selector:
    """`A, B` / `Any state` / `Any state except A, NAME_[G/A]`."""
    m = _WILDCARD.fullmatch(text.strip())
    if m:
        return Selector(True, _names(m.group("rest") or ""))
    return Selector(False, _names(text))


def parse_target(text: str) -> Target:
    """`STATE` / `NAME_[G/A]` / `[BLOCKED]` / `Same state` / `No state change`."""
    normal = _normal(text)
    if normal == "[blocked]":
        return Target(Kind.BLOCKED, None)
    if normal in ("same state", "no state change"):
        return Target(Kind.NOOP, None)
    return Target(Kind.TRANSITION, text.strip())


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in text.split(",") if n.strip())


def _listed(items: list[str], most: int = 10) -> str:
    """Items joined with commas, the list cut short after `most`."""
    shown = ", ".join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")
