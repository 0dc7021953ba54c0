"""Logic over facts: conditions as alternatives of conjunctions, implications, worlds.

A condition is a DNF: alternatives (OR) of conjunctions (AND) of literals, each an
atom (a fact of the generic core) that must hold or must not. Facts imply others
(`plan.md has unchecked items under Goals` implies `plan.md exists`; see
`spellbook.facts.probes`), and a few exclude each other (`a.md is newer than b.md`, `b.md
is newer than a.md`). A world assigns true or false to each of a few atoms, as a
bitmask (bit i for atoms[i]); only worlds that break no implication and hold no
two excluding facts can be. The
verifier (`analyse`), the diff of two specs (`diff`) and the generated module's
words (`render`) all reason with these.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import product
from typing import Protocol

from spellbook.facts.implications import excludes, implies, needs_several
from spellbook.facts.implications import implied as core_implied
from spellbook.facts.probes import PROBES
from spellbook.facts.wording import describe as core_words

from .budget import check
from .model import Atom, LiteralSpec

DNF = tuple[tuple[LiteralSpec, ...], ...]


class Held(Hashable, Protocol):
    """A set of worlds held as a formula (`solver.Held`), for a cell of many facts."""

    def describe(self, say: Callable[[int, int], str]) -> str:
        """The worlds in the fewest facts, each alternative worded by `say(fixed, world)`."""
        ...


# A set of worlds: one int (`Worlds`), or a formula for a cell of many facts.
WorldSet = int | Held
# A condition whose alternatives multiply past this is not expanded.
MAX_CLAUSES = 64
# Cells whose conditions mention at most this many atoms are checked on sets of worlds
# (`Worlds`); larger ones with a SAT solver (`codegen.solver`), up to MAX_FACTS.
MAX_ATOMS = 16
# Cells of more facts than this are not checked (`cell_too_complex`).
MAX_FACTS = 400


class TooComplex(Exception):
    """A condition whose alternatives multiply past MAX_CLAUSES."""


# -- alternatives of conjunctions -------------------------------------------------------


def conjoin(left: DNF, right: DNF) -> DNF:
    """`left AND right`, as alternatives."""
    if len(left) * len(right) > MAX_CLAUSES * MAX_CLAUSES:
        raise TooComplex
    found = simplify([a + b for a, b in product(left, right)])
    if len(found) > MAX_CLAUSES:
        raise TooComplex
    return found


def negate(dnf: DNF) -> DNF:
    """NOT of alternatives: every alternative fails, i.e. one literal of each is false."""
    result: DNF = ((),)
    for clause in dnf:
        result = conjoin(
            result, tuple((LiteralSpec(lit.atom, not lit.positive),) for lit in clause)
        )
    return result


def simplify(clauses: list[tuple[LiteralSpec, ...]] | DNF) -> DNF:
    """Each conjunction's literals once, contradictions dropped, each conjunction once;
    an empty conjunction (always) makes the whole `((),)`, as `always` reads."""
    seen: dict[tuple[LiteralSpec, ...], None] = {}
    for clause in clauses:
        literals = tuple(dict.fromkeys(clause))
        atoms = {lit.atom: lit.positive for lit in literals}
        if len(atoms) < len(literals):
            continue  # a fact and its negation: never holds
        if not literals:
            return ((),)  # one alternative always holds, so the condition does
        seen.setdefault(literals, None)
    return tuple(seen)


# -- implications and words ---------------------------------------------------------


def implied(atom: Atom) -> tuple[Atom, ...]:
    """Every atom that must hold when `atom` holds (transitively), excluding itself."""
    return tuple(Atom(*fact) for fact in core_implied(atom.probe, atom.file, atom.param))


def follows(a: Atom, b: Atom) -> bool:
    """Whether `b` must hold when `a` does: an implication, or a weaker limit of the same
    counter (`attempts < 3` then `attempts < 5`)."""
    return b in implied(a) or implies((a.probe, a.file, a.param), (b.probe, b.file, b.param))


def describe(literal: LiteralSpec, words: dict[Atom, tuple[str, str]] | None = None) -> str:
    """The literal in plain words: the spec's or vocabulary's where they have some
    (a noun's `yes`/`no`, a term's phrase), else the core's (`task.md missing`)."""
    yes, no = (words or {}).get(literal.atom, ("", ""))
    said = yes if literal.positive else no
    if said:
        return said
    if yes and literal.atom.probe == "own":  # a guard of the project's own code
        return f"not {yes}"
    atom = literal.atom
    return core_words(atom.probe, atom.file, atom.param, literal.positive)


# -- worlds ---------------------------------------------------------------------------


def closure(atoms: Iterable[Atom]) -> tuple[Atom, ...]:
    """`atoms` and every atom they imply, in a stable order (each atom's implications
    asked once, however many rules of a cell name it)."""
    given = set(atoms)
    found = set(given)
    for atom in given:
        found.update(implied(atom))
    return tuple(sorted(found))


def implications(atoms: Sequence[Atom]) -> Iterator[tuple[Atom, Atom]]:
    """Every (a, b) of `atoms` where b must hold when a does (`follows`). Only atoms that
    can be related are compared: of one file, or limits, durations and globs."""
    by_file: dict[str, list[Atom]] = {}
    for atom in atoms:
        by_file.setdefault(atom.file, []).append(atom)
    members = set(atoms)
    loose = [a for a in atoms if a.probe in ("below", "over_minutes", "glob")]
    for a in atoms:
        for b in dict.fromkeys([*by_file[a.file], *loose, *implied(a)]):
            if b != a and b in members and follows(a, b):
                yield a, b


def unimplied(literals: Sequence[LiteralSpec]) -> list[LiteralSpec]:
    """The literals of a world that no other literal of it implies (strictly): the
    facts that say the world, the rest following from them (`task.md missing` implies
    that task.md is not filled in). Their order is kept."""
    atoms = [lit.atom for lit in literals]
    pairs = {(a, True, b, True) for a, b in implications(atoms)}
    pairs |= {(b, False, a, False) for a, _, b, _ in pairs}
    for a, b in exclusions(atoms):
        pairs |= {(a, True, b, False), (b, True, a, False)}
    held = {(lit.atom, lit.positive) for lit in literals}

    def gives(x: tuple[Atom, bool], y: tuple[Atom, bool]) -> bool:
        return (*x, *y) in pairs

    return [
        lit
        for lit in literals
        if not any(
            gives(other, (lit.atom, lit.positive)) and not gives((lit.atom, lit.positive), other)
            for other in held
            if other != (lit.atom, lit.positive)
        )
    ]


def several_pairs(atoms: Sequence[Atom]) -> Iterator[tuple[LiteralSpec, LiteralSpec]]:
    """Every pair of literals of `atoms`, facts of one JSON query each held or not, that
    are so together only where the query selects a list or several values
    (`needs_several`): `has `k`` and `has `k` = ""`. Such worlds can be; an example
    world is one of the others where there is one (`Worlds.example`), and its words say
    what it takes (`several`)."""
    by_query: dict[tuple[str, str], list[Atom]] = {}
    for atom in atoms:
        query = PROBES[atom.probe].query
        if query is not None:
            by_query.setdefault((atom.file, query(atom.param)), []).append(atom)
    for alike in by_query.values():
        for i, a in enumerate(alike):
            for b in alike[i + 1 :]:
                for held, also in product((True, False), repeat=2):
                    if needs_several(
                        (a.probe, a.file, a.param), held, (b.probe, b.file, b.param), also
                    ):
                        yield LiteralSpec(a, held), LiteralSpec(b, also)


def several(literals: Sequence[LiteralSpec]) -> list[tuple[str, str]]:
    """The (file, query) of each JSON query whose facts in a world (`literals`) are so
    together only where it selects a list or several values (`several_pairs`)."""
    world = set(literals)
    found: dict[tuple[str, str], None] = {}
    for a, b in several_pairs([lit.atom for lit in literals]):
        if a in world and b in world:
            query = PROBES[a.atom.probe].query
            assert query is not None
            found[(a.atom.file, query(a.atom.param))] = None
    return list(found)


def exclusions(atoms: Sequence[Atom]) -> Iterator[tuple[Atom, Atom]]:
    """Every (a, b) of `atoms`, a < b, that never hold together."""
    seen = set(atoms)
    for a in atoms:
        if a.probe == "newer":
            b = Atom("newer", a.param, a.file)
            if (
                b in seen
                and a < b
                and excludes((a.probe, a.file, a.param), (b.probe, b.file, b.param))
            ):
                yield a, b


class Worlds:
    """Every world over `atoms` (bit i of a world = atoms[i]), and sets of them, each
    one int whose bit w is world w: a condition's worlds, the worlds a rule wins in,
    are a few operations on ints of 2^len(atoms) bits (8 KB at 16 atoms), never a walk
    through the worlds one by one in Python."""

    def __init__(self, atoms: Sequence[Atom]) -> None:
        self.atoms = tuple(atoms)
        count = 1 << len(self.atoms)
        self.every = (1 << count) - 1
        # of[i]: the worlds in which atoms[i] holds.
        self.of = [
            _repeat(((1 << (1 << i)) - 1) << (1 << i), 2 << i, count) for i in range(len(atoms))
        ]
        index = {atom: i for i, atom in enumerate(self.atoms)}
        broken = 0
        for a, b in implications(self.atoms):
            broken |= self.of[index[a]] & ~self.of[index[b]]
        for a, b in exclusions(self.atoms):
            broken |= self.of[index[a]] & self.of[index[b]]
        # The worlds that can be: no implication broken, no two excluding facts.
        self.consistent = self.every & ~broken
        self._index = index
        # Those of them that no JSON query needs a list or several values for.
        self.one_value = self.consistent
        for x, y in several_pairs(self.atoms):
            self.one_value &= ~(self._held(x) & self._held(y))

    def _held(self, literal: LiteralSpec) -> int:
        held = self.of[self._index[literal.atom]]
        return held if literal.positive else self.every & ~held

    def example(self, worlds: int) -> int | None:
        """The world of `worlds` to show: the first that no query needs a list or several
        values for (`several_pairs`), else the first."""
        return lowest(worlds & self.one_value) if worlds & self.one_value else lowest(worlds)

    def condition(self, clauses: DNF) -> int:
        """The worlds (consistent or not) in which some alternative of `clauses` holds."""
        found = 0
        for clause in clauses:
            worlds = self.every
            for lit in clause:
                held = self.of[self._index[lit.atom]]
                worlds &= held if lit.positive else ~held
            found |= worlds
        return found

    def cube(self, fixed: int, world: int) -> int:
        """The worlds that agree with `world` on the atoms whose bits `fixed` sets."""
        found = self.every
        for i, held in enumerate(self.of):
            if fixed >> i & 1:
                found &= held if world >> i & 1 else ~held
        return found

    def exists(self, worlds: int, bits: int) -> int:
        """The worlds, with the atoms of `bits` false, for which some value of those
        atoms gives a world of `worlds`."""
        for i, held in enumerate(self.of):
            if bits >> i & 1:
                worlds = (worlds & ~held) | ((worlds & held) >> (1 << i))
        return worlds

    def forall(self, worlds: int, bits: int) -> int:
        """The worlds, with the atoms of `bits` false, for which every value of those
        atoms gives a world of `worlds`."""
        for i, held in enumerate(self.of):
            if bits >> i & 1:
                worlds = (worlds & ~held) & ((worlds & held) >> (1 << i))
        return worlds


def _repeat(block: int, width: int, total: int) -> int:
    """`block` (of `width` bits) repeated to fill `total` bits."""
    while width < total:
        block |= block << width
        width *= 2
    return block & ((1 << total) - 1)


def lowest(worlds: int) -> int | None:
    """The first world of a set, or None for none."""
    return (worlds & -worlds).bit_length() - 1 if worlds else None


def describer(
    words: dict[Atom, tuple[str, str]],
) -> Callable[[tuple[Atom, ...], WorldSet], str]:
    """`when(atoms, worlds)`: the worlds (a set, `Worlds`, or for a cell of many facts a
    formula, `solver.Held`) in plain words, in `words`, each description made once per
    comparison (the last few hundred kept)."""

    @lru_cache(maxsize=256)
    def when(atoms: tuple[Atom, ...], worlds: WorldSet) -> str:
        """The fewest facts that pick the worlds out among the worlds that can be,
        alternatives joined by "or" ("" when it is every world)."""

        def say(fixed: int, world: int) -> str:
            return ", ".join(
                describe(LiteralSpec(atom, bool(world >> i & 1)), words)
                for i, atom in enumerate(atoms)
                if fixed >> i & 1
            )

        if not isinstance(worlds, int):
            return worlds.describe(say)
        space = Worlds(atoms)
        every = space.consistent
        if worlds & every == every:
            return ""
        full = (1 << len(atoms)) - 1
        remaining = worlds & every
        said: list[str] = []
        while remaining:
            check("describing where a change applies")
            start = lowest(remaining)
            assert start is not None
            fixed = full
            for i in range(len(atoms)):
                trial = fixed & ~(1 << i)
                if not space.cube(trial, start) & every & ~worlds:
                    fixed = trial
            remaining &= ~space.cube(fixed, start)
            said.append(say(fixed, start))
        return " or ".join(said)

    return when
