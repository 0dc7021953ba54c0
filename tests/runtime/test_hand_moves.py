"""Judging a move made by hand (`Workflow.judge`): every invalid and valid transition the
session's seed document lists (tests/data/fixtures/seed_session_patterns.md)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

import pytest

from codegen.read.markdown import Code, Table, read_blocks
from spellbook import Workflow
from spellbook.facts.commands import Run, repository_digest
from tests.support import git_traps
from tests.support.commands import session_cli
from tests.support.sessions import MACHINE, PROGRESS, TEST_COMMAND, prepared, session_in

ROOT = Path(__file__).resolve().parents[2]
SEED = (ROOT / "tests" / "data" / "fixtures" / "seed_session_patterns.md").read_text(
    encoding="utf-8"
)


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


@pytest.mark.parametrize(("source", "target", "why"), seed_invalid_transitions())
def test_every_invalid_transition_of_the_seed_is_refused_with_its_reason(
    tmp_path: Path, source: str, target: str, why: str
) -> None:
    flow = prepared(tmp_path, source, passing=False, pending=1)
    allowed, reason = flow.judge(source, target)
    assert not allowed
    assert why.rstrip(".").lower() in reason.lower()


@pytest.mark.parametrize(("source", "target"), seed_valid_transitions())
def test_every_valid_transition_of_the_seed_is_allowed_where_its_condition_holds(
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


def test_judging_a_move_never_runs_the_test_command(tmp_path: Path) -> None:
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


def completed_after_a_run(root: Path) -> str:
    """A session in TEST whose tests just passed (the run recorded now, with the
    repository as it is): the event of a hand-made move to COMPLETE, the rest kept."""
    state = root / PROGRESS / "state.json"
    data = json.loads(state.read_text())
    ran = Run("test_command", "true", 0, "", 1.0, repository_digest(str(root), PROGRESS))
    data["runs"] = {"test_command": ran.recorded()}
    state.write_text(json.dumps(data))
    complete = json.dumps({**data, "state": "COMPLETE"})
    return json.dumps(
        {"tool_name": "Write", "tool_input": {"file_path": str(state), "content": complete}}
    )


def complete(root: Path) -> subprocess.CompletedProcess[bytes]:
    """`spell session check-transition TEST COMPLETE`: the move judged as things are."""
    return session_cli("check-transition", "--root", str(root), "TEST", "COMPLETE")


def test_test_to_complete_is_judged_by_the_recorded_run(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true")
    (tmp_path / "app.py").write_text("print('v1')\n")
    event = completed_after_a_run(tmp_path)
    allowed = complete(tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    # Written by hand, the move would leave the feature pending: the cast marks it tested.
    by_hand = session_cli("check-transition", "--claude-hook", "--root", str(tmp_path), stdin=event)
    assert by_hand.returncode == 2, by_hand.stderr
    assert b"refused as a move made by hand: rule T2 (trigger Advance)" in by_hand.stderr
    assert b"sets features" in by_hand.stderr and b"cast Advance instead" in by_hand.stderr
    (tmp_path / "app.py").write_text("print('v2, untested')\n")
    refused = complete(tmp_path)
    assert refused.returncode == 1 and b"cast Advance instead" in refused.stderr


def test_a_run_record_written_by_hand_is_refused(tmp_path: Path) -> None:
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


CAST = {
    "state": "IMPLEMENT",
    "at": "2026-01-01T00:00:00Z",
    "trigger": "Advance",
    "rule": "I1",
    "outcome": "transition",
    "cast": "c0ffee000001",
    "tries": 1,
}


@pytest.mark.parametrize(
    "history",
    [
        [CAST, {**CAST, "state": "TEST", "cast": "deadbeef0001"}],  # a cast never made
        [],  # emptied
        [{**CAST, "cast": "deadbeef0001"}],  # an entry rewritten
        [{**CAST, "tries": True}],  # the same to `==`, not to a reader
        None,  # left out
    ],
    ids=["appended", "emptied", "rewritten", "retyped", "left-out"],
)
def test_a_state_file_that_writes_history_by_hand_is_refused(
    tmp_path: Path, history: list[object] | None
) -> None:
    """Only casts write `history` (a forged cast id would also tell recovery that an
    interrupted cast is done): a hand-made state file that changes it in any way is
    refused, naming it, even with a move the spec allows (IMPLEMENT -> TEST)."""
    session_in(tmp_path, "IMPLEMENT", "true", history=[CAST])
    workflow = Workflow(tmp_path, MACHINE)  # type: ignore[arg-type]
    kept = json.loads((tmp_path / PROGRESS / "state.json").read_text())
    assert workflow.judge_file(json.dumps({**kept, "state": "TEST"}).encode())[0]
    proposed = {**kept, "state": "TEST", "history": history}
    if history is None:
        del proposed["history"]
    allowed, why = workflow.judge_file(json.dumps(proposed).encode())
    assert not allowed and "changes `history`" in why, why


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_check_transition_never_opens_a_fifo_given_as_the_state_file(tmp_path: Path) -> None:
    session_in(tmp_path, "IMPLEMENT", "true")
    os.mkfifo(tmp_path / "proposed.json")
    result = session_cli(
        "check-transition", "--root", str(tmp_path), "--state-file", str(tmp_path / "proposed.json")
    )
    assert result.returncode == 2 and b"is a FIFO" in result.stderr


def test_judging_a_move_runs_no_program_a_workspace_s_files_name(tmp_path: Path) -> None:
    """The repository's files are listed without git where the workspace is in no
    repository: files that make its root look like one name no program that runs."""
    marks = tmp_path / "marks"
    root = tmp_path / "root"
    root.mkdir()
    session_in(root, "TEST", "true")
    git_traps.plant_lookalike(root, marks)
    completed_after_a_run(root)
    judged = complete(root)
    assert git_traps.ran(marks) == []
    assert judged.returncode == 0, judged.stderr


def test_a_gitignore_written_to_hide_new_files_does_not_keep_the_recorded_run(
    tmp_path: Path,
) -> None:
    """Files git ignores are in the run's fingerprint by name: a `.gitignore` that hides
    itself and a new, untested file changes it, as the file would."""
    git_traps.init(tmp_path)
    session_in(tmp_path, "TEST", "true")
    (tmp_path / "app.py").write_text("print('v1')\n")
    completed_after_a_run(tmp_path)
    allowed = complete(tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    (tmp_path / ".gitignore").write_text("/.gitignore\n/untested.py\n")
    (tmp_path / "untested.py").write_text("print('never run')\n")
    refused = complete(tmp_path)
    assert refused.returncode == 1 and b"cast Advance instead" in refused.stderr


def test_a_root_git_ignores_has_its_files_in_the_fingerprint(tmp_path: Path) -> None:
    """A workspace root inside a folder the repository ignores: git lists none of its
    files, so they are listed by walking the folder, and a change there is seen."""
    git_traps.init(tmp_path)
    (tmp_path / ".gitignore").write_text("proj/\n")
    root = tmp_path / "proj"
    root.mkdir()
    (root / "app.py").write_text("print('v1')\n")
    before = repository_digest(str(root), PROGRESS)
    (root / "untested.py").write_text("print('new')\n")
    assert repository_digest(str(root), PROGRESS) != before


@pytest.mark.parametrize(
    ("source", "target", "pending", "said"),
    [
        (
            "START",
            "IMPLEMENT",
            0,
            "START → IMPLEMENT refused: rule S2 (trigger Advance) leads there once "
            "feature-list.json has a pending feature; that does not hold now: once it does, "
            "cast Advance instead",
        ),
        (  # S1 needs the feature list missing, which no advice asks: said, no cast
            # advised (Advance would select the feature and move to IMPLEMENT)
            "START",
            "INIT",
            1,
            "START → INIT refused: rule S1 (trigger Advance) leads there only when its "
            "condition holds (feature-list.json missing), which it does not now; Advance "
            "cast now does not lead there",
        ),
        (
            "INIT",
            "TEST",
            1,
            "INIT → TEST refused: no rule of the spec leads from INIT to TEST: rules lead "
            "there from IMPLEMENT only",
        ),
    ],
)
def test_a_refused_move_names_the_rule_that_leads_there_and_what_it_lacks(
    tmp_path: Path, source: str, target: str, pending: int, said: str
) -> None:
    """A move no rule makes now says which rule would, every fact it needs that does
    not hold now and the spell to cast once they do; or that no rule leads there."""
    allowed, why = prepared(tmp_path, source, passing=False, pending=pending).judge(source, target)
    assert not allowed and why == said, why


@pytest.mark.parametrize(
    ("source", "target", "rule", "does"),
    [
        ("START", "IMPLEMENT", "S2", "sets feature_id in the state file"),
        ("TEST", "IMPLEMENT", "R1", "adds one to attempts"),
    ],
)
def test_a_move_by_hand_whose_rule_acts_is_refused_naming_the_spell(
    tmp_path: Path, source: str, target: str, rule: str, does: str
) -> None:
    """The spec allows the move, but its rule does more than move the state: a state file
    written by hand would leave that undone (a feature left pending), so it is refused,
    naming the spell whose cast does both. The move itself is still allowed."""
    flow = prepared(tmp_path, source, passing=False, pending=1)
    assert flow.judge(source, target)[0]
    kept = json.loads((tmp_path / PROGRESS / "state.json").read_text())
    allowed, why = flow.judge_file(json.dumps({**kept, "state": target}).encode())
    assert not allowed
    assert why.startswith(
        f"{source} → {target} refused as a move made by hand: rule {rule} (trigger Advance) "
        "makes it and "
    ), why
    assert does in why and why.endswith("cast Advance instead"), why
    # a whole file written anew (a Write, its history left out): the spell is still named,
    # not only that the history may not change
    written = {**kept, "state": target, "history": [*kept.get("history", []), {"made": "up"}]}
    allowed, why = flow.judge_file(json.dumps(written).encode())
    assert not allowed and why.endswith("cast Advance instead"), why


def test_a_move_by_hand_whose_rule_only_moves_is_allowed(tmp_path: Path) -> None:
    flow = prepared(tmp_path, "IMPLEMENT", passing=False, pending=1)
    kept = json.loads((tmp_path / PROGRESS / "state.json").read_text())
    allowed, why = flow.judge_file(json.dumps({**kept, "state": "TEST"}).encode())
    assert allowed, why


def test_the_hook_refuses_a_counter_or_entered_at_deleted_by_hand(tmp_path: Path) -> None:
    from spellbook.machines import session_machine

    flow = Workflow(tmp_path, machine=session_machine)
    folder = tmp_path / ".claude" / "progress"
    folder.mkdir(parents=True)
    (folder / "state.json").write_text(
        json.dumps({"state": "IMPLEMENT", "attempts": 2, "entered_at": "2020-01-01T00:00:00Z"})
    )
    allowed, why = flow.judge_file(b'{"state": "IMPLEMENT", "entered_at": "2020-01-01T00:00:00Z"}')
    assert not allowed and "leaves out `attempts`" in why
    allowed, why = flow.judge_file(b'{"state": "IMPLEMENT", "attempts": 2}')
    assert not allowed and "leaves out `entered_at`" in why
