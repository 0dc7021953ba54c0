"""The generic core: every kind of fact a guard can ask about a workspace, one `Probe` each.

A fact is a probe applied to a file (named relative to the workspace folder, or
from the repository's top with a leading `/`, `/tests/test_a.py`: such a file is only
read, by the same path rules, `store.Workspace.path`) and a parameter. Each `Probe`
record in `PROBES` holds all that is known of its kind:
its words, its meaning, the facts it implies, whether it reads the file's
content, and its check. The compiler reads the words, meanings and implications
from here (`PROBES`; `implications.implied`, `implications.implies`,
`wording.describe`); the runtime answers the checks with
`spellbook.facts.answers.Facts`. A workflow's own words for facts are defined in its
vocabulary module (`spellbook.vocabularies`), and a spec's in its
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
Scoped to a section (`ledgers.ledger_param`), it is the JSON list `[ledger, pattern, section]`
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

        def there(self, name: str) -> bool: ...

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


def _selected(facts: Answers, file: str, query: str) -> list[object]:
    """The values `query` selects in the file's JSON (or frontmatter); a filter that
    meets something other than a list stops the cast, naming the file (BadFile)."""
    from spellbook.facts.json_values import NotAList, select  # only a spec with JSON facts

    try:
        return select(facts.json(file), query, facts.record.extra)
    except NotAList as err:
        from spellbook.records.errors import BadFile

        raise BadFile(f"{file}: {err}") from None


def _field(facts: Answers, file: str, query: str) -> bool:
    from spellbook.facts.json_values import has_value  # a spec with no JSON fact needs none

    return any(has_value(v) for v in _selected(facts, file, query))


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
    return count.isdigit() and count_of(_selected(facts, file, query)) >= int(count)


def _section_text(facts: Answers, file: str, section: str) -> bool:
    return bool(facts.lines(file, section))


def _value(facts: Answers, file: str, param: str) -> bool:
    from spellbook.facts.json_values import (
        ORDER,
        compare,
        comparison,
        each_value,
        is_json,
        said_comparison,
    )

    query, op, operand = comparison(param)
    found = _selected(facts, file, query)
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
        if op in ORDER and isinstance(value, str) and _numeral(value):
            # `"auc": "0.81"` (a logger's text) is never ≥ 0.75 as text: a number meant
            import json

            from spellbook.records.errors import BadFile

            raise BadFile(
                f"{file}: `{query}` holds the text {json.dumps(value)}, which has no order, so "
                f"it is never {said_comparison(op, operand)}; write it in the file as a number "
                f"({value.strip()}), or compare it as text (`= {json.dumps(value)}`)"
            )
    if (op == "~" or isinstance(operand, str)) and not is_json(file) and found:
        # Frontmatter compared with text is the text as written: YAML reads `reviewed:
        # yes` as true and `version: 1.10` as 1.1, but `= "yes"` and `^1\.10` mean it.
        found = _as_written(facts, file, query, found)
    return any(compare(v, op, operand) for v in each_value(found))


# Text that reads as a number (`"0.81"`, `"12"`), which an order never compares.
_NUMERAL = r"\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*"


def _numeral(text: str) -> bool:
    import re

    return re.fullmatch(_NUMERAL, text, re.ASCII) is not None


def _as_written(facts: Answers, file: str, query: str, found: list[object]) -> list[object]:
    """The values a frontmatter query selects, as the file writes them where YAML reads
    one as something other than text (`true`, a number), at any depth (`meta.version`,
    the items of `tags`); the values found otherwise, and where a filter (`[...]`) may
    select otherwise among values as written."""
    from spellbook.facts.json_values import each_value, select

    typed = (bool, int, float)
    if "[" in query or not any(isinstance(v, typed) for v in each_value(found)):
        return found
    from spellbook.facts.frontmatter import frontmatter

    written = select(frontmatter(facts.text(file), file, written=True), query, facts.record.extra)
    return written if len(written) == len(found) else found


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
        if name is None or not facts.there(name):  # anything of the name pairs
            return False
    return True


def _below(facts: Answers, _: str, param: str) -> bool:
    counter, _, limit = param.partition("<")
    value = facts.record.extra.get(counter)
    if value is None:  # not counted yet
        value = 0
    return isinstance(value, int) and not isinstance(value, bool) and value < int(limit)


def _over_minutes(facts: Answers, _: str, minutes: str) -> bool:
    from spellbook.disk.state_file import seconds

    since = seconds(facts.record.extra.get("entered_at"))
    return since is not None and time.time() - since > int(minutes) * 60


def _unlisted(facts: Answers, file: str, param: str) -> bool:
    from spellbook.facts.ledgers import ledger_parts, scoped, unlisted_matches  # ledgers only

    ledger, pattern, section = ledger_parts(param)
    if not facts.exists(file):
        return False
    text = scoped(facts.text(file), section)
    return bool(unlisted_matches(text, pattern, facts.text(ledger)))


def _listed(facts: Answers, file: str, param: str) -> bool:
    from spellbook.facts.ledgers import entry, ledger_parts, listed_lines, scoped
    from spellbook.facts.patterns import found as matches

    ledger, pattern, section = ledger_parts(param)
    if not facts.exists(file):
        return False
    listed = listed_lines(facts.text(ledger))
    text = scoped(facts.text(file), section)
    return any(entry(match) in listed for match in matches(pattern, text))


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
