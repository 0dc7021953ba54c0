"""Facts in the core's plain words (`describe`): `plan.md exists`, `task.md missing`, a
file as a condition names it, a time in a state in its largest whole unit."""

from __future__ import annotations

from spellbook.facts.ledgers import ledger_parts
from spellbook.facts.probes import PROBES


def describe(probe: str, file: str, param: str, positive: bool, absent: bool = False) -> str:
    """The fact in the core's plain words, e.g. `plan.md exists` or `task.md missing`;
    with `absent`, a fact about a section that does not hold of the section that is
    there (`Probe.absent`)."""
    from spellbook.facts.json_values import comparison, is_json, said_comparison

    kind = PROBES[probe]
    words = kind.yes if positive else (kind.absent if absent and kind.absent else kind.no)
    counter, _, limit = param.partition("<")
    ledger, _, pattern = param.partition(" ")
    # Files as a condition names them (`named`), so that the words read back as the fact.
    fields = {"counter": counter, "limit": limit, "ledger": named(ledger), "pattern": pattern}
    fields["scope"] = ""  # a ledger's section
    fields.update(count=ledger, section=pattern, duration="", query="", comparison="")
    fields.update(first=ledger, second=pattern)  # a pair of globs
    fields["other"] = named(param)
    if probe in ("unlisted", "listed"):
        ledger, pattern, section = ledger_parts(param)
        fields.update(ledger=named(ledger), pattern=pattern, section=section)
        fields["scope"] = f' under "{section}"' if section else ""
        if section and not positive and not absent:  # the negation alone: F may lack S
            words = _SCOPED_NO[probe]
    if probe == "over_minutes" and param.isdigit():
        fields["duration"] = duration(int(param))
    if probe == "value":
        query, op, operand = comparison(param)
        fields.update(query=query, comparison=said_comparison(op, operand))
    if probe == "count_at_least":
        fields["query"] = pattern
    shown = named(file)
    if probe in ("field", "value", "count_at_least") and not is_json(file):
        shown += " frontmatter"  # a Markdown file's keys are its frontmatter's
    if probe in ("matches", "unlisted", "listed"):  # a vocabulary's pattern, as its author wrote it
        from spellbook.facts.patterns import shown as written

        param, fields["pattern"] = written(param), written(fields["pattern"])
    for name in ("param", "pattern", "query"):  # a value with a backtick, in quotes
        value = param if name == "param" else fields[name]
        if "`" in value and f"`{{{name}}}`" in words:
            left, right = ('"', '"') if '"' not in value else ("“", "”")
            words = words.replace(f"`{{{name}}}`", f"{left}{{{name}}}{right}")
    said = words.format(file=shown, param=param, **fields)
    # One item is an item: `at least 1 checked item under "Risks"`.
    if fields["count"] == "1":
        said = said.replace(" items under ", " item under ")
        if probe.endswith("_at_least") and said.endswith(" items"):
            said = said[:-1]  # `no section "Risks" with at least 1 checked item`
    return said


# A ledger fact scoped to a section, not holding, said alone (the section may be missing).
_SCOPED_NO = {
    "unlisted": '{file} has no section "{section}" with matches of `{pattern}` not listed in '
    "{ledger}",
    "listed": '{file} has no section "{section}" with matches of `{pattern}` listed in {ledger}',
}


def several(file: str, query: str) -> str:
    """What a world whose facts of a JSON query hold together only of several values
    takes (`implications.needs_several`): `reviewer` is a list. A key of frontmatter (a
    mapping) is one value; elsewhere a query may select several."""
    from spellbook.facts.json_values import is_json

    one = not is_json(file) and not any(c in query for c in ".[]")
    return f"`{query}` is a list" + ("" if one else " or selects several values")


def named(file: str) -> str:
    """A file's name as a condition writes it: bare where the reader takes it so
    (`plan.md`, `docs/a.md`), else in backticks (`VERSION`, `.refs`, `notes/`)."""
    import re

    plain = re.fullmatch(r"[\w.\-/]*\w\.\w[\w\-]*", file)
    return file if plain or not file else f"`{file}`"


# Units of time in a state, in minutes, the largest first.
UNITS = (("week", 10080), ("day", 1440), ("hour", 60), ("minute", 1))


def duration(minutes: int) -> str:
    """Minutes in the largest unit that counts them whole: `2 days`, `90 minutes`."""
    for unit, size in UNITS:
        if (minutes and minutes % size == 0) or size == 1:
            count = minutes // size
            return f"{count} {unit}{'' if count == 1 else 's'}"
    raise AssertionError  # pragma: no cover - minutes count every number
