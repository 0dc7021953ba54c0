"""What the hook guards, and whether a path is one of those things.

A `Site` is a repository a tool call may touch, a `Place` the workspace of one machine
there (its workflow read when a path needs it), and `Everywhere` what is guarded
wherever a tool call writes. Guarded:

- in a place: the workspace's state file and the files whose hand-made writes are
  judged (the machine's `KEPT`, the vocabulary's `JUDGED`); the runtime's own files
  in the workspace (`.intent.json`, `.history/`, `.trash/`...); the workspace folder
  and every folder that holds it (moved or deleted, they take the workspace along);
- in a site: every pyproject.toml of the repository, and of each folder above it
  (its `[tool.spellbook]` says which machine runs, from which module, with which
  vocabulary); the project's generated folder and what is in it (the modules
  `spell` runs), and the folders that hold it; a Python vocabulary's module or
  package in the project's folder and the `__pycache__` beside it (`spell` imports
  it); the repository's git folders (its HEAD is the machine the hook judges by);
- everywhere: any path with a part that is git's own folder (`paths.is_git`: `.git`
  in any spelling git refuses, a file or a folder, in any repository: one planted in
  a subfolder would end the search for the project above it); Claude Code's settings
  files, which can carry hooks or turn them off: a `.claude` folder anywhere, by
  name, its `settings.json` and `settings.local.json`, and a folder holding one; the
  user's (in `$CLAUDE_CONFIG_DIR`, else `~/.claude`) and the folders that hold them;
  the managed settings folders (`settings_paths`); Spellbook's cache
  folder (the `[tool.spellbook]` tables `spell` reads in place of parsing
  pyproject.toml again); where the Python that runs the hook loads code from
  (`spellbook.doors.interpreter`: its installation, its module path; a `.pth` file or
  module written there runs at the hook's next call), and the folders that hold
  those.

A path is matched by what it is where it exists (the same file or folder, by device
and inode, whatever it is called: a hard link, a name the filesystem folds) and by
name, compared as filesystems that fold names do (`schema.folded_name`: case,
Unicode normalization, trailing dots and spaces: `State.json`, `state.json.`). A
string that may be a pattern (any but the path of a write the hook judges) matches
as a glob would, over-approximated where the syntax is beyond `*` and `?` (see
`wildcards`): it may name more than a shell or a glob library would, never less.
"""

from __future__ import annotations

import os
import re

from spellbook.disk.own_files import backup_of, folded_name
from spellbook.disk.paths import is_git
from spellbook.disk.store import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

    from spellbook.cast.workflow import Workflow

WORKSPACE = "workspace"  # a file of the workspace that is judged (state file, KEPT, JUDGED)
RUNTIME = "runtime"  # a file of the workspace only casts write (`.intent.json`, `.history/`)
FOLDER = "folder"  # the workspace folder, or a folder that holds it or the generated folder
CONFIG = "config"  # a pyproject.toml of the repository
GENERATED = "generated"  # the generated folder, or a file in it
VOCABULARY = "vocabulary"  # a Python vocabulary module of the project's, or its package
GIT = "git"  # git's own folder (any `.git`, or a worktree's), or a file in it
CACHE = "cache"  # Spellbook's cache folder, or a file in it
INTERPRETER = "interpreter"  # a folder the hook's Python loads code from, or one holding it
SETTINGS = (
    "settings"  # a Claude Code settings file (which can carry hooks), or a folder holding one
)
# a state file (or a folder holding one) of a workspace no machine of the project as
# committed has: one added, or moved, in the working tree
UNCOMMITTED = "uncommitted"
# a JSON file or a folder, outside every committed workspace, while the working tree's
# pyproject.toml cannot be read: it may be the state file of a machine added there
UNREAD = "unread"


class Hit:
    """A guarded thing a path names: its kind, its name (a workspace file's relative to
    the workspace folder; else the path), and the place whose workspace it is in or
    holds (None for what is guarded whatever the workspace)."""

    __slots__ = ("kind", "name", "place")

    def __init__(self, kind: str, name: str, place: Place | None = None) -> None:
        self.kind = kind
        self.name = name
        self.place = place

    def shown(self) -> str:
        """Its name as a reason shows it: quoted and escaped where it holds a line break
        or another control character, which would give the reason lines of its own."""
        name = self.name
        if self.kind in (WORKSPACE, RUNTIME) and self.place is not None:
            name = self.place.workspace.shown(self.name)
        if any(ord(c) < 32 or ord(c) == 127 for c in name):
            import json

            return json.dumps(name)
        return name

    def what(self) -> str:
        """What it is, as a reason says it."""
        place = self.place
        if self.kind == WORKSPACE and place is not None and self.name == place.state_file():
            return "the state file"
        if self.kind == FOLDER:
            held = f"{place.workspace.shown()}/" if place is not None else "the generated modules"
            return f"a folder that holds {held} (moved or deleted, it takes them along)"
        return {
            WORKSPACE: "a file whose changes the workflow judges",
            RUNTIME: "the runtime's own (an interrupted cast's record, history, trash, lock)",
            CONFIG: "a pyproject.toml, whose [tool.spellbook] says which machine runs",
            GENERATED: "the project's generated modules, which spellbook-codegen writes",
            VOCABULARY: "the project's Python vocabulary (its module or package, and the "
            "compiled files beside it), which `spell` imports and runs",
            GIT: "git's own folder, whose HEAD holds the machine the hook judges by (and "
            "where a repository ends)",
            CACHE: "Spellbook's cache, whose tables spell takes for pyproject.toml's",
            INTERPRETER: "where the Python that runs the hook loads its code from (a `.pth` "
            "or module written there would run at its next call), or a folder that holds it",
            UNCOMMITTED: "a state file (or a folder holding one) of no machine the project "
            "has as committed (one added or moved in the working tree): the hook judges by "
            "HEAD, so until the spec and the generated module are committed it cannot judge "
            "a write of it",
            UNREAD: "a JSON file or a folder that may keep the state of a machine added in "
            "the working tree, which the hook cannot tell while the working tree's "
            "pyproject.toml cannot be read; fix it (`spell status` says what is wrong)",
            SETTINGS: "Claude Code's settings, a settings file or a folder that holds one: a "
            "settings file can remove this hook or turn every hook off (`disableAllHooks`), "
            "and `.mcp.json` says which program each MCP server is and how it runs, "
            "so the developer edits them by hand, not the session",
        }[self.kind]


# -- names and globs --

_CLOSING = {"[": "]", "(": ")", "{": "}"}
_SPECIAL = re.compile(r"[*?\[\]{}()\\]")  # a character that makes a part a glob
_ESCAPE = re.compile(r"\\(?s:.)")  # a backslash and the character it escapes
_OPENING = re.compile(r"[@+!*?]\(|[\[({]")  # a bracket, a brace, a group (an extglob's)
_ODD = re.compile(r"[\0\])}]")  # an escape's character (as `wildcards` marks it), a closing
_STARS = re.compile(r"\*\*+")
_KNOWN: dict[str, tuple[str | None, int]] = {}  # each part met, as `_known` says it
KNOWN_LIMIT = 100_000  # parts kept: past it, forgotten (each is then worked out once more)


def wildcards(part: str) -> str | None:
    """One part of a glob (no `/`) as an fnmatch pattern of `*`, `?` and literal
    characters that matches every name the part matches in bash (with extglob),
    minimatch or picomatch; None if the part is a plain name.

    Beyond `*` and `?`, every construct is an over-approximation, never read
    precisely: a bracket expression (`[^x]`, `[!x]`, `[[:alpha:]]`, `[a-z]`), from its
    `[` to the part's last `]`, an extglob (`@(..)`, `+(..)`, `!(..)`, `*(..)`,
    `?(..)`, a group) from its `(` to the last `)`, and braces left unexpanded (a
    range `{a..b}`) from `{` to the last `}`, each as `*`; so is a backslash and the
    character it escapes, and a closing with no opening. An opening with no closing
    after it runs to the end of the part. Linear in the part's length: regular
    expressions but for the openings, each of which jumps to the last closing of its
    kind (so there are at most four: one of each kind, then one to the end)."""
    if _SPECIAL.search(part) is None:
        return None
    # The escapes marked (a NUL for each character: a NUL ends a path, so no part has
    # one), the rest where it is: an escaped opening opens nothing.
    marked = _ESCAPE.sub("\0\0", part)
    marked = marked[:-1] + "\0" if marked.endswith("\\") else marked
    out: list[str] = []
    at, end = 0, len(part)
    while at < end:
        opening = _OPENING.search(marked, at)
        stop = end if opening is None else opening.start()
        out.append(_ODD.sub("*", marked[at:stop]))
        if opening is None:
            break
        close = part.rfind(_CLOSING[marked[opening.end() - 1]], opening.end())
        out.append("*")
        at = close + 1 if close >= 0 else end
    return _STARS.sub("*", "".join(out))


def _known(part: str) -> tuple[str | None, int]:
    """`wildcards(part)`, and the fewest characters a name it matches has: worked out
    once for each part, however many names and guarded folders it is matched against."""
    found = _KNOWN.get(part)
    if found is None:
        if len(_KNOWN) >= KNOWN_LIMIT:
            _KNOWN.clear()
        wild = wildcards(part)
        found = _KNOWN[part] = (wild, 0 if wild is None else len(wild) - wild.count("*"))
    return found


def is_glob(part: str) -> bool:
    """Whether one part of a path is a glob rather than a name."""
    return _known(part)[0] is not None


def deep(part: str) -> bool:
    """Whether a glob's part may name anything below its folder too: `**`, or a group
    (`@(`, `{`) opened and not closed in the part, which may hold a `/`."""
    return "**" in part or part.rfind("(") > part.rfind(")") or part.rfind("{") > part.rfind("}")


def may_match(pattern: str, name: str) -> bool:
    """Whether a glob's part (folded) may match a name (folded). A part that needs
    more characters than the name has matches nothing, whatever its length."""
    wild, least = _known(pattern)
    if wild is None:
        return pattern == name
    if least > len(name):
        return False
    import fnmatch  # compiles a pattern once (its cache): only for globs

    return fnmatch.fnmatchcase(name, wild)


def _same(name: str, other: str) -> bool:
    return name == other


def _parts(path: str) -> list[str]:
    return [p for p in path.split(os.sep) if p]


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
    found = [[folded_name(p) for p in _parts(os.path.abspath(path))]]
    real = [folded_name(p) for p in _parts(os.path.realpath(path))]
    return found if real == found[0] else [*found, real]


class Named:
    """A path as the guards compare it: its parts as written and folded, cut before a
    part that names anything below (`**`), the matcher its parts take (a glob's, with
    `patterns`), and whether it was cut."""

    __slots__ = ("path", "written", "parts", "fits", "deep", "_identity", "_looked")

    def __init__(self, path: str, patterns: bool) -> None:
        self.path = path
        self._identity: tuple[int, int] | None = None
        self._looked = False
        self.written = _parts(path)
        self.parts = [folded_name(p) for p in self.written]
        self.fits = may_match if patterns else _same
        cut = next((i for i, p in enumerate(self.parts) if deep(p)), None) if patterns else None
        self.deep = cut is not None
        if cut is not None:  # a glob naming anything below its folder
            self.written, self.parts = self.written[:cut], self.parts[:cut]

    def identity(self) -> tuple[int, int] | None:
        """The device and inode of what the path is, where it exists."""
        if not self._looked:
            self._looked = True
            self._identity = _identity(self.path)
        return self._identity

    def names(self, folder: list[str]) -> bool:
        """Whether it names `folder` (folded parts) or something in it; a glob cut
        before `**` above it names something in it too."""
        return _under(self.parts, folder, self.fits) or (
            self.deep and _holds(self.parts, folder, self.fits)
        )


def _identity(path: str) -> tuple[int, int] | None:
    """The device and inode of what `path` is; None where it does not exist."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino)


def names_git(path: str) -> bool:
    """Whether a part of `path` is git's own folder (`paths.is_git`), as written or with
    its backslashes dropped (as a tool that reads them as escapes would)."""
    return any(is_git(p) or ("\\" in p and is_git(p.replace("\\", ""))) for p in _parts(path))


# -- Claude Code's settings --

CLAUDE = ".claude"  # the folder of a project's settings files (and the user's, by default)
SETTINGS_FILES = ("settings.json", "settings.local.json")  # in it: each can carry hooks
# Where an organization's managed settings live (`managed-settings.json`, and the files
# of `managed-settings.d/`): Linux's and macOS's folders, guarded whole.
MANAGED_SETTINGS = ("/etc/claude-code", "/Library/Application Support/ClaudeCode")


def settings_paths() -> tuple[list[str], list[str]]:
    """(files, folders): the user's settings files (in `$CLAUDE_CONFIG_DIR`, else in
    `~/.claude`), Claude Code's own state file (`~/.claude.json`, or `.claude.json` in
    `$CLAUDE_CONFIG_DIR`: the MCP servers of the user's and each project's local scope),
    and the folders of managed settings, guarded whole."""
    home = os.path.expanduser("~")
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    user = config or os.path.join(home, CLAUDE)
    files = [os.path.join(user, name) for name in SETTINGS_FILES]
    files.append(os.path.join(home, ".claude.json"))
    if config:
        files.append(os.path.join(config, ".claude.json"))
    return files, list(MANAGED_SETTINGS)


def names_settings(parts: list[str]) -> bool:
    """Whether a path of folded `parts` is a `.claude` folder or a settings file in one,
    or a project's MCP servers file (`.mcp.json`: each server's command, arguments and
    environment, `spell mcp`'s `--root` and `SPELLBOOK_TEST_COMMAND` among them), by
    name (wherever it is: Claude Code started in that folder's parent reads it)."""
    return bool(parts) and (
        parts[-1] in (CLAUDE, MCP_SERVERS)
        or (len(parts) > 1 and parts[-2] == CLAUDE and parts[-1] in SETTINGS_FILES)
    )


MCP_SERVERS = ".mcp.json"  # a project's MCP servers, which Claude Code starts


def holds_settings(path: str) -> bool:
    """Whether the folder `path` holds a `.claude` folder with a settings file in it."""
    return any(os.path.lexists(os.path.join(path, CLAUDE, name)) for name in SETTINGS_FILES)


# -- what is guarded --


class Everywhere:
    """What is guarded wherever a tool call writes: any `.git`, Claude Code's settings (a
    `.claude` folder and its settings files by name, a folder holding them, the user's
    and the managed ones of `settings_paths`, and the settings files of `projects`, the
    folders Claude Code may have been started in, whatever they are linked as), Spellbook's
    cache (and the folder of the system's temporary folder keys are kept in where the
    cache cannot be written), and the Python that runs the hook
    (`spellbook.doors.interpreter`)."""

    def __init__(self, projects: list[str]) -> None:
        from spellbook.disk.user_cache import cache_folders, temporary_folder
        from spellbook.doors import interpreter

        # each cache folder a cast of the user's may use (a key in any seals a record),
        # and the folder keys are kept in where none can be written
        caches = [folder for folder in (*cache_folders(), temporary_folder()) if folder]
        self.cache = [form for folder in caches for form in _forms(folder)]
        trees, entries = interpreter.guarded()
        self.interpreter = [form for path in trees for form in _installed_forms(path)]
        self.entries = [form for path in entries for form in _forms(path)]
        files, folders = settings_paths()
        self.settings = [form for path in files + folders for form in _forms(path)]
        projects = [os.path.join(p, CLAUDE, name) for p in projects for name in SETTINGS_FILES]
        self.settings_inodes = {_identity(path) for path in files + projects} - {None}

    def hits(self, named: Named) -> list[Hit]:
        path, parts, fits = named.path, named.parts, named.fits
        found = [Hit(GIT, path)] if names_git(path) else []
        if (
            names_settings(parts)
            or (not named.deep and holds_settings(path))
            or any(_holds(parts, s, fits) or _under(parts, s, fits) for s in self.settings)
            or named.identity() in self.settings_inodes
        ):
            found.append(Hit(SETTINGS, path))
        if any(_holds(parts, f, fits) or _under(parts, f, fits) for f in self.interpreter) or any(
            _imports(named, entry) for entry in self.entries
        ):
            found.append(Hit(INTERPRETER, path))
        if any(_holds(parts, c, fits) or _under(parts, c, fits) for c in self.cache):
            found.append(Hit(CACHE, path))
        return found


_INSTALLED: dict[str, list[list[str]]] = {}  # `_forms` of the installation's paths


def _installed_forms(path: str) -> list[list[str]]:
    """`_forms(path)` of a path of the installation, worked out once in a process."""
    found = _INSTALLED.get(path)
    if found is None:
        found = _INSTALLED[path] = _forms(path)
    return found


def _imports(named: Named, entry: list[str]) -> bool:
    """Whether `named` is the module path's `entry` (folded parts), a folder holding it,
    or what it holds under a name the hook's Python imports (`interpreter.imported`);
    a glob there may be any name."""
    parts, fits = named.parts, named.fits
    if _holds(parts, entry, fits):
        return True
    if len(parts) <= len(entry) or not _under(parts, entry, fits):
        return False
    from spellbook.doors import interpreter

    first = parts[len(entry)]
    return (fits is may_match and is_glob(first)) or (
        interpreter.module_name(first) in interpreter.imported()
    )


class Site:
    """A repository a tool call may touch (its root): what is guarded there whatever the
    machine (its pyproject.toml files, the project's generated folder, its git folders)."""

    def __init__(self, root: str) -> None:
        from spellbook.disk import git
        from spellbook.disk.project import (
            DEFAULT_GENERATED,
            ProjectError,
            find_project,
            read_project,
        )

        self.root = os.path.abspath(root)
        repository = git.find(self.root)
        self.top = _forms(repository.top if repository is not None else self.root)
        self.above = _forms(self.root)  # a pyproject.toml of a folder holding it counts
        folders = repository.folders() if repository is not None else []
        self.git = [form for path in folders for form in _forms(path)]
        self.project = find_project(self.root)
        self.generated_folder = ""
        self.vocabularies: list[str] = []
        if self.project is not None:
            try:  # the folder `spell` loads modules from, as the working tree says
                config = read_project(self.project)
                generated = config.generated
                named = [config.vocabulary, *(e.vocabulary or "" for e in config.machines)]
            except ProjectError:  # `spell` cannot read it either; the default, then
                generated, named = DEFAULT_GENERATED, []
            self.generated_folder = os.path.join(self.project, generated)
            # A vocabulary in Python is imported from the project's folder: its module
            # (or package), the `__init__.py` of each package it is in, and the compiled
            # files beside each; never the rest of a package it is in.
            self.vocabularies = sorted(
                {
                    os.path.join(self.project, path)
                    for name in named
                    if _python_vocabulary(name)
                    for path in _module_files(name)
                }
            )
        self.generated = _forms(self.generated_folder) if self.generated_folder else []
        self.vocabulary = [form for path in self.vocabularies for form in _forms(path)]
        self._inodes: dict[tuple[int, int], Hit] | None = None

    def hits(self, named: Named) -> list[Hit]:
        path, parts, fits = named.path, named.parts, named.fits
        found = []
        for generated in self.generated:
            if _holds(parts, generated, fits):
                found.append(Hit(GENERATED if len(parts) == len(generated) else FOLDER, path))
            elif _under(parts, generated, fits):
                found.append(Hit(GENERATED, path))
        for vocabulary in self.vocabulary:
            if _holds(parts, vocabulary, fits) or _under(parts, vocabulary, fits):
                found.append(Hit(VOCABULARY, path))
                break
        found += [Hit(GIT, path) for git in self.git if named.names(git)][:1]
        config = not named.deep and parts and fits(parts[-1], "pyproject.toml")
        below = any(_under(parts, top, fits) for top in self.top)
        if config and (below or any(_holds(parts[:-1], root, fits) for root in self.above)):
            found.append(Hit(CONFIG, path))
        return found + _by_identity(named, self.inodes)

    def inodes(self) -> dict[tuple[int, int], Hit]:
        """What each guarded file and folder of the site that exists is, by device and
        inode: the project's pyproject.toml, its generated folder and what it holds."""
        if self._inodes is None:
            found: dict[tuple[int, int], Hit] = {}
            if self.project is not None:
                _note(found, os.path.join(self.project, "pyproject.toml"), CONFIG)
            if self.generated_folder:
                folder = self.generated_folder
                _note(found, folder, GENERATED, holders=True)
                for name in _listed(folder):
                    _note(found, os.path.join(folder, name), GENERATED)
            for path in self.vocabularies:  # a module's file, by what it is
                _note(found, path, VOCABULARY)
            self._inodes = found
        return self._inodes


def _python_vocabulary(name: str) -> bool:
    """Whether a `vocabulary` setting names a Python module of the project's (`words`,
    `my_project.words`), not a file of words (`glossary.md`, `words/ours.md`), one that
    ships with Spellbook (`spell_workflow`), nor none."""
    if not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", name):
        return False
    if name.rsplit(".", 1)[-1].lower() in ("md", "markdown", "yaml", "yml", "json", "toml"):
        return False
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # spellbook/
    return "." in name or not os.path.isfile(
        os.path.join(package, "vocabularies", name, "vocabulary.md")
    )


def _module_files(name: str) -> list[str]:
    """The files (from the project's folder) Python may run for the module `name`: the
    module or its package, each package's `__init__.py` above it, and the `__pycache__`
    of each of those folders."""
    parts = name.split(".")
    found = []
    for depth in range(1, len(parts)):  # the packages it is in
        folder = os.path.join(*parts[:depth])
        found += [os.path.join(folder, "__init__.py"), os.path.join(folder, "__pycache__")]
    here = os.path.join(*parts[:-1]) if len(parts) > 1 else ""
    found += [os.path.join(here, parts[-1]), os.path.join(here, f"{parts[-1]}.py")]
    return [*found, os.path.join(here, "__pycache__")]


class Place:
    """The workspace of one machine (`module`) of a site, rooted at `root` (the site's
    root unless given): what is guarded there. Its workflow is made when a path names
    something in the workspace."""

    def __init__(self, site: Site, module: ModuleType, root: str | None = None) -> None:
        self.site = site
        self.module = module
        self.root = os.path.abspath(root) if root is not None else site.root
        self.workspace = Workspace(self.root, module.WORKSPACE)  # UnsafePath if not a folder in it
        self.base = self.workspace.base
        self.folder = _forms(self.base)
        self._workflow: Workflow | None = None
        self._names: dict[str, str] | None = None
        self._inodes: dict[tuple[int, int], Hit] | None = None
        self._entries: list[str] | None = None  # the workspace folder's, once listed

    @property
    def workflow(self) -> Workflow:
        """The machine's workflow at the root (one not made yet: a workspace a write would
        start, whose state file is not there)."""
        if self._workflow is None:
            from spellbook.cast.workflow import Workflow

            self._workflow = Workflow(self.root, self.module)
        return self._workflow

    def state_file(self) -> str:
        return self.workflow.state_file

    def names(self) -> dict[str, str]:
        """The judged files (the state file, KEPT's, JUDGED), by their folded names."""
        if self._names is None:
            from spellbook.cast.hand_moves import judged_files

            judged = judged_files(self.workflow.engine)
            self._names = {"/".join(folded_name(p) for p in n.split("/")): n for n in judged}
        return self._names

    def hits(self, named: Named) -> list[Hit]:
        """The guarded things of this place that `named` names."""
        found = []
        for folder in self.folder:
            if _holds(named.parts, folder, named.fits):
                found.append(Hit(FOLDER, named.path, self))
            elif _under(named.parts, folder, named.fits):
                found += self._in_workspace(named.written[len(folder) :], named.fits)
        return found + _by_identity(named, self.inodes)

    def _in_workspace(self, rest: list[str], fits: Callable[[str, str], bool]) -> list[Hit]:
        """The hits for the workspace file written as `rest` (its parts below the folder),
        if it is guarded: known by the guarded name it is but for case, normalization
        and trailing dots or spaces; a glob, by every name of the folder it matches."""
        key = "/".join(folded_name(p) for p in rest)
        name = self.names().get(key)
        folded = [folded_name(p) for p in rest]
        if name is None and any("/".join(folded[:i]) in self.names() for i in range(1, len(rest))):
            # a path under a judged file's name (`state.json/x`): writing it makes the file a
            # folder, and every cast stops until a repair
            return [Hit(RUNTIME, "/".join(rest), self)]
        if name is None and fits is may_match and rest:
            from spellbook.disk.own_files import RUNTIME_FILES

            if self._entries is None:
                self._entries = _listed(self.base)
            known = {*self.names().values(), *RUNTIME_FILES, *self._entries}
            return [
                hit
                for other in sorted(known)
                if may_match(folded_name(rest[0]), folded_name(other))
                for hit in self._in_workspace([other, *rest[1:]], _same)
            ]
        name = name or "/".join(rest)
        if not name or name.startswith(".") or backup_of(name, self.state_file()):
            return [Hit(RUNTIME, name, self)] if name else []
        return [Hit(WORKSPACE, name, self)] if self.workflow.guards(name) else []

    def inodes(self) -> dict[tuple[int, int], Hit]:
        """What each guarded file and folder of the workspace that exists is, by device
        and inode: the folder and those holding it, each file it guards."""
        if self._inodes is None:
            found: dict[tuple[int, int], Hit] = {}
            _note(found, self.base, FOLDER, holders=True, place=self)
            for name in _listed(self.base):
                for hit in self._in_workspace([name], _same):
                    _note(found, os.path.join(self.base, name), hit.kind, hit.name, place=self)
            self._inodes = found
        return self._inodes


def _by_identity(named: Named, inodes: Callable[[], dict[tuple[int, int], Hit]]) -> list[Hit]:
    identity = named.identity()
    hit = inodes().get(identity) if identity is not None else None
    return [hit] if hit is not None else []


def _note(
    found: dict[tuple[int, int], Hit],
    path: str,
    kind: str,
    name: str = "",
    holders: bool = False,
    place: Place | None = None,
) -> None:
    """Note what `path` is, and, with `holders`, that each folder above it holds it."""
    while True:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            info = None
        if info is not None:
            found.setdefault((info.st_dev, info.st_ino), Hit(kind, name or path, place))
        parent = os.path.dirname(path)
        if not holders or parent == path:
            return
        path, kind, name = parent, FOLDER, ""


def _listed(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except (OSError, ValueError):
        return []
