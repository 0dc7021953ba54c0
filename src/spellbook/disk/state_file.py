"""The state file: how a machine's state, context and history are kept on disk.

Each machine's file has the shape of its spec's State Persistence example. The
spell workflow keeps `.ai/task/state.json` as its spec describes:

    {"current_state": "GATHER_EDITING", "context": {}, "history": [
        {"timestamp": "2025-08-20T15:30:00Z", "transition": "GATHER_NEEDS_PLAN → GATHER_EDITING",
         "trigger": "Accio", "rule": "G1", "outcome": "transition", "cast": "3f9c..."}]}

A file that cannot be read as such is never rewritten: `StateFileError` says
why, and `spell repair` backs it up and starts over. Every JSON the runtime reads
(a state file, an intent record, a vocabulary's JSON file, a hook event) goes through one
decoder, `parse_json`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Collection

from spellbook.records.errors import BadFile, StateFileError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STATE_LIMIT = 10_000_000
REPAIR_LIMIT = 200_000_000  # what `spell repair` reads of a state file grown too large


# How the advice for a state file naming a state the spec does not have opens: a rename
# the spec may declare (`*Formerly*`), which the hook leaves out where the spec's change
# is not committed yet (the state may be the new name).
RENAMED_HINT = " (if the spec renamed or removed it,"
REPAIR_TO_CHOOSE = "run `spell repair` to choose the state from the files"


class Record:
    """A machine's state file, read: the state, its context, its history, and any other keys."""

    def __init__(
        self,
        state: str,
        context: dict[str, Any] | None = None,
        history: list[Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.state = state
        self.context = context if context is not None else {}
        self.history = history if history is not None else []
        self.extra = extra if extra is not None else {}
        # The name the file gives the state, when it is a former name of `state` (the
        # spec renamed it, with `*Formerly*`): the next write records the move.
        self.former: str | None = None


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def encode(value: object) -> str:
    """`value` as compact JSON, by json's C encoder (TypeError if JSON cannot hold it)."""
    if isinstance(value, dict) and not value:  # the encoder's slow path
        return "{}"
    return _ENCODE(value)


# What `dump` keeps of a list it encoded, by id: the list itself (so that id is not
# reused while the entry stands), how many of its items, and their encoding.
Encoded = dict[int, "tuple[list[Any], int, bytearray]"]

# Each key's line opening, as `dump` writes it, for the first keys it meets.
_KEY_LINES: dict[str, bytes] = {}


def dump(value: dict[str, Any], known: Encoded | None = None) -> bytes:
    """JSON with one line per key, and one line per item of a list: readable, and made by
    json's C encoder (which `indent=` would turn off).

    `known` holds the encoding of lists seen before (see `Encoded`). A caller that
    keeps a list alive and only appends to it passes the same `known` each time, and
    only the new items are encoded.
    """
    chunks: list[bytes | bytearray] = [b"{\n"]
    for key, item in value.items():
        if len(chunks) > 1:
            chunks.append(b",\n")
        line = _KEY_LINES.get(key)
        if line is None:
            line = f"  {json.dumps(key)}: ".encode()  # as `last_state` looks for it
            if len(_KEY_LINES) < 64:  # the format's own keys; not every key a file holds
                _KEY_LINES[key] = line
        chunks.append(line)
        if isinstance(item, list) and item:
            cached = known.get(id(item)) if known is not None else None
            if cached is not None and cached[0] is item and cached[1] <= len(item):
                start, inner = cached[1], cached[2]
            else:
                start, inner = 0, bytearray()
            added = ",\n".join(["    " + _ENCODE(x) for x in item[start:]]).encode("utf-8")
            if added:
                inner += b",\n" + added if inner else added
            chunks += (b"[\n", inner, b"\n  ]")
            if known is not None:
                known[id(item)] = (item, len(item), inner)
        elif item is None:  # the encoder's slow path, for the commonest values
            chunks.append(b"null")
        elif isinstance(item, dict) and not item:
            chunks.append(b"{}")
        else:
            chunks.append(_ENCODE(item).encode("utf-8"))
    chunks.append(b"\n}\n")
    return b"".join(chunks)


# The second last asked about, as a UTC time stamp and a local date: a process that
# casts many times a second (a server) formats each second once. One tuple, so that
# a thread never sees one second's stamp with another's date.
_clock: tuple[int, str, str] = (-1, "", "")


def _at(second: int) -> tuple[int, str, str]:
    global _clock
    known = _clock
    if known[0] != second:
        known = _clock = (
            second,
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second)),
            time.strftime("%Y-%m-%d", time.localtime(second)),
        )
    return known


def now() -> str:
    """The time, to the second, in UTC: `2026-11-23T06:37:58Z`."""
    return _at(int(time.time()))[1]


def seconds(written: object) -> int | None:
    """The time a state file's time field says, in seconds since the epoch, UTC: as casts
    write it (`2026-11-23T06:37:58Z`), or with an offset (`+05:30`, as `date -Iseconds`
    writes it) or none (read as UTC), a fraction of a second dropped; None for anything
    else (a date that is no date, `not a time`, a number)."""
    found = re.fullmatch(_TIME, written) if isinstance(written, str) else None
    if found is None:
        return None
    year, month, day, hour, minute, second = (int(found.group(i)) for i in range(1, 7))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    last = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if not (1 <= month <= 12 and 1 <= day <= last[month - 1] and hour < 24 and minute < 60):
        return None
    if second > 60:
        return None
    # days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil)
    y = year - (month <= 2)
    era = y // 400
    of_era = y - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    of_era_days = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    days = era * 146097 + of_era_days - 719468
    zone = found.group(7) or "Z"
    offset = 0 if zone == "Z" else (int(zone[1:3]) * 60 + int(zone[-2:])) * 60
    return (
        days * 86400 + hour * 3600 + minute * 60 + second - (offset if zone[0] == "+" else -offset)
    )


_TIME = (  # compiled at first use, by `re`'s own cache
    r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d{1,9})?(Z|[+-]\d\d:?\d\d)?"
)


def today() -> str:
    """The local date, as archive folders are named by it (`${date}`)."""
    return _at(int(time.time()))[2]


class _Digits(ValueError):
    """An integer too long for Python to read (more than 4,300 digits)."""

    def __init__(self, digits: str) -> None:
        super().__init__(digits)
        self.digits = digits


def _integer(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:
        raise _Digits(digits) from None


class _NotFinite(ValueError):
    """A number JSON cannot hold: NaN, Infinity, or one too large for a float."""

    def __init__(self, written: str) -> None:
        super().__init__(written)
        self.written = written


def _finite(written: str) -> float:
    number = float(written)
    if number in (_INFINITY, -_INFINITY):
        raise _NotFinite(written)
    return number


_INFINITY = float("inf")


def _constant(written: str) -> float:
    raise _NotFinite(written)  # NaN, Infinity, -Infinity: Python's, not JSON's


# A lone surrogate, written as a JSON escape (compiled only when one may be there).
_LONE = (
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def encodable(value: object) -> bool:
    """Whether the value can be written as JSON in UTF-8: no lone surrogate in it, and
    no number JSON cannot hold (NaN, Infinity)."""
    try:
        _STRICT(value).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        return False
    return True


_STRICT = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, max(index, 0)) + 1


def parse_json(data: bytes | str, shown: str) -> Any:
    """The JSON value of a file (or an event) the runtime reads, or BadFile saying what
    is wrong with it and on which line: not UTF-8, not JSON, nested too deeply, an
    integer too long to read, a lone surrogate (text no file can hold). A UTF-8 byte
    order mark is skipped; CRLF line ends are whitespace. Every JSON input goes
    through here, so none of these reaches a traceback."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            line = data.count(b"\n", 0, err.start) + 1
            raise BadFile(f"{shown}:{line}: not UTF-8 text (byte {err.start})") from None
    else:
        text = data
        if not encodable(text):
            raise BadFile(f"{shown}: holds text that is not Unicode (a lone surrogate)")
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise BadFile(f"{shown} is empty")
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_finite, parse_constant=_constant)
    except json.JSONDecodeError as err:
        said = f"not valid JSON at column {err.colno}: {_json_problem(err)}"
        raise BadFile(f"{shown}:{err.lineno}: {said}") from None
    except _Digits as err:
        line = _line(text, text.find(err.digits))
        said = f"a number of {len(err.digits):,} digits; too long to read"
        raise BadFile(f"{shown}:{line}: {said}") from None
    except _NotFinite as err:
        line = _line(text, text.find(err.written))
        said = f"{err.written} is a number JSON cannot hold (too large, NaN or Infinity)"
        raise BadFile(f"{shown}:{line}: {said}") from None
    except RecursionError:
        raise BadFile(f"{shown} is nested too deeply") from None
    except ValueError as err:  # anything else json or int() refuses
        raise BadFile(f"{shown}: not valid JSON ({err})") from None
    if ("\\ud" in text or "\\uD" in text) and not encodable(value):
        lone = re.search(_LONE, text)
        where = f":{_line(text, lone.start())}" if lone is not None else ""
        raise BadFile(
            f"{shown}{where}: holds half of a character (a lone surrogate, "
            f"{lone.group() if lone else 'escaped'}), which no file can hold"
        )
    return value


def _json_problem(err: json.JSONDecodeError) -> str:
    """json's message, said whole: it writes a control character's as "... at" (for the
    position it appends itself) and names no character."""
    if err.msg.startswith("Invalid control character"):
        code = ord(err.doc[err.pos]) if 0 <= err.pos < len(err.doc) else None
        named = {9: "a tab", 10: "a line break", 13: "a carriage return"}.get(code or -1)
        what = named or (f"the control character U+{code:04X}" if code is not None else "")
        return f"{what or 'a control character'} inside a string, where JSON wants it escaped"
    return err.msg


def decode(data: bytes, shown: str, limit: int = STATE_LIMIT) -> dict[str, Any]:
    """A state file's JSON object, or StateFileError saying what is wrong with it."""
    if len(data) > limit:
        raise StateFileError(
            f"{shown} is {len(data) / 1e6:.1f} MB, more than the {STATE_LIMIT / 1e6:.0f} MB "
            "a state file may be; run `spell repair`"
        )
    try:
        value = parse_json(data, shown)
    except BadFile as err:
        raise StateFileError(f"{err}; run `spell repair`") from None
    if not isinstance(value, dict):
        raise StateFileError(
            f"{shown} holds a JSON {type(value).__name__}, not an object; run `spell repair`"
        )
    return value


class SharedStateFile(StateFileError):
    """The state file names a state of another machine of the project, which keeps its
    state in the same file: the two machines take the file from each other."""

    def __init__(self, shown: str, state: str, spec: str, other: str, where: str, me: str):
        self.shown, self.state, self.other = shown, state, other
        mine = f"the machine {me}" if me else spec
        super().__init__(
            f"{shown} names state {state!r}, which {mine} does not have but the machine "
            f"{other} ({where}) of this project does: the two machines keep their state in "
            "this one file, and each cast of one takes it from the other. Give each "
            "machine a state file of its own, named in its spec (a machine of a file of "
            "several names it in its own section), and run `spellbook-codegen`; until "
            f"then `spell --machine {other}` drives {other}, and `spell repair` leaves "
            f"{shown} as it is"
        )


# Fields a state file may keep, with the meaning the runtime gives them.
TIME_FIELDS = frozenset({"entered_at"})  # when the current state was entered
# Counted by `increment`, set by `reset` (and by the session's `select`); a machine's
# own counters are the fields its rules count or compare (`spellbook.cast.engine`).
COUNTER_FIELDS = frozenset({"attempts"})
# Written by the runtime alone: the time the state was entered, the runs of commands.
RUNTIME_FIELDS = TIME_FIELDS | {"runs"}


class StateFormat:
    """A machine's state file, shaped as its spec's State Persistence example says.

    `state_key` holds the state (`current_state` for the spell workflow, `state` for
    the session machine); each history entry has `entry_keys` (`timestamp` or `at`:
    the time; `transition`: "A → B"; `trigger`: the spell; `state`: the state after)
    plus `rule`, `outcome` and `cast`; `fields` are kept beside the state.
    """

    def __init__(
        self,
        state_key: str = "current_state",
        entry_keys: tuple[str, ...] = ("timestamp", "transition", "trigger"),
        fields: tuple[str, ...] = (),
        formerly: dict[str, str] | None = None,
        spec: str = "the spec",
        counters: Collection[str] = (),
    ) -> None:
        self.state_key = state_key
        self.entry_keys = entry_keys
        self.fields = fields
        self.formerly = formerly or {}  # a state's former name -> the state
        self.spec = spec
        self.counters = COUNTER_FIELDS | frozenset(counters)
        # Another machine of the project that keeps its state in this file and has a
        # state: its name and spec (`spellbook.disk.shared_state`), asked on the error
        # path only.
        self.sharer: Callable[[str], tuple[str, str, str] | None] | None = None

    def read(
        self, data: bytes, shown: str, states: Collection[str], limit: int = STATE_LIMIT
    ) -> Record:
        value = decode(data, shown, limit)
        state = value.get(self.state_key)
        if not isinstance(state, str):
            raise StateFileError(f"{shown} has no {self.state_key} string; run `spell repair`")
        former = None
        if state not in states and state in self.formerly:
            former, state = state, self.formerly[state]
        if state not in states:
            other = self.sharer(state) if self.sharer is not None else None
            if other is not None:
                raise SharedStateFile(shown, state, self.spec, *other)
            hint = (
                f"{RENAMED_HINT} the state that takes its place can say `- *Formerly*: "
                f"{state}`, and casts move the workspace there)"
                if state.isidentifier() and len(state) <= 80
                else ""
            )
            raise StateFileError(
                f"{shown} names state {state[:80]!r}, which {self.spec} does not have{hint}; "
                + REPAIR_TO_CHOOSE
            )
        context = value.get("context", {})
        history = value.get("history", [])
        if not isinstance(context, dict) or not isinstance(history, list):
            raise StateFileError(
                f"{shown}: context must be an object and history a list; run `spell repair`"
            )
        for name in self.fields:
            if not self.field_fits(name, value.get(name)):
                kind = (
                    "a whole number, 0 or more"
                    if name in self.counters
                    else "a time such as 2026-11-23T06:37:58Z"
                    if name in TIME_FIELDS
                    else "text or a number"
                )
                raise StateFileError(f"{shown}: {name} must be {kind}; run `spell repair`")
        extra = {k: v for k, v in value.items() if k not in (self.state_key, "context", "history")}
        record = Record(state, context, history, extra)
        record.former = former
        return record

    def field_fits(self, name: str, item: object) -> bool:
        """Whether a field's value is what the runtime keeps there (or absent): a whole
        number, 0 or more, for a counter (no cast counts below 0: `-5` written by hand
        would grant more tries than the spec allows); text or a number (true/false too)
        for the others."""
        if name in self.counters:
            return item is None or (
                isinstance(item, int) and not isinstance(item, bool) and item >= 0
            )
        if name in TIME_FIELDS:  # a time no probe can read would switch its rule off
            return item is None or seconds(item) is not None
        return item is None or isinstance(item, (str, int, float))

    def write(self, record: Record, known: Encoded | None = None) -> bytes:
        """The file's bytes; `known` caches the encoded history (see `dump`)."""
        value: dict[str, Any] = {self.state_key: record.state}
        for name in self.fields:  # a counter nobody counted yet is 0
            found = record.extra.get(name)
            value[name] = 0 if found is None and name in self.counters else found
        value.update({"context": record.context, "history": record.history})
        value.update({k: v for k, v in record.extra.items() if k not in value})
        return dump(value, known)

    def moved(self, record: Record, changed: bool = True) -> None:
        """The state changed (or, not `changed`, is written: a state file written for
        the first time): note when, for fields that keep it."""
        for name in self.fields:
            if name in TIME_FIELDS and (changed or not isinstance(record.extra.get(name), str)):
                record.extra[name] = now()

    def entry(
        self, before: str, after: str, spell: str, rule: str | None, outcome: str, cast: str
    ) -> dict[str, Any]:
        at = now()
        said = {
            "timestamp": at,
            "at": at,
            "transition": f"{before} → {after}",
            "trigger": spell,
            "state": after,
        }
        entry = {key: said.get(key) for key in self.entry_keys}
        entry.update({"trigger": spell, "rule": rule, "outcome": outcome, "cast": cast})
        return entry

    def last_state(
        self, value: dict[str, Any], states: Collection[str], head: bytes = b""
    ) -> str | None:
        """The state a damaged file still names, if it names a known one; where it is not
        JSON at all, the first `"state_key": "NAME"` of its `head` (its first bytes)."""
        state = value.get(self.state_key)
        if not isinstance(state, str):
            key = re.escape(json.dumps(self.state_key)).encode()
            found = re.search(key + rb'\s*:\s*"([^"\\]{1,200})"', head)
            state = found.group(1).decode("utf-8", "replace") if found else None
        if isinstance(state, str) and state not in states:
            state = self.formerly.get(state)
        return state if isinstance(state, str) and state in states else None
