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
- `mark` sets the status of the current feature (`feature_id`) in a feature list.
- `select` makes the first pending feature the current one, with `attempts` at 1.
- `increment` adds one to a counter of the state file (`attempts`).
"""

from __future__ import annotations

import json
import os
import re
import time

from spellbook.errors import ActionError
from spellbook.formats import Record
from spellbook.store import Workspace
from spellbook.tables import ACTING_VERBS, Done, Rule

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


def perform(
    rule: Rule, workspace: Workspace, record: Record | None = None, today: str | None = None
) -> Done:
    """Carry out `rule`'s actions in `workspace` (and on `record`, the state file being
    written); raises ActionError before any change."""
    done = Done()
    if not any(a.verb in ACTING_VERBS for a in rule.actions):
        return done  # nothing to do
    record = record if record is not None else Record("")
    variables = {"date": today or time.strftime("%Y-%m-%d")}
    lists: dict[str, dict[str, object]] = {}
    for action in rule.actions:
        if action.verb == "extract":
            variables[action.target] = extract(workspace, action.files[0], action.target, done)
        elif action.verb in ("mark", "select") and action.files[0] not in lists:
            lists[action.files[0]] = feature_list(workspace, action.files[0])
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
        elif action.verb == "mark":
            _mark(workspace, action.files[0], lists[action.files[0]], action.target, record, done)
        elif action.verb == "select":
            _select(lists[action.files[0]], record, done)
        elif action.verb == "increment":
            count = record.extra.get(action.target, 0)
            record.extra[action.target] = (count if isinstance(count, int) else 0) + 1
    return done


def feature_list(workspace: Workspace, name: str) -> dict[str, object]:
    """A feature list, checked: an object with a list of features, each with an id."""
    text = workspace.read_text(name, LOAD_LIMIT)
    shown = workspace.shown(name)
    if text is None:
        raise ActionError(f"{shown} is missing")
    try:
        value = json.loads(text)
    except ValueError as err:
        raise ActionError(f"{shown} is not valid JSON ({err})") from None
    entries = value.get("features") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        raise ActionError(f'{shown} must be an object with a "features" list')
    if not all(isinstance(f, dict) and isinstance(f.get("id"), str) for f in entries):
        raise ActionError(f'{shown}: every feature must be an object with a text "id"')
    return value  # type: ignore[no-any-return]


def _mark(
    workspace: Workspace,
    name: str,
    value: dict[str, object],
    status: str,
    record: Record,
    done: Done,
) -> None:
    current = record.extra.get("feature_id")
    entries = value["features"]
    assert isinstance(entries, list)
    for feature in entries:
        if feature.get("id") == current:
            feature["status"] = status
            text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
            workspace.replace(name, text.encode("utf-8"))
            done.notes.append(f"feature {current} is now {status}")
            return
    done.notes.append(f"no current feature to mark {status} in {workspace.shown(name)}")


def _select(value: dict[str, object], record: Record, done: Done) -> None:
    entries = value["features"]
    assert isinstance(entries, list)
    pending = [f["id"] for f in entries if f.get("status") == "pending"]
    record.extra["feature_id"] = pending[0] if pending else None
    record.extra["attempts"] = 1
    done.notes.append(f"current feature: {pending[0]}" if pending else "no pending feature is left")


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
