"""The time and memory one compiler run may take: past either, a clear error, never a
hang or an exhausted machine.

The analysis is exact, and some specs are costly to check (a cell of many facts,
thousands of rules in one cell). `verify-state-machine.py` and `python -m codegen`
give each run a budget: `--budget SECONDS` (default `DEFAULT`) and `--memory MB`
(default `DEFAULT_MEMORY`, the process's resident size). The long loops of the
analysis and the diff call `check` with what they are doing, and past either bound
`OverBudget` (a `SpecError`, exit 2) names it. The shipped specs take well under a
second and under 100 MB; the budget is for a spec written to exhaust the verifier.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from spellbook.records.exits import EXIT_BAD_INPUT
from spellbook.records.terminal import text

from .spec_error import SpecError

DEFAULT = 120.0
DEFAULT_MEMORY = 1024.0  # MB

# The watchdog's grace past a bound: time for a loop to reach its next check.
GRACE = 2.0
# How often the watchdog looks at the clock and the process's size.
POLL = 0.05

_deadline: float | None = None
_seconds = 0.0
_memory = 0.0  # MB; 0 for no bound
_where = ""
_doing = "reading the spec"
_over: str | None = None  # the message, once the memory bound is seen passed
_measured = 0.0  # when the process's size was last read by `check`
_watchdog: _Watchdog | None = None
_on_end: Callable[[str], None] | None = None  # says an error as the run's caller asked
# Held by whoever says how the run ended: the run itself (its report, or the error
# `check` raised) or the watchdog (its error, then the process ends). So the two never
# both write, and a run that has begun to say its ending is never cut short.
_end = threading.RLock()
_ending = False  # this run holds _end
# The run has begun to say how it ended (or a signal has stopped it): from here a signal
# is ignored, after the budget too (which resets `_ending`), until `signals` ends.
_said = False
# A signal that came while the run was saying how it ended (ignored then), for a caller
# of several runs (a project's machines) to stop before the next: its number.
_pending: int | None = None
_depth = 0  # how many `signals` contexts are open


class OverBudget(SpecError):
    """The run went past its time or memory budget."""


class StoppedBySignal(SpecError):
    """The run was told to stop by a signal (SIGTERM, SIGHUP, SIGINT): it ends saying so,
    with the exit status shells give a process a signal ended (128 + its number)."""

    def __init__(self, signum: int) -> None:
        import signal

        super().__init__(f"stopped by {signal.Signals(signum).name} before it was done", 0)
        self.exit_code = 128 + signum


@contextmanager
def signals() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT raise StoppedBySignal in what runs inside, so a run told
    to stop says it in the form its caller asked for. Only in the main thread (the only one that
    can set handlers); elsewhere, nothing changes."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        global _said, _pending
        if not _said:  # else the run is saying how it ended already: once is enough
            _said = True
            raise StoppedBySignal(signum)
        _pending = signum  # said once the run has said its ending (`pending`)

    global _said, _pending, _depth
    if not _depth:
        _pending = None
    said, _said = _said, False
    _depth += 1
    numbers = [signal.SIGTERM, signal.SIGINT]
    if hasattr(signal, "SIGHUP"):
        numbers.append(signal.SIGHUP)
    kept: dict[int, Any] = {}
    try:
        for number in numbers:
            kept[number] = signal.signal(number, stop)
        yield
    finally:
        for kept_number, handler in kept.items():
            signal.signal(kept_number, handler)
        _said = said
        _depth -= 1


def pending() -> int | None:
    """The number of a signal that came while a run was saying how it ended, inside the
    outermost `signals` (None if none came): a caller of several runs stops there."""
    return _pending


def saying() -> None:
    """The caller is about to say how it ended (a document of several runs, say): from
    here, inside `signals`, a signal is only noted (`pending`), never cuts it short."""
    global _said
    _said = True


def size_mb() -> float | None:
    """The process's resident size now, in MB (its peak so far where the size now
    cannot be read; None where neither can)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:  # not on this platform (Windows): no memory bound
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


class _Watchdog(threading.Thread):
    """Looks at the clock and the process's size every POLL seconds. Past the memory
    bound it tells `check` to stop the run; past either bound by GRACE seconds (work
    that has no loop of ours to check in), it ends the process with the same error."""

    def __init__(self) -> None:
        super().__init__(daemon=True, name="spellbook-budget")
        self.stop = threading.Event()

    def run(self) -> None:
        global _over
        over_since: float | None = None
        while not self.stop.wait(POLL):
            now = time.monotonic()
            if _deadline is not None and now > _deadline + GRACE:
                return _expire(_message(_doing))
            size = size_mb() if _memory else None
            if size is not None and size > _memory:
                _over = _memory_message(size, _doing)
                over_since = over_since if over_since is not None else now
                if now - over_since > GRACE:
                    return _expire(_over)


def add_arguments(parser: argparse.ArgumentParser, doing: str) -> None:
    """`--budget SECONDS` and `--memory MB` for a command whose costly part is `doing`."""
    parser.add_argument(
        "--budget",
        type=_amount,
        default=DEFAULT,
        metavar="SECONDS",
        help=f"stop with an error (exit {EXIT_BAD_INPUT}) if {doing} takes longer "
        f"(default {DEFAULT:g}; 0 for none)",
    )
    parser.add_argument(
        "--memory",
        type=_amount,
        default=DEFAULT_MEMORY,
        metavar="MB",
        help=f"stop with an error (exit {EXIT_BAD_INPUT}) if the process grows past this "
        f"size while {doing} (default {DEFAULT_MEMORY:g}; 0 for none)",
    )


def _amount(text: str) -> float:
    """A budget given on the command line: a finite number, 0 or more (0: none)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (0 <= value < float("inf")):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of 0 or more (0: none)")
    return value


@contextmanager
def budget(
    seconds: float | None,
    where: str = "",
    memory: float | None = DEFAULT_MEMORY,
    on_end: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """A deadline `seconds` from now, and a bound of `memory` MB on the process's
    resident size, for what runs inside (None or 0: none); `where` names the spec in the error.

    The long loops `check` them and raise OverBudget, naming what they were doing. Some
    work has no loop of ours to check in (mistune reading a table, black formatting a
    module, difflib comparing names): a watchdog ends the process GRACE seconds after
    a bound is passed with the same error (exit 2) on stderr, said also by `on_end`
    (a JSON report of the error on stdout, say), so no run outlives its budget for long
    and every run ends saying so in the form its caller asked for. Call `ending` before
    writing the run's result, and `disarm` before writing files."""
    global _deadline, _seconds, _memory, _where, _watchdog, _over, _measured, _on_end, _ending
    kept = _deadline, _seconds, _memory, _where, _watchdog, _over, _measured, _on_end, _ending
    _deadline = time.monotonic() + seconds if seconds else None
    _seconds, _memory, _where, _watchdog, _over = seconds or 0.0, memory or 0.0, where, None, None
    _measured, _on_end, _ending = time.monotonic(), on_end, False
    if seconds or memory:
        _watchdog = _Watchdog()
        _watchdog.start()
    try:
        yield
    finally:
        disarm()
        if _watchdog is not None:
            _watchdog.join()  # before the outer budget is back: it must not see this one's
        if _ending:
            _end.release()
        (_deadline, _seconds, _memory, _where, _watchdog, _over, _measured, _on_end, _ending) = kept


def ending() -> None:
    """The run is about to say how it ended (its result, or its error): from here the
    watchdog never cuts it short, nor says an error of its own. Waits (for the process
    to end) if the watchdog is saying one already."""
    global _ending, _said
    _said = True
    if not _ending:
        _end.acquire()
        _ending = True


def disarm() -> None:
    """No bound from here on: the checking is done (files are about to be written)."""
    global _deadline, _memory, _over
    ending()
    if _watchdog is not None:
        _watchdog.stop.set()
    _deadline, _memory, _over = None, 0.0, None


def check(doing: str) -> None:
    """Raise OverBudget if the deadline or the memory bound has passed, saying what was
    being done. The process's size is read here too when the watchdog has not read it
    for a while (a busy machine may not have run it), so the bound holds at each check."""
    global _doing, _over, _measured
    _doing = doing
    if _memory and _over is None:
        now = time.monotonic()
        if now - _measured > POLL:
            _measured = now
            size = size_mb()
            if size is not None and size > _memory:
                _over = _memory_message(size, doing)
    if _over is not None:
        ending()
        raise OverBudget(_over, 0)
    if _deadline is not None and time.monotonic() > _deadline:
        ending()
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


def _memory_message(size: float, doing: str) -> str:
    return (
        f"stopped at {size:.0f} MB, past its memory budget of {_memory:g} MB, while "
        f"{doing}: the spec is too large to check in that memory (cells of many facts, "
        "many rules in one cell, many states or spells); split it, or allow more with "
        "--memory MB"
    )


def out_of_memory() -> OverBudget:
    """The error for a MemoryError: the machine (or a limit set on the process) gave
    out before the memory budget did."""
    err = OverBudget(
        f"ran out of memory while {_doing}: the spec is too large to check on this "
        "machine (cells of many facts, many rules in one cell, many states or spells); "
        "split it",
        0,
    )
    if _where:
        err.locate(_where, None)
    return err


def _expire(message: str) -> None:
    """The watchdog: a bound passed long ago in work that could not check it. The error
    is said (on stderr, and by the run's `on_end`) and the process ends, unless the run
    has begun to say its own ending."""
    if not _end.acquire(blocking=False):
        return
    where = f"{_where}: " if _where else ""
    with contextlib.suppress(BaseException):  # a closed stream: the exit status says it
        sys.stderr.write(text(f"error: {where}{message}\n"))
        sys.stderr.flush()
        if _on_end is not None:
            _on_end(message)
    if "multiprocessing" in sys.modules:  # black's workers would wait for work for ever
        import multiprocessing

        for child in multiprocessing.active_children():
            child.kill()
    os._exit(EXIT_BAD_INPUT)
