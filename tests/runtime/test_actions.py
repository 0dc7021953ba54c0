"""The core's verbs at run time: task frontmatter read safely, whatever its bytes; no
action on Spellbook's own files, as the verifier says; a move planned only of a file it
can take; files of one name moved into one folder each under a name of its own; a file
read with bytes replaced never written again."""

from __future__ import annotations

import json
import os
import re
from functools import partial
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.analyse import analyse
from codegen.pipeline import parse_spec_text
from codegen.read.action_phrases import parse_actions
from codegen.read.lexicon import Lexicon, ReadOptions
from codegen.render import render_machine
from spellbook import Workflow
from spellbook.cast.engine import Engine
from spellbook.disk.state_file import Record
from spellbook.disk.store import Workspace
from spellbook.facts.frontmatter import frontmatter
from spellbook.records.errors import ActionError, BadFile, UnsafePath
from spellbook.schema import Action, Row, Rule
from spellbook.verbs.actions import Plan, plan
from spellbook.verbs.operations import apply
from tests.support import workspaces
from tests.support.fuzzing import fuzz
from tests.support.sessions import PROGRESS, session, write_features
from tests.support.specs import fill, findings_of, spec_text
from tests.support.workspaces import TASK, set_state, write


@st.composite
def task_files(draw: st.DrawFn) -> str:
    body = draw(
        st.lists(
            st.sampled_from(
                [
                    "task_name: ", "a", "../", "/", "&a [*a, *a]", "*a", "!!python/object:os",
                    "[", "]", "{", "}", "- ", "\n", "  ", "'", '"', "\x00", "\udcff", "---", "...",
                    "7", "~", "null", "key: value",
                ]
            )
            | st.text(max_size=6),
            max_size=30,
        ).map("".join)
    )  # fmt: skip
    close = draw(st.sampled_from(["\n---\n", "\n...\n", ""]))
    return "---\n" + body + close + draw(st.text(max_size=10))


@fuzz(3_000)
@given(task_files())
def test_frontmatter_reader_returns_a_mapping_or_an_action_error(text: str) -> None:
    try:
        data = frontmatter(text, "task.md")
    except ActionError as err:
        assert str(err).startswith("task.md")
    else:
        assert isinstance(data, dict) and all(isinstance(k, str) for k in data)


def _rule(*actions: Action) -> Rule:
    return Rule(Row("R1", "Go", ("A",), actions=actions), "A", "Go", "A", (0, 0))


def _read(phrase: str) -> Action:
    """The phrase as the compiler reads it, as the machine declares it."""
    (read,) = parse_actions(phrase, "", Lexicon.of(ReadOptions("")))
    return Action(read.verb, read.text, read.files, read.target)


def _plan(tmp_path: Path, *actions: Action, own: tuple[str, ...] = ()) -> Plan:
    """`plan` of a rule with `actions` in the workspace `tmp_path` (its top folder): what
    a cast would do, checked, with nothing done yet."""
    return plan(_rule(*actions), Workspace(str(tmp_path), ""), Record("A"), own=own)


@pytest.mark.parametrize(
    "phrase",
    [
        "Set `x` in state.json to 1",
        'Append "x" to state.json',
        "Delete state.json",
        "Archive state.json to done/",
        "Copy notes.md to state.json",
        "Copy state.json to notes-copy.json",
        "Move state.json to old/",
        "Move notes.md to state.json",
        "Record matches of `x-\\d` from notes.md in state.json",
        "Extract name from state.json",
        "Delete State.json",  # the same file where the filesystem ignores case
        'Append "x" to `.trash/note`',
        "Archive notes.md to .history/",
    ],
)
def test_an_action_on_spellbook_s_own_files_is_refused_by_the_verifier_as_at_run_time(
    tmp_path: Path, phrase: str
) -> None:
    row = f"| T1 | A | Go | - | B | {phrase} | Done. |"
    text = spec_text(["A", "B"], ["Go"], [row, *fill(["A", "B"], ["Go"], ["A/Go"])])
    (finding,) = findings_of(text, {"action_path"})
    assert finding.rule == "T1" and "Spellbook's own file" in finding.message, finding
    (tmp_path / "state.json").write_text('{"current_state": "A"}\n')
    (tmp_path / "notes.md").write_text("x-1\n")
    with pytest.raises(ActionError, match="Spellbook's own file"):
        _plan(tmp_path, _read(phrase), own=("state.json",))


@pytest.mark.parametrize(
    ("phrase", "refused"),
    [
        ("Create `.ai/task/plan.md` from template", True),  # the workspace was moved
        ("Create `.ai/plan.md`", True),  # the docs' own example
        ("Copy notes.md to `.ai/tasks/old.md`", True),  # a typo in the folder
        ("Archive notes.md to `.ai/done/${date}/`", True),
        ("Create `.ai/workflow/plan.md`", False),  # with the workspace in front
        ("Create `plan.md`", False),
        ("Create `.ai/workflow/.ai/notes.md`", False),  # its own `.ai` folder, so named
    ],
)
def test_an_action_path_written_from_the_repository_s_top_beside_the_workspace_is_refused(
    phrase: str, refused: bool
) -> None:
    """The state file moved from `.ai/task/` to `.ai/workflow/`: `Create .ai/task/plan.md`
    made `.ai/workflow/.ai/task/plan.md`, the next Accio went to ERROR_PLAN_MISSING, and
    the verifier said OK. A condition naming such a path was refused; an action now is."""
    row = f"| T1 | A | Go | - | B | {phrase} | Done. |"
    text = spec_text(["A", "B"], ["Go"], [row, *fill(["A", "B"], ["Go"], ["A/Go"])])
    text += "\n### State Persistence\n\nThe state is kept in `.ai/workflow/state.json`.\n"
    found = findings_of(text, {"action_path"})
    assert bool(found) is refused, found
    if refused:
        assert "is not in the workspace folder .ai/workflow" in found[0].message
        assert "as written it would be .ai/workflow/.ai/" in found[0].message


def test_create_over_a_folder_or_a_link_is_refused_never_a_file_kept(tmp_path: Path) -> None:
    # A folder named note.md was "kept as it is (it already exists)": the workflow moved
    # on with no note, and the row deleting note.md was then refused there.
    (tmp_path / "note.md").mkdir()
    with pytest.raises(BadFile, match=r"note\.md is a folder, not a file; move it away"):
        _plan(tmp_path, _read("Create note.md"))
    (tmp_path / "note.md").rmdir()
    (tmp_path / "note.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(UnsafePath, match=r"note\.md is a symbolic link; not creating it"):
        _plan(tmp_path, _read("Create note.md"))
    (tmp_path / "note.md").unlink()
    (tmp_path / "note.md").write_text("mine\n")
    assert _plan(tmp_path, _read("Create note.md")).operations == []  # a file: kept


def test_reading_the_state_file_is_taken_by_the_verifier_and_at_run_time(tmp_path: Path) -> None:
    phrase = "Load state.json content"
    row = f"| T1 | A | Go | - | B | {phrase} | Done. |"
    text = spec_text(["A", "B"], ["Go"], [row, *fill(["A", "B"], ["Go"], ["A/Go"])])
    assert findings_of(text, {"action_path"}) == []
    (tmp_path / "state.json").write_text('{"current_state": "A"}\n')
    planned = _plan(tmp_path, _read(phrase), own=("state.json",))
    apply(planned.operations, Workspace(str(tmp_path), ""))
    done = planned.done
    assert done.contents == {"state.json": '{"current_state": "A"}\n'}


def _machine(text: str) -> ModuleType:
    """The module `python -m codegen` generates from a spec's text."""
    spec = parse_spec_text(text, "spec.md")
    module = ModuleType("moved")
    exec(compile(render_machine(spec, "moved"), "moved.py", "exec"), module.__dict__)
    return module


MOVED = """# Moved

### Spells

1. **Go**

### States

1. **A**
    - *Description*: both notes are written
    - *Indicators*: `a/notes.md` exists, `b/notes.md` exists
    - *Valid Actions*: Go
    - *Goal*: yes
2. **B**
    - *Description*: both notes are put away
    - *Indicators*: `a/notes.md` missing, `b/notes.md` missing
    - *Valid Actions*: Go

### State Persistence

The state is kept in `.w/state.json`.

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| T1 | A | Go | - | B | (1) MOVE; (2) Load `b/notes.md` content | Put away. |
| T2 | B | Go | - | Same state | No state change | Nothing to do. |
"""


@pytest.mark.parametrize(
    ("phrase", "folder"),
    [
        ("Archive a/notes.md and b/notes.md to done/", "done"),
        ("Delete a/notes.md and b/notes.md", ".trash/"),
    ],
)
def test_files_of_one_name_are_moved_each_under_its_own_name_as_the_verifier_says(
    tmp_path: Path, phrase: str, folder: str
) -> None:
    text = MOVED.replace("MOVE", phrase)
    findings = analyse(parse_spec_text(text, "spec.md"))
    # The verifier: the rule leaves neither file, as the Indicators of B say.
    assert not [f for f in findings if f.kind == "indicators_broken" or f.severity == "error"]
    for name in ("a", "b"):
        (tmp_path / ".w" / name).mkdir(parents=True)
        (tmp_path / ".w" / name / "notes.md").write_text(f"{name}'s notes\n")
    flow = Workflow(tmp_path, machine=_machine(text))  # type: ignore[arg-type]
    result = flow.cast("go")
    assert result.after == "B", result
    assert not (tmp_path / ".w" / "a" / "notes.md").exists()
    assert not (tmp_path / ".w" / "b" / "notes.md").exists()
    (into,) = [p for p in (tmp_path / ".w").rglob("notes.md") if folder in str(p)]
    assert (into.parent / "notes.md").read_text() == "a's notes\n"
    assert (into.parent / "notes-2.md").read_text() == "b's notes\n"
    shown = into.parent.relative_to(tmp_path).as_posix()
    assert "`.w/b/notes.md` as notes-2.md" in result.response, result.response
    assert f"Content of `{shown}/notes-2.md`" in result.response, result.response
    assert flow.status()["state"] == "B"


def test_names_in_one_folder_are_told_apart_as_a_filesystem_that_ignores_case_does() -> None:
    from spellbook.verbs.operations import distinct_names

    paths = ("a/notes.md", "b/notes.md", "c/NOTES.md", "notes-2.md", ".env", "d/.env", "e/x")
    assert distinct_names(paths) == [
        "notes.md", "notes-3.md", "NOTES-4.md", "notes-2.md", ".env", ".env-2", "x"
    ]  # fmt: skip


@pytest.mark.parametrize(
    "phrase", ["Delete notes.md", "Archive notes.md to done/", "Move notes.md to done/"]
)
@pytest.mark.parametrize("kind", ["a symbolic link", "a folder", "a FIFO (named pipe)"])
def test_a_move_of_anything_but_a_file_is_refused_before_anything_is_done(
    tmp_path: Path, phrase: str, kind: str
) -> None:
    (tmp_path / "elsewhere.md").write_text("kept\n")
    notes = tmp_path / "notes.md"
    if kind == "a symbolic link":
        notes.symlink_to("elsewhere.md")
    elif kind == "a folder":
        notes.mkdir()
    elif hasattr(os, "mkfifo"):
        os.mkfifo(notes)
    else:
        pytest.skip("no FIFOs here")
    with pytest.raises((UnsafePath, BadFile), match=f"notes.md is {re.escape(kind)}"):
        _plan(tmp_path, _read(phrase))
    assert sorted(os.listdir(tmp_path)) == ["elsewhere.md", "notes.md"]  # nothing was made


def test_a_name_filled_from_a_value_never_names_spellbook_s_own_files(tmp_path: Path) -> None:
    (tmp_path / "task.md").write_text("---\nname: State\n---\n")
    (tmp_path / "notes.md").write_text("notes\n")
    extract = Action("extract", "Extract name from task.md frontmatter", ("task.md",), "name")
    copy = Action("copy", "Copy notes.md to ${name}.json", ("notes.md", "${name}.json"))
    with pytest.raises(ActionError, match=r"state\.json is Spellbook's own file"):
        _plan(tmp_path, extract, copy, own=("state.json",))  # the first cast: none there yet
    assert sorted(os.listdir(tmp_path)) == ["notes.md", "task.md"]


RELEASE = Path(__file__).resolve().parents[2] / "examples" / "release" / "generated" / "release.py"


@pytest.mark.parametrize(
    "key", ["../.git/config", "../../outside.txt", "templates/../../.git/config"]
)
def test_a_machine_carrying_a_template_from_outside_its_folders_creates_nothing_from_it(
    tmp_path: Path, key: str
) -> None:
    text = RELEASE.read_text(encoding="utf-8").replace('"templates/notes.md"', repr(key))
    module = ModuleType("release")
    exec(compile(text, "release.py", "exec"), module.__dict__)
    assert key in module.FILES  # as a module made by hand, or by an older compiler, has it
    flow = Workflow(tmp_path, machine=module)  # type: ignore[arg-type]
    with pytest.raises(ActionError, match="not a file of the project's template folders"):
        flow.cast("cut")
    assert not (tmp_path / ".release" / "notes.md").exists()
    assert flow.status()["state"] == "IDLE"


def test_a_file_read_with_bytes_replaced_is_never_written_again(tmp_path: Path) -> None:
    """A vocabulary's verb reads a file (bad bytes replaced) and writes it again: the
    write is refused, naming the byte, as the session's "mark tested" does."""
    write_features(tmp_path, "F1")
    features = tmp_path / PROGRESS / "feature-list.json"
    latin = features.read_bytes().replace(b"feature F1", b"caf\xe9 F1")
    features.write_bytes(latin)
    (tmp_path / "tests-pass").write_text("")
    flow = session(tmp_path)
    assert flow.cast("advance").after == "IMPLEMENT"
    assert flow.cast("advance").after == "TEST"
    with pytest.raises(ActionError) as raised:
        flow.cast("advance")  # marks F1 tested: feature-list.json is written again
    offset = latin.index(b"\xe9")
    assert f"feature-list.json is not UTF-8 text (byte 0xE9 at offset {offset})" in str(
        raised.value
    )
    assert features.read_bytes() == latin


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_a_task_name_yaml_reads_as_written_names_the_folder_whatever_the_line_ends(
    tmp_path: Path, end: str
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", workspaces.plan(unchecked=1))
    write(tmp_path, "task.md", end.join(["---", "task_name: 2024-01-01", "---", ""]))
    write(tmp_path, "task-results.md", "results\n")
    archive = Workflow(tmp_path).cast("accio").archive
    assert archive.startswith(f"{TASK}/tasks/task-2024-01-01-")


def test_every_verb_of_the_core_has_its_meaning_effect_and_carry_out_in_one_record() -> None:
    """`actions.VERBS` is each verb's one home in the runtime: what it means, what it
    changes (files, state-file fields, or nothing at all), what the verifier knows it
    does to its files, and how a cast carries it out; the lists the verifier, the MCP
    server and the engine use are drawn from it."""
    from spellbook.verbs.actions import EDITS, VERBS, passive

    assert set(VERBS) >= {"create", "archive", "delete", "load", "extract", "increment"}
    for name, verb in VERBS.items():
        assert verb.name == name
        assert verb.meaning.endswith("."), name
        assert callable(verb.carry_out), name
        assert verb.files in ("none", "adds", "rewrites"), name
        assert verb.fields in ("none", "adds", "rewrites", "sets"), name
        # A verb a cast does nothing for changes nothing (what the AI does is the AI's).
        assert not verb.passive or (verb.files, verb.fields) == ("none", "none"), name
        # What the verifier knows it does to its files agrees with what it changes.
        effects = ("", "makes", "writes", "removes", "copies", "moves", "records", "anything")
        assert verb.effect in effects, name
        assert (verb.effect in ("", "anything")) == (verb.files == "none"), name
    assert {"copy", "move", "append", "set_field", "append_item"} == EDITS
    assert passive("instruct") and not passive("create")
    assert not passive("a_vocabulary_s_own_verb")  # carried out by its vocabulary


def test_a_spell_that_only_reads_values_is_read_only_and_a_reset_is_destructive() -> None:
    """The MCP hints are drawn from what each verb changes: extracting a frontmatter
    value or loading a file's text changes nothing; setting a counter back rewrites a
    value."""
    from types import SimpleNamespace

    from spellbook.doors.server import annotations_of
    from spellbook.schema import Action

    def machine(*actions: Action) -> SimpleNamespace:
        rule = SimpleNamespace(spell="go", changes_state=False, actions=actions)
        return SimpleNamespace(RULES=[rule])

    reads = machine(
        Action("extract", "Extract name from task.md frontmatter", ("task.md",), "name")
    )
    # read-only: extracting a value or loading a file's text leaves the workspace as is
    assert annotations_of(reads, "go") == (True, False)
    loads = machine(Action("load", "Load `timeline.md` content", ("timeline.md",)))
    assert annotations_of(loads, "go") == (True, False)
    counts = machine(Action("increment", "Increment rounds", (), "rounds"))
    assert annotations_of(counts, "go") == (False, False)
    resets = machine(Action("reset", "Reset rounds", (), "rounds=0"))
    assert annotations_of(resets, "go") == (False, True)
    chooses = machine(Action("set_state_field", "Set", (), '["feature_id", "value", "F2"]'))
    assert annotations_of(chooses, "go") == (False, True)  # the field's old value is gone


def test_a_field_set_in_the_state_file_is_one_the_machine_lets_actions_set(
    tmp_path: Path,
) -> None:
    literal = _read('Set `feature_id` in the state file to "F1"')
    query = _read(
        "Set `feature_id` in the state file to the first `features[status=pending].id` of f.json"
    )
    (tmp_path / "f.json").write_text(
        '{"features": [{"id": "F1"}, {"id": "F2", "status": "pending"}]}'
    )
    rule, workspace = _rule(literal), Workspace(str(tmp_path), "")
    # A field the machine does not let actions set (not declared, or the runtime's own,
    # or a counter: `Engine.settable`) is refused even in a machine generated anyway.
    with pytest.raises(ActionError, match="not a field of the state file the State Persistence"):
        plan(rule, workspace, Record("A"))
    assert plan(rule, workspace, Record("A"), settable={"feature_id"}).extra == {"feature_id": "F1"}
    planned = plan(
        _rule(query), workspace, Record("A", extra={"feature_id": "F1"}), settable={"feature_id"}
    )
    assert planned.extra == {"feature_id": "F2"} and planned.operations == []
    # The words name the query, not what it found: the note says.
    assert planned.done.notes == [
        'feature_id is now "F2": the first `features[status=pending].id` of f.json'
    ]
    (tmp_path / "f.json").write_text('{"features": []}')
    with pytest.raises(
        ActionError, match=r"`features\[status=pending\].id` selects nothing in f.json"
    ):
        plan(_rule(query), workspace, Record("A"), settable={"feature_id"})
    # Features keyed by id: what the filter would keep is not known, so nothing is set.
    (tmp_path / "f.json").write_text('{"features": {"F2": {"id": "F2", "status": "pending"}}}')
    with pytest.raises(ActionError, match=r"f.json: `features` is an object without `status`"):
        plan(_rule(query), workspace, Record("A"), settable={"feature_id"})


PLAN = "# Plan\n\n## Tables\n\n- orders\n- invoices\n\n## Checklist\n\n- a\n- the\n"


@pytest.mark.parametrize(
    ("plan_md", "ledger", "after"),
    [
        (PLAN, None, "orders\ninvoices\n"),  # the checklist's `a` and `the` are not tables
        (PLAN, "orders", "orders\ninvoices\n"),  # only what it does not list yet, after a line end
        ("# Plan\n\n- orders\n", "x\n", "x\n"),  # no section "Tables": nothing to record
    ],
)
def test_a_record_scoped_to_a_section_appends_only_that_section_s_matches(
    tmp_path: Path, plan_md: str, ledger: str | None, after: str
) -> None:
    (tmp_path / "plan.md").write_text(plan_md)
    if ledger is not None:
        (tmp_path / ".applied").write_text(ledger)
    action = _read('Record matches of `^- (\\w+)$` under "Tables" of plan.md in `.applied`')
    apply(_plan(tmp_path, action).operations, Workspace(str(tmp_path), ""))
    assert (tmp_path / ".applied").read_text() == after


def rule(*actions: Action) -> Rule:
    row = Row("R1", "Go", ("A",), actions=actions)
    return Rule(row, "A", "Go", "A", (0, 0))


def test_a_rule_acting_on_the_state_file_or_the_runtime_s_files_is_refused(
    tmp_path: Path,
) -> None:
    workspace = Workspace(str(tmp_path), ".w")
    moving = rule(Action("move", "Move state.json to old/", ("state.json", "old/")))
    with pytest.raises(ActionError, match="Spellbook's own file"):
        plan(moving, workspace, Record("A"), own=("state.json",))
    trash = rule(Action("append", 'Append "x" to .trash/n', (".trash/n",), "x"))
    with pytest.raises(ActionError, match="Spellbook's own file"):
        plan(trash, workspace, Record("A"))


def test_a_file_that_is_not_utf8_is_never_rewritten(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    log = tmp_path / ".w" / "log.txt"
    log.write_bytes(b"caf\xe9 na\xefve\n")
    workspace = Workspace(str(tmp_path), ".w")
    for action in (
        Action("append", 'Append "x" to log.txt', ("log.txt",), "x"),
        Action("copy", "Copy log.txt to b.txt", ("log.txt", "b.txt")),
        Action("set_field", "Set x in log.txt to 1", ("log.txt",), '["x", 1]'),
    ):
        with pytest.raises(ActionError, match="not UTF-8 text"):
            plan(rule(action), workspace, Record("A"))
    assert log.read_bytes() == b"caf\xe9 na\xefve\n"
    # A move only renames: any bytes may move.
    moved = plan(rule(Action("move", "Move log.txt to old/", ("log.txt", "old/"))), workspace)
    assert moved.operations == [["move", "log.txt", "old/log.txt"]]


def test_a_copy_after_a_move_writes_where_the_moved_file_was(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    (tmp_path / ".w" / "draft.md").write_text("old\n")
    (tmp_path / ".w" / "template.md").write_text("new\n")
    planned = plan(
        rule(
            Action("move", "Move draft.md to done/", ("draft.md", "done/")),
            Action("copy", "Copy template.md to draft.md", ("template.md", "draft.md")),
        ),
        Workspace(str(tmp_path), ".w"),
    )
    assert ["create", "draft.md", "new\n"] in planned.operations


def test_an_extracted_value_is_written_into_a_line_as_it_is(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    (tmp_path / ".w" / "r.json").write_text(json.dumps({"version": "2.0.0-RC.1+Build.7"}))
    planned = plan(
        rule(
            Action("extract", "Extract version from r.json", ("r.json",), "version"),
            Action("append", 'Append "v${version}" to C.md', ("C.md",), "v${version}"),
            Action("copy", "Copy r.json to r-${version}.json", ("r.json", "r-${version}.json")),
        ),
        Workspace(str(tmp_path), ".w"),
    )
    assert ["create", "C.md", "v2.0.0-RC.1+Build.7\n"] in planned.operations
    assert any(op[:2] == ["create", "r-2.0.0-rc.1-build.7.json"] for op in planned.operations)


def test_a_response_that_is_only_a_placeholder_is_never_shown_raw_in_a_summary(
    tmp_path: Path,
) -> None:
    # `| T2 | B | Go | - | Same state | No state change | {{available_spells}} |` made
    # status say `Go: no state change: {{available_spells}}`.
    text = MOVED.replace("MOVE", "Delete a/notes.md and b/notes.md").replace(
        "| Nothing to do. |", "| {{available_spells}} |"
    )
    flow = Workflow(tmp_path, machine=_machine(text))  # type: ignore[arg-type]
    (tmp_path / ".w").mkdir()
    (tmp_path / ".w" / "state.json").write_text('{"current_state": "B"}\n')
    said = flow.status()["spells"]["Go"]
    assert "{{" not in said and said == "no state change: nothing to do", said


def test_a_file_code_or_settings_are_taken_from_is_no_action_s_to_write(tmp_path: Path) -> None:
    from spellbook.disk.own_files import program_file, programs_in

    generated = tmp_path / "generated"
    programs = programs_in(str(tmp_path), [str(generated)], [str(generated / "release.py")])
    for path in ("generated/release.py", "Generated/x.py", "generated", "pyproject.toml"):
        assert program_file(path, "move", programs), path
    for path in ("sub/PyProject.toml", ".claude/settings.json", ".Claude/settings.local.json"):
        assert program_file(path, "create", ()), path
    # the MCP servers Claude Code starts: their command, `--root`, SPELLBOOK_TEST_COMMAND
    for path in (".mcp.json", "sub/.MCP.json"):
        assert program_file(path, "move", ()), path
    for path in ("notes.md", "generated.md", ".claude/commands/x.md", "docs/generated/x.md"):
        assert not program_file(path, "move", programs), path
    assert not program_file("pyproject.toml", "load", ())  # only reading it
    # the generated folder as the workspace: its modules, not the workspace's other files
    same = programs_in(str(generated), [str(generated)], [str(generated / "release.py")])
    assert program_file("release.py", "move", same) and program_file("other.py", "create", same)
    assert program_file("__pycache__/x.pyc", "create", same)
    assert not program_file("notes.md", "create", same)
    assert not program_file("sub/tool.py", "create", same)
    # one that holds the workspace, or is beside it: none that an action could name
    assert programs_in(str(generated / "work"), [str(generated)], []) == ()
    assert programs_in(str(tmp_path / "work"), [str(generated)], []) == ()


def _project_of(root: Path, state_file: str) -> None:
    """A project at `root` listing one machine whose generated module keeps its state in
    `state_file` (black wraps a long one in parentheses, as here)."""
    (root / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\nrelease = "spec/RELEASE.md"\n', encoding="utf-8"
    )
    (root / "generated").mkdir()
    (root / "generated" / "release.py").write_text(
        f'"""Generated."""\n\nSPEC = "spec/RELEASE.md"\nSTATE_FILE = (\n    "{state_file}"\n)\n'
        f'WORKSPACE = "{state_file.rsplit("/", 1)[0]}"\n',
        encoding="utf-8",
    )


def test_no_action_writes_over_another_machine_s_state_file_or_runtime_files(
    tmp_path: Path,
) -> None:
    """A rule of one machine moved the AI's file over another machine's state file (and
    could copy over its `.intent.json`): that machine then jumped to any state, its
    history wiped, no rule of it allowing the move. The verifier said OK. The state files
    are the project's machines' (and the shipped ones'), read off their generated
    modules: a JSON file of the spec's own shaped like one (`context`, `history`) is
    the spec's to write, a state file with a long field before its `context` is still
    one, and one not written yet may not be made by a rule of another machine."""
    from spellbook.disk.own_files import own_file

    _project_of(tmp_path, ".release/state.json")
    other = tmp_path / ".release"
    other.mkdir()
    long_field = '{"current_state": "WRITING", "summary": "%s", "context": {}, "history": []}'
    (other / "state.json").write_text(long_field % ("y" * 5000))
    (tmp_path / "draft.md").write_text('{"current_state": "SIGNING", "history": []}\n')
    chat = '{"model": "m", "context": {"repo": "x"}, "history": [{"role": "user"}]}\n'
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "chat.json").write_text(chat)
    (tmp_path / "progress.json").write_text('{"phase": "build", "context": {}, "history": []}')
    workspace = Workspace(str(tmp_path), "")
    engine = SimpleNamespace(workspace=workspace, _others=None, machine=None)
    others = partial(Engine.others, engine)  # as a cast asks, read once
    refused = [
        "Move `draft.md` to `.release/state.json`",
        "Delete `.release/state.json`",
        "Delete `.release`",  # a folder holding it
        "Archive `.release` to `old/`",
        "Copy `draft.md` to `.Release/State.json`",  # one file where case is ignored
        "Copy `draft.md` to `.release/state.json.bad-20261129T000000Z`",  # repair reads it
        "Copy `draft.md` to `.ai/task/state.json`",  # a shipped machine's
    ]
    for text in refused:
        with pytest.raises(ActionError, match=r"is \(or holds\) the state file of another"):
            plan(_rule(_read(text)), workspace, Record("A"), others=others)
    (other / "state.json").unlink()  # not written yet: no rule of another machine makes it
    with pytest.raises(ActionError, match=r"state\.json is \(or holds\) the state file"):
        plan(
            _rule(_read("Copy `draft.md` to `.release/state.json`")),
            workspace,
            Record("A"),
            others=others,
        )
    # its runtime files anywhere, by name, for the verifier too
    assert own_file(".release/.intent.json", "copy") and own_file("a/.history/x", "create")
    # the spec's own JSON files, whatever keys they have, and a folder beside a state file
    for text in (
        "Delete `logs/chat.json`",
        'Set `phase` in progress.json to "test"',
        "Archive `draft.md` to `logs/`",
        "Copy `draft.md` to `.release/notes.md`",
    ):
        assert plan(_rule(_read(text)), workspace, Record("A"), others=others).operations, text
    # the shipped machines' workspaces hold none of each other's state files: outside a
    # project there are none to read
    from spellbook.disk.own_files import others_in
    from spellbook.machines import session_machine, spell_machine

    for one, another in ((spell_machine, session_machine), (session_machine, spell_machine)):
        assert others_in(one.WORKSPACE, [another.STATE_FILE]) == ()


def test_a_file_named_with_the_workspace_in_front_is_its_own_in_a_condition_too() -> None:
    """Workspace `docs/site`: `docs/site/docs/index.md` (its own `docs` folder, with the
    workspace in front, as the message advised) was refused as `docs/index.md` beside
    it, in a condition and an action alike: no spelling could name the file."""
    cell = "`docs/site/docs/index.md` exists"
    row = f"| T1 | A | Go | {cell} | B | Create `docs/site/docs/index.md` | Done. |"
    other = "| T2 | A | Go | NOT " + cell + " | A | - | Write it. |"
    text = spec_text(["A", "B"], ["Go"], [row, other, *fill(["A", "B"], ["Go"], ["A/Go"])])
    text += "\n### State Persistence\n\nThe state is kept in `docs/site/state.json`.\n"
    assert findings_of(text, {"action_path", "unknown_condition"}) == []
    beside = text.replace("`docs/site/docs/index.md`", "`docs/index.md`")
    kinds = {f.kind for f in findings_of(beside, {"action_path", "unknown_condition"})}
    assert kinds == {"action_path", "unknown_condition"}


def test_no_action_touches_the_state_file_of_a_project_nested_in_the_workspace(
    tmp_path: Path,
) -> None:
    """A project of its own in a folder of the workspace (`sub/pyproject.toml`, a
    monorepo's): `Archive sub/.b/state.json to old/` took its machine's state file away,
    the verifier and the cast saying nothing."""
    _project_of(tmp_path, ".release/state.json")
    nested = tmp_path / "sub"
    nested.mkdir()
    _project_of(nested, ".b/state.json")
    (nested / ".b").mkdir()
    (nested / ".b" / "state.json").write_text('{"current_state": "OPEN"}')
    (nested / "notes.md").write_text("x")
    (tmp_path / "notes.md").write_text("x")
    (tmp_path / "deep" / "er").mkdir(parents=True)
    _project_of(tmp_path / "deep" / "er", ".c/state.json")
    workspace = Workspace(str(tmp_path), "")
    for text in (
        "Archive `sub/.b/state.json` to `old/`",
        "Move `sub/.b/state.json` to `b.json`",
        "Move `sub` to `gone`",  # a folder holding it
        "Move `deep` to `gone`",  # and one holding the project's folder
        "Copy `notes.md` to `sub/.b/state.json.bad-20261129T000000Z`",
    ):
        with pytest.raises(ActionError, match=r"or of a project in a folder of it"):
            plan(_rule(_read(text)), workspace, Record("A"))
    assert plan(_rule(_read("Delete `sub/notes.md`")), workspace, Record("A")).operations


def test_the_shipped_machines_state_files_are_known_as_their_modules_say() -> None:
    from spellbook.disk.project import SHIPPED, SHIPPED_STATE_FILES
    from spellbook.machines import session_machine, spell_machine

    assert set(SHIPPED) == {"spell", "session"}
    assert SHIPPED_STATE_FILES == (spell_machine.STATE_FILE, session_machine.STATE_FILE)


def test_an_action_on_a_folder_too_large_to_look_through_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder of more folders than are looked through for a nested project was refused
    as holding "the state file of another machine", which it did not."""
    from spellbook.disk import shared_state

    monkeypatch.setattr(shared_state, "NESTED_LIMIT", 3)
    for n in range(5):
        (tmp_path / "big" / f"f{n}").mkdir(parents=True)
    (tmp_path / "big" / "f0" / "x.md").write_text("x")
    with pytest.raises(ActionError, match=r"big holds more than 3 folders, too many to look"):
        plan(_rule(_read("Move `big` to `old`")), Workspace(str(tmp_path), ""), Record("A"))
