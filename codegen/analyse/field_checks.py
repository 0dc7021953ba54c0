"""Checks of the state file's fields that conditions read: each must be set by something.

A counter (`attempts < 3`), a `$name` in a query (`tickets[id!=$ticket]`) and
the recorded run of a command (`the last run of `test_command` passed`) are read from
the state file. Casts write them: an action that counts or sets the field
(`Increment attempts`, `Reset attempts`, ``Set `ticket` in the state file to ...``,
a vocabulary verb's `writes`), the runtime
itself (`entered_at`, the record of a command a condition runs), or the State
Persistence example shows the field. A field none of them writes keeps the value a new
state file gives it (0, null, no run) for ever.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from spellbook.facts.json_values import fields_in, variables
from spellbook.facts.probes import PROBES

from ..logic import describe
from ..model import ActionSpec, LiteralSpec, RuleRow, Spec
from .analysis import Analysis
from .findings import Finding


@dataclass(frozen=True)
class _Read:
    """A field of the state file that one literal of a row's condition reads."""

    field: str
    how: str  # "counter", "variable" or "run"
    literal: LiteralSpec


def _reads(row: RuleRow) -> Iterator[_Read]:
    for lit in row.condition.literals:
        atom = lit.atom
        if atom.probe == "below":
            yield _Read(atom.param.partition("<")[0], "counter", lit)
        elif (query_of := PROBES[atom.probe].query) is not None:
            for name in dict.fromkeys(variables(query_of(atom.param))):
                yield _Read(name, "variable", lit)
        elif atom.probe == "last_passed":
            yield _Read(atom.param, "run", lit)


def _action_reads(row: RuleRow) -> Iterator[tuple[int, ActionSpec, str]]:
    """The state file's fields the row's JSON actions read: the `$name`s of a query's
    filters (`tickets[id=$ticket].status`) and of an appended value; with the
    action's number in the cell."""
    for index, action in enumerate(row.actions, start=1):
        if action.verb in ("set_field", "append_item") and action.target.startswith("["):
            query, value = json.loads(action.target)
            names = variables(query) + fields_in(value)
            for name in dict.fromkeys(names):
                yield index, action, name


def _set(spec: Spec) -> tuple[set[str], set[str], set[str]]:
    """The fields some action writes, the counters some action counts, and the commands
    some condition runs (whose runs the runtime records)."""
    written: set[str] = set()
    counted: set[str] = set()
    ran: set[str] = set()
    for row in spec.rows:
        for action in row.actions:
            written.update(action.writes)
            if action.verb == "increment":
                counted.add(action.target)
        ran.update(a.param for a in row.condition.atoms if a.probe == "passes")
    return written, counted, ran


def check_fields(analysis: Analysis) -> Iterator[Finding]:
    """A state-file field that a condition reads and nothing sets (`undefined_field`);
    a counter that rules compare and no action counts (`never_counted`), and a `$name`
    that only the State Persistence example shows (`never_set`)."""
    spec = analysis.spec
    if spec.own_guards or spec.callbacks:
        return  # no state file: a fact of the core there is an `own_code` error already
    written, counted, ran = _set(spec)
    declared = set(spec.schema.fields)
    # What the runtime writes itself: the time the state was entered (where the State
    # Persistence example shows it, or a condition asks it), the runs of commands.
    timed = any(a.probe == "over_minutes" for row in spec.rows for a in row.condition.atoms)
    runtime = {"entered_at"} & declared | ({"entered_at"} if timed else set())
    runtime |= {"runs"} if ran else set()
    declared |= runtime
    compared: dict[str, list[RuleRow]] = {}  # counters some action or the example sets
    shown: dict[str, list[RuleRow]] = {}  # other fields only the example shows
    read_anywhere = set(spec.schema.fields)
    for row in spec.rows:
        seen: set[tuple[str, str]] = set()
        for read in _reads(row):
            read_anywhere.add(read.field)
            if (read.field, read.how) in seen:
                continue
            seen.add((read.field, read.how))
            if read.how == "run":
                if read.field not in ran:
                    yield _no_run(row, read, spec)
                continue
            if read.field not in written and read.field not in declared:
                yield _undefined(row, read, spec)
            elif read.how == "counter":
                compared.setdefault(read.field, []).append(row)
            elif read.field not in written and read.field not in runtime:
                shown.setdefault(read.field, []).append(row)
        for index, action, name in _action_reads(row):
            read_anywhere.add(name)
            if name not in written and name not in declared:
                yield _undefined_for_action(row, index, action, name)
    for counter, rows in compared.items():
        if counter not in counted:
            yield _never_counted(counter, rows)
    yield from _unread_counters(spec, read_anywhere)
    for name, rows in shown.items():
        yield _never_set(name, rows)


_WORD = re.compile(r"\w+")


def _unread_counters(spec: Spec, read: set[str]) -> Iterator[Finding]:
    """A counter an action counts or sets (`Increment X`, `Reset X`) that no condition
    reads and the State Persistence example does not show: nothing ever asks it, so
    the words were most likely meant for the AI (`Reset the environment`). A condition
    that names it but cannot be read (`unknown_condition`) may read it once it can."""
    named = {
        word
        for row in spec.rows
        for phrase in row.condition.unknown
        for word in _WORD.findall(phrase)
    }
    read = read | named
    for row in spec.rows:
        for action in row.actions:
            if action.verb not in ("increment", "reset"):
                continue
            counter = action.target.partition("=")[0]
            if counter and counter not in read:
                yield Finding(
                    "unread_counter",
                    f"rule {row.id}: {action.text!r} is read as "
                    f"{'counting' if action.verb == 'increment' else 'setting'} the state "
                    f"file's counter `{counter}`, which no condition reads and the State "
                    "Persistence example does not show, so nothing ever asks it: if the "
                    "words are for the AI, say so in words of its own (`Ask the AI to "
                    f"{action.text[:1].lower() + action.text[1:]}`)",
                    line=row.line,
                    rule=row.id,
                )


def _holds(read: _Read) -> str:
    """Whether the literal always or never holds while its field keeps its first value."""
    if read.how == "counter":
        below = int(read.literal.atom.param.partition("<")[2] or 0) > 0  # 0 < limit
        return "always" if below == read.literal.positive else "never"
    return "never" if read.literal.positive else "always"


def _undefined(row: RuleRow, read: _Read, spec: Spec) -> Finding:
    said = describe(read.literal, spec.words)
    name = read.field
    if name in (spec.schema.state_key, "context", "history"):
        why = (
            f"`{name}` is where the state file keeps its "
            f"{'state' if name == spec.schema.state_key else name}, which no condition reads"
        )
    elif read.how == "counter":
        why = (
            f"no action of the spec counts it (`Increment {name}`) or sets it (`Reset "
            f"{name}`, `Set {name} to 0`), and the State Persistence example does not show it"
        )
    else:
        why = (
            f"no action of the spec sets it (``Set `{name}` in the state file to ...``, or "
            "a vocabulary verb that names it in its `writes`), and the State Persistence "
            "example does not show it"
        )
    if read.how == "counter":
        stays = f"so it stays 0 and `{said}` {_holds(read)} holds"
    else:
        stays = f"so `${name}` is always null there"
    return Finding(
        "undefined_field",
        f"rule {row.id}: its condition reads the state file's "
        f"{'counter' if read.how == 'counter' else 'field'} `{name}` "
        f"(`{said}`), but nothing sets it: {why}, {stays}",
        line=row.line,
        rule=row.id,
    )


def _undefined_for_action(row: RuleRow, index: int, action: ActionSpec, name: str) -> Finding:
    return Finding(
        "undefined_field",
        f"rule {row.id}: action ({index}) ({action.text!r}) reads the state file's field "
        f"`{name}`, but nothing sets it: no action of the spec sets it (``Set `{name}` in "
        "the state file to ...``, or a vocabulary verb that names it in its `writes`), and "
        f"the State Persistence example does not show it, so `${name}` is always null there "
        "and the cast always stops",
        line=row.line,
        rule=row.id,
    )


def _no_run(row: RuleRow, read: _Read, spec: Spec) -> Finding:
    said = describe(read.literal, spec.words)
    key = read.field
    return Finding(
        "undefined_field",
        f"rule {row.id}: `{said}` reads the recorded run of the command `{key}`, but no "
        f"condition of the spec runs it (`the command `{key}` of F.json passes`), so no run "
        f"of it is ever recorded and `{said}` {_holds(read)} holds",
        line=row.line,
        rule=row.id,
    )


def _never_counted(counter: str, rows: list[RuleRow]) -> Finding:
    return Finding(
        "never_counted",
        f"{_rows(rows)} compare{'' if len(rows) > 1 else 's'} the counter `{counter}`, but "
        f"no action of the spec counts it (`Increment {counter}`): it is only ever 0 or "
        "what an action sets it to, never counted up",
        line=rows[0].line,
        rule=rows[0].id,
    )


def _rows(rows: list[RuleRow]) -> str:
    named = ", ".join(r.id for r in rows[:10])
    return f"rule{'s' if len(rows) > 1 else ''} {named}" + (
        f" and {len(rows) - 10} more" if len(rows) > 10 else ""
    )


def _never_set(name: str, rows: list[RuleRow]) -> Finding:
    return Finding(
        "never_set",
        f"{_rows(rows)} read{'' if len(rows) > 1 else 's'} `${name}` from the state file, "
        f"which the State Persistence example shows but no action of the spec sets "
        f"(``Set `{name}` in the state file to ...``, or a vocabulary verb that names it in "
        f"its `writes`): a new state file holds null there and only casts change it, so it "
        "is always null",
        line=rows[0].line,
        rule=rows[0].id,
    )
