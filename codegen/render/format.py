"""Formatting a generated module with black, the rows in chunks shared among processes.

Black's time and memory grow faster than the text it is given, and a row is
formatted the same alone as among others: the rows are formatted so many at a
time, on as many processes as there are CPUs for a large spec.
"""

from __future__ import annotations

import os
import re
import sys

# How black formats a generated module (black is imported only to format one).
LINE_LENGTH = 120

# The rows, formatted by black so many at a time: black's time and memory grow faster
# than the text it is given, and a row is formatted the same alone as among others.
ROWS_START = "\nROWS: tuple[Row, ...] = (\n"
# Two placeholders: black would join a tuple of one onto its line.
ROWS_HERE = "    ROWS_HERE,\n    ROWS_HERE,\n"
CHUNK = 100
# More chunks than this are formatted by fresh processes; fewer, on Linux, by this
# one and processes forked from it (black already loaded), sharing the text evenly,
# each at least FORK_SHARE characters of it; elsewhere by this one alone.
PARALLEL = 4
FORK_SHARE = 16_000


def black_format(source: str) -> str:
    """`source` formatted by black: the rows (if any) in chunks of CHUNK, the rest at
    once, shared among as many processes as there are CPUs.

    Python's garbage collector is on while black works (its syntax trees are cycles),
    with what was made before left out of its walks (`gc.freeze`)."""
    import gc

    was = gc.isenabled()
    gc.freeze()
    gc.enable()
    try:
        return _black_rows(source)
    finally:
        if not was:
            gc.disable()
        gc.unfreeze()


def _black_rows(source: str) -> str:
    start = source.find(ROWS_START)
    if start < 0:
        return _format(source)
    start += len(ROWS_START)
    end = source.index("\n)\n", start) + 1
    rows = [row for row in re.split(r"(?m)^(?=    Row\()", source[start:end]) if row.strip()]
    rest = source[:start] + ROWS_HERE + source[end:]
    # No more processes than CPUs, nor than make a share of text worth a process.
    cpus = min(os.cpu_count() or 1, 1 + len(source) // FORK_SHARE)
    if len(rows) > CHUNK * PARALLEL and cpus > 1:
        done, formatted = _spawned(rows, rest)
    elif cpus > 1 and sys.platform == "linux":  # fork: where it is safe and cheap
        done, formatted = _forked(rows, rest, cpus)
    else:
        done, formatted = [_format(chunk) for chunk in _chunks(rows)], _format(rest)
    before, after = formatted.split(ROWS_HERE, 1)
    return before + "".join(chunk[len("x = [\n") : -len("]\n")] for chunk in done) + after


def _chunks(rows: list[str]) -> list[str]:
    """`rows` as snippets black can format, CHUNK rows each: a list, which black keeps
    one row a line however few (a tuple of one it would join onto one line)."""
    return ["x = [\n" + "".join(rows[at : at + CHUNK]) + "]\n" for at in range(0, len(rows), CHUNK)]


def _spawned(rows: list[str], rest: str) -> tuple[list[str], str]:
    """The chunks formatted by fresh processes (a forked one would carry this one's
    memory along, which a large spec makes large), the rest by this one."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn")) as pool:
        done = pool.map(_format, _chunks(rows))
        formatted = _format(rest)
        return list(done), formatted


def _forked(rows: list[str], rest: str, cpus: int) -> tuple[list[str], str]:
    """The text shared evenly by size among this process (the rest and the last rows)
    and cpus - 1 forked ones (the first rows): a fork starts at once, with black loaded."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    share = (len(rest) + sum(map(len, rows))) / cpus
    groups: list[list[str]] = []
    at = 0
    for _ in range(cpus - 1):
        size, group = 0, []
        while at < len(rows) and size + len(rows[at]) / 2 < share:
            size += len(rows[at])
            group.append(rows[at])
            at += 1
        if group:
            groups.append(group)
    if not groups:
        return [_format(chunk) for chunk in _chunks(rows)], _format(rest)
    with ProcessPoolExecutor(len(groups), mp_context=multiprocessing.get_context("fork")) as pool:
        others = [pool.submit(_format_all, _chunks(group)) for group in groups]
        own = [_format(chunk) for chunk in _chunks(rows[at:])]
        formatted = _format(rest)
        return [chunk for other in others for chunk in other.result()] + own, formatted


def _format_all(sources: list[str]) -> list[str]:
    return [_format(source) for source in sources]


def _format(source: str) -> str:
    import black
    from black.mode import Mode, TargetVersion

    mode = Mode(line_length=LINE_LENGTH, target_versions={TargetVersion.PY310})
    return black.format_str(source, mode=mode)
