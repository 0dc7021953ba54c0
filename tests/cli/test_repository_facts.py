"""Facts about files of the repository outside the workspace folder, named from the
repository's top with a leading `/` (`/tests/test_feature.py exists`), with no Python:
the verifier reads them, finds the gap a missing row leaves in their words, and refuses
an action that names one (actions change only the workspace); `spell --machine` in a
real git repository holds the gate until the test file is written at the repository's
top, and reads a link out of the repository as no file."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.support.commands import clean

FEATURE = """\
# Feature

## Machine

### Spells

1. **Test**
   - *Description*: move on to testing once the feature's tests are written

### States

1. **IMPLEMENT**
    - *Description*: the feature is written
    - *Valid Actions*: Test
2. **TEST**
    - *Description*: the feature's tests run
    - *Indicators*: `/tests/test_feature.py` exists
    - *Valid Actions*: Test
    - *Goal*: yes

### State Persistence

The state is kept in `.ai/task/state.json`:

```json
{ "current_state": "IMPLEMENT" }
```

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| T1 | IMPLEMENT | Test | `/tests/test_feature.py` exists | TEST | - | Tests written. |
| T2 | IMPLEMENT | Test | `/tests/test_feature.py` missing | [BLOCKED] | - | Write tests/test_feature.py first. |
| T3 | TEST | Test | - | Same state | - | Already testing. |
"""

PYPROJECT = """\
[project]
name = "feature"
version = "0"

[tool.spellbook.machines]
feature = { spec = "spec/FEATURE.md", vocabulary = "" }
"""


def project(root: Path, spec: str = FEATURE) -> Path:
    (root / "spec").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "spec" / "FEATURE.md").write_text(spec, encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return root


def verify(root: Path, *args: str) -> tuple[int, str]:
    done = compiler(root, "verify", "--spec", "spec/FEATURE.md", *args)
    return done.returncode, done.stdout + clean(done)


def with_rule(old: str, new: str) -> str:
    assert old in FEATURE
    return FEATURE.replace(old, new)


def test_the_feature_machine_reads_clean_and_says_the_fact_back(tmp_path: Path) -> None:
    status, said = verify(project(tmp_path / "f"))
    assert status == 0 and "0 errors, 0 warnings" in said, said
    _, explained = verify(tmp_path / "f", "--explain")
    assert "T1 fires in IMPLEMENT on Test when: /tests/test_feature.py exists;" in explained
    assert "T2 fires in IMPLEMENT on Test when: /tests/test_feature.py missing;" in explained


def test_the_gap_a_missing_row_leaves_is_found_in_the_fact_s_words(tmp_path: Path) -> None:
    spec = with_rule(
        "| T2 | IMPLEMENT | Test | `/tests/test_feature.py` missing | [BLOCKED] | - | Write tests/test_feature.py first. |\n",
        "",
    )
    status, said = verify(project(tmp_path / "f", spec))
    assert status == 1, said
    (gap,) = [line for line in said.splitlines() if "[gap]" in line]
    assert "/tests/test_feature.py missing" in gap, gap


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("`../../tests/test_feature.py` exists", "name it from its top, `/tests/test_feature.py`"),
        ("`/../tests/test_feature.py` exists", "is not a path inside the repository"),
        ("`/.git/config` exists", "is in a .git folder"),
        ("`/.ai/task/notes.md` exists", "name the workspace's files from it, without `/`"),
        (
            "the repository's `tests/test_feature.py` exists",
            "write ``/tests/test_feature.py` exists`",
        ),
    ],
)
def test_a_path_out_of_the_repository_or_into_git_is_refused_naming_the_form(
    tmp_path: Path, written: str, why: str
) -> None:
    spec = with_rule(
        "| T1 | IMPLEMENT | Test | `/tests/test_feature.py` exists |",
        f"| T1 | IMPLEMENT | Test | {written} |",
    )
    status, said = verify(project(tmp_path / "f", spec))
    assert status == 1, said
    assert "unknown_condition" in said and why in said, said


def test_an_action_on_a_repository_file_is_refused_naming_why(tmp_path: Path) -> None:
    spec = with_rule(
        "| TEST | - | Tests written. |",
        "| TEST | Create `/tests/test_feature.py` | Tests written. |",
    )
    status, said = verify(project(tmp_path / "f", spec))
    assert status == 1, said
    assert "actions change only files of the workspace folder" in said, said


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = project(tmp_path_factory.mktemp("generated") / "f")
    generate(root)
    return root


def cast(root: Path, expected: str) -> str:
    done = spell(root, "--machine", "feature", "test")
    said = done.stdout + clean(done)
    assert expected in said, said
    assert "Traceback" not in said
    return said


def test_the_gate_holds_only_once_the_test_file_is_at_the_repository_s_top(
    generated: Path, tmp_path: Path
) -> None:
    root = tmp_path / "f"
    shutil.copytree(generated, root)
    # The same name inside the workspace folder is not the repository's file.
    (root / ".ai" / "task" / "tests").mkdir(parents=True)
    (root / ".ai" / "task" / "tests" / "test_feature.py").write_text("def test(): pass\n")
    cast(root, "Write tests/test_feature.py first")
    (root / "tests").mkdir()
    (root / "tests" / "test_other.py").write_text("def test(): pass\n")
    cast(root, "Write tests/test_feature.py first")
    (root / "tests" / "test_feature.py").write_text("def test(): pass\n")
    done = spell(root, "--machine", "feature", "test")
    assert done.returncode == EXIT_OK, done.stdout + clean(done)
    assert "Tests written." in done.stdout
    assert "TEST" in spell(root, "--machine", "feature", "status").stdout


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_link_out_of_the_repository_is_not_followed(generated: Path, tmp_path: Path) -> None:
    root = tmp_path / "f"
    shutil.copytree(generated, root)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "test_feature.py").write_text("def test(): pass\n")
    os.symlink(outside, root / "tests")
    done = spell(root, "--machine", "feature", "test")
    said = done.stdout + clean(done)
    assert done.returncode != EXIT_OK, said
    assert "tests is a symbolic link" in said, said
    assert "Traceback" not in said
    assert "IMPLEMENT" in spell(root, "--machine", "feature", "status").stdout
