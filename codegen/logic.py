"""Logic over facts: conditions as alternatives of conjunctions, implications, worlds.

A condition is a DNF: alternatives (OR) of conjunctions (AND) of literals, each an
atom (a fact of the generic core) that must hold or must not. Facts imply others
(`plan.md has unchecked items under Goals` implies `plan.md exists`; see
`spellbook.probes`), and a few exclude each other (`a.md is newer than b.md`, `b.md
is newer than a.md`). A world assigns true or false to each of a few atoms, as a
bitmask (bit i for atoms[i]); only worlds that break no implication and hold no
two excluding facts can be. The
verifier (`analyse`), the diff of two specs (`diff`) and the generated module's
words (`render`) all reason with these.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from itertools import product

from spellbook.probes import describe as core_words
from spellbook.probes import excludes, implies
from spellbook.probes import implied as core_implied

from .model import Atom, Condition, Literal

DNF = tuple[tuple[Literal, ...], ...]
# A condition whose alternatives multiply past this is not expanded.
MAX_CLAUSES = 64
# Cells whose conditions mention more atoms than this are not enumerated world by world.
MAX_ATOMS = 16


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
        result = conjoin(result, tuple((Literal(lit.atom, not lit.positive),) for lit in clause))
    return result


def simplify(clauses: list[tuple[Literal, ...]] | DNF) -> DNF:
    """Each conjunction's literals once, contradictions dropped, each conjunction once."""
    seen: dict[tuple[Literal, ...], None] = {}
    for clause in clauses:
        literals = tuple(dict.fromkeys(clause))
        atoms = {lit.atom: lit.positive for lit in literals}
        if len(atoms) < len(literals):
            continue  # a fact and its negation: never holds
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


def describe(literal: Literal, words: dict[Atom, tuple[str, str]] | None = None) -> str:
    """The literal in plain words: the spec's or vocabulary's where they have some
    (a noun's `yes`/`no`, a term's phrase), else the core's (`task.md missing`)."""
    said = (words or {}).get(literal.atom, ("", ""))[0 if literal.positive else 1]
    if said:
        return said
    atom = literal.atom
    return core_words(atom.probe, atom.file, atom.param, literal.positive)


# -- worlds ---------------------------------------------------------------------------


def closure(atoms: Iterable[Atom]) -> tuple[Atom, ...]:
    """`atoms` and every atom they imply, in a stable order."""
    found: set[Atom] = set()
    for atom in atoms:
        found.add(atom)
        found.update(implied(atom))
    return tuple(sorted(found))


def consistent_worlds(atoms: Sequence[Atom]) -> Iterator[int]:
    """Worlds over `atoms` (bit i = atoms[i]) in which no implication is broken and no
    two facts that exclude each other hold (F newer than G, G newer than F)."""
    bit = {atom: 1 << i for i, atom in enumerate(atoms)}
    implications = [(bit[a], bit[b]) for a in atoms for b in atoms if follows(a, b)]
    exclusive = [
        bit[a] | bit[b]
        for a in atoms
        for b in atoms
        if a < b and excludes((a.probe, a.file, a.param), (b.probe, b.file, b.param))
    ]
    for world in range(1 << len(atoms)):
        if not any(world & a and not world & b for a, b in implications) and not any(
            world & both == both for both in exclusive
        ):
            yield world


def clause_masks(atoms: Sequence[Atom], conditions: Iterable[DNF]) -> list[list[tuple[int, int]]]:
    """Each condition's alternatives as (required, forbidden) bit masks over `atoms`:
    an alternative holds in `world` when `world & required == required` and not
    `world & forbidden`."""
    bit = {atom: 1 << i for i, atom in enumerate(atoms)}
    return [
        [
            (
                sum(bit[lit.atom] for lit in clause if lit.positive),
                sum(bit[lit.atom] for lit in clause if not lit.positive),
            )
            for clause in clauses
        ]
        for clauses in conditions
    ]


def holds(condition: Condition, atoms: Sequence[Atom], world: int) -> bool:
    """Whether some alternative of `condition` holds in `world` (over `atoms`)."""
    index = {atom: i for i, atom in enumerate(atoms)}
    return any(
        all(bool(world >> index[lit.atom] & 1) == lit.positive for lit in clause)
        for clause in condition.clauses
    )


def describer(
    words: dict[Atom, tuple[str, str]],
) -> Callable[[tuple[Atom, ...], frozenset[int]], str]:
    """`when(atoms, worlds)`: the worlds in plain words, in `words`, each description
    made once per comparison."""

    @cache
    def when(atoms: tuple[Atom, ...], worlds: frozenset[int]) -> str:
        """The fewest facts that pick the worlds out among the worlds that can be,
        alternatives joined by "or" ("" when it is every world)."""
        every = list(consistent_worlds(atoms))
        if len(worlds) == len(every):
            return ""
        full = (1 << len(atoms)) - 1
        remaining = set(worlds)
        said: list[str] = []
        while remaining:
            start = min(remaining)
            fixed = full
            for i in range(len(atoms)):
                trial = fixed & ~(1 << i)
                if all(w in worlds for w in every if w & trial == start & trial):
                    fixed = trial
            remaining -= {w for w in every if w & fixed == start & fixed}
            said.append(
                ", ".join(
                    describe(Literal(atom, bool(start >> i & 1)), words)
                    for i, atom in enumerate(atoms)
                    if fixed >> i & 1
                )
            )
        return " or ".join(said)

    return when
