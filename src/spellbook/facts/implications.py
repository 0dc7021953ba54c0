"""What facts imply and exclude: every fact that must hold when one does (`implied`),
whether one implies another (`implies`), and which never hold together (`excludes`).
The compiler's questions, never a cast's."""

from __future__ import annotations

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
    from spellbook.facts.json_values import (  # the compiler's, not a cast's
        ORDER,
        comparison,
        has_value,
    )

    out: list[tuple[str, str, str]] = []
    stack = [(probe, file, param)]
    while stack:
        name, arg, detail = stack.pop()
        found = [(p, arg, _implied_param(name, p, detail)) for p in PROBES[name].implies]
        if name == "field" and detail.endswith("]") and "[" in detail:
            found.append(("field", arg, detail[: detail.rindex("[")]))
        if name == "value":
            query, op, operand = comparison(detail)
            # Text a pattern matches that cannot match "" is a value too.
            if (
                op in ORDER
                or (op == "=" and has_value(operand))
                or (op == "~" and not _matches_nothing_too(str(operand)))
            ):
                found.append(("field", arg, query))
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
    # A section is found by its words in any case (`sections.has_section`): the same
    # words in another case are the same section, and a heading with "Risks" in it has
    # "Risk" in it too.
    if kind == "section" == other:
        return b[2].lower() in a[2].lower()
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
    if {kind, other} == {"count_at_least", "field"}:
        # What a filter keeps is an object with the filter's key, so a value: one is there
        # exactly when the query has a value.
        count, _, query = (a if kind == "count_at_least" else b)[2].partition(" ")
        field = (b if kind == "count_at_least" else a)[2]
        least = count.isdigit() and (int(count) >= 1 if kind == "count_at_least" else count == "1")
        return least and query == field and query.endswith("]")
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
