"""A project's `[tool.spellbook]` (`spellbook.disk.project`): what it cannot take is a
ProjectError at the line of pyproject.toml that writes the key or value, however TOML
writes it, and at the file without a line where that line cannot be told."""

from __future__ import annotations

from pathlib import Path

import pytest

from spellbook.disk.project import ProjectError, project_from_text, read_project

# (the pyproject.toml, the line of what is wrong, words the error says)
WRONG = {
    "a value": ('[tool.spellbook]\nunlisted = "rejectd"\n', 2, "unlisted must be"),
    "a machine's unknown key": (
        '[project]\nname = "x"\n\n[tool.spellbook.machines.door]\nspek = "spec/door.md"\n',
        5,
        "machines.door: unknown key 'spek' (did you mean spec?); the keys are allow_errors,",
    ),
    "a key of an inline table": (
        '[tool.spellbook.machines]\nhall = "spec/hall.md"\ndoor = { spek = "spec/d.md" }\n',
        3,
        "unknown key 'spek' (did you mean spec?)",
    ),
    "a top-level slip": ("[tool.spellbook]\nown_codes = true\n", 2, "(did you mean own_code?)"),
    "a dotted key": (
        '[tool.spellbook]\ngenerated = "gen"\nmachines.door.spec = "s.md"\n'
        "machines.door.own_code = 1\n",
        4,
        "machines.door: own_code must be true or false",
    ),
    "one path of a list over lines": (
        '[tool.spellbook]\ndocuments = [\n  "README.md",\n  "../out.md",\n]\n',
        4,
        "documents = '../out.md' is outside the project",
    ),
    "a path with a NUL character": (  # a traceback from realpath, "internal error" in spell
        '[tool.spellbook.machines]\nrelease = { spec = "spec/RELEASE.md\\u0000x" }\n',
        2,
        "machines.release: spec = 'spec/RELEASE.md\\x00x' is not a path: it holds a NUL",
    ),
    "the generated folder with a NUL character": (
        '[tool.spellbook]\ngenerated = "gen\\u0000x"\n',
        2,
        "generated = 'gen\\x00x' is not a path",
    ),
    "a machine written as a string": (
        '[tool.spellbook.machines]\ndoor = "../door.md"\n',
        2,
        "machines.door: spec = '../door.md' is outside",
    ),
    "a quoted machine name": (
        '[tool.spellbook.machines]\n"../../pwned" = "spec/a.md"\n',
        2,
        "a Python identifier",
    ),
    "a machine named as a package's own module": (
        '[tool.spellbook.machines]\nhall = "spec/hall.md"\n__init__ = "spec/a.md"\n',
        3,
        "not a keyword (`class`) nor a name Python gives a module of its own",
    ),
    "a machine named by a keyword": (
        '[tool.spellbook.machines]\nclass = "spec/a.md"\n',
        2,
        "a Python identifier, not a keyword",
    ),
    "a machine with no spec": (
        '[tool.spellbook.machines.door]\nvocabulary = ""\n',
        1,
        "machines.door: spec is missing",
    ),
    "the key named in a comment and a string first": (
        '# unlisted = "no"\n[tool.other]\nx = """\n[tool.spellbook]\nunlisted = 1\n"""\n'
        "[tool.spellbook]\nunlisted = 2\n",
        8,
        "unlisted must be",
    ),
    "a table that is not one": ("[tool]\nspellbook = 3\n", 2, "must be a table"),
    "machines whose names differ only in case": (
        '[tool.spellbook.machines]\nrelease = "spec/r.md"\nRelease = "spec/s.md"\n',
        3,
        "machines 'release' and 'Release' differ only in case or in how their letters",
    ),
    "machines whose names differ only in Unicode normalization": (  # one module on macOS
        '[tool.spellbook.machines]\n"r\u00e9l" = "spec/r.md"\n"re\u0301l" = "spec/s.md"\n',
        3,
        "differ only in case or in how their letters are composed (Unicode normalization)",
    ),
}


@pytest.mark.parametrize(("text", "line", "said"), WRONG.values(), ids=WRONG.keys())
def test_a_setting_it_cannot_take_names_its_line(
    tmp_path: Path, text: str, line: int, said: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    for read in (lambda: read_project(str(tmp_path)), lambda: project_from_text("/x", text)):
        with pytest.raises(ProjectError) as err:
            read()
        assert err.value.line == line, err.value
        shown = text.split("\n")[line - 1].strip()
        assert str(err.value).startswith(f"pyproject.toml:{line}: [tool.spellbook] "), err.value
        assert str(err.value).endswith(f"\n    {shown}"), err.value
        assert said in str(err.value), err.value


def test_a_setting_whose_line_cannot_be_told_names_the_file_alone(tmp_path: Path) -> None:
    """A key spelled with an escape is not found in the text: the error names the file
    without a line, never a wrong one."""
    text = '[tool.spellbook]\n# unlisted = 1\n"unl\\u0069sted" = 3\n'
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ProjectError) as err:
        read_project(str(tmp_path))
    assert err.value.line == 0
    assert str(err.value).startswith("pyproject.toml: [tool.spellbook] unlisted must be")


def test_a_key_is_found_only_where_toml_reads_it() -> None:
    from spellbook.disk.toml_lines import line_of

    text = (
        '[tool.other]\nunlisted = 1\nname = "unlisted = 2"\n'
        "[tool.spellbook.machines.machines]\nspec = 'a.md'\n"
    )
    assert line_of(text, ("unlisted",)) == 0
    assert line_of(text, ("machines", "machines")) == 4
    assert line_of(text, ("machines", "machines", "spec")) == 5
    assert line_of(text, ("machines", "machines", "spec"), "./a.md") == 5


@pytest.mark.parametrize(
    ("data", "line", "said"),
    [
        (b'[tool.spellbook]\ngenerated = "gen"\nvocabulary = "a\\q"\n', 3, "Unescaped '\\'"),
        (b'[tool.spellbook]\ngenerated = "g\xffen"\n', 2, "it is not UTF-8 (byte 0xff"),
    ],
)
def test_a_pyproject_toml_that_cannot_be_read_names_its_line(
    tmp_path: Path, data: bytes, line: int, said: str
) -> None:
    # `pyproject.toml: [tool.spellbook] cannot be read: ... (at line 6, column 25)`: no
    # `file:line` form, as every other error of the file has.
    (tmp_path / "pyproject.toml").write_bytes(data)
    with pytest.raises(ProjectError) as err:
        read_project(str(tmp_path))
    assert err.value.line == line and str(err.value).startswith(f"pyproject.toml:{line}: ")
    assert said in str(err.value)
