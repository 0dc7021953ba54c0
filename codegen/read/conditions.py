"""Conditions: a Condition cell's words, read as facts of the generic core.

A cell is `-` (always), `never`, or clauses joined by `AND`, `;` or `,`, in alternatives
joined by `OR` (`AND` binds tighter; parentheses group); a UML guard's brackets around
the whole cell (`[attempts < 3]`) are dropped. A clause is one of:

- a fact of the generic core, in the words its kind gives it: `spellbook.facts.probes.PROBES`
  is the one list of the kinds of fact, each with its words when it holds (`yes`)
  and when not (`no`), every one of which reads back as that fact (`F exists`, `some
  `GLOB` is newer than F`, `every `GLOB` has a `GLOB``, `F has matches of `RE` not
  listed in LEDGER`, `the last recorded run of `KEY` passed`, ...). Spellings read
  besides (`read.core_phrases`), with those words: `F is missing`, `F is absent`, `F doesn't exist`,
  `there is no F`, `F is filled in`, `F is not filled in` (`F is still its
  template`), `F matches `RE``, `F contains `TEXT``, `F has a section "SECTION"`,
  `F has checklist items under "SECTION"`, `F has unchecked items under "SECTION"`,
  `F has at least N checklist (or unchecked, or checked) items under "SECTION"`
  (`more than N`; negated, `fewer than N`, `at most N`), `F has text under
  "SECTION"` (each "no" of a section, `F has no unchecked items under "SECTION"`,
  says the section is there too; `F has no section "SECTION" with unchecked items`
  is the negation alone), `F.json has `QUERY``, `count of QUERY in F.json ≥ N` (or
  `F.json has at least N `QUERY``),
  `F.json has `QUERY` OP VALUE` (`=`, `≠`, `<`, `≤`, `>`, `≥`, a JSON value; the
  other spellings of each, `==`, `!=`, `<=`, `⩽`, ..., are `core_phrases._OPS`'s),
  `F.json has `QUERY` matching `RE``, `F is newer than G` (`F is older than G` is
  `G is newer than F`), `GLOB exists` / `no GLOB` / `some file matches GLOB` (a name
  with `*` or `?`), `COUNTER < N`, `COUNTER ≥ N` (`>`, `≤`, `=`, `≠`, `>=`, `<=`, `==`,
  `!=` too, as those two say them; a counter or a count compared so that it always
  holds, `attempts >= 0`, reads as always, kept in `Condition.vacuous` for the advice to
  write `-`), `in this state for more than N
  minutes` (or hours, days, weeks: read in minutes), `the command `KEY` of F
  passes` (or `fails`), each with its negation (`F has no ...`, `... or less`,
  `F is not newer than G`);
- a noun of the machine's vocabulary: `≥1 NOUN in F`, `at least one NOUN in F`,
  `no NOUN in F`, `NOUN found [in F]`, `no NOUN found`, `F has [a] NOUN`, `F has no NOUN`;
- a term, from the spec's Terms table or the vocabulary: its meaning, read the same way;
- a step of a procedure, with its outcome in parentheses: `Reads F content` (F
  exists and can be read; the clauses after it are about F), `Checks F exists
  (missing)`, `Counts NOUN (finds ≥1)` (a description such as `(lines starting with
  `- [ ]`)` before the outcome narrows a checklist to its unchecked items; any
  other description is unknown), `Extracts NOUN from content (finds none)`,
  `Checks F for NOUN (finds some)`;
- `NOT clause`; `(clauses)`; `label (clauses)`, which means its clauses (but never
  when the parentheses hold a step's outcome: `Counts mitigation steps (finds ≥1)`
  with no such noun is unknown, not a counter `finds`; nor when the label is no
  label: `not (x.md exists)`, `a.md exists (b.md exists)`, `Checks a.md exists
  (b.md exists)`, whose words reading the parentheses alone would drop).

Anything else is an unknown fact: kept as an opaque atom, so coverage is still
computed, and reported (`unknown_condition`), with the reason where the reader
has one (a pattern that is not a regular expression, a path outside the
workspace, a name that is a placeholder, a unit of time with no fixed length, text
compared by order, an exact count, objects compared with a value, a section the
file's template has no heading for, ...). Files may be written
with the workspace folder in front (`.ai/task/plan.md`); atoms name them
relative to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from spellbook.facts.json_values import is_json

from ..logic import DNF, MAX_CLAUSES, TooComplex, conjoin, implied, negate, simplify
from ..model import Atom, Condition, LiteralSpec
from .core_phrases import _FILE, _LEDGER, CorePhrases, literal, said_of
from .identifiers import split_outside
from .lexicon import (
    EMPTY,
    Lexicon,
    beside_workspace,
    normal,
    outside_hint,
    repository_path,
    workspace_path,
)
from .markdown import html_comment_in_cell
from .own_phrases import always, guard, method_name, own_condition, path_in, signs
from .shapes import Shapes

# A cell that always holds: nothing in it, `-`, `None`, `always`, or `n/a` (not
# applicable: no condition applies), as a light table's Condition cell `N/A` is.
ALWAYS = EMPTY | {"always", "n/a", "(n/a)"}
# A cell that never holds: the reading of a condition whose alternatives all contradict
# themselves (`a.md exists AND a.md missing`), said back.
NEVER = "never"


# The grammar's words (AND, OR, NOT in capitals) left in a clause: a join or a denial
# with nothing on one side (`a AND`, `a OR OR b`, `card NOT expired`).
@cache
def _grammar_left() -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:AND|OR|NOT)(?![\w-])")


# Terms may name terms this deep.
MAX_DEPTH = 64
# Longer clauses are not phrases anyone writes; they are not read.
MAX_PHRASE = 1000

# The file read is not known: alternatives before the clause read different files.
# What a file's name does not hold: globs, placeholders, queries, separators.
_NOT_IN_A_NAME = re.compile(r"[*?\[\]{}<>$|;,\"'()!=#:\s]")
_UNSURE = "\0"
# A procedure's verbs; those that count or search always have a count as outcome.
_STEP_VERB = re.compile(r"(?:reads?|counts?|checks?|extracts?|finds?|looks? for|searches?)\b", re.I)
# Words a label does not end in: the parentheses after them continue a sentence.
_OPERATOR_WORDS = frozenset(
    {
        "and", "or", "xor", "but", "not", "no", "nor", "never", "neither", "either",
        "unless", "except", "if", "when", "whether", "without", "then", "than",
    }
)  # fmt: skip


@dataclass
class Words:
    """How facts are said, gathered while reading: atom -> (when it holds, when not)."""

    said: dict[Atom, tuple[str, str]] = field(default_factory=dict)
    # A guard of the project's own code -> the words that first named it: two phrases
    # its name cannot tell apart by signs (`below -5`, `below 5`) are refused.
    named: dict[Atom, str] = field(default_factory=dict)

    def learn(self, atom: Atom, yes: str = "", no: str = "") -> None:
        old_yes, old_no = self.said.get(atom, ("", ""))
        self.said[atom] = (old_yes or yes, old_no or no)

    def clash(self, atom: Atom, words: str) -> str:
        """The words that first named `atom`, where they differ from `words` by signs the
        name drops (`-5` and `5`, `C++` and `C`, `100 €` and `100 $`); else ""."""
        first = self.named.setdefault(atom, words)
        return first if signs(first) != signs(words) else ""


class _Reader(CorePhrases):
    def __init__(self, lexicon: Lexicon, workspace: str, words: Words) -> None:
        self.lexicon = lexicon
        self.workspace = workspace
        self.words = words
        self.unknown: list[str] = []
        self.why: dict[str, str] = {}  # an unknown phrase -> why it could not be read
        self.reason = ""  # why the clause being read was refused, if a reader knows
        self.always = ""
        self.vacuous: list[tuple[str, str]] = []  # read as always: (phrase, why)
        self.terms: list[str] = []  # terms being expanded, against cycles
        # A term read in a context (the file read, a label's parentheses) -> its meaning,
        # and the file read after.
        self.expanded: dict[tuple[str, str, bool], tuple[DNF | None, str]] = {}
        self.labelling = 0  # reading a label's parentheses: no guard of the project's own
        self._term_names: dict[str, str] | None = None  # a term's method name -> its key

    def _own(self, phrase: str, context: list[str]) -> DNF | None:
        """The phrase as guards of the project's own code (`read.own_phrases`), unless the
        core refused it with a reason, or it names a file (the core's to read); a term
        said with words that deny it or say it is a guard (`unless blocked`, `!blocked`,
        `if blocked`) is the term's meaning, never a guard named like it."""
        if self.reason or len(phrase) > MAX_PHRASE:
            return None
        left = _grammar_left().search(re.sub(r"^(?:NOT\s+)+", "", phrase))
        unpaired = phrase.count("(") != phrase.count(")")
        if left is not None or unpaired:
            self.reason = (
                "its parentheses do not pair"
                if unpaired or left is None
                else f"`{left.group()}` is left in it with nothing to join or deny on one side"
            ) + (
                ", which a guard's name would drop: write the guards joined by AND, OR and "
                "NOT, each side whole (`a AND b`, `NOT (a OR b)`)"
            )
            return None
        term = self._own_term(phrase, context)
        if term is not None:
            return term
        named = [*files_in(phrase), path_in(phrase)]
        if any(named):
            name = next(n for n in named if n)
            self.reason = (
                f"it names the file {name}, and a phrase about a file "
                "is the core's to read, never a guard of the project's own code"
                + _attribute_hint(name)
            )
            return None
        if why := always(phrase):  # `yes`, `true`: as `-`, said by `always_holds`
            self.vacuous.append((phrase, why))
            return ((),)
        found = own_condition(phrase)
        if isinstance(found, str):
            self.reason = found
            return None
        for atom, yes, _ in found[1]:
            first = self.words.clash(atom, yes)
            if first:
                self.reason = (
                    f"'{yes}' and '{first}' name one guard of the project's code, "
                    f"{atom.param}, whose name drops the signs that tell them apart: write "
                    "the difference in words (`below minus 5`, `C plus plus build`, `over "
                    "100 euros`)"
                )
                return None
        for atom, yes, no in found[1]:
            self.words.learn(atom, yes, no)
        return found[0]

    def file(self, written: str) -> str | None:
        name = written.strip().strip("`").strip()
        odd = _NOT_IN_A_NAME.search(name)
        if odd:
            # `*.md`, `task-${name}.md`, `responders[role=primary]`: not one file's name.
            self.reason = (
                f"`{name}` is not a file's name (`{odd.group()}` is no part of one: a pattern, "
                "a query or a placeholder is not read as a file)"
            )
            return None
        if name.endswith("/") and name.strip("/"):
            # `out/ exists`: a folder, which the runtime asks of a file only (a cast that
            # asks it stops), and which would read as a file named with a slash
            self.reason = (
                f"`{name}` names a folder, and the core's facts are of files: ask of a file "
                f"in it (`{name}a.md exists`) or of its names by a glob (`some file matches "
                f"{name}*`)"
            )
            return None
        return self._inside(written, name)

    def _inside(self, written: str, name: str) -> str | None:
        """`written` relative to the workspace folder, if it names a path inside it; or
        from the repository's top, written so (`/tests/a.py`, `repository_path`)."""
        if name.startswith("/"):
            found, self.reason = repository_path(name, self.workspace)
            return found
        top, rest = self.workspace.strip("/"), name
        while rest.startswith("./"):
            rest = rest[2:]
        if rest != name and top and not rest.startswith(top + "/"):
            # `./.ai/task/plan.md` names the workspace's file from the repository's top;
            # `./README.md` may mean the repository's, or the workspace's.
            self.reason = (
                f"`{name}` may name a file of the repository's top or of the workspace "
                f"folder ({top}/): write `/{rest}` for the repository's, `{rest}` for the "
                "workspace's"
            )
            return None
        path = workspace_path(written, self.workspace)
        if path is None:
            hint = outside_hint(name, self.workspace)
            self.reason = f"{name} is outside the workspace folder{hint}"
            return None
        if any(part in ("", ".") for part in path.rstrip("/").split("/")):
            self.reason = f"`{name}` is not a plain path (an empty or `.` folder in it)"
            return None
        top = self.workspace.strip("/").split("/")[0]
        if top and path.rstrip("/") == self.workspace.strip("/"):
            self.reason = f"{name} is the workspace folder itself, not a file in it"
            return None
        beside = beside_workspace(path, self.workspace, written=written)
        if beside:  # `.ai/plan.md` in the workspace `.ai/task`, not `.ai/task/.ai/plan.md`
            self.reason = beside
            return None
        return path

    # -- the cell --

    def condition(self, text: str, context: list[str] | None = None) -> DNF | None:
        """`text` read as alternatives; `context` (the file a procedure has read) is the
        group's surroundings: its clauses start from it, and a file read inside the group
        is the one read after it (if its alternatives read different files, none is)."""
        start = context[0] if context is not None else ""
        ends: set[str] = set()
        alternatives: list[tuple[LiteralSpec, ...]] = []
        for alternative in split_outside(text, _OR):
            local = [start]
            found = self.conjunction(alternative, local)
            if found is None:
                return None
            ends.add(local[0])
            alternatives.extend(found)
            if len(alternatives) > MAX_CLAUSES:
                raise TooComplex
        if context is not None and ends and ends != {start}:
            context[0] = ends.pop() if len(ends) == 1 else _UNSURE
        return simplify(alternatives)

    def conjunction(self, text: str, context: list[str] | None = None) -> DNF | None:
        # The file the procedure has read, for the clauses after it.
        context = context if context is not None else [""]
        single: list[LiteralSpec] = []
        several: list[DNF] = []
        for clause in split_outside(text, AND_JOIN):
            found = self.clause(clause, context)
            if found is None:
                return None
            if len(found) == 1:
                single.extend(found[0])
            else:
                several.append(found)
        result = simplify([tuple(single)])
        for found in several:
            result = conjoin(result, found)
        return result

    def clause(self, text: str, context: list[str]) -> DNF | None:
        """The clause as alternatives of literals; unknown clauses become opaque atoms."""
        phrase = _squeeze(text).rstrip(".").strip()
        if not phrase:
            return ((),)
        self.reason = ""
        found = self._known(phrase, context) if len(phrase) <= MAX_PHRASE else None
        if found is None and self.lexicon.own_code and not self.labelling:
            found = self._own(phrase, context)
        if found is not None:
            return found
        if len(phrase) > MAX_PHRASE:
            self.reason = f"a clause of {len(phrase):,} characters is not read"
            phrase = phrase[:80] + "..."
        else:
            self.reason = self._joined(phrase, context) or self.reason
        self.unknown.append(phrase)
        if self.reason:
            self.why.setdefault(phrase, self.reason)
        return literal("unknown", "", phrase)

    def _known(self, phrase: str, context: list[str]) -> DNF | None:
        negated = re.fullmatch(r"NOT(?:\s+|(?=\())(?P<rest>.+)", phrase)
        if negated:
            inner = self._known(negated.group("rest"), context)
            return None if inner is None else negate(inner)
        if _wrapped(phrase):
            if _blank(phrase[1:-1]):
                self.reason = "the parentheses hold no condition"
                return None
            return self._quietly(phrase[1:-1], context)
        for reader in (self._term, self._procedure, self._core, self._noun, self._labelled):
            kept = len(self.vacuous)
            found = reader(phrase, context)
            if found is not None:
                return found
            del self.vacuous[kept:]
        return None

    def _joined(self, phrase: str, context: list[str]) -> str:
        """Why `phrase` is not read where it is conditions that each read, joined by a
        lowercase `and` / `or` or a line break (`<br>`), or "": what to write. Neither
        is read as `AND` / `OR`: in lowercase they are words a phrase may hold (a
        term's, a noun's), and a line break does not say which of the two it is."""
        parts = list(split_outside(phrase, _JOINED))
        if len(parts) < 2:
            return ""
        reason, kept = self.reason, len(self.vacuous)
        try:
            if any(_blank(p) or self._quietly(p, list(context)) is None for p in parts):
                return ""
        finally:
            self.reason = reason
            del self.vacuous[kept:]  # the parts are not read: the phrase is unknown
        joins, at = [], 0
        for part in parts[:-1]:
            at += len(part)
            m = _JOINED.match(phrase, at)
            assert m is not None  # `split_outside` split there
            joins.append(m.group("word") or "")
            at = m.end()

        def written(breaks: str) -> str:
            said = [parts[0].strip()]
            for word, part in zip(joins, parts[1:], strict=True):
                said += [word.upper() if word else breaks, part.strip()]
            return " ".join(said)

        words = [f"`{w}`" for w in dict.fromkeys(joins) if w]
        if all(joins):
            join = "joins" if len(words) == 1 else "join"
            return (
                f"{' and '.join(words)} {join} conditions only in capitals: write `{written('')}`"
            )
        said = ("", "") if words else (" (all of them hold)", " (any of them holds)")
        return (
            "a line break does not say how the conditions it separates join: write "
            f"`{written('AND')}`{said[0]} or `{written('OR')}`{said[1]}"
        )

    def _quietly(self, text: str, context: list[str] | None = None) -> DNF | None:
        """`text` read as a whole condition, or None (and nothing reported) if any of it
        is unknown; the reason of its first unknown clause, if any, is kept. `context`
        changes only if it is read."""
        before, reason, kept = len(self.unknown), self.reason, len(self.vacuous)
        local = list(context) if context is not None else None
        found = self.condition(text, local)
        if found is None or len(self.unknown) > before:
            reasons = [self.why.get(p, "") for p in self.unknown[before:]]
            self.reason = next((r for r in reasons if r), reason)
            del self.unknown[before:]
            del self.vacuous[kept:]
            return None
        if context is not None and local is not None:
            context[0] = local[0]
        return found

    def _own_term(self, phrase: str, context: list[str]) -> DNF | None:
        """The meaning of the term a phrase names as a guard would (`unless blocked`,
        `no longer blocked`, `Blocked ✓` name `blocked`), denied where the phrase denies
        it; None where it names no term."""
        name, _, holds = guard(phrase)
        if not name:
            return None
        if self._term_names is None:
            self._term_names = {}
            for each, defined in self.lexicon.terms.items():
                self._term_names.setdefault(method_name(defined.phrase), each)
        key = self._term_names.get(name)
        term = self.lexicon.terms.get(key) if key is not None else None
        if term is None:
            return None
        found = self._term(term.phrase, context)
        return None if found is None else found if holds else negate(found)

    # -- terms: the spec's, then the vocabulary's --

    def _term(self, phrase: str, context: list[str]) -> DNF | None:
        key = normal(phrase)
        term = self.lexicon.terms.get(key)
        if term is None:
            return None
        # (a meaning read while reading a label's parentheses has no guard of the
        # project's own in it: not the meaning read elsewhere)
        cached = (key, context[0], bool(self.labelling))
        if cached in self.expanded:
            found, context[0] = self.expanded[cached]
            return found
        if key in self.terms:
            self.reason = f"the term {term.phrase!r} is defined by itself"
            return None
        if len(self.terms) >= MAX_DEPTH:
            self.reason = f"terms are defined by terms more than {MAX_DEPTH} deep"
            return None
        self.terms.append(key)
        # A term's meaning may be about the file a procedure has read (`NOUN not
        # listed in .seen found`), so it is read in the clause's context.
        local = [context[0]]
        try:
            found = self._quietly(term.means, local)
        finally:
            self.terms.pop()
        context[0] = local[0]
        self.expanded[cached] = (found, local[0])
        if found is not None and len(found) == 1 and len(found[0]) == 1:
            (lit,) = found[0]
            said = " ".join(phrase.split())
            self.words.learn(lit.atom, *((said, "") if lit.positive else ("", said)))
        return found

    # -- procedures: `Reads F content; Counts NOUN (finds ≥1)` --

    def _procedure(self, phrase: str, context: list[str]) -> DNF | None:
        reads = _READS.fullmatch(phrase)
        if reads:
            file = self.file(reads.group("file"))
            if file is None:
                return None
            context[0] = file
            return literal("exists", file)
        m = OUTCOME.fullmatch(phrase)
        if m is None:
            return None
        sign = _sign(m.group("outcome"))
        found = self._step(m.group("body").strip(), context, m.group("outcome"))
        if found is None:
            return None
        if sign is None:
            self.reason = (
                f"the outcome ({m.group('outcome')}) is not one the core reads: finds ≥1, "
                "finds some, finds 0, finds none, exists, missing"
            )
            return None
        if sign:
            return found
        if len(found) == 1 and len(found[0]) == 1:
            # `Counts NOUN (finds 0)`: "no" of a section says the section is there.
            (lit,) = found[0]
            return said_of(lit.atom.probe, lit.atom.file, lit.atom.param, not lit.positive)
        return negate(found)

    def _step(self, body: str, context: list[str], outcome: str = "") -> DNF | None:
        checks = _CHECKS_EXISTS.fullmatch(body)
        if checks:
            if not checks.group("exists") and not _EXISTENCE.fullmatch(" ".join(outcome.split())):
                # `Checks `responders[role=primary]` (finds some)`: a search, not a file.
                self.reason = (
                    f"({outcome}) is what a search finds, but '{body}' names nothing to "
                    "search for: write `Checks F for NOUN (finds some)`, or "
                    "`Checks F exists (missing)` for a file"
                )
                return None
            file = self.file(checks.group("file"))
            return None if file is None else literal("exists", file)
        return self._by_noun(_NOUN_STEPS, body, context)

    def _by_noun(
        self, forms: tuple[tuple[re.Pattern[str], bool], ...], text: str, context: list[str]
    ) -> DNF | None:
        """The first form that names a noun of the vocabulary, about its file (or the file
        the procedure read), with the form's sign."""
        for regex, positive in forms:
            m = regex.fullmatch(text)
            if m is None:
                continue
            groups = m.groupdict()
            ledger = f"{groups['noun']} in {groups.get('file')}"
            if groups.get("file") and _NOT_LISTED.fullmatch(ledger):
                # `Counts NOUN not listed in G`: G is the ledger, not the file counted.
                groups = {"noun": ledger, "file": ""}
            file = self.file(groups["file"]) if groups.get("file") else context[0]
            if file is None:
                return None
            if file == _UNSURE:
                self.reason = (
                    "the alternatives before it read different files, so which file's content "
                    "it is about is not said: name the file (`Counts NOUN in F (finds ≥1)`)"
                )
                return None
            found = self.noun(groups["noun"], file)
            if found is not None:
                return said_of(*found, positive)
        return None

    def noun(self, words: str, file: str) -> tuple[str, str, str] | None:
        """The atom a noun of the vocabulary names, about `file` (or its usual file)."""
        description = ""
        desc = _TRAILING_DESC.fullmatch(words)
        if desc:
            words, description = desc.group("words"), desc.group("desc")
        ledger = _NOT_LISTED.fullmatch(words)
        if ledger:
            words = ledger.group("words")
        noun = self.lexicon.noun(words)
        if noun is None:
            return None
        file = file or noun.file
        if not file:
            return None
        probe = noun.probe
        if description:
            # `(lines starting with `- [ ]`)`: a checklist's unchecked items. Any other
            # description says something the fact would not check: it is not read.
            wording = " ".join(description.lower().split())
            if re.search(r"\[x\]|(?<!un)(?<!not )\bchecked\b", wording):
                self.reason = "checked items alone are not a fact the core checks"
                return None
            if probe not in ("items", "unchecked") or not re.search(
                r"\[ \]|\bunchecked\b", wording
            ):
                self.reason = (
                    f"the description ({description}) is not one the core reads: only "
                    "(lines starting with `- [ ]`) is, which narrows a checklist to its "
                    "unchecked items"
                )
                return None
            probe = "unchecked"
        if probe == "field" and not is_json(file):
            self.reason = f"{file} is not a JSON file, and {noun.name} is a query of one"
            return None
        param = noun.param
        if probe in ("items", "unchecked", "section_text"):  # a section the template lacks
            missing = Shapes(self.lexicon).missing_section(file, param)
            if missing:
                self.reason = missing
                return None
        if ledger:
            # `NOUN not listed in .seen`: the noun's matches the ledger lacks.
            if probe != "matches":
                self.reason = (
                    f"{noun.name} are not matches of a pattern, so no ledger can list them"
                )
                return None
            listed = self.file(ledger.group("ledger"))
            if listed is None:
                return None
            probe, param = "unlisted", f"{listed} {noun.param}"
        atom = Atom(probe, file, param)
        for fact in (atom, *implied(atom)):
            said = self.lexicon.noun_for(fact.probe, fact.param)
            if said is not None:
                self.words.learn(fact, said.yes.format(file=file), said.no.format(file=file))
        return (atom.probe, atom.file, atom.param)

    # -- nouns of the vocabulary: `≥1 NOUN in FILE`, `NOUN found` --

    def _noun(self, phrase: str, context: list[str]) -> DNF | None:
        counted = ""  # why a count of the noun could not be read, if one was tried
        for regex in _noun_counts():  # `at least 2 approvals in F`: a count of the noun
            m = regex.fullmatch(phrase)
            noun = self.lexicon.noun(m["noun"]) if m is not None else None
            if m is not None and noun is not None and noun.probe == "field":
                sign = _COUNT_SIGNS.get((m["op"] or "≥").lower(), m["op"] or "≥")
                if sign == "≥" and m["n"] == "1":
                    break  # `≥1 NOUN in F`: the noun's own fact, as its forms say it
                reason = self.reason
                if noun.file and self.file(m["file"]) != noun.file:
                    counted = (
                        f"'{m['noun']}' is a noun of the vocabulary for {noun.file}, which "
                        f"counts no values of {m['file']}"
                    )
                    break
                # the noun's query, counted (its words may hold spaces no query does)
                query = noun.param if "`" not in noun.param else m["noun"]
                found = self._quietly(f"count of `{query}` in {m['file']} {sign} {m['n']}")
                if found is not None:
                    return found
                counted, self.reason = self.reason, reason  # `≥1 NOUN in F`: the noun's own
        found = self._by_noun(_NOUN_PHRASES, phrase, context)
        if found is None and counted:
            self.reason = counted
        return found

    def _labelled(self, phrase: str, context: list[str]) -> DNF | None:
        m = _LABELLED.fullmatch(phrase)
        if m is None:
            return None
        inner = m.group("inner").strip()
        label = m.group("label").strip()
        reason = self.reason
        local = list(context)
        self.labelling += 1
        try:
            return self._label(label, inner, reason, local, context)
        finally:
            self.labelling -= 1

    def _label(
        self, label: str, inner: str, reason: str, local: list[str], context: list[str]
    ) -> DNF | None:
        found = self._quietly(inner, local)
        refused = self.reason != reason  # `finds ≥1` is no counter: refused with why
        if (found is not None or refused) and (
            _sign(inner) is not None or _SEARCH_OUTCOME.match(inner)
        ):
            # `Counts mitigation steps (finds ≥1)`: the outcome of a step whose noun is
            # not known, not a label and its clause (`finds ≥ 1` would be a counter).
            self.reason = reason or (
                f"({inner}) is the outcome of a procedure's step, but "
                f"'{label}' is no step the core reads: name a noun of "
                "the Terms table or the vocabulary (`Counts NOUN (finds ≥1)`, "
                "`Checks F for NOUN (finds some)`), or a file (`Checks F exists (missing)`)"
            )
            return None
        if found is None:
            return None
        kept = len(self.vacuous)
        why = self._not_a_label(label, inner, found, context)
        del self.vacuous[kept:]  # the label's words, read to compare: not the condition
        if why:
            self.reason = reason or why
            return None
        context[0] = local[0]
        return found

    def _not_a_label(self, label: str, inner: str, found: DNF, context: list[str]) -> str:
        """Why `label (inner)` is not a name and the clause it stands for, or "": the words
        before the parentheses say something of their own, which reading only the
        parentheses would drop."""
        last = label.split()[-1]
        if last.lower() in _OPERATOR_WORDS or re.fullmatch(r"[&|/+=<>≥≤≠!~^]+", last):
            # `not (x.md exists)`, `a.md exists and (b.md exists)`: no label.
            return (
                f"'{last}' before ({inner}) continues the condition, so the words before the "
                "parentheses are no label: write NOT, AND and OR in capitals"
            )
        step = _STEP_VERB.match(label)
        if step:
            counts = not step.group().lower().startswith(("check", "read"))
            before = self.reason
            a_step = counts or self._step(label, list(context), "exists") is not None
            self.reason = before
            if a_step or any(lit.atom.probe == "below" for c in found for lit in c):
                # `Checks plan.md exists (task.md exists)`, `Counts AC (attempts < 3)`.
                return (
                    f"'{label}' is a procedure's step, so ({inner}) is its outcome, and not "
                    "one the core reads: finds ≥1, finds some, finds 0, finds none, exists, "
                    "missing"
                )
        named = [f for f in files_in(label) if f not in files_in(inner)]
        if named:
            # `a.md exists XOR (b.md exists)`: the label is about another file.
            return (
                f"'{label}' names {named[0]}, which ({inner}) does not: the words before "
                "the parentheses are part of the condition, not a label"
            )
        said = self._quietly(label, list(context))
        if said is not None and _as_set(said) != _as_set(found):
            # `ready (plan.md exists)` where `ready` is a term that means more.
            return f"'{label}' is itself a condition, and not the same as ({inner})"
        return ""


# -- the grammar's patterns ---------------------------------------------------------

_OR = re.compile(r"\s+OR\s+")
# Conditions joined by a word in lowercase, or by a line break: not read (`_joined`).
# A line break beside a capital AND or OR (`a.md exists<br>AND b.md missing`): the word
# says how the conditions join, so the break is a space.
_BREAK_BY_WORD = re.compile(
    r"\s*<[bB][rR]\s*/?>\s*(?=(?:AND|OR)\b)|(?<=\bAND)\s*<[bB][rR]\s*/?>\s*"
    r"|(?<=\bOR)\s*<[bB][rR]\s*/?>\s*"
)
_JOINED = re.compile(r"\s+(?P<word>and|or|And|Or)\s+|\s*<[bB][rR]\s*/?>\s*")
# Clauses joined by `AND`, `;` or a comma (not one in a number, `1,000`): each must hold.
AND_JOIN = re.compile(r"\s+AND\s+|\s*;\s*|\s*(?:(?<!\d),|,(?!\d))\s*")
_LABELLED = re.compile(r"(?P<label>[^()]+?)\s*\((?P<inner>[^()]+)\)")
# A procedure's step and its outcome; `subject` is the step without the outcome.
OUTCOME = re.compile(r"(?P<body>.+?)\s*\((?P<outcome>[^()]*)\)")
# `NOUN not listed in LEDGER`: the noun's matches that a ledger file does not list.
_NOT_LISTED = re.compile(
    rf"(?P<words>.+?) (?:that are )?not (?:yet )?(?:listed|recorded) in {_LEDGER}", re.I
)
_TRAILING_DESC = re.compile(r"(?P<words>[^()]+?)\s*\((?P<desc>[^()]*)\)")
_READS = re.compile(rf"reads? {_FILE}(?: (?:content|contents|text|frontmatter))?", re.I)
_CHECKS_EXISTS = re.compile(
    rf"checks? (?:(?:whether|if|that) )?{_FILE}(?P<exists> (?:exists|is present))?", re.I
)
# The outcomes of `Checks F (...)` that speak of F itself, not of what a search finds.
_EXISTENCE = re.compile(
    r"exists|present|missing|absent|(?:doesn't|does not) exist|(?:not )?found|yes|no"
    r"|true|false",
    re.I,
)
# An outcome that tells what a search found, in any number (`finds 5`, `found none`).
_SEARCH_OUTCOME = re.compile(r"(?:finds?|found)\b", re.I)
_NOUN_STEPS = tuple(
    (re.compile(p, re.I), True)
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
# A count of a vocabulary's noun said as words say it (`at least 2 approvals in F`, `≥2
# approvals in F`, `2 or more approvals in F`, `F has fewer than 3 approvals`): read as
# `count of NOUN in F ≥ N`, the noun's query counted.
_COUNT_WORDS = r"(?P<op>at least|more than|fewer than|less than|at most|≥|>=|>|≤|<=|<)"


@cache
def _noun_counts() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.I) for p in _NOUN_COUNT_FORMS)


_NOUN_COUNT_FORMS = (
    rf"{_COUNT_WORDS}\s*(?P<n>\d+) (?P<noun>.+?) in {_FILE}",
    rf"(?P<n>\d+) or more (?P<noun>.+?) in {_FILE}(?P<op>)",
    rf"{_FILE} has {_COUNT_WORDS}\s*(?P<n>\d+) (?P<noun>[^`]+)",
)
_COUNT_SIGNS = {
    "at least": "≥",
    "more than": ">",
    "fewer than": "<",
    "less than": "<",
    "at most": "≤",
    ">=": "≥",
    "<=": "≤",
}
_POSITIVE = re.compile(
    r"(?:finds? |found )?(?:exists|present|found|yes|true|some|any|at least one|one or more"
    r"|(?:≥|>=)\s*1|>\s*0)",
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


def _as_set(found: DNF) -> frozenset[frozenset[LiteralSpec]]:
    return frozenset(frozenset(clause) for clause in found)


def _blank(text: str) -> bool:
    """Whether `text` holds nothing but separators."""
    return not re.sub(r"[\s;,]|AND|OR", "", text)


def _squeeze(text: str) -> str:
    """One space between words, but not inside code spans: `a  b` keeps its two spaces."""
    out, start = [], 0
    for m in re.finditer(r"`[^`]*`", text):
        out.append(re.sub(r"\s+", " ", text[start : m.start()]))
        out.append(m.group())
        start = m.end()
    out.append(re.sub(r"\s+", " ", text[start:]))
    return "".join(out).strip()


def unbracketed(text: str) -> str:
    """A cell's condition without the brackets of a UML guard around all of it
    (`[attempts < 3]`), as an Event cell's `event [guard]` has them."""
    if _wrapped(text, "[]") and not _blank(text[1:-1]):
        return text[1:-1].strip()
    return text


def _wrapped(phrase: str, marks: str = "()") -> bool:
    """Whether the whole phrase is one parenthesised group: `(a OR b)` (or one in other
    `marks`, `[a OR b]`)."""
    opening, closing = marks[0], marks[1]
    if not (phrase.startswith(opening) and phrase.endswith(closing)):
        return False
    depth = 0
    for i, char in enumerate(phrase):
        depth += char == opening
        depth -= char == closing
        if depth == 0 and i < len(phrase) - 1:
            return False
    return True


# -- the module's interface ------------------------------------------------------------


def parse_condition(
    text: str,
    lexicon: Lexicon | None = None,
    workspace: str = "",
    words: Words | None = None,
    read: str = "",
) -> Condition:
    """Read a Condition cell; unknown phrases are kept as opaque atoms, never raised.
    `read` is the file a procedure has read before the cell, if any."""
    reader = _Reader(lexicon or Lexicon(), workspace, words if words is not None else Words())
    normal_text = unbracketed(_squeeze(_BREAK_BY_WORD.sub(" ", text)))
    if normal_text.lower() in ALWAYS:
        return Condition(text, ((),))
    if "<!--" in normal_text:
        # GitHub hides the comment; the cell read whole would be a phrase no words define
        return Condition(
            text,
            literal("unknown", "", normal_text),
            (normal_text,),
            ((normal_text, html_comment_in_cell("condition")),),
        )
    if normal_text.lower() == NEVER:
        return Condition(text, ())
    why = ""
    try:
        found = reader.condition(normal_text, [read] if read else None)
    except TooComplex:
        found, why = (
            None,
            (
                f"its alternatives multiply past {MAX_CLAUSES} (a NOT of many ORs, or an AND of "
                "ORs): split it over rows, or let a later row whose condition is `-` take the "
                "other cases"
            ),
        )
    if found is None or _blank(normal_text):
        why = why or "there is nothing but separators in it"
        reader.unknown, reader.why, reader.vacuous = [normal_text], {normal_text: why}, []
        found = literal("unknown", "", normal_text)
    unknown = tuple(dict.fromkeys(reader.unknown))
    if not found and unknown:
        # what was read never holds, but a phrase was not read: the cell is not known to
        # never hold, so it is kept whole as the phrase this reading does not take
        found = literal("unknown", "", normal_text)
    for phrase in unknown:
        joined = _joins_not_read().search(phrase)
        if joined is not None and phrase not in reader.why:
            # C's `&&`, `&`, `but`: no join of the cell's, said so, never a close phrase
            # of one side (`a & b`: "did you mean b?")
            reader.why[phrase] = (
                f"`{joined.group().strip()}` does not join conditions: write "
                f"`{_joins_not_read().sub(' AND ', phrase)}`"
            )
    reasons = tuple((u, reader.why[u]) for u in unknown if u in reader.why)
    return Condition(text, found, unknown, reasons, tuple(dict.fromkeys(reader.vacuous)))


@cache
def _joins_not_read() -> re.Pattern[str]:
    """What people join two conditions with that a cell does not read: C's `&&`, a
    spaced `&`, `but` (`a.md exists but b.md is missing`)."""
    return re.compile(r"\s*&&\s*|\s+&\s+|\s+but\s+", re.IGNORECASE)


def parse_indicators(
    text: str, lexicon: Lexicon | None = None, workspace: str = "", words: Words | None = None
) -> tuple[tuple[LiteralSpec, ...], bool]:
    """The file facts a state's Indicators name, and whether every part was understood.

    `.ai/task/task.md exists; .ai/task/task-results.md doesn't exist` gives two
    literals. Parts about the state file itself ("state.json shows ...") are not
    facts about the workspace's files, so such a state cannot be told from its files.
    """
    reader = _Reader(lexicon or Lexicon(), workspace, words if words is not None else Words())
    literals: list[LiteralSpec] = []
    complete = True
    for part in split_outside(_squeeze(text), _INDICATOR_SPLIT):
        part = part.strip().rstrip(".")
        if not part:
            continue
        try:
            found = reader._known(part, [""])
        except TooComplex:
            found = None
        if found is None or len(found) != 1:
            complete = False
        else:
            literals.extend(lit for lit in found[0] if lit not in literals)
    return tuple(literals), complete and bool(literals)


_INDICATOR_SPLIT = re.compile(r"\s*;\s*|\s*,\s*|\s+(?:and|but|AND)\s+")


def examples(lexicon: Lexicon, files: list[str], said: str = "") -> list[str]:
    """Phrases the grammar reads about `files`, for did-you-mean hints; a time in the
    state with the number and unit `said` writes, if it writes one (`for 30 days`: a
    hint never changes days into minutes)."""
    time = re.search(r"\b(\d+)\s*(minutes?|hours?|days?|weeks?)\b", said, re.IGNORECASE)
    length = f"{time[1]} {time[2].lower()}" if time else "30 minutes"
    found: list[str] = ["attempts < 3", f"in this state for more than {length}"]
    for file in files:
        found += [
            f"{file} exists",
            f"{file} is missing",
            f"there is no {file}",
            f"{file} matches `pattern`",
            f"{file} contains `text`",
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


# What follows the last dot of a name that is more likely an attribute than a file's
# extension (`user.isAdmin`, `order.is_paid`, `cart.items_count`): a capital, an `_`, or
# more than five letters.
_ATTRIBUTE = re.compile(r"[A-Za-z_]\w*\.(?:\w*[A-Z_]\w*|[a-z]{6,})")


def _attribute_hint(name: str) -> str:
    """Where a "file" a guard names reads as an attribute of the project's code
    (`user.isAdmin`): how to write it as the question a method answers; else ""."""
    if "/" in name or _ATTRIBUTE.fullmatch(name) is None:
        return ""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.replace(".", " ").replace("_", " "))
    return (
        f"; if {name} is an attribute of the project's code, write the question a method "
        f"of the model answers in words, `{' '.join(words.lower().split())}`"
    )


_TOKEN_FILE = re.compile(r"[\w.\-/]*\w\.\w[\w\-]*")


def files_in(text: str) -> list[str]:
    """The file names a phrase mentions (each word looked at once: linear time)."""
    words = (w.strip("`'\"(),;") for w in text[:MAX_PHRASE].split())
    return [w for w in words if _TOKEN_FILE.fullmatch(w)]
