"""examples/release: a workflow with no Python, driven through real files by `spell`.

The example is copied into a new git repository; its committed generated module
must be fresh, and every cast goes through the front door (`spell --machine
release`, and the project's default from a subfolder), as docs/guide/your-own-workflow.md
tells a newcomer to run it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_BLOCKED, EXIT_OK
from tests.cli.test_project_machines import compiler, spell
from tests.support.commands import clean

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "release"


def test_the_example_is_sound_and_its_generated_machine_fresh() -> None:
    fresh = compiler(EXAMPLE, "generate", "--check")
    assert fresh.returncode == 0, fresh.stderr
    verified = compiler(EXAMPLE, "verify", "--spec", "spec/RELEASE.md")
    assert verified.returncode == 0 and "0 errors, 0 warnings" in verified.stdout


def test_a_release_from_cut_to_shipped_through_real_files(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".git").mkdir()
    (repo / "src").mkdir()
    work = repo / ".release"

    def cast(*args: str, where: Path = repo, code: int = EXIT_OK) -> str:
        done = spell(where, *args)
        assert done.returncode == code, done.stdout + clean(done)
        return done.stdout

    def state() -> str:
        found: str = json.loads((work / "state.json").read_text())["current_state"]
        return found

    assert "Write the release notes" in cast("--machine", "release", "cut")
    assert state() == "WRITING"
    template = (EXAMPLE / "spec" / "templates" / "notes.md").read_text()
    assert (work / "notes.md").read_text() == template
    assert "still the template" in cast("sign", where=repo / "src")  # the default machine
    assert state() == "WRITING"
    (work / "notes.md").write_text("# Release notes\n\nFaster start.\n")
    assert "version heading" in cast("sign")
    (work / "notes.md").write_text("# Release notes\n\n## 1.4.0\n\nFaster start.\n")
    assert "sign-off" in cast("sign")
    assert state() == "SIGNING"
    assert json.loads((work / "signoff.json").read_text())["approved_by"] == ""
    assert "Nobody has signed" in cast("ship")
    assert "blocked" in cast("cut", code=EXIT_BLOCKED).lower()
    signoff = json.loads((work / "signoff.json").read_text())
    (work / "signoff.json").write_text(json.dumps({**signoff, "approved_by": "ana"}))
    assert "Shipped" in cast("ship")
    assert state() == "IDLE"
    (folder,) = (work / "shipped").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["notes.md", "signoff.json"]
    assert "## 1.4.0" in (folder / "notes.md").read_text()
    assert not (work / "notes.md").exists()

    # Scrapping a release keeps its files, in the trash.
    cast("cut")
    (work / "notes.md").write_text("# Release notes\n\n## 1.5.0\n\nDraft.\n")
    assert "scrapped" in cast("scrap")
    assert state() == "IDLE" and not (work / "notes.md").exists()
    trashed = list((work / ".trash").rglob("notes.md"))
    assert [p.read_text() for p in trashed] == ["# Release notes\n\n## 1.5.0\n\nDraft.\n"]


@pytest.mark.parametrize(
    "actions",
    [
        "(1) Delete generated/release.py; (2) Move notes.md to generated/release.py",
        "Move notes.md to pyproject.toml",
        "Copy notes.md to .claude/settings.json",
        "Archive notes.md to `generated/`",
    ],
    ids=["the generated machine", "pyproject.toml", "Claude Code's settings", "archived there"],
)
def test_no_cast_writes_a_file_code_or_settings_are_taken_from(
    tmp_path: Path, actions: str
) -> None:
    # With its workspace at the repository's top, a rule could move a file the AI wrote
    # over the generated machine (which the next `spell` runs), pyproject.toml or Claude
    # Code's settings: each a file the hook refuses to a hand.
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".git").mkdir()
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text("{}\n")
    spec = repo / "spec" / "RELEASE.md"
    text = spec.read_text().replace("`.release/state.json`", "`state.json`")
    scrap = "| Delete notes.md and signoff.json |"
    assert scrap in text
    spec.write_text(text.replace(scrap, f"| {actions} |"))
    verified = compiler(repo, "verify", "--spec", "spec/RELEASE.md")
    assert verified.returncode == 1 and "[action_path]" in verified.stdout
    assert "a file Spellbook or Claude Code takes code or settings from" in verified.stdout
    # generated all the same (or written by hand): the runtime refuses the cast
    config = repo / "pyproject.toml"
    config.write_text(
        config.read_text().replace('vocabulary = ""', 'vocabulary = "", allow_errors = true')
    )
    assert compiler(repo, "generate").returncode == 0
    assert spell(repo, "cut").returncode == EXIT_OK
    (repo / "notes.md").write_text(f'open({str(tmp_path / "ran")!r}, "w").write("ran")\n')
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    refused = spell(repo, "scrap")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    said = clean(refused)
    assert "takes code or settings from" in said and "no file or state was changed" in said
    after = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    assert {p: b for p, b in after.items() if "state.json" not in p.name} == {
        p: b for p, b in before.items() if "state.json" not in p.name
    }
    assert spell(repo, "status").returncode == EXIT_OK
    assert not (tmp_path / "ran").exists()
