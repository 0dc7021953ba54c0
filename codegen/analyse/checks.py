"""The verifier: every check, run over a spec, in one list of findings.

Each `check_*` function returns every finding of its kinds at once; adding a
check is adding a function to `CHECKS`. Severities are in one table,
`findings.SEVERITY`; error findings fail verification, and warnings too
under `--strict`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..budget import stage
from ..model import Spec
from .analysis import Analysis
from .behaviour_checks import (
    check_advice,
    check_cells,
    check_dead_rules,
    check_graph,
    check_valid_actions,
)
from .diagram_checks import check_diagrams
from .effect_checks import check_effects, check_templates
from .field_checks import check_fields
from .findings import Finding, Severity
from .guard_checks import check_guards
from .knock_on import knock_on
from .own_code_checks import check_own_code
from .spec_checks import (
    check_actions,
    check_consolidation,
    check_duplicates,
    check_file_names,
    check_formerly,
    check_ids,
    check_missing_cells,
    check_mixed_and_or,
    check_placeholders,
    check_reading,
    check_responses,
    check_spell_names,
    check_suffix_preservation,
    check_term_conflicts,
    check_terms,
    check_unknown_conditions,
    check_unlisted,
    check_unresolved_names,
    check_vacuous_conditions,
)
from .state_checks import check_indicators, check_similar_names

CHECKS: tuple[Callable[[Analysis], Iterator[Finding]], ...] = (
    check_reading,
    check_missing_cells,
    check_unlisted,
    check_unresolved_names,
    check_unknown_conditions,
    check_file_names,
    check_vacuous_conditions,
    check_mixed_and_or,
    check_own_code,
    check_fields,
    check_terms,
    check_term_conflicts,
    check_duplicates,
    check_spell_names,
    check_formerly,
    check_indicators,
    check_similar_names,
    check_cells,
    check_dead_rules,
    check_graph,
    check_valid_actions,
    check_advice,
    check_suffix_preservation,
    check_actions,
    check_effects,
    check_templates,
    check_ids,
    check_responses,
    check_placeholders,
    check_consolidation,
    check_diagrams,
    check_guards,
)


def analyse(spec: Spec) -> list[Finding]:
    """Every finding of every check, ordered by line."""
    analysis = Analysis(spec)
    findings: list[Finding] = []
    try:
        for each in CHECKS:
            stage(f"checking the spec ({each.__name__.removeprefix('check_').replace('_', ' ')})")
            findings += each(analysis)
        findings = knock_on(analysis, findings)
    finally:
        analysis.close()
    return sorted(findings, key=lambda f: (f.line or 0, f.kind))


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity is Severity.ERROR]
