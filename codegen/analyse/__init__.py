"""The verifier: checks of what a spec says and of what its machine does, and their reports.

`checks` lists every check (`CHECKS`) and runs them (`analyse`); `spec_checks` look at
what is written (names, IDs, conditions, actions), `behaviour_checks` at what the
machine does in every world (`cells`, `analysis`): gaps, overlaps, dead rules, the
graph. `findings` holds each kind's severity; `coverage` and `report` make the
verifier's output.
"""

from __future__ import annotations

from .analysis import Analysis
from .checks import CHECKS, analyse, errors
from .findings import SEVERITY, Finding, Severity

__all__ = ["CHECKS", "SEVERITY", "Analysis", "Finding", "Severity", "analyse", "errors"]
