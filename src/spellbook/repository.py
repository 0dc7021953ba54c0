"""Which repository a command is about, and its workflow: found the way git finds its own."""

from __future__ import annotations

import os
import sys

from spellbook.errors import BadFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spellbook.workflow import Workflow

# The machines `spell` drives, by the name its arguments give them.
MACHINES = {
    "spell": "spellbook.machines.spell_machine",
    "session": "spellbook.machines.session_machine",
}


def open_workflow(root: str | None, machine: str) -> Workflow:
    """The workflow of the repository at `root`, or, without one, of the repository the
    current folder is in (`find_root`), said on stderr when that is not the current
    folder: a cast from a subfolder never starts a second workspace there."""
    from importlib import import_module

    from spellbook.workflow import Workflow  # not for `spell --help`

    module = import_module(MACHINES[machine])
    if root is None:
        here = os.getcwd()
        root = find_root(here, module.WORKSPACE)
        if root != here:
            shown = os.path.join(os.path.relpath(root, here), module.WORKSPACE)
            print(f"spell: using the workspace {shown}/ ({root})", file=sys.stderr)
    elif not root:
        raise BadFile("--root needs a folder")
    elif not os.path.isdir(root):
        what = "is not a folder" if os.path.lexists(root) else "does not exist"
        raise BadFile(f"the repository folder {os.path.abspath(root)} {what}")
    return Workflow(root, module)


def find_root(start: str, workspace: str) -> str:
    """The repository a command run in `start` is about, found the way git finds its
    repository: the nearest folder at or above `start` holding the `workspace` folder,
    without leaving the repository `start` is in (its top is the nearest folder with a
    `.git` folder; a submodule's `.git` file does not end the search), else that top
    (a new workspace starts there), else `start`. A workspace above `start` counts
    only if it belongs to this user (as git asks of a repository another user owns)."""
    chain = [os.path.abspath(start)]
    while os.path.dirname(chain[-1]) != chain[-1]:
        chain.append(os.path.dirname(chain[-1]))
    inside = ""  # the nearest folder with a .git (folder or a submodule's file)
    for folder in chain:
        found = os.path.join(folder, workspace)
        if os.path.lexists(found) and (folder == chain[0] or _own(found)):
            return folder
        git = os.path.join(folder, ".git")
        if os.path.isdir(git) and not os.path.islink(git):
            return inside or folder
        if not inside and os.path.lexists(git):
            inside = folder
    return inside or chain[0]


def _own(path: str) -> bool:
    """Whether `path` belongs to the user running this (always, where there are no users)."""
    try:
        return not hasattr(os, "geteuid") or os.lstat(path).st_uid == os.geteuid()
    except OSError:
        return False
