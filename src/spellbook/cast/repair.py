"""`spell repair`: put an unusable, missing or oversized state file right, from the files."""

from __future__ import annotations

import json
import os

from spellbook.cast.commit_point import HISTORY_KEEP, INTENT_FILE, cast_of
from spellbook.cast.recall import Kept, Recall, read_kept
from spellbook.disk.own_files import BACKUP
from spellbook.disk.state_file import (
    REPAIR_LIMIT,
    STATE_LIMIT,
    Record,
    SharedStateFile,
    decode,
    encodable,
    now,
)
from spellbook.disk.store import random_hex
from spellbook.facts.ledgers import ledger_parts
from spellbook.facts.probes import PROBES
from spellbook.records.errors import (
    BadFile,
    Interrupted,
    SpellbookError,
    StateFileError,
    UnsafePath,
    restated,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from spellbook.cast.commit_point import Journal
    from spellbook.cast.engine import Engine


class Repair:
    """Repairs the state file of `journal`'s workspace; `run` does it and says what it did."""

    def __init__(self, engine: Engine, journal: Journal) -> None:
        self.engine = engine
        self.journal = journal
        self.workspace = engine.workspace
        self.format = engine.format
        self.state_file = engine.state_file

    def run(self) -> str:
        """Replace an unusable state file: back it up, choose a state, say why. An
        interrupted cast is finished first, or set aside if it cannot be."""
        workspace, journal = self.workspace, self.journal
        workspace.fresh()
        if not os.path.lexists(workspace.base):  # nothing to repair: make nothing
            where = workspace.shown(".") if workspace.folder else workspace.root
            return f"There is no {where.rstrip('/.')}/ here: nothing to repair."
        workspace.ensure()
        with journal.locked():
            notes = self._finish_intent()
            shown = workspace.shown(self.state_file)
            try:
                missing = journal.state_bytes() is None
            except StateFileError:
                missing = False  # there, but unusable: set aside below
            if missing:
                return "\n".join([*notes, *self._infer()])
            try:
                record = journal.read()
            except SharedStateFile as err:  # another machine's state: never set aside
                raise restated(err, f"nothing repaired: {err}") from None
            except StateFileError as err:
                problem = str(err)
            else:
                if record.former is not None:
                    moved = journal.migrate(record, random_hex(6))
                    # The move is the only entry: `save` appends the entry it is given.
                    journal.save(record, record.state, record.history.pop())
                    return "\n".join([*notes, *moved])
                fine = f"{shown} is fine: the workflow is in {record.state}"
                unmet = self._unmet(record.state)
                if unmet:
                    return "\n".join([*notes, fine + ", but " + unmet])
                return "\n".join([*notes, fine + ("." if notes else "; nothing to repair")])
            trimmed = self._trim()
            if trimmed:
                return "\n".join([*notes, *trimmed])
            state, why, history, damaged = self._salvage()
            restored = Recall(self.engine).recall(damaged)
            # Kept under a second name first, then replaced at once: a repair cut short
            # leaves the damaged file where it was, for the next repair to read again.
            backup = self._backup(self.state_file, keep=True)
            self._restart(state, history, restored.fields)
        return "\n".join(
            [
                *notes,
                f"{shown} could not be used: {problem.split('; run')[0]}.",
                f"Kept it as {backup}.",
                f"Chose {state}: {why}.",
                *self._unexplained(state),
                *restored.said,
                f"Started a new {shown} in {state}.",
            ]
        )

    def _infer(self) -> list[str]:
        """No state file: if the files are past the initial state (`Journal.initial`), the
        state they show, started in a new state file; else nothing to do (no state file
        already means the initial state)."""
        shown = self.workspace.shown(self.state_file)
        initial = self.engine.machine.INITIAL
        try:
            self.journal.initial()
        except StateFileError:
            state, why, _, _ = self._salvage()
            if state == initial:
                # No state's Indicators match, and the files rule the initial state out:
                # casts would refuse forever. Start there, and say what does not fit.
                contradicted = ", ".join(self.journal.contradicting(initial))
                restored = Recall(self.engine).recall(None)
                self._restart(state, [], restored.fields)
                return [
                    f"There was no {shown}, and no state's Indicators match the files.",
                    f"Chose {state}, the initial state, though the files do not look like it "
                    f"({contradicted}): check that this is where the workflow is.",
                    *restored.said,
                    f"Started a new {shown} in {state}.",
                ]
        else:
            state = initial
            why = "nothing in the files says the workflow is past it"
        if state == initial:
            return [f"There is no {shown}; the workflow is in {state} ({why}): nothing to repair."]
        restored = Recall(self.engine).recall(None)
        self._restart(state, [], restored.fields)
        return [
            f"There was no {shown}.",
            f"Chose {state}: {why}.",
            *self._unexplained(state),
            *restored.said,
            f"Started a new {shown} in {state}.",
        ]

    def _unmet(self, state: str) -> str:
        """A state file that can be read, naming a state whose Indicators the files
        contradict (edited by hand, merged, a file removed by hand): what they say, the
        state they match, and how to move; a state file that can be read is never
        replaced (its state may be waiting for the AI to write a file). "" if they do
        not contradict it, or a file cannot be read."""
        try:
            unmet = self.journal.contradicting(state)
            chosen, because = self._from_files()
        except (SpellbookError, OSError):
            return ""
        if not unmet:
            return ""
        matches = (
            f" They match {chosen}'s ({because.partition(': ')[2]})."
            if chosen != state and because.startswith("its Indicators match")
            else ""
        )
        return (
            f"the files do not match its Indicators ({', '.join(unmet)}).{matches} "
            "A state file that can be read is kept as it is: if it was edited by hand or "
            f"merged, set `{self.format.state_key}` in it to where the workflow is, or cast "
            "a spell that moves it on (`spell status` tells what each does)."
        )

    def _unexplained(self, state: str) -> list[str]:
        """The files there that the chosen state's Indicators do not speak of (a PR
        review's, say), said so that nothing is passed over in silence."""
        guards = [w.guard for w in self.engine.states[state].evidence]
        spoken = {g.file for g in guards}  # a ledger is spoken of too
        spoken |= {ledger_parts(g.param)[0] for g in guards if g.probe in ("unlisted", "listed")}
        facts = self.engine.facts()
        there = [f for f in self.engine.files if f not in spoken and facts.exists(f)]
        if not there:
            return []
        named = ", ".join(self.workspace.shown(f) for f in there)
        return [f"Also there, which {state}'s Indicators do not speak of: {named}."]

    def _restart(self, state: str, history: list[Any], fields: dict[str, Any]) -> None:
        """Write a new state file in `state`, its history ending with the repair, which
        names the values the fields start with (for a later repair to restore)."""
        record = Record(state, {}, history, fields)
        counters = self.format.counters
        record.history.append(
            {
                "timestamp": now(),
                "transition": f"? → {state}",
                "trigger": "repair",
                "rule": None,
                "outcome": "repair",
                "cast": random_hex(6),
                "fields": {
                    name: fields.get(name, 0 if name in counters else None)
                    for name in self.format.fields
                },
            }
        )
        self.journal.forget()
        self.workspace.replace(self.state_file, self.format.write(record))

    def _finish_intent(self) -> list[str]:
        """Finish an interrupted cast, or set its record aside if it cannot be finished
        (the files it had moved stay where they are: nothing is deleted)."""
        if not self.workspace.exists(INTENT_FILE):
            return []
        try:
            notes = self.journal.recover()
        except (BadFile, UnsafePath, Interrupted) as err:
            backup = self._backup(INTENT_FILE)
            why = str(err).split("; run")[0].split("; the next cast")[0]
            return [
                f"An interrupted cast could not be finished: {why}.",
                f"Set its record aside as {backup}; files it had moved stay where they are.",
            ]
        done = self.journal.finished
        if not notes and done is not None:  # all was done but deleting its record
            spell = done["entry"]["trigger"]
            return [
                f"The cast of {cast_of(done)} was done but cut short before its answer; "
                f"its record is removed, so casting {spell} again casts it anew."
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
            record = self.format.read(data, shown, self.engine.states, REPAIR_LIMIT)
        except (SpellbookError, OSError):
            return []
        if len(record.history) > HISTORY_KEEP:
            moved = len(record.history) - HISTORY_KEEP
            where = self.journal.rotate(record)
        else:
            moved, where = 0, ""
        out = self.format.write(record)
        if len(out) > STATE_LIMIT:
            return []  # not the history: its context or fields are too large
        self.journal.forget()
        self.workspace.replace(self.state_file, out)
        return [
            f"{shown} was {len(data) / 1e6:.1f} MB, more than a cast reads; "
            f"kept it, with its {moved:,} older history entries moved to {where}.",
            f"The workflow is in {record.state}.",
        ]

    def _salvage(self) -> tuple[str, str, list[Any], Kept]:
        """The state to start again from, why, the history worth keeping, and what the
        damaged file still says of its fields and history (`recall.Kept`)."""
        data = head = b""
        try:
            data = self.workspace.read_bytes(self.state_file, REPAIR_LIMIT) or b""
            head = data[:65_536]
        except (SpellbookError, OSError):
            pass  # whatever is wrong with the file, the workspace's files still tell
        shown = self.workspace.shown(self.state_file)
        damaged = read_kept(shown, data, self.format.fields, Recall(self.engine).keepable)
        history: list[Any] = [e for e in damaged.entries if e is not None and encodable(e)]
        history = history[-HISTORY_KEEP:]
        states = self.engine.states
        value: dict[str, Any] = {}
        try:
            value = decode(data, "", REPAIR_LIMIT)
        except StateFileError:
            value = _lenient(data)  # JSON all the same (a lone surrogate, say): what it says
        named = self.format.last_state(value, states, head)
        if named is not None:
            return named, "the damaged file still names it", history, damaged
        return (*self._from_files(), history, damaged)

    def _from_files(self) -> tuple[str, str]:
        """The state the files show, and why: of the states whose Indicators all hold,
        the one they say most of (the later listed among equals), else the initial state."""
        machine = self.engine.machine
        facts = self.engine.facts()
        model = machine.Model(facts)
        best: tuple[int, int] | None = None
        chosen, because = machine.INITIAL, "no state's Indicators match the files"
        for index, state in enumerate(machine.STATES):
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
        return chosen, because

    def _backup(self, rel: str, keep: bool = False) -> str:
        """Move `rel` aside as `<rel>.bad-<time>` (with `keep`, give it that name too,
        leaving `rel` for the caller to replace; moved where there are no hard links);
        the new name, as shown."""
        stamp = now().replace(":", "").replace("-", "")
        for n in range(1, 1000):
            name = f"{rel}{BACKUP}{stamp}" + (f"-{n}" if n > 1 else "")
            if not self.workspace.exists(name):
                if not (keep and self.workspace.move(rel, name, keep=True)):
                    self.workspace.move(rel, name)
                return self.workspace.shown(name)
        raise StateFileError(f"too many backups of {self.workspace.shown(rel)}; remove some")


def _lenient(data: bytes) -> dict[str, Any]:
    """A damaged state file read as leniently as JSON allows ({} if it is not an object):
    for `repair` to keep what it still says, each value checked before it is kept."""
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}
