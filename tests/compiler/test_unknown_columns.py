"""A table a project's `columns` configuration would read as transition rules, read
without it: a warning at the table's line naming the columns no role is called and how
to name them (`unknown_column`), never a machine that silently lacks the table's rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import SpecError, load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.model import Spec
from codegen.read.lexicon import ReadOptions
from tests.support.specs import fill, row, spec_text

STATES, SPELLS = ["A", "B"], ["Go", "Stop"]
GERMAN = (
    "| ID | Zustand | Trigger | Wenn | Danach | Aktion | Antwort |\n|---|---|---|---|---|---|---|\n"
)
STOP_ROW = '| S1 | A, B | Stop | - | Same state | No state change | Explain: "Nothing to stop." |\n'
# What the project that wrote the table says in [tool.spellbook] columns.
PROJECT = ReadOptions(
    "",
    (
        ("current_state", ("Zustand",)),
        ("condition", ("Wenn",)),
        ("next_state", ("Danach",)),
        ("action", ("Aktion",)),
        ("response", ("Antwort",)),
    ),
)


def with_table(header: str, rows: str = STOP_ROW) -> str:
    """The Go rules in a table the core reads, the Stop rules in a table of their own."""
    text = spec_text(STATES, SPELLS, fill(STATES, ["Go"]))
    return text + "\n### Stopping\n\n" + header + rows


def line_of(text: str, words: str) -> int:
    """The last line that holds `words` (the table `with_table` adds comes last)."""
    return max(i for i, ln in enumerate(text.split("\n"), 1) if words in ln)


def kinds(spec: Spec, *wanted: str) -> list[tuple[str, int | None]]:
    return [(f.kind, f.line) for f in analyse(spec) if f.kind in wanted]


def test_a_table_with_columns_no_role_is_called_is_a_warning_at_its_line() -> None:
    text = with_table(GERMAN)
    spec = parse_spec_text(text)
    assert not [r for r in spec.rows if r.id == "S1"]
    (finding,) = [f for f in analyse(spec) if f.kind == "unknown_column"]
    assert (finding.line, finding.severity.value) == (line_of(text, "| Zustand |"), "warning")
    for words in ("'Zustand'", "'Wenn'", "'Danach'", "'Aktion'", "'Antwort'"):
        assert words in finding.message
    assert "none for Current State, Condition, Next State, Action" in finding.message
    assert "[tool.spellbook]" in finding.message
    assert 'columns = { current_state = ["Zustand"] }' in finding.message
    assert "current_state, condition, next_state, action, response" in finding.message
    assert kinds(spec, "table_skipped") == []


def test_the_same_table_read_with_the_project_s_columns_is_transition_rules() -> None:
    spec = parse_spec_text(with_table(GERMAN), options=PROJECT)
    assert [r.source for r in spec.rules if r.id == "S1"] == ["A", "B"]
    assert kinds(spec, "unknown_column", "table_skipped", "missing_cell") == []


def test_a_spec_elsewhere_is_read_with_the_configuration_of_the_project_that_holds_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "SPEC.md").write_text(with_table(GERMAN), encoding="utf-8")
    assert kinds(load_spec(tmp_path / "SPEC.md"), "unknown_column")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.spellbook]\nvocabulary = ""\ncolumns = { current_state = ["Zustand"], '
        'condition = ["Wenn"], next_state = ["Danach"], action = ["Aktion"], '
        'response = ["Antwort"] }\n',
        encoding="utf-8",
    )
    spec = load_spec(tmp_path / "SPEC.md")
    assert kinds(spec, "unknown_column", "missing_cell") == []


@pytest.mark.parametrize(
    "header",
    [
        # three roles' names, the others unknown
        "| Current State | Trigger | Condition | Danach | Aktion |\n|---|---|---|---|---|\n",
        # an ID column and one more role
        "| Rule | Zustand | Spell | Wenn | Danach | Aktion |\n|---|---|---|---|---|---|\n",
    ],
    ids=["three roles", "ID and a role"],
)
def test_tables_that_look_like_transition_tables_are_warned_of(header: str) -> None:
    cells = header.split("\n")[0].count("|") - 1
    rows = "| " + " | ".join(["A"] * cells) + " |\n"
    text = with_table(header, rows)
    assert kinds(parse_spec_text(text), "unknown_column", "table_skipped") == [
        ("unknown_column", line_of(text, header.split("\n")[0]))
    ]


@pytest.mark.parametrize(
    "header",
    [
        "| From | To |\n|---|---|\n",
        "| From | To | Notes |\n|---|---|---|\n",
        "| State | Next | Notes |\n|---|---|---|\n",
        "| Current State | Trigger | Condition |\n|---|---|---|\n",
    ],
    ids=["from-to", "from-to with notes", "state-next with notes", "three roles, nothing else"],
)
def test_summaries_keep_the_table_skipped_note(header: str) -> None:
    cells = header.split("\n")[0].count("|") - 1
    rows = "| " + " | ".join(["A"] * cells) + " |\n"
    text = with_table(header, rows)
    assert kinds(parse_spec_text(text), "unknown_column", "table_skipped") == [
        ("table_skipped", line_of(text, header.split("\n")[0]))
    ]


def test_a_spec_whose_only_transition_table_is_unread_says_why_at_that_table() -> None:
    text = spec_text(STATES, SPELLS, []).split("| ID | Current State")[0] + GERMAN
    text += row("Z1", "A", "Go") + "\n"
    with pytest.raises(SpecError, match=r"no transition table.*'Zustand'.*tool\.spellbook") as err:
        parse_spec_text(text)
    assert err.value.line == line_of(text, "| Zustand |")


def test_a_table_read_as_rules_that_lacks_roles_says_how_a_project_names_its_columns() -> None:
    header = (
        "| ID | Stage | Move | Condition | Goes to | Action | Tell the author |\n"
        "|---|---|---|---|---|---|---|\n"
    )
    text = with_table(header)
    with pytest.raises(SpecError, match="Current State may be called") as err:
        parse_spec_text(text)
    assert err.value.line == line_of(text, "| Stage |")
    assert 'columns = { current_state = ["Stage"] }' in err.value.message
    assert "(the keys: current_state, trigger, next_state, response)" in err.value.message
    own = ReadOptions(
        "",
        (
            ("current_state", ("Stage",)),
            ("trigger", ("Move",)),
            ("next_state", ("Goes to",)),
            ("response", ("Tell the author",)),
        ),
    )
    spec = parse_spec_text(text, options=own)
    assert [r.source for r in spec.rules if r.id == "S1"] == ["A", "B"]
