"""The spec compiler's commands, installed with the `codegen` extra.

`spellbook-verify` and `spellbook-codegen` (a checkout's `verify-state-machine.py` and
`python -m codegen`), for repositories that keep their own specs (and for the
pre-commit hooks in `.pre-commit-hooks.yaml`); each says its own name. A wheel carries
the compiler as `spellbook.codegen`; in a source checkout it is the repository's
`codegen` folder. Without the `codegen` extra the commands say what to install.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from importlib import import_module

from spellbook.records.errors import install_hint
from spellbook.records.exits import EXIT_NOT_INSTALLED

MISSING = (
    "error: the spec compiler needs mistune, jinja2 and black, which are not installed; "
    "install Spellbook with its codegen extra: {}"
)


def _compiler(module: str) -> Callable[..., int] | None:
    """`main` of the compiler's `module`, from the wheel or from the source checkout."""
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    checkout = os.path.dirname(src)
    if os.path.basename(src) == "src" and os.path.isdir(os.path.join(checkout, "codegen")):
        if checkout not in sys.path:
            sys.path.insert(0, checkout)
        package = "codegen"
    else:
        package = "spellbook.codegen"
    try:
        main: Callable[..., int] = import_module(f"{package}.{module}").main
    except ImportError:
        return None
    return main


def _run(module: str, **how: str | None) -> int:
    main = _compiler(module)
    if main is None:
        print(MISSING.format(install_hint("codegen")), file=sys.stderr)
        return EXIT_NOT_INSTALLED
    return main(None, **how)


def verify() -> int:
    """`spellbook-verify`: verify a spec, or every machine the project configures."""
    return _run("cli.verify", prog="spellbook-verify", default=None)


def generate() -> int:
    """`spellbook-codegen`: generate the machines, or `--check` that they are fresh."""
    return _run("cli.generate", prog="spellbook-codegen")
