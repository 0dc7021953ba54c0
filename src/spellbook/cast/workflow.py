"""Casting spells against a workspace: `Workflow(root).cast("accio")`.

One cast, under the workspace's lock: read the state file (a missing one means
the initial state), let the generated machine pick the rule for the spell in
that state (its guards read the files), carry out the rule's actions, append
one history entry, write the state file atomically, and fill in the response.
Every cast appends exactly one entry, whatever its outcome.

`Workflow` is the door; the work is its collaborators': the `Engine` (the
machine made ready for the workspace), the `Journal` (the state file, the
commit point of a cast that changes files, the lock), the `Foresight` (what
each spell would do now), and, when asked, the `Judge` of a move made by hand
and `Repair`.
"""

from __future__ import annotations

import os
from importlib import import_module

from spellbook.cast.commit_point import Journal
from spellbook.cast.engine import Engine
from spellbook.cast.preview import Foresight
from spellbook.cast.responses import asked, fenced, fields_said, fill, unhandled, with_notes
from spellbook.disk.state_file import RUNTIME_FIELDS
from spellbook.disk.store import READ_LIMIT, Workspace, random_hex
from spellbook.facts.answers import NeedsRun
from spellbook.records.errors import (
    ActionError,
    BadFile,
    Changed,
    SpellbookError,
    Undefined,
    UnsafePath,
    restated,
    said,
)
from spellbook.records.outcome import CastResult, Did, Done, outcome_of
from spellbook.verbs.actions import acts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from types import ModuleType
    from typing import Any

    from spellbook.cast.engine import GeneratedMachine
    from spellbook.cast.hand_moves import Judge
    from spellbook.disk.state_file import Record
    from spellbook.facts.commands import Run
    from spellbook.schema import Rule

DEFAULT_MACHINE = "spellbook.machines.spell_machine"
MAX_COMMANDS = 4  # commands one cast may run (each a guard's, once)


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
        self.workspace = Workspace(os.fspath(root), machine.WORKSPACE, durable)
        self.engine = Engine(machine, self.workspace)
        self.format = self.engine.format
        self.writer = self.engine.writer
        self.state_file = self.engine.state_file
        self.journal = Journal(self.engine)
        self.foresight = Foresight(self.engine)
        self._judge: Judge | None = None

    @property
    def vocabulary(self) -> ModuleType | None:
        """The machine's vocabulary module, imported the first time it is needed."""
        return self.engine.vocabulary

    def spell(self, name: str) -> str:
        """The spell's name as the spec writes it; `accio`, `Accio` and `ACCIO` are one spell."""
        return self.engine.spell(name)

    def read(self) -> Record:
        """The state file as it is (the initial state if there is none yet)."""
        return self.journal.read()

    @property
    def state(self) -> str:
        return self.read().state

    def cast(self, spell: str) -> CastResult:
        """Cast `spell`: under the workspace's lock, pick the rule and carry it out.

        A rule whose guard asks for a command's outcome (the tests, say) is found in
        rounds: the lock is let go while the command runs, then taken again; if the
        state file changed meanwhile (another cast), this one stops with nothing
        changed. The run is recorded in the state file (`runs.<key>`).
        """
        name = self.engine.spell(spell)
        journal = self.journal
        runs: dict[tuple[str, str], Run] = {}
        finished: list[str] = []
        seen: bytes | None = None
        for _ in range(MAX_COMMANDS + 1):
            self.workspace.fresh()
            with journal.locked():  # the workspace folder, made if missing
                finished += journal.recover()
                record = journal.load()
                again = self._cut_short(name, journal.finished, record, finished)
                if again is not None:
                    return again
                if runs and journal.seen != seen:
                    ran = ", ".join(f"`{r.command}`" for r in runs.values())
                    raise Changed(
                        f"{name}: {self.workspace.shown(self.state_file)} changed while {ran} "
                        f"ran (another cast); nothing was changed: cast {name} again"
                    )
                seen = journal.seen
                before = record.state
                model, machine = self.engine.ready(before, record, runs)
                try:
                    if self.engine.cell(before, name):  # none: a gap of the spec, unhandled
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
            from spellbook.facts.commands import command, run  # only casts that run one need it

            _, file, key = fact
            text = command(model.facts, file, key)
            runs[(file, key)] = run(key, text, self.workspace.root, self.workspace.folder)
        raise SpellbookError(f"{name}: its rules ask for more than {MAX_COMMANDS} commands")

    def _cut_short(
        self, name: str, intent: dict[str, Any] | None, record: Record, notes: list[str]
    ) -> CastResult | None:
        """The result of the cast of `name` that was cut short and has just been finished
        (`intent`, its record), where this cast is of the same spell: the command run again
        after an interruption means that cast, not one more (which would move the
        workflow on a second step). None where it is not."""
        if intent is None or intent["entry"].get("trigger") != name:
            return None
        before, after = intent["before"], intent["after"]
        rule = self.engine.rules.get((before, name, str(intent["entry"].get("rule"))))
        if rule is None or record.state != after:
            return None
        kept = done_told(intent.get("told"))
        done = kept or Done()
        _unmoved(done, self.journal.unmoved)
        done.notes = [
            *notes,
            f"that was the cast of {name} this command asked for: {name} was not cast again",
        ]
        response = self._response(rule, name, before, after, done, record, declared=kept is None)
        archive = self.workspace.shown(done.archive_path) + "/" if done.archive_path else ""
        return CastResult(
            name,
            rule.id,
            outcome_of(rule),
            before,
            after,
            response,
            archive,
            tuple(done.notes),
            str(intent["cast"]),
        )

    def _carry_out(
        self,
        name: str,
        record: Record,
        model: Any,
        runs: dict[tuple[str, str], Run],
        finished: list[str],
    ) -> CastResult:
        """The rest of a cast whose rule is chosen (`model.fired`, or `model.refused`
        for a rule that refuses the spell), under the lock."""
        journal, fmt = self.journal, self.format
        before = record.state
        chosen = model.fired or model.refused
        rule = self.engine.rules.get((before, name, chosen)) if chosen else None
        cast = random_hex(6)
        former = record.former
        migrated = journal.migrate(record, cast)
        after = rule.dest if rule is not None else before
        outcome = outcome_of(rule) if rule is not None else "unhandled"
        entry = fmt.entry(before, after, name, rule.id if rule else None, outcome, cast)
        if outcome in ("transition", "noop"):
            entry["changed"] = {}  # the fields it set: what `spell repair` replays
        if runs:  # the outcome of each run, for a judge of a move made by hand later
            kept = record.extra.get("runs")
            record.extra["runs"] = {
                **(kept if isinstance(kept, dict) else {}),
                **{key: ran.recorded() for (_, key), ran in runs.items()},
            }
        done = Done()
        if rule is not None and acts(rule):
            from spellbook.verbs.actions import plan  # only rules that touch files need it

            try:
                planned = plan(
                    rule,
                    self.workspace,
                    record,
                    vocabulary=self.vocabulary,
                    templates=self.engine.template,
                    own=(self.engine.state_file,),
                    settable=self.engine.settable,
                    programs=self.engine.programs(),
                    others=self.engine.others,
                )
            except (ActionError, UnsafePath, BadFile) as err:
                failed = fmt.entry(before, before, name, rule.id, "failed", cast)
                journal.save(record, before, failed)
                unchanged = (
                    f"nothing was changed but the move from {former} to {before}, the "
                    "spec's new name for it, and the attempt, recorded in the history"
                    if former
                    else "no file or state was changed; the history records the attempt"
                )
                raise restated(err, f"{name} in {before}: {err} ({unchanged})") from None
            done = planned.done
            if runs:
                planned.extra["runs"] = record.extra["runs"]
            if "changed" in entry:
                entry["changed"] = changed_fields(fmt.fields, record.extra, planned.extra)
            intent = {
                "cast": cast,
                "before": before,
                "after": after,
                "entry": entry,
                "extra": planned.extra,
                "operations": planned.operations,
                "told": told(done),
            }
            done.notes += journal.commit(record, intent)
            _unmoved(done, journal.unmoved)
        else:
            journal.save(record, after, entry)
        # The cast has happened. What follows only tells about it: a file it cannot
        # read now is a note in the response, not an error.
        done.notes[:0] = [*finished, *migrated]
        for ran in runs.values():
            done.notes.append(ran.note())
        try:
            response = self._response(rule, name, before, after, done, record, runs)
        except (SpellbookError, OSError, NeedsRun) as err:
            response = with_notes(
                f"You cast **{name}**: {before} → {after}{f' (rule {rule.id})' if rule else ''}.\n",
                [*done.notes, f"the rest of this response could not be made: {said(err)}"],
            )
        archive = self.workspace.shown(done.archive_path) + "/" if done.archive_path else ""
        rule_id = rule.id if rule else None
        return CastResult(
            name, rule_id, outcome, before, after, response, archive, tuple(done.notes), cast
        )

    def _response(
        self,
        rule: Rule | None,
        spell: str,
        before: str,
        after: str,
        done: Done,
        record: Record,
        runs: dict[tuple[str, str], Run] | None = None,
        declared: bool = False,
    ) -> str:
        """The response to a cast of `spell` that went from `before` to `after` by `rule`
        (None: unhandled), with `record` as written and the commands the cast ran; its
        file actions told as `done.did` says, or as the spec declares them (`declared`:
        a cast finished from its intent record, whose plan is not kept). The machine,
        with facts as the files are now, is made ready only if something must be worked
        out again."""
        machine = self.machine
        values = self.foresight.telling(record, after)
        values["fields"] = fields_said(self.format.fields, record.extra)
        if rule is None:  # unhandled: nothing changed, so the files are as the guards saw them
            model = self.engine.ready(after, record, runs or {})[0]
            facts = self.foresight.unhandled(before, spell, model)
            description = self.engine.states[before].description
            text = unhandled(spell, before, description, facts, machine.SPEC, machine.SPELL_WORD)
        else:
            text = self.writer.response(rule, done.did if acts(rule) and not declared else None)
            values["archive_path"] = (
                self.workspace.shown(done.archive_path) + "/"
                if done.archive_path
                else "(nothing was archived)"
            )
            for name, content in done.contents.items():
                values[f"content:{name}"] = fenced(content, name)
            for name in asked(text, "content"):  # no action loads it: as the cast left it
                values.setdefault(f"content:{name}", self._content(name))
        return with_notes(fill(text, values), done.notes)

    def _content(self, name: str) -> str:
        """The workspace file `name` for a response's `{{content:NAME}}`, fenced; where it
        cannot be read (a folder, a path out of the workspace), why."""
        try:
            return fenced(self.workspace.read_text(name, READ_LIMIT), name)
        except (SpellbookError, OSError) as err:
            return f"_({self.workspace.shown(name)} cannot be read: {said(err)})_"

    def status(self) -> dict[str, Any]:
        """The current state, what each spell would do now, and the latest history."""
        record = self.read()
        model, machine = self.engine.ready(record.state, record)
        previews = self.foresight.foresee(model, machine, record.state)
        spells = {s: _plain(self.writer.does(told)) for s, told in previews.items()}
        return {
            "state": record.state,
            "description": self.engine.states[record.state].description,
            "spells": self._after_interrupted(record, spells),
            "history": record.history[-5:],
            "interrupted": self.journal.interrupted(record),
            "workspace": self.workspace.base,
            "fields": {name: record.extra.get(name) for name in self.format.fields},
            "files": self.foresight.there(model),
            "unmet": self.foresight.unmet(model, record.state),
            "formerly": record.former,
        }

    def _after_interrupted(self, record: Record, spells: dict[str, str]) -> dict[str, str]:
        """What each spell would do, where a cast was interrupted past its commit point:
        the next cast finishes it first (a cast of its spell, and nothing more), so what
        the files say now of the state it left is not what a cast would do."""
        from spellbook.cast.commit_point import cast_of, holds

        try:
            intent = self.journal.intent()
        except (SpellbookError, OSError):
            return spells  # said on the status's Interrupted line
        if intent is None:
            return spells
        spell, cast = intent["entry"]["trigger"], cast_of(intent)
        if holds(record, intent["cast"]):  # done: its spell answers it, the others are cast
            rule = (intent["before"], spell, str(intent["entry"].get("rule")))
            if record.state != intent["after"] or rule not in self.engine.rules:
                return spells  # moved on since (`_cut_short`): every spell is cast as usual
            said = f"answers the cast of {cast}, done but cut short before its answer, and "
            return {**spells, spell: said + "casts nothing more"}
        return {
            s: f"finishes the interrupted cast of {cast} and casts nothing more"
            if s == spell
            else f"first finishes the interrupted cast of {cast}; what {s} does then is "
            "told once that is done"
            for s in spells
        }

    @property
    def judgement(self) -> Judge:
        """The judge of moves made by hand (`spellbook.cast.hand_moves`), made when first asked."""
        if self._judge is None:
            from spellbook.cast.hand_moves import Judge

            self._judge = Judge(self.engine, self.journal, self.foresight)
        return self._judge

    def judge(self, before: str, after: str) -> tuple[bool, str]:
        """Whether the spec allows the state to go from `before` to `after` now, and why
        (`Judge.judge`)."""
        return self.judgement.judge(before, after)

    def judge_file(self, data: bytes) -> tuple[bool, str]:
        """`judge` for a proposed new state file, against the state file as it is."""
        return self.judgement.judge_file(data)

    def guards(self, rel: str) -> bool:
        """Whether a write made by hand of the workspace file `rel` is judged (the state
        file, the files whose lists and commands only casts change (the machine's
        `KEPT`), and the files the vocabulary names in `JUDGED`)."""
        from spellbook.cast.hand_moves import judged

        return judged(self.engine, rel)

    def judge_write(self, rel: str, proposed: str) -> tuple[bool, str]:
        """Whether a write made by hand of the workspace file `rel` (not the state file)
        may happen: what only casts change there (`KEPT`) is kept, and the vocabulary's
        `judge_write` says, where it has one."""
        return self.judgement.judge_write(rel, proposed)

    def repair(self) -> str:
        """Replace an unusable state file: back it up, choose a state, say why. An
        interrupted cast is finished first, or set aside if it cannot be."""
        from spellbook.cast.repair import Repair

        return Repair(self.engine, self.journal).run()

    def diagram(self) -> str:
        """A mermaid diagram of the machine with the current state highlighted."""
        from spellbook.records.diagram import mermaid
        from spellbook.records.moves import moves

        machine = self.machine
        return mermaid(
            self.engine.states, moves(machine.RULES), machine.INITIAL, machine.TITLE, self.state
        )

    def drawing(self, format: str) -> bytes:
        """The diagram drawn by Graphviz, as SVG or PNG (`spellbook.records.diagram.drawing`)."""
        from spellbook.records.diagram import drawing
        from spellbook.records.moves import moves

        machine = self.machine
        return drawing(
            self.engine.states,
            moves(machine.RULES),
            machine.INITIAL,
            machine.TITLE,
            format,
            self.state,
        )


def _plain(text: str) -> str:
    """A response's phrase as plain text, for status (a terminal, a JSON reader): the
    bold of a state's name dropped (`moves to **X**` is `moves to X`)."""
    import re

    return re.sub(r"\*\*([^*\n]+)\*\*", r"\1", text)


def changed_fields(
    fields: Iterable[str], before: dict[str, Any], after: dict[str, Any]
) -> dict[str, Any]:
    """The state file's fields a cast set, with the values it gave them, kept in its
    history entry: `spell repair` replays them as they were, whatever the spec says its
    rule does now (a rule the spec has since changed, or another row now called by its ID)."""
    return {
        name: after[name]
        for name in fields
        if name not in RUNTIME_FIELDS and name in after and after[name] != before.get(name)
    }


def _unmoved(done: Done, unmoved: list[str]) -> None:
    """`done` without the files a move left where they were (its destination written
    meanwhile, or the file gone): the response never says they were moved; the notes
    say what was left."""
    if not unmoved:
        return
    moving = [did for did in done.did if did.to and set(did.files) & set(unmoved)]
    for did in moving:  # a move, an archive, a delete (into the trash)
        kept = [(f, t) for f, t in zip(did.files, did.to, strict=False) if f not in unmoved]
        did.files = tuple(f for f, _ in kept)
        did.to = tuple(t for _, t in kept)
    done.did = [did for did in done.did if did not in moving or did.files]


def told(done: Done) -> dict[str, Any]:
    """What a cast's response tells of its file actions (`Done`), as its intent record
    keeps it: the same cast, run again after it was cut short, answers with it."""
    return {
        "archive": done.archive_path,
        "did": [[d.action, d.verb, d.files, d.absent, d.folder, d.to] for d in done.did],
        "contents": done.contents,
    }


def done_told(kept: object) -> Done | None:
    """The `Done` an intent record keeps (`told`); None for a record that keeps none, or
    one it cannot take (the response then tells the actions as the spec declares them)."""
    if not isinstance(kept, dict):
        return None
    did, contents, archive = kept.get("did"), kept.get("contents"), kept.get("archive")
    texts = (str, type(None))
    if not (
        isinstance(did, list)
        and isinstance(contents, dict)
        and isinstance(archive, str)
        and all(isinstance(k, str) and isinstance(v, texts) for k, v in contents.items())
    ):
        return None
    done = Done()
    done.archive_path, done.contents = archive, contents
    for item in did:
        if not (isinstance(item, list) and len(item) == 6):
            return None
        action, verb, files, absent, folder, to = item
        lists = (files, absent, to)
        if not (
            isinstance(action, int)
            and isinstance(verb, str)
            and isinstance(folder, str)
            and all(isinstance(x, list) and all(isinstance(f, str) for f in x) for x in lists)
        ):
            return None
        done.did.append(Did(action, verb, tuple(files), tuple(absent), folder, tuple(to)))
    return done
