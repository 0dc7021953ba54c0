"""The time one compiler run may take: past it, a clear error, never a hang.

The analysis is exact, and some specs are costly to check (a cell of many facts,
thousands of rules in one cell). `verify-state-machine.py` and `python -m codegen`
give each run a budget (`--budget SECONDS`, default `DEFAULT`); the long loops of the
analysis and the diff call `check` with what they are doing, and past the deadline
`OverBudget` (a `SpecError`, exit 2) names it. The shipped specs take well under a
second; the budget is for a spec written to exhaust the verifier.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from .spec_error import SpecError

DEFAULT = 120.0

_deadline: float | None = None
_seconds = 0.0


class OverBudget(SpecError):
    """The run went past its time budget."""


@contextmanager
def budget(seconds: float | None) -> Iterator[None]:
    """A deadline `seconds` from now for the checks made inside (None or 0: none)."""
    global _deadline, _seconds
    kept = _deadline, _seconds
    _deadline = time.monotonic() + seconds if seconds else None
    _seconds = seconds or 0.0
    try:
        yield
    finally:
        _deadline, _seconds = kept


def check(doing: str) -> None:
    """Raise OverBudget if the deadline has passed, saying what was being done."""
    if _deadline is not None and time.monotonic() > _deadline:
        raise OverBudget(
            f"stopped after {_seconds:g} s, its time budget, while {doing}: the spec is "
            "too costly to check in that time (cells of many facts, or many rules in "
            "one cell); split it, or give more time with --budget SECONDS",
            0,
        )
