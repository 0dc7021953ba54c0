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

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from heapq import merge
from itertools import islice

from spellbook.facts.wording import several as said_several

from ..budget import check
from ..logic import MAX_ATOMS, MAX_FACTS, Worlds, closure, describe, lowest, several, unimplied
from ..model import Atom, LiteralSpec, RuleSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..solver import Formula

# The pairs of overlapping rules one cell lists; a cell of thousands of alike rows would
# otherwise list millions.
MAX_OVERLAPS = 50

Clauses = tuple[tuple[LiteralSpec, ...], ...]
Signature = tuple[tuple[int, Clauses], ...]


@dataclass(frozen=True)
class CellResult:
    """What happens in one cell, by rule index (priority order).

    `wins[i]`: an example world in which rule i wins, or None if it never does.
    `gap`: an example world in which no rule fires, or None.
    `overlaps`: (winner, loser, world) where both fire, with the same priority: the
    first MAX_OVERLAPS pairs, and `more_overlaps` how many more there are.
    `fires[i]`: whether rule i's condition holds in some world that can be.
    `beaten[i]`: for a rule that never wins, the rules ahead of it that win where it
    fires, in the order of the first world each does.
    """

    atoms: tuple[Atom, ...]
    wins: tuple[int | None, ...]
    gap: int | None
    overlaps: tuple[tuple[int, int, int], ...]
    too_big: bool = False
    fires: tuple[bool, ...] = ()
    beaten: tuple[tuple[int, ...], ...] = ()
    more_overlaps: int = 0

    def describe(self, world: int, words: dict[Atom, tuple[str, str]] | None = None) -> str:
        """A world in plain words: `plan.md exists, task.md missing` (facts the spec does
        not define are left out: the world is the same whatever they mean). The facts
        that pick the world come first; those they imply follow, as following from them:
        `draft.md missing (so draft.md is not filled in)`, never two facts side by side
        that read as if they contradicted each other."""
        literals = [
            LiteralSpec(atom, bool(world >> i & 1))
            for i, atom in enumerate(self.atoms)
            if atom.probe != "unknown"
        ]
        picking = unimplied(literals)
        said = ", ".join(describe(lit, words) for lit in picking)
        following = [describe(lit, words) for lit in literals if lit not in picking]
        notes = [f"so {', '.join(following)}"] if following else []
        lists = [said_several(file, query) for file, query in several(literals)]
        if lists:  # a world that can be, though no one value makes it
            notes.append(f"only where {' and '.join(lists)}")
        return said + (f" ({'; '.join(notes)})" if notes else "")


def signature(rules: Sequence[RuleSpec]) -> Signature:
    return tuple((int(r.specificity), r.condition.clauses) for r in rules)


def analyse_cell(
    rules: Sequence[RuleSpec], settled: Mapping[Atom, bool] | None = None
) -> CellResult:
    """The cell's outcome in every world; `settled`: facts that never change (a counter
    no action counts, `Analysis.settled`), held at their one value."""
    sig = signature(rules)
    if settled:
        sig = tuple((priority, _settle(clauses, settled)) for priority, clauses in sig)
    return _analyse(sig)


def _settle(clauses: Clauses, settled: Mapping[Atom, bool]) -> Clauses:
    """`clauses` with each settled fact at its value: an alternative that asks the
    other value never holds, and the fact is dropped from the others."""
    return tuple(
        tuple(lit for lit in clause if lit.atom not in settled)
        for clause in clauses
        if all(settled.get(lit.atom, lit.positive) == lit.positive for lit in clause)
    )


@lru_cache(maxsize=1024)
def _analyse(sig: Signature) -> CellResult:
    atoms = closure(lit.atom for _, clauses in sig for clause in clauses for lit in clause)
    if len(atoms) > MAX_ATOMS:
        found = _symbolic(sig, atoms) if len(atoms) <= MAX_FACTS else None
        return found or CellResult(atoms, tuple(None for _ in sig), None, (), too_big=True)
    space = Worlds(atoms)
    can_be = space.consistent
    unknown = sum(1 << i for i, a in enumerate(atoms) if a.probe == "unknown")
    held: dict[Clauses, int] = {}  # alike rules share one set of worlds
    for _, clauses in sig:
        if clauses not in held:
            held[clauses] = can_be & space.condition(clauses)
    fires = [held[clauses] for _, clauses in sig]
    # Where each rule wins: it fires and no rule ahead of it does.
    won: list[int] = []
    taken = 0
    for worlds in fires:
        won.append(worlds & ~taken)
        taken |= worlds
    # Facts the spec does not define may mean anything: a gap is an assignment of the
    # known facts in which no rule fires whatever they mean, an overlap one in which two
    # rules fire whatever they mean (worlds with the unknown facts false stand for each).
    known = space.exists(can_be, unknown)
    gap = space.example(known & ~space.exists(taken, unknown))
    sure = {c: space.forall(worlds | ~can_be, unknown) & known for c, worlds in held.items()}
    always = [sure[clauses] for _, clauses in sig]
    overlaps, more = _overlaps(sig, always, space.example)
    # Each rule that never wins against the rules ahead that win somewhere (at most one
    # per world); alike rules past the same winners are told apart once.
    winning = [(j, worlds) for j, worlds in enumerate(won) if worlds]
    told: dict[tuple[Clauses, int], tuple[int, ...]] = {}
    beaten: list[tuple[int, ...]] = []
    for i, (_, clauses) in enumerate(sig):
        if won[i]:
            beaten.append(())
            continue
        ahead = bisect_left(winning, (i, 0))
        key = (clauses, ahead)
        if key not in told:
            told[key] = _beaten(fires[i], winning[:ahead])
        beaten.append(told[key])
    return CellResult(
        atoms,
        tuple(space.example(w) for w in won),
        gap,
        tuple(overlaps),
        fires=tuple(bool(w) for w in fires),
        beaten=tuple(beaten),
        more_overlaps=more,
    )


def _overlaps(
    sig: Signature, always: list[int], example: Callable[[int], int | None]
) -> tuple[list[tuple[int, int, int]], int]:
    """(winner, loser, example) for the first MAX_OVERLAPS pairs of rules of equal
    priority that both fire whatever the unknown facts mean, the winner being the
    first that does, in (winner, loser) order; and how many more pairs there are.
    Rules of one condition and priority share their worlds, so each is tried once."""
    alike: dict[tuple[int, Clauses], list[int]] = {}
    for j, (priority, clauses) in enumerate(sig):
        alike.setdefault((priority, clauses), []).append(j)
    found: list[tuple[int, int, int]] = []
    more = 0
    before = 0
    for i, worlds in enumerate(always):
        first = worlds & ~before  # rule i is the first of those that always fire here
        before |= worlds
        if not first:
            continue
        check("comparing the rules of one cell")
        losers: list[list[int]] = []
        for (priority, _), indices in alike.items():
            if priority == sig[i][0] and first & always[indices[0]]:
                losers.append(indices[bisect_right(indices, i) :])
        room = MAX_OVERLAPS - len(found)
        for j in islice(merge(*losers), room):
            found.append((i, j, example(first & always[j]) or 0))
        more += max(0, sum(len(x) for x in losers) - room)
    return found, more


def _beaten(fires: int, ahead: list[tuple[int, int]]) -> tuple[int, ...]:
    """The rules of `ahead` ((index, where it wins)) that win somewhere in `fires`, in
    the order of the first world each does."""
    check("finding what hides a rule that never fires")
    first = {j: at for j, won in ahead if (at := lowest(fires & won)) is not None}
    return tuple(sorted(first, key=first.__getitem__))


def _symbolic(sig: Signature, atoms: tuple[Atom, ...]) -> CellResult | None:
    """The cell's result found with a SAT solver (`codegen.solver`), question by
    question, for a cell of more facts than its worlds can be listed: the same result,
    the same example worlds, as `_analyse` gives. None for a condition whose value
    whatever the unknown facts mean takes more than MAX_CLAUSES alternatives."""
    from ..solver import Formula, forall

    unknown = frozenset(a for a in atoms if a.probe == "unknown")
    sure: dict[Clauses, Clauses | None] = {c: forall(c, unknown) for _, c in sig}
    if any(c is None for c in sure.values()):
        return None
    f = Formula(atoms)
    try:
        return _ask(sig, f, unknown, sure)
    finally:
        f.close()


def _ask(
    sig: Signature, f: Formula, unknown: frozenset[Atom], sure: dict[Clauses, Clauses | None]
) -> CellResult:
    from ..solver import exists

    unknown_false = [-f.var[a] for a in unknown]
    fires = [f.condition(c) for _, c in sig]
    # Where each rule wins: it fires and no rule ahead of it does.
    won, _ = f.firsts(fires)
    wins = [f.example([w]) for w in won]
    # A gap: known facts under which no rule fires whatever the unknown ones mean.
    some = [f.condition(exists(c, unknown)) for _, c in sig]
    gap = f.example([*unknown_false, *(-v for v in dict.fromkeys(some))])
    always = [f.condition(sure[c] or ()) for _, c in sig]
    firsts, _ = f.firsts(always)
    overlaps: list[tuple[int, int, int]] = []
    more = 0
    asked: dict[tuple[int, int], bool] = {}  # alike rules share their variables
    for i, first in enumerate(firsts):
        if not f.holds([*unknown_false, first]):
            continue
        for j in range(i + 1, len(sig)):
            if sig[j][0] != sig[i][0]:
                continue
            key = (first, always[j])
            if key not in asked:
                asked[key] = f.holds([*unknown_false, first, always[j]])
            if not asked[key]:
                continue
            if len(overlaps) == MAX_OVERLAPS:
                more += 1
                continue
            overlaps.append((i, j, f.example([*unknown_false, first, always[j]]) or 0))
    beaten: list[tuple[int, ...]] = []
    told: dict[tuple[int, int], tuple[int, ...]] = {}
    winners = [j for j, at in enumerate(wins) if at is not None]
    for i in range(len(sig)):
        if wins[i] is not None:
            beaten.append(())
            continue
        before = sum(1 for j in winners if j < i)
        if (fires[i], before) not in told:
            first_world = {
                j: at for j in winners[:before] if (at := f.least([fires[i], won[j]])) is not None
            }
            told[(fires[i], before)] = tuple(sorted(first_world, key=first_world.__getitem__))
        beaten.append(told[(fires[i], before)])
    return CellResult(
        f.atoms,
        tuple(wins),
        gap,
        tuple(overlaps),
        fires=tuple(f.holds([v]) for v in fires),
        beaten=tuple(beaten),
        more_overlaps=more,
    )
