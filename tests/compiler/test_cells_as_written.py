"""Conditions, actions, Terms and Indicators are read from the text as written.

Markdown's inline rendering would take `*` and `_` for emphasis: `sql/*.up.sql exists AND
no sql/*.down.sql` would lose its stars and `src/__init__.py` its underscores. The
reader takes the cell's characters instead, with markdown's own escapes (`\\*`, `\\_`,
`\\|`) and code spans kept; emphasis a formatter glued into a name is still read back
as the underscores it was.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.model import Atom, LiteralSpec
from codegen.read.markdown import as_written, read_blocks
from codegen.render import render_machine
from spellbook.cast.workflow import Workflow
from tests.support.specs import fill, row, spec_text, spec_with

UP_NOT_DOWN = "sql/*.up.sql exists AND no sql/*.down.sql"
UP_NOT_DOWN_FACTS = (
    (
        LiteralSpec(Atom("glob", "", "sql/*.up.sql"), True),
        LiteralSpec(Atom("glob", "", "sql/*.down.sql"), False),
    ),
)


def _t1(text: str):  # type: ignore[no-untyped-def]
    spec = parse_spec_text(text)
    return next(r for r in spec.rules if r.id == "T1")


def test_as_written_keeps_stars_and_underscores_and_takes_out_escapes() -> None:
    assert as_written(UP_NOT_DOWN) == UP_NOT_DOWN
    assert as_written("src/__init__.py exists") == "src/__init__.py exists"
    assert as_written(r"src/\_\_init\_\_.py and a\*b") == "src/__init__.py and a*b"
    assert as_written(r"plan.md matches `a\|b` \| c") == "plan.md matches `a|b` | c"
    # Inside a code span a backslash is the character it is (only `\|` is a bar there).
    assert as_written(r"`a\_b\\c`") == r"`a\_b\\c`"
    # A longer run of backticks holds a shorter one; an unclosed run is text.
    assert as_written("``a`b`` and ` alone") == "``a`b`` and ` alone"


def test_a_glob_condition_keeps_its_stars() -> None:
    assert _t1(spec_with(UP_NOT_DOWN)).condition.clauses == UP_NOT_DOWN_FACTS


def test_a_dunder_name_keeps_its_underscores_escaped_or_not() -> None:
    for written in ("src/__init__.py exists", r"src/\_\_init\_\_.py exists"):
        (clause,) = _t1(spec_with(written)).condition.clauses
        assert clause == (LiteralSpec(Atom("exists", "src/__init__.py"), True),), written


def test_a_pattern_with_an_escaped_bar_in_a_code_span() -> None:
    (clause,) = _t1(spec_with(r"plan.md matches `^(up\|down)$`")).condition.clauses
    assert clause[-1] == LiteralSpec(Atom("matches", "plan.md", "^(up|down)$"), True)


def test_a_term_means_what_its_cell_says() -> None:
    text = spec_with("up without down", f"| up without down | {UP_NOT_DOWN} |")
    assert _t1(text).condition.clauses == UP_NOT_DOWN_FACTS


def test_an_action_names_the_file_as_written() -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row("T1", "A", "Go", "-", "B", "(1) Create empty src/__init__.py; (2) Update state to B")
    ]
    spec = parse_spec_text(spec_text(states, spells, rows + fill(states, spells, ["A/Go"])))
    (rule,) = [r for r in spec.rules if r.id == "T1"]
    assert rule.actions[0].verb == "create"
    assert rule.actions[0].files == ("src/__init__.py",)


def test_indicators_are_read_as_written() -> None:
    text = spec_with("-").replace(
        "    - *Indicators*: none", f"    - *Indicators*: {UP_NOT_DOWN}", 1
    )
    state = parse_spec_text(text).states[0]
    assert state.indicators == UP_NOT_DOWN
    assert state.evidence == UP_NOT_DOWN_FACTS[0]
    (blocks,) = [b for b in read_blocks("- *Indicators*: a\\_b `c*d`\n") if hasattr(b, "items")]
    line = blocks.items[0].blocks[0].lines[0]  # type: ignore[attr-defined]
    assert line.source == "*Indicators*: a\\_b `c*d`"


def test_the_gate_stops_an_up_script_without_its_down_script(tmp_path: Path) -> None:
    """Cast with real files: the rule fires only while an up script has no down script."""
    spec = parse_spec_text(spec_with(UP_NOT_DOWN))
    assert not [f for f in analyse(spec) if f.kind == "unknown_condition"]
    namespace: dict[str, object] = {}
    exec(compile(render_machine(spec, "gate"), "gate.py", "exec"), namespace)
    module = ModuleType("gate")
    module.__dict__.update(namespace)
    sql = tmp_path / spec.workspace / "sql"  # the spec's workspace: the repository's top
    sql.mkdir()
    (sql / "001.up.sql").write_text("create table t (id int);\n", encoding="utf-8")
    (sql / "001.down.sql").write_text("drop table t;\n", encoding="utf-8")
    flow = Workflow(tmp_path, machine=module)  # type: ignore[arg-type]
    assert flow.cast("go").rule == "T2"  # both scripts: no gap to stop
    (sql / "001.down.sql").unlink()
    assert flow.cast("go").rule == "T1"  # an up script alone


def test_only_a_state_name_is_read_back_from_a_formatter_s_emphasis() -> None:
    """Emphasis glued to a word is read back as underscores only in a state's name where
    the cell names a state (`Update state to NAME`); a path, a glob, a quotation and a
    code span keep their stars."""
    cases = {
        "logs/run*2024*.txt exists": LiteralSpec(Atom("glob", "", "logs/run*2024*.txt"), True),
        "no build*debug*.log": LiteralSpec(Atom("glob", "", "build*debug*.log"), False),
        'plan.md contains "a*b*c"': LiteralSpec(Atom("matches", "plan.md", r"a\*b\*c"), True),
        "plan.md matches `x*y*z`": LiteralSpec(Atom("matches", "plan.md", "x*y*z"), True),
    }
    for written, fact in cases.items():
        (clause,) = _t1(spec_with(written)).condition.clauses
        assert fact in clause, (written, clause)
    states, spells = ["A", "PR_DRAFT_G"], ["Go"]
    rows = [row("T1", "A", "Go", "-", "PR_DRAFT_G", "Update state to PR*DRAFT*G")]
    spec = parse_spec_text(spec_text(states, spells, rows + fill(states, spells, ["A/Go"])))
    (rule,) = [r for r in spec.rules if r.id == "T1"]
    assert rule.actions[0].verb == "set_state"
    assert rule.actions[0].target == "PR_DRAFT_G"
    assert [n.kind for n in spec.notices if n.rule == "T1"] == ["name_recovered"]


def test_a_cell_markdown_shows_otherwise_is_read_as_written_with_a_warning() -> None:
    def rendered(condition: str) -> list[str]:
        spec = parse_spec_text(spec_with(condition))
        return [f.message for f in analyse(spec) if f.kind == "rendered_differently"]

    (said,) = rendered("src/__init__.py exists")
    assert "'src/__init__.py exists'" in said and "'src/init.py exists'" in said
    assert rendered(UP_NOT_DOWN)
    for alike in ("`src/__init__.py` exists", r"src/\_\_init\_\_.py exists", "plan.md exists"):
        assert rendered(alike) == [], alike


LANGGRAPH = """# Agent graph

| From | To | Event |
|------|----|-------|
| __start__ | agent | begin |
| agent | tools | call |
| tools | agent | done |
| agent | __end__ | finish |
| agent | __end__ | give_up |
"""


def test_a_state_written_as_a_special_name_is_that_name_with_a_warning() -> None:
    """`__end__` (LangGraph's name for the end, Python's form of a special name) is the
    name as written, where markdown shows it in bold as `end`; `__start__` is where the
    machine starts, as `(start)` is. The reading says so once for each name, at the
    first row naming it."""
    spec = parse_spec_text(LANGGRAPH, "graph.md")
    assert [s.name for s in spec.states] == ["agent", "tools", "__end__"]
    assert spec.initial == "agent"
    said = [(f.line, f.message) for f in analyse(spec) if f.kind == "rendered_differently"]
    assert [line for line, _ in said] == [5, 8], said
    assert "'__start__'" in said[0][1] and "'start'" in said[0][1] and "backticks" in said[0][1]
    quoted = LANGGRAPH.replace("__start__", "`__start__`").replace("__end__", "`__end__`")
    spec = parse_spec_text(quoted, "graph.md")
    assert [s.name for s in spec.states] == ["agent", "tools", "__end__"]
    assert spec.initial == "agent"
    assert [f for f in analyse(spec) if f.kind == "rendered_differently"] == []


def test_bold_and_italic_names_are_still_the_names_markdown_shows() -> None:
    text = LANGGRAPH.replace("__start__", "**ready**").replace("__end__", "*end*")
    spec = parse_spec_text(text, "graph.md")
    assert [s.name for s in spec.states] == ["ready", "agent", "tools", "end"]
    assert [f for f in analyse(spec) if f.kind == "rendered_differently"] == []


def test_a_rule_row_naming_a_special_name_says_it_is_read_as_markdown_shows_it() -> None:
    """A rule table's names are its States list's, which start with a letter: `__init__`
    is `init`, as markdown shows it and as the list reads `**__init__**`, said once."""
    states, spells = ["A", "__init__"], ["Go"]
    rows = [row("T1", "__init__", "Go", "-", "A", "Update state to A")]
    rows += [row("T2", "__init__", "Go", "x.md exists", "A", "Update state to A")]
    spec = parse_spec_text(spec_text(states, spells, rows + fill(states, spells, ["__init__/Go"])))
    assert [(r.id, r.source) for r in spec.rules if r.id in ("T1", "T2")] == [
        ("T1", "init"),
        ("T2", "init"),
    ]
    said = [f.message for f in analyse(spec) if f.kind == "rendered_differently"]
    assert len(said) == 1 and "'__init__'" in said[0] and "'init'" in said[0], said
