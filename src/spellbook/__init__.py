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
    "ActionError": "spellbook.errors",
    "LockTimeout": "spellbook.errors",
    "SpellbookError": "spellbook.errors",
    "StateFileError": "spellbook.errors",
    "UnknownSpell": "spellbook.errors",
    "UnknownState": "spellbook.errors",
    "UnsafePath": "spellbook.errors",
    "CastResult": "spellbook.outcome",
    "Workflow": "spellbook.workflow",
    "attach": "spellbook.adapter",
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spellbook.adapter import attach
    from spellbook.errors import (
        ActionError,
        LockTimeout,
        SpellbookError,
        StateFileError,
        UnknownSpell,
        UnknownState,
        UnsafePath,
    )
    from spellbook.outcome import CastResult
    from spellbook.workflow import Workflow


def __getattr__(name: str) -> object:
    if name in _HOME:
        from importlib import import_module

        value = getattr(import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'spellbook' has no attribute {name!r}")
