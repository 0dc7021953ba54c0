"""Responses made from the spec's Response Format Templates: split into parts when the
machine is generated, joined by the runtime's writer at cast time."""

from __future__ import annotations

from pathlib import Path

from codegen import load_spec
from codegen.render.machine_records import render_response, template_kind
from codegen.render.response_formats import split
from spellbook.cast.responses import compose, reason

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec(ROOT / "spec" / "STATE_MACHINE.md")


def rule(rid: str, source: str):  # type: ignore[no-untyped-def]
    return next(r for r in SPEC.rules if r.id == rid and r.source == source)


def test_template_kind_follows_what_the_rule_does() -> None:
    assert template_kind(SPEC, rule("GB1", "GATHER_EDITING")) == "blocked"
    assert template_kind(SPEC, rule("GN1", "GATHER_EDITING")) == "noop"
    assert template_kind(SPEC, rule("PR1", "GATHER_EDITING")) == "confirmation"
    assert template_kind(SPEC, rule("G1", "GATHER_NEEDS_PLAN")) == "standard"
    # Lumos keeps the state but is not a refusal: it gets the standard format.
    assert template_kind(SPEC, rule("L1", "GATHER_EDITING")) == "standard"


def test_the_spec_templates_are_used() -> None:
    assert [t.kind for t in SPEC.templates] == ["standard", "blocked", "noop", "confirmation"]
    text = render_response(SPEC, rule("AB1", "ACHIEVE_TASK_EXECUTED"))
    assert (
        "You attempted to cast **Finite** which cannot be used right now because you must " in text
    )
    assert "<" not in text.replace("<date>", "")


def test_blocked_response_fills_every_section() -> None:
    text = render_response(SPEC, rule("PB1", "PR_APPLIED_PENDING_ARCHIVE_A"))
    assert text.startswith("## Response to the AI\n\nTell user they must first Accio")
    assert (
        "### Where We Are\n**PR_APPLIED_PENDING_ARCHIVE_A**: Review task has been applied" in text
    )
    assert "### Available Spells\n{{available_spells}}" in text
    assert "### Next Steps\n{{next_steps}}" in text


def test_standard_response_says_what_the_actions_did() -> None:
    text = render_response(SPEC, rule("A2", "ACHIEVE_TASK_EXECUTED"))
    assert (
        "archived `.ai/task/task.md` and `.ai/task/task-results.md` to `{{archive_path}}`" in text
    )
    assert "moved from **ACHIEVE_TASK_EXECUTED** to **ACHIEVE_TASK_DRAFTING**" in text
    assert "{{content:task-results.md}}" in text
    assert "- **Accio**: {{does:Accio}}" in text


def test_family_rules_describe_their_own_destination() -> None:
    g = render_response(SPEC, rule("P1", "PR_GATHERING_COMMENTS_G"))
    a = render_response(SPEC, rule("P1", "PR_GATHERING_COMMENTS_A"))
    assert "**PR_REVIEW_TASK_DRAFT_G**" in g and "**PR_REVIEW_TASK_DRAFT_A**" in a


def test_unknown_actions_become_steps_for_the_ai() -> None:
    text = render_response(SPEC, rule("E1", "GATHER_NEEDS_PLAN"))
    assert "1. Extract Atlassian URLs from plan.md\n2. Fetch content via Atlassian MCP" in text


def test_reason() -> None:
    assert reason('Explain: "Use Accio first."') == "Use Accio first."
    assert reason("Tell user they must wait") == "you must wait"
    assert reason("\u2003 tELL THE user THAT they may go") == "you may go"
    assert reason("Resume plan editing") is None
    assert reason("") is None and reason(" tell user the rest") is None


def test_split_keeps_sections_without_slots_and_text_before_headings() -> None:
    template = (
        "Intro\n\n## Response to the AI\n<x>\n\n"
        "## Other\nkeep <this>, cast <Spell>\n\n### Next Steps\nAs written.\n"
    )
    parts = split(template, ["Go"])
    assert parts[1::2] == ("ai", "spell")
    values = {"spell": "Go", "ai": "AI TEXT", "happened": "", "where": ""}
    assert compose(parts, values) == template.replace("<x>", "AI TEXT").replace("<Spell>", "Go")


def test_split_marks_each_slot_by_its_section() -> None:
    parts = split(
        "## Response to the AI\n\n<Instructions>\n\n### What Just Happened\n"
        "You cast **<Spell>**: <what>.\n\n### Where We Are\n<state>\n\n"
        "### Available Spells\n- **Go**: <x>\n- **Stop**: <y>\n\n### Next Steps\n<next>\n",
        ["Go", "Stop"],
    )
    assert parts[1::2] == ("ai", "spell", "happened", "where")
    assert parts[-1] == (
        "\n\n### Available Spells\n- **Go**: {{does:Go}}\n- **Stop**: {{does:Stop}}\n\n"
        "### Next Steps\n{{next_steps}}"
    )


def test_a_template_without_headings_is_kept_as_written() -> None:
    assert split("\nJust <this>.\n\n", ["Go"]) == ("Just <this>.\n",)
