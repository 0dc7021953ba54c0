"""Findings and what the checks share: severities, and the per-spec analysis they read.

`SEVERITY` is the one table of each finding kind's severity; a finding may
carry its own where one kind covers cases of different weight.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

from ..analyse.cells import CellResult, analyse_cell
from ..model import Rule, Spec


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


SEVERITY: dict[str, Severity] = {
    # the file cannot be read (exit status 2)
    "parse_error": Severity.ERROR,
    # coverage and names
    "missing_cell": Severity.ERROR,
    "unknown_state": Severity.ERROR,
    "unknown_spell": Severity.ERROR,
    "unknown_condition": Severity.ERROR,
    "ga_notation": Severity.ERROR,
    "duplicate_id": Severity.ERROR,
    "duplicate_state": Severity.ERROR,
    "duplicate_spell": Severity.ERROR,
    "former_name": Severity.ERROR,
    # behaviour under the conditions
    "gap": Severity.ERROR,
    "conflict": Severity.ERROR,
    "dead_rule": Severity.ERROR,
    "unreachable_state": Severity.ERROR,
    "overlap": Severity.WARNING,
    "dead_end": Severity.WARNING,
    "cannot_complete": Severity.WARNING,
    "shadowed_rule": Severity.INFO,
    "cell_too_complex": Severity.WARNING,
    # consistency of what is written
    "valid_actions_mismatch": Severity.WARNING,
    "misleading_advice": Severity.WARNING,
    "suffix_preservation": Severity.WARNING,
    "action_path": Severity.ERROR,
    "action_state": Severity.WARNING,
    "id_pattern": Severity.INFO,
    "unknown_action": Severity.INFO,
    "missing_response": Severity.INFO,
    "consolidation": Severity.INFO,
    "no_goal": Severity.INFO,
    # how the markdown was read
    "detached_row": Severity.ERROR,
    "unknown_term": Severity.ERROR,
    "term_conflict": Severity.ERROR,
    "name_recovered": Severity.INFO,
    "column_choice": Severity.INFO,
    "table_skipped": Severity.INFO,
}


@dataclass(frozen=True)
class Finding:
    kind: str
    message: str
    line: int | None = None
    rule: str | None = None
    state: str | None = None
    spell: str | None = None
    world: str | None = None
    level: Severity | None = field(default=None, compare=False)
    # Every state a grouped finding covers (`state` is the first of them).
    states: tuple[str, ...] = ()

    @property
    def severity(self) -> Severity:
        return self.level if self.level is not None else SEVERITY[self.kind]


class Analysis:
    """A spec and what every check reads from it, computed once."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec

    @cached_property
    def cells(self) -> dict[tuple[str, str], CellResult]:
        """Every non-empty cell's outcome in every world."""
        spec = self.spec
        return {
            (st.name, sp.name): analyse_cell(spec.cell(st.name, sp.name))
            for st in spec.states
            for sp in spec.spells
            if spec.cell(st.name, sp.name)
        }

    def winners(self, state: str, spell: str) -> list[Rule]:
        """The cell's rules that win in at least one world, in priority order."""
        rules = self.spec.cell(state, spell)
        result = self.cells.get((state, spell))
        if result is None:
            return []
        if result.too_big:
            return list(rules)
        return [r for r, world in zip(rules, result.wins, strict=True) if world is not None]

    @cached_property
    def moves(self) -> dict[str, list[Rule]]:
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
    def reachable(self) -> dict[str, Rule | None]:
        """States reachable from the initial state, each with the rule that first reaches it."""
        found: dict[str, Rule | None] = {self.spec.initial: None}
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
