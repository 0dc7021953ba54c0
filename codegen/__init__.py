"""The spec compiler: a markdown spec read, proven and rendered as a generated machine.

Its stages, one folder or module each, in import order: docs/reference/architecture.md.
This package only re-exports, on first use: importing it loads no stage, so that a
command started without the project installed can say so (`cli.not_installed`).
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .model import Spec
    from .pipeline import SPEC_LIMIT, load_spec, parse_spec_bytes, parse_spec_text
    from .read.lexicon import ReadOptions
    from .spec_error import SpecError

# Each name this package gives, and the module of the package that holds it.
_HOMES = {
    "SPEC_LIMIT": ".pipeline",
    "ReadOptions": ".read.lexicon",
    "Spec": ".model",
    "SpecError": ".spec_error",
    "load_spec": ".pipeline",
    "parse_spec_bytes": ".pipeline",
    "parse_spec_text": ".pipeline",
}

__all__ = [
    "SPEC_LIMIT",
    "ReadOptions",
    "Spec",
    "SpecError",
    "load_spec",
    "parse_spec_bytes",
    "parse_spec_text",
]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = getattr(import_module(home, __name__), name)
    globals()[name] = found
    return found
