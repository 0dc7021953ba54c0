"""The core's own phrases: `F exists`, `F matches `RE``, `COUNTER < N`, `in this state
for more than 2 days`, ``F.json has `count` ≥ 2``, `docs/*.md exists`, ... each read into
one fact of the generic core (`spellbook.facts.probes`), or refused with the reason.

`CorePhrases` is the part of the condition reader (`conditions._Reader`) that reads
them: a table of phrases (`_CORE`) and, for each fact, what its parameter must be.
Near misses (`_NEAR_MISSES`) are refused with what to write instead, and so are queries
and sections that what is known of the file (`shapes`) says can never match.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from functools import cache

from spellbook.facts.implications import implied as core_implied
from spellbook.facts.json_values import SIGNS, comparison_param, is_json
from spellbook.facts.ledgers import ledger_param
from spellbook.facts.patterns import problem
from spellbook.facts.wording import UNITS, duration

from ..logic import DNF
from ..model import Atom, LiteralSpec
from .lexicon import Lexicon
from .shapes import Shapes

_FILE = r"(?P<file>`[^`\s]+`|~?[\w.\-/]*\w\.\w[\w\-]*)"
_QUOTED = r"(?P<quoted>`[^`]+`|\"[^\"]+\"|“[^”]+”)"
# A Markdown file's YAML frontmatter, where a key is looked up: `task.md frontmatter has`.
_FM = r"(?P<fm>(?:'s)? frontmatter)?"
_SECTION = r"(?P<section>`[^`]+`|\"[^\"]+\"|“[^”]+”|the [\w ]+? section)"

# A JSON query: keys joined by dots, each with filters `[key=value]` / `[key!=value]`.
_QUERY = re.compile(r"[\w-]+(?:\[[\w-]+!?=[^\[\]]*\])*(?:\.[\w-]+(?:\[[\w-]+!?=[^\[\]]*\])*)*")
# A filter's value that is not one: `[status==open]`, `[status="open"]`.
_ODD_VALUE = re.compile(r"!?=\s*(?:=|\"|'|“)")
# What a glob does not hold: placeholders, queries, separators, brace alternatives, and
# `[...]` (`[NAME]` is a placeholder more often than a class of characters).
_NOT_IN_A_GLOB = re.compile(r"[\[\]{}<>$|;,\"'()=#:\s\\^]")
# Units of time in a state, in minutes: `probes.UNITS`, singular or plural, and `min`.
_UNITS = {name: size for unit, size in UNITS for name in (unit, unit + "s")} | {"min": 1}
# Comparisons as written, and as `probes.comparison` has them: the one table of them, of a
# JSON value, a count and a counter alike.
_OPS = {"=": "=", "==": "=", "!=": "!=", "≠": "!=", "<": "<", "<=": "<=", "≤": "<="}
_OPS.update({"⩽": "<=", "≦": "<=", ">": ">", ">=": ">=", "≥": ">=", "⩾": ">=", "≧": ">="})
# A comparison's characters, as a phrase reads them (`_OPS` says which are one).
COMPARISON = "[" + re.escape("".join(sorted(set("".join(_OPS))))) + "]+"
_OP = f"(?P<op>{COMPARISON})"
# No JSON value could be read (`CorePhrases._operand`).
_NO_VALUE = object()
# A fact of the core read with its sign: (probe, file, param, holds).
_Fact = tuple[str, str, str, bool]
_LEDGER = _FILE.replace("?P<file>", "?P<ledger>")
# A ledger's pattern scoped to a section: ``matches of `RE` under "Tables"``.
_UNDER = rf"(?: under {_SECTION})?"
_OTHER = _FILE.replace("?P<file>", "?P<other>")
_PATTERN = _QUOTED.replace("?P<quoted>", "?P<pattern>")
# A glob: a name with `*` (or `?`, in backticks); after `some file matches`, any name,
# so that one without a wildcard is refused with the reason.
_GLOB = r"(?P<glob>`[^`\s]*[*?][^`\s]*`|[\w.\-/]*\*[\w.\-/*?]*)"
_GLOB_ANY = r"(?P<glob>`[^`\s]+`|[\w.\-/*?]+)"
# The second glob of a pair (`every sql/*.up.sql has a sql/*.down.sql`).
_PARTNER = _GLOB_ANY.replace("?P<glob>", "?P<partner>")
_COUNTED = rf"(?P<count>\S+) (?:(?P<kind>[\w ]+?) )?items? under {_SECTION}"
# What a count of a query counts: the query, quoted or not (`count of tickets[x=y] in F`).
_QUERIED = r"(?P<quoted>`[^`]+`|\"[^\"]+\"|“[^”]+”|[^\s`\"“]+)"
# A checklist's items counted, by the words for them: all of them, unchecked, checked.
_KINDS = {"checklist": "items", "unchecked": "unchecked", "unchecked checklist": "unchecked"}
_KINDS.update({"checked": "checked", "checked checklist": "checked", "ticked": "checked"})
_CORE = tuple(
    (re.compile(p, re.I), probe, positive)
    for p, probe, positive in (
        (rf"{_GLOB} (?:exists|is present)", "globbed", True),
        (rf"{_GLOB} (?:is )?(?:missing|absent)", "globbed", False),
        (rf"{_GLOB} (?:doesn't|does not|don't|do not) exist", "globbed", False),
        (rf"(?:there is )?no {_GLOB}", "globbed", False),
        (rf"(?:some|a|any) file matches {_GLOB_ANY}", "globbed", True),
        (rf"no file matches {_GLOB_ANY}", "globbed", False),
        (
            rf"(?:every|each) {_GLOB_ANY} has (?:(?:a|an|its) )?(?:matching )?{_PARTNER}",
            "paired",
            True,
        ),
        (rf"(?:some|an?) {_GLOB_ANY} has no (?:matching )?{_PARTNER}", "paired", False),
        (rf"(?:some|a|any) {_GLOB_ANY} is newer than {_OTHER}", "newer_some", True),
        (rf"no {_GLOB_ANY} is newer than {_OTHER}", "newer_some", False),
        # Read only to say what does: a glob alone, every glob, older.
        (
            rf"(?:(?:every|each|all|some|a|any|no) )?{_GLOB} (?:is|are) (?:not )?"
            rf"(?:newer|older) than {_OTHER}",
            "newer_glob",
            True,
        ),
        (rf"{_FILE} (?:exists|is present)", "exists", True),
        (rf"{_FILE} (?:is )?(?:missing|absent)", "exists", False),
        (rf"{_FILE} (?:doesn't|does not|don't|do not) exist", "exists", False),
        (rf"(?:there is )?no {_FILE}", "exists", False),
        (rf"{_FILE} is filled in", "edited", True),
        (rf"{_FILE} (?:is not|isn't) filled in", "edited", False),
        (rf"{_FILE} is (?:still )?(?:its|the) template", "edited", False),
        (rf"{_FILE} (?P<verb>matches|contains) {_QUOTED}", "matches", True),
        (rf"{_FILE} (?:doesn't|does not) (?P<verb>match|contain) {_QUOTED}", "matches", False),
        (
            rf"{_FILE} has (?:an? )?unchecked (?:checklist )?items? under {_SECTION}",
            "unchecked",
            True,
        ),
        (rf"{_FILE} has no unchecked (?:checklist )?items? under {_SECTION}", "unchecked", False),
        (rf"{_FILE} has (?:a )?checklist items? under {_SECTION}", "items", True),
        (rf"{_FILE} has no checklist items? under {_SECTION}", "items", False),
        (rf"{_FILE} has (?P<bound>at least|more than) {_COUNTED}", "counted", True),
        (
            rf"{_FILE} has (?P<bound>fewer than|less than|at most|no more than) {_COUNTED}",
            "counted",
            False,
        ),
        (
            rf"{_FILE}{_FM} has (?P<bound>at least|more than) (?P<count>\S+) {_QUOTED}",
            "queried",
            True,
        ),
        (
            rf"{_FILE}{_FM} has (?P<bound>fewer than|less than|at most|no more than) "
            rf"(?P<count>\S+) {_QUOTED}",
            "queried",
            False,
        ),
        (
            rf"(?:the )?(?:count|number) of {_QUERIED} in {_FILE}{_FM} ?{_OP} ?(?P<count>\S.*)",
            "queried",
            True,
        ),
        (rf"{_FILE} has (?:some )?text under {_SECTION}", "section_text", True),
        (rf"{_FILE} has no text under {_SECTION}", "section_text", False),
        # `F has no section S with ...`: the fact's negation alone (F, or S, may be missing).
        (rf"{_FILE} has (?:a|the) section {_SECTION}", "section", True),
        (rf"{_FILE} has (?P<alone>no) section {_SECTION}", "section", False),
        (rf"{_FILE} has (?P<alone>no) section {_SECTION} with unchecked items", "unchecked", False),
        (rf"{_FILE} has (?P<alone>no) section {_SECTION} with checklist items", "items", False),
        (rf"{_FILE} has (?P<alone>no) section {_SECTION} with text", "section_text", False),
        (
            rf"{_FILE} has (?P<alone>no) section {_SECTION} with (?P<bound>at least|more than) "
            r"(?P<count>\S+) (?:(?P<kind>[\w ]+?) )?items?",
            "counted",
            False,
        ),
        (rf"{_FILE}{_FM} has {_QUOTED}", "field", True),
        (rf"{_FILE}{_FM} has no {_QUOTED}", "field", False),
        (
            rf"{_FILE}{_FM} has (?P<no>no )?{_QUOTED} ?{_OP} ?(?P<operand>\S.*)",
            "compared",
            True,
        ),
        (
            rf"{_FILE}{_FM} has (?P<no>no )?{_QUOTED} (?:matching|that matches) {_PATTERN}",
            "compared",
            True,
        ),
        (rf"{_FILE} is (?P<comparison>newer|older) than {_OTHER}", "newer", True),
        (rf"{_FILE} (?:is not|isn't) (?P<comparison>newer|older) than {_OTHER}", "newer", False),
        (
            rf"{_FILE} has (?:lines|matches) (?:of|matching) {_QUOTED}{_UNDER} (?:that are )?not "
            rf"(?:yet )?(?:listed|recorded) in {_LEDGER}",
            "unlisted",
            True,
        ),
        (
            rf"{_FILE} has no (?:lines|matches) (?:of|matching) {_QUOTED}{_UNDER} "
            rf"(?:that are )?not (?:yet )?(?:listed|recorded) in {_LEDGER}",
            "unlisted",
            False,
        ),
        (
            rf"(?:every|each) (?:match|line) of {_QUOTED}{_UNDER} in {_FILE} is (?:already )?"
            rf"(?:listed|recorded) in {_LEDGER}",
            "unlisted",
            False,
        ),
        (
            rf"(?:some|a|any) (?:match|line) of {_QUOTED}{_UNDER} in {_FILE} is (?:already )?"
            rf"(?:listed|recorded) in {_LEDGER}",
            "listed",
            True,
        ),
        (
            rf"no (?:match|line) of {_QUOTED}{_UNDER} in {_FILE} is (?:yet )?"
            rf"(?:listed|recorded) in {_LEDGER}",
            "listed",
            False,
        ),
        (
            rf"{_FILE} has (?:lines|matches) (?:of|matching) {_QUOTED}{_UNDER} (?:that are )?"
            rf"(?:already )?(?:listed|recorded) in {_LEDGER}",
            "listed",
            True,
        ),
        (
            rf"{_FILE} has no (?:lines|matches) (?:of|matching) {_QUOTED}{_UNDER} (?:that are )?"
            rf"(?:already )?(?:listed|recorded) in {_LEDGER}",
            "listed",
            False,
        ),
        # `F has no section S with matches ...`: the fact's negation alone (S may be missing).
        (
            rf"{_FILE} has (?P<alone>no) section {_SECTION} with (?:lines|matches) (?:of|matching) "
            rf"{_QUOTED} (?:that are )?not (?:yet )?(?:listed|recorded) in {_LEDGER}",
            "unlisted",
            False,
        ),
        (
            rf"{_FILE} has (?P<alone>no) section {_SECTION} with (?:lines|matches) (?:of|matching) "
            rf"{_QUOTED} (?:that are )?(?:already )?(?:listed|recorded) in {_LEDGER}",
            "listed",
            False,
        ),
        (rf"(?P<counter>\w+)\s*{_OP}\s*(?P<limit>-?\d+)", "counter", True),
        (r"in this state (?:for )?more than (?P<amount>\S+) (?P<unit>\S+)", "over_minutes", True),
        (r"in this state for (?P<amount>\S+) (?P<unit>\S+) or less", "over_minutes", False),
        (
            r"in this state for (?:at most|no more than|not more than) (?P<amount>\S+) "
            r"(?P<unit>\S+)",
            "over_minutes",
            False,
        ),
        (rf"(?:the )?command {_QUOTED} (?:of|in) {_FILE} (?:passes|succeeds)", "passes", True),
        (rf"(?:the )?command {_QUOTED} (?:of|in) {_FILE} fails", "passes", False),
        (
            rf"(?:the )?last (?:recorded )?run of {_QUOTED} (?:passed|succeeded)",
            "last_passed",
            True,
        ),
        (
            rf"(?:the )?last (?:recorded )?run of {_QUOTED} (?:did not|didn't) (?:pass|succeed)",
            "last_passed",
            False,
        ),
    )
)
# Facts only of a workspace file, and why (a file from the repository's top, `/a.json`,
# is only read): a command is run, a template is the workspace's.
_WORKSPACE_ONLY = {
    "passes": "a command is run from a workspace file (or SPELLBOOK_KEY), and {file} is "
    "a file of the repository outside it",
    "edited": "{file} is a file of the repository outside the workspace folder, which has "
    "no template to be filled in from",
}
# A JSON file's value said as a sentence (`review.json verdict is "approved"`).
_JSON_FILE = r"(?P<file>`[^`\s]+\.json`|~?[\w.\-/]*\w\.json)"
_JSON_VALUE = (
    "a value of a JSON file is asked with `has`, the key in backticks and a comparison: "
    "write ``{file} has `{key}` = {value}`` (or `≠`, `<`, `≥`, ...)"
)
# A checklist asked of a whole file: the core counts one under a section's heading.
_WHOLE_CHECKLIST = (
    "a checklist is counted under a section of {file}, named by its heading: write "
    '`{file} has unchecked items under "SECTION"` (or `has no unchecked items under`)'
)
# Phrases close to a fact of the core that it does not read, and why.
_NEAR_MISSES = tuple(
    (re.compile(p, re.I), why)
    for p, why in (
        (
            rf"{_FILE} has (?:exactly )?\d+ (?:unchecked |checklist )+items? under {_SECTION}",
            "an exact count is not a fact the core checks: write at least N, more than N or "
            "fewer than N (at least 2 AND fewer than 3 for exactly 2)",
        ),
        (
            rf"(?:every|each) {_GLOB_ANY} has no (?:matching )?{_PARTNER}",
            "that no `{glob}` has a `{partner}` is not a fact the core checks: write `every "
            "{glob} has a {partner}` or `some {glob} has no {partner}`",
        ),
        (
            rf"(?:some|an?|any|every|each) (?:item|entry|line) (?:of|in) {_FILE} is (?:already )?"
            rf"(?:listed|recorded) in {_LEDGER}",
            "what an item of {file} is, a pattern says: write ``some match of `RE` in {file} "
            "is listed in {ledger}`` (or ``{file} has matches of `RE` not listed in "
            "{ledger}``)",
        ),
        (
            r"(?:the )?(?:repository|repo)(?:'s|\u2019s| file| folder)? `?(?P<path>[\w.\-*?/]+)`? "
            r"(?P<rest>.+)",
            "a file of the repository is named from its top, with a leading `/`: "
            "write ``/{path}` {rest}`",
        ),
        (
            rf"{_FILE} (?:(?:is not|isn't) empty|is non-?empty|has (?:some )?(?:content|text))",
            "that a file is not empty is not a fact the core checks as such: for text in it, "
            "write ``{file} matches `\\S` ``; for text past its template, `{file} is filled in`",
        ),
        (
            rf"{_FILE} has (?:no |any |some )?(?:unchecked|open|unticked|checked|ticked) "
            r"(?:checklist )?(?:items?|boxes|checkboxes)",
            _WHOLE_CHECKLIST,
        ),
        (
            rf"(?:all|every) (?:checklist )?(?:items?|boxes|checkboxes) (?:in|of) {_FILE} "
            r"(?:are|is) (?:checked|ticked|done)",
            _WHOLE_CHECKLIST,
        ),
        (
            rf"{_JSON_FILE} `?(?P<key>[\w.\-]+)`? (?:is|equals|==?) (?P<value>(?!not\b)\S.*)",
            _JSON_VALUE,
        ),
        (
            rf"(?:the )?`?(?P<key>[\w.\-]+)`? (?:in|of) {_JSON_FILE} (?:is|equals|==?) "
            r"(?P<value>(?!not\b)\S.*)",
            _JSON_VALUE,
        ),
        (
            rf"{_FILE} is empty",
            "that a file is empty is not a fact the core checks as such: write ``{file} "
            "exists AND NOT {file} matches `\\S` `` (no text in it), or `{file} is not "
            "filled in` (none past its template, or missing)",
        ),
        (
            rf"{_FILE} has (?:an? |the )?(?:key|field|property|attribute) "
            r"[`\"“](?P<key>[^`\"“”]+)[`\"”]",
            "a JSON key is written in backticks right after `has`: ``{file} has `{key}` `` "
            "(it holds where the key's value is not null, false or empty)",
        ),
        (
            rf"{_FILE} (?:is newer|is older|was modified|was changed) (?:then|after|before) "
            rf"{_OTHER}",
            "write `{file} is newer than {other}` (or `is older than`): the files' "
            "modification times",
        ),
    )
)


def _not_finite(constant: str) -> object:
    """`NaN` and `Infinity`, which Python's JSON reader takes and JSON has not."""
    raise ValueError(constant)


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) > 1 and text[0] + text[-1] in ("``", '""', "“”"):
        return text[1:-1]
    return text


def section_name(written: str) -> str:
    """A section as a phrase names it (`"Risks"`, `the Risks section`, `"## Risks"`): the
    heading's words, without the marks that make it one."""
    section = _unquote(written).removeprefix("the ").removesuffix(" section")
    return section.strip().lstrip("#").strip()


def pattern_problem(pattern: str) -> str:
    """Why a pattern cannot be a guard's regular expression, or "": it must be one (as
    Python reads it, so it means what its author tested), not end in a variable, and
    run in linear time (`spellbook.facts.patterns`: RE2, which the runtime runs it with)."""
    try:
        re.compile(pattern)
    except (re.error, OverflowError, RecursionError, ValueError) as err:
        return f"`{pattern}` is not a regular expression ({err})"
    variable = _end_then_text(pattern)
    if variable:
        return (
            f"`{pattern}` has `{variable}`, which can never match: `$` is the end of a line, "
            "and variables are not filled into patterns; write the text itself, or `\\$` "
            "for a dollar sign"
        )
    return problem(pattern)


def _syntax(pattern: str) -> Iterator[int]:
    """The positions of `pattern`'s characters that are syntax: not escaped (`\\(`), not
    inside a character class (`[(+]`, `[]x]`, `[^]x]`)."""
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":  # `[]...]`: the bracket is a member
                i += 1
        else:
            yield i
        i += 1


def _end_then_text(pattern: str) -> str:
    """The first `$` of `pattern` (not escaped, not in a character class) that a name or
    `{` follows, with what follows it (`$version`, `${version}`), or ""."""
    for i in _syntax(pattern):
        if pattern[i] == "$":
            m = re.match(r"\{[^}]*\}?|\w+", pattern[i + 1 :])
            if m:
                return "$" + m.group()
    return ""


def literal(probe: str, file: str, param: str = "", positive: bool = True) -> DNF:
    """One fact, holding or not, as a condition."""
    return ((LiteralSpec(Atom(probe, file, param), positive),),)


def said_of(probe: str, file: str, param: str, positive: bool) -> DNF:
    """A fact as a phrase says it: one that says "no" of a section (`F has no unchecked
    items under S`, `fewer than 2 ...`, `no text under S`) also says F has the section,
    so a missing file or section is never "no items" (the fact's negation alone is
    `F has no section S with unchecked items`)."""
    found = literal(probe, file, param, positive)
    if positive:
        return found
    for fact in core_implied(probe, file, param):
        if fact[0] == "section":
            return ((found[0][0], LiteralSpec(Atom(*fact), True)),)
    return found


@cache
def _time_bound() -> re.Pattern[str]:
    """Time in a state bounded at its own length, `at least 15 minutes`, `less than 2
    hours`, `15 minutes or more`: no fact of the core."""
    return re.compile(
        r"in this state (?:for )?(?:at least|less than|under|fewer than) (?P<n>\S+) (?P<unit>\S+)"
        r"|in this state for (?P<n2>\S+) (?P<unit2>\S+) or (?:more|longer)",
        re.IGNORECASE,
    )


class CorePhrases:
    """Reads the core's own phrases; the reader it is part of says what a file is
    (`file`, `_inside`) and keeps why a phrase was refused (`reason`)."""

    reason: str
    lexicon: Lexicon
    # Why the comparison being read always holds (`attempts ≥ 0`), if it does; and each
    # phrase read so, with why: read as always, and advised to be written `-`.
    always: str
    vacuous: list[tuple[str, str]]

    def file(self, written: str) -> str | None:
        raise NotImplementedError

    def _inside(self, written: str, name: str) -> str | None:
        raise NotImplementedError

    # -- the core's own phrases --

    def _core(self, phrase: str, context: list[str]) -> DNF | None:
        bound = _time_bound().fullmatch(phrase)
        if bound is not None:  # `at least 15 minutes`: no fact says exactly that
            n, unit = bound["n"] or bound["n2"], bound["unit"] or bound["unit2"]
            self.reason = (
                "time in a state is said as `more than N` or `N or less` (`at most N`), which "
                "part at exactly N, where `at least N` and `less than N` part: write "
                f"`in this state for more than {n} {unit}` or `in this state for {n} {unit} or "
                "less`, whichever side exactly that long is on"
            )
            return None
        for regex, probe, positive in _CORE:
            m = regex.fullmatch(phrase)
            if m is None:
                continue
            groups = m.groupdict()
            file = self.file(groups["file"]) if groups.get("file") else ""
            if file is None:
                return None
            if file.startswith("/") and probe in _WORKSPACE_ONLY:
                self.reason = _WORKSPACE_ONLY[probe].format(file=file)
                return None
            if probe in ("queried", "counter", "counted"):
                self.always = ""
                found = (
                    self._queried(groups, file, positive)
                    if probe == "queried"
                    else self._counted(groups, file, positive)
                    if probe == "counted"
                    else self._counter(groups)
                )
                if self.always:  # read as always, and the advice kept
                    self.vacuous.append((phrase, self.always))
                return found
            if probe in _FACTS:
                fact = _FACTS[probe](self, groups, file)
                if fact is None:
                    return None
                said = literal if groups.get("alone") else said_of
                return said(fact[0], fact[1], fact[2], positive == fact[3])
            param = self._param(probe, groups, file)
            if param is None:
                return None
            return (literal if groups.get("alone") else said_of)(probe, file, param, positive)
        for regex, why in _NEAR_MISSES:
            m = regex.fullmatch(phrase)
            if m is not None:
                self.reason = why.format(**m.groupdict())
                return None
        return None

    def _param(self, probe: str, groups: dict[str, str], file: str) -> str | None:
        if probe in ("items", "unchecked", "section_text", "section"):
            section = section_name(groups["section"])
            if not section:
                self.reason = "the section has no name"
                return None
            missing = Shapes(self.lexicon).missing_section(file, section)
            if missing:
                self.reason = missing
                return None
            return section
        if probe == "matches":
            text = _unquote(groups["quoted"])
            pattern = re.escape(text) if groups["verb"].lower().startswith("contain") else text
            problem = pattern_problem(pattern)
            if problem:
                self.reason = problem
                return None
            return pattern
        if probe == "field":
            query = _unquote(groups["quoted"])
            if is_json(file) and groups.get("fm"):
                self.reason = f"{file} is a JSON file, which has no frontmatter: `{file} has`"
                return None
            if not is_json(file) and not groups.get("fm"):
                self.reason = (
                    f"{file} is not a JSON file (to look for text, say `contains`; for a key "
                    f"of its YAML frontmatter, `{file} frontmatter has `{query}``)"
                )
                return None
            if not _QUERY.fullmatch(query) or _ODD_VALUE.search(query):
                self.reason = (
                    f"`{query}` is not a query: keys joined by dots, each with filters "
                    "like [status=open] or [id!=$field] (one `=`, values unquoted)"
                )
                return None
            self.reason = _untyped(Shapes(self.lexicon), file, query, groups.get("fm") or "")
            return None if self.reason else query
        if probe == "passes":
            key = _unquote(groups["quoted"])
            if not is_json(file):
                # `of Makefile`: the command is looked up under its key in a JSON file.
                self.reason = f"{file} is not a JSON file, which holds the command under KEY"
                return None
            if not re.fullmatch(r"[A-Za-z_][\w-]*", key):
                # `npm test`: the command itself, not the key that holds it; `scripts.test`:
                # a path, where the key is looked up at the top of the file.
                self.reason = (
                    f"`{key}` is not a key: the command's KEY names the text of {file} (or "
                    "the environment variable SPELLBOOK_KEY) that holds the command"
                )
                return None
            return key
        if probe == "last_passed":
            key = _unquote(groups["quoted"])
            if not re.fullmatch(r"[A-Za-z_][\w-]*", key):
                self.reason = (
                    f"`{key}` is not a key: the last run is recorded under the key that "
                    "holds the command (`test_command`)"
                )
                return None
            return key
        if probe == "over_minutes":
            return self._minutes(groups["amount"], groups["unit"])
        if probe in ("unlisted", "listed"):
            pattern = _unquote(groups["quoted"])
            problem = pattern_problem(pattern)
            if problem:
                self.reason = problem
                return None
            ledger = self.file(groups["ledger"])
            if ledger is None:
                return None
            scope = self._param("section", groups, file) if groups.get("section") else ""
            return None if scope is None else ledger_param(ledger, pattern, scope)
        return ""

    def _minutes(self, amount: str, unit: str) -> str | None:
        """A time in a state in whole minutes: `2 days` is 2880."""
        size = _UNITS.get(unit.lower())
        if size is None:
            word = unit.lower().rstrip("s")
            if word in ("second", "sec"):
                self.reason = "time in a state is counted in whole minutes, not seconds"
            elif word in ("month", "year"):
                self.reason = (
                    f"a {word} has no fixed length: write the time in days or weeks (`30 days`)"
                )
            else:
                self.reason = (
                    f"`{unit}` is not a unit of time the core reads: minutes (min), hours, "
                    "days or weeks"
                )
            return None
        if not amount.isdecimal() or not amount.isascii():
            self.reason = f"`{amount}` is not a whole number of {unit}"
            if re.fullmatch(r"\d+\.\d+", amount):
                from fractions import Fraction

                minutes = Fraction(amount) * size
                smaller = f" ({duration(int(minutes))})" if minutes.denominator == 1 else ""
                self.reason += f": write it in a smaller unit{smaller}"
            return None
        return str(int(amount) * size)

    # -- the core's facts that are more than a file and a parameter --

    def _counted(self, groups: dict[str, str], file: str, positive: bool) -> DNF | None:
        """`F has at least N checklist items under S` (more than, fewer than, at most):
        at least N, or at least N + 1, of the section's items or unchecked items. At
        least 1 is the fact `items` (`unchecked`) itself; at least 0 says only that the
        section is there, as every count of a section's items does (the fact `section`)."""
        kind = " ".join((groups["kind"] or "").lower().split())
        if kind not in _KINDS:
            self.reason = (
                f"{f'{kind!r} items are' if kind else 'items is'} not a checklist's items, "
                "unchecked items or checked items: write checklist items, unchecked items "
                "or checked items"
            )
            return None
        count = "1" if groups["count"].lower() == "one" else groups["count"]
        if not count.isdecimal() or not count.isascii():
            self.reason = f"`{count}` is not a whole number of items: write it in digits"
            return None
        section = self._param("items", groups, file)
        if section is None:
            return None
        bound = " ".join(groups["bound"].lower().split())
        least = int(count) + (bound in ("more than", "at most", "no more than"))
        said = literal if groups.get("alone") else said_of
        if least == 0 and bound == "at least":  # what it says is that the section is there
            return said("section", file, section, positive)
        if least == 0:
            self.reason = f"{bound} 0 items never holds: a count is a whole number from 0"
            return None
        probe = _KINDS[kind]
        if least == 1 and probe != "checked":  # no fact of its own: one checked item
            return said(probe, file, section, positive)
        return said(f"{probe}_at_least", file, f"{least} {section}", positive)

    def _compared(self, groups: dict[str, str], file: str) -> _Fact | None:
        """``F.json has `QUERY` ≥ 2``, ``... = true``, ``... matching `RE` ``: some value
        the query selects compares so (`probes.comparison`)."""
        query = self._param("field", groups, file)
        if query is None:
            return None
        holds = not groups.get("no")
        if groups.get("pattern"):
            pattern = _unquote(groups["pattern"])
            problem = pattern_problem(pattern)
            if problem:
                self.reason = problem
                return None
            if Shapes(self.lexicon).objects(file, query):
                self.reason = _objects(file, query, groups.get("fm") or "", "matching a pattern")
                return None
            return "value", file, comparison_param(query, "~", pattern), holds
        op = self._op(groups["op"])
        if op is None:
            return None
        operand = self._operand(groups["operand"])
        if operand is _NO_VALUE:
            return None
        if Shapes(self.lexicon).objects(file, query):
            # `tickets[status=open] = true`: an object is never a number, text or true.
            said = f"{SIGNS[op]} {json.dumps(operand, ensure_ascii=False)}"
            self.reason = _objects(file, query, groups.get("fm") or "", said)
            return None
        if op in ("<", "<=", ">", ">=") and (
            not isinstance(operand, (int, float)) or isinstance(operand, bool)
        ):
            self.reason = (
                f"only numbers have an order, and {json.dumps(operand, ensure_ascii=False)} "
                "is none: compare text, true, false and null with = or ≠"
            )
            return None
        return "value", file, comparison_param(query, op, operand), holds

    def _operand(self, written: str) -> object:
        """A JSON value as a condition writes it (`2`, `true`, `"done"`, in backticks or
        not; `“done”` is text too), or _NO_VALUE with the reason."""
        text = written.strip()
        if len(text) > 1 and text[0] == text[-1] == "`":
            text = text[1:-1].strip()
        if len(text) > 1 and text[0] + text[-1] == "“”":
            return text[1:-1]
        try:
            value = json.loads(text, parse_constant=_not_finite)
        except (ValueError, RecursionError):
            value = _NO_VALUE
        if isinstance(value, float) and not math.isfinite(value):
            value = _NO_VALUE
        if value is _NO_VALUE:
            hint = (
                "JSON writes true, false and null in lower case"
                if text.lower() in ("true", "false", "null", "none")
                else f'text is written in double quotes ("{text}")'
            )
            self.reason = (
                f"`{text}` is not a JSON value to compare with: a number, true, false, null "
                f"or text; {hint}"
            )
        elif isinstance(value, (list, dict)):
            self.reason = (
                f"`{text}` is a JSON {'list' if isinstance(value, list) else 'object'}: "
                "compare with a number, true, false, null or text"
            )
            value = _NO_VALUE
        return value

    def _queried(self, groups: dict[str, str], file: str, positive: bool) -> DNF | None:
        """``F has at least N `QUERY` `` (more than, fewer than, at most) and `count of
        QUERY in F ≥ N` (>, <, ≤, =, ≠): how many values the query selects, a list's
        items counted (`count_at_least`)."""
        query = self._param("field", groups, file)
        if query is None:
            return None
        noun = self.lexicon.noun(query) if query == groups["quoted"] else None
        if noun is not None:  # `count of approvals in F`: the noun's query, no key `approvals`
            if noun.probe != "field" or (noun.file and noun.file != file):
                self.reason = (
                    f"'{query}' is a noun of the vocabulary, which counts no values of {file}"
                    f"{f' (its file is {noun.file})' if noun.file and noun.file != file else ''}"
                    ": a count counts what a JSON query selects; write the query in backticks"
                )
                return None
            query = noun.param
        written = _unquote(groups["count"])
        count = "1" if written.lower() == "one" else written
        # A comparison may say -1 (`≠ -1` always holds), a bound not (`at least -1`).
        if not re.fullmatch(r"-?[0-9]+" if groups.get("op") else "[0-9]+", count):
            self.reason = f"`{written}` is not a whole number to count to: write it in digits"
            return None
        n = int(count)
        if not groups.get("op"):
            bound = " ".join(groups["bound"].lower().split())
            least = n + (bound in ("more than", "at most", "no more than"))
            if least == 0:
                found: DNF = ((),) if positive else ()
                return self._vacuous(
                    found, f"a count {bound} 0", "a count is a whole number from 0"
                )
            return literal("count_at_least", file, f"{least} {query}", positive)
        op = self._op(groups["op"])
        if op is None:
            return None
        found = compared_count(
            op, n, lambda k, holds: LiteralSpec(Atom("count_at_least", file, f"{k} {query}"), holds)
        )
        return self._vacuous(found, f"a count {SIGNS[op]} {n}", "a count is a whole number from 0")

    def _counter(self, groups: dict[str, str]) -> DNF | None:
        """`COUNTER < N` (≤, >, ≥, =, ≠; `<=`, `>=`, `==`, `!=`): a counter of the state file
        compared with a whole number, as the core's fact `below` (`COUNTER < N`) and its
        negation say it: `retries > 2` is `retries ≥ 3`."""
        counter = groups["counter"]
        if counter.lower() in ("find", "finds", "found"):
            # `finds ≥ 1` is what a step finds, not a counter of the state file.
            self.reason = (
                f"'{counter}' is the outcome of a procedure's step, not a counter of the "
                "state file: write it in parentheses after the step, `Counts NOUN "
                "(finds ≥1)`"
            )
            return None
        op = self._op(groups["op"])
        if op is None:
            return None
        n = int(groups["limit"])
        found = compared_count(
            op, n, lambda k, holds: LiteralSpec(Atom("below", "", f"{counter}<{k}"), not holds)
        )
        return self._vacuous(
            found, f"a counter {SIGNS[op]} {n}", "a counter is a whole number from 0"
        )

    def _vacuous(self, found: DNF, said: str, why: str) -> DNF | None:
        """A comparison of a whole number from 0 as read: one that always holds is read as
        always, and `always` says why (the advice to write `-`); one that never holds is
        refused with the reason."""
        if found == ((),):
            self.always = f"{said} always holds ({why})"
        elif not found:
            self.reason = f"{said} never holds: {why}"
            return None
        return found

    def _op(self, written: str) -> str | None:
        """A comparison as `SIGNS` names it, or None with the reason."""
        op = _OPS.get(written)
        if op is None:
            self.reason = f"`{written}` is not a comparison the core reads: {_READ_OPS}"
        return op

    def _newer(self, groups: dict[str, str], file: str) -> _Fact | None:
        """`F is newer than G`; `F is older than G` is `G is newer than F`."""
        other = self.file(groups["other"])
        if other is None:
            return None
        if other == file:
            self.reason = f"{file} is never newer, nor older, than itself"
            return None
        if groups["comparison"].lower() == "older":
            return "newer", other, file, True
        return "newer", file, other, True

    def _newer_some(self, groups: dict[str, str], file: str) -> _Fact | None:
        """``some `tests/test_*.py` is newer than tickets.json``: a name the glob
        matches was modified after the file."""
        glob = self._globbed(groups, "")
        if glob is None:
            return None
        other = self.file(groups["other"])
        return None if other is None else ("newer_some", other, glob[2], True)

    def _newer_glob(self, groups: dict[str, str], file: str) -> _Fact | None:
        """A glob's names compared with a file any other way than `some`: what reads."""
        glob, other = groups["glob"].strip("`"), groups["other"].strip("`")
        self.reason = (
            "of the names a glob matches the core reads whether some is newer than a file: "
            f"write ``some `{glob}` is newer than {other}`` (or ``no `{glob}` is newer than "
            f"{other}``)"
        )
        return None

    def _globbed(self, groups: dict[str, str], file: str) -> _Fact | None:
        """`docs/*.md exists`, `some file matches docs/*.md`: some name in the workspace
        folder matches the glob (one with `*` or `?`)."""
        written = groups["glob"]
        name = written.strip().strip("`").strip()
        odd = _NOT_IN_A_GLOB.search(name)
        if odd:
            self.reason = (
                f"`{name}` is not a glob the core reads (`{odd.group()}` is no part of one: "
                "`*` and `?` within a name, `**` for any folders)"
            )
            return None
        path = self._inside(written, name)
        if path is None:
            return None
        parts = path.split("/")
        if any("**" in part and part != "**" for part in parts):
            self.reason = f"`{name}` has `**` within a name: `**` is a whole part, `docs/**/*.md`"
            return None
        if not parts[-1]:
            self.reason = f"`{name}` ends in `/`: a glob names files, `docs/*/*.md`"
            return None
        if parts[-1] == "**":
            self.reason = f"`{name}` ends in `**`: end it with the names to match, `**/*.md`"
            return None
        if not any(c in path for c in "*?"):
            # `some file matches TODO`: a search of text, or one file? Neither is read.
            self.reason = (
                f"`{name}` has no `*` or `?`: for one file write `{name} exists`, and to "
                "search a file's text `F matches `RE``"
            )
            return None
        return "glob", "", path, True

    def _paired(self, groups: dict[str, str], file: str) -> _Fact | None:
        """`every sql/*.up.sql has a sql/*.down.sql`: each name the first glob matches has
        the file the second names with what the first's `*` matched in place of its own."""
        globs = []
        for written in (groups["glob"], groups["partner"]):
            self.reason = _pair_problem(written.strip().strip("`").strip())
            fact = None if self.reason else self._globbed({"glob": written}, "")
            if fact is None:
                return None
            globs.append(fact[2])
        first, second = globs
        if first == second:
            self.reason = f"`{first}` twice: every name it matches is its own pair"
            return None
        return "paired", "", f"{first} {second}", True


def _pair_problem(path: str) -> str:
    """Why a glob cannot be one of a pair, or "": it has one `*`, and no `?` or `**`."""
    if "**" in path.split("/") or path.count("*") != 1 or "?" in path:
        return (
            f"`{path}` is not a glob of a pair: each has one `*`, which the same part of the "
            "names fills, and no `?` or `**` (`every sql/*.up.sql has a sql/*.down.sql`)"
        )
    return ""


def compared_count(op: str, n: int, least: Callable[[int, bool], LiteralSpec]) -> DNF:
    """A whole number that counts from 0 compared with `n` (`op` as `SIGNS` names it),
    said with `least(k, holds)`, the literal that it is at least k (or not): `> 2` is at
    least 3, `≤ 2` not at least 3, `= 2` at least 2 and not at least 3, `≠ 2` not at
    least 2 or at least 3. A comparison that always holds is `((),)`, one that never
    does `()`."""
    at_least = {">=": (n, True), ">": (n + 1, True), "<": (n, False), "<=": (n + 1, False)}
    if op in at_least:
        k, holds = at_least[op]
        if k <= 0:  # at least 0 (or -1): always
            return ((),) if holds else ()
        return ((least(k, holds),),)
    if n < 0:  # no count is -1: `= -1` never holds, `≠ -1` always does
        return () if op == "=" else ((),)
    if n == 0:  # `= 0`: not at least 1; `≠ 0`: at least 1
        return ((least(1, op != "="),),)
    if op == "=":  # exactly N: at least N, and not at least N + 1
        return ((least(n, True), least(n + 1, False)),)
    return ((least(n, False),), (least(n + 1, True),))


def shown_comparison(written: str) -> str:
    """A comparison as a reason says it (`>=` and `⩾` are `≥`), or as written if none."""
    op = _OPS.get(written)
    return SIGNS[op] if op else written


def _read_ops() -> str:
    """Every comparison `_OPS` reads, as a reason lists them: `≤ (<=, ⩽, ≦)`."""
    said = []
    for op, shown in SIGNS.items():
        also = [w for w in _OPS if _OPS[w] == op and w != shown]
        said.append(f"{shown} ({', '.join(also)})" if also else shown)
    return f"{', '.join(said[:-1])} or {said[-1]}"


_READ_OPS = _read_ops()


def _counting(file: str, query: str, fm: str) -> str:
    """The phrases that count what a query selects, for a reason."""
    where = f"{file}{' frontmatter' if fm else ''}"
    return f"`count of `{query}` in {where} ≥ N` (or `{where} has at least N `{query}``)"


def _objects(file: str, query: str, fm: str, said: str) -> str:
    """Why a query that selects only objects is compared with a value: it never is one."""
    return (
        f"`{query}` selects objects (what a filter keeps, or what {file}'s template or "
        f"vocabulary holds there), and no object compares {said}: to count them write "
        f"{_counting(file, query, fm)}; to ask whether there is one, "
        f"`{file}{' frontmatter' if fm else ''} has `{query}``; to compare a key of each, "
        f"`{query}.KEY`"
    )


def _untyped(shapes: Shapes, file: str, query: str, fm: str) -> str:
    """Why a well-formed query is not one of the file, or "": a key its JSON template
    does not have, or `.length` / `.size` / `.count` where a count is meant."""
    m = re.fullmatch(r"(?P<base>.+)\.(?P<key>length|size|count|len)", query)
    if m and (
        shapes.objects(file, m["base"]) or (m["key"] != "count" and not shapes.has_key(file, query))
    ):
        return (
            f"`{query}` asks for a key called `{m['key']}` (JSON has no {m['key']} of a "
            f"list): to count what `{m['base']}` selects, write "
            f"{_counting(file, m['base'], fm)}"
        )
    return shapes.missing_key(file, query)


# The facts `CorePhrases._core` reads with a method of their own, by their name in `_CORE`.
_FACTS: dict[str, Callable[[CorePhrases, dict[str, str], str], _Fact | None]] = {
    "compared": CorePhrases._compared,
    "newer": CorePhrases._newer,
    "globbed": CorePhrases._globbed,
    "paired": CorePhrases._paired,
    "newer_some": CorePhrases._newer_some,
    "newer_glob": CorePhrases._newer_glob,
}
