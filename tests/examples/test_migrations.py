"""examples/migrations: a schema migration workflow with no Python, driven through real
files by `spell`.

The example is copied into a new git repository; its committed generated module must
be fresh, and every cast goes through the front door (`spell --machine migrations`,
and the project's default from a subfolder). It asks for two approvals (a count of a
JSON list's items), a down migration for every up migration and a script to run them
in the repository's own folders (`/sql/`, `/scripts/`, outside the workspace), and
records the plan's tables in a ledger, only those named under its "Tables" heading.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from spellbook.records.exits import EXIT_BLOCKED, EXIT_OK
from tests.cli.test_project_machines import compiler, spell
from tests.support.commands import clean

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "migrations"
TEMPLATES = EXAMPLE / "spec" / "templates"

PLAN = """\
# Migration plan

## Tables

- orders
- invoices

## Notes

- a backup of the database is taken first
- the on-call engineer is told
"""


def test_the_example_is_sound_and_its_generated_machine_fresh() -> None:
    fresh = compiler(EXAMPLE, "generate", "--check")
    assert fresh.returncode == 0, fresh.stderr
    verified = compiler(EXAMPLE, "verify", "--spec", "spec/MIGRATIONS.md")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "0 errors, 0 warnings, 0 info" in verified.stdout


def test_the_verifier_knows_the_record_leaves_the_tables_listed(tmp_path: Path) -> None:
    """Indicators of APPLIED that say a table is still not listed, after the Record of
    the section, are found; saying it of another section is not."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__"))
    spec = project / "spec" / "MIGRATIONS.md"
    listed = 'every match of `^- (\\w+)$` under "Tables" in plan.md is listed in `.applied`'
    text = spec.read_text()
    assert listed in text
    spec.write_text(text.replace(listed, "a new table", 1))
    verified = compiler(project, "verify", "--spec", "spec/MIGRATIONS.md")
    assert "indicators_broken" in verified.stdout
    assert "but action (1) records them" in verified.stdout
    spec.write_text(text.replace(listed, listed.replace('"Tables"', '"Notes"'), 1))
    verified = compiler(project, "verify", "--spec", "spec/MIGRATIONS.md")
    assert "indicators_broken" not in verified.stdout


def test_a_migration_from_plan_to_applied_through_real_files(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "src").mkdir()
    sql, scripts = repo / "sql", repo / "scripts"
    sql.mkdir()
    scripts.mkdir()
    work = repo / ".migrate"

    def cast(*args: str, where: Path = repo, code: int = EXIT_OK) -> str:
        done = spell(where, *args)
        assert done.returncode == code, done.stdout + clean(done)
        return done.stdout

    def state() -> str:
        found: str = json.loads((work / "state.json").read_text())["current_state"]
        return found

    def approve(*names: str) -> None:
        (work / "review.json").write_text(json.dumps({"approvals": list(names)}))

    assert "Name the tables" in cast("--machine", "migrations", "plan")
    assert state() == "PLANNING"
    assert (work / "plan.md").read_text() == (TEMPLATES / "plan.md").read_text()
    # The notes alone name no table: `a` and `the` are not tables.
    (work / "plan.md").write_text(PLAN.replace("- orders\n- invoices\n", ""))
    assert "names no table" in cast("review", where=repo / "src")  # the default machine
    assert state() == "PLANNING"
    (work / "plan.md").write_text(PLAN)
    assert "Ask two reviewers" in cast("review")
    assert state() == "REVIEW"
    assert json.loads((work / "review.json").read_text()) == {"approvals": []}

    # Fewer than two approvals: refused, saying why; the ledger is not written.
    assert "blocked" in cast("plan", code=EXIT_BLOCKED).lower()
    (sql / "001.up.sql").write_text("CREATE TABLE orders (id int);\n")
    (sql / "001.down.sql").write_text("DROP TABLE orders;\n")
    (scripts / "migrate.sh").write_text("#!/bin/sh\n")
    approve("ana")
    assert "Two reviewers must approve" in cast("apply")
    assert state() == "REVIEW" and not (work / ".applied").exists()

    # Two approvals, but an up migration without its down: refused.
    approve("ana", "bo")
    (sql / "002.up.sql").write_text("CREATE TABLE invoices (id int);\n")
    assert "has no sql/NNN.down.sql" in cast("apply")
    assert state() == "REVIEW" and not (work / ".applied").exists()
    (sql / "002.down.sql").write_text("DROP TABLE invoices;\n")

    # No script in the repository's scripts/ folder: refused.
    (scripts / "migrate.sh").unlink()
    assert "No script in scripts/" in cast("apply")
    (scripts / "migrate.sh").write_text("#!/bin/sh\n")

    # Applied: the tables under "Tables" are recorded, the notes' words are not.
    assert "Applied" in cast("apply")
    assert state() == "APPLIED"
    assert (work / ".applied").read_text() == "orders\ninvoices\n"
    assert "Done" in cast("finish")
    assert state() == "IDLE"
    (folder,) = (work / "done").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["plan.md", "review.json"]

    # The next migration: a table applied before is not new; only a new one is.
    cast("plan")
    (work / "plan.md").write_text(PLAN.replace("- invoices\n", ""))
    assert "names no table" in cast("review")
    (work / "plan.md").write_text(PLAN.replace("- invoices\n", "- refunds\n"))
    assert "Ask two reviewers" in cast("review")
    approve("ana", "bo", "cy")
    assert "Applied" in cast("apply")
    assert (work / ".applied").read_text() == "orders\ninvoices\nrefunds\n"
