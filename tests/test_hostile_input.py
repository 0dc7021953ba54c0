"""Hostile input to the runtime, one test per finding of the attack on it: no traceback,
no hang, nothing read as if it were empty, nothing lost, and a hook that fails closed.

Each test is named after the finding it holds the runtime to (see docs/reliability.md).
Hang tests are bounded by a pytest timeout, never by a speed assertion.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from spellbook import Workflow
from spellbook.commands import Run, repository_digest
from spellbook.errors import BadFile, Changed, StateFileError
from spellbook.store import READ_LIMIT
from tests.workspaces import TASK, files, history, plan, set_state, task, write

PROGRESS = ".claude/progress"
ROOT_USER = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def spell(
    root: Path, *args: str, cwd: Path | None = None, **kw: object
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spellbook", "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        **kw,  # type: ignore[arg-type]
    )


def session_cli(
    *args: str, stdin: str | bytes = "", cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "spellbook", "session", *args],
        capture_output=True,
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def clean(result: subprocess.CompletedProcess[str] | subprocess.CompletedProcess[bytes]) -> str:
    """stderr, after checking that it holds no traceback."""
    err = result.stderr if isinstance(result.stderr, str) else result.stderr.decode()
    assert "Traceback" not in err, err
    return err


def executed(root: Path) -> None:
    """ACHIEVE_TASK_EXECUTED, ready for A2 (archive the task, draft the next)."""
    set_state(root, "ACHIEVE_TASK_EXECUTED")
    write(root, "plan.md", plan(unchecked=1))
    write(root, "task.md", task("safe-name"))
    write(root, "task-results.md", "the results\n")


def session_in(root: Path, state: str, command: str, **extra: object) -> None:
    folder = root / PROGRESS
    folder.mkdir(parents=True, exist_ok=True)
    features = [{"id": "F1", "description": "one", "status": "pending"}]
    (folder / "feature-list.json").write_text(
        json.dumps({"test_command": command, "features": features})
    )
    data = {"state": state, "feature_id": "F1", "attempts": 1, "context": {}, "history": []}
    data.update(extra)
    (folder / "state.json").write_text(json.dumps(data))


def session(root: Path) -> Workflow:
    from importlib import import_module

    return Workflow(root, machine=import_module("spellbook.machines.session_machine"))  # type: ignore[arg-type]


def obeying_permissions() -> dict[str, object]:
    """subprocess arguments that make the command obey file permissions: root reads
    anything, so as root the command runs without CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH (dropped from its bounding set before it starts)."""
    if not ROOT_USER:
        return {}
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_CAPBSET_READ, CAP_DAC_OVERRIDE, 0, 0, 0) < 0:
        pytest.skip("no capabilities to drop here")

    def drop() -> None:
        for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return {"preexec_fn": drop}


PR_CAPBSET_READ, PR_CAPBSET_DROP = 23, 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


# 1. A lone surrogate ----------------------------------------------------------------


def test_1_a_lone_surrogate_in_the_state_file_is_refused_and_repair_keeps_the_state(
    tmp_path: Path,
) -> None:
    executed(tmp_path)
    state = tmp_path / TASK / "state.json"
    state.write_text('{"current_state": "ACHIEVE_TASK_EXECUTED",\n "context": {"note": "\\ud83d"}}')
    before = files(tmp_path)
    result = spell(tmp_path, "accio")
    assert result.returncode == 2
    assert "state.json:2" in clean(result) and "surrogate" in result.stderr
    assert files(tmp_path) == before  # A2 moved nothing
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "Chose ACHIEVE_TASK_EXECUTED: the damaged file still names it" in repaired.stdout
    assert spell(tmp_path, "accio").returncode == 0
    assert history(tmp_path)[-1]["rule"] == "A2"


def test_1_a_lone_surrogate_in_the_feature_list_is_a_clear_error(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true")
    features = tmp_path / PROGRESS / "feature-list.json"
    features.write_text(
        '{"test_command": "true",\n "features": [{"id": "F1", "status": '
        '"pending", "description": "\\udc80"}]}'
    )
    result = session_cli("--root", str(tmp_path), "advance")
    assert result.returncode == 2
    assert "feature-list.json:2" in clean(result)
    assert json.loads((tmp_path / PROGRESS / "state.json").read_text())["state"] == "TEST"
    features.write_text(
        json.dumps(
            {
                "test_command": "true",
                "features": [{"id": "F1", "status": "pending", "description": "fixed"}],
            }
        )
    )
    assert session_cli("--root", str(tmp_path), "advance").returncode == 0  # T2: not stuck


# 2. Integers too long to read ----------------------------------------------------------

HUGE = "1" * 4400


def test_2_a_huge_integer_in_the_state_file_or_intent_record_is_refused(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=0))
    state = tmp_path / TASK / "state.json"
    state.write_text(f'{{"current_state": "GATHER_EDITING", "n": {HUGE}}}')
    for command in ("lumos", "status"):
        result = spell(tmp_path, command)
        assert result.returncode == 2 and "4,400 digits" in clean(result)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0 and "GATHER_EDITING" in repaired.stdout, repaired.stderr
    intent = tmp_path / TASK / ".intent.json"
    intent.write_text(f'{{"cast": {HUGE}}}')
    result = spell(tmp_path, "lumos")
    assert result.returncode == 2 and "intent.json" in clean(result)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0 and "Set its record aside" in repaired.stdout
    assert spell(tmp_path, "lumos").returncode == 0


def test_2_the_hook_blocks_a_write_holding_a_huge_integer_and_one_it_cannot_compare(
    tmp_path: Path,
) -> None:
    session_in(tmp_path, "IMPLEMENT", "true")
    state = tmp_path / PROGRESS / "state.json"
    event = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(state), "content": f'{{"state": "COMPLETE", "n": {HUGE}}}'},
    }
    blocked = session_cli(
        "check-transition", "--claude-hook", "--root", str(tmp_path), stdin=json.dumps(event)
    )
    assert blocked.returncode == 2 and b"4,400 digits" in blocked.stderr
    clean(blocked)
    state.write_text(f'{{"state": "IMPLEMENT", "n": {HUGE}}}')  # the current file itself
    event["tool_input"]["content"] = '{"state": "TEST"}'  # type: ignore[index]
    blocked = session_cli(
        "check-transition", "--claude-hook", "--root", str(tmp_path), stdin=json.dumps(event)
    )
    assert blocked.returncode == 2 and b"spell repair" in blocked.stderr
    raw = f'{{"tool_name": "Write", "n": {HUGE}}}'  # in the event itself
    blocked = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=raw)
    assert blocked.returncode == 2 and b"hook event" in blocked.stderr


# 3. Bounded work in the probes ---------------------------------------------------------

ADVERSARIAL = {
    "heading of spaces": "# Plan" + " " * (READ_LIMIT - 100) + "x\n",
    "a line of URLs": ("https://acme.atlassian.net/browse/ENG-1?" * 30_000)[: READ_LIMIT - 100],
    "almost URLs": ("https://acme.atlassian.ne" * 50_000)[: READ_LIMIT - 100],
    "unclosed items": ("- [ " * 300_000)[: READ_LIMIT - 100],
    "many headings": ("#" * 7 + " \n" + "## Acceptance Criteria\n- [ ] a\n" * 30_000)[
        : READ_LIMIT - 100
    ],
    "fences": ("```\n- [ ] x\n" * 100_000)[: READ_LIMIT - 100],
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", list(ADVERSARIAL), ids=list(ADVERSARIAL))
def test_3_probes_finish_on_adversarial_files_at_the_read_limit(tmp_path: Path, case: str) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    text = ADVERSARIAL[case]
    assert len(text.encode()) <= READ_LIMIT
    for name in ("plan.md", "task.md", "comments.md", "review-task.md"):
        write(tmp_path, name, text)
    start = time.perf_counter()
    result = spell(tmp_path, "lumos")
    took = time.perf_counter() - start
    print(f"\n{case}: spell lumos on four {len(text) / 1e6:.1f} MB files: {took:.2f} s")
    assert result.returncode == 0, clean(result)


# 4. The session's test command ---------------------------------------------------------


@pytest.mark.timeout(30)
def test_4_a_command_that_leaves_a_child_holding_its_output_does_not_keep_the_cast(
    tmp_path: Path,
) -> None:
    session_in(tmp_path, "TEST", "echo ok; (sleep 600 & echo $! > child.pid); exit 0")
    result = session(tmp_path).cast("advance")
    assert result.rule == "T2"
    child = int((tmp_path / "child.pid").read_text())
    time.sleep(0.2)
    assert not _alive(child), "the command's leftover child outlived it"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie is dead
    except FileNotFoundError:
        return False


@pytest.mark.timeout(30)
def test_4_a_command_past_its_timeout_is_killed_with_everything_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("spellbook.commands.COMMAND_TIMEOUT", 1)
    session_in(tmp_path, "TEST", "sleep 25 & echo $! > child.pid; sleep 25")
    result = session(tmp_path).cast("advance")
    assert result.rule == "R1" and "timed out after 1 s" in result.response
    time.sleep(0.2)
    assert not _alive(int((tmp_path / "child.pid").read_text()))


@pytest.mark.timeout(60)
def test_4_output_is_kept_to_a_bounded_tail(tmp_path: Path) -> None:
    session_in(
        tmp_path,
        "TEST",
        "yes | head -c 50000000; printf 'one line of %0300000d\\n' 0; echo the last line; exit 1",
    )
    result = session(tmp_path).cast("advance")
    assert result.rule == "R1"
    assert "the last line" in result.response
    assert len(result.response) < 70_000 + 5_000
    state = json.loads((tmp_path / PROGRESS / "state.json").read_text())
    assert state["runs"]["test_command"]["status"] == 1


@pytest.mark.timeout(60)
def test_4_the_lock_is_free_while_the_tests_run_and_a_cast_meanwhile_stops_this_one(
    tmp_path: Path,
) -> None:
    session_in(
        tmp_path,
        "TEST",
        "touch started; while [ ! -f go ]; do sleep 0.05; done; exit 0",
    )
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(_try_cast(tmp_path)))
    worker.start()
    while not (tmp_path / "started").exists():
        time.sleep(0.02)
    status = session_cli("--root", str(tmp_path), "status")  # waits for no lock
    assert status.returncode == 0, status.stderr
    assert session(tmp_path).cast("check").rule == "K1"  # a cast while the tests run
    (tmp_path / "go").touch()
    worker.join()
    (error,) = outcome
    assert isinstance(error, Changed) and "changed while" in str(error)
    rules = [
        e["rule"] for e in json.loads((tmp_path / PROGRESS / "state.json").read_text())["history"]
    ]
    assert rules == ["K1"]  # the advance did not happen


def _try_cast(root: Path) -> object:
    try:
        return session(root).cast("advance")
    except Changed as err:
        return err


# 5. check-transition never runs the command --------------------------------------------


def test_5_judging_a_move_never_runs_the_test_command(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "touch PWNED")
    root = str(tmp_path)
    restart = session_cli("check-transition", "--root", root, "TEST", "START")
    assert restart.returncode == 1 and b"You cannot restart" in restart.stderr
    complete = session_cli("check-transition", "--root", root, "TEST", "COMPLETE")
    assert complete.returncode == 1 and b"cast Advance instead" in complete.stderr
    state = tmp_path / PROGRESS / "state.json"
    event = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(state), "content": '{"state": "COMPLETE"}'},
    }
    hooked = session_cli(
        "check-transition", "--claude-hook", "--root", root, stdin=json.dumps(event)
    )
    assert hooked.returncode == 2 and b"cast Advance instead" in hooked.stderr
    assert session_cli("--root", root, "status").returncode == 0
    assert session_cli("--root", root, "check").returncode == 0
    assert not (tmp_path / "PWNED").exists()


def test_5_the_hook_judges_test_to_complete_by_the_recorded_run(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true")
    state = tmp_path / PROGRESS / "state.json"
    data = json.loads(state.read_text())
    (tmp_path / "app.py").write_text("print('v1')\n")
    ran = Run("test_command", "true", 0, "", 1.0, repository_digest(str(tmp_path), PROGRESS))
    data["runs"] = {"test_command": ran.recorded()}
    state.write_text(json.dumps(data))
    event = json.dumps(
        {
            "tool_name": "Write",
            "tool_input": {"file_path": str(state), "content": '{"state": "COMPLETE"}'},
        }
    )
    allowed = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=event)
    assert allowed.returncode == 0, allowed.stderr
    (tmp_path / "app.py").write_text("print('v2, untested')\n")
    refused = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=event)
    assert refused.returncode == 2 and b"cast Advance instead" in refused.stderr


# 6. The hook finds the workspace and compares real paths ---------------------------------


def _write_complete(path: str, cwd: str | None = None) -> str:
    event: dict[str, object] = {
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": '{"state": "COMPLETE"}'},
    }
    if cwd is not None:
        event["cwd"] = cwd
    return json.dumps(event)


def test_6_the_hook_run_from_another_folder_finds_the_workspace(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    session_in(repo, "IMPLEMENT", "true")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    event = _write_complete(f"../{PROGRESS}/state.json", cwd=str(repo / "src"))
    blocked = session_cli("check-transition", "--claude-hook", stdin=event, cwd=elsewhere, env=env)
    assert blocked.returncode == 2 and b"It skips testing" in blocked.stderr
    event = _write_complete(str(repo / PROGRESS / "state.json"))
    env["CLAUDE_PROJECT_DIR"] = str(repo)
    blocked = session_cli("check-transition", "--claude-hook", stdin=event, cwd=elsewhere, env=env)
    assert blocked.returncode == 2 and b"It skips testing" in blocked.stderr


def test_6_a_write_through_a_symbolic_link_is_judged_as_the_file_it_reaches(
    tmp_path: Path,
) -> None:
    session_in(tmp_path, "IMPLEMENT", "true")
    (tmp_path / "shortcut").symlink_to(tmp_path / PROGRESS)
    event = _write_complete(str(tmp_path / "shortcut" / "state.json"))
    blocked = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=event)
    assert blocked.returncode == 2 and b"It skips testing" in blocked.stderr


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b"\xff\xfe", b'{"tool_input": 3}'])
def test_6_an_event_the_hook_cannot_read_is_blocked(tmp_path: Path, stdin: bytes) -> None:
    session_in(tmp_path, "IMPLEMENT", "true")
    blocked = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=stdin)
    assert blocked.returncode == 2 and blocked.stderr.strip()
    clean(blocked)


def test_6_the_hook_refuses_a_feature_marked_tested_by_hand(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true")
    features = tmp_path / PROGRESS / "feature-list.json"
    data = json.loads(features.read_text())
    data["features"][0]["status"] = "tested"
    event = json.dumps(
        {
            "tool_name": "Write",
            "tool_input": {"file_path": str(features), "content": json.dumps(data)},
        }
    )
    blocked = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=event)
    assert blocked.returncode == 2 and b"only the session marks it" in blocked.stderr
    edit = json.dumps(
        {
            "tool_name": "Edit",
            "tool_input": {
                "file_path": str(features),
                "old_string": '"pending"',
                "new_string": '"blocked"',
            },
        }
    )
    blocked = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=edit)
    assert blocked.returncode == 2
    data["features"][0]["status"] = "pending"
    data["features"].append({"id": "F2", "description": "two", "status": "pending"})
    event = json.dumps(
        {
            "tool_name": "Write",
            "tool_input": {"file_path": str(features), "content": json.dumps(data)},
        }
    )
    allowed = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=event)
    assert allowed.returncode == 0, allowed.stderr


# 7. The lock survives deletion of its file ---------------------------------------------

LUMOS_WORKER = textwrap.dedent(
    """
    import os, sys
    from spellbook import Workflow, lock
    def no_folder_lock(folder, fd=None):  # as where flock cannot lock a folder
        if fd is not None:
            os.close(fd)
        return None
    if sys.argv[3] == "file":  # the fallback where folders cannot be locked
        lock._folder_lock = no_folder_lock
    flow = Workflow(sys.argv[1])
    print(" ".join(flow.cast("lumos").cast for _ in range(int(sys.argv[2]))))
    """
)


def _race_deleting_the_lock_file(root: Path, mode: str) -> tuple[list[str], list[str], int]:
    """8 processes x 50 Lumos while a thread deletes (and recreates) `.state.lock` as fast
    as it can: the cast ids printed, the ids in the history, the deletions."""
    set_state(root, "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=0))
    lock = root / TASK / ".state.lock"
    stop = threading.Event()
    unlinked = [0]

    def unlink() -> None:
        while not stop.is_set():
            try:
                lock.unlink()
                unlinked[0] += 1
            except FileNotFoundError:
                lock.touch()  # in folder mode there is no lock file: one to delete
            time.sleep(0.0005)

    remover = threading.Thread(target=unlink)
    remover.start()
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", LUMOS_WORKER, str(root), "50", mode],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    ids = []
    try:
        for worker in workers:
            out, err = worker.communicate(timeout=200)
            assert worker.returncode == 0, err
            ids += out.split()
    finally:
        stop.set()
        remover.join()
    logged = [str(e["cast"]) for e in history(root)]
    print(
        f"\n8 x 50 Lumos, {mode} lock, lock file deleted {unlinked[0]} times: {len(logged)} entries"
    )
    return ids, logged, unlinked[0]


@pytest.mark.timeout(240)
def test_7_casts_lose_nothing_while_the_lock_file_is_deleted(tmp_path: Path) -> None:
    ids, logged, unlinked = _race_deleting_the_lock_file(tmp_path, "folder")
    assert unlinked > 0
    assert len(ids) == 400 and sorted(logged) == sorted(ids)


@pytest.mark.timeout(240)
def test_7_control_a_lock_file_deleted_while_held_lets_casts_in_together(
    tmp_path: Path,
) -> None:
    """Why the lock is on the folder: the file lock alone loses casts in the same race."""
    ids, logged, _ = _race_deleting_the_lock_file(tmp_path, "file")
    assert len(ids) == 400 and len(logged) < 400


# 8. A file over the read limit is an error, never "empty" -------------------------------


def test_8_a_plan_over_the_read_limit_stops_the_cast_instead_of_reading_as_done(
    tmp_path: Path,
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan(unchecked=2) + "\n## Log\n\n" + "log line\n" * 130_000)
    before = files(tmp_path)
    result = spell(tmp_path, "accio")
    assert result.returncode == 2
    assert "plan.md is 1.2 MB" in clean(result)
    assert files(tmp_path) == before  # not ACHIEVE_COMPLETE
    status = spell(tmp_path, "status")
    assert status.returncode == 0 and "cannot tell" in status.stdout


# 9. History is bounded -------------------------------------------------------------------


def _entries(n: int) -> list[dict[str, object]]:
    return [
        {
            "timestamp": "2026-01-01T00:00:00Z",
            "transition": "A → B",
            "trigger": "Lumos",
            "rule": "L1",
            "outcome": "noop",
            "cast": f"{i:012x}",
        }
        for i in range(n)
    ]


def test_9_history_past_its_limit_goes_to_a_file_no_cast_reads(tmp_path: Path) -> None:
    from spellbook.journal import HISTORY_KEEP, HISTORY_LIMIT

    set_state(tmp_path, "GATHER_EDITING", _entries(HISTORY_LIMIT))
    write(tmp_path, "plan.md", plan(unchecked=0))
    assert spell(tmp_path, "lumos").returncode == 0
    kept = history(tmp_path)
    assert len(kept) == HISTORY_KEEP and kept[-1]["trigger"] == "Lumos"
    (rotated,) = (tmp_path / TASK / ".history").iterdir()
    older = [json.loads(line) for line in rotated.read_text().splitlines()]
    assert [e["cast"] for e in older + kept] == [f"{i:012x}" for i in range(HISTORY_LIMIT)] + [
        kept[-1]["cast"]
    ]


@pytest.mark.timeout(120)
def test_9_repair_keeps_a_state_file_that_is_only_too_large(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_REVIEW_TASK_DRAFT_G", _entries(80_000))
    size = (tmp_path / TASK / "state.json").stat().st_size
    assert size > 10_000_000
    result = spell(tmp_path, "lumos")
    assert result.returncode == 2 and "spell repair" in clean(result)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "The workflow is in PR_REVIEW_TASK_DRAFT_G" in repaired.stdout
    assert not list((tmp_path / TASK).glob("state.json.bad-*"))
    assert json.loads((tmp_path / TASK / "state.json").read_text())["current_state"] == (
        "PR_REVIEW_TASK_DRAFT_G"
    )
    assert spell(tmp_path, "lumos").returncode == 0


# 10. A cast that committed reports success ----------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX permissions")
def test_10_a_file_unreadable_after_the_commit_point_is_a_note_not_an_error(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    executed(root)
    kw = obeying_permissions()
    (root / TASK / "plan.md").chmod(0o000)
    result = spell(root, "--json", "accio", **kw)
    assert result.returncode == 0, result.stderr
    done = json.loads(result.stdout)
    assert (done["rule"], done["after"]) == ("A2", "ACHIEVE_TASK_DRAFTING")
    assert "the results" in done["response"]  # the task results reach the AI
    assert "Permission denied" in done["response"]


def test_10_a_folder_named_like_a_file_is_named_in_the_error(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    (tmp_path / TASK / "plan.md").mkdir()
    result = spell(tmp_path, "accio")
    assert result.returncode == 2
    assert ".ai/task/plan.md is a folder, not a file" in clean(result)


# 11. What would stop a cast half way is found before the commit point -------------------


def test_11_a_trash_that_is_a_file_stops_the_cast_before_anything_moves(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_CONFIRM_RESTART_TASK_G")
    write(tmp_path, "review-task.md", "old review\n")
    write(tmp_path, ".trash", "not a folder\n")
    before = files(tmp_path)
    result = spell(tmp_path, "reparo")
    assert result.returncode == 2
    assert ".trash is a file where a folder is needed" in clean(result)
    after = files(tmp_path)
    assert {k: v for k, v in after.items() if not k.endswith("state.json")} == {
        k: v for k, v in before.items() if not k.endswith("state.json")
    }
    assert not (tmp_path / TASK / ".intent.json").exists()
    assert spell(tmp_path, "lumos").returncode == 0


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX permissions")
def test_11_an_archive_folder_that_is_not_writable_stops_the_cast_before_anything_moves(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    executed(root)
    (root / TASK / "tasks").mkdir()
    kw = obeying_permissions()
    (root / TASK / "tasks").chmod(0o555)
    result = spell(root, "accio", **kw)
    assert result.returncode == 2
    assert "tasks/ is not writable" in clean(result)
    assert (root / TASK / "task.md").exists() and (root / TASK / "task-results.md").exists()
    assert spell(root, "lumos", **kw).returncode == 0


def test_11_an_archive_path_past_the_system_limit_stops_the_cast_before_anything_moves(
    tmp_path: Path,
) -> None:
    root = tmp_path
    while len(str(root)) < 4096 - 90:  # the repository itself is deep, but usable
        root = root / ("d" * min(200, 4096 - 90 - len(str(root))))
    old = os.getcwd()
    try:  # long paths are made relative to a working folder inside them
        os.makedirs(root)
    except OSError:
        pytest.skip("this filesystem refuses paths this long")
    finally:
        os.chdir(old)
    executed(root)
    write(root, "task.md", task("a" * 60))
    result = spell(root, "accio")
    assert result.returncode == 2, result.stdout
    assert "longer than this system allows" in clean(result)
    assert (root / TASK / "task.md").exists() and (root / TASK / "task-results.md").exists()
    assert spell(root, "lumos").returncode == 0


def test_11_repair_sets_aside_an_interrupted_cast_that_cannot_be_finished(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", task())
    write(tmp_path, "tasks", "a file where the archive folder goes\n")
    entry = {
        "timestamp": "2026-01-01T00:00:00Z",
        "transition": "x",
        "trigger": "Accio",
        "rule": "A2",
        "outcome": "transition",
        "cast": "c0ffee000000",
    }
    intent = {
        "cast": "c0ffee000000",
        "before": "ACHIEVE_TASK_EXECUTED",
        "after": "ACHIEVE_TASK_DRAFTING",
        "entry": entry,
        "extra": {},
        "operations": [["folder", "tasks/x"], ["move", "task.md", "tasks/x/task.md"]],
    }
    write(tmp_path, ".intent.json", json.dumps(intent))
    stuck = spell(tmp_path, "lumos")
    assert stuck.returncode in (1, 2) and "tasks" in clean(stuck)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "Set its record aside" in repaired.stdout
    assert spell(tmp_path, "lumos").returncode == 0
    assert (tmp_path / TASK / "task.md").exists()


# 12. FIFOs are never opened for reading --------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["plan.md", "state.json"])
def test_12_a_fifo_in_the_workspace_blocks_nothing(tmp_path: Path, name: str) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=1))
    (tmp_path / TASK / name).unlink()
    os.mkfifo(tmp_path / TASK / name)
    for command in ("accio", "lumos", "status"):
        result = spell(tmp_path, command)
        if name == "state.json" or command == "accio":
            assert result.returncode == 2
            assert "is a FIFO (named pipe), not a file" in clean(result)
        else:  # what needs plan.md cannot tell, and says so
            assert result.returncode == 0 and "cannot tell" in result.stdout
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr


# 13. Smaller -----------------------------------------------------------------------------


def test_13_a_byte_order_mark_in_the_state_file_is_read(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=0))
    state = tmp_path / TASK / "state.json"
    state.write_bytes(b"\xef\xbb\xbf" + state.read_bytes().replace(b"\n", b"\r\n"))
    result = spell(tmp_path, "lumos")
    assert result.returncode == 0, result.stderr


def test_13_a_reader_that_leaves_early_is_no_error(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=0))
    piped = subprocess.run(
        f"'{sys.executable}' -m spellbook --root '{tmp_path}' status | head -c 1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert piped.stdout and piped.stderr == ""


def test_13_a_root_that_does_not_exist_is_named(tmp_path: Path) -> None:
    result = spell(tmp_path / "nowhere", "lumos")
    assert result.returncode == 2
    assert f"the repository folder {tmp_path / 'nowhere'} does not exist" in clean(result)
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX permissions")
def test_13_a_read_only_workspace_is_named_by_the_file_not_its_temporary(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    set_state(root, "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=0))
    kw = obeying_permissions()
    (root / TASK).chmod(0o555)
    result = spell(root, "lumos", **kw)
    assert result.returncode == 1
    assert "cannot write .ai/task/state.json: Permission denied" in clean(result)
    assert ".state.json." not in result.stderr


def test_bad_file_errors_name_the_file(tmp_path: Path) -> None:
    """The library raises its own errors, never a bare OSError or ValueError."""
    set_state(tmp_path, "GATHER_EDITING")
    (tmp_path / TASK / "state.json").write_text('{"current_state": "GATHER_EDITING", "x": [')
    with pytest.raises(StateFileError, match=r"state.json:1: not valid JSON"):
        Workflow(tmp_path).cast("lumos")
    assert issubclass(StateFileError, BadFile)
    shutil.rmtree(tmp_path / TASK)


def test_5_a_run_record_written_by_hand_is_refused(tmp_path: Path) -> None:
    """The record the hook trusts for TEST -> COMPLETE cannot be forged through it."""
    session_in(tmp_path, "IMPLEMENT", "true")
    state = tmp_path / PROGRESS / "state.json"
    forged = Run("test_command", "true", 0, "", 1.0, repository_digest(str(tmp_path), PROGRESS))
    content = json.dumps({"state": "TEST", "runs": {"test_command": forged.recorded()}})
    event = json.dumps(
        {"tool_name": "Write", "tool_input": {"file_path": str(state), "content": content}}
    )
    blocked = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=event)
    assert blocked.returncode == 2 and b"only a cast that runs them" in blocked.stderr


def test_6_the_hook_refuses_what_would_let_a_step_be_skipped_another_way(tmp_path: Path) -> None:
    """The runtime's own files, hard links, a changed test command or counter, and edits
    that match nowhere are refused; a command that closes its output is not killed."""
    session_in(tmp_path, "IMPLEMENT", "exit 1")
    root = str(tmp_path)
    folder = tmp_path / PROGRESS

    def hook(tool: dict[str, object], name: str = "Write") -> bytes:
        event = json.dumps({"tool_name": name, "tool_input": tool})
        result = session_cli("check-transition", "--claude-hook", "--root", root, stdin=event)
        assert result.returncode == 2, result.stderr
        return result.stderr

    intent = {
        "cast": "abc",
        "before": "IMPLEMENT",
        "after": "COMPLETE",
        "extra": {},
        "entry": {"cast": "abc", "trigger": "Finish"},
        "operations": [],
    }
    said = hook({"file_path": str(folder / ".intent.json"), "content": json.dumps(intent)})
    assert b"only casts write it" in said
    os.link(folder / "state.json", tmp_path / "notes.json")
    assert b"It skips testing" in hook(
        {"file_path": str(tmp_path / "notes.json"), "content": '{"state": "COMPLETE"}'}
    )
    features = json.loads((folder / "feature-list.json").read_text())
    features["test_command"] = "true"
    assert b"test command would change" in hook(
        {"file_path": str(folder / "feature-list.json"), "content": json.dumps(features)}
    )
    assert b"changes `attempts`" in hook(
        {
            "file_path": str(folder / "state.json"),
            "content": '{"state": "IMPLEMENT", "attempts": 3}',
        }
    )
    assert b"found 0 times" in hook(
        {
            "file_path": str(folder / "state.json"),
            "old_string": "\u201cstate\u201d",
            "new_string": "x",
        },
        "Edit",
    )


@pytest.mark.timeout(60)
def test_4_a_command_that_closes_its_output_early_runs_to_its_end(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "exec >/dev/null 2>&1; sleep 2; exit 0")
    assert session(tmp_path).cast("advance").rule == "T2"


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_12_check_transition_never_opens_a_fifo_given_as_the_state_file(tmp_path: Path) -> None:
    session_in(tmp_path, "IMPLEMENT", "true")
    os.mkfifo(tmp_path / "proposed.json")
    result = session_cli(
        "check-transition", "--root", str(tmp_path), "--state-file", str(tmp_path / "proposed.json")
    )
    assert result.returncode == 2 and b"is a FIFO" in result.stderr


def test_4_a_test_command_holding_a_nul_is_bad_input(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true\u0000")
    result = session_cli("--root", str(tmp_path), "advance")
    assert result.returncode == 2 and b"NUL" in result.stderr
    clean(result)


def test_6_the_hook_lets_files_it_does_not_guard_alone(tmp_path: Path) -> None:
    """An Edit of a workspace file no rule guards passes, even one the hook could not
    apply (it judges only the files it guards)."""
    session_in(tmp_path, "IMPLEMENT", "true")
    notes = tmp_path / PROGRESS / "notes.md"
    notes.write_text("“curly” notes\n")
    edit = {"file_path": str(notes), "old_string": '"curly"', "new_string": "plain"}
    event = json.dumps({"tool_name": "Edit", "tool_input": edit})
    result = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=event)
    assert result.returncode == 0, result.stderr


def test_9_repair_keeps_the_fields_a_damaged_state_file_still_holds(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true")
    state = tmp_path / PROGRESS / "state.json"
    state.write_text(
        '{"state": "TEST", "feature_id": "F1", "attempts": 2, "context": {"x": "\\ud83d"}}'
    )
    repaired = session_cli("--root", str(tmp_path), "repair")
    assert repaired.returncode == 0, repaired.stderr
    kept = json.loads(state.read_text())
    assert (kept["state"], kept["feature_id"], kept["attempts"]) == ("TEST", "F1", 2)
