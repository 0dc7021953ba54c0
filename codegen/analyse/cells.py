"""One cell in every world: every combination of the facts its conditions can see, and
who wins in each.

A world assigns true or false to each atom a cell's rules mention, plus the
atoms those imply (so `plan.md has unchecked items under Goals` can never be
true while `plan.md missing` is). Worlds that break an implication are skipped.
A rule fires in a world when one of its alternatives holds; the winner is the
first rule, in priority order, that fires. Worlds are bitmasks and each
alternative is a (required, forbidden) pair of masks, and results are shared
between cells whose rules have the same conditions in the same order, so a spec
of many alike states costs little more than one.

Facts the spec does not define (`unknown` atoms) may turn out to mean anything,
so a gap or an overlap is reported only when it happens whatever they mean: in
some assignment of the known facts, for every value of the unknown ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from ..logic import MAX_ATOMS, clause_masks, closure, consistent_worlds, describe
from ..model import Atom, Literal, Rule

Signature = tuple[tuple[int, tuple[tuple[Literal, ...], ...]], ...]


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
        """Every world that respects the implications between facts."""
        return consistent_worlds(self.atoms)

    def describe(self, world: int, words: dict[Atom, tuple[str, str]] | None = None) -> str:
        """A world in plain words: `plan.md exists, task.md missing` (facts the spec does
        not define are left out: the world is the same whatever they mean)."""
        return ", ".join(
            describe(Literal(atom, bool(world >> i & 1)), words)
            for i, atom in enumerate(self.atoms)
            if atom.probe != "unknown"
        )


def signature(rules: Sequence[Rule]) -> Signature:
    return tuple((int(r.specificity), r.condition.clauses) for r in rules)


def analyse_cell(rules: Sequence[Rule]) -> CellResult:
    return _analyse(signature(rules))


@cache
def _analyse(sig: Signature) -> CellResult:
    atoms = closure(lit.atom for _, clauses in sig for clause in clauses for lit in clause)
    if len(atoms) > MAX_ATOMS:
        return CellResult(atoms, tuple(None for _ in sig), None, (), too_big=True)
    bit = {atom: 1 << i for i, atom in enumerate(atoms)}
    unknown = sum(bit[a] for a in atoms if a.probe == "unknown")
    masks = clause_masks(atoms, [clauses for _, clauses in sig])
    wins: list[int | None] = [None] * len(sig)
    # For each assignment of the known facts: the rules that fire for every value of the
    # unknown facts (for overlaps), and whether any fires for some value (for gaps).
    always: dict[int, set[int]] = {}
    sometimes: dict[int, bool] = {}
    for world in consistent_worlds(atoms):
        firing = [
            i
            for i, alternatives in enumerate(masks)
            if any(world & need == need and not world & ban for need, ban in alternatives)
        ]
        if firing and wins[firing[0]] is None:
            wins[firing[0]] = world
        known = world & ~unknown
        held = always.get(known)
        always[known] = set(firing) if held is None else held & set(firing)
        sometimes[known] = sometimes.get(known, False) or bool(firing)
    gap = next((known for known, fired in sometimes.items() if not fired), None)
    overlaps: dict[tuple[int, int], int] = {}
    for known, fired in always.items():
        ordered = sorted(fired)
        if len(ordered) < 2:
            continue
        winner = ordered[0]
        for other in ordered[1:]:
            if sig[other][0] == sig[winner][0]:
                overlaps.setdefault((winner, other), known)
    return CellResult(
        atoms,
        tuple(wins),
        gap,
        tuple((w, o, world) for (w, o), world in sorted(overlaps.items())),
    )
