"""Findings that may follow from a row not read: said so, beside the row.

A row naming a state or spell that does not resolve is dropped (or, where only part
of it resolves, read in part): its rules are missing from the machine. What the
verifier then finds about the cells the row would have filled, the states it would
have led to or out of, and the rules it would have come before, may be false, and
the finding says which row it may follow from (`...; this may follow from row T3
(line 40), which was not read`).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace

from spellbook.schema import priority

from ..expand import family_members
from ..model import Kind, RuleRow, Spec
from .analysis import Analysis
from .findings import Finding

# The columns whose unresolved names drop a row (or part of it).
_DROPPING = ("Current State", "Next State", "Trigger")
# Findings about cells: they may follow from a row that would have filled the cell.
_CELLS = ("missing_cell", "gap", "overlap", "conflict", "guard_disagrees")
# Findings about rules beaten in their cell: a row before them would say otherwise.
_BEATEN = ("dead_rule", "shadowed_rule")
_GRAPH = ("unreachable_state", "dead_end", "cannot_complete")


@dataclass(frozen=True)
class _Dropped:
    """A row not read in full, and what it could have touched (None: any)."""

    row: RuleRow
    order: int
    whole: bool  # no rule of it was read
    sources: frozenset[str] | None
    spells: frozenset[str] | None
    targets: frozenset[str] | None

    def touches(self, state: str, spell: str | None) -> bool:
        return (self.sources is None or state in self.sources) and (
            spell is None or self.spells is None or spell in self.spells
        )

    @property
    def said(self) -> str:
        return f"row {self.row.id} (line {self.row.line})"


def dropped_rows(spec: Spec) -> list[_Dropped]:
    """The rows a name that does not resolve dropped, in whole or in part."""
    columns: dict[int, dict[str, list[str | None]]] = {}
    for ref in spec.unresolved:
        if ref.rule is not None and ref.column in _DROPPING:
            said = columns.setdefault(ref.line, {}).setdefault(ref.column, [])
            said.append(ref.suggestion)
    if not columns:
        return []
    states = {s.name for s in spec.states}
    spells = {s.name.lower(): s.name for s in spec.spells}
    read = {r.order for r in spec.rules}
    found = []
    for order, row in enumerate(spec.rows):
        unread = columns.get(row.line)
        if unread is None:
            continue
        # A name that does not resolve stands for the name it is offered, if any.
        named = list(_named(row.current.names, states))
        sources = _meant(named, unread.get("Current State"), states)
        if row.current.wildcard:
            # Every state but those named: read whole, it is every state (None, near
            # enough); read in part, only the names not read would have changed it.
            offered = unread.get("Current State")
            sources = None if offered is None else _meant([], offered, states)
        known = [spells[t.lower()] for t in row.triggers if t.lower() in spells]
        triggers = _meant(known, unread.get("Trigger"), set(spells.values()))
        targets: frozenset[str] | None = frozenset()  # a row that stays leads nowhere
        if row.target.kind is Kind.TRANSITION and row.target.name is not None:
            named = list(_named((row.target.name,), states))
            targets = _meant(named, unread.get("Next State"), states)
        found.append(_Dropped(row, order, order not in read, sources, triggers, targets))
    return found


def _meant(
    read: list[str], offered: list[str | None] | None, names: set[str]
) -> frozenset[str] | None:
    """The names read, and for each not read the one it is offered (None: any name,
    where one is offered none)."""
    if offered is None:
        return frozenset(read)
    meant = [m for o in offered for m in ((o,) if o in names else family_members(o or "") or ())]
    if not meant or not all(o in names or family_members(o or "") for o in offered):
        return None
    return frozenset(read) | {m for m in meant if m in names}


def _named(names: tuple[str, ...], states: set[str]) -> Iterator[str]:
    for name in names:
        if name in states:
            yield name
        else:
            yield from (m for m in family_members(name) or () if m in states)


def knock_on(analysis: Analysis, findings: list[Finding]) -> list[Finding]:
    """The findings, each that may follow from a dropped row saying which."""
    drops = dropped_rows(analysis.spec)
    if not drops:
        return findings
    out = []
    for finding in findings:
        causes = [d for d in drops if _follows(analysis, finding, d)]
        if causes:
            finding = replace(finding, message=finding.message + _because(causes))
        out.append(finding)
    return out


def _because(causes: list[_Dropped]) -> str:
    shown = [d.said for d in causes[:3]]
    rows = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    more = f" and {len(causes) - 3} more" if len(causes) > 3 else ""
    whole = all(d.whole for d in causes)
    read = "not read" if whole else "not read in full"
    verb = "was" if len(causes) == 1 else "were"
    return f"; this may follow from {rows}{more}, which {verb} {read}"


def _follows(analysis: Analysis, finding: Finding, drop: _Dropped) -> bool:
    """Whether the finding could be false, or say otherwise, had `drop` been read."""
    kind = finding.kind
    states = finding.states or ((finding.state,) if finding.state else ())
    if kind == "valid_actions_mismatch":  # about the spells its message names
        said = set(re.findall(r"\w+", finding.message))
        spells = [sp.name for sp in analysis.spec.spells if sp.name in said]
        return any(drop.touches(state, sp) for state in states for sp in spells)
    if kind in _CELLS:
        return any(drop.touches(state, finding.spell) for state in states)
    if kind in _BEATEN:
        if finding.rule == drop.row.id and finding.line == drop.row.line:
            return True  # its own part that was read, where the rest would not be
        rule = next(
            (r for r in analysis.spec.rules if r.id == finding.rule and r.line == finding.line),
            None,
        )
        if rule is None:
            return False
        first = priority(drop.row.current.wildcard, drop.order) < rule.priority
        return first and any(drop.touches(state, rule.spell) for state in states)
    if kind == "unreachable_state":
        return bool(states) and states[0] in _leads_to(analysis, drop)
    if kind == "dead_end":
        return any(
            drop.touches(state, None) and (drop.targets is None or drop.targets - {state})
            for state in states
        )
    if kind == "cannot_complete":
        return any(drop.touches(state, None) for state in states)
    return False


def _leads_to(analysis: Analysis, drop: _Dropped) -> set[str]:
    """The states the row, had it been read, could lead to (and on from there)."""
    spec = analysis.spec
    if drop.targets is None:
        return {s.name for s in spec.states}
    if not drop.targets:
        return set()
    if drop.sources is not None and not drop.sources & set(analysis.reachable):
        return set()  # it would fire only from states that cannot be reached either
    found = set(drop.targets)
    queue = deque(found)
    while queue:
        for rule in analysis.moves.get(queue.popleft(), []):
            if rule.dest not in found:
                found.add(rule.dest)
                queue.append(rule.dest)
    return found
