"""`spell --machine NAME`: a project's own machine, driven through the same front door as
the shipped ones, found from `[tool.spellbook]` without PYTHONPATH or Python of its own."""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_OK, EXIT_REFUSED, EXIT_UNHANDLED
from tests.support import git_traps
from tests.support.commands import clean

DOOR = """\
# Door

## Machine

### Spells

1. **Open**
   - *Description*: open the door
2. **Shut**
   - *Description*: shut the door

### States

1. **CLOSED**
    - *Description*: the door is closed
    - *Indicators*: `.door/open.flag` missing
    - *Valid Actions*: Open, Shut
2. **OPEN**
    - *Description*: the door is open
    - *Indicators*: `.door/open.flag` exists
    - *Valid Actions*: Open, Shut

### State Persistence

The state is kept in `.door/state.json`:

```json
{ "current_state": "CLOSED" }
```

### Terms

| Phrase | Means |
|---|---|
| the key is turned | `key.txt` exists |

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| D1 | CLOSED | Open | the key is turned | OPEN | Create `open.flag` | The door opens. |
| D2 | CLOSED | Open | NOT the key is turned | Same state | No state change | Turn the key first. |
| D3 | OPEN | Shut | - | CLOSED | Delete `open.flag` | The door shuts. |
| D4 | OPEN | Open | - | Same state | No state change | It is open already. |
| D5 | CLOSED | Shut | - | Same state | No state change | It is shut already. |
"""

PYPROJECT = """\
[project]
name = "house"
version = "0"

[tool.spellbook]
default = "door"

[tool.spellbook.machines]
door = "spec/DOOR.md"
"""


def run(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A command as a user runs it in `cwd`: no PYTHONPATH, nothing of the test's sys.path."""
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean_env, **(env or {})},
    )


def spell(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(cwd, "-m", "spellbook", *args)


def generate(project: Path) -> None:
    made = compiler(project, "generate")
    assert made.returncode == 0, made.stdout + made.stderr


@pytest.fixture(scope="module")
def built_house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The house, generated once for this file; each test gets a copy (`house`)."""
    project = tmp_path_factory.mktemp("built") / "house"
    (project / "spec").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "spec" / "DOOR.md").write_text(DOOR, encoding="utf-8")
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (project / "src" / "deep").mkdir(parents=True)
    generate(project)
    assert (project / "generated" / "door.py").is_file()
    return project


@pytest.fixture
def house(built_house: Path, tmp_path: Path) -> Path:
    """A git repository of a team's own: its spec, its configuration, its generated machine."""
    project = tmp_path / "house"
    shutil.copytree(built_house, project, symlinks=True)
    return project


def test_spell_drives_the_project_s_default_machine_from_a_subfolder(house: Path) -> None:
    below = house / "src" / "deep"
    status = spell(below, "status")
    assert status.returncode == 0, clean(status)
    assert status.stdout.startswith("CLOSED: the door is closed"), status.stdout
    assert "GATHER_NEEDS_PLAN" not in status.stdout
    assert f"({house})" in status.stderr  # says which workspace it uses

    refused = spell(below, "open")
    assert refused.returncode == 0 and "Turn the key first." in refused.stdout
    (house / ".door" / "key.txt").write_text("turned\n")
    opened = spell(below, "--json", "open")
    assert json.loads(opened.stdout)["after"] == "OPEN", clean(opened)
    assert (house / ".door" / "open.flag").is_file()
    state = json.loads((house / ".door" / "state.json").read_text())
    assert state["current_state"] == "OPEN"
    assert not (below / ".door").exists()  # no second workspace in the subfolder

    shut = spell(house, "--machine", "door", "shut")
    assert "The door shuts." in shut.stdout and not (house / ".door" / "open.flag").exists()


def test_the_shipped_machines_stay_reachable_by_name(house: Path) -> None:
    session = spell(house, "session", "status")
    assert session.returncode == 0 and session.stdout.startswith("START"), clean(session)
    workflow = spell(house, "--machine", "spell", "status")
    assert workflow.stdout.startswith("GATHER_NEEDS_PLAN"), clean(workflow)


def test_a_machine_the_project_does_not_have_is_an_error_naming_the_ones_it_has(
    house: Path,
) -> None:
    result = spell(house, "--machine", "window", "status")
    assert result.returncode == 2
    assert "no machine 'window'" in clean(result) and "door" in result.stderr
    both = spell(house, "session", "--machine", "door", "status")
    assert both.returncode == 2 and "give one machine" in clean(both)


def test_a_machine_not_generated_yet_says_how_to_generate_it(house: Path) -> None:
    (house / "generated" / "door.py").unlink()
    result = spell(house, "status")
    assert result.returncode == 2
    said = clean(result)
    assert "generated/door.py does not exist" in said and "run `spellbook-codegen` in" in said
    # the help said "Cast a spell of the machine '' (its spec)." and listed no spells
    shown = " ".join(spell(house, "--help").stdout.split())
    assert "cannot be loaded here, so its spells are not listed: generated/door.py" in shown
    assert "machine ''" not in shown


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('default = "window"\n[tool.spellbook.machines]\ndoor = "spec/DOOR.md"', "default must"),
        ('generated = "../elsewhere"', "outside the project"),
        ('generated = "/tmp"', "outside the project"),
        ('[tool.spellbook.machines]\ndoor = { spec = "spec/DOOR.md", colour = 1 }', "'colour'"),
        ("[tool.spellbook\n", "cannot be read"),
    ],
)
def test_a_configuration_the_front_door_cannot_take_is_exit_2_naming_it(
    house: Path, table: str, said: str
) -> None:
    (house / "pyproject.toml").write_text(f"[tool.spellbook]\n{table}\n", encoding="utf-8")
    result = spell(house, "status")
    assert result.returncode == 2, result.stdout
    assert "pyproject.toml" in clean(result) and said in result.stderr


def test_a_generated_file_that_is_not_a_machine_is_refused(house: Path) -> None:
    (house / "generated" / "door.py").write_text("X = 1\n", encoding="utf-8")
    result = spell(house, "status")
    assert result.returncode == 2 and "not a machine generated by Spellbook" in clean(result)
    (house / "generated" / "door.py").write_text("raise SystemExit(0)\n", encoding="utf-8")
    result = spell(house, "status")
    assert result.returncode == 2 and "cannot be imported" in clean(result)


def test_the_project_s_vocabulary_is_imported_from_its_root_without_pythonpath(
    house: Path,
) -> None:
    with_words(house, commit=False)
    (house / ".door").mkdir()
    (house / ".door" / "bell.txt").write_text("ding\n")
    opened = spell(house / "src", "open")
    assert "The door opens." in opened.stdout, clean(opened)


def test_check_transition_and_diagram_take_the_machine(house: Path) -> None:
    refused = spell(house, "--machine", "door", "check-transition", "CLOSED", "OPEN")
    assert refused.returncode == EXIT_REFUSED, refused.stdout + refused.stderr
    assert "CLOSED → OPEN refused: " in clean(refused)
    (house / ".door").mkdir()
    (house / ".door" / "key.txt").write_text("turned\n")
    allowed = spell(house, "check-transition", "CLOSED", "OPEN")
    assert allowed.returncode == EXIT_OK, clean(allowed)
    diagram = spell(house, "diagram")
    assert "  CLOSED --> OPEN: Open" in diagram.stdout.splitlines(), clean(diagram)


def test_a_project_above_the_repository_is_not_used(house: Path) -> None:
    inner = house / "vendor" / "other"
    (inner / ".git").mkdir(parents=True)
    status = spell(inner, "status")
    assert status.stdout.startswith("GATHER_NEEDS_PLAN"), clean(status)


def test_a_project_file_that_is_a_link_is_not_followed(house: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".git").mkdir(parents=True)
    (elsewhere / "pyproject.toml").symlink_to(house / "pyproject.toml")
    status = spell(elsewhere, "status")  # never another folder's project: said, not dropped
    assert status.returncode == 2 and "pyproject.toml is a symbolic link" in status.stderr
    assert not (elsewhere / ".door").exists() and not (elsewhere / ".ai").exists()


def test_mcp_serves_the_project_s_machine(house: Path) -> None:
    from typing import Any

    from mcp import Client

    from tests.cli.test_mcp import run as serve

    (house / ".door").mkdir()
    (house / ".door" / "key.txt").write_text("turned\n")

    async def body(client: Client) -> Any:
        tools = [t.name for t in (await client.list_tools()).tools]
        opened = await client.call_tool("open", {})
        return tools, "".join(c.text for c in opened.content)

    tools, said = serve(house, body, "--machine", "door")
    assert tools == ["open", "shut", "repair_state_file"]
    assert "The door opens." in said
    assert json.loads((house / ".door" / "state.json").read_text())["current_state"] == "OPEN"


@pytest.mark.parametrize(
    "table",
    [
        '[ tool.spellbook ]\ndefault = "door"\n[ tool.spellbook.machines ]\ndoor = "spec/DOOR.md"',
        '[tool."spellbook"]\ndefault = "door"\n[tool."spellbook".machines]\ndoor = "spec/DOOR.md"',
        '[tool]\nspellbook.default = "door"\nspellbook.machines.door = "spec/DOOR.md"\n',
        '[tool."spell\\u0062ook"]\ndefault = "door"\nmachines = { door = "spec/DOOR.md" }\n',
    ],
    ids=["spaced", "quoted", "dotted keys", "an escape"],
)
def test_a_project_is_found_however_toml_writes_its_table(house: Path, table: str) -> None:
    """The table TOML reads as [tool.spellbook] makes a project, however it is written:
    else a hand-made state file of the project's machine would be judged as no one's."""
    (house / "pyproject.toml").write_text(f'[project]\nname = "house"\n\n{table}')
    status = spell(house, "status")
    assert status.returncode == 0 and status.stdout.startswith("CLOSED"), clean(status)


@pytest.mark.parametrize("where", ["relative", "inside the repository"])
def test_a_cache_the_repository_could_hold_is_never_used(house: Path, where: str) -> None:
    """A cache folder named relative to the current folder, or inside the project's own
    repository, could be a checkout's: neither its code nor its tables are taken."""
    import zlib

    module = house / "generated" / "door.py"
    source = module.read_bytes()
    planted = source + PLANTED.format(up=1, mark="cached-code-ran").encode()
    folder = house / ".sbcache"
    key = zlib.crc32(str(module).encode())
    head = f"spellbook code 1 {sys.implementation.cache_tag} -O0 {len(source)}\n".encode()
    (folder / "code").mkdir(parents=True)
    (folder / "code" / f"{key:08x}.code").write_bytes(
        head + source + marshal.dumps(compile(planted, str(module), "exec"))
    )
    env = {"SPELLBOOK_CACHE": ".sbcache" if where == "relative" else str(folder)}
    status = run(house, "-m", "spellbook", "status", env=env)
    assert status.returncode == 0 and status.stdout.startswith("CLOSED"), clean(status)
    assert not (house / "cached-code-ran").exists()
    assert not (folder / "projects").exists()  # nor a table kept there


def test_a_project_s_own_modules_run_from_their_source_alone(house: Path) -> None:
    """A vocabulary module of the project runs from its source: bytecode planted beside it
    (which Python would run without looking at the source) never runs, in spell, verify
    or codegen; nor does a sourceless module or extension planted in the project."""
    import py_compile

    (house / "pyproject.toml").write_text(
        PYPROJECT.replace('default = "door"', 'default = "door"\nvocabulary = "words"')
    )
    (house / "words.py").write_text("NOUNS = ()\n")
    generate(house)
    evil = house / "evil.py"
    evil.write_text("NOUNS = ()" + PLANTED.format(up=0, mark="bytecode-ran"))
    cache = house / "__pycache__" / f"words.{sys.implementation.cache_tag}.pyc"
    py_compile.compile(
        str(evil), cfile=str(cache), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
    )
    py_compile.compile(str(evil), cfile=str(house / "sourceless.pyc"))
    evil.unlink()
    for done in (
        spell(house, "status"),
        compiler(house, "generate", "--check"),
        compiler(house, "verify", "--spec", "spec/DOOR.md"),
    ):
        assert done.returncode == 0, clean(done)
        assert not (house / "bytecode-ran").exists(), done.args
    probe = "import spellbook.disk.loading as p; p.importable('.')\n"
    probe += "try:\n    import sourceless\nexcept ImportError:\n    print('refused')\n"
    done = run(house, "-c", probe)
    assert done.stdout == "refused\n" and not (house / "bytecode-ran").exists(), clean(done)


def test_the_shipped_machines_of_a_checkout_run_from_their_source_alone(tmp_path: Path) -> None:
    """In a source checkout `spellbook.machines` is the `generated/` folder: no compiled
    file beside the package or the modules runs in a module's place."""
    import py_compile

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "src" / "spellbook", tmp_path / "src" / "spellbook")
    shutil.copytree(root / "generated", tmp_path / "generated")
    source = tmp_path / "generated" / "spell_machine.py"
    evil = tmp_path / "evil.py"
    evil.write_text(source.read_text(encoding="utf-8") + PLANTED.format(up=1, mark="ran"))
    tag = sys.implementation.cache_tag
    py_compile.compile(
        str(evil),
        cfile=str(tmp_path / "generated" / "__pycache__" / f"spell_machine.{tag}.pyc"),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    machines = tmp_path / "src" / "spellbook" / "machines"
    py_compile.compile(str(evil), cfile=str(machines / "spell_machine.pyc"))
    done = run(
        tmp_path,
        "-c",
        "import spellbook.machines.spell_machine as m; print(m.__file__)",
        env={"PYTHONPATH": str(tmp_path / "src")},
    )
    assert done.stdout == f"{source}\n", clean(done)
    assert not (tmp_path / "ran").exists()


def test_a_pyproject_past_the_read_limit_is_a_project_s_that_cannot_be_read(house: Path) -> None:
    """Padding before the table must not hide a project: a pyproject.toml past the read
    limit is taken as a project's, and reading it says it is too large (exit 2)."""
    padding = ("#" + "x" * 999 + "\n") * 1_001
    (house / "pyproject.toml").write_text(padding + PYPROJECT)
    status = spell(house, "status")
    assert status.returncode == 2 and "pyproject.toml is larger than 1 MB" in status.stderr, clean(
        status
    )


def test_a_project_inside_an_interpreter_s_prefix_runs_from_its_source_alone(
    tmp_path: Path,
) -> None:
    """A project may live under a Python's prefix (`/usr/src/app`): only the standard
    library's and the installed packages' folders load as installed, never a whole
    prefix, so bytecode beside the project's module still never runs."""
    import py_compile
    import tempfile

    folder = Path(tempfile.mkdtemp(dir=sys.prefix, prefix="spellbook-test-"))
    try:
        (folder / "words.py").write_text("SAID = 'source'\n")
        evil = folder / "evil.py"
        evil.write_text("SAID = 'bytecode'\n")
        tag = sys.implementation.cache_tag
        py_compile.compile(
            str(evil),
            cfile=str(folder / "__pycache__" / f"words.{tag}.pyc"),
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
        evil.unlink()
        probe = f"import spellbook.disk.loading as p; p.importable({str(folder)!r})\n"
        probe += "import words; print(words.SAID)\n"
        done = run(tmp_path, "-c", probe)
        assert done.stdout == "source\n", clean(done)
    finally:
        shutil.rmtree(folder)


def test_every_folder_sysconfig_names_loads_as_installed() -> None:
    """`sysconfig` is asked only for a folder under one of Python's prefixes: so every
    folder it names (the standard library's, the installed packages') must be under
    one, and each is still taken for installed when asked about."""
    import os
    import sysconfig

    from spellbook.disk import loading

    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        folder = os.path.realpath(sysconfig.get_paths()[key])
        assert loading._within(folder, loading._installed(folder)), key


def test_a_changed_configuration_is_read_again_never_taken_from_the_cache(
    house: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    env = {"SPELLBOOK_CACHE": str(cache)}
    assert "machine 'Door'" in run(house, "-m", "spellbook", "--help", env=env).stdout
    (kept,) = (cache / "projects").iterdir()
    assert "door" in kept.read_text()
    # Another default, of the same length: a machine whose title is Dorr.
    text = (house / "pyproject.toml").read_text()
    edited = text.replace('default = "door"', 'default = "dorr"').replace(
        'door = "spec/DOOR.md"', 'door = "spec/DOOR.md"\ndorr = "spec/DOOR.md"'
    )
    (house / "pyproject.toml").write_text(edited)
    # Written from door's module: codegen makes no two machines of one state file.
    (house / "generated" / "dorr.py").write_text(
        (house / "generated" / "door.py").read_text().replace("Door", "Dorr"), encoding="utf-8"
    )
    said = run(house, "-m", "spellbook", "--help", env=env)
    assert "machine 'Dorr'" in said.stdout, clean(said)
    assert '"default": "dorr"' in kept.read_text()
    # A cache that cannot be used (garbage, or a folder in its place) is only a miss.
    kept.write_text("{not json")
    assert run(house, "-m", "spellbook", "status", env=env).returncode == 0
    kept.unlink()
    kept.mkdir()
    again = run(house, "-m", "spellbook", "status", env=env)
    assert again.returncode == 0, clean(again)


def compiler(project: Path, command: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`spellbook-verify` (command "verify") or `spellbook-codegen` ("generate") in `project`."""
    code = (
        "import sys, spellbook.doors.compiler as c; del sys.argv[1]; "
        f"raise SystemExit(c.{command}())"
    )
    return run(project, "-c", code, "--", *args)


def test_create_from_a_template_file_of_the_project_without_python(house: Path) -> None:
    spec = house / "spec" / "DOOR.md"
    spec.write_text(
        DOOR.replace(
            "| OPEN | Create `open.flag` |",
            "| OPEN | (1) Create `open.flag` from `templates/flag.txt`; (2) Create `log.md` |",
        ),
        encoding="utf-8",
    )
    (house / "spec" / "templates").mkdir()
    (house / "spec" / "templates" / "flag.txt").write_text("opened\n- [ ] air the room\n")
    (house / "house-templates").mkdir()
    (house / "house-templates" / "log.md").write_text("# Log\n")
    text = (house / "pyproject.toml").read_text()
    (house / "pyproject.toml").write_text(
        text.replace('default = "door"', 'default = "door"\ntemplates = "house-templates"')
    )
    generate(house)
    (house / ".door").mkdir()
    (house / ".door" / "key.txt").write_text("turned\n")
    opened = spell(house, "open")
    assert "The door opens." in opened.stdout, clean(opened)
    assert (house / ".door" / "open.flag").read_text() == "opened\n- [ ] air the room\n"
    assert (house / ".door" / "log.md").read_text() == "# Log\n"  # by name, from the folder

    # The template is part of the machine: changed, the machine is stale until regenerated.
    (house / "spec" / "templates" / "flag.txt").write_text("opened, again\n")
    check = compiler(house, "generate", "--check")
    assert check.returncode == 1 and "generated/door.py: stale" in check.stderr, check.stderr
    later = (house / "generated" / "door.py").stat().st_mtime_ns + 5_000_000_000
    os.utime(house / "spec" / "templates" / "flag.txt", ns=(later, later))
    status = spell(house, "status")
    assert status.returncode == 0, clean(status)
    assert "note: spec/templates/flag.txt has changed since generated/door.py" in status.stderr


@pytest.mark.parametrize(
    ("template", "said"),
    [
        ("`templates/nowhere.txt`", "does not exist"),
        ("`../../outside.txt`", "leads out of the spec's folder"),
        ("`/etc/hostname`", "relative to the spec's folder"),
        ("`../.git/config`", "leads out of the spec's folder"),
        ("`../.env`", "leads out of the spec's folder"),
        ("`.git/config`", "in a .git folder"),
        ("`templates/env.txt`", "not a file of the project's template folder"),
    ],
)
def test_a_template_that_cannot_be_used_is_an_error_at_its_row(
    house: Path, template: str, said: str
) -> None:
    (house.parent / "outside.txt").write_text("not the project's\n")
    (house / ".git" / "config").write_text('[remote "origin"]\n\turl = https://TOKEN@x/y\n')
    (house / ".env").write_text("SECRET=1\n")
    (house / "spec" / "templates").mkdir()
    (house / "spec" / "templates" / "env.txt").symlink_to("../../.env")
    spec = house / "spec" / "DOOR.md"
    spec.write_text(
        DOOR.replace(
            "| OPEN | Create `open.flag` |", f"| OPEN | Create `open.flag` from {template} |"
        ),
        encoding="utf-8",
    )
    result = compiler(house, "verify", "--spec", "spec/DOOR.md")
    assert result.returncode == 1, result.stdout + result.stderr
    line = DOOR.splitlines().index(next(x for x in DOOR.splitlines() if x.startswith("| D1"))) + 1
    assert f"spec/DOOR.md:{line}" in result.stdout and said in result.stdout, result.stdout


@pytest.mark.parametrize("committed", [False, True], ids=["ignored", "committed"])
@pytest.mark.parametrize("create", ["from `templates/secret.txt`", "by name"])
def test_a_template_git_ignores_is_an_error_at_its_row_and_never_carried(
    house: Path, create: str, committed: bool
) -> None:
    shutil.rmtree(house / ".git")
    git_traps.init(house)
    (house / ".gitignore").write_text("secret.txt\n")
    (house / "spec" / "templates").mkdir()
    (house / "spec" / "templates" / "secret.txt").write_text("TOKEN=abc123\n")
    if committed:  # tracked, though it matches .gitignore: it is in the commits already
        add = ["git", "-C", str(house), "add", "-f", "spec/templates/secret.txt"]
        subprocess.run(add, check=True, env=git_traps.environment())
    marks = house.parent / "marks"
    git_traps.plant_in_config(house, marks)  # every setting that would run a program
    written = "" if create == "by name" else f" {create}"
    spec = house / "spec" / "DOOR.md"
    spec.write_text(
        DOOR.replace("| OPEN | Create `open.flag` |", f"| OPEN | Create `secret.txt`{written} |"),
        encoding="utf-8",
    )
    result = compiler(house, "verify", "--spec", "spec/DOOR.md")
    made = compiler(house, "generate")
    carried = [p for p in (house / "generated").iterdir() if "abc123" in p.read_text()]
    assert git_traps.ran(marks) == []
    if committed:
        assert result.returncode == 0, result.stdout + result.stderr
        assert made.returncode == 0 and carried, made.stderr
        return
    assert result.returncode == 1, result.stdout + result.stderr
    line = DOOR.splitlines().index(next(x for x in DOOR.splitlines() if x.startswith("| D1"))) + 1
    assert f"spec/DOOR.md:{line}" in result.stdout and "a file git ignores" in result.stdout
    assert made.returncode != 0 and not carried, made.stdout + made.stderr


def test_a_configured_templates_folder_that_is_not_there_is_an_error(house: Path) -> None:
    text = (house / "pyproject.toml").read_text()
    (house / "pyproject.toml").write_text(
        text.replace('default = "door"', 'default = "door"\ntemplates = "tmpl"')
    )
    result = compiler(house, "verify", "--spec", "spec/DOOR.md")
    assert result.returncode == 2
    assert "templates = 'tmpl' is not a folder of the project" in clean(result)


def hook(
    project: Path,
    path: str,
    content: str,
    tool: str = "Write",
    cwd: Path | None = None,
    machine: str | None = None,
    started: tuple[list[str], Path] | None = None,
    env: dict[str, str] | None = None,
    **tool_input: object,
) -> subprocess.CompletedProcess[str]:
    """The hook's answer to a tool call naming `path` (with `content`, unless `tool_input`
    says otherwise), run as Claude Code runs it in `project` (or in `cwd`, the project's
    folder unknown), started for `machine` (`spell session check-transition`, say), as
    `python -m spellbook` in that folder unless `started` says which command in which
    folder, with `env` added to the environment."""
    given = tool_input or {"file_path": path, "content": content}
    event = {"tool_name": tool, "cwd": str(cwd or project), "tool_input": given}
    program, folder = started or ([sys.executable, "-m", "spellbook"], cwd or project)
    command = [*program, *([machine] if machine else [])]
    environment = git_traps.environment()
    for name in ("PYTHONPATH", "CLAUDE_PROJECT_DIR"):
        environment.pop(name, None)
    done = subprocess.run(
        [*command, "check-transition", "--claude-hook"],
        input=json.dumps(event),
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={**environment, **(env or {})},
    )
    return done


@pytest.fixture
def committed(house: Path) -> Path:
    """The house as a git repository, everything committed, the door closed and locked."""
    (house / ".git").rmdir()
    git_traps.init(house)
    (house / ".door").mkdir()
    (house / ".door" / "state.json").write_text(json.dumps(CLOSED))
    git_traps.commit_all(house)
    return house


CLOSED = {"current_state": "CLOSED", "history": []}
OPENED = json.dumps({**CLOSED, "current_state": "OPEN"})


def by_d1(hooked: subprocess.CompletedProcess[str]) -> bool:
    """Whether the hook judged the move CLOSED -> OPEN one the spec allows now, by D1,
    which a state file written by hand may not make: D1 also creates `open.flag`,
    which only a cast does (so the hook blocks it, naming the spell to cast)."""
    said = clean(hooked)
    return (
        hooked.returncode == 2
        and (
            "CLOSED → OPEN refused as a move made by hand: rule D1 (spell Open) makes it and "
            "creates an empty `.door/open.flag`"
        )
        in said
        and said.rstrip().split(" (the hook judges by ")[0].endswith("cast Open instead")
    )


# Python that leaves a mark beside the project, were it ever run.
PLANTED = (
    "\nimport pathlib; pathlib.Path(__file__).resolve().parents[{up}].joinpath('{mark}').touch()\n"
)


def test_the_hook_reads_head_s_table_however_toml_writes_it(committed: Path) -> None:
    spaced = (committed / "pyproject.toml").read_text().replace("[tool.", "[ tool.")
    (committed / "pyproject.toml").write_text(spaced.replace("]\n", " ]\n"))
    git_traps.commit_all(committed)
    blocked = hook(committed, ".door/state.json", OPENED)  # no key: no rule leads there
    assert blocked.returncode == 2 and "CLOSED → OPEN refused: " in clean(blocked)
    # The table dropped, however it is written: no project left to judge by. Refused.
    dropped = hook(committed, "pyproject.toml", '[project]\nname = "house"\n')
    assert dropped.returncode == 2 and "removes the [tool.spellbook] table" in clean(dropped)


def test_the_hook_refuses_a_configuration_padded_past_what_spell_reads(committed: Path) -> None:
    """`spell` reads 1 MB of a pyproject.toml to find a project: the same table after a
    megabyte of comments would be read as none (or fail), and the project with it."""
    config = (committed / "pyproject.toml").read_text()
    padded = config.replace("[tool.spellbook]\n", f"{'#' * 999}\n" * 1001 + "[tool.spellbook]\n")
    refused = hook(committed, "pyproject.toml", padded)
    assert refused.returncode == 2 and "larger than 1 MB" in clean(refused)


def test_the_hook_judges_by_the_project_s_committed_machine(committed: Path) -> None:
    blocked = hook(committed, ".door/state.json", OPENED)  # no key: no rule leads there
    assert blocked.returncode == 2 and "CLOSED → OPEN refused: " in clean(blocked)
    (committed / ".door" / "key.txt").write_text("turned\n")
    assert by_d1(hook(committed, ".door/state.json", OPENED))
    # A configuration in HEAD the hook cannot read: the move is blocked, not allowed.
    (committed / "pyproject.toml").write_text("[tool.spellbook\n")
    git_traps.commit_all(committed)
    broken = hook(committed, ".door/state.json", OPENED)
    assert broken.returncode == 2 and "could not judge" in clean(broken)


def test_a_refusal_says_when_the_machine_it_judges_by_is_not_the_one_generated(
    committed: Path,
) -> None:
    """A spec change generated and not yet committed: the hook still judges by HEAD's
    machine (never the working tree's), and its refusal says so, and what makes the
    change count, rather than only what the committed spec lacks."""
    spec = committed / "spec" / "DOOR.md"
    spec.write_text(
        spec.read_text()
        .replace("CLOSED", "SHUT_TIGHT")
        .replace(
            "    - *Description*: the door is closed\n",
            "    - *Description*: the door is closed\n    - *Formerly*: CLOSED\n",
        )
    )
    generate(committed)
    moved = hook(
        committed, ".door/state.json", json.dumps({**CLOSED, "current_state": "SHUT_TIGHT"})
    )
    said = clean(moved)
    assert moved.returncode == 2 and "SHUT_TIGHT" in said
    assert "generated/door.py as HEAD holds it, and the working tree's differs" in said, said
    # no advice to declare the new name a former one: the working tree's spec has it
    assert "*Formerly*: SHUT_TIGHT" not in said and "(if the spec renamed" not in said, said
    # a cast of the working tree's machine moved the state file to the new name: HEAD's
    # machine cannot read it, and repair (which reads it by the working tree's) has
    # nothing to do, so it is not advised
    current = committed / ".door" / "state.json"
    kept = current.read_text()
    current.write_text(json.dumps({**CLOSED, "current_state": "SHUT_TIGHT"}))
    unread = clean(hook(committed, ".door/state.json", OPENED))
    assert "SHUT_TIGHT" in unread and "spell repair" not in unread, unread
    assert "as HEAD holds it, and the working tree's differs" in unread, unread
    current.write_text(kept)
    git_traps.commit_all(committed)  # committed: the note has nothing to say
    refused = hook(committed, ".door/state.json", OPENED)
    assert refused.returncode == 2 and "as HEAD holds it" not in clean(refused)


def with_words(house: Path, commit: bool = True) -> None:
    """The house's door answers to a bell its own vocabulary (`house_words.py`) names,
    generated (and committed)."""
    (house / "house_words.py").write_text(
        'TERMS = {"the bell rang": "`bell.txt` exists"}\n', encoding="utf-8"
    )
    (house / "spec" / "DOOR.md").write_text(
        DOOR.replace("| the key is turned | `key.txt` exists |\n", "").replace(
            "the key is turned", "the bell rang"
        ),
        encoding="utf-8",
    )
    (house / "pyproject.toml").write_text(
        PYPROJECT.replace(
            'door = "spec/DOOR.md"', 'door = { spec = "spec/DOOR.md", vocabulary = "house_words" }'
        ),
        encoding="utf-8",
    )
    generate(house)
    if commit:
        git_traps.commit_all(house)


def test_the_hook_never_runs_python_of_the_working_tree(committed: Path) -> None:
    """The working tree's generated module, project vocabulary and configuration (each
    a file an agent may write) are not what the hook runs: it runs HEAD's."""
    house = committed
    with_words(house)
    # What an agent may write, none of it guarded before: code in the module and in the
    # vocabulary; then a machine of its own, listed as the default.
    door = house / "generated" / "door.py"
    door.write_text(door.read_text() + PLANTED.format(up=1, mark="module-ran"))
    words = house / "house_words.py"
    words.write_text(words.read_text() + PLANTED.format(up=0, mark="words-ran"))
    for step in ("code", "machine"):
        if step == "machine":
            (house / "generated" / "evil.py").write_text(PLANTED.format(up=1, mark="evil-ran"))
            config = (house / "pyproject.toml").read_text()
            config = config.replace('default = "door"', 'default = "evil"')
            config += 'evil = "spec/DOOR.md"\n'
            (house / "pyproject.toml").write_text(config)
        (house / ".door" / "bell.txt").write_text("ding\n")
        allowed = hook(house, ".door/state.json", OPENED)  # the bell rang: HEAD's D1
        assert by_d1(allowed), clean(allowed)
        (house / ".door" / "bell.txt").unlink()
        refused = hook(house, ".door/state.json", OPENED)
        assert refused.returncode == 2 and "CLOSED → OPEN refused: " in clean(refused)
        assert not [p.name for p in house.glob("*-ran")], step
    # A module of the project's own that HEAD does not hold is not run from the working tree.
    for command in (["rm", "-q", "--cached", "house_words.py"], ["commit", "-qm", "x"]):
        subprocess.run([*git_traps.GIT, "-C", str(house), *command], check=True)
    untracked = hook(house, ".door/state.json", OPENED)
    assert untracked.returncode == 2 and "house_words.py is not committed" in clean(untracked)
    assert not [p.name for p in house.glob("*-ran")]


def test_the_hook_imports_the_project_s_vocabulary_however_it_is_started(
    committed: Path, tmp_path: Path
) -> None:
    """Started as documented, `spell check-transition --claude-hook` in the project (its
    folder is not on Python's path then) or `python -m spellbook` in another folder,
    the hook imports the project's own vocabulary from the project's root."""
    house = committed
    with_words(house)
    (house / ".door" / "bell.txt").write_text("ding\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    starts = [([sys.executable, "-m", "spellbook"], outside)]
    script = Path(sys.executable).with_name("spell")
    if script.is_file():
        starts.append(([str(script)], house))
    for started in starts:
        allowed = hook(house, ".door/state.json", OPENED, started=started)
        assert by_d1(allowed), (started, clean(allowed))
    (house / ".door" / "bell.txt").unlink()
    refused = hook(house, ".door/state.json", OPENED, started=starts[0])
    assert refused.returncode == 2 and "CLOSED → OPEN refused: " in clean(refused)


def test_the_hook_runs_no_module_from_outside_the_repository_and_the_installation(
    committed: Path, tmp_path: Path
) -> None:
    """A module the project's vocabulary imports from a folder of Python's path that is
    neither the repository nor the installation (PYTHONPATH, a folder a `.pth` adds:
    guarded only by the names the hook imports of its own accord) is never run."""
    house = committed
    libs = tmp_path / "libs"
    libs.mkdir()
    (libs / "door_helper.py").write_text(PLANTED.format(up=0, mark="helper-ran"))
    with_words(house)
    words = house / "house_words.py"
    words.write_text(f"import door_helper\n{words.read_text()}")
    git_traps.commit_all(house)
    (house / ".door" / "bell.txt").write_text("ding\n")
    refused = hook(house, ".door/state.json", OPENED, env={"PYTHONPATH": str(libs)})
    said = clean(refused)
    assert refused.returncode == 2 and "neither installed nor in the repository" in said, said
    assert not (libs / "helper-ran").exists()


def test_the_hook_refuses_a_project_machine_it_cannot_read_from_head(house: Path) -> None:
    (house / ".door").mkdir()
    (house / ".door" / "state.json").write_text(json.dumps(CLOSED))
    nothing = hook(house, ".door/state.json", OPENED)  # `.git` is an empty folder
    assert nothing.returncode == 2 and "has no commit yet" in clean(nothing)
    (house / ".git").rmdir()
    git_traps.init(house)
    (house / ".gitignore").write_text("generated/\n")
    git_traps.commit_all(house)
    untracked = hook(house, ".door/state.json", OPENED)
    said = clean(untracked)
    assert untracked.returncode == 2 and "generated/door.py is not committed" in said, said
    # The hook of a machine that ships with Spellbook guards the project's machines too:
    # in the project, it cannot tell where their workspace is, and blocks, saying why.
    # Outside any project, a machine that ships with Spellbook needs no commit.
    elsewhere = house.parent / "elsewhere"
    elsewhere.mkdir()
    for folder, said in ((house, "generated/door.py is not committed"), (elsewhere, "")):
        session = subprocess.run(
            [sys.executable, "-m", "spellbook", "session", "check-transition", "--claude-hook"],
            input=json.dumps({"tool_name": "Write", "tool_input": {"file_path": "x.py"}}),
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert session.returncode == (2 if said else 0), clean(session)
        assert said in clean(session)


def test_the_hook_guards_the_configuration_and_the_generated_modules(committed: Path) -> None:
    house = committed
    config = (house / "pyproject.toml").read_text()
    changed = hook(house, "pyproject.toml", config.replace('"spec/DOOR.md"', '"spec/X.md"'))
    assert changed.returncode == 2 and "changes [tool.spellbook]" in clean(changed)
    for where in ("src/pyproject.toml", "../pyproject.toml"):  # a project below, or above
        added = hook(house, where, '[tool.spellbook]\ndefault = "x"\n')
        assert added.returncode == 2 and "adds a [tool.spellbook] table" in clean(added)
    edited = hook(
        house,
        "pyproject.toml",
        "",
        "Edit",
        file_path=str(house / "pyproject.toml"),
        old_string='version = "0"',
        new_string='version = "1"',
    )
    assert edited.returncode == 0, clean(edited)  # the rest of the file is the project's
    for path in ("generated/door.py", "generated/__pycache__/door.cpython-311.pyc"):
        written = hook(house, path, "X = 1\n")
        assert written.returncode == 2 and "regenerate them with" in clean(written)
    moved = hook(
        house, "", "", "mcp__fs__move_file", source="/tmp/door.py", destination="generated/"
    )
    assert moved.returncode == 2 and "cannot tell what this tool would write" in clean(moved)


def test_the_hook_judges_a_project_s_machine_from_any_folder(
    committed: Path, tmp_path: Path
) -> None:
    """The project of each path is found from the path itself: a move the house's machine
    refuses is refused whatever folder the event comes from, whichever machine the hook
    was started for (`spell session check-transition`), however the path is spelt."""
    outside = tmp_path / "outside"
    outside.mkdir()
    state = committed / ".door" / "state.json"
    for cwd, path, machine in (
        (outside, str(state), None),
        (outside, os.path.relpath(state, outside), None),
        (outside, str(state), "session"),
        (committed / "src", str(state), "session"),
    ):
        refused = hook(committed, path, OPENED, cwd=cwd, machine=machine)
        assert refused.returncode == 2 and "CLOSED → OPEN refused: " in clean(refused), path
    pattern = f"{committed.parent}/h*/.door/state.json"  # a glob, from a folder above
    deleted = hook(committed, "", "", "mcp__fs__delete", cwd=outside, pattern=pattern)
    assert deleted.returncode == 2 and "is guarded (the state file)" in clean(deleted)
    (committed / ".door" / "key.txt").write_text("turned\n")  # now the machine allows it
    allowed = hook(committed, str(state), OPENED, cwd=outside, machine="session")
    assert by_d1(allowed), clean(allowed)


@pytest.mark.parametrize(
    "planted",
    [
        "src/.git",
        "src/.GIT",
        "src/.git./config",
        "src/.git /HEAD",
        "src/git~1/HEAD",
        "src/.git::$INDEX_ALLOCATION/HEAD",
        "src/.gi\u200ct/HEAD",  # a character macOS leaves out of a name
    ],
)
def test_no_tool_plants_git_s_folder(committed: Path, planted: str) -> None:
    """A `.git` file or folder, anywhere, in any spelling git refuses, is git's own
    folder: written in a subfolder, it would end the search for the project there."""
    written = hook(committed, planted, "gitdir: /elsewhere\n")
    assert written.returncode == 2 and "git's own folder" in clean(written), planted
    moved = hook(committed, "", "", "mcp__fs__move", source="/tmp/x", destination=planted)
    assert moved.returncode == 2 and "git's own folder" in clean(moved), planted


def test_a_git_folder_planted_another_way_does_not_cut_the_project_off(committed: Path) -> None:
    """A `.git` in a subfolder (from a shell command, which the hook does not judge) ends
    the search for the project from there; the state file's own path still finds it."""
    (committed / "src" / ".git").write_text("gitdir: /nowhere\n")
    for machine in (None, "session"):
        refused = hook(
            committed,
            str(committed / ".door" / "state.json"),
            OPENED,
            cwd=committed / "src",
            machine=machine,
        )
        assert refused.returncode == 2 and "CLOSED → OPEN refused: " in clean(refused)


def test_the_committed_tree_names_nothing_in_git_s_own_folder(committed: Path) -> None:
    """A path with a part that is git's own folder, at any depth and in any spelling git
    refuses, is no file of the commit: nothing is read for it, nothing served from it."""
    from spellbook.disk import git
    from spellbook.doors import committed as committed_module

    repository = git.find(str(committed))
    assert repository is not None
    head = repository.commit("HEAD")
    assert head is not None
    tree = committed_module.Tree(repository, head)
    assert tree.name(str(committed / "src" / "words.py")) == "src/words.py"
    for inside in (".git/x.py", ".Git./x.py", "git~1/x.py", "src/.git/x.py", "src/.GIT /x.py"):
        assert tree.name(str(committed / inside)) is None, inside


def test_the_hook_runs_no_program_the_repository_names(committed: Path, tmp_path: Path) -> None:
    """Reading the committed machine runs git, and git runs no program the repository's
    content names: every setting that would is planted in the workspace folder (made
    to look like a repository) and in the repository's own configuration."""
    marks = tmp_path / "marks"
    git_traps.plant_lookalike(committed / ".door", marks)
    git_traps.plant_in_config(committed, marks)
    (committed / ".door" / "key.txt").write_text("turned\n")
    allowed = hook(committed, ".door/state.json", OPENED)
    assert by_d1(allowed), clean(allowed)
    refused = hook(committed, ".door/state.json", json.dumps({"current_state": "NOWHERE"}))
    assert refused.returncode == 2, clean(refused)
    assert git_traps.ran(marks) == []


def test_only_the_checked_source_of_a_generated_module_runs(house: Path) -> None:
    """A bytecode file beside the module (one Python would load without checking it
    against the source) is never run: the module's own bytes are compiled."""
    module = house / "generated" / "door.py"
    source = module.read_bytes()
    hidden = compile(source + PLANTED.format(up=1, mark="bytecode-ran").encode(), module, "exec")
    unchecked = 0b01  # hash-based, the hash not checked
    pyc = importlib.util.MAGIC_NUMBER + unchecked.to_bytes(4, "little")
    pyc += importlib.util.source_hash(source) + marshal.dumps(hidden)
    (house / "generated" / "__pycache__").mkdir(exist_ok=True)
    (house / "generated" / "__pycache__" / f"door.{sys.implementation.cache_tag}.pyc").write_bytes(
        pyc
    )
    status = spell(house, "status")
    assert status.returncode == 0 and status.stdout.startswith("CLOSED"), clean(status)
    assert not (house / "bytecode-ran").exists()


def test_cached_code_runs_only_for_the_very_bytes_it_was_compiled_from(
    house: Path, tmp_path: Path
) -> None:
    """A cold start takes a module's compiled code from the user's cache, which keeps the
    source it was compiled from beside it: code kept for other bytes never runs."""
    cache = tmp_path / "cache"
    env = {"SPELLBOOK_CACHE": str(cache)}
    first = run(house, "-m", "spellbook", "status", env=env)
    assert first.returncode == 0 and first.stdout.startswith("CLOSED"), clean(first)
    (kept,) = (cache / "code").iterdir()
    module = house / "generated" / "door.py"
    source = module.read_bytes()
    assert source in kept.read_bytes()
    planted = source + PLANTED.format(up=1, mark="cached-code-ran").encode()
    same_length = source[:-1] + b" "
    for other in (planted, same_length):
        head = f"spellbook code 1 {sys.implementation.cache_tag} {len(other)}\n".encode()
        kept.write_bytes(head + other + marshal.dumps(compile(planted, str(module), "exec")))
        again = run(house, "-m", "spellbook", "status", env=env)
        assert again.returncode == 0 and again.stdout.startswith("CLOSED"), clean(again)
        assert not (house / "cached-code-ran").exists()
        assert source in kept.read_bytes()  # compiled afresh, and kept for these bytes


def test_a_spec_changed_since_its_module_was_generated_is_said_never_refused(
    house: Path, tmp_path: Path
) -> None:
    spec, module = house / "spec" / "DOOR.md", house / "generated" / "door.py"
    env = {"SPELLBOOK_CACHE": str(tmp_path / "cache")}
    spec.write_text(DOOR.replace("The door opens.", "The door swings open."), encoding="utf-8")
    later = module.stat().st_mtime_ns + 5_000_000_000
    os.utime(spec, ns=(later, later))
    for args in (["status"], ["shut"], ["--json", "status"]):
        done = run(house, "-m", "spellbook", *args, env=env)
        assert done.returncode == 0, clean(done)
        assert (
            "spell: note: spec/DOOR.md has changed since generated/door.py was generated from "
            "it: this runs the machine as generated; regenerate it with `spellbook-codegen`"
        ) in done.stderr
    generate(house)
    fresh = run(house, "-m", "spellbook", "status", env=env)
    assert fresh.returncode == 0 and "has changed" not in clean(fresh)

    later = module.stat().st_mtime_ns + 5_000_000_000
    os.utime(spec, ns=(later, later))  # newer, as a checkout leaves it, but the same bytes
    for _ in range(2):  # the second time from the cache's word that it is fresh
        same = run(house, "-m", "spellbook", "status", env=env)
        assert same.returncode == 0 and "has changed" not in clean(same), same.stderr
    assert list((tmp_path / "cache" / "fresh").iterdir())


def test_a_spec_checked_out_with_crlf_line_ends_is_not_changed(house: Path, tmp_path: Path) -> None:
    # git on Windows checks text out with `\r\n`: every cast said the spec had changed,
    # and `spellbook-codegen --check` failed, though no line of it had.
    spec = house / "spec" / "DOOR.md"
    spec.write_bytes(spec.read_bytes().replace(b"\n", b"\r\n"))
    later = (house / "generated" / "door.py").stat().st_mtime_ns + 5_000_000_000
    os.utime(spec, ns=(later, later))
    env = {"SPELLBOOK_CACHE": str(tmp_path / "cache")}
    done = run(house, "-m", "spellbook", "status", env=env)
    assert done.returncode == 0 and "has changed" not in clean(done), done.stderr
    checked = compiler(house, "generate", "--check")
    assert checked.returncode == 0, clean(checked)


# Two machines of one file, one per section, each of whose sections names a state file.
DESK = """\
# Desk

## Review

State is kept in `REVIEW_FILE`.

| From | Event | To |
|---|---|---|
| draft | submit | review |
| review | approve | draft |

Transitions not listed are rejected.

## Publishing

State is kept in `PUBLISHING_FILE`.

| From | Event | To |
|---|---|---|
| queued | publish | live |
| live | retract | queued |

Transitions not listed are rejected.
"""

DESK_MACHINES = {
    "review": 'review = { spec = "spec/DESK.md", section = "Review", vocabulary = "" }\n',
    "publishing": (
        'publishing = { spec = "spec/DESK.md", section = "Publishing", vocabulary = "" }\n'
    ),
}


def desk(root: Path, review: str, publishing: str, *listed: str) -> Path:
    """A project whose spec/DESK.md holds the machines review and publishing, keeping
    their state in the files `review` and `publishing`; it lists `listed` (both)."""
    (root / "spec").mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    text = DESK.replace("REVIEW_FILE", review).replace("PUBLISHING_FILE", publishing)
    (root / "spec" / "DESK.md").write_text(text, encoding="utf-8")
    machines = "".join(DESK_MACHINES[m] for m in listed or DESK_MACHINES)
    (root / "pyproject.toml").write_text(
        f"[tool.spellbook]\n[tool.spellbook.machines]\n{machines}", encoding="utf-8"
    )
    return root


@pytest.mark.parametrize(
    ("review", "publishing"),
    [
        (".desk/state.json", ".desk/state.json"),
        (".desk/state.json", "./.desk/state.json"),
        (".desk/state.json", ".Desk/state.json"),  # one file where case is not told apart
        # one file where letters composed two ways (NFC, NFD), or a trailing dot, are not
        (".d\u00e9sk/state.json", ".de\u0301sk/state.json"),
        (".desk/state.json", ".desk./state.json"),
    ],
)
def test_two_machines_keeping_one_state_file_are_refused_by_verify_and_codegen(
    tmp_path: Path, review: str, publishing: str
) -> None:
    project = desk(tmp_path, review, publishing)
    for command in ("verify", "generate"):
        refused = compiler(project, command)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert refused.stderr.count("error:") == 1, refused.stderr
        said = refused.stderr
        assert "the machines review (spec/DESK.md:5, " in said
        assert "and publishing (spec/DESK.md:16, " in said
        assert "keep their state in one file" in said
        assert "Give each machine a state file of its own" in said
    assert not (project / "generated").exists()


def test_two_machines_that_take_the_default_state_file_name_their_sections(
    tmp_path: Path,
) -> None:
    project = desk(tmp_path, ".desk/state.json", ".desk/state.json")
    spec = project / "spec" / "DESK.md"
    spec.write_text(
        "\n".join(ln for ln in spec.read_text().split("\n") if "State is kept" not in ln)
    )
    refused = compiler(project, "generate")
    assert refused.returncode == 2
    assert (
        "review (spec/DESK.md:3: section 'Review' names no state file, so the default "
        "`state.json`) and publishing (spec/DESK.md:13: section 'Publishing'"
    ) in refused.stderr


def test_machines_of_the_project_s_own_code_keep_no_state_file_to_share(tmp_path: Path) -> None:
    """Their state is the model's (`build(model)`), and `spell` never drives them."""
    project = desk(tmp_path, ".desk/state.json", ".desk/state.json")
    settings = project / "pyproject.toml"
    text = settings.read_text(encoding="utf-8")
    settings.write_text(text.replace("[tool.spellbook]\n", "[tool.spellbook]\nown_code = true\n"))
    for command in ("verify", "generate"):
        done = compiler(project, command)
        assert done.returncode == 0, done.stdout + done.stderr
    assert (project / "generated" / "review.py").is_file()
    assert (project / "generated" / "publishing.py").is_file()


def test_machines_keeping_state_files_of_their_own_are_generated(tmp_path: Path) -> None:
    project = desk(tmp_path, ".desk/review/state.json", ".desk/publishing/state.json")
    assert compiler(project, "verify", "--brief").returncode == 0
    generate(project)
    assert spell(project, "--machine", "review", "submit").returncode == 0
    assert (project / ".desk" / "review" / "state.json").is_file()
    assert not (project / ".desk" / "publishing").exists()


@pytest.fixture
def shared_desk(tmp_path: Path) -> Path:
    """Two machines generated, one at a time, before they were checked together: both
    keep their state in `.desk/state.json`; a cast of review has put it in review."""
    project = tmp_path / "desk"
    for machine in DESK_MACHINES:
        desk(project, ".desk/state.json", ".desk/state.json", machine)
        generate(project)
    desk(project, ".desk/state.json", ".desk/state.json")
    assert spell(project, "--machine", "review", "submit").returncode == 0
    return project


def test_a_state_of_another_machine_keeping_the_same_file_is_said_so(shared_desk: Path) -> None:
    status = spell(shared_desk, "--machine", "publishing", "status")
    assert status.returncode == 2
    said = status.stderr
    assert "names state 'review', which the machine publishing does not have" in said
    assert "but the machine review (spec/DESK.md) of this project does" in said
    assert "keep their state in this one file" in said
    assert "Formerly" not in said and "run `spell repair`" not in said


def test_repair_never_sets_aside_the_state_of_another_machine(shared_desk: Path) -> None:
    state = shared_desk / ".desk" / "state.json"
    before = state.read_bytes()
    repaired = spell(shared_desk, "--machine", "publishing", "repair")
    assert repaired.returncode == 2, repaired.stdout + repaired.stderr
    assert "nothing repaired: .desk/state.json names state 'review'" in repaired.stderr
    assert state.read_bytes() == before
    assert not list(state.parent.glob("state.json.bad-*"))
    assert spell(shared_desk, "--machine", "review", "approve").returncode == 0
    # A state no machine of the project has is repaired as ever.
    state.write_text(json.dumps({"current_state": "nowhere"}))
    assert "nowhere" in spell(shared_desk, "--machine", "publishing", "status").stderr
    fixed = spell(shared_desk, "--machine", "publishing", "repair")
    assert fixed.returncode == 0, fixed.stderr
    assert list(state.parent.glob("state.json.bad-*"))


def test_a_machine_with_a_gap_answers_every_door_in_the_state_of_the_gap(house: Path) -> None:
    from typing import Any

    from mcp import Client

    from tests.cli.test_mcp import run as serve

    # No rule says what Open does in OPEN: generated all the same (allow_errors).
    (house / "spec" / "DOOR.md").write_text(
        DOOR.replace(
            "| D4 | OPEN | Open | - | Same state | No state change | It is open already. |\n", ""
        ),
        encoding="utf-8",
    )
    (house / "pyproject.toml").write_text(
        PYPROJECT.replace(
            'door = "spec/DOOR.md"', 'door = { spec = "spec/DOOR.md", allow_errors = true }'
        ),
        encoding="utf-8",
    )
    generate(house)
    (house / ".door").mkdir()
    (house / ".door" / "state.json").write_text('{"current_state": "OPEN"}\n')
    status = spell(house, "status")
    assert status.returncode == EXIT_OK, clean(status)
    assert "  Open: nothing: the spec has no rule for it in OPEN\n" in status.stdout
    cast = spell(house, "open")
    assert cast.returncode == EXIT_UNHANDLED, clean(cast)
    assert "the spec has no rule for it in **OPEN**. Nothing changed." in cast.stdout
    assert spell(house, "--help").returncode == EXIT_OK

    async def body(client: Client) -> Any:
        tools = [t.name for t in (await client.list_tools()).tools]
        state = await client.read_resource("spellbook://state")
        opened = await client.call_tool("open", {})
        return tools, state.contents[0].text, opened

    tools, state, opened = serve(house, body)
    assert tools == ["open", "shut", "repair_state_file"]
    assert json.loads(state)["spells"]["Open"] == "nothing: the spec has no rule for it in OPEN"
    assert opened.is_error is False and opened.structured_content["outcome"] == "unhandled"
    assert json.loads((house / ".door" / "state.json").read_text())["current_state"] == "OPEN"


def test_mcp_refuses_to_cast_once_the_machine_is_regenerated(house: Path) -> None:
    """A server keeps the machine it started with: after `spellbook-codegen` wrote the
    module again, a call is refused, saying to restart, and nothing is cast."""
    from typing import Any

    from mcp import Client

    from tests.cli.test_mcp import run as serve

    (house / ".door").mkdir()
    (house / ".door" / "key.txt").write_text("turned\n")
    spec = house / "spec" / "DOOR.md"

    async def body(client: Client) -> Any:
        await client.list_tools()
        spec.write_text(DOOR.replace("Open", "Unlock"))
        generate(house)
        opened = await client.call_tool("open", {})
        from mcp import MCPError

        try:
            await client.read_resource("spellbook://state")
        except MCPError as err:
            return opened, str(err)
        return opened, None

    opened, state = serve(house, body, "--machine", "door")
    said = "".join(c.text for c in opened.content)
    assert opened.is_error and "generated/door.py changed since this MCP server started" in said
    assert "nothing was cast" in said and "Restart the MCP server" in said
    assert not (house / ".door" / "state.json").exists()
    assert state is not None and "generated/door.py changed" in state


def test_mcp_refuses_to_cast_once_the_project_is_reconfigured(house: Path) -> None:
    """The new machine may land elsewhere (another `generated` folder, a machine renamed):
    the old module stays as it was, so the project's configuration is watched too."""
    from typing import Any

    from mcp import Client

    from tests.cli.test_mcp import run as serve

    (house / ".door").mkdir()
    (house / ".door" / "key.txt").write_text("turned\n")

    async def body(client: Client) -> Any:
        await client.list_tools()
        pyproject = house / "pyproject.toml"
        pyproject.write_text(pyproject.read_text().replace('"generated"', '"gen2"') + "\n")
        return await client.call_tool("open", {})

    opened = serve(house, body, "--machine", "door")
    said = "".join(c.text for c in opened.content)
    assert opened.is_error and "pyproject.toml changed since this MCP server started" in said
    assert not (house / ".door" / "state.json").exists()


def test_verify_refuses_an_action_on_the_state_file_of_another_machine_of_the_project(
    house: Path,
) -> None:
    """A rule of one machine could copy the AI's file to where another machine of the
    project keeps its state (not written yet, or written): that machine then started in
    any state the file named. The verifier said OK, with an info advising to delete the
    file first. The other machine's state file is read off its generated module."""
    module = (house / "generated" / "door.py").read_text(encoding="utf-8")
    (house / "generated" / "lock.py").write_text(
        module.replace('"door"', '"lock"').replace(".door/state.json", ".door/lock/state.json"),
        encoding="utf-8",
    )
    with (house / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write('lock = "spec/DOOR.md"\n')
    spec = house / "spec" / "DOOR.md"
    text = spec.read_text(encoding="utf-8")
    scrap = "| D3 | OPEN | Shut | - | CLOSED | Delete `open.flag` |"
    assert scrap in text
    for action, refused in (
        ("Copy `key.txt` to `lock/state.json`", True),
        ("Delete `lock`", True),
        ("Copy `key.txt` to `lock/notes.md`", False),
    ):
        spec.write_text(text.replace(scrap, f"| D3 | OPEN | Shut | - | CLOSED | {action} |"))
        verified = compiler(house, "verify", "--spec", "spec/DOOR.md")
        said = "is (or holds) the state file of another machine of the project"
        assert (said in verified.stdout) is refused, (action, verified.stdout)
        assert ("[action_path]" in verified.stdout) is refused, verified.stdout


def test_a_pyproject_toml_that_is_a_link_is_an_error_for_every_command(house: Path) -> None:
    """A pull request can make pyproject.toml a symbolic link (git keeps links): `spell`
    took it for no project and drove the shipped workflow with no word, while the
    compiler followed it, into another folder's table, or none (`/dev/null`): a broken
    machine passed CI. Every command now says the file is a link (exit 2)."""
    config = house / "pyproject.toml"
    (house / "real.toml").write_text(config.read_text(encoding="utf-8"), encoding="utf-8")
    for target in ("real.toml", os.devnull, "missing.toml"):
        config.unlink()
        config.symlink_to(target)
        for said in (
            spell(house, "status"),
            compiler(house, "verify"),
            compiler(house, "generate", "--check"),
        ):
            assert said.returncode == 2, (target, said.stdout, said.stderr)
            assert "pyproject.toml is a symbolic link" in said.stderr + said.stdout, said.stderr
            assert "Traceback" not in said.stderr
    # a link to a file with no [tool.spellbook] is no project's, as the file would be
    (house / "plain.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    config.unlink()
    config.symlink_to("plain.toml")
    assert spell(house, "status").returncode == 0


def test_a_machine_s_own_state_file_moved_since_it_was_generated_is_no_other_machine_s(
    house: Path,
) -> None:
    """The spec moved its state file from `.door/a/state.json` to `.door/state.json` and
    tidied the old one away: its own generated module, not yet regenerated, still named
    the old path, and verify and codegen refused the action as touching "the state file
    of another machine"."""
    spec = house / "spec" / "DOOR.md"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text.replace("`.door/state.json`", "`.door/a/state.json`"), encoding="utf-8")
    generate(house)
    scrap = "| D3 | OPEN | Shut | - | CLOSED | Delete `open.flag` |"
    spec.write_text(
        text.replace(scrap, "| D3 | OPEN | Shut | - | CLOSED | Archive `a/state.json` to `old/` |"),
        encoding="utf-8",
    )
    verified = compiler(house, "verify", "--spec", "spec/DOOR.md")
    assert "state file of another machine" not in verified.stdout, verified.stdout
