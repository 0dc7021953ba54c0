"""`the last run of `KEY` passed`: what the state file records of the last run of a
command, read without running it again; a gap that only it leaves is found."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

from pathlib import Path

from spellbook.records.exits import EXIT_OK
from tests.cli.test_project_machines import compiler, generate, run
from tests.support.commands import clean

GATE = """\
# Gate

## Machine

### Spells

1. **Check**
   - *Description*: run the tests
2. **Ship**
   - *Description*: ship if the last test run passed

### States

1. **WORK**
    - *Description*: working
    - *Indicators*: -
    - *Valid Actions*: Check, Ship
2. **SHIPPED**
    - *Description*: shipped
    - *Indicators*: -
    - *Valid Actions*: Check
    - *Goal*: yes

### State Persistence

The state is kept in `.gate/state.json`.

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| C1 | WORK, SHIPPED | Check | the command `test` of cfg.json passes | Same state | No state change | Green. |
| C2 | WORK, SHIPPED | Check | the command `test` of cfg.json fails | Same state | No state change | Red. |
| S1 | WORK | Ship | the last run of `test` passed | SHIPPED | - | Shipped. |
MISSING
| B1 | SHIPPED | Ship | - | [BLOCKED] | - | Shipped already. |
"""
NOT_PASSED = "| S2 | WORK | Ship | the last recorded run of `test` did not pass | Same state | No state change | Run Check until it is green. |\n"


def project(tmp_path: Path, rows: str) -> Path:
    root = tmp_path / "gate"
    (root / "spec").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "GATE.md").write_text(GATE.replace("MISSING\n", rows))
    (root / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\ngate = { spec = "spec/GATE.md", vocabulary = "" }\n'
    )
    return root


def test_a_gap_that_only_the_last_run_leaves_is_found(tmp_path: Path) -> None:
    verified = compiler(project(tmp_path, ""), "verify", "--spec", "spec/GATE.md")
    assert verified.returncode == 1 and "[gap]" in verified.stdout, clean(verified)
    assert "the last recorded run of `test` did not pass" in verified.stdout


def test_ship_reads_the_last_run_without_running_it_again(tmp_path: Path) -> None:
    root = project(tmp_path, NOT_PASSED)
    verified = compiler(root, "verify", "--spec", "spec/GATE.md")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    generate(root)

    def cast(spell: str, test: str) -> str:
        done = run(
            root, "-m", "spellbook", "--machine", "gate", spell, env={"SPELLBOOK_TEST": test}
        )
        assert done.returncode == EXIT_OK, done.stdout + clean(done)
        return done.stdout

    assert "Run Check until it is green" in cast("ship", "true")  # never run: not passed
    assert "Red." in cast("check", "false")
    assert "Run Check until it is green" in cast("ship", "true")  # not run again by Ship
    assert "Green." in cast("check", "true")
    assert "Shipped." in cast("ship", "false")  # the recorded run, not this command
