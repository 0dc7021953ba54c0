"""The whole workflow, walked through the `spell` command in a git repository as a
developer and an AI would walk it: for every response, each file it says was
created, archived or deleted was (and nothing else changed), and no Next Step
offers a spell that the files as they are would send into an error state."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from spellbook import Workflow

TASK = ".ai/task"
# The runtime's own files, which every cast writes.
OWN = re.compile(r"^\.ai/task/(state\.json|\.state\.lock|\.history/.*|\.intent\.json)$")


def spell(repo: Path, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "spellbook", *args],
        cwd=repo / "src",  # from a subfolder: the workspace is found at the top
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode in (0, 3), result.stderr
    return result.stdout


def snapshot(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file()
        and ".git" not in p.relative_to(repo).parts
        and not OWN.match(str(p.relative_to(repo)))
    }


def paths(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def claimed(response: str) -> tuple[set[str], set[str]]:
    """The files the response says were added and removed."""
    happened = response.split("### What Just Happened\n", 1)[1].split("\n", 1)[0]
    added: set[str] = set()
    removed: set[str] = set()
    for part in happened.split("; "):
        if "created " in part:
            added.update(paths(part.split("created ", 1)[1])[:1])
        for verb in ("archived ", "deleted "):
            if verb in part:
                said = part.split(verb, 1)[1].split(" (", 1)[0]
                *files, folder = paths(said)
                removed.update(files)
                added.update(folder.rstrip("/") + "/" + Path(f).name for f in files)
    return added, removed


def error_state(name: str) -> bool:
    """A state named for a missing file: the spec's error states."""
    return name.startswith("ERROR_")


def offered(response: str) -> list[str]:
    steps = response.split("### Next Steps\n", 1)[1].split("\n###", 1)[0]
    return re.findall(r"^- Cast \*\*(\w+)\*\*", steps, re.MULTILINE)


def test_every_response_says_what_happened_and_offers_no_step_into_an_error(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    task = repo / TASK

    def plan(done: bool) -> None:
        mark = "x" if done else " "
        (task / "plan.md").write_text(
            f"# Plan\n\n## Acceptance Criteria\n\n- [{mark}] greet prints hello\n"
            f"- [{mark}] greet takes a name\n"
        )

    steps = [
        (None, "accio", "GATHER_EDITING"),
        (None, "accio", "GATHER_EDITING"),  # no criterion yet
        (lambda: plan(False), "accio", "ACHIEVE_TASK_DRAFTING"),
        (
            lambda: (task / "task.md").write_text("---\ntask_name: greet-cli\n---\n# Greet\n"),
            "accio",
            "ACHIEVE_TASK_EXECUTED",
        ),
        (None, "lumos", "ACHIEVE_TASK_EXECUTED"),  # task-results.md not written yet
        (
            lambda: (task / "task-results.md").write_text("It greets.\n"),
            "accio",
            "ACHIEVE_TASK_DRAFTING",
        ),
        (None, "reparo", "PR_GATHERING_COMMENTS_A"),
        (
            lambda: (task / "comments.md").write_text("- say hi\n"),
            "accio",
            "PR_REVIEW_TASK_DRAFT_A",
        ),
        (None, "accio", "PR_APPLIED_PENDING_ARCHIVE_A"),
        (None, "reverto", "PR_APPLIED_PENDING_ARCHIVE_A"),  # blocked
        (
            lambda: (task / "review-task-results.md").write_text("Said hi.\n"),
            "accio",
            "ACHIEVE_TASK_DRAFTING",
        ),
        (None, "reparo", "PR_GATHERING_COMMENTS_A"),
        (
            lambda: (task / "comments.md").write_text("- again\n"),
            "reverto",
            "ACHIEVE_TASK_DRAFTING",
        ),
        (None, "reparo", "PR_CONFIRM_RESTART_COMMENTS_A"),
        (None, "reparo", "PR_GATHERING_COMMENTS_A"),  # confirmed: comments.md to the trash
        (None, "reverto", "ACHIEVE_TASK_DRAFTING"),
        (None, "finite", "GATHER_EDITING"),
        (None, "expecto", "GATHER_EDITING"),
        (lambda: plan(True), "accio", "ACHIEVE_TASK_DRAFTING"),
        (None, "accio", "ACHIEVE_COMPLETE"),
        (None, "accio", "ACHIEVE_COMPLETE"),
    ]
    for n, (edit, cast, expected) in enumerate(steps, 1):
        if edit is not None:
            edit()
        before = snapshot(repo)
        response = spell(repo, cast)
        after = snapshot(repo)
        state = Workflow(repo).state
        assert state == expected, f"step {n} ({cast}): {state}\n{response}"
        added = {p for p in after if p not in before}
        removed = {p for p in before if p not in after}
        changed = {p for p in after if p in before and after[p] != before[p]}
        said_added, said_removed = claimed(response)
        replaced = said_added & said_removed  # archived, then made afresh
        said = (said_added - replaced, said_removed - replaced, replaced)
        assert (added, removed, changed) == said, (
            f"step {n} ({cast}) did {added=}, {removed=}, {changed=} and said:\n{response}"
        )
        for offer in offered(response):
            trial = tmp_path / f"trial-{n}-{offer}"
            shutil.copytree(repo, trial, ignore=shutil.ignore_patterns(".git"))
            went = Workflow(trial).cast(offer).after
            assert not error_state(went), f"step {n}: Next Steps offer {offer} into {went}"
    trash = list((task / ".trash").iterdir())
    assert [p.name for p in trash[0].iterdir()] == ["comments.md"]
