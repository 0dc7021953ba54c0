"""The commands a workflow runs (a session's tests): bounded in time and output, killed
with everything they started, run without holding the lock, and bad ones refused."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from spellbook.records.errors import Changed
from tests.support.commands import clean, ends, session_cli
from tests.support.sessions import PROGRESS, session, session_in


@pytest.mark.timeout(30)
def test_a_command_that_leaves_a_child_holding_its_output_does_not_keep_the_cast(
    tmp_path: Path,
) -> None:
    session_in(tmp_path, "TEST", "echo ok; (sleep 600 & echo $! > child.pid); exit 0")
    result = session(tmp_path).cast("advance")
    assert result.rule == "T2"
    child = int((tmp_path / "child.pid").read_text())
    assert ends(child), "the command's leftover child outlived it"


@pytest.mark.timeout(30)
def test_a_command_past_its_timeout_is_killed_with_everything_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("spellbook.facts.commands.COMMAND_TIMEOUT", 1)
    session_in(tmp_path, "TEST", "sleep 25 & echo $! > child.pid; sleep 25")
    result = session(tmp_path).cast("advance")
    assert result.rule == "R1" and "timed out after 1 s" in result.response
    assert ends(int((tmp_path / "child.pid").read_text()))


@pytest.mark.timeout(60)
def test_output_is_kept_to_a_bounded_tail(tmp_path: Path) -> None:
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
def test_the_lock_is_free_while_the_tests_run_and_a_cast_meanwhile_stops_this_one(
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


@pytest.mark.timeout(60)
def test_a_command_that_closes_its_output_early_runs_to_its_end(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "exec >/dev/null 2>&1; sleep 2; exit 0")
    assert session(tmp_path).cast("advance").rule == "T2"


def test_a_test_command_holding_a_nul_is_bad_input(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true\u0000")
    result = session_cli("--root", str(tmp_path), "advance")
    assert result.returncode == 2 and b"NUL" in result.stderr
    clean(result)


def test_a_test_command_from_the_environment_is_said_in_the_state_file_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run the state file keeps says where its command came from, as the note does:
    # a later reader of the state file sees the project's own command was not the one run.
    session_in(tmp_path, "TEST", "exit 1")
    monkeypatch.setenv("SPELLBOOK_TEST_COMMAND", "exit 0")
    result = session(tmp_path).cast("advance")
    assert result.rule == "T2"
    kept = json.loads((tmp_path / PROGRESS / "state.json").read_text())
    run = kept["runs"]["test_command"]
    assert run["command"] == "exit 0" and run["from"] == "SPELLBOOK_TEST_COMMAND"
    monkeypatch.delenv("SPELLBOOK_TEST_COMMAND")
    session_in(tmp_path / "own", "TEST", "exit 0")
    session(tmp_path / "own").cast("advance")
    own = json.loads((tmp_path / "own" / PROGRESS / "state.json").read_text())
    assert "from" not in own["runs"]["test_command"]
