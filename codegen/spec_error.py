"""Errors that point at the spec: one exception type, raised through `fail`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn


class SpecError(Exception):
    """A spec that cannot be read: bad bytes, broken tables, missing sections.

    `path` and `source_line` are filled in by `codegen.compile_spec`, which is
    the one place that knows the file; the parsing stages only know lines.
    """

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.path = "<spec>"
        self.source_line: str | None = None

    def locate(self, path: str, text: str | None) -> SpecError:
        self.path = path
        if text is not None and self.line >= 1:
            lines = text.split("\n")
            if self.line <= len(lines):
                self.source_line = lines[self.line - 1]
        return self

    def __str__(self) -> str:
        # Line 0: the file as a whole (missing, unreadable, too large).
        where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        where += self.message
        if self.source_line is None or not self.source_line.strip():
            return where
        shown = self.source_line.strip()
        if len(shown) > 160:
            shown = shown[:157] + "..."
        return f"{where}\n    {shown}"


def fail(message: str, line: int) -> NoReturn:
    raise SpecError(message, line)


# Exit statuses of the command-line tools, in one place.
EXIT_OK = 0  # verified / generated files fresh
EXIT_FAILED = 1  # error-level findings, or stale generated files
EXIT_BAD_INPUT = 2  # unusable input: missing file, not a spec, unreadable markdown


@contextmanager
def quick() -> Iterator[None]:
    """Python's cyclic garbage collector off while a command compiles a spec: reading
    a spec makes many small objects and no cycles worth collecting, and the collector
    walking them all, again and again, costs a large spec's verification a fifth of
    its time. It is switched back on after (if it was on)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
