"""The spec compiler's commands, as installed with `pip install "spellbook-md[codegen]"`.

`spellbook-verify` is `verify-state-machine.py` and `spellbook-codegen` is
`python -m codegen`, for repositories that keep their own specs (and for the
pre-commit hooks in `.pre-commit-hooks.yaml`). A wheel carries the compiler as
`spellbook.codegen`; in a source checkout it is the repository's `codegen`
folder. Without the `codegen` extra the commands say what to install.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from importlib import import_module

from spellbook.exits import EXIT_NOT_INSTALLED

MISSING = (
    "error: the spec compiler needs mistune, jinja2 and black, which are not installed: "
    'pip install "spellbook-md[codegen]"'
)


def _compiler(module: str) -> Callable[[], int] | None:
    """`main` of the compiler's `module`, from the wheel or from the source checkout."""
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    checkout = os.path.dirname(src)
    if os.path.basename(src) == "src" and os.path.isdir(os.path.join(checkout, "codegen")):
        if checkout not in sys.path:
            sys.path.insert(0, checkout)
        package = "codegen"
    else:
        package = "spellbook.codegen"
    try:
        main: Callable[[], int] = import_module(f"{package}.{module}").main
    except ImportError:
        return None
    return main


def _run(module: str) -> int:
    main = _compiler(module)
    if main is None:
        print(MISSING, file=sys.stderr)
        return EXIT_NOT_INSTALLED
    return main()


def verify() -> int:
    """`spellbook-verify`: verify a spec (see `verify-state-machine.py --help`)."""
    return _run("cli.verify")


def generate() -> int:
    """`spellbook-codegen`: generate the machines, or `--check` that they are fresh."""
    return _run("cli.generate")
