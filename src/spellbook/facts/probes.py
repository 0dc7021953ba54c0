"""The generic core: every kind of fact a guard can ask about a workspace, one `Probe` each.

A fact is a probe applied to a file (named relative to the workspace folder, or
from the repository's top with a leading `/`, `/tests/test_a.py`: such a file is only
read, by the same path rules, `store.Workspace.path`) and a parameter. Each `Probe`
record in `PROBES` holds all that is known of its kind:
its words, its meaning, the facts it implies, whether it reads the file's
content, and its check. The compiler reads the words, meanings and implications
from here (`PROBES`, `implied`, `implies`, `describe`); the runtime answers the
checks with `spellbook.facts.answers.Facts`. A workflow's own words for facts are
defined in its vocabulary module (`spellbook.vocabularies`), and a spec's in its
Terms table, always in terms of these probes.

Checklists (`items`, `unchecked`) and text under a heading (`section_text`) are
read by `spellbook.facts.sections`: a section still its template's, untouched, has no
items, and the template's own lines are no text. Each implies the section is there
(`section`); a file without it has neither items nor text, nor "no items".

Globs (`glob`): `*` and `?` within a name, `**` as a whole part for any folders; a
name starting with `.` matches only a part that starts with one. `Workspace.glob`
walks the folder, bounded, entering no symbolic link.

Ledgers (`unlisted`, `listed`): the parameter is the ledger file and the pattern,
joined by one space (a file name has none): some match of the pattern in the file is
not (is) a line of the ledger. `record` (`spellbook.verbs.actions`) appends them to it.
Scoped to a section (`ledger_param`), it is the JSON list `[ledger, pattern, section]`
and only the section's lines are searched (`sections.section_text`); a file without
the section has no matches there, and the fact implies the section.

Pairs of globs (`paired`): the parameter is the two globs joined by one space (a glob
has none), each with one `*` (`globs.partner`): every name the first matches has the
file the second names with the same part in place of its star.

Queries (`field`) and comparisons (`value`) are read by `spellbook.facts.json_values`:
`items[status=open][id!=$current]` selects the open items other than the state
file's current one.

The parameters of the other probes: `value`, a JSON list `[query, op, operand]` (op
one of `=`, `!=`, `<`, `<=`, `>`, `>=`, or `~` for a regular expression the text
must match); `items_at_least` / `unchecked_at_least` / `checked_at_least`, the count
and the section joined by one space (`2 Risks`); `count_at_least`, the count and the
query (`2 tickets[status=open]`); `section_text`, the section; `newer`, the other
file; `glob`, the pattern (with no file); `over_minutes`, whole minutes.
"""

from __future__ import annotations

import time

from spellbook.records.errors import Undefined

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from spellbook.disk.state_file import Record

    class Answers(Protocol):
        """What a probe's check asks of the workspace (`spellbook.facts.answers.Facts` answers)."""

        record: Record
        template: Callable[[str], str] | None

        def exists(self, name: str) -> bool: ...

        def text(self, name: str) -> str: ...

        def json(self, name: str) -> object: ...

        def items(self, name: str, section: str) -> list[bool]: ...

        def status(self, name: str, key: str) -> int: ...

        def lines(self, name: str, section: str) -> list[str]: ...

        def mtime(self, name: str) -> int | None: ...

        def glob(self, pattern: str) -> list[str]: ...

    Check = Callable[[Answers, str, str], bool]


class Probe:
    """A kind of fact: its words when it holds and when not, its meaning, its check, the
    probes it implies for the same file (`exists` for every probe that reads a file,
    `section` for every probe that reads a section), and whether it reads the file's
    content. A probe that reads the content never holds of a missing file, nor one about
    a section of a file without it; its negation does, so the phrases that say "no"
    of a section ("plan.md has no unchecked items under Risks") are read as the
    section being there and the probe not holding."""

    __slots__ = (
        "name",
        "yes",
        "no",
        "meaning",
        "check",
        "implies",
        "reads_content",
        "query",
        "absent",
    )

    def __init__(
        self,
        name: str,
        yes: str,
        no: str,
        meaning: str,
        check: Check,
        implies: tuple[str, ...] = (),
        reads_content: bool = False,
        query: Callable[[str], str] | None = None,
        absent: str = "",
    ) -> None:
        self.name = name
        self.yes = yes
        self.no = no
        self.meaning = meaning
        self.check = check
        self.implies = implies
        self.reads_content = reads_content
        # The JSON query in its parameter, for a kind that reads one (its `$name`s are
        # state-file fields the verifier checks something sets).
        self.query = query
        # For a kind about a section: its words when it does not hold of a section that
        # is there (`plan.md has no unchecked items under "Risks"`), which the reader
        # reads as the section being there and the fact not holding.
        self.absent = absent


def _exists(facts: Answers, file: str, _: str) -> bool:
    return facts.exists(file)


def _matches(facts: Answers, file: str, pattern: str) -> bool:
    # A missing file matches nothing, not even a pattern that an empty text would.
    if not facts.exists(file):
        return False
    from spellbook.facts.patterns import search  # only a spec with patterns runs one

    return search(pattern, facts.text(file))


def _items(facts: Answers, file: str, section: str) -> bool:
    return bool(facts.items(file, section))


def _unchecked(facts: Answers, file: str, section: str) -> bool:
    return not all(facts.items(file, section))


def _edited(facts: Answers, file: str, _: str) -> bool:
    if not facts.exists(file):
        return False
    words = facts.text(file).lstrip("\ufeff").split()  # a byte order mark is no edit
    template = facts.template(file) if facts.template is not None else ""
    return bool(words) and words != template.lstrip("\ufeff").split()


def _section(facts: Answers, file: str, section: str) -> bool:
    from spellbook.facts.sections import has_section  # only a spec with sections needs it

    return facts.exists(file) and has_section(facts.text(file), section)


def _field(facts: Answers, file: str, query: str) -> bool:
    from spellbook.facts.json_values import (  # a spec with no JSON fact needs neither
        has_value,
        select,
    )

    return any(has_value(v) for v in select(facts.json(file), query, facts.record.extra))


def _items_at_least(facts: Answers, file: str, param: str) -> bool:
    count, _, section = param.partition(" ")
    return count.isdigit() and len(facts.items(file, section)) >= int(count)


def _unchecked_at_least(facts: Answers, file: str, param: str) -> bool:
    count, _, section = param.partition(" ")
    return count.isdigit() and facts.items(file, section).count(False) >= int(count)


def _checked_at_least(facts: Answers, file: str, param: str) -> bool:
    count, _, section = param.partition(" ")
    return count.isdigit() and facts.items(file, section).count(True) >= int(count)


def _count_at_least(facts: Answers, file: str, param: str) -> bool:
    from spellbook.facts.json_values import count_of  # a spec with no count needs none of it

    count, _, query = param.partition(" ")
    found = count_of(facts.json(file), query, facts.record.extra)
    return count.isdigit() and found >= int(count)


def _section_text(facts: Answers, file: str, section: str) -> bool:
    return bool(facts.lines(file, section))


def _value(facts: Answers, file: str, param: str) -> bool:
    from spellbook.facts.json_values import (
        ORDER,
        compare,
        comparison,
        each_value,
        said_comparison,
        select,
    )

    query, op, operand = comparison(param)
    found = select(facts.json(file), query, facts.record.extra)
    typed = op in ORDER or isinstance(operand, (bool, int, float))
    for value in each_value(found):
        if typed and isinstance(value, (dict, list)):
            # Objects (or lists in a list) never compare with a number or `true`: the
            # words meant something the file does not hold, most likely a count.
            from spellbook.records.errors import BadFile

            held = "objects" if isinstance(value, dict) else "lists"
            raise BadFile(
                f"{file}: `{query}` holds {held}, which are never {said_comparison(op, operand)}; "
                f"to count them, write `count of {query} in {file} ≥ N`, or name a key of "
                f"each (`{query}.KEY`)"
            )
    return any(compare(v, op, operand) for v in each_value(found))


def _query_compared(param: str) -> str:
    from spellbook.facts.json_values import comparison

    return comparison(param)[0]


def _newer(facts: Answers, file: str, other: str) -> bool:
    mine = facts.mtime(file)
    if mine is None:
        return False
    theirs = facts.mtime(other)
    return theirs is not None and mine > theirs


def _newer_some(facts: Answers, file: str, pattern: str) -> bool:
    theirs = facts.mtime(file)
    if theirs is None:
        return False
    return any((facts.mtime(name) or 0) > theirs for name in facts.glob(pattern))


def _glob(facts: Answers, _: str, pattern: str) -> bool:
    return bool(facts.glob(pattern))


def _paired(facts: Answers, _: str, param: str) -> bool:
    from spellbook.facts.globs import partner  # only a spec with pairs of globs needs it

    first, _, second = param.partition(" ")
    for path in facts.glob(first):
        name = partner(path, first, second)
        if name is None or not facts.exists(name):
            return False
    return True


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
    ledger, pattern, section = ledger_parts(param)
    if not facts.exists(file):
        return False
    text = scoped(facts.text(file), section)
    return bool(unlisted_matches(text, pattern, facts.text(ledger)))


def _listed(facts: Answers, file: str, param: str) -> bool:
    from spellbook.facts.patterns import found as matches

    ledger, pattern, section = ledger_parts(param)
    if not facts.exists(file):
        return False
    listed = listed_lines(facts.text(ledger))
    text = scoped(facts.text(file), section)
    return any(entry(match) in listed for match in matches(pattern, text))


def ledger_param(ledger: str, pattern: str, section: str = "") -> str:
    """A ledger fact's parameter: `LEDGER PATTERN`, or, scoped to a section (or where
    the plain form would read as a scoped one), the JSON list `[LEDGER, PATTERN, SECTION]`."""
    plain = f"{ledger} {pattern}"
    if not section and ledger_parts(plain) == (ledger, pattern, ""):
        return plain
    import json

    return json.dumps([ledger, pattern, section], ensure_ascii=False)


def ledger_parts(param: str) -> tuple[str, str, str]:
    """A ledger fact's parameter read back: (ledger, pattern, section; "" for the file)."""
    scope = _scope(param, 3)
    if scope is not None:
        return scope[0], scope[1], scope[2]
    ledger, _, pattern = param.partition(" ")
    return ledger, pattern, ""


def record_target(pattern: str, section: str = "") -> str:
    """What a `record` action records: its pattern, or, scoped to a section (or where the
    pattern would read as a scoped one), the JSON list `[PATTERN, SECTION]`."""
    if not section and _scope(pattern, 2) is None:
        return pattern
    import json

    return json.dumps([pattern, section], ensure_ascii=False)


def record_parts(target: str) -> tuple[str, str]:
    """A `record` action's target read back: (pattern, section; "" for the file)."""
    scope = _scope(target, 2)
    return (scope[0], scope[1]) if scope is not None else (target, "")


def _scope(text: str, size: int) -> list[str] | None:
    """`text` as a JSON list of `size` strings, or None."""
    if not text.startswith('["'):
        return None
    import json

    try:
        found = json.loads(text)
    except ValueError:
        return None
    if isinstance(found, list) and len(found) == size and all(isinstance(s, str) for s in found):
        return found
    return None


def scoped(text: str, section: str) -> str:
    """The text a ledger's pattern is searched in: the file's, or its section's lines
    (`sections.section_text`; "" where the file has no such section)."""
    if not section:
        return text
    from spellbook.facts.sections import section_text

    return section_text(text, section)


def entry(text: str) -> str:
    """A match as a ledger line: its words joined by one space."""
    return " ".join(text.split())


def listed_lines(text: str) -> set[str]:
    """The entries of a ledger: its lines (as markdown ends them, `sections.lines_of`)
    that are not empty."""
    from spellbook.facts.sections import lines_of

    return {entry(line) for line in lines_of(text) if line.strip()}


def unlisted_matches(text: str, pattern: str, ledger: str) -> list[str]:
    """The matches of `pattern` in `text` that the ledger's text does not list, once
    each, in the order they are found."""
    from spellbook.facts.patterns import found as matches

    listed = listed_lines(ledger)
    found: dict[str, None] = {}
    for match in matches(pattern, text):
        line = entry(match)
        if line and line not in listed:
            found.setdefault(line, None)
    return list(found)


def _passes(facts: Answers, file: str, key: str) -> bool:
    return facts.status(file, key) == 0


def _last_passed(facts: Answers, _: str, key: str) -> bool:
    runs = facts.record.extra.get("runs")
    last = runs.get(key) if isinstance(runs, dict) else None
    status = last.get("status") if isinstance(last, dict) else None
    return isinstance(status, int) and not isinstance(status, bool) and status == 0


def _unknown(facts: Answers, _: str, phrase: str) -> bool:
    raise Undefined(
        f"the spec's condition {phrase!r} is not defined, so no guard can check it; "
        "define it in the spec's Terms table"
    )


def _own(facts: Answers, _: str, name: str) -> bool:
    raise Undefined(
        f"the guard {name!r} is the project's own code: the model's method answers it, "
        "through the generated module's build(model)"
    )


PROBES: dict[str, Probe] = {
    p.name: p
    for p in (
        Probe(
            "exists",
            "{file} exists",
            "{file} missing",
            "The file exists in the workspace folder (written `/F`, at the repository's top).",
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
            '{file} has checklist items under "{param}"',
            '{file} has no section "{param}" with checklist items',
            "The file's section with this heading has a checklist item (`- [ ]` or `- [x]`) "
            "that is not empty; a section still its template's, untouched, has none.",
            _items,
            ("section",),
            reads_content=True,
            absent='{file} has no checklist items under "{param}"',
        ),
        Probe(
            "unchecked",
            '{file} has unchecked items under "{param}"',
            '{file} has no section "{param}" with unchecked items',
            "The file's section with this heading has an unchecked item (`- [ ]`) that is "
            "not empty; a section still its template's, untouched, has none.",
            _unchecked,
            ("items",),
            reads_content=True,
            absent='{file} has no unchecked items under "{param}"',
        ),
        Probe(
            "items_at_least",
            '{file} has at least {count} checklist items under "{section}"',
            '{file} has no section "{section}" with at least {count} checklist items',
            "The file's section with this heading has at least so many checklist items (as "
            "`items` counts them).",
            _items_at_least,
            ("items",),
            reads_content=True,
            absent='{file} has fewer than {count} checklist items under "{section}"',
        ),
        Probe(
            "unchecked_at_least",
            '{file} has at least {count} unchecked items under "{section}"',
            '{file} has no section "{section}" with at least {count} unchecked items',
            "The file's section with this heading has at least so many unchecked items (as "
            "`unchecked` counts them).",
            _unchecked_at_least,
            ("unchecked",),
            reads_content=True,
            absent='{file} has fewer than {count} unchecked items under "{section}"',
        ),
        Probe(
            "checked_at_least",
            '{file} has at least {count} checked items under "{section}"',
            '{file} has no section "{section}" with at least {count} checked items',
            "The file's section with this heading has at least so many checked items (`- [x]`, "
            "as `items` counts them).",
            _checked_at_least,
            ("items",),
            reads_content=True,
            absent='{file} has fewer than {count} checked items under "{section}"',
        ),
        Probe(
            "count_at_least",
            "{file} has at least {count} `{query}`",
            "{file} has fewer than {count} `{query}`",
            "The query selects at least so many values in the JSON file (in a Markdown file, "
            "its YAML frontmatter), a list it selects counted by its items: "
            "`tickets[status=open]` counts the open tickets.",
            _count_at_least,
            ("exists",),
            reads_content=True,
            query=lambda param: param.partition(" ")[2],
        ),
        Probe(
            "section_text",
            '{file} has text under "{param}"',
            '{file} has no section "{param}" with text',
            "The file's section with this heading has a line that is not blank, a heading, a "
            "code fence's marker or an empty checklist item, and not a line of its template's "
            "own section.",
            _section_text,
            ("section",),
            reads_content=True,
            absent='{file} has no text under "{param}"',
        ),
        Probe(
            "section",
            '{file} has a section "{param}"',
            '{file} has no section "{param}"',
            "The file has a heading with these words (`## Risks` for Risks, in any case; "
            "not in a code fence), as the facts about a section's items and text find it.",
            _section,
            ("exists",),
            reads_content=True,
        ),
        Probe(
            "edited",
            "{file} is filled in",
            "{file} is not filled in",
            "The file exists and has text that is not blank and not its template's (the "
            "template it is created from, whitespace aside): a file emptied, or still as it "
            "was created, is not filled in.",
            _edited,
            ("exists",),
            reads_content=True,
        ),
        Probe(
            "field",
            "{file} has `{param}`",
            "{file} has no `{param}`",
            "The query selects a value in the JSON file (in a Markdown file, its YAML "
            "frontmatter).",
            _field,
            ("exists",),
            reads_content=True,
            query=lambda param: param,
        ),
        Probe(
            "value",
            "{file} has `{query}` {comparison}",
            "{file} has no `{query}` {comparison}",
            "Some value the query selects in the JSON file or a Markdown file's frontmatter "
            "(an item of a list it selects) "
            "compares so: numbers as numbers, `true`, `false` and `null` as themselves, text "
            "as text, or text (or a number, as written plainly) matching a regular expression; "
            "objects compared with a number or `true` stop the cast (they never compare).",
            _value,
            ("exists",),
            reads_content=True,
            query=_query_compared,
        ),
        Probe(
            "newer",
            "{file} is newer than {other}",
            "{file} is not newer than {other}",
            "Both files exist and the file was modified after the other one.",
            _newer,
            ("exists",),
            reads_content=True,
        ),
        Probe(
            "newer_some",
            "some `{param}` is newer than {file}",
            "no `{param}` is newer than {file}",
            "The file exists and some name the glob matches (as `glob` finds them) was "
            "modified after it: a test written since the ticket list was.",
            _newer_some,
            ("exists",),
            reads_content=True,
        ),
        Probe(
            "glob",
            "some file matches `{param}`",
            "no file matches `{param}`",
            "Some name in the workspace folder (for `/G`, the repository) matches the "
            "pattern (`*` and `?` within a "
            "name, `**` for any folders; no name starting with `.` unless the pattern's "
            "part does; no symbolic link entered).",
            _glob,
        ),
        Probe(
            "paired",
            "every `{first}` has a `{second}`",
            "some `{first}` has no `{second}`",
            "For each name the first glob matches (as `glob` finds them), the file named by "
            "putting what its `*` matched in place of the second glob's `*` exists: "
            "`sql/003.up.sql` has `sql/003.down.sql`. Where the first glob matches no name, "
            "none lacks its pair.",
            _paired,
        ),
        Probe(
            "unlisted",
            "{file} has matches of `{pattern}`{scope} not listed in {ledger}",
            "every match of `{pattern}`{scope} in {file} is listed in {ledger}",
            "Some match of the regular expression in the file (under a section, in the "
            "section's lines: a file without the section has none there, and its negation "
            "says the section is there) is not a line of the ledger file (a missing ledger "
            "lists nothing): the ledger records what was processed.",
            _unlisted,
            ("matches",),
            reads_content=True,
            absent="every match of `{pattern}`{scope} in {file} is listed in {ledger}",
        ),
        Probe(
            "listed",
            "some match of `{pattern}`{scope} in {file} is listed in {ledger}",
            "no match of `{pattern}`{scope} in {file} is listed in {ledger}",
            "Some match of the regular expression in the file (as `unlisted` finds them, in "
            "the file or under a section) is a line of the ledger file: the ledger has "
            "recorded it.",
            _listed,
            ("matches",),
            reads_content=True,
            absent="no match of `{pattern}`{scope} in {file} is listed in {ledger}",
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
            "in this state for more than {duration}",
            "in this state for {duration} or less",
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
            "last_passed",
            "the last recorded run of `{param}` passed",
            "the last recorded run of `{param}` did not pass",
            "The state file records a run of the command under the key (`runs.<key>`, written "
            "when a cast runs it) that exited with status 0. Nothing is run; a command never "
            "run has no run that passed.",
            _last_passed,
        ),
        Probe(
            "unknown",
            "'{param}' holds",
            "'{param}' does not hold",
            "A phrase the spec does not define; no guard can check it.",
            _unknown,
        ),
        Probe(
            "own",
            "{param}",
            "not {param}",
            "A guard of the project's own code (`own_code`): the model's method of its name "
            "answers it; `spell` drives no such machine.",
            _own,
        ),
    )
}


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
