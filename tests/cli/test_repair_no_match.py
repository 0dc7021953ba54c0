"""`spell repair` when no state's Indicators match the files and the files rule the
initial state out: it starts the state file in the initial state and says what does
not fit, so casts are not refused forever (before: "nothing to repair", while every
cast said "run spell repair")."""

from __future__ import annotations

from pathlib import Path

from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_OK
from tests.cli.test_project_machines import DOOR, PYPROJECT, generate, spell
from tests.support.commands import clean

# OPEN's Indicators hold an OR: repair cannot choose it from the files.
UNREADABLE = DOOR.replace(
    "    - *Indicators*: `.door/open.flag` exists\n",
    "    - *Indicators*: `.door/open.flag` exists AND (key.txt exists OR bell.txt exists)\n",
)


def test_repair_starts_in_the_initial_state_and_says_the_files_do_not_fit(
    tmp_path: Path,
) -> None:
    assert UNREADABLE != DOOR
    root = tmp_path / "house"
    (root / "spec").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "DOOR.md").write_text(UNREADABLE)
    (root / "pyproject.toml").write_text(PYPROJECT)
    generate(root)
    (root / ".door").mkdir()
    (root / ".door" / "open.flag").write_text("")
    refused = spell(root, "status")
    assert refused.returncode == EXIT_BAD_INPUT and "run `spell repair`" in refused.stderr
    repaired = spell(root, "repair")
    assert repaired.returncode == EXIT_OK, clean(repaired)
    said = repaired.stdout
    assert "no state's Indicators match the files" in said
    assert "Chose CLOSED, the initial state" in said and "open.flag exists" in said
    assert (root / ".door" / "state.json").is_file()
    assert spell(root, "status").returncode == EXIT_OK
    again = spell(root, "repair").stdout  # the file is fine now; the files still do not fit
    assert "is fine: the workflow is in CLOSED, but the files do not match its Indicators" in again
    assert "(open.flag exists)" in again and "They match" not in again
