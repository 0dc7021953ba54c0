"""Paths and files as the workspace tells them apart: which relative path Spellbook may
touch (`path_problem`), git's own folder in any spelling (`is_git`), a path from the
repository's top, what a file is in words, and the errors of a file it cannot read."""

from __future__ import annotations

import os
import stat

from spellbook.records.errors import BadFile


def is_git(name: str) -> bool:
    """Whether a path's part names git's own folder, which runs what it holds (hooks,
    config), as git itself refuses such a name on any filesystem: `.git` in any case,
    with trailing dots or spaces (which Windows drops), with an NTFS stream after a colon
    (`.git::$INDEX_ALLOCATION`), as its NTFS short name `git~1`, or with characters
    macOS ignores in names (zero-width joiners, direction marks, U+FEFF) inside it."""
    if not name.isascii():
        name = "".join(c for c in name if c not in _IGNORED_BY_HFS)
    return name.partition(":")[0].rstrip(". ").lower() in (".git", "git~1")


# The code points HFS+ leaves out of a name when it compares names (git's is_hfs_dotgit).
_IGNORED_BY_HFS = frozenset(
    "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u206a\u206b\u206c\u206d\u206e\u206f\ufeff"
)


def is_repository(rel: str) -> bool:
    """Whether a fact's file is named from the repository's top (`/tests/a.py`), not from
    the workspace folder: such a file is only read, never written."""
    return rel.startswith("/")


def path_problem(path: str) -> str:
    """Why a relative path (`/` or `\\` between folders) names nothing Spellbook may touch
    inside its folder, or "": "outside" (empty, absolute, `~`, a drive, a NUL, an empty,
    `.` or `..` part) or ".git" (a part is git's own folder). One rule, which the
    compiler checks a spec's paths by and the runtime every path it opens."""
    parts = path.replace("\\", "/").split("/")
    if (
        not path
        or path.startswith(("/", "~"))
        or "\0" in path
        or (len(path) > 1 and path[1] == ":")
        or any(p in ("", ".", "..") for p in parts)
    ):
        return "outside"
    return ".git" if any(is_git(p) for p in parts) else ""


def kind_of(mode: int) -> str:
    """What a file of `mode` is, in words (a folder, a FIFO, ...; "a file" if regular)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class TooLarge(BadFile):
    """A file larger than the runtime will read."""

    def __init__(self, shown: str, size: int, limit: int) -> None:
        super().__init__(
            f"{shown} is {size / 1e6:.1f} MB; more than the {limit / 1e6:.0f} MB the runtime reads"
        )


def unreadable(err: OSError, shown: str) -> OSError:
    """An error reading a file, named by the file as the developer knows it (not by a
    file descriptor or an absolute path): a disk or permission problem, not bad input."""
    return OSError(err.errno, f"cannot read {shown}: {err.strerror or err}")


_LIMITS: dict[str, int] = {}


def limit(name: str, default: int) -> int:
    """The system's limit `name` (a path's length, a name's), asked once per process."""
    found = _LIMITS.get(name)
    if found is None:
        try:
            found = os.pathconf("/", name)
        except (OSError, ValueError, AttributeError):
            found = default
        _LIMITS[name] = found
    return found
