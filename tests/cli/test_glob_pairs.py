"""Pairs of globs with no Python: `every sql/*.up.sql has a sql/*.down.sql` and its
negation, proven by the verifier (the gap a missing row leaves is found in the fact's
words; an action that makes a down script is not said to break the pair) and driven
through `spell --machine` over real files: the gate refuses while an up script lacks
its down script, and lets the migrations through once it is written."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.support.commands import clean

MIGRATIONS = """\
# Migrations

## Machine

### Spells

1. **Apply**
   - *Description*: apply the migrations, each with the script that undoes it
2. **Stub**
   - *Description*: write an empty down script for migration 003

### States

1. **WRITING**
    - *Description*: migrations are written in sql/
    - *Valid Actions*: Apply, Stub
2. **APPLIED**
    - *Description*: the migrations are applied
    - *Indicators*: every `sql/*.up.sql` has a `sql/*.down.sql`
    - *Valid Actions*: Apply, Stub
    - *Goal*: yes

### State Persistence

The state is kept in `.mig/state.json`:

```json
{ "current_state": "WRITING" }
```

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| A1 | WRITING | Apply | every `sql/*.up.sql` has a `sql/*.down.sql` | APPLIED | - | Applied. |
| A2 | WRITING | Apply | some `sql/*.up.sql` has no `sql/*.down.sql` | [BLOCKED] | - | Write the down script of every up script first. |
| A3 | APPLIED | Apply | - | Same state | - | Already applied. |
| S1 | WRITING | Stub | sql/003.up.sql exists AND sql/003.down.sql missing | APPLIED | Create sql/003.down.sql | Stubbed the down script of 003. |
| S2 | WRITING | Stub | sql/003.up.sql missing OR sql/003.down.sql exists | Same state | - | Nothing to stub. |
| S3 | APPLIED | Stub | - | Same state | - | Already applied. |
"""

PYPROJECT = """\
[project]
name = "migrations"
version = "0"

[tool.spellbook.machines]
migrations = { spec = "spec/MIGRATIONS.md", vocabulary = "" }
"""


def project(root: Path, spec: str = MIGRATIONS) -> Path:
    (root / "spec").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "MIGRATIONS.md").write_text(spec, encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return root


def verify(root: Path) -> tuple[int, str]:
    done = compiler(root, "verify", "--spec", "spec/MIGRATIONS.md")
    return done.returncode, done.stdout + clean(done)


def test_the_migrations_read_clean(tmp_path: Path) -> None:
    """Every cell is covered by the pair and its negation; S1 makes a down script and
    leads to APPLIED, whose Indicators say every up script has one: the pair may hold
    after it, so no finding says the action breaks them."""
    root = project(tmp_path / "m")
    status, said = verify(root)
    assert status == 0 and "0 errors, 0 warnings" in said, said
    assert "indicators_broken" not in said and "unknown_condition" not in said
    # `--explain` says each in the core's words, which read back as the same fact.
    explained = compiler(root, "verify", "--spec", "spec/MIGRATIONS.md", "--explain").stdout
    assert (
        "A1 fires in WRITING on Apply when: every `sql/*.up.sql` has a `sql/*.down.sql`;"
        in explained
    )
    assert (
        "A2 fires in WRITING on Apply when: some `sql/*.up.sql` has no `sql/*.down.sql`;"
        in explained
    )


def test_the_gap_a_missing_row_leaves_is_found_in_the_fact_s_words(tmp_path: Path) -> None:
    spec = MIGRATIONS.replace(MIGRATIONS.split("| A2 |")[1].join(("| A2 |", "")), "")
    assert "| A2 |" not in spec
    status, said = verify(project(tmp_path / "m", spec))
    assert status == 1, said
    (gap,) = [line for line in said.splitlines() if "[gap]" in line]
    assert "some `sql/*.up.sql` has no `sql/*.down.sql`" in gap, gap


def test_a_pair_written_with_two_stars_is_refused_naming_the_form_that_reads(
    tmp_path: Path,
) -> None:
    spec = MIGRATIONS.replace(
        "| A1 | WRITING | Apply | every `sql/*.up.sql` has",
        "| A1 | WRITING | Apply | every `sql/*/*.up.sql` has",
    )
    status, said = verify(project(tmp_path / "m", spec))
    assert status == 1, said
    assert "unknown_condition" in said
    assert "every sql/*.up.sql has a sql/*.down.sql" in said, said


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = project(tmp_path_factory.mktemp("generated") / "m")
    generate(root)
    return root


def cast(root: Path, spell_name: str, expected: str) -> str:
    done = spell(root, "--machine", "migrations", spell_name)
    said = done.stdout + clean(done)
    assert expected in said, said
    assert "Traceback" not in said
    return said


def test_the_gate_refuses_while_an_up_script_lacks_its_down_script(
    generated: Path, tmp_path: Path
) -> None:
    import shutil

    root = tmp_path / "m"
    shutil.copytree(generated, root)
    sql = root / ".mig" / "sql"
    sql.mkdir(parents=True)
    (sql / "001.up.sql").write_text("create table a (id int);\n")
    (sql / "001.down.sql").write_text("drop table a;\n")
    (sql / "002.up.sql").write_text("create table b (id int);\n")
    (sql / "2.down.sql").write_text("drop table b;\n")  # not 002's: another name
    cast(root, "apply", "Write the down script of every up script first")
    assert "WRITING" in cast(root, "status", "WRITING")
    (sql / "002.down.sql").write_text("drop table b;\n")
    done = spell(root, "--machine", "migrations", "apply")
    assert done.returncode == EXIT_OK, done.stdout + clean(done)
    assert "Applied." in done.stdout
    assert "APPLIED" in cast(root, "status", "APPLIED")


def test_a_cast_that_writes_the_down_script_lets_the_pair_hold(
    generated: Path, tmp_path: Path
) -> None:
    import shutil

    root = tmp_path / "m"
    shutil.copytree(generated, root)
    sql = root / ".mig" / "sql"
    sql.mkdir(parents=True)
    (sql / "003.up.sql").write_text("create table c (id int);\n")
    cast(root, "apply", "Write the down script of every up script first")
    done = spell(root, "--machine", "migrations", "stub")
    assert done.returncode == EXIT_OK, done.stdout + clean(done)
    assert (sql / "003.down.sql").exists()
    cast(root, "apply", "Already applied")
