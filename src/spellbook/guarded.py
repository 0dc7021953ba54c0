"""What the hook guards in one repository, and whether a path is one of those things.

A `Place` is a repository a tool call may touch, with its workflow. Guarded there:

- the workspace's state file and the files its vocabulary judges (`JUDGED`);
- the runtime's own files in the workspace (`.intent.json`, `.history/`, `.trash/`...);
- the workspace folder and every folder that holds it (moved or deleted, they take
  the workspace along);
- every pyproject.toml of the repository, and of each folder above it (its
  `[tool.spellbook]` says which machine runs, from which module, with which
  vocabulary);
- the project's generated folder and what is in it (the modules `spell` runs), and
  the folders that hold it;
- the repository's `.git` (its HEAD is the machine the hook judges by);
- Spellbook's cache folder (the `[tool.spellbook]` tables `spell` reads in place of
  parsing pyproject.toml again).

A path is matched by what it is where it exists (the same file or folder, by device
and inode, whatever it is called: a hard link, a name the filesystem folds) and by
name, compared as filesystems that fold names do (case, Unicode normalization,
trailing dots and spaces: `State.json`, `state.json.`). A string that may be a
pattern (any but the path of a write the hook judges) matches as a glob would,
over-approximated where the syntax is beyond `*` and `?` (see `wildcards`): it may
name more than a shell or a glob library would, never less; `**` names any folders
below.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from spellbook.git import Repository
    from spellbook.workflow import Workflow

WORKSPACE = "workspace"  # a file of the workspace that is judged (the state file, JUDGED)
RUNTIME = "runtime"  # a file of the workspace only casts write (`.intent.json`, `.history/`)
FOLDER = "folder"  # the workspace folder, or a folder that holds it or the generated folder
CONFIG = "config"  # a pyproject.toml of the repository
GENERATED = "generated"  # the generated folder, or a file in it
GIT = "git"  # the repository's .git folder (or a worktree's), or a file in it
CACHE = "cache"  # Spellbook's cache folder, or a file in it


class Hit:
    """A guarded thing a path names: its kind, its place, and its name (a workspace
    file's relative to the workspace folder; else the path)."""

    __slots__ = ("kind", "name", "place")

    def __init__(self, kind: str, place: Place, name: str) -> None:
        self.kind = kind
        self.place = place
        self.name = name

    def shown(self) -> str:
        if self.kind in (WORKSPACE, RUNTIME):
            return self.place.workflow.workspace.shown(self.name)
        return self.name

    def what(self) -> str:
        """What it is, as a reason says it."""
        workspace = self.place.workflow.workspace.shown()
        if self.kind == WORKSPACE and self.name == self.place.workflow.state_file:
            return "the state file"
        return {
            WORKSPACE: "a file whose changes the workflow judges",
            RUNTIME: "the runtime's own (an interrupted cast's record, history, trash, lock)",
            FOLDER: f"a folder that holds {workspace}/ or the project's generated modules",
            CONFIG: "a pyproject.toml, whose [tool.spellbook] says which machine runs",
            GENERATED: "the project's generated modules, which spellbook-codegen writes",
            GIT: "git's own folder, whose HEAD holds the machine the hook judges by",
            CACHE: "Spellbook's cache, whose tables spell takes for pyproject.toml's",
        }[self.kind]


def folded(name: str) -> str:
    """A name as filesystems that fold names compare it."""
    import unicodedata

    return unicodedata.normalize("NFC", name).casefold().rstrip(". ")


def _parts(path: str) -> list[str]:
    return [p for p in path.split(os.sep) if p]


_SPECIAL = frozenset("*?[]{}()\\")  # and `@`, `+`, `!` before `(`: extglob
_CLOSING = {"[": "]", "(": ")", "{": "}"}


def wildcards(part: str) -> str | None:
    """One part of a glob (no `/`) as an fnmatch pattern of `*`, `?` and literal
    characters (`[`, `*` and `?` escaped) that matches every name the part matches in
    bash (with extglob), minimatch or picomatch; None if the part is a plain name.

    Beyond `*` and `?`, every construct is an over-approximation, never read
    precisely: a bracket expression (`[^x]`, `[!x]`, `[[:alpha:]]`, `[a-z]`), from its
    `[` to the part's last `]`, an extglob (`@(..)`, `+(..)`, `!(..)`, `*(..)`,
    `?(..)`, a group) from its `(` to the last `)`, and braces left unexpanded (a
    range `{a..b}`) from `{` to the last `}`, each as `*`; so is a backslash and the
    character it escapes. An opening with no closing after it runs to the end of the
    part. One pass over the part: linear in its length."""
    if not any(c in _SPECIAL for c in part):
        return None
    out: list[str] = []
    at, end = 0, len(part)
    while at < end:
        c = part[at]
        if c in "@+!*?" and part[at + 1 : at + 2] == "(":
            c, at = "(", at + 1  # an extglob: its prefix is part of the group
        if c in _CLOSING:
            close = part.rfind(_CLOSING[c], at + 1)
            at = close + 1 if close >= 0 else end
            c = "*"
        elif c == "\\":
            at += 2
            c = "*"
        else:
            at += 1
            if c in "])}":  # a closing with no opening in this part: one in an earlier part
                c = "*"
            elif c == "[":
                c = "[[]"
        if c != "*" or not out or out[-1] != "*":
            out.append(c)
    return "".join(out)


def _deep(part: str) -> bool:
    """Whether a glob's part may name anything below its folder too: `**`, or a group
    (`@(`, `{`) opened and not closed in the part, which may hold a `/`."""
    return "**" in part or part.rfind("(") > part.rfind(")") or part.rfind("{") > part.rfind("}")


def may_match(pattern: str, name: str) -> bool:
    """Whether a glob's part (folded) may match a name (folded)."""
    wild = wildcards(pattern)
    if wild is None:
        return pattern == name
    import fnmatch  # compiles a pattern once (its cache): only for globs

    return fnmatch.fnmatchcase(name, wild)


def _same(name: str, other: str) -> bool:
    return name == other


def _holds(pattern: list[str], names: list[str], fits: Callable[[str, str], bool]) -> bool:
    """Whether the path `pattern` (folded parts) names `names` or a folder holding it."""
    if len(pattern) > len(names):
        return False
    return all(fits(p, n) for p, n in zip(pattern, names[: len(pattern)], strict=True))


def _under(pattern: list[str], names: list[str], fits: Callable[[str, str], bool]) -> bool:
    """Whether the path `pattern` (folded parts) names `names` or something below it."""
    if len(pattern) < len(names):
        return False
    return all(fits(p, n) for p, n in zip(pattern[: len(names)], names, strict=True))


def _forms(path: str) -> list[list[str]]:
    """The folded parts of `path` as written and with links resolved."""
    found = [[folded(p) for p in _parts(os.path.abspath(path))]]
    real = [folded(p) for p in _parts(os.path.realpath(path))]
    return found if real == found[0] else [*found, real]


class Place:
    """A repository a tool call may touch (its root and workflow): what is guarded there."""

    def __init__(self, root: str, workflow: Workflow) -> None:
        from spellbook import git
        from spellbook.project import (
            DEFAULT_GENERATED,
            ProjectError,
            cache_folder,
            find_project,
            read_project,
        )

        self.root = os.path.abspath(root)
        self.workflow = workflow
        self.base = workflow.workspace.base
        self.folder = _forms(self.base)
        repository = git.find(self.root)
        self.top = _forms(repository.top if repository is not None else self.root)
        self.above = _forms(self.root)  # a pyproject.toml of a folder holding it counts
        self.git = [form for path in _git_folders(repository) for form in _forms(path)]
        cache = cache_folder()
        self.cache = _forms(cache) if cache else []
        self.project = find_project(self.root)
        self.generated_folder = ""
        if self.project is not None:
            try:  # the folder `spell` loads modules from, as the working tree says
                generated = read_project(self.project).generated
            except ProjectError:  # `spell` cannot read it either; the default, then
                generated = DEFAULT_GENERATED
            self.generated_folder = os.path.join(self.project, generated)
        self.generated = _forms(self.generated_folder) if self.generated_folder else []
        self.names = {folded(n): n for n in self._judged()}
        self._inodes: dict[tuple[int, int], Hit] | None = None
        self._entries: list[str] | None = None  # the workspace folder's, once listed

    def _judged(self) -> list[str]:
        vocabulary = self.workflow.engine.vocabulary
        return [self.workflow.state_file, *getattr(vocabulary, "JUDGED", ())]

    def hits(self, paths: list[str], patterns: bool = False) -> list[Hit]:
        """The guarded things of this place that the absolute `paths` name; as globs
        too, with `patterns`."""
        found: dict[tuple[str, str], Hit] = {}
        for path in paths:
            for hit in [*self._by_name(path, patterns), *self._by_identity(path)]:
                found.setdefault((hit.kind, hit.name), hit)
        return list(found.values())

    def _by_name(self, path: str, patterns: bool) -> list[Hit]:
        written = _parts(path)
        parts = [folded(p) for p in written]
        fits = may_match if patterns else _same
        deep = next((i for i, p in enumerate(parts) if _deep(p)), None) if patterns else None
        if deep is not None:  # a glob naming anything below its folder
            written, parts = written[:deep], parts[:deep]
        found = []
        for folder in self.folder:
            if _holds(parts, folder, fits):
                found.append(Hit(FOLDER, self, path))
            elif _under(parts, folder, fits):
                found += self._in_workspace(written[len(folder) :], fits)
        for generated in self.generated:
            if _holds(parts, generated, fits):
                found.append(Hit(GENERATED if len(parts) == len(generated) else FOLDER, self, path))
            elif _under(parts, generated, fits):
                found.append(Hit(GENERATED, self, path))
        found += [Hit(GIT, self, path) for git in self.git if _under(parts, git, fits)][:1]
        found += [Hit(CACHE, self, path) for c in self.cache if _under(parts, c, fits)][:1]
        config = deep is None and parts and fits(parts[-1], "pyproject.toml")
        below = any(_under(parts, top, fits) for top in self.top)
        if config and (below or any(_holds(parts[:-1], root, fits) for root in self.above)):
            found.append(Hit(CONFIG, self, path))
        return found

    def _in_workspace(self, rest: list[str], fits: Callable[[str, str], bool]) -> list[Hit]:
        """The hits for the workspace file written as `rest` (its parts below the folder),
        if it is guarded: known by the guarded name it is but for case, normalization
        and trailing dots or spaces; a glob, by every name of the folder it matches."""
        key = "/".join(folded(p) for p in rest)
        name = self.names.get(key)
        if name is None and fits is may_match and rest:
            from spellbook.schema import RUNTIME_FILES

            if self._entries is None:
                self._entries = _listed(self.base)
            known = {*self.names.values(), *RUNTIME_FILES, *self._entries}
            return [
                hit
                for other in sorted(known)
                if may_match(folded(rest[0]), folded(other))
                for hit in self._in_workspace([other, *rest[1:]], _same)
            ]
        name = name or "/".join(rest)
        if not name or name.startswith("."):
            return [Hit(RUNTIME, self, name)] if name else []
        return [Hit(WORKSPACE, self, name)] if self.workflow.guards(name) else []

    def _by_identity(self, path: str) -> list[Hit]:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            return []
        hit = self.inodes().get((info.st_dev, info.st_ino))
        return [hit] if hit is not None else []

    def inodes(self) -> dict[tuple[int, int], Hit]:
        """What each guarded file and folder that exists is, by device and inode."""
        if self._inodes is None:
            found: dict[tuple[int, int], Hit] = {}
            self._note(found, self.base, FOLDER, holders=True)
            for name in _listed(self.base):
                for hit in self._in_workspace([name], _same):
                    self._note(found, os.path.join(self.base, name), hit.kind, hit.name)
            if self.project is not None:
                self._note(found, os.path.join(self.project, "pyproject.toml"), CONFIG)
            if self.generated_folder:
                folder = self.generated_folder
                self._note(found, folder, GENERATED, holders=True)
                for name in _listed(folder):
                    self._note(found, os.path.join(folder, name), GENERATED)
            self._inodes = found
        return self._inodes

    def _note(
        self,
        found: dict[tuple[int, int], Hit],
        path: str,
        kind: str,
        name: str = "",
        holders: bool = False,
    ) -> None:
        """Note what `path` is, and, with `holders`, that each folder above it holds it."""
        while True:
            try:
                info = os.stat(path)
            except (OSError, ValueError):
                info = None
            if info is not None:
                found.setdefault((info.st_dev, info.st_ino), Hit(kind, self, name or path))
            parent = os.path.dirname(path)
            if not holders or parent == path:
                return
            path, kind, name = parent, FOLDER, ""


def _listed(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except (OSError, ValueError):
        return []


def _git_folders(repository: Repository | None) -> list[str]:
    """The repository's `.git` (a folder, or a worktree's `gitdir:` file) and, for a
    worktree, the folders that file names (its own, and the repository's common one)."""
    if repository is None:
        return []
    found = [repository.git_dir]
    folder = repository.git_dir
    if os.path.isfile(folder):
        try:
            with open(folder, encoding="utf-8", errors="replace") as f:
                named = f.read(4096).strip().removeprefix("gitdir:").strip()
        except OSError:
            return found
        folder = os.path.join(os.path.dirname(repository.git_dir), named)
        found.append(folder)
    try:
        with open(os.path.join(folder, "commondir"), encoding="utf-8", errors="replace") as f:
            found.append(os.path.join(folder, f.read(4096).strip()))
    except OSError:
        pass
    return found
