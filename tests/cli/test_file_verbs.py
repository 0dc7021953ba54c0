"""The core's verbs that edit files, with no Python: copy, move (rename), append a line,
set a JSON field, and extract a JSON value for a name; each through a generated machine
and real files, and never losing a file."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

import json
from pathlib import Path

from spellbook.exits import EXIT_BAD_INPUT, EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.commands import clean

RELEASE = """\
# Release

## Machine

### Spells

1. **Open**
   - *Description*: start the release's files
2. **Close**
   - *Description*: record the release and file its notes

### States

1. **SHUT**
    - *Description*: no release open
    - *Indicators*: release.json missing
    - *Valid Actions*: Open
2. **OPEN**
    - *Description*: a release is open
    - *Indicators*: release.json exists
    - *Valid Actions*: Close
    - *Goal*: yes

### State Persistence

The state is kept in `.rel/state.json`.

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| O1 | SHUT | Open | - | OPEN | (1) Create release.json from templates/release.json; (2) Copy `NOTES.md` to notes-draft.md | Write the release's version in .rel/release.json. |
| C1 | OPEN | Close | release.json has `version` | SHUT | (1) Extract version from release.json; (2) Append "${version} shipped ${date}" to CHANGES.md; (3) Set shipped in release.json to true; (4) Move release.json to shipped/; (5) Rename notes-draft.md to notes-${version}.md | Shipped. |
| C2 | OPEN | Close | release.json has no `version` | Same state | No state change | Write the version first. |
| B1 | SHUT | Close | - | [BLOCKED] | - | Open a release first. |
| B2 | OPEN | Open | - | [BLOCKED] | - | A release is open. |
"""


def project(tmp_path: Path) -> Path:
    root = tmp_path / "rel"
    (root / "spec" / "templates").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "RELEASE.md").write_text(RELEASE)
    (root / "spec" / "templates" / "release.json").write_text('{\n  "version": ""\n}\n')
    (root / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\nrel = { spec = "spec/RELEASE.md", vocabulary = "" }\n'
    )
    return root


def test_copy_append_set_move_and_rename_through_real_files(tmp_path: Path) -> None:
    root = project(tmp_path)
    verified = compiler(root, "verify", "--spec", "spec/RELEASE.md")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    assert "unknown_action" not in verified.stdout
    generate(root)
    work = root / ".rel"
    work.mkdir()
    (work / "NOTES.md").write_text("# Notes\n\nFaster.\n")
    (work / "CHANGES.md").write_text("0.9 shipped long ago")  # no final newline

    def cast(spell_name: str, code: int = EXIT_OK) -> str:
        done = spell(root, "--machine", "rel", spell_name)
        assert done.returncode == code, done.stdout + clean(done)
        return done.stdout + done.stderr

    said = cast("open")
    assert "copied `.rel/NOTES.md` to `.rel/notes-draft.md`" in said
    assert (work / "notes-draft.md").read_text() == "# Notes\n\nFaster.\n"
    assert "Write the version first" in cast("close")
    (work / "release.json").write_text('{"version": "1.2.0", "team": "core"}')
    said = cast("close")
    assert "appended a line to `.rel/CHANGES.md`" in said and "set shipped in" in said
    changes = (work / "CHANGES.md").read_text().splitlines()
    assert changes[0] == "0.9 shipped long ago" and changes[1].startswith("1.2.0 shipped 20")
    shipped = json.loads((work / "shipped" / "release.json").read_text())
    assert shipped == {"version": "1.2.0", "team": "core", "shipped": True}
    assert not (work / "release.json").exists()
    assert (work / "notes-1.2.0.md").read_text() == "# Notes\n\nFaster.\n"
    assert not (work / "notes-draft.md").exists()
    # The next release: its notes copy is kept if one is there; a move never overwrites.
    (work / "notes-draft.md").write_text("kept\n")
    assert "kept `.rel/notes-draft.md` as it is" in cast("open")
    assert (work / "notes-draft.md").read_text() == "kept\n"
    (work / "release.json").write_text('{"version": "1.2.0"}')
    refused = cast("close", code=EXIT_BAD_INPUT)
    assert "is already there" in refused and "would lose one of them" in refused
    assert (work / "release.json").is_file()  # nothing changed
    assert (work / "CHANGES.md").read_text().count("1.2.0 shipped") == 1


def test_a_set_field_on_a_file_that_is_not_json_is_refused_with_nothing_changed(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    generate(root)
    work = root / ".rel"
    work.mkdir()
    (work / "NOTES.md").write_text("n\n")
    assert spell(root, "--machine", "rel", "open").returncode == EXIT_OK
    (work / "release.json").write_text('{"version": "2.0"}')
    (work / "CHANGES.md").write_text("")
    (work / "shipped").mkdir()
    (work / "shipped" / "release.json").write_text("{}")  # the move would overwrite
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file() and p.name != "state.json"}
    done = spell(root, "--machine", "rel", "close")
    assert done.returncode == EXIT_BAD_INPUT, clean(done)
    after = {p: p.read_bytes() for p in work.rglob("*") if p.is_file() and p.name != "state.json"}
    assert after == before
