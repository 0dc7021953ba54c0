"""Every name the generator writes into code is an ASCII identifier of its own: terms
Python would fold into one name (NFKC: a full-width `key ok` is `key ok`) get two guards, a term
that is no identifier (`x² ready`) gets one that is, and a module that would not
compile is never written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.commands import clean

WIDE = "\uff4b\uff45\uff59"  # `key` in full-width letters
SPEC = """# Folded

## States
- **A**: start
- **B**: done

## Spells
- **Go**: move on

## Terms

| Phrase | Means |
|--------|-------|
| {WIDE} ok | a.md exists |
| key ok | b.md exists |
| x² ready | c.md exists |
| café open | d.md exists |

## Spell Transitions

| Rule | From | Spell | Condition | Action | Next State |
|---|---|---|---|---|---|
| R1 | A | Go | {WIDE} ok AND key ok AND x² ready AND café open | - | B |
| R2 | A | Go | NOT {WIDE} ok OR NOT key ok OR NOT x² ready OR NOT café open | - | Same state |
| R3 | B | Go | - | - | Same state |
""".replace("{WIDE}", WIDE)

COMPILER = "import sys, spellbook.doors.compiler as c; raise SystemExit(c.generate())"


def _project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "folded"\n\n[tool.spellbook]\ndefault = "folded"\n\n'
        '[tool.spellbook.machines]\nfolded = "spec/STATE_MACHINE.md"\n'
    )
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "STATE_MACHINE.md").write_text(SPEC, encoding="utf-8")
    return tmp_path


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, cwd=project
    )


def test_terms_python_would_fold_into_one_name_keep_a_guard_each(tmp_path: Path) -> None:
    project = _project(tmp_path)
    made = _run(project, "-c", COMPILER)
    assert made.returncode == 0, clean(made)
    source = (project / "generated" / "folded.py").read_text(encoding="utf-8")
    guards = re.findall(r"^(\S+) = Guard\(", source, re.M)
    assert len(guards) == 4 and all(g.isascii() for g in guards), guards
    compile(source, "folded.py", "exec")
    # Only b.md, c.md and d.md: the fact behind the full-width term (a.md) does not hold.
    for name in ("b.md", "c.md", "d.md"):
        (project / name).write_text("x\n")
    cast = _run(project, "-m", "spellbook", "--json", "go")
    assert cast.returncode == 0, clean(cast)
    assert '"rule": "R2"' in cast.stdout and '"after": "A"' in cast.stdout, cast.stdout
    (project / "a.md").write_text("x\n")
    cast = _run(project, "-m", "spellbook", "--json", "go")
    assert cast.returncode == 0, clean(cast)
    assert '"rule": "R1"' in cast.stdout and '"after": "B"' in cast.stdout, cast.stdout


def test_generated_names_are_ascii_and_distinct() -> None:
    from codegen import parse_spec_text
    from codegen.render.machine_records import machine_records

    found = machine_records(parse_spec_text(SPEC, "spec/STATE_MACHINE.md"))
    names = [g.name for g in found.guards]
    assert len(set(names)) == len(names) == 4, names
    assert all(n.isascii() and n.isidentifier() for n in names), names
    assert {"x2_ready", "cafe_open"} <= set(names), names


def test_a_module_that_would_not_compile_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from codegen.cli import generate

    project = _project(tmp_path)
    monkeypatch.chdir(project)
    monkeypatch.setattr(generate, "machine_source", lambda spec, module, root: "def x²(): pass\n")
    assert generate.main([]) == 2
    err = capsys.readouterr().err
    assert "spec/STATE_MACHINE.md" in err and "does not compile" in err, err
    assert not (project / "generated").exists()
