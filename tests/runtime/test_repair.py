"""`spell repair`: a damaged state file is put right to the state it still names, its
fields kept, and an interrupted cast that cannot be finished is set aside."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.commands import clean, session_cli, spell
from tests.support.sessions import PROGRESS, code_session, session_in, write_features
from tests.support.workspaces import (
    TASK,
    executed,
    files,
    history,
    history_entries,
    plan,
    sealed,
    set_state,
    task,
    write,
)


def test_a_lone_surrogate_in_the_state_file_is_refused_and_repair_keeps_the_state(
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


@pytest.mark.timeout(120)
def test_repair_keeps_a_state_file_that_is_only_too_large(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_REVIEW_TASK_DRAFT_G", history_entries(80_000))
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


def test_repair_sets_aside_an_interrupted_cast_that_cannot_be_finished(tmp_path: Path) -> None:
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
    write(tmp_path, ".intent.json", sealed(tmp_path / TASK, intent))
    stuck = spell(tmp_path, "lumos")
    assert stuck.returncode in (1, 2) and "tasks" in clean(stuck)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "Set its record aside" in repaired.stdout
    assert spell(tmp_path, "lumos").returncode == 0
    assert (tmp_path / TASK / "task.md").exists()


def test_repair_keeps_the_fields_a_damaged_state_file_still_holds(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true")
    state = tmp_path / PROGRESS / "state.json"
    state.write_text(
        '{"state": "TEST", "feature_id": "F1", "attempts": 2, "context": {"x": "\\ud83d"}}'
    )
    repaired = session_cli("--root", str(tmp_path), "repair")
    assert repaired.returncode == 0, repaired.stderr
    kept = json.loads(state.read_text())
    assert (kept["state"], kept["feature_id"], kept["attempts"]) == ("TEST", "F1", 2)


def _session_failing_twice(root: Path, code: bool = False) -> Path:
    """A session driven by `spell session advance` on F1 (F2 pending after it) until its
    tests have failed twice: in TEST, attempts at 3. Its state file. With `code`, the
    session whose Select is a Python vocabulary's verb, which sets attempts to a value
    the history does not keep (`tests.support.sessions.code_session`), cast in this process."""
    write_features(root, "F1", "F2")
    for _ in range(6):  # S2, M1, R1, M1, R1, M1: the tests fail, for real, each time
        if code:
            assert code_session(root).cast("Advance").rule is not None
            continue
        cast = session_cli("--root", str(root), "advance")
        assert cast.returncode == 0, cast.stderr
    state = root / PROGRESS / "state.json"
    kept = json.loads(state.read_text())
    assert (kept["state"], kept["attempts"]) == ("TEST", 3)
    assert [e["rule"] for e in kept["history"]] == ["S2", "M1", "R1", "M1", "R1", "M1"]
    return state


def _repair(root: Path, code: bool = False) -> str:
    if code:
        return code_session(root).repair() + "\n"
    repaired = session_cli("--root", str(root), "repair")
    assert repaired.returncode == 0, repaired.stderr
    return repaired.stdout.decode()


def test_a_session_repaired_mid_retry_keeps_its_attempts(tmp_path: Path) -> None:
    state = _session_failing_twice(tmp_path)
    text = state.read_text()
    state.write_text(text[: text.index('"rule": "R1"')])  # cut short inside its history
    said = _repair(tmp_path)
    kept = json.loads(state.read_text())
    assert (kept["state"], kept["feature_id"], kept["attempts"]) == ("TEST", "F1", 3)
    assert "Restored attempts = 3: .claude/progress/state.json holds 3." in said
    assert 'Restored feature_id = "F1"' in said
    assert kept["history"][-1]["fields"] == {
        "feature_id": "F1",
        "entered_at": kept["entered_at"],
        "attempts": 3,
    }
    # The third failure blocks F1 and moves on (R2), rather than a fresh first retry (R1).
    cast = session_cli("--root", str(tmp_path), "advance")
    assert cast.returncode == 0, cast.stderr
    after = json.loads(state.read_text())
    assert (after["history"][-1]["rule"], after["feature_id"]) == ("R2", "F2")
    features = json.loads((tmp_path / PROGRESS / "feature-list.json").read_text())["features"]
    assert [f["status"] for f in features] == ["blocked", "pending"]


def test_repair_counts_from_the_history_and_says_what_it_could_not_restore(
    tmp_path: Path,
) -> None:
    state = _session_failing_twice(tmp_path, code=True)
    kept = _written_before_entries_kept_fields(json.loads(state.read_text()))
    kept["attempts"] = "three"  # a hand edit: no counter holds that
    del kept["feature_id"]
    state.write_text(json.dumps(kept, indent=2))
    said = _repair(tmp_path, code=True)
    # S2 selected F1 with attempts at a value the history does not keep; R1 counted
    # twice since: at least 2, never the 0 a fresh start would give.
    assert (
        "Restored attempts = 2: the history shows at least 2 (rule R1 twice, since rule S2 "
        "set it to a value the history does not keep)"
    ) in said
    assert '.claude/progress/state.json holds "three", which attempts cannot be' in said
    assert (
        "Could not restore feature_id (rule S2 set it to a value the history does not keep); "
        "left at its start value (none)."
    ) in said
    repaired = json.loads(state.read_text())
    assert (repaired["attempts"], repaired["feature_id"]) == (2, None)
    assert [e["rule"] for e in repaired["history"][:-1]] == [e["rule"] for e in kept["history"]]


def _written_before_entries_kept_fields(
    kept: dict[str, Any], chosen: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The state file as a cast wrote it before history entries kept the fields they set
    (`changed`): repair replays its rules as the spec says them; an entry kept only the
    fields a query chose (`fields`), those named `chosen`."""
    for entry in kept["history"]:
        queried = {k: v for k, v in entry.pop("changed", {}).items() if k in chosen}
        if queried:
            entry["fields"] = queried
    return kept


def test_repair_restores_what_each_cast_set_whatever_the_spec_says_now(tmp_path: Path) -> None:
    # The history kept rule IDs alone, and repair replayed them as the spec says them
    # now: after a spec change (a Reset added to a rule, two rows' IDs swapped) it said
    # "rule R1 set it to 0" of a cast that did no such thing. Each cast now keeps the
    # fields it set; here the Python vocabulary's Select sets values no rule says.
    state = _session_failing_twice(tmp_path, code=True)
    kept = json.loads(state.read_text())
    counted = [e["changed"] for e in kept["history"] if e.get("changed")]
    assert counted and all(set(c) <= {"attempts", "feature_id"} for c in counted)
    chosen = kept["feature_id"]
    kept["attempts"] = "three"
    del kept["feature_id"]
    state.write_text(json.dumps(kept, indent=2))
    said = _repair(tmp_path, code=True)
    assert "Restored attempts = 3 from the history (rule R1 set it to 3)" in said, said
    assert f'Restored feature_id = "{chosen}" from the history' in said, said
    repaired = json.loads(state.read_text())
    assert (repaired["attempts"], repaired["feature_id"]) == (3, chosen)


def test_repair_restores_fields_from_an_earlier_backup(tmp_path: Path) -> None:
    state = _session_failing_twice(tmp_path)
    earlier = json.loads(state.read_text())
    earlier["attempts"] = 2
    earlier["history"] = earlier["history"][:4]  # as it was after the first failure
    backup = state.with_name("state.json.bad-20260101T000000Z")
    backup.write_text(json.dumps(earlier, indent=2))
    state.write_bytes(b'{"state": "TEST", ' + b"\0" * 64)  # nothing else left to read
    said = _repair(tmp_path)
    shown = ".claude/progress/state.json.bad-20260101T000000Z"
    assert (
        f'Restored feature_id = "F1": {shown} holds "F1" (nothing kept tells what happened '
        "after it)."
    ) in said
    assert f"Restored attempts = 2: {shown} holds 2" in said
    kept = json.loads(state.read_text())
    assert (kept["state"], kept["feature_id"], kept["attempts"]) == ("TEST", "F1", 2)


def test_repair_says_a_history_it_cannot_read_and_does_not_guess_past_it(
    tmp_path: Path,
) -> None:
    state = _session_failing_twice(tmp_path)
    lines = state.read_text().splitlines()
    lines = [line for line in lines if not line.startswith('  "attempts"')]  # lost
    newest = max(i for i, line in enumerate(lines) if '"rule": "R1"' in line)
    lines[newest] = lines[newest][:40]  # the newest failure's entry, half there
    state.write_text("\n".join(lines))
    said = _repair(tmp_path)
    assert "1 history entry could not be read; what came before them is not counted" in said
    assert (
        "Could not restore attempts (a history entry cannot be read); left at its start value (0)."
    ) in said
    assert json.loads(state.read_text())["attempts"] == 0


def test_repair_counts_through_the_older_history_kept_in_its_own_folder(tmp_path: Path) -> None:
    state = _session_failing_twice(tmp_path, code=True)
    # entries as written before they kept the fields they set: their rules are replayed
    lines = [
        re.sub(r', "changed": \{[^{}]*\}', "", line) for line in state.read_text().splitlines()
    ]
    entries = [i for i, line in enumerate(lines) if line.startswith("    {")]
    older = [lines[i].strip().rstrip(",") for i in entries[:3]]  # S2, M1, R1
    rotated = tmp_path / PROGRESS / ".history" / "state.json-20261127T000000Z-x.jsonl"
    rotated.parent.mkdir()
    rotated.write_text("".join(line + "\n" for line in older))
    kept = [line for i, line in enumerate(lines) if i not in entries[:3]]
    kept = [line for line in kept if not line.startswith('  "attempts"')]
    state.write_text("\n".join(kept)[:-3])  # the newest M1, R1, M1 and a file cut short
    said = _repair(tmp_path, code=True)
    assert "Restored attempts = 2: the history shows at least 2 (rule R1 twice" in said
    assert json.loads(state.read_text())["attempts"] == 2


def test_repair_of_the_shipped_session_counts_attempts_from_the_select_that_set_them(
    tmp_path: Path,
) -> None:
    """The shipped session's Select says `Reset attempts to 1` in the core's words, so the
    history tells attempts exactly; the feature it chose came from a query of the feature
    list, whose result the cast kept in its history entry."""
    state = _session_failing_twice(tmp_path)
    kept = _written_before_entries_kept_fields(json.loads(state.read_text()), ("feature_id",))
    chosen = kept["feature_id"]
    kept["attempts"] = "three"
    del kept["feature_id"]
    state.write_text(json.dumps(kept, indent=2))
    said = _repair(tmp_path)
    assert "Restored attempts = 3 from the history (rule R1 twice, since rule S2 set it to 1)" in (
        said
    )
    assert (
        f'Restored feature_id = "{chosen}" from the history (rule S2 set it to "{chosen}")'
    ) in said, said
    repaired = json.loads(state.read_text())
    assert (repaired["attempts"], repaired["feature_id"]) == (3, chosen)


def test_a_state_file_the_files_contradict_is_kept_and_said_with_the_state_they_show(
    tmp_path: Path,
) -> None:
    # state.json edited by hand (or merged) to say the criteria are all met, while
    # plan.md has none: status, a cast and repair say what the files say, and the
    # state file that can be read is never replaced.
    write(tmp_path, "plan.md", "# Plan\n\nNothing yet.\n")
    set_state(tmp_path, "ACHIEVE_COMPLETE")
    unmet = "The files do not match ACHIEVE_COMPLETE's Indicators: plan.md has no acceptance"
    status = spell(tmp_path, "status")
    assert status.returncode == 0 and unmet in status.stdout
    as_json = json.loads(spell(tmp_path, "status", "--json").stdout)
    assert as_json["unmet"][0] == "plan.md has no acceptance criteria"
    assert unmet in spell(tmp_path, "lumos").stdout
    before = files(tmp_path)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "is fine: the workflow is in ACHIEVE_COMPLETE, but the files do not match" in (
        repaired.stdout
    )
    assert "They match GATHER_EDITING's (plan.md exists)" in repaired.stdout
    assert "set `current_state` in it" in repaired.stdout
    assert files(tmp_path) == before


def test_files_that_match_the_state_are_not_said_to_contradict_it(tmp_path: Path) -> None:
    write(tmp_path, "plan.md", plan(checked=1, unchecked=0))
    set_state(tmp_path, "ACHIEVE_COMPLETE")
    assert json.loads(spell(tmp_path, "status", "--json").stdout)["unmet"] == []
    assert "do not match" not in spell(tmp_path, "lumos").stdout
    repaired = spell(tmp_path, "repair")
    assert repaired.stdout.strip().endswith("ACHIEVE_COMPLETE; nothing to repair")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("F" * 200_000, 'its entry says "FFFF'),  # a value too long for a state file to hold
        (-5, "its entry says -5, which attempts cannot be"),
        ("3", 'its entry says "3", which attempts cannot be'),
    ],
)
def test_repair_never_restores_what_a_history_entry_keeps_that_no_field_can_take(
    tmp_path: Path, value: object, said: str
) -> None:
    # A 10 MB value planted in the newest entry's "changed" was restored, and the state
    # file written, with it twice (the field, the repair's entry), too large to be read:
    # every cast refused it, and every repair made it larger.
    state = _session_failing_twice(tmp_path, code=True)
    kept = json.loads(state.read_text())
    newest = next(e for e in reversed(kept["history"]) if e.get("changed"))
    name = "attempts" if isinstance(value, int) or value == "3" else "feature_id"
    newest["changed"] = {name: value}
    kept["attempts"] = "three"
    del kept["feature_id"]
    state.write_text(json.dumps(kept, indent=2))
    text = _repair(tmp_path, code=True)
    assert said in " ".join(text.split()), text
    repaired = json.loads(state.read_text())
    assert repaired.get(name) != value  # the entry itself stays in the history kept
    assert [json.dumps(value) in json.dumps(e) for e in repaired["history"]].count(True) == 1


def test_repair_says_an_older_history_folder_that_is_a_link_was_not_read(tmp_path: Path) -> None:
    # a .history that is a link was skipped with no word: "nothing kept names it"
    state = _session_failing_twice(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / PROGRESS / ".history").symlink_to(elsewhere)
    state.write_bytes(b'{"state": "TEST", ' + b"\0" * 64)
    said = _repair(tmp_path)
    assert (
        "Did not read .claude/progress/.history/: it is a link, which repair does not follow"
        in (" ".join(said.split()))
    ), said


def test_a_cast_copied_into_an_older_history_file_keeps_its_newest_place(
    tmp_path: Path,
) -> None:
    # A copy of the newest entry (R1, attempts 3) planted in .history took the place of
    # its first copy: the replay ended on the older R1, and restored attempts = 2.
    state = _session_failing_twice(tmp_path, code=True)
    kept = json.loads(state.read_text())
    newest_r1 = [e for e in kept["history"] if e["rule"] == "R1"][-1]
    assert newest_r1["changed"] == {"attempts": 3}
    rotated = tmp_path / PROGRESS / ".history" / "state.json-20261127T000000Z-x.jsonl"
    rotated.parent.mkdir()
    rotated.write_text(json.dumps({**newest_r1, "changed": {"attempts": 0}}) + "\n")
    kept["attempts"] = "three"
    state.write_text(json.dumps(kept, indent=2))
    said = _repair(tmp_path, code=True)
    assert json.loads(state.read_text())["attempts"] == 3, said


@pytest.mark.parametrize("opened_with_a_key", [False, True])
def test_a_key_inside_an_object_written_over_lines_is_no_field_of_the_state_file(
    tmp_path: Path, opened_with_a_key: bool
) -> None:
    # `"context": {` then its keys at the top level's indent: repair said the state file
    # holds feature_id "PT-002", which only the object inside it held.
    state = _session_failing_twice(tmp_path)
    chosen = json.loads(state.read_text())["feature_id"]
    lines = [
        line
        for line in state.read_text().splitlines()
        if not line.startswith(('  "feature_id"', '  "attempts"'))
    ]
    nested = ['  "context": {', '  "attempts": 0,', '  "feature_id": "PT-002"', "  },"]
    if opened_with_a_key:  # the object's first key on its key's line
        nested[0] = '  "context": {"note": "x",'
    state.write_text("\n".join([lines[0], *nested, *lines[1:]])[:-3] + "GARBAGE")
    said = _repair(tmp_path)
    assert "PT-002" not in said and "holds 0" not in said, said
    repaired = json.loads(state.read_text())
    assert (repaired["feature_id"], repaired["attempts"]) == (chosen, 3), said


def test_a_repair_cut_short_leaves_the_damaged_file_for_the_next_repair_to_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A repair killed after setting the damaged file aside (and before writing the new
    # one) left no state file: the next repair chose a state from the files, not the one
    # the damaged file named.
    from spellbook import Workflow
    from spellbook.cast.repair import Repair

    executed(tmp_path)
    (tmp_path / TASK / "comments.md").write_text("a comment\n")
    state = tmp_path / TASK / "state.json"
    state.write_text('{"current_state": "PR_GATHERING_COMMENTS_A", "history": [')
    damaged = state.read_bytes()

    def killed(self: Repair, *args: object) -> None:
        raise KeyboardInterrupt  # the process stops here

    monkeypatch.setattr(Repair, "_restart", killed)
    with pytest.raises(KeyboardInterrupt):
        Workflow(tmp_path).repair()
    monkeypatch.undo()
    assert state.read_bytes() == damaged  # still there, as it was
    said = Workflow(tmp_path).repair()
    assert "Chose PR_GATHERING_COMMENTS_A: the damaged file still names it" in said
    assert Workflow(tmp_path).state == "PR_GATHERING_COMMENTS_A"
    kept = sorted((tmp_path / TASK).glob("state.json.bad-*"))
    assert kept and all(k.read_bytes() == damaged for k in kept)
