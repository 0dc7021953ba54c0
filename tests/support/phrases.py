"""The phrase corpus's way of writing a phrase and its one reading (or its refusal),
the lexicons it is read with, and the check that a phrase reads as written. The corpus
is `tests/compiler/test_phrases_*.py`; `tests/compiler/test_phrase_corpus.py` says what
it holds.

A reading is its alternatives (OR), each a list of literals (AND), each
`(probe, file, param, holds)`; the order of either does not matter. A refusal may
name a fragment of the reason the reader must give.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from codegen.model import Term
from codegen.read.conditions import parse_condition
from codegen.read.lexicon import Lexicon, ReadOptions
from spellbook.facts.patterns import VOCABULARY
from tests.support.vocabularies import ATLASSIAN_URL as WRITTEN

# The vocabulary's pattern as a guard has it: marked as the vocabulary's, run with `re`.
ATLASSIAN_URL = VOCABULARY + WRITTEN

Lit = tuple[str, str, str, bool]

WORKSPACE = ".ai/task"
AC = "Acceptance Criteria"
PENDING = "features[status=pending]"
OTHER_PENDING = "features[status=pending][id!=$feature_id]"
GITHUB_ISSUE = r"github\.com/[\w.-]+/[\w.-]+/issues/\d+"

LEXICONS = {
    "core": Lexicon.of(ReadOptions("")),
    "spell": Lexicon.of(ReadOptions("spell_workflow")),
    "session": Lexicon.of(ReadOptions("coding_session")),
    # A spec's own Terms table, over the spell_workflow vocabulary.
    "terms": Lexicon.of(ReadOptions("spell_workflow")).with_terms(
        [
            Term("No review under way", "comments.md missing AND review-task.md missing"),
            Term("plan.md cites an issue", f"plan.md matches `{GITHUB_ISSUE}`"),
            Term("review done", "review-task-results.md exists"),
            Term("ready", "plan.md exists AND ≥1 AC in plan.md"),
            Term("blocked", "NOT ready"),
            Term("either draft", "a.md exists OR b.md exists"),
            Term("moon is full", "the moon is full"),
            Term("task.md exists", "other.md exists"),
            Term("retry allowed", "attempts < 3"),
            Term("has criteria", "Counts AC (finds some)"),
            Term("spin", "spin OR a.md exists"),
            Term(
                "Checks `.atlassian-refs` for processed URLs (finds new)",
                "Atlassian URLs not listed in `.atlassian-refs` found",
            ),
            Term(
                "Checks `.atlassian-refs` for processed URLs (all done)",
                "no Atlassian URLs not listed in `.atlassian-refs` found",
            ),
        ]
    ),
}


def yes(probe: str, file: str = "", param: str = "") -> Lit:
    return (probe, file, param, True)


def no(probe: str, file: str = "", param: str = "") -> Lit:
    return (probe, file, param, False)


# Test ids in ASCII that tell every character apart: `≥ 1` is not `>= 1`.
_NAMES = {
    "≥": "[ge]",
    "≤": "[le]",
    "⩾": "[geslant]",
    "\uff1c": "[fullwidth <]",
    "≠": "[ne]",
    "“": "[ldquo]",
    "”": "[rdquo]",
    "\u2019": "[rsquo]",
    "—": "[mdash]",
    "\u2013": "[ndash]",
}


def _id(words: str, text: str, workspace: str) -> str:
    shown = "".join(c if c.isascii() else _NAMES.get(c, f"[U+{ord(c):04X}]") for c in text)
    where = "" if workspace == WORKSPACE else f"@{workspace or 'root'}"
    return f"{words}{where}: {shown or '(empty)'}"


def read(
    words: str, text: str, *alternatives: list[Lit], workspace: str = WORKSPACE, **kw: Any
) -> Any:
    """`text` reads as these alternatives (none: it can never hold)."""
    expected = [list(a) for a in alternatives]
    return pytest.param(words, workspace, text, expected, "", id=_id(words, text, workspace), **kw)


def one(words: str, text: str, *literals: Lit, workspace: str = WORKSPACE) -> Any:
    """`text` reads as one alternative: these literals, all holding together."""
    return read(words, text, list(literals), workspace=workspace)


def refused(words: str, text: str, why: str = "", workspace: str = WORKSPACE) -> Any:
    """`text` is not read: it is reported, with `why` in the reason if given."""
    return pytest.param(words, workspace, text, None, why, id=_id(words, text, workspace))


URL = r"https://\S+"
REFS = ".atlassian-refs"
TABLE = r"^- (\w+)$"


def under(ledger: str, pattern: str, section: str) -> str:
    """A ledger fact's parameter scoped to a section: a JSON list of the three."""
    return json.dumps([ledger, pattern, section])


FEATURES = "feature-list.json"
UP, DOWN = "sql/*.up.sql", "sql/*.down.sql"
PAIR = f"{UP} {DOWN}"


def reading(text: str, words: str, workspace: str) -> tuple[list[list[Lit]] | None, str]:
    cond = parse_condition(text, LEXICONS[words], workspace)
    if cond.unknown:
        return None, " | ".join(why for _, why in cond.why)
    found = [
        sorted((lit.atom.probe, lit.atom.file, lit.atom.param, lit.positive) for lit in clause)
        for clause in cond.clauses
    ]
    return sorted(found), ""


def assert_reads(
    words: str, workspace: str, text: str, expected: list[list[Lit]] | None, why: str
) -> None:
    """`text`, read with `words` in `workspace`, reads as `expected`, or (None) is
    refused saying `why`."""
    found, reason = reading(text, words, workspace)
    if expected is None:
        assert found is None, f"{text!r} must be refused, but reads as {found}"
        assert why in reason, f"{text!r} is refused, but not saying {why!r}: {reason!r}"
    else:
        assert found is not None, f"{text!r} must read, but is refused: {reason!r}"
        assert found == sorted(sorted(a) for a in expected)
