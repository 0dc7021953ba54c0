"""The action verbs, each carried out once: create, archive, delete, load, extract.

A rule's actions are checked first (frontmatter values read and validated,
archive folders named) without touching anything; a problem found then stops
the cast before any file changes. Then they run in the spec's order:

- `create` writes the file from `templates/<name>` (or empty), unless a file is
  already there: a developer's file is never overwritten.
- `archive` moves the files that exist into a new folder named by the pattern
  (`${date}` and extracted values filled in); if that folder exists, `-2`, `-3`...
- `delete` moves the files into `.trash/<time>/` in the workspace: nothing is lost.
- `load` puts the file's text in the response for the AI (from wherever an
  earlier archive moved it).
- `extract` reads a value from a file's YAML frontmatter, for folder names; it
  must be lower-case letters, digits and dashes, at most 64 characters.
"""

from __future__ import annotations

import os
import re
import time

from spellbook.errors import ActionError
from spellbook.store import Workspace
from spellbook.tables import FILE_VERBS, Done, Rule

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
NAME_LIMIT = 64
FRONTMATTER_LIMIT = 65_536
LOAD_LIMIT = 1_000_000
TRASH = ".trash"
MISSING_NAME = "untitled"
_VARIABLE = r"\$\{(\w+)\}"


def template(name: str) -> str:
    """The project's template for a file, by its name; empty if there is none."""
    path = os.path.join(TEMPLATES, os.path.basename(name))
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def perform(rule: Rule, workspace: Workspace, today: str | None = None) -> Done:
    """Carry out `rule`'s actions in `workspace`; raises ActionError before any change."""
    done = Done()
    if not any(a.verb in FILE_VERBS for a in rule.actions):
        return done  # nothing on disk to do
    variables = {"date": today or time.strftime("%Y-%m-%d")}
    for action in rule.actions:
        if action.verb == "extract":
            variables[action.target] = extract(workspace, action.files[0], action.target, done)
    folders = {
        id(action): _folder(action.target, variables)
        for action in rule.actions
        if action.verb == "archive"
    }
    for path in [f for a in rule.actions for f in a.files] + list(folders.values()):
        workspace.path(path)  # every path is inside the workspace, or we stop here
    for folder in [*folders.values(), TRASH]:
        workspace.check(folder)  # and no folder we would write into is a symbolic link
    workspace.check()
    located: dict[str, str] = {}
    for action in rule.actions:
        if action.verb == "archive":
            done.archive_path = _archive(workspace, action.files, folders[id(action)], located)
        elif action.verb == "delete":
            _delete(workspace, action.files, located, done)
        elif action.verb == "create":
            _create(workspace, action.files[0], action.target, done)
            located.pop(action.files[0], None)
        elif action.verb == "load":
            name = action.files[0]
            done.contents[name] = workspace.read_text(located.get(name, name), LOAD_LIMIT)
    return done


def extract(workspace: Workspace, name: str, key: str, done: Done) -> str:
    """A checked frontmatter value of `name`, for a folder name."""
    text = workspace.read_text(name, FRONTMATTER_LIMIT * 16)
    if text is None:
        done.notes.append(f"{workspace.shown(name)} is missing; {key} is '{MISSING_NAME}'")
        return MISSING_NAME
    value = frontmatter(text, workspace.shown(name)).get(key)
    if value is None:
        raise ActionError(
            f"{workspace.shown(name)} has no {key} in its frontmatter; add `{key}: some-name` "
            "between the --- lines at its top"
        )
    if not isinstance(value, str) or len(value) > NAME_LIMIT or not re.fullmatch(NAME, value):
        shown = repr(value)[:80]
        raise ActionError(
            f"{workspace.shown(name)}: {key} {shown} cannot name a folder; use lower-case "
            f"letters, digits and dashes, at most {NAME_LIMIT} characters"
        )
    return value


def frontmatter(text: str, shown: str) -> dict[str, object]:
    """The YAML mapping between the `---` lines that open a file; {} if there are none."""
    lines = text.lstrip("\ufeff").split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() in ("---", "..."))
    except StopIteration:
        raise ActionError(f"{shown}: its frontmatter has no closing --- line") from None
    block = "\n".join(lines[1:end])
    if len(block) > FRONTMATTER_LIMIT:
        raise ActionError(f"{shown}: its frontmatter is larger than {FRONTMATTER_LIMIT} bytes")
    import yaml  # only casts that read frontmatter pay for PyYAML

    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as err:
        raise ActionError(f"{shown}: its frontmatter is not valid YAML ({err})") from None
    except RecursionError:
        raise ActionError(f"{shown}: its frontmatter is nested too deeply") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ActionError(f"{shown}: its frontmatter is not a mapping of names to values")
    return {str(k): v for k, v in data.items()}


def _folder(pattern: str, variables: dict[str, str]) -> str:
    def fill(m: re.Match[str]) -> str:
        if m.group(1) not in variables:
            raise ActionError(
                f"archive folder {pattern!r} uses ${{{m.group(1)}}}, which is not known"
            )
        return variables[m.group(1)]

    return re.sub(_VARIABLE, fill, pattern).strip("/")


def _archive(
    workspace: Workspace, files: tuple[str, ...], folder: str, located: dict[str, str]
) -> str:
    present = [f for f in files if workspace.exists(located.get(f, f))]
    made = workspace.new_folder(folder)
    for name in present:
        dest = f"{made}/{os.path.basename(name)}"
        workspace.move(located.get(name, name), dest)
        located[name] = dest
    return made


def _delete(
    workspace: Workspace, files: tuple[str, ...], located: dict[str, str], done: Done
) -> None:
    present = [f for f in files if workspace.exists(located.get(f, f))]
    if not present:
        return
    trash = workspace.new_folder(f"{TRASH}/{time.strftime('%Y-%m-%d-%H%M%S')}")
    for name in present:
        workspace.move(located.get(name, name), f"{trash}/{os.path.basename(name)}")
        located[name] = f"{trash}/{os.path.basename(name)}"
    done.notes.append(
        f"deleted {', '.join(present)}; kept in {workspace.shown(trash)}/ in case you need them"
    )


def _create(workspace: Workspace, name: str, template_name: str, done: Done) -> None:
    text = template(template_name) if template_name else ""
    if not workspace.create(name, text):
        done.notes.append(f"{workspace.shown(name)} already exists; it was kept as it is")
