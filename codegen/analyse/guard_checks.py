"""The spec's State Guards list (`read.guards`) against its tables.

A guard says in which states its spell is allowed and in which it is blocked
(`reading.guards_read`). In a state where it is blocked, every rule that answers the
spell there must refuse it: a `[BLOCKED]` row (or the policy that transitions not
listed are rejected), or a no-op, a row that keeps the state and does nothing but `No
state change`. In a state where it is allowed, some rule must not block it. A rule of
the tables that says otherwise is a `guard_disagrees` warning at the guard's line,
naming the rule and the states; a cell no rule answers is left to `missing_cell`. An
item not read is a `guard_unread` warning at its line, with the forms that read:
never a rule its author believes in that nothing checks.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..expand import POLICY_ID
from ..model import Kind, RuleSpec
from ..read.guards import FORMS
from .analysis import Analysis
from .findings import Finding
from .reading import GuardReading, guard_named, guards_read, shown_states


def check_guards(analysis: Analysis) -> Iterator[Finding]:
    spec = analysis.spec
    if not spec.guards:
        return
    for read in guards_read(spec):
        guard = read.guard
        if read.problem:
            name = (
                "the " + guard_named(guard)
                if guard.title or guard.usage
                else "this item of the State Guards list"
            )
            yield Finding(
                "usage_unread" if guard.usage else "guard_unread",
                f"{name} is not read: {read.problem}; nothing checks it against the "
                f"tables ({FORMS})",
                line=guard.line,
            )
            continue
        yield from _disagreements(analysis, read)


def refuses(rule: RuleSpec) -> bool:
    """Whether a rule refuses its spell: blocks it, or keeps the state doing nothing."""
    return blocks(rule) or (
        not rule.changes_state and all(a.verb == "no_change" for a in rule.actions)
    )


def blocks(rule: RuleSpec) -> bool:
    return rule.kind is Kind.BLOCKED or rule.policy


def _disagreements(analysis: Analysis, read: GuardReading) -> Iterator[Finding]:
    """At most two findings for a guard: the rules that let its spell through where it
    blocks it, and the states where it allows the spell and every rule blocks it."""
    spec = analysis.spec
    guard = read.guard
    said = f"the {guard_named(guard)} says of {read.spell}: {guard.text.rstrip('.')!r}"
    through: dict[tuple[str, int], tuple[RuleSpec, list[str]]] = {}
    for state in read.blocked:
        for rule in analysis.winners(state, read.spell):
            if not refuses(rule):
                through.setdefault((rule.id, rule.line), (rule, []))[1].append(state)
    if through:
        found = list(through.values())
        each = [
            f"{rule.id} (line {rule.line}) in {shown_states(spec, tuple(states))} "
            + (
                f"moves to {rule.dest}"
                if rule.changes_state
                else "keeps the state and acts (" + "; ".join(a.text for a in rule.actions) + ")"
            )
            for rule, states in found[:_MOST]
        ]
        more = f"; and {len(found) - _MOST} more rules" if len(found) > _MOST else ""
        rows = "row" if len(found) == 1 else "rows"
        states = tuple(dict.fromkeys(s for _, ss in found for s in ss))
        yield Finding(
            "guard_disagrees",
            f"{said}, but where it blocks {read.spell} the tables let it through: "
            f"{'; '.join(each)}{more}; make the {rows} `[BLOCKED]` (or a no-op) there, or "
            "say the guard as the tables mean it",
            line=guard.line,
            rule=found[0][0].id,
            state=states[0],
            spell=read.spell,
            states=states,
        )
    refused: dict[tuple[str, ...], list[str]] = {}
    for state in read.allowed:
        winners = analysis.winners(state, read.spell)
        if winners and all(blocks(r) for r in winners):
            refused.setdefault(tuple(dict.fromkeys(r.id for r in winners)), []).append(state)
    if refused:
        each = [
            f"{shown_states(spec, tuple(states))} ("
            + ", ".join(f"rule {i}" if i != POLICY_ID else "transitions not listed" for i in ids)
            + ")"
            for ids, states in refused.items()
        ]
        states = tuple(s for ss in refused.values() for s in ss)
        yield Finding(
            "guard_disagrees",
            f"{said}, but where it allows {read.spell} the tables block it: in "
            f"{'; '.join(each)} every rule that answers it is `[BLOCKED]`; write the row "
            "that lets it through, or say the guard as the tables mean it",
            line=guard.line,
            rule=next(iter(refused))[0],
            state=states[0],
            spell=read.spell,
            states=states,
        )


# The rules a finding names at most, the others counted.
_MOST = 4
