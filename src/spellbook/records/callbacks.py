"""The callbacks a generated machine's transitions call on its model, by name: which rule
a trigger chose (`fired:<ID>`, `refused:<JSON>`), and which spells would fire now; the
names a built machine takes for its states and triggers; and the methods of the
project's own code a model must define (`require`)."""

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


def state_named(name: object, states: list[str], formerly: Mapping[str, str], title: str) -> str:
    """The state `name` is: itself, or, a former name the spec declares (`formerly`,
    `*Formerly*`), the state it is now, as in a state file the runtime reads (a saved
    state is restored with `build(model, initial=saved)`). Any other name is a
    ValueError naming it and the states there are, as `Machine.get_state` raises."""
    if isinstance(name, str):
        if name in states:
            return name
        now = formerly.get(name)
        if now in states:
            assert now is not None
            return now
    raise ValueError(
        f"{name!r} is not a state of {title!r}; its states are {', '.join(states)}"
        + (
            f" (former names: {', '.join(f'{k} -> {v}' for k, v in formerly.items())})"
            if formerly
            else ""
        )
    )


def checked_triggers(machine: Any, model: Any) -> None:
    """`model`'s triggers, as the machine bound them, made to start afresh (`fired` and
    `refused` None, also where the state has no rules for the trigger and no callback
    runs), and its `trigger(name)` and `may_trigger(name)` to refuse a name the machine
    has no trigger of with an AttributeError naming its triggers, whatever
    `ignore_invalid_triggers` says (transitions answers False). A method the model
    defines itself (transitions leaves it) stays."""
    from functools import partial  # loaded with transitions

    def bound(name: str, func: Any) -> Any:
        found = getattr(model, name, None)
        return found if isinstance(found, partial) and found.func == func else None

    def unknown(name: object) -> AttributeError:
        return AttributeError(
            f"{type(model).__name__} has no trigger {name!r}; the triggers of the machine "
            f"are {', '.join(machine.events)}"
        )

    for name, event in machine.events.items():
        fire = bound(name, event.trigger)
        if fire is not None:
            setattr(model, name, partial(_afresh, model, fire))
    fire = bound("trigger", machine._get_trigger)
    if fire is not None:

        def trigger(name: str, *args: Any, **kwargs: Any) -> Any:
            if name not in machine.events:
                raise unknown(name)
            return _afresh(model, fire, name, *args, **kwargs)

        model.trigger = trigger
    may = bound("may_trigger", machine._can_trigger)
    if may is not None:

        def may_trigger(name: str, *args: Any, **kwargs: Any) -> Any:
            if name not in machine.events:
                raise unknown(name)
            return may(name, *args, **kwargs)

        model.may_trigger = may_trigger


def _afresh(model: Any, fire: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A trigger of `model` (`fire`) started with no rule chosen yet."""
    model.fired = model.refused = None
    return fire(*args, **kwargs)


class MissingCode(TypeError):
    """A model lacks a method of the project's own code that rows of the machine need."""


class _NoFacts:
    """The facts of a model whose guards are all its own methods: none to ask."""

    def check(self, probe: str, file: str, param: str) -> bool:
        raise MissingCode(f"the guard {probe} {file} {param} is no method of the model")


NO_FACTS = _NoFacts()


def require(model: object, needed: Mapping[str, tuple[str, ...]]) -> None:
    """A MissingCode naming each method of `needed` (name -> the rows that need it) the
    model does not define, or leaves abstract; nothing when it defines them all."""
    missing = [
        f"{name} (row{'s' if len(rows) > 1 else ''} {', '.join(rows)})"
        for name, rows in needed.items()
        if not callable(method := getattr(model, name, None))
        or getattr(method, "__isabstractmethod__", False)
    ]
    if missing:
        raise MissingCode(
            f"{type(model).__name__} does not define {'; '.join(missing)}: the machine's "
            "guards and callbacks of the project's own code are the model's methods"
        )
