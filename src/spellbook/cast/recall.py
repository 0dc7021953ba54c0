"""What the files a workspace keeps still say of its state file's fields, for `spell repair`.

Three kinds of file survive a state file that is lost or cannot be read: the damaged
file itself (read as JSON where it is, else line by line, as the runtime writes it:
one line per field, one per history entry), the backups earlier repairs set aside
(`state.json.bad-<time>`), and the older history (`.history/`). Their history entries
make one chain, oldest first (each cast once, by its id). A field is restored from the
newest of the files that names it and the history after it: a cast's entry keeps the
fields it set (`changed`), whatever the spec says its rule does now; for an entry
written before entries kept them, its rule as the spec says it now: a rule's `Increment`
adds one, its `Reset` sets the number it names, a Set of a field to a literal sets
that value, a repair's entry the values it started with (`fields`), a Set to a
query's first result the value its cast kept in its entry (`fields` too), a move to
another state sets `entered_at` to the move's time. A verb that sets a field to a value
the history does not keep (a Python vocabulary's), a rule the
spec no longer has, or an entry that cannot be read ends what the history
can tell: a counter is then at least what it counted since, any other field is not
restored. A counter is never lower than the history shows. Nothing is invented: a
field nothing names, or that the files contradict, is said and left at its start
value (0 for a counter, none for the others).
"""

from __future__ import annotations

import json
import os
import re

from spellbook.cast.commit_point import HISTORY_FOLDER
from spellbook.disk.own_files import BACKUP
from spellbook.disk.state_file import REPAIR_LIMIT, TIME_FIELDS, decode, encodable
from spellbook.records.errors import SpellbookError, StateFileError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from spellbook.cast.engine import Engine

# The newest backups and history files read (each at most REPAIR_LIMIT bytes).
KEPT_FILES = 20
# The longest value (as JSON) a field is restored with: an id, a name, a count.
FIELD_LIMIT = 100_000
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_KEY_LINE = re.compile(r'  ("(?:[^"\\]|\\.)*"): (.*?),?')


class Kept:
    """One file that survives: how it is shown, the fields it names, what it says of a
    field that cannot be taken (`doubts`), its history entries oldest first (None for
    one that cannot be read), and why it could not be read at all ("" if it could)."""

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.fields: dict[str, Any] = {}
        self.doubts: dict[str, str] = {}
        self.entries: list[dict[str, Any] | None] = []
        self.problem = ""


class Restored:
    """What `recall` found: the fields to start the new state file with, and what was
    done for each, in sentences."""

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}
        self.said: list[str] = []


def read_kept(shown: str, data: bytes, fields: tuple[str, ...], fits: Any) -> Kept:
    """A state file (damaged, or a backup) as far as it can be read."""
    kept = Kept(shown)
    value: Any = None
    try:
        value = decode(data, shown, REPAIR_LIMIT)
    except StateFileError:
        try:  # JSON all the same (a lone surrogate, say): what it says, each value checked
            value = json.loads(data.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            value = None
    if isinstance(value, dict):
        found = {name: value[name] for name in fields if value.get(name) is not None}
        history = value.get("history")
        kept.entries = (
            [e if isinstance(e, dict) else None for e in history or []]
            if isinstance(history, list)
            else []
        )
    else:
        found, kept.entries = _lines(data.decode("utf-8", "replace"), fields, kept)
    for name, item in found.items():
        if fits(name, item) and encodable(item):
            kept.fields[name] = item
        else:
            kept.doubts[name] = f"{shown} holds {_shown(item)}, which {name} cannot be"
    if not kept.fields and not kept.entries and not kept.doubts:
        kept.problem = "it names no field and no history entry"
    return kept


def _lines(
    text: str, fields: tuple[str, ...], kept: Kept
) -> tuple[dict[str, Any], list[dict[str, Any] | None]]:
    """A state file that is not JSON (cut short, edited by hand), read line by line as
    `state_file.dump` writes it: `  "key": value,` for each top-level key (nothing
    else starts with exactly two spaces and a quote), and inside `  "history": [` one
    entry per line."""
    found: dict[str, Any] = {}
    entries: list[dict[str, Any] | None] = []
    in_history = False
    nested = False  # inside a value opened on a key's line and not closed there
    for line in text.splitlines():
        if in_history:
            if line.startswith("    "):
                entries.append(_entry(line.strip().rstrip(",")))
                continue
            in_history = False
        if nested:  # its keys are no top-level field, whatever their indent
            nested = not (line.startswith(("  }", "  ]")) and not line.startswith("   "))
            continue
        matched = _KEY_LINE.fullmatch(line.rstrip("\r"))
        if matched is None:
            continue
        try:
            key = json.loads(matched.group(1))
        except ValueError:
            continue
        if key == "history" and matched.group(2) == "[":
            in_history = True
        elif matched.group(2).startswith(("{", "[")) and not _whole(matched.group(2)):
            nested = True  # an object or a list over lines of its own
        elif key in fields:
            try:
                item = json.loads(matched.group(2))
            except (ValueError, RecursionError):
                kept.doubts[key] = f"{kept.shown}'s line for {key} cannot be read"
                continue
            if key in found and found[key] != item:
                kept.doubts[key] = (
                    f"{kept.shown} names it twice, as {_shown(found[key])} and {_shown(item)}"
                )
            found.setdefault(key, item)
    for key in kept.doubts:
        found.pop(key, None)
    return found, entries


def _whole(text: str) -> bool:
    """Whether a value is written whole on its line (JSON that reads)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _entry(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _shown(value: object) -> str:
    """A value a file holds, as JSON, cut short past 60 characters (escaped where it is
    no text: a lone surrogate)."""
    said = json.dumps(value, ensure_ascii=False)
    if not encodable(said):
        said = json.dumps(value)
    return said if len(said) <= 60 else said[:57] + "..."


def _time(entry: dict[str, Any]) -> str | None:
    """The time of a history entry, if it is one a cast writes (`2026-11-27T15:20:47Z`)."""
    when = entry.get("timestamp") or entry.get("at")
    return when if isinstance(when, str) and _TIME.fullmatch(when) else None


class Recall:
    """Restores `engine`'s state file fields from the files of its workspace that survive."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.workspace = engine.workspace
        self.format = engine.format
        self.state_file = engine.state_file
        self._effects: dict[str, list[tuple[str, str, Any]]] | None = None

    def kept_files(self, damaged: Kept | None) -> tuple[list[Kept], list[str]]:
        """Every file that survives, oldest first (the damaged one last), and what could
        not be read of them, in sentences."""
        files: list[Kept] = []
        said: list[str] = []
        stem = self.state_file.replace("/", "-")
        history = os.path.join(self.workspace.base, HISTORY_FOLDER)
        if os.path.islink(history):  # a glob enters no link: say so, never read past it
            said.append(
                f"Did not read {self.workspace.shown(HISTORY_FOLDER)}/: it is a link, which "
                "repair does not follow; the older history in it was not counted."
            )
        for pattern, backup in (
            (f"{HISTORY_FOLDER}/{stem}-*.jsonl", False),
            (f"{self.state_file}{BACKUP}*", True),
        ):
            try:
                names = self.workspace.glob(pattern)  # sorted: by time, as they are named
                names = (sorted(names, key=_by_time) if backup else names)[-KEPT_FILES:]
            except (SpellbookError, OSError) as err:
                said.append(f"Could not look for {self.workspace.shown(pattern)}: {err}.")
                continue
            for name in names:
                shown = self.workspace.shown(name)
                try:
                    data = self.workspace.read_bytes(name, REPAIR_LIMIT) or b""
                except (SpellbookError, OSError) as err:
                    said.append(f"Could not read {shown}: {err}; nothing was restored from it.")
                    if not backup:  # a stretch of the history missing: nothing counts past it
                        files.append(Kept(shown))
                        files[-1].entries = [None]
                    continue
                if backup:
                    kept = read_kept(shown, data, self.format.fields, self.keepable)
                else:
                    kept = Kept(shown)
                    text = data.decode("utf-8", "replace")
                    kept.entries = [_entry(line) for line in text.splitlines() if line.strip()]
                files.append(kept)
        if damaged is not None:
            files.append(damaged)
        for kept in files:
            if kept.problem and kept is not damaged:
                said.append(f"Could not read {kept.shown}: {kept.problem}.")
            holes = sum(e is None for e in kept.entries)
            if holes:
                said.append(
                    f"{kept.shown}: {holes} history "
                    f"{'entry' if holes == 1 else 'entries'} could not be read; what came "
                    "before them is not counted."
                )
        return files, said

    def recall(self, damaged: Kept | None) -> Restored:
        """The fields to start again with, each from the newest file that names it and
        the history after it, and what was done for each, in sentences."""
        files, said = self.kept_files(damaged)
        # One history of them all, oldest first; a cast kept in two files (a backup, a
        # rotated file, a line copied by hand) takes its place in the newest of them, so
        # a copy in an older file never moves the newest cast back before others.
        seen: set[str] = set()
        newest_first: list[tuple[int, dict[str, Any] | None]] = []
        for at in range(len(files) - 1, -1, -1):
            for entry in reversed(files[at].entries):
                cast = entry.get("cast") if entry is not None else None
                if isinstance(cast, str):
                    if cast in seen:
                        continue
                    seen.add(cast)
                newest_first.append((at, entry))
        placed = newest_first[::-1]
        chain = [entry for _, entry in placed]
        where: dict[str, int] = {}
        for index, (_, entry) in enumerate(placed):
            cast = entry.get("cast") if entry is not None else None
            if isinstance(cast, str):
                where[cast] = index
        last: dict[int, int] = {}  # each file: where its history ends in `chain`
        for index, (at, _) in enumerate(placed):
            last[at] = index + 1
        for at, kept in enumerate(files):
            for entry in kept.entries:  # its casts kept in a newer file go on to there
                cast = entry.get("cast") if entry is not None else None
                if isinstance(cast, str) and cast in where:
                    last[at] = max(last.get(at, 0), where[cast] + 1)
        ends = [
            (kept, len(chain) if kept is damaged else last.get(at, 0))
            for at, kept in enumerate(files)
        ]
        restored = Restored()
        restored.said = said
        for name in self.format.fields:
            newest = None  # the file that names it whose history ends last (the damaged one)
            for kept, end in ends:
                if name in kept.fields and (newest is None or end >= newest[1]):
                    newest = (kept, end)
            value, line = self._field(name, chain, newest, [k for k, _ in ends], damaged)
            if value is not None:
                restored.fields[name] = value
            restored.said.append(line)
        return restored

    def _field(
        self,
        name: str,
        chain: list[dict[str, Any] | None],
        newest: tuple[Kept, int] | None,
        files: list[Kept],
        damaged: Kept | None,
    ) -> tuple[Any, str]:
        """The value of one field and the sentence that says where it came from."""
        counter = name in self.format.counters
        start = "0" if counter else "none"
        doubts = "; ".join(k.doubts[name] for k in files if name in k.doubts)
        how, value, adds, counted, end = self._walk(name, chain, newest[1] if newest else 0)
        if how == "kept" and newest is not None:  # the history goes back to the file
            kept, at = newest
            value = kept.fields[name] + adds if counter else kept.fields[name]
            source = f"{kept.shown} holds {_shown(kept.fields[name])}"
            if counter and adds:
                source += f", and the history since adds {adds} ({counted})"
            if at == len(chain) and kept is not damaged:
                source += " (nothing kept tells what happened after it)"
            if counter:  # never lower than the history shows
                shows, base, more, also, since = self._walk(name, chain, 0)
                if shows in ("set", "least") and base + more > value:
                    said = f"{'at least ' if shows == 'least' else ''}{base + more}"
                    return base + more, (
                        f"Restored {name} = {base + more}: {source}, but the history shows "
                        f"{said} ({_since(also, since)}); the higher is kept."
                    )
            return value, f"Restored {name} = {_shown(value)}: {source}."
        if how == "set" and value is not None:
            total = value + adds if counter else value
            return total, (
                f"Restored {name} = {_shown(total)} from the history ({_since(counted, end)})."
            )
        if counter and adds:
            before = f"; {doubts}" if doubts else ""
            return adds, (
                f"Restored {name} = {adds}: the history shows at least {adds} "
                f"({_since(counted, end)}), not what it was before{before}."
            )
        because = "; ".join(filter(None, [doubts, end])) or "nothing kept names it"
        return None, f"Could not restore {name} ({because}); left at its start value ({start})."

    def _walk(
        self, name: str, chain: list[dict[str, Any] | None], stop: int
    ) -> tuple[str, Any, int, str, str]:
        """The history from its newest entry back to index `stop`, for field `name`: how
        it ends ("kept": nothing in between set it; "set": an entry set it to `value`;
        "least": an entry set it to a value the history does not keep, or cannot be
        read), the value, what was counted up since, the rules that counted it, and the
        entry it ended at, in words."""
        adds, rules = 0, list[str]()
        for index in range(len(chain) - 1, stop - 1, -1):
            entry = chain[index]
            if entry is None:
                return "least", 0, adds, _counted(rules), "a history entry cannot be read"
            kind, value, after, rule = self._effect(entry, name)
            adds += after
            rules += [rule] * after
            if kind == "set":
                return "set", value, adds, _counted(rules), f"{rule} set it to {_shown(value)}"
            if kind == "unknown":
                end = f"{rule} set it to a value the history does not keep"
                return "least", 0, adds, _counted(rules), end
        return "kept", None, adds, _counted(rules), ""

    def _effect(self, entry: dict[str, Any], name: str) -> tuple[str, Any, int, str]:
        """What one history entry did to field `name`, and the entry in words: ("", None,
        n, ...) counted it up n times (0: nothing); ("set", value, n, ...) set it, then
        counted it up n times; ("unknown", None, n, ...) set it to a value it does not
        keep, then counted it up n times."""
        outcome = entry.get("outcome")
        rule = entry.get("rule")
        ops = self.effects().get(rule) if isinstance(rule, str) else None
        said = f"rule {rule}" if ops is not None else f"rule {_shown(rule)}"
        when = _time(entry)
        if outcome == "repair":
            fields = entry.get("fields")
            said = f"the repair at {when}" if when else "a repair"
            if isinstance(fields, dict) and name in fields:
                value = fields[name]
                if self.keepable(name, value):
                    return "set", value, 0, said
            return "unknown", None, 0, said
        if outcome not in ("transition", "noop"):
            return "", None, 0, said  # refused, migrated, no rule: no action was carried out
        if name in TIME_FIELDS:  # a move sets it; a cast that keeps the state does not
            if outcome != "transition":
                return "", None, 0, said
            return ("set", when, 0, said) if when else ("unknown", None, 0, said)
        changed = entry.get("changed")
        if isinstance(changed, dict):  # what the cast set, as it kept it
            if name not in changed:
                return "", None, 0, said
            value = changed[name]
            if self.keepable(name, value):
                return "set", value, 0, said
            return (
                "unknown",
                None,
                0,
                f"{said} (its entry says {_shown(value)}, which {name} cannot be)",
            )
        if ops is None:
            return "unknown", None, 0, said + " (which the spec does not have)"
        kind, value, adds = "add", None, 0
        for field, op, number in ops:
            if field != name and field != "*":
                continue
            if op == "add":
                adds += 1
            elif op == "set":
                kind, value, adds = "set", number, 0
            else:
                kind, value, adds = "unknown", None, 0
        if kind == "unknown":  # a query chose it: as the cast recorded it
            chosen = entry.get("fields")
            if isinstance(chosen, dict) and name in chosen:
                value = chosen[name]
                if self.keepable(name, value):
                    return "set", value, 0, said
        return kind if kind != "add" else "", value, adds, said

    def keepable(self, name: str, value: object) -> bool:
        """Whether a value the history gives a field may start the new state file: one the
        field holds, written as JSON, and no longer than `FIELD_LIMIT` (a 10 MB value
        planted in the history would make a state file too large to be read)."""
        if not (self.format.field_fits(name, value) and encodable(value)):
            return False
        return len(json.dumps(value, ensure_ascii=False)) <= FIELD_LIMIT

    def effects(self) -> dict[str, list[tuple[str, str, Any]]]:
        """Each rule's doings to the state file's fields, in order, by the rule's id:
        (field, "add", None), (field, "set", value), or (field, "unknown", None); a
        field "*" is every field."""
        if self._effects is not None:
            return self._effects
        from spellbook.verbs.actions import VERBS

        vocabulary: dict[str, tuple[str, ...]] | None
        try:
            words = self.engine.vocabulary
            vocabulary = {v.name: tuple(v.writes) for v in getattr(words, "VERBS", ())}
        except SpellbookError:
            vocabulary = None  # what its verbs set is not known
        found: dict[str, list[tuple[str, str, Any]]] = {}
        for rule in self.engine.machine.RULES:
            ops: list[tuple[str, str, Any]] = []
            for action in rule.actions:
                field, _, number = action.target.partition("=")
                verb = VERBS.get(action.verb)
                if verb is None:
                    writes = vocabulary.get(action.verb, ()) if vocabulary is not None else ("*",)
                    ops += [(f, "unknown", None) for f in writes]
                elif verb.fields == "none":
                    continue
                elif action.verb == "increment":
                    ops.append((field, "add", None))
                elif action.verb == "reset" and (not number or number.isdigit()):
                    ops.append((field, "set", int(number or 0)))
                elif action.verb == "set_state_field":  # a literal is known, a query's not
                    name, how, value = json.loads(action.target)
                    ops.append((name, "set", value) if how == "value" else (name, "unknown", None))
                else:
                    known = field if field in self.format.fields else "*"
                    ops.append((known, "unknown", None))
            found.setdefault(rule.id, ops)
        self._effects = found
        return found


def _counted(rules: list[str]) -> str:
    """The rules that counted a field up, newest first: "rule R1 twice"."""
    counted: dict[str, int] = {}
    for rule in rules:
        counted[rule] = counted.get(rule, 0) + 1
    return ", ".join(f"{rule} {_times(n)}" for rule, n in counted.items())


def _since(counted: str, end: str) -> str:
    return ", since ".join(filter(None, [counted, end])) or "no cast counted it"


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _by_time(name: str) -> tuple[str, int]:
    """A backup's or history file's name in time order: by its stamp, then its number
    (`state.json.bad-20261127T101500Z-2`)."""
    tail = name.rpartition(BACKUP)[2] if BACKUP in name else name
    stamp, _, number = tail.partition("-")
    return stamp, int(number) if number.isdigit() else 1
