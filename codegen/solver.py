"""Worlds as formulas, for cells of more facts than `logic.Worlds` can list.

`Formula` holds a cell's facts as variables of a SAT solver (python-sat's MiniSat
2.2, incremental: each question is a call with assumptions), the implications and
exclusions between them as clauses, and any condition as one more variable made
equal to it (Tseitin). A question about worlds ("does rule 3 win somewhere?") is
one call; an example world is the least one in the order `logic.Worlds` uses
(world w as a number, atoms[i] its bit i), found bit by bit from the highest, so
both engines name the same world. The solver is imported on first use: a spec
whose cells are all small never loads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import product
from typing import Any

from .budget import check
from .model import Atom, LiteralSpec
from .spec_error import SpecError

DNF = tuple[tuple[LiteralSpec, ...], ...]


class Formula:
    """The worlds over `atoms` that can be, and the conditions defined on them."""

    def __init__(self, atoms: Sequence[Atom]) -> None:
        try:
            from pysat.solvers import Minisat22
        except ImportError:  # the codegen extra installed without it: said, not a traceback
            raise SpecError(
                f"a cell of {len(atoms)} facts needs the SAT solver python-sat, which is not "
                "installed; install Spellbook with its codegen extra",
                0,
            ) from None

        from .logic import exclusions, implications, several_pairs

        self.atoms = tuple(atoms)
        self.var = {atom: i + 1 for i, atom in enumerate(self.atoms)}
        self._next = len(self.atoms) + 1
        self._solver: Any = Minisat22()
        self._defined: dict[object, int] = {}
        # Facts false unless they must be true: the first model found is near the least.
        self._solver.set_phases(literals=[-(i + 1) for i in range(len(self.atoms))])
        for a, b in implications(self.atoms):
            self._solver.add_clause([-self.var[a], self.var[b]])
        for a, b in exclusions(self.atoms):
            self._solver.add_clause([-self.var[a], -self.var[b]])
        # True only in worlds no JSON query needs a list or several values for.
        self.one_value = self.fresh()
        for x, y in several_pairs(self.atoms):
            self._solver.add_clause([-self.one_value, -self._literal(x), -self._literal(y)])

    def _literal(self, literal: LiteralSpec) -> int:
        return self.var[literal.atom] if literal.positive else -self.var[literal.atom]

    def close(self) -> None:
        self._solver.delete()

    def fresh(self) -> int:
        self._next += 1
        return self._next - 1

    def all_of(self, literals: Iterable[int]) -> int:
        """A variable true exactly when every one of `literals` is."""
        lits = tuple(sorted(set(literals)))
        key = ("and", lits)
        if key not in self._defined:
            v = self.fresh()
            for lit in lits:
                self._solver.add_clause([-v, lit])
            self._solver.add_clause([v, *(-lit for lit in lits)])
            self._defined[key] = v
        return self._defined[key]

    def any_of(self, literals: Iterable[int]) -> int:
        """A variable true exactly when some one of `literals` is."""
        lits = tuple(sorted(set(literals)))
        key = ("or", lits)
        if key not in self._defined:
            v = self.fresh()
            self._solver.add_clause([-v, *lits])
            for lit in lits:
                self._solver.add_clause([v, -lit])
            self._defined[key] = v
        return self._defined[key]

    def condition(self, clauses: DNF) -> int:
        """A variable true exactly in the worlds where some alternative holds."""
        return self.any_of(
            self.all_of(self.var[lit.atom] if lit.positive else -self.var[lit.atom] for lit in c)
            for c in clauses
        )

    def firsts(self, conditions: Sequence[int]) -> tuple[list[int], int]:
        """For each condition, a literal true where it holds and none before it does,
        and one true where none of them holds. Each is made from one variable for "one
        before holds", so the formula grows with the conditions, not their square."""
        found: list[int] = []
        before = 0  # no variable: nothing before the first
        for v in conditions:
            found.append(self.all_of([v, -before]) if before else v)
            before = self.any_of([before, v]) if before else v
        return found, -before if before else self.all_of(())

    def holds(self, assumptions: Sequence[int]) -> bool:
        """Whether some world that can be makes every literal of `assumptions` true."""
        check("checking a cell of many facts")
        return bool(self._solver.solve(assumptions=list(assumptions)))

    def least(self, assumptions: Sequence[int]) -> int | None:
        """The least world (as a number, atoms[i] its bit i) that can be and makes the
        assumptions true, or None."""
        if not self.holds(assumptions):
            return None
        model = set(self._solver.get_model())
        fixed = list(assumptions)
        world = 0
        for i in range(len(self.atoms) - 1, -1, -1):
            v = i + 1
            if -v in model:  # the model at hand already has it false
                fixed.append(-v)
                continue
            if self.holds([*fixed, -v]):
                model = set(self._solver.get_model())
                fixed.append(-v)
            else:
                fixed.append(v)
                world |= 1 << i
        return world

    def example(self, assumptions: Sequence[int]) -> int | None:
        """The world to show of those that make the assumptions true: the least that no
        query needs a list or several values for, else the least (`Worlds.example`)."""
        found = self.least([*assumptions, self.one_value])
        return found if found is not None else self.least(assumptions)

    def cube_literals(self, fixed: int, world: int) -> list[int]:
        """The literals that hold in the worlds that agree with `world` on the atoms of
        `fixed`."""
        return [
            (i + 1) if world >> i & 1 else -(i + 1)
            for i in range(len(self.atoms))
            if fixed >> i & 1
        ]

    def core(self) -> set[int]:
        """The assumptions the last question failed for, or a subset of them that is
        enough for it to fail (asked again with only those, while that narrows it)."""
        found = list(self._solver.get_core() or ())
        while found and not self._solver.solve(assumptions=found):
            narrower = list(self._solver.get_core() or ())
            if len(narrower) >= len(found):
                break
            found = narrower
        return set(found)

    def add(self, clause: list[int]) -> None:
        self._solver.add_clause(clause)


class Held:
    """A set of worlds held as a formula: those in which `var` of `formula` is true."""

    __slots__ = ("formula", "var")

    def __init__(self, formula: Formula, var: int) -> None:
        self.formula = formula
        self.var = var

    def describe(self, say: Callable[[int, int], str]) -> str:
        return describe_held(self, say)


def describe_held(held: Held, say: Callable[[int, int], str]) -> str:
    """The worlds of `held` as `logic.describer` says a set of them: the fewest facts
    that pick them out among the worlds that can be, as `say(fixed, world)` words each
    alternative; "" when it is every world."""
    f, inside = held.formula, held.var
    if not f.holds([-inside]):
        return ""
    full = (1 << len(f.atoms)) - 1
    said: list[str] = []
    # The worlds said so far are ruled out by clauses that hold only under `said_so_far`,
    # so the formula stays as it was for any other question.
    said_so_far = f.fresh()
    while (start := f.least([inside, said_so_far])) is not None:
        fixed = full
        kept = f.cube_literals(full, start)  # the facts still said, atoms[i] at kept[at]
        at = 0
        core: set[int] | None = None  # why the last trial held only worlds of `held`
        for i in range(len(f.atoms)):
            if core is not None and kept[at] not in core:
                drop = True  # that reason still stands without this fact
            else:
                # The facts still to try go first, so a reason found rests on them as
                # late as it can, and the facts before them are dropped unasked.
                drop = not f.holds([-inside, *kept[:at:-1], *kept[:at]])
                core = f.core() if drop else core
            if drop:
                del kept[at]
                fixed &= ~(1 << i)
            else:
                at += 1
        f.add([-said_so_far, *(-lit for lit in kept)])
        said.append(say(fixed, start))
    return " or ".join(said)


def exists(clauses: DNF, unknown: frozenset[Atom]) -> DNF:
    """The condition with the `unknown` facts left open: it holds where some value of
    them makes it hold (each alternative without their literals)."""
    return tuple(tuple(lit for lit in c if lit.atom not in unknown) for c in clauses)


def forall(clauses: DNF, unknown: frozenset[Atom]) -> DNF | None:
    """The condition holding whatever the `unknown` facts it names are: the conjunction
    of it under every value of them, as alternatives; None past MAX_CLAUSES."""
    from .logic import MAX_CLAUSES, TooComplex, conjoin

    named = sorted({lit.atom for c in clauses for lit in c if lit.atom in unknown})
    result: DNF = ((),)
    try:
        for values in product((False, True), repeat=len(named)):
            given = dict(zip(named, values, strict=True))
            restricted = tuple(
                tuple(lit for lit in c if lit.atom not in given)
                for c in clauses
                if all(given.get(lit.atom, lit.positive) == lit.positive for lit in c)
            )
            result = conjoin(result, restricted)
            if len(result) > MAX_CLAUSES:
                return None
    except TooComplex:
        return None
    return result
