"""What a cast tells the developer and the AI is what it did, and what each spell would
do is what its cast would do: the files really created, kept, archived or deleted, and
the folders they really went to."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spellbook import Workflow
from spellbook.cast.responses import fill
from spellbook.records.exits import EXIT_BAD_INPUT
from tests.support.workspaces import TASK, files, history, plan, set_state, task, write


def happened(response: str) -> str:
    """The response's "What Just Happened" section."""
    return response.split("### What Just Happened\n", 1)[1].split("\n###", 1)[0]


def test_a_file_already_there_is_said_to_be_kept_not_created(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_NEEDS_PLAN")  # as R4 leaves it, plan.md back in place
    write(tmp_path, "plan.md", plan())
    before = (tmp_path / TASK / "plan.md").read_bytes()
    said = happened(Workflow(tmp_path).cast("accio").response)  # G1, plan.md already there
    assert "created" not in said
    assert "kept `.ai/task/plan.md` as it is (it already exists)" in said
    assert (tmp_path / TASK / "plan.md").read_bytes() == before


def test_a_delete_names_only_the_files_it_moved_and_where_they_went(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_CONFIRM_RESTART_TASK_G")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "comments.md", "- fix the typo\n")
    write(tmp_path, "review-task.md", "# Review task\n")
    result = Workflow(tmp_path).cast("reparo")
    said = happened(result.response)
    trash = [p for p in (tmp_path / TASK / ".trash").iterdir()]
    assert len(trash) == 1 and sorted(p.name for p in trash[0].iterdir()) == [
        "comments.md",
        "review-task.md",
    ]
    assert (
        "deleted `.ai/task/comments.md` and `.ai/task/review-task.md` into "
        f"`.ai/task/.trash/{trash[0].name}/` (nothing is lost; "
        "`.ai/task/review-task-results.md` was not there)"
    ) in said
    assert "deleted `.ai/task/review-task-results.md`" not in said
    assert "created an empty `.ai/task/comments.md`" in said


def test_what_a_spell_would_archive_names_the_folder_its_cast_makes(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", task("greet-cli"))
    write(tmp_path, "task-results.md", "It greets.\n")
    folder = f"tasks/task-greet-cli-{time.strftime('%Y-%m-%d')}"
    (tmp_path / TASK / folder).mkdir(parents=True)  # taken: the cast would add -2
    flow = Workflow(tmp_path)
    foreseen = flow.status()["spells"]["Accio"]
    assert f"to `.ai/task/{folder}-2/`" in foreseen
    assert "${task_name}" not in foreseen and "${date}" not in foreseen
    result = flow.cast("accio")
    assert result.archive == f".ai/task/{folder}-2/"
    assert f"to `.ai/task/{folder}-2/`" in happened(result.response)


def test_a_cast_that_would_be_refused_is_said_so_and_not_offered(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", task("---"))
    write(tmp_path, "task-results.md", "It greets.\n")
    flow = Workflow(tmp_path)
    foreseen = flow.status()["spells"]["Accio"]
    assert foreseen.startswith("refused now: ")
    assert "task_name '---' cannot name a folder" in foreseen
    before = files(tmp_path)
    response = flow.cast("lumos").response
    assert "- **Accio**: refused now: " in response
    assert "Cast **Accio**" not in response.split("### Next Steps", 1)[1]
    after = files(tmp_path)
    assert {k: v for k, v in after.items() if not k.endswith("state.json")} == {
        k: v for k, v in before.items() if not k.endswith("state.json")
    }


# -- which workspace, and repair without a state file --


def spell_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`spell ARGS` run in `folder`, without --root."""
    return subprocess.run(
        [sys.executable, "-m", "spellbook", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=folder,
    )


def hook(
    event: dict[str, object], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The session's Claude Code hook given `event`, run from `/`; `env` replaces the
    environment (none: this one without CLAUDE_PROJECT_DIR)."""
    import json
    import os

    return subprocess.run(
        [sys.executable, "-m", "spellbook", "session", "check-transition", "--claude-hook"],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=60,
        env=env or {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"},
        cwd="/",
    )


def test_a_subfolder_uses_the_workspace_above_it_and_says_so(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    set_state(tmp_path, "ACHIEVE_COMPLETE")
    deep = tmp_path / "src" / "pkg"
    deep.mkdir(parents=True)
    result = spell_in(deep, "lumos")
    assert result.returncode == 0, result.stderr
    assert "**ACHIEVE_COMPLETE**" in result.stdout
    assert f"using the workspace ../../.ai/task/ ({tmp_path})" in result.stderr
    assert not (tmp_path / "src" / ".ai").exists() and not (deep / ".ai").exists()
    status = spell_in(deep, "status")
    assert f"Workspace: {tmp_path / TASK}/" in status.stdout


def test_a_new_workspace_starts_at_the_top_of_the_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    deep = tmp_path / "src"
    deep.mkdir()
    assert spell_in(deep, "accio").returncode == 0
    assert (tmp_path / TASK / "plan.md").is_file()
    assert not (deep / ".ai").exists()


def test_a_root_that_is_not_there_is_an_error(tmp_path: Path) -> None:
    result = spell_in(tmp_path, "--root", str(tmp_path / "nowhere"), "lumos")
    assert result.returncode == EXIT_BAD_INPUT
    said = f"error: the repository folder {tmp_path / 'nowhere'} does not exist\n"
    assert result.stderr == said
    mcp = spell_in(tmp_path, "--root", str(tmp_path / "nowhere"), "mcp")  # no server started
    assert (mcp.returncode, mcp.stderr) == (EXIT_BAD_INPUT, said)
    assert not (tmp_path / "nowhere").exists()


def test_repair_without_a_state_file_infers_the_state_from_the_files(tmp_path: Path) -> None:
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", task())
    said = Workflow(tmp_path).repair()
    assert said.splitlines()[:2] == [
        "There was no .ai/task/state.json.",
        "Chose ACHIEVE_TASK_DRAFTING: its Indicators match the files: task.md exists, "
        "task-results.md missing.",
    ]
    assert Workflow(tmp_path).state == "ACHIEVE_TASK_DRAFTING"
    assert history(tmp_path)[-1]["trigger"] == "repair"


def test_what_a_missing_file_does_not_say_is_no_evidence_of_a_state(tmp_path: Path) -> None:
    """No plan.md: "plan.md has no unchecked criteria" holds, but says nothing."""
    assert Workflow(tmp_path).repair() == "There is no .ai/task/ here: nothing to repair."
    assert not (tmp_path / ".ai").exists()  # repair makes nothing where there is nothing
    (tmp_path / TASK).mkdir(parents=True)
    (tmp_path / ".claude/progress").mkdir(parents=True)
    said = Workflow(tmp_path).repair()
    assert said == (
        "There is no .ai/task/state.json; the workflow is in GATHER_NEEDS_PLAN (nothing in "
        "the files says the workflow is past it): nothing to repair."
    )
    assert not (tmp_path / TASK / "state.json").exists()
    from spellbook.machines import session_machine

    said = Workflow(tmp_path, session_machine).repair()  # START says nothing of the files
    assert said.endswith(
        "the workflow is in START (nothing in the files says the workflow "
        "is past it): nothing to repair."
    )


# -- small things said wrong --


def test_a_misspelt_spell_or_command_gets_a_did_you_mean(tmp_path: Path) -> None:
    for typo, meant in (("acio", "accio"), ("stauts", "status"), ("diagarm", "diagram")):
        result = spell_in(tmp_path, typo)
        assert result.returncode == EXIT_BAD_INPUT
        assert result.stderr.endswith(f"; did you mean {meant}?\n"), result.stderr
    assert "did you mean" not in spell_in(tmp_path, "xyzzy").stderr
    # `locate` (a spell of another machine) was offered `cast`, which shares three letters
    assert "did you mean" not in spell_in(tmp_path, "locate").stderr


def test_help_lists_every_command_in_the_machines_words(tmp_path: Path) -> None:
    spell_help = spell_in(tmp_path, "--help").stdout
    assert "check-transition FROM TO" in spell_help
    assert "accio, expecto, reparo, reverto, finite, lumos" in spell_help
    session_help = spell_in(tmp_path, "session", "--help").stdout
    assert "advance, finish, restart, check" in session_help
    assert "accio" not in session_help and "unknown trigger" in session_help


def test_a_reason_without_its_subject_reads_as_a_sentence(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_APPLIED_PENDING_ARCHIVE_A")
    response = Workflow(tmp_path).cast("finite").response  # F3: "Must Accio to archive ..."
    assert "cannot be used right now because you must Accio to archive" in response


# -- next steps never lead into an error state without saying what to do first --


def next_steps(response: str) -> str:
    return response.split("### Next Steps\n", 1)[1].split("\n###", 1)[0]


def test_a_step_into_an_error_state_says_which_file_to_write_first(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", task())
    steps = next_steps(Workflow(tmp_path).cast("accio").response)  # A1: now in EXECUTED
    assert (
        "- Once task-results.md exists, cast **Accio**: moves to **ACHIEVE_TASK_DRAFTING** "
        "(now: moves to **ERROR_TASK_RESULTS_MISSING**)"
    ) in steps
    assert "- Cast **Accio**" not in steps
    assert "- Cast **Reparo**: moves to **PR_GATHERING_COMMENTS_A**" in steps  # no detour


def test_a_blocked_spell_is_followed_by_what_unblocks_the_way_on(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_APPLIED_PENDING_ARCHIVE_A")
    write(tmp_path, "plan.md", plan())
    steps = next_steps(Workflow(tmp_path).cast("reverto").response)
    assert steps.startswith(
        "- Once review-task-results.md exists, cast **Accio**: moves to **ACHIEVE_TASK_DRAFTING**"
    )
    assert "ERROR_REVIEW_TASK_RESULTS_MISSING_A**)" in steps  # said as what happens now


def test_the_sessions_first_step_says_to_write_the_feature_list(tmp_path: Path) -> None:
    from spellbook.machines import session_machine

    flow = Workflow(tmp_path, session_machine)
    steps = next_steps(flow.cast("advance").response)  # S1: START -> INIT
    assert steps.startswith(
        "- Once feature-list.json has a pending feature, cast **Advance**: moves to **IMPLEMENT**"
    )
    assert "No trigger moves on" not in steps


def test_a_forward_move_that_needs_no_file_is_offered_as_it_is(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan(unchecked=2))
    write(tmp_path, "task.md", task())
    steps = next_steps(Workflow(tmp_path).cast("lumos").response)
    assert "- Cast **Accio**: moves to **ACHIEVE_TASK_EXECUTED**" in steps
    assert "Once" not in steps  # checking the criteria off is the work, not a first step


def test_the_session_says_its_current_feature_and_attempts(tmp_path: Path) -> None:
    import json

    from spellbook.machines import session_machine

    flow = Workflow(tmp_path, session_machine)
    flow.cast("advance")  # START -> INIT
    features = {"test_command": "true", "features": [{"id": "PT-001", "status": "pending"}]}
    (tmp_path / ".claude/progress/feature-list.json").write_text(json.dumps(features))
    flow.cast("advance")  # INIT -> IMPLEMENT, PT-001 selected
    where = flow.cast("check").response.split("### Where We Are\n", 1)[1].splitlines()[0]
    assert where.startswith("**IMPLEMENT**: ") and "(feature_id: PT-001, " in where
    assert "attempts: 1" in where
    status = spell_in(tmp_path, "session", "status").stdout
    assert "\nfeature_id: PT-001\n" in status and "\nattempts: 1\n" in status


def test_the_verifier_warns_of_advice_that_leads_only_into_an_error_state() -> None:
    from codegen import parse_spec_text
    from codegen.analyse import analyse
    from tests.support.specs import row, spec_text

    text = (
        spec_text(
            ["START", "WORK", "LOST"],
            ["Go", "Fix"],
            [
                row(
                    "T1",
                    "START",
                    "Go",
                    nxt="WORK",
                    action="Update state to WORK",
                    response="Working. If it goes wrong, use Fix.",
                ),
                row("T2", "WORK", "Go", nxt="START", action="Update state to START"),
                row("F1", "WORK", "Fix", "notes.md missing", "LOST", "Update state to LOST"),
                row("F2", "LOST", "Fix", "notes.md exists", "WORK", "Update state to WORK"),
                row("F3", "START, LOST", "Fix", "notes.md missing"),
                row("F4", "START", "Fix", "notes.md exists"),
                row("G1", "LOST", "Go", nxt="START", action="Update state to START"),
            ],
        )
        .replace(
            "    - *Description*: the LOST state\n    - *Indicators*: none",
            "    - *Description*: the LOST state\n    - *Indicators*: notes.md doesn't exist",
        )
        .replace(
            "    - *Description*: the WORK state\n    - *Indicators*: none",
            "    - *Description*: the WORK state\n    - *Indicators*: notes.md exists",
        )
    )
    found = [f for f in analyse(parse_spec_text(text)) if f.kind == "misleading_advice"]
    assert [f.message for f in found] == [
        "rule T1's Response names Fix, which only moves into LOST in WORK (rule F1), where "
        "the rule leaves the workflow: say what to do instead"
    ]


def test_a_confirmation_offers_to_continue_and_every_response_names_the_files(
    tmp_path: Path,
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", task())
    write(tmp_path, "review-task.md", "# Review task\n")
    response = Workflow(tmp_path).cast("reparo").response  # PR4: confirm a restart
    choices = response.split("### Available Choices\n", 1)[1].split("\n\n", 1)[0]
    assert choices.splitlines()[2] == "- **Accio**: moves to **PR_REVIEW_TASK_DRAFT_A**"
    where = response.split("### Where We Are\n", 1)[1].split("\n\n", 1)[0]
    assert where.splitlines()[1] == (
        "Files there: `.ai/task/plan.md`, `.ai/task/review-task.md`, `.ai/task/task.md`; "
        "not there: `.ai/task/comments.md`, `.ai/task/review-task-results.md`, "
        "`.ai/task/task-results.md`."
    )
    status = spell_in(tmp_path, "status").stdout
    assert "\nFiles there: plan.md, review-task.md, task.md; not there: comments.md, " in status


def test_a_file_left_as_its_template_is_no_work_done(tmp_path: Path) -> None:
    flow = Workflow(tmp_path)
    flow.cast("accio")  # G1: plan.md from its template, whose example criteria do not count
    assert flow.cast("accio").rule == "G3"  # "add at least one criterion"
    write(tmp_path, "plan.md", plan())
    assert flow.cast("accio").after == "ACHIEVE_TASK_DRAFTING"  # G2: task.md from its template
    template = (tmp_path / TASK / "task.md").read_text(encoding="utf-8")
    untouched = flow.cast("accio")
    assert (untouched.rule, untouched.after) == ("A1c", "ACHIEVE_TASK_DRAFTING")
    assert "task.md is still the template" in untouched.response
    (tmp_path / TASK / "task.md").write_text("\n  " + template.replace("\n", "\n\n"))
    assert flow.cast("accio").rule == "A1c"  # whitespace aside, still the template
    write(tmp_path, "task.md", task("greet-cli"))
    assert flow.cast("accio").after == "ACHIEVE_TASK_EXECUTED"


def test_expecto_before_there_is_a_plan_says_there_is_none(tmp_path: Path) -> None:
    result = Workflow(tmp_path).cast("expecto")
    assert result.rule == "GN4" and "no Atlassian URLs found" not in result.response.lower()
    assert "There is no plan.md to enrich yet" in result.response


def test_a_session_that_blocked_a_feature_does_not_say_all_were_tested(tmp_path: Path) -> None:
    import json

    from spellbook.machines import session_machine

    flow = Workflow(tmp_path, session_machine)
    flow.cast("advance")  # INIT
    features = {"test_command": "false", "features": [{"id": "PT-001", "status": "pending"}]}
    (tmp_path / ".claude/progress/feature-list.json").write_text(json.dumps(features))
    result = flow.cast("advance")  # IMPLEMENT
    for _ in range(10):
        if result.after == "COMPLETE":
            break
        result = flow.cast("advance")  # TEST, then back to IMPLEMENT until attempts run out
    assert (result.rule, result.after) == ("R3", "COMPLETE")
    listed = json.loads((tmp_path / ".claude/progress/feature-list.json").read_text())
    assert listed["features"][0]["status"] == "blocked"
    assert "All features tested" not in result.response
    assert "No feature is left pending (each is tested or blocked)" in result.response


def test_a_missing_state_file_never_starts_over_past_the_initial_state(tmp_path: Path) -> None:
    from spellbook.records.errors import StateFileError

    write(tmp_path, "plan.md", plan(unchecked=0, checked=0))  # a plan with no criteria yet
    write(tmp_path, "comments.md", "- a review comment\n")
    before = files(tmp_path)
    result = spell_in(tmp_path, "lumos")
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stderr == (
        "error: .ai/task/state.json is missing, but the files say the workflow is past "
        "GATHER_NEEDS_PLAN (plan.md exists); run `spell repair` to choose the state from "
        "the files\n"
    )
    assert files(tmp_path) == before  # nothing written, not even a state file
    import pytest

    with pytest.raises(StateFileError):
        Workflow(tmp_path).status()
    said = Workflow(tmp_path).repair().splitlines()
    assert said[1].startswith("Chose GATHER_EDITING: ")  # not ACHIEVE_COMPLETE: no criteria
    assert said[2] == (
        "Also there, which GATHER_EDITING's Indicators do not speak of: .ai/task/comments.md."
    )
    assert spell_in(tmp_path, "lumos").returncode == 0


def test_a_refused_way_on_is_a_next_step_once_it_is_put_right(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", task("---"))
    write(tmp_path, "task-results.md", "It greets.\n")
    steps = next_steps(Workflow(tmp_path).cast("lumos").response)
    assert steps.startswith(
        "- Once this is put right, cast **Accio** (moves to **ACHIEVE_TASK_DRAFTING**): "
        ".ai/task/task.md: task_name '---' cannot name a folder"
    )


# -- found by attacking the above --


def test_frontmatter_nested_thousands_deep_is_refused_not_a_crash(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", "---\ntask_name: " + "[" * 30000 + "]" * 30000 + "\n---\n")
    write(tmp_path, "task-results.md", "r\n")
    status = spell_in(tmp_path, "status")
    assert status.returncode == 0 and "its frontmatter is nested too deeply" in status.stdout
    cast = spell_in(tmp_path, "accio")
    assert cast.returncode == EXIT_BAD_INPUT
    assert "its frontmatter is nested too deeply (no file or state was changed;" in cast.stderr


def test_the_hook_judges_the_repository_of_the_file_written(tmp_path: Path) -> None:
    import os

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".claude/progress").mkdir(parents=True)
    (tmp_path / "packages/foo").mkdir(parents=True)
    state = str(tmp_path / ".claude/progress/state.json")
    for cwd, project in ((tmp_path / "packages/foo", tmp_path / "packages/foo"), ("/", None)):
        event = {
            "tool_name": "Write",
            "tool_input": {"file_path": state, "content": '{"state": "COMPLETE"}'},
            "cwd": str(cwd),
        }
        env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
        if project:
            env["CLAUDE_PROJECT_DIR"] = str(project)  # Claude Code started in a subfolder
        done = hook(event, env)
        assert done.returncode == 2 and "START → COMPLETE refused" in done.stderr, done.stderr


def test_a_workspace_is_never_found_outside_the_repository(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_COMPLETE")  # a workspace above the repository
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    result = spell_in(repo / "src", "lumos")
    assert "**GATHER_NEEDS_PLAN**" in result.stdout
    assert (repo / TASK / "state.json").exists()  # its own, at its top


def test_repair_where_there_is_no_workspace_makes_none(tmp_path: Path) -> None:
    assert spell_in(tmp_path, "repair").stdout == "There is no .ai/task/ here: nothing to repair.\n"
    assert list(tmp_path.iterdir()) == []


def test_a_template_saved_with_a_byte_order_mark_is_still_the_template(tmp_path: Path) -> None:
    from tests.support.worlds import shipped_template

    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", "\ufeff" + shipped_template("task.md"))
    assert Workflow(tmp_path).cast("accio").rule == "A1c"


def test_archiving_nothing_makes_no_folder(tmp_path: Path) -> None:
    set_state(tmp_path, "ERROR_TASK_RESULTS_MISSING")
    write(tmp_path, "plan.md", plan())
    result = Workflow(tmp_path).cast("accio")  # R3: archive task.md, which is not there
    assert result.rule == "R3" and result.archive == ""
    assert "nothing to archive: `.ai/task/task.md` was not there" in happened(result.response)
    assert not (tmp_path / TASK / "incomplete-task").exists()


@pytest.mark.parametrize("number", ["1e999", "-1e999", "NaN", "Infinity", "-Infinity"])
def test_a_number_json_cannot_hold_is_an_error_and_repair_drops_it(
    tmp_path: Path, number: str
) -> None:
    state = tmp_path / TASK / "state.json"
    state.parent.mkdir(parents=True)
    state.write_text(
        f'{{"current_state": "GATHER_NEEDS_PLAN",\n "history": [{{"x": {number}}}, {{"y": 1}}]}}'
    )
    result = spell_in(tmp_path, "lumos")
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stderr == (
        f"error: .ai/task/state.json:2: {number} is a number JSON cannot hold (too large, "
        "NaN or Infinity); run `spell repair`\n"
    )
    Workflow(tmp_path).repair()
    assert history(tmp_path)[0] == {"y": 1}  # the entry that can be written is kept
    assert spell_in(tmp_path, "lumos").returncode == 0


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("123", "task-123-"),
        ("2024-01-01", "task-2024-01-01-"),
        ("yes", "refused now: .ai/task/task.md: task_name is read by YAML as true, not a name"),
        ("", "refused now: .ai/task/task.md has an empty task_name in its frontmatter"),
    ],
)
def test_a_task_name_yaml_reads_as_another_type_is_said_as_written(
    tmp_path: Path, written: str, said: str
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", f"---\ntask_name: {written}\n---\n\n# Task\n")
    write(tmp_path, "task-results.md", "r\n")
    assert said in Workflow(tmp_path).status()["spells"]["Accio"]


def test_a_file_loaded_for_the_ai_is_named_where_it_is_after_the_cast(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", task("greet"))
    write(tmp_path, "task-results.md", "It greets.\n")
    result = Workflow(tmp_path).cast("accio")  # A2: archives, then loads task-results.md
    assert f"Content of `{result.archive}task-results.md`:" in result.response
    assert (tmp_path / result.archive / "task-results.md").is_file()


def test_no_folder_planted_on_the_way_hides_the_workspace_from_the_hook(tmp_path: Path) -> None:
    """A `.git` folder or a second workspace written inside `.claude/`, a new workspace
    in a subfolder, a path starting with ~: each was a way round the hook."""
    from spellbook.machines import session_machine

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    Workflow(tmp_path, session_machine).cast("advance")  # START -> INIT
    state = tmp_path / ".claude/progress/state.json"
    skipped = state.read_text().replace('"INIT"', '"COMPLETE"', 1)
    assert skipped != state.read_text()

    def write(path: Path | str, content: str) -> int:
        event = {"tool_name": "Write", "tool_input": {"file_path": str(path), "content": content}}
        return hook(event).returncode

    assert write(tmp_path / ".claude/.git/HEAD", "ref: x\n") == 2  # git's own folder, anywhere
    (tmp_path / ".claude/.git").mkdir()  # planted another way (a shell command)
    (tmp_path / ".claude/.git/HEAD").write_text("ref: x\n")
    (tmp_path / ".claude/.claude/progress").mkdir(parents=True)
    assert write(state, skipped) == 2
    assert write(tmp_path / ".claude/progress/.intent.json", "{}") == 2
    assert write(tmp_path / "src/.claude/progress/state.json", '{"state": "COMPLETE"}') == 2
    assert write("~/.claude/progress/state.json", skipped) == 2  # a ~ the hook cannot resolve


def test_a_workspace_above_that_another_user_owns_is_not_used(tmp_path: Path) -> None:
    import os

    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("needs to give a folder to another user")
    set_state(tmp_path, "ACHIEVE_COMPLETE")
    for folder in (tmp_path / ".ai", tmp_path / TASK):
        os.chown(folder, 65534, 65534)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").write_text("gitdir: /nonexistent\n")  # a .git file: not a repository's top
    result = spell_in(project, "status")
    assert (
        result.stdout.startswith("GATHER_NEEDS_PLAN") and "using the workspace" not in result.stderr
    )


@given(
    st.lists(
        st.tuples(
            st.text("abnoyestrulfxAY_0-19", min_size=1, max_size=8),
            st.text("abnoyestrulfx019-", min_size=1, max_size=10),
            st.sampled_from([": ", ":  ", ":", ": \t"]),
            st.sampled_from(["", " ", "\t"]),
        ),
        max_size=5,
    )
)
def test_frontmatter_read_without_pyyaml_is_what_pyyaml_reads(
    lines: list[tuple[str, str, str, str]],
) -> None:
    import yaml

    from spellbook.facts.frontmatter import _plain

    block = "\n".join(f"{key}{sep}{value}{end}" for key, value, sep, end in lines)
    plain = _plain(block)
    if plain is None:
        return
    read = yaml.load(block, Loader=yaml.SafeLoader)
    assert {str(k): v for k, v in read.items()} == plain


def test_a_hard_link_inside_another_workspace_is_judged_as_the_file_it_is(
    tmp_path: Path,
) -> None:
    import os

    from spellbook.machines import session_machine

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    Workflow(tmp_path, session_machine).cast("advance")  # START -> INIT
    other = tmp_path / "x/.claude/progress"
    other.mkdir(parents=True)
    os.link(tmp_path / ".claude/progress/state.json", other / "hl.json")
    event = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(other / "hl.json"), "content": '{"state": "COMPLETE"}'},
        "cwd": str(tmp_path),
    }
    assert hook(event).returncode == 2


# Placeholder filling, against the definition it implements.
# The definition: `{{name}}` or `{{name:arg}}`, replaced when its key is known;
# spaces around the name and the argument are no part of them (`{{ content: a.md }}`).
PATTERN = r"\{\{\s*(\w+)\s*(?::\s*([^{}]*?)\s*)?\}\}"
KEYS = ["next_steps", "does:Accio", "content:plan.md", "x"]


def by_pattern(text: str, values: dict[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        key = m.group(1) + (":" + m.group(2) if m.group(2) is not None else "")
        return values.get(key, m.group(0))

    return re.sub(PATTERN, value, text)


pieces = st.sampled_from(["{{", "}}", "{", "}", ":", "a", " ", "\n", *KEYS])


@given(
    st.lists(pieces, max_size=30).map("".join),
    st.dictionaries(st.sampled_from(KEYS), st.text(max_size=5)),
)
def test_fill_replaces_exactly_the_known_placeholders(text: str, values: dict[str, str]) -> None:
    assert fill(text, values) == by_pattern(text, values)


def test_fill_leaves_unknown_placeholders_and_does_not_refill_values() -> None:
    values = {"x": "{{next_steps}}", "next_steps": "NEXT"}
    assert fill("a {{x}} b {{y}} {{next_steps}}", values) == "a {{next_steps}} b {{y}} NEXT"


def test_a_brace_before_a_placeholder_stays_a_brace() -> None:
    assert fill("{{{next_steps}}", {"next_steps": ""}) == "{"
    assert fill("a {{{{x}} b", {"x": "X"}) == "a {{X b"


def test_a_file_loaded_after_the_cast_archived_it_is_named_where_it_now_is(
    tmp_path: Path,
) -> None:
    # A2 archives task.md and task-results.md, then loads task-results.md: the
    # developer is told it was loaded from the archive, not from where it no longer is.
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", task("greet"))
    write(tmp_path, "task-results.md", "It prints hello.\n")
    result = Workflow(tmp_path).cast("accio")
    assert result.rule == "A2"
    folder = result.archive.rstrip("/")
    assert folder.startswith(".ai/task/tasks/task-greet-")
    moved = f"`{folder}/task-results.md`"
    assert f"; loaded {moved} for the AI;" in result.response
    assert "loaded `.ai/task/task-results.md`" not in result.response
    assert f"Content of {moved}:" in result.response


def test_a_reason_with_its_own_because_follows_the_template_s_because_once(
    tmp_path: Path,
) -> None:
    # AB3's reason says "... only allowed in GATHER states because it enriches ...";
    # the blocked template says "cannot be used right now because <reason>".
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan())
    result = Workflow(tmp_path).cast("expecto")
    assert result.outcome == "blocked"
    told = result.response.split("## Response to the Developer", 1)[1]
    assert "because Expecto is only allowed in GATHER states, as it enriches" in told
    assert not re.search(r"because[^.]*because", told), told


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        ("X is only for Y because Z. Do W.", "because X is only for Y, as Z. Do W."),
        ("Not now, because plan.md is missing", "because Not now, as plan.md is missing"),
        ("Use e.g. Accio because X", "because Use e.g. Accio, as X"),
        ("because plan.md is missing", "because plan.md is missing"),
        ("plan.md is missing", "because plan.md is missing"),
    ],
)
def test_a_reason_after_the_template_s_because_says_because_once(reason: str, said: str) -> None:
    from spellbook.cast.responses import compose

    assert compose(["cannot be used because ", "happened", "."], {"happened": reason}) == (
        f"cannot be used {said}.\n"
    )


def test_next_steps_say_what_must_keep_holding_so_following_them_is_not_refused(
    tmp_path: Path,
) -> None:
    """A task.md still its template has a task_name: the step says to fill it in keeping
    that, since a task.md filled in without one is refused; done so, the cast moves on."""
    from tests.support.worlds import shipped_template

    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan())
    write(tmp_path, "task.md", shipped_template("task.md"))
    steps = next_steps(Workflow(tmp_path).cast("accio").response)
    assert (
        "Once task.md is filled in (keeping: task.md frontmatter has `task_name` matching" in steps
    ), steps
    write(tmp_path, "task.md", "# Task\n\nPrint hello.\n")  # filled in, the name dropped
    assert Workflow(tmp_path).cast("accio").rule != "A1"
    write(tmp_path, "task.md", "---\ntask_name: greet\n---\n\n# Task\n\nPrint hello.\n")
    assert Workflow(tmp_path).cast("accio").rule == "A1"


# A newcomer's spec: its triggers under `### Events`, tables as people write them (no
# ID and no Response column), no Response Format Templates.
EVENTS_SPEC = """# Fulfil

## Machine

### Events

1. **Pick**
   - *Description*: pick the order
2. **Ship**
   - *Description*: ship it

### States

1. **RECEIVED**
   - *Description*: the order came in
   - *Indicators*: none
   - *Valid Actions*: Pick
2. **PICKED**
   - *Description*: picked
   - *Indicators*: none
   - *Valid Actions*: Ship

### Transitions

| From | Event | To |
|------|-------|----|
| RECEIVED | Pick | PICKED |
| PICKED | Ship | RECEIVED |

### Invalid transitions

| From | Event | To |
|------|-------|----|
| RECEIVED | Ship | RECEIVED |
| PICKED | Pick | PICKED |
"""


def events_machine() -> object:
    import types

    from codegen import parse_spec_text
    from codegen.render import render_machine

    module = types.ModuleType("fulfil")
    source = render_machine(parse_spec_text(EVENTS_SPEC), "fulfil")
    exec(compile(source, "fulfil.py", "exec"), module.__dict__)
    assert module.SPELL_WORD == "event"
    return module


def test_the_built_in_responses_call_the_spells_what_the_spec_calls_them(
    tmp_path: Path,
) -> None:
    flow = Workflow(tmp_path, machine=events_machine())  # type: ignore[arg-type]
    moved = flow.cast("pick").response
    assert "### Available Events\n- **Pick**: " in moved
    assert "Spell" not in moved and "cast" not in moved.lower()
    assert (
        happened(moved).strip()
        == "You sent **Pick**. The workflow moved from **RECEIVED** to **PICKED**."
    )
    assert next_steps(moved).strip() == "- Send **Ship**: moves to **RECEIVED**"


def test_a_refusal_with_no_response_says_it_is_blocked_by_which_rule(tmp_path: Path) -> None:
    flow = Workflow(tmp_path, machine=events_machine())  # type: ignore[arg-type]
    refused = flow.cast("ship")
    assert refused.outcome == "blocked" and refused.rule == "R3"
    text = refused.response
    assert happened(text).strip() == (
        "You sent **Ship**, which is blocked in **RECEIVED** (rule R3). "
        "Nothing changed: what each event would do now is below."
    )
    ai = text.split("## Response to the AI\n\n", 1)[1].split("\n\n", 1)[0]
    assert ai == (
        "Ship is blocked in RECEIVED (rule R3): nothing changed. Tell the developer, and "
        "suggest one of the events that do something now."
    )
    assert "fired" not in text and "the spec says so" not in text
    assert next_steps(text).strip() == "- Send **Pick**: moves to **PICKED**"


def test_a_refusal_whose_reason_says_what_to_do_reads_as_a_sentence(tmp_path: Path) -> None:
    # "blocked in RECEIVED (rule R3) because fill in the pick list first" read as no sentence
    import types

    from codegen import parse_spec_text
    from codegen.render import render_machine

    text = EVENTS_SPEC.replace(
        "| From | Event | To |\n|------|-------|----|\n| RECEIVED | Ship | RECEIVED |\n"
        "| PICKED | Pick | PICKED |",
        "| From | Event | To | Why Blocked |\n|---|---|---|---|\n"
        "| RECEIVED | Ship | RECEIVED | Fill in the pick list first. |\n"
        "| PICKED | Pick | PICKED | Already picked. |",
    )
    module = types.ModuleType("fulfil")
    exec(
        compile(render_machine(parse_spec_text(text), "fulfil"), "fulfil.py", "exec"),
        module.__dict__,
    )
    flow = Workflow(tmp_path, machine=module)  # type: ignore[arg-type]
    said = happened(flow.cast("ship").response).strip()
    assert "(rule R3) because you need to fill in the pick list first. Nothing changed" in said
    flow.cast("pick")
    said = happened(flow.cast("pick").response).strip()
    assert "because you are already picked. Nothing changed" in said


def test_a_machine_s_word_is_said_with_its_article_plural_and_verb() -> None:
    from spellbook.records import words

    assert [words.a(w) for w in ("spell", "event", "action", "trigger")] == [
        "a spell",
        "an event",
        "an action",
        "a trigger",
    ]
    assert [words.counted(n, "spell") for n in (0, 1, 2)] == ["0 spells", "1 spell", "2 spells"]
    said = [(words.verb(w), words.does(w), words.did(w)) for w in ("spell", "event", "action")]
    assert said == [("cast", "casts", "cast"), ("send", "sends", "sent"), ("use", "uses", "used")]


def test_help_says_the_machine_s_word_with_its_article_and_verb() -> None:
    from spellbook.doors.cli import epilog

    said = epilog(events_machine(), "spell")  # type: ignore[arg-type]
    assert "EVENT      send it (case does not matter): pick, ship" in said
    assert "`spell cast status` sends an event named Status" in said
    assert "a event" not in said


NOTES = """# Notes

### Spells

1. **Check**
2. **Look**

### States

1. **OPEN**
    - *Description*: notes are kept
    - *Indicators*: `notes.md` exists
    - *Valid Actions*: Check, Look

### State Persistence

The state is kept in `.w/state.json`.

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| C1 | OPEN | Check | - | Same state | Append "- done" to notes.md | Not yet:{{content:notes.md}} |
| L1 | OPEN | Look | - | Same state | Load `notes.md` content |{{content:notes.md}}{{content:x.md}}|
"""


def _notes_machine(tmp_path: Path) -> Workflow:
    from types import ModuleType

    from codegen.pipeline import parse_spec_text
    from codegen.render import render_machine

    module = ModuleType("notes")
    spec = parse_spec_text(NOTES, "spec.md")
    exec(compile(render_machine(spec, "notes"), "notes.py", "exec"), module.__dict__)
    (tmp_path / ".w").mkdir()
    (tmp_path / ".w" / "notes.md").write_text("# Notes\n\n- started\n")
    return Workflow(tmp_path, machine=module)  # type: ignore[arg-type]


def test_a_response_asking_for_a_file_s_content_is_given_it_with_no_load_action(
    tmp_path: Path,
) -> None:
    # C1 loads nothing: the file is shown as the cast left it, never `{{content:...}}`.
    result = _notes_machine(tmp_path).cast("check")
    assert result.rule == "C1", result
    assert "{{content:" not in result.response, result.response
    assert "Not yet:\n\n```markdown\n# Notes\n\n- started\n- done\n```\n" in result.response


def test_a_file_loaded_and_asked_for_in_the_response_is_shown_once(tmp_path: Path) -> None:
    result = _notes_machine(tmp_path).cast("look")
    assert result.response.count("- started") == 1, result.response
    assert "Content of" not in result.response
    assert "_(the file is not there)_" in result.response  # x.md: said, not left


# A fault is fixed once the fix and its report are written; two failed checks send
# it back to triage (C3): where the tries run out, not a step to aim for.
RETRIES = """# Fix

State is kept in `.f/state.json`.

| ID | Current State | Event | Condition | Next State | Action | Response |
|----|---|---|---|---|---|---|
| O1 | TRIAGE | Open | - | FIXING | Reset attempts | Fixing. |
| O2 | FIXING, FIXED | Open | - | [BLOCKED] | - | Open already. |
| C1 | FIXING | Check | {fixed} | FIXED | - | Fixed. |
| C2 | FIXING | Check | NOT ({fixed}) AND attempts < 2 | Same state | Increment attempts | No. |
| C3 | FIXING | Check | NOT ({fixed}) AND attempts ≥ 2 | TRIAGE | - | Back to triage. |
| C4 | TRIAGE | Check | - | [BLOCKED] | - | Nothing to check. |
| F1 | FIXED | Open, Check | - | [BLOCKED] | - | Done. |
"""


def _retries(tmp_path: Path, fixed: str) -> Workflow:
    from types import ModuleType

    from codegen.pipeline import parse_spec_text
    from codegen.render import render_machine

    module = ModuleType("fix")
    spec = parse_spec_text(RETRIES.replace("{fixed}", fixed), "spec.md")
    exec(compile(render_machine(spec, "fix"), "fix.py", "exec"), module.__dict__)
    (tmp_path / ".f").mkdir()
    flow = Workflow(tmp_path, machine=module)  # type: ignore[arg-type]
    assert flow.cast("open").rule == "O1"
    return flow


def test_a_limit_of_tries_is_no_step_to_aim_for(tmp_path: Path) -> None:
    """Next Steps tell the way on that takes work (the fix and its report written)
    before the one a counter reaching its limit takes, however few facts that needs."""
    steps = next_steps(
        _retries(tmp_path, "fix.md exists AND report.md exists").cast("check").response
    )
    assert steps.startswith(
        "- Once fix.md exists and report.md exists, send **Check**: moves to **FIXED**"
    ), steps
    assert "TRIAGE" not in steps, steps


def test_a_limit_of_tries_is_told_last_as_what_happens_then(tmp_path: Path) -> None:
    """Where only the counter's limit moves the spell on (the other way asks a file to be
    deleted, which advice never does), it is told after the steps, as what happens
    once the counter reaches it, not as a step."""
    flow = _retries(tmp_path, "draft.md missing")
    (tmp_path / ".f" / "draft.md").write_text("draft\n")
    steps = next_steps(flow.cast("check").response)
    assert steps.splitlines()[-1] == (
        "- **Check** moves to **TRIAGE** only when attempts ≥ 2 (now: adds one to attempts)"
    ), steps
    assert "Once attempts" not in steps, steps


def test_a_placeholder_written_with_spaces_is_filled_as_without() -> None:
    # `{{ available_spells }}` was printed as written, and `{{content: draft.md}}` looked
    # for a file named " draft.md", saying it was not there
    from spellbook.cast.responses import asked, fill

    values = {"available_spells": "LIST", "content:draft.md": "TEXT"}
    text = "{{ available_spells }}, {{content: draft.md}}, {{ content : draft.md }}"
    assert fill(text, values) == "LIST, TEXT, TEXT"
    assert asked(text, "content") == ["draft.md", "draft.md"]


@pytest.mark.parametrize(
    ("name", "language"),
    [
        ("scorecard.json", "json"),
        ("notes.md", "markdown"),
        ("ci.yml", "yaml"),
        ("NOTES", "markdown"),
    ],
)
def test_a_file_s_content_is_fenced_in_its_own_language(name: str, language: str) -> None:
    # A JSON file shown in a ```markdown fence is taken for markdown by a reader or an AI.
    from spellbook.cast.responses import fenced

    assert fenced('{"stage": "offer"}', name) == f'```{language}\n{{"stage": "offer"}}\n```'


def test_a_file_of_the_repository_s_top_is_named_from_the_top_in_files_there() -> None:
    """`/README.md` (a fact's file named from the repository's top) was `.tix//README.md`
    under "Files there" of every response, a path that is not there."""
    from spellbook.cast.preview import files_said

    said = files_said(
        ["/README.md", "task.md", "/docs/a.md"],
        {"/README.md": True, "task.md": True, "/docs/a.md": False},
        ".tix",
    )
    assert said == "Files there: `README.md`, `.tix/task.md`; not there: `docs/a.md`."
    assert files_said(["/README.md"], {"/README.md": False}, "") == (
        "Files there: none; not there: `README.md`."
    )
