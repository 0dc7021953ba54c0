"""Checks of what the machine does under the conditions: gaps, overlaps, dead rules, the graph.

A cell is examined in every world its conditions can see (`cells`).
Between two casts the files may change in any way, so a rule that wins in some
world can fire from any state that is reached. Findings that repeat across the
members of a `NAME_[G/A]` family are reported once, naming the states.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from spellbook.records.moves import lost_file_states
from spellbook.records.words import plural

from ..budget import check
from ..logic import MAX_CLAUSES, MAX_FACTS
from ..model import Atom, Kind, RuleSpec, Spec, Specificity
from ..read.identifiers import folded
from ..read.light_tables import terminal_row
from .analysis import Analysis
from .cells import CellResult
from .findings import Finding, Severity


def _states(names: list[str]) -> str:
    return names[0] if len(names) == 1 else "states " + ", ".join(names)


def _outcome(rule: RuleSpec) -> tuple[object, ...]:
    return (rule.kind, rule.dest, tuple(a.text for a in rule.actions))


def check_cells(analysis: Analysis) -> Iterator[Finding]:
    """gap, overlap, conflict and cell_too_complex, one finding per kind of problem; and
    unlisted_gap, where the policy that transitions not listed are rejected covers a gap."""
    spec = analysis.spec
    gaps: dict[tuple[str, tuple[str, ...], str, int], list[str]] = {}
    rejected: dict[tuple[str, tuple[str, ...], str, int], list[str]] = {}
    pairs: dict[tuple[str, str, str, str, str, int, bool], list[str]] = {}
    said: dict[tuple[tuple[Atom, ...], int], str] = {}  # each example world said once

    def described(result: CellResult, world: int) -> str:
        key = (result.atoms, world)
        if key not in said:
            said[key] = result.describe(world, spec.words)
        return said[key]

    for (state, spell), result in analysis.cells.items():
        check(f"reporting on {spell} in {state}")
        rules = spec.cell(state, spell)
        if result.too_big:
            yield Finding(
                "cell_too_complex",
                f"{spell} in {state}: its conditions use {len(result.atoms)} facts"
                + (
                    f"; cells of more than {MAX_FACTS} facts are not checked"
                    if len(result.atoms) > MAX_FACTS
                    else ", and what holds whatever its undefined facts mean takes more "
                    f"than {MAX_CLAUSES} alternatives; it is not checked"
                ),
                line=rules[0].line,
                state=state,
                spell=spell,
            )
            continue
        for rule, wins_in in zip(rules, result.wins, strict=True):
            if rule.specificity is Specificity.POLICY and wins_in is not None:
                ids = tuple(r.id for r in rules if not r.policy)
                rejected.setdefault(
                    (spell, ids, described(result, wins_in), rules[0].line), []
                ).append(state)
        if result.gap is not None:
            gaps.setdefault(
                (spell, tuple(r.id for r in rules), described(result, result.gap), rules[0].line),
                [],
            ).append(state)
        for winner, loser, example in result.overlaps:
            won, lost = rules[winner], rules[loser]
            both_always = won.condition.always and lost.condition.always
            kind = "conflict" if both_always and _outcome(won) != _outcome(lost) else "overlap"
            fallback = lost.condition.always and not won.condition.always
            pair = (kind, spell, won.id, lost.id, described(result, example), lost.line, fallback)
            pairs.setdefault(pair, []).append(state)
        if result.more_overlaps:
            yield Finding(
                "overlap",
                f"{spell} in {state}: {result.more_overlaps} more pairs of rules of equal "
                f"priority both fire in some world, beyond the {len(result.overlaps)} listed; "
                "rows this alike are better written as one",
                line=rules[0].line,
                state=state,
                spell=spell,
            )
    for (gap_spell, ids, world, line), states in rejected.items():
        when = f"when {world}" if world else "whatever the files are"
        policy = spec.unlisted
        yield Finding(
            "unlisted_gap",
            f"{gap_spell} in {_states(states)}: no row fires {when} (the cell's rows: "
            f"{', '.join(ids)}), so the {spec.spell_word} is rejected there, as "
            + (f"{policy.where} says" if policy is not None else "the policy says")
            + " (transitions not listed are rejected); if it should do something else "
            "there, give it a row",
            line=line,
            state=states[0],
            spell=gap_spell,
            world=world,
            states=tuple(states),
        )
    for (gap_spell, ids, world, line), states in gaps.items():
        when = f"when {world}" if world else "whatever the files are"
        yield Finding(
            "gap",
            f"{gap_spell} in {_states(states)}: no rule fires {when} "
            f"(the cell's rules: {', '.join(ids)})",
            line=line,
            state=states[0],
            spell=gap_spell,
            world=world,
            states=tuple(states),
        )
    for (kind, pair_spell, first, second, world, line, fallback), states in pairs.items():
        if kind == "conflict":
            message = (
                f"{pair_spell} in {_states(states)}: rules {first} and {second} both always apply, "
                f"with different outcomes; {first} wins only because it comes first"
            )
        else:
            when = f"both fire when {world}" if world else "both always apply"
            message = (
                f"{pair_spell} in {_states(states)}: rules {first} and {second} {when}; "
                f"{first} wins because it comes first"
            )
            if fallback:  # a catch-all row after a specific one: say how to write it
                message += (
                    f". If {second} is meant for every other case, give it the condition "
                    f"under which {first} does not apply, so the rows say which applies "
                    "and not their order"
                )
        yield Finding(
            kind,
            message,
            line=line,
            rule=second,
            state=states[0],
            spell=pair_spell,
            world=None if kind == "conflict" or not world else world,
            states=tuple(states),
        )


def check_dead_rules(analysis: Analysis) -> Iterator[Finding]:
    """dead_rule: a row that wins in no world of any of its source states;
    shadowed_rule: a row that never wins in some of its source states."""
    spec = analysis.spec
    by_row: dict[tuple[str, int], list[tuple[RuleSpec, bool, int]]] = {}
    for (state, spell), result in analysis.cells.items():
        for at, (rule, world) in enumerate(zip(spec.cell(state, spell), result.wins, strict=True)):
            if rule.policy:  # no row of the spec: the policy that unlisted cells are blocked
                continue
            by_row.setdefault((rule.id, rule.line), []).append(
                (rule, result.too_big or world is not None, at)
            )
    for (rule_id, line), outcomes in sorted(by_row.items(), key=lambda item: item[0][1]):
        check(f"reporting on rule {rule_id}")
        losing = [(rule, at) for rule, wins, at in outcomes if not wins]
        if not losing:
            continue
        states = list(dict.fromkeys(r.source for r, _ in losing))
        if len(losing) == len(outcomes):
            yield Finding(
                "dead_rule",
                f"rule {rule_id} never fires: {_why_each(analysis, losing)}",
                line=line,
                rule=rule_id,
                state=losing[0][0].source,
                spell=losing[0][0].spell,
                states=tuple(states),
            )
        else:
            message = f"rule {rule_id} never fires in {_states(states)}: "
            message += _why_each(analysis, losing)
            first = losing[0][0]
            above = _written_above(analysis, losing)
            if above:
                message += (
                    f"; it is written above {above}, but a row naming the state comes before "
                    f"every `Any state` row, so its condition ({first.condition.text}) is never "
                    "asked there: if it should win wherever it holds, give those rows "
                    f"`NOT ({first.condition.text})`, or name their states in its place"
                )
            yield Finding(
                "shadowed_rule",
                message,
                line=line,
                rule=rule_id,
                state=states[0],
                spell=first.spell,
                states=tuple(states),
                level=Severity.WARNING if above else None,
            )


def _written_above(analysis: Analysis, losing: list[tuple[RuleSpec, int]]) -> str:
    """The rows naming the state that beat a guarded wildcard row written above them
    (its author may have meant it to come first): their IDs, or ""."""
    rule = losing[0][0]
    if rule.specificity is not Specificity.WILDCARD or rule.condition.always:
        return ""
    beaten = []
    for lost, _ in losing:
        for other in analysis.spec.cell(lost.source, lost.spell):
            if other.specificity is Specificity.EXPLICIT and other.line > rule.line:
                beaten.append(other.id)
    return ", ".join(dict.fromkeys(beaten))


def _why_each(analysis: Analysis, losing: list[tuple[RuleSpec, int]]) -> str:
    """Why a rule never wins in any of its states: the first state's reason, `(and
    likewise in ...)` the others where each has the same; where they differ (`GN2` comes
    first in one state, `G0` in others), each reason with the states it holds in."""
    several = len({rule.spell for rule, _ in losing}) > 1  # `Open, Close` in one row
    reasons: dict[str, list[str]] = {}
    for rule, at in losing:
        why = _why_dead(analysis, rule, at).removeprefix(f"in {rule.source}")
        where = f"{rule.source} ({rule.spell})" if several else rule.source
        reasons.setdefault(why, [])
        if where not in reasons[why]:
            reasons[why].append(where)
    if len(reasons) == 1:
        ((why, states),) = reasons.items()
        likewise = f" (and likewise in {', '.join(states[1:])})" if len(states) > 1 else ""
        return f"in {states[0]}{why}{likewise}"
    return "; ".join(
        f"in {', '.join(states)}: {why.removeprefix(',').strip()}"
        for why, states in reasons.items()
    )


def _why_dead(analysis: Analysis, rule: RuleSpec, at: int) -> str:
    """Why `rule`, at `at` in its cell's priority order, never wins there."""
    rules = analysis.spec.cell(rule.source, rule.spell)
    result = analysis.cells[(rule.source, rule.spell)]
    where = f"in {rule.source}"
    if not result.fires[at]:
        return f"{where} its condition ({rule.condition.text}) can never hold" + _uncounted(
            analysis, rule
        )
    beaten_by = list(dict.fromkeys(rules[j].id for j in result.beaten[at]))
    verb = "comes" if len(beaten_by) == 1 else "come"
    return f"{where}, {', '.join(beaten_by)} {verb} first wherever it applies"


def _uncounted(analysis: Analysis, rule: RuleSpec) -> str:
    """Why a counter comparison of `rule`'s condition never changes (`Analysis.settled`):
    `: no action counts `attempts` (`Increment attempts`), so it is only ever 0`."""
    counters = dict.fromkeys(
        lit.atom.param.partition("<")[0]
        for lit in rule.condition.literals
        if lit.atom in analysis.settled
    )
    said = []
    for counter in counters:
        held = [str(v) for v in analysis.uncounted[counter]]
        values = held[0] if len(held) == 1 else ", ".join(held[:-1]) + " or " + held[-1]
        said.append(
            f"no action counts `{counter}` (`Increment {counter}`), so it is only ever {values}"
        )
    return ": " + "; ".join(said) if said else ""


def _goal_advice(spec: Spec) -> str:
    """How this spec declares the states its workflow ends in, in its own dialect. Where
    its states are read from its tables: in light tables, the row to `(none)` in their
    columns for a state no row leaves or refuses from (a `(none)` row with another row
    out of its state is refused); else the `Goal` column of a table of states beside
    them; else a States list, which an ID-column table needs (it has no `(none)` row).
    Where a list names them, `*Goal*`."""
    read = any(
        n.kind == "names_from_tables" and "states are read" in n.message for n in spec.notices
    )
    if not read:
        return "add `- *Goal*: yes` to the states the workflow aims for"
    named = {name for row in spec.rows if not row.current.wildcard for name in row.current.names}
    ends = [s.name for s in spec.states if s.name not in named]
    if ends and spec.layout and "id" not in spec.layout:
        return (
            "give each state the workflow ends in a row that says it has no way out, as "
            f"`{terminal_row(spec.layout, ends[0])}` in its transition table (its states are "
            "read from its tables)"
        )
    table = next(
        (
            found.group(1)
            for n in spec.notices
            if n.kind == "names_from_tables"
            and (found := re.search(r"the table of states at line (\d+)", n.message))
        ),
        None,
    )
    if table is not None:
        return (
            f"give the table of states (line {table}) a `Goal` column, `yes` in the row of "
            "each state the workflow ends in"
        )
    items = ", ".join(f"`{i}. **{s.name}**`" for i, s in enumerate(spec.states, 1))
    return (
        "its states are read from its tables: list every state under a `## States` "
        f"heading, one item each ({items}), and write the line `- *Goal*: yes` under each "
        "the workflow ends in"
    )


# "Every" and "any" in the languages specs are most often written in besides English
# (whose `Any state`, `All states` and `Every state` read as wildcards): a From cell of
# two words or more with one of them, that no row leads to, most likely meant all states.
_EVERY = frozenset(
    re.findall(
        r"[a-z]+",
        "tous toutes tout chaque jeder jede jedes jeden alle allen beliebig beliebiger "
        "beliebigen todos todas cualquier cualquiera tutti tutte qualsiasi qualunque ogni "
        "qualquer elke ieder iedere wszystkie kazdy",
    )
)


def _every_hint(written: str) -> str:
    """`; if 'Tous les états' means every state, write `Any state``, or ""."""
    words = re.findall(r"[a-z]+", folded(written).lower())
    if len(words) < 2 or not _EVERY.intersection(words):
        return ""
    return f"; if {written!r} means every state, write `Any state` in its From cells"


def _apart(spec: Spec) -> dict[str, str]:
    """Why each state whose rows sit under headings whose tables share no state with the
    tables the machine starts in is most likely unreachable (`### Playing (composite)`,
    `### Parallel: Volume` under `## Transitions`): a table under a heading of its own is
    read as part of the one machine, never as states nested in another or a region beside
    it; said with the unreachable state, by the heading its rows are under."""
    named: dict[str, set[str]] = {}
    for rule in spec.rules:
        named.setdefault(rule.group, set()).update((rule.source, rule.dest))
    joined = {g for g, states in named.items() if spec.initial in states}
    grown = True
    while grown:  # the headings whose tables share a state with those, and so on
        seen = set().union(*(named[g] for g in joined)) if joined else set()
        more = {g for g, states in named.items() if g not in joined and states & seen}
        grown, joined = bool(more), joined | more
    home = ", ".join(repr(g) for g in named if g in joined and g)
    said: dict[str, str] = {}
    for group, states in named.items():
        if group in joined or not group or not home:
            continue
        for state in states:
            said.setdefault(
                state,
                f"; its rows, under {group!r}, share no state with those under {home}, where "
                "the machine starts: a table under a heading of its own is read as part of "
                "this one machine, not as states nested in another or a region beside it; "
                "join them with rows (a row from a state there into one here), or make it a "
                "machine of its own (a section of its own, its states declared in it)",
            )
    return said


def check_graph(analysis: Analysis) -> Iterator[Finding]:
    """unreachable_state, dead_end and cannot_complete, over the rules that can win;
    no_goal when the spec declares no goal state, so cannot_complete is not checked."""
    spec = analysis.spec
    reachable = analysis.reachable
    goals = spec.goals
    if not goals:
        yield Finding(
            "no_goal",
            "no state is declared a goal, so whether every state can still reach one is "
            "not checked; " + _goal_advice(spec),
            line=spec.states[0].line,
        )
    to_goal = analysis.reaches_goal()
    apart = _apart(spec) if len(reachable) < len(spec.states) else {}
    stuck: list[str] = []
    into: dict[str, list[str]] = {}
    for rule in spec.rules:
        if rule.changes_state:
            into.setdefault(rule.dest, []).append(rule.id)
    for state in spec.states:
        name = state.name
        if name not in reachable:
            leading = into.get(name, [])
            detail = (
                f"the rules that lead to it ({', '.join(dict.fromkeys(leading))}) never fire "
                "from a reachable state"
                if leading
                else "no rule leads to it" + _every_hint(state.title or name)
            )
            yield Finding(
                "unreachable_state",
                f"state {name} cannot be reached from the initial state {spec.initial}: "
                f"{detail}{apart.get(name, '')}",
                line=state.line,
                state=name,
            )
            continue
        if not analysis.moves[name] and name not in goals:
            yield Finding(
                "dead_end",
                f"state {name}: no {spec.spell_word} leads out of it",
                line=state.line,
                state=name,
            )
        elif goals and name not in to_goal:
            stuck.append(name)
    if stuck:
        shown = ", ".join(stuck[:6]) + (f" and {len(stuck) - 6} more" if len(stuck) > 6 else "")
        yield Finding(
            "cannot_complete",
            f"from {_states(stuck[:1]) if len(stuck) == 1 else 'states ' + shown} "
            f"no sequence of {plural(spec.spell_word)} reaches {' or '.join(goals)}",
            line=spec.state(stuck[0]).line,
            state=stuck[0],
            states=tuple(stuck),
        )


def check_valid_actions(analysis: Analysis) -> Iterator[Finding]:
    """A state's Valid Actions should be exactly the spells that are not blocked there."""
    spec = analysis.spec
    if not any(state.valid_actions for state in spec.states):
        return  # a spec that lists no Valid Actions (its states read from its tables)
    names = {sp.name for sp in spec.spells}
    for state in spec.states:
        allowed = [
            sp.name
            for sp in spec.spells
            if any(r.kind is not Kind.BLOCKED for r in analysis.winners(state.name, sp.name))
        ]
        listed = [a.spell for a in state.valid_actions if a.spell in names]
        missing = [s for s in allowed if s not in listed]
        # A listed spell no rule answers here is a missing_cell (or a name that did not
        # resolve), not a blocked one.
        extra = [s for s in listed if s not in allowed and analysis.winners(state.name, s)]
        if not missing and not extra:
            continue
        parts = []
        if missing:
            parts.append(f"the tables also allow {', '.join(missing)}")
        if extra:
            parts.append(f"{', '.join(extra)} {'is' if len(extra) == 1 else 'are'} always blocked")
        line = state.valid_actions[0].line if state.valid_actions else state.line
        yield Finding(
            "valid_actions_mismatch",
            f"state {state.name}: Valid Actions lists {', '.join(listed) or 'nothing'}, but "
            + "; ".join(parts),
            line=line,
            state=state.name,
        )


def check_advice(analysis: Analysis) -> Iterator[Finding]:
    """misleading_advice: a rule's Response names a spell that, in the state the rule
    leaves the workflow in, is blocked whatever the files, or only moves into a state
    that stands for a lost file (an error state, `_lost`). The spell
    the rule itself answers, named where it leaves the state as it was, is what the
    text explains, not advice; the policy's rules (`not listed`) give none. Only the
    cells where the rule wins are read: a row of two spells that never fires for one
    tells its words only after the other."""
    spec = analysis.spec
    lost = _lost(spec)
    names = [sp.name for sp in spec.spells]
    named = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")
    said: dict[tuple[str, int, str, str], list[str]] = {}
    for rule in spec.rules:
        if rule.policy:
            continue  # its Response is the policy's own words, no advice of the spec's
        if not any(w is rule for w in analysis.winners(rule.source, rule.spell)):
            continue  # never fires here (`dead_rule`, `shadowed_rule`): no one is told it
        where = rule.dest if rule.changes_state else rule.source
        for spell in dict.fromkeys(_advised(named, rule.response)):
            if spell == rule.spell and where == rule.source:
                continue
            winners = analysis.winners(where, spell)
            if not winners:
                continue
            ids = ", ".join(dict.fromkeys(w.id for w in winners))
            if all(w.policy for w in winners):
                why = "is not listed there, so it is rejected"
            elif all(w.kind is Kind.BLOCKED for w in winners):
                why = f"is blocked there (rule {ids})"
            elif all(w.changes_state and w.dest in lost for w in winners):
                into = " or ".join(dict.fromkeys(w.dest for w in winners))
                why = f"only moves into {into} there (rule {ids})"
            else:
                continue
            said.setdefault((rule.id, rule.line, spell, why), []).append(where)
    for (rule_id, line, spell, why), found in said.items():
        states = list(dict.fromkeys(found))
        there = why.replace(" there", " in " + _states(states), 1)
        yield Finding(
            "misleading_advice",
            f"rule {rule_id}'s Response names {spell}, which {there}, where the rule leaves "
            "the workflow: say what to do instead",
            line=line,
            rule=rule_id,
            state=states[0],
            spell=spell,
            states=tuple(states),
        )


# What a sentence may begin with before its first word: spaces, quotes, brackets.
_OPENING = " \t\n\"'\u201c\u2018(["


def _advised(named: re.Pattern[str], response: str) -> Iterator[str]:
    """The spells `response` names: each name `named` finds, but for one that begins a
    sentence unmarked (`Pick every item first.`), which is the word, not the spell;
    marked (`**Pick**`, `` `Pick` ``) or inside a sentence (`then cast Pick`), it is the
    spell."""
    for m in named.finditer(response):
        before = response[: m.start()]
        marked = before.endswith(("*", "`", "_"))
        opening = before.rstrip(_OPENING)
        if not marked and (not opening or opening.endswith((".", "!", "?", ":", ";"))):
            continue
        yield m.group(1)


def _lost(spec: Spec) -> frozenset[str]:
    """The states that stand for a lost file (error states), as the runtime tells them
    (`spellbook.records.moves.lost_file_states`)."""
    return lost_file_states(
        {
            st.name: [(lit.atom.probe, lit.atom.file, lit.positive) for lit in st.evidence]
            for st in spec.states
        },
        [(r.source, r.dest) for r in spec.rules if r.changes_state],
        spec.goals,
    )
