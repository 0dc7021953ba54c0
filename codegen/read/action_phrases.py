"""Actions: what an Action cell asks the runtime to do, as verbs of the generic core.

An Action cell is `-` (nothing), one phrase, or numbered phrases `(1) ...; (2) ...`.
Verbs may be imperative or third person (`Create` / `Creates`); a phrase the spec's
Terms table defines means its meaning's phrases. The core's verbs,
each carried out once by `spellbook.verbs.actions`:

- `create`: `Create F from T` writes the file from the template file T (a path
  relative to the spec's folder, read when the spec is compiled and carried in
  the generated module; one that does not exist is an error); `Create F from
  template`, `Creates F file`: from F's template by name (in the project's
  templates folder, else the vocabulary's), else empty; `Create empty F`: empty.
- `archive`: `Archive F and G to tasks/task-${task_name}/`: move the files into a
  new folder (`${date}`, `<date>` and frontmatter values fill its name).
- `delete`: `Delete existing F`: move the files to the workspace's `.trash/`.
- `load`: `Load F content into memory`, `Reads F content`: put the file's text in
  the response for the AI (a bare `Read F` is an instruction).
- `extract`: `Extract KEY from F frontmatter`, `Reads F frontmatter`: read
  frontmatter values for folder names.
- `increment`: `Increment COUNTER`: add one to a counter of the state file.
- `reset`: `Reset COUNTER`, `Reset COUNTER to N`, `Set COUNTER to N`: set it.
- `record`: `Record NOUN of F in G`, ``Append matches of `RE` from F to G``
  (``Record matches of `RE` under "Tables" of F in G``: of that section only): add
  the matches (of a noun that is a pattern: a vocabulary's, or one a Terms row names,
  ``| NOUN | matches of `RE` |``) that the ledger file G does not list yet, one line
  each; without `of F`, of the file the cell read last.
- `find`: `Extracts all NOUN from F`: a read, naming the file later phrases are about.
- `copy`, `move`: `Copy F to G`, `Move F to G` (`Rename`), `Move F to done/`.
- `append`: `Append "TEXT" to F`: a line (`${date}` and extracted values fill it).
- `set_field`: `Set KEY in F.json to VALUE`: a key of the JSON object, a JSON value
  (a string `"$name"` in it the state file's field, as for `append_item`);
  ``Set `tickets[id=$ticket].status` in F.json to "closed"``: a key of the one
  list item each filter keeps (none or several stop the cast, nothing written).
- `set_state_field`: ``Set `NAME` in the state file to VALUE``: a field the State
  Persistence example declares, a literal (text, a number, true, false, null);
  ``Set `NAME` in the state file to the first `QUERY` of F.json``: the first value
  the query selects (none stops the cast, nothing written).
- `append_item`: ``Append {"id": "$ticket"} to `done` in F.json``: a JSON value
  at the end of a list (made if missing); a string `"$name"` is the state file's field.
- `extract` of a JSON file: `Extract KEY from F.json`, its top-level key.
- `set_state`: `Update state to STATE`: the rule's Next State.
- `fill`: `Replaces `[X]` in response with ...`: the response carries the loaded
  content anyway; nothing to do.
- `no_change`: `No state change`: nothing.
- `instruct`: any other phrase, passed to the AI as an instruction (the verifier warns
  of one aimed at a verb all the same: `near_verbs`).
- `call`: with `own_code = true`, any other phrase instead, split at `;`: callbacks of
  the project's own code (`read.own_phrases`), the model's methods.

The machine's vocabulary adds names for groups of files (`review files`) and
verbs of its own (see `spellbook.records.vocabulary`). Files
are named relative to the workspace folder (a leading `.ai/task/` is dropped).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import replace

from spellbook.disk.own_files import OWN_FILE, own_file
from spellbook.disk.paths import is_git, path_problem
from spellbook.facts.json_values import is_json
from spellbook.facts.ledgers import record_target
from spellbook.facts.patterns import VOCABULARY
from spellbook.records.vocabulary import FILE

from ..model import ActionSpec
from .core_phrases import _FILE as _ANY_FILE  # a name with an extension, or any in backticks
from .core_phrases import _ODD_VALUE, _QUERY, _SECTION, pattern_problem, section_name
from .lexicon import EMPTY, Lexicon, normal, workspace_path
from .markdown import line_break
from .own_phrases import callbacks

_FILE = FILE

NOTHING = (
    EMPTY
    | {"nothing", "(nothing)", "no action", "(no action)", "no actions"}
    | {"do nothing", "(do nothing)", "no-op", "(no-op)", "noop", "n/a", "(n/a)"}
)
_NUMBERED = re.compile(r"\(\d+\)\s*")
# The ways a cell numbers its phrases, each read where the cell opens with it: `(1) a
# (2) b`, `1) a 2) b`, `1. a 2. b` (a number after a space, then a space).
_NUMBERINGS = (
    _NUMBERED,
    re.compile(r"(?:^|(?<=\s))\d+\)\s+"),
    re.compile(r"(?:^|(?<=\s))\d+\.\s+"),
)
_CREATE = re.compile(
    rf"creates? (?:an? )?(?:new )?(?P<empty>empty )?{_FILE}(?P<rest>.*)",
    re.I,
)
# `Create F from T`, `... from `T``, `... from the template T`; `from template` and
# `from its template` are F's template by name.
_FROM = re.compile(
    r"\s+from\s+(?:(?:the|its|a)\s+)?(?:template\s+(?=\S+\s*$))?"
    r"(?P<template>`[^`]+`|[^\s`]+)(?:\s+template)?\s*",
    re.I,
)
_ARCHIVE = re.compile(
    r"archives? (?P<files>.+?) (?:in)?to `?(?P<folder>[^\s`]+)`?(?: folder)?"
    r"(?: \(passed to (?:the )?AI as \[(?P<token>\w+)\]\))?",
    re.I,
)
_ARCHIVE_NOWHERE = re.compile(r"archives? (?P<files>.+)", re.I)
_DELETE = re.compile(r"deletes? (?:the )?(?:existing )?(?P<files>.+)", re.I)
_LOAD = re.compile(
    rf"(?:loads? {_FILE}(?: (?:content|contents|text))?"
    rf"|reads? {_FILE.replace('?P<file>', '?P<read>')} (?:content|contents|text))"
    r"(?: into memory)?",
    re.I,
)
_EXTRACT = re.compile(rf"extracts? (?P<key>\w+) from {_FILE} frontmatter", re.I)
_FRONTMATTER = re.compile(rf"reads? {_FILE} frontmatter", re.I)
_SET_STATE = re.compile(r"updates? (?:the )?state to `?(?P<state>[\w\[\]/]+)`?", re.I)
_INCREMENT = re.compile(r"increments? (?:the )?(?P<counter>\w+)", re.I)
# `Reset rounds`, `Reset rounds to 1`, `Set rounds to 0`: a counter set to a number.
_RESET = re.compile(
    r"(?:resets? (?:the )?(?P<counter>\w+)(?: (?:counter )?to (?P<value>\d+))?"
    r"|sets? (?:the )?(?P<set>\w+) (?:counter )?to (?P<to>\d+))",
    re.I,
)
_FILL = re.compile(
    r"replaces? `?\[\w+\]`?(?:,? (?:and )?`?\[\w+\]`?)* in (?:the )?response with .+", re.I
)
_NO_CHANGE = re.compile(r"no state change", re.I)
# A ledger or its source: a name with an extension, or any name in backticks (`.refs`).
_LEDGER = _ANY_FILE.replace("?P<file>", "?P<ledger>")
_SOURCE = _ANY_FILE.replace("?P<file>", "?P<source>")
# `Record NOUN of notes.md in .seen`, ``Append matches of `RE` from F to G``.
_RECORD = re.compile(
    rf"(?:records?|appends?|adds?|writes?) (?:the |all )?(?P<what>.+?)"
    rf"(?: (?:of|from) {_SOURCE})? (?:in|to|into) {_LEDGER}",
    re.I,
)
# What a Record records, scoped to a section: ``matches of `RE` under "Tables"`` (`of F`
# before or after it).
_UNDER = re.compile(rf"(?P<what>.+?) under {_SECTION}", re.I)
_OF_UNDER = re.compile(rf"(?P<what>.+?) (?:of|from) {_SOURCE} under {_SECTION}", re.I)
_MATCHES_OF = re.compile(
    r"(?:new |unlisted )?(?:matches|lines) (?:of|matching) `(?P<re>[^`]+)`", re.I
)
# A Terms row's meaning that names a pattern: `` `RE` ``, or ``F matches `RE` ``.
_TERM_PATTERN = re.compile(r"(?:\S+ matches )?`(?P<re>[^`]+)`", re.I)
# `Extracts all NOUN from notes.md`: a read, which later steps are about.
_FIND = re.compile(
    rf"(?:extracts?|finds?|collects?) (?:the |all )?(?P<what>.+?) (?:from|in) {_FILE}", re.I
)
MAX_TERM_DEPTH = 16
# Where a copy or move goes: a file's name, or a folder (ending in `/`).
_TARGET = r"(?P<dest>`[^`\s]+`|(?:[\w.\-]|\$\{\w+\})(?:[\w.\-/]|\$\{\w+\})*)"
# `Copy F to G`, `Move F to done/`, `Rename F to G`.
_COPY = re.compile(rf"(?P<verb>cop(?:y|ies)|moves?|renames?) {_ANY_FILE} (?:in)?to {_TARGET}", re.I)
# `Append "Shipped ${date}" to CHANGES.md`: a line, quoted.
_APPEND = re.compile(
    rf"appends? (?:the line |a line )?(?P<line>`[^`]*`|\"[^\"]*\"|“[^”]*”) to {_ANY_FILE}", re.I
)
# `Set `approved` in review.json to true`: a key of a JSON object, a JSON value; or a
# query naming one place (`tickets[id=$ticket].status`).
_SET_FIELD = re.compile(
    rf"sets? (?P<key>`[^`]+`|[^\s`]+) (?:in|of) {_ANY_FILE} to (?P<value>.+)", re.I
)
# ``Set `ticket_id` in the state file to "T1"``, ``... to the first `tickets[status=
# open].id` of tickets.json``: a field of the state file, a literal or a query's.
_SET_STATE_FIELD = re.compile(
    r"sets? (?:the )?(?P<field>`[^`]+`|[^\s`]+) (?:field )?(?:in|of) the state file to "
    rf"(?:(?:the )?first (?P<query>`[^`]+`|[^\s`]+) (?:of|in|from) {_ANY_FILE}|(?P<value>.+))",
    re.I,
)
# ``Append {"id": "$ticket"} to `done` in progress.json``: a JSON value, a list.
_APPEND_ITEM = re.compile(
    rf"appends? (?P<value>.+) to (?P<key>`[^`]+`|[\w-]+) (?:in|of) {_ANY_FILE}", re.I
)
_EXTRACT_JSON = re.compile(rf"extracts? (?P<key>\w+) from {_ANY_FILE}", re.I)
_ANGLE_VARIABLE = re.compile(r"<(\w+)>")
# What a file's name in an action does not hold: globs, placeholders, queries.
_ODD_NAME = re.compile(r"[*?\[\]{}<>$|;\"'\s]")
_VARIABLE = re.compile(r"\$\{(\w+)\}")
BUILTIN_VARIABLES = frozenset({"date"})


def split_phrases(text: str) -> list[str]:
    """`(1) a; (2) b` -> ['a', 'b'], and so are `1) a 2) b` and `1. a 2. b` (a cell that
    opens with its first number); an unnumbered cell is one phrase; `-` is none."""
    text = " ".join(text.split())
    if normal(text) in NOTHING:
        return []
    numbered = next((n for n in _NUMBERINGS if n.match(text)), None)
    if numbered is None:
        return [text.strip().rstrip(".;").strip()] if text.strip() else []
    parts = _split_unquoted(text, numbered)
    return [p.strip().rstrip(";.").strip() for p in parts if p.strip().rstrip(";.").strip()]


def _split_unquoted(text: str, separator: re.Pattern[str]) -> list[str]:
    """`text` split at `separator`, but not inside double quotes or backticks: `(1)
    Append "see step (2) below" to log.md` is one phrase."""
    parts, start = [], 0
    for m in separator.finditer(text):
        before = text[: m.start()]
        if before.count('"') % 2 or before.count("`") % 2:
            continue
        parts.append(text[start : m.start()])
        start = m.end()
    return [*parts, text[start:]]


def parse_actions(
    text: str, workspace: str, lexicon: Lexicon | None = None
) -> tuple[ActionSpec, ...]:
    """Parse an Action cell (plain text) into verbs; unknown phrases become `instruct`.
    A phrase the spec's Terms table defines is its meaning's actions (`-`: none)."""
    lexicon = lexicon or Lexicon()
    cell = _Cell(workspace, lexicon)
    for phrase in split_phrases(text):
        cell.phrase(phrase)
    return tuple(cell.actions)


class _Cell:
    """The actions of one cell, read in order: what earlier phrases extracted or read
    is known to later ones."""

    def __init__(self, workspace: str, lexicon: Lexicon) -> None:
        self.workspace = workspace
        self.lexicon = lexicon
        self.actions: list[ActionSpec] = []
        self.extracted: set[str] = set()
        self.reads_frontmatter = False
        self.read = ""  # the file the last phrase that reads one read
        self.terms: list[str] = []

    def phrase(self, phrase: str) -> None:
        term = self.lexicon.terms.get(normal(phrase))
        if term is not None and normal(phrase) not in self.terms:
            self._term(phrase, term.means)
            return
        action = parse_action(
            phrase, self.workspace, self.extracted, self.lexicon, self.reads_frontmatter, self.read
        )
        if action.verb == "extract":
            if action.target:
                self.extracted.add(action.target)
            else:
                self.reads_frontmatter = True
        if action.verb in ("find", "load", "extract"):
            self.read = action.files[0]
        if action.verb == "create" and len(action.files) > 1:  # `Create F and G`
            self.actions.extend(created_each(phrase, self.workspace, self.lexicon))
            return
        if action.verb == "instruct" and not action.hint and self.lexicon.own_code:
            own = callbacks(phrase)  # the project's own code (`read.own_phrases`)
            if isinstance(own, str):
                self.actions.append(replace(action, hint=own))
                return
            if own:
                self.actions.extend(own)
                return
        self.actions.append(action)

    def _term(self, phrase: str, means: str) -> None:
        """A term used as an action: its meaning's actions, if the core reads them all;
        else the phrase is an instruction, with why."""
        if len(self.terms) >= MAX_TERM_DEPTH:
            self.actions.append(ActionSpec("instruct", phrase, hint="terms nest too deep"))
            return
        before = len(self.actions)
        self.terms.append(normal(phrase))
        try:
            for part in split_phrases(means):
                self.phrase(part)
        finally:
            self.terms.pop()
        unread = [a for a in self.actions[before:] if a.verb == "instruct"]
        if unread:
            del self.actions[before:]
            said = "; ".join(repr(a.text) for a in unread)
            hint = f"the Terms table's meaning {means!r} has {said}, which the core does not read"
            self.actions.append(ActionSpec("instruct", phrase, hint=hint))


class _Phrase:
    """One phrase of a cell, being read, and what the cell's earlier phrases told:
    the keys they extracted (`any_key`: every key, from a whole frontmatter) and the
    file the last one read."""

    __slots__ = ("text", "workspace", "extracted", "lexicon", "any_key", "read")

    def __init__(
        self,
        text: str,
        workspace: str,
        extracted: set[str],
        lexicon: Lexicon,
        any_key: bool,
        read: str,
    ) -> None:
        self.text = text
        self.workspace = workspace
        self.extracted = extracted
        self.lexicon = lexicon
        self.any_key = any_key
        self.read = read

    def file(self, written: str) -> str:
        return _relative(written, self.workspace)


def parse_action(
    phrase: str,
    workspace: str,
    extracted: set[str] | None = None,
    lexicon: Lexicon | None = None,
    any_key: bool = False,
    read: str = "",
) -> ActionSpec:
    """One phrase as a verb (`PHRASES`, the first that reads it); `read` is the file an
    earlier phrase of the cell read. A phrase no verb reads is an instruction."""
    said = _Phrase(phrase, workspace, extracted or set(), lexicon or Lexicon(), any_key, read)
    for _, pattern, reading in PHRASES:
        m = pattern.fullmatch(phrase) if pattern is not None else None
        if pattern is None or m is not None:
            action = reading(m, said)
            if action is not None:
                return action
    if _ARCHIVE_NOWHERE.fullmatch(phrase):
        return ActionSpec(
            "instruct", phrase, hint="an archive needs a folder: `Archive F to FOLDER/`"
        )
    return ActionSpec("instruct", phrase)


def _no_change(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    return ActionSpec("no_change", said.text)


def _set_state(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    assert m is not None
    return ActionSpec("set_state", said.text, target=m["state"])


def _vocabulary(m: re.Match[str] | None, said: _Phrase) -> ActionSpec | None:
    """A verb of the machine's vocabulary (`spellbook.records.vocabulary`), by its own pattern."""
    for regex, verb in said.lexicon.verbs:
        found = regex.fullmatch(said.text)
        if found:
            groups = found.groupdict()
            named: tuple[str, ...] = (said.file(groups["file"]),) if groups.get("file") else ()
            target = (groups.get("target") or "").lower()
            return _checked(ActionSpec(verb.name, said.text, named, target, writes=verb.writes))
    return None


def _field_set(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    assert m is not None
    return _set_field(m, said.workspace, said.text)


def _state_field(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    """``Set `NAME` in the state file to VALUE`` or ``... to the first `QUERY` of F``: a
    field of the state file (which one the State Persistence example declares is the
    verifier's to check, `check_actions`), a literal or a query's first value."""
    assert m is not None
    field = m["field"].strip("`").strip()
    problem = "" if re.fullmatch(r"[A-Za-z_]\w*", field) else f"`{field}` is not a field's name"
    if m["query"]:
        file, query = said.file(m["file"]), m["query"].strip("`").strip()
        if not is_json(file):
            problem = problem or f"{file} is not a JSON file"
        elif not _QUERY.fullmatch(query) or _ODD_VALUE.search(query):
            problem = problem or (
                f"`{query}` is not a query: keys joined by dots, each with filters "
                "`[key=value]` (`tickets[status=open].id`)"
            )
        target = json.dumps([field, "first", query], ensure_ascii=False)
        action = ActionSpec("set_state_field", said.text, (file,), target, writes=(field,))
        return replace(action, problem=problem) if problem else _checked(action)
    written = m["value"].strip().strip("`").strip()
    try:
        value = _json_value(written)
    except ValueError:
        hint = (
            f'`{written}` is not a value: "text", a number, true, false or null, or '
            f"the first `QUERY` of F.json"
        )
        return ActionSpec("instruct", said.text, hint=hint)
    if isinstance(value, (list, dict)):
        problem = problem or (
            f"`{written}` is a JSON {'list' if isinstance(value, list) else 'object'}; a "
            'field of the state file holds "text", a number, true, false or null'
        )
    target = json.dumps([field, "value", value], ensure_ascii=False)
    return ActionSpec("set_state_field", said.text, (), target, problem, writes=(field,))


def _append_item(m: re.Match[str] | None, said: _Phrase) -> ActionSpec | None:
    """``Append VALUE to `LIST` in F.json``: a JSON value added at the end of a list; a
    value that is no JSON is another verb's (`Append "TEXT" to F`, `Append matches ...`)."""
    assert m is not None
    file = said.file(m["file"])
    written = m["value"].strip()
    try:
        value = _json_value(written)
    except ValueError:
        if not written.startswith(("{", "[")):
            return None
        hint = f'`{written}` is not a JSON value: an object, a list, a number or "text"'
        return ActionSpec("instruct", said.text, hint=hint)
    return _json_edit("append_item", said.text, file, m["key"], value)


def _increment(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    assert m is not None
    return ActionSpec("increment", said.text, target=m["counter"], writes=(m["counter"],))


def _reset(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    assert m is not None
    counter, value = m["counter"] or m["set"], m["value"] or m["to"] or "0"
    if len(value) > 9:
        return ActionSpec("reset", said.text, target=counter, problem=f"{value} is too large")
    return ActionSpec("reset", said.text, target=f"{counter}={int(value)}", writes=(counter,))


def _fill(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    return ActionSpec("fill", said.text)


def _extract(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    """`Extract KEY from F frontmatter`, `Extract KEY from F.json`, `Reads F frontmatter`."""
    assert m is not None
    key = m.groupdict().get("key") or ""
    return _checked(ActionSpec("extract", said.text, (said.file(m["file"]),), key))


def _extract_json(m: re.Match[str] | None, said: _Phrase) -> ActionSpec | None:
    assert m is not None
    return _extract(m, said) if is_json(m["file"]) else None


def _load(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    assert m is not None
    return _checked(ActionSpec("load", said.text, (said.file(m["file"] or m["read"]),)))


def _create(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    """`Create F`, `Create F from T`, `Create empty F`; `Create F and G`, `Create F, G`:
    each file as `Create F` alone reads it (`_Cell` makes one action of each). Words it
    does not read after the files (a folder, `then ...`, `and post to ...`) make the
    phrase an instruction, never a file made and the words dropped."""
    assert m is not None
    more = _MORE_FILES.fullmatch(m["rest"])
    names = _files(m["file"] + more["more"], "", said.lexicon) if more else None
    if more is None or names is None:
        return _created(m["file"], bool(m["empty"]), m["rest"], said)
    each = [_created(name, bool(m["empty"]), more["tail"], said) for name in names]
    if any(a.verb != "create" for a in each) or _FROM.fullmatch(more["tail"]):
        return ActionSpec("instruct", said.text)  # `Create F and G from T`: whose is T?
    problem = next((a.problem for a in each if a.problem), "")
    return ActionSpec("create", said.text, tuple(a.files[0] for a in each), problem=problem)


def created_each(phrase: str, workspace: str, lexicon: Lexicon) -> list[ActionSpec]:
    """A `Create F and G` phrase as one action for each file, in order."""
    m = _CREATE.fullmatch(phrase)
    more = _MORE_FILES.fullmatch(m["rest"]) if m else None
    assert m is not None and more is not None
    said = _Phrase(phrase, workspace, set(), lexicon, False, "")
    names = _files(m["file"] + more["more"], "", lexicon) or ()
    return [_created(name, bool(m["empty"]), more["tail"], said) for name in names]


def _created(written: str, empty: bool, rest: str, said: _Phrase) -> ActionSpec:
    """The file `written` made as the words after it (`rest`) say, if it reads them."""
    phrase, lexicon = said.text, said.lexicon
    file = said.file(written)
    source = _FROM.fullmatch(rest)
    if source and normal(source["template"]) != "template":
        if lexicon.files is None:
            return ActionSpec("create", phrase, (file,), problem="templates are not read here")
        key, text, problem = lexicon.files.named(source["template"])
        return _checked(ActionSpec("create", phrase, (file,), key, problem, content=text))
    words = " ".join(rest.split())
    said_all = set(words.lower().split()) <= _PLAIN_CREATE | {"empty"}
    if empty or "empty" in words.lower().split():
        if not said_all:
            return ActionSpec("instruct", phrase)
        return _checked(ActionSpec("create", phrase, (file,)))
    key, text, problem = lexicon.files.by_name(file) if lexicon.files else ("", "", "")
    template = key or (file if lexicon.has_template(file) else "")
    holds = _HOLDS.fullmatch(words) and not (_LATER_STEP.search(words) or _VALUES.search(words))
    if (key or problem or template) and not said_all and not holds:
        # `Create notes.md in drafts/`, `... then append ...`: words the core does not
        # carry out, which would be dropped.
        return ActionSpec("instruct", phrase)
    if key or problem:
        return _checked(ActionSpec("create", phrase, (file,), key, problem, content=text))
    action = _checked(ActionSpec("create", phrase, (file,), template))
    if not template and not action.problem and not said_all:
        # `Create tests/test_new.py with failing tests`: words about what the file holds,
        # which an empty file does not carry out.
        return ActionSpec(
            "create",
            phrase,
            (file,),
            problem=(
                f"{file} has no template, so it would be made empty and {words!r} would not "
                f"be carried out: give it a template (`Create {file} from T`, or one named "
                f"for it in the project's templates folder), or write `Create empty {file}` "
                "and tell the AI the rest in words of its own"
            ),
        )
    return action


# The words that may follow a created file's name (`Create F file`, `Create new F
# from its template`) when no template is found for it: they say nothing of its text.
_PLAIN_CREATE = frozenset({"file", "template", "from", "its", "the", "with", "a", "an", "new"})
# `Create F and G`, `Create F, G and H`: the files after the first, and the words after.
_MORE_FILES = re.compile(r"(?P<more>(?:(?:,\s*|\s+and\s+)(?:`[^`]+`|[^\s,`]+))+)(?P<tail>.*)")
# What a file made from its template holds, said after it (`Create F with sections for
# the criteria`, `... template with YAML frontmatter`): the template holds it. A later
# step (`then`, `;`, `&`) is not that.
_HOLDS = re.compile(
    r"(?:(?:file|template|new|its|the)\s+)*with\s+(?!.*(?:\bthen\b|[;&]))\S.*", re.I
)
# Words after `with` that give the file's values rather than say what its template
# holds (`with {"approved": false}`, `with approved set to true`, `with status = done`):
# a template does not carry them out, so the words would be dropped.
_VALUES = re.compile(r'[{}\[\]]|"\s*:|\bset\s+to\b|[=:]\s*(?:true|false|null|\d)|=', re.I)
# Words that begin a step of their own after `and` (`Create F with a summary and post
# to #releases`): the core's verbs and the commonest others. Not the file's content.
# With `near_verbs.VERBS`, the verbs an action after an event's slash opens with.
STEP_VERBS = (
    "create|delete|remove|archive|move|rename|copy|append|update|reset|increment|load|"
    "extract|post|notify|send|commit|push|merge|deploy|email|ping|announce|publish|"
    "upload|run|ask|tell|assign|share|submit|trigger|invite|alert|attach|approve"
)
_LATER_STEP = re.compile(rf"\band\s+(?:then\s+|also\s+)*(?:{STEP_VERBS})\b", re.I)


def _archive(m: re.Match[str] | None, said: _Phrase) -> ActionSpec | None:
    assert m is not None
    phrase = said.text
    files = _files(m["files"], said.workspace, said.lexicon)
    if files is None:
        return None
    folder = _ANGLE_VARIABLE.sub(r"${\1}", said.file(m["folder"]))
    action = _checked(ActionSpec("archive", phrase, files, folder.rstrip("/") + "/"))
    unknown = set(_VARIABLE.findall(folder)) - BUILTIN_VARIABLES - said.extracted
    if unknown and not action.problem and not said.any_key:
        names = ", ".join("${" + v + "}" for v in sorted(unknown))
        return ActionSpec("archive", phrase, files, action.target, f"{names} is not known here")
    return action


def _append(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    assert m is not None
    phrase, line = said.text, m["line"][1:-1]
    # A table cell writes a line break as `<br>`: the lines it parts are lines of the file.
    line = line_break().sub("\n", line)
    action = _checked(ActionSpec("append", phrase, (said.file(m["file"]),), line))
    file = action.files[0]
    if is_json(file) and not action.problem:
        # a line after a JSON value makes the file no JSON: every rule that reads it stops
        return replace(
            action,
            problem=f"a line appended to {file} makes it no JSON, and every cast that reads "
            f"it stops: to add to a list in it, write `Append {m['line']} to `LIST` in {file}`",
        )
    if "{{" in line and not action.problem:  # a response's placeholder, which no action fills
        return replace(
            action,
            problem="`{{...}}` is a Response's placeholder, written as it is here; an action "
            "says `${date}`, or a `${KEY}` a phrase before it extracts",
        )
    unknown = set(_VARIABLE.findall(line)) - BUILTIN_VARIABLES - said.extracted
    if unknown and not action.problem:
        names = ", ".join("${" + v + "}" for v in sorted(unknown))
        return ActionSpec("append", phrase, action.files, line, f"{names} is not known here")
    return action


def _copy_or_move(m: re.Match[str] | None, said: _Phrase) -> ActionSpec:
    assert m is not None
    return _copied(m, said.workspace, said.text, said.extracted)


def _recorded(m: re.Match[str] | None, said: _Phrase) -> ActionSpec | None:
    assert m is not None
    return _record(m, said.workspace, said.lexicon, said.read, said.text)


def _find(m: re.Match[str] | None, said: _Phrase) -> ActionSpec | None:
    assert m is not None
    if not _pattern_of(m["what"], said.lexicon):
        return None
    return _checked(ActionSpec("find", said.text, (said.file(m["file"]),)))


def _delete(m: re.Match[str] | None, said: _Phrase) -> ActionSpec | None:
    assert m is not None
    files = _files(m["files"], said.workspace, said.lexicon)
    return _checked(ActionSpec("delete", said.text, files)) if files is not None else None


# Each verb's phrases, in the order they are tried: the verbs a phrase can be read as
# (by the runtime's names, `spellbook.verbs.actions.VERBS`), its pattern and its reading (None
# when the words match but say something else; the next phrase is tried). The
# machine's vocabulary's own verbs (no pattern here: their own) come after the state's.
# A verb's canonical words are `canonical._VERBS`', its near misses `near_verbs.VERBS`'.
Reading = Callable[[re.Match[str] | None, _Phrase], ActionSpec | None]
PHRASES: tuple[tuple[tuple[str, ...], re.Pattern[str] | None, Reading], ...] = (
    (("no_change",), _NO_CHANGE, _no_change),
    (("set_state",), _SET_STATE, _set_state),
    ((), None, _vocabulary),
    (("set_state_field",), _SET_STATE_FIELD, _state_field),
    (("set_field",), _SET_FIELD, _field_set),
    (("increment",), _INCREMENT, _increment),
    (("reset",), _RESET, _reset),
    (("fill",), _FILL, _fill),
    (("extract",), _EXTRACT, _extract),
    (("extract",), _EXTRACT_JSON, _extract_json),
    (("extract",), _FRONTMATTER, _extract),
    (("load",), _LOAD, _load),
    (("create",), _CREATE, _create),
    (("archive",), _ARCHIVE, _archive),
    (("append_item",), _APPEND_ITEM, _append_item),
    (("append",), _APPEND, _append),
    (("copy", "move"), _COPY, _copy_or_move),
    (("record",), _RECORD, _recorded),
    (("find",), _FIND, _find),
    (("delete",), _DELETE, _delete),
)


def _copied(m: re.Match[str], workspace: str, phrase: str, extracted: set[str]) -> ActionSpec:
    """`Copy F to G`, `Move F to G`, `Rename F to G`, `Move F to done/`."""
    kind = "copy" if m["verb"].lower().startswith("cop") else "move"
    source, dest = _relative(m["file"], workspace), _relative(m["dest"], workspace)
    if dest.rstrip("/") == source:
        done = "copied" if kind == "copy" else "moved"
        return ActionSpec(
            kind, phrase, (source, dest), problem=f"{source} would be {done} onto itself"
        )
    action = _checked(ActionSpec(kind, phrase, (source, dest)))
    last, ext = dest.rstrip("/").rsplit("/", 1)[-1], os.path.splitext(source)[1]
    if not action.problem and not dest.endswith("/") and ext and "." not in last:
        # `Move a.md to done`: a file named `done`, where a folder is most likely meant
        verb = m["verb"].strip().capitalize()
        return ActionSpec(
            kind,
            phrase,
            action.files,
            problem=f"`{dest}` is a file's name with no extension, where {source} has one: "
            f"write `{verb} {m['file']} to {dest}/` for the folder {dest}, or `{verb} "
            f"{m['file']} to {dest}{ext}` for a file of that name",
        )
    unknown = set(_VARIABLE.findall(dest)) - BUILTIN_VARIABLES - extracted
    if unknown and not action.problem:
        names = ", ".join("${" + v + "}" for v in sorted(unknown))
        return ActionSpec(kind, phrase, action.files, problem=f"{names} is not known here")
    return action


def _no_constant(written: str) -> object:
    """`NaN` and `Infinity`, which Python's JSON reader takes and JSON has not."""
    raise ValueError(written)


def _json_value(written: str) -> object:
    """A JSON value as an action writes it (ValueError if it is none)."""
    value = json.loads(written, parse_constant=_no_constant)
    json.dumps(value, allow_nan=False)  # 1e400 is read as infinity, which JSON has not
    return value


def _set_field(m: re.Match[str], workspace: str, phrase: str) -> ActionSpec:
    """`Set KEY in F.json to VALUE`: the value as JSON writes it (`true`, `2`, `"done"`);
    KEY a query naming one place (`tickets[id=$ticket].status`)."""
    file = _relative(m["file"], workspace)
    written = m["value"].strip().strip("`").strip()
    try:
        value = _json_value(written)
    except ValueError:
        return ActionSpec(
            "instruct",
            phrase,
            hint=f'`{written}` is not a JSON value: true, false, null, a number, or "text"',
        )
    return _json_edit("set_field", phrase, file, m["key"], value)


def _json_edit(verb: str, phrase: str, file: str, written: str, value: object) -> ActionSpec:
    """A `set_field` or `append_item` of `value` at the place the query `written` names
    in the JSON file `file`; each filter keeps one item (`=`), and the query ends in a
    key (`spellbook.facts.json_values.place`)."""
    query = written.strip("`").strip()
    if not is_json(file):
        return ActionSpec(verb, phrase, (file,), problem=f"{file} is not a JSON file")
    problem = ""
    if not _QUERY.fullmatch(query) or _ODD_VALUE.search(query):
        problem = (
            f"`{query}` is not a query: keys joined by dots, each with filters "
            "`[key=value]` (`tickets[id=$ticket].status`)"
        )
    elif "!=" in query:
        problem = f"`{query}` filters with `!=`, which keeps many items; name one with `=`"
    elif query.endswith("]"):
        problem = f"`{query}` ends in a filter; name the key to write (`{query}.status`)"
    if problem:
        return ActionSpec(verb, phrase, (file,), problem=problem)
    target = json.dumps([query, value], ensure_ascii=False)
    return _checked(ActionSpec(verb, phrase, (file,), target))


def _scope(what: str, lexicon: Lexicon) -> re.Match[str] | None:
    """What a Record with no `of F` after the section records, and from which section:
    ``matches of `RE` of F under "S"`` where what comes before `of F` is a pattern
    (`` `x` `` may be a file's name too), else ``matches of `RE` under "S"``."""
    m = _OF_UNDER.fullmatch(what)
    return m if m is not None and _pattern_of(m["what"], lexicon) else _UNDER.fullmatch(what)


def _pattern_of(what: str, lexicon: Lexicon) -> str:
    """The pattern a ledger records: ``matches of `RE` ``, or a noun that is one (the
    spec's Terms row naming a pattern first, then the vocabulary's); "" if none."""
    m = _MATCHES_OF.fullmatch(what.strip())
    if m:
        return m["re"]
    name = re.sub(r"^(?:new|unlisted|unprocessed) ", "", what.strip(), flags=re.I)
    term = lexicon.terms.get(normal(name))
    if term is not None and term_pattern(term.means):
        return term_pattern(term.means)
    noun = lexicon.noun(name)
    return noun.param if noun is not None and noun.probe == "matches" else ""


def record_noun(phrase: str) -> str:
    """The noun (`normal`) a `Record NOUN ...` or `Extracts all NOUN from F` phrase names
    for what it records or finds; "" for another phrase."""
    m = _RECORD.fullmatch(phrase) or _FIND.fullmatch(phrase)
    if m is None:
        return ""
    under = _UNDER.fullmatch(m["what"])
    what = under["what"] if under is not None else m["what"]
    if under is not None and not m.groupdict().get("source"):
        what = re.sub(rf" (?:of|from) {_SOURCE}$", "", what, flags=re.I)
    return normal(re.sub(r"^(?:new|unlisted|unprocessed) ", "", what.strip(), flags=re.I))


def term_pattern(means: str) -> str:
    """The pattern a Terms row names for a noun of `Record NOUN ...`: its meaning is
    ``matches of `RE` ``, `` `RE` `` alone, or ``F matches `RE` ``; "" if it names none."""
    text = " ".join(means.split())
    m = _MATCHES_OF.fullmatch(text) or _TERM_PATTERN.fullmatch(text)
    return m["re"] if m else ""


def _record(
    m: re.Match[str], workspace: str, lexicon: Lexicon, read: str, phrase: str
) -> ActionSpec | None:
    """`Record NOUN of F in G`: a ledger action, or None if `what` is no pattern;
    ``Record matches of `RE` under "Tables" of F in G``: of that section only."""
    what, written, section = m["what"], m["source"], ""
    under = _scope(what, lexicon) if not written else _UNDER.fullmatch(what)
    if under is not None:
        what, written = under["what"], written or under.groupdict().get("source")
        section = section_name(under["section"])
    pattern = _pattern_of(what, lexicon)
    if not pattern:
        term = lexicon.terms.get(record_noun(phrase))
        if term is not None:  # a Terms row for the noun, which names no pattern
            hint = f"the Terms row {term.phrase!r} means {term.means!r}, which names no pattern"
            return ActionSpec("instruct", phrase, hint=hint)
        return None
    ledger = _relative(m["ledger"], workspace)
    source = _relative(written, workspace) if written else read
    target = record_target(pattern, section)
    odd = next((f for f in (source, ledger) if f and not re.fullmatch(r"[\w.\-/]+", f)), "")
    if odd:
        return ActionSpec(
            "record", phrase, (source, ledger), target, f"`{odd}` is not a file's name"
        )
    if not source:
        return ActionSpec(
            "record",
            phrase,
            ("", ledger),
            target,
            "it names no file to find them in: say `of F`, or read F first in the cell",
        )
    # A pattern the spec writes (in the cell or its Terms) is checked; a vocabulary's noun
    # is its author's to bound.
    own = not pattern.startswith(VOCABULARY)
    problem = pattern_problem(pattern) if own else ""
    return _checked(ActionSpec("record", phrase, (source, ledger), target, problem))


def _files(text: str, workspace: str, lexicon: Lexicon) -> tuple[str, ...] | None:
    """`a.md and b.md`, `a.md, b.md` or a group the vocabulary names; None if not all are
    files."""
    group = lexicon.file_groups.get(normal(re.sub(r"^existing ", "", text.strip(), flags=re.I)))
    if group is not None:
        return group
    written = [n.strip() for n in re.split(r",\s*|\s+and\s+", text) if n.strip()]
    # A name with an extension, or any plain name in backticks (`VERSION`).
    plain = r"`?[\w.\-/]*\w\.\w+`?|`[\w.\-/]*[\w\-]`"
    if not written or not all(re.fullmatch(plain, n) for n in written):
        return None
    return tuple(_relative(n.strip("`"), workspace) for n in written)


def _relative(path: str, workspace: str) -> str:
    """The file relative to the workspace folder; a path outside it stays as written, and
    `_checked` refuses it."""
    inside = workspace_path(path, workspace)
    return inside if inside is not None else path.strip("`")


def _checked(action: ActionSpec) -> ActionSpec:
    """Refuse paths that would leave the workspace folder, go into a `.git` folder, touch
    the runtime's own files, or hold a glob or a placeholder."""
    # `${date}` and extracted values fill an archive folder and a copy's destination.
    filled = {action.target} if action.verb == "archive" else set()
    if action.verb in ("copy", "move"):
        filled.add(action.files[1])
    for path in (*action.files, action.target if action.verb == "archive" else ""):
        parts = path.split("/")
        problem = ""
        if path.startswith("/") and not path_problem(path[1:]):
            problem = (
                f"{path} is a file of the repository outside the workspace folder: conditions "
                "may read it, but actions change only files of the workspace folder"
            )
        elif path.startswith(("/", "~")) or ".." in parts or "\\" in path:
            problem = f"{path} is outside the workspace folder"
        elif any(is_git(p) for p in parts):
            problem = f"{path} is in a .git folder, which Spellbook never touches"
        elif own_file(path, action.verb):  # the state file: `check_actions`, which knows it
            problem = f"{path} {OWN_FILE}"
        elif _ODD_NAME.search(_VARIABLE.sub("", path) if path in filled else path):
            problem = f"`{path}` is not a file's name (a glob or a placeholder is not read)"
        if problem:
            return replace(action, problem=problem, hint="", content="")
    return action
