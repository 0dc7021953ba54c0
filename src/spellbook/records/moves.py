"""The moves between states: which can happen (`moves`), which lead to a lost file
(`lost_file_states`), and what a `transitions` diagram of a generated machine draws.

A generated machine's transitions include its refusals (a blocked rule is an internal
transition that fails) and the machine's own callbacks (`unrefused`); a `GraphMachine`
would draw each refusal as a self-loop and name those callbacks. `drawing_moves_only`
gives it a diagram engine that draws the moves only, labelled with the spells.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping
    from typing import Any, Protocol

    class Rule(Protocol):
        """A rule of a generated machine (`spellbook.schema.Rule`), as far as its moves go."""

        @property
        def source(self) -> str: ...
        @property
        def dest(self) -> str: ...
        @property
        def spell(self) -> str: ...
        @property
        def changes_state(self) -> bool: ...
        @property
        def can_fire(self) -> bool: ...


def drawing_moves_only(
    graph_cls: type[Any], spells: Mapping[str, str], never: Collection[tuple[str, str]]
) -> type[Any]:
    """`graph_cls` (a diagram engine of `transitions`) drawing `drawn_moves` only."""

    def _get_elements(self: Any) -> tuple[list[Any], list[dict[str, Any]]]:
        states, made = graph_cls._get_elements(self)
        return states, drawn_moves(made, spells, never, self.machine.show_conditions)

    return type(graph_cls.__name__, (graph_cls,), {"_get_elements": _get_elements})


def drawn_moves(
    made: Iterable[Mapping[str, Any]],
    spells: Mapping[str, str],
    never: Collection[tuple[str, str]] = (),
    conditions: bool = False,
) -> list[dict[str, Any]]:
    """The transitions (as `transitions`' markup has them) a diagram draws: those that
    change the state, of a rule that can fire (not one of `never`: (source, its `fired:`
    callback)), labelled with the spell (`spells`: trigger -> spell). With `conditions`,
    each keeps the guards its rule names, and none of the machine's own (`unrefused`);
    without, one edge per (source, dest, spell). A blocked rule, or one that keeps the
    state, is no move."""
    found: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for made_one in made:
        source, dest = made_one["source"], made_one.get("dest")
        if dest is None or (source, made_one.get("before", [""])[0]) in never:
            continue
        label = spells.get(made_one["trigger"], made_one["trigger"])
        one = {"trigger": made_one["trigger"], "source": source, "dest": dest, "label": label}
        if conditions:
            wanted = [c for c in made_one.get("conditions", []) if c != "unrefused"]
            unless = list(made_one.get("unless", []))  # a refusal is on no move
            one.update({"conditions": wanted} if wanted else {})
            one.update({"unless": unless} if unless else {})
        elif (source, dest, label) in seen:
            continue
        seen.add((source, dest, label))
        found.append(one)
    return found


def moves(rules: Iterable[Rule]) -> list[tuple[str, str, str]]:
    """(source, dest, spells) for every move between states that can happen: the rules
    that can fire and change the state, in the order of `rules`."""
    found: dict[tuple[str, str], list[str]] = {}
    for rule in rules:
        if rule.changes_state and rule.can_fire:
            labels = found.setdefault((rule.source, rule.dest), [])
            if rule.spell not in labels:
                labels.append(rule.spell)
    return [(source, dest, " / ".join(labels)) for (source, dest), labels in found.items()]


def lost_file_states(
    evidence: Mapping[str, Iterable[tuple[str, str, bool]]],
    moves: Iterable[tuple[str, str]],
    goals: Iterable[str] = (),
) -> frozenset[str]:
    """The states that stand for a lost file (error states): their Indicators say only
    that files are missing, and some rule leads to them from a state whose Indicators
    say one of those files is there. `evidence` gives each state's Indicators as
    (probe, file, holds); `moves` the (source, dest) of the rules that change state.

    A state a workflow starts in because a file is not written yet (the session's
    INIT, say) is not one: nothing leads to it from where the file was. Nor is a goal
    (`goals`): the files are gone because the work is done (archived, say)."""
    missing: dict[str, set[str]] = {}
    present: dict[str, set[str]] = {}
    for state, facts in evidence.items():
        facts = list(facts)
        present[state] = {file for probe, file, holds in facts if probe == "exists" and holds}
        if facts and all(probe == "exists" and not holds for probe, file, holds in facts):
            missing[state] = {file for _, file, _ in facts}
    reached = set(goals)
    return frozenset(
        dest
        for source, dest in moves
        if dest not in reached and missing.get(dest, set()) & present.get(source, set())
    )
