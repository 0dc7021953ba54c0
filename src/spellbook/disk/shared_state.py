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

from spellbook.disk.loading import MODULE_LIMIT, read_at_most
from spellbook.disk.project import find_project, read_project
from spellbook.records.errors import SpellbookError


def one_file(path: str) -> str:
    """A state file's path as the filesystem may take it: `.` and `//` gone, in any case
    (a filesystem that ignores case makes `.Desk/state.json` and `.desk/state.json`
    one file)."""
    return posixpath.normpath(path.replace("\\", "/")).casefold()


def sharing(root: str, machine: object, state: str) -> tuple[str, str, str] | None:
    """The machine of the project at `root` (its name and spec), other than `machine`,
    that keeps its state in `machine`'s state file and has the state `state`, and the
    name the project gives `machine` ("" for none); None if there is no such machine
    (or the project cannot be read: the usual message stands)."""
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


def declared(text: str) -> tuple[str, frozenset[str]] | None:
    """The state file and the state names a generated module's text declares (its
    `STATE_FILE` and `STATES`), read as data; None where they cannot be read."""
    import ast  # the error path only

    start = text.find("\nSTATE_FILE = ")
    end = text.find("\nWORKSPACE = ", start)
    states = text.find("\nSTATES: tuple[State, ...] = (")
    close = text.find("\n)\n", states)
    if min(start, end, states, close) < 0:
        return None
    try:
        kept = ast.parse(text[start:end]).body
        listed = ast.parse(text[states : close + 2]).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(kept) != 1 or len(listed) != 1:
        return None
    path, tuple_ = kept[0], listed[0]
    if not (
        isinstance(path, ast.Assign)
        and isinstance(path.value, ast.Constant)
        and isinstance(path.value.value, str)
        and isinstance(tuple_, ast.AnnAssign)
        and isinstance(tuple_.value, ast.Tuple)
    ):
        return None
    names = frozenset(
        call.args[0].value
        for call in tuple_.value.elts
        if isinstance(call, ast.Call)
        and call.args
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )
    return path.value.value, names
