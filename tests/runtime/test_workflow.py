"""End to end: the whole spell workflow in a real workspace, with the files the AI would write.

Plan -> tasks drafted, executed and archived -> every criterion checked ->
ACHIEVE_COMPLETE; a PR review entered from GATHER (_G) and one from ACHIEVE (_A),
confirm-restart both ways and Reverto out; each error state entered by deleting
its file and recovered with Accio.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spellbook import Workflow
from tests.support.workspaces import TASK, history, plan, remove, task, write


@pytest.fixture
def flow(tmp_path: Path) -> Workflow:
    return Workflow(tmp_path)


def cast(flow: Workflow, spell: str, rule: str, after: str) -> None:
    result = flow.cast(spell)
    assert (result.rule, result.after) == (rule, after), result
    assert flow.state == after


def ws(flow: Workflow) -> Path:
    return Path(flow.workspace.base)


def test_plan_to_complete_with_archived_tasks(flow: Workflow) -> None:
    root = Path(flow.workspace.root)
    assert flow.state == "GATHER_NEEDS_PLAN"
    cast(flow, "accio", "G1", "GATHER_EDITING")
    assert "## Acceptance Criteria" in (ws(flow) / "plan.md").read_text()
    write(root, "plan.md", plan(unchecked=2))
    cast(flow, "accio", "G2", "ACHIEVE_TASK_DRAFTING")
    assert "task_name:" in (ws(flow) / "task.md").read_text()
    write(root, "task.md", task("first-step"))
    cast(flow, "accio", "A1", "ACHIEVE_TASK_EXECUTED")
    write(root, "task-results.md", "# Results\n\nFirst step done.\n")
    result = flow.cast("accio")
    assert (result.rule, result.after) == ("A2", "ACHIEVE_TASK_DRAFTING")
    archived = sorted((ws(flow) / "tasks").iterdir())
    assert [p.name for p in archived] == [Path(result.archive).name]
    assert archived[0].name.startswith("task-first-step-")
    assert sorted(p.name for p in archived[0].iterdir()) == ["task-results.md", "task.md"]
    assert "First step done." in result.response  # the results, loaded for the AI
    assert "task_name: next-task" in (ws(flow) / "task.md").read_text()  # a fresh task
    # The AI checks the first criterion, drafts and runs the second task.
    write(root, "plan.md", plan(checked=1, unchecked=1))
    write(root, "task.md", task("second-step"))
    cast(flow, "accio", "A1", "ACHIEVE_TASK_EXECUTED")
    write(root, "task-results.md", "# Results\n\nSecond step done.\n")
    cast(flow, "accio", "A2", "ACHIEVE_TASK_DRAFTING")
    assert len(list((ws(flow) / "tasks").iterdir())) == 2
    write(root, "plan.md", plan(checked=2, unchecked=0))
    cast(flow, "accio", "A3", "ACHIEVE_COMPLETE")
    cast(flow, "accio", "A4", "ACHIEVE_COMPLETE")
    cast(flow, "finite", "F2", "GATHER_EDITING")
    entries = history(root)
    assert [e["rule"] for e in entries] == [
        "G1", "G2", "A1", "A2", "A1", "A2", "A3", "A4", "F2",
    ]  # fmt: skip
    assert all(e["transition"].count(" → ") == 1 for e in entries)  # type: ignore[union-attr]


def test_pr_review_from_gather_confirm_both_ways_and_reverto(flow: Workflow) -> None:
    root = Path(flow.workspace.root)
    cast(flow, "accio", "G1", "GATHER_EDITING")
    cast(flow, "reparo", "G5", "PR_GATHERING_COMMENTS_G")
    assert (ws(flow) / "comments.md").read_text() == ""
    write(root, "comments.md", "# PR comments\n\n- rename x\n")
    cast(flow, "accio", "P1", "PR_REVIEW_TASK_DRAFT_G")
    assert (ws(flow) / "review-task.md").is_file()
    cast(flow, "reverto", "V1", "GATHER_EDITING")
    # Reparo with a review task in progress asks to confirm; Reverto cancels.
    cast(flow, "reparo", "PR3", "PR_CONFIRM_RESTART_TASK_G")
    cast(flow, "reverto", "V1", "GATHER_EDITING")
    # Asked again, Reparo confirms: the review files go to the trash, a new review starts.
    cast(flow, "reparo", "PR3", "PR_CONFIRM_RESTART_TASK_G")
    result = flow.cast("reparo")
    assert (result.rule, result.after) == ("C2", "PR_GATHERING_COMMENTS_G")
    assert not (ws(flow) / "review-task.md").exists()
    trash = list((ws(flow) / ".trash").rglob("comments.md"))
    assert trash and "rename x" in trash[0].read_text()  # nothing is lost
    # Comments only: confirm-restart of the comments, then continue with Accio.
    write(root, "comments.md", "# PR comments\n\n- fix y\n")
    cast(flow, "reverto", "V1", "GATHER_EDITING")
    cast(flow, "reparo", "PR1", "PR_CONFIRM_RESTART_COMMENTS_G")
    cast(flow, "accio", "C3a", "PR_GATHERING_COMMENTS_G")
    cast(flow, "accio", "P1", "PR_REVIEW_TASK_DRAFT_G")
    cast(flow, "accio", "P2", "PR_APPLIED_PENDING_ARCHIVE_G")
    write(root, "review-task-results.md", "# Review results\n\nRenamed.\n")
    result = flow.cast("accio")
    assert (result.rule, result.after) == ("P3", "GATHER_EDITING")
    archived = list((ws(flow) / "pr-reviews").iterdir())
    assert sorted(p.name for p in archived[0].iterdir()) == [
        "comments.md",
        "review-task-results.md",
        "review-task.md",
    ]
    assert "Renamed." in result.response


def test_pr_review_from_achieve_keeps_its_origin(flow: Workflow) -> None:
    root = Path(flow.workspace.root)
    cast(flow, "accio", "G1", "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=1))
    cast(flow, "accio", "G2", "ACHIEVE_TASK_DRAFTING")
    cast(flow, "reparo", "A5a", "PR_GATHERING_COMMENTS_A")
    cast(flow, "reverto", "V2", "ACHIEVE_TASK_DRAFTING")
    cast(flow, "reparo", "PR2", "PR_CONFIRM_RESTART_COMMENTS_A")
    result = flow.cast("reparo")  # confirm: comments.md replaced, the old one kept
    assert (result.rule, result.after) == ("C1", "PR_GATHERING_COMMENTS_A")
    cast(flow, "accio", "P1", "PR_REVIEW_TASK_DRAFT_A")
    cast(flow, "reverto", "V2", "ACHIEVE_TASK_DRAFTING")
    cast(flow, "reparo", "PR4", "PR_CONFIRM_RESTART_TASK_A")
    cast(flow, "accio", "C3c", "PR_REVIEW_TASK_DRAFT_A")
    cast(flow, "accio", "P2", "PR_APPLIED_PENDING_ARCHIVE_A")
    write(root, "review-task-results.md", "# Review results\n")
    cast(flow, "accio", "P4a", "ACHIEVE_TASK_DRAFTING")  # task.md is still there


@pytest.mark.parametrize(
    ("setup", "spell_into", "error", "recovery"),
    [
        ("drafting", ("accio", "A1b"), "ERROR_TASK_MISSING", ("R1", "ACHIEVE_TASK_DRAFTING")),
        (
            "executed",
            ("accio", "A2b"),
            "ERROR_TASK_RESULTS_MISSING",
            ("R3", "ACHIEVE_TASK_DRAFTING"),
        ),
        ("editing", ("accio", "G2b"), "ERROR_PLAN_MISSING", ("R4", "GATHER_EDITING")),
        (
            "comments",
            ("accio", "P1b"),
            "ERROR_COMMENTS_MISSING_G",
            ("R5a", "PR_GATHERING_COMMENTS_G"),
        ),
        (
            "review-task",
            ("accio", "P2b"),
            "ERROR_REVIEW_TASK_MISSING_G",
            ("R6a", "PR_REVIEW_TASK_DRAFT_G"),
        ),
        (
            "review-results",
            ("accio", "P3b"),
            "ERROR_REVIEW_TASK_RESULTS_MISSING_G",
            ("R8a", "PR_REVIEW_TASK_DRAFT_G"),
        ),
    ],
)
def test_each_error_state_entered_by_deleting_its_file_and_recovered(
    flow: Workflow, setup: str, spell_into: tuple[str, str], error: str, recovery: tuple[str, str]
) -> None:
    root = Path(flow.workspace.root)
    cast(flow, "accio", "G1", "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=1))
    if setup in ("drafting", "executed"):
        cast(flow, "accio", "G2", "ACHIEVE_TASK_DRAFTING")
    if setup == "executed":
        write(root, "task.md", task("a-step"))
        cast(flow, "accio", "A1", "ACHIEVE_TASK_EXECUTED")
    if setup in ("comments", "review-task", "review-results"):
        cast(flow, "reparo", "G5", "PR_GATHERING_COMMENTS_G")
        write(root, "comments.md", "- a comment\n")
    if setup in ("review-task", "review-results"):
        cast(flow, "accio", "P1", "PR_REVIEW_TASK_DRAFT_G")
    if setup == "review-results":
        cast(flow, "accio", "P2", "PR_APPLIED_PENDING_ARCHIVE_G")
    deleted = {
        "drafting": "task.md",
        "executed": None,  # task-results.md was never written
        "editing": "plan.md",
        "comments": "comments.md",
        "review-task": "review-task.md",
        "review-results": None,
    }[setup]
    if deleted:
        remove(root, deleted)
    cast(flow, spell_into[0], spell_into[1], error)
    cast(flow, "accio", *recovery)
    assert (root / TASK / "state.json").is_file()


def test_responses_are_filled(flow: Workflow) -> None:
    result = flow.cast("lumos")
    assert "{{" not in result.response
    assert "- **Accio**: moves to **GATHER_EDITING**" in result.response


@pytest.mark.parametrize(
    "frontmatter", ["owner: someone", "task_name:", "task_name: '--'", "task_name: ''"]
)
def test_a_task_without_a_usable_task_name_is_not_executed(
    flow: Workflow, frontmatter: str
) -> None:
    """A1 checks the name A2 archives the task under, before the work is done (A1d)."""
    root = Path(flow.workspace.root)
    cast(flow, "accio", "G1", "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=1))
    cast(flow, "accio", "G2", "ACHIEVE_TASK_DRAFTING")
    write(root, "task.md", f"---\n{frontmatter}\n---\n\n# Task\n\nDo the thing.\n")
    result = flow.cast("accio")
    assert (result.rule, result.after) == ("A1d", "ACHIEVE_TASK_DRAFTING")
    assert "task_name" in result.response
    write(root, "task.md", "---\ntask_name: Greet Me\n---\n\n# Task\n\nDo the thing.\n")
    cast(flow, "accio", "A1", "ACHIEVE_TASK_EXECUTED")
    write(root, "task-results.md", "# Results\n")
    result = flow.cast("accio")
    assert (result.rule, result.after) == ("A2", "ACHIEVE_TASK_DRAFTING")
    assert Path(result.archive).name.startswith("task-greet-me-")


def test_a_task_whose_frontmatter_cannot_be_read_stops_the_cast_at_a1(flow: Workflow) -> None:
    from spellbook.records.errors import BadFile

    root = Path(flow.workspace.root)
    cast(flow, "accio", "G1", "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=1))
    cast(flow, "accio", "G2", "ACHIEVE_TASK_DRAFTING")
    write(root, "task.md", "---\ntask_name: [unclosed\n---\n\n# Task\n")
    with pytest.raises(BadFile, match=r"task\.md: its frontmatter is not valid YAML"):
        flow.cast("accio")
    assert flow.state == "ACHIEVE_TASK_DRAFTING"


def test_an_emptied_task_is_not_a_task_done(flow: Workflow) -> None:
    """`task.md is filled in` (A1) means text that is neither blank nor the template."""
    root = Path(flow.workspace.root)
    cast(flow, "accio", "G1", "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=1))
    cast(flow, "accio", "G2", "ACHIEVE_TASK_DRAFTING")
    for text in ("", "\n  \n"):
        write(root, "task.md", text)
        cast(flow, "accio", "A1c", "ACHIEVE_TASK_DRAFTING")
    write(root, "task.md", task("greet"))
    cast(flow, "accio", "A1", "ACHIEVE_TASK_EXECUTED")


def test_a_plan_without_its_criteria_section_is_neither_complete_nor_worked_on(
    flow: Workflow,
) -> None:
    """`No unchecked AC in plan.md` (A3) says the section is there: a plan whose heading
    was renamed has no criteria met, so A3 does not complete the workflow (G3b)."""
    root = Path(flow.workspace.root)
    cast(flow, "accio", "G1", "GATHER_EDITING")
    renamed = plan(checked=1, unchecked=0).replace("## Acceptance Criteria", "## Criteria")
    write(root, "plan.md", renamed)
    cast(flow, "accio", "G3b", "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=1))
    cast(flow, "accio", "G2", "ACHIEVE_TASK_DRAFTING")
    write(root, "plan.md", renamed)
    result = flow.cast("accio")
    assert (result.rule, result.after) == ("G3b", "ACHIEVE_TASK_DRAFTING")
    assert "Acceptance Criteria" in result.response
    write(root, "plan.md", plan(checked=1, unchecked=0))
    cast(flow, "accio", "A3", "ACHIEVE_COMPLETE")
