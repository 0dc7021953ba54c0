"""The core's verbs that edit files, with no Python: copy, move (rename), append a line,
set a JSON field, and extract a JSON value for a name; each through a generated machine
and real files, and never losing a file."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

import json
from pathlib import Path

from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.support.commands import clean

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


FEATURES = """\
# Features

## Machine

### Spells

1. **Pass**
   - *Description*: the current feature's tests passed
2. **GiveUp**
   - *Description*: the current feature cannot be done

### States

1. **WORK**
    - *Description*: a feature is being built
    - *Indicators*: feature-list.json exists
    - *Valid Actions*: Pass, GiveUp
    - *Goal*: yes

### State Persistence

The state is kept in `.feat/state.json`:

```json
{
  "state": "WORK",
  "feature_id": "F1",
  "history": []
}
```

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| P1 | WORK | Pass | - | Same state | (1) Set `features[id=$feature_id].status` in feature-list.json to "tested"; (2) Append {"id": "$feature_id", "by": "pass"} to `done` in progress.json | Marked tested. |
| G1 | WORK | GiveUp | - | Same state | (1) Append "$feature_id" to `blocked` in progress.json; (2) Set `features[id=$feature_id].status` in feature-list.json to "blocked" | Marked blocked. |
"""


def test_a_list_item_is_marked_by_a_filter_and_an_item_appended_through_real_files(
    tmp_path: Path,
) -> None:
    root = tmp_path / "feat"
    (root / "spec").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "FEATURES.md").write_text(FEATURES)
    (root / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\nfeat = { spec = "spec/FEATURES.md", vocabulary = "" }\n'
    )
    verified = compiler(root, "verify", "--spec", "spec/FEATURES.md", "--explain")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    assert "unknown_action" not in verified.stdout and "instruction" not in verified.stdout
    assert '(2) Append {"id": "$feature_id", "by": "pass"} to `done` in progress.json' in (
        verified.stdout
    )
    generate(root)
    work = root / ".feat"
    work.mkdir()
    listed = work / "feature-list.json"
    listed.write_text(
        '{"features": [{"id": "F1", "status": "pending"}, {"id": "F2", "status": "pending"}]}\n'
    )

    def cast(spell_name: str, code: int = EXIT_OK) -> str:
        done = spell(root, "--machine", "feat", spell_name)
        assert done.returncode == code, done.stdout + clean(done)
        return done.stdout + done.stderr

    # No feature chosen yet: the Set names no item, so nothing is written.
    refused = cast("pass", code=EXIT_BAD_INPUT)
    assert "feature_id is not set in the state file" in refused
    assert "no file or state was changed" in refused
    assert json.loads(listed.read_text())["features"][1]["status"] == "pending"
    assert not (work / "progress.json").exists()
    state = json.loads((work / "state.json").read_text())
    (work / "state.json").write_text(json.dumps({**state, "feature_id": "F2"}))
    said = cast("pass")
    assert "set features[id=$feature_id].status in `.feat/feature-list.json`" in said
    assert "appended an item to done in `.feat/progress.json`" in said
    assert json.loads(listed.read_text()) == {
        "features": [{"id": "F1", "status": "pending"}, {"id": "F2", "status": "tested"}]
    }
    cast("giveup")
    assert json.loads(listed.read_text())["features"][1] == {"id": "F2", "status": "blocked"}
    assert json.loads((work / "progress.json").read_text()) == {
        "done": [{"id": "F2", "by": "pass"}],
        "blocked": ["F2"],
    }
    # Two features of one id: the append planned first is not written either.
    listed.write_text('{"features": [{"id": "F2"}, {"id": "F2"}]}')
    progress = (work / "progress.json").read_bytes()
    refused = cast("giveup", code=EXIT_BAD_INPUT)
    assert "2 items of `features` have id = F2 (`$feature_id`), where one is meant" in refused
    assert (work / "progress.json").read_bytes() == progress
    assert listed.read_text() == '{"features": [{"id": "F2"}, {"id": "F2"}]}'
