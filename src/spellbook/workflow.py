"""Casting spells against a workspace: `Workflow(root).cast("accio")`.

One cast, under the workspace's lock: read the state file (a missing one means
the initial state), let the generated machine pick the rule for the spell in
that state (its guards read the files), carry out the rule's actions, append
one history entry, write the state file atomically, and fill in the response.
Every cast appends exactly one entry, whatever its outcome.

A cast that changes files has one commit point. Its actions are planned first
(nothing touched), then the plan, the new history entry and the state to move
to are written atomically to `.ai/task/.intent.json`: from then on the cast
counts as done. The file operations follow, then the state file, then the
intent record is deleted. If anything stops the cast part way (a crash, a
killed process, a disk error), the next cast finds the intent record under the
lock and finishes it first; every operation can be applied twice with the same
result, and the cast's id in the history says whether the state file was
written already, so nothing is done twice.
"""

from __future__ import annotations

import json
import os
from importlib import import_module

from spellbook.commands import NeedsRun, Run, command, run
from spellbook.errors import (
    ActionError,
    BadFile,
    Changed,
    Interrupted,
    SpellbookError,
    StateFileError,
    Undefined,
    UnknownSpell,
    UnknownState,
    UnsafePath,
    said,
)
from spellbook.facts import Facts
from spellbook.lock import Lock
from spellbook.probes import PROBES
from spellbook.responses import (
    CannotTell,
    Foreseen,
    Refused,
    Writer,
    fenced,
    fields_said,
    files_said,
    fill,
    spell_values,
    unhandled,
    with_notes,
)
from spellbook.schema import Done, Rule, Wanted, lost_file_states
from spellbook.state_file import (
    REPAIR_LIMIT,
    STATE_LIMIT,
    Encoded,
    Record,
    StateFormat,
    decode,
    encodable,
    encode,
    now,
    today,
)
from spellbook.store import Looks, Workspace, random_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    from spellbook.schema import GeneratedMachine

DEFAULT_MACHINE = "spellbook.machines.spell_machine"

LOCK_FILE = ".state.lock"
# The state file keeps the newest entries of its history: past HISTORY_LIMIT, all but
# the newest HISTORY_KEEP go to a file of their own under HISTORY_FOLDER.
HISTORY_LIMIT = 1000
HISTORY_KEEP = 500
HISTORY_FOLDER = ".history"
MAX_COMMANDS = 4  # commands one cast may run (each a guard's, once)
INTENT_FILE = ".intent.json"
TOLD_LIMIT = 64  # responses' tellings kept (see `Workflow._telling`), by state


class CastResult:
    """What one cast did: the rule that fired (or None), its outcome, the states, the response.

    `outcome` is "transition" (the state changed), "noop" (it did not, and the spell
    was not refused), "blocked" (the spec refuses the spell here) or "unhandled"
    (no rule covers the files as they are).
    """

    __slots__ = (
        "spell",
        "rule",
        "outcome",
        "before",
        "after",
        "response",
        "archive",
        "notes",
        "cast",
    )

    def __init__(
        self,
        spell: str,
        rule: str | None,
        outcome: str,
        before: str,
        after: str,
        response: str,
        archive: str = "",
        notes: tuple[str, ...] = (),
        cast: str = "",
    ) -> None:
        self.spell = spell
        self.rule = rule
        self.outcome = outcome
        self.before = before
        self.after = after
        self.response = response
        self.archive = archive
        self.notes = notes
        self.cast = cast  # the id of its history entry

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self) -> str:
        return (
            f"CastResult({self.spell} in {self.before}: {self.outcome} by {self.rule} "
            f"-> {self.after})"
        )


def outcome_of(rule: Rule) -> str:
    if rule.kind == "blocked":
        return "blocked"
    return "transition" if rule.changes_state else "noop"


class Workflow:
    """A workspace and the machine that runs it (the spell workflow unless told otherwise)."""

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        machine: GeneratedMachine | None = None,
        durable: bool = True,
    ) -> None:
        if machine is None:
            machine = import_module(DEFAULT_MACHINE)
        self.machine: GeneratedMachine = machine
        self.format = StateFormat(
            machine.STATE_KEY,
            machine.HISTORY_KEYS,
            machine.STATE_FIELDS,
            getattr(machine, "FORMERLY", {}),  # machines generated before migrations: none
            machine.SPEC,
        )
        self.workspace = Workspace(os.fspath(root), machine.WORKSPACE, durable)
        self._engine: tuple[Any, Any] | None = None
        self._loaded: set[str] = set()
        # The state file as this workflow last read or wrote it, parsed, with its history
        # entries' encodings: a cast that finds the same bytes skips parsing and encodes
        # only its new entry. Anything else on disk is read afresh.
        self._known: tuple[bytes, Record] | None = None
        self._encoded: Encoded = {}
        self._read: bytes | None = None  # the state file's bytes as last read
        # What each spell would do, by (state, every guard's value): a pure function of those.
        self._previews: dict[tuple[str, tuple[bool | None, ...]], dict[str, Rule | str | None]] = {}
        self.state_file = machine.STATE_FILE[len(machine.WORKSPACE) :].lstrip("/")
        self.states = {s.name: s for s in machine.STATES}
        self.rules: dict[tuple[str, str, str], Rule] = {
            (r.source, r.spell, r.id): r for r in machine.RULES
        }
        # The files whose presence the rules ask, said with every response and status.
        self.files = tuple(dict.fromkeys(g.file for g in machine.GUARDS if g.probe == "exists"))
        self.writer = Writer(
            machine.TEMPLATES,
            machine.STATES,
            machine.SPELLS,
            machine.WORKSPACE,
            machine.STATE_FIELDS,
            self.files,
        )
        self.spells = {s.lower(): s for s in machine.SPELLS}
        self.spells.update({t: s for s, t in machine.TRIGGERS.items()})
        self._vocabulary: ModuleType | None = None
        self._templates: dict[str, str] = {}
        self._cells: dict[tuple[str, str], list[Rule]] = {}  # each (state, spell)'s rules
        self._lost: frozenset[str] | None = None  # the states standing for a lost file
        self._values: tuple[Any, dict[str, bool | None]] | None = None  # see `_guards`
        self._told: dict[tuple[str, str, str], tuple[Looks, dict[str, str]]] = {}  # `_telling`
        self._timeless = all(g.probe != "over_minutes" for g in machine.GUARDS)

    # -- the workflow's own words --

    @property
    def vocabulary(self) -> ModuleType | None:
        """The machine's vocabulary module, imported the first time it is needed."""
        name = getattr(self.machine, "VOCABULARY", "")
        if self._vocabulary is None and name:
            try:
                self._vocabulary = import_module(name)
            except Exception as err:  # not installed, or its own code failed
                raise SpellbookError(
                    f"the machine's vocabulary {name} cannot be imported "
                    f"({type(err).__name__}: {err}); install it, or regenerate the machine"
                ) from None
        return self._vocabulary

    def template(self, name: str) -> str:
        """The text of a file's template ("" if the vocabulary has none)."""
        found = self._templates.get(name)
        if found is None:
            from spellbook.vocabulary import template

            found = self._templates[name] = template(self.vocabulary, name)
        return found

    def facts(
        self,
        record: Record | None = None,
        runs: dict[tuple[str, str], Run] | None = None,
        recorded: bool = False,
    ) -> Facts:
        return Facts(self.workspace, record, runs, self.template, recorded)

    # -- names and state --

    def spell(self, name: str) -> str:
        """The spell's name as the spec writes it; `accio`, `Accio` and `ACCIO` are one spell."""
        found: str | None = self.spells.get(name.strip().lower())
        if found is None:
            word = self.machine.SPELL_WORD
            raise UnknownSpell(
                f"unknown {word} {name!r}; the {word}s are {', '.join(self.machine.SPELLS)}"
            )
        return found

    def _state_bytes(self) -> bytes | None:
        try:
            return self.workspace.read_bytes(self.state_file, STATE_LIMIT)
        except BadFile as err:  # too large, a folder, a FIFO
            raise StateFileError(f"{err}; run `spell repair`") from None

    def read(self) -> Record:
        """The state file as it is (the initial state if there is none yet)."""
        self.workspace.fresh()  # from outside a cast: the folders are checked again
        data = self._state_bytes()
        if data is None:
            return self._initial()
        return self.format.read(data, self.workspace.shown(self.state_file), self.states)

    def _initial(self) -> Record:
        """No state file: the initial state, unless the files contradict its Indicators
        (plan.md is there, say), when the workflow is past it and starting over would
        lose where it is: an error naming `spell repair`, which reads the state off
        the files."""
        facts = self.facts()
        contradicted = [
            (~lit).said
            for lit in self.states[self.machine.INITIAL].evidence
            if facts.check(*lit.guard.fact) != lit.holds
        ]
        if contradicted:
            shown = self.workspace.shown(self.state_file)
            raise StateFileError(
                f"{shown} is missing, but the files say the workflow is past "
                f"{self.machine.INITIAL} ({', '.join(contradicted)}); run `spell repair` "
                "to choose the state from the files"
            )
        return Record(self.machine.INITIAL)

    @property
    def state(self) -> str:
        return self.read().state

    def engine(
        self,
        state: str,
        record: Record | None = None,
        runs: dict[tuple[str, str], Run] | None = None,
        recorded: bool = False,
    ) -> tuple[Any, Any]:
        """The model and its machine, in `state`, with fresh facts; built once per workflow.

        The machine gets a state's rules the first time it is in that state: a cast
        needs only the rules from where it starts and from where it ends.
        """
        if self._engine is None:
            model = self.machine.Model(self.facts())
            self._engine = (model, self.machine.build(model, initial=state, sources=(state,)))
            self._loaded.add(state)
        model, machine = self._engine
        if state not in self._loaded:
            machine.add_transitions(self.machine.transitions_from(state, model))
            self._loaded.add(state)
        model.facts = self.facts(record, runs, recorded)
        model.fired = None
        machine.set_state(state, model=model)
        return model, machine

    # -- casting --

    def _load(self) -> Record:
        """The state file under the lock, reusing the parse of bytes this workflow wrote."""
        data = self._read = self._state_bytes()
        if data is None:
            self._forget()
            return self._initial()
        if self._known is not None and data == self._known[0]:
            return self._known[1]
        self._forget()
        record = self.format.read(data, self.workspace.shown(self.state_file), self.states)
        self._known = (data, record)
        return record

    def _forget(self) -> None:
        self._known = None
        self._encoded = {}

    def cast(self, spell: str) -> CastResult:
        """Cast `spell`: under the workspace's lock, pick the rule and carry it out.

        A rule whose guard asks for a command's outcome (the tests, say) is found in
        rounds: the lock is let go while the command runs, then taken again; if the
        state file changed meanwhile (another cast), this one stops with nothing
        changed. The run is recorded in the state file (`runs.<key>`).
        """
        name = self.spell(spell)
        runs: dict[tuple[str, str], Run] = {}
        finished: list[str] = []
        seen: bytes | None = None
        for _ in range(MAX_COMMANDS + 1):
            self.workspace.fresh()
            with _Locked(self.workspace):  # the workspace folder, made if missing
                finished += self._recover()
                record = self._load()
                if runs and self._read != seen:
                    ran = ", ".join(f"`{r.command}`" for r in runs.values())
                    raise Changed(
                        f"{name}: {self.workspace.shown(self.state_file)} changed while {ran} "
                        f"ran (another cast); nothing was changed: cast {name} again"
                    )
                seen = self._read
                before = record.state
                model, machine = self.engine(before, record, runs)
                try:
                    getattr(model, self.machine.TRIGGERS[name])()
                except NeedsRun as need:
                    machine.set_state(before, model=model)
                    fact = need.fact
                except Undefined as err:
                    machine.set_state(before, model=model)
                    raise Undefined(f"{name} in {before}: {err} (nothing was changed)") from None
                else:
                    return self._carry_out(name, record, model, runs, finished)
            # The lock is free while the command runs: other casts and status go on.
            _, file, key = fact
            text = command(model.facts, file, key)
            runs[(file, key)] = run(key, text, self.workspace.root, self.workspace.folder)
        raise SpellbookError(f"{name}: its rules ask for more than {MAX_COMMANDS} commands")

    def _carry_out(
        self,
        name: str,
        record: Record,
        model: Any,
        runs: dict[tuple[str, str], Run],
        finished: list[str],
    ) -> CastResult:
        """The rest of a cast whose rule is chosen (`model.fired`), under the lock."""
        before = record.state
        rule = self.rules.get((before, name, model.fired)) if model.fired else None
        cast = random_hex(6)
        former = record.former
        migrated = self._migrate(record, cast)
        after = rule.dest if rule is not None else before
        outcome = outcome_of(rule) if rule is not None else "unhandled"
        entry = self.format.entry(before, after, name, rule.id if rule else None, outcome, cast)
        if runs:  # the outcome of each run, for a judge of a move made by hand later
            kept = record.extra.get("runs")
            record.extra["runs"] = {
                **(kept if isinstance(kept, dict) else {}),
                **{key: ran.recorded() for (_, key), ran in runs.items()},
            }
        done = Done()
        if rule is not None and rule.acts:
            from spellbook.actions import plan  # only rules that touch files need it

            try:
                planned = plan(rule, self.workspace, record, vocabulary=self.vocabulary)
            except (ActionError, UnsafePath, BadFile) as err:
                failed = self.format.entry(before, before, name, rule.id, "failed", cast)
                self._save(record, before, failed)
                unchanged = (
                    f"nothing was changed but the move from {former} to {before}, the "
                    "spec's new name for it, recorded in the history"
                    if former
                    else "nothing was changed"
                )
                raise type(err)(f"{name} in {before}: {err} ({unchanged})") from None
            done = planned.done
            if runs:
                planned.extra["runs"] = record.extra["runs"]
            intent = {
                "cast": cast,
                "before": before,
                "after": after,
                "entry": entry,
                "extra": planned.extra,
                "operations": planned.operations,
            }
            done.notes += self._commit(record, intent)
        else:
            self._save(record, after, entry)
        # The cast has happened. What follows only tells about it: a file it cannot
        # read now is a note in the response, not an error.
        done.notes[:0] = [*finished, *migrated]
        for ran in runs.values():
            done.notes.append(ran.note())
        try:
            response = self._response(rule, name, before, after, done, record)
        except (SpellbookError, OSError) as err:
            response = with_notes(
                f"You cast **{name}**: {before} → {after}{f' (rule {rule.id})' if rule else ''}.\n",
                [*done.notes, f"the rest of this response could not be made: {said(err)}"],
            )
        return CastResult(
            name,
            rule.id if rule else None,
            outcome,
            before,
            after,
            response,
            self.workspace.shown(done.archive_path) + "/" if done.archive_path else "",
            tuple(done.notes),
            cast,
        )

    def _migrate(self, record: Record, cast: str) -> list[str]:
        """A state file naming a former name of its state (the spec renamed it, and the
        state says `*Formerly*`): the move to the new name, recorded in the history
        ahead of the cast's own entry, and said."""
        former = record.former
        if former is None:
            return []
        record.former = None
        record.history.append(
            self.format.entry(former, record.state, "(migration)", None, "migrated", cast)
        )
        return [
            f"{self.workspace.shown(self.state_file)} named {former}, which the spec now "
            f"calls {record.state}: the workflow moved there first (its history keeps the "
            "old name)"
        ]

    def _save(self, record: Record, after: str, entry: dict[str, Any]) -> None:
        """Append `entry` to the history, move to `after` and write the state file."""
        try:
            if after != record.state:
                self.format.moved(record)
            record.history.append(entry)
            record.state = after
            if len(record.history) > HISTORY_LIMIT:
                self._rotate(record)
            data = self.format.write(record, self._encoded)
            self.workspace.replace(self.state_file, data)
        except BaseException:
            self._forget()
            raise
        self._known = (data, record)

    def _rotate(self, record: Record) -> str:
        """Move all but the newest HISTORY_KEEP history entries to a new file under
        HISTORY_FOLDER (one JSON entry per line), which no cast reads; its name, shown.

        Written before the state file: a crash in between leaves the entries in both
        (the cast ids tell them apart), never in neither."""
        older = record.history[:-HISTORY_KEEP]
        last = older[-1] if isinstance(older[-1], dict) else {}
        stamp = str(last.get("timestamp") or last.get("at") or now())
        stamp = "".join(c for c in stamp if c.isalnum())[:16] or "history"
        tag = "".join(c for c in str(last.get("cast") or "") if c.isalnum())[:12]
        name = f"{HISTORY_FOLDER}/{self.state_file.replace('/', '-')}-{stamp}-{tag or 'x'}.jsonl"
        lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in older)
        self.workspace.create(name, lines)  # already there: the same entries, from before
        record.history = record.history[-HISTORY_KEEP:]
        self._encoded = {}
        return self.workspace.shown(name)

    # -- one commit point for a cast that changes files --

    def _commit(self, record: Record, intent: dict[str, Any]) -> list[str]:
        """Write the intent record (the cast is then done, whatever happens next) and
        carry it out."""
        data = json.dumps(intent, ensure_ascii=False).encode("utf-8")
        try:
            self.workspace.replace(INTENT_FILE, data)
        except BaseException:
            self._forget()  # the record in memory holds this cast's entries; the disk not
            raise
        try:
            return self._finish(record, intent)
        except OSError as err:
            self._forget()
            raise Interrupted(
                f"{intent['entry']['trigger']} in {intent['before']} was interrupted: {err}; "
                f"the next cast finishes it (from {self.workspace.shown(INTENT_FILE)})"
            ) from err

    def _finish(self, record: Record, intent: dict[str, Any]) -> list[str]:
        """Carry out an intent record whose cast the state file does not hold yet: its
        file operations, then the state file, then delete the record."""
        from spellbook.actions import apply

        notes = apply(intent["operations"], self.workspace)
        notes += self._migrate(record, intent["cast"])
        record.extra.update(intent["extra"])
        self._save(record, intent["after"], intent["entry"])
        # Not synced: a record that comes back after a crash names a cast the history
        # holds, and is only deleted again.
        self.workspace.remove(INTENT_FILE)
        return notes

    def _recover(self) -> list[str]:
        """Finish a cast that was interrupted after its commit point, if there is one."""
        intent = self._intent()
        if intent is None:
            return []
        record = self._load()
        if _holds(record, intent["cast"]):
            # The state file is written after the operations: all was done but deleting
            # the record.
            self.workspace.remove(INTENT_FILE)
            return []
        if record.state != intent["before"]:
            raise StateFileError(
                f"{self.workspace.shown(INTENT_FILE)} is a cast interrupted in "
                f"{intent['before']}, but {self.workspace.shown(self.state_file)} says "
                f"{record.state}; run `spell repair`"
            )
        try:
            notes = self._finish(record, intent)
        except OSError as err:
            self._forget()
            raise Interrupted(
                f"could not finish the interrupted cast in "
                f"{self.workspace.shown(INTENT_FILE)}: {err}; the next cast tries again"
            ) from err
        return [f"first finished the interrupted cast of {_cast_of(intent)}", *notes]

    def _intent(self) -> dict[str, Any] | None:
        """The intent record of an interrupted cast, checked (StateFileError if it is not
        what a cast writes), or None if there is none."""
        shown = self.workspace.shown(INTENT_FILE)
        try:
            data = self.workspace.read_bytes(INTENT_FILE, STATE_LIMIT)
        except BadFile as err:
            raise StateFileError(f"{err}; run `spell repair` to set it aside") from None
        if data is None:
            return None
        from spellbook.actions import OPERATIONS, paths_of  # only an interrupted cast needs it

        value = decode(data, shown)
        for key in ("before", "after"):  # written before the spec renamed the state
            named = value.get(key)
            if isinstance(named, str) and named not in self.states:
                value[key] = self.format.formerly.get(named, named)
        entry, operations = value.get("entry"), value.get("operations")
        if not (
            isinstance(value.get("cast"), str)
            and value.get("before") in self.states
            and value.get("after") in self.states
            and isinstance(value.get("extra"), dict)
            and isinstance(entry, dict)
            and entry.get("cast") == value["cast"]
            and isinstance(entry.get("trigger"), str)
            and isinstance(operations, list)
            and all(
                isinstance(op, list)
                and op
                and len(op) == OPERATIONS.get(op[0], -1) + 1
                and all(isinstance(item, str) for item in op)
                for op in operations
            )
        ):
            raise StateFileError(
                f"{shown} is not an interrupted cast this runtime can finish; "
                "run `spell repair` to set it aside"
            )
        try:
            for operation in operations:
                for path in paths_of(operation):
                    self.workspace.path(path)
        except UnsafePath as err:
            raise StateFileError(f"{shown}: {err}; run `spell repair` to set it aside") from None
        return value

    def preview(self, model: Any, machine: Any, state: str) -> dict[str, Rule | str | None]:
        """For each spell, the rule that would win now in `state`: None if none would,
        or a note if that depends on running a command (which a preview never does)."""
        key = (state, tuple(self._guards(model).values()))
        known = self._previews.get(key)
        if known is None:
            known = self._dry_run(model, machine, state)
            # Why a file cannot be read is not in the key (a guard reading it is None).
            if not _cannot_tell(known):
                self._previews[key] = known
        return known

    def _guards(self, model: Any) -> dict[str, bool | None]:
        """Every guard's value for the model's facts (`_guard`), worked out once for
        them: what each spell would do and what to do first both read them."""
        if self._values is None or self._values[0] is not model.facts:
            self._values = (
                model.facts,
                {g.name: _guard(model, g.name) for g in self.machine.GUARDS},
            )
        return self._values[1]

    def foresee(self, model: Any, machine: Any, state: str) -> dict[str, Rule | str | None]:
        """`preview`, with each rule that would act on files planned as its cast would
        plan it now (`spellbook.actions.plan`, which changes nothing): what it would
        really create, archive or delete and where, or why its cast would be refused."""
        found: dict[str, Rule | str | None] = dict(self.preview(model, machine, state))
        for spell, rule in found.items():
            if isinstance(rule, Rule) and rule.acts:
                from spellbook.actions import plan

                try:
                    planned = plan(
                        rule, self.workspace, model.facts.record, vocabulary=self.vocabulary
                    )
                except (ActionError, UnsafePath, BadFile) as err:
                    found[spell] = Refused.because(said(err), rule)
                except (SpellbookError, OSError) as err:  # a file it cannot read now
                    found[spell] = CannotTell.because(said(err))
                else:
                    found[spell] = Foreseen.of(rule, self.writer, planned.done.did)
        return found

    def first(
        self, model: Any, state: str, previews: dict[str, Rule | str | None]
    ) -> dict[str, tuple[str, Rule]]:
        """What to do first, for each spell that would not move the workflow on: it is
        blocked or changes nothing, or it moves into a state that stands for a lost
        file (an error state, `tables.lost_file_states`), while another of its rules
        would move elsewhere once some facts changed. That rule, and what must hold
        for it to win, in the spec's words.

        Of the rules that would win then (the other facts as they are now), the one
        needing the fewest facts changed, then the earlier in the spec's order; what it
        asks of a file that is not there yet counts as a fact to change."""
        cells = self._cells
        if not cells:
            for each in self.machine.RULES:
                cells.setdefault((each.source, each.spell), []).append(each)
        facts = self._guards(model)
        found: dict[str, tuple[str, Rule]] = {}
        for spell, told in previews.items():
            rule = told.rule if isinstance(told, Foreseen) else told
            if isinstance(rule, str):
                continue  # it depends on a command's outcome, or cannot be told
            if rule is not None and rule.changes_state and not self._missing(rule.dest):
                continue  # it moves on
            cell = cells.get((state, spell), [])
            best: tuple[int, int, list[Wanted], Rule] | None = None
            for at, other in enumerate(cell):
                if not other.changes_state or self._missing(other.dest):
                    continue
                if rule is not None and other.dest == rule.dest:
                    continue
                for alternative, wanted in _wanted(other, facts):
                    if any(not w.holds and w.guard.probe == "exists" for w in wanted):
                        continue  # advice never asks to delete a file
                    world = {**facts, **{w.guard.name: w.holds for w in wanted}}
                    if any(_holds_in(earlier, world) for earlier in cell[:at]):
                        continue  # an earlier rule would still win
                    # What it asks of a file not there yet must hold too.
                    files = {w.guard.file for w in wanted if w.holds and w.guard.probe == "exists"}
                    said = wanted + [
                        w
                        for w in alternative
                        if w not in wanted
                        and w.guard.file in files
                        and PROBES[w.guard.probe].reads_content
                    ]
                    if best is None or (len(said), at) < best[:2]:
                        best = (len(said), at, said, other)
            if best is not None:
                words = [w.said for w in best[2]]
                found[spell] = (" and ".join(dict.fromkeys(words)), best[3])
        return found

    def _missing(self, state: str) -> bool:
        """Whether `state` stands for a lost file (an error state: `tables.lost_file_states`)."""
        if self._lost is None:
            self._lost = lost_file_states(
                {
                    st.name: [(w.guard.probe, w.guard.file, w.holds) for w in st.evidence]
                    for st in self.machine.STATES
                },
                [(r.source, r.dest) for r in self.machine.RULES if r.changes_state],
            )
        return state in self._lost

    def _dry_run(self, model: Any, machine: Any, state: str) -> dict[str, Rule | str | None]:
        found: dict[str, Rule | str | None] = {}
        for spell, trigger in self.machine.TRIGGERS.items():
            model.fired = None
            rule: Rule | str | None = None
            try:
                if getattr(model, f"may_{trigger}")():
                    getattr(model, trigger)()
                    rule = self.rules.get((state, spell, model.fired))
            except NeedsRun as need:
                rule = Depends(f"depends on whether {self._said(need.fact)}: cast it to find out")
                rule.fact = need.fact
            except (SpellbookError, OSError) as err:  # undefined, or a file it cannot read
                rule = CannotTell.because(said(err))
            machine.set_state(state, model=model)
            found[spell] = rule
        return found

    def _response(
        self,
        rule: Rule | None,
        spell: str,
        before: str,
        after: str,
        done: Done,
        record: Record,
    ) -> str:
        """The response to a cast of `spell` that went from `before` to `after` by `rule`
        (None: unhandled), with `record` as written. The machine, with facts as the files
        are now, is made ready only if something must be worked out again."""
        word = self.machine.SPELL_WORD
        values = self._telling(record, after)
        values["fields"] = fields_said(self.format.fields, record.extra)
        if rule is None:  # unhandled: nothing changed, so the files are as the guards saw them
            facts = self._facts(before, spell, self.engine(after, record)[0])
            text = unhandled(
                spell, before, self.states[before].description, facts, self.machine.SPEC, word
            )
        else:
            text = self.writer.response(rule, done.did if rule.acts else None)
            values["archive_path"] = (
                self.workspace.shown(done.archive_path) + "/"
                if done.archive_path
                else "(nothing was archived)"
            )
            for name, content in done.contents.items():
                values[f"content:{name}"] = fenced(content)
        return with_notes(fill(text, values), done.notes)

    def _telling(self, record: Record, state: str) -> dict[str, str]:
        """What a response says of what the workspace allows now in `state`: what each
        spell would do (`foresee`), what to do first (`first`), which files are there.

        Worked out again only when something it depends on may have changed: kept with
        what the files looked like (`Workspace.observe`) and used while they look the
        same (`Workspace.unchanged`), for the same state, state file fields and day
        (archive folders are named by the date). Not kept where a fact depends on the
        time of day (`over_minutes`), or where a file could not be looked at or was
        read within its filesystem's clock tick of changing (`Looks`)."""
        extra = record.extra
        key = None
        if self._timeless:
            try:
                key = (state, today(), encode(extra))
            except (TypeError, ValueError):
                key = None  # a field JSON cannot hold: not kept
        kept = self._told.get(key) if key is not None else None
        if kept is not None and self.workspace.unchanged(kept[0]):
            return dict(kept[1])
        model, machine = self.engine(state, record)
        looks = self.workspace.observe()
        try:
            foreseen = self.foresee(model, machine, state)
            first = self.first(model, state, foreseen)
            values = spell_values(foreseen, self.writer, self.machine.SPELL_WORD, first)
            values["files"] = files_said(self.files, self._there(model), self.machine.WORKSPACE)
        finally:
            self.workspace.unobserve()
        # A spell that cannot be told may be told once something outside the workspace
        # is put right (its vocabulary installed, say): not kept.
        if key is not None and looks.settled and not _cannot_tell(foreseen):
            if len(self._told) >= TOLD_LIMIT:
                self._told.clear()
            self._told[key] = (looks, dict(values))
        return values

    def _facts(self, state: str, spell: str, model: Any) -> list[str]:
        """The facts the cell's rules look at, as they are now, in words."""
        guards = dict.fromkeys(
            g for r in self.machine.RULES if (r.source, r.spell) == (state, spell) for g in r.guards
        )
        words = []
        for guard in guards:
            try:
                words.append(guard.words(getattr(model, guard.name)()))
            except Undefined:
                words.append(f"whether {guard.yes}")
        return words

    def _said(self, fact: tuple[str, str, str]) -> str:
        """A fact in the spec's words (the words for when it holds)."""
        for guard in self.machine.GUARDS:
            if guard.fact == fact:
                return guard.yes
        return " ".join(fact)

    # -- judging a move made by hand --

    def judge(self, before: str, after: str) -> tuple[bool, str]:
        """Whether the spec allows the state to go from `before` to `after` now, and why.

        Refused when the spell that asks for `after` (its Target) is blocked in `before`
        now, with that rule's reason (so a move to START is refused even from START).
        Otherwise allowed when `before` is `after`, or when some spell's winning rule in
        `before`, with the files as they are, leads to `after`. No command is run: a
        guard on a command's outcome is answered by the run the state file records, if
        the command and the repository's files are what they were then; otherwise the
        move is refused, and the spell that runs it named ("cast Advance instead").
        """
        before = self.format.formerly.get(before, before)  # a former name is the state
        after = self.format.formerly.get(after, after)
        for name in (before, after):
            if name not in self.states:
                raise UnknownState(
                    f"unknown state {name!r}; the states are {', '.join(self.states)}"
                )
        model, machine = self.engine(before, self.read(), recorded=True)
        found = self._dry_run(model, machine, before)
        for spell, target in self.machine.TARGETS.items():
            rule = found.get(spell)
            if target == after and isinstance(rule, Rule) and rule.kind == "blocked":
                why = self.writer.refusal(rule)
                return (
                    False,
                    f"{before} → {after} refused: {why[:1].upper()}{why[1:]} (rule {rule.id})",
                )
        if before == after:
            return True, f"{before} stays {before}"
        for spell, rule in found.items():
            if isinstance(rule, Rule) and rule.changes_state and rule.dest == after:
                return True, f"{before} → {after} by {spell} (rule {rule.id})"
        could = [
            spell
            for spell, rule in found.items()
            if isinstance(rule, str)
            and any(
                r.dest == after and r.changes_state
                for r in self.machine.RULES
                if (r.source, r.spell) == (before, spell)
            )
        ]
        word = self.machine.SPELL_WORD
        for spell in could:
            rule = found[spell]
            if isinstance(rule, Depends):
                return False, (
                    f"{before} → {after} refused: it depends on whether "
                    f"{self._said(rule.fact)}, and no run since the files last changed says "
                    f"so; cast {spell} instead (it runs it)"
                )
        if could:
            return False, (
                f"{before} → {after} refused: {word} {could[0]} might lead there, but "
                f"{getattr(found[could[0]], 'why', found[could[0]])}"
            )
        return False, f"{before} → {after} refused: no rule of the spec leads there now"

    def judge_file(self, data: bytes) -> tuple[bool, str]:
        """`judge` for a proposed new state file, against the state file as it is."""
        shown = f"proposed {self.workspace.shown(self.state_file)}"
        try:
            proposed = self.format.read(data, shown, self.states)
        except StateFileError as err:
            return False, str(err).split("; run")[0]
        current = self.read()
        if "runs" in proposed.extra and proposed.extra["runs"] != current.extra.get("runs"):
            return False, (
                f"{shown} changes `runs`, the record of the commands casts ran; only a cast "
                "that runs them writes it"
            )
        for name in self.format.fields:  # counters and the like: the casts' to keep
            if name in proposed.extra and proposed.extra[name] != current.extra.get(name):
                return False, f"{shown} changes `{name}`, which only casts change"
        return self.judge(current.state, proposed.state)

    def guards(self, rel: str) -> bool:
        """Whether a write made by hand of the workspace file `rel` is judged: the state
        file, and the files the vocabulary names in `JUDGED` (its `judge_write` says)."""
        return rel == self.state_file or rel in getattr(self.vocabulary, "JUDGED", ())

    def judge_write(self, rel: str, proposed: str) -> tuple[bool, str]:
        """Whether a write made by hand of the workspace file `rel` (not the state file)
        may happen: the vocabulary's `judge_write` says, where it has one."""
        judge = getattr(self.vocabulary, "judge_write", None)
        if judge is None or not self.guards(rel):
            return True, f"{self.workspace.shown(rel)} is not guarded"
        self.workspace.fresh()
        current = self.workspace.read_text(rel, STATE_LIMIT)
        why = judge(rel, current, proposed)
        if why:
            return False, f"{self.workspace.shown(rel)}: refused: {why}"
        return True, f"{self.workspace.shown(rel)}: allowed"

    # -- status, repair, diagram --

    def status(self) -> dict[str, Any]:
        """The current state, what each spell would do now, and the latest history."""
        record = self.read()
        model, machine = self.engine(record.state, record)
        previews = self.foresee(model, machine, record.state)
        return {
            "state": record.state,
            "description": self.states[record.state].description,
            "spells": {s: self.writer.does(r) for s, r in previews.items()},
            "history": record.history[-5:],
            "interrupted": self._interrupted(record),
            "workspace": self.workspace.base,
            "fields": {name: record.extra.get(name) for name in self.format.fields},
            "files": self._there(model),
            "formerly": record.former,
        }

    def _there(self, model: Any) -> dict[str, bool]:
        """Whether each file the rules ask about is there now (a file that cannot be
        looked at counts as not there)."""
        there = {}
        for file in self.files:
            try:
                there[file] = model.facts.exists(file)
            except (SpellbookError, OSError):
                there[file] = False
        return there

    def _interrupted(self, record: Record) -> str | None:
        """What the next cast will finish first, if a cast was interrupted (for status)."""
        try:
            intent = self._intent()
        except (StateFileError, UnsafePath) as err:
            return str(err)
        if intent is None or _holds(record, intent["cast"]):
            return None  # none, or done: the next cast only deletes the record
        return f"{_cast_of(intent)} was interrupted; the next cast finishes it first"

    def repair(self) -> str:
        """Replace an unusable state file: back it up, choose a state, say why. An
        interrupted cast is finished first, or set aside if it cannot be."""
        self.workspace.fresh()
        if not os.path.lexists(self.workspace.base):  # nothing to repair: make nothing
            where = self.workspace.shown(".") if self.workspace.folder else self.workspace.root
            return f"There is no {where.rstrip('/.')}/ here: nothing to repair."
        self.workspace.ensure()
        with _Locked(self.workspace):
            notes = self._repair_intent()
            shown = self.workspace.shown(self.state_file)
            try:
                missing = self._state_bytes() is None
            except StateFileError:
                missing = False  # there, but unusable: set aside below
            if missing:
                return "\n".join([*notes, *self._infer()])
            try:
                record = self.read()
            except StateFileError as err:
                problem = str(err)
            else:
                if record.former is not None:
                    said = self._migrate(record, random_hex(6))
                    # The move is the only entry: `_save` appends the entry it is given.
                    self._save(record, record.state, record.history.pop())
                    return "\n".join([*notes, *said])
                fine = f"{shown} is fine: the workflow is in {record.state}"
                return "\n".join([*notes, fine + ("." if notes else "; nothing to repair")])
            trimmed = self._trim()
            if trimmed:
                return "\n".join([*notes, *trimmed])
            state, why, history, fields = self._salvage()
            backup = self._backup(self.state_file)
            self._restart(state, history, fields)
        return "\n".join(
            [
                *notes,
                f"{shown} could not be used: {problem.split('; run')[0]}.",
                f"Kept it as {backup}.",
                f"Chose {state}: {why}.",
                *self._unexplained(state),
                f"Started a new {shown} in {state}.",
            ]
        )

    def _infer(self) -> list[str]:
        """No state file: if the files are past the initial state (`_initial`), the state
        they show, started in a new state file; else nothing to do (no state file
        already means the initial state)."""
        shown = self.workspace.shown(self.state_file)
        try:
            self._initial()
        except StateFileError:
            state, why, _, _ = self._salvage()
        else:
            state = self.machine.INITIAL
            why = "nothing in the files says the workflow is past it"
        if state == self.machine.INITIAL:
            return [f"There is no {shown}; the workflow is in {state} ({why}): nothing to repair."]
        self._restart(state, [], {})
        return [
            f"There was no {shown}.",
            f"Chose {state}: {why}.",
            *self._unexplained(state),
            f"Started a new {shown} in {state}.",
        ]

    def _unexplained(self, state: str) -> list[str]:
        """The files there that the chosen state's Indicators do not speak of (a PR
        review's, say), said so that nothing is passed over in silence."""
        spoken = {w.guard.file for w in self.states[state].evidence}
        facts = self.facts()
        there = [f for f in self.files if f not in spoken and facts.exists(f)]
        if not there:
            return []
        named = ", ".join(self.workspace.shown(f) for f in there)
        return [f"Also there, which {state}'s Indicators do not speak of: {named}."]

    def _restart(self, state: str, history: list[Any], fields: dict[str, Any]) -> None:
        """Write a new state file in `state`, its history ending with the repair."""
        record = Record(state, {}, history, fields)
        record.history.append(
            {
                "timestamp": now(),
                "transition": f"? → {state}",
                "trigger": "repair",
                "rule": None,
                "outcome": "repair",
                "cast": random_hex(6),
            }
        )
        self._forget()
        self.workspace.replace(self.state_file, self.format.write(record))

    def _repair_intent(self) -> list[str]:
        """Finish an interrupted cast, or set its record aside if it cannot be finished
        (the files it had moved stay where they are: nothing is deleted)."""
        if not self.workspace.exists(INTENT_FILE):
            return []
        try:
            notes = self._recover()
        except (BadFile, UnsafePath, Interrupted) as err:
            backup = self._backup(INTENT_FILE)
            why = str(err).split("; run")[0].split("; the next cast")[0]
            return [
                f"An interrupted cast could not be finished: {why}.",
                f"Set its record aside as {backup}; files it had moved stay where they are.",
            ]
        return [note[:1].upper() + note[1:] + "." for note in notes]

    def _trim(self) -> list[str]:
        """A state file that is usable but for its size, kept: its older history moved
        to a file of its own. What was done, in sentences (none if it cannot be)."""
        shown = self.workspace.shown(self.state_file)
        try:
            data = self.workspace.read_bytes(self.state_file, REPAIR_LIMIT)
            if data is None or len(data) <= STATE_LIMIT:
                return []
            record = self.format.read(data, shown, self.states, REPAIR_LIMIT)
        except (SpellbookError, OSError):
            return []
        if len(record.history) > HISTORY_KEEP:
            moved = len(record.history) - HISTORY_KEEP
            where = self._rotate(record)
        else:
            moved, where = 0, ""
        out = self.format.write(record)
        if len(out) > STATE_LIMIT:
            return []  # not the history: its context or fields are too large
        self._forget()
        self.workspace.replace(self.state_file, out)
        return [
            f"{shown} was {len(data) / 1e6:.1f} MB, more than a cast reads; "
            f"kept it, with its {moved:,} older history entries moved to {where}.",
            f"The workflow is in {record.state}.",
        ]

    def _salvage(self) -> tuple[str, str, list[Any], dict[str, Any]]:
        """The state to start again from, why, and any history and fields (the counters
        and the like of the state file's format) worth keeping."""
        value: dict[str, Any] = {}
        head = b""
        try:
            data = self.workspace.read_bytes(self.state_file, REPAIR_LIMIT) or b""
            head = data[:65_536]
            value = decode(data, "", REPAIR_LIMIT)
        except StateFileError:
            value = _lenient(data)  # JSON all the same (a lone surrogate, say): what it says
        except (SpellbookError, OSError):
            pass  # whatever is wrong with the file, the workspace's files still tell
        found = value.get("history")
        history: list[Any] = (
            [e for e in found[-HISTORY_KEEP:] if encodable(e)] if isinstance(found, list) else []
        )
        named = self.format.last_state(value, self.states, head)
        if named is not None:
            fields = {
                name: value[name]
                for name in self.format.fields
                if name in value
                and self.format.field_fits(name, value[name])
                and encodable(value[name])
            }
            return named, "the damaged file still names it", list(history or []), fields
        facts = self.facts()
        model = self.machine.Model(facts)
        best: tuple[int, int] | None = None
        chosen, because = self.machine.INITIAL, "no state's Indicators match the files"
        for index, state in enumerate(self.machine.STATES):
            if not state.inferable:
                continue
            held = [
                getattr(model, w.guard.name)() == w.holds
                and (not PROBES[w.guard.probe].reads_content or facts.exists(w.guard.file))
                for w in state.evidence
            ]
            if all(held) and (best is None or (len(held), index) > best):
                best = (len(held), index)
                chosen = state.name
                because = "its Indicators match the files: " + ", ".join(
                    w.said for w in state.evidence
                )
        return chosen, because, list(history or []), {}

    def _backup(self, rel: str) -> str:
        """Move `rel` aside as `<rel>.bad-<time>`; the new name, as shown."""
        stamp = now().replace(":", "").replace("-", "")
        for n in range(1, 1000):
            name = f"{rel}.bad-{stamp}" + (f"-{n}" if n > 1 else "")
            if not self.workspace.exists(name):
                self.workspace.move(rel, name)
                return self.workspace.shown(name)
        raise StateFileError(f"too many backups of {self.workspace.shown(rel)}; remove some")

    def diagram(self) -> str:
        """A mermaid diagram of the machine with the current state highlighted."""
        from spellbook.diagram import mermaid
        from spellbook.schema import moves

        machine = self.machine
        return mermaid(self.states, moves(machine.RULES), self.state, machine.TITLE)


def _lenient(data: bytes) -> dict[str, Any]:
    """A damaged state file read as leniently as JSON allows ({} if it is not an object):
    for `repair` to keep what it still says, each value checked before it is kept."""
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _cast_of(intent: dict[str, Any]) -> str:
    """An interrupted cast, in words: `Accio (A → B, rule A2)`."""
    entry = intent["entry"]
    return f"{entry['trigger']} ({intent['before']} → {intent['after']}, rule {entry.get('rule')})"


def _holds(record: Record, cast: str) -> bool:
    """Whether the state file's history has the cast `cast` (the newest is looked at first)."""
    return any(isinstance(e, dict) and e.get("cast") == cast for e in reversed(record.history))


def _guard(model: Any, guard: str) -> bool | None:
    """A guard's value now, or None where it would have to run a command."""
    try:
        return bool(getattr(model, guard)())
    except (NeedsRun, SpellbookError, OSError):
        return None


def _wanted(
    rule: Rule, facts: dict[str, bool | None]
) -> list[tuple[tuple[Wanted, ...], list[Wanted]]]:
    """Each alternative of `rule`'s condition that some facts keep from holding now,
    with those guards (`~g`: one that must be false); none where a fact cannot be
    told now (a command's outcome)."""
    found = []
    for alternative in rule.when:
        if any(facts.get(w.guard.name) is None for w in alternative):
            continue
        wanted = [w for w in alternative if facts.get(w.guard.name) != w.holds]
        if wanted:
            found.append((alternative, wanted))
    return found


def _cannot_tell(previews: dict[str, Rule | str | None]) -> bool:
    """Whether some spell's preview says it cannot be told (or its cast would be refused)."""
    return any(isinstance(rule, CannotTell) for rule in previews.values())


def _holds_in(rule: Rule, world: dict[str, bool | None]) -> bool:
    """Whether some alternative of `rule`'s condition holds in `world` (guard values)."""
    return any(
        all(world.get(w.guard.name) == w.holds for w in alternative) for alternative in rule.when
    )


class _Locked(Lock):
    """The workspace's lock. While it is held, the workspace syncs its folder through
    the locked folder's descriptor."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(workspace.path(LOCK_FILE))
        self.workspace = workspace

    def _opened(self) -> int | None:
        return self.workspace.opened()

    def __enter__(self) -> _Locked:
        while True:
            super().__enter__()
            if not self.waited:
                break
            # Another cast held it: what was checked before the wait is checked again,
            # and a folder moved away meanwhile (a link put in its place, say) is not
            # the one this cast locked: let it go and lock the one there now.
            self.workspace.fresh()
            if self.folder is None or self.workspace.is_base(self.folder):
                break
            super().__exit__()
        self.workspace.held = self.folder
        return self

    def __exit__(self, *exc: object) -> None:
        self.workspace.held = None
        super().__exit__(*exc)


class Depends(str):
    """What a spell would do, where that depends on a command's outcome (`fact`)."""

    fact: tuple[str, str, str] = ("", "", "")
