"""The record of a workspace's casts: its state file and history, the commit point, the lock.

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

from spellbook.disk.lock import Lock
from spellbook.disk.state_file import STATE_LIMIT, Encoded, Record, decode, now
from spellbook.records.errors import (
    BadFile,
    Interrupted,
    SpellbookError,
    StateFileError,
    UnsafePath,
    said,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from spellbook.cast.engine import Engine
    from spellbook.disk.store import Workspace

LOCK_FILE = ".state.lock"
# The state file keeps the newest entries of its history: past HISTORY_LIMIT, all but
# the newest HISTORY_KEEP go to a file of their own under HISTORY_FOLDER.
HISTORY_LIMIT = 1000
HISTORY_KEEP = 500
HISTORY_FOLDER = ".history"
INTENT_FILE = ".intent.json"


class Journal:
    """The state file and the intent record of `engine`'s workspace.

    It keeps the state file as it last read or wrote it, parsed, with its history
    entries' encodings: a cast that finds the same bytes skips parsing and encodes
    only its new entry. Anything else on disk is read afresh.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.workspace = engine.workspace
        self.format = engine.format
        self.state_file = engine.state_file
        self._known: tuple[bytes, Record] | None = None
        self._encoded: Encoded = {}
        self.seen: bytes | None = None  # the state file's bytes as last read under the lock
        # The intent record `recover` last finished (None: it finished none).
        self.finished: dict[str, Any] | None = None
        # The files the last cast carried out left unmoved (`operations.apply`).
        self.unmoved: list[str] = []

    def locked(self) -> Locked:
        """The workspace's lock, to hold with `with`."""
        return Locked(self.workspace)

    def state_bytes(self) -> bytes | None:
        try:
            return self.workspace.read_bytes(self.state_file, STATE_LIMIT)
        except BadFile as err:  # too large, a folder, a FIFO
            raise StateFileError(f"{err}; run `spell repair`") from None

    def read(self) -> Record:
        """The state file as it is (the initial state if there is none yet)."""
        self.workspace.fresh()  # from outside a cast: the folders are checked again
        data = self.state_bytes()
        if data is None:
            return self.initial()
        return self.format.read(data, self.workspace.shown(self.state_file), self.engine.states)

    def initial(self) -> Record:
        """No state file: the initial state, unless the files contradict its Indicators
        (plan.md is there, say), when the workflow is past it and starting over would
        lose where it is: an error naming `spell repair`, which reads the state off
        the files. A cast from the initial state interrupted after its commit point
        (its intent record is there) explains them: the workflow is in the initial
        state until the next cast finishes that one."""
        initial = self.engine.machine.INITIAL
        contradicted = self.contradicting(initial)
        if contradicted and not self._interrupted_in(initial):
            shown = self.workspace.shown(self.state_file)
            raise StateFileError(
                f"{shown} is missing, but the files say the workflow is past "
                f"{initial} ({', '.join(contradicted)}); run `spell repair` "
                "to choose the state from the files"
            )
        return Record(initial)

    def contradicting(self, state: str) -> list[str]:
        """What the files say against `state`'s Indicators, in the spec's words."""
        return self.engine.states[state].contradicted(self.engine.facts().check)

    def load(self) -> Record:
        """The state file under the lock, reusing the parse of bytes this journal wrote."""
        data = self.seen = self.state_bytes()
        if data is None:
            self.forget()
            return self.initial()
        if self._known is not None and data == self._known[0]:
            return self._known[1]
        self.forget()
        shown = self.workspace.shown(self.state_file)
        record = self.format.read(data, shown, self.engine.states)
        self._known = (data, record)
        return record

    def forget(self) -> None:
        """Let go of the state file as last read or written: it is read afresh next time."""
        self._known = None
        self._encoded = {}

    def migrate(self, record: Record, cast: str) -> list[str]:
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

    def save(self, record: Record, after: str, entry: dict[str, Any]) -> None:
        """Append `entry` to the history, move to `after` and write the state file."""
        try:
            self.format.moved(record, after != record.state)
            record.history.append(entry)
            record.state = after
            if len(record.history) > HISTORY_LIMIT:
                self.rotate(record)
            data = self.format.write(record, self._encoded)
            self.workspace.replace(self.state_file, data)
        except BaseException:
            self.forget()
            raise
        self._known = (data, record)

    def rotate(self, record: Record) -> str:
        """Move all but the newest HISTORY_KEEP history entries to a new file under
        HISTORY_FOLDER (one JSON entry per line), which no cast reads; its name, shown.

        Written before the state file: a crash in between leaves the entries in both
        (the cast ids tell them apart), never in neither."""
        older = record.history[:-HISTORY_KEEP]
        last = older[-1] if isinstance(older[-1], dict) else {}
        stamp = str(last.get("timestamp") or last.get("at") or now())
        stamp = "".join(c for c in stamp if c.isalnum())[:16] or "history"
        tag = "".join(c for c in str(last.get("cast") or "") if c.isalnum())[:12]
        base = f"{HISTORY_FOLDER}/{self.state_file.replace('/', '-')}-{stamp}-{tag or 'x'}"
        lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in older)
        name = f"{base}.jsonl"
        for number in range(2, 1000):
            if self.workspace.create(name, lines):
                break
            # already there: the same entries, written before a crash, and nothing to do;
            # anything else is no file of these entries, which go to a name of their own
            try:
                there = self.workspace.read_bytes(name, len(lines.encode("utf-8")))
            except (BadFile, UnsafePath):
                there = None  # larger, a folder, a link: not these entries
            if there == lines.encode("utf-8"):
                break
            name = f"{base}-{number}.jsonl"
        else:
            raise SpellbookError(
                f"{self.workspace.shown(base)}-*.jsonl: too many files of that name"
            )
        record.history = record.history[-HISTORY_KEEP:]
        self._encoded = {}
        return self.workspace.shown(name)

    def commit(self, record: Record, intent: dict[str, Any]) -> list[str]:
        """Write the intent record (the cast is then done, whatever happens next) and
        carry it out."""
        try:
            self.write_intent(intent)
        except BaseException:
            self.forget()  # the record in memory holds this cast's entries; the disk not
            raise
        try:
            return self.finish(record, intent)
        except OSError as err:
            self.forget()
            raise Interrupted(
                f"{intent['entry']['trigger']} in {intent['before']} was interrupted: "
                f"{said(err)}; once the disk takes it, run `spell repair` to finish it and "
                f"cast nothing more (from {self.workspace.shown(INTENT_FILE)}); the next "
                "cast finishes it first too"
            ) from err

    def write_intent(self, intent: dict[str, Any]) -> None:
        """Write the intent record, sealed with this user's key for the workspace (a
        record is carried out only with its seal: `_check_seal`)."""
        from spellbook.disk.user_cache import seal_key  # only casts that change files

        key = seal_key(self.workspace.base, create=True)
        if key is None:  # before the commit point: nothing is changed
            raise SpellbookError(
                "no key to seal this cast's intent record can be kept (neither Spellbook's "
                "cache folder nor a folder of yours in the temporary folder can be written): "
                "set SPELLBOOK_CACHE to an absolute folder you can write; nothing was changed"
            )
        sealed = {**intent, "seal": seal(key, intent)}
        self.workspace.replace(INTENT_FILE, json.dumps(sealed, ensure_ascii=False).encode())

    def finish(self, record: Record, intent: dict[str, Any]) -> list[str]:
        """Carry out an intent record whose cast the state file does not hold yet: its
        file operations, then the state file, then delete the record."""
        from spellbook.verbs.operations import apply

        self.unmoved = []
        notes = apply(intent["operations"], self.workspace, self.unmoved)
        notes += self.migrate(record, intent["cast"])
        record.extra.update(intent["extra"])
        self.save(record, intent["after"], intent["entry"])
        # Not synced: a record that comes back after a crash names a cast the history
        # holds, and is only deleted again.
        self.workspace.remove(INTENT_FILE)
        DONE[:] = [cast_of(intent)]  # cast again, it is cast anew
        return notes

    def recover(self) -> list[str]:
        """Finish a cast that was interrupted after its commit point, if there is one
        (`finished` keeps its record)."""
        self.finished = None
        intent = self.intent()
        if intent is None:
            return []
        record = self.load()
        if holds(record, intent["cast"]):
            # The state file is written after the operations: all was done but deleting
            # the record (the same spell cast again is that cast: `finished`).
            self.workspace.remove(INTENT_FILE)
            self.finished = intent
            return []
        if record.state != intent["before"]:
            raise StateFileError(
                f"{self.workspace.shown(INTENT_FILE)} is a cast interrupted in "
                f"{intent['before']}, but {self.workspace.shown(self.state_file)} says "
                f"{record.state}; run `spell repair`"
            )
        try:
            notes = self.finish(record, intent)
        except OSError as err:
            self.forget()
            raise Interrupted(
                f"could not finish the interrupted cast in "
                f"{self.workspace.shown(INTENT_FILE)}: {err}; the next cast tries again"
            ) from err
        self.finished = intent
        return [f"first finished the interrupted cast of {cast_of(intent)}", *notes]

    def _interrupted_in(self, state: str) -> bool:
        """Whether the intent record of a cast interrupted in `state` is there (one that
        is not what a cast writes is not)."""
        try:
            intent = self.intent()
        except (StateFileError, UnsafePath):
            return False
        return intent is not None and intent["before"] == state

    def intent(self) -> dict[str, Any] | None:
        """The intent record of an interrupted cast, checked (StateFileError if it is not
        what a cast writes), or None if there is none."""
        shown = self.workspace.shown(INTENT_FILE)
        try:
            data = self.workspace.read_bytes(INTENT_FILE, STATE_LIMIT)
        except BadFile as err:
            raise StateFileError(f"{err}; run `spell repair` to set it aside") from None
        if data is None:
            return None
        from spellbook.verbs.operations import (  # only an interrupted cast needs it
            OPERATIONS,
            paths_of,
        )

        states = self.engine.states
        value = decode(data, shown)
        self._check_seal(value, shown)
        for key in ("before", "after"):  # written before the spec renamed the state
            named = value.get(key)
            if isinstance(named, str) and named not in states:
                value[key] = self.format.formerly.get(named, named)
        entry, operations = value.get("entry"), value.get("operations")
        if not (
            isinstance(value.get("cast"), str)
            and value.get("before") in states
            and value.get("after") in states
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

    def _check_seal(self, value: dict[str, Any], shown: str) -> None:
        """Refuse a record no cast of this user's wrote: its seal must be the one this
        user's key gives its content (a record committed to the repository, or written by
        hand, has none that fits, and carrying it out would make a move and write files
        no rule allowed)."""
        import hmac

        from spellbook.disk.user_cache import seal_keys

        written = value.pop("seal", None)
        keys = seal_keys(self.workspace.base)  # of any cache folder a cast of yours used
        if not isinstance(written, str):
            why = "it carries no seal of the key your cache folder keeps for this workspace"
        elif not keys:
            why = (
                "no key of yours for this workspace is kept: none sealed a record here, or "
                "your cache folder was emptied since"
            )
        elif not any(hmac.compare_digest(written, seal(key, value)) for key in keys):
            why = "its seal does not fit the key your cache folder keeps for this workspace"
        else:
            return
        raise StateFileError(
            f"{shown} was not written by a cast of yours here ({why}), so it is not carried "
            "out; run `spell repair` to set it aside"
        )

    def interrupted(self, record: Record, done: bool = True) -> str | None:
        """What the next cast will finish first, if a cast was interrupted (for status);
        and, with `done`, a cast that was done but cut short before its answer (the next
        cast of its spell answers it, any other only deletes its record)."""
        try:
            intent = self.intent()
        except (StateFileError, UnsafePath) as err:
            return str(err)
        if intent is None:
            return None
        if holds(record, intent["cast"]):  # done, but for its answer and deleting the record
            if not done or record.state != intent["after"]:
                return None  # or moved on since: the next cast only deletes the record
            spell = intent["entry"]["trigger"]
            return (
                f"{cast_of(intent)} was done but cut short before its answer; cast {spell} "
                "again to see it (it casts nothing more); any other cast is cast as usual"
            )
        return (
            f"{cast_of(intent)} was interrupted; run `spell repair`, or cast "
            f"{intent['entry']['trigger']} again, to finish it and cast nothing more (any "
            "other cast finishes it first)"
        )


def seal(key: bytes, intent: dict[str, Any]) -> str:
    """The seal of an intent record: keyed BLAKE2b of its content, its keys sorted."""
    import hashlib

    content = json.dumps(intent, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.blake2b(content, key=key, digest_size=32).hexdigest()


# The last cast this process carried out in full, record deleted (`Go (A → B, rule T7)`): an
# interrupt after one says so, for the same command again would cast anew.
DONE: list[str] = []


def cast_of(intent: dict[str, Any]) -> str:
    """An interrupted cast, in words: `Accio (A → B, rule A2)`."""
    entry = intent["entry"]
    return f"{entry['trigger']} ({intent['before']} → {intent['after']}, rule {entry.get('rule')})"


def holds(record: Record, cast: str) -> bool:
    """Whether the state file's history has the cast `cast` (the newest is looked at first)."""
    return any(isinstance(e, dict) and e.get("cast") == cast for e in reversed(record.history))


class Locked(Lock):
    """The workspace's lock. While it is held, the workspace syncs its folder through
    the locked folder's descriptor."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__(workspace.path(LOCK_FILE))
        self.workspace = workspace

    def _opened(self) -> int | None:
        return self.workspace.opened()

    def __enter__(self) -> Locked:
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
