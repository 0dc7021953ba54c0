"""Canonical words (`codegen.read.canonical`) read back as exactly what they say.

For every phrase of the condition phrase corpus that reads, for conditions made of
them with AND, OR, NOT and parentheses, and for every row and term of every spec and
fixture in the repository: the canonical words of the reading, read again (with the
core's and the vocabulary's words, never the spec's own Terms), give the identical
facts, and an Action cell's canonical words the identical actions.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from codegen.config import options_for
from codegen.logic import TooComplex
from codegen.model import ActionSpec, Atom, LiteralSpec, Spec
from codegen.pipeline import load_spec, parse_spec_bytes
from codegen.read import action_phrases
from codegen.read.action_phrases import parse_actions
from codegen.read.canonical import (
    _VERBS,
    AS_WRITTEN,
    action_words,
    actions_words,
    condition_words,
    fact_words,
    lexicon_for,
    shown,
)
from codegen.read.conditions import parse_condition
from codegen.read.lexicon import Lexicon, ReadOptions
from spellbook.facts.probes import PROBES, Probe
from spellbook.verbs.actions import VERBS
from tests.compiler.test_phrase_corpus import CORPUS
from tests.support.phrases import LEXICONS
from tests.support.specs import one_machine_cases

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "fixtures"
# Fixtures that are not specs: a seed's list of transitions, and a Terms table that
# `later_revision.md` is read with (below).
NOT_SPECS = {"seed_session_patterns.md", "later_revision_terms.md"}
SPECS = sorted(
    [
        *ROOT.glob("spec/*.md"),
        *(p for p in ROOT.glob("examples/*/spec/*.md")),
        *one_machine_cases(ROOT),
        *(p for p in FIXTURES.glob("*.md") if p.name not in NOT_SPECS),
    ]
)
# Cases of a spec the reader refuses: nothing is read, so nothing to say back.
UNREADABLE = {"parse_error"}

READS = [p for p in CORPUS if p.values[3] is not None]


def _vocabulary(words: str) -> Lexicon:
    """The lexicon canonical words are read back with, for a corpus lexicon."""
    return lexicon_for(ReadOptions(LEXICONS[words].vocabulary))


@pytest.mark.parametrize(("words", "workspace", "text", "expected", "why"), READS)
def test_a_corpus_phrase_s_canonical_words_read_back_as_its_facts(
    words: str, workspace: str, text: str, expected: object, why: str
) -> None:
    condition = parse_condition(text, LEXICONS[words], workspace)
    said = condition_words(condition, _vocabulary(words))
    again = parse_condition(said, _vocabulary(words), workspace)
    assert not again.unknown, (text, said, again.why)
    assert again.clauses == condition.clauses, (text, said)


def _phrases(words: str) -> list[tuple[str, str]]:
    return [(p.values[2], p.values[1]) for p in READS if p.values[0] == words]


@st.composite
def _conditions(draw: Any) -> tuple[str, str, str]:
    """A condition of corpus phrases of one lexicon and workspace, grouped and joined by
    AND, OR and NOT."""
    words = draw(st.sampled_from(sorted(LEXICONS)))
    workspace = draw(st.sampled_from(sorted({w for _, w in _phrases(words)})))
    pool = [t for t, w in _phrases(words) if w == workspace]
    parts = []
    for i in range(draw(st.integers(1, 4))):
        part = f"({draw(st.sampled_from(pool))})"
        if draw(st.booleans()):
            part = "NOT " + part
        if i:
            parts.append(draw(st.sampled_from([" AND ", " OR ", "; "])))
        parts.append(part)
    return words, workspace, "".join(parts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_conditions())
# An alternative that always holds (NOT of a contradiction) is the whole condition.
@example(("core", ".ai/task", "(context.md exists) OR NOT (a.md exists AND a.md missing)"))
# A section's "no" said in one phrase only where the reader puts its two facts together.
@example(
    (
        "spell",
        ".ai/task",
        "(No unchecked AC in plan.md) OR NOT (Searches for AC in plan.md (finds some)) "
        "AND (No unchecked AC in plan.md)",
    )
)
def test_conditions_of_corpus_phrases_read_back_as_their_facts(
    made: tuple[str, str, str],
) -> None:
    words, workspace, text = made
    try:
        condition = parse_condition(text, LEXICONS[words], workspace)
    except TooComplex:  # pragma: no cover - parse_condition reports it as unknown
        assume(False)
    assume(not condition.unknown)
    said = condition_words(condition, _vocabulary(words))
    again = parse_condition(said, _vocabulary(words), workspace)
    assert again.clauses == condition.clauses, (text, said)


def _spec(path: Path) -> tuple[Spec, ReadOptions]:
    options = options_for(path)
    return load_spec(path, options=options), options


def _specs() -> list[Any]:
    found = [
        pytest.param(p, id=str(p.relative_to(ROOT)))
        for p in SPECS
        if p.parent.name not in UNREADABLE
    ]
    return [*found, pytest.param(None, id="later_revision.md with its Terms table")]


def _same(actions: tuple[ActionSpec, ...]) -> list[ActionSpec]:
    """Actions as compared: every field but the words each was written in."""
    return [replace(a, text="") for a in actions]


@pytest.mark.parametrize("path", _specs())
def test_every_row_and_term_of_a_spec_reads_back_from_its_canonical_words(
    path: Path | None,
) -> None:
    if path is None:
        data = (FIXTURES / "later_revision.md").read_bytes()
        data += (FIXTURES / "later_revision_terms.md").read_bytes()
        options = ReadOptions("spell_workflow")
        spec = parse_spec_bytes(data, "later_revision.md", options)
    else:
        spec, options = _spec(path)
    words = lexicon_for(options)
    own = Lexicon.of(options).with_terms([*spec.terms, *options.terms]).with_files(options)
    assert spec.rows
    for row in spec.rows:
        said = condition_words(row.condition, words)
        again = parse_condition(said, words, spec.workspace)
        assert again.clauses == row.condition.clauses, (row.id, row.condition.text, said)
        assert again.unknown == row.condition.unknown, (row.id, said)
        cell = actions_words(row.actions, own)
        assert _same(parse_actions(cell, spec.workspace, own)) == _same(row.actions), (
            row.id,
            row.action,
            cell,
        )
    for term in spec.terms:
        condition = parse_condition(term.means, own, spec.workspace)
        if condition.unknown:
            continue  # an action's term, or one not read: its actions are the rows'
        said = condition_words(condition, words)
        assert parse_condition(said, words, spec.workspace).clauses == condition.clauses


def test_every_fixture_and_case_is_read_back() -> None:
    """The list above is the repository's specs: both project specs, every example, the
    fixtures (seed, later revision, Prettier's) and the golden cases."""
    names = {str(p.relative_to(ROOT)) for p in SPECS}
    assert {"spec/STATE_MACHINE.md", "spec/SESSION_STATE_MACHINE.md"} <= names
    assert "tests/data/fixtures/seed_spec.md" in names
    assert "tests/data/fixtures/later_revision.md" in names
    assert sum(n.startswith("tests/data/cases/") for n in names) >= 80
    assert sum(n.startswith("examples/") for n in names) >= 2


def test_a_condition_that_never_holds_is_said_never_and_read_back() -> None:
    condition = parse_condition("a.md exists AND a.md missing")
    assert condition.clauses == ()
    assert condition_words(condition) == "never"
    assert parse_condition("never").clauses == ()
    assert condition_words(parse_condition("-")) == "always"
    assert parse_condition("always").clauses == ((),)


def test_a_new_kind_of_fact_is_said_in_its_probe_s_own_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A probe added to the core is said in its `yes` and `no` words, with no code of
    canonical words to change."""
    probe = Probe("tallied", "{file} is tallied", "{file} is not tallied", "", lambda *_: True)
    monkeypatch.setitem(PROBES, "tallied", probe)
    atom = Atom("tallied", "notes.md")
    assert fact_words(LiteralSpec(atom, True)) == "notes.md is tallied"
    assert fact_words(LiteralSpec(atom, False)) == "notes.md is not tallied"
    assert fact_words(LiteralSpec(Atom("tallied", "VERSION"), True)) == "`VERSION` is tallied"


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("Creates task.md file", "Create empty task.md"),
        ("Increments rounds", "Increment rounds"),
        ("Set rounds to 2", "Reset rounds to 2"),
        ("Reset rounds", "Reset rounds to 0"),
        ("Removes  existing notes.md", "Removes existing notes.md"),  # an instruction
        ("Deletes existing notes.md", "Delete notes.md"),
        ("Renames a.md to b.md", "Move a.md to b.md"),
        ("Copies a.md into done/", "Copy a.md to `done/`"),
        ('Appends "x `y`" to log.md', 'Append "x `y`" to log.md'),
        ("Sets done in review.json to  true", "Set `done` in review.json to true"),
        (
            'Sets features[id=$feature_id].status in feature-list.json to  "tested"',
            'Set `features[id=$feature_id].status` in feature-list.json to "tested"',
        ),
        (
            'Appends {"id":"$feature_id"} to done in progress.json',
            'Append {"id": "$feature_id"} to `done` in progress.json',
        ),
        (
            'Sets the feature_id field of the state file to  "F1"',
            'Set `feature_id` in the state file to "F1"',
        ),
        (
            "Set feature_id in the state file to first features[status=pending].id in "
            "`.ai/task/feature-list.json`",
            "Set `feature_id` in the state file to the first `features[status=pending].id` of "
            "feature-list.json",
        ),
        (
            'Append "go to bed" to `lists[name=home].todo` of p.json',
            'Append "go to bed" to `lists[name=home].todo` in p.json',
        ),
        ("Reads `.ai/task/task.md` frontmatter", "Read task.md frontmatter"),
        ("Extracts id from review.json", "Extract id from review.json"),
        ("Reads plan.md content into memory", "Load plan.md content"),
        ("Updates state to `DONE`", "Update state to DONE"),
        (
            "Appends matches of `x+` from a.md to `.seen`",
            "Record matches of `x+` of a.md in `.seen`",
        ),
        (
            "Records matches of `x+` of plan.md under the Tables section in `.applied`",
            'Record matches of `x+` under "Tables" of plan.md in `.applied`',
        ),
    ],
)
def test_an_action_is_said_in_its_verb_s_canonical_words(written: str, said: str) -> None:
    (action,) = parse_actions(written, ".ai/task")
    assert action_words(action) == said
    (again,) = parse_actions(said, ".ai/task")
    assert _same((again,)) == _same((action,))


def test_an_instruction_to_the_ai_is_shown_as_one() -> None:
    instruction, verb = parse_actions("(1) Tell the user hello; (2) Increment rounds", "")
    assert shown(instruction) == "instruction to the AI: Tell the user hello"
    assert shown(verb) == "Increment rounds"


def test_every_verb_of_the_core_has_its_canonical_words() -> None:
    """Each verb of the core (`spellbook.verbs.actions.VERBS`, which `action_phrases` documents)
    has one canonical form, or is said as written."""
    found = re.findall(r"^- `(\w+)`(?:, `(\w+)`)?", action_phrases.__doc__ or "", re.M)
    documented = {verb for pair in found for verb in pair if verb}
    assert set(VERBS) == documented == set(_VERBS) | AS_WRITTEN
    assert not set(_VERBS) & AS_WRITTEN


@pytest.mark.parametrize(
    "atom",
    [
        Atom("exists", "/tests/test_feature.py"),
        Atom("exists", "/VERSION"),
        Atom("glob", "", "/tests/**/test_*.py"),
        Atom("matches", "/src/app.py", "def main"),
        Atom("paired", "", "/sql/*.up.sql /sql/*.down.sql"),
        Atom("newer", "plan.md", "/src/app.py"),
    ],
    ids=lambda atom: f"{atom.probe} {atom.file or atom.param}",
)
@pytest.mark.parametrize("holds", [True, False], ids=["holds", "not"])
def test_a_fact_of_a_repository_file_is_said_from_its_top_and_read_back(
    atom: Atom, holds: bool
) -> None:
    said = fact_words(LiteralSpec(atom, holds))
    assert re.search(r"(?:^|[\s`])/\w", said), said  # named from the repository's top
    again = parse_condition(said, Lexicon(), ".ai/task")
    assert again.clauses == ((LiteralSpec(atom, holds),),), (said, again.why)
