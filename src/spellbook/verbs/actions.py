"""The action verbs of the generic core, each one `Verb` of `VERBS` (the one list:
what each changes, its effect, its carry-out), each carried out once; the edits in
place (copy, move, append, set a JSON field) by `spellbook.verbs.edits`. A workflow's
own verbs are planned by its vocabulary module.

A cast with file actions happens in two steps. `plan` reads and checks everything
(frontmatter values, archive folder names, new file contents) without touching
anything, and returns the file operations in the spec's order; a problem found
then stops the cast before any file changes. `apply` carries them out. Every
operation can be applied again with the same result, so a cast interrupted half
way (a crash, a disk error) is finished by the next one from its intent record
(see `spellbook.cast.commit_point`):

- `create` writes the file from its template (one the machine carries in `FILES`,
  from `Create F from T`, else the vocabulary's `TEMPLATES` folder's; or empty),
  unless a file is already there: a developer's file is never overwritten.
- `archive` moves the files that exist into a new folder named by the pattern
  (`${date}` and extracted values filled in); if that folder exists, `-2`, `-3`...
- `delete` moves the files into `.trash/<time>/` in the workspace: nothing is lost.
- `load` puts the file's text in the response for the AI (from wherever an
  earlier archive moved it).
- `extract` reads a value from a file's YAML frontmatter, for folder names (every
  value the folders name, if the action names none), at most 64 characters, made
  a folder's name by `folder_name` (`Greet Me` is `greet-me`; `1.2.0` stays).
- `increment` adds one to a counter of the state file; `reset` sets it (to 0, or
  the number the spec names).
- `set_state_field` sets a field the State Persistence example declares (never the
  state, the history or a counter) to a literal, or to the first value a query selects
  in a JSON file (`spellbook.facts.json_values.select`); a query that selects nothing stops the
  cast with nothing written. The state file is written with the rest of the cast.
- `record` appends to a ledger file the matches of a pattern in a file (or in one of
  its sections) that it does not list yet, one per line (creating the ledger).
- `copy`, `move`, `append`, `set_field` and `append_item` edit files in place
  (`spellbook.verbs.edits`): a JSON value is set, or added to a list, where a query names
  one place, or the cast stops with nothing written.
- any other verb is the vocabulary's: its `plan_<verb>(step, action)` is given a
  `Step`, through which it reads files, updates them and sets state-file fields.
"""

from __future__ import annotations

import re
import time

from spellbook.disk.own_files import (
    OWN_FILE,
    PROGRAM,
    READING_VERBS,
    STATE_OF_ANOTHER,
    TRASH,
    another_state_file,
    own_file,
    program_file,
)
from spellbook.disk.state_file import Record, parse_json
from spellbook.disk.state_file import today as date_today
from spellbook.disk.store import READ_LIMIT, Workspace
from spellbook.records.errors import ActionError, BadFile, UnsafePath
from spellbook.records.outcome import Did, Done
from spellbook.schema import Action, Rule
from spellbook.verbs.operations import Files, checksum_of, distinct_names, paths_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from types import ModuleType
    from typing import Any


NAME_LIMIT = 64
MISSING_NAME = "untitled"
_VARIABLE = r"\$\{(\w+)\}"


class Plan:
    """What a rule's actions will do: file operations, state file fields, the response's parts."""

    def __init__(self) -> None:
        self.operations: list[list[str]] = []
        self.extra: dict[str, Any] = {}  # fields of the state file to set
        self.done = Done()


def _refuse_own(
    workspace: Workspace,
    path: str,
    verb: str,
    own: tuple[str, ...],
    programs: Collection[tuple[str, ...]],
    others: Callable[[], Collection[tuple[str, ...]]],
) -> None:
    """ActionError where an action of `verb` naming `path` would touch Spellbook's own
    files, another machine's state file (`others`, `own_files.others_in`), or write a
    file code or settings are taken from."""
    if own_file(path, verb, own):
        raise ActionError(f"{workspace.shown(path)} {OWN_FILE}")
    if verb not in READING_VERBS and path and another_state_file(path, verb, others()):
        # `.release/state.json`: a rule of this machine would make the AI's file the
        # other's state, a move no rule of it allows
        raise ActionError(f"{workspace.shown(path)} {STATE_OF_ANOTHER}")
    nested = _nested(workspace, path) if verb not in READING_VERBS and path else ""
    if nested:
        raise ActionError(f"{workspace.shown(path)} {nested}")
    if program_file(path, verb, programs):
        raise ActionError(f"{workspace.shown(path)} {PROGRAM}")


def _nested(workspace: Workspace, path: str) -> str:
    """Why `path` may not be touched, where it is, or holds, the state file of a project
    nested in the workspace (`shared_state.nested_state_file`), else ""; asked only where
    a folder below the project's top on the way up to it has a pyproject.toml, or the
    path is a folder; a path that leaves the workspace is said where it is taken."""
    import os

    try:
        full = workspace.path(path)
    except UnsafePath:
        return ""
    folder = os.path.dirname(full)
    while folder.startswith(os.path.join(workspace.root, "")):
        if os.path.lexists(os.path.join(folder, "pyproject.toml")):
            break
        folder = os.path.dirname(folder)
    else:
        if not os.path.isdir(full):
            return ""
    from spellbook.disk.shared_state import nested_state_file  # only where one may be

    return nested_state_file(workspace.root, full)


def plan(
    rule: Rule,
    workspace: Workspace,
    record: Record | None = None,
    today: str | None = None,
    vocabulary: ModuleType | None = None,
    templates: Callable[[str], str] | None = None,
    own: tuple[str, ...] = (),
    settable: Collection[str] = (),
    programs: Collection[tuple[str, ...]] = (),
    others: Callable[[], Collection[tuple[str, ...]]] = tuple,
) -> Plan:
    """Read and check everything `rule`'s actions need, and say what they will do;
    raises ActionError (or UnsafePath) without changing anything. `own` names the
    machine's files (its state file), which no action touches, nor the runtime's own
    (`schema.RUNTIME_FILES`); `settable` the state file's fields an action may set
    (`Engine.settable`); `programs` the files code is taken from that no action writes
    (`own_files.program_file`: the generated machine's folder, its vocabulary module);
    `others` gives the state files of the project's other machines no action writes
    (`Engine.others`), asked only where an action writes."""
    planned = Plan()
    if not acts(rule):
        return planned  # nothing to do
    for action in rule.actions:  # before anything is read
        for path in action.files:
            _refuse_own(workspace, path, action.verb, own, programs, others)
    record = record if record is not None else Record("")
    done = planned.done
    variables = {"date": today or date_today()}
    wanted = {
        v for a in rule.actions if a.verb == "archive" for v in re.findall(_VARIABLE, a.target)
    }
    if any(a.verb in EDITS for a in rule.actions):
        from spellbook.verbs.edits import variables_of  # only a rule that edits files needs it

        wanted |= {v for a in rule.actions for v in variables_of(a)}
    for action in rule.actions:
        if action.verb == "extract":
            for key in [action.target] if action.target else sorted(wanted - set(variables)):
                variables[key] = extract(workspace, action.files[0], key, done)
    folders: dict[int, str] = {}
    archives = [action for action in rule.actions if action.verb == "archive"]
    if archives:
        from spellbook.verbs.folder_names import (
            folder_of,  # only a rule that archives names a folder
        )

        folders = {id(a): folder_of(a.target, variables, done).strip("/") for a in archives}
    for action in archives:  # a folder filled from values (`${name}`): as it will be
        _refuse_own(workspace, folders[id(action)], action.verb, own, programs, others)
    named = [f for a in rule.actions for f in (a.files[:1] if a.verb in EDITS else a.files)]
    for path in named + list(folders.values()):
        workspace.path(path)  # every path is inside the workspace, or we stop here
    for folder in [*folders.values(), TRASH]:
        workspace.check(folder)  # and no folder we would write into is a symbolic link
    workspace.check()
    files = Files(workspace, planned.operations)
    step = Step(workspace, files, dict(record.extra), done)
    cast = _Cast(step, folders, variables, templates, vocabulary)
    cast.settable = settable
    for index, action in enumerate(rule.actions):
        verb = VERBS.get(action.verb)
        if verb is not None:
            verb.carry_out(cast, action, index)
            continue
        planner = getattr(vocabulary, f"plan_{action.verb}", None)
        if planner is None:
            raise ActionError(f"no vocabulary carries out {action.verb!r} ({action.text!r})")
        planner(step, action)
    trash = cast.trash
    planned.extra = {k: v for k, v in step.fields.items() if record.extra.get(k, ...) != v}
    for operation in planned.operations:  # what would stop the cast half way, found now
        if operation[0] in ("create", "update"):  # never a file no cast could read again
            size = len(operation[2].encode("utf-8", "surrogatepass"))
            if size > READ_LIMIT:
                raise ActionError(
                    f"{workspace.shown(operation[1])} would be {size:,} bytes, more than the "
                    f"{READ_LIMIT:,} a cast reads again, so it is not written"
                )
        for path in paths_of(operation):
            # A name filled from a value (`Copy F to ${name}.json`) is checked as written.
            thrown = any(path == t or path.startswith(t + "/") for t in trash)
            if not thrown:
                _refuse_own(workspace, path, operation[0], own, programs, others)
            problem = workspace.unwritable(path)
            if problem:
                raise ActionError(f"{problem}; fix that, then cast again")
    return planned


def _record(cast: _Cast, action: Action, index: int) -> None:
    """Append to the ledger the matches of the pattern in the source file (or in its
    section) it does not list yet, one per line; a missing ledger is created, a missing
    source (or section) adds nothing."""
    from spellbook.facts.ledgers import record_parts, scoped, unlisted_matches  # ledgers only

    files, step = cast.files, cast.step
    source, ledger = action.files
    pattern, section = record_parts(action.target)
    text = files.read(source)
    old = files.read_exact(ledger)
    new = unlisted_matches(scoped(text or "", section), pattern, old or "")
    if new:
        body = old or ""
        if body and not body.endswith("\n"):
            body += "\n"
        body += "".join(entry + "\n" for entry in new)
        if old is None:
            files.create(ledger, body)
        else:
            step.update(ledger, body)
    missing = () if text is not None else (source,)
    step.done.did.append(Did(index, "record", tuple(new), missing, ledger))


class _Cast:
    """What the verbs' carry-out functions share while a rule's actions are planned."""

    def __init__(
        self,
        step: Step,
        folders: dict[int, str],
        variables: dict[str, str],
        templates: Callable[[str], str] | None,
        vocabulary: ModuleType | None,
    ) -> None:
        self.step = step
        self.files = step.files
        self.done = step.done
        self.folders = folders
        self.variables = variables
        self.templates = templates
        self.vocabulary = vocabulary
        self.trash: list[str] = []  # the folders in the trash this cast's deletes fill
        self.settable: Collection[str] = ()  # the state file's fields an action may set


def _move_away(cast: _Cast, action: Action, index: int) -> None:
    """`archive` into its new folder, `delete` into `.trash/<time>/`: the files there."""
    files, done = cast.files, cast.done
    each = tuple(dict.fromkeys(action.files))  # a file named twice is moved once
    present = tuple(f for f in each if files.exists(files.where(f)))
    absent = tuple(f for f in each if f not in present)
    made = ""  # no folder is made for nothing
    if present and action.verb == "archive":
        made = done.archive_path = files.new_folder(cast.folders[id(action)])
    elif present:
        made = files.new_folder(f"{TRASH}/{time.strftime('%Y-%m-%d-%H%M%S')}")
        cast.trash.append(made)
    to = tuple(f"{made}/{name}" for name in distinct_names(present))
    for name, dest in zip(present, to, strict=True):
        files.move(name, dest)
    done.did.append(Did(index, action.verb, present, absent, made, to))


def _create(cast: _Cast, action: Action, index: int) -> None:
    name = action.files[0]
    if not action.target:
        text = ""
    elif cast.templates is not None:
        text = cast.templates(action.target)
    else:
        from spellbook.records.vocabulary import template  # a machine without TEMPLATES

        text = template(cast.vocabulary, action.target)
    made_it = cast.files.create(name, text)
    kept = () if made_it else (name,)
    cast.done.did.append(Did(index, "create", (name,) if made_it else (), kept))


def _load(cast: _Cast, action: Action, index: int) -> None:
    cast.done.contents[action.files[0]] = cast.files.read(action.files[0])


def _edit(cast: _Cast, action: Action, index: int) -> None:
    from spellbook.verbs.edits import edit  # only a rule that edits files needs it

    edit(action, index, cast.step, cast.variables)


def _increment(cast: _Cast, action: Action, index: int) -> None:
    count = cast.step.fields.get(action.target, 0)
    cast.step.fields[action.target] = (count if isinstance(count, int) else 0) + 1


def _reset(cast: _Cast, action: Action, index: int) -> None:
    counter, _, value = action.target.partition("=")
    cast.step.fields[counter] = int(value or 0)


def _set_state_field(cast: _Cast, action: Action, index: int) -> None:
    """A declared field of the state file set to a literal, or to the first value a
    query selects in a JSON file; the state file is written with the rest of the cast."""
    import json  # only a rule that sets a field needs it

    field, how, value = json.loads(action.target)
    step = cast.step
    if field not in cast.settable:
        raise ActionError(
            f"{action.text!r} sets `{field}`, which is not a field of the state file the "
            "State Persistence example declares (the state, its history and counters are "
            "the runtime's)"
        )
    if how == "first":
        query, value = value, _first(step, action.files[0], value)
        shown = json.dumps(value, ensure_ascii=False)[:80]
        step.note(f"{field} is now {shown}: the first `{query}` of {step.shown(action.files[0])}")
    step.fields[field] = value


def _first(step: Step, name: str, query: str) -> object:
    """The first value `query` selects in the JSON file `name` (a list's items in its
    place), which a state file field can hold; ActionError if there is none."""
    from spellbook.facts.json_values import NotAList, each_value, select

    text = step.files.read(name)
    found: object = None
    if text is not None and text.strip(" \t\r\n\ufeff"):
        try:
            found = parse_json(text, step.shown(name))
        except BadFile as err:
            raise ActionError(f"{err}; cannot read `{query}` in it") from None
    missing = " (it is missing)" if text is None else ""
    try:
        selected = select(found, query, step.fields)
    except NotAList as err:
        raise ActionError(f"{step.shown(name)}: {err}") from None
    for value in each_value(selected):
        if value is not None and not isinstance(value, (str, int, float)):
            kind = "a list" if isinstance(value, list) else "an object"
            raise ActionError(
                f"the first `{query}` of {step.shown(name)} is {kind}, which a field of the "
                "state file cannot hold (text, a number, true or false)"
            )
        return value
    raise ActionError(
        f"`{query}` selects nothing in {step.shown(name)}{missing}, so there is no first "
        "value to set"
    )


def _nothing(cast: _Cast, action: Action, index: int) -> None:
    """Read before the other verbs (`extract`), or nothing to do at cast time."""


class Verb:
    """A verb of the generic core: its meaning, what it changes, and how a cast carries
    it out (`carry_out`, in the order of the rule's actions). What it changes is what
    the verifier (`codegen.analyse.effects`), the MCP server's hints and the engine know
    of it: `files` is "none" (it changes no file), "adds" (it only makes files or adds
    to them) or "rewrites" (it moves, removes or rewrites them); `fields` is "none",
    "adds" (it counts a counter of the state file up), "rewrites" (it sets a counter)
    or "sets" (it sets a field that is no counter to a value);
    `passive` that a cast does nothing for it at all (a rule of only such verbs has
    nothing to carry out). `effect` is what the verifier knows it does to the files it
    names (`codegen.analyse.effects`): "" nothing; "makes" the first is there after
    (kept if it was); "writes" the first is there after (made if missing); "removes"
    each is gone after; "copies" the second is there after if the first was; "moves"
    that, and the first is gone; "records" the second may be there after; "anything"
    (an instruction to the AI) whatever the AI does to the files its words name. The
    compiler's phrases for each verb are `codegen.read.action_phrases`', keyed by the
    same names."""

    __slots__ = ("name", "meaning", "files", "fields", "passive", "carry_out", "effect")

    def __init__(
        self,
        name: str,
        meaning: str,
        carry_out: Callable[[_Cast, Action, int], None],
        files: str = "none",
        fields: str = "none",
        passive: bool = False,
        effect: str = "",
    ) -> None:
        self.name = name
        self.meaning = meaning
        self.carry_out = carry_out
        self.files = files
        self.fields = fields
        self.passive = passive
        self.effect = effect


VERBS: dict[str, Verb] = {
    v.name: v
    for v in (
        Verb(
            "create",
            "Write the file from its template (or empty), unless a file is already there.",
            _create,
            files="adds",
            effect="makes",
        ),
        Verb(
            "archive",
            "Move the files that exist into a new folder named by the pattern.",
            _move_away,
            files="rewrites",
            effect="removes",
        ),
        Verb(
            "delete",
            "Move the files that exist into the workspace's `.trash/<time>/`.",
            _move_away,
            files="rewrites",
            effect="removes",
        ),
        Verb("load", "Put the file's text in the response for the AI.", _load),
        Verb(
            "extract",
            "Read values of a file's frontmatter (or a JSON file's keys) for names.",
            _nothing,
        ),
        Verb(
            "record",
            "Append to a ledger the matches of a pattern in a file it does not list yet.",
            _record,
            files="adds",
            effect="records",
        ),
        Verb(
            "copy",
            "Copy a file to a new name or into a folder.",
            _edit,
            files="rewrites",
            effect="copies",
        ),
        Verb(
            "move",
            "Move a file to a new name or into a folder.",
            _edit,
            files="rewrites",
            effect="moves",
        ),
        Verb("append", "Add a line to the end of a file.", _edit, files="adds", effect="writes"),
        Verb(
            "set_field",
            "Set a key of a JSON file (or of the one list item a filter keeps) to a value.",
            _edit,
            files="rewrites",
            effect="writes",
        ),
        Verb(
            "append_item",
            "Add a value at the end of a list in a JSON file.",
            _edit,
            files="rewrites",
            effect="writes",
        ),
        Verb("increment", "Add one to a counter of the state file.", _increment, fields="adds"),
        Verb(
            "reset",
            "Set a counter of the state file (to 0, or a number).",
            _reset,
            fields="rewrites",
        ),
        Verb(
            "set_state_field",
            "Set a field the State Persistence example declares to a value, or to the "
            "first value a query selects in a JSON file.",
            _set_state_field,
            fields="sets",
        ),
        Verb(
            "set_state", "Say the rule's next state (the rule moves there).", _nothing, passive=True
        ),
        Verb("no_change", "Nothing.", _nothing, passive=True),
        Verb("fill", "Nothing: the response carries the loaded content.", _nothing, passive=True),
        Verb("find", "Name the file later phrases are about (a read).", _nothing, passive=True),
        Verb(
            "instruct",
            "Passed to the AI as an instruction.",
            _nothing,
            passive=True,
            effect="anything",
        ),
        Verb(
            "call",
            "A callback of the project's own code: the model's method of its name, which "
            "`build(model)` calls after the rule fires (`spell` drives no such machine).",
            _nothing,
            passive=True,
        ),
    )
}


def acts(rule: Rule) -> bool:
    """Whether any of the rule's actions has something to do at run time (a verb that
    is not `passive`, or a vocabulary's own)."""
    return not all(passive(a.verb) for a in rule.actions)


def passive(verb: str) -> bool:
    """Whether a cast does nothing for the verb (a vocabulary's own verb is not)."""
    found = VERBS.get(verb)
    return found is not None and found.passive


# The verbs `spellbook.verbs.edits` carries out, imported only by a rule that has one.
EDITS = frozenset(name for name, verb in VERBS.items() if verb.carry_out is _edit)


class Step:
    """What a vocabulary's own verb sees of the cast being planned, and may do.

    `fields` are the state file's fields as the cast will leave them; `read` gives a
    file's text as the operations planned so far leave it; `update` replaces a file's
    text (only if nobody changes it before the cast applies); `note` tells the developer.
    A problem is an ActionError: the cast stops with nothing changed.
    """

    def __init__(
        self, workspace: Workspace, files: Files, fields: dict[str, Any], done: Done
    ) -> None:
        self.workspace = workspace
        self.files = files
        self.fields = fields
        self.done = done

    def read(self, name: str) -> str | None:
        return self.files.read(name)

    def update(self, name: str, text: str) -> None:
        old = self.files.read_exact(name) or ""  # never a text read with bytes replaced
        path = self.files.where(name)
        self.files.operations.append(["update", path, text, checksum_of(old)])
        self.files.written[path] = text  # later steps read the new text

    def note(self, text: str) -> None:
        self.done.notes.append(text)

    def shown(self, name: str) -> str:
        return self.workspace.shown(name)


def extract(workspace: Workspace, name: str, key: str, done: Done) -> str:
    """A checked value of `name`: its YAML frontmatter's `key`, or for a JSON file, the
    top-level key; text on one line, at most NAME_LIMIT characters, that can name a
    folder (`folder_name` makes it one where a folder or file name uses it)."""
    from spellbook.facts.frontmatter import FRONTMATTER_LIMIT, as_written, frontmatter
    from spellbook.facts.json_values import is_json  # only a rule that extracts needs them

    text = workspace.read_text(name, FRONTMATTER_LIMIT * 16)
    if text is None:
        done.notes.append(f"{workspace.shown(name)} is missing; {key} is '{MISSING_NAME}'")
        return MISSING_NAME
    found: dict[str, object]
    if is_json(name):
        try:
            data = parse_json(text, workspace.shown(name))
        except BadFile as err:
            raise ActionError(str(err)) from None
        found = data if isinstance(data, dict) else {}
    else:
        found = frontmatter(text, workspace.shown(name))
    value = found.get(key)
    if value is None:
        said = f"an empty {key}" if key in found else f"no {key}"
        if is_json(name):
            raise ActionError(f"{workspace.shown(name)} has {said}; set {key} to a name in it")
        raise ActionError(
            f"{workspace.shown(name)} has {said} in its frontmatter; add `{key}: some-name` "
            "between the --- lines at its top"
        )
    if isinstance(value, bool):  # YAML reads yes, no, on, off, true, false so
        raise ActionError(
            f"{workspace.shown(name)}: {key} is read by YAML as {str(value).lower()}, not a "
            f'name; quote it (`{key}: "..."`) or choose another name'
        )
    if isinstance(value, (int, float)) or type(value).__name__ in ("date", "datetime"):
        # YAML reads 123 as a number and 2024-01-01 as a date: taken as written, but never
        # renamed (`0x1f` is 31, `017` is 15, `1:20` is 80, `1e3` is 1000.0).
        shown = value.isoformat() if hasattr(value, "isoformat") else str(value)
        written = as_written(text, key) if not is_json(name) else shown
        if written != shown:
            raise ActionError(
                f"{workspace.shown(name)}: {key} `{written}` is read by YAML as {shown}, not "
                f'as written; quote it (`{key}: "{written}"`)'
            )
        value = shown
    if isinstance(value, str) and "\ufffd" in value:
        raise ActionError(
            f"{workspace.shown(name)}: {key} is not UTF-8 text; save the file as UTF-8"
        )
    from spellbook.verbs.folder_names import folder_name

    named = folder_name(value) if isinstance(value, str) and len(value) <= NAME_LIMIT else ""
    if not named or not isinstance(value, str):
        # Never the repr of a structure: YAML aliases can make a small file a huge one.
        shown = repr(value[:80]) if isinstance(value, str) else f"(a {type(value).__name__})"
        raise ActionError(
            f"{workspace.shown(name)}: {key} {shown} cannot name a folder; use letters and "
            f"digits (dashes, dots or spaces between them), at most {NAME_LIMIT} characters"
        )
    if "\n" in value or "\r" in value:
        raise ActionError(f"{workspace.shown(name)}: {key} holds a line break; write one line")
    return value
