"""The core's verbs that edit files in place: copy, move, append a line, set a JSON
value, append an item to a JSON list. Each is planned like every other action
(`spellbook.verbs.actions.plan`): it reads what it needs through the plan's view of the
files, and its writes are operations applied once, after every action of the rule was
checked.

- `copy`: F's text as a new file G; a G already there is kept, never overwritten.
  G may hold `${date}` and extracted values, as archive folders do.
- `move`: F renamed G (into the folder, for a G ending in `/`); a G already there
  stops the cast, since one of the two would be lost.
- `append`: a line at the end of F (made if missing); `${date}` and values an
  earlier Extract read fill it.
- `set_field`: the place a query names in the JSON object in F set to a JSON value (F
  made as `{}` if missing; each string `"$name"` in it the state file's field): a
  top-level key (`approved`), or a key inside the one item a filter keeps
  (`tickets[id=$ticket].status`, `spellbook.facts.json_values.place`); no item or
  several stop the cast with nothing written.
- `append_item`: a JSON value added at the end of the list a query names in F (the
  list made if missing), each string `"$name"` in it the state file's field.

The JSON verbs keep anything else in the file, and write it again in its own layout
(`layout`): its indent, or on one line as it was (compact, or with JSON's default
spaces), its line ends and final line end; a new file with two spaces of indent.

Every text a cast writes is at most the size a cast reads (`store.READ_LIMIT`), or the
cast stops before anything moves (`actions.plan`).
"""

from __future__ import annotations

import json
import re

from spellbook.disk.state_file import parse_json
from spellbook.records.errors import ActionError, BadFile
from spellbook.records.outcome import Did
from spellbook.verbs.folder_names import folder_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from spellbook.disk.store import Workspace
    from spellbook.records.outcome import Done
    from spellbook.schema import Action

    class Files(Protocol):
        """The files as the operations planned so far leave them (`operations.Files`)."""

        def read_exact(self, name: str) -> str | None: ...

        def exists(self, path: str) -> bool: ...

        def where(self, name: str) -> str: ...

        def create(self, name: str, text: str) -> bool: ...

        def move(self, name: str, dest: str) -> None: ...

    class Step(Protocol):
        """What an edit sees of the cast being planned (`actions.Step`)."""

        workspace: Workspace
        done: Done
        fields: dict[str, Any]

        @property
        def files(self) -> Files: ...

        def update(self, name: str, text: str) -> None: ...

        def note(self, text: str) -> None: ...

        def shown(self, name: str) -> str: ...


_VARIABLE = r"\$\{(\w+)\}"


def edit(action: Action, index: int, step: Step, variables: dict[str, str]) -> None:
    """Plan one edit through `step` (the plan's view of the files); ActionError if it
    cannot be done, with nothing changed."""
    files = step.files
    if action.verb in ("copy", "move"):
        source, dest = action.files[0], folder_of(action.files[1], variables, step.done)
        if dest.endswith("/"):
            dest += source.rsplit("/", 1)[-1]
        step.workspace.path(dest)  # inside the workspace, or the cast stops here
        # A copy writes the text again (so it must be UTF-8); a move only renames.
        text = files.read_exact(source) if action.verb == "copy" else ""
        if text is None or not files.exists(files.where(source)):
            step.done.did.append(Did(index, action.verb, (), (source,)))
            return
        if files.exists(dest):  # what is at `dest` now, not where a file once there went
            if action.verb == "move":
                raise ActionError(
                    f"{step.shown(dest)} is already there, and moving {step.shown(source)} "
                    "onto it would lose one of them; move or delete it first"
                )
            step.done.did.append(Did(index, "copy", (), (), dest))  # kept as it is
            return
        if action.verb == "copy":
            files.create(dest, text)
        else:
            files.move(source, dest)
        moved = (dest,) if action.verb == "move" else ()
        step.done.did.append(Did(index, action.verb, (source,), (), dest, moved))
    elif action.verb == "append":
        name = action.files[0]
        line = _filled(action.target, variables)
        old = files.read_exact(name)
        text = (old or "") + ("\n" if old and not old.endswith("\n") else "") + line + "\n"
        if old is None:
            files.create(name, text)
        else:
            step.update(name, text)
        step.done.did.append(Did(index, "append", (name,)))
    elif action.verb in ("set_field", "append_item"):
        _set_in_json(action, index, step)


def _set_in_json(action: Action, index: int, step: Step) -> None:
    """`set_field`: the place a query names set to a value; `append_item`: a value added
    at the end of the list a query names (made if missing); a string `"$name"` in the
    value is the state file's field. Nothing is written where the query names no one place."""
    from spellbook.facts.json_values import Unplaced, place

    files = step.files
    name = action.files[0]
    query, value = json.loads(action.target)
    old = files.read_exact(name)
    found: object = {}
    doing = f"cannot {'set' if action.verb == 'set_field' else 'append to'} `{query}` in it"
    if old is not None:
        try:
            found = parse_json(old, step.shown(name))
        except BadFile as err:
            raise ActionError(f"{err}; {doing}") from None
    if not isinstance(found, dict):
        raise ActionError(f"{step.shown(name)} is not a JSON object; {doing}")
    try:
        where, key = place(found, query, step.fields)
    except Unplaced as err:
        raise ActionError(f"{step.shown(name)}: {err}; {doing}") from None
    if action.verb == "set_field":
        where[key] = filled = _filled_value(value, step.fields, name, step)
        if "$" in query:  # which item the state file's fields chose: the words do not say
            step.note(
                f"`{_filled_query(query, step.fields)}` of {step.shown(name)} is now "
                f"{_json(filled)}"
            )
    else:
        items = where.setdefault(key, [])
        if not isinstance(items, list):
            raise ActionError(f"{step.shown(name)}: `{query}` is not a list; {doing}")
        items.append(_filled_value(value, step.fields, name, step))
    text = layout(old)(found)
    if old is None:
        files.create(name, text)
    else:
        step.update(name, text)
    step.done.did.append(Did(index, action.verb, (name,)))


def _filled_query(query: str, fields: dict[str, Any]) -> str:
    """`query` with each `$name` the state file's field (`tickets[id=T1].state`)."""
    from spellbook.facts.json_values import FIELD

    return re.sub(FIELD, lambda m: str(fields.get(m[1]))[:80], query)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)[:80]


def _filled_value(value: object, fields: dict[str, Any], name: str, step: Step) -> object:
    """`value` with each string `"$name"` in it the state file's field `name` (one that
    is not set stops the cast: an item that names nothing is not added)."""
    from spellbook.facts.json_values import FIELD

    if isinstance(value, str) and re.fullmatch(FIELD, value):
        field = fields.get(value[1:])
        if field is None:
            raise ActionError(
                f"{value[1:]} is not set in the state file, so {value} names nothing; "
                f"nothing is written to {step.shown(name)}"
            )
        return field
    if isinstance(value, list):
        return [_filled_value(v, fields, name, step) for v in value]
    if isinstance(value, dict):
        return {k: _filled_value(v, fields, name, step) for k, v in value.items()}
    return value


def variables_of(action: Action) -> set[str]:
    """The `${name}`s an edit's line or destination uses."""
    if action.verb == "append":
        return set(re.findall(_VARIABLE, action.target))
    if action.verb in ("copy", "move"):
        return set(re.findall(_VARIABLE, action.files[1]))
    return set()


def _filled(text: str, variables: dict[str, str]) -> str:
    def fill(m: re.Match[str]) -> str:
        if m.group(1) not in variables:
            raise ActionError(f"{text!r} uses ${{{m.group(1)}}}, which is not known")
        return variables[m.group(1)]

    return re.sub(_VARIABLE, fill, text)


# A JSON text's strings, which say nothing of its layout.
_STRING = r'"(?:[^"\\\n]|\\.)*"'


def layout(old: str | None) -> Callable[[object], str]:
    """How to write a JSON value as `old` was written: with its indent (spaces or a
    tab, as its first indented line has it), or on one line, compact (`{"a":1}`) or
    with JSON's default spaces (`{"a": 1}`); with its line ends (`\\r\\n`), byte order
    mark and final line end. A file that is not there yet: two spaces of indent."""
    if old is None or not old.strip(" \t\r\n\ufeff"):
        return lambda value: json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    bom = "\ufeff" if old.startswith("\ufeff") else ""
    body = old.lstrip("\ufeff").strip(" \t\r\n")
    end = old[len(old.rstrip(" \t\r\n")) :]
    newline = "\r\n" if "\r\n" in old else "\n"
    options: dict[str, Any] = {"ensure_ascii": False}
    if "\n" in body:
        indented = next((line for line in body.split("\n")[1:] if line[:1] in (" ", "\t")), "  ")
        margin = indented[: len(indented) - len(indented.lstrip(" \t"))]
        options["indent"] = margin if "\t" in margin else len(margin)
    else:
        bare = re.sub(_STRING, '""', body)
        if ": " not in bare and ", " not in bare:
            options["separators"] = (",", ":")

    def write(value: object) -> str:
        text = json.dumps(value, **options).replace("\n", newline)
        return bom + text + end

    return write
