"""Another machine of the project that keeps its state in the same file: asked only
when a state file names a state its machine does not have.

Two machines whose state files are one file take it from each other: a cast of one
writes its state over the other's, and the other then finds a state it does not
have. `spellbook-codegen` refuses to generate such a project; a project generated
before, or by hand, can still have it. Then the state file names a state of the other
machine, and saying "your spec does not have it, run `spell repair`" would be untrue
and would set the other machine's state aside: `sharing` finds that machine, so
that the runtime says what is so, and `spell repair` refuses.

The other machines are read from their generated modules as data (the state file and
the state names they declare, read off their text): nothing of theirs runs, so the
hook, which runs no code of the working tree, may ask too.
"""

from __future__ import annotations

import os
import posixpath

from spellbook.disk.project import find_project, read_project
from spellbook.records.errors import SpellbookError


def one_file(path: str) -> str:
    """A state file's path as the filesystem may take it: `.` and `//` gone, names folded
    as `own_files.folded` folds them (a filesystem that ignores case makes
    `.Desk/state.json` and `.desk/state.json` one file)."""
    from spellbook.disk.own_files import folded

    return "/".join(folded(posixpath.normpath(path.replace("\\", "/"))))


def sharing(root: str, machine: object, state: str) -> tuple[str, str, str] | None:
    """The machine of the project at `root` (its name and spec), other than `machine`,
    that keeps its state in `machine`'s state file and has the state `state`, and the
    name the project gives `machine` ("" for none); None if there is no such machine
    (or the project cannot be read: the usual message stands)."""
    from spellbook.disk.loading import MODULE_LIMIT, read_at_most

    try:
        folder = find_project(root)
        if folder is None or os.path.abspath(folder) != os.path.abspath(root):
            return None
        project = read_project(folder)
    except (SpellbookError, OSError):
        return None
    mine = one_file(str(getattr(machine, "STATE_FILE", "")))
    own = os.path.realpath(str(getattr(machine, "__file__", "") or ""))
    name = next(
        (e.name for e in project.machines if os.path.realpath(project.module_path(e)) == own), ""
    )
    for entry in project.machines:
        path = project.module_path(entry)
        if os.path.realpath(path) == own or not os.path.isfile(path) or os.path.islink(path):
            continue
        try:
            text = read_at_most(path, MODULE_LIMIT, entry.name).decode("utf-8", "replace")
        except SpellbookError:
            continue
        found = declared(text)
        if found is not None and one_file(found[0]) == mine and state in found[1]:
            return entry.name, entry.spec, name
    return None


def state_files(root: str, exclude: str = "", strict: bool = False) -> list[str]:
    """The state file of every machine a cast may drive in the project at `root`, as paths
    from `root`: the project's (its `[tool.spellbook.machines]` as the working tree
    holds them, each read off its generated module's text: nothing of theirs runs) and
    those that ship with Spellbook. None where `root` holds no project (the shipped
    machines' workspaces hold none of each other's state files, which no action leaves
    its workspace to reach). Where the project cannot be read, or a module not (none
    generated yet: no cast of it has written a state file), theirs are not known; what
    drives them says why. `exclude`: a module not to read (the machine asking's own,
    which may name its state file before a move the spec made since). `strict`: a project
    that cannot be read is its error, not none."""
    try:
        folder = find_project(root)
        if folder is None or os.path.abspath(folder) != os.path.abspath(root):
            return []
        project = read_project(folder)
    except (SpellbookError, OSError):
        if strict:
            raise
        return []
    from spellbook.disk.loading import MODULE_LIMIT, read_at_most
    from spellbook.disk.project import SHIPPED_STATE_FILES

    modules = [project.module_path(entry) for entry in project.machines]
    if exclude:
        modules = [m for m in modules if os.path.realpath(m) != os.path.realpath(exclude)]
    found = list(SHIPPED_STATE_FILES)
    for path in modules:
        if not os.path.isfile(path) or os.path.islink(path):  # never a FIFO waited on
            continue
        try:
            with open(path, "rb") as f:  # as written, near the top: no more is read
                head = f.read(_HEAD).decode("utf-8", "replace")
            kept = _plain_state_file(head)
            if kept is None:
                text = read_at_most(path, MODULE_LIMIT, path).decode("utf-8", "replace")
                kept = _state_file(text)
        except (SpellbookError, OSError):
            continue
        if kept is not None:
            found.append(kept)
    return list(dict.fromkeys(found))


_HEAD = 8192  # of a generated module: its STATE_FILE, where it has no escapes


def _plain_state_file(head: str) -> str | None:
    """The `STATE_FILE = "..."` line of a generated module's first lines, where its text
    has no escape, quote or line break (else `_state_file` reads the whole module)."""
    mark = '\nSTATE_FILE = "'
    start = head.find(mark)
    end = head.find("\n", start + len(mark)) if start >= 0 else -1
    if end < 0 or head[end - 1] != '"':
        return None
    value = head[start + len(mark) : end - 1]
    return None if "\\" in value or '"' in value else value


# The folders an action's folder may hold that are looked through for a project of
# its own (`nested_state_file`): past it, what the folder holds is not known.
NESTED_LIMIT = 2_000


def nested_state_file(root: str, path: str) -> str:
    """Why `path` (absolute, in the project at `root`) may not be touched, where it is, or
    holds, the state file of a machine of a project nested in it (a folder below `root`
    with a pyproject.toml of its own), or a backup of one: the project `find_project`
    finds from the path, and those of the folders a folder holds (more than
    `NESTED_LIMIT` folders: not known). A nested pyproject.toml that cannot be taken
    counts too. "" where it may be."""
    from spellbook.disk.own_files import STATE_OF_ANOTHER, another_state_file, others_in
    from spellbook.disk.project import ProjectError

    top = os.path.realpath(root)

    def holds(project: str) -> bool:
        if os.path.realpath(project) == top:
            return False
        relative = os.path.relpath(path, project)
        if not os.path.relpath(project, path).startswith(os.pardir):
            return bool(state_files(project))  # the project's folder, or one holding it
        return not relative.startswith(os.pardir) and another_state_file(
            relative, "write", others_in("", state_files(project))
        )

    try:
        folder = path
        while not os.path.isdir(folder) or os.path.islink(folder):
            folder = os.path.dirname(folder)
        found = find_project(folder)
        if found is not None and holds(found):
            return STATE_OF_ANOTHER
        if not os.path.isdir(path) or os.path.islink(path):
            return ""
        for count, (here, folders, names) in enumerate(os.walk(path)):
            if count >= NESTED_LIMIT:
                return (
                    f"holds more than {NESTED_LIMIT:,} folders, too many to look through for "
                    "a project of its own whose machine's state file no action may touch; "
                    "name a folder that holds fewer"
                )
            folders[:] = [f for f in folders if f != ".git"]
            if "pyproject.toml" in names and find_project(here) == here and holds(here):
                return STATE_OF_ANOTHER
    except ProjectError as err:
        return f"is in a project whose pyproject.toml cannot be taken ({err})"
    return ""


def _state_file(text: str) -> str | None:
    """The state file a generated module's text declares (its `STATE_FILE`), read as
    data; None where it cannot be read."""
    import ast

    start = text.find("\nSTATE_FILE = ")
    end = text.find("\nWORKSPACE = ", start)  # black may wrap a long one in parentheses
    if min(start, end) < 0:
        return None
    try:
        kept = ast.parse(text[start:end]).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(kept) == 1 and isinstance(kept[0], ast.Assign):
        value = kept[0].value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


def declared(text: str) -> tuple[str, frozenset[str]] | None:
    """The state file and the state names a generated module's text declares (its
    `STATE_FILE` and `STATES`), read as data; None where they cannot be read."""
    import ast  # the error path only

    path = _state_file(text)
    states = text.find("\nSTATES: tuple[State, ...] = (")
    close = text.find("\n)\n", states)
    if path is None or min(states, close) < 0:
        return None
    try:
        listed = ast.parse(text[states : close + 2]).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(listed) != 1 or not (
        isinstance(listed[0], ast.AnnAssign) and isinstance(listed[0].value, ast.Tuple)
    ):
        return None
    names = frozenset(
        call.args[0].value
        for call in listed[0].value.elts
        if isinstance(call, ast.Call)
        and call.args
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )
    return path, names
