"""The workspace folder on disk: safe paths, exclusive creation, atomic replacement.

Every path the runtime touches is a relative path inside the workspace folder
(`.ai/task/` for the spell workflow), checked before use: no absolute paths, no
`..`, and no symbolic link anywhere from the repository root down. Files are
created whole and exclusively (written to a temporary, then linked in under
their name, which fails if the name is taken: an existing file is never
overwritten) and replaced only atomically: a temporary file in the same folder,
written and synced, then `os.replace`, then the folder synced.

What a stretch of reading sees can be noted (`observe`, a `Looks`) and checked
later (`unchanged`): every path looked at, with what was there, and every folder
asked whether it can be written. A workflow uses this to tell what each spell
would do without working it out again while the files are as they were.
"""

from __future__ import annotations

import errno
import os
import stat
import time

from spellbook.disk.lock import still_there
from spellbook.records.errors import BadFile, UnsafePath

# The most of a workspace file the runtime reads, for a guard, a loaded file or an update:
# a larger file stops the cast (it is never taken for an empty one).
READ_LIMIT = 1_000_000

# The most names a glob looks at, and the deepest folder it enters (`Workspace.glob`):
# past either, the cast stops with an error rather than answer from part of the folder.
GLOB_LIMIT = 10_000
GLOB_DEPTH = 32

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


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


def _above(rel: str) -> str:
    """The folder `rel` is in, as `Workspace.check` takes it (`/` for the repository's
    top)."""
    folder = rel.rpartition("/")[0]
    return folder or ("/" if is_repository(rel) else "")


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


class Workspace:
    """The workspace folder `folder` (relative, e.g. `.ai/task`) of the repository `root`."""

    def __init__(self, root: str, folder: str, durable: bool = True) -> None:
        self.root = os.path.abspath(root)
        self.folder = folder.strip("/")
        if folder and path_problem(folder.rstrip("/")):
            # Whatever a machine's module says: its workspace is a folder in the repository.
            raise UnsafePath(f"the workspace {folder!r} is not a folder inside the repository")
        self.base = os.path.join(self.root, self.folder) if self.folder else self.root
        # Sync files and folders to the disk before a write counts as done. Off only
        # for benchmarks of the rest of the work; a crash may then lose the last casts.
        self.durable = durable
        self._verified: set[str] = set()
        # In this cast: the regular files read or written (not links, so `replace`
        # need not ask again), and the folders written in (so writable).
        self._files: set[str] = set()
        self._written: set[str] = set()
        self._paths: dict[str, str] = {}  # rel -> its checked absolute path
        self._chains: dict[str, tuple[str, ...]] = {}  # rel -> the paths from the root down
        self._held: set[str] | None = None  # folders to sync at the end of a batch
        self._looks: Looks | None = None  # what is being looked at, while `observe`d
        # A descriptor of the workspace folder that its holder keeps open (the lock's):
        # the folder is synced through it, rather than opened again each time.
        self.held: int | None = None

    def fresh(self) -> None:
        """Start a cast: folders are checked for symbolic links again, once each."""
        self._verified.clear()
        self._files.clear()
        self._written.clear()

    # -- noting what is looked at --

    def observe(self) -> Looks:
        """From now until `unobserve`, note every path looked at and what was there, and
        every folder asked whether it can be written (only reading is expected). Folders
        checked earlier in the cast are looked at again, so that they are noted too."""
        self._verified.clear()
        looks = self._looks = Looks()
        return looks

    def unobserve(self) -> None:
        self._looks = None

    def unchanged(self, looks: Looks) -> bool:
        """Whether every path `looks` noted is as it was then, and every folder it asked
        about as writable: a folder's names listed once where several were missing."""
        present, missing = looks.checks()
        for path, seen, is_folder in present:
            if is_folder and path in self._verified:
                continue  # checked a folder in this cast; whether it is writable is below
            try:
                if _identity(os.lstat(path)) != seen:
                    return False
            except OSError:
                return False
        for folder, names, folded in missing:
            if len(names) == 1:
                try:
                    os.lstat(os.path.join(folder, names[0]))
                except (FileNotFoundError, NotADirectoryError):
                    continue
                return False  # there now, or it cannot be told
            try:
                there = os.listdir(folder)
            except (FileNotFoundError, NotADirectoryError):
                continue  # no folder: none of its names is there
            except OSError:
                return False
            # Compared without case: where the filesystem ignores it, `Plan.md` is plan.md.
            if any(name.casefold() in folded for name in there):
                return False
        return all(
            (writable and folder in self._written)  # a file was just written there
            or os.access(folder, os.W_OK | os.X_OK) == writable
            for folder, writable in looks.writable.items()
        )

    def _lstat(self, path: str) -> os.stat_result:
        """`os.lstat`, noted while observed."""
        looks = self._looks
        if looks is None:
            return os.lstat(path)
        try:
            info = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            looks.saw(path, None)
            raise
        except OSError:
            looks.settled = False
            raise
        looks.saw(path, _identity(info))
        return info

    def _writable(self, folder: str) -> bool:
        writable = os.access(folder, os.W_OK | os.X_OK)
        if self._looks is not None:
            self._looks.writable[folder] = writable
        return writable

    def is_base(self, fd: int) -> bool:
        """Whether the workspace folder is still the folder open as `fd` (not moved away,
        nor a link or another folder put in its place); if so, it is checked. The
        repository folder itself may be reached through a link."""
        if not still_there(fd, self.base, follow=not self.folder):
            return False
        self._verified.add(self.base)
        return True

    # -- paths --

    def path(self, rel: str, reading: bool = False) -> str:
        """The absolute path of `rel`, after checking it names something inside the folder;
        `reading`, also a repository file (`/tests/a.py`, from the repository's top), which
        is only ever read."""
        repository = is_repository(rel)
        if repository and not reading:
            raise UnsafePath(
                f"{rel!r} is a file of the repository outside {self.folder or 'it'}/, which "
                "Spellbook only reads: actions change files of the workspace folder"
            )
        known = self._paths.get(rel)
        if known is not None:
            return known
        inner = rel[1:] if repository else rel
        problem = path_problem(inner)
        if problem == "outside":
            where = "the repository" if repository else self.folder or "the repository"
            raise UnsafePath(f"{rel!r} is not a path inside {where}/")
        if problem:
            raise UnsafePath(f"{rel!r} is in a .git folder, which Spellbook never touches")
        base = self.root if repository else self.base
        path = self._paths[rel] = os.path.join(base, *inner.replace("\\", "/").split("/"))
        return path

    def shown(self, rel: str = "") -> str:
        """How a path is named to the developer: relative to the repository root."""
        if is_repository(rel):
            return rel[1:]
        return "/".join(p for p in (self.folder, rel) if p)

    def _chain(self, rel: str) -> tuple[str, ...]:
        """Each path from the root down to `rel`, the workspace folder first (a repository
        path's from the root, `is_repository`)."""
        chain = self._chains.get(rel)
        if chain is None:
            top = [] if is_repository(rel) else [p for p in self.folder.split("/") if p]
            parts = top + [p for p in rel.split("/") if p]
            links = []
            current = self.root
            for part in parts:
                current = os.path.join(current, part)
                links.append(current)
            chain = self._chains[rel] = tuple(links)
        return chain

    def _unverified(self, rel: str) -> list[str]:
        """Each path from the root down to `rel` less those already checked in this cast."""
        return [path for path in self._chain(rel) if path not in self._verified]

    def check(self, rel: str = "") -> None:
        """Refuse a symbolic link anywhere from the root to `rel`'s folder (or to `rel`)."""
        self._check(self._chain(rel))

    def _check(self, chain: tuple[str, ...]) -> None:
        verified = self._verified
        for current in chain:
            if current in verified:
                continue
            try:
                mode = self._lstat(current).st_mode
            except (FileNotFoundError, NotADirectoryError):
                return
            if stat.S_ISLNK(mode):
                shown = os.path.relpath(current, self.root)
                raise UnsafePath(f"{shown} is a symbolic link; refusing to follow it")
            if stat.S_ISDIR(mode):
                verified.add(current)

    def opened(self) -> int | None:
        """The workspace folder, made if missing, opened for reading (a descriptor the
        caller closes), refusing symbolic links; None where a folder cannot be opened
        (Windows), once it is made. Opening it without following a link stands for
        checking it: the folders above it are checked first."""
        if not (_DIRECTORY and _NOFOLLOW):  # pragma: no cover - exercised on Windows only
            self.ensure()
            return None
        chain = self._chain("")
        self._check(chain[:-1])
        # The repository folder itself (the workspace of a machine whose files lie at
        # the top) may be reached through a link, as the path it was given says.
        flags = os.O_RDONLY | _DIRECTORY | (_NOFOLLOW if chain else 0)
        try:
            fd = os.open(self.base, flags)
        except OSError:
            self.ensure()  # made, or what is wrong with it said (a link, a file)
            fd = os.open(self.base, flags)
        self._verified.add(self.base)
        return fd

    def ensure(self, rel: str = "") -> str:
        """Make the folder `rel` (and the workspace folder), refusing symbolic links.
        Making a folder that is already there is not an error."""
        self.check(rel)
        chain = self._chain(rel)
        # Checked from the top down, a folder is there if the one at the bottom is.
        if chain and chain[-1] in self._verified:
            return chain[-1]
        missing = self._unverified(rel)
        # The repository folder is there if a folder below it is.
        if (missing or not chain) and self.root not in self._verified:
            if not os.path.isdir(self.root):
                raise BadFile(f"the repository folder {self.root} does not exist")
            self._verified.add(self.root)
        for current in missing:
            try:
                os.mkdir(current, 0o755)
            except FileExistsError:
                if not stat.S_ISDIR(os.lstat(current).st_mode):
                    raise UnsafePath(
                        f"{os.path.relpath(current, self.root)} is not a folder"
                    ) from None
            else:
                self._sync_folder(os.path.dirname(current))
            self._verified.add(current)
        return chain[-1] if chain else self.root

    # -- reading --

    def exists(self, rel: str) -> bool:
        """Whether something is at `rel`. A symbolic link on the way to it is refused
        (UnsafePath), as for reading: a file outside the workspace is never said to be in
        it (and a glob, which enters no link, agrees)."""
        path = self.path(rel, reading=True)
        if "/" in rel:
            self.check(_above(rel))
        if self._looks is None:
            return os.path.lexists(path)
        try:
            self._lstat(path)
        except OSError:
            return False
        return True

    def read_bytes(self, rel: str, limit: int) -> bytes | None:
        """The file's bytes, or None if it does not exist.

        Only a regular file is read: a symbolic link is refused (UnsafePath), and a
        folder, FIFO, socket or device, or a file larger than `limit`, is a BadFile
        naming it; a FIFO is never opened, so nothing waits on it. A file that cannot
        be read (no permission, a disk error) is an OSError naming it.
        """
        try:
            data = self._read_bytes(rel, limit)
        except BaseException:
            if self._looks is not None:
                self._looks.settled = False  # a file that could not be read: ask again
            raise
        if data is not None and self._looks is not None:
            self._looks.read(self.path(rel, reading=True))
        return data

    def _read_bytes(self, rel: str, limit: int) -> bytes | None:
        path = self.path(rel, reading=True)
        self.check(_above(rel))  # the folders; the file itself is looked at here
        try:
            mode = self._lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            raise _unreadable(err, self.shown(rel)) from None
        if stat.S_ISLNK(mode):
            raise UnsafePath(f"{self.shown(rel)} is a symbolic link; not reading it")
        if not stat.S_ISREG(mode):
            raise BadFile(f"{self.shown(rel)} is {kind_of(mode)}, not a file; move it away")
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise UnsafePath(f"{self.shown(rel)} is a symbolic link; not reading it") from None
            raise _unreadable(err, self.shown(rel)) from None
        try:
            info = os.fstat(fd)
            if self._looks is not None:
                self._looks.saw(path, _identity(info))  # the file read is the one looked at
            if not stat.S_ISREG(info.st_mode):  # swapped in since the lstat
                raise BadFile(f"{self.shown(rel)} is {kind_of(info.st_mode)}, not a file")
            self._files.add(path)
            size = info.st_size
            if size > limit:
                raise TooLarge(self.shown(rel), size, limit)
            # Read what fstat said is there and one byte more; read on (up to the limit)
            # if that came back short or grew, until the end.
            try:
                data = os.read(fd, size + 1)
                while len(data) != size and len(data) <= limit:  # short, or grown since
                    more = os.read(fd, max(size, 65536))
                    if not more:
                        break
                    data += more
            except OSError as err:
                raise _unreadable(err, self.shown(rel)) from None
            if len(data) > limit:
                raise TooLarge(self.shown(rel), len(data), limit)
            return data
        finally:
            os.close(fd)

    def read_text(self, rel: str, limit: int) -> str | None:
        data = self.read_bytes(rel, limit)
        return None if data is None else data.decode("utf-8", "replace")

    def mtime(self, rel: str) -> int | None:
        """When the file was last modified (ns), or None if it does not exist. As for
        reading, a symbolic link is refused (UnsafePath), and anything but a regular file
        is a BadFile naming it."""
        info = self._file(rel, "reading")
        return None if info is None else info.st_mtime_ns

    def is_file(self, rel: str, doing: str = "reading") -> bool:
        """Whether a regular file is at `rel` (False if nothing is); a symbolic link is
        refused (UnsafePath: not `doing` it), and anything else but a regular file (a
        folder, a FIFO) is a BadFile naming it. A cast plans a move only of a file that
        this says is one, so that the move cannot fail once the cast has committed."""
        return self._file(rel, doing) is not None

    def _file(self, rel: str, doing: str) -> os.stat_result | None:
        path = self.path(rel, reading=doing == "reading")
        self.check(_above(rel))
        try:
            info = self._lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            raise _unreadable(err, self.shown(rel)) from None
        if stat.S_ISLNK(info.st_mode):
            raise UnsafePath(f"{self.shown(rel)} is a symbolic link; not {doing} it")
        if not stat.S_ISREG(info.st_mode):
            raise BadFile(f"{self.shown(rel)} is {kind_of(info.st_mode)}, not a file; move it away")
        return info

    def glob(self, pattern: str, limit: int = GLOB_LIMIT) -> list[str]:
        """The paths in the workspace folder that `pattern` names (`probes.glob_path`:
        `glob_name` part by part, `**` for any folders not starting with `.`), sorted. A
        name is looked up, not listed, where the pattern's part has no wildcard. No
        symbolic link is entered (one whose own name matches the last part counts, as
        for `exists`). Looking at more than `limit` names, or going more than GLOB_DEPTH
        folders deep, is a BadFile: no answer from part of the folder. What the folders
        list is not noted while observed (`observe`), so what was told then is not
        kept."""
        repository = is_repository(pattern)
        inner = pattern[1:] if repository else pattern
        parts = inner.split("/")
        if (
            inner.startswith(("/", "~"))
            or "\\" in pattern
            or "\0" in pattern
            or any(p in ("", ".", "..") for p in parts)
            or any(is_git(p) for p in parts)
        ):
            where = "the repository" if repository else self.folder or "the repository"
            raise UnsafePath(f"{pattern!r} is not a pattern inside {where}/")
        if self._looks is not None:
            self._looks.settled = False
        # The repository folder itself may be reached through a link, as it was given.
        base, follow = (self.root, True) if repository else (self.base, not self.folder)
        self.check("/" if repository else "")
        by_fd = bool(_DIRECTORY and _NOFOLLOW) and os.scandir in os.supports_fd
        try:
            top: int | str = (
                os.open(base, os.O_RDONLY | _DIRECTORY | (0 if follow else _NOFOLLOW))
                if by_fd
                else base
            )
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as err:
            raise _unreadable(err, self.shown()) from None
        walk = _Glob(self, pattern, limit)
        try:
            walk.into(top, "/" if repository else "", parts, 0)
        finally:
            if isinstance(top, int):
                os.close(top)
        return sorted(walk.found)

    # -- writing --

    def unwritable(self, rel: str) -> str | None:
        """Why `rel` could not be made, replaced or moved away, or None: its path too
        long, or the nearest folder above it that exists not a folder or not writable."""
        path = self.path(rel)
        longest = max(len(os.fsencode(p)) for p in rel.split("/"))
        if len(os.fsencode(path)) >= _limit("PC_PATH_MAX", 4096) or longest > _limit(
            "PC_NAME_MAX", 255
        ):
            return f"{self.shown(rel)} would be a path longer than this system allows"
        current = os.path.dirname(path)
        while len(current) >= len(self.root):
            try:
                mode = self._lstat(current).st_mode
            except (FileNotFoundError, NotADirectoryError):
                current = os.path.dirname(current)
                continue
            if not stat.S_ISDIR(mode):
                return f"{os.path.relpath(current, self.root)} is a file where a folder is needed"
            if not self._writable(current):
                return f"{os.path.relpath(current, self.root)}/ is not writable"
            return None
        return None

    def create(self, rel: str, text: str) -> bool:
        """Write a new file; False (and nothing written) if something is already there.

        The text is written to a temporary file first and linked in under its name,
        so the name never holds part of the text, and an existing file is never
        replaced (`link` fails where the name is taken)."""
        folder = self.ensure(os.path.dirname(rel))
        target = self.path(rel)
        if os.path.lexists(target):
            return False
        tmp = self._temporary(folder, rel, text.encode("utf-8"))
        try:
            os.link(tmp, target)  # the temporary is a file we just made, never a link
        except FileExistsError:
            return False
        except OSError as err:
            if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK):
                raise
            # A filesystem without hard links: a rename, which would replace a file
            # made since the check above by something other than a cast (casts wait
            # for the workspace's lock).
            if os.path.lexists(target):
                return False
            os.rename(tmp, target)
        finally:
            if os.path.lexists(tmp):
                os.unlink(tmp)
        self._sync_folder(folder)
        return True

    def _temporary(self, folder: str, rel: str, data: bytes) -> str:
        """A new temporary file in `folder` holding `data`, synced; its path."""
        tmp = os.path.join(folder, f".{os.path.basename(rel)}.{_temporary_name()}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
        except OSError as err:  # named by the file being written, not the temporary
            raise OSError(err.errno, f"cannot write {self.shown(rel)}: {err.strerror}") from None
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            self._sync(fd)
        except OSError as err:  # a full disk, say: named by the file the user knows
            os.close(fd)
            os.unlink(tmp)
            raise OSError(err.errno, f"cannot write {self.shown(rel)}: {err.strerror}") from None
        except BaseException:
            os.close(fd)
            os.unlink(tmp)
            raise
        os.close(fd)
        return tmp

    def replace(self, rel: str, data: bytes) -> None:
        """Atomically make `rel` hold `data`: a reader sees the old file or the new one."""
        folder = self.ensure(os.path.dirname(rel))
        target = self.path(rel)
        # A file read or written in this cast was no link then. Were one put there
        # since, `os.replace` would replace the link itself, never where it points.
        if target not in self._files and os.path.islink(target):
            raise UnsafePath(f"{self.shown(rel)} is a symbolic link; not replacing it")
        tmp = self._temporary(folder, rel, data)
        try:
            os.replace(tmp, target)
        except BaseException:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            raise
        self._files.add(target)
        self._written.add(folder)
        self._sync_folder(folder)

    def remove(self, rel: str) -> None:
        """Delete a file the runtime itself wrote (not a developer's: those go to the trash).
        Not made durable: callers only remove what may harmlessly come back."""
        self.check(rel)
        self._files.discard(self.path(rel))
        try:
            os.unlink(self.path(rel))
        except FileNotFoundError:
            return

    def hold_syncs(self) -> None:
        """Until `release_syncs`, note the folders that need syncing instead of syncing
        each after every change: one sync per folder for a batch of changes."""
        self._held = set()

    def release_syncs(self) -> None:
        """Sync each folder changed since `hold_syncs`, once."""
        held, self._held = self._held, None
        for folder in sorted(held or ()) if self.durable else ():
            self._sync_now(folder)

    def move(self, src: str, dest: str) -> None:
        """Move a file to a path where nothing is; never overwrites."""
        self.check(src)
        self.ensure(os.path.dirname(dest))
        target = self.path(dest)
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "not overwriting", self.shown(dest))
        os.rename(self.path(src), target)
        self._verified.discard(self.path(src))
        self._files.discard(self.path(src))
        self._sync_folder(os.path.dirname(target))
        self._sync_folder(os.path.dirname(self.path(src)))

    def _sync(self, fd: int) -> None:
        if self.durable:
            os.fsync(fd)

    def _sync_folder(self, folder: str) -> None:
        if self._held is not None:
            self._held.add(folder)
        elif self.durable:
            self._sync_now(folder)

    def _sync_now(self, folder: str) -> None:
        if self.held is not None and folder == self.base:
            try:
                os.fsync(self.held)
            except OSError:
                return  # as `_sync_folder`: a folder that cannot sync
        else:
            _sync_folder(folder)


class _Glob:
    """One `Workspace.glob`: the names each folder lists (read once), how many so far,
    and the paths found. A folder is an open descriptor where the system has them (no
    link can be swapped in on the way down), else a path (Windows)."""

    def __init__(self, workspace: Workspace, pattern: str, limit: int) -> None:
        self.workspace = workspace
        self.pattern = pattern
        self.limit = limit
        self.seen = 0
        self.found: set[str] = set()
        self.where = (
            "the repository" if is_repository(pattern) else workspace.shown() or "the repository"
        )
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
                raise _unreadable(err, self.workspace.shown(rel + name)) from None
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
            raise _unreadable(err, self.workspace.shown(rel + name)) from None
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
                raise _unreadable(err, self.workspace.shown(rel[:-1] or rel)) from None
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


class Looks:
    """What a stretch of reading saw (see `Workspace.observe`): each path looked at and
    what was there (`_identity`; None for nothing), each folder asked whether it can be
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


def _identity(info: os.stat_result) -> tuple[int, ...]:
    """What tells a path's content from another's: for a folder, what it is and who may
    write it (its names are looked at one by one); for anything else, also its size
    and times, the change time last (a write or a rename changes it)."""
    kind = (info.st_mode, info.st_ino, info.st_dev, info.st_uid, info.st_gid)
    if stat.S_ISDIR(info.st_mode):
        return kind
    return (*kind, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


class _Process:
    """This process's id and its supply of random bytes (`random_hex`), renewed in a
    child process (`os.fork`), so that no two processes share them."""

    pid = 0
    pool = b""

    @classmethod
    def renew(cls) -> None:
        cls.pid, cls.pool = os.getpid(), b""


_Process.renew()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_Process.renew)


def random_hex(size: int) -> str:
    """`size` random bytes, in hex: `os.urandom`, asked for many at a time."""
    if len(_Process.pool) < size:
        _Process.pool = os.urandom(max(size, 512))
    taken, _Process.pool = _Process.pool[:size], _Process.pool[size:]
    return taken.hex()


def _temporary_name() -> str:
    """This process's id and 4 random bytes: `PID.RANDOM`, no other temporary's name."""
    return f"{_Process.pid}.{random_hex(4)}"


def _unreadable(err: OSError, shown: str) -> OSError:
    """An error reading a file, named by the file as the developer knows it (not by a
    file descriptor or an absolute path): a disk or permission problem, not bad input."""
    return OSError(err.errno, f"cannot read {shown}: {err.strerror or err}")


_LIMITS: dict[str, int] = {}


def _limit(name: str, default: int) -> int:
    """The system's limit `name` (a path's length, a name's), asked once per process."""
    found = _LIMITS.get(name)
    if found is None:
        try:
            found = os.pathconf("/", name)
        except (OSError, ValueError, AttributeError):
            found = default
        _LIMITS[name] = found
    return found


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


def _sync_folder(folder: str) -> None:
    """Make a rename or a new name in `folder` durable (a no-op where folders cannot sync)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
