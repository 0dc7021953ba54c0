"""Coverage: which (state, spell) cells, and which family cells, some rule covers."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Spec


@dataclass(frozen=True)
class Coverage:
    covered: int
    total: int

    def __str__(self) -> str:
        return f"{self.covered}/{self.total}"


def state_coverage(spec: Spec) -> Coverage:
    cells = [(st.name, sp.name) for st in spec.states for sp in spec.spells]
    return Coverage(sum(1 for c in cells if spec.cell(*c)), len(cells))


def family_coverage(spec: Spec) -> Coverage:
    """A family's cell is covered when the cell of every member state is."""
    covered = sum(
        1
        for fam in spec.families
        for sp in spec.spells
        if all(spec.cell(member, sp.name) for member in fam.members)
    )
    return Coverage(covered, len(spec.families) * len(spec.spells))


def family_cell(spec: Spec, family: str, spell: str) -> tuple[str, ...]:
    """Rule IDs of a family's cell: the members' rules in priority order, each ID once."""
    fam = next(f for f in spec.families if f.name == family)
    ids: dict[str, None] = {}
    for rule in sorted(
        (r for m in fam.members for r in spec.cell(m, spell)), key=lambda r: r.priority
    ):
        ids.setdefault(rule.id, None)
    return tuple(ids)
