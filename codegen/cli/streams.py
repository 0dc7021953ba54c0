"""What the compiler's commands write to stdout and stderr: text made safe for a terminal
(`spellbook.records.terminal`), and a stdout that cannot take it (a full disk, closed) said as
one clear error, exit 2, never a traceback."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING

from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_FAILED
from spellbook.records.terminal import json_text, text

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


class UnwrittenOutput(Exception):
    """stdout could not take what the command writes."""

    def __init__(self, reason: str, gone: bool = False) -> None:
        super().__init__(reason)
        self.gone = gone  # the reader went away (`... | head`): no error to say


def emit(data: str | dict[str, object]) -> None:
    """Write to stdout, now: JSON (a dict) with every terminal control escaped, text with
    each one made U+FFFD. A stdout that cannot take it raises UnwrittenOutput, what was
    left unwritten dropped (so the exit does not try it again)."""
    if sys.stdout is None:
        raise UnwrittenOutput("standard output is closed")
    try:
        sys.stdout.write(json_text(data) + "\n" if isinstance(data, dict) else text(data))
        sys.stdout.flush()
    except OSError as err:
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        raise UnwrittenOutput(err.strerror or str(err), isinstance(err, BrokenPipeError)) from None


def say(line: str) -> None:
    """A line on stderr, made safe for a terminal; nothing where stderr cannot take it
    (closed, print would write it to stdout)."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            print(text(line), file=sys.stderr)


def cannot_write(err: UnwrittenOutput, what: str) -> int:
    """The exit status of a run whose stdout failed, the error said on stderr."""
    if err.gone:
        return EXIT_FAILED
    say(f"error: cannot write {what}: {err}")
    return EXIT_BAD_INPUT


class SafeArgumentParser(argparse.ArgumentParser):
    """argparse, its help written as `emit` writes (a failing stdout is an error, not
    ignored) and its errors as `say` says them (an argument is echoed in an error)."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if not message:
            return
        if file is None or file is sys.stdout:
            emit(message)
        else:
            say(message.removesuffix("\n"))
