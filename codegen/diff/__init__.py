"""What a change of a spec does: the two machines compared, not the two texts.

`changes.compare` runs the comparison: `match` pairs states, spells and families
(and finds renames), `cells` compares each (state, spell) world by world, and the
rest (the state file, Indicators, rows, templates, findings) is compared in
`changes`; `result` holds what was found; `report` prints it; `revisions` reads the
older spec from a file or a git revision.
"""

from __future__ import annotations

from .changes import compare
from .result import Change, Outcome, Renamed, SpecDiff

__all__ = ["Change", "Outcome", "Renamed", "SpecDiff", "compare"]
