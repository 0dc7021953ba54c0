"""The GitHub workflow users copy into their repositories (`docs/guide/ci/spellbook.yml`): it
installs Spellbook, verifies, checks freshness and posts the spec diff, editing only its
own comment. Its steps run here as the runner would run them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.test_installed_commands import door_project
from tests.cli.test_project_machines import generate

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW: dict[str, Any] = yaml.safe_load(
    (ROOT / "docs" / "guide" / "ci" / "spellbook.yml").read_text()
)
(JOB,) = WORKFLOW["jobs"].values()
STEPS: dict[str, dict[str, Any]] = {s.get("name", s.get("uses", "")): s for s in JOB["steps"]}


def step(words: str) -> dict[str, Any]:
    (found,) = [s for name, s in STEPS.items() if words in name]
    return found


def test_it_installs_verifies_checks_and_diffs_with_the_installed_commands() -> None:
    text = (ROOT / "docs" / "guide" / "ci" / "spellbook.yml").read_text()
    assert step("Install")["run"] == 'python -m pip install "$SPELLBOOK"'
    assert JOB["env"]["SPELLBOOK"].startswith("spellbook-md[codegen] @ git+https://github.com/")
    assert step("Verify")["run"] == "spellbook-verify --strict"
    assert step("fresh")["run"] == "spellbook-codegen --check"
    assert '--against "$BASE:" --format markdown' in step("spec change")["run"]
    # Nothing of this repository's own CI, and no edit of whatever comment came last.
    for own in (".ci/run", ".venv", "--edit-last", "spec/STATE_MACHINE.md", "python -m codegen"):
        assert own not in text, own
    assert JOB["permissions"] == {"contents": "read", "pull-requests": "write"}


def test_its_placeholders_are_explained_and_it_is_linked() -> None:
    guide = (ROOT / "docs" / "guide" / "ci.md").read_text()
    assert (
        "docs/guide/ci/spellbook.yml" in guide and "OWNER/spellbook" in guide and "`TAG`" in guide
    )
    assert "(docs/guide/ci.md)" in (ROOT / "README.md").read_text()
    assert "rev: main" not in guide and re.search(r"^\s+rev: TAG\b", guide, re.MULTILINE)


def shell(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def runner_env(tmp_path: Path, **more: str) -> dict[str, str]:
    """The runner's environment: the installed commands on PATH, a step summary file."""
    summary = tmp_path / "summary.md"
    summary.touch()
    path = f"{tmp_path / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}"
    return {
        **os.environ,
        "PATH": path + os.environ["PATH"],
        "GITHUB_STEP_SUMMARY": str(summary),
        **{k: v for k, v in JOB["env"].items() if k != "SPELLBOOK"},
        **more,
    }


def test_its_checks_pass_on_a_project_and_its_diff_is_marked(tmp_path: Path) -> None:
    root = door_project(tmp_path)
    shutil.rmtree(root / ".git")
    generate(root)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    subprocess.run([*git, "update-ref", "refs/remotes/origin/main", "HEAD"], check=True)
    env = runner_env(tmp_path, BASE="origin/main")
    for words in ("Verify", "fresh", "spec change"):
        done = shell(step(words)["run"], root, env)
        assert done.returncode == 0, (words, done.stdout, done.stderr)
    posted = (root / "spec-diff.md").read_text()
    assert posted.startswith(JOB["env"]["MARKER"] + "\n# ")
    assert Path(env["GITHUB_STEP_SUMMARY"]).read_text() == posted


FAKE_GH = """#!/bin/sh
# gh as the runner has it: `gh api` answers the pull request's comments (applying --jq
# as gh does) and records every other call.
echo "$@" >> "$CALLS"
if [ "$1 $2" = "api repos/o/r/issues/5/comments" ] && [ "$3" = "--paginate" ]; then
  jq -r "$5" "$COMMENTS"
fi
"""


@pytest.mark.parametrize(
    ("comments", "call"),
    [
        ([], "api --method POST repos/o/r/issues/5/comments -F body=@spec-diff.md"),
        (
            [
                {"id": 3, "user": {"login": "github-actions[bot]"}, "body": "another workflow"},
                {"id": 4, "user": {"login": "someone"}, "body": "<!-- spellbook: spec diff -->"},
                {
                    "id": 7,
                    "user": {"login": "github-actions[bot]"},
                    "body": "<!-- spellbook: spec diff -->\n# old",
                },
            ],
            "api --method PATCH repos/o/r/issues/comments/7 -F body=@spec-diff.md",
        ),
        (
            [
                {
                    "id": 3,
                    "user": {"login": "github-actions[bot]"},
                    "body": "# Spec change, said by another",
                }
            ],
            "api --method POST repos/o/r/issues/5/comments -F body=@spec-diff.md",
        ),
    ],
    ids=["first", "its-own-comment", "another-workflow-s"],
)
def test_it_edits_only_its_own_comment(
    tmp_path: Path, comments: list[dict[str, Any]], call: str
) -> None:
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed: the fake gh applies --jq with it")
    (tmp_path / "bin").mkdir()
    gh = tmp_path / "bin" / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(0o755)
    (tmp_path / "comments.json").write_text(json.dumps(comments))
    env = runner_env(
        tmp_path,
        CALLS=str(tmp_path / "calls"),
        COMMENTS=str(tmp_path / "comments.json"),
        REPO="o/r",
        PR="5",
    )
    done = shell(step("Post")["run"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls[-1] == call and len(calls) == 2, calls


def test_this_repository_s_workflow_posts_its_diff_the_same_way() -> None:
    ours = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    (post,) = [s for s in ours["jobs"]["spec-diff"]["steps"] if "Post" in s.get("name", "")]
    assert post["run"] == step("Post")["run"]
    assert post["env"]["MARKER"] == JOB["env"]["MARKER"]
