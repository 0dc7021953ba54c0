"""A project's `[tool.spellbook]` and the vocabularies it names: what it cannot take is an
error naming the key or the module, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codegen import SpecError, load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.config import load_config
from codegen.read.lexicon import Dialect
from tests.specs import spec_with

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('machines = ["spec/a.md"]', "machines must be a table"),
        ("generated = 5", "generated must be"),
        ('[tool.spellbook.machines]\n"../../pwned" = "spec/a.md"', "Python identifier"),
        ('[tool.spellbook.machines.m]\nspec = "spec/a.md"\nallow_errors = "yes"', "true or false"),
        ('columns = { bogus = ["X"] }', "not a column role"),
        ("typo = 1", "unknown key 'typo'"),
    ],
)
def test_a_configuration_it_cannot_take_is_an_error_naming_the_key(
    tmp_path: Path, table: str, said: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.spellbook]\n{table}\n", encoding="utf-8")
    with pytest.raises(SpecError, match=said):
        load_config(tmp_path)


def test_a_spec_path_written_with_dot_slash_is_the_same_machine(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\ndoor = { spec = "./spec//door.md", vocabulary = "x" }\n',
        encoding="utf-8",
    )
    assert load_config(tmp_path).machine_for("spec/door.md").module == "door"


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("raise RuntimeError('boom')", "failed as it was imported: RuntimeError: boom"),
        ("NOUNS = 5", "NOUNS must be"),
        ("TERMS = ['a']", "TERMS must map"),
        (
            "from spellbook.vocabulary import Noun\n"
            "NOUNS = (Noun('x', '(unclosed', 'exists', ''),)",
            "not a regular expression",
        ),
        (
            "from spellbook.vocabulary import Noun\nNOUNS = (Noun('x', 'x', 'nosuch', ''),)",
            "not a probe of the core",
        ),
    ],
)
def test_a_broken_vocabulary_module_is_an_error_not_a_traceback(
    tmp_path: Path, source: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"broken_vocabulary_{abs(hash(source))}"
    (tmp_path / f"{name}.py").write_text(source + "\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SpecError, match=said):
        parse_spec_text(spec_with("-"), dialect=Dialect(name))


def test_a_project_s_own_vocabulary_is_found_from_its_root(tmp_path: Path) -> None:
    (tmp_path / "words").mkdir()
    (tmp_path / "words" / "__init__.py").write_text(
        'TERMS = {"the door is open": "door.flag exists"}\n', encoding="utf-8"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.spellbook]\nvocabulary = "words"\n', encoding="utf-8"
    )
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "door.md").write_text(spec_with("the door is open"), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(ROOT / "verify-state-machine.py"), "--spec", "spec/door.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "unknown_condition" not in result.stdout, result.stdout + result.stderr
    assert "`words` vocabulary" in result.stdout


def test_the_project_spec_still_reads_with_its_configuration() -> None:
    assert not [
        f
        for f in analyse(load_spec(ROOT / "spec" / "STATE_MACHINE.md"))
        if f.severity.value != "info"
    ]
