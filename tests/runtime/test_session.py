"""The coding-session machine end to end: a scripted session with retries, passing tests
moving on to the next feature, compression after 30 minutes, and the `spell session`
command. (Moves made by hand are judged in test_hand_moves.py, the hook in test_hook.py.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from importlib import import_module
from pathlib import Path

import pytest

from spellbook import Workflow
from spellbook.records.errors import UnknownSpell
from tests.support.sessions import MACHINE, PROGRESS, TEST_COMMAND, session, write_features


def state_file(root: Path) -> dict[str, object]:
    data = json.loads((root / PROGRESS / "state.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def statuses(root: Path) -> dict[str, str]:
    data = json.loads((root / PROGRESS / "feature-list.json").read_text(encoding="utf-8"))
    return {f["id"]: f["status"] for f in data["features"]}


def advance(flow: Workflow, rule: str, after: str) -> None:
    result = flow.cast("advance")
    assert (result.rule, result.after) == (rule, after), result


def test_scripted_session_with_retries_to_complete(tmp_path: Path) -> None:
    flow = session(tmp_path)
    advance(flow, "S1", "INIT")  # no feature list yet
    advance(flow, "B6", "INIT")  # INIT's exit condition is not met: refused
    write_features(tmp_path, "PT-001", "PT-002")
    advance(flow, "I1", "IMPLEMENT")
    assert (state_file(tmp_path)["feature_id"], state_file(tmp_path)["attempts"]) == ("PT-001", 1)
    for attempt in (1, 2):
        advance(flow, "M1", "TEST")
        advance(flow, "R1", "IMPLEMENT")  # tests fail, attempts < 3: back, attempts + 1
        assert state_file(tmp_path)["attempts"] == attempt + 1
    advance(flow, "M1", "TEST")
    failed = flow.cast("advance")  # third failure: PT-001 blocked, PT-002 next
    assert (failed.rule, failed.after) == ("R2", "IMPLEMENT")
    assert "ran test command" in failed.response and "failed (exit status 1)" in failed.response
    assert statuses(tmp_path) == {"PT-001": "blocked", "PT-002": "pending"}
    assert (state_file(tmp_path)["feature_id"], state_file(tmp_path)["attempts"]) == ("PT-002", 1)
    advance(flow, "M1", "TEST")
    (tmp_path / "tests-pass").write_text("")
    advance(flow, "T2", "COMPLETE")  # tests pass, nothing else pending
    assert statuses(tmp_path) == {"PT-001": "blocked", "PT-002": "tested"}
    advance(flow, "B10", "COMPLETE")
    data = state_file(tmp_path)
    assert set(data) == {
        "state", "feature_id", "entered_at", "attempts", "context", "history", "runs"
    }  # fmt: skip
    assert data["state"] == "COMPLETE"
    last = data["runs"]["test_command"]  # type: ignore[index]
    assert (last["command"], last["status"]) == (TEST_COMMAND, 0)
    assert len(last["fingerprint"]) == 32
    history = data["history"]
    assert isinstance(history, list)
    assert [e["state"] for e in history] == [
        "INIT", "INIT", "IMPLEMENT",
        "TEST", "IMPLEMENT", "TEST", "IMPLEMENT", "TEST", "IMPLEMENT",
        "TEST", "COMPLETE", "COMPLETE",
    ]  # fmt: skip
    assert [e["rule"] for e in history] == [
        "S1", "B6", "I1", "M1", "R1", "M1", "R1", "M1", "R2", "M1", "T2", "B10",
    ]  # fmt: skip
    assert all(set(e) >= {"state", "at"} for e in history)


def test_passing_tests_move_to_the_next_feature(tmp_path: Path) -> None:
    write_features(tmp_path, "A", "B")
    (tmp_path / "tests-pass").write_text("")
    flow = session(tmp_path)
    advance(flow, "S2", "IMPLEMENT")
    advance(flow, "M1", "TEST")
    advance(flow, "T1", "IMPLEMENT")
    assert statuses(tmp_path) == {"A": "tested", "B": "pending"}
    assert state_file(tmp_path)["feature_id"] == "B"


def test_marking_a_feature_keeps_the_feature_list_s_layout(tmp_path: Path) -> None:
    write_features(tmp_path, "A", "B")  # one line, as json.dumps writes it
    listed = tmp_path / PROGRESS / "feature-list.json"
    (tmp_path / "tests-pass").write_text("")
    flow = session(tmp_path)
    advance(flow, "S2", "IMPLEMENT")
    advance(flow, "M1", "TEST")
    advance(flow, "T1", "IMPLEMENT")
    marked = listed.read_text(encoding="utf-8")
    assert "\n" not in marked and '"status": "tested"' in marked


def test_check_asks_for_compression_after_30_minutes_in_implement(tmp_path: Path) -> None:
    write_features(tmp_path, "A")
    flow = session(tmp_path)
    advance(flow, "S2", "IMPLEMENT")
    assert flow.cast("check").rule == "K1"
    path = tmp_path / PROGRESS / "state.json"
    data = json.loads(path.read_text())
    data["entered_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 31 * 60))
    path.write_text(json.dumps(data))
    result = session(tmp_path).cast("check")
    assert (result.rule, result.after) == ("R4", "IMPLEMENT")
    assert "trigger compression" in result.response


def test_moves_record_when_the_state_was_entered(tmp_path: Path) -> None:
    flow = session(tmp_path)
    advance(flow, "S1", "INIT")
    first = state_file(tmp_path)["entered_at"]
    assert isinstance(first, str) and first.endswith("Z")
    flow.cast("check")
    assert state_file(tmp_path)["entered_at"] == first  # no move, no new entry time


def test_session_command_casts_and_reports(tmp_path: Path) -> None:
    cast = subprocess.run(
        [
            sys.executable,
            "-m",
            "spellbook",
            "session",
            "--root",
            str(tmp_path),
            "--json",
            "advance",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cast.returncode == 0, cast.stderr
    assert json.loads(cast.stdout)["after"] == "INIT"
    status = subprocess.run(
        [sys.executable, "-m", "spellbook", "session", "--root", str(tmp_path), "status"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert status.stdout.startswith("INIT: Initialization")


def test_responses_call_the_triggers_what_the_spec_calls_them(tmp_path: Path) -> None:
    assert MACHINE.SPELL_WORD == "trigger"
    assert import_module("spellbook.machines.spell_machine").SPELL_WORD == "spell"
    result = session(tmp_path).cast("advance")  # START -> INIT: nothing moves on until the list
    assert "### Available Triggers\n" in result.response
    assert "- Once feature-list.json has a pending feature, cast **Advance**" in result.response
    from spellbook.cast.responses import spell_values

    flow = session(tmp_path)
    said = spell_values({"Advance": None}, flow.writer, flow.machine.SPELL_WORD)["next_steps"]
    assert said == "No trigger moves on from here right now; see the triggers above."
    with pytest.raises(UnknownSpell, match="unknown trigger 'jump'; the triggers are Advance"):
        session(tmp_path).cast("jump")
