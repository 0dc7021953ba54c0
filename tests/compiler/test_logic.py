"""`codegen.logic`: conditions as alternatives of facts; a contradiction never holds,
implications are transitive, and a fact is said in plain words."""

from __future__ import annotations

from codegen.logic import describe, implied
from codegen.model import Atom, LiteralSpec
from codegen.read.conditions import parse_condition
from spellbook.facts.probes import PROBES

AC = "Acceptance Criteria"


def test_a_contradiction_never_holds() -> None:
    cond = parse_condition("plan.md exists AND plan.md missing")
    assert cond.clauses == () and not cond.always


def test_an_alternative_that_always_holds_makes_the_condition_always() -> None:
    """`X OR NOT (a contradiction)` always holds, and reads as `always` does: the
    other alternatives are not kept beside it (the canonical words are `always`)."""
    cond = parse_condition("context.md exists OR NOT (a.md exists AND a.md missing)")
    assert cond.clauses == parse_condition("always").clauses == ((),)
    assert cond.always


def test_implications_are_transitive() -> None:
    unchecked = Atom("unchecked", "plan.md", AC)
    assert implied(unchecked) == (
        Atom("items", "plan.md", AC),
        Atom("section", "plan.md", AC),
        Atom("exists", "plan.md"),
    )
    assert implied(Atom("matches", "plan.md", "x")) == (Atom("exists", "plan.md"),)
    assert implied(Atom("exists", "plan.md")) == ()
    narrower = Atom("field", "f.json", "a[b=c][d!=$e]")
    assert implied(narrower) == (
        Atom("exists", "f.json"),
        Atom("field", "f.json", "a[b=c]"),
        Atom("field", "f.json", "a"),
    )
    for probe in PROBES.values():
        for other in probe.implies:
            assert other in PROBES


def test_describe_in_plain_words() -> None:
    assert describe(LiteralSpec(Atom("exists", "task.md"), False)) == "task.md missing"
    assert describe(LiteralSpec(Atom("exists", "plan.md"), True)) == "plan.md exists"
