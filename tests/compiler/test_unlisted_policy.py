""" "Transitions not listed are rejected": said once in the spec or its project, every
(state, spell) no row names is blocked: by the generated machine, and in the verifier's
findings once, never per cell, and never as a row of the spec. Without it, a missing
cell says both ways to say so."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from codegen import SpecError, load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.reading import read_spec
from codegen.read.lexicon import ReadOptions
from codegen.read.policies import says_unlisted_rejected
from codegen.render import render_machine
from tests.support.specs import row, spec_text

STATES = ["DRAFT", "OPEN", "DONE"]
SPELLS = ["Open", "Finish", "Look"]
ROWS = [
    row("T1", "DRAFT", "Open", nxt="OPEN", action="Update state to OPEN", response="Opened"),
    row("T2", "OPEN", "Finish", nxt="DONE", action="Update state to DONE", response="Finished"),
    row("T3", "Any state", "Look", response="Where you are"),
]
# Open in OPEN and DONE, Finish in DRAFT and DONE: four cells no row names.
UNLISTED = 4
POLICY = "Any transition not listed here is denied."


def _text(sentence: str = POLICY) -> str:
    return spec_text(STATES, SPELLS, ROWS) + f"\n{sentence}\n"


@pytest.mark.parametrize(
    "sentence",
    [
        POLICY,
        "Transitions not listed are rejected",
        "Anything else is rejected.",
        "All other transitions are invalid and answered with HTTP 409.",
        "Unlisted transitions are refused.",
        "- Any transition not listed in this table is not allowed.",
        "Transitions not listed are rejected, with no exceptions.",
        "Transitions not listed are rejected without exception.",
    ],
)
def test_a_sentence_saying_unlisted_transitions_are_refused_is_the_policy(sentence: str) -> None:
    assert says_unlisted_rejected(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "In `archived`, anything else is rejected.",
        "`archived` → anything except `deleted` is rejected with HTTP 409.",
        "Direct `pending` → `paused-*` transitions are rejected.",
        "Every transition requires an allowed actorRole.",
        # a refusal limited after it is not every transition refused everywhere
        "Unlisted events are rejected, except in DRAFT where they are ignored.",
        "Any other events are rejected only by the API gateway; the machine ignores them.",
        "Everything else is blocked until the order is paid.",
        "Transitions not listed are rejected unless an admin overrides them.",
        # it says there are exceptions: the machine's policy is not all it says
        "Transitions not listed are rejected (see below for exceptions).",
        "Transitions not listed are rejected, with some exceptions.",
    ],
)
def test_a_sentence_about_some_states_is_not_the_policy(sentence: str) -> None:
    assert not says_unlisted_rejected(sentence)


@pytest.mark.parametrize(
    ("sentence", "limit"),
    [
        (
            "Transitions not listed are rejected by the API gateway, not by this machine.",
            "by the api gateway, not by this machine",
        ),
        ("Unlisted transitions are refused by the server.", "by the server"),
        ("Transitions not listed are rejected, except in DRAFT.", "except in draft"),
    ],
)
def test_a_sentence_that_another_refuses_them_is_no_policy_and_is_said(
    sentence: str, limit: str
) -> None:
    """A sentence saying something else rejects what the tables do not list (or only
    some of it) is not this machine's policy: the cells stay missing, and a warning at
    its line says it was not taken and the sentence that would be."""
    assert not says_unlisted_rejected(sentence)
    text = _text(sentence)
    findings = analyse(parse_spec_text(text, "spec/P.md"))
    assert not [f for f in findings if f.kind == "unlisted_rejected"]
    assert len([f for f in findings if f.kind == "missing_cell"]) == UNLISTED
    (said,) = [f for f in findings if f.kind == "unlisted_unread"]
    assert said.severity.value == "warning"
    assert said.line == text.split("\n").index(sentence) + 1
    assert repr(limit) in said.message and "'Transitions not listed are rejected.'" in said.message


@pytest.mark.parametrize(
    "sentence",
    [
        "Transitions not listed are rejected by this machine.",
        "Anything else is refused by Spellbook.",
    ],
)
def test_a_sentence_that_this_machine_refuses_them_is_the_policy(sentence: str) -> None:
    assert says_unlisted_rejected(sentence)
    findings = analyse(parse_spec_text(_text(sentence), "spec/P.md"))
    assert [f.kind for f in findings if f.kind.startswith("unlisted_")] == ["unlisted_rejected"]


def test_with_the_policy_unlisted_cells_are_blocked_and_reported_once() -> None:
    text = _text()
    spec = parse_spec_text(text, "spec/P.md")
    line = text.split("\n").index(POLICY) + 1
    findings = analyse(spec)
    assert not [f for f in findings if f.kind == "missing_cell"]
    (said,) = [f for f in findings if f.kind == "unlisted_rejected"]
    assert said.line == line and f"{UNLISTED} (state, spell) cells" in said.message
    assert POLICY in said.message and f"line {line}" in said.message
    blocked = {(r.source, r.spell) for r in spec.rules if r.policy}
    assert blocked == {("OPEN", "Open"), ("DONE", "Open"), ("DRAFT", "Finish"), ("DONE", "Finish")}
    # Nothing is said of the policy's rules as if they were rows.
    assert not [f for f in findings if f.rule == "not listed"]
    assert not [f for f in findings if f.severity.value == "error"]


def test_the_policy_after_a_note_s_label_is_read() -> None:
    spec = parse_spec_text(_text("**Note:** " + POLICY), "spec/P.md")
    findings = analyse(spec)
    assert not [f for f in findings if f.kind == "missing_cell"]


@pytest.mark.parametrize("alert", ["> [!IMPORTANT]\n> ", "> [!NOTE]\n> Rules.\n>\n> "])
def test_the_policy_in_a_github_alert_is_the_document_s_own_and_read(alert: str) -> None:
    """`> [!IMPORTANT]` over the sentence is the document's own note, as GitHub shows it:
    it was neither read nor said, each missing cell telling the author to write it."""
    findings = analyse(parse_spec_text(_text(alert + POLICY), "spec/P.md"))
    assert not [f for f in findings if f.kind in ("missing_cell", "unlisted_unread")]
    assert [f for f in findings if f.kind == "unlisted_rejected"]


@pytest.mark.parametrize("quoted", ["> ", "> **Note:** ", "- Rules:\n\n  > "])
def test_the_policy_in_a_block_quote_is_said_not_taken(quoted: str) -> None:
    """`> Transitions not listed are rejected.` may quote another system's manual: not
    taken as this machine's policy, but said at its line, where each missing cell only
    told the author to write the very sentence."""
    text = _text(quoted + POLICY)
    spec = parse_spec_text(text, "spec/P.md")
    findings = analyse(spec)
    assert [f for f in findings if f.kind == "missing_cell"]
    (said,) = [f for f in findings if f.kind == "unlisted_unread"]
    assert "is in a block quote" in said.message and "write it outside the quote" in said.message
    assert said.line == next(i for i, ln in enumerate(text.split("\n"), 1) if POLICY in ln)


@pytest.mark.parametrize("spell", ["state", "listed", "rejected", "transitions"])
def test_the_policy_s_own_words_are_no_advice_about_a_spell_of_that_name(spell: str) -> None:
    # The policy's refusal says "... is not listed for this state, and transitions not
    # listed are rejected.": a spell named by one of those words is not advised by it.
    text = (
        "# Desk\n\n| From | Event | To |\n|---|---|---|\n| (start) | created | OPEN |\n"
        f"| OPEN | {spell} | OPEN |\n| OPEN | close | CLOSED |\n| CLOSED | reopen | OPEN |\n"
        f"\n{POLICY}\n"
    )
    findings = analyse(parse_spec_text(text, "spec/P.md"))
    assert not [f for f in findings if f.kind == "misleading_advice"]
    assert not [f for f in findings if f.rule == "not listed"]


def test_the_policy_is_shown_as_the_policy_not_as_a_row() -> None:
    reading = read_spec(parse_spec_text(_text(), "spec/P.md"))
    assert [r.id for r in reading.rows] == ["T1", "T2", "T3"]
    assert reading.policy.startswith("policy (line ")
    assert "Open in OPEN" in reading.policy and "4 cells" in reading.policy
    assert reading.lines()[-1] == reading.policy and reading.json()["policy"] == reading.policy


def test_a_gap_a_row_leaves_is_rejected_by_the_policy_and_said_where() -> None:
    rows = [*ROWS, row("T4", "DONE", "Open", "`x.md` exists", "OPEN", "Update state to OPEN")]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows) + f"\n{POLICY}\n", "spec/P.md")
    last = spec.cell("DONE", "Open")
    assert [r.id for r in last] == ["T4", "not listed"] and last[-1].fills_gap
    findings = analyse(spec)
    assert not [f for f in findings if f.kind in ("gap", "overlap", "dead_rule")]
    said = [f for f in findings if f.kind == "unlisted_gap"]
    assert [f.state for f in said] == ["DONE"] and "when x.md missing" in said[0].message
    # the cell is no cell "not listed": the summary counts the cells no row names
    unlisted = next(f for f in findings if f.kind == "unlisted_rejected")
    assert "3 (state, spell) cells" in unlisted.message
    without = parse_spec_text(spec_text(STATES, SPELLS, rows), "spec/P.md")
    assert [f.state for f in analyse(without) if f.kind == "gap"] == ["DONE"]


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("policy") / "p_machine.py"
    path.write_text(render_machine(parse_spec_text(_text(), "spec/P.md"), "p"), encoding="utf-8")
    found = importlib.util.spec_from_file_location("p_machine", path)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


class _NoFiles:
    def check(self, probe: str, file: str, param: str) -> bool:
        return False


def test_the_generated_machine_refuses_an_unlisted_spell(machine: Any) -> None:
    model = machine.Model(_NoFiles())
    machine.build(model)
    assert model.may_finish() is False and model.finish() is False
    assert (model.refused, model.state) == ("not listed", "DRAFT")
    assert model.open() is True and model.state == "OPEN"
    assert model.open() is False and model.refused == "not listed"


def test_without_the_policy_a_missing_cell_says_both_ways_to_refuse_it() -> None:
    spec = parse_spec_text(spec_text(STATES, SPELLS, ROWS), "spec/P.md")
    missing = [f.message for f in analyse(spec) if f.kind == "missing_cell"]
    assert len(missing) == UNLISTED
    first_open = next(m for m in missing if "what Open does" in m)
    assert "| Any state | Open | - | [BLOCKED] | - | Open is not available here. |`" in first_open
    assert "`Transitions not listed are rejected.`" in first_open
    assert 'unlisted = "rejected"' in first_open
    # Said once per spell, not on every cell, each row with an ID of its own.
    assert sum("[BLOCKED]" in m for m in missing) == 2
    assert sum("`| B1 |" in m for m in missing) == sum("`| B2 |" in m for m in missing) == 1


def test_the_suggested_row_is_in_the_spec_s_own_columns() -> None:
    text = spec_text(STATES, SPELLS, ROWS).replace(
        "| ID | Current State | Trigger | Condition | Next State | Action | Response |",
        "| ID | Trigger | Current State | Condition | Next State | Action | Notes |",
    )
    text = text.replace("| T1 | DRAFT | Open |", "| T1 | Open | DRAFT |")
    text = text.replace("| T2 | OPEN | Finish |", "| T2 | Finish | OPEN |")
    text = text.replace("| T3 | Any state | Look |", "| T3 | Look | Any state |")
    missing = [f.message for f in analyse(parse_spec_text(text, "spec/P.md"))]
    assert any("| Open | Any state | - | [BLOCKED] | - |  |`" in m for m in missing)


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "spec").mkdir()
    spec = tmp_path / "spec" / "P.md"
    spec.write_text(spec_text(STATES, SPELLS, ROWS), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(f"[tool.spellbook]\n{table}\n", encoding="utf-8")
    return spec


@pytest.mark.parametrize(
    "table",
    [
        'unlisted = "rejected"',
        '[tool.spellbook.machines]\np = { spec = "spec/P.md", unlisted = "rejected" }',
        'unlisted = "rejected"\n[tool.spellbook.machines]\np = "spec/P.md"',
    ],
)
def test_the_project_may_say_it_under_tool_spellbook(tmp_path: Path, table: str) -> None:
    findings = analyse(load_spec(_project(tmp_path, table)))
    assert not [f for f in findings if f.kind == "missing_cell"]
    (said,) = [f for f in findings if f.kind == "unlisted_rejected"]
    assert said.line is None and "[tool.spellbook]" in said.message
    assert 'unlisted = "rejected"' in said.message


def test_a_machine_may_keep_missing_cells_errors_when_the_project_rejects(tmp_path: Path) -> None:
    table = (
        'unlisted = "rejected"\n[tool.spellbook.machines]\n'
        'p = { spec = "spec/P.md", unlisted = "" }'
    )
    findings = analyse(load_spec(_project(tmp_path, table)))
    assert len([f for f in findings if f.kind == "missing_cell"]) == UNLISTED


def test_an_unlisted_setting_it_cannot_take_is_an_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match='unlisted must be "rejected"'):
        load_spec(_project(tmp_path, 'unlisted = "yes"'))


def test_the_read_options_carry_the_setting() -> None:
    spec = parse_spec_text(
        spec_text(STATES, SPELLS, ROWS), "spec/P.md", None, ReadOptions(unlisted="rejected")
    )
    assert spec.unlisted is not None and spec.unlisted.line == 0
    assert len([r for r in spec.rules if r.policy]) == UNLISTED


def test_the_reports_carry_the_policy_not_a_row() -> None:
    from codegen.analyse.report import to_json, to_markdown

    spec = parse_spec_text(_text(), "spec/P.md")
    findings = analyse(spec)
    report = to_json(spec, findings)
    assert report["rules"] == 5 and "policy" in report["reading"]
    markdown = to_markdown(spec, findings)
    assert "Policy (line " in markdown
    # In the coverage matrix the policy's cells say `not listed`; no row of Reading does.
    assert "| `OPEN` | not listed | T2 | T3* |" in markdown
    assert "\n| not listed |" not in markdown


def test_the_matrices_show_the_policy_in_a_cell_only_where_some_world_reaches_it() -> None:
    """A cell whose rows all have conditions gets the policy's rule last, for a world
    none of them fires in; where the rows cover every world, it never fires and the
    matrices do not show it."""
    from codegen.analyse.report import format_text, to_json, to_markdown

    covered = [
        *ROWS,
        row("T4", "DONE", "Open", "`x.md` exists", "OPEN", "Update state to OPEN"),
        row("T5", "DONE", "Open", "`x.md` missing", "DONE", "No state change"),
    ]
    gapped = [*ROWS, row("T4", "DONE", "Open", "`x.md` exists", "OPEN", "Update state to OPEN")]
    for rows, shown in ((covered, ["T4", "T5"]), (gapped, ["T4", "not listed"])):
        spec = parse_spec_text(spec_text(STATES, SPELLS, rows) + f"\n{POLICY}\n", "spec/P.md")
        assert spec.cell("DONE", "Open")[-1].fills_gap  # the machine keeps it either way
        findings = analyse(spec)
        assert to_json(spec, findings)["matrix"]["DONE"]["Open"] == shown
        assert to_json(spec, findings)["family_matrix"]["DONE"]["Open"] == shown
        line = next(ln for ln in format_text(spec, findings).splitlines() if ln.startswith("DONE "))
        assert line.split() == ["DONE", *" ".join(shown).split(), "not", "listed", "T3*"]
        assert f"| `DONE` | {', '.join(shown)} |" in to_markdown(spec, findings)
