"""Commands a guard asks about (`passes`): which one, running it, and its record.

The command is the environment variable `SPELLBOOK_<KEY>` if it is set, else the
text under the key in the JSON file; run by a cast in the repository root, at
most once per cast, outside the workspace's lock (`run`). Guards never run one:
previews ("what would each spell do now") say it depends, and a judge of a move
made by hand uses the run the state file records, if the repository's files are
as they were then (`repository_digest`).
"""

from __future__ import annotations

import os
import re
import time

from spellbook.disk.store import Workspace
from spellbook.records.errors import ActionError, Stopped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class JsonFiles(Protocol):
        """The workspace's JSON files, each read once (`spellbook.facts.answers.Facts`)."""

        workspace: Workspace

        def json(self, name: str) -> object: ...

        def exists(self, name: str) -> bool: ...


COMMAND_TIMEOUT = 3600
COMMAND_ENV = "SPELLBOOK_"
OUTPUT_LINES = 20
OUTPUT_BYTES = 65_536
GRACE = 1.0  # seconds a command's leftover processes may keep its output open
DIGEST_FILES = 200_000


class Run:
    """What running a command gave: its exit status (negative: killed by that signal; -1
    also when it timed out), the tail of its output, how long it took, and a digest of
    the repository's files just after it ran (`repository_digest`; the state file keeps
    it as `fingerprint`)."""

    def __init__(
        self,
        key: str,
        command: str,
        status: int,
        output: str,
        seconds: float = 0.0,
        digest: str = "",
    ) -> None:
        self.key = key
        self.command = command
        self.status = status
        self.output = output
        self.seconds = seconds
        self.digest = digest

    @property
    def overridden(self) -> str:
        """The environment variable the command came from ("" if the file's own)."""
        env = COMMAND_ENV + self.key.upper()
        return env if os.environ.get(env) == self.command else ""

    def recorded(self) -> dict[str, object]:
        """How the state file keeps it (`runs.<key>`), for a later judge of the state;
        a command from the environment says so (`"from"`), as its note does."""
        kept: dict[str, object] = {
            "command": self.command,
            "status": self.status,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "seconds": round(self.seconds, 1),
            "fingerprint": self.digest,
        }
        if self.overridden:
            kept["from"] = self.overridden
        return kept

    def note(self) -> str:
        """The run, for the notes of the cast's response: the command, how long, the
        verdict, and its output in a fence its own backticks cannot close."""
        verdict = "passed" if self.status == 0 else f"failed (exit status {self.status})"
        source = f"from {self.overridden}, " if self.overridden else ""
        said = (
            f"ran {self.key.replace('_', ' ')} `{self.command}` ({source}{self.seconds:.1f} s): "
            f"{verdict}"
        )
        if not self.output.strip():
            return said
        longest = max((len(t) for t in re.findall("`+", self.output)), default=0)
        fence = "`" * max(3, 1 + longest)
        return f"{said}\n\n{fence}text\n{self.output.rstrip()}\n{fence}"


def command(facts: JsonFiles, file: str, key: str) -> str:
    """The command under `key`: SPELLBOOK_<KEY> if set, else the JSON file's `key`."""
    env = COMMAND_ENV + key.upper()
    found = os.environ.get(env)
    if not found:
        value = facts.json(file)
        found = value.get(key) if isinstance(value, dict) else None
    if not isinstance(found, str) or not found.strip():
        shown = facts.workspace.shown(file)
        if not found and not facts.exists(file):
            raise ActionError(f"{shown} is missing, and {env} is not set: no {key} to run")
        raise ActionError(f"no {key}: set {key} in {shown} or {env}")
    return found


def run(key: str, text: str, root: str, skip: str, timeout: float | None = None) -> Run:
    """Run `text` through the shell in `root`, in a process group of its own.

    Its output (stdout and stderr) is kept to its last OUTPUT_LINES lines and at most
    OUTPUT_BYTES; when the timeout passes, or GRACE seconds after the shell exits
    while something it started still holds the output open, the whole group is
    killed, so nothing it started outlives it. The digest of the repository's
    files (`skip`, the workspace folder, left out) is taken when it has finished.
    """
    import contextlib
    import select
    import subprocess

    timeout = COMMAND_TIMEOUT if timeout is None else timeout
    started = time.monotonic()
    deadline = started + timeout
    if "\0" in text:
        raise ActionError(f"the {key.replace('_', ' ')} holds a NUL character; it cannot run")
    signals = _Signals()  # set before the command starts: no moment without them
    try:
        proc = subprocess.Popen(
            text,
            shell=True,
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        _RUNNING.add(proc.pid)
    except BaseException:
        signals.restore()
        raise
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    tail = bytearray()
    ended: float | None = None
    timed_out = closed = False
    try:
        signals.started()
        while True:
            now = time.monotonic()
            if ended is None and proc.poll() is not None:
                ended = now
            if ended is not None and (closed or now - ended > GRACE):
                break  # the shell is done; what it left running may hold the output
            if now > deadline:
                timed_out = True
                break
            if closed:  # nothing holds the output: wait for the shell alone
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=max(0.0, min(1.0, deadline - now)))
                continue
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                chunk = os.read(fd, 65_536)
                if not chunk:
                    closed = True  # everything that held the output has closed it
                    continue
                tail += chunk
                if len(tail) > 2 * OUTPUT_BYTES:
                    del tail[:-OUTPUT_BYTES]
    finally:
        _kill_group(proc.pid)  # the shell's group: whatever is left
        _RUNNING.discard(proc.pid)
        signals.restore()
        proc.wait()
        proc.stdout.close()
    from spellbook.records.terminal import text as safe_text

    # No terminal control (escape sequences) reaches the developer's terminal.
    said = safe_text(bytes(tail[-OUTPUT_BYTES:]).decode("utf-8", "replace"))
    lines = said.splitlines()[-OUTPUT_LINES:]
    output = "\n".join(lines)
    status = proc.returncode
    if timed_out:
        status = -1
        output += f"\n(timed out after {timeout:g} s; its processes were stopped)"
    seconds = time.monotonic() - started
    return Run(key, text, status, output, seconds, repository_digest(root, skip))


def _kill_group(pid: int) -> None:
    import contextlib
    import signal

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


# Signals that end `spell` while a command runs: the command's group dies with it.
_ENDING = ("SIGTERM", "SIGHUP")
# The process groups of the commands running now, in any thread.
_RUNNING: set[int] = set()


def stop_commands_on_signals() -> None:
    """For a server whose casts may run commands in other threads (`spell mcp`): on
    SIGTERM or SIGHUP, kill every running command's process group, then end as the
    signal would have ended the process. Call it from the main thread."""
    import signal

    def stop(signum: int, frame: object) -> None:
        for group in list(_RUNNING):
            _kill_group(group)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for name in _ENDING:
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, stop)


class _Signals:
    """Handlers for SIGTERM and SIGHUP while a command runs, that kill its process group
    and raise `Stopped`: the group is in a session of its own, so a signal to `spell`
    (or its terminal closing) would otherwise leave it running, without a time limit.
    Set before the command starts; a signal that comes before it is known (`started`)
    is held until then. Only the main thread can set handlers; elsewhere (a server's
    worker, see `stop_commands_on_signals`) the group is killed when the command ends."""

    def __init__(self) -> None:
        import signal
        import threading

        self.kept: dict[int, Any] = {}
        self.pending = 0
        self.starting = True
        if threading.current_thread() is not threading.main_thread():
            return
        for name in _ENDING:
            number = getattr(signal, name, None)
            if number is not None:
                self.kept[number] = signal.signal(number, self._stop)

    def _stop(self, signum: int, frame: object) -> None:
        for group in list(_RUNNING):
            _kill_group(group)
        if self.starting:
            self.pending = signum
            return
        raise Stopped(signum)

    def started(self) -> None:
        """The command's group is known: a signal held until now stops it."""
        self.starting = False
        if self.pending:
            raise Stopped(self.pending)

    def restore(self) -> None:
        import signal

        for number, handler in self.kept.items():
            signal.signal(number, handler)
        self.kept = {}


def repository_digest(workspace: Workspace | str, skip: str = "") -> str:
    """A digest of the repository's files (name, size, modification time), the workspace
    folder left out: where the root is in a git repository, git's tracked and
    untracked-but-not-ignored files, and the names of the files and folders it ignores
    (a folder once, its content not looked at: a `.gitignore` written to hide a new file
    changes the digest, as the file itself would), git run by `spellbook.disk.git`, which no
    file of the repository can make run a program; else every file outside hidden
    folders and `__pycache__`. Empty (matching nothing) where there are more than
    DIGEST_FILES files."""
    import hashlib

    if isinstance(workspace, Workspace):
        root, skip = workspace.root, workspace.folder
    else:
        root = workspace
    prefix = skip.strip("/") + "/" if skip else "\0"
    listed = _listed(root)
    names, ignored = listed if listed is not None else ([], [])
    if listed is None:
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = [d for d in subfolders if not d.startswith(".") and d != "__pycache__"]
            rel = os.path.relpath(folder, root)
            names += [f if rel == "." else f"{rel}/{f}".replace(os.sep, "/") for f in files]
            if len(names) > DIGEST_FILES:
                return ""
    if len(names) + len(ignored) > DIGEST_FILES:
        return ""
    digest = hashlib.sha256()
    for name in sorted(names):
        if name.startswith(prefix):
            continue
        try:
            info = os.lstat(os.path.join(root, name))
            said = f"{info.st_size}:{info.st_mtime_ns}"
        except OSError:
            said = "-"
        digest.update(f"{name}\0{said}\0".encode("utf-8", "surrogateescape"))
    for name in sorted(ignored):
        if not name.startswith(prefix):
            digest.update(f"{name}\0ignored\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:32]


def _listed(root: str) -> tuple[list[str], list[str]] | None:
    """The files under `root` that git tracks or would (not ignored), and the files and
    folders it ignores (a folder once), relative to `root`; None where `root` is in no
    git repository, is itself ignored by git, or git cannot say."""
    from spellbook.disk import git

    repository = git.find(root)
    below = repository.relative(root) if repository is not None else None
    if repository is None or below is None:
        return None
    inside = "" if below == "." else below + "/"
    if inside:  # a root git ignores (a folder above it ignored): git lists nothing of it
        try:
            repository.run("check-ignore", "-q", "--", inside)
            return None
        except git.GitError as err:
            if err.status != 1:  # 1: not ignored
                return None
    found: list[list[str]] = []
    for more in ((), ("--ignored", "--directory")):
        try:
            listed = repository.run(
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
                *more,
                "--",
                inside or ".",
            )
        except git.GitError:
            return None
        names = os.fsdecode(listed).split("\0")
        found.append([n[len(inside) :] for n in names if n and n.startswith(inside)])
    return found[0], found[1]
