"""The hook's settings as docs/guide/session.md gives them block every call they cannot judge:
`spell` missing from PATH, a refused move; and let an allowed one through. Claude Code
blocks only on exit status 2, so anything else would let the call go ahead."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.sessions import PROGRESS, session_in

DOC = Path(__file__).resolve().parents[2] / "docs" / "guide" / "session.md"


def _settings() -> dict[str, Any]:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    found = [json.loads(b) for b in blocks if '"PreToolUse"' in b]
    assert len(found) == 1, "docs/guide/session.md shows one settings.json with the hook"
    return found[0]  # type: ignore[no-any-return]


def _hook() -> dict[str, Any]:
    (entry,) = _settings()["hooks"]["PreToolUse"]
    (hook,) = entry["hooks"]
    return hook  # type: ignore[no-any-return]


def _run(root: Path, event: dict[str, Any], path: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PATH": path, "CLAUDE_PROJECT_DIR": str(root)}
    return subprocess.run(
        ["/bin/sh", "-c", _hook()["command"]],
        input=json.dumps(event).encode(),
        capture_output=True,
        timeout=60,
        env=env,
        cwd=root,
    )


def _write(root: Path, state: str) -> dict[str, Any]:
    """A Write of the state file that keeps everything but the state."""
    data = json.loads((root / PROGRESS / "state.json").read_text())
    data["state"] = state
    return {
        "tool_name": "Write",
        "cwd": str(root),
        "tool_input": {
            "file_path": str(root / PROGRESS / "state.json"),
            "content": json.dumps(data),
        },
    }


@pytest.fixture
def spell_on_path(tmp_path: Path) -> str:
    """A PATH whose `spell` is this checkout's, and nothing else of the test's."""
    folder = tmp_path / "bin"
    folder.mkdir()
    shim = folder / "spell"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m spellbook "$@"\n')
    shim.chmod(0o755)
    return f"{folder}:/usr/bin:/bin"


def test_the_documented_settings_fail_closed() -> None:
    hook = _hook()
    assert hook["type"] == "command" and hook.get("onFailure") == "block"
    assert hook["command"].endswith("|| exit 2") and hook["timeout"] > 5
    matcher = re.compile(_settings()["hooks"]["PreToolUse"][0]["matcher"])
    for tool in ("Write", "Edit", "MultiEdit", "NotebookEdit", "mcp__files__write_file"):
        assert matcher.fullmatch(tool), tool


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell")
def test_without_spell_on_path_the_call_is_blocked(tmp_path: Path) -> None:
    session_in(tmp_path, "IMPLEMENT", "true")
    result = _run(tmp_path, _write(tmp_path, "TEST"), "/nonexistent")
    assert result.returncode == 2, result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell")
def test_with_spell_it_judges_the_move(tmp_path: Path, spell_on_path: str) -> None:
    session_in(tmp_path, "IMPLEMENT", "true")
    refused = _run(tmp_path, _write(tmp_path, "COMPLETE"), spell_on_path)
    assert refused.returncode == 2 and b"Traceback" not in refused.stderr, refused.stderr
    allowed = _run(tmp_path, _write(tmp_path, "TEST"), spell_on_path)
    assert allowed.returncode == 0, allowed.stderr


RUNTIME = DOC.parent / "runtime.md"


def _machine_settings() -> dict[str, Any]:
    """The settings docs/guide/runtime.md gives for a machine of the project's own."""
    blocks = re.findall(r"```json\n(.*?)```", RUNTIME.read_text(encoding="utf-8"), re.S)
    found = [json.loads(b) for b in blocks if '"PreToolUse"' in b]
    assert len(found) == 1, "docs/guide/runtime.md shows one settings.json with the hook"
    return found[0]  # type: ignore[no-any-return]


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell")
def test_the_settings_documented_for_any_machine_judge_its_moves(
    tmp_path: Path, spell_on_path: str
) -> None:
    """docs/guide/runtime.md's settings, for the machine its example names (`release`), run
    through `sh` as Claude Code runs them, with an event on stdin: a state file written
    by hand that skips a step is blocked with the rule that leads there; a move the
    spec allows now passes; and the same settings fail closed."""
    from tests.cli import test_session_from_seed as seed

    settings = _machine_settings()
    (entry,) = settings["hooks"]["PreToolUse"]
    (hook,) = entry["hooks"]
    assert hook["type"] == "command" and hook.get("onFailure") == "block"
    command = hook["command"]
    machine = re.search(r"--machine (\S+)", command)
    assert machine is not None and command.endswith("|| exit 2"), command
    root = seed.made(tmp_path / "app", machine.group(1))
    for step in ("INIT", "IMPLEMENT"):  # to the first feature, no test written yet
        cast = seed.run(root, "-m", "spellbook", "--machine", machine.group(1), "step")
        assert cast.returncode == 0, cast.stdout + cast.stderr
        if step == "INIT":
            seed.write_feature_list(root)
    assert json.loads((root / PROGRESS / "state.json").read_text())["state"] == "IMPLEMENT"

    def run(state: str, path: str = spell_on_path) -> subprocess.CompletedProcess[bytes]:
        env = {**os.environ, "PATH": path, "CLAUDE_PROJECT_DIR": str(root)}
        env.pop("PYTHONPATH", None)
        return subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(_write(root, state)).encode(),
            capture_output=True,
            timeout=60,
            env=env,
            cwd=root,
        )

    untested = run("TEST")
    assert untested.returncode == 2, untested.stderr
    assert b"rule I1 (spell Step) leads there once tests are written" in untested.stderr
    assert run("TEST", "/nonexistent").returncode == 2
    seed.write_test(root)
    tested = run("TEST")
    assert tested.returncode == 0, tested.stderr


def test_the_runtime_guide_s_hook_tried_by_hand_says_what_it_shows(
    tmp_path: Path, spell_on_path: str
) -> None:
    """docs/guide/runtime.md shows the hook fed an event by hand in the release example:
    its command, run as written there, exits 2 with the line the page shows."""
    import shutil

    text = (DOC.parent / "runtime.md").read_text(encoding="utf-8")
    block = text[text.index("To try it by hand") :]
    block = block[block.index("```console\n") + len("```console\n") :]
    block = block[: block.index("```")]
    lines = block.splitlines()
    command = "\n".join(
        line.removeprefix("$ ") for line in lines if not line.startswith(("IDLE", "exit"))
    )
    shown = [line for line in lines if line.startswith(("IDLE", "exit"))]
    root = tmp_path / "release"
    shutil.copytree(DOC.parents[2] / "examples" / "release", root)
    for git in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "release"]):
        subprocess.run(
            ["git", "-c", "user.name=a", "-c", "user.email=a@b", *git],
            cwd=root,
            check=True,
            timeout=60,
        )
    done = subprocess.run(
        ["/bin/bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": spell_on_path},
        cwd=root,
    )
    assert [done.stderr.strip(), done.stdout.strip()] == shown, (done.stdout, done.stderr)
