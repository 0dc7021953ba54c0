"""What a `transitions` diagram of a generated machine draws: the moves between states.

A generated machine's transitions include its refusals (a blocked rule is an internal
transition that fails) and the machine's own callbacks (`unrefused`); a `GraphMachine`
would draw each refusal as a self-loop and name those callbacks. `drawing_moves_only`
gives it a diagram engine that draws the moves only, labelled with the spells.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping
    from typing import Any


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
