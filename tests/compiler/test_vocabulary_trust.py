"""Verifying a spec someone sent never runs Python from its folder: a vocabulary that
does not ship with Spellbook is imported only from the project the command runs in,
or with --trust."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.commands import clean

ROOT = Path(__file__).resolve().parents[2]
SPEC = """# Sent

## States
- **A**: start
- **B**: done

## Spells
- **Go**: move on

## Spell Transitions

| Rule | From | Spell | Condition | Action | Next State |
|---|---|---|---|---|---|
| R1 | A | Go | - | - | B |
| R2 | B | Go | - | - | Same state |
"""


def _sent(folder: Path, vocabulary: str) -> Path:
    """A project as someone sends it: a spec and a vocabulary module that leaves a mark."""
    folder.mkdir()
    (folder / ".git").mkdir()
    (folder / "pyproject.toml").write_text(
        f'[project]\nname = "sent"\n\n[tool.spellbook]\nvocabulary = "{vocabulary}"\n'
    )
    (folder / "evil.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('RAN').write_text('ran')\n"
    )
    (folder / "spec").mkdir()
    spec = folder / "spec" / "SENT.md"
    spec.write_text(SPEC)
    return spec


def _verify(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "verify-state-machine.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


@pytest.mark.parametrize("vocabulary", ["evil", "this", "antigravity"])
def test_a_spec_s_own_vocabulary_is_not_imported_from_elsewhere(
    tmp_path: Path, vocabulary: str
) -> None:
    spec = _sent(tmp_path / "sent", vocabulary)
    here = tmp_path / "reviewer"
    here.mkdir()
    result = _verify("--spec", str(spec), cwd=here)
    err = clean(result)
    assert result.returncode == 2, err
    assert f"names the vocabulary {vocabulary!r}" in err and "--trust" in err
    assert "pyproject.toml" in err
    assert "Beautiful is better" not in result.stdout
    assert not (tmp_path / "sent" / "RAN").exists()


def test_the_against_diff_does_not_import_it_either(tmp_path: Path) -> None:
    spec = _sent(tmp_path / "sent", "evil")
    here = tmp_path / "reviewer"
    here.mkdir()
    result = _verify("--spec", str(spec), "--against", str(spec), cwd=here)
    assert result.returncode == 2, clean(result)
    assert not (tmp_path / "sent" / "RAN").exists()


def test_trust_imports_it(tmp_path: Path) -> None:
    spec = _sent(tmp_path / "sent", "evil")
    here = tmp_path / "reviewer"
    here.mkdir()
    result = _verify("--spec", str(spec), "--trust", cwd=here)
    clean(result)
    assert (tmp_path / "sent" / "RAN").exists()


def test_the_project_the_command_runs_in_is_trusted(tmp_path: Path) -> None:
    spec = _sent(tmp_path / "sent", "evil")
    result = _verify("--spec", "spec/SENT.md", cwd=tmp_path / "sent")
    clean(result)
    assert (tmp_path / "sent" / "RAN").exists()
    assert spec.exists()


def test_a_shipped_vocabulary_is_read_from_anywhere(tmp_path: Path) -> None:
    spec = _sent(tmp_path / "sent", "spell_workflow")
    here = tmp_path / "reviewer"
    here.mkdir()
    result = _verify("--spec", str(spec), cwd=here)
    assert result.returncode == 0, clean(result)


def test_the_core_alone_reads_it_without_importing(tmp_path: Path) -> None:
    spec = _sent(tmp_path / "sent", "evil")
    here = tmp_path / "reviewer"
    here.mkdir()
    result = _verify("--spec", str(spec), "--vocabulary", "", cwd=here)
    assert result.returncode == 0, clean(result)
    assert not (tmp_path / "sent" / "RAN").exists()


@pytest.mark.parametrize("trust", [False, True])
def test_a_project_s_vocabulary_is_never_an_installed_module(tmp_path: Path, trust: bool) -> None:
    # `vocabulary = "mcp.cli"` in a pull request's pyproject.toml imported that installed
    # module, its code run, before the refusal that it defines no words.
    installed = tmp_path / "site"
    (installed / "installedpkg").mkdir(parents=True)
    (installed / "installedpkg" / "__init__.py").write_text(
        f"from pathlib import Path\nPath({str(tmp_path / 'RAN')!r}).write_text('ran')\nNOUNS = []\n"
    )
    spec = _sent(tmp_path / "sent", "installedpkg")
    env = {"PYTHONPATH": str(installed), "PATH": "/usr/bin:/bin"}
    args = ["--spec", str(spec), *(["--trust"] if trust else [])]
    result = subprocess.run(
        [sys.executable, str(ROOT / "verify-state-machine.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path / "sent",
        env=env,
    )
    err = clean(result)
    assert result.returncode == 2, err
    assert "'installedpkg' is no module of the project" in err
    assert str(installed / "installedpkg") in err and "pyproject.toml" in err
    assert not (tmp_path / "RAN").exists()
    # The project's own module is still its vocabulary.
    (tmp_path / "sent" / "pyproject.toml").write_text(
        '[project]\nname = "sent"\n\n[tool.spellbook]\nvocabulary = "evil"\n'
    )
    (tmp_path / "sent" / "evil.py").write_text("NOUNS = []\n")
    own = subprocess.run(
        [sys.executable, str(ROOT / "verify-state-machine.py"), "--spec", str(spec)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path / "sent",
        env=env,
    )
    assert own.returncode == 0, clean(own)
