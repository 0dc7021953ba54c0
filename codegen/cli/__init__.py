"""The compiler's commands: `verify` (`verify-state-machine.py`, `spellbook-verify`) and
`generate` (`python -m codegen`, `spellbook-codegen`). Each parses its arguments, calls
the stages, and maps outcomes to exit statuses."""

from __future__ import annotations

import sys


def not_installed(err: ModuleNotFoundError, command: str) -> int:
    """Say that `command` was started by a Python without the project's libraries (a
    checkout run before its quickstart), and how to install them: exit 2, no traceback.
    A module of the compiler's own that is missing is no such thing: raised again."""
    name = (err.name or "").partition(".")[0]
    if not name or name == "codegen":
        raise err
    print(
        f"python {command}: {name} is not installed for {sys.executable}; install this checkout "
        "first, as the README's quickstart does: python3 -m venv .venv && .venv/bin/pip "
        f'install -e ".[dev]", then run .venv/bin/python {command}',
        file=sys.stderr,
    )
    return 2
