"""The verifier's checks: each `check_*` function returns every finding of its kinds at once.

Adding a check is adding a function to `CHECKS`. Severities are set in one
table, `SEVERITY`; `error` findings fail verification.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from codegen.glossary import PHRASES
from codegen.model import Spec


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


SEVERITY: dict[str, Severity] = {
    "parse_error": Severity.ERROR,
    "missing_cell": Severity.ERROR,
    "unknown_state": Severity.ERROR,
    "unknown_spell": Severity.ERROR,
    "unknown_condition": Severity.ERROR,
    "ga_notation": Severity.ERROR,
    "duplicate_id": Severity.ERROR,
    "duplicate_state": Severity.ERROR,
    "duplicate_spell": Severity.ERROR,
    "action_path": Severity.ERROR,
    "action_state": Severity.WARNING,
    "unknown_action": Severity.INFO,
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

    @property
    def severity(self) -> Severity:
        return SEVERITY[self.kind]


def check_missing_cells(spec: Spec) -> Iterator[Finding]:
    for state in spec.states:
        for spell in spec.spells:
            if not spec.cell(state.name, spell.name):
                yield Finding(
                    "missing_cell",
                    f"no rule says what {spell.name} does in state {state.name}",
                    line=state.line,
                    state=state.name,
                    spell=spell.name,
                )


def check_unresolved_names(spec: Spec) -> Iterator[Finding]:
    for ref in spec.unresolved:
        hint = f" (did you mean {ref.suggestion}?)" if ref.suggestion else ""
        detail = f": {ref.detail}" if ref.detail else ""
        if ref.reason == "ga_notation":
            message = (
                f"rule {ref.rule}: Next State {ref.name} takes the source state's suffix{detail}"
            )
        elif ref.column == "Valid Actions":
            what = "spell" if ref.reason == "unknown_spell" else "state"
            message = f"state {ref.state} lists unknown {what} {ref.name!r} in Valid Actions{hint}"
        else:
            what = "spell" if ref.reason == "unknown_spell" else "state"
            message = (
                f"rule {ref.rule} names unknown {what} {ref.name!r} in {ref.column}{detail}{hint}"
            )
        yield Finding(
            ref.reason,
            message,
            line=ref.line,
            rule=ref.rule,
            state=ref.state,
            spell=ref.name if ref.reason == "unknown_spell" else None,
        )


def check_unknown_conditions(spec: Spec) -> Iterator[Finding]:
    examples = [p.example for p in PHRASES if p.example]
    for row in spec.rows:
        for phrase in row.condition.unknown:
            close = difflib.get_close_matches(phrase, examples, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            yield Finding(
                "unknown_condition",
                f"rule {row.id}: condition {phrase!r} is not in the glossary{hint}",
                line=row.line,
                rule=row.id,
            )


def check_duplicates(spec: Spec) -> Iterator[Finding]:
    for dup in spec.duplicates:
        kind = {"rule ID": "duplicate_id", "state": "duplicate_state", "spell": "duplicate_spell"}
        yield Finding(
            kind[dup.what],
            f"{dup.what} {dup.name} is defined again (first at line {dup.first_line}); "
            "the first definition is used",
            line=dup.line,
            rule=dup.name if dup.what == "rule ID" else None,
            state=dup.name if dup.what == "state" else None,
            spell=dup.name if dup.what == "spell" else None,
        )


def check_actions(spec: Spec) -> Iterator[Finding]:
    """Action phrases outside the vocabulary, unsafe paths, and state updates that
    disagree with the rule's Next State."""
    for row in spec.rows:
        for action in row.actions:
            if action.verb == "instruct":
                yield Finding(
                    "unknown_action",
                    f"rule {row.id}: action {action.text!r} is not in the action vocabulary; "
                    "it is passed to the AI as an instruction",
                    line=row.line,
                    rule=row.id,
                )
            elif action.problem:
                yield Finding(
                    "action_path",
                    f"rule {row.id}: cannot {action.verb} as written ({action.text!r}): "
                    f"{action.problem}",
                    line=row.line,
                    rule=row.id,
                )
    reported: set[tuple[str, str]] = set()
    for rule in spec.rules:
        for action in rule.actions:
            if action.verb == "set_state" and action.target != rule.dest:
                key = (rule.id, action.target)
                if key in reported:
                    continue
                reported.add(key)
                yield Finding(
                    "action_state",
                    f"rule {rule.id}: action says {action.text!r} but Next State is {rule.dest}; "
                    "the machine follows Next State",
                    line=rule.line,
                    rule=rule.id,
                    state=rule.source,
                )


CHECKS: tuple[Callable[[Spec], Iterator[Finding]], ...] = (
    check_missing_cells,
    check_unresolved_names,
    check_unknown_conditions,
    check_duplicates,
    check_actions,
)


def analyse(spec: Spec) -> list[Finding]:
    """Every finding of every check, ordered by line."""
    findings = [f for check in CHECKS for f in check(spec)]
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
