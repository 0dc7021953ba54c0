"""A third workflow, written by a newcomer from the docs alone with no Python: a
dependency upgrade with its own column names, templates, a checklist gate, a
command's outcome, a retry counter reset per batch, a ledger of upgraded packages,
a stale check on time in a state, and archives (tests/examples/newcomer_upgrade).
Driven through real files by `spell`, as the newcomer did."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from spellbook.records.exits import EXIT_BLOCKED, EXIT_OK
from tests.cli.test_project_machines import compiler, generate, run
from tests.support.commands import clean

WORKFLOW = Path(__file__).resolve().parent / "newcomer_upgrade"


def test_the_newcomer_s_upgrade_workflow_runs_from_proposal_to_archive(tmp_path: Path) -> None:
    repo = tmp_path / "upgrade"
    shutil.copytree(WORKFLOW, repo)
    (repo / ".git").mkdir()
    verified = compiler(repo, "verify", "--spec", "spec/UPGRADE.md")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    # Verified with 0 warnings when it was written; IDLE and DONE have the same
    # Indicators, which the verifier has said since (repair could not tell them apart).
    assert "0 errors, 1 warning" in verified.stdout
    assert "states IDLE and DONE: their Indicators say the same" in verified.stdout
    generate(repo)
    work = repo / ".upgrade"

    def cast(spell: str, code: int = EXIT_OK, tests: str = "true") -> str:
        done = run(repo, "-m", "spellbook", spell, env={"SPELLBOOK_TEST_COMMAND": tests})
        assert done.returncode == code, done.stdout + clean(done)
        return done.stdout

    def state() -> tuple[str, object]:
        found = json.loads((work / "state.json").read_text())
        return found["state"], found.get("retries")

    def batch(name: str, *packages: str) -> None:
        ticked = "".join(f"- [x] {p}\n" for p in packages)
        (work / "batch.md").write_text(f"---\nbatch: {name}\n---\n\n## Packages\n\n{ticked}")

    cast("propose")
    assert state() == ("DRAFTING", 0)
    # The way on depends on the tests, which no preview runs: it is still a next step.
    way_on = r"and the tests pass( \(keeping: [^)]*\))?, cast \*\*Test\*\*: moves to \*\*PASSED\*\*"
    assert re.search(way_on, cast("check"))
    assert "List at least one package" in cast("test")  # the template's empty item
    batch("web", "requests", "httpx")
    assert "recorded in upgraded.txt" in cast("test")
    assert state()[0] == "PASSED"
    assert (work / "upgraded.txt").read_text() == "requests\nhttpx\n"
    cast("archive")
    assert sorted(p.name for p in (work / "archive" / "web").iterdir()) == [
        "batch.md",
        "tests.json",
    ]
    cast("propose")
    batch("again", "requests")  # already upgraded: the ledger refuses to repeat it
    assert "already in the ledger" in cast("test")
    batch("db", "sqlalchemy")
    for retries in (1, 2, 3):
        cast("test", tests="false")
        assert state() == ("FAILING", retries)
    assert "abandoned" in cast("test", tests="false")
    assert state()[0] == "ABANDONED"
    cast("test", code=EXIT_BLOCKED)
    cast("archive")
    assert state()[0] == "IDLE"
    cast("propose")
    assert state() == ("DRAFTING", 0)  # the next batch's retries start again
    assert (work / "upgraded.txt").read_text() == "requests\nhttpx\n"
