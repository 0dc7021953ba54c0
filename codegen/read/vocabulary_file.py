"""Reading a vocabulary written as data: a markdown file of Terms, Nouns and File groups.

A vocabulary file holds up to three tables, found by their headers:

    | Phrase | Means |                       (as a spec's Terms table, read by the same code)
    | Noun | Also written | Fact | File | Said |
    | Group | Files |

A noun is a fact about a file's content that the workflow has a name for. `Noun` is
how findings say it; `Also written` the other ways a spec writes it (words separated
by commas, matched whole, ignoring case and runs of spaces); `Fact` the fact, in the
core's words of the file (`checklist items under "Risks"`, `unchecked items under
"Risks"`, ``matches of `RE` ``, `` `tickets[status=open]` `` for a JSON query); `File`
the file it is usually about; `Said` how a response says it holds and does not
(`{file} has an open ticket / {file} has no open ticket`).
The `templates/` folder beside the file holds the templates of new files.

Every row the reader cannot take is a `VocabularyError` naming the file and line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from string import Formatter

from spellbook.disk.paths import is_git
from spellbook.facts.patterns import VOCABULARY, problem
from spellbook.facts.probes import PROBES
from spellbook.records.vocabulary import Noun

from ..model import Term
from ..spec_error import SpecError
from .lexicon import Lexicon, TemplateFiles, _read_text, normal, reads_data
from .markdown import BrokenTable, LooseRows, Table, normalize_newlines, read_blocks
from .rows import TERM_ROLES, columns_of, parse_terms

LIMIT = 1_000_000  # bytes of a vocabulary file read, as of a template

# The columns of the Nouns table, by header (lower case), and those it must have.
NOUN_COLUMNS = ("noun", "also written", "fact", "file", "said")
GROUP_COLUMNS = ("group", "files")
_SHAPES = (
    "| Phrase | Means |, | Noun | Also written | Fact | File | Said | (Also written, File and "
    "Said may be left out) and | Group | Files |"
)
_MATCHES = re.compile(r"matches(?: of)? `(?P<pattern>[^`]+)`", re.IGNORECASE)


class VocabularyError(SpecError):
    """A vocabulary file that cannot be read; it names the file, not the spec."""

    def locate(self, path: str, text: str | None) -> SpecError:
        return self  # located where it was raised: in the vocabulary file


@dataclass
class Words:
    """A vocabulary file's words: nouns, terms, file groups, and its templates folder."""

    nouns: list[Noun] = field(default_factory=list)
    terms: list[Term] = field(default_factory=list)
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    templates: str = ""


def read_vocabulary(path: str, shown: str, trusted: bool) -> Words:
    """The words of the vocabulary file at `path` (named `shown` in errors). A pattern of
    a `trusted` one (shipped with Spellbook) runs as its Python vocabularies' did; any
    other's is checked and run as a spec's."""
    try:
        with open(path, "rb") as f:
            data = f.read(LIMIT + 1)
    except OSError as err:
        raise vocabulary_error(shown, 0, f"cannot be read: {err.strerror or err}") from None
    words = _decoded(data, shown, trusted)
    folder = os.path.join(os.path.dirname(path), "templates")
    words.templates = folder if os.path.isdir(folder) else ""
    return words


def _decoded(data: bytes, shown: str, trusted: bool) -> Words:
    """The words of a vocabulary file's bytes (named `shown` in errors)."""
    if len(data) > LIMIT:
        raise vocabulary_error(shown, 0, f"is over {LIMIT // 1_000_000} MB")
    try:
        text = normalize_newlines(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise vocabulary_error(shown, 0, "is not UTF-8 text") from None
    try:
        words = _words(text, trusted)
    except RecursionError:
        raise vocabulary_error(shown, 1, "markdown nested too deeply to read", text) from None
    except SpecError as err:
        raise vocabulary_error(shown, err.line, err.message, text) from None
    return words


def vocabulary_error(
    shown: str, line: int, message: str, text: str | None = None
) -> VocabularyError:
    err = VocabularyError(f"vocabulary: {message}", line)
    SpecError.locate(err, shown, text)
    return err


@reads_data
def data_lexicon(name: str, shipped: str) -> Lexicon:
    """A data vocabulary: a shipped one (its patterns trusted as Python's were), or the
    project's own file `name` (its path, made absolute by `codegen.config`), whose
    patterns are a spec's and whose templates follow a project's templates' rules."""
    path, root = shipped, ""
    if not shipped:
        path = os.path.abspath(name)
        from spellbook.disk.project import ProjectError, find_project

        try:
            root = find_project(os.path.dirname(path)) or os.path.dirname(path)
        except ProjectError as err:  # a pyproject.toml that is a link: said, never read
            raise vocabulary_error(os.path.relpath(path), 0, f"has no project: {err}") from None
    shown = os.path.relpath(path) if not shipped else f"the {name} vocabulary ({path})"
    words = read_vocabulary(path, shown, trusted=bool(shipped))
    carried: dict[str, str] = {}
    if words.templates:
        files = TemplateFiles(words.templates, words.templates, root) if root else None
        for entry in sorted(os.listdir(words.templates)):
            if entry.startswith("."):
                continue
            if files is None:
                text = _read_text(os.path.join(words.templates, entry))
            else:
                _, text, problem = files.by_name(entry)
                if problem:
                    raise vocabulary_error(shown, 0, problem)
            carried[entry] = text
    return _lexicon_of(name, words, carried)


def lexicon_at(name: str, data: bytes, templates: dict[str, bytes], shown: str) -> Lexicon:
    """The project's vocabulary file `name` read from its bytes and its `templates/`
    folder's files (as they were at a revision), with no file written: its templates are
    the ones it carries (`Lexicon.template_of`). `shown` names it in errors."""
    words = _decoded(data, shown, trusted=False)
    carried = {
        entry: text.decode("utf-8", "replace").replace("\r\n", "\n")
        for entry, text in sorted(templates.items())
        if not entry.startswith(".")
    }
    return _lexicon_of(name, words, carried)


def _lexicon_of(name: str, words: Words, carried: dict[str, str]) -> Lexicon:
    return Lexicon(
        name,
        [(re.compile(n.pattern, re.IGNORECASE), n) for n in words.nouns],
        {normal(t.phrase): t for t in words.terms},
        {normal(k): v for k, v in words.groups.items()},
        [],
        words.templates,
        carried=carried,
    )


def _words(text: str, trusted: bool) -> Words:
    if "\x00" in text:
        raise SpecError("contains NUL bytes: this is not a text file", 1)
    words = Words()
    for block in read_blocks(text):
        if isinstance(block, (BrokenTable, LooseRows)):
            raise SpecError(
                f"a table that cannot be read; a vocabulary's tables are {_SHAPES}", block.line
            )
        if not isinstance(block, Table):
            continue
        if block.ragged:
            raise SpecError(
                f"this row has not as many cells as its table's header (line {block.line})",
                block.ragged[0][0],
            )
        header = tuple(" ".join(c.plain.split()).lower() for c in block.header.cells)
        terms = columns_of(block, TERM_ROLES, tuple(TERM_ROLES))
        if terms is not None:
            read = parse_terms(block, terms)
            for term in read:
                _not_a_fact(term)
            words.terms += [Term(t.phrase, t.means) for t in read]
        elif header[:1] == ("noun",):
            words.nouns += _nouns(block, header, trusted)
        elif header[:1] == ("group",):
            _groups(block, header, words.groups)
        else:
            raise SpecError(
                f"a table the vocabulary does not read; its tables are {_SHAPES}", block.line
            )
    return words


# A name written as a file's is: a word, a dot and an extension (`review.json`), or a path.
_FILE_NAME = re.compile(r"[\w.-]+\.[A-Za-z][\w]{0,9}|\S*/\S*")


def _not_a_fact(term: Term) -> None:
    """A SpecError for a term whose phrase is a fact the core reads (`draft.md exists`):
    defined in the vocabulary, it would mean something else in every spec that says it,
    `missing` no longer its negation, and no spec would be told."""
    from .conditions import Words, parse_condition

    read = parse_condition(term.phrase, Lexicon(), "", Words())
    if not read.unknown and not read.always:
        raise SpecError(
            f"term {term.phrase!r} is a fact the core reads on its own, so it would mean "
            f"{term.means!r} in every spec that says it, and its negation would not: give "
            "the term a name of its own (`the draft is written`)",
            term.line,
        )


def _columns(
    table: Table, header: tuple[str, ...], known: tuple[str, ...], needed: tuple[str, ...]
) -> dict[str, int]:
    unknown = [h for h in header if h not in known]
    if unknown:
        raise SpecError(
            f"the column {unknown[0]!r} is not one of this table's: {', '.join(known)}", table.line
        )
    missing = [n for n in needed if n not in header]
    if missing:
        raise SpecError(f"this table has no {missing[0]!r} column", table.line)
    return {h: header.index(h) for h in header}


def _nouns(table: Table, header: tuple[str, ...], trusted: bool) -> list[Noun]:
    at = _columns(table, header, NOUN_COLUMNS, ("noun", "fact"))
    nouns = []
    seen: dict[str, tuple[str, int]] = {}  # each way a noun is written -> its noun, line
    for row in table.rows:
        cell = {k: row.cells[i].written.strip() for k, i in at.items()}
        name = " ".join(cell.get("noun", "").split())
        if not name:
            raise SpecError("this noun has no name (its Noun cell is empty)", row.line)
        ways = [name] + [" ".join(w.split()) for w in cell.get("also written", "").split(",")]
        ways = [w for w in ways if w]
        named = next((w for w in ways if _FILE_NAME.fullmatch(w)), None)
        if named is not None:
            raise SpecError(
                f"noun {name!r}: {named!r} is written as a file is, so a spec's `{named} "
                "exists` would ask the noun's fact, not the file: write the noun in words",
                row.line,
            )
        for way in ways:
            other = seen.setdefault(" ".join(way.lower().split()), (name, row.line))
            if other[0] != name:
                raise SpecError(
                    f"noun {name!r}: {way!r} is written for the noun {other[0]!r} too (line "
                    f"{other[1]}), so a spec that says it would mean one of them, unseen: "
                    "write each noun its own way",
                    row.line,
                )
        if any("`" in w for w in ways):
            raise SpecError(
                f"noun {name!r}: the ways it is written are plain words, with no backticks",
                row.line,
            )
        file = cell.get("file", "").strip("`").strip()
        probe, param = _fact(cell.get("fact", ""), file, name, trusted, row.line)
        yes, no = _said(cell.get("said", ""), name, row.line)
        pattern = "|".join(r"\s+".join(re.escape(p) for p in w.split()) for w in ways)
        nouns.append(Noun(name, f"(?:{pattern})", probe, param, file, yes, no))
    return nouns


def _fact(fact: str, file: str, name: str, trusted: bool, line: int) -> tuple[str, str]:
    """(probe, param) of a Nouns row's Fact cell."""
    if not fact:
        raise SpecError(f"noun {name!r} has no fact (its Fact cell is empty)", line)
    matched = _MATCHES.fullmatch(fact)
    if matched:
        pattern = matched["pattern"]
        if trusted:
            return "matches", VOCABULARY + pattern
        why = problem(pattern)
        if why:
            raise SpecError(f"noun {name!r}: the pattern `{pattern}` cannot be used: {why}", line)
        return "matches", pattern
    from .conditions import parse_condition  # the core's reading of a condition

    subject = file or ("file.json" if fact.startswith("`") else "file.md")
    said = fact if not fact.lower().startswith("items under") else f"checklist {fact}"
    condition = parse_condition(f"{subject} has {said}")
    clauses = condition.clauses
    if len(clauses) == 1 and len(clauses[0]) == 1:
        literal = clauses[0][0]
        atom = literal.atom
        if literal.positive and atom.probe in PROBES and atom.file == subject:
            return atom.probe, atom.param
    why = "; ".join(reason for _, reason in condition.why) if condition.why else ""
    raise SpecError(
        f"noun {name!r}: the fact {fact!r} is not one the core reads of a file"
        + (f" ({why})" if why else "")
        + '; write it as the core says it after "FILE has": `checklist items under '
        '"Section"`, `unchecked items under "Section"`, `` `query` `` (a JSON query), or '
        "``matches of `RE` ``",
        line,
    )


def _said(cell: str, name: str, line: int) -> tuple[str, str]:
    """The Said cell's (yes, no) wordings, or ("", "") for the default ones."""
    if not cell:
        return "", ""
    yes, slash, no = (p.strip() for p in cell.partition(" / "))
    if not slash or not yes or not no:
        raise SpecError(
            f"noun {name!r}: Said is how it is said to hold and not to hold, split by "
            "' / ': `{file} has an open ticket / {file} has no open ticket`",
            line,
        )
    for words in (yes, no):
        try:
            fields = [f for _, f, _, _ in Formatter().parse(words) if f is not None]
        except ValueError as err:
            raise SpecError(f"noun {name!r}: Said {words!r} cannot be read ({err})", line) from None
        if any(f != "file" for f in fields):
            raise SpecError(
                f"noun {name!r}: Said {words!r} may name only {{file}}, the file the fact is about",
                line,
            )
    return yes, no


def _groups(table: Table, header: tuple[str, ...], groups: dict[str, tuple[str, ...]]) -> None:
    at = _columns(table, header, GROUP_COLUMNS, GROUP_COLUMNS)
    for row in table.rows:
        name = " ".join(row.cells[at["group"]].written.split())
        files = tuple(
            f.strip().strip("`").strip() for f in row.cells[at["files"]].written.split(",")
        )
        files = tuple(f for f in files if f)
        if not name or not files:
            raise SpecError("a file group needs its name and its files (comma-separated)", row.line)
        bad = [f for f in files if f.startswith(("/", "~")) or ".." in f.split("/") or "\\" in f]
        bad += [f for f in files if any(is_git(p) for p in f.split("/"))]
        if bad:
            raise SpecError(
                f"file group {name!r}: {bad[0]!r} is not a file of the workspace", row.line
            )
        if name.lower() in groups:
            raise SpecError(f"the file group {name!r} is named twice", row.line)
        if _FILE_NAME.fullmatch(name.strip("`")):
            # `Delete review.json` would delete the group's files, not review.json
            raise SpecError(
                f"the file group {name!r} is named as a file is, so an action naming that "
                "file would act on the group's files instead: name the group in words "
                "(`review files`)",
                row.line,
            )
        groups[name.lower()] = files
