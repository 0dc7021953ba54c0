"""Responses: what a cast tells the AI and the developer, made at cast time.

A generated machine declares its spec's Response Format Templates split into
parts (`TEMPLATES`: literal text and the names of the slots between). A cast
joins them with what its rule says and did (`Writer.response`), then fills the
placeholders only the runtime knows (`fill`), such as what each spell would do now.

The template is chosen by what the rule does: `blocked` for `[BLOCKED]` rules;
`noop` for rules that keep the state and whose Response is a reason
(`Explain: "..."`); `confirmation` for rules into a state whose Valid Actions
are a confirm/cancel choice; `standard` for the rest. The slots:

| slot        | filled with                                                  |
|-------------|--------------------------------------------------------------|
| `spell`     | the spell cast                                               |
| `ai`        | the rule's Response text, its AI steps, file context         |
| `happened`  | the reason (blocked, no-op) or what the actions did          |
| `where`     | the state after the rule, with its description               |

What each spell would do now comes from dry-running its trigger on the machine,
so the list is always the spec's own answer for the current files.

What a rule's response says about the workspace
after its actions is left in it as a placeholder made by `placeholder()`, filled by
plain string substitution:

| placeholder             | filled with                                  |
|-------------------------|----------------------------------------------|
| `{{available_spells}}`  | what every spell would do now, as a list     |
| `{{does:SPELL}}`        | what SPELL would do now                      |
| `{{next_steps}}`        | the spells that would move the workflow now  |
| `{{archive_path}}`      | the folder an archive action moved files to  |
| `{{content:FILE}}`      | the text of FILE, for the AI                 |

`{{content:FILE}}` is FILE as a `Load FILE content` action of the rule read it, or,
where no action loads it, as the cast leaves it (a name relative to the workspace
folder); a row that loads FILE and asks for it in its Response shows it once.
"""

from __future__ import annotations

import json
import re

from spellbook.disk.own_files import TRASH
from spellbook.records import words
from spellbook.schema import Action, Rule, State

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from spellbook.records.outcome import Did, Preview

SLOTS = ("spell", "ai", "happened", "where")
_EXPLAIN = re.compile(r"\s*explain:\s*[\"“](?P<reason>.+)[\"”]\s*", re.IGNORECASE | re.DOTALL)
_TELL_USER = r"\s*tell (?:the )?user (?:that )?they\b"  # compiled where a text may say it
_VERBS = {
    "create": ("creates", "created"),
    "archive": ("archives", "archived"),
    "delete": ("deletes", "deleted"),
    "load": ("loads", "loaded"),
    "record": ("records", "recorded"),
}
# The subject a reason's first word asks for when the spec leaves it out.
_SUBJECTS = {
    **dict.fromkeys(("must", "cannot", "can't", "should", "may"), "you"),
    "already": "you are",
    "use": "you need to",
    **dict.fromkeys(("skips", "leaves", "needs", "requires", "breaks"), "it"),
}


# Verbs a refusal's reason may open with, written as what to do ("Write the postmortem,
# then WriteUp"): "because you need to write ...".
_ORDERS = frozenset({
    "write", "cast", "run", "finish", "complete", "fill", "add", "create", "fix", "resolve",
    "review", "commit", "push", "merge", "check", "edit", "update", "tick", "answer", "wait",
    "start", "close", "open", "remove", "delete", "sign",
})  # fmt: skip


def placeholder(name: str, arg: str = "") -> str:
    """The text a response carries where the runtime fills in `name` (for `arg`)."""
    return "{{" + name + (":" + arg if arg else "") + "}}"


def reason(text: str) -> str | None:
    """The developer-facing reason in a Response: `Explain: "..."`, or `Tell user they ...`."""
    m = _EXPLAIN.fullmatch(text)
    if m:
        return m.group("reason").strip()
    # Only "t" and "T" match the pattern's first letter, even ignoring case: a text that
    # starts with another never costs compiling it (a tenth of a millisecond).
    told = re.match(_TELL_USER, text, re.IGNORECASE) if text.lstrip()[:1] in ("t", "T") else None
    if told:
        return "you" + text[told.end() :]
    return None


def compose(parts: Sequence[str], values: Mapping[str, str]) -> str:
    """A template's parts joined: literal text, then a slot's value, in turn. A value
    that follows the template's own "because" says its own reason with "as" (never
    "... because X because Y")."""
    text = "".join(
        (_as_reason(values[p]) if parts[i - 1].endswith("because ") else values[p]) if i % 2 else p
        for i, p in enumerate(parts)
    )
    return text.rstrip("\n") + "\n"


def _as_reason(text: str) -> str:
    """`text`, to follow "because": a "because" it starts with dropped, and its own
    first (", ")"because" said ", as"."""
    if text[:8].lower() == "because ":
        text = text[8:]
    return re.sub(r",? because ", ", as ", text, count=1)


class Writer:
    """Says what a machine's rules do and did, in its spec's words and formats."""

    def __init__(
        self,
        templates: Mapping[str, Sequence[str]],
        states: Iterable[State],
        spells: Iterable[str],
        workspace: str,
        fields: Sequence[str] = (),
        files: Sequence[str] = (),
        word: str = "spell",
    ) -> None:
        self.templates = templates
        self.word = word  # what the spec calls its spells (`SPELL_WORD`)
        self.states = {state.name: state for state in states}
        self.names = {*self.states, *spells}
        self.workspace = workspace
        self.fields = tuple(fields)  # the state file's fields, said where the state is
        self.files = tuple(files)  # the files whose presence the rules ask, likewise
        self._summaries: dict[Rule, str] = {}
        self._responses: dict[Rule, str] = {}  # each rule's, told as declared

    def template_kind(self, rule: Rule) -> str:
        if rule.kind == "blocked":
            return "blocked"
        if rule.kind == "noop" and reason(rule.response) is not None:
            return "noop"
        if rule.changes_state and self.states[rule.dest].confirmation:
            return "confirmation"
        return "standard"

    def response(self, rule: Rule, did: Sequence[Did] | None = None) -> str:
        """The rule's response, its runtime placeholders (see `spellbook.schema`) left.
        `did` is what its file actions did in a cast; without it, they are told as
        declared (a preview of the spec's text)."""
        if did is None:
            found = self._responses.get(rule)
            if found is None:
                found = self._responses[rule] = self._response(rule, None)
            return found
        return self._response(rule, did)

    def _response(self, rule: Rule, did: Sequence[Did] | None) -> str:
        kind = self.template_kind(rule)
        values = {
            "spell": rule.spell,
            "ai": self._ai_text(rule, did),
            "happened": self._happened(rule, kind, did),
            "where": self._where(rule.dest),
        }
        return compose(self.templates[kind], values)

    def refusal(self, rule: Rule) -> str:
        """Why a blocked rule refuses its spell, fit to follow "because"."""
        return self._clause(reason(rule.response) or rule.response or "not allowed here")

    def summary(self, rule: Rule, did: Sequence[Did] | None = None) -> str:
        """What casting the spell does when this rule wins, in one line: as its cast
        would plan it now (`did`), or as declared."""
        if did is not None:
            return self._summary(rule, did)
        found = self._summaries.get(rule)
        if found is None:
            found = self._summaries[rule] = self._summary(rule)
        return found

    def effects(self, rule: Rule) -> str:
        """What the rule's actions do, as declared, in one clause ("" if nothing)."""
        return "; ".join(self._done(rule, None, would=True))

    def does(self, preview: Preview | None) -> str:
        """What casting a spell does now, as its preview tells it (None: no rule applies)."""
        if preview is None:
            return "nothing: no rule of the spec applies now"
        if preview.words or preview.rule is None:
            return preview.words
        return self.summary(preview.rule)

    def _summary(self, rule: Rule, did: Sequence[Did] | None = None) -> str:
        if rule.kind == "blocked":
            return "blocked: " + self.refusal(rule)
        done = self._done(rule, did, would=True)
        if rule.changes_state:
            return f"moves to **{rule.dest}**" + (": " + "; ".join(done) if done else "")
        if done:
            return "; ".join(done)
        # A placeholder the response fills at cast time says nothing in one line (and
        # `{{available_spells}}` would be this very list): left out.
        text = rule.response
        if "{{" in text:
            text = " ".join(re.sub(r"\{\{[^{}]*\}\}", " ", text).split())
        why = reason(text)
        if why:
            return "no effect: " + self._clause(why)
        return "no state change: " + self._clause(text or "nothing to do")

    def _path(self, file: str) -> str:
        return f"`{self.workspace}/{file}`" if self.workspace else f"`{file}`"

    def _files(self, files: Sequence[str]) -> str:
        named = [self._path(f) for f in files]
        return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]

    def _did(
        self, action: Action, would: bool = False, did: Did | None = None, at: str = ""
    ) -> str | None:
        """What an action did (or, `would`, does), in the developer's words; None for
        actions with nothing to show. `did` is what it found when carried out (or
        planned); without it, the action is told as declared, every file there."""
        if action.verb in ("copy", "move", "append", "set_field", "append_item"):
            return self._edited(action, would, did)
        if action.verb == "increment":
            return f"{'adds' if would else 'added'} one to {action.target}"
        if action.verb == "reset":
            counter, _, value = action.target.partition("=")
            return f"{'sets' if would else 'set'} {counter} to {value}"
        if action.verb == "set_state_field":
            name, how, value = json.loads(action.target)
            to = (
                f"the first `{value}` of {self._path(action.files[0])}"
                if how == "first"
                else json.dumps(value, ensure_ascii=False)
            )
            return f"{'sets' if would else 'set'} {name} in the state file to {to}"
        verb = _VERBS.get(action.verb)
        if verb is None:
            return None
        says = verb[0] if would else verb[1]
        if action.verb == "load":
            return f"{says} {at or self._path(action.files[0])} for the AI"
        if action.verb == "record":
            return self._recorded(action, would, did)

        files, absent = (did.files, did.absent) if did is not None else (action.files, ())
        if action.verb == "create":
            if not files:
                kept = "keeps" if would else "kept"
                return f"{kept} {self._path(absent[0])} as it is (it already exists)"
            if action.target:
                return f"{says} {self._path(files[0])} from its template"
            return f"{says} an empty {self._path(files[0])}"
        are = ("are" if would else "were") if len(absent) > 1 else ("is" if would else "was")
        missing = f"{self._files(absent)} {are} not there" if absent else ""
        if not files:
            return f"nothing to {action.verb}: {missing}"
        asides = [missing] if missing else []
        if did is not None:  # files of one name from several folders: `notes-2.md`
            asides += [
                f"{self._path(file)} as {to.rsplit('/', 1)[-1]}"
                for file, to in zip(files, did.to, strict=False)
                if to.rsplit("/", 1)[-1] != file.rsplit("/", 1)[-1]
            ]
        if action.verb == "delete":  # a preview names the trash, not the second it will be
            folder = self._folder(did.folder if did is not None and not would else TRASH)
            said = f"{says} {self._files(files)} into `{folder}/`"
            asides.insert(0, "nothing is lost")
        elif did is not None:
            said = f"{says} {self._files(files)} to `{self._folder(did.folder)}/`"
        else:
            folder = action.target if would else placeholder("archive_path")
            said = f"{says} {self._files(files)} to `{folder}`"
        return f"{said} ({'; '.join(asides)})" if asides else said

    def _edited(self, action: Action, would: bool, did: Did | None) -> str:
        """What a copy, move, appended line or JSON field did (or, `would`, does)."""
        file = self._path(action.files[0])
        if action.verb == "append":
            return f"{'appends' if would else 'appended'} a line to {file}"
        if action.verb in ("set_field", "append_item"):
            key = json.loads(action.target)[0] if action.target.startswith("[") else "?"
            if action.verb == "append_item":
                return f"{'appends' if would else 'appended'} an item to {key} in {file}"
            return f"{'sets' if would else 'set'} {key} in {file}"
        copies = action.verb == "copy"
        says = ("copies" if copies else "moves") if would else ("copied" if copies else "moved")
        dest = did.folder if did is not None and did.folder else action.files[1]
        if did is not None and did.absent:
            return f"nothing to {action.verb}: {file} {'is' if would else 'was'} not there"
        if did is not None and not did.files:
            kept = "keeps" if would else "kept"
            return f"{kept} {self._path(dest)} as it is (it already exists)"
        return f"{says} {file} to {self._path(dest)}"

    def _recorded(self, action: Action, would: bool, did: Did | None) -> str:
        from spellbook.facts.ledgers import record_parts

        source, ledger = (self._path(f) for f in action.files)
        section = record_parts(action.target)[1]
        under = f' under "{section}"' if section else ""
        if did is None:
            said = "records" if would else "recorded"
            return f"{said} in {ledger} what {source} has{under} that it does not list yet"
        if did.absent:
            return f"nothing to record in {ledger}: {source} {'is' if would else 'was'} not there"
        if not did.files:
            return f"nothing new to record in {ledger}: it lists all of {source}'s{under}"
        count = len(did.files)
        entries = f"{count} new entr{'y' if count == 1 else 'ies'}"
        return f"{'records' if would else 'recorded'} {entries} of {source}{under} in {ledger}"

    def _done(self, rule: Rule, did: Sequence[Did] | None, would: bool = False) -> list[str]:
        """What the rule's actions did, in order: as `did` says (a cast's outcome, or a
        plan's), or as declared."""
        outcomes = {d.action: d for d in did} if did is not None else {}
        said = []
        for index, action in enumerate(rule.actions):
            outcome = outcomes.get(index)
            at = ""  # a file loaded from where an earlier action of the cast moved it
            if action.verb == "load" and did is not None:
                at = self._moved(action.files[0], [d for d in did if d.action < index])
            told = self._did(action, would, outcome, at)
            if told:
                said.append(told)
        return said

    def _folder(self, folder: str) -> str:
        return f"{self.workspace}/{folder}" if self.workspace else folder

    def _moved(self, file: str, did: Sequence[Did] | None) -> str:
        """Where an action of the cast (`did`) moved `file` to (an archive), as a path to
        show; "" if none did."""
        moved = [d.to[d.files.index(file)] for d in (did or ()) if d.to and file in d.files]
        return f"`{self._folder(moved[-1])}`" if moved else ""

    def _happened(self, rule: Rule, kind: str, did: Sequence[Did] | None = None) -> str:
        if kind == "blocked" and self._alone(kind, "happened"):
            return self._refused(rule)
        if kind in ("blocked", "noop"):
            return self._clause(reason(rule.response) or rule.response or "the spec says so")
        if kind == "confirmation":
            return self._clause(rule.response or f"{rule.spell} needs confirmation")
        done = self._done(rule, did)
        first = f"You {words.did(self.word)} **{rule.spell}**" + (
            ": " + "; ".join(done) + "." if done else "."
        )
        if rule.changes_state:
            return f"{first} The workflow moved from **{rule.source}** to **{rule.dest}**."
        return f"{first} The workflow stays in **{rule.source}**."

    def _alone(self, kind: str, slot: str) -> bool:
        """Whether `slot` fills whole lines of the `kind` template (as the built-in
        template's sections are), rather than ending a sentence the template starts."""
        parts = self.templates[kind]
        return any(
            part == slot and parts[i - 1].endswith("\n") and parts[i + 1][:1] in ("\n", "")
            for i, part in enumerate(parts)
            if i % 2
        )

    def _refused(self, rule: Rule) -> str:
        """A blocked rule's refusal as sentences of their own: the spell, the state,
        the rule, its reason if the spec gives one, and where to look next."""
        why = reason(rule.response) or rule.response
        said = self._clause(why) if why else ""
        if said.split(" ", 1)[0] in _ORDERS:
            said = f"you need to {said}"
        because = f" because {said}" if said else ""
        listed = any(
            "{{available_spells}}" in p or "{{does:" in p for p in self.templates["blocked"]
        )
        then = f": what each {self.word} would do now is below" if listed else ""
        return (
            f"You {words.did(self.word)} **{rule.spell}**, which is blocked in **{rule.source}** "
            f"(rule {rule.id}){because}. Nothing changed{then}."
        )

    def _clause(self, text: str) -> str:
        """A sentence made fit to follow "because ...": no final period, lower-case start
        unless it starts with a name."""
        text = " ".join(text.split()).rstrip(".")
        first = text.split(" ", 1)[0].strip("\"'*`,")
        # Lower-case an ordinary capitalised word ("Cannot", "A"), not a name ("INIT's").
        ordinary = (len(first) > 1 and first[0].isupper() and first[1].islower()) or first == "A"
        if ordinary and first not in self.names:
            text = text[0].lower() + text[1:]
        # A reason written without its subject ("Must Accio first", "Skips testing")
        # gets one, to read as a sentence after "because".
        subject = _SUBJECTS.get(first.lower()) if first not in self.names else None
        return f"{subject} {text}" if subject else text

    def _where(self, state: str) -> str:
        description = self.states[state].description
        said = f"**{state}**: {description}" if description else f"**{state}**"
        # The state file's fields as the cast leaves them (`fields_said`), if it has any,
        # and which of the files the rules ask about are there (`preview.files_said`).
        if self.fields:
            said += placeholder("fields")
        return said + "\n" + placeholder("files") if self.files else said

    def _told(self, rule: Rule) -> str:
        """What the AI is told of a rule whose row has no Response."""
        if rule.kind == "blocked":
            return (
                f"{rule.spell} is blocked in {rule.source} (rule {rule.id}): nothing changed. "
                f"Tell the developer, and suggest one of the {words.plural(self.word)} that "
                "do something now."
            )
        return f"{rule.spell} fired rule {rule.id}; tell the developer."

    def _ai_text(self, rule: Rule, did: Sequence[Did] | None = None) -> str:
        parts = [_blocks(rule.response) or self._told(rule)]
        # A `find` reads the file for the steps after it: the AI is told it too.
        steps = [a.text for a in rule.actions if a.verb in ("instruct", "find")]
        if steps:
            parts.append(
                "Steps from the spec's Action column:\n"
                + "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))
            )
        outcomes = {d.action: d for d in did} if did is not None else None
        for index, action in enumerate(rule.actions):
            if action.verb == "archive":
                if outcomes is None:
                    archived = self._files(action.files)
                    parts.append(f"Archived {archived} to `{placeholder('archive_path')}`.")
                elif index in outcomes:
                    told = self._did(action, did=outcomes[index]) or ""
                    parts.append(told[:1].upper() + told[1:] + ".")
            elif action.verb == "load":
                file = action.files[0]
                if placeholder("content", file) in rule.response:
                    continue  # the Response shows it where it asks for it
                where = self._moved(file, did) or self._path(file)
                parts.append(f"Content of {where}:\n\n" + placeholder("content", file))
        return "\n\n".join(parts)


_CONTENT = re.compile(r"[ \t]*(\{\{content:[^{}]*\}\})[ \t]*")


def _blocks(text: str) -> str:
    """`text` with each `{{content:FILE}}` on lines of its own: the fenced block it is
    filled with opens and closes only at the start of a line."""
    if "{{content:" not in text:
        return text
    pieces = _CONTENT.split(text)
    out = pieces[0]
    for i in range(1, len(pieces), 2):
        if out and not out.endswith("\n"):
            out += "\n\n"
        out += pieces[i]
        after = pieces[i + 1]
        out += "\n\n" + after if after and not after.startswith("\n") else after
    return out


def fields_said(fields: Sequence[str], values: Mapping[str, object]) -> str:
    """The state file's fields that hold a value, to follow a state's description:
    ` (step_id: S-1, attempts: 2)`, or nothing."""
    held = [f"{name}: {values[name]}" for name in fields if values.get(name) is not None]
    return f" ({', '.join(held)})" if held else ""


def unmet_said(state: str, unmet: Sequence[str]) -> str:
    """That the files do not match `state`'s Indicators, and how (`Foresight.unmet`)."""
    return f"The files do not match {state}'s Indicators: {', '.join(unmet)}"


def fill(text: str, values: dict[str, str]) -> str:
    """Replace each `{{name}}` / `{{name:arg}}` whose key is in `values`; leave others.

    One pass over the text, no regular expression: a cast fills one response, and
    compiling a pattern would cost more than the filling.
    """
    if "{{" not in text:
        return text
    read = _PARTS.get(text)
    if read is None:
        read = _placeholders(text)
        if len(_PARTS) >= 256:
            _PARTS.clear()
        _PARTS[text] = read
    first, parts = read
    out = [first]
    for part, braces, key, after in parts:
        if key is not None and key in values:
            out += (braces, values[key], after)
        else:
            out += ("{{", part)
    return "".join(out)


# Texts `fill` has read (a rule's response is filled again at every cast): the text
# before the first `{{`, then for each `{{` the text after it, the braces before the
# name, the name (None where no `}}` closes it) and the text after the name.
Placeholders = tuple[str, list[tuple[str, str, "str | None", str]]]
_PARTS: dict[str, Placeholders] = {}


def asked(text: str, name: str) -> list[str]:
    """The arguments of the placeholders `{{name:ARG}}` in `text`, in order."""
    if "{{" not in text:
        return []
    prefix = name + ":"
    return [
        key[len(prefix) :]
        for _, _, key, _ in _placeholders(text)[1]
        if key is not None and key.startswith(prefix)
    ]


def _placeholders(text: str) -> Placeholders:
    first, *rest = text.split("{{")
    parts: list[tuple[str, str, str | None, str]] = []
    for part in rest:
        braces = len(part) - len(part.lstrip("{"))  # `{{{x}}`: a brace, then `{{x}}`
        key, closed, after = part[braces:].partition("}}")
        # `{{ content: draft.md }}` is `{{content:draft.md}}`: spaces are no name's
        name, colon, arg = key.partition(":")
        key = name.strip() + (":" + arg.strip() if colon else "")
        parts.append((part, "{" * braces, key if closed else None, after))
    return first, parts


class First:
    """What must hold first (`once`, in the spec's words) for `rule` of a spell to win
    and move the workflow on (`Foresight.first`); `counted`: only a counter of the
    state file must change (`attempts ≥ 2`), as repeated casts count it up: where the
    workflow goes when tries run out, not a step to aim for."""

    __slots__ = ("once", "rule", "counted")

    def __init__(self, once: str, rule: Rule, counted: bool = False) -> None:
        self.once = once
        self.rule = rule
        self.counted = counted


def spell_values(
    previews: Mapping[str, Preview | None],
    writer: Writer,
    word: str = "spell",
    first: Mapping[str, First] | None = None,
) -> dict[str, str]:
    """The placeholders about spells (or what the spec calls them, `word`): each one's
    effect, the full list, and next steps. `first` holds, for a spell that would not
    move the workflow nearer its goal now, what must hold first for a rule that would
    (see `Foresight.first`): that step is told instead; one that only a counter
    reaching its limit makes win is told last, as what happens then, not as a step."""
    does = writer.does
    first = first or {}
    run = words.verb(word)
    values = {f"does:{spell}": does(told) for spell, told in previews.items()}
    values["available_spells"] = "\n".join(
        f"- **{spell}**: {does(told)}" for spell, told in previews.items()
    )
    steps = []
    limits = []
    for spell, told in previews.items():
        if spell in first:
            once, other = first[spell].once, first[spell].rule
            now = f" (now: {does(told)})"
            if first[spell].counted:
                limits.append(f"- **{spell}** moves to **{other.dest}** only when {once}{now}")
                continue
            steps.append(f"- Once {once}, {run} **{spell}**: moves to **{other.dest}**{now}")
        elif told is not None and told.offered:
            steps.append(f"- {run.title()} **{spell}**: {does(told)}")
        elif (
            told is not None
            and told.kind == "refused"
            and told.rule is not None
            and told.rule.changes_state
        ):
            moves = f"moves to **{told.rule.dest}**"
            steps.append(f"- Once this is put right, {run} **{spell}** ({moves}): {told.why}")
    steps += limits
    values["next_steps"] = (
        "\n".join(steps)
        if steps
        else f"No {word} moves on from here right now; see the {words.plural(word)} above."
    )
    return values


def fenced(text: str | None, name: str = "") -> str:
    """A file's text as a fenced block that its own backticks cannot close, marked with
    the language its name's extension says (`json` for `scorecard.json`; `markdown`
    for `.md` and a name with no extension it knows)."""
    if text is None:
        return "_(the file is not there)_"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    language = (
        _LANGUAGES.get(name.rpartition(".")[2].lower(), "markdown") if "." in name else "markdown"
    )
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


# A file's language in a fence, by its extension (any other: `markdown`).
_LANGUAGES = dict(json="json", yaml="yaml", yml="yaml", toml="toml", txt="text", csv="csv")
_LANGUAGES.update(py="python", sh="sh")


def unhandled(
    spell: str, state: str, description: str, facts: list[str], spec: str, word: str = "spell"
) -> str:
    """The response when no rule covers the cell for the files as they are (`facts`, the
    facts its rules look at, in words; none for a cell no rule of the spec is for)."""
    when = f" when {', '.join(facts)}" if facts else ""
    return (
        "## Response to the AI\n\n"
        f"No rule in {spec} covers {spell} in {state}{when}. Nothing was changed. "
        f"Tell the developer, and suggest one of the {words.plural(word)} below.\n\n"
        "## Response to the Developer\n\n"
        "### What Just Happened\n"
        f"You {words.did(word)} **{spell}**, but the spec has no rule for it in **{state}**"
        f"{when}. "
        "Nothing changed.\n\n"
        "### Where We Are\n"
        f"**{state}**: {description}\n\n"
        f"### Available {words.plural(word).title()}\n"
        f"{placeholder('available_spells')}\n\n"
        "### Next Steps\n"
        f"{placeholder('next_steps')}\n"
    )


def with_notes(text: str, notes: list[str]) -> str:
    if not notes:
        return text
    return text.rstrip("\n") + "\n\n### Notes\n" + "".join(f"- {n}\n" for n in notes)
