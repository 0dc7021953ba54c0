"""A coding session written from the seed's description alone, with no Python: its spec
(`tests/data/fixtures/session_from_seed/`) is verified and generated as a user does it, and
driven by `spell --machine session` through real files: the feature list, the
repository's `tests/` folder, a test command that really runs, three failed runs that
block a feature, the next pending feature kept in the state file, and the hook that
refuses a state file written by hand. The project names its machine `session`, so it
stands in for the shipped coding session (whose workspace, `.claude/progress/`, it
shares): the hook judges `.claude/progress/` by this spec alone."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_BLOCKED, EXIT_OK
from tests.support import git_traps
from tests.support.commands import clean

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "session_from_seed"
MACHINE = "session"
PROGRESS = ".claude/progress"
# The project's tests pass while `verdict.txt`, at the repository's top, says "pass".
TEST_COMMAND = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
    "import pathlib, sys; sys.exit(pathlib.Path('verdict.txt').read_text().strip() != 'pass')"
)


def run(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`python -m spellbook` or a compiler entry point in `root`, with no PYTHONPATH, no
    git setting and no `SPELLBOOK_*` command of the caller's."""
    environment = {
        key: value
        for key, value in git_traps.environment().items()
        if key not in ("PYTHONPATH", "CLAUDE_PROJECT_DIR") and not key.startswith("SPELLBOOK_")
    }
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )


def compiler(root: Path, command: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`spellbook-verify` (command "verify") or `spellbook-codegen` ("generate")."""
    code = (
        "import sys, spellbook.doors.compiler as c; del sys.argv[1]; "
        f"raise SystemExit(c.{command}())"
    )
    return run(root, "-c", code, "--", *args)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository holding the session's project, verified, generated and
    committed (the hook judges by the machine `HEAD` holds)."""
    return made(tmp_path / "app")


def made(root: Path, machine: str = MACHINE) -> Path:
    """The session's project at `root`, its machine named `machine`, verified, generated
    and committed."""
    shutil.copytree(FIXTURE, root)
    if machine != MACHINE:
        pyproject = root / "pyproject.toml"
        text = pyproject.read_text().replace(f"{MACHINE} = ", f"{machine} = ")
        pyproject.write_text(text.replace(f'default = "{MACHINE}"', f'default = "{machine}"'))
    git_traps.init(root)
    verified = compiler(root, "verify", "--spec", "spec/CODING.md", "--strict")
    assert verified.returncode == EXIT_OK, verified.stdout + clean(verified)
    assert "0 errors, 0 warnings" in verified.stdout
    generated = compiler(root, "generate")
    assert generated.returncode == EXIT_OK, generated.stdout + clean(generated)
    assert (root / "generated" / f"{machine}.py").is_file()
    (root / "verdict.txt").write_text("fail\n")
    git_traps.commit_all(root)
    return root


def cast(root: Path, spell_name: str, code: int = EXIT_OK) -> str:
    done = run(root, "-m", "spellbook", "--machine", MACHINE, spell_name)
    assert done.returncode == code, done.stdout + clean(done)
    return done.stdout


def state(root: Path) -> dict[str, object]:
    found: dict[str, object] = json.loads((root / PROGRESS / "state.json").read_text())
    return found


def where(root: Path) -> tuple[object, object, object]:
    """The state, the current feature and its attempts, as the state file keeps them."""
    kept = state(root)
    return kept["state"], kept.get("feature_id"), kept["attempts"]


def statuses(root: Path) -> list[str]:
    listed = json.loads((root / PROGRESS / "feature-list.json").read_text())
    return [feature["status"] for feature in listed["features"]]


def write_feature_list(root: Path) -> None:
    features = [
        {"id": "F1", "description": "greet", "status": "pending"},
        {"id": "F2", "description": "wave", "status": "pending"},
        {"id": "F3", "description": "leave", "status": "pending"},
    ]
    listed = {"test_command": TEST_COMMAND, "features": features}
    (root / PROGRESS / "feature-list.json").write_text(json.dumps(listed, indent=2) + "\n")


def verdict(root: Path, said: str) -> None:
    (root / "verdict.txt").write_text(said + "\n")


def test_a_session_written_from_the_seed_runs_through_real_files(project: Path) -> None:
    # No feature list: the session starts by writing one, and waits for it.
    assert "There is no feature list" in cast(project, "step")
    assert state(project)["state"] == "INIT"
    assert "Write `feature-list.json` first" in cast(project, "step", EXIT_BLOCKED)
    assert "Nothing is implemented" in cast(project, "finish", EXIT_BLOCKED)

    # The list written: the first pending feature is chosen and kept in the state file.
    write_feature_list(project)
    cast(project, "step")
    assert where(project) == ("IMPLEMENT", "F1", 1)

    # No test in the repository's tests/ folder yet: testing is refused.
    assert "Write the feature's tests" in cast(project, "step", EXIT_BLOCKED)
    assert "not tested yet" in cast(project, "finish", EXIT_BLOCKED)
    assert where(project) == ("IMPLEMENT", "F1", 1)
    write_test(project)
    cast(project, "step")
    assert where(project) == ("TEST", "F1", 1)

    # The tests really run, and fail: back to work, twice, counting the attempts.
    assert "The tests do not pass" in cast(project, "finish", EXIT_BLOCKED)
    for attempt in (2, 3):
        assert "fix the code" in cast(project, "step")
        assert where(project) == ("IMPLEMENT", "F1", attempt)
        cast(project, "step")
        assert where(project) == ("TEST", "F1", attempt)
    assert statuses(project) == ["pending", "pending", "pending"]
    # The third failure blocks the feature and takes up the next one.
    assert "the feature is blocked" in cast(project, "step")
    assert where(project) == ("IMPLEMENT", "F2", 1)
    assert statuses(project) == ["blocked", "pending", "pending"]

    # F2 needs tests of its own: F1's test is older than the list the cast just marked.
    assert "Write the feature's tests" in cast(project, "step", EXIT_BLOCKED)
    write_test(project, "test_wave.py")

    # F2's tests pass: it is marked tested and F3 is chosen.
    cast(project, "step")
    assert where(project) == ("TEST", "F2", 1)
    verdict(project, "pass")
    assert "Other features are pending" in cast(project, "finish", EXIT_BLOCKED)
    assert "the feature is tested" in cast(project, "step")
    assert where(project) == ("IMPLEMENT", "F3", 1)
    assert statuses(project) == ["blocked", "tested", "pending"]

    # The last feature, its code changed since the tests last ran: a state file written by
    # hand cannot complete the session before a run of the tests says they pass; a cast
    # that runs them does.
    write_test(project, "test_leave.py")
    cast(project, "step")
    assert where(project) == ("TEST", "F3", 1)
    (project / "leave.py").write_text("def leave() -> str:\n    return 'bye'\n")
    skipped = hook(
        project, f"{PROGRESS}/state.json", json.dumps({**state(project), "state": "COMPLETE"})
    )
    assert skipped.returncode == 2, skipped.stdout + clean(skipped)
    assert "TEST → COMPLETE refused: it depends on whether the tests pass" in clean(skipped)
    assert "the last feature is tested" in cast(project, "step")
    assert where(project) == ("COMPLETE", "F3", 1)
    assert statuses(project) == ["blocked", "tested", "tested"]
    assert "The session is over" in cast(project, "step", EXIT_BLOCKED)
    assert "never started again" in cast(project, "restart", EXIT_BLOCKED)


def hook(root: Path, path: str, content: str) -> subprocess.CompletedProcess[str]:
    """The Claude Code hook's answer to a Write of `path` (from the repository's top)."""
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "cwd": str(root),
        "tool_input": {"file_path": str(root / path), "content": content},
    }
    return run(
        root,
        "-m",
        "spellbook",
        "--machine",
        MACHINE,
        "check-transition",
        "--claude-hook",
        stdin=json.dumps(event),
    )


def implementing(project: Path) -> dict[str, object]:
    """The session cast into IMPLEMENT on F1, no test written yet; its state file."""
    cast(project, "step")
    write_feature_list(project)
    cast(project, "step")
    assert where(project) == ("IMPLEMENT", "F1", 1)
    return state(project)


def write_test(project: Path, name: str = "test_x.py") -> None:
    """A test written in the repository's tests/ folder after the feature list last
    changed: its time is set just after the list's, whatever the clock's grain, and
    before any later cast (a process of its own) writes the list again."""
    (project / "tests").mkdir(exist_ok=True)
    test = project / "tests" / name
    test.write_text("def test_x() -> None:\n    pass\n")
    later = (project / PROGRESS / "feature-list.json").stat().st_mtime_ns + 1_000
    os.utime(test, ns=(later, later))


def test_the_hook_refuses_a_state_file_that_skips_testing(project: Path) -> None:
    kept = implementing(project)
    skipped = hook(project, f"{PROGRESS}/state.json", json.dumps({**kept, "state": "COMPLETE"}))
    assert skipped.returncode == 2, skipped.stdout + clean(skipped)
    assert "IMPLEMENT → COMPLETE refused" in clean(skipped)
    restarted = hook(project, f"{PROGRESS}/state.json", json.dumps({**kept, "state": "START"}))
    assert restarted.returncode == 2, restarted.stdout + clean(restarted)
    assert "IMPLEMENT → START refused" in clean(restarted)
    # IMPLEMENT -> TEST is a move a rule makes, once a test is written in tests/.
    untested = hook(project, f"{PROGRESS}/state.json", json.dumps({**kept, "state": "TEST"}))
    assert untested.returncode == 2, untested.stdout + clean(untested)
    assert (
        "IMPLEMENT → TEST refused: rule I1 (spell Step) leads there once tests are written; "
        "that does not hold now: once it does, cast Step instead"
    ) in clean(untested)
    write_test(project)
    tested = hook(project, f"{PROGRESS}/state.json", json.dumps({**kept, "state": "TEST"}))
    assert tested.returncode == 0, tested.stdout + clean(tested)


def test_the_hook_refuses_hand_edits_of_the_feature_list(project: Path) -> None:
    implementing(project)
    write_test(project)
    listed = json.loads((project / PROGRESS / "feature-list.json").read_text())
    features = listed["features"]
    first, rest = features[0], features[1:]
    edits = {
        "drops a feature": {**listed, "features": rest},
        "marks one tested": {**listed, "features": [{**first, "status": "tested"}, *rest]},
        "marks one blocked": {**listed, "features": [{**first, "status": "blocked"}, *rest]},
    }
    for edit, content in edits.items():
        refused = hook(project, f"{PROGRESS}/feature-list.json", json.dumps(content))
        assert refused.returncode == 2, (edit, refused.stdout + clean(refused))
    # Adding a feature, or rewording one, is the AI's to do.
    added = {**listed, "features": [*features, {"id": "F4", "status": "pending"}]}
    allowed = hook(project, f"{PROGRESS}/feature-list.json", json.dumps(added))
    assert allowed.returncode == 0, allowed.stdout + clean(allowed)


def test_a_project_machine_of_another_name_alone_judges_the_folder_it_keeps(
    tmp_path: Path,
) -> None:
    """The project's machine `coding` keeps `.claude/progress/`, the folder of the coding
    session that ships: the hook judges a write there by the project's spec alone, never
    by the shipped session's rules or words (its spell Advance)."""
    root = made(tmp_path / "app", "coding")
    for step in ("INIT", "IMPLEMENT"):  # the project's default machine, `coding`
        done = run(root, "-m", "spellbook", "step")
        assert done.returncode == EXIT_OK, done.stdout + clean(done)
        assert state(root)["state"] == step
        if step == "INIT":
            write_feature_list(root)
    kept = state(root)
    assert kept["state"] == "IMPLEMENT"
    listed = json.loads((root / PROGRESS / "feature-list.json").read_text())
    marked = [{**listed["features"][0], "status": "tested"}, *listed["features"][1:]]
    for path, content in (
        (f"{PROGRESS}/state.json", json.dumps({**kept, "state": "COMPLETE"})),
        (f"{PROGRESS}/feature-list.json", json.dumps({**listed, "features": marked})),
    ):
        event = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "cwd": str(root),
            "tool_input": {"file_path": str(root / path), "content": content},
        }
        said = run(
            root, "-m", "spellbook", "check-transition", "--claude-hook", stdin=json.dumps(event)
        )
        assert "Advance" not in said.stdout + said.stderr, (path, said.stderr)
        assert said.returncode == 2, (path, said.stdout + clean(said))
        if path.endswith("state.json"):
            assert "IMPLEMENT → COMPLETE refused" in clean(said)
        else:  # the project's own rule: its spell, Step
            assert "F1 would be marked tested" in clean(said) and "Step" in clean(said)
