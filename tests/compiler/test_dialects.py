"""Every way a spec is really written reads to the same machine, or to a clear finding.

The typical edits a spec goes through: a formatter's output (Prettier 2 and 3 of
`spec/STATE_MACHINE.md`, committed as fixtures), renamed and extra columns,
rows after a blank line, a `|` inside `[G|A]`, `OR`, plain synonyms, a fact the
spec defines for itself. Each ends in the same machine (its states, rules,
conditions, actions and responses, line numbers aside) or in a finding with the
file and line; never in a silent change. What a spec holds besides the machine (a
summary table, a row run on from text, bold words in prose) changes nothing either.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from codegen import SpecError, load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.config import load_config
from codegen.model import Spec
from codegen.read.lexicon import ReadOptions
from codegen.render import render_machine
from codegen.render.machine_records import render_response
from spellbook import Workflow
from tests.support.specs import HEADER, fill, row, spec_text, spec_with
from tests.support.workspaces import write

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "spec" / "STATE_MACHINE.md"
READ_OPTIONS = load_config(ROOT).machine_for("spec/STATE_MACHINE.md").options
TEXT = PROJECT.read_text(encoding="utf-8")


def machine(spec: Spec) -> tuple[object, ...]:
    """What a spec makes the machine do, without where it was written: states, rules
    in priority order, conditions, actions, responses (blank lines aside)."""
    rules = tuple(
        (
            r.id,
            r.source,
            r.spell,
            r.kind,
            r.dest,
            r.condition.clauses,
            tuple((a.verb, a.files, a.target) for a in r.actions),
            re.sub(r"\n\s*\n", "\n", render_response(spec, r)),
        )
        for st in spec.states
        for sp in spec.spells
        for r in spec.cell(st.name, sp.name)
    )
    states = tuple(
        (s.name, s.description, tuple(a.spell for a in s.valid_actions), s.evidence, s.goal)
        for s in spec.states
    )
    return (states, tuple(s.name for s in spec.spells), rules)


def findings(spec: Spec, leave_out: frozenset[str] = frozenset()) -> set[tuple[object, ...]]:
    return {
        (f.kind, f.rule, f.states or ((f.state,) if f.state else ()), f.spell)
        for f in analyse(spec)
        if f.kind not in leave_out
    }


BASE = load_spec(PROJECT)


def edited(text: str) -> Spec:
    return parse_spec_text(text, "spec/STATE_MACHINE.md", options=READ_OPTIONS)


# The spec the Prettier copies were made from, frozen with them, so that a change to the
# live spec does not need them made again.
SOURCE = load_spec(ROOT / "tests" / "data" / "fixtures" / "prettier_source_STATE_MACHINE.md")


@pytest.mark.parametrize("version", [2, 3])
def test_prettier_output_reads_to_the_same_machine(version: int) -> None:
    """`npx prettier@2` / `prettier@3 --parser markdown
    < tests/data/fixtures/prettier_source_STATE_MACHINE.md`."""
    pretty = load_spec(ROOT / "tests" / "data" / "fixtures" / f"prettier{version}_STATE_MACHINE.md")
    assert machine(pretty) == machine(SOURCE)
    notes = frozenset({"name_recovered"})
    assert findings(pretty, notes) == findings(SOURCE)


def test_prettier_2_mangled_names_are_each_noted_with_their_line() -> None:
    pretty = load_spec(ROOT / "tests" / "data" / "fixtures" / "prettier2_STATE_MACHINE.md")
    noted = [f for f in analyse(pretty) if f.kind == "name_recovered"]
    assert len(noted) > 20
    lines = pretty.path and (ROOT / pretty.path).read_text(encoding="utf-8").split("\n")
    for f in noted:
        assert f.line is not None and "*" in lines[f.line - 1], f.message


def test_prettier_3_joined_state_items_keep_their_fields() -> None:
    pretty = load_spec(ROOT / "tests" / "data" / "fixtures" / "prettier3_STATE_MACHINE.md")
    text = (ROOT / "tests" / "data" / "fixtures" / "prettier3_STATE_MACHINE.md").read_text()
    assert "14a. **ERROR_COMMENTS_MISSING_A** - _Description_:" in text
    state = next(s for s in pretty.states if s.name == "ERROR_COMMENTS_MISSING_A")
    assert state.description == "In PR_GATHERING_COMMENTS_A state, but comments.md is missing"
    assert [a.spell for a in state.valid_actions] == ["Accio", "Finite", "Reparo", "Lumos"]
    assert state.indicators.startswith("state.json shows PR_GATHERING_COMMENTS_A")


def test_plain_synonyms_make_the_same_machine() -> None:
    text = TEXT.replace("| Accio | plan.md missing |", "| Accio | plan.md is absent |")
    text = text.replace(
        "task.md missing AND task-results.md", "there is no task.md AND task-results.md"
    )
    assert text.count("is absent") == 1 and text.count("there is no task.md") == 1
    assert machine(edited(text)) == machine(BASE)


def test_terms_defined_twice_over_read_the_same() -> None:
    """The Terms row written with its own words, or written out in the row itself."""
    text = TEXT.replace(
        "| No PR review in progress | comments.md missing AND review-task.md missing |",
        "| No PR review in progress | there is no comments.md; review-task.md is absent |",
    )
    assert machine(edited(text)) == machine(BASE)


def test_rows_after_a_blank_line_are_read_and_reported() -> None:
    marker = "| GN2 | GATHER_NEEDS_PLAN |"
    assert TEXT.count(marker) == 1
    text = TEXT.replace(marker, "\n" + marker)
    spec = edited(text)
    assert machine(spec) == machine(BASE)  # read as its author meant it
    lines = text.split("\n")
    line = lines.index(next(ln for ln in lines if ln.startswith(marker))) + 1
    # GN2 and the rows after it, GN3 and GN4: all cut off, all read, all reported.
    found = [f for f in analyse(spec) if f.kind == "detached_row"]
    assert [(f.severity.value, f.line, f.rule) for f in found] == [
        ("error", line, "GN2"),
        ("error", line + 1, "GN3"),
        ("error", line + 2, "GN4"),
    ]
    assert all("delete the blank line" in f.message for f in found)


def test_rows_under_a_heading_of_their_own_with_no_header_row_are_read_and_reported() -> None:
    """Rows moved under a new heading without the table's header row are a paragraph to
    markdown: read with the last rule table's columns, as an error at each row."""
    marker = "| GN2 | GATHER_NEEDS_PLAN |"
    text = TEXT.replace(marker, "\n#### Finite no-ops\n\n" + marker)
    spec = edited(text)
    assert machine(spec) == machine(BASE)  # read as its author meant it
    lines = text.split("\n")
    heading = lines.index("#### Finite no-ops") + 1
    found = [f for f in analyse(spec) if f.kind == "detached_row"]
    assert [(f.severity.value, f.rule) for f in found][:1] == [("error", "GN2")]
    assert found[0].line == heading + 2
    assert f"under the heading 'Finite no-ops' (line {heading})" in found[0].message
    assert "put the header row and its `|---|` line" in found[0].message


def test_a_bar_inside_g_a_names_the_bar_and_the_fix() -> None:
    text = TEXT.replace(
        "| P1 | PR_GATHERING_COMMENTS_[G/A] |", "| P1 | PR_GATHERING_COMMENTS_[G|A] |"
    )
    with pytest.raises(SpecError) as caught:
        edited(text)
    err = caught.value
    assert (
        err.line == text.split("\n").index(next(ln for ln in text.split("\n") if "[G|A]" in ln)) + 1
    )
    assert "'|'" in err.message and "[G/A]" in err.message and "\\|" in err.message


def test_an_escaped_bar_in_g_a_reads_as_a_slash() -> None:
    text = TEXT.replace(
        "| P1 | PR_GATHERING_COMMENTS_[G/A] |", "| P1 | PR_GATHERING_COMMENTS_[G\\|A] |"
    )
    assert machine(edited(text)) == machine(BASE)


def test_or_makes_the_machine_two_rows_made() -> None:
    states, spells = ["A", "B"], ["Go"]
    two = [
        row("T1", "A", "Go", "x.md exists", "B", "Update state to B", "Moved"),
        row("T2", "A", "Go", "y.md exists", "B", "Update state to B", "Moved"),
        row("T3", "A", "Go", "-", "Same state", "No state change", "Stayed"),
    ]
    one = [
        row("T1", "A", "Go", "x.md exists OR y.md exists", "B", "Update state to B", "Moved"),
        row("T3", "A", "Go", "-", "Same state", "No state change", "Stayed"),
    ]
    rest = fill(states, spells, ["A/Go"])
    split = parse_spec_text(spec_text(states, spells, two + rest))
    joined = parse_spec_text(spec_text(states, spells, one + rest))
    # The same winner in every world, and the generated machine says so too.
    for world in range(4):
        present = {"x.md": bool(world & 1), "y.md": bool(world & 2)}
        expect = "B" if any(present.values()) else "A"
        for spec in (split, joined):
            got = _run(spec, present)
            assert got == expect, (spec.path, present)
    assert not [f for f in analyse(joined) if f.severity.value == "error"]


def _run(spec: Spec, present: dict[str, bool]) -> str:
    namespace: dict[str, object] = {}
    exec(compile(render_machine(spec, "m"), "m.py", "exec"), namespace)

    class Facts:
        def check(self, probe: str, file: str, param: str) -> bool:
            return present[file]

    model = namespace["Model"](Facts())  # type: ignore[operator]
    namespace["build"](model)  # type: ignore[operator]
    model.go()
    return str(model.state)


def test_a_fact_the_spec_defines_needs_no_python(tmp_path: Path) -> None:
    """`plan.md mentions a GitHub issue`, defined in the spec's Terms from a pattern, is a
    guard of the generated machine and is checked against the real file."""
    terms = (
        "| No PR review in progress | comments.md missing AND review-task.md missing |\n"
        "| plan.md mentions a GitHub issue | "
        r"plan.md matches `github\.com/[\w.-]+/[\w.-]+/issues/\d+` |"
    )
    text = TEXT.replace(
        "| No PR review in progress | comments.md missing AND review-task.md missing |", terms
    ).replace(
        "| GN3 | GATHER_NEEDS_PLAN, GATHER_EDITING | Expecto | No Atlassian URLs found AND "
        "plan.md exists |",
        "| GN3 | GATHER_NEEDS_PLAN, GATHER_EDITING | Expecto | No Atlassian URLs found AND "
        "plan.md exists AND NOT plan.md mentions a GitHub issue |",
    )
    spec = edited(text)
    assert not [f for f in analyse(spec) if f.kind in ("unknown_condition", "unknown_term")]
    namespace: dict[str, object] = {}
    exec(compile(render_machine(spec, "with_issue"), "with_issue.py", "exec"), namespace)
    module = ModuleType("with_issue")
    module.__dict__.update(namespace)
    flow = Workflow(tmp_path, machine=module)  # type: ignore[arg-type]
    flow.cast("accio")
    write(tmp_path, "plan.md", "# Plan\n\nSee https://github.com/acme/app/issues/12\n")
    # No Atlassian link, but an issue: GN3 does not apply any more, so nothing covers it.
    assert flow.cast("expecto").outcome == "unhandled"
    write(tmp_path, "plan.md", "# Plan\n\nNothing linked.\n")
    assert flow.cast("expecto").rule == "GN3"


def test_columns_by_role_with_a_machine_s_own_names() -> None:
    states, spells = ["A", "B"], ["Go"]
    text = spec_text(states, spells, fill(states, spells)).replace("| Condition |", "| Wenn |")
    with pytest.raises(SpecError, match="Condition may be called"):
        parse_spec_text(text)
    spec = parse_spec_text(text, options=ReadOptions("", (("condition", ("Wenn",)),)))
    assert len(spec.rules) == 2


def test_the_later_revision_s_column_names_are_known_without_configuration() -> None:
    states, spells = ["A", "B"], ["Go"]
    text = (
        spec_text(states, spells, fill(states, spells))
        .replace("| Condition |", "| MCP Condition |")
        .replace("| Action |", "| MCP Actions |")
    )
    assert len(parse_spec_text(text).rules) == 2


def test_underscore_emphasis_field_names_read_like_asterisks() -> None:
    text = TEXT.replace("*Description*", "_Description_").replace("*Indicators*", "_Indicators_")
    assert machine(edited(text)) == machine(BASE)


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


def test_prose_with_a_bold_word_in_the_states_or_spells_section_is_not_an_item() -> None:
    text = spec_with("-").replace("### States\n", "The **Go** spell moves on.\n\n### States\n", 1)
    text = text.replace(
        "### States\n", "### States\n\nStates marked **final** never change.\n\n", 1
    )
    spec = parse_spec_text(text)
    assert [s.name for s in spec.spells] == ["Go"]
    assert [s.name for s in spec.states] == ["A", "B"]
    assert not [f for f in analyse(spec) if f.kind == "duplicate_spell"]


@pytest.mark.parametrize(
    ("heading", "word"),
    [
        ("Spells", "spell"),
        ("Triggers", "trigger"),
        ("Commands", "command"),
        ("Events", "event"),
        ("Actions", "action"),
    ],
)
def test_the_spells_list_may_be_headed_as_its_authors_call_it(heading: str, word: str) -> None:
    text = spec_text(["A", "B"], ["Go", "Stop"], fill(["A", "B"], ["Go", "Stop"]))
    spec = parse_spec_text(text.replace("### Spells", f"### {heading}"))
    assert [s.name for s in spec.spells] == ["Go", "Stop"]
    assert spec.spell_word == word


def test_a_spells_list_is_read_before_a_list_of_something_else_called_actions() -> None:
    text = spec_text(["A", "B"], ["Go"], fill(["A", "B"], ["Go"]))
    text = text.replace(
        "### States", "### Actions\n\n1. **Archive**\n   - *Description*: files go\n\n### States"
    )
    spec = parse_spec_text(text)
    assert [s.name for s in spec.spells] == ["Go"] and spec.spell_word == "spell"


@pytest.mark.parametrize(
    ("role", "header", "name"),
    [
        ("id", "ID", "Nr"),
        ("current_state", "Current State", "Von"),
        ("trigger", "Trigger", "Zauber"),
        ("next_state", "Next State", "Danach"),
        ("action", "Action", "Tun"),
        ("response", "Response", "Antwort"),
    ],
)
def test_every_column_role_may_be_renamed(role: str, header: str, name: str) -> None:
    text = spec_with("-").replace(f"| {header} |", f"| {name} |", 1)
    if role == "response":  # optional: without its name, the table has no Response
        assert parse_spec_text(text).rows[0].response == ""
    else:
        with pytest.raises(SpecError):
            parse_spec_text(text)
    spec = parse_spec_text(text, options=ReadOptions(columns=((role, (name,)),)))
    assert [r.id for r in spec.rows][:2] == ["T1", "T2"] and spec.rows[0].response == "Say so"


def test_struck_out_text_in_an_action_cell_is_refused_never_an_instruction() -> None:
    states, spells = ["A", "B"], ["Go"]
    struck_row = row("T1", "A", "Go", "-", "B", "~~Delete notes.md~~")
    text = spec_text(states, spells, [struck_row, *fill(states, spells, ["A/Go"])])
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    lines = text.split("\n")
    assert raised.value.line == lines.index(struck_row) + 1
    assert "Action cell has struck-out text, ~~Delete notes.md~~" in raised.value.message


def test_rows_after_an_html_comment_in_a_table_name_the_comment() -> None:
    marker = "| GN2 | GATHER_NEEDS_PLAN |"
    text = TEXT.replace(marker, "<!-- GN1 stays -->\n" + marker)
    lines = text.split("\n")
    comment = lines.index("<!-- GN1 stays -->") + 1
    found = [f for f in analyse(edited(text)) if f.kind == "detached_row"]
    assert found and all(f"by an HTML comment at line {comment}" in f.message for f in found)
    assert not any("blank line" in f.message for f in found)


_LIVE = spec_text(["A", "B"], ["Go"], [row("T1", "A", "Go", "-", "B", "Update state to B")])
_TABLE = (
    "| ID | Current State | Spell | Condition | Next State | Action | Response |\n"
    "|---|---|---|---|---|---|---|\n"
    "| X1 | A | Go | - | Same state | No state change | Example only. |\n"
)


def _aside(heading: str) -> str:
    """The live machine, then `heading` over a table whose row X1 would shadow T1."""
    return _LIVE + f"\n### {heading}\n\n" + _TABLE


@pytest.mark.parametrize(
    "heading",
    [
        "Example of a row (not part of the machine)",
        "Examples",
        "e.g. a row that keeps the state",
        "For instance",
        "Old rules (v1, superseded)",
        "Transitions (removed)",
        "Deprecated",
        "Rules superseded by the table above",
        "Cancellation example",
        "Cancellations (example)",
        "Illustrative transitions",
        "Rules not yet shipped",
    ],
)
def test_a_table_under_a_heading_that_says_it_is_an_example_is_no_rule(heading: str) -> None:
    text = _aside(heading)
    spec = parse_spec_text(text)
    assert [r.id for r in spec.rows] == ["T1"]
    lines = text.split("\n")
    at, table = lines.index(f"### {heading}") + 1, lines.index(_TABLE.split("\n")[0]) + 1
    notes = [f for f in analyse(spec) if f.kind == "table_skipped"]
    assert [(f.line, f.severity.value) for f in notes] == [(table, "info")]
    assert f"under the heading {heading!r} (line {at})" in notes[0].message


@pytest.mark.parametrize(
    "heading",
    [
        *("Errors", "Old state cleanup", "Counterexamples", "ExampleCorp rules"),
        *("Sample collection", "Rollback to previous version", "Upgrade from the old version"),
        *("Transitions not part of the happy path", "Payment (removed items)"),
        *("Cleanup (deprecated items)", "Deploy to example.com", "Errors (illustrated below)"),
        # Example words said in passing after the subject: the table was skipped, its
        # rows gone, with an info only and "OK".
        *("Cancellations, e.g. by the customer or the shop", "Cancel (e.g. on timeout)"),
        *("Cancellations (for instance, by the shop)", "Failures, for example timeouts"),
        "Not yet shipped orders",
    ],
)
def test_a_machine_heading_that_only_looks_like_an_example_is_read_as_rules(heading: str) -> None:
    spec = parse_spec_text(_aside(heading))
    assert [r.id for r in spec.rows] == ["T1", "X1"]
    assert not [f for f in analyse(spec) if f.kind == "table_skipped"]


_DOOR = (
    "# Door\n\nInitial state: CLOSED\n\n| From | Event | To |\n|---|---|---|\n"
    "| CLOSED | open | OPEN |\n| OPEN | close | CLOSED |\n| CLOSED | lock | LOCKED |\n"
    "| LOCKED | unlock | CLOSED |\n"
)
_EXAMPLE = "| From | Event | To |\n|---|---|---|\n| OPEN | lock | LOCKED |\n"
_INTRODUCTIONS = (
    *("For example:", "Example:", "For instance:", "e.g.:", "An example table:"),
    *("Here is an example:", "For example, a door that is open can be locked:"),
    *("Such a table looks like:", "Before the change:", "Previously:", "Old:", "**Example**"),
    *("Old rules (v1, superseded):", "The door has four moves. For example:"),
)


@pytest.mark.parametrize("said", _INTRODUCTIONS)
def test_a_table_after_a_paragraph_that_says_it_is_an_example_is_no_rule(said: str) -> None:
    text = _DOOR + f"\n{said}\n\n" + _EXAMPLE
    spec = parse_spec_text(text)
    assert [r.line for r in spec.rows] == [7, 8, 9, 10]  # the example's row is none
    lines = text.split("\n")
    at, table = lines.index(said) + 1, len(lines) - 3
    notes = [f for f in analyse(spec) if f.kind == "table_skipped"]
    assert [(f.line, f.severity.value) for f in notes] == [(table, "info")]
    assert f"after the paragraph {said.strip('*')!r} (line {at})" in notes[0].message
    assert "reword the paragraph before it" in notes[0].message


@pytest.mark.parametrize("said", ["For example:", "Previously:"])
def test_a_full_dialect_table_after_an_example_paragraph_is_no_rule(said: str) -> None:
    text = _LIVE + f"\n{said}\n\n" + _TABLE
    spec = parse_spec_text(text)
    assert [r.id for r in spec.rows] == ["T1"]
    (note,) = [f for f in analyse(spec) if f.kind == "table_skipped"]
    assert note.line == text.split("\n").index(_TABLE.split("\n")[0]) + 1


@pytest.mark.parametrize(
    "said",
    [
        # Words said in passing: the table is the machine's (reading it shows in the
        # matrix and --explain; skipping it by mistake would show nowhere).
        "The transitions, for example those of the review, are:",
        "For example, see the table above. The door can also be locked when open:",
        *("Transitions:", "Counterexamples:", "Old state cleanup:", "Sample moves:"),
        "For example",  # no colon: introduces nothing
    ],
)
def test_a_paragraph_that_only_mentions_an_example_leaves_the_table_read(said: str) -> None:
    spec = parse_spec_text(_DOOR + f"\n{said}\n\n" + _EXAMPLE)
    assert len(spec.rows) == 5  # the four rules and the table's row
    assert not [f for f in analyse(spec) if f.kind == "table_skipped"]


def test_an_example_paragraph_over_a_heading_sets_no_table_aside() -> None:
    spec = parse_spec_text(_DOOR + "\nFor example:\n\n## Locking\n\n" + _EXAMPLE)
    assert len(spec.rows) == 5  # the four rules and the table's row


def test_a_file_whose_only_table_follows_an_example_paragraph_is_refused_naming_it() -> None:
    text = "# Door\n\nFor example:\n\n" + _EXAMPLE
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    assert "no transition table" in raised.value.message
    assert "after the paragraph 'For example:' (line 3)" in raised.value.message
    assert raised.value.line == 5


def test_a_file_whose_only_transition_table_is_an_example_is_refused_naming_it() -> None:
    text = _LIVE.replace("#### Transitions", "#### Example transitions")
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    assert "no transition table" in raised.value.message
    assert "under the heading 'Example transitions'" in raised.value.message
    assert raised.value.line == text.split("\n").index(HEADER.split("\n")[0]) + 1
