"""What every check reads from a spec, computed once: each cell's outcome in every world,
the rules that can win, the moves between states and what can be reached."""

from __future__ import annotations

from collections import deque
from functools import cached_property

from ..budget import check
from ..model import Atom, RuleSpec, Spec
from ..read.lexicon import Lexicon, ReadOptions
from .cells import CellResult, analyse_cell
from .effects import Effects


class Analysis:
    """A spec and what every check reads from it, computed once."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec

    @cached_property
    def lexicon(self) -> Lexicon:
        """The words the spec was read with: its vocabulary's, and its Terms."""
        spec = self.spec
        own = ReadOptions(spec.vocabulary, own_code=spec.own_code)
        return Lexicon.of(own).with_terms(list(spec.terms))

    @cached_property
    def cells(self) -> dict[tuple[str, str], CellResult]:
        """Every non-empty cell's outcome in every world."""
        spec = self.spec
        found = {}
        for st in spec.states:
            for sp in spec.spells:
                rules = spec.cell(st.name, sp.name)
                if rules:
                    check(f"checking {sp.name} in {st.name}")
                    found[(st.name, sp.name)] = analyse_cell(rules, self.settled)
        return found

    @cached_property
    def uncounted(self) -> dict[str, tuple[int, ...]]:
        """Each counter a condition compares that no action counts (`Increment X`) or
        writes but to set it (`Reset X to 3`), with the values it can then hold: 0, as a
        new state file has it, and those it is set to. None where the project's own
        code answers the facts (its counters are its own)."""
        spec = self.spec
        if spec.own_guards or spec.callbacks:
            return {}
        compared = {
            lit.atom.param.partition("<")[0]
            for rule in spec.rules
            for lit in rule.condition.literals
            if lit.atom.probe == "below"
        }
        values: dict[str, set[int]] = {name: {0} for name in compared}
        for row in spec.rows:
            for action in row.actions:
                counter, _, value = action.target.partition("=")
                if action.verb == "reset" and counter in values and value.isdigit():
                    values[counter].add(int(value))
                    continue
                for name in set(action.writes) & values.keys():
                    del values[name]  # counted, or set to what cannot be told
        return {name: tuple(sorted(held)) for name, held in values.items()}

    @cached_property
    def settled(self) -> dict[Atom, bool]:
        """The comparisons of the `uncounted` counters that hold, or fail, whatever the
        casts do: `attempts ≥ 2` of a counter that is only ever 0 never holds."""
        found: dict[Atom, bool] = {}
        for rule in self.spec.rules:
            for lit in rule.condition.literals:
                counter, _, limit = lit.atom.param.partition("<")
                held = self.uncounted.get(counter) if lit.atom.probe == "below" else None
                if held and limit.lstrip("-").isdigit():
                    below = {value < int(limit) for value in held}
                    if len(below) == 1:
                        found[lit.atom] = below.pop()
        return found

    def close(self) -> None:
        """Let go of what the effects' solvers hold (`Effects.close`)."""
        if "effects" in self.__dict__:
            self.effects.close()

    @cached_property
    def effects(self) -> Effects:
        """What each rule's actions do to the files, computed once per rule and state."""
        return Effects(self.spec)

    def winners(self, state: str, spell: str) -> list[RuleSpec]:
        """The cell's rules that win in at least one world, in priority order."""
        rules = self.spec.cell(state, spell)
        result = self.cells.get((state, spell))
        if result is None:
            return []
        if result.too_big:
            return list(rules)
        return [r for r, world in zip(rules, result.wins, strict=True) if world is not None]

    @cached_property
    def moves(self) -> dict[str, list[RuleSpec]]:
        """From each state, the winning rules that lead to another state."""
        return {
            st.name: [
                r
                for sp in self.spec.spells
                for r in self.winners(st.name, sp.name)
                if r.changes_state
            ]
            for st in self.spec.states
        }

    @cached_property
    def reachable(self) -> dict[str, RuleSpec | None]:
        """States reachable from the initial state, each with the rule that first reaches it."""
        found: dict[str, RuleSpec | None] = {self.spec.initial: None}
        queue = deque([self.spec.initial])
        while queue:
            for rule in self.moves[queue.popleft()]:
                if rule.dest not in found:
                    found[rule.dest] = rule
                    queue.append(rule.dest)
        return found

    def reaches_goal(self) -> set[str]:
        """States from which some goal state can be reached."""
        into: dict[str, set[str]] = {st.name: set() for st in self.spec.states}
        for source, rules in self.moves.items():
            for rule in rules:
                into[rule.dest].add(source)
        found = set(self.spec.goals)
        queue = deque(self.spec.goals)
        while queue:
            for source in into[queue.popleft()]:
                if source not in found:
                    found.add(source)
                    queue.append(source)
        return found
