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
(`keeping_unread`), which no machine's states it names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..model import Notice, SpecDiagram
from .diagram_blocks import diagram_language
from .identifiers import identifier
from .initial import Claim, claims_said, table_marks
from .light_tables import keeping_over
from .markdown import Block, Heading, Inline, ItemList, Paragraph, Quote, Table
from .policies import unlisted_policy, unread_policies


@dataclass(frozen=True)
class Machines:
    """The machines of a file of several: each one's section name and heading line, and
    the states its tables name (by the lower case of their identifiers)."""

    names: tuple[str, ...]
    lines: tuple[int, ...]
    states: tuple[frozenset[str], ...]

    def having(self, name: str) -> list[int]:
        """The machines whose tables name the state `name`."""
        key = identifier(name).lower() or name
        return [i for i, states in enumerate(self.states) if key in states]

    def listed(self) -> str:
        return ", ".join(f"{n!r} (line {at})" for n, at in zip(self.names, self.lines, strict=True))


def said_of(block: Block, mine: int, machines: Machines) -> bool:
    """Whether a block outside every section is read by the machine `mine` (see the
    module's doc)."""
    if isinstance(block, (Paragraph, ItemList)) and (
        unlisted_policy((block,)) is not None or next(unread_policies((block,)), None)
    ):
        return True
    if any(machines.having(c.name) == [mine] for c in _claims(block)):
        return True
    diagram = _diagram(block)
    return diagram is not None and _drawn_by(diagram, machines) == [mine]


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
        if said_of(block, mine, machines):
            continue
        for claim in _claims(block):
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
        diagram = _diagram(block)
        if diagram is not None and len(_drawn_by(diagram, machines)) != 1:
            yield Notice(
                "diagram_unread",
                f"this {diagram.language} state diagram, {where}, "
                f"{_drawing(diagram, machines)}, so it is compared with none of them: put it "
                "in the section of the machine it draws",
                diagram.line,
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


def _claims(block: Block) -> Iterator[Claim]:
    """The claims of where a machine starts a block makes, as a file of one machine
    reads them (`read.document`): a paragraph's sentences, each list item's first line,
    a block quote's paragraphs, a States table's marks."""
    if isinstance(block, Paragraph):
        yield from claims_said(block.lines, frozenset())
    elif isinstance(block, ItemList):
        yield from claims_said(tuple(_first_lines(block)), frozenset())
    elif isinstance(block, Quote):
        for inner in block.blocks:
            yield from _claims(inner)
    elif isinstance(block, Table):
        yield from table_marks(block)


def _first_lines(block: ItemList) -> Iterator[Inline]:
    for item in block.items:
        first = next((b for b in item.blocks if isinstance(b, Paragraph)), None)
        if first is not None and first.lines:
            yield first.lines[0]


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
