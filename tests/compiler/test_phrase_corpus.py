"""A corpus of Condition phrases, each with the one reading its author means, or refused.

Every form `docs/guide/reading-specs.md` documents is here, read with the core alone,
with the `spell_workflow` and `coding_session` vocabularies, and with a spec's own
Terms table; and beside each, near misses: a typo, a missing backtick, words in
another order, an extra word, a unit or a sign the reader does not know, a path
that leaves the workspace, parentheses that hold something else, a plural. Each
near miss is read as what its author would mean, or refused (`unknown`, which the
verifier reports); never as another fact. The expected readings were decided from
the documentation and from what an author writing the phrase means.

The phrases are in `test_phrases_*.py`, one file per kind of fact; the way a phrase
and its reading are written is `tests/support/phrases.py`. Here: the corpus as a whole,
and the canonical words of each fact read back.
"""

from __future__ import annotations

import pytest

from tests.compiler.test_phrases_coding_session import PHRASES as CODING_SESSION
from tests.compiler.test_phrases_counts_and_queries import PHRASES as COUNTS_AND_QUERIES
from tests.compiler.test_phrases_files import PHRASES as FILES
from tests.compiler.test_phrases_logic_and_terms import PHRASES as LOGIC_AND_TERMS
from tests.compiler.test_phrases_numbers_and_time import PHRASES as NUMBERS_AND_TIME
from tests.compiler.test_phrases_spell_workflow import PHRASES as SPELL_WORKFLOW
from tests.support.phrases import FEATURES, OTHER_PENDING, PAIR, PENDING, URL, WORKSPACE, reading

CORPUS = [
    *FILES,
    *COUNTS_AND_QUERIES,
    *NUMBERS_AND_TIME,
    *LOGIC_AND_TERMS,
    *SPELL_WORKFLOW,
    *CODING_SESSION,
]


def test_the_corpus_is_large_and_names_each_phrase_once() -> None:
    ids = [p.id for p in CORPUS]
    assert len(ids) >= 300
    assert len(set(ids)) == len(ids), [i for i in ids if ids.count(i) > 1]
    refusals = sum(p.values[3] is None for p in CORPUS)
    assert 0.3 < refusals / len(CORPUS) < 0.7  # near misses beside every form


# Facts whose canonical words (`spellbook.facts.wording.describe`) must read back to themselves.
CANONICAL = [
    ("count_at_least", FEATURES, f"2 {PENDING}"),
    ("count_at_least", FEATURES, f"1 {OTHER_PENDING}"),
    ("count_at_least", FEATURES, "3 features"),
    ("count_at_least", "task.md", "2 tags"),
    ("checked_at_least", "plan.md", "2 Risks"),
    ("checked_at_least", "plan.md", "1 Open Questions"),
    ("paired", "", PAIR),
    ("paired", "", ".*.up .*.down"),
    ("listed", "context.md", f".refs {URL}"),
    ("listed", "context.md", "seen.txt ^- \\[x\\] (\\S+)"),
    ("exists", "/tests/test_feature.py", ""),
    ("glob", "", "/tests/test_*.py"),
    ("matches", "/src/app.py", "def main"),
    ("paired", "", "/sql/*.up.sql /sql/*.down.sql"),
    ("listed", "/CHANGELOG.md", "/docs/seen.txt ^- (\\S+)"),
]


@pytest.mark.parametrize("fact", CANONICAL, ids=[" ".join(f) for f in CANONICAL])
@pytest.mark.parametrize("holds", [True, False], ids=["holds", "not"])
def test_canonical_words_read_back_to_the_same_fact(
    fact: tuple[str, str, str], holds: bool
) -> None:
    from spellbook.facts.wording import describe

    words = describe(*fact, holds)
    found, reason = reading(words, "core", WORKSPACE)
    assert found == [[(*fact, holds)]], (words, reason)
