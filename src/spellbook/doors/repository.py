"""Which repository a command is about, and its workflow: found the way git finds its own."""

from __future__ import annotations

import os
import sys

from spellbook.disk.project import SHIPPED, find_project, read_project
from spellbook.records import terminal
from spellbook.records.errors import BadFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

    from spellbook.cast.workflow import Workflow
    from spellbook.disk.project import Project
    from spellbook.doors.committed import Tree


class UnknownMachine(BadFile):
    """`--machine NAME` names no machine of the project, nor one that ships."""


MACHINE_HELP = (
    "a machine of the project's [tool.spellbook.machines], or spell or session (the ones "
    "that ship); default: the project's default machine, else spell"
)


class OwnCodeMachine(BadFile):
    """The machine's guards or callbacks are the project's own code: `spell` cannot drive it."""


def drivable(module: ModuleType, name: str) -> ModuleType:
    """The machine, unless its guards or callbacks are the project's own code (a generated
    `OWN_CODE`): only its model's methods can answer them, never `spell`."""
    own = getattr(module, "OWN_CODE", None)
    if own:
        methods = ", ".join(list(own)[:3]) + (", ..." if len(own) > 3 else "")
        raise OwnCodeMachine(
            f"the machine {name} has guards and callbacks of the project's own code "
            f"(own_code: {methods}), which only its model's methods answer, so `spell` "
            f"cannot drive it; drive it through its generated build(model) in your code "
            "(docs/guide/for-transitions-users.md)"
        )
    return module


def one_machine(command: str | None, option: str | None, argv: Sequence[str] = ()) -> str | None:
    """The machine `spell session` (command) and `--machine NAME` (option, the last of
    those in `argv`) name together; naming two (`--machine` twice, of two names, too) is
    refused, not settled by picking one, and so is a `--machine` that names none."""
    named = [*machine_options(argv), *([] if option is None else [option])]
    if "" in named:
        raise UnknownMachine("--machine needs a machine's name")
    if len(set(named)) > 1:
        first, second = dict.fromkeys(named)
        raise UnknownMachine(f"--machine names two machines, {first} and {second}; give one")
    if command is not None and option not in (None, command):
        raise UnknownMachine(f"`spell {command}` is `spell --machine {command}`; give one machine")
    return option or command


def machine_options(argv: Sequence[str]) -> list[str]:
    """The name each `--machine NAME` or `--machine=NAME` of a command line gives (up to
    a `--`, after which nothing is an option)."""
    found = []
    for at, item in enumerate(argv):
        if item == "--":
            break
        name, equals, value = item.partition("=")
        if name == "--machine" and (equals or at + 1 < len(argv)):
            found.append(value if equals else argv[at + 1])
    return found


def resolve(
    root: str | None, machine: str | None, from_head: bool = False
) -> tuple[ModuleType, str | None]:
    """The machine a command drives, and the root of the project it belongs to (None for
    a machine that ships with Spellbook, outside any project that lists it).

    `machine` is a name of the project's `[tool.spellbook.machines]` or, if the project
    lists none of that name, `spell` or `session` (the shipped ones); None is the
    project's default machine, or `spell` where no project lists any. The project is
    found from `root`, or from the current folder (`spellbook.disk.project`).

    `from_head`: the project's configuration and machine as the commit HEAD holds them
    (`spellbook.doors.committed`, for the hook), not as the working tree does."""
    from importlib import import_module

    folder = find_project(root if root else os.getcwd())
    project: Project | None = None
    tree: Tree | str | None = None
    if folder is not None and from_head:
        from spellbook.doors import committed

        project, tree = committed.read_project(folder)
    elif folder is not None:
        project = read_project(folder)
    if machine is None:
        machine = project.default if project is not None and project.default else "spell"
    entry = project.machine(machine) if project is not None else None
    if project is not None and entry is not None:
        if tree is not None:
            found = committed.load_machine(project, entry, tree)
        else:
            # Not for a machine that ships: an installed one is imported as Python does.
            from spellbook.disk.loading import load_machine, stale

            found = load_machine(project, entry)
            note = stale(project, entry, found)
            if note is not None:  # a word, never a refusal: the machine is run as it is
                print(terminal.text(f"spell: note: {note}"), file=sys.stderr)
        return drivable(found, entry.name), project.root
    if machine in SHIPPED:
        return import_module(SHIPPED[machine]), None
    if project is not None and project.machines:
        listed = ", ".join(m.name for m in project.machines)
        where = f"{project.root}/pyproject.toml lists {listed}; "
        hint = ""
    else:
        where, hint = "", "; a project lists its own under [tool.spellbook.machines]"
    raise UnknownMachine(
        f"no machine {machine!r}: {where}{' and '.join(SHIPPED)} ship with Spellbook{hint}"
    )


def open_workflow(root: str | None, machine: str | None, from_head: bool = False) -> Workflow:
    """The workflow of the repository at `root`, or, without one, of the repository the
    current folder is in: the project's root for a machine the project lists, else
    `find_root`. Said on stderr when that is not the current folder: a cast from a
    subfolder never starts a second workspace there. `from_head`: see `resolve`."""
    from spellbook.cast.workflow import Workflow  # not for `spell --help`

    if root is not None and not root:
        raise BadFile("--root needs a folder")
    if root is not None and not os.path.isdir(root):
        what = "is not a folder" if os.path.lexists(root) else "does not exist"
        raise BadFile(f"the repository folder {os.path.abspath(root)} {what}")
    if root is not None and (git := _git_folder(root)):
        raise BadFile(
            f"the repository folder {os.path.abspath(root)} is "
            + ("" if os.path.realpath(root) == git else "inside ")
            + f"git's own folder {git}, where nothing is written: give the repository's "
            f"folder, {os.path.dirname(git)}"
        )
    module, home = resolve(root, machine, from_head)
    if root is None:
        here = os.getcwd()
        root = home if home is not None else find_root(here, module.WORKSPACE)
        if root != here:
            shown = os.path.join(os.path.relpath(root, here), module.WORKSPACE)
            said = f"spell: using the workspace {shown}/ ({root})"
            print(terminal.text(said), file=sys.stderr)
    return Workflow(root, module)


def _git_folder(root: str) -> str:
    """The `.git` folder `root` is in or is (any case: a filesystem may not tell `.GIT`
    from `.git`), where nothing of a workspace is ever written; else ""."""
    path = os.path.realpath(root)
    parts = path.split(os.sep)
    for at, part in enumerate(parts):
        if part.casefold() == ".git":
            return os.sep.join(parts[: at + 1]) or os.sep
    return ""


def find_root(start: str, workspace: str) -> str:
    """The repository a command run in `start` is about, found the way git finds its
    repository: the nearest folder at or above `start` holding the `workspace` folder,
    without leaving the repository `start` is in (its top is the nearest folder with a
    `.git` folder; a submodule's `.git` file does not end the search), else that top
    (a new workspace starts there), else `start`. A workspace above `start` counts
    only if it belongs to this user (as git asks of a repository another user owns)."""
    from spellbook.disk.user_cache import owned  # not for a cast given its --root

    chain = [os.path.abspath(start)]
    while os.path.dirname(chain[-1]) != chain[-1]:
        chain.append(os.path.dirname(chain[-1]))
    inside = ""  # the nearest folder with a .git (folder or a submodule's file)
    for folder in chain:
        found = os.path.join(folder, workspace)
        if os.path.lexists(found) and (folder == chain[0] or owned(found)):
            return folder
        git = os.path.join(folder, ".git")
        if os.path.isdir(git) and not os.path.islink(git):
            return inside or folder
        if not inside and os.path.lexists(git):
            inside = folder
    return inside or chain[0]
