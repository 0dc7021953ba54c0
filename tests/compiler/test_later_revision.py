"""The spec as its authors publish it today, read as they mean it.

`tests/data/fixtures/later_revision.md` is a later revision of the user's spec,
unchanged: renamed columns (`MCP Condition`, `MCP Actions`, `Implementation`),
conditions written as procedures, third-person actions, `-` for no action, and
names a markdown formatter mangled (`PR*GATHERING_COMMENTS*[G/A]`).
`tests/data/fixtures/later_revision_normalized.md` is the same spec rewritten by hand
in the dialect of the user's first spec. Both must verify to the same findings,
and a machine generated from the unchanged file, as a third machine of a project
of its own, must run a workflow through real files.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType

import pytest

from codegen import load_spec
from codegen.analyse import Finding, analyse
from codegen.analyse.coverage import family_coverage, state_coverage
from codegen.read.lexicon import ReadOptions
from spellbook import Workflow
from spellbook.records.errors import Undefined
from tests.support.workspaces import TASK, write

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "fixtures"
LATER = FIXTURES / "later_revision.md"
NORMALIZED = FIXTURES / "later_revision_normalized.md"
# A Terms table of this project's own, appended to the published file: what its
# ledger steps (`Checks .atlassian-refs for processed URLs`) mean.
TERMS = FIXTURES / "later_revision_terms.md"
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
    # A plan.md without its Acceptance Criteria section: G3 ("finds 0" of a count of a
    # section) needs the section, and no rule speaks for the plan without one.
    assert ("gap", None, ("GATHER_EDITING",), "Accio") in errors
    assert len(errors) == 17


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


def generated(project: Path, spec: bytes, errors: int) -> ModuleType:
    """`python -m codegen` in a project whose third machine is the spec."""
    (project / "spec").mkdir()
    (project / "spec" / "LATER.md").write_bytes(spec)
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
    assert f"generated despite {errors} error(s)" in made.stderr
    found = spec_from_file_location("later", project / "generated" / "later.py")
    assert found is not None and found.loader is not None
    module = module_from_spec(found)
    found.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def later(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The later revision as published, generated as a project's third machine."""
    return generated(tmp_path_factory.mktemp("project"), LATER.read_bytes(), 18)


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The later revision with the Terms table that says what its ledger steps mean."""
    spec = LATER.read_bytes() + TERMS.read_bytes()
    return generated(tmp_path_factory.mktemp("project"), spec, 17)


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

    from spellbook.records.errors import SpellbookError

    machine = SimpleNamespace(**{**vars(later), "VOCABULARY": "no_such_vocabulary_here"})
    flow = Workflow(tmp_path, machine=machine)  # type: ignore[arg-type]
    with pytest.raises(SpellbookError, match="vocabulary no_such_vocabulary_here cannot"):
        flow.cast("accio")


# -- the same file with a Terms table of the project's own ---------------------------


def test_with_its_terms_every_phrase_of_the_later_revision_is_read(tmp_path: Path) -> None:
    """The ledger is the core's `unlisted` fact, and what it reveals is reported: with
    the ledger known, Expecto with context.md deleted is a gap the authors have."""
    spec_file = tmp_path / "LATER.md"
    spec_file.write_bytes(LATER.read_bytes() + TERMS.read_bytes())
    spec = load_spec(spec_file, options=ReadOptions("spell_workflow"))
    findings = analyse(spec)
    kinds = {f.kind for f in findings}
    assert not kinds & {"unknown_condition", "unknown_term", "term_conflict", "action_path"}
    (e1b,) = [r for r in spec.rows if r.id == "E1b"]
    facts = {(lit.atom.probe, lit.atom.file, lit.positive) for lit in e1b.condition.clauses[0]}
    assert ("unlisted", "context.md", True) in facts
    (e4b,) = [r for r in spec.rows if r.id == "E4b"]
    facts = {(lit.atom.probe, lit.atom.file, lit.positive) for lit in e4b.condition.clauses[0]}
    assert ("unlisted", "plan.md", False) in facts
    assert [a.verb for a in e1b.actions] == ["find", "fill", "record"]
    assert e1b.actions[-1].files == ("context.md", ".atlassian-refs")
    gaps = {(f.rule, f.line) for f in findings if f.kind == "gap"}
    assert {f.line for f in findings if f.kind == "gap" and "context.md missing" in f.message}
    missing = 'no section "Acceptance Criteria"'
    assert {f.line for f in findings if f.kind == "gap" and missing in f.message}
    assert len(gaps) == 8
    unknown = [f.rule for f in findings if f.kind == "unknown_action"]
    assert "E1b" not in unknown and "E2" not in unknown


def refs(root: Path) -> list[str]:
    return (root / TASK / ".atlassian-refs").read_text().splitlines()


def test_the_ledger_rules_cast_through_real_files(ledger: ModuleType, tmp_path: Path) -> None:
    flow = Workflow(tmp_path, machine=ledger)  # type: ignore[arg-type]
    first = "https://acme.atlassian.net/browse/ENG-7"
    second = "https://acme.atlassian.net/wiki/spaces/X"
    cast(flow, "accio", "GC1", "GATHER_EDITING_CONTEXT")
    write(tmp_path, "context.md", f"# Context\n\n- {first}\n- {second} and {first}\n")
    result = flow.cast("expecto")
    assert (result.rule, result.after) == ("E1b", "GATHER_EDITING_CONTEXT")
    assert refs(tmp_path) == [first, second]  # each once, in the order found
    said = "recorded 2 new entries of `.ai/task/context.md` in `.ai/task/.atlassian-refs`"
    assert said in result.response
    state = (tmp_path / TASK / "state.json").read_bytes()
    cast(flow, "expecto", "E4", "GATHER_EDITING_CONTEXT")  # all already processed
    assert refs(tmp_path) == [first, second]
    third = "https://acme.atlassian.net/browse/ENG-9"
    write(tmp_path, "context.md", f"{first}\n{third}\n")
    cast(flow, "expecto", "E1b", "GATHER_EDITING_CONTEXT")
    assert refs(tmp_path) == [first, second, third]
    assert json.loads(state)["current_state"] == "GATHER_EDITING_CONTEXT"
    cast(flow, "accio", "GC2a", "GATHER_EDITING")
    fourth = "https://acme.atlassian.net/browse/ENG-11"
    write(tmp_path, "plan.md", f"# Plan\n\nSee {third} and {fourth}.\n")
    cast(flow, "expecto", "E2", "GATHER_EDITING")
    assert refs(tmp_path) == [first, second, third, fourth]
    cast(flow, "expecto", "E4b", "GATHER_EDITING")
    assert refs(tmp_path) == [first, second, third, fourth]
    # A ledger a person kept by hand, without a final newline: entries go on new lines.
    (tmp_path / TASK / ".atlassian-refs").write_text(f"  {first}  \n{fourth}")
    cast(flow, "expecto", "E2", "GATHER_EDITING")
    assert refs(tmp_path) == [f"  {first}  ", fourth, third]
    history = json.loads((tmp_path / TASK / "state.json").read_text())["history"]
    assert [e["rule"] for e in history][-4:] == ["GC2a", "E2", "E4b", "E2"]
