"""git, run only as Spellbook means it: against the repository a command was started in,
named explicitly, with every setting that names a program to run turned off.

A repository's content can make a folder look like a repository (`HEAD`, `config`,
`objects/`, `refs/` committed as plain files), and git, asked to find its repository
from such a folder, takes it for one and reads its `config`, whose keys name programs
(`core.fsmonitor`, `remote.origin.uploadpack` for a lazy fetch, `core.sshCommand`,
`diff.external`, textconv and filter drivers, `credential.helper`, `core.hooksPath`...).
So git is never left to find its repository: the repository is the nearest folder at
or above the one given that holds a `.git` (a folder, or a worktree's or submodule's
`gitdir:` file, which git itself writes and no commit can hold), and is passed with
`--git-dir` and `--work-tree`. Every setting that could run a program is overridden on
the command line, which wins over any configuration file, and no transport is allowed
(a lazy fetch of a partial clone is refused, not run).
"""

from __future__ import annotations

import os

from spellbook.records.errors import SpellbookError

TIMEOUT = 60  # seconds: one git command on one file, even from a slow network filesystem

# Settings that could make git run a program, each turned off. `-c` wins over every
# configuration file (system, global, the repository's, and what they include).
SAFE_CONFIG = (
    "core.fsmonitor=false",  # a hook program asked which files changed
    "core.hooksPath=/dev/null",  # hooks (pre-auto-gc, post-checkout, ...)
    "core.sshCommand=false",
    "core.gitProxy=",
    "core.askPass=",
    "core.pager=cat",
    "core.editor=false",
    "core.alternateRefsCommand=",
    "protocol.allow=never",  # no transport at all: no lazy fetch, so no uploadpack, ssh,
    # credential helper or proxy command; and each protocol's own, which a repository's
    # `protocol.file.allow=always` would otherwise set above it
    *(f"protocol.{name}.allow=never" for name in ("file", "ext", "ssh", "git", "http", "https")),
    "credential.helper=",
    "diff.external=",
    "gc.auto=0",
    "maintenance.auto=false",
    "uploadpack.packObjectsHook=",
)
# Environment variables that name a program or redirect git to another repository.
_UNSAFE_ENVIRONMENT = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_PROXY_COMMAND",
    "GIT_CONFIG",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_TRACE",
)


class GitError(SpellbookError):
    """git could not answer (no repository, git missing, an unknown revision...)."""

    def __init__(self, message: str, status: int = 0, said: str = "") -> None:
        super().__init__(message)
        self.status = status  # git's exit status (0: git did not run to its end)
        self.said = said  # what git said on stderr


class Repository:
    """A git repository, found from a folder without asking git to find it."""

    def __init__(self, git_dir: str, top: str) -> None:
        self.git_dir = git_dir  # its `.git` folder, or a worktree's `gitdir:` file
        self.top = top  # its work tree's top folder

    def run(self, *args: str, stdin: bytes | None = None) -> bytes:
        """What `git ARGS` prints, run against this repository only (GitError if it fails)."""
        import subprocess  # not for finding a repository: the hook finds one for every call

        command = ["git", "--no-pager", "--no-replace-objects", "--literal-pathspecs"]
        command += [f"--git-dir={self.git_dir}", f"--work-tree={self.top}"]
        for setting in SAFE_CONFIG:
            command += ["-c", setting]
        environment = {k: v for k, v in os.environ.items() if k not in _UNSAFE_ENVIRONMENT}
        environment.update(
            GIT_NO_LAZY_FETCH="1",  # git 2.44 and newer; protocol.allow=never before
            GIT_TERMINAL_PROMPT="0",
            GIT_OPTIONAL_LOCKS="0",  # reading never rewrites the index
            LC_ALL="C",
        )
        try:
            done = subprocess.run(
                [*command, *args],
                input=stdin,
                stdin=None if stdin is not None else subprocess.DEVNULL,
                capture_output=True,
                cwd=self.top,
                env=environment,
                timeout=TIMEOUT,
                check=False,
            )
        except FileNotFoundError:
            raise GitError("git is not installed") from None
        except subprocess.TimeoutExpired:
            raise GitError(f"git took over {TIMEOUT} s") from None
        except OSError as err:
            raise GitError(f"git could not be started ({err.strerror})") from None
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip()
            lines = said.splitlines()
            why = lines[0].removeprefix("fatal: ") if lines else f"git exited {done.returncode}"
            raise GitError(why, done.returncode, said)
        return done.stdout

    def commit(self, revision: str) -> str | None:
        """The commit `revision` names in this repository, or None if it names none;
        GitError where git cannot tell."""
        if not revision or revision.startswith("-") or "\0" in revision:
            return None
        try:
            found = self.run("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
        except GitError as err:
            if err.status == 1 and not err.said:  # --quiet: no such commit, said so
                return None
            raise  # git could not tell (not installed, a repository it refuses, ...)
        return found.decode("ascii", "replace").strip() or None

    def blob(self, commit: str, path: str, limit: int) -> bytes | None:
        """The bytes of `path` (relative to the top, `/`-separated) in `commit`, or None if
        that commit has no such file. GitError past `limit` bytes, or where git cannot
        read it (an object a partial clone would have to fetch: nothing is fetched)."""
        if "\0" in path:
            return None
        listed = self.run("ls-tree", "-z", "--full-tree", commit, "--", path)
        info, _, name = listed.split(b"\0")[0].decode("utf-8", "surrogateescape").partition("\t")
        fields = info.split()  # mode, type, object
        if len(fields) != 3 or name != path or fields[1] != "blob":
            return None
        if fields[0] == "120000":
            raise GitError("a symbolic link there, not a file")
        size = int(self.run("cat-file", "-s", fields[2]).decode("ascii", "replace").strip() or 0)
        if size > limit:
            raise GitError(f"larger than {limit // 1_000_000} MB")
        return self.run("cat-file", "blob", fields[2])

    def folders(self) -> list[str]:
        """Git's own folders for this repository: its `.git` (a folder, or a worktree's or
        submodule's `gitdir:` file), the folder that file names, and the common folder a
        worktree shares with its repository (its `commondir`)."""
        found = [self.git_dir]
        folder = self.git_dir
        if os.path.isfile(folder):
            named = gitdir_of(folder)
            if named is None:
                return found
            found.append(named)
            folder = named
        common = os.path.join(folder, "commondir")
        if os.path.isfile(common):  # never a FIFO, which would block the read
            try:
                with open(common, encoding="utf-8", errors="replace") as f:
                    found.append(os.path.join(folder, f.read(4096).strip()))
            except OSError:
                pass
        return found

    def relative(self, path: str, as_named: bool = False) -> str | None:
        """`path` relative to the top, `/`-separated; None if it is not inside it. With
        `as_named`, the file keeps its own name (only its folder's links are resolved):
        a link is a file of its own to git, never the file it points to."""
        if as_named:
            folder, name = os.path.split(os.path.abspath(path))
            full = os.path.join(os.path.realpath(folder), name)
        else:
            full = os.path.realpath(path)
        top = os.path.realpath(self.top)
        if os.path.commonpath([full, top]) != top:
            return None
        return os.path.relpath(full, top).replace(os.sep, "/")


def find(start: str) -> Repository | None:
    """The repository `start` is in: the nearest folder at or above it that holds a `.git`
    folder (not a link) or `gitdir:` file; None if there is none. A folder is never taken
    for a bare repository, whatever files it holds."""
    folder = os.path.abspath(start)
    while True:
        dot = os.path.join(folder, ".git")
        if os.path.isdir(dot) and not os.path.islink(dot):
            return Repository(dot, folder)
        if os.path.isfile(dot) and not os.path.islink(dot) and _gitfile(dot):
            return Repository(dot, folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _gitfile(path: str) -> bool:
    """Whether `path` is a `gitdir:` file naming a folder that exists."""
    named = gitdir_of(path)
    return named is not None and os.path.isdir(named)


def gitdir_of(path: str) -> str | None:
    """The folder the `gitdir:` file `path` names (a worktree's or a submodule's `.git`),
    relative to the file's folder as git reads it; None if `path` is not a regular file
    starting `gitdir:`."""
    if not os.path.isfile(path):  # never a FIFO, which would block the read
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    text = head.decode("utf-8", "replace").strip()
    if not text.startswith("gitdir:"):
        return None
    return os.path.join(os.path.dirname(path), text.removeprefix("gitdir:").strip())
