"""The verifier: every check, run over a spec, in one list of findings.

Each `check_*` function returns every finding of its kinds at once; adding a
check is adding a function to `CHECKS`. Severities are in one table,
`codegen.findings.SEVERITY`; error findings fail verification, and warnings too
under `--strict`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..analyse.behaviour_checks import (
    check_advice,
    check_cells,
    check_dead_rules,
    check_graph,
    check_valid_actions,
)
from ..analyse.findings import SEVERITY, Analysis, Finding, Severity
from ..analyse.spec_checks import (
    check_actions,
    check_consolidation,
    check_duplicates,
    check_formerly,
    check_ids,
    check_missing_cells,
    check_reading,
    check_responses,
    check_suffix_preservation,
    check_term_conflicts,
    check_terms,
    check_unknown_conditions,
    check_unresolved_names,
)
from ..model import Spec

__all__ = ["CHECKS", "SEVERITY", "Analysis", "Finding", "Severity", "analyse", "errors"]

CHECKS: tuple[Callable[[Analysis], Iterator[Finding]], ...] = (
    check_reading,
    check_missing_cells,
    check_unresolved_names,
    check_unknown_conditions,
    check_terms,
    check_term_conflicts,
    check_duplicates,
    check_formerly,
    check_cells,
    check_dead_rules,
    check_graph,
    check_valid_actions,
    check_advice,
    check_suffix_preservation,
    check_actions,
    check_ids,
    check_responses,
    check_consolidation,
)


def analyse(spec: Spec) -> list[Finding]:
    """Every finding of every check, ordered by line."""
    analysis = Analysis(spec)
    findings = [f for check in CHECKS for f in check(analysis)]
    return sorted(findings, key=lambda f: (f.line or 0, f.kind))


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity is Severity.ERROR]


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
