"""The spec compiler: a markdown spec read, proven and rendered as a generated machine.

Its stages, one folder or module each, in import order: docs/reference/architecture.md.
This package only re-exports.
"""

from __future__ import annotations

from .model import Spec
from .pipeline import SPEC_LIMIT, load_spec, parse_spec_bytes, parse_spec_text
from .read.lexicon import ReadOptions
from .spec_error import SpecError

__all__ = [
    "SPEC_LIMIT",
    "ReadOptions",
    "Spec",
    "SpecError",
    "load_spec",
    "parse_spec_bytes",
    "parse_spec_text",
]
