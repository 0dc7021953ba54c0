"""Every fact kind and every verb of the core has one home, and the reader, the runtime
and the verifier take what they know of it from there.

A fact kind is a `spellbook.facts.probes.Probe`: its words when it holds and when not (the
canonical words the reading report shows), its meaning, its runtime check and what
the verifier knows of it (the facts it implies). A verb is a `spellbook.verbs.actions.Verb`:
its meaning, what it changes and its carry-out. The compiler's phrases and canonical
words live in `codegen.read` keyed by the same names (`codegen.read.canonical`).
Adding a kind means its definition, a sample here and its row in
docs/guide/reading-specs.md's table of kinds (checked by `tests/runtime/test_probes.py`):
the tests fail until all three are there.
"""

from __future__ import annotations

import json

import pytest

from codegen.model import Atom, LiteralSpec
from codegen.read.conditions import parse_condition
from codegen.read.lexicon import Lexicon, ReadOptions
from spellbook.facts.probes import PROBES
from spellbook.facts.wording import describe
from spellbook.verbs.actions import VERBS

# One fact of each kind, as (file, parameter): its canonical words must read back to it.
SAMPLES: dict[str, tuple[str, str]] = {
    "exists": ("plan.md", ""),
    "matches": ("plan.md", r"^## Risks$"),
    "items": ("plan.md", "Acceptance Criteria"),
    "unchecked": ("plan.md", "Acceptance Criteria"),
    "items_at_least": ("plan.md", "2 Acceptance Criteria"),
    "unchecked_at_least": ("plan.md", "3 Risks"),
    "checked_at_least": ("plan.md", "1 Risks"),
    "count_at_least": ("review.json", "2 approvals[state=approved]"),
    "section_text": ("notes.md", "Summary"),
    "section": ("notes.md", "Pre-flight"),
    "edited": ("plan.md", ""),
    "field": ("review.json", "approvals[role=lead]"),
    "value": ("review.json", '["score", ">=", 70]'),
    "newer": ("task.md", "plan.md"),
    "newer_some": ("plan.md", "tests/test_*.py"),
    "glob": ("", "sql/*.up.sql"),
    "paired": ("", "sql/*.up.sql sql/*.down.sql"),
    "unlisted": ("notes.md", ".seen ticket-\\d+"),
    "listed": ("notes.md", ".seen ticket-\\d+"),
    "below": ("", "attempts<3"),
    "over_minutes": ("", "120"),
    "passes": ("commands.json", "test"),
    "last_passed": ("", "test"),
}
# Kinds the reader never produces from words: a phrase nothing defines; a guard of the
# project's own code, read only with `own_code = true` (tests/compiler/test_own_code.py).
NOT_WRITTEN = {"unknown", "own"}


def test_every_fact_kind_has_a_sample_here() -> None:
    assert set(SAMPLES) == set(PROBES) - NOT_WRITTEN


@pytest.mark.parametrize("kind", sorted(set(PROBES) - NOT_WRITTEN))
def test_a_fact_kind_has_words_meaning_check_and_what_it_implies(kind: str) -> None:
    probe = PROBES[kind]
    assert probe.name == kind
    assert probe.yes and probe.no and probe.yes != probe.no
    assert probe.meaning.endswith(".")
    assert callable(probe.check)
    assert set(probe.implies) <= set(PROBES)
    # A kind that reads a file's content says something of the file's existence.
    assert not probe.reads_content or probe.implies


@pytest.mark.parametrize("kind", sorted(SAMPLES))
@pytest.mark.parametrize("holds", [True, False])
def test_a_fact_s_canonical_words_read_back_to_the_same_fact(kind: str, holds: bool) -> None:
    file, param = SAMPLES[kind]
    words = describe(kind, file, param, holds)
    read = parse_condition(words, Lexicon.of(ReadOptions("")))
    assert not read.unknown, (words, read.why)
    assert read.clauses == ((LiteralSpec(Atom(kind, file, param), holds),),), words


def test_every_verb_has_a_phrase_the_reader_reads_as_it() -> None:
    from codegen.read.action_phrases import parse_actions

    phrases = {
        "create": "Create plan.md from template",
        "archive": "Archive task.md to tasks/${date}/",
        "delete": "Delete existing task.md",
        "load": "Load plan.md content into memory",
        "extract": "Extract task_name from task.md frontmatter",
        "record": "Append matches of `ticket-\\d+` from notes.md to `.seen`",
        "copy": "Copy plan.md to plan-copy.md",
        "move": "Move plan.md to done/",
        "append": 'Append "shipped ${date}" to CHANGES.md',
        "set_field": "Set `approved` in review.json to true",
        "append_item": 'Append {"id": "$feature_id"} to `done` in progress.json',
        "set_state_field": 'Set `feature_id` in the state file to "F1"',
        "increment": "Increment attempts",
        "reset": "Reset attempts",
        "set_state": "Update state to DONE",
        "no_change": "No state change",
        "fill": "Replaces `[PLAN]` in response with the plan",
        "find": "Extracts all ticket references from notes.md",
        "instruct": "Ask the developer to review the plan",
        "call": "Tell the customer",
    }
    assert set(phrases) == set(VERBS)
    for verb, phrase in phrases.items():
        if verb == "find":  # a noun the spec defines as a pattern
            continue
        # A callback of the project's own code: only where the project says so.
        lexicon = Lexicon.of(ReadOptions("", own_code=verb == "call")).with_terms([])
        (action,) = parse_actions(phrase, "", lexicon)
        assert action.verb == verb, (phrase, action)


# A ledger's facts are about a section when scoped to one (`probes.ledger_param`).
SCOPED = {
    kind: ("notes.md", json.dumps([".seen", "ticket-\\d+", "Tickets"]))
    for kind in ("unlisted", "listed")
}


@pytest.mark.parametrize("kind", sorted(k for k in SAMPLES if PROBES[k].absent))
def test_no_such_items_under_a_section_that_is_there_is_said_in_one_phrase(kind: str) -> None:
    """What the reader reads `F has no unchecked items under "S"` as (the section there,
    no such items) is said back in those words, not as two facts."""
    from codegen.read.canonical import condition_words

    file, param = SCOPED.get(kind, SAMPLES[kind])
    words = describe(kind, file, param, False, absent=True)
    read = parse_condition(words, Lexicon.of(ReadOptions("")))
    assert not read.unknown and len(read.clauses[0]) == 2  # the section, and not the fact
    assert condition_words(read) == words


def test_the_reader_s_phrases_read_every_verb_of_the_runtime_and_no_other() -> None:
    """`action_phrases.PHRASES` is keyed by the runtime's verb names: every verb a cast
    carries out has its phrases, and no phrase names a verb the runtime does not have
    (an instruction to the AI is whatever no phrase reads)."""
    from codegen.read.action_phrases import PHRASES
    from codegen.read.canonical import _VERBS, AS_WRITTEN
    from codegen.read.near_verbs import VERBS as NEAR

    read = {verb for verbs, _, _ in PHRASES for verb in verbs}
    assert read | {"instruct", "call"} == set(VERBS)
    assert set(_VERBS) | AS_WRITTEN == set(VERBS)  # each said in its canonical words
    acting = {name for name, verb in VERBS.items() if not verb.passive}
    assert acting <= {entry.verb for entry in NEAR}  # each near miss of it answered


@pytest.mark.parametrize("pattern", ["a`b", "`", 'say "`hi`"'])
def test_a_pattern_with_a_backtick_is_said_in_quotes_and_reads_back(pattern: str) -> None:
    words = describe("matches", "plan.md", pattern, True)
    read = parse_condition(words, Lexicon.of(ReadOptions("")))
    assert read.clauses == ((LiteralSpec(Atom("matches", "plan.md", pattern), True),),), words
