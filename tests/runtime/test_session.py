"""The coding-session machine: a scripted session, retry logic, and the transition hook.

The hook's cases come from the seed document itself (tests/fixtures/
seed_session_patterns.md): its Invalid Transitions table and VALID_TRANSITIONS.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import time
from importlib import import_module
from pathlib import Path

import pytest

from codegen.read.markdown import Code, Table, read_blocks
from spellbook import Workflow
from spellbook.commands import Run, repository_digest
from spellbook.errors import UnknownSpell

ROOT = Path(__file__).resolve().parents[2]
SEED = (ROOT / "tests" / "fixtures" / "seed_session_patterns.md").read_text(encoding="utf-8")
MACHINE = import_module("spellbook.machines.session_machine")
PROGRESS = ".claude/progress"
# Passes when the repository has a file named tests-pass; the session runs it for real.
TEST_COMMAND = (
    f"{sys.executable} -c \"import os, sys; sys.exit(0 if os.path.exists('tests-pass') else 1)\""
)


def session(root: Path) -> Workflow:
    return Workflow(root, machine=MACHINE)  # type: ignore[arg-type]


def write_features(root: Path, *ids: str) -> None:
    folder = root / PROGRESS
    folder.mkdir(parents=True, exist_ok=True)
    features = [{"id": i, "description": f"feature {i}", "status": "pending"} for i in ids]
    (folder / "feature-list.json").write_text(
        json.dumps({"test_command": TEST_COMMAND, "features": features}), encoding="utf-8"
    )


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


# --- the hook, from the seed's own tables ---------------------------------------


def seed_invalid_transitions() -> list[tuple[str, str, str]]:
    """(From, To, Why Blocked) rows of the seed's Invalid Transitions table, Any expanded."""
    (table,) = [
        b
        for b in read_blocks(SEED)
        if isinstance(b, Table)
        and [c.plain for c in b.header.cells] == ["From", "To", "Why Blocked"]
    ]
    rows = []
    for row in table.rows:
        source, target, why = (c.plain for c in row.cells)
        sources = [s.name for s in MACHINE.STATES] if source == "Any" else [source]
        rows.extend((s, target, why) for s in sources)
    return rows


def seed_valid_transitions() -> list[tuple[str, str]]:
    (code,) = [
        b for b in read_blocks(SEED) if isinstance(b, Code) and "VALID_TRANSITIONS" in b.text
    ]
    literal = code.text[code.text.index("{") : code.text.rindex("}") + 1]
    valid = ast.literal_eval(literal)
    return [(source, target) for source, targets in valid.items() for target in targets]


def prepared(tmp_path: Path, source: str, *, passing: bool, pending: int | None) -> Workflow:
    """A session in `source`, with `pending` pending features (None: no feature list)
    and tests passing or not."""
    ids = ["F1", "F2"][: pending or 0]
    tmp_path.mkdir(parents=True, exist_ok=True)
    if pending is not None:
        write_features(tmp_path, *(ids or ["DONE"]))
        if not pending:
            data = json.loads((tmp_path / PROGRESS / "feature-list.json").read_text())
            data["features"][0]["status"] = "tested"
            (tmp_path / PROGRESS / "feature-list.json").write_text(json.dumps(data))
    if passing:
        (tmp_path / "tests-pass").write_text("")
    # The tests' last run, as a cast records it: the judge never runs them itself.
    ran = Run("test_command", TEST_COMMAND, 0 if passing else 1, "", 1.0)
    ran.digest = repository_digest(str(tmp_path), PROGRESS)
    state = {
        "state": source,
        "feature_id": "F1",
        "attempts": 1,
        "context": {},
        "history": [],
        "runs": {"test_command": ran.recorded()},
    }
    (tmp_path / PROGRESS).mkdir(parents=True, exist_ok=True)
    (tmp_path / PROGRESS / "state.json").write_text(json.dumps(state))
    return session(tmp_path)


@pytest.mark.parametrize(("source", "target", "why"), seed_invalid_transitions())
def test_hook_refuses_every_invalid_transition_of_the_seed_with_its_reason(
    tmp_path: Path, source: str, target: str, why: str
) -> None:
    flow = prepared(tmp_path, source, passing=False, pending=1)
    allowed, reason = flow.judge(source, target)
    assert not allowed
    assert why.rstrip(".").lower() in reason.lower()


@pytest.mark.parametrize(("source", "target"), seed_valid_transitions())
def test_hook_allows_every_valid_transition_of_the_seed_where_its_condition_holds(
    tmp_path: Path, source: str, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPELLBOOK_TEST_COMMAND", TEST_COMMAND)  # also without a feature list
    worlds = [
        dict(passing=p, pending=n) for p in (False, True) for n in (None, 0, 1, 2)
    ]  # some world must allow it
    verdicts = []
    for n, world in enumerate(worlds):
        folder = tmp_path / str(n)
        verdicts.append(prepared(folder, source, **world).judge(source, target)[0])  # type: ignore[arg-type]
    assert any(verdicts)


def hook(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "spellbook",
            "session",
            "check-transition",
            "--root",
            str(root),
            *args,
        ],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
    )


def test_check_transition_command(tmp_path: Path) -> None:
    refused = hook(tmp_path, "INIT", "COMPLETE")
    assert refused.returncode == 1
    assert "It skips implementation and testing" in refused.stderr
    allowed = hook(tmp_path, "START", "INIT")
    assert allowed.returncode == 0 and "by Advance" in allowed.stdout
    assert hook(tmp_path, "START", "NOWHERE").returncode == 2
    answer = hook(tmp_path, "--json", "IMPLEMENT", "COMPLETE")
    assert answer.returncode == 1
    assert json.loads(answer.stdout) == {"allowed": False, "reason": answer.stderr.strip()}
    assert json.loads(hook(tmp_path, "--json", "START", "INIT").stdout)["allowed"] is True


def test_check_transition_judges_a_proposed_state_file(tmp_path: Path) -> None:
    prepared(tmp_path, "IMPLEMENT", passing=False, pending=1)
    proposed = tmp_path / "proposed.json"
    proposed.write_text(json.dumps({"state": "COMPLETE", "context": {}, "history": []}))
    result = hook(tmp_path, "--state-file", str(proposed))
    assert result.returncode == 1 and "It skips testing" in result.stderr
    proposed.write_text(json.dumps({"state": "TEST", "context": {}, "history": []}))
    assert hook(tmp_path, "--state-file", str(proposed)).returncode == 0
    proposed.write_text("{ not json")
    assert hook(tmp_path, "--state-file", str(proposed)).returncode == 1


def test_claude_code_hook_blocks_a_write_that_skips_testing(tmp_path: Path) -> None:
    prepared(tmp_path, "IMPLEMENT", passing=False, pending=1)
    state = tmp_path / PROGRESS / "state.json"
    write = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(state), "content": json.dumps({"state": "COMPLETE"})},
    }
    blocked = hook(tmp_path, "--claude-hook", stdin=json.dumps(write))
    assert blocked.returncode == 2 and "It skips testing" in blocked.stderr
    edit = {
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(state),
            "old_string": '"state": "IMPLEMENT"',
            "new_string": '"state": "TEST"',
        },
    }
    assert hook(tmp_path, "--claude-hook", stdin=json.dumps(edit)).returncode == 0
    relative = {
        "cwd": str(tmp_path / "src"),  # a relative path is relative to the agent's folder
        "tool_name": "Write",
        "tool_input": {
            "file_path": f"../{PROGRESS}/state.json",
            "content": json.dumps({"state": "COMPLETE"}),
        },
    }
    assert hook(tmp_path, "--claude-hook", stdin=json.dumps(relative)).returncode == 2
    other = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(tmp_path / "x.py"), "content": ""},
    }
    assert hook(tmp_path, "--claude-hook", stdin=json.dumps(other)).returncode == 0


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
    from spellbook.responses import spell_values

    flow = session(tmp_path)
    said = spell_values({"Advance": None}, flow.writer, flow.machine.SPELL_WORD)["next_steps"]
    assert said == "No trigger moves on from here right now; see the triggers above."
    with pytest.raises(UnknownSpell, match="unknown trigger 'jump'; the triggers are Advance"):
        session(tmp_path).cast("jump")
