"""A project as committed: the machine the hook judges by, read from HEAD, never from the
working tree.

The hook (`check-transition --claude-hook`) answers an agent's tool call outside the
assistant's permission prompts, so it must never run Python the agent could have
written in this session. `spell` loads a project's machine from the working tree
(`spellbook.disk.loading.load_machine`); the hook reads the commit HEAD names instead: the
project's pyproject.toml, its generated module, and every module of the repository
that module imports (a vocabulary of the project's own, and what that imports), each
read through `spellbook.disk.git` (which no file of the repository can make run a program)
and compiled here from those bytes. Where that cannot be done (no git repository, no
commit, a file the working tree has and HEAD does not) the hook refuses, saying so.
Machines that ship with Spellbook (`spellbook.machines.*`) and installed packages are
imported as usual.

Imports are served from HEAD only inside `loading()`, which the hook wraps around its
judging.
"""

from __future__ import annotations

import contextlib
import os
import sys

from spellbook.disk.loading import MODULE_LIMIT, read_at_most, run_machine
from spellbook.disk.paths import is_git
from spellbook.disk.project import (
    PROJECT_LIMIT,
    PYPROJECT,
    Entry,
    Project,
    ProjectError,
    has_table,
    project_from_text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    from spellbook.disk.git import Repository
else:
    Loader = object  # importlib.abc costs 14 ms to import; a loader needs only the methods

COMMITTED = "the hook judges by the project's committed configuration and machine"


class Tree:
    """The files of one commit of a repository, by the paths they have in its work tree."""

    def __init__(self, repository: Repository, commit: str) -> None:
        self.repository = repository
        self.commit = commit
        self.top = os.path.realpath(repository.top)

    def name(self, path: str) -> str | None:
        """`path`'s name in the tree (`/`-separated, relative to the top): its folder with
        links resolved, its own name as written; None outside the work tree or in git's
        own folder (a part that `paths.is_git`, at any depth)."""
        folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
        full = os.path.join(folder, os.path.basename(path))
        if os.path.commonpath([full, self.top]) != self.top or full == self.top:
            return None
        rel = os.path.relpath(full, self.top).replace(os.sep, "/")
        return None if any(is_git(part) for part in rel.split("/")) else rel

    def read(self, path: str, limit: int) -> bytes | None:
        """The committed bytes of the file at `path`, or None if the commit has no file
        there (a link is none: its target would be read as Python). GitError past
        `limit` bytes or where git cannot read it."""
        from spellbook.disk.git import GitError

        rel = self.name(path)
        if rel is None:
            return None
        listed = self.repository.run("ls-tree", "-l", "-z", "--full-tree", self.commit, "--", rel)
        info, _, named = listed.split(b"\0")[0].decode("utf-8", "surrogateescape").partition("\t")
        fields = info.split()  # mode, type, object, size
        if len(fields) != 4 or named != rel or fields[1] != "blob" or fields[0] == "120000":
            return None
        if not fields[3].isdigit() or int(fields[3]) > limit:
            raise GitError(f"{rel} in HEAD is larger than {limit // 1_000_000} MB")
        return self.repository.run("cat-file", "blob", fields[2])


def read_project(folder: str) -> tuple[Project, Tree | str]:
    """The project whose folder is `folder` (its pyproject.toml configures Spellbook),
    and the tree of HEAD its machines are read from; ProjectError where it cannot be read.

    The configuration is HEAD's where HEAD has one. Where it has none (no git
    repository, no commit, a configuration not committed yet) the working tree's says
    which machine a name means, and, in the tree's place, why no machine of the
    project's own can be loaded: a machine that ships with Spellbook still can."""
    known = _PROJECTS.get(folder)
    if known is None:
        known = _read_project(folder)
        if _loading():  # kept while the hook judges one event, never longer
            _PROJECTS[folder] = known
    return known


def _read_project(folder: str) -> tuple[Project, Tree | str]:
    from spellbook.disk import git

    repository = git.find(folder)
    try:
        commit = repository.commit("HEAD") if repository is not None else None
    except git.GitError:  # no repository git can read there: said as no commit below
        commit = None
    tree = Tree(repository, commit) if repository is not None and commit is not None else None
    path = os.path.join(folder, PYPROJECT)
    data = tree.read(path, PROJECT_LIMIT) if tree is not None else None
    if tree is not None and data is not None and has_table(data):
        return project_from_text(os.path.abspath(folder), _text(data, f"{PYPROJECT} in HEAD")), tree
    if repository is None:
        why = f"{folder} is in no git repository"
    elif tree is None:
        why = f"the repository at {repository.top} has no commit yet (or git cannot read HEAD)"
    else:
        why = f"the [tool.spellbook] of {path} is not committed"
    data = read_at_most(path, PROJECT_LIMIT, path)
    return project_from_text(os.path.abspath(folder), _text(data, path)), why


def _text(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ProjectError(f"{shown} is not UTF-8 (byte {err.start})") from None


def load_machine(project: Project, entry: Entry, tree: Tree | str) -> ModuleType:
    """The project's generated module for `entry` as HEAD holds it, compiled from those
    bytes; the modules of the repository it imports are served from HEAD as well.
    `tree` is a reason (see `read_project`) where there is no tree to read it from."""
    path = project.module_path(entry)
    shown = os.path.relpath(path, project.root)
    if isinstance(tree, str):
        raise ProjectError(f"{COMMITTED} ({shown}), and {tree}; commit them")
    if not _loading():
        raise RuntimeError("committed.load_machine is called only inside committed.loading()")
    root = os.path.abspath(project.root)
    if root not in sys.path:  # its own modules (a vocabulary) are imported from its root,
        sys.path.append(root)  # last: no module installed or of the standard library shadowed
        _ROOTS.append(root)
    _TREES.setdefault(tree.top, tree)  # its modules are served from it, the machine cached too
    name = f"_spellbook_committed_{entry.name}_{tree.commit}"
    found = sys.modules.get(name)
    if found is not None and getattr(found, "__file__", None) == path:
        return found  # the same file of the same commit
    data = tree.read(path, MODULE_LIMIT)
    if data is None:
        raise ProjectError(
            f"{shown} is not committed; {COMMITTED}: generate it (`spellbook-codegen`) and "
            "commit it"
        )
    if _working_copy(path) != data:
        _CHANGED.append(shown)
    return run_machine(name, path, shown, data)


def _working_copy(path: str) -> bytes | None:
    """The working tree's bytes of `path`, read as a workspace's file is (no link
    followed, no FIFO opened); None where it cannot be read so."""
    from spellbook.disk.store import Workspace
    from spellbook.records.errors import SpellbookError

    try:
        return Workspace(os.path.dirname(path), "").read_bytes(os.path.basename(path), MODULE_LIMIT)
    except (SpellbookError, OSError):
        return None


def uncommitted() -> tuple[str, ...]:
    """The generated modules loaded from HEAD (inside `loading()`) whose working copy is
    not what HEAD holds: a spec change generated and not yet committed, which the hook
    does not judge by."""
    return tuple(dict.fromkeys(_CHANGED))


def _loading() -> bool:
    return any(isinstance(f, _FromHead) for f in sys.meta_path)


# The trees of the repositories whose machines are loaded, by their top (real path),
# the projects read, by their folder, and the roots put on the module path for them:
# while `loading` lasts.
_TREES: dict[str, Tree] = {}
_PROJECTS: dict[str, tuple[Project, Tree | str]] = {}
_ROOTS: list[str] = []
_CHANGED: list[str] = []  # see `uncommitted`


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """While this lasts, a module whose file is in a repository a committed machine was
    loaded from (not an installed one, nor Spellbook's own) runs as HEAD holds it; one
    HEAD does not hold is an ImportError saying so; one neither installed nor in such a
    repository is an ImportError too. A project's root is on the module path (last)
    while it lasts. Afterwards those modules and roots are forgotten, so nothing else
    in this process runs them."""
    finder = _FromHead()
    before = set(sys.modules)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in set(sys.modules) - before:
            if isinstance(getattr(sys.modules[name], "__loader__", None), _Source):
                del sys.modules[name]
        _TREES.clear()
        _PROJECTS.clear()
        for root in _ROOTS:
            if root in sys.path:
                sys.path.remove(root)
            sys.path_importer_cache.pop(root, None)
        _ROOTS.clear()
        _CHANGED.clear()


class _FromHead:
    """A finder that asks the others where a module is, and serves the committed bytes of
    a file in a repository of `_TREES` in its place (see `loading`)."""

    def __init__(self) -> None:
        self.installed: list[str] | None = None  # the standard library's, site-packages
        self.asking = False  # while it finds out where those are (importing sysconfig)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not _TREES or self.asking or fullname.partition(".")[0] == "spellbook":
            return None
        found = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            found = find(fullname, path, target)
            if found is not None:
                break
        origin = found.origin if found is not None else None
        if found is None or not origin or not found.has_location:
            return None
        real = os.path.realpath(origin)
        if any(os.path.commonpath([real, f]) == f for f in self._installed()):
            return None
        tree = next((t for t in _TREES.values() if t.name(origin) is not None), None)
        # a folder of the module path an agent may write (spellbook.doors.interpreter)
        if tree is None:
            raise ImportError(
                f"{origin} is neither installed nor in the repository of the project's "
                f"machine; {COMMITTED}, and runs no other module: install it, or commit it"
            )
        shown = tree.name(origin)
        if not origin.endswith(".py"):
            raise ImportError(f"{shown} is not Python source; the hook runs only committed source")
        data = tree.read(origin, MODULE_LIMIT)
        if data is None:
            raise ImportError(f"{shown} is not committed; {COMMITTED}: commit it")
        from importlib.machinery import ModuleSpec

        spec = ModuleSpec(
            fullname,
            _Source(data),
            origin=origin,
            is_package=found.submodule_search_locations is not None,
        )
        spec.submodule_search_locations = found.submodule_search_locations
        spec.has_location = True
        return spec

    def _installed(self) -> list[str]:
        """The installation of the Python that runs this (`spellbook.doors.interpreter`): its
        standard library, its site-packages (a virtual environment's may be inside the
        repository), Spellbook's own package."""
        if self.installed is None:
            self.asking = True
            try:
                from spellbook.doors import interpreter

                self.installed = interpreter.installed()
            finally:
                self.asking = False
        return self.installed


class _Source(Loader):
    """A loader that runs the committed bytes of a module's file."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        origin = module.__spec__.origin if module.__spec__ is not None else None
        code = compile(self.data, origin or "<committed>", "exec", dont_inherit=True)
        exec(code, module.__dict__)
