"""The user's own cache folder: a project's `[tool.spellbook]` table as parsed, kept with the
exact text it was read from, and the compiled code of the modules a project runs."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType


def owned(path: str) -> bool:
    """Whether `path` belongs to the user running this (always, where there are no users)."""
    try:
        return not hasattr(os, "geteuid") or os.lstat(path).st_uid == os.geteuid()
    except OSError:
        return False


# Parsing TOML costs `spell` more than a cast does (importing tomllib and the typing
# and datetime modules it needs). So the table is kept, with the exact text it was
# read from, in the user's own cache folder: it is used only while pyproject.toml
# holds that very text, and only from a file of the user's (a pull request cannot
# plant one, as it could in the repository). Anything amiss is a miss: parsed again.
CACHE_VERSION = 1


def cache_file(root: str) -> str | None:
    """Where the cache keeps the `[tool.spellbook]` table of the project at `root`."""
    return cache_entry("projects", root, ".json")


def cache_entry(kind: str, of: str, suffix: str, base: str | None = "") -> str | None:
    """The cache file of `kind` for the file or folder `of` (in the folder `base`, the
    cache folder unless given); None where there is no cache folder, or where it is
    inside the repository `of` is in: a repository's content is never taken for what
    Spellbook kept (a checkout could hold a cache of its own)."""
    base = cache_folder() if base == "" else base
    if base is None:
        return None
    from spellbook.disk import git  # not for `owned`, which finding a project asks

    repository = git.find(of if os.path.isdir(of) else os.path.dirname(of))
    if repository is not None and repository.relative(base) is not None:
        return None
    import zlib

    key = zlib.crc32(of.encode("utf-8", "surrogateescape"))
    return os.path.join(base, kind, f"{key:08x}{suffix}")


def compiled(data: bytes, path: str) -> CodeType:
    """The code of the Python source `data` (the bytes of `path`): compiled, or this
    user's cache of exactly that compilation. Only Spellbook writes the cache, in the
    user's own cache folder (never one inside the module's repository), and a cache file
    is taken only when the source it keeps beside the code is byte for byte `data`, the
    Python and its optimization level the same and the path the same: so no bytecode a
    repository holds, or code of other bytes, ever runs in its place (parsing a 58 KB
    module costs about 11 ms a cold start, its cached code 0.2 ms)."""
    import marshal
    from types import CodeType

    cache = _code_file(path)
    python = f"{sys.implementation.cache_tag} -O{sys.flags.optimize}"
    head = f"spellbook code 1 {python} {len(data)}\n".encode()
    if cache is not None and owned(cache) and not os.path.islink(cache):
        try:
            with open(cache, "rb") as f:
                kept = f.read(len(head) + 5 * len(data) + 1_000_000)
            if kept.startswith(head) and kept[len(head) : len(head) + len(data)] == data:
                code = marshal.loads(kept[len(head) + len(data) :])
                if isinstance(code, CodeType) and code.co_filename == path:
                    return code
        except (OSError, ValueError, EOFError, TypeError):
            pass  # no cache, or one that is not ours to read: compiled afresh
    code = compile(data, path, "exec", dont_inherit=True)
    if cache is not None:
        keep(cache, head + data + marshal.dumps(code))
    return code


def _code_file(path: str) -> str | None:
    """Where the cache keeps the compiled code of the module at `path`."""
    return cache_entry("code", path, ".code")


def seal_key(workspace: str, create: bool) -> bytes | None:
    """This user's secret key for the intent records of the workspace folder `workspace`:
    32 random bytes in the user's cache folder (else in a folder of the user's own in
    the system's temporary folder), readable by this user alone, made on first use when
    `create` is set; None where there is none (no such folder, one inside the
    repository, a file not the user's own). A record sealed with it was written by this
    user's casts: a repository's content cannot hold one, nor forge its seal."""
    of = os.path.realpath(workspace)
    for base in (cache_folder(), _own_temporary()):
        path = _key_file(of, base)
        if path is None:
            continue
        key = _key_in(path)
        if key is None and create:
            keep(path, os.urandom(32))
            key = _key_in(path)
        if key is not None:
            return key
    return None


def seal_keys(workspace: str) -> list[bytes]:
    """Every key of this user's for the intent records of `workspace` that a cast of
    theirs may have sealed one with: in each cache folder this user's casts may use
    (`cache_folders`: `spell` from a shell and `spell mcp` started by an MCP client with
    another environment choose differently), and in the temporary folder's."""
    of = os.path.realpath(workspace)
    found = []
    for base in (*cache_folders(), _own_temporary()):
        path = _key_file(of, base)
        key = _key_in(path) if path is not None else None
        if key is not None and key not in found:
            found.append(key)
    return found


def _key_file(of: str, base: str | None) -> str | None:
    """Where the folder `base` keeps the key of the workspace `of` (a real path): named
    by a digest no one can make two paths share (a checksum's can be chosen, and two
    workspaces would share one key: a record of one carried out in the other); None as
    `cache_entry` gives it."""
    import hashlib  # a cast that changes files seals its record with it anyway

    path = cache_entry("keys", of, ".key", base) if base else None
    if path is None:
        return None
    name = hashlib.blake2b(of.encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()
    return os.path.join(os.path.dirname(path), name + ".key")


def cache_folders() -> list[str]:
    """Every cache folder this user's casts may use, the one in use first: that of
    `$SPELLBOOK_CACHE`, of `$XDG_CACHE_HOME` and of the home folder, which `cache_folder`
    chooses among in one environment or another (the hook guards them all)."""
    found = [cache_folder()]
    chosen, xdg = os.environ.get("SPELLBOOK_CACHE", ""), os.environ.get("XDG_CACHE_HOME", "")
    found.append(chosen if os.path.isabs(chosen) else None)
    found.append(os.path.join(xdg, "spellbook") if os.path.isabs(xdg) else None)
    home = os.path.expanduser("~")
    found.append(os.path.join(home, ".cache", "spellbook") if os.path.isabs(home) else None)
    return [folder for folder in dict.fromkeys(found) if folder]


def _key_in(path: str) -> bytes | None:
    if not owned(path) or os.path.islink(path):
        return None
    try:
        with open(path, "rb") as f:
            key = f.read(64)
    except OSError:
        return None
    return key if len(key) == 32 else None


def temporary_folder() -> str | None:
    """Where `_own_temporary` keeps keys when the cache folder cannot: the hook guards it
    as it does the cache folder. None where there are no users."""
    import tempfile

    if not hasattr(os, "geteuid"):
        return None
    return os.path.join(tempfile.gettempdir(), f"spellbook-{os.geteuid()}")


def _own_temporary() -> str | None:
    """A folder of this user's alone in the system's temporary folder (made, mode 0700;
    None where it is not the user's, or others may write in it)."""
    import stat

    folder = temporary_folder()
    if folder is None:
        return None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    mine = info.st_uid == os.geteuid() and stat.S_ISDIR(info.st_mode)
    return folder if mine and not info.st_mode & 0o077 else None


def cache_folder() -> str | None:
    """Spellbook's cache folder for this user: `$SPELLBOOK_CACHE`, else
    `$XDG_CACHE_HOME/spellbook`, else `~/.cache/spellbook`; None where none can be named.
    A relative path in either variable is ignored (as XDG says of its own), so the
    current folder, a repository's, is never taken for it."""
    chosen = os.environ.get("SPELLBOOK_CACHE")
    if chosen is not None:
        return chosen if os.path.isabs(chosen) else None
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if home == "~" or not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "spellbook")


def cached(cache: str | None, path: str, text: str, limit: int) -> dict[str, object] | None:
    if cache is None or not owned(cache) or os.path.islink(cache):
        return None
    import json

    try:
        with open(cache, encoding="utf-8") as f:
            kept = json.loads(f.read(limit))
    except (OSError, ValueError):
        return None
    if (
        isinstance(kept, dict)
        and kept.get("version") == CACHE_VERSION
        and kept.get("path") == path
        and kept.get("text") == text
        and isinstance(kept.get("table"), dict)
    ):
        table: dict[str, object] = kept["table"]
        return table
    return None


def remember(cache: str | None, path: str, text: str, table: dict[str, object]) -> None:
    if cache is None:
        return
    import json

    try:
        kept = json.dumps(
            {"version": CACHE_VERSION, "path": path, "text": text, "table": table},
            ensure_ascii=False,
        )
    except (TypeError, ValueError):  # a value JSON has no form for (a TOML date): not kept
        return
    keep(cache, kept.encode("utf-8"))


def keep(cache: str, data: bytes) -> None:
    """Write `data` to the cache file `cache`, readable by this user alone, atomically;
    a cache that cannot be written is only slower."""
    temporary = f"{cache}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(cache), mode=0o700, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, cache)
    except OSError:
        import contextlib  # not at start-up: `spell` need not load it

        with contextlib.suppress(OSError):
            os.unlink(temporary)
