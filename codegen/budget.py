"""The time one compiler run may take: past it, a clear error, never a hang.

The analysis is exact, and some specs are costly to check (a cell of many facts,
thousands of rules in one cell). `verify-state-machine.py` and `python -m codegen`
give each run a budget (`--budget SECONDS`, default `DEFAULT`); the long loops of the
analysis and the diff call `check` with what they are doing, and past the deadline
`OverBudget` (a `SpecError`, exit 2) names it. The shipped specs take well under a
second; the budget is for a spec written to exhaust the verifier.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from spellbook.exits import EXIT_BAD_INPUT

from .spec_error import SpecError

DEFAULT = 120.0

# The watchdog's grace after the deadline: time for a loop to reach its next check.
GRACE = 2.0

_deadline: float | None = None
_seconds = 0.0
_where = ""
_doing = "reading the spec"
_watchdog: threading.Timer | None = None


class OverBudget(SpecError):
    """The run went past its time budget."""


@contextmanager
def budget(seconds: float | None, where: str = "") -> Iterator[None]:
    """A deadline `seconds` from now for what runs inside (None or 0: none); `where`
    names the spec in the error.

    The long loops `check` it and raise OverBudget, naming what they were doing. Some
    work has no loop of ours to check in (mistune reading a table, black formatting a
    module, difflib comparing names): a watchdog ends the process GRACE seconds after
    the deadline with the same error (exit 2), so no run outlives its budget for long.
    `disarm` it before writing files."""
    global _deadline, _seconds, _where, _watchdog
    kept = _deadline, _seconds, _where, _watchdog
    _deadline = time.monotonic() + seconds if seconds else None
    _seconds, _where, _watchdog = seconds or 0.0, where, None
    if seconds:
        _watchdog = threading.Timer(seconds + GRACE, _expire)
        _watchdog.daemon = True
        _watchdog.start()
    try:
        yield
    finally:
        disarm()
        _deadline, _seconds, _where, _watchdog = kept


def disarm() -> None:
    """No deadline from here on: the checking is done (files are about to be written)."""
    global _deadline
    if _watchdog is not None:
        _watchdog.cancel()
    _deadline = None


def check(doing: str) -> None:
    """Raise OverBudget if the deadline has passed, saying what was being done."""
    global _doing
    _doing = doing
    if _deadline is not None and time.monotonic() > _deadline:
        raise OverBudget(_message(doing), 0)


def stage(doing: str, where: str | None = None) -> None:
    """Say what the run is doing now (and to which spec), for the watchdog's error."""
    global _doing, _where
    _doing = doing
    if where is not None:
        _where = where


def _message(doing: str) -> str:
    return (
        f"stopped after {_seconds:g} s, its time budget, while {doing}: the spec is too "
        "costly to check in that time (cells of many facts, many rules in one cell, "
        "many states or spells); split it, or give more time with --budget SECONDS"
    )


def _expire() -> None:
    """The watchdog: the deadline passed long ago in work that could not check it."""
    where = f"{_where}: " if _where else ""
    sys.stderr.write(f"error: {where}{_message(_doing)}\n")
    sys.stderr.flush()
    if "multiprocessing" in sys.modules:  # black's workers would wait for work for ever
        import multiprocessing

        for child in multiprocessing.active_children():
            child.kill()
    os._exit(EXIT_BAD_INPUT)
