"""Errors that point at the spec: one exception type, raised through `fail`."""

from __future__ import annotations

from typing import NoReturn


class SpecError(Exception):
    """A spec that cannot be read: bad bytes, broken tables, missing sections.

    `path` and `source_line` are filled in by `codegen.pipeline`, which is the one
    place that knows the file; the reading stages only know lines.
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


class NoSection(SpecError):
    """The section asked for (`--section`, or a section of the new spec looked for in
    the old one by `--against`) is in no heading of the file: a machine it does not have."""


def fail(message: str, line: int) -> NoReturn:
    raise SpecError(message, line)
