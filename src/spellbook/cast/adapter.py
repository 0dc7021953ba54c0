"""`attach`: a model of your own class driven by a generated machine.

A generated machine's transitions name methods of its model: the guards (each asks a
`facts` object, or is a method of the project's own code), and the machine's own
callbacks, which record the rule that fired or refused the spell (`fired`, `refused`).
Its `Model` has them all; `attach` gives them to any other object, so a model class
of your own (a dataclass, an ORM row) needs no base class:

    from spellbook import attach
    from spellbook.machines import spell_machine

    order = attach(MyTask(), spell_machine, ".")   # the guards read ./.ai/task/
    spell_machine.build(order)
"""

from __future__ import annotations

import os
from types import MethodType

from spellbook.records.callbacks import FIRED, REFUSED, available_spells, rule_callback
from spellbook.schema import OWN, GuardedModel, guard_method, transitions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from spellbook.cast.engine import Engine, GeneratedMachine
    from spellbook.schema import Facts

    T = TypeVar("T")


class _Live:
    """The facts of a workspace folder as they are at each question (each file read
    afresh): a long-lived model never answers from what a file was."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def check(self, probe: str, file: str, param: str) -> bool:
        return self.engine.facts().check(probe, file, param)


def workspace_facts(machine: GeneratedMachine, root: str | os.PathLike[str] = ".") -> Facts:
    """The answers to `machine`'s guards from the repository at `root` (its workspace
    folder, the machine's `WORKSPACE`, in it), read afresh at each question. A guard on
    a command's outcome raises `spellbook.facts.answers.NeedsRun`: guards never run anything."""
    from spellbook.cast.engine import Engine
    from spellbook.disk.store import Workspace

    return _Live(Engine(machine, Workspace(os.fspath(root), machine.WORKSPACE)))


def attach(
    model: T,
    machine: GeneratedMachine,
    workspace: str | os.PathLike[str] | Facts | None = None,
) -> T:
    """`model`, given what `machine.build(model)` needs of a model: `facts` (from
    `workspace`: a repository's folder, or an object whose `check(probe, file, param)`
    answers the guards), the guards that ask them, the machine's callbacks, `fired`,
    `refused` and `available_spells()`. The guards and callbacks of the project's own
    code (`own_code`) stay the model's to define: `build` checks them. A model of the
    generated `Model` already has all this; it only gets `facts` from `workspace`.

    A name `model` already has for something else is a `TypeError` naming it, never
    overwritten."""
    facts: Facts | None = None
    if isinstance(workspace, (str, os.PathLike)):
        facts = workspace_facts(machine, workspace)
    elif workspace is not None:
        facts = workspace
    if isinstance(model, GuardedModel):
        if facts is not None:
            model.facts = facts
        return model
    core = [guard for guard in machine.GUARDS if guard.probe != OWN]
    if core and facts is None:
        raise TypeError(
            f"the guards of {machine.TITLE!r} read a workspace: attach({type(model).__name__}"
            "(), machine, workspace) needs a repository's folder or an object with "
            "check(probe, file, param)"
        )
    made = transitions(machine.RULES, machine.TRIGGERS)
    names = {
        name
        for one in made
        for name in [one["before"], *one["unless"]]
        if name.startswith((FIRED, REFUSED))
    }
    given: dict[str, Any] = {
        "facts": facts,
        "fired": None,
        "refused": None,
        "clear_rule": MethodType(GuardedModel.clear_rule, model),
        "unrefused": MethodType(GuardedModel.unrefused, model),
        "available_spells": MethodType(_available(machine.TRIGGERS), model),
        **{guard.name: MethodType(guard_method(guard), model) for guard in core},
    }
    taken = sorted(name for name in given if hasattr(model, name))
    if taken:
        raise TypeError(
            f"{type(model).__name__} already has {', '.join(taken)}: the machine's model "
            "needs these names for its own (rename yours)"
        )
    for name, value in given.items():
        setattr(model, name, value)
    for name in sorted(names):
        setattr(model, name, rule_callback(model, name))
    return model


def _available(triggers: dict[str, str]) -> Any:
    def spells(model: object, *args: Any, **kwargs: Any) -> list[str]:
        return available_spells(model, triggers, *args, **kwargs)

    spells.__doc__ = GuardedModel.available_spells.__doc__
    return spells
