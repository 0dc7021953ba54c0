"""The generic core: every kind of fact a guard can ask about a workspace, one `Probe` each.

A fact is a probe applied to a file (named relative to the workspace folder) and
a parameter. Each `Probe` record in `PROBES` holds all that is known of its kind:
its words, its meaning, the facts it implies, whether it reads the file's
content, and its check. The compiler reads the words, meanings and implications
from here (`PROBES`, `implied`, `implies`, `describe`); the runtime answers the
checks with `spellbook.facts.Facts`. A workflow's own words for facts are
defined in its vocabulary module (`spellbook.vocabularies`), and a spec's in its
Terms table, always in terms of these probes.

Checklists (`items`, `unchecked`): a section is a heading whose words contain
the parameter, up to the next heading of the same or a higher level; its items
are `- [ ]` / `- [x]` lines (`*`, `+` and `1.` bullets too) outside code fences.
An item with no text, or with the text of an item of the file's own template, is
not counted: a fresh file made from its template has no items yet.

Ledgers (`unlisted`): the parameter is the ledger file and the pattern, joined by one
space (a file name has none): some match of the pattern in the file is not a line of
the ledger. `record` (`spellbook.actions`) appends them to it.

Queries (`field`): keys joined by dots, each optionally followed by filters on
list items, `[key=value]` or `[key!=value]`; `$name` in a value is the state
file's field `name`. `items[status=open][id!=$current]` selects the open items
other than the state file's current one.
"""

from __future__ import annotations

import json
import re
import time

from spellbook.errors import Undefined

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Protocol

    from spellbook.state_file import Record

    class Answers(Protocol):
        """What a probe's check asks of the workspace (`spellbook.facts.Facts` answers)."""

        record: Record
        template: Callable[[str], str] | None

        def exists(self, name: str) -> bool: ...

        def text(self, name: str) -> str: ...

        def json(self, name: str) -> object: ...

        def items(self, name: str, section: str) -> list[bool]: ...

        def status(self, name: str, key: str) -> int: ...

    Check = Callable[[Answers, str, str], bool]


class Probe:
    """A kind of fact: its words when it holds and when not, its meaning, its check, the
    probes it implies for the same file (`exists` for every probe that reads a file),
    and whether it reads the file's content. What a probe that reads the content says
    of a missing file ("plan.md has no unchecked criteria") holds for want of the
    file: it is no evidence of a state."""

    __slots__ = ("name", "yes", "no", "meaning", "check", "implies", "reads_content")

    def __init__(
        self,
        name: str,
        yes: str,
        no: str,
        meaning: str,
        check: Check,
        implies: tuple[str, ...] = (),
        reads_content: bool = False,
    ) -> None:
        self.name = name
        self.yes = yes
        self.no = no
        self.meaning = meaning
        self.check = check
        self.implies = implies
        self.reads_content = reads_content


def _exists(facts: Answers, file: str, _: str) -> bool:
    return facts.exists(file)


def _matches(facts: Answers, file: str, pattern: str) -> bool:
    # A missing file matches nothing, not even a pattern that an empty text would.
    return facts.exists(file) and re.search(pattern, facts.text(file), re.MULTILINE) is not None


def _items(facts: Answers, file: str, section: str) -> bool:
    return bool(facts.items(file, section))


def _unchecked(facts: Answers, file: str, section: str) -> bool:
    return not all(facts.items(file, section))


def _edited(facts: Answers, file: str, _: str) -> bool:
    if not facts.exists(file):
        return False
    template = facts.template(file) if facts.template is not None else ""
    text = facts.text(file).lstrip("\ufeff")  # a byte order mark is no edit
    return not template.strip() or text.split() != template.lstrip("\ufeff").split()


def _field(facts: Answers, file: str, query: str) -> bool:
    return any(_has_value(v) for v in select(facts.json(file), query, facts.record.extra))


def _below(facts: Answers, _: str, param: str) -> bool:
    counter, _, limit = param.partition("<")
    value = facts.record.extra.get(counter)
    if value is None:  # not counted yet
        value = 0
    return isinstance(value, int) and not isinstance(value, bool) and value < int(limit)


def _over_minutes(facts: Answers, _: str, minutes: str) -> bool:
    entered = facts.record.extra.get("entered_at")
    if not isinstance(entered, str):
        return False
    import calendar  # imports datetime and locale: only for this probe

    try:
        since = calendar.timegm(time.strptime(entered[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return False
    return time.time() - since > int(minutes) * 60


def _unlisted(facts: Answers, file: str, param: str) -> bool:
    ledger, _, pattern = param.partition(" ")
    if not facts.exists(file):
        return False
    return bool(unlisted_matches(facts.text(file), pattern, facts.text(ledger)))


def entry(text: str) -> str:
    """A match as a ledger line: its words joined by one space."""
    return " ".join(text.split())


def listed_lines(text: str) -> set[str]:
    """The entries of a ledger: its lines that are not empty."""
    return {entry(line) for line in text.splitlines() if line.strip()}


def unlisted_matches(text: str, pattern: str, ledger: str) -> list[str]:
    """The matches of `pattern` in `text` that the ledger's text does not list, once
    each, in the order they are found."""
    listed = listed_lines(ledger)
    found: dict[str, None] = {}
    for m in re.finditer(pattern, text, re.MULTILINE):
        line = entry(m.group())
        if line and line not in listed:
            found.setdefault(line, None)
    return list(found)


def _passes(facts: Answers, file: str, key: str) -> bool:
    return facts.status(file, key) == 0


def _unknown(facts: Answers, _: str, phrase: str) -> bool:
    raise Undefined(
        f"the spec's condition {phrase!r} is not defined, so no guard can check it; "
        "define it in the spec's Terms table"
    )


PROBES: dict[str, Probe] = {
    p.name: p
    for p in (
        Probe(
            "exists",
            "{file} exists",
            "{file} missing",
            "The file exists in the workspace folder.",
            _exists,
        ),
        Probe(
            "matches",
            "{file} matches `{param}`",
            "{file} does not match `{param}`",
            "Some line of the file matches the regular expression.",
            _matches,
            ("exists",),
            reads_content=True,
        ),
        Probe(
            "items",
            "{file} has checklist items under {param}",
            "{file} has no checklist items under {param}",
            "The file's section with this heading has a checklist item (`- [ ]` or `- [x]`) "
            "that is not empty and not its template's own.",
            _items,
            ("exists",),
            reads_content=True,
        ),
        Probe(
            "unchecked",
            "{file} has unchecked items under {param}",
            "{file} has no unchecked items under {param}",
            "The file's section with this heading has an unchecked item (`- [ ]`) that is "
            "not empty and not its template's own.",
            _unchecked,
            ("items",),
            reads_content=True,
        ),
        Probe(
            "edited",
            "{file} is filled in",
            "{file} is still its template",
            "The file exists and is not its template left as it was (the vocabulary's "
            "template for it, whitespace aside); a file without a template is filled in "
            "once it exists.",
            _edited,
            ("exists",),
            reads_content=True,
        ),
        Probe(
            "field",
            "{file} has `{param}`",
            "{file} has no `{param}`",
            "The query selects a value in the JSON file.",
            _field,
            ("exists",),
            reads_content=True,
        ),
        Probe(
            "unlisted",
            "{file} has matches of `{pattern}` not listed in {ledger}",
            "every match of `{pattern}` in {file} is listed in {ledger}",
            "Some match of the regular expression in the file is not a line of the ledger "
            "file (a missing ledger lists nothing): the ledger records what was processed.",
            _unlisted,
            ("matches",),
            reads_content=True,
        ),
        Probe(
            "below",
            "{counter} < {limit}",
            "{counter} ≥ {limit}",
            "A counter of the state file is below the limit.",
            _below,
        ),
        Probe(
            "over_minutes",
            "in this state for more than {param} minutes",
            "in this state for {param} minutes or less",
            "The current state was entered (`entered_at` in the state file) more than so many "
            "minutes ago.",
            _over_minutes,
        ),
        Probe(
            "passes",
            "the command `{param}` of {file} passes",
            "the command `{param}` of {file} fails",
            "The command exits with status 0: the environment variable SPELLBOOK_<KEY> if set, "
            "else the text under the key in the JSON file. It is run, not judged.",
            _passes,
        ),
        Probe(
            "unknown",
            "'{param}' holds",
            "'{param}' does not hold",
            "A phrase the spec does not define; no guard can check it.",
            _unknown,
        ),
    )
}


def implied(probe: str, file: str, param: str) -> list[tuple[str, str, str]]:
    """Every fact that must hold when this one does (transitively), excluding itself.

    A query with more filters implies the same query with fewer:
    `items[status=open][id!=$x]` implies `items[status=open]`.
    """
    out: list[tuple[str, str, str]] = []
    stack = [(probe, file, param)]
    while stack:
        name, arg, detail = stack.pop()
        found = [(p, arg, _implied_param(name, p, detail)) for p in PROBES[name].implies]
        if name == "field" and detail.endswith("]") and "[" in detail:
            found.append(("field", arg, detail[: detail.rindex("[")]))
        for fact in found:
            if fact not in out:
                out.append(fact)
                stack.append(fact)
    return out


def _implied_param(probe: str, implied: str, param: str) -> str:
    """The parameter of a fact `probe` implies: a checklist's section stays; a ledger's
    pattern is the `matches` it implies; existence has none."""
    if implied in ("items", "unchecked"):
        return param
    if probe == "unlisted" and implied == "matches":
        return param.partition(" ")[2]
    return ""


def implies(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """Whether fact `b` must hold when fact `a` does, for two limits of one measure:
    `attempts < 3` implies `attempts < 5`; more than 30 minutes implies more than 10."""
    if a[0] != b[0] or a == b:
        return False
    if a[0] == "below":
        counter, _, limit = a[2].partition("<")
        other, _, other_limit = b[2].partition("<")
        return (
            counter == other
            and limit.isdigit()
            and other_limit.isdigit()
            and (int(limit) <= int(other_limit))
        )
    if a[0] == "over_minutes":
        return a[2].isdigit() and b[2].isdigit() and int(a[2]) >= int(b[2])
    return False


def describe(probe: str, file: str, param: str, positive: bool) -> str:
    """The fact in the core's plain words, e.g. `plan.md exists` or `task.md missing`."""
    words = PROBES[probe].yes if positive else PROBES[probe].no
    counter, _, limit = param.partition("<")
    ledger, _, pattern = param.partition(" ")
    return words.format(
        file=file, param=param, counter=counter, limit=limit, ledger=ledger, pattern=pattern
    )


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, read without a regular expression."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    return level, rest.strip().rstrip("#").strip()


def _item(line: str) -> tuple[bool, str] | None:
    """(checked, text) of a checklist item's line (`- [ ] text`, `1. [x] text`: a `-`, `*`
    or `+` bullet, or up to 9 digits and `.` or `)`), read without a regular expression."""
    rest = line.lstrip(" \t")
    if rest[:1] in ("-", "*", "+"):
        rest = rest[1:]
    else:
        digits = 0
        while digits < len(rest) and rest[digits].isdecimal():
            digits += 1
        if not 1 <= digits <= 9 or rest[digits : digits + 1] not in (".", ")"):
            return None
        rest = rest[digits + 1 :]
    box = rest.lstrip(" \t")
    if len(box) == len(rest) or box[:1] != "[" or box[2:3] != "]":
        return None
    if box[1:2] not in (" ", "x", "X"):
        return None
    return box[1] != " ", box[3:]


# Compiled when first used (`re` keeps it), not when a cast imports this.
_STEP = r"([^.\[\]]+)|\[([^\]=!]+)(!?=)([^\]]*)\]"


def checklist(text: str, section: str) -> list[tuple[bool, str]]:
    """The checklist items of the section whose heading has `section`'s words:
    (checked, text) each."""
    wanted = section.lower()
    items: list[tuple[bool, str]] = []
    level = 0
    fenced = False
    for line in text.splitlines():
        start = line.lstrip()[:3]
        if start in ("```", "~~~") and len(line) - len(line.lstrip()) <= 3:
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _heading(line)
        if heading is not None:
            depth, title = heading
            if level and depth <= level:
                level = 0
            if not level and wanted in title.lower():
                level = depth
            continue
        if level:
            box = _item(line)
            if box is not None:
                items.append((box[0], " ".join(box[1].split())))
    return items


def real_items(text: str, template: str, section: str) -> list[bool]:
    """The section's real items, checked or not: none empty, none the template's own."""
    own = _own(template, section) if template else frozenset()
    return [done for done, item in checklist(text, section) if item and item not in own]


_OWN: dict[tuple[str, str], frozenset[str]] = {}


def _own(template: str, section: str) -> frozenset[str]:
    """The item texts of a template's section (templates do not change while we run)."""
    found = _OWN.get((template, section))
    if found is None:
        found = _OWN[(template, section)] = frozenset(t for _, t in checklist(template, section))
    return found


def _has_value(value: object) -> bool:
    """null, false and empty text, lists and objects are no value; 0 is one."""
    return not (value is None or value is False or value in ("", [], {}))


def _as_json(value: object) -> str:
    """A JSON value as a query writes it: `true`, `null`, `3`, `done`."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return str(value)


def select(value: object, query: str, fields: Mapping[str, object]) -> list[object]:
    """The values `query` selects in `value` (see the module's docstring); `fields` are
    the state file's, for `$name`."""
    found: list[object] = [value]
    for m in re.compile(_STEP).finditer(query):
        key, field, op, wanted = m.groups()
        if key is not None:
            nxt: list[object] = []
            for item in found:
                for each in item if isinstance(item, list) else [item]:
                    if isinstance(each, dict) and key.strip() in each:
                        nxt.append(each[key.strip()])
            found = nxt
        else:
            target = wanted.strip()
            if target.startswith("$"):
                target = _as_json(fields.get(target[1:]))
            nxt = []
            for item in found:
                for each in item if isinstance(item, list) else [item]:
                    if isinstance(each, dict) and field.strip() in each:
                        same = _as_json(each[field.strip()]) == target
                        if same == (op == "="):
                            nxt.append(each)
            found = nxt
    return found
