"""The condition language: every phrase form of the glossary, implications, unknown phrases."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import load_spec, parse_spec_text
from codegen.glossary import PHRASES, PROBES, describe, implied, parse_condition
from codegen.model import Atom, Literal
from tests.specs import fill, findings_of, row, spec_text

SEED = Path(__file__).parent / "fixtures" / "seed_spec.md"


def lits(text: str) -> list[tuple[str, bool]]:
    cond = parse_condition(text)
    assert cond.unknown == ()
    return [(lit.atom.name, lit.positive) for lit in cond.literals]


@pytest.mark.parametrize("text", ["-", "", "  -  ", "—", "always"])
def test_always(text: str) -> None:
    cond = parse_condition(text)
    assert cond.always and cond.unknown == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("task.md exists", [("task_md_exists", True)]),
        ("plan.md missing", [("plan_md_exists", False)]),
        ("task.md doesn't exist", [("task_md_exists", False)]),
        ("task.md does not exist", [("task_md_exists", False)]),
        ("review-task-results.md is missing", [("review_task_results_md_exists", False)]),
        ("≥1 AC in plan.md", [("plan_md_has_ac", True)]),
        (">= 1 AC in plan.md", [("plan_md_has_ac", True)]),
        ("No AC in plan.md", [("plan_md_has_ac", False)]),
        ("No unchecked AC in plan.md", [("plan_md_has_unchecked_ac", False)]),
        ("Atlassian URLs found", [("plan_md_has_atlassian_urls", True)]),
        ("No Atlassian URLs found", [("plan_md_has_atlassian_urls", False)]),
        ("PR review in progress (comments.md exists)", [("comments_md_exists", True)]),
        ("PR review task in progress (review-task.md exists)", [("review_task_md_exists", True)]),
        (
            "No PR review in progress",
            [("comments_md_exists", False), ("review_task_md_exists", False)],
        ),
    ],
)
def test_phrase_forms(text: str, expected: list[tuple[str, bool]]) -> None:
    assert lits(text) == expected


def test_and_joins_phrases_in_order() -> None:
    assert lits("≥1 AC in plan.md AND task.md doesn't exist AND plan.md exists") == [
        ("plan_md_has_ac", True),
        ("task_md_exists", False),
        ("plan_md_exists", True),
    ]


def test_every_glossary_example_parses_to_its_probe() -> None:
    for phrase in PHRASES:
        cond = parse_condition(phrase.example)
        assert cond.unknown == (), phrase.example
        assert cond.literals[0].atom.probe == phrase.probe
        assert cond.literals[0].positive is phrase.positive


def test_implications_are_transitive() -> None:
    unchecked = Atom("has_unchecked_ac", "plan.md")
    assert implied(unchecked) == (Atom("has_ac", "plan.md"), Atom("exists", "plan.md"))
    assert implied(Atom("has_atlassian_urls", "plan.md")) == (Atom("exists", "plan.md"),)
    assert implied(Atom("exists", "plan.md")) == ()
    for probe in PROBES.values():
        for other in probe.implies:
            assert other in PROBES


def test_describe_in_plain_words() -> None:
    assert describe(Literal(Atom("exists", "task.md"), False)) == "task.md missing"
    assert describe(Literal(Atom("exists", "plan.md"), True)) == "plan.md exists"


def test_unknown_phrase_is_kept_and_reported_with_its_line() -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [row("U1", "A", "Go", condition="plan.md exists AND moon is full")]
    text = spec_text(states, spells, rows + fill(states, spells, ["A/Go"]))
    spec = parse_spec_text(text)
    (rule,) = [r for r in spec.rows if r.id == "U1"]
    assert rule.condition.unknown == ("moon is full",)
    assert [lit.atom.probe for lit in rule.condition.literals] == ["exists", "unknown"]
    (finding,) = findings_of(text)
    assert (finding.kind, finding.rule, finding.line) == ("unknown_condition", "U1", rule.line)
    # The row still covers its cell.
    assert [r.id for r in spec.cell("A", "Go")] == ["U1"]


def test_unknown_phrase_gets_a_suggestion() -> None:
    states, spells = ["A"], ["Go"]
    text = spec_text(states, spells, [row("U1", "A", "Go", condition="task.md exsts")])
    (finding,) = findings_of(text)
    assert "did you mean 'task.md exists'?" in finding.message


def test_seed_conditions_are_all_in_the_glossary() -> None:
    spec = load_spec(SEED)
    assert [r.id for r in spec.rows if r.condition.unknown] == []
    atoms = sorted({lit.atom.name for r in spec.rows for lit in r.condition.literals})
    assert atoms == [
        "comments_md_exists",
        "plan_md_exists",
        "plan_md_has_ac",
        "plan_md_has_atlassian_urls",
        "plan_md_has_unchecked_ac",
        "review_task_md_exists",
        "review_task_results_md_exists",
        "task_md_exists",
        "task_results_md_exists",
    ]
