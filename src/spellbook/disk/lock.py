"""An exclusive lock on the workspace folder, held for the length of a cast.

The lock is taken on the folder itself (`flock` on its descriptor), so deleting a
file cannot undo it. Where folders cannot be locked (Windows, some network
filesystems) it is taken on the lock file beside the state instead, and a caster
that finds the file it locked deleted or replaced locks the new one; a file deleted
while a cast holds it still lets a second cast in there.

This is the one thing `filelock` would do for us here, with `fcntl.flock` on
POSIX and `msvcrt.locking` on Windows, as `filelock` itself does. Importing
`filelock` costs 9 to 25 ms (4.2 imports `typing`, `secrets`, `pathlib`,
`dataclasses`, `decimal` and `platform`), more than the whole budget for
starting `spell`: with it, a cold `spell lumos` measured 1.70x
`import transitions` against 1.08x with this lock (target 1.25x).
"""

from __future__ import annotations

import os
import sys
import time

from spellbook.records.errors import LockTimeout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


# Tests set this to False to show that their checks fail without the lock.
ENABLED = True


def _folder_lock(folder: str, fd: int | None = None) -> tuple[int, bool] | None:
    """A descriptor of `folder` (`fd`, if it is open already) that can be locked, and
    whether it is locked already (taken at once); None where folders cannot be locked
    (Windows; NFS, where flock becomes a lock that needs a file open for writing)."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return None
    if fd is None:
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(folder, flags)
    if not ENABLED:
        return fd, True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return fd, False  # another cast holds it: it can be locked, once that one is done
    except OSError:
        os.close(fd)
        return None
    return fd, True


def still_there(fd: int, path: str, follow: bool = True) -> bool:
    """Whether the file or folder open as `fd` is still the one at `path` (with
    `follow=False`, at `path` itself, not where a link there points)."""
    try:
        at_path = os.stat(path, follow_symlinks=follow)
    except OSError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (at_path.st_dev, at_path.st_ino)


class Lock:
    """`with Lock(path):` waits up to `timeout` seconds for the lock file."""

    def __init__(self, path: str, timeout: float = 30.0) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None
        self.folder: int | None = None  # while held: the locked folder's descriptor, if any
        self.waited = False  # while held: whether another held it first

    def _opened(self) -> int | None:
        """The lock file's folder, opened already (taken over by the lock), or None."""
        return None

    def __enter__(self) -> Lock:
        deadline = time.monotonic() + self.timeout
        self.waited = False
        folder = _folder_lock(os.path.dirname(self.path), self._opened())
        if folder is not None:
            fd, locked = folder
            self.waited = not locked
            self._fd = self.folder = fd if locked else self._wait(lambda: fd, deadline)
            return self
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        while True:
            fd = self._wait(lambda: os.open(self.path, flags, 0o644), deadline)
            if not ENABLED or still_there(fd, self.path):
                break
            # The file was deleted (or replaced) while we waited: a lock on it guards
            # nothing, since the next caster makes a new file. Lock the one there now.
            os.close(fd)
        self._fd = fd
        return self

    def _wait(self, opened: Callable[[], int], deadline: float) -> int:
        """The descriptor `opened()` gives, once it is locked."""
        fd = opened()
        delay = 0.001
        while ENABLED and not _try_lock(fd):
            self.waited = True
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LockTimeout(
                    f"another cast has held {self.path} for over {self.timeout:.0f} s; "
                    "try again when it finishes"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return fd

    def __exit__(self, *exc: object) -> None:
        fd, self._fd, self.folder = self._fd, None, None
        if fd is not None:
            if ENABLED:
                _unlock(fd)
            os.close(fd)
