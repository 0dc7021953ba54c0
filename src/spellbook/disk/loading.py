"""A project's code, loaded from its source alone: its generated machines and its own
modules, compiled from the files' bytes (never from bytecode beside them), with the
compiled code kept in the user's cache."""

from __future__ import annotations

import os
import sys
from stat import S_ISREG

from spellbook.disk.project import ProjectError
from spellbook.disk.user_cache import cache_entry, compiled, keep, owned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from types import CodeType, ModuleType
    from typing import Any

    from spellbook.disk.project import Entry, Project


def importable(root: str) -> None:
    """Let the project's own modules (a vocabulary) be imported from its root. Appended,
    so neither the standard library nor an installed package can be shadowed by a
    file of the project; and from their source alone (`source_only`)."""
    folder = os.path.abspath(root)
    source_only(folder)
    if folder not in sys.path:
        sys.path.append(folder)


_SOURCE_ONLY: set[str] = set()  # folders whose modules run from their source alone


def outside_projects(name: str) -> str:
    """Where the module `name` (its top-level package) would be imported from, where that
    is not a project's folder `importable` made one: an installed package, another
    folder ("" where it is a project's, or where no module of that name is found).
    Finding it runs none of its code."""
    from importlib.util import find_spec

    try:
        found = find_spec(name.partition(".")[0])
    except (ImportError, ValueError):
        return ""
    if found is None:
        return ""
    places = list(found.submodule_search_locations or ()) or [found.origin or "built in"]
    for place in places:
        real = os.path.realpath(place)
        if not any(real == f or real.startswith(f.rstrip(os.sep) + os.sep) for f in _SOURCE_ONLY):
            return place
    return ""


def source_only(folder: str) -> None:
    """Modules and packages imported from `folder` (and the folders below it) run from
    their own source, compiled by `compiled`: no bytecode is read or written there (a
    `__pycache__` file beside a module, which Python would run without looking at the
    source), and no sourceless `.pyc` or compiled extension is imported from there. A
    repository's files are data until their source is what runs."""
    if not _SOURCE_ONLY:
        sys.path_hooks.insert(0, _source_only_hook())
    _SOURCE_ONLY.add(os.path.realpath(folder))
    for entry in list(sys.path_importer_cache):  # a finder made before: made again
        if _under_source_only(entry):
            del sys.path_importer_cache[entry]


def _under_source_only(path: str) -> bool:
    """Whether modules found in `path` run from their source alone: it is under a
    `source_only` folder, and not where this Python's packages are installed (a
    virtual environment inside a project is the user's installation, not its files)."""
    full = os.path.realpath(path or os.curdir)
    return _within(full, _SOURCE_ONLY) and not _within(full, _installed(full))


def _within(full: str, folders: Collection[str]) -> bool:
    return any(full == f or full.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


_INSTALLED: list[str] = []
_PREFIXES: list[str] = []  # Python's prefixes, until sysconfig's folders are in _INSTALLED


def _installed(full: str) -> list[str]:
    """The folders of this Python's standard library and installed packages (a virtual
    environment's, inside a project too), and Spellbook's own package (in a source
    checkout, a folder of the project it is): never a whole prefix, which may hold a
    project (`/usr/src/app`). Every folder `sysconfig` names (the standard library's and
    the scheme's packages) is under one of Python's four prefixes, so it is asked (1 ms
    to import) only once a folder `full` is under one: a checkout's `generated/` beside
    its virtual environment is known to be none of them without it."""
    if not _INSTALLED:
        import site

        found = site.getsitepackages() if hasattr(site, "getsitepackages") else []
        found.append(site.getusersitepackages() if hasattr(site, "getusersitepackages") else "")
        found.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # spellbook
        _INSTALLED.extend(os.path.realpath(p) for p in dict.fromkeys(found) if p)
        prefixes = (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix)
        _PREFIXES.extend(os.path.realpath(p) for p in dict.fromkeys(prefixes))
    if _PREFIXES and _within(full, _PREFIXES):
        import sysconfig

        paths = sysconfig.get_paths()
        found = [paths.get(k, "") for k in ("stdlib", "platstdlib", "purelib", "platlib")]
        _INSTALLED.extend(os.path.realpath(p) for p in dict.fromkeys(found) if p)
        _PREFIXES.clear()
    return _INSTALLED


def _source_only_hook() -> Any:
    """The path hook of `source_only`: for a folder under one of its folders, a finder of
    `.py` sources only, each loaded by a loader that compiles its bytes (made here, as
    the hook runs inside the import system and must import nothing)."""
    from importlib.machinery import SOURCE_SUFFIXES, FileFinder, SourceFileLoader

    class SourceOnly(SourceFileLoader):
        """A module's source, compiled by `compiled`; no bytecode read or written."""

        def get_code(self, fullname: str) -> CodeType:
            path = self.get_filename(fullname)
            return compiled(self.get_data(path), path)

        def set_data(self, path: str, data: Any, *, _mode: int = 0o666) -> None:
            return None  # never writes bytecode

    def hook(path: str) -> FileFinder:
        if not _under_source_only(path):
            raise ImportError("not a folder whose modules run from their source alone")
        return FileFinder(path, (SourceOnly, SOURCE_SUFFIXES))

    return hook


MODULE_LIMIT = 50_000_000  # bytes of a generated module read


def load_machine(project: Project, entry: Entry) -> ModuleType:
    """The project's generated module for `entry`, compiled from the bytes of its file.

    Only that source runs: no bytecode is read or written (Python's own import would
    run a `__pycache__/*.pyc` in its place, which `codegen --check` never reads)."""
    path = project.module_path(entry)
    shown = os.path.relpath(path, project.root)
    if not os.path.isfile(path) or os.path.islink(path):
        raise ProjectError(
            f"{shown} does not exist: the machine {entry.name} ({entry.spec}) is not "
            "generated yet; run `spellbook-codegen` in "
            f"{project.root}"
        )
    name = f"_spellbook_project_{entry.name}"
    found = sys.modules.get(name)
    if found is not None and getattr(found, "__file__", None) == path:
        return found
    data = read_at_most(path, MODULE_LIMIT, shown)
    importable(project.root)
    return run_machine(name, path, shown, data)


def stale(project: Project, entry: Entry, module: ModuleType) -> str | None:
    """What to say when a file the machine was generated from has changed since its
    module was generated, else None: the spec (its sha256 is not the module's
    `SPEC_SHA256`), or a file of the project the module names in `SOURCES` with its
    sha256 (the project's vocabulary file and templates).

    Two `stat`s a file are all a cast pays while the files are older than the module. A
    file newer but unchanged (a checkout writes `spec/` after `generated/`) is hashed
    once: the user's cache then keeps that this very file (path, time, size, inode) was
    found fresh, and the next cast reads that instead of hashing again (about 2.5 ms)."""
    try:
        made = os.stat(project.module_path(entry)).st_mtime_ns
    except OSError:
        return None
    sources: dict[str, object] = {entry.spec: getattr(module, "SPEC_SHA256", None)}
    recorded = getattr(module, "SOURCES", {})
    if isinstance(recorded, dict):
        sources.update((k, v) for k, v in recorded.items() if isinstance(k, str))
    changed = [name for name, sha in sources.items() if _changed(project, name, sha, made)]
    if not changed:
        return None
    shown = os.path.relpath(project.module_path(entry), project.root)
    files = " and ".join((", ".join(changed[:-1]), changed[-1])) if changed[1:] else changed[0]
    have, it = ("have", "them") if changed[1:] else ("has", "it")
    return (
        f"{files} {have} changed since {shown} was generated from {it}: this runs the "
        f"machine as generated; regenerate it with `spellbook-codegen` in {project.root}"
    )


def _changed(project: Project, name: str, recorded: object, made: int) -> bool:
    """Whether the project's file `name` is newer than the module (made at `made`) and
    its sha256 is not `recorded`; a file that cannot be read is not said to have changed
    (nothing to compare with), nor is one named outside the project."""
    path = os.path.join(project.root, name)
    if os.path.isabs(name) or ".." in name.replace("\\", "/").split("/"):
        return False
    try:
        found = os.stat(path)
    except OSError:
        return False
    if found.st_mtime_ns <= made or not S_ISREG(found.st_mode):
        return False  # older, or no file to read (a FIFO would never end the read)
    seen = (
        f"spellbook fresh 1 {found.st_mtime_ns} {found.st_size} {found.st_ino} {recorded} {path}"
    ).encode("utf-8", "surrogateescape")
    cache = cache_entry("fresh", path, ".txt")
    if cache is not None and owned(cache) and not os.path.islink(cache):
        try:
            with open(cache, "rb") as f:
                if f.read(len(seen) + 1) == seen:
                    return False
        except OSError:
            pass
    try:
        with open(path, "rb") as f:
            data = f.read(MODULE_LIMIT + 1)
    except OSError:
        return False
    if source_sha256(data) == recorded:
        if cache is not None:
            keep(cache, seen)
        return False
    return True


def source_sha256(data: bytes) -> str:
    """The sha256 a module records of a file it is made from: of its text with its lines
    ended by line feeds, as the file is read (a checkout that writes `\r\n`, as git
    does on Windows, changes no line of it)."""
    import hashlib

    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return hashlib.sha256(data).hexdigest()


def read_at_most(path: str, limit: int, shown: str) -> bytes:
    """The bytes of the file `path` (named `shown`), a ProjectError if it cannot be read
    or holds more than `limit` bytes (read no further than that)."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise ProjectError(f"{shown} cannot be read ({err.strerror})") from None
    if len(data) > limit:
        raise ProjectError(f"{shown} is larger than {limit // 1_000_000} MB")
    return data


def run_machine(name: str, path: str, shown: str, data: bytes) -> ModuleType:
    """The module `name` made by running the source `data` (the bytes of `path`, shown
    as `shown`), checked to be a machine Spellbook generated."""
    from importlib.machinery import ModuleSpec  # not util: 2 ms more
    from types import ModuleType

    module = ModuleType(name)
    module.__spec__ = ModuleSpec(name, None, origin=path)
    module.__file__ = path
    sys.modules[name] = module
    try:
        exec(compiled(data, path), module.__dict__)
    except (Exception, SystemExit) as err:  # its exit would end `spell` (a hook, allowing)
        del sys.modules[name]
        raise ProjectError(
            f"{shown} cannot be imported ({type(err).__name__}: {err}); "
            "regenerate it with `spellbook-codegen`"
        ) from None
    for needed in ("SPEC", "STATES", "RULES", "WORKSPACE", "build"):
        if not hasattr(module, needed):
            del sys.modules[name]
            raise ProjectError(
                f"{shown} is not a machine generated by Spellbook (it has no {needed}); "
                "regenerate it with `spellbook-codegen`"
            )
    return module
