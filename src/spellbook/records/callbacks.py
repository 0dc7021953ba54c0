"""The callbacks a generated machine's transitions call on its model, by name: which rule
a trigger chose (`fired:<ID>`, `refused:<JSON>`), and which spells would fire now."""

from __future__ import annotations

from functools import partial

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

# The names of the model's callbacks that record which rule a trigger chose: the
# transitions of a rule call `fired:<ID>` before they change the state, and those of a
# rule that refuses the spell end with `refused:<JSON>` (in `unless`), which always
# fails the transition, and records the rule (its ID, first in the JSON) when the
# alternative of its condition (the guards after it) holds: it checks them itself, so
# that it is right where a Machine checks every condition (AsyncMachine gathers them).
# `unrefused` (first of every transition's conditions) then fails the rules after it,
# and `clear_rule` (the `prepare` of a cell's first transition) starts each trigger
# afresh.
FIRED, REFUSED = "fired:", "refused:"


def rule_callback(model: object, name: str) -> Callable[..., Any] | None:
    """The callback of one rule that the machine names `name` (`fired:ID`, `refused:...`),
    bound to `model`; None for any other name."""
    if name.startswith(FIRED):
        return partial(_fire, model, name[len(FIRED) :])
    if name.startswith(REFUSED):
        return partial(_refuse, model, name[len(REFUSED) :])
    return None


def available_spells(
    model: object, triggers: Mapping[str, str], *args: Any, **kwargs: Any
) -> list[str]:
    """The spells of `triggers` (spell -> trigger) whose `may_<trigger>` holds for `model`."""
    return [
        spell
        for spell, trigger in triggers.items()
        if getattr(model, "may_" + trigger)(*args, **kwargs) is True
    ]


def _fire(model: Any, rule: str, *args: Any, **kwargs: Any) -> None:
    model.fired = rule


def _refuse(model: Any, said: str, *args: Any, **kwargs: Any) -> bool:
    """In `unless`, last: fails the transition (True), recording the rule if its
    condition's alternative holds."""
    import json

    rule, wanted = json.loads(said)
    if all(bool(getattr(model, name)()) == holds for name, holds in wanted):
        model.refused = rule
    return True
