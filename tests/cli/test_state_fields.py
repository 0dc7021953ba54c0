"""A machine's own state fields with no Python: a counter the spec compares and counts
is a whole number from 0 (`Increment`, `Reset`), time in a state is recorded
whenever a condition asks for it, whether or not the State Persistence example shows
the field, and a field the example declares is set to a literal or to the first value
a query selects (``Set `feature_id` in the state file to ...``), for a later cast's
`$feature_id`."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_BLOCKED, EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.support.commands import clean

RETRY = """\
# Retry

## Machine

### Spells

1. **Try**
   - *Description*: try again, at most twice before giving up
2. **Restart**
   - *Description*: start over after giving up
3. **Nudge**
   - *Description*: ask whether the try has taken long

### States

1. **TRYING**
    - *Description*: trying
    - *Indicators*: ok.flag missing
    - *Valid Actions*: Try, Nudge
2. **DONE**
    - *Description*: it worked
    - *Indicators*: ok.flag exists
    - *Valid Actions*: Restart
    - *Goal*: yes
3. **GAVE_UP**
    - *Description*: too many tries
    - *Indicators*: ok.flag missing
    - *Valid Actions*: Restart

### State Persistence

The state is kept in `.retry/state.json`:

```json
{ "current_state": "TRYING", "rounds": 0 }
```

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| R1 | TRYING | Try | ok.flag exists | DONE | - | It worked. |
| R2 | TRYING | Try | ok.flag missing AND rounds < 2 | Same state | Increment rounds | Try once more. |
| R3 | TRYING | Try | ok.flag missing AND rounds ≥ 2 | GAVE_UP | - | Giving up. |
| R4 | DONE, GAVE_UP | Restart | - | TRYING | (1) Reset rounds; (2) Delete ok.flag | Starting over. |
| R5 | TRYING | Nudge | in this state for more than 60 minutes | Same state | No state change | Taking long. |
| R6 | TRYING | Nudge | in this state for 60 minutes or less | Same state | No state change | Still recent. |
| B1 | DONE, GAVE_UP | Try, Nudge | - | [BLOCKED] | - | Restart first. |
| B2 | TRYING | Restart | - | [BLOCKED] | - | Nothing to restart. |
"""

PYPROJECT = """\
[project]
name = "retry"
version = "0"

[tool.spellbook.machines]
retry = { spec = "spec/RETRY.md", vocabulary = "" }
"""


@pytest.fixture
def retry(tmp_path: Path) -> Path:
    root = tmp_path / "retry"
    (root / "spec").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "RETRY.md").write_text(RETRY)
    (root / "pyproject.toml").write_text(PYPROJECT)
    verified = compiler(root, "verify", "--spec", "spec/RETRY.md")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    generate(root)
    return root


def cast(root: Path, *args: str, code: int = EXIT_OK) -> str:
    done = spell(root, "--machine", "retry", *args)
    assert done.returncode == code, done.stdout + clean(done)
    return done.stdout


def fields(root: Path) -> dict[str, object]:
    found: dict[str, object] = json.loads((root / ".retry" / "state.json").read_text())
    return found


def test_a_counter_counts_from_zero_up_to_its_limit_and_is_reset(retry: Path) -> None:
    assert "Try: adds one to rounds" in cast(retry, "status")
    assert "Try once more" in cast(retry, "try")
    assert fields(retry)["rounds"] == 1
    cast(retry, "try")
    assert fields(retry)["rounds"] == 2
    assert "Giving up" in cast(retry, "try")
    assert fields(retry)["current_state"] == "GAVE_UP"
    cast(retry, "try", code=EXIT_BLOCKED)
    assert "sets rounds to 0" in cast(retry, "status")
    assert "Starting over" in cast(retry, "restart")
    assert (fields(retry)["current_state"], fields(retry)["rounds"]) == ("TRYING", 0)
    (retry / ".retry" / "ok.flag").write_text("")
    assert "It worked" in cast(retry, "try")


def test_a_counter_written_as_null_reads_as_zero(retry: Path) -> None:
    """State files written before a counter was counted hold null for it."""
    cast(retry, "nudge")
    state = retry / ".retry" / "state.json"
    state.write_text(json.dumps({**fields(retry), "rounds": None}))
    cast(retry, "try")
    assert fields(retry)["rounds"] == 1


@pytest.mark.parametrize(
    ("field", "value", "kind"),
    [
        # -1 written by hand was taken, granting more tries than the spec allows
        *[("rounds", v, "a whole number, 0 or more") for v in ("two", -1, 1.5, True)],
        # "not a time" was taken, and "in this state for more than N minutes" never held
        *[
            ("entered_at", v, "a time such as 2026-11-23T06:37:58Z")
            for v in ("not a time", 123, "2026-02-30T00:00:00Z")
        ],
    ],
)
def test_a_field_no_cast_would_write_is_refused_naming_it(
    retry: Path, field: str, value: object, kind: str
) -> None:
    cast(retry, "nudge")
    state = retry / ".retry" / "state.json"
    state.write_text(json.dumps({**fields(retry), field: value}))
    done = spell(retry, "--machine", "retry", "try")
    assert done.returncode == EXIT_BAD_INPUT
    assert f"{field} must be {kind}" in done.stderr


def test_time_in_a_state_is_recorded_though_the_example_does_not_show_it(retry: Path) -> None:
    assert "Still recent" in cast(retry, "nudge")
    entered = fields(retry)["entered_at"]
    assert isinstance(entered, str) and entered.endswith("Z")
    cast(retry, "try")  # stays in TRYING: the time it was entered is kept
    assert fields(retry)["entered_at"] == entered
    state = retry / ".retry" / "state.json"
    state.write_text(json.dumps({**fields(retry), "entered_at": "2020-01-01T00:00:00Z"}))
    assert "Taking long" in cast(retry, "nudge")
    assert "Nudge: no state change: taking long" in cast(retry, "status")  # previewed alike


def test_a_time_with_an_offset_is_read_at_its_offset(retry: Path) -> None:
    # `date -Iseconds` writes an offset, which was cut off: +14:00 is 14 hours earlier
    cast(retry, "nudge")
    state = retry / ".retry" / "state.json"
    soon = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 12 * 3600))
    state.write_text(json.dumps({**fields(retry), "entered_at": soon + "+14:00"}))
    assert "Taking long" in cast(retry, "nudge")  # two hours ago, not 12 hours ahead


FEATURES_SPEC = """\
# Features

## Machine

### Spells

1. **Next**
   - *Description*: choose the next pending feature
2. **Pass**
   - *Description*: the current feature's tests passed
3. **Drop**
   - *Description*: let go of the current feature

### States

1. **WORK**
    - *Description*: features are being built
    - *Indicators*: feature-list.json exists
    - *Valid Actions*: Next, Pass, Drop
    - *Goal*: yes

### State Persistence

The state is kept in `.feat/state.json`:

```json
{
  "state": "WORK",
  "feature_id": null,
  "history": []
}
```

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| N1 | WORK | Next | - | Same state | Set `feature_id` in the state file to the first `features[status=pending].id` of feature-list.json | Build it. |
| P1 | WORK | Pass | - | Same state | Set `features[id=$feature_id].status` in feature-list.json to "tested" | Marked tested. |
| D1 | WORK | Drop | - | Same state | Set `feature_id` in the state file to "none" | Dropped. |
"""


def _features(tmp_path: Path, spec: str = FEATURES_SPEC) -> Path:
    root = tmp_path / "feat"
    (root / "spec").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "FEATURES.md").write_text(spec)
    (root / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\nfeat = { spec = "spec/FEATURES.md", vocabulary = "" }\n'
    )
    return root


def test_a_cast_selects_the_next_pending_feature_and_a_later_cast_marks_it(
    tmp_path: Path,
) -> None:
    root = _features(tmp_path)
    verified = compiler(root, "verify", "--spec", "spec/FEATURES.md", "--explain")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    for kind in ("unknown_action", "unread_verb", "undefined_field", "never_set", "action_path"):
        assert kind not in verified.stdout, verified.stdout
    assert (
        "Set `feature_id` in the state file to the first `features[status=pending].id` of "
        "feature-list.json" in verified.stdout
    )
    generate(root)
    work = root / ".feat"
    work.mkdir()
    listed = work / "feature-list.json"
    listed.write_text(
        '{"features": [{"id": "F1", "status": "tested"}, {"id": "F2", "status": "pending"},'
        ' {"id": "F3", "status": "pending"}]}\n'
    )

    def cast(spell_name: str, code: int = EXIT_OK) -> str:
        done = spell(root, "--machine", "feat", spell_name)
        assert done.returncode == code, done.stdout + clean(done)
        return done.stdout + done.stderr

    def state() -> dict[str, object]:
        found: dict[str, object] = json.loads((work / "state.json").read_text())
        return found

    said = cast("next")
    assert "set feature_id in the state file to the first `features[status=pending].id`" in said
    assert state()["feature_id"] == "F2"
    cast("pass")
    assert [f["status"] for f in json.loads(listed.read_text())["features"]] == [
        "tested",
        "tested",
        "pending",
    ]
    cast("next")
    assert state()["feature_id"] == "F3"
    cast("pass")
    assert all(f["status"] == "tested" for f in json.loads(listed.read_text())["features"])
    # No pending feature is left: the cast stops, naming the query and the file, and the
    # state file keeps the feature it had.
    refused = cast("next", code=EXIT_BAD_INPUT)
    assert (
        "`features[status=pending].id` selects nothing in .feat/feature-list.json, so there is no first value"
        in refused
    )
    assert "no file or state was changed" in refused
    assert state()["feature_id"] == "F3"
    assert state()["history"][-1]["outcome"] == "failed"  # type: ignore[index]
    # A literal.
    cast("drop")
    assert state()["feature_id"] == "none"
    listed.unlink()  # no file: nothing selected, nothing written
    assert "(it is missing)" in cast("next", code=EXIT_BAD_INPUT)
    assert state()["feature_id"] == "none"


def test_a_first_value_no_field_can_hold_stops_the_cast_with_nothing_written(
    tmp_path: Path,
) -> None:
    root = _features(tmp_path)
    generate(root)
    work = root / ".feat"
    work.mkdir()
    (work / "feature-list.json").write_text('{"features": [{"id": {"a": 1}, "status": "pending"}]}')
    refused = spell(root, "--machine", "feat", "next")
    assert refused.returncode == EXIT_BAD_INPUT, clean(refused)
    assert "is an object, which a field of the state file cannot hold" in refused.stdout + (
        refused.stderr
    )
    assert json.loads((work / "state.json").read_text()).get("feature_id") is None


def test_the_state_file_s_own_keys_and_undeclared_fields_are_refused(tmp_path: Path) -> None:
    cell = "Set `feature_id` in the state file to the first `features[status=pending].id` of feature-list.json"
    refused = [
        ('Set `state` in the state file to "WORK"', "`state` is the state file's own"),
        ("Set `history` in the state file to null", "`history` is the state file's own"),
        ('Set `ticket` in the state file to "T1"', "`ticket` is not a field the State Persistence"),
        ('Set `state` in state.json to "X"', 'write ``Set `state` in the state file to "X"``'),
    ]
    for at, (written, said) in enumerate(refused):
        root = _features(tmp_path / str(at), FEATURES_SPEC.replace(cell, written))
        verified = compiler(root, "verify", "--spec", "spec/FEATURES.md")
        assert verified.returncode != EXIT_OK, verified.stdout
        assert "action_path" in verified.stdout and said in verified.stdout, verified.stdout


def test_repair_restores_a_field_set_to_a_literal_or_to_a_query_s_result_the_cast_kept(
    tmp_path: Path,
) -> None:
    root = _features(tmp_path)
    generate(root)
    work = root / ".feat"
    work.mkdir()
    (work / "feature-list.json").write_text('{"features": [{"id": "F2", "status": "pending"}]}')
    state = work / "state.json"

    def repaired() -> tuple[str, object]:
        lines = state.read_text().splitlines(keepends=True)
        # Damaged: the line of feature_id lost, and the file cut short.
        kept = [line for line in lines if not line.startswith('  "feature_id"')]
        state.write_text("".join(kept)[:-3])
        done = spell(root, "--machine", "feat", "repair")
        assert done.returncode == EXIT_OK, done.stdout + clean(done)
        return done.stdout, json.loads(state.read_text()).get("feature_id")

    assert spell(root, "--machine", "feat", "next").returncode == EXIT_OK
    said, value = repaired()
    assert 'Restored feature_id = "F2" from the history (rule N1 set it to "F2")' in said, said
    assert value == "F2"
    assert spell(root, "--machine", "feat", "drop").returncode == EXIT_OK
    said, value = repaired()
    assert 'Restored feature_id = "none" from the history (rule D1 set it to "none")' in said
    assert value == "none"
