"""Conditions: a Condition cell's words, read as facts of the generic core.

A cell is `-` (always), or clauses joined by `AND`, `;` or `,`, in alternatives
joined by `OR` (`AND` binds tighter). A clause is one of:

- a core phrase: `F exists`, `F is missing`, `F is absent`, `F doesn't exist`,
  `there is no F`, `F matches `RE``, `F contains `TEXT``, `F has checklist items
  under "SECTION"`, `F has unchecked items under "SECTION"`, `F has `QUERY``,
  `COUNTER < N`, `COUNTER ≥ N`, `in this state for more than N minutes`, `the
  command `KEY` of F passes` (or `fails`), each with its negation (`F has no ...`);
- a noun of the machine's vocabulary: `≥1 NOUN in F`, `at least one NOUN in F`,
  `no NOUN in F`, `NOUN found [in F]`, `no NOUN found`, `F has [a] NOUN`, `F has no NOUN`;
- a term, from the spec's Terms table or the vocabulary: its meaning, read the same way;
- a step of a procedure, with its outcome in parentheses: `Reads F content` (F
  exists and can be read; the clauses after it are about F), `Checks F exists
  (missing)`, `Counts NOUN (finds ≥1)` (a description such as `(lines starting with
  `- [ ]`)` before the outcome narrows a checklist to its unchecked items),
  `Extracts NOUN from content (finds none)`, `Checks F for NOUN (finds some)`;
- `NOT clause`; `label (clause)`, which means its clause.

Anything else is an unknown fact: kept as an opaque atom, so coverage is still
computed, and reported (`unknown_condition`). Files may be written with the
workspace folder in front (`.ai/task/plan.md`); atoms name them relative to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import product

from spellbook.probes import describe as core_words
from spellbook.probes import implied as core_implied

from .lexicon import Lexicon, normal
from .model import Atom, Condition, Literal

ALWAYS = frozenset({"", "-", "\u2013", "\u2014", "always", "(none)", "none"})
# A condition whose alternatives multiply past this is not expanded.
MAX_CLAUSES = 64
MAX_DEPTH = 8

DNF = tuple[tuple[Literal, ...], ...]

_FILE = r"(?P<file>`[^`\s]+`|[\w.\-/]*\w\.\w[\w\-]*)"
_QUOTED = r"(?P<quoted>`[^`]+`|\"[^\"]+\"|“[^”]+”)"
_SECTION = r"(?P<section>`[^`]+`|\"[^\"]+\"|“[^”]+”|the [\w ]+ section|[\w ]+)"


@dataclass
class Words:
    """How facts are said, gathered while reading: atom -> (when it holds, when not)."""

    said: dict[Atom, tuple[str, str]] = field(default_factory=dict)

    def learn(self, atom: Atom, yes: str = "", no: str = "") -> None:
        old_yes, old_no = self.said.get(atom, ("", ""))
        self.said[atom] = (old_yes or yes, old_no or no)


def _literal(probe: str, file: str, param: str = "", positive: bool = True) -> DNF:
    return ((Literal(Atom(probe, file, param), positive),),)


class _Reader:
    def __init__(self, lexicon: Lexicon, workspace: str, words: Words) -> None:
        self.lexicon = lexicon
        self.prefix = workspace.rstrip("/") + "/" if workspace else ""
        self.words = words
        self.unknown: list[str] = []
        self.terms: list[str] = []  # terms being expanded, against cycles

    # -- files and outcomes --

    def file(self, written: str) -> str:
        path = written.strip().strip("`").strip()
        while path.startswith("./"):
            path = path[2:]
        if self.prefix and path.startswith(self.prefix):
            path = path[len(self.prefix) :]
        return path

    # -- the cell --

    def condition(self, text: str) -> DNF | None:
        alternatives: list[tuple[Literal, ...]] = []
        for alternative in _split(text, _OR):
            found = self.conjunction(alternative)
            if found is None:
                return None
            alternatives.extend(found)
        return _simplify(alternatives)

    def conjunction(self, text: str) -> DNF | None:
        result: DNF = ((),)
        context = [""]  # the file the procedure has read, for the clauses after it
        for clause in _split(text, _AND):
            found = self.clause(clause, context)
            if found is None:
                return None
            result = _and(result, found)
        return result

    def clause(self, text: str, context: list[str]) -> DNF | None:
        """The clause as alternatives of literals; unknown clauses become opaque atoms."""
        phrase = " ".join(text.split()).rstrip(".").strip()
        if not phrase:
            return ((),)
        found = self._known(phrase, context)
        if found is not None:
            return found
        self.unknown.append(phrase)
        return _literal("unknown", "", phrase)

    def _known(self, phrase: str, context: list[str]) -> DNF | None:
        negated = re.fullmatch(r"(?:NOT|not)\s+(?P<rest>.+)", phrase)
        if negated:
            inner = self._known(negated.group("rest"), context)
            return None if inner is None else _not(inner)
        for reader in (self._term, self._procedure, self._core, self._noun, self._labelled):
            found = reader(phrase, context)
            if found is not None:
                return found
        return None

    # -- terms: the spec's, then the vocabulary's --

    def _term(self, phrase: str, context: list[str]) -> DNF | None:
        key = normal(phrase)
        term = self.lexicon.terms.get(key)
        if term is None or key in self.terms or len(self.terms) >= MAX_DEPTH:
            return None
        self.terms.append(key)
        try:
            unknown_before = len(self.unknown)
            found = self.condition(term.means)
            if found is None or len(self.unknown) > unknown_before:
                del self.unknown[unknown_before:]
                return None
        finally:
            self.terms.pop()
        if len(found) == 1 and len(found[0]) == 1:
            (lit,) = found[0]
            said = " ".join(phrase.split())
            self.words.learn(lit.atom, *((said, "") if lit.positive else ("", said)))
        return found

    # -- procedures: `Reads F content; Counts NOUN (finds ≥1)` --

    def _procedure(self, phrase: str, context: list[str]) -> DNF | None:
        reads = _READS.fullmatch(phrase)
        if reads:
            context[0] = self.file(reads.group("file"))
            return _literal("exists", context[0])
        m = _OUTCOME.fullmatch(phrase)
        if m is None:
            return None
        sign = _sign(m.group("outcome"))
        if sign is None:
            return None
        body = m.group("body").strip()
        checks = _CHECKS_EXISTS.fullmatch(body)
        if checks:
            return _literal("exists", self.file(checks.group("file")), positive=sign)
        for pattern in _NOUN_STEPS:
            step = pattern.fullmatch(body)
            if step:
                groups = step.groupdict()
                file = self.file(groups["file"]) if groups.get("file") else context[0]
                found = self.noun(groups["noun"], file, groups.get("desc") or "")
                if found is not None:
                    return _literal(*found, positive=sign)
        return None

    def noun(self, words: str, file: str, description: str = "") -> tuple[str, str, str] | None:
        """The atom a noun of the vocabulary names, about `file` (or its usual file)."""
        desc = _TRAILING_DESC.fullmatch(words)
        if desc:
            words, description = desc.group("words"), desc.group("desc")
        noun = self.lexicon.noun(words)
        if noun is None:
            return None
        file = file or noun.file
        if not file:
            return None
        probe = noun.probe
        if "- [x]" in description.lower():
            return None  # checked items alone: the core has no such fact
        narrowed = "- [ ]" in description and probe == "items"
        if narrowed:
            probe = "unchecked"
        atom = Atom(probe, file, noun.param)
        for fact in (atom, *implied(atom)):
            said = self.lexicon.noun_for(fact.probe, fact.param)
            if said is not None:
                self.words.learn(fact, said.yes.format(file=file), said.no.format(file=file))
        return (atom.probe, atom.file, atom.param)

    # -- the core's own phrases --

    def _core(self, phrase: str, context: list[str]) -> DNF | None:
        for regex, probe, positive in _CORE:
            m = regex.fullmatch(phrase)
            if m is None:
                continue
            groups = m.groupdict()
            file = self.file(groups["file"]) if groups.get("file") else ""
            if probe in ("items", "unchecked"):
                param = _unquote(groups["section"]).removeprefix("the ").removesuffix(" section")
            elif probe == "matches":
                text = _unquote(groups["quoted"])
                param = re.escape(text) if "contain" in phrase.lower() else text
                try:
                    re.compile(param)
                except re.error:
                    return None
            elif probe == "below":
                param = f"{groups['counter']}<{groups['limit']}"
            elif probe in ("field", "passes"):
                param = _unquote(groups["quoted"])
            elif probe == "over_minutes":
                param = groups["minutes"]
            else:
                param = ""
            return _literal(probe, file, param, positive)
        return None

    # -- nouns of the vocabulary: `≥1 NOUN in FILE`, `NOUN found` --

    def _noun(self, phrase: str, context: list[str]) -> DNF | None:
        for regex, positive in _NOUN_PHRASES:
            m = regex.fullmatch(phrase)
            if m is None:
                continue
            groups = m.groupdict()
            file = self.file(groups["file"]) if groups.get("file") else context[0]
            found = self.noun(groups["noun"], file)
            if found is not None:
                return _literal(*found, positive=positive)
        return None

    def _labelled(self, phrase: str, context: list[str]) -> DNF | None:
        m = _LABELLED.fullmatch(phrase)
        if m is None:
            return None
        return self._known(m.group("inner").strip(), context)


# -- the grammar's patterns ---------------------------------------------------------

_OR = re.compile(r"\s+OR\s+")
_AND = re.compile(r"\s+AND\s+|\s*;\s*|\s*,\s*")
_LABELLED = re.compile(r"(?P<label>[^()]+?)\s*\((?P<inner>[^()]+)\)")
_OUTCOME = re.compile(r"(?P<body>.+?)\s*\((?P<outcome>[^()]*)\)")
_TRAILING_DESC = re.compile(r"(?P<words>[^()]+?)\s*\((?P<desc>[^()]*)\)")
_READS = re.compile(rf"reads? {_FILE}(?: (?:content|contents|text|frontmatter))?", re.I)
_CHECKS_EXISTS = re.compile(
    rf"checks? (?:(?:whether|if|that) )?{_FILE}(?: (?:exists|is present))?", re.I
)
_NOUN_STEPS = tuple(
    re.compile(p, re.I)
    for p in (
        rf"counts? (?P<noun>.+?)(?: in {_FILE})?",
        rf"(?:extracts?|finds?|looks? for|searches? for) (?P<noun>.+?)"
        rf" (?:from|in) (?:the )?(?:content|contents|text|{_FILE})",
        rf"checks? {_FILE} for (?P<noun>.+)",
        rf"searches? {_FILE} for (?P<noun>.+)",
    )
)
_NOUN_PHRASES = tuple(
    (re.compile(p, re.I), positive)
    for p, positive in (
        (rf"(?:≥|>=)\s*1 (?P<noun>.+?) in {_FILE}", True),
        (rf"(?:at least one|one or more|some|any) (?P<noun>.+?) in {_FILE}", True),
        (rf"no (?P<noun>.+?) in {_FILE}", False),
        (rf"no (?P<noun>.+?) found(?: in {_FILE})?", False),
        (rf"(?P<noun>.+?) found(?: in {_FILE})?", True),
        (rf"{_FILE} has no (?P<noun>.+)", False),
        (rf"{_FILE} (?:has|contains) (?:an? |some |any )?(?P<noun>.+)", True),
    )
)
_CORE = tuple(
    (re.compile(p, re.I), probe, positive)
    for p, probe, positive in (
        (rf"{_FILE} (?:exists|is present)", "exists", True),
        (rf"{_FILE} (?:is )?(?:missing|absent)", "exists", False),
        (rf"{_FILE} (?:doesn't|does not|don't|do not) exist", "exists", False),
        (rf"(?:there is )?no {_FILE}", "exists", False),
        (rf"{_FILE} (?:matches|contains) {_QUOTED}", "matches", True),
        (rf"{_FILE} (?:doesn't|does not) (?:match|contain) {_QUOTED}", "matches", False),
        (
            rf"{_FILE} has (?:an? )?unchecked (?:checklist )?items? under {_SECTION}",
            "unchecked",
            True,
        ),
        (rf"{_FILE} has no unchecked (?:checklist )?items? under {_SECTION}", "unchecked", False),
        (rf"{_FILE} has (?:a )?checklist items? under {_SECTION}", "items", True),
        (rf"{_FILE} has no checklist items? under {_SECTION}", "items", False),
        (rf"{_FILE} has {_QUOTED}", "field", True),
        (rf"{_FILE} has no {_QUOTED}", "field", False),
        (r"(?P<counter>\w+)\s*<\s*(?P<limit>\d+)", "below", True),
        (r"(?P<counter>\w+)\s*(?:>=|≥)\s*(?P<limit>\d+)", "below", False),
        (r"in this state (?:for )?more than (?P<minutes>\d+) min(?:utes?)?", "over_minutes", True),
        (r"in this state for (?P<minutes>\d+) min(?:utes?)? or less", "over_minutes", False),
        (rf"(?:the )?command {_QUOTED} (?:of|in) {_FILE} (?:passes|succeeds)", "passes", True),
        (rf"(?:the )?command {_QUOTED} (?:of|in) {_FILE} fails", "passes", False),
    )
)
_POSITIVE = re.compile(
    r"(?:finds? |found )?(?:exists|present|found|yes|true|some|any|at least one|one or more"
    r"|(?:≥|>=)\s*1|>\s*0|[1-9]\d*)",
    re.I,
)
_NEGATIVE = re.compile(
    r"(?:finds? |found )?(?:missing|absent|(?:doesn't|does not|don't|do not) exist|not found"
    r"|no|none|nothing|0|zero|false)",
    re.I,
)


def _sign(outcome: str) -> bool | None:
    text = " ".join(outcome.split())
    if _POSITIVE.fullmatch(text):
        return True
    if _NEGATIVE.fullmatch(text):
        return False
    return None


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) > 1 and text[0] + text[-1] in ("``", '""', "“”"):
        return text[1:-1]
    return text


def _split(text: str, separator: re.Pattern[str]) -> Iterator[str]:
    """`text` split at `separator`, except inside backticks, quotes or parentheses."""
    start, depth, quoted = 0, 0, ""
    i = 0
    while i < len(text):
        char = text[i]
        if quoted:
            if char == quoted:
                quoted = ""
        elif char in '`"':
            quoted = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = separator.match(text, i)
            if m and m.end() > i:
                yield text[start:i]
                start = i = m.end()
                continue
        i += 1
    yield text[start:]


# -- alternatives of conjunctions -----------------------------------------------------


def _and(left: DNF, right: DNF) -> DNF:
    return _simplify([a + b for a, b in product(left, right)])


def _not(dnf: DNF) -> DNF:
    """NOT of alternatives: every alternative fails, i.e. one literal of each is false."""
    result: DNF = ((),)
    for clause in dnf:
        result = _and(result, tuple((Literal(lit.atom, not lit.positive),) for lit in clause))
    return result


def _simplify(clauses: list[tuple[Literal, ...]] | DNF) -> DNF:
    """Each conjunction's literals once, contradictions dropped, each conjunction once."""
    seen: dict[tuple[Literal, ...], None] = {}
    for clause in clauses:
        literals = tuple(dict.fromkeys(clause))
        atoms = {lit.atom: lit.positive for lit in literals}
        if len(atoms) < len(literals):
            continue  # a fact and its negation: never holds
        seen.setdefault(literals, None)
    return tuple(seen)[: MAX_CLAUSES + 1]


# -- the module's interface ------------------------------------------------------------


def parse_condition(
    text: str, lexicon: Lexicon | None = None, workspace: str = "", words: Words | None = None
) -> Condition:
    """Read a Condition cell; unknown phrases are kept as opaque atoms, never raised."""
    reader = _Reader(lexicon or Lexicon(), workspace, words if words is not None else Words())
    normal_text = " ".join(text.split())
    if normal_text.lower() in ALWAYS:
        return Condition(text, ((),))
    found = reader.condition(normal_text)
    if found is None or len(found) > MAX_CLAUSES:
        reader.unknown = [normal_text]
        found = _literal("unknown", "", normal_text)
    return Condition(text, found, tuple(dict.fromkeys(reader.unknown)))


def parse_indicators(
    text: str, lexicon: Lexicon | None = None, workspace: str = "", words: Words | None = None
) -> tuple[tuple[Literal, ...], bool]:
    """The file facts a state's Indicators name, and whether every part was understood.

    `.ai/task/task.md exists; .ai/task/task-results.md doesn't exist` gives two
    literals. Parts about the state file itself ("state.json shows ...") are not
    facts about the workspace's files, so such a state cannot be told from its files.
    """
    reader = _Reader(lexicon or Lexicon(), workspace, words if words is not None else Words())
    literals: list[Literal] = []
    complete = True
    for part in _INDICATOR_SPLIT.split(" ".join(text.replace("`", "").split())):
        if not part:
            continue
        found = reader._known(part.strip().rstrip("."), [""])
        if found is None or len(found) != 1:
            complete = False
        else:
            literals.extend(lit for lit in found[0] if lit not in literals)
    return tuple(literals), complete and bool(literals)


_INDICATOR_SPLIT = re.compile(r"\s*;\s*|\s+(?:and|but)\s+", re.IGNORECASE)


def implied(atom: Atom) -> tuple[Atom, ...]:
    """Every atom that must hold when `atom` holds (transitively), excluding itself."""
    return tuple(Atom(*fact) for fact in core_implied(atom.probe, atom.file, atom.param))


def describe(literal: Literal, words: dict[Atom, tuple[str, str]] | None = None) -> str:
    """The literal in plain words: the spec's or vocabulary's where they have some
    (a noun's `yes`/`no`, a term's phrase), else the core's (`task.md missing`)."""
    said = (words or {}).get(literal.atom, ("", ""))[0 if literal.positive else 1]
    if said:
        return said
    atom = literal.atom
    return core_words(atom.probe, atom.file, atom.param, literal.positive)


def examples(lexicon: Lexicon, files: list[str]) -> list[str]:
    """Phrases the grammar reads about `files`, for did-you-mean hints."""
    found: list[str] = ["attempts < 3", "in this state for more than 30 minutes"]
    for file in files:
        found += [
            f"{file} exists",
            f"{file} is missing",
            f"there is no {file}",
            f"{file} matches `pattern`",
            f'{file} has checklist items under "Section"',
            f"Reads {file} content",
            f"Checks {file} exists (missing)",
        ]
    for _, noun in lexicon.nouns:
        file = noun.file or (files[0] if files else "FILE")
        found += [
            f"≥1 {noun.name} in {file}",
            f"no {noun.name} in {file}",
            f"{noun.name} found",
            f"Counts {noun.name} (finds ≥1)",
        ]
    found += [t.phrase for t in lexicon.terms.values()]
    return found


def files_in(text: str) -> list[str]:
    """The file names a phrase mentions."""
    return [m.strip("`") for m in re.findall(_FILE, text)]
