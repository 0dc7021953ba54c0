"""Fault injection for the runtime's file operations: the k-th I/O call fails.

`faults(k, onward)` makes call number k of the I/O functions `spellbook.disk.store` calls
on `os` fail with EIO (with `onward`, every later call too); `tree(root)` is what a
workspace holds, to compare before and after a cast that failed.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import spellbook.disk.store

FAULTY_CALLS = ("open", "write", "fsync", "replace", "rename", "mkdir", "link", "unlink")
# A temporary file of an atomic write (`.state.json.<pid>.<random>`) that a failed
# or killed write left behind: a copy, never the only copy of anything.
TEMPORARY = re.compile(r"\.[^/]+\.\d+\.[0-9a-f]{8}$")


class FaultyOS:
    """`os` for spellbook.disk.store, with call number `k` (and with `onward`, every later
    call) of the I/O functions failing with EIO."""

    def __init__(self, k: int, onward: bool) -> None:
        self.k = k
        self.onward = onward
        self.calls = 0
        self.failed = 0

    def __getattr__(self, name: str) -> Any:
        real = getattr(os, name)
        if name not in FAULTY_CALLS:
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls == self.k or (self.onward and self.calls > self.k):
                self.failed += 1
                raise OSError(errno.EIO, f"injected failure of os.{name} (call {self.calls})")
            if name == "fsync":
                # Counted, and failed when its turn comes, as any other call; one that
                # succeeds flushes nothing to the disk: what it makes durable is kept
                # through a power cut, which no test here makes, and a flush is most of
                # the time a faulty cast takes.
                return None
            return real(*args, **kwargs)

        return call


@contextmanager
def faults(k: int, onward: bool) -> Iterator[FaultyOS]:
    faulty = FaultyOS(k, onward)
    real: ModuleType = spellbook.disk.store.os
    spellbook.disk.store.os = faulty  # type: ignore[assignment]
    try:
        yield faulty
    finally:
        spellbook.disk.store.os = real


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` but the state file, the lock and leftover temporaries,
    with digits in names masked (archive and trash folders are named by the time, and
    get a `-2` when a cast in the same second took the name: a cast a second later does
    not)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.name in ("state.json", ".state.lock"):
            continue
        if TEMPORARY.search(path.name):
            continue
        found[re.sub(r"\d+(?:-\d+)*", "#", str(path.relative_to(root)))] = path.read_bytes()
    return found
