"""The spec's state diagrams, Mermaid and PlantUML, against its tables: where a diagram
starts, every arrow it draws that no row makes (or makes on another trigger), and every
move the rows make that no diagram draws (`diagram_disagrees`); the diagram lines not
read (`diagram_unread`). Each finding names the diagram's language.

A diagram's state is a table's state where their identifiers are the same (`read.
identifiers`, the way a table's written names get theirs), its own or its long name's
(`state "Long name" as S`), or else the same but for case, or but for case and
underscores (a diagram's id holds no space: `InReview` is `In review`). An arrow from a composite
state leaves each state drawn in it, one into it arrives where its `[*]` leads. A move
of a state to itself is compared where the diagram draws it, and not missed where it
does not: diagrams leave those out. `S --> [*]` is read and not compared.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model import DiagramArrow, Kind, RuleSpec, Spec, SpecDiagram
from ..read.identifiers import identifier
from .analysis import Analysis
from .findings import Finding


def check_diagrams(analysis: Analysis) -> Iterator[Finding]:
    spec = analysis.spec
    if not spec.diagrams:
        return
    rules = [r for r in spec.rules if not r.policy and r.kind is not Kind.BLOCKED]
    drawn: set[tuple[str, str]] = set()
    for diagram in spec.diagrams:
        names = _Names(spec, diagram)
        yield from _unread(diagram)
        yield from _start(spec, diagram, names)
        for move in diagram.moves:
            if move.source and move.dest:
                yield from _arrow(spec, diagram, move, names, rules, drawn)
    yield from _left_out(spec, rules, drawn)


class _Names:
    """A diagram's names for the tables' states."""

    def __init__(self, spec: Spec, diagram: SpecDiagram) -> None:
        self.states = {s.name for s in spec.states}
        self.folded: dict[str, list[str]] = {}
        self.squashed: dict[str, list[str]] = {}  # but for `_` too: `InReview`, `in_review`
        for name in self.states:
            self.folded.setdefault(name.casefold(), []).append(name)
            self.squashed.setdefault(name.replace("_", "").casefold(), []).append(name)
        self.long = dict(diagram.names)
        self.composites = {c: (initial, members) for c, initial, members in diagram.composites}
        self.pseudo = {p for p, _ in diagram.pseudo}
        self.kept: dict[str, tuple[str, ...]] = {}

    def state(self, name: str) -> str | None:
        """The table's state the diagram's `name` is, or None."""
        for written in (name, self.long.get(name, "")):
            ident = identifier(written) if written else ""
            if ident in self.states:
                return ident
            same = self.folded.get(ident.casefold(), []) if ident else []
            if len(same) == 1:
                return same[0]
        for written in (name, self.long.get(name, "")):  # an id can hold no space: `InReview`
            ident = identifier(written) if written else ""
            same = self.squashed.get(ident.replace("_", "").casefold(), []) if ident else []
            if len(same) == 1:
                return same[0]
        return None

    def leaves(self, name: str) -> tuple[str, ...]:
        """The diagram's states an arrow from `name` leaves (all drawn in a composite),
        each once, in the order they are drawn."""
        return self._leaves(name, frozenset())[0]

    def _leaves(self, name: str, seen: frozenset[str]) -> tuple[tuple[str, ...], bool]:
        """`name`'s leaves below the composites `seen`, and whether one of those cut
        the walk short. A composite's leaves are kept where none did, so a composite
        drawn inside many others is walked once."""
        if name in self.kept:
            return self.kept[name], False
        members = self.composites.get(name, ("", ()))[1]
        inner = [m for m in members if m not in seen]
        cut = len(inner) < len(members)
        found: dict[str, None] = {} if inner else {name: None}
        for member in inner:
            below, member_cut = self._leaves(member, seen | {name})
            found.update(dict.fromkeys(below))
            cut = cut or member_cut
        if not cut:
            self.kept[name] = tuple(found)
        return tuple(found), cut

    def entry(self, name: str, seen: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """The diagram's states an arrow into `name` arrives in (a composite's `[*]`)."""
        if name not in self.composites or name in seen:
            return (name,)
        initial, _ = self.composites[name]
        return self.entry(initial, seen | {name}) if initial else self.leaves(name)

    def shown(self, name: str) -> str:
        long = self.long.get(name)
        return f'{name} ("{long}")' if long else name


def _unread(diagram: SpecDiagram) -> Iterator[Finding]:
    for line, why in diagram.unread:
        yield Finding(
            "diagram_unread",
            f"this line of the {diagram.language} state diagram is not read: {why}; "
            "the diagram is compared with the tables without it",
            line=line,
        )
    for name, line in diagram.pseudo:
        yield Finding(
            "diagram_unread",
            f"{name} is a choice, fork or join state of the {diagram.language} state diagram: "
            "the arrows into and out of it are not compared with the tables",
            line=line,
        )


def _start(spec: Spec, diagram: SpecDiagram, names: _Names) -> Iterator[Finding]:
    starts = [m for m in diagram.moves if not m.source and m.dest and not m.within]
    if not starts or any(
        names.state(entry) == spec.initial for m in starts for entry in names.entry(m.dest)
    ):
        return
    first = starts[0]
    yield Finding(
        "diagram_disagrees",
        f"the {diagram.language} state diagram starts in {names.shown(first.dest)} "
        f"(`[*] --> {first.dest}`), the tables in {spec.initial}",
        line=first.line,
        state=spec.initial,
    )


def _arrow(
    spec: Spec,
    diagram: SpecDiagram,
    move: DiagramArrow,
    names: _Names,
    rules: list[RuleSpec],
    drawn: set[tuple[str, str]],
) -> Iterator[Finding]:
    if move.source in names.pseudo or move.dest in names.pseudo:
        return
    arrow = f"`{move.source} --> {move.dest}" + (f": {move.label}`" if move.label else "`")
    drawing = f"the {diagram.language} state diagram draws {arrow}"
    pairs = [(a, b) for a in names.leaves(move.source) for b in names.entry(move.dest)]
    unknown = [n for pair in pairs for n in pair if names.state(n) is None]
    if unknown:
        yield Finding(
            "diagram_disagrees",
            f"{drawing}, but no table has a state "
            + " or ".join(dict.fromkeys(names.shown(n) for n in unknown)),
            line=move.line,
        )
        return
    moves = {(names.state(a), names.state(b)) for a, b in pairs}
    drawn.update((a, b) for a, b in moves if a is not None and b is not None)
    making = [r for r in rules if (r.source, r.dest) in moves]
    source, dest = names.state(pairs[0][0]), names.state(pairs[0][1])
    if not making:
        yield Finding(
            "diagram_disagrees",
            f"{drawing}, but no row moves {source} to {dest}",
            line=move.line,
            state=source,
        )
        return
    if not move.label or "trigger" not in spec.layout:
        return
    spells = dict.fromkeys(r.spell for r in making)
    if any(_labelled(move.label, spell, spec) for spell in spells):
        return
    ids = ", ".join(dict.fromkeys(r.id for r in making))
    yield Finding(
        "diagram_disagrees",
        f"{drawing}, but the rows move {source} to {dest} "
        f"on {', '.join(_written(s, spec) for s in spells)} ({ids}), not on {move.label!r}",
        line=move.line,
        state=source,
    )


def _labelled(label: str, spell: str, spec: Spec) -> bool:
    """Whether an arrow's label names `spell`: its event (the label up to a `[guard]`
    or `/ action`), or words of it, are the spell's name or its written name."""
    said = identifier(label.split("[")[0].split("/")[0]).casefold()
    if not said:
        return False
    found = next((s for s in spec.spells if s.name == spell), None)
    for name in (spell, found.title if found else ""):
        ident = identifier(name).casefold() if name else ""
        if ident and (said == ident or f"_{ident}_" in f"_{said}_"):
            return True
    return False


def _written(spell: str, spec: Spec) -> str:
    found = next((s for s in spec.spells if s.name == spell), None)
    return found.title if found and found.title else spell


def _left_out(spec: Spec, rules: list[RuleSpec], drawn: set[tuple[str, str]]) -> Iterator[Finding]:
    """The moves of the rows no diagram draws, one finding a (from, to), at the first
    diagram's line."""
    missing: dict[tuple[str, str], list[RuleSpec]] = {}
    for rule in rules:
        if rule.changes_state and (rule.source, rule.dest) not in drawn:
            missing.setdefault((rule.source, rule.dest), []).append(rule)
    line = spec.diagrams[0].line
    for (source, dest), making in missing.items():
        spells = ", ".join(dict.fromkeys(_written(r.spell, spec) for r in making))
        rows = "; ".join(dict.fromkeys(f"{r.id}, line {r.line}" for r in making))
        yield Finding(
            "diagram_disagrees",
            f"the rows move {source} to {dest} on {spells} ({rows}), "
            f"but the {spec.diagrams[0].language} state diagram draws no `{source} --> {dest}`",
            line=line,
            state=source,
            spell=making[0].spell,
        )
