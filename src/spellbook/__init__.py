"""Spellbook runtime: cast spells against a workspace with the machines generated from the specs.

    from spellbook import Workflow
    result = Workflow(".").cast("accio")

Names are imported on first use, so importing a generated machine
(`spellbook.machines.spell_machine`) does not load the whole runtime.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = [
    "ActionError",
    "CastResult",
    "LockTimeout",
    "SpellbookError",
    "StateFileError",
    "UnknownSpell",
    "UnknownState",
    "UnsafePath",
    "Workflow",
    "attach",
]

_HOME = {
    "ActionError": "spellbook.records.errors",
    "LockTimeout": "spellbook.records.errors",
    "SpellbookError": "spellbook.records.errors",
    "StateFileError": "spellbook.records.errors",
    "UnknownSpell": "spellbook.records.errors",
    "UnknownState": "spellbook.records.errors",
    "UnsafePath": "spellbook.records.errors",
    "CastResult": "spellbook.records.outcome",
    "Workflow": "spellbook.cast.workflow",
    "attach": "spellbook.cast.adapter",
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spellbook.cast.adapter import attach
    from spellbook.cast.workflow import Workflow
    from spellbook.records.errors import (
        ActionError,
        LockTimeout,
        SpellbookError,
        StateFileError,
        UnknownSpell,
        UnknownState,
        UnsafePath,
    )
    from spellbook.records.outcome import CastResult


def __getattr__(name: str) -> object:
    if name in _HOME:
        from importlib import import_module

        value = getattr(import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'spellbook' has no attribute {name!r}")
