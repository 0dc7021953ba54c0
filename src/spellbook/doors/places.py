"""The places one tool call may touch: for each path it names, the workspaces of every
machine of the project the path is in, found from the path itself as `spell` finds it.

A path's project is the one found walking up from the nearest folder of it that
exists (`project.find_project`), whichever folder the event was sent from. Guarded
there: the workspace of every machine the project lists, at the project's root (its
machines as HEAD holds them, `spellbook.doors.committed`), and of each machine that ships
with Spellbook and that the project does not list a machine of that name for, at
the root `spell` would use (`repository.find_root`) where that workspace exists. A
path that goes through a folder named as one of those workspaces is judged in that
workspace too (a new one, or one a planted `.git` would hide). Besides, always: the
repository of the event's folder (`--root`, else found from the event's `cwd`, as
`spell` finds it) with each machine's workspace there, whose files a hard link
elsewhere may be. A glob's project is that of each folder that exists that the glob
may name (listed, bounded: `MAX_PARTS` entries per event).
"""

from __future__ import annotations

import os

from spellbook.disk.own_files import folded_name
from spellbook.disk.paths import is_git
from spellbook.doors.guarded import (
    GIT,
    SETTINGS,
    UNCOMMITTED,
    UNREAD,
    Everywhere,
    Hit,
    Named,
    Place,
    Site,
    deep,
    holds_settings,
    is_glob,
    may_match,
    names_settings,
)
from spellbook.doors.tool_paths import Resolver, TooBig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

MAX_SITES = 16  # repositories one event may name

Machine = tuple[str, "ModuleType", bool]  # (root, module, listed by the project)


class Guard:
    """What one event's paths name that is guarded, in the places they may touch (see
    the module's doc). `given`: the repository (--root), else found from `base`."""

    def __init__(self, given: str | None, machine: str | None, base: str) -> None:
        from spellbook.doors.repository import find_root, resolve
        from spellbook.records.errors import BadFile

        self.given = given
        project = os.environ.get("CLAUDE_PROJECT_DIR") or ""
        # A relative path is read from the event's folder, and from the project's folder
        # and the repository's, where a tool (an MCP server) may take it from.
        self.resolver = Resolver([base, project, given or ""])
        # Claude Code's settings, of each folder it may have been started in among them.
        self.everywhere = Everywhere([os.path.abspath(f) for f in (base, project, given) if f])
        self.sites: dict[str, Site] = {}
        self.places: dict[tuple[str, str], Place] = {}
        self.modules: dict[str, ModuleType] = {}  # every machine met, by its module's name
        self._machines: dict[str, list[Machine]] = {}  # by the folder they were found from
        self._listings: dict[str, list[os.DirEntry[str]]] = {}
        self._state_files: dict[str, tuple[str, list[str] | None]] = {}  # by the folder found from
        if given:
            if not os.path.isdir(given):
                what = "is not a folder" if os.path.lexists(given) else "does not exist"
                raise BadFile(f"the repository folder {os.path.abspath(given)} {what}")
            resolve(given, machine, from_head=True)  # a machine it does not have: an error
            home = os.path.abspath(given)
        else:
            folder = self.folder_of(os.path.abspath(base))
            home = find_root(folder, resolve(folder, machine, from_head=True)[0].WORKSPACE)
        self.resolver.bases.append(home)
        self.homes = [
            self.place(home if given else root, module)
            for root, module, _ in self.machines(home if given else self.folder_of(home))
        ]
        if project:  # its repository's workspaces too, for a hard link to one of their files
            self.homes += self._places_of(os.path.abspath(project), strict=False)
        # A relative path given to a tool other than Claude Code's own (an MCP server) is
        # taken from a folder the hook cannot know: the server's. One rooted at a
        # workspace (or a folder it is in, `.ai/` of `.ai/task/`), or at a `.claude`
        # folder, takes `state.json` (`task/state.json`) or `settings.json` for the
        # guarded file there, so such a path is read from those folders too.
        folders = [f for home in self.homes for f in _up_to(home.base, home.root)]
        folders += [
            os.path.join(os.path.abspath(f), ".claude") for f in (base, project, given) if f
        ]
        self.resolver.bases += [f for f in dict.fromkeys(folders) if f not in self.resolver.bases]

    def hits(self, text: str, strict: bool, patterns: bool, own: bool = False) -> list[Hit]:
        """What `text` names that is guarded (read as a glob too, with `patterns`). Not
        `strict` (a string that may not be a path at all), a workspace it names by its
        folder's name counts only if that folder's repository exists. A glob is judged
        until something is found: a tool naming a guarded path by a glob is blocked.
        `own`: the path of one of Claude Code's own tools, relative to the event's folder
        only (an MCP server may take it from the project's or the repository's)."""
        found: list[Hit] = []
        readings = [text]
        if patterns and text.startswith("!") and not text.startswith("!("):
            readings.append("**")  # minimatch's negation: every path but the rest's
        paths = (p for r in readings for p in self.resolver.paths(r, own, patterns))
        for path in paths:
            named = Named(path, patterns)
            blocking = self.everywhere.hits(named)
            if blocking:  # never written by hand, whatever else the string names
                return blocking
            places = list(self.homes)
            for place in self._places_of(path, strict):
                if place not in places:
                    places.append(place)
            found += self._hits(named, places)
            if not found and not (patterns and _wildcards_in(path)):
                found += self._uncommitted(path, places)
            if patterns and not found and _wildcards_in(path):
                folders, gits, settings = self._reach(path)
                found += [Hit(GIT, git) for git in gits]
                found += [Hit(SETTINGS, named) for named in settings]
                reached = [p for f in folders for p in self._places_of(f, False)]
                found += self._hits(named, [p for p in dict.fromkeys(reached) if p not in places])
            if patterns and found:
                break
        kept: dict[tuple[str, str, int], Hit] = {}
        for hit in found:
            kept.setdefault((hit.kind, hit.name, id(hit.place)), hit)
        return list(kept.values())

    def _hits(self, named: Named, places: list[Place]) -> list[Hit]:
        found = [hit for place in places for hit in place.hits(named)]
        sites = dict.fromkeys(place.site for place in places)
        return found + [hit for site in sites for hit in site.hits(named)]

    def _places_of(self, path: str, strict: bool) -> list[Place]:
        """The places whose workspace `path` may be in or hold, found from the path."""
        found = [
            self.place(root, module)
            for root, module, listed in self.machines(self.folder_of(path))
            if listed or os.path.lexists(os.path.join(root, module.WORKSPACE))
        ]
        for module in list(self.modules.values()):
            root = _workspace_root(path, module.WORKSPACE)
            if root and (strict or os.path.isdir(root)):
                found.append(self.place(root, module))
        return list(dict.fromkeys(found))

    def machines(self, folder: str) -> list[Machine]:
        """The machines whose workspace a path in `folder` (one that exists) may be in:
        those of its project (at the project's root), and those that ship with
        Spellbook and that the project does not list one of that name for, nor one whose
        workspace folder is theirs, or holds it, or is in it (each at the root `spell`
        uses from `folder`): a folder the project's own machine keeps is judged by its
        spec alone. A project machine whose workspace is the repository's top keeps no
        shipped machine's folder from it: both judge (never fewer guards than named)."""
        known = self._machines.get(folder)
        if known is None:
            from importlib import import_module

            from spellbook.disk.project import SHIPPED, find_project
            from spellbook.doors import committed
            from spellbook.doors.repository import find_root

            self.resolver.charge(2 * folder.count(os.sep))  # the walks up, of each kind
            known = []
            project = find_project(folder)
            if project is not None:
                config, tree = committed.read_project(project)
                for entry in config.machines:
                    module = committed.load_machine(config, entry, tree)
                    if not getattr(module, "OWN_CODE", None):  # `spell` drives no other
                        known.append((config.root, module, True))
            names = {entry.name for entry in config.machines} if project is not None else set()
            kept = [_folder(m.WORKSPACE) for _, m, _ in known if m.WORKSPACE.strip("/")]
            for name, module_name in SHIPPED.items():
                if name not in names:
                    module = import_module(module_name)
                    mine = _folder(module.WORKSPACE)
                    if any(mine.startswith(k) or k.startswith(mine) for k in kept):
                        continue  # the project's machine keeps that folder
                    known.append((find_root(folder, module.WORKSPACE), module, False))
            for _, module, _ in known:
                self.modules.setdefault(module.__name__, module)
            self._machines[folder] = known
        return known

    def place(self, root: str, module: ModuleType) -> Place:
        key = (root, module.__name__)
        place = self.places.get(key)
        if place is None:
            site = self.sites.get(root)
            if site is None:
                if len(self.sites) >= MAX_SITES:
                    raise TooBig(f"the tool's input names more than {MAX_SITES} repositories")
                site = self.sites[root] = Site(root)
            place = self.places[key] = Place(site, module)
        return place

    def _uncommitted(self, path: str, places: list[Place]) -> list[Hit]:
        """A hit where `path` is the state file of a machine the working tree's project
        lists (`shared_state.state_files`: read off its generated module's text, nothing
        of it runs), a backup `spell repair` keeps of it, or a folder holding it, that no
        workspace of `places` keeps: a machine added or moved in the working tree and not
        committed, which the hook, judging by HEAD, cannot judge."""
        from spellbook.disk.own_files import another_state_file, others_in

        folder = self.folder_of(path)
        known = self._state_files.get(folder)
        if known is None:
            from spellbook.disk.project import find_project
            from spellbook.disk.shared_state import state_files
            from spellbook.records.errors import SpellbookError

            root = find_project(folder) or ""
            try:
                found = state_files(root, strict=True) if root else []
            except (SpellbookError, OSError):
                found = None  # its machines are not known: fail closed below
            known = self._state_files[folder] = (root, found)
        root, files = known
        bases = {os.path.realpath(place.base) for place in places}
        if files is None:
            from spellbook.facts.json_values import is_json

            inside = any(_within(path, base) for base in bases)
            if not inside and (is_json(os.path.basename(path)) or os.path.isdir(path)):
                return [Hit(UNREAD, path)]
            return []
        kept = [
            f
            for f in files
            if os.path.realpath(os.path.dirname(os.path.join(root, f))) not in bases
        ]
        for top, named in ((root, path), (os.path.realpath(root), os.path.realpath(path))):
            relative = os.path.relpath(named, top) if root else os.pardir
            if relative.split(os.sep)[0] != os.pardir and another_state_file(
                relative, "write", others_in("", kept)
            ):
                return [Hit(UNCOMMITTED, path)]
        return []

    def folder_of(self, path: str) -> str:
        """The nearest folder at or above `path` (absolute) that exists."""
        folder = path
        while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
            folder = os.path.dirname(folder)
            self.resolver.charge(1)
        return folder

    def _reach(self, path: str) -> tuple[list[str], list[str], list[str]]:
        """The folders that exist that the glob `path` (absolute) may name, or a prefix
        of it may name, as written and with links resolved; the `.git` it may name
        there; and the Claude Code settings it names there (`.claude` folders, the
        settings files in them, folders holding one). Every folder listed counts its
        entries against the event's bound."""
        parts = path.split(os.sep)
        first = next((i for i, p in enumerate(parts) if is_glob(p)), len(parts))
        current = [os.sep.join(parts[:first]) or os.sep]
        found: list[str] = []
        gits: list[str] = []
        settings: list[str] = []
        last = len(parts) - first - 1
        for at, part in enumerate(folded_name(p) for p in parts[first:]):
            if deep(part):
                below = self._below(current)
                found += below
                settings += [f for f in current + below if _is_settings(f)]
                break
            matched = [
                entry
                for folder in current
                for entry in self._listing(folder)
                if may_match(part, folded_name(entry.name))
            ]
            gits += [entry.path for entry in matched if is_git(entry.name)]
            current = [entry.path for entry in matched if _is_folder(entry)]
            found += current
            found += [os.path.realpath(e.path) for e in matched if _is_link(e) and _is_folder(e)]
            if at == last:  # what the glob names, not a folder on its way
                settings += [e.path for e in matched if _is_settings(e.path)]
        return found, gits, settings

    def _below(self, folders: list[str]) -> list[str]:
        """Every folder below `folders` (not through links: `**` does not follow them)."""
        found: list[str] = []
        stack = list(folders)
        while stack:
            for entry in self._listing(stack.pop()):
                if _is_folder(entry) and not _is_link(entry):
                    found.append(entry.path)
                    stack.append(entry.path)
        return found

    def _listing(self, folder: str) -> list[os.DirEntry[str]]:
        listed = self._listings.get(folder)
        if listed is None:
            try:
                with os.scandir(folder) as entries:
                    listed = list(entries)
            except (OSError, ValueError):
                listed = []
            self.resolver.charge(len(listed) + 1)
            self._listings[folder] = listed
        return listed


def _wildcards_in(path: str) -> bool:
    """Whether a part of `path` is a glob rather than a name."""
    return any(is_glob(p) for p in path.split(os.sep))


def _is_settings(path: str) -> bool:
    """Whether `path` (one that exists) is a `.claude` folder, a settings file in one, or a
    folder that holds one."""
    return names_settings([folded_name(p) for p in path.split(os.sep)[-2:]]) or holds_settings(path)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _workspace_root(path: str, workspace: str) -> str:
    """The folder whose `workspace` (`.claude/progress`) `path` is in, or is; "" if none.
    The outermost one: a workspace folder inside another is that one's file. Compared
    as written: a planted folder of another name is no workspace of this machine."""
    parts = path.split(os.sep)
    inner = workspace.strip("/").split("/")
    for at in range(len(parts) - len(inner) + 1):
        if parts[at : at + len(inner)] == inner:
            return os.sep.join(parts[:at]) or os.sep
    return ""


def _folder(workspace: str) -> str:
    """A workspace folder as compared with another: `.claude/progress/`."""
    return workspace.strip("/") + "/"


def _within(path: str, base: str) -> bool:
    """Whether `path` is `base` (a real path) or in it."""
    real = os.path.realpath(path)
    return real == base or real.startswith(os.path.join(base, ""))


def _up_to(folder: str, root: str) -> list[str]:
    """`folder` and each folder above it, up to `root` (not it: a base already)."""
    found = []
    while folder != root and folder.startswith(os.path.join(root, "")):
        found.append(folder)
        folder = os.path.dirname(folder)
    return found
