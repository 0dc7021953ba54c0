"""A project's `[tool.spellbook]` and the vocabularies it names: what it cannot take is an
error naming the key or the module, never a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen import SpecError, load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.config import load_config
from codegen.read.lexicon import ReadOptions
from spellbook.disk.project import ProjectError, _parse
from tests.support.specs import spec_with

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("table", "said", "line"),
    [
        ('machines = ["spec/a.md"]', "machines must be a table", 2),
        ("generated = 5", "generated must be", 2),
        ('[tool.spellbook.machines]\n"../../pwned" = "spec/a.md"', "Python identifier", 3),
        (
            '[tool.spellbook.machines.m]\nspec = "spec/a.md"\nallow_errors = "yes"',
            "true or false",
            4,
        ),
        ('columns = { bogus = ["X"] }', "not a column role", 2),
        ('[tool.spellbook.machines.m]\nspec = "spec/a.md"\nsection = 3', "section must be", 4),
        ('[tool.spellbook.machines.m]\nspec = "spec/a.md"\nsection = " "', "section must be", 4),
        ("typo = 1", "unknown key 'typo'", 2),
        ('[tool.spellbook.machines]\nm = { spec = "a.md", columns = { x = [] } }', "machines.m", 3),
        ('[tool.spellbook.machines]\nm = { spec = "a.md", templates = "none" }', "machines.m", 3),
        ('templates = "none"\n[tool.spellbook.machines]\nm = "a.md"', "templates = 'none'", 2),
        ('[tool.spellbook.machines]\nm = { spec = "a.md", vocabulary = "no.md" }', "no such", 3),
    ],
)
def test_a_configuration_it_cannot_take_is_an_error_naming_the_key_and_its_line(
    tmp_path: Path, table: str, said: str, line: int
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.spellbook]\n{table}\n", encoding="utf-8")
    with pytest.raises(SpecError, match=said) as err:
        load_config(tmp_path)
    assert (err.value.path, err.value.line) == ("pyproject.toml", line), err.value
    assert err.value.source_line == f"[tool.spellbook]\n{table}".split("\n")[line - 1]


# Each front door, as a user runs it in a project whose pyproject.toml it cannot take.
DOORS = {
    "verify": [str(ROOT / "verify-state-machine.py"), "spec/door.md"],
    "verify json": [str(ROOT / "verify-state-machine.py"), "--format", "json", "spec/door.md"],
    "verify sarif": [str(ROOT / "verify-state-machine.py"), "--format", "sarif", "spec/door.md"],
    "codegen": ["-m", "codegen", "--check"],
    "spell status": ["-m", "spellbook", "status"],
    "spell lumos": ["-m", "spellbook", "lumos"],
}
MISTAKES = {
    "a value": ('[tool.spellbook]\nunlisted = "rejectd"\n', 2, 'unlisted must be "rejected"'),
    "a slip of a key": (
        '[project]\nname = "x"\n\n[tool.spellbook.machines.door]\nspek = "spec/door.md"\n',
        5,
        "machines.door: unknown key 'spek' (did you mean spec?); the keys are ",
    ),
}


@pytest.mark.parametrize("door", DOORS.values(), ids=DOORS.keys())
@pytest.mark.parametrize(("text", "line", "said"), MISTAKES.values(), ids=MISTAKES.keys())
def test_every_front_door_names_the_line_of_a_setting_it_cannot_take(
    tmp_path: Path, door: list[str], text: str, line: int, said: str
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "door.md").write_text(spec_with("-"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, *door],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "SPELLBOOK_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"error: pyproject.toml:{line}: [tool.spellbook] {said}")
    assert done.stderr.endswith(f"\n    {text.split(chr(10))[line - 1]}\n"), done.stderr
    if "json" in door:
        (finding,) = json.loads(done.stdout)["findings"]
        assert (finding["line"], finding["message"].startswith(f"[tool.spellbook] {said}")) == (
            line,
            True,
        )
    if "sarif" in door:
        (result,) = json.loads(done.stdout)["runs"][0]["results"]
        place = result["locations"][0]["physicalLocation"]
        assert place == {
            "artifactLocation": {"uri": "pyproject.toml"},
            "region": {"startLine": line},
        }


def test_a_spec_path_written_with_dot_slash_is_the_same_machine(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\ndoor = { spec = "./spec//door.md", vocabulary = "x" }\n',
        encoding="utf-8",
    )
    assert load_config(tmp_path).machine_for("spec/door.md").module == "door"


def test_a_machine_s_section_reaches_the_way_its_spec_is_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.spellbook.machines]\n"
        'pay = { spec = "spec/shop.md", section = "Payment" }\n'
        'refund = { spec = "spec/shop.md", section = "Refund", vocabulary = "" }\n'
        'door = "spec/door.md"\n',
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert [(m.module, m.options.section) for m in config.machines] == [
        ("pay", "Payment"),
        ("refund", "Refund"),
        ("door", ""),
    ]
    assert [m.module for m in config.machines_for("spec/shop.md")] == ["pay", "refund"]
    # A file listed for several sections is verified whole (each machine on its own),
    # or as the entry of the section asked for.
    assert config.machine_for("spec/shop.md").options.section == ""
    assert config.machine_for("spec/shop.md", "refund").module == "refund"
    assert config.machine_for("spec/shop.md", "refund").options.section == "refund"
    assert config.machine_for("spec/door.md", "Hall").options.section == "Hall"


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("raise RuntimeError('boom')", "failed as it was imported: RuntimeError: boom"),
        ("NOUNS = 5", "NOUNS must be"),
        ("TERMS = ['a']", "TERMS must map"),
        (
            "from spellbook.records.vocabulary import Noun\n"
            "NOUNS = (Noun('x', '(unclosed', 'exists', ''),)",
            "not a regular expression",
        ),
        (
            "from spellbook.records.vocabulary import Noun\n"
            "NOUNS = (Noun('x', 'x', 'nosuch', ''),)",
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
        parse_spec_text(spec_with("-"), options=ReadOptions(name))


@pytest.mark.parametrize("name", ["this", "os", "os.path", "json", "sys"])
def test_a_module_of_python_s_own_is_never_imported_as_a_vocabulary(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = set(sys.modules)
    with pytest.raises(SpecError, match="module of Python's standard library, not a vocab"):
        parse_spec_text(spec_with("-"), options=ReadOptions(name))
    assert "this" not in set(sys.modules) - before
    assert "Zen of Python" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("spellbook.__main__", "a part beginning with `_`"),
        ("black.__main__", "a part beginning with `_`"),
        ("spellbook.doors.cli", "a module of Spellbook's own"),
        ("codegen.pipeline", "a module of Spellbook's own"),
        ("program_of_the_team", "importing it ran a program, which exited (0)"),
        ("interrupting_module", "importing it stopped the program (KeyboardInterrupt)"),
    ],
)
def test_a_program_named_as_a_vocabulary_is_refused_never_run_to_its_exit(
    name: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `vocabulary = "spellbook.__main__"` ran `spell`, which printed its help and exited
    # 0: verification passed a spec with errors, checking nothing.
    (tmp_path / "program_of_the_team.py").write_text("raise SystemExit(0)\n", encoding="utf-8")
    (tmp_path / "interrupting_module.py").write_text("raise KeyboardInterrupt\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SpecError, match=re.escape(said)):
        parse_spec_text(spec_with("-"), options=ReadOptions(name))


def test_a_module_that_defines_no_words_is_no_vocabulary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "plain_module_of_the_team.py").write_text("X = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SpecError, match="defines none of NOUNS, TERMS") as caught:
        parse_spec_text(spec_with("-"), options=ReadOptions("plain_module_of_the_team"))
    assert "so it is no vocabulary" in caught.value.message


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


# What the TOML parser raises besides TOMLDecodeError, on text it is given: nesting past
# Python's recursion limit (in another tool's table too), an integer of more digits than
# Python converts; and bytes that are not UTF-8.
UNREADABLE = {
    "a deep array": b"[tool.other]\nx = " + b"[" * 500 + b"]" * 500 + b"\n\n[tool.spellbook]\n",
    "a deep inline table": b"[tool.spellbook]\nx = " + b"{a=" * 500 + b"1" + b"}" * 500 + b"\n",
    "a long integer": b"[tool.other]\nx = " + b"9" * 5000 + b"\n\n[tool.spellbook]\n",
    "a byte that is not UTF-8": b"[tool.spellbook]\n# caf\xe9\n",
}


@pytest.mark.parametrize("content", UNREADABLE.values(), ids=UNREADABLE.keys())
@pytest.mark.parametrize("command", ["verify", "codegen", "spell"])
def test_a_pyproject_toml_the_parser_cannot_take_is_exit_2_naming_it(
    tmp_path: Path, content: bytes, command: str
) -> None:
    (tmp_path / "pyproject.toml").write_bytes(content)
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "door.md").write_text(spec_with("-"), encoding="utf-8")
    argv = {
        "verify": [str(ROOT / "verify-state-machine.py"), "--spec", "spec/door.md"],
        "codegen": ["-m", "codegen", "--check"],
        "spell": ["-m", "spellbook", "--root", str(tmp_path), "lumos"],
    }[command]
    done = subprocess.run(
        [sys.executable, *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "SPELLBOOK_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 2, done.stdout + done.stderr
    # at its line, as `file:line`, as every other error of the file
    assert done.stderr.startswith("error: pyproject.toml:2: ") and "line 2" in done.stderr, (
        done.stderr
    )
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


TOML_PIECES = st.sampled_from(
    (
        *("[", "]", "{", "}", "=", ",", ".", '"', "'", '"""', "\\", "#", " ", "\n", "a", "1"),
        *("x = ", "0x", "1e5", "inf", "nan", "true", "2024-02-30", "T25:00", "+", "-", "\\u"),
        *("[tool.spellbook]\n", "[tool.other]\n", "[[a]]\n", "9" * 5000, "\x00", "\ud800"),
    )
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(TOML_PIECES, max_size=30).map("".join),
    st.integers(0, 1500),
    st.sampled_from(["[", "{a=", "[{a="]),
)
def test_any_text_is_a_table_or_an_error_naming_pyproject_toml(
    text: str, depth: int, opening: str
) -> None:
    """Whatever the text (nested as deep as it likes), the parser's answer is the table
    or a ProjectError: never another exception."""
    closing = "".join({"[": "]", "{": "}"}[c] for c in opening if c in "[{")[::-1]
    nested = f"{text}\nx = {opening * depth}1{closing * depth}\n"
    for candidate in (text, nested):
        try:
            table = _parse(candidate)
        except ProjectError as err:
            assert re.match(r"pyproject\.toml(?::\d+)?: ", str(err)), err
        else:
            assert isinstance(table, dict)


def test_the_configuration_table_of_the_docs_names_every_key_spell_takes() -> None:
    """docs/guide/reading-specs.md's Configuration table has a row for each key of
    `[tool.spellbook]` and of a machine's entry, and only those: an error that lists the
    keys never names one the docs do not explain."""
    import re
    from pathlib import Path

    from spellbook.disk.project import KEYS, MACHINE_KEYS

    page = Path(__file__).resolve().parents[2] / "docs" / "guide" / "reading-specs.md"
    text = page.read_text(encoding="utf-8").split("## Configuration", 1)[1]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([\w, ]+) \|", text, re.M))
    top = {k for k, where in rows.items() if "top" in where}
    machine = {k for k, where in rows.items() if "machine" in where}
    assert top == set(KEYS) - {"machines"}, sorted(top ^ (set(KEYS) - {"machines"}))
    assert machine == set(MACHINE_KEYS), sorted(machine ^ set(MACHINE_KEYS))


def test_a_project_s_machines_are_read_once_for_all_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each spec asked for the whole configuration again: N machines built N times each
    # (81 s for a pyproject.toml of 1,000 machines).
    import codegen.config as config

    names = [f"m{i}" for i in range(30)]
    (tmp_path / "spec").mkdir()
    for name in names:
        (tmp_path / "spec" / f"{name}.md").write_text(spec_with("-"), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.spellbook.machines]\n" + "".join(f'{n} = "spec/{n}.md"\n' for n in names),
        encoding="utf-8",
    )
    built: list[str] = []
    real = config._machine
    monkeypatch.setattr(config, "_machine", lambda p, e, d: built.append(e.name) or real(p, e, d))
    config.forget_configs()
    for name in names:
        assert config.options_for(tmp_path / "spec" / f"{name}.md", trust=True).vocabulary == ""
    assert len(built) == len(names)
    # A changed pyproject.toml is read again.
    (tmp_path / "pyproject.toml").write_text(
        "[tool.spellbook.machines]\n" + "".join(f'{n} = "spec/{n}.md"\n' for n in names[:5]),
        encoding="utf-8",
    )
    config.options_for(tmp_path / "spec" / "m0.md", trust=True)
    assert len(built) == len(names) + 5
