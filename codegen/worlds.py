"""Worlds: every combination of the facts a cell's conditions can see, and who wins in each.

A world assigns true or false to each atom a cell's rules mention, plus the
atoms those imply (so `plan.md has unchecked acceptance criteria` can never be
true while `plan.md missing` is). Worlds that break an implication are skipped.
In each world the winner is the first rule, in priority order, whose condition
holds. Worlds are bitmasks and conditions are (required, forbidden) masks, and
results are shared between cells whose rules have the same conditions in the
same order, so a spec of many alike states costs little more than one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from .glossary import describe, implied
from .model import Atom, Condition, Literal, Rule

# Cells whose conditions mention more atoms than this are not enumerated.
MAX_ATOMS = 16

Signature = tuple[tuple[int, tuple[Literal, ...]], ...]


@dataclass(frozen=True)
class CellResult:
    """What happens in one cell, by rule index (priority order).

    `wins[i]`: an example world in which rule i wins, or None if it never does.
    `gap`: an example world in which no rule fires, or None.
    `overlaps`: (winner, loser, world) where both fire, with the same priority.
    """

    atoms: tuple[Atom, ...]
    wins: tuple[int | None, ...]
    gap: int | None
    overlaps: tuple[tuple[int, int, int], ...]
    too_big: bool = False

    def worlds(self) -> Iterator[int]:
        """Every world that respects the glossary's implications."""
        return consistent_worlds(self.atoms)

    def describe(self, world: int) -> str:
        """A world in plain words: `plan.md exists, task.md missing`."""
        return ", ".join(
            describe(Literal(atom, bool(world >> i & 1))) for i, atom in enumerate(self.atoms)
        )


def signature(rules: Sequence[Rule]) -> Signature:
    return tuple((int(r.specificity), r.condition.literals) for r in rules)


def analyse_cell(rules: Sequence[Rule]) -> CellResult:
    return _analyse(signature(rules))


def holds(condition: Condition, atoms: Sequence[Atom], world: int) -> bool:
    index = {atom: i for i, atom in enumerate(atoms)}
    return all(bool(world >> index[lit.atom] & 1) == lit.positive for lit in condition.literals)


@cache
def _analyse(sig: Signature) -> CellResult:
    atoms = _closure(lit.atom for _, literals in sig for lit in literals)
    if len(atoms) > MAX_ATOMS:
        return CellResult(atoms, tuple(None for _ in sig), None, (), too_big=True)
    bit = {atom: 1 << i for i, atom in enumerate(atoms)}
    masks = [
        (
            sum(bit[lit.atom] for lit in literals if lit.positive),
            sum(bit[lit.atom] for lit in literals if not lit.positive),
        )
        for _, literals in sig
    ]
    wins: list[int | None] = [None] * len(sig)
    gap: int | None = None
    overlaps: dict[tuple[int, int], int] = {}
    for world in consistent_worlds(atoms):
        firing = [
            i for i, (need, ban) in enumerate(masks) if world & need == need and not world & ban
        ]
        if not firing:
            if gap is None:
                gap = world
            continue
        winner = firing[0]
        if wins[winner] is None:
            wins[winner] = world
        for other in firing[1:]:
            if sig[other][0] == sig[winner][0]:
                overlaps.setdefault((winner, other), world)
    return CellResult(
        atoms,
        tuple(wins),
        gap,
        tuple((w, o, world) for (w, o), world in sorted(overlaps.items())),
    )


def consistent_worlds(atoms: Sequence[Atom]) -> Iterator[int]:
    """Worlds over `atoms` (bit i = atoms[i]) in which no implication is broken."""
    bit = {atom: 1 << i for i, atom in enumerate(atoms)}
    implications = [(bit[a], bit[b]) for a in atoms for b in implied(a) if b in bit]
    for world in range(1 << len(atoms)):
        if not any(world & a and not world & b for a, b in implications):
            yield world


def _closure(atoms: Iterable[Atom]) -> tuple[Atom, ...]:
    found: set[Atom] = set()
    for atom in atoms:
        found.add(atom)
        found.update(implied(atom))
    return tuple(sorted(found))
