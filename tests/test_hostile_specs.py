"""Specs and configurations written to break the reader: each ends in a clear finding or
error, never a traceback, a hang, or a meaning changed without a word.

Hangs are bounded by a subprocess timeout, not by a speed assertion.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codegen import SpecError, load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.config import load_config
from codegen.read.lexicon import Dialect
from tests.specs import fill, row, spec_text

ROOT = Path(__file__).resolve().parent.parent
STATES, SPELLS = ["A", "B"], ["Go"]


def spec_with(condition: str, terms: str = "") -> str:
    rows = [row("T1", "A", "Go", condition, "B", "Update state to B"), row("T2", "A", "Go")]
    text = spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS, ["A/Go"]))
    if terms:
        text = text.replace(
            "### Transition Rules",
            "| Phrase | Means |\n|---|---|\n" + terms + "\n\n### Transition Rules",
        )
    return text


def unknown(text: str) -> list[str]:
    return [f.message for f in analyse(parse_spec_text(text)) if f.kind == "unknown_condition"]


def run(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-"],
        input=textwrap.dedent(code),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# -- patterns ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("(a+)+$", "repeats a group that repeats itself"),
        (r"(x\|y*){2,}", "repeats a group that repeats itself"),
        ("a{99999999999}", "is not a regular expression"),
        ("(unclosed", "is not a regular expression"),
    ],
)
def test_a_pattern_that_could_hang_or_cannot_compile_is_refused_with_why(
    pattern: str, why: str
) -> None:
    (message,) = unknown(spec_with(f"x.md matches `{pattern}`"))
    assert why in message


def test_a_bar_escaped_in_a_table_cell_is_a_bar_in_the_pattern() -> None:
    spec = parse_spec_text(spec_with(r"x.md matches `foo\|bar`"))
    (t1,) = [r for r in spec.rows if r.id == "T1"]
    assert t1.condition.atoms[0].param == "foo|bar"


def test_contains_is_literal_but_a_file_named_contain_is_not() -> None:
    spec = parse_spec_text(spec_with(r"containers.md matches `^a+$`"))
    (t1,) = [r for r in spec.rows if r.id == "T1"]
    assert t1.condition.atoms[0].param == "^a+$"


# -- JSON queries ------------------------------------------------------------------


@pytest.mark.parametrize("query", ["x]", "[", "a[b=c", "items[status]", "$", "a..b"])
def test_a_malformed_query_is_refused_with_what_a_query_is(query: str) -> None:
    (message,) = unknown(spec_with(f"list.json has `{query}`"))
    assert "is not a query" in message


def test_a_query_on_a_file_that_is_not_json_says_to_use_contains() -> None:
    (message,) = unknown(spec_with("notes.md has `TODO`"))
    assert "not a JSON file" in message and "contains" in message


# -- alternatives, terms and clauses that multiply --------------------------------


def test_alternatives_are_kept_whole_up_to_the_limit_and_past_it_are_unknown() -> None:
    def condition(n: int) -> tuple[str, str]:
        terms = "\n".join(f"| p{k} | a{k}.md exists OR b{k}.md exists |" for k in range(1, n))
        return " AND ".join(f"p{k}" for k in range(1, n)) + " AND a1.md missing", terms

    # b1 and one of a_k, b_k for k = 2..7: all 64 alternatives, none dropped.
    spec = parse_spec_text(spec_with(*condition(8)))
    (t1,) = [r for r in spec.rows if r.id == "T1"]
    assert len(t1.condition.clauses) == 64 and not t1.condition.unknown
    (message,) = unknown(spec_with(*condition(9)))
    assert "multiply past 64" in message


def test_terms_that_fan_out_deeply_are_read_once_each() -> None:
    terms = ["| t0 | x.md exists |"] + [
        f"| t{k} | " + " AND ".join([f"t{k - 1}"] * 5) + " |" for k in range(1, 9)
    ]
    text = spec_with("t8", "\n".join(terms))
    result = run(
        f"""
        from codegen import parse_spec_text
        spec = parse_spec_text({text!r})
        print(spec.rules[0].condition.clauses)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "x.md" in result.stdout


def test_a_very_long_conjunction_and_a_very_long_word_are_read_in_bounded_time() -> None:
    clauses = " AND ".join(f"f{i}.md exists" for i in range(3000))
    word = "x" * 100_000
    result = run(
        f"""
        from codegen import parse_spec_text
        from codegen.analyse import analyse
        from tests.specs import spec_text, row
        for condition in ({clauses!r}, {word!r}):
            text = spec_text(["A"], ["Go"], [row("T1", "A", "Go", condition)])
            analyse(parse_spec_text(text))
        print("ok")
        """,
        timeout=120,
    )
    assert result.stdout.strip() == "ok", result.stderr


def test_terms_deeper_than_the_limit_say_so() -> None:
    terms = ["| t0 | x.md exists |"] + [f"| t{k} | t{k - 1} |" for k in range(1, 70)]
    messages = [
        f.message
        for f in analyse(parse_spec_text(spec_with("t69", "\n".join(terms))))
        if f.kind == "unknown_term"
    ]
    assert any("more than 64 deep" in m for m in messages)


def test_a_term_defined_twice_is_reported_and_the_first_definition_used() -> None:
    text = spec_with("ready", "| ready | x.md exists |\n| Ready. | y.md exists |")
    spec = parse_spec_text(text)
    (t1,) = [r for r in spec.rows if r.id == "T1"]
    assert [a.file for a in t1.condition.atoms] == ["x.md"]
    (found,) = [f for f in analyse(spec) if f.kind == "term_conflict"]
    assert found.severity.value == "error"


def test_a_glossary_for_readers_does_not_fail_verification() -> None:
    text = spec_with("-", "| idempotent | doing it twice does what doing it once does |")
    (found,) = [f for f in analyse(parse_spec_text(text)) if f.kind == "unknown_term"]
    assert found.severity.value == "info" and "no rule uses it" in found.message


def test_counter_limits_imply_each_other() -> None:
    rows = [
        row("T1", "A", "Go", "attempts < 3", "B", "Update state to B"),
        row("T2", "A", "Go", "attempts ≥ 3 AND attempts < 5", "B", "Update state to B"),
        row("T3", "A", "Go", "attempts ≥ 5"),
        row("T4", "A", "Go", "attempts < 2"),
    ]
    spec = parse_spec_text(spec_text(STATES, SPELLS, rows + fill(STATES, SPELLS, ["A/Go"])))
    found = {(f.kind, f.rule) for f in analyse(spec)}
    assert ("dead_rule", "T4") in found  # `attempts < 2` is within `attempts < 3`
    # No gap, and no overlap in an impossible world (`attempts < 3` and `attempts ≥ 5`).
    assert {(k, r) for k, r in found if k in ("gap", "overlap")} == {("overlap", "T4")}


def test_a_path_outside_the_workspace_is_refused_by_the_verifier() -> None:
    text = spec_with("../outside.md exists")
    (message,) = unknown(text)
    assert "outside the workspace folder" in message


# -- tables ------------------------------------------------------------------------


def test_a_summary_table_does_not_break_the_spec() -> None:
    text = (
        spec_with("-") + "\n### Summary\n\n| State | Next | Notes |\n|---|---|---|\n| A | B | x |\n"
    )
    spec = parse_spec_text(text)
    assert [f.kind for f in analyse(spec) if f.kind == "table_skipped"] == ["table_skipped"]


def test_a_row_run_on_from_text_is_read_and_reported() -> None:
    text = spec_with("-") + "\nOne more rule:\n| T9 | B | Go | - | A | Update state to A | Back |\n"
    spec = parse_spec_text(text)
    assert "T9" in [r.id for r in spec.rows]
    (found,) = [f for f in analyse(spec) if f.kind == "detached_row"]
    assert "by text between them" in found.message


def test_items_numbered_2c_right_under_another_item_are_states_of_their_own() -> None:
    text = spec_with("-").replace("2. **B**\n", "2. **B**\n    - *Description*: b\n2c. **C**\n", 1)
    spec = parse_spec_text(text)
    assert [s.name for s in spec.states] == ["A", "B", "C"]


# -- configuration and vocabularies ------------------------------------------------


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('machines = ["spec/a.md"]', "machines must be a table"),
        ("generated = 5", "generated must be"),
        ('[tool.spellbook.machines]\n"../../pwned" = "spec/a.md"', "Python identifier"),
        ('[tool.spellbook.machines.m]\nspec = "spec/a.md"\nallow_errors = "yes"', "true or false"),
        ('columns = { bogus = ["X"] }', "not a column role"),
        ("typo = 1", "unknown key 'typo'"),
    ],
)
def test_a_configuration_it_cannot_take_is_an_error_naming_the_key(
    tmp_path: Path, table: str, said: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.spellbook]\n{table}\n", encoding="utf-8")
    with pytest.raises(SpecError, match=said):
        load_config(tmp_path)


def test_a_spec_path_written_with_dot_slash_is_the_same_machine(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\ndoor = { spec = "./spec//door.md", vocabulary = "x" }\n',
        encoding="utf-8",
    )
    assert load_config(tmp_path).machine_for("spec/door.md").module == "door"


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("raise RuntimeError('boom')", "failed as it was imported: RuntimeError: boom"),
        ("NOUNS = 5", "NOUNS must be"),
        ("TERMS = ['a']", "TERMS must map"),
        (
            "from spellbook.vocabulary import Noun\n"
            "NOUNS = (Noun('x', '(unclosed', 'exists', ''),)",
            "not a regular expression",
        ),
        (
            "from spellbook.vocabulary import Noun\nNOUNS = (Noun('x', 'x', 'nosuch', ''),)",
            "not a probe of the core",
        ),
    ],
)
def test_a_broken_vocabulary_module_is_an_error_not_a_traceback(
    tmp_path: Path, source: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"broken_vocabulary_{abs(hash(source))}"
    (tmp_path / f"{name}.py").write_text(source + "\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SpecError, match=said):
        parse_spec_text(spec_with("-"), dialect=Dialect(name))


def test_a_project_s_own_vocabulary_is_found_from_its_root(tmp_path: Path) -> None:
    (tmp_path / "words").mkdir()
    (tmp_path / "words" / "__init__.py").write_text(
        'TERMS = {"the door is open": "door.flag exists"}\n', encoding="utf-8"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.spellbook]\nvocabulary = "words"\n', encoding="utf-8"
    )
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "door.md").write_text(spec_with("the door is open"), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(ROOT / "verify-state-machine.py"), "--spec", "spec/door.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "unknown_condition" not in result.stdout, result.stdout + result.stderr
    assert "`words` vocabulary" in result.stdout


def test_the_project_spec_still_reads_with_its_configuration() -> None:
    assert not [
        f
        for f in analyse(load_spec(ROOT / "spec" / "STATE_MACHINE.md"))
        if f.severity.value != "info"
    ]


def test_prose_with_a_bold_word_in_the_states_or_spells_section_is_not_an_item() -> None:
    text = spec_with("-").replace("### States\n", "The **Go** spell moves on.\n\n### States\n", 1)
    text = text.replace(
        "### States\n", "### States\n\nStates marked **final** never change.\n\n", 1
    )
    spec = parse_spec_text(text)
    assert [s.name for s in spec.spells] == ["Go"]
    assert [s.name for s in spec.states] == ["A", "B"]
    assert not [f for f in analyse(spec) if f.kind == "duplicate_spell"]
