"""The spec as its authors publish it today, read as they mean it.

`tests/fixtures/later_revision.md` is a later revision of the user's spec,
unchanged: renamed columns (`MCP Condition`, `MCP Actions`, `Implementation`),
conditions written as procedures, third-person actions, `-` for no action, and
names a markdown formatter mangled (`PR*GATHERING_COMMENTS*[G/A]`).
`tests/fixtures/later_revision_normalized.md` is the same spec rewritten by hand
in the dialect of the user's first spec. Both must verify to the same findings,
and a machine generated from the unchanged file, as a third machine of a project
of its own, must run a workflow through real files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType

import pytest

from codegen import load_spec
from codegen.analyse import Finding, analyse
from codegen.analyse.coverage import family_coverage, state_coverage
from spellbook import Workflow
from spellbook.errors import Undefined
from tests.workspaces import TASK, write

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
LATER = FIXTURES / "later_revision.md"
NORMALIZED = FIXTURES / "later_revision_normalized.md"
# The published file's sha256: the fixture is that file, byte for byte.
PUBLISHED = "d9ac22bdc21972d38839992ce80be540cc7525f0829694a649344cd1ad46a11b"
# Notes about how the text was written, which a rewrite of the text changes.
TEXT_NOTES = {"name_recovered", "column_choice"}


def key(f: Finding) -> tuple[object, ...]:
    return (f.kind, f.rule, f.states or ((f.state,) if f.state else ()), f.spell)


def test_the_fixture_is_the_published_file_unchanged() -> None:
    assert hashlib.sha256(LATER.read_bytes()).hexdigest() == PUBLISHED


def test_the_unchanged_file_verifies_with_full_coverage() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "verify-state-machine.py"), "--spec", str(LATER)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr  # findings, not unusable input
    assert "108/108 family cells and 156/156 state cells covered" in result.stdout
    spec = load_spec(LATER)
    assert (str(family_coverage(spec)), str(state_coverage(spec))) == ("108/108", "156/156")
    kinds = {f.kind for f in analyse(spec)}
    assert not kinds & {"unknown_state", "missing_cell", "unknown_spell", "parse_error"}


def test_the_unchanged_file_and_the_normalized_copy_have_the_same_findings() -> None:
    raw = {key(f) for f in analyse(load_spec(LATER)) if f.kind not in TEXT_NOTES}
    normalized = {key(f) for f in analyse(load_spec(NORMALIZED)) if f.kind not in TEXT_NOTES}
    assert raw == normalized
    errors = {k for k in raw if k[0] in ("dead_rule", "unreachable_state", "gap", "conflict")}
    # The real defects the authors' own revision has, among them the dead A3 that
    # leaves ACHIEVE_COMPLETE unreachable.
    assert ("dead_rule", "A3", ("ACHIEVE_TASK_DRAFTING",), "Accio") in errors
    assert ("unreachable_state", None, ("ACHIEVE_COMPLETE",), None) in errors
    assert len(errors) == 16


def test_mangled_names_are_read_back_and_each_reading_is_noted() -> None:
    findings = [f for f in analyse(load_spec(LATER)) if f.kind == "name_recovered"]
    assert len(findings) == 32
    (p1,) = [f for f in findings if f.rule == "P1"]
    assert "'PR*GATHERING_COMMENTS*[G/A]' as 'PR_GATHERING_COMMENTS_[G/A]'" in p1.message
    assert p1.line == 278


def test_the_ledger_the_core_cannot_express_is_reported_once() -> None:
    (found,) = [f for f in analyse(load_spec(LATER)) if f.kind == "unknown_condition"]
    assert ".atlassian-refs" in found.message
    assert "rules E1b, E2, E4, E4b" in found.message
    assert "Terms table" in found.message  # and what would define it


def test_columns_without_a_role_are_kept_with_the_row() -> None:
    spec = load_spec(LATER)
    (gc1,) = [r for r in spec.rows if r.id == "GC1"]
    assert gc1.extra == (("Implementation", "yes"),)


# -- a machine generated from the unchanged file -----------------------------------


@pytest.fixture(scope="module")
def later(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """`python -m codegen` in a project whose third machine is the later revision."""
    project = tmp_path_factory.mktemp("project")
    (project / "spec").mkdir()
    shutil.copy(LATER, project / "spec" / "LATER.md")
    (project / "pyproject.toml").write_text(
        "[tool.spellbook]\n"
        'generated = "generated"\n'
        "[tool.spellbook.machines.later]\n"
        'spec = "spec/LATER.md"\n'
        'vocabulary = "spell_workflow"\n'
        "allow_errors = true\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    made = subprocess.run(
        [sys.executable, "-m", "codegen"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert made.returncode == 0, made.stderr
    assert "generated despite 17 error(s)" in made.stderr
    found = spec_from_file_location("later", project / "generated" / "later.py")
    assert found is not None and found.loader is not None
    module = module_from_spec(found)
    found.loader.exec_module(module)
    return module


def cast(flow: Workflow, spell: str, rule: str, after: str) -> str:
    result = flow.cast(spell)
    assert (result.rule, result.after) == (rule, after), result
    return result.archive


def test_a_workflow_runs_through_the_generated_later_machine(
    later: ModuleType, tmp_path: Path
) -> None:
    flow = Workflow(tmp_path, machine=later)  # type: ignore[arg-type]
    task = tmp_path / TASK
    assert flow.state == "GATHER_NEEDS_CONTEXT"
    cast(flow, "accio", "GC1", "GATHER_EDITING_CONTEXT")
    assert "## Sources" in (task / "context.md").read_text()  # from its template
    write(tmp_path, "context.md", "# Context\n\nhttps://acme.atlassian.net/browse/ENG-7\n")
    cast(flow, "accio", "GC2a", "GATHER_EDITING")
    assert "## Acceptance Criteria" in (task / "plan.md").read_text()
    # The template's own example criteria are not criteria: write a real one.
    write(tmp_path, "plan.md", "# Plan\n\n## Acceptance Criteria\n\n- [ ] Greets by name\n")
    cast(flow, "accio", "G2", "ACHIEVE_TASK_DRAFTING")
    assert "task_name:" in (task / "task.md").read_text()
    write(tmp_path, "task.md", "---\ntask_name: greet\n---\n\n# Task\n")
    cast(flow, "accio", "A1", "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "task-results.md", "# Results\n\nGreets.\n")
    archive = cast(flow, "accio", "A2", "ACHIEVE_TASK_DRAFTING")
    assert archive.startswith(".ai/task/tasks/task-greet-")
    assert sorted(p.name for p in (tmp_path / archive).iterdir()) == ["task-results.md", "task.md"]
    assert "task_name: next-task" in (task / "task.md").read_text()  # a new task
    cast(flow, "reparo", "A5a", "PR_GATHERING_COMMENTS_A")
    assert (task / "comments.md").read_text() == ""  # the vocabulary has no template for it
    cast(flow, "accio", "P1", "PR_REVIEW_TASK_DRAFT_A")
    assert "## Specific tasks" in (task / "review-task.md").read_text()
    cast(flow, "accio", "P2", "PR_APPLIED_PENDING_ARCHIVE_A")
    write(tmp_path, "review-task-results.md", "# Review results\n")
    archive = cast(flow, "accio", "P4a", "ACHIEVE_TASK_DRAFTING")
    assert archive.startswith(".ai/task/pr-reviews/pr-review-")
    assert sorted(p.name for p in (tmp_path / archive).iterdir()) == [
        "comments.md",
        "review-task-results.md",
        "review-task.md",
    ]
    history = json.loads((task / "state.json").read_text())["history"]
    assert [e["rule"] for e in history] == [
        "GC1", "GC2a", "G2", "A1", "A2", "A5a", "P1", "P2", "P4a",
    ]  # fmt: skip


def test_a_condition_the_spec_does_not_define_stops_the_cast(
    later: ModuleType, tmp_path: Path
) -> None:
    """Expecto with new Atlassian links depends on the undefined ledger: the cast is
    refused with the phrase named and nothing changed, never guessed."""
    flow = Workflow(tmp_path, machine=later)  # type: ignore[arg-type]
    cast(flow, "accio", "GC1", "GATHER_EDITING_CONTEXT")
    write(tmp_path, "context.md", "https://acme.atlassian.net/wiki/x\n")
    before = (tmp_path / TASK / "state.json").read_bytes()
    with pytest.raises(Undefined, match=r"\.atlassian-refs"):
        flow.cast("expecto")
    assert (tmp_path / TASK / "state.json").read_bytes() == before
    # Lumos says so for Expecto instead of guessing, and does not offer it as a way on.
    response = flow.cast("lumos").response
    assert "- **Expecto**: cannot tell" in response
    assert "Cast **Expecto**" not in response.split("### Next Steps", 1)[1]


def test_read_with_the_core_alone_it_says_which_vocabulary_would_read_it() -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "verify-state-machine.py"),
            "--spec",
            str(LATER),
            "--vocabulary",
            "",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Read with the core's words, no vocabulary and no terms of its own" in result.stdout
    assert "the 'spell_workflow' vocabulary defines it" in result.stdout
    assert "--vocabulary spell_workflow" in result.stdout


def test_a_vocabulary_that_cannot_be_imported_is_an_error_not_a_traceback(
    later: ModuleType, tmp_path: Path
) -> None:
    from types import SimpleNamespace

    from spellbook.errors import SpellbookError

    machine = SimpleNamespace(**{**vars(later), "VOCABULARY": "no_such_vocabulary_here"})
    flow = Workflow(tmp_path, machine=machine)  # type: ignore[arg-type]
    with pytest.raises(SpellbookError, match="vocabulary no_such_vocabulary_here cannot"):
        flow.cast("accio")
