"""A glob walked in the workspace folder (`Workspace.glob`): each folder listed once,
never through a link, and never more names or deeper folders than the limits."""

from __future__ import annotations

import errno
import os
import stat

from spellbook.disk.paths import is_git, is_repository, unreadable
from spellbook.records.errors import BadFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# The most names a glob looks at, and the deepest folder it enters (`Workspace.glob`):
# past either, the cast stops with an error rather than answer from part of the folder.
GLOB_LIMIT = 10_000
GLOB_DEPTH = 32
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class Glob:
    """One `Workspace.glob`: the names each folder lists (read once), how many so far,
    and the paths found. A folder is an open descriptor where the system has them (no
    link can be swapped in on the way down), else a path (Windows)."""

    def __init__(self, shown: Callable[..., str], pattern: str, limit: int) -> None:
        self.shown = shown  # a workspace path as the developer knows it (`Workspace.shown`)
        self.pattern = pattern
        self.limit = limit
        self.seen = 0
        self.found: set[str] = set()
        self.where = "the repository" if is_repository(pattern) else shown() or "the repository"
        self.listed: dict[str, list[tuple[str, bool]]] = {}
        # (folder, parts left) already looked into: `**/**/...` reaches one folder by
        # many ways, and each is looked into once (time in proportion to folders x parts).
        self.visited: set[tuple[str, int]] = set()

    def into(self, at: int | str, rel: str, parts: list[str], depth: int) -> None:
        """Find what `parts` name in the folder `at` (`rel` in the workspace folder)."""
        if not parts or (rel, len(parts)) in self.visited:
            return
        self.visited.add((rel, len(parts)))
        part, rest = parts[0], parts[1:]
        if part == "**":
            self.into(at, rel, rest, depth)
            for name, folder in self.names(at, rel):
                if folder and not name.startswith(".") and not is_git(name):
                    self.enter(at, rel, name, parts, depth)
            return
        if "*" in part or "?" in part:
            # Git's own folder is never looked into, nor named (`.*` at the top).
            names = [n for n, _ in self.names(at, rel) if glob_name(n, part) and not is_git(n)]
        else:
            names = [part]
        for name in names:
            try:
                mode = _lstat_at(at, name).st_mode
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as err:
                raise unreadable(err, self.shown(rel + name)) from None
            if not rest:
                self.found.add(rel + name)
            elif stat.S_ISDIR(mode):
                self.enter(at, rel, name, rest, depth)

    def enter(self, at: int | str, rel: str, name: str, parts: list[str], depth: int) -> None:
        if depth >= GLOB_DEPTH:
            raise BadFile(
                f"`{self.pattern}` goes more than {GLOB_DEPTH} folders deep in "
                f"{self.where}; name the folders to look in"
            )
        try:
            inner: int | str = (
                os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=at)
                if isinstance(at, int)
                else os.path.join(at, name)
            )
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as err:
            if err.errno == errno.ELOOP:  # a link put in its place since it was listed
                return
            raise unreadable(err, self.shown(rel + name)) from None
        try:
            self.into(inner, f"{rel}{name}/", parts, depth + 1)
        finally:
            if isinstance(inner, int):
                os.close(inner)

    def names(self, at: int | str, rel: str) -> list[tuple[str, bool]]:
        """The folder's names, each with whether it is a folder (not a link to one)."""
        found = self.listed.get(rel)
        if found is None:
            found = []
            try:
                with os.scandir(at) as entries:
                    for entry in entries:
                        self.seen += 1
                        if self.seen > self.limit:
                            raise BadFile(
                                f"`{self.pattern}` looks at more than {self.limit:,} names in "
                                f"{self.where}; name the "
                                "folders to look in"
                            )
                        found.append((entry.name, entry.is_dir(follow_symlinks=False)))
            except OSError as err:
                raise unreadable(err, self.shown(rel[:-1] or rel)) from None
            self.listed[rel] = found
        return found


def glob_name(name: str, part: str) -> bool:
    """Whether a name matches one part of a glob: `*` any characters, `?` one, the
    others themselves (case and all); a name starting with `.` only a part that does
    too, as a shell has it."""
    if name.startswith(".") and not part.startswith("."):
        return False
    from fnmatch import fnmatchcase  # compiles a pattern: only for globs

    return fnmatchcase(name, part.replace("[", "[[]"))  # no classes: `[` is itself


def _lstat_at(at: int | str, name: str) -> os.stat_result:
    if isinstance(at, int):
        return os.stat(name, dir_fd=at, follow_symlinks=False)
    return os.lstat(os.path.join(at, name))
