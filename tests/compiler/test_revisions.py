"""The older spec `--against` reads from git: only from the repository the command runs
in, running no program the repository's content names, and never a file mistaken for a
revision (or a revision for a file)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import git_traps
from tests.support.specs import renamed

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "spec" / "STATE_MACHINE.md").read_text(encoding="utf-8")
SPEC = "spec/STATE_MACHINE.md"
VERIFY = [sys.executable, str(ROOT / "verify-state-machine.py")]
WORKFLOW = ("--vocabulary", "spell_workflow")
RENAME = "renamed ERROR_PLAN_MISSING → ERROR_NO_PLAN (NO migration)"


def against(repository: Path, where: str, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*VERIFY, "--spec", SPEC, *WORKFLOW, "--against", where, *more],
        cwd=repository,
        env=git_traps.environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _renamed_since_origin(repository: Path) -> str:
    """A repository whose spec renames a state (no migration) since `origin/main`; the
    commit `origin/main` is."""
    git_traps.init(repository)
    (repository / "spec").mkdir()
    (repository / SPEC).write_text(TEXT, encoding="utf-8")
    commit = git_traps.commit_all(repository, "spec")
    subprocess.run(
        ["git", "-C", str(repository), "update-ref", "refs/remotes/origin/main", commit],
        check=True,
    )
    changed = renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", migration=False)
    (repository / SPEC).write_text(changed, encoding="utf-8")
    return commit


def test_a_spec_folder_made_to_look_like_a_repository_runs_none_of_its_programs(
    tmp_path: Path,
) -> None:
    repository, marks = tmp_path / "repo", tmp_path / "marks"
    commit = _renamed_since_origin(repository)
    git_traps.plant_lookalike(repository / "spec", marks)
    git_traps.commit_all(repository, "a pull request's files")

    done = against(repository, "origin/main:")

    assert git_traps.ran(marks) == []
    assert done.returncode == 1, done.stderr
    assert f"against {SPEC} at origin/main (commit {commit[:12]}):" in done.stdout
    assert RENAME in done.stdout


def test_the_repository_s_own_command_settings_are_off(tmp_path: Path) -> None:
    repository, marks = tmp_path / "repo", tmp_path / "marks"
    _renamed_since_origin(repository)
    git_traps.plant_in_config(repository, marks)

    done = against(repository, "origin/main:")

    assert git_traps.ran(marks) == []
    assert done.returncode == 1, done.stderr
    assert RENAME in done.stdout


def test_an_object_a_partial_clone_would_fetch_is_not_fetched(tmp_path: Path) -> None:
    repository, marks = tmp_path / "repo", tmp_path / "marks"
    commit = _renamed_since_origin(repository)
    git_traps.plant_in_config(repository, marks)
    blob = subprocess.run(
        ["git", "-C", str(repository), "rev-parse", f"{commit}:{SPEC}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (repository / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    with (repository / ".git" / "config").open("a", encoding="utf-8") as f:
        f.write("[extensions]\n\tpartialClone = origin\n")
        f.write(f'[remote "origin"]\n\turl = {marks / "nowhere"}\n\tpromisor = true\n')
        f.write('[protocol "file"]\n\tallow = always\n')  # above `protocol.allow=never`
    subprocess.run(
        ["git", "-C", str(repository), "config", "core.repositoryformatversion", "1"], check=True
    )

    done = against(repository, "origin/main:")

    assert git_traps.ran(marks) == []
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"error: {SPEC} at origin/main (commit {commit[:12]}): git cannot show it ("
    ), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("where", ["origin/main:", f"origin/main:{SPEC}"])
def test_a_file_named_like_the_revision_is_refused_not_read(tmp_path: Path, where: str) -> None:
    repository = tmp_path / "repo"
    _renamed_since_origin(repository)
    decoy = repository / where
    decoy.parent.mkdir(parents=True, exist_ok=True)
    decoy.write_bytes((repository / SPEC).read_bytes())  # "no behaviour change"
    git_traps.commit_all(repository, "a pull request's files")

    done = against(repository, where)

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"error: {where}: both a file and a revision"), done.stderr
    assert f"write ./{where} for the file" in done.stderr


def test_a_file_is_read_as_a_file_when_written_so(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    _renamed_since_origin(repository)
    decoy = repository / "origin" / "main:"
    decoy.parent.mkdir(parents=True)
    decoy.write_bytes((repository / SPEC).read_bytes())

    done = against(repository, "./origin/main:")

    assert done.returncode == 0, done.stderr
    assert "against ./origin/main::" in done.stdout and "no behaviour change" in done.stdout


def test_a_spec_outside_the_repository_the_command_runs_in_is_named(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    _renamed_since_origin(repository)
    elsewhere = tmp_path / "elsewhere"
    git_traps.init(elsewhere)
    (elsewhere / "x.md").write_text("x", encoding="utf-8")
    git_traps.commit_all(elsewhere)

    done = subprocess.run(
        [*VERIFY, "--spec", str(repository / SPEC), "--against", "HEAD:", *WORKFLOW],
        cwd=elsewhere,
        env=git_traps.environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 2
    assert done.stderr == (
        f"error: HEAD:: {repository / SPEC} is not in the repository the command runs in "
        f"({elsewhere}); run it there, or name the file as REV:PATH\n"
    )


def test_a_spec_made_a_link_is_compared_by_its_own_name(tmp_path: Path) -> None:
    """A pull request that makes the spec a link to another spec is compared with the
    spec of that name at the revision, never with the file the link points to."""
    repository = tmp_path / "repo"
    _renamed_since_origin(repository)
    other = repository / "spec" / "OTHER.md"
    other.write_bytes((repository / SPEC).read_bytes())  # the renamed spec
    (repository / SPEC).write_text(TEXT, encoding="utf-8")
    git_traps.commit_all(repository, "another spec")
    subprocess.run(
        ["git", "-C", str(repository), "update-ref", "refs/remotes/origin/main", "HEAD"],
        check=True,
    )
    (repository / SPEC).unlink()
    (repository / SPEC).symlink_to("OTHER.md")

    done = against(repository, "origin/main:")

    assert done.returncode == 1, done.stdout + done.stderr
    assert f"against {SPEC} at origin/main" in done.stdout and RENAME in done.stdout


def test_a_spec_that_is_a_link_at_the_revision_is_refused(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    _renamed_since_origin(repository)
    kept = (repository / SPEC).read_bytes()
    (repository / "spec" / "OTHER.md").write_bytes(kept)
    (repository / SPEC).unlink()
    (repository / SPEC).symlink_to("OTHER.md")
    git_traps.commit_all(repository, "the spec, a link")
    (repository / SPEC).unlink()
    (repository / SPEC).write_bytes(kept)

    done = against(repository, "HEAD:")

    assert done.returncode == 2
    assert "git cannot show it (a symbolic link there, not a file)" in done.stderr


def test_a_revision_not_fetched_is_an_error_never_a_file_of_its_name(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    git_traps.init(repository)
    (repository / "spec").mkdir()
    (repository / SPEC).write_text(TEXT, encoding="utf-8")
    decoy = repository / "origin" / "main:"
    decoy.parent.mkdir()
    decoy.write_text(TEXT, encoding="utf-8")  # "no behaviour change", were it read
    git_traps.commit_all(repository, "no origin/main ref")

    done = against(repository, "origin/main:")

    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"error: origin/main:: the repository at {repository} has no remote named "
        "'origin' (it has no remote); add it (`git remote add origin URL` and `git fetch "
        "origin`) or compare with a revision it has, --against REVISION:; a file is "
        "written ./origin/main:\n"
    )
    # With the remote there but the branch not fetched, it says to fetch.
    subprocess.run(
        ["git", "remote", "add", "origin", str(tmp_path / "elsewhere")],
        cwd=repository,
        check=True,
    )
    fetched = against(repository, "origin/main:")
    assert fetched.returncode == 2 and "not fetched yet? `git fetch` it first" in fetched.stderr


def test_a_repository_with_no_commit_says_so_never_to_fetch(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    git_traps.init(repository)
    (repository / "spec").mkdir()
    (repository / SPEC).write_text(TEXT, encoding="utf-8")

    done = against(repository, "HEAD:")

    assert done.returncode == 2 and done.stdout == ""
    assert f"the repository at {repository} has no commit yet" in done.stderr
    assert "--against PATH" in done.stderr and "fetch" not in done.stderr


def test_git_that_cannot_answer_is_said_never_taken_for_no_revision(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    _renamed_since_origin(repository)
    nowhere = tmp_path / "bin"
    nowhere.mkdir()
    done = subprocess.run(
        [*VERIFY, "--spec", SPEC, *WORKFLOW, "--against", "origin/main:"],
        cwd=repository,
        env={**git_traps.environment(), "PATH": str(nowhere)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "error: origin/main:: git cannot tell whether 'origin/main' is a revision "
        "(git is not installed)\n"
    )


def test_a_repository_s_own_protocol_settings_never_allow_a_transport(tmp_path: Path) -> None:
    # `protocol.file.allow=always` in .git/config is above `-c protocol.allow=never`: a
    # lazy fetch of a partial clone's missing object would run its `uploadpack` where
    # git has no GIT_NO_LAZY_FETCH.
    from spellbook.disk.git import Repository

    repository = tmp_path / "repo"
    git_traps.init(repository)
    with (repository / ".git" / "config").open("a", encoding="utf-8") as f:
        for name in ("file", "ext", "ssh", "git", "http", "https"):
            f.write(f'[protocol "{name}"]\n\tallow = always\n')
    found = Repository(str(repository / ".git"), str(repository))
    for name in ("file", "ext", "ssh", "git", "http", "https"):
        assert found.run("config", "--get", f"protocol.{name}.allow").strip() == b"never", name
