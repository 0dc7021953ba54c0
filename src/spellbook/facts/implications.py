"""What facts imply and exclude: every fact that must hold when one does (`implied`),
whether one implies another (`implies`), which never hold together (`excludes`), and
which hold together only where a JSON query selects a list or several values
(`needs_several`). The compiler's questions, never a cast's."""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise

from spellbook.facts.ledgers import ledger_parts
from spellbook.facts.probes import PROBES
from spellbook.records.errors import Undefined


def implied(probe: str, file: str, param: str) -> list[tuple[str, str, str]]:
    """Every fact that must hold when this one does (transitively), excluding itself.

    A query with more filters implies the same query with fewer:
    `items[status=open][id!=$x]` implies `items[status=open]`. A comparison that only
    a value can pass implies its query has one (`count ≥ 2`, `approved = true`, text
    matching a pattern that the empty text does not); a
    file newer than another implies both exist.
    """
    from spellbook.facts.json_values import comparison  # the compiler's, not a cast's

    out: list[tuple[str, str, str]] = []
    stack = [(probe, file, param)]
    while stack:
        name, arg, detail = stack.pop()
        found = [(p, arg, _implied_param(name, p, detail)) for p in PROBES[name].implies]
        if name == "field" and detail.endswith("]") and "[" in detail:
            found.append(("field", arg, detail[: detail.rindex("[")]))
        if name == "value" and _only_a_value_passes(detail):
            found.append(("field", arg, comparison(detail)[0]))
        if name == "newer":
            found.append(("exists", detail, ""))
        if name == "newer_some":  # some name matches the glob
            found.append(("glob", "", detail))
        if name == "listed":  # a missing ledger lists nothing
            found.append(("exists", ledger_parts(detail)[0], ""))
        if name in ("unlisted", "listed") and ledger_parts(detail)[2]:
            found.append(("section", arg, ledger_parts(detail)[2]))
        for fact in found:
            if fact not in out:
                out.append(fact)
                stack.append(fact)
    return out


def _only_a_value_passes(param: str) -> bool:
    """Whether only a value (`json_values.has_value`) passes a `value` fact's comparison:
    one by order (a number), equality with a value, text a pattern matches that cannot
    match "" (a number matches as its text, and 0 is a value)."""
    from spellbook.facts.json_values import ORDER, comparison, has_value

    _, op, operand = comparison(param)
    return (
        op in ORDER
        or (op == "=" and has_value(operand))
        or (op == "~" and not _matches_nothing_too(str(operand)))
    )


def _matches_nothing_too(pattern: str) -> bool:
    """Whether a value's pattern matches the empty text (a pattern that cannot run says
    nothing of it)."""
    from spellbook.facts.patterns import search

    try:
        return search(pattern, "", lines=False)
    except Undefined:
        return True


def _implied_param(probe: str, implied: str, param: str) -> str:
    """The parameter of a fact `probe` implies: a checklist's section stays (a count's
    section is after the count); a ledger's pattern is the `matches` it implies;
    existence has none."""
    if implied in ("items", "unchecked", "section"):
        return param.partition(" ")[2] if probe.endswith("_at_least") else param
    if probe in ("unlisted", "listed") and implied == "matches":
        return ledger_parts(param)[1]
    return ""


def implies(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """Whether fact `b` must hold when fact `a` does, beyond what `implied` lists: two
    limits of one measure (`attempts < 3` implies `attempts < 5`; more than 30 minutes
    implies more than 10; at least 3 items under a heading imply at least 2; `count ≥ 3`
    implies `count ≥ 2`; at least 3 `tickets[status=open]` imply at least 2
    `tickets`), and facts that say more of the same thing (at least 3
    unchecked items are at least 3 items; a checklist item is text; a file that exists
    matches the globs its path does; a glob that names fewer files than another)."""
    from spellbook.facts.json_values import comparison, narrower

    if a == b:
        return False
    kind, other = a[0], b[0]
    if kind == "below" == other:
        counter, _, limit = a[2].partition("<")
        name, _, other_limit = b[2].partition("<")
        return (
            counter == name
            and limit.isdigit()
            and other_limit.isdigit()
            and (int(limit) <= int(other_limit))
        )
    if kind == "over_minutes" == other:
        return a[2].isdigit() and b[2].isdigit() and int(a[2]) >= int(b[2])
    if kind == "glob" == other:
        from spellbook.facts.globs import glob_within  # only a spec with globs needs it

        return glob_within(a[2], b[2])
    if kind == "exists" and other == "glob":
        from spellbook.facts.globs import glob_path

        return glob_path(a[1], b[2])
    if a[1] != b[1]:
        return False
    if kind == "value" == other:
        query, op, operand = comparison(a[2])
        same, other_op, other_operand = comparison(b[2])
        return query == same and narrower(op, operand, other_op, other_operand)
    # A section is found by its words in any case (`sections.titled`): the same words in
    # another case are the same section, and a heading with "Known Risks" in it has
    # "Risks" and "Risk" in it too.
    if kind == "section" == other:
        from spellbook.facts.sections import titled

        return titled(a[2], b[2])
    if kind == other and kind in ("items", "unchecked", "section_text"):
        return a[2].lower() == b[2].lower()
    if kind == "items" and other == "section_text":
        return a[2].lower() == b[2].lower()
    if kind == "count_at_least" == other:
        return _fewer_of_more(a[2], b[2])
    if kind == other and kind in ("unlisted", "listed"):
        # A match under a section is a match of the file: scoped implies the whole file.
        ledger, pattern, section = ledger_parts(a[2])
        return bool(section) and ledger_parts(b[2]) == (ledger, pattern, "")
    if kind == "count_at_least" and other in ("field", "value"):
        return _counted(a[2], b)
    if {kind, other} == {"count_at_least", "field"}:
        # What a filter keeps is an object with the filter's key, so a value: one is there
        # exactly when the query has a value.
        count, _, query = b[2].partition(" ")
        return count == "1" and query == a[2] and query.endswith("]")
    if kind == "value" and other == "count_at_least":
        # A value that passes is counted.
        count, _, query = b[2].partition(" ")
        return count == "1" and query == comparison(a[2])[0] and _only_a_value_passes(a[2])
    if kind in _CHECKLIST_COUNTS and other in ("items_at_least", kind):
        count, _, section = a[2].partition(" ")
        fewer, _, same_section = b[2].partition(" ")
        return (
            section.lower() == same_section.lower()
            and count.isdigit()
            and fewer.isdigit()
            and int(count) >= int(fewer)
        )
    return False


def _counted(param: str, fact: tuple[str, str, str]) -> bool:
    """Whether at least `param`'s count of its query implies `fact` of the same query:
    a value counted is an item of a value the query selects (or that value), so the
    query has a value; and it is not null, false or empty text, so some value differs
    from each of those."""
    from spellbook.facts.json_values import comparison, has_value

    count, _, query = param.partition(" ")
    if not (count.isdigit() and int(count) >= 1):
        return False
    if fact[0] == "field":
        return fact[2] == query
    same, op, operand = comparison(fact[2])
    return same == query and op == "!=" and not has_value(operand)


# Counts of a section's checklist items: `items_at_least` counts them all.
_CHECKLIST_COUNTS = ("items_at_least", "unchecked_at_least", "checked_at_least")


def _fewer_of_more(more: str, fewer: str) -> bool:
    """Whether at least `more`'s count of its query implies at least `fewer`'s of its own:
    a count no larger, of the same query or of it with fewer filters at its end
    (`tickets[status=open]` selects no more than `tickets` counts)."""
    count, _, query = more.partition(" ")
    least, _, other = fewer.partition(" ")
    if not (count.isdigit() and least.isdigit() and int(count) >= int(least)):
        return False
    import re  # the compiler's question, never a cast's

    rest = query[len(other) :]
    return query.startswith(other) and re.fullmatch(r"(?:\[[^\[\]]*\])*", rest) is not None


def excludes(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """Whether facts `a` and `b` never hold together: F newer than G, and G newer than F."""
    return a[0] == b[0] == "newer" and (a[1], a[2]) == (b[2], b[1])


# Facts of a JSON query, as `PROBES[...].query` reads their query.
_QUERY_FACTS = ("field", "value", "count_at_least")


@lru_cache(maxsize=4096)  # asked for each pair of a cell's facts of one query
def needs_several(a: tuple[str, str, str], held: bool, b: tuple[str, str, str], also: bool) -> bool:
    """Whether facts `a` and `b` of one JSON query, `a` holding or not as `held` says and
    `b` as `also` says, can be so together only where the query selects a list or several
    values: never where it selects one value that is no list, or none. `F has `k`` and
    `F has `k` = ""` both hold of `k: ["", "x"]` (a list is a value, and an item of it is
    ""), never of one value: the verifier keeps such worlds, for they can be, and says
    what they take. A pattern is looked into only against one value or no value (any
    text could match it): elsewhere its fact is taken to be either way."""
    if a[1] != b[1] or a[0] not in _QUERY_FACTS or b[0] not in _QUERY_FACTS:
        return False
    if PROBES[a[0]].query(a[2]) != PROBES[b[0]].query(b[2]):  # type: ignore[misc]
        return False
    # A pattern is looked into only where the other fact leaves a few values to try: it
    # is one value, or no value (null, false, empty text, an empty object, or none).
    exact = _few(b, also) if _is_pattern(a) else _few(a, held)
    for value in _one_values(a, b):
        first, second = _of_one(a, value, exact), _of_one(b, value, exact)
        if _STOPS not in (first, second) and first in (held, None) and second in (also, None):
            return False
    return True


# No value selected (the file or the key missing), as `_one_values` lists it; where
# a cast stops (`_of_one`).
_NONE, _STOPS = object(), object()


def _one_values(*facts: tuple[str, str, str]) -> list[object]:
    """A value that is no list (or none) for each way the facts can tell values apart:
    none, null, `true`, `false`, empty text, objects empty or not, each operand, text
    that is none of them, and numbers around and between the operands."""
    from spellbook.facts.json_values import comparison

    operands = [comparison(f[2])[2] for f in facts if f[0] == "value"]
    texts = [o for o in operands if isinstance(o, str)]
    numbers = sorted(o for o in operands if isinstance(o, (int, float)) and not isinstance(o, bool))
    found: list[object] = [_NONE, None, True, False, "", {}, {"": 1}, 0, 1, *operands]
    found.append("-" * (max(map(len, texts), default=0) + 1))  # text no operand is
    for n in numbers:
        found += [n - 1, n - 0.5, n + 0.5, n + 1]
    found += [(x + y) / 2 for x, y in pairwise(numbers)]
    return found


def _is_pattern(fact: tuple[str, str, str]) -> bool:
    from spellbook.facts.json_values import comparison

    return fact[0] == "value" and comparison(fact[2])[1] == "~"


def _few(fact: tuple[str, str, str], held: bool) -> bool:
    """Whether the fact, held or not as said, leaves a query only values `_one_values`
    lists all of: one (`= "x"`), or no value (it has none, or counts none)."""
    from spellbook.facts.json_values import comparison

    if fact[0] == "value":
        return held and comparison(fact[2])[1] == "="
    return not held and (fact[0] == "field" or fact[2].startswith("1 "))


def _of_one(fact: tuple[str, str, str], one: object, patterns: bool) -> object:
    """Whether the fact holds where its query selects `one` (a value that is no list, or
    `_NONE`): None for a pattern unless `patterns` says to look into it, `_STOPS` where
    the cast stops (an object compared with a number or `true`)."""
    from spellbook.facts.json_values import ORDER, compare, comparison, has_value

    there = one is not _NONE and has_value(one)
    if fact[0] == "field":
        return there
    if fact[0] == "count_at_least":
        count = fact[2].partition(" ")[0]
        return count.isdigit() and int(there) >= int(count)
    _, op, operand = comparison(fact[2])
    if op == "~" and not patterns:
        return None
    if one is _NONE:
        return False
    typed = op in ORDER or isinstance(operand, (bool, int, float))
    if typed and isinstance(one, dict):
        return _STOPS
    try:
        return compare(one, op, operand)
    except Undefined:  # a pattern that cannot run: not looked into
        return None
