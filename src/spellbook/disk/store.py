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

from spellbook.disk import paths
from spellbook.disk.lock import still_there
from spellbook.disk.looks import Looks, identity
from spellbook.disk.paths import TooLarge, is_git, is_repository, kind_of, path_problem, unreadable
from spellbook.records.errors import BadFile, UnsafePath

# The most of a workspace file the runtime reads, for a guard, a loaded file or an update:
# a larger file stops the cast (it is never taken for an empty one).
READ_LIMIT = 1_000_000

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _above(rel: str) -> str:
    """The folder `rel` is in, as `Workspace.check` takes it (`/` for the repository's
    top)."""
    folder = rel.rpartition("/")[0]
    return folder or ("/" if is_repository(rel) else "")


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
                if identity(os.lstat(path)) != seen:
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
        looks.saw(path, identity(info))
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
            raise unreadable(err, self.shown(rel)) from None
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
            raise unreadable(err, self.shown(rel)) from None
        try:
            info = os.fstat(fd)
            if self._looks is not None:
                self._looks.saw(path, identity(info))  # the file read is the one looked at
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
                raise unreadable(err, self.shown(rel)) from None
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
            raise unreadable(err, self.shown(rel)) from None
        if stat.S_ISLNK(info.st_mode):
            raise UnsafePath(f"{self.shown(rel)} is a symbolic link; not {doing} it")
        if not stat.S_ISREG(info.st_mode):
            raise BadFile(f"{self.shown(rel)} is {kind_of(info.st_mode)}, not a file; move it away")
        return info

    def glob(self, pattern: str, limit: int | None = None) -> list[str]:
        """The paths in the workspace folder that `pattern` names (`probes.glob_path`:
        `glob_name` part by part, `**` for any folders not starting with `.`), sorted. A
        name is looked up, not listed, where the pattern's part has no wildcard. No
        symbolic link is entered (one whose own name matches the last part counts, as
        for `exists`). Looking at more than `limit` names (GLOB_LIMIT where none is
        given), or going more than GLOB_DEPTH folders deep, is a BadFile: no answer from
        part of the folder. What the folders list is not noted while observed
        (`observe`), so what was told then is not kept."""
        from spellbook.disk.walk import GLOB_LIMIT, Glob  # only a spec that globs

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
            raise unreadable(err, self.shown()) from None
        walk = Glob(self.shown, pattern, GLOB_LIMIT if limit is None else limit)
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
        if len(os.fsencode(path)) >= paths.limit("PC_PATH_MAX", 4096) or longest > paths.limit(
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

    def move(self, src: str, dest: str, keep: bool = False) -> bool:
        """Move a file to a path where nothing is; never overwrites. With `keep`, give it
        the second name `dest` (a hard link: a later `replace` of `src` leaves the old
        bytes there); False, and nothing done, where that cannot be (a link, no links)."""
        self.check(src)
        self.ensure(os.path.dirname(dest))
        target = self.path(dest)
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "not overwriting", self.shown(dest))
        if keep:
            return not os.path.islink(self.path(src)) and self._linked(self.path(src), target)
        os.rename(self.path(src), target)
        self._verified.discard(self.path(src))
        self._files.discard(self.path(src))
        self._sync_folder(os.path.dirname(target))
        self._sync_folder(os.path.dirname(self.path(src)))
        return True

    def _linked(self, src: str, target: str) -> bool:
        try:
            os.link(src, target, follow_symlinks=False)
        except OSError as err:
            if err.errno in (
                errno.EPERM,
                errno.EOPNOTSUPP,
                errno.ENOSYS,
                errno.EMLINK,
                errno.EXDEV,
            ):
                return False
            raise
        self._sync_folder(os.path.dirname(target))
        return True

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
