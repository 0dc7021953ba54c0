"""What a stretch of reading saw in the workspace folder (`Workspace.observe`), to tell
later whether it is all as it was (`Workspace.unchanged`)."""

from __future__ import annotations

import os
import stat
import time


class Looks:
    """What a stretch of reading saw (see `Workspace.observe`): each path looked at and
    what was there (`identity`; None for nothing), each folder asked whether it can be
    written, and whether all of it can be checked later (`settled`)."""

    __slots__ = ("paths", "writable", "settled", "since", "_checks")

    # A file read whose last change is this recent may change again within the same
    # tick of the filesystem's clock, unseen by its times (FAT's tick is 2 s).
    RECENT_NS = 2_000_000_000

    def __init__(self) -> None:
        self.paths: dict[str, tuple[int, ...] | None] = {}
        self.writable: dict[str, bool] = {}
        self.settled = True  # False: something seen cannot be checked by looking again
        self.since = time.time_ns()
        self._checks: _Checks | None = None

    def checks(self) -> _Checks:
        """What `Workspace.unchanged` looks at, once looking is over: each path that was
        there (its identity, and whether it is a folder), and each folder's names that
        were not (as named, and without case)."""
        if self._checks is None:
            present: list[tuple[str, tuple[int, ...], bool]] = []
            missing: dict[str, list[str]] = {}
            for path, seen in self.paths.items():
                if seen is None:
                    folder, _, name = path.rpartition(os.sep)
                    missing.setdefault(folder, []).append(name)
                else:
                    present.append((path, seen, stat.S_ISDIR(seen[0])))
            self._checks = (
                tuple(present),
                tuple(
                    (folder, tuple(names), frozenset(n.casefold() for n in names))
                    for folder, names in missing.items()
                ),
            )
        return self._checks

    def saw(self, path: str, identity: tuple[int, ...] | None) -> None:
        if self.paths.setdefault(path, identity) != identity:
            self.settled = False  # it changed while being looked at

    def read(self, path: str) -> None:
        """The file at `path` was read: its text is known by its identity only if it
        has not changed too recently."""
        seen = self.paths.get(path)
        if seen is None or max(seen[-2:]) >= self.since - self.RECENT_NS:
            self.settled = False


_Checks = tuple[
    tuple[tuple[str, tuple[int, ...], bool], ...],
    tuple[tuple[str, tuple[str, ...], frozenset[str]], ...],
]


def identity(info: os.stat_result) -> tuple[int, ...]:
    """What tells a path's content from another's: for a folder, what it is and who may
    write it (its names are looked at one by one); for anything else, also its size
    and times, the change time last (a write or a rename changes it)."""
    kind = (info.st_mode, info.st_ino, info.st_dev, info.st_uid, info.st_gid)
    if stat.S_ISDIR(info.st_mode):
        return kind
    return (*kind, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
