"""What is written above the sections of a file of several machines (`read.sections`):
which machine reads each block there, and a notice for what no machine reads.

Each machine is read from its own section, with these blocks from outside every
section:

- a sentence saying transitions not listed are rejected (a paragraph's, or a list
  item's, as a file of one machine reads either): every machine's policy;
- a line saying where a machine starts (a paragraph's sentence, a list item's first
  line, a block quote's, a States table's `(initial)` mark) in a state the tables of
  one machine alone name: that machine's;
- a state diagram (Mermaid or PlantUML) whose states, those any machine's tables name,
  are all one machine's, and no other machine has them all: that machine's, compared
  with it.

What a machine would read but none takes is said in each machine's report, at its
line, never dropped without a word: a line saying something starts in a state several
machines name, or none (`states_unread`); a diagram drawing states of several
machines, or of none (`diagram_unread`); a list of events that keep the state
(`keeping_unread`), which no machine's states it names; a Spells list (`list_unread`);
a State Guards list (`guard_unread`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ..model import Notice, SpecDiagram
from .diagram_blocks import diagram_language
from .guards import read_guards
from .identifiers import identifier
from .initial import (
    Claim,
    claims_said,
    front_matter_claims,
    heading_claim,
    heading_mark,
    machine_words,
    table_marks,
)
from .light_tables import keeping_over
from .markdown import (
    Block,
    FrontMatter,
    Heading,
    Inline,
    Item,
    ItemList,
    Paragraph,
    Quote,
    Table,
)
from .policies import unlisted_policy, unread_policies


@dataclass(frozen=True)
class Machines:
    """The machines of a file of several: each one's section name and heading line, and
    the states its tables name (by the lower case of their identifiers)."""

    names: tuple[str, ...]
    lines: tuple[int, ...]
    states: tuple[frozenset[str], ...]
    # The diagram each block outside the sections draws, by the block's id, and the
    # machines it draws (`_drawn_by`) or, where not one, what it draws in words
    # (`_drawing`): each is read once for the file, however many machines ask (the
    # file's blocks outlive this).
    drawn: dict[int, tuple[SpecDiagram, list[int], str] | None] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def diagram(self, block: Block) -> tuple[SpecDiagram, list[int], str] | None:
        """The state diagram `block` draws, if it is one (`_diagram`), the machines it
        draws (`_drawn_by`) and, where not one, what it draws (`_drawing`), read once."""
        if id(block) not in self.drawn:
            diagram = _diagram(block)
            if diagram is None:
                self.drawn[id(block)] = None
            else:
                by = _drawn_by(diagram, self)
                said = _drawing(diagram, self) if len(by) != 1 else ""
                self.drawn[id(block)] = (diagram, by, said)
        return self.drawn[id(block)]

    @cached_property
    def _index(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = {}
        for i, states in enumerate(self.states):
            for state in states:
                index.setdefault(state, []).append(i)
        return index

    def having(self, name: str) -> list[int]:
        """The machines whose tables name the state `name`."""
        key = identifier(name).lower() or name
        return list(self._index.get(key, ()))

    def listed(self) -> str:
        return ", ".join(f"{n!r} (line {at})" for n, at in zip(self.names, self.lines, strict=True))


# The headings of a States section, whose list items are no claims (`claims_of`).
STATE_SECTIONS = ("states",)
# The names a spec may give the list of its spells, in order of preference: a spec
# with a Spells section and an Actions section (of something else) reads the first.
SPELL_SECTIONS = ("spells", "triggers", "commands", "events", "actions")


def said_of(
    block: Block, mine: int, machines: Machines, headings: tuple[Heading, ...] = ()
) -> bool:
    """Whether a block outside every section is read by the machine `mine` (see the
    module's doc)."""
    if isinstance(block, (Paragraph, ItemList)) and (
        unlisted_policy((block,)) is not None or next(unread_policies((block,)), None)
    ):
        return True
    if any(machines.having(c.name) == [mine] for c in claims_of(block, headings)):
        return True
    drawn = machines.diagram(block)
    return drawn is not None and drawn[1] == [mine]


def unread(
    placed: Sequence[tuple[Block, tuple[Heading, ...], Block | None]],
    mine: int,
    machines: Machines,
) -> Iterator[Notice]:
    """A notice, for the machine `mine`'s report, of each thing the blocks outside every
    section say that no machine reads (`placed`: each block, the headings above it and
    the block before it)."""
    count = len(machines.names)
    where = f"above the sections of this file of {count} machines"
    for block, headings, before in placed:
        if said_of(block, mine, machines, headings):
            continue
        for claim in claims_of(block, headings):
            having = machines.having(claim.name)
            if len(having) == 1 or (not having and claim.loose):
                continue  # one machine's (read there), or prose: `starts in the morning`
            whose = (
                "a state of " + " and ".join(repr(machines.names[i]) for i in having)
                if having
                else f"which is no state of any of them ({machines.listed()})"
            )
            yield Notice(
                "states_unread",
                f"this line, {where}, says something starts in {claim.name!r}, {whose}, "
                "so no machine takes it as where it starts; say it in the section of the "
                f"machine it is about: ``The initial state is `{claim.name}`.``",
                claim.line,
            )
        drawn = machines.diagram(block)
        if drawn is not None and len(drawn[1]) != 1:
            diagram, _, drawing = drawn
            yield Notice(
                "diagram_unread",
                f"this {diagram.language} state diagram, {where}, "
                f"{drawing}, so it is compared with none of them: put it "
                "in the section of the machine it draws",
                diagram.line,
            )
        listed = _names_list(block, headings)
        if listed:
            yield Notice(
                "list_unread",
                f"the {listed} list, {where}, is read by none of them, so no machine has "
                "what it says of its events: each machine is read from its own section, "
                "its events from its tables where the section has no list; write the list "
                "in the section of the machine it is about",
                block.line,
            )
        if isinstance(block, (ItemList, Paragraph)) and read_guards((*headings, block)):
            yield Notice(
                "guard_unread",
                f"the State Guards list, {where}, is read by none of them, so no machine's "
                "tables are checked against it: each machine is read from its own section; "
                "write the list in the section of the machine it is about",
                block.line,
            )
        if isinstance(block, ItemList):
            said, _ = keeping_over(headings, before)
            if said:
                yield Notice(
                    "keeping_unread",
                    f"the list under {said!r}, {where}, is no machine's, so its events "
                    "are no events of any of them: each machine is read from its own "
                    "section; write the list in the section of each machine whose state "
                    "they keep",
                    block.line,
                )


def _names_list(block: Block, headings: tuple[Heading, ...]) -> str:
    """`Spells` where `block` is a list of names under a heading a file of one machine
    reads as its Spells list (each item opening with a name in bold or in backticks:
    `1. **Review**`); "" otherwise. (A States list above the sections makes the file
    one machine: `sections.machines`.)"""
    if not isinstance(block, ItemList) or not block.items:
        return ""
    if not any(h.text.strip().lower() in SPELL_SECTIONS for h in headings):
        return ""
    firsts = [_first_line(item) for item in block.items]
    if all(f is not None and f.segments and f.segments[0].kind in _NAMED for f in firsts):
        return "Spells"
    return ""


# How a Spells list writes each name: in bold, or in backticks.
_NAMED = frozenset({"strong", "code"})


def claims_of(
    block: Block,
    headings: tuple[Heading, ...],
    first_line: Callable[[Item], Inline | None] | None = None,
) -> Iterator[Claim]:
    """Each claim of where the machine starts that a block under `headings` makes, as
    both a file of one machine (`read.document`) and the blocks above the sections of a
    file of several read them: the front matter's `initial:`, a table's marks, a
    paragraph of one name under a heading `Initial state`, and the sentences of a
    paragraph, of each list item's first line (`first_line`; none in a States section)
    and of a block quote's paragraphs."""
    if isinstance(block, FrontMatter):
        yield from front_matter_claims(block)
    if isinstance(block, Table):
        yield from table_marks(block)
        marked = heading_mark(headings[-1]) if headings else None
        if marked is not None:  # `### Open (initial)` over the moves out of Open
            yield marked
    if isinstance(block, Paragraph) and headings:
        named = heading_claim(headings[-1].text, block.lines)
        if named is not None:
            yield named
    words = machine_words(h.text for h in headings)
    for lines in _prose_lines(block, headings, first_line or _first_line):
        yield from claims_said(lines, words)


def claim_heading(block: Block, headings: tuple[Heading, ...]) -> Heading | None:
    """The heading a paragraph of one name is a claim under (`## Initial state` over
    `` `review` ``), which a machine taking the paragraph takes with it."""
    if (
        isinstance(block, Paragraph)
        and headings
        and heading_claim(headings[-1].text, block.lines) is not None
    ):
        return headings[-1]
    return None


def _prose_lines(
    block: Block, headings: tuple[Heading, ...], first_line: Callable[[Item], Inline | None]
) -> Iterator[tuple[Inline, ...]]:
    """The lines of a block's paragraphs claims are read from, a paragraph at a time."""
    if isinstance(block, Paragraph):
        yield block.lines
    elif isinstance(block, ItemList) and not any(
        h.text.strip().lower() in STATE_SECTIONS for h in headings
    ):
        yield tuple(line for item in block.items if (line := first_line(item)) is not None)
    elif isinstance(block, Quote):
        for inner in block.blocks:
            yield from _prose_lines(inner, headings, first_line)


def _first_line(item: Item) -> Inline | None:
    first = next((b for b in item.blocks if isinstance(b, Paragraph)), None)
    return first.lines[0] if first is not None and first.lines else None


def _diagram(block: Block) -> SpecDiagram | None:
    """The state diagram a code block draws, if it is one (the reader imported only for
    a Mermaid or a PlantUML block)."""
    if diagram_language(block) is None:
        return None
    from .mermaid import read_diagrams

    return next(iter(read_diagrams((block,))), None)


def _states_of(diagram: SpecDiagram) -> dict[str, str]:
    """Each state a diagram draws, by its name, with its long name ("" for none)."""
    long = dict(diagram.names)
    drawn = [n for m in diagram.moves for n in (m.source, m.dest) if n]
    drawn += [*long, *(m for _, _, members in diagram.composites for m in members)]
    return {name: long.get(name, "") for name in drawn}


def _machines_of(name: str, long: str, machines: Machines) -> set[int]:
    return {i for written in (name, long) if written for i in machines.having(written)}


def _drawn_by(diagram: SpecDiagram, machines: Machines) -> list[int]:
    """The machines a diagram draws: the one having every state it draws that some
    machine's tables name; [] where no machine, or several, have them all (or it draws
    no state of any)."""
    found = [_machines_of(n, long, machines) for n, long in _states_of(diagram).items()]
    known = [f for f in found if f]
    if not known:
        return []
    common = set.intersection(*known)
    return sorted(common) if len(common) == 1 else []


def _drawing(diagram: SpecDiagram, machines: Machines) -> str:
    """What a diagram no machine reads draws, in words."""
    by: dict[int, list[str]] = {}
    for name, long in _states_of(diagram).items():
        for i in sorted(_machines_of(name, long, machines)):
            by.setdefault(i, []).append(name)
    if not by:
        return f"draws no state of any of them ({machines.listed()})"
    return "draws states of " + "; ".join(
        f"{machines.names[i]!r} ({', '.join(names)})" for i, names in sorted(by.items())
    )
