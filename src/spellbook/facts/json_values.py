"""JSON values as facts see them: what a query selects, and how a value compares.

Queries: keys joined by dots, each optionally followed by filters on list items,
`[key=value]` or `[key!=value]` (an item without the key is `!=` every value; `true`,
`false` and `null` are JSON's, never the text); `$name` in a value is the state file's
field `name`. A query also names the one place an action writes (`place`): each filter
keeps exactly one item there. Comparisons (the `value` probe): by order for numbers
only, by JSON's equality, or text matching a regular expression (`spellbook.facts.patterns`).
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any, TypeGuard


# Comparisons of a JSON value (`value`): by order (numbers only), equality, a pattern.
ORDER = ("<", "<=", ">", ">=")
# Each comparison as a condition or a reason says it (`>=` is `≥`).
SIGNS = {"=": "=", "!=": "≠", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}
_COMPARISONS: dict[str, tuple[str, str, object]] = {}


def comparison(param: str) -> tuple[str, str, object]:
    """A `value` fact's parameter: (query, op, operand), read once."""
    found = _COMPARISONS.get(param)
    if found is None:
        try:
            query, op, operand = json.loads(param)
        except (ValueError, TypeError):  # not one the reader writes: compares nothing
            query, op, operand = param, "", None
        found = _COMPARISONS[param] = (str(query), str(op), operand)
    return found


def comparison_param(query: str, op: str, operand: object) -> str:
    """The parameter of the fact that `query`'s values compare so (see `comparison`)."""
    return json.dumps([query, op, operand], ensure_ascii=False)


def said_comparison(op: str, operand: object) -> str:
    """`≥ 2`, `= "done"`, `matching `^1\\.``: a comparison as a condition says it."""
    if op == "~":
        return f"matching `{operand}`"
    return f"{SIGNS.get(op, op)} {json.dumps(operand, ensure_ascii=False)}"


def is_json(name: str) -> bool:
    """Whether a file's values are its JSON (a `.json` file) or, for any other file, its
    YAML frontmatter: the one place that decides it, for facts, actions and the reader."""
    return name.strip("`").endswith(".json")


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(a: object, b: object) -> bool:
    """JSON's equality: `true` is not 1, 1 is 1.0, a list or object is no scalar."""
    if _number(a) and _number(b):
        return a == b
    return type(a) is type(b) and a == b


def compare(value: object, op: str, operand: object) -> bool:
    """Whether a JSON value compares so with the operand: text, `true`, lists and
    objects have no order, and text and numbers match a pattern (a number as Python
    writes it, `1234`, `1.5`, as an action takes it: `borrower: 1234` has a digit;
    `spellbook.facts.patterns`: a pattern RE2 cannot run is the one error, Undefined);
    `true`, `false`, `null`, lists and objects match none."""
    if op == "~":
        if _number(value):
            value = str(value)
        if not isinstance(value, str):
            return False
        from spellbook.facts.patterns import search

        return search(str(operand), value, lines=False)
    if op in ("=", "!="):
        return _same(value, operand) == (op == "=")
    if _number(value) and _number(operand):  # Python orders an int and a float exactly
        if op == "<":
            return value < operand
        if op == "<=":
            return value <= operand
        if op == ">":
            return value > operand
        return op == ">=" and value >= operand
    return False


def each_value(values: list[object]) -> Iterator[object]:
    """The values a query selects, a list's items in place of the list."""
    for value in values:
        if isinstance(value, list):
            yield from value
        else:
            yield value


def count_of(selected: list[object]) -> int:
    """How many values a query selected (`select`), a list's items counted in its place
    (as `each_value` gives them): `tickets[status=open]` counts the open tickets,
    `tickets` the tickets. What is no value (`has_value`: null, false, empty text, lists
    and objects) is not counted: `{"tickets": null}` has no tickets."""
    return sum(1 for found in each_value(selected) if has_value(found))


def narrower(op: str, operand: object, other: str, limit: object) -> bool:
    """Whether every value that compares `op operand` compares `other limit` too."""
    if op == "=":
        return compare(operand, other, limit)  # the value is the operand
    if op == "~":  # what matches is text or a number, never `true`, `false` or `null`
        return other == "!=" and (
            limit is None or isinstance(limit, bool) or not _may_match(operand, limit)
        )
    if op not in ORDER:
        return False
    if other == "!=":  # a number, never one outside the range
        return not _number(limit) or not compare(limit, op, operand)
    if other not in ORDER or not (_number(operand) and _number(limit)):
        return False
    if (op in ("<", "<=")) != (other in ("<", "<=")):
        return False  # a lower bound never implies an upper one, nor the reverse
    if op == other or other in (">=", "<="):
        return compare(operand, "<=" if op in ("<", "<=") else ">=", limit)
    return compare(operand, "<" if op == "<=" else ">", limit)


def _may_match(pattern: object, limit: object) -> bool:
    """Whether text or a number `limit` may match `pattern` (a pattern that cannot run
    may match anything)."""
    from spellbook.records.errors import Undefined

    try:
        return compare(limit, "~", pattern)
    except Undefined:
        return True


# Compiled when first used (`re` keeps it), not when a cast imports this.
_STEP = r"([^.\[\]]+)|\[([^\]=!]+)(!?=)([^\]]*)\]"


def variables(query: str) -> list[str]:
    """The state file's fields a query's filters name (`$name`), in order: `select` reads
    each from the state file, null where it has none."""
    found = []
    for m in re.compile(_STEP).finditer(query):
        wanted = (m.group(4) or "").strip()
        if m.group(1) is None and wanted.startswith("$"):
            found.append(wanted[1:])
    return found


# A string of a value an action adds (`{"id": "$ticket"}`) that is a state file field.
FIELD = r"\$(\w+)"


def fields_in(value: object) -> list[str]:
    """The state file's fields a JSON value an action writes names: each string that is
    `$name` alone, in lists and objects too (`spellbook.verbs.edits` fills them)."""
    if isinstance(value, str):
        m = re.fullmatch(FIELD, value)
        return [m.group(1)] if m else []
    if isinstance(value, list):
        return [name for each in value for name in fields_in(each)]
    if isinstance(value, dict):
        return [name for each in value.values() for name in fields_in(each)]
    return []


def has_value(value: object) -> bool:
    """null, false and empty text, lists and objects are no value; 0 is one."""
    return not (value is None or value is False or value in ("", [], {}))


def _as_json(value: object) -> str:
    """A JSON value as a query writes it: `true`, `null`, `3`, `done`."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return str(value)


def _kept(
    found: list[object], field: str, op: str, wanted: str, fields: Mapping[str, object]
) -> list[object]:
    """The objects of `found` (a list's items in its place) a filter `[field op wanted]` keeps."""
    target = wanted.strip()
    if target.startswith("$"):
        target = _as_json(fields.get(target[1:]))
    kept: list[object] = []
    key = field.strip()
    for item in found:
        for each in item if isinstance(item, list) else [item]:
            if not isinstance(each, dict):
                continue
            if key not in each:  # no such key: not `= X`, and so `≠ X`
                if op == "!=":
                    kept.append(each)
                continue
            have = each[key]
            number = _json_number(target) if _number(have) else None
            # a number by its value (0.1 is 0.10 and 1e-1; 1 is 1.0), else as written
            same = have == number if number is not None else _as_json(have) == target
            if target in _LITERALS and not (have is None or isinstance(have, bool)):
                same = False  # `true` is JSON's true, never the text "true"
            if same == (op == "="):
                kept.append(each)
    return kept


def _json_number(text: str) -> int | float | None:
    """A filter's value as a number, where it is one as JSON writes it (compared with a
    number by value, not by how it is written); None for any other (a whole number of
    more digits than Python reads is compared as written)."""
    if re.fullmatch(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?", text, re.ASCII) is None:
        return None
    try:
        number: int | float = json.loads(text)
    except ValueError:
        return None
    return number


# JSON's literals, which a filter's value means as such: `[approved=true]` keeps
# `"approved": true`, not `"approved": "true"`.
_LITERALS = frozenset({"true", "false", "null"})


class NotAList(ValueError):
    """A query met a value other than the list it was written for (an object keyed by
    id, say, or a file that is a list where a key was asked): what it would select is
    not known; the message says where."""


def select(value: object, query: str, fields: Mapping[str, object]) -> list[object]:
    """The values `query` selects in `value` (see the module's docstring); `fields` are
    the state file's, for `$name`. NotAList where a filter meets an object without its
    key, text, a number or `true` in place of a list (`_listed`), or a first key meets a
    file that is a list of no item with that key (`_keyless`): its items are not known,
    and a filter that kept none of them (`iocs[status=open]` over `{"a": {"status":
    "open"}}`) would say there are no open ones."""
    found: list[object] = [value]
    said, filtered = "", False  # the query so far; whether `found` is what a filter kept
    for key, field, op, wanted in _steps(query):
        if key is not None and not said and isinstance(value, list) and _keyless(value, key):
            # `features[...]` over a file that is the list itself: no item has that key
            raise NotAList(
                f"the file is a list, not an object with `{key.strip()}`, so `{query}` "
                "selects nothing in it; write the file as the query reads it, or the query "
                "for what the file holds"
            )
        if key is not None:
            key = key.strip()
            said = f"{said}.{key}" if said else key
            nxt: list[object] = []
            for item in found:
                for each in item if isinstance(item, list) else [item]:
                    if isinstance(each, dict) and key in each:
                        nxt.append(each[key])
            found, filtered = nxt, False
        else:
            step = f"[{field}{op}{wanted}]"
            if not filtered:  # a filter after a filter goes through the items it kept
                _listed(found, said, step, field)
            found, filtered = _kept(found, field, op, wanted, fields), True
            said += step
    return found


def _keyless(items: list[object], key: str) -> bool:
    """Whether a list that is a whole file, with items, has no object of them with `key`
    (`[{"id": "a"}]` read as `features[...]`); a list of items with it (`[{"k": 1}]`, `k`)
    is read item by item."""
    return bool(items) and not any(isinstance(i, dict) and key.strip() in i for i in items)


def _listed(found: list[object], said: str, step: str, key: str) -> None:
    """NotAList unless each of `found`, which the filter `step` (of `key`) goes through,
    is a list (or no value: null, `{}`, which have no items), or one object with the key,
    an item the filter may keep (`ticket[status=done]` over `{"ticket": {"status":
    "done"}}`). An object without the key (a list written as an object keyed by id,
    `{"count": 3}`) and text, a number or `true` are not: what it would keep is unknown."""
    for value in found:
        if not has_value(value) or isinstance(value, list):
            continue  # null, false, "", {}: no items yet
        if isinstance(value, dict) and key.strip() in value:
            continue  # one item, with the filter's key
        name = key.strip()
        keyed = isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())
        kind = (
            f"an object without `{name}` (its items keyed by id?)"
            if keyed
            else f"an object without `{name}`"
            if isinstance(value, dict)
            else json.dumps(value, ensure_ascii=False)
        )
        advice = (
            f'if it is one item whose `{name}` is not set yet, give it `"{name}": null`; '
            "else write the query for what the file holds"
            if isinstance(value, dict) and not keyed
            else "write the query for what the file holds, or make it a list"
        )
        where = f"`{said}`" if said else "the file"
        raise NotAList(
            f"{where} is {kind}, not a list, so the filter `{step}` has no items to keep; {advice}"
        )


def _steps(query: str) -> list[tuple[Any, ...]]:
    """The groups of each step `_STEP` finds in `query`. A query of one key (no `.`, `[`
    or `]`, which the pattern's first alternative takes whole) is that key, told without
    compiling the pattern (0.2 ms of a cold cast whose facts ask for one)."""
    if query and "." not in query and "[" not in query and "]" not in query:
        return [(query, None, None, None)]
    return [m.groups() for m in re.compile(_STEP).finditer(query)]


class Unplaced(ValueError):
    """A query names no one place to write in a JSON value; the message says why."""


def place(value: object, query: str, fields: Mapping[str, object]) -> tuple[dict[str, Any], str]:
    """The one object and key `query` names in `value`, to write there: each key leads
    into an object (the last one may be missing: a write makes it), each filter keeps
    exactly one item of a list (as `select` keeps them). Unplaced says why there is none:
    a key missing on the way, a value that is no object or no list, no item or several."""
    steps = list(re.compile(_STEP).finditer(query))
    here, said = value, ""
    for at, m in enumerate(steps):
        key, field, op, wanted = m.groups()
        if key is not None:
            key = key.strip()
            where = f"`{said}`" if said else "the file"
            if not isinstance(here, dict):
                raise Unplaced(f"{where} is not a JSON object, so it has no key {key!r}")
            said = f"{said}.{key}" if said else key
            if at == len(steps) - 1:
                return here, key
            if key not in here:
                raise Unplaced(f"it has no `{said}`")
            here = here[key]
        else:
            if not isinstance(here, list):
                raise Unplaced(f"`{said}` is not a list, so no item of it has {field.strip()}")
            kept = _kept([here], field, op, wanted, fields)
            variable = wanted.strip()
            if variable.startswith("$") and fields.get(variable[1:]) is None:
                raise Unplaced(
                    f"{variable[1:]} is not set in the state file, so `{said}{m.group(0)}` "
                    "names no item"
                )
            if len(kept) != 1:
                shown = f"{_as_json(fields.get(variable[1:]))} (`{variable}`)"
                filtered = shown if variable.startswith("$") else variable
                how = f"{len(kept)} items" if kept else "no item"
                raise Unplaced(
                    f"{how} of `{said}` {'have' if kept else 'has'} {field.strip()} "
                    f"{SIGNS.get(op, op)} {filtered}, where one is meant"
                )
            here = kept[0]
            said += m.group(0)
    raise Unplaced(f"`{query}` names no key to write")
