"""A machine's own state fields with no Python: a counter the spec compares and counts
is a whole number from 0 (`Increment`, `Reset`), and time in a state is recorded
whenever a condition asks for it, whether or not the State Persistence example shows
the field."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

import json
from pathlib import Path

import pytest

from spellbook.exits import EXIT_BAD_INPUT, EXIT_BLOCKED, EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.commands import clean

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


def test_a_counter_that_is_not_a_whole_number_is_refused_naming_it(retry: Path) -> None:
    cast(retry, "nudge")
    state = retry / ".retry" / "state.json"
    state.write_text(json.dumps({**fields(retry), "rounds": "two"}))
    done = spell(retry, "--machine", "retry", "try")
    assert done.returncode == EXIT_BAD_INPUT
    assert "rounds must be a whole number" in done.stderr


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
