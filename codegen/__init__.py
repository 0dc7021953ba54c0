"""The spec compiler: a markdown spec read, proven and rendered as a generated machine.

Its stages, one folder each, each importing only the ones above it in this list:

- `model`: the IR, which imports nothing of the compiler;
- `read/`: the markdown (mistune, line numbers), the spec's sections and tables,
  the condition and action grammar, and the words a spec may use;
- `expand`: notation (`NAME_[G/A]`, wildcards) to concrete rules;
- `logic`: conditions as alternatives of facts, implications, worlds;
- `analyse/`: the verifier's checks and reports;
- `render/`: the model as a generated module (jinja2 + black) and a diagram;
- `diff/`: what a change of a spec does;
- `cli/`: the commands (`verify-state-machine.py`, `python -m codegen`).

`pipeline` joins the reading stages (`load_spec`); `config` reads a project's
`[tool.spellbook]`. This package only re-exports.
"""

from __future__ import annotations

from .model import Spec
from .pipeline import SPEC_LIMIT, load_spec, parse_spec_bytes, parse_spec_text
from .read.lexicon import Dialect
from .spec_error import SpecError

__all__ = [
    "SPEC_LIMIT",
    "Dialect",
    "Spec",
    "SpecError",
    "load_spec",
    "parse_spec_bytes",
    "parse_spec_text",
]
