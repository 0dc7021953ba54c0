"""What can go wrong when casting, each with a message for the developer."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    _E = TypeVar("_E", bound=BaseException)


class SpellbookError(Exception):
    """Base of the runtime's errors; the message says what to do."""


def said(err: BaseException) -> str:
    """An error in a sentence: an OSError by its own words and the file it names."""
    if isinstance(err, OSError) and err.strerror:
        return f"{err.strerror}: {err.filename}" if err.filename else err.strerror
    return str(err)


def restated(err: _E, message: str) -> _E:
    """`err` saying `message` instead, of its own kind: a kind whose constructor takes
    more than a message (`store.TooLarge`) is never built anew, so none fails to be."""
    err.args = (message,)
    return err.with_traceback(None)


class UnknownSpell(SpellbookError):
    """A spell the machine does not have."""


class BadFile(SpellbookError):
    """A file the runtime reads cannot be taken as it is: not a regular file, too large,
    unreadable, not UTF-8, not the JSON it should be. Nothing is read as if it were
    empty; the message names the file (and the line, where there is one)."""


class StateFileError(BadFile):
    """The state file cannot be used: corrupt, wrong shape, unknown state, too large.

    It is never overwritten; `spell repair` backs it up and starts a new one.
    """


class UnknownState(SpellbookError):
    """A state the machine does not have."""


class UnsafePath(SpellbookError):
    """A path that would leave the workspace or pass through a symbolic link."""


class ActionError(SpellbookError):
    """A rule's action cannot be carried out as written (bad frontmatter, say);
    nothing was changed."""


class Undefined(SpellbookError):
    """A rule's condition names a fact the spec does not define, so the cast cannot tell
    whether the rule applies; nothing is changed."""


class LockTimeout(SpellbookError):
    """Another cast holds the workspace's lock for too long."""


class Interrupted(SpellbookError):
    """A cast stopped part way through its file actions (a disk error, say). Its
    intent record is kept, and the next cast finishes it before anything else."""


class Changed(SpellbookError):
    """The state file changed while a cast ran a command without the lock (another
    cast happened meanwhile); the cast stops with nothing changed."""


class Stopped(BaseException):
    """The process was told to end (SIGTERM, SIGHUP) while it ran a command: the
    command's process group is already killed; `spell` ends with 128 + the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def install_hint(extra: str) -> str:
    """The command that adds the extra `extra` to this installation, made from where it was
    installed from (a checkout, a built wheel, a git URL: pip's `direct_url.json`), since
    `spellbook-md` is not on the package index."""
    import json
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        found = json.loads(distribution("spellbook-md").read_text("direct_url.json") or "{}")
    except (PackageNotFoundError, ValueError, OSError):
        found = {}
    url = found.get("url") if isinstance(found, dict) else None
    if not isinstance(url, str):  # run from a checkout, or installed by name
        return f'pip install ".[{extra}]" in a checkout of Spellbook (see its README, Installing)'
    vcs = found.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
        commit = vcs.get("commit_id")
        url = f"{vcs['vcs']}+{url}" + (f"@{commit}" if isinstance(commit, str) else "")
    info = found.get("dir_info")
    editable = isinstance(info, dict) and info.get("editable") is True
    return f'pip install {"-e " if editable else ""}"spellbook-md[{extra}] @ {url}"'
