"""Ctrl-C ends `spell` with one line and exit status 130, never a traceback; the hook,
interrupted, blocks (exit 2), since it could not judge. SIGTERM or SIGHUP while the
test command runs stops its processes too (they run in a session of their own)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spellbook.doors import cli
from spellbook.records.exits import EXIT_HOOK_BLOCK, EXIT_INTERRUPTED
from tests.support.commands import alive, ends
from tests.support.sessions import PROGRESS, session_in


def interrupted(argv: list[str] | None = None) -> int:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["spell", "accio"], EXIT_INTERRUPTED),
        (["spell", "session", "check-transition"], EXIT_HOOK_BLOCK),
    ],
)
def test_ctrl_c_is_one_line_and_an_exit_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], code: int
) -> None:
    monkeypatch.setattr(cli, "main", interrupted)
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as ended:
        cli.run()
    assert ended.value.code == code
    err = capsys.readouterr().err
    assert (
        err.startswith("spell: interrupted; nothing half done is lost (") and "Traceback" not in err
    )


@pytest.mark.timeout(60)
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_the_tests_run_stops_their_processes_too(
    tmp_path: Path, signum: int
) -> None:
    session_in(tmp_path, "TEST", "sleep 600 & echo $! > child.pid; wait")
    proc = subprocess.Popen(
        [sys.executable, "-m", "spellbook", "session", "--root", str(tmp_path), "advance"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pid_file = tmp_path / "child.pid"
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    child = int(pid_file.read_text())
    assert alive(child)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err and "stopped by a signal" in err, err
    assert ends(child), "the test command's process outlived spell"
    state = json.loads((tmp_path / PROGRESS / "state.json").read_text())
    assert state["state"] == "TEST"  # nothing moved
