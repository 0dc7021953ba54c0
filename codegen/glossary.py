"""The glossary: every condition phrase a spec may use, the atom it means, and what implies what.

A Condition cell is `-` (always) or phrases joined by `AND`. Each phrase is
looked up here and becomes one or more literals over atoms. An atom is a probe
(a kind of fact the runtime knows how to check, implemented once) applied to an
argument, usually a file named relative to the machine's workspace folder
(`.ai/task/` for the spell workflow). So `task.md exists` and `comments.md
missing` need no new code: they are the `exists` probe on two files.

A phrase written `label (phrase)` means its parenthesised phrase; the label is
for the reader. A phrase not found here is reported as `unknown_condition` and
kept as an opaque atom, so coverage is still computed for its row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Atom, Condition, Literal


@dataclass(frozen=True)
class Probe:
    """A kind of fact about the workspace; the runtime implements each probe once."""

    name: str
    yes: str
    no: str
    meaning: str
    implies: tuple[str, ...] = ()


PROBES: dict[str, Probe] = {
    p.name: p
    for p in (
        Probe(
            "exists",
            "{arg} exists",
            "{arg} missing",
            "The file exists in the workspace folder.",
        ),
        Probe(
            "has_ac",
            "{arg} has acceptance criteria",
            "{arg} has no acceptance criteria",
            "The file's `Acceptance Criteria` section has at least one checklist item "
            "(`- [ ]` or `- [x]`).",
            implies=("exists",),
        ),
        Probe(
            "has_unchecked_ac",
            "{arg} has unchecked acceptance criteria",
            "{arg} has no unchecked acceptance criteria",
            "The file's `Acceptance Criteria` section has at least one unchecked item (`- [ ]`).",
            implies=("has_ac",),
        ),
        Probe(
            "has_atlassian_urls",
            "{arg} has Atlassian URLs",
            "{arg} has no Atlassian URLs",
            "The file links to Jira or Confluence: a URL on an `atlassian.net` host, "
            "or a `/browse/KEY-123` or `/wiki/` link.",
            implies=("exists",),
        ),
        Probe(
            "has_pending",
            "{arg} has a pending feature",
            "{arg} has no pending feature",
            'The feature list (`{"features": [{"id": ..., "status": ...}]}`) has a feature '
            'whose status is "pending".',
            implies=("exists",),
        ),
        Probe(
            "has_next",
            "{arg} has another pending feature",
            "{arg} has no other pending feature",
            "The feature list has a pending feature other than the session's current one "
            "(`feature_id` in the state file).",
            implies=("has_pending",),
        ),
        Probe(
            "tests_pass",
            "tests pass",
            "tests fail",
            "The project's test command exits with status 0: `test_command` in the feature "
            "list, or the SPELLBOOK_TEST_COMMAND environment variable. It is run, not judged.",
        ),
        Probe(
            "below",
            "{counter} < {limit}",
            "{counter} ≥ {limit}",
            "A counter in the state file (`attempts`) is below a limit: `attempts<3`.",
        ),
        Probe(
            "over_minutes",
            "in this state for more than {arg} minutes",
            "in this state for {arg} minutes or less",
            "The state was entered (`entered_at` in the state file) more than so many minutes ago.",
        ),
        Probe(
            "unknown",
            "'{arg}' holds",
            "'{arg}' does not hold",
            "A phrase the glossary does not know; no guard can check it.",
        ),
    )
}


@dataclass(frozen=True)
class Phrase:
    """One way of writing a literal: a pattern over the phrase, the probe, and its sign."""

    pattern: str
    probe: str
    positive: bool
    default_arg: str = ""
    example: str = ""


_FILE = r"`?(?P<arg>[\w.\-/]*\w\.\w+)`?"
_AT_LEAST_ONE = r"(?:≥\s*1|>=\s*1|at least one|one or more)"
_AC = r"(?:ACs?|acceptance criteri(?:on|a))"

PHRASES: tuple[Phrase, ...] = (
    Phrase(rf"{_FILE} exists", "exists", True, example="task.md exists"),
    Phrase(rf"{_FILE} (?:is )?missing", "exists", False, example="plan.md missing"),
    Phrase(
        rf"{_FILE} (?:doesn't|does not|don't|do not) exist",
        "exists",
        False,
        example="task.md doesn't exist",
    ),
    Phrase(rf"{_AT_LEAST_ONE} {_AC} in {_FILE}", "has_ac", True, example="≥1 AC in plan.md"),
    Phrase(rf"no {_AC} in {_FILE}", "has_ac", False, example="No AC in plan.md"),
    Phrase(
        rf"{_AT_LEAST_ONE} unchecked {_AC} in {_FILE}",
        "has_unchecked_ac",
        True,
        example="≥1 unchecked AC in plan.md",
    ),
    Phrase(
        rf"no unchecked {_AC} in {_FILE}",
        "has_unchecked_ac",
        False,
        example="No unchecked AC in plan.md",
    ),
    Phrase(
        rf"atlassian urls found(?: in {_FILE})?",
        "has_atlassian_urls",
        True,
        default_arg="plan.md",
        example="Atlassian URLs found",
    ),
    Phrase(
        rf"no atlassian urls found(?: in {_FILE})?",
        "has_atlassian_urls",
        False,
        default_arg="plan.md",
        example="No Atlassian URLs found",
    ),
    Phrase(
        rf"{_FILE} has an? pending feature",
        "has_pending",
        True,
        example="feature-list.json has a pending feature",
    ),
    Phrase(
        rf"{_FILE} has no pending features?",
        "has_pending",
        False,
        example="feature-list.json has no pending feature",
    ),
    Phrase(
        rf"{_FILE} has another pending feature",
        "has_next",
        True,
        example="feature-list.json has another pending feature",
    ),
    Phrase(
        rf"{_FILE} has no other pending features?",
        "has_next",
        False,
        example="feature-list.json has no other pending feature",
    ),
    Phrase(r"(?:all )?tests pass", "tests_pass", True, example="tests pass"),
    Phrase(r"(?:the )?tests fail(?:ed)?", "tests_pass", False, example="tests fail"),
    Phrase(r"(?P<arg>\w+\s*<\s*\d+)", "below", True, example="attempts < 3"),
    Phrase(r"(?P<counter>\w+)\s*(?:>=|≥)\s*(?P<limit>\d+)", "below", False, example="attempts ≥ 3"),
    Phrase(
        r"in this state (?:for )?more than (?P<arg>\d+) min(?:utes?)?",
        "over_minutes",
        True,
        example="in this state for more than 30 minutes",
    ),
)

# Phrases defined by other phrases. The spell workflow defines "No PR review in
# progress" in its own words: there is no comments.md or review-task.md yet.
ALIASES: dict[str, str] = {
    "no pr review in progress": "comments.md missing AND review-task.md missing",
}

ALWAYS = frozenset({"", "-", "\u2013", "\u2014", "always", "(none)"})

_COMPILED = tuple((re.compile(p.pattern, re.IGNORECASE), p) for p in PHRASES)
_LABELLED = re.compile(r"(?P<label>[^()]+?)\s*\((?P<inner>[^()]+)\)")
_AND = re.compile(r"\s+AND\s+")


def parse_condition(text: str, workspace: str = "") -> Condition:
    """Parse a Condition cell into literals; unknown phrases are kept, never raised.

    Files may be named with the workspace folder in front (`.ai/task/plan.md`);
    the atom names them relative to it (`plan.md`).
    """
    normal = " ".join(text.split())
    if normal.lower() in ALWAYS:
        return Condition(text, ())
    literals: list[Literal] = []
    unknown: list[str] = []
    for phrase in _AND.split(normal):
        found = _relative(_lookup(phrase), workspace)
        if found is None:
            unknown.append(phrase)
            found = (Literal(Atom("unknown", phrase), True),)
        for literal in found:
            if literal not in literals:
                literals.append(literal)
    return Condition(text, tuple(literals), tuple(unknown))


def _lookup(phrase: str, depth: int = 0) -> tuple[Literal, ...] | None:
    phrase = phrase.strip().rstrip(".").strip()
    alias = ALIASES.get(phrase.lower())
    if alias is not None and depth < 4:
        literals: list[Literal] = []
        for part in _AND.split(alias):
            found = _lookup(part, depth + 1)
            if found is None:
                return None
            literals.extend(found)
        return tuple(literals)
    for regex, entry in _COMPILED:
        m = regex.fullmatch(phrase)
        if m:
            groups = m.groupdict()
            if groups.get("counter"):  # `attempts >= 3` is `attempts < 3` negated
                arg = f"{groups['counter']}<{groups['limit']}"
            else:
                arg = groups.get("arg") or entry.default_arg
            return (Literal(Atom(entry.probe, _clean_arg(arg)), entry.positive),)
    labelled = _LABELLED.fullmatch(phrase)
    if labelled and depth < 4:
        return _lookup(labelled.group("inner"), depth + 1)
    return None


def _clean_arg(arg: str) -> str:
    arg = "".join(arg.split()) if "<" in arg else arg  # `attempts < 3` -> `attempts<3`
    return arg[2:] if arg.startswith("./") else arg


def _relative(found: tuple[Literal, ...] | None, workspace: str) -> tuple[Literal, ...] | None:
    prefix = workspace.rstrip("/") + "/" if workspace else ""
    if found is None or not prefix:
        return found
    return tuple(
        Literal(Atom(lit.atom.probe, lit.atom.arg[len(prefix) :]), lit.positive)
        if lit.atom.arg.startswith(prefix)
        else lit
        for lit in found
    )


_INDICATOR_SPLIT = re.compile(r"\s*;\s*|\s+(?:and|but)\s+", re.IGNORECASE)


def parse_indicators(text: str, workspace: str = "") -> tuple[tuple[Literal, ...], bool]:
    """The file facts a state's Indicators name, and whether every part was understood.

    `.ai/task/task.md exists; .ai/task/task-results.md doesn't exist` gives two
    literals. Parts about the state file itself ("state.json shows ...") are not
    facts about the workspace's files, so such a state cannot be told from its files.
    """
    literals: list[Literal] = []
    complete = True
    for part in _INDICATOR_SPLIT.split(" ".join(text.replace("`", "").split())):
        if not part:
            continue
        found = _relative(_lookup(part), workspace)
        if found is None:
            complete = False
        else:
            literals.extend(lit for lit in found if lit not in literals)
    return tuple(literals), complete and bool(literals)


def implied(atom: Atom) -> tuple[Atom, ...]:
    """Every atom that must hold when `atom` holds (transitively), excluding itself."""
    out: list[Atom] = []
    stack = list(PROBES[atom.probe].implies)
    while stack:
        implied_atom = Atom(stack.pop(), atom.arg)
        if implied_atom not in out:
            out.append(implied_atom)
            stack.extend(PROBES[implied_atom.probe].implies)
    return tuple(out)


def describe(literal: Literal) -> str:
    """The literal in plain words, e.g. `plan.md exists` or `task.md missing`."""
    probe = PROBES[literal.atom.probe]
    counter, _, limit = literal.atom.arg.partition("<")
    words = probe.yes if literal.positive else probe.no
    return words.format(arg=literal.atom.arg, counter=counter, limit=limit)
