"""The commands of `spell` besides casting: one table, which the command line
dispatches by and the verifier keeps a spell from being named like (`spell_shadowed`)."""

from __future__ import annotations

# `spell NAME` runs the command NAME where there is one; `spell cast NAME` always casts.
# `session` is a command as the first word that is no option (`spell --root DIR session ...`).
COMMANDS = ("status", "repair", "diagram", "mcp", "check-transition", "session", "cast")
