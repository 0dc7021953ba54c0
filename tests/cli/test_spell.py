"""`spell` and the Workflow API: outcomes, exit codes, JSON, status, diagram, unhandled casts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from codegen import parse_spec_text
from codegen.render import render_machine
from spellbook import UnknownSpell, Workflow
from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_BLOCKED, EXIT_OK, EXIT_UNHANDLED
from tests.support.commands import clean, spell
from tests.support.specs import row, spec_text
from tests.support.workspaces import (
    CONTROLS,
    HOSTILE,
    TASK,
    executed,
    history,
    plan,
    set_state,
    write,
)


def test_outcomes_and_exit_codes(tmp_path: Path) -> None:
    assert spell(tmp_path, "lumos").returncode == EXIT_OK
    blocked = spell(tmp_path, "Reverto")
    assert blocked.returncode == EXIT_BLOCKED
    assert "You attempted to cast **Reverto** which cannot be used right now" in blocked.stdout
    moved = spell(tmp_path, "ACCIO", "--json")
    assert moved.returncode == EXIT_OK
    result = json.loads(moved.stdout)
    assert {k: result[k] for k in ("spell", "rule", "outcome", "before", "after")} == {
        "spell": "Accio",
        "rule": "G1",
        "outcome": "transition",
        "before": "GATHER_NEEDS_PLAN",
        "after": "GATHER_EDITING",
    }
    assert [e["outcome"] for e in history(tmp_path)] == ["noop", "blocked", "transition"]


def test_every_cast_appends_exactly_one_history_entry(tmp_path: Path) -> None:
    flow = Workflow(tmp_path)
    for n, name in enumerate(["lumos", "reverto", "accio", "finite", "expecto", "accio"], 1):
        flow.cast(name)
        assert len(history(tmp_path)) == n
    casts = [e["cast"] for e in history(tmp_path)]
    assert len(set(casts)) == len(casts)


def test_unknown_spell_is_a_clear_error() -> None:
    with pytest.raises(UnknownSpell, match="the spells are Accio, Expecto, Reparo, Reverto"):
        Workflow("/nonexistent").cast("Avada")


def test_help_documents_the_exit_codes() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "spellbook", "--help"], capture_output=True, text=True
    ).stdout
    for code, words in ((EXIT_BLOCKED, "blocked"), (EXIT_UNHANDLED, "unhandled")):
        assert f"{code}  {words}" in out
    # The statuses a signal ends a cast with (tests/cli/test_interrupted.py), and the
    # session's own commands, are listed too.
    import signal

    assert f"{128 + signal.SIGHUP}, {128 + signal.SIGTERM}  ended by SIGHUP or SIGTERM" in out
    assert "\n  session    " in out


def test_status_lists_what_each_spell_would_do(tmp_path: Path) -> None:
    out = spell(tmp_path, "status").stdout
    assert out.startswith("GATHER_NEEDS_PLAN: Initial state")
    assert "Accio: moves to GATHER_EDITING" in out
    data = json.loads(spell(tmp_path, "status", "--json").stdout)
    assert data["spells"]["Reverto"].startswith("blocked")
    # Plain text for a JSON reader: no markdown bold around the state's name.
    assert data["spells"]["Accio"].startswith("moves to GATHER_EDITING: ")
    assert "**" not in json.dumps(data["spells"])
    assert not (tmp_path / TASK / "state.json").exists()  # status casts nothing


def test_diagram_highlights_the_current_state(tmp_path: Path) -> None:
    Workflow(tmp_path).cast("accio")
    out = spell(tmp_path, "diagram").stdout
    assert out.startswith("---\ntitle: State Machine\n---\nstateDiagram-v2")
    assert "Class GATHER_EDITING s_active" in out
    assert "Class GATHER_NEEDS_PLAN s_default" in out
    assert "GATHER_EDITING --> ACHIEVE_TASK_DRAFTING: Accio" in out


def test_diagram_starts_at_the_initial_state_wherever_the_workspace_is(tmp_path: Path) -> None:
    flow = Workflow(tmp_path)
    flow.cast("accio")
    write(tmp_path, "plan.md", plan())
    flow.cast("accio")
    out = spell(tmp_path, "diagram").stdout
    starts = [line.strip() for line in out.splitlines() if "[*]" in line]
    assert starts == ["[*] --> GATHER_NEEDS_PLAN"]  # the machine's start, not where it is
    assert "Class ACHIEVE_TASK_DRAFTING s_active" in out
    assert "Class GATHER_NEEDS_PLAN s_default" in out
    # Every state but the current one is drawn as the committed diagram draws it.
    committed = (Path(__file__).parents[2] / "generated" / "spell_machine.mmd").read_text()
    assert [line for line in out.strip().splitlines() if "Class " not in line] == [
        line
        for line in committed.strip().splitlines()
        if "Class " not in line and not line.startswith("# DO NOT EDIT")  # the file's mark
    ]


def _graphviz_missing() -> str:
    import importlib.util
    import shutil

    if importlib.util.find_spec("graphviz") is None:
        return 'the graphviz package is not installed (pip install ".[diagrams]")'
    if shutil.which("dot") is None:
        return "Graphviz's dot program is not installed (apt-get install graphviz)"
    return ""


@pytest.mark.skipif(bool(_graphviz_missing()), reason=_graphviz_missing())
def test_diagram_draws_svg_and_png_with_graphviz(tmp_path: Path) -> None:
    Workflow(tmp_path).cast("accio")
    svg = spell(tmp_path, "diagram", "--format", "svg")
    assert svg.returncode == EXIT_OK, svg.stderr
    assert svg.stdout.startswith("<?xml") and "<svg" in svg.stdout
    assert "<title>State Machine</title>" in svg.stdout  # the spec's title
    assert ">Accio</text>" in svg.stdout and "internal" not in svg.stdout
    # The start is drawn to the initial state, and only the current state is in red.
    assert "<title>[*]&#45;&gt;GATHER_NEEDS_PLAN</title>" in svg.stdout
    assert svg.stdout.count('stroke="red"') == 2  # GATHER_EDITING's double outline
    assert '<title>GATHER_EDITING</title>\n<path fill="darksalmon" stroke="red"' in svg.stdout
    as_json = json.loads(spell(tmp_path, "diagram", "--format", "svg", "--json").stdout)
    assert as_json["format"] == "svg" and as_json["diagram"].startswith("<?xml")
    png = subprocess.run(
        [sys.executable, "-m", "spellbook", "--root", str(tmp_path), "diagram", "--format", "png"],
        capture_output=True,
        timeout=120,
    )
    assert png.returncode == EXIT_OK and png.stdout.startswith(b"\x89PNG\r\n\x1a\n")
    refused = spell(tmp_path, "diagram", "--format", "png", "--json")
    assert refused.returncode == EXIT_BAD_INPUT and "a PNG is no text" in refused.stderr


def test_format_is_for_the_diagram_only(tmp_path: Path) -> None:
    done = spell(tmp_path, "accio", "--format", "svg")
    assert done.returncode == EXIT_BAD_INPUT and "--format is for diagram, not accio" in done.stderr
    assert not (tmp_path / TASK / "state.json").exists()  # nothing cast


def test_diagram_without_graphviz_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from spellbook.doors.cli import main
    from spellbook.records.exits import EXIT_NOT_INSTALLED

    monkeypatch.setitem(sys.modules, "graphviz", None)  # its import fails
    assert main(["--root", str(tmp_path), "diagram", "--format", "svg"]) == EXIT_NOT_INSTALLED
    said = capsys.readouterr()
    assert said.out == ""
    assert "spell diagram --format svg draws with Graphviz, which is not installed" in said.err
    assert "[diagrams]" in said.err and "Traceback" not in said.err


def test_diagram_without_the_dot_program_says_what_to_install(tmp_path: Path) -> None:
    pytest.importorskip("graphviz", reason="the graphviz package is not installed")
    nowhere = tmp_path / "bin"
    nowhere.mkdir()
    import os

    done = spell(tmp_path, "diagram", "--format", "png", env={**os.environ, "PATH": str(nowhere)})
    assert done.returncode == 2 and done.stdout == ""
    assert "draws with Graphviz, which is not installed" in done.stderr
    assert "Traceback" not in done.stderr


def test_available_spells_follow_the_files(tmp_path: Path) -> None:
    flow = Workflow(tmp_path)
    flow.cast("accio")
    write(tmp_path, "plan.md", "# Plan\n\n## Acceptance Criteria\n\nNone yet.\n")
    no_ac = flow.cast("lumos").response
    assert "- **Accio**: no state change: prompt user to add at least one" in no_ac
    write(tmp_path, "plan.md", "# Plan\n\n## Acceptance Criteria\n\n- [ ] one\n")
    with_ac = flow.cast("lumos").response
    assert "- **Accio**: moves to **ACHIEVE_TASK_DRAFTING**" in with_ac


GAP_SPEC = spec_text(
    ["A", "B"],
    ["Go"],
    [
        row("T1", "A", "Go", condition="ready.md exists", nxt="B", action="Update state to B"),
        row("T2", "B", "Go", nxt="A", action="Update state to A"),
    ],
)


def gap_machine() -> types.ModuleType:
    module = types.ModuleType("gap_machine")
    source = render_machine(parse_spec_text(GAP_SPEC), "gap_machine")
    exec(compile(source, "gap_machine.py", "exec"), module.__dict__)
    return module


def test_unhandled_cast_changes_nothing_but_the_history(tmp_path: Path) -> None:
    flow = Workflow(tmp_path, machine=gap_machine())  # type: ignore[arg-type]
    result = flow.cast("go")
    assert (result.outcome, result.rule, result.after) == ("unhandled", None, "A")
    assert "no rule for it in **A** when ready.md missing" in result.response
    (entry,) = json.loads((tmp_path / "state.json").read_text())["history"]
    assert (entry["outcome"], entry["rule"]) == ("unhandled", None)
    (tmp_path / "ready.md").write_text("yes\n")
    assert flow.cast("go").after == "B"


def test_a_workspace_at_the_top_of_a_repository_reached_through_a_link_casts(
    tmp_path: Path,
) -> None:
    # Links are refused from the repository folder down, not in the path to it.
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "ready.md").write_text("yes\n")
    flow = Workflow(tmp_path / "link", machine=gap_machine())  # type: ignore[arg-type]
    assert flow.cast("go").after == "B"
    assert json.loads((tmp_path / "real" / "state.json").read_text())["current_state"] == "B"


def test_unhandled_exit_code(tmp_path: Path) -> None:
    from spellbook.doors import cli

    (tmp_path / "pyproject.toml").write_text('[tool.spellbook.machines]\ngap = "spec/GAP.md"\n')
    (tmp_path / "generated").mkdir()
    source = render_machine(parse_spec_text(GAP_SPEC), "gap")
    (tmp_path / "generated" / "gap.py").write_text(source, encoding="utf-8")
    assert cli.main(["--root", str(tmp_path), "go"]) == EXIT_UNHANDLED


def test_bad_input_exit_code(tmp_path: Path) -> None:
    assert spell(tmp_path, "nox").returncode == EXIT_BAD_INPUT


@pytest.mark.parametrize(
    ("args", "kind", "code", "said"),
    [
        (["nox"], "unknown_spell", EXIT_BAD_INPUT, "unknown spell 'nox'"),
        (["--machine", "nobody", "status"], "unknown_machine", EXIT_BAD_INPUT, "nobody"),
        (["--bogus", "accio"], "usage_error", EXIT_BAD_INPUT, "unrecognized arguments"),
        ([], "usage_error", EXIT_BAD_INPUT, "give a spell or a command"),
        (["cast"], "usage_error", EXIT_BAD_INPUT, "cast needs the spell to cast"),
        (["accio"], "state_file_error", EXIT_BAD_INPUT, "state.json"),
    ],
)
def test_every_json_failure_is_a_json_error_object_on_stdout(
    tmp_path: Path, args: list[str], kind: str, code: int, said: str
) -> None:
    if kind == "state_file_error":
        write(tmp_path, "state.json", "{not json")
    done = spell(tmp_path, "--json", *args)
    assert done.returncode == code, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == kind and error["exit_code"] == code, error
    assert said in error["message"] and done.stderr == f"error: {error['message']}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["lumos"],
        ["--json", "accio"],
        ["--root", "/some/where", "reparo"],
        ["--root=/x", "--json", "status"],
        ["accio", "--json"],
        ["--root", "a", "--root", "b", "diagram"],
        ["--machine", "release", "status"],
        ["--machine=release", "--root", "x", "go"],
        ["cast", "status"],
        ["--json", "CAST", "Lumos"],
    ],
)
def test_quick_arguments_read_what_argparse_reads(argv: list[str]) -> None:
    import argparse

    from spellbook.doors.cli import quick_arguments

    parser = argparse.ArgumentParser()
    parser.add_argument("--root")
    parser.add_argument("--machine")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--format", default="mermaid")
    parser.add_argument("command")
    parser.add_argument("spell", nargs="?")
    parsed = parser.parse_args(argv)
    parsed.spell = parsed.spell or parsed.command  # `spell NAME` and `spell cast NAME`
    quick = quick_arguments(argv)
    assert quick is not None and vars(quick) == vars(parsed)


@pytest.mark.parametrize(
    "argv", [[], ["--help"], ["--ro", "x", "lumos"], ["a", "b"], ["--", "x"], ["cast"]]
)
def test_anything_else_goes_to_argparse(argv: list[str]) -> None:
    from spellbook.doors.cli import quick_arguments

    assert quick_arguments(argv) is None


def test_the_command_exits_with_mains_status_and_without_the_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from spellbook.doors.cli import run

    monkeypatch.setattr(sys, "argv", ["spell", "--root", str(tmp_path), "reverto"])
    monkeypatch.setattr(sys.stdout, "write", lambda text: len(text))
    try:
        with pytest.raises(SystemExit) as exit_:
            run()
        assert exit_.value.code == EXIT_BLOCKED
        assert not gc.isenabled()  # a one-shot process: no collections at start-up or exit
    finally:
        gc.unfreeze()
        gc.enable()
    assert [e["outcome"] for e in history(tmp_path)] == ["blocked"]


def test_a_cast_that_changes_no_file_loads_no_more_than_it_needs(tmp_path: Path) -> None:
    """The cold path of `spell lumos`: PyYAML and the compiler stay unloaded (the
    actions load: what Accio would do is told from the plan its cast would make)."""
    code = (
        "import sys\n"
        "from spellbook.doors.cli import main\n"
        f"main(['--root', {str(tmp_path)!r}, 'lumos'])\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    loaded = set(result.stdout.split())
    assert "spellbook.cast.workflow" in loaded
    assert not loaded & {"yaml", "codegen", "mistune", "jinja2", "black"}


# What `spell lumos` in a new workspace of a git repository never uses, so never loads:
# the other commands' doors, the facts, verbs and walks the shipped spec's lumos does not
# ask for, and the standard library only they need. Not a timing: the modules by name.
NOT_FOR_LUMOS = {
    *("argparse", "difflib", "importlib.metadata", "tomllib", "typing", "dataclasses"),
    *("subprocess", "signal", "tempfile", "shutil", "hashlib", "datetime", "uuid"),
    *("sysconfig", "zipfile", "pathlib", "yaml", "re2", "mcp"),
    *("spellbook.doors.subcommands", "spellbook.doors.server", "spellbook.doors.hook"),
    *("spellbook.doors.guarded", "spellbook.doors.committed", "spellbook.records.diagram"),
    *("spellbook.cast.repair", "spellbook.cast.recall", "spellbook.cast.hand_moves"),
    *("spellbook.facts.commands", "spellbook.facts.patterns", "spellbook.facts.ledgers"),
    *("spellbook.facts.frontmatter", "spellbook.records.vocabulary", "spellbook.disk.walk"),
}


def test_lumos_loads_none_of_what_only_other_commands_need(tmp_path: Path) -> None:
    """Each name is loaded where it is used, never on the way in: `spell lumos` (its
    arguments read, its cast, its response) loads none of NOT_FOR_LUMOS. The
    shipped machine runs from its source (a checkout's `generated/`) without
    asking `sysconfig` where the standard library is."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code = (
        "import sys\n"
        "from spellbook.doors.cli import main\n"
        f"code = main(['--root', {str(tmp_path)!r}, 'lumos'])\n"
        "print(code, ' '.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    status, *loaded = result.stdout.splitlines()[-1].split()
    assert status == str(EXIT_OK) and "spellbook.cast.workflow" in loaded, result.stderr
    assert sorted(NOT_FOR_LUMOS & set(loaded)) == []


def test_an_installed_lumos_in_no_project_loads_no_project_code_nor_the_user_s_cache(
    tmp_path: Path,
) -> None:
    """As a wheel installs it (the shipped machines inside `spellbook.machines`, run as
    Python imports them), `spell lumos` given its --root in no project never uses the
    loading of a project's machines, the user's cache, git's files or zlib: none is
    loaded. (A checkout runs the machines from their source, which needs them all.)"""
    site = tmp_path / "site"  # not named `src`: no checkout's `generated/` beside it
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(
        root / "src" / "spellbook",
        site / "spellbook",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for module in (root / "generated").glob("*_machine.py"):
        shutil.copy(module, site / "spellbook" / "machines" / module.name)
    work = tmp_path / "work"
    work.mkdir()
    code = (
        f"import sys; sys.path.insert(0, {str(site)!r})\n"
        "from spellbook.doors.cli import main\n"
        f"code = main(['--root', {str(work)!r}, 'lumos'])\n"
        "print(code, sys.modules['spellbook'].__file__, ' '.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    status, package, *loaded = result.stdout.splitlines()[-1].split()
    assert status == str(EXIT_OK) and package.startswith(str(site)), result.stderr
    assert "spellbook.machines.spell_machine" in loaded
    unused = {"spellbook.disk.loading", "spellbook.disk.user_cache", "spellbook.disk.git", "zlib"}
    assert sorted(unused & set(loaded)) == []


def test_a_reader_that_leaves_early_is_no_error(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=0))
    piped = subprocess.run(
        f"'{sys.executable}' -m spellbook --root '{tmp_path}' status | head -c 1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert piped.stdout and piped.stderr == ""


@pytest.mark.parametrize("inside", [".git", ".git/hooks", ".GIT"])
def test_a_root_in_git_s_own_folder_is_refused_and_nothing_is_written(
    tmp_path: Path, inside: str
) -> None:
    # `spell --root .git accio` wrote .git/.ai/task/plan.md and state.json.
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    if not (tmp_path / inside).is_dir():  # a filesystem that tells `.GIT` from `.git`
        (tmp_path / inside).mkdir()
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = spell(tmp_path / inside, "accio")
    assert result.returncode == 2
    assert "git's own folder" in clean(
        result
    ) and f"give the repository's folder, {tmp_path}" in clean(result)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_root_that_does_not_exist_is_named(tmp_path: Path) -> None:
    result = spell(tmp_path / "nowhere", "lumos")
    assert result.returncode == 2
    assert f"the repository folder {tmp_path / 'nowhere'} does not exist" in clean(result)
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_loaded_content_reaches_the_terminal_without_its_controls(
    tmp_path: Path, as_json: bool
) -> None:
    executed(tmp_path)
    write(tmp_path, "task-results.md", HOSTILE)
    done = spell(tmp_path, "accio", *(["--json"] if as_json else []))
    assert done.returncode == EXIT_OK, clean(done)
    assert not CONTROLS.search(done.stdout)
    if as_json:  # the same text, every control escaped: nothing lost
        assert HOSTILE.rstrip("\n") in json.loads(done.stdout)["response"]
        assert "\\u001b]52;c;" in done.stdout and "\\u009b31m" in done.stdout
    else:  # readable: lines and tabs stay, a control is U+FFFD
        assert "hi \ufffd]52;c;cHduZWQ=\ufffd \ufffd]0;title" in done.stdout
        assert "\ufffd31m \ufffdevil\ufffd done\n\tnext line\nover\n" in done.stdout


def test_errors_reach_the_terminal_without_controls(tmp_path: Path) -> None:
    hostile = str(tmp_path / "\x1b]0;title\x07")  # a folder name is the disk's, not ours
    for args in (["lumos"], ["check-transition", "--state-file", f"{hostile}/state.json"]):
        done = subprocess.run(
            [sys.executable, "-m", "spellbook", "--root", hostile, *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == EXIT_BAD_INPUT
        assert not CONTROLS.search(clean(done)) and "\ufffd]0;title\ufffd" in done.stderr
    usage = spell(tmp_path, "--bogus=\x1b]0;title\x07", "lumos")  # argparse echoes it
    assert usage.returncode == EXIT_BAD_INPUT
    assert not CONTROLS.search(clean(usage)) and "\ufffd]0;title\ufffd" in usage.stderr
    failed = spell(Path(hostile), "lumos", "--json")
    assert json.loads(failed.stdout)["error"]["message"].endswith("\x1b]0;title\x07 does not exist")
    assert not CONTROLS.search(failed.stdout)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="writes to /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["--json", "status"],
        ["session", "status", "--json"],
        ["diagram"],
        ["lumos"],
        ["--json", "lumos"],
        ["--help"],
        ["check-transition", "GATHER_EDITING", "GATHER_EDITING"],
        ["check-transition", "--json", "GATHER_EDITING", "GATHER_EDITING"],
    ],
)
def test_a_stdout_that_cannot_take_the_output_is_one_line_exit_2(
    tmp_path: Path, args: list[str]
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for stdout, why in (("> /dev/full", "No space left on device"), (">&-", "closed")):
        done = subprocess.run(
            ["sh", "-c", f'exec "$@" {stdout}', "sh", sys.executable, "-m", "spellbook", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        said = clean(done)
        assert done.returncode == 2, said
        assert said.startswith("error: cannot write the output: ") and why in said, said
        assert said.count("\n") == 1, said


def test_the_workspace_a_subfolder_uses_is_said_without_controls(tmp_path: Path) -> None:
    top = tmp_path / "repo\x1b]0;title\x07"
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    set_state(top, "ACHIEVE_COMPLETE")
    deep = top / "src"
    deep.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "spellbook", "lumos"],
        cwd=deep,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == EXIT_OK, clean(done)
    assert "using the workspace ../.ai/task/ (" in done.stderr
    assert not CONTROLS.search(done.stderr) and "repo\ufffd]0;title\ufffd)" in done.stderr


SHADOWED = Path(__file__).resolve().parents[1] / "data" / "cases" / "spell_shadowed" / "spec.md"


def shadowed_project(root: Path) -> Path:
    """A project whose machine has a spell named Status, like the command."""
    (root / "pyproject.toml").write_text('[tool.spellbook.machines]\nshadow = "spec.md"\n')
    (root / "generated").mkdir()
    source = render_machine(parse_spec_text(SHADOWED.read_text(encoding="utf-8")), "shadow")
    (root / "generated" / "shadow.py").write_text(source, encoding="utf-8")
    return root


def test_spell_cast_casts_a_spell_named_like_a_command(tmp_path: Path) -> None:
    shadowed_project(tmp_path)
    command = spell(tmp_path, "status")
    assert command.returncode == EXIT_OK and command.stdout.startswith("A: first"), clean(command)
    for words in (["cast", "status"], ["CAST", "Status"], ["--json", "cast", "STATUS"]):
        cast = spell(tmp_path, *words)
        assert cast.returncode == EXIT_OK, clean(cast)
        assert "Where we are." in cast.stdout and not cast.stdout.startswith("A: first")
    cast = spell(tmp_path, "cast", "go", "--json")
    assert json.loads(cast.stdout)["after"] == "B", clean(cast)
    entries = json.loads((tmp_path / "state.json").read_text())["history"]
    assert [e["trigger"] for e in entries] == ["Status", "Status", "Status", "Go"]


def test_spell_cast_names_only_spells_and_needs_one(tmp_path: Path) -> None:
    unknown = spell(tmp_path, "cast", "statu")
    assert unknown.returncode == EXIT_BAD_INPUT
    assert "unknown spell 'statu'" in unknown.stderr and "did you mean" not in unknown.stderr
    for words, said in (
        (["cast"], "cast needs the spell to cast: spell cast NAME"),
        (["lumos", "accio"], "unrecognized arguments: accio (to cast a spell: spell cast NAME)"),
    ):
        done = spell(tmp_path, *words)
        assert done.returncode == EXIT_BAD_INPUT and said in clean(done), done.stderr
    assert not (tmp_path / TASK).exists()


def test_help_says_how_to_cast_a_spell_whatever_its_name() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "spellbook", "--help"], capture_output=True, text=True
    ).stdout
    assert "\n  cast SPELL the same, and only that: `spell cast status` casts" in out


def test_version_is_the_installed_package_s() -> None:
    from importlib.metadata import version

    for words in (["--version"], ["session", "--version"]):
        done = subprocess.run(
            [sys.executable, "-m", "spellbook", *words], capture_output=True, text=True
        )
        assert done.returncode == EXIT_OK, clean(done)
        name = " ".join(["spell", *words[:-1]])
        assert done.stdout == f"{name} (spellbook-md) {version('spellbook-md')}\n"


def test_spell_alone_shows_the_help_and_is_no_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "spellbook"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == EXIT_OK and done.stderr == ""
    assert done.stdout.startswith("usage: spell ") and "\ncommands:\n" in done.stdout
    assert not (tmp_path / TASK).exists()  # it reads nothing and starts no workspace


def test_every_command_of_the_table_the_verifier_reads_is_a_command_of_spell(
    tmp_path: Path,
) -> None:
    """`spellbook.doors.subcommands.COMMANDS`, which `spell_shadowed` keeps spells from, is
    what `spell NAME` runs instead of a cast (`mcp` is served in test_mcp.py)."""
    from spellbook.doors.subcommands import COMMANDS

    root = ["--root", str(tmp_path), "--json"]
    for name in sorted(set(COMMANDS) - {"mcp"}):
        # `session` is a command as the first word: `spell session --root DIR ...`
        words = ["session", *root] if name == "session" else [*root, name]
        done = subprocess.run(
            [sys.executable, "-m", "spellbook", *words], capture_output=True, text=True, timeout=120
        )
        assert "unknown_spell" not in done.stdout and "unknown spell" not in done.stderr, name
    assert "unknown spell 'statuses'" in spell(tmp_path, "statuses").stderr


def test_session_is_the_command_wherever_the_options_put_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`spell --root DIR session status` drives the coding session as `spell session --root
    DIR status` does: the first word that is no option nor an option's value says which.
    `cast session` still casts a spell so named, and a second machine is refused."""
    from spellbook.doors.cli import main

    root = str(tmp_path)
    said = []
    for words in (
        ["session", "--root", root, "--json", "status"],
        ["--root", root, "--json", "session", "status"],
        [f"--root={root}", "--json", "session", "status"],
        ["--json", "--root", root, "session", "status"],
    ):
        assert main(words) == EXIT_OK, words
        said.append(json.loads(capsys.readouterr().out))
    assert all(s == said[0] for s in said)
    assert said[0]["state"] == "START"  # the session machine's, not the spell machine's
    assert main(["--root", root, "cast", "session"]) == EXIT_BAD_INPUT
    assert "unknown spell 'session'" in capsys.readouterr().err
    assert main(["--root", root, "--machine", "spell", "session", "status"]) == EXIT_BAD_INPUT
    assert "give one machine" in capsys.readouterr().err


BARE_SPEC = """# Bare

## Machine

### States

1. **draft**
   - *Indicators*: none
2. **done**
   - *Indicators*: none

### Transitions

| From | Event | To |
|------|-------|----|
| draft | Finish | done |
| done | Reopen | draft |

### Invalid transitions

| From | Event | To |
|------|-------|----|
| draft | Reopen | draft |
| done | Finish | done |
"""


def test_status_of_a_state_without_description_or_files_says_only_what_there_is(
    tmp_path: Path,
) -> None:
    from spellbook.doors.cli import _status_text

    module = types.ModuleType("bare")
    exec(
        compile(render_machine(parse_spec_text(BARE_SPEC), "bare"), "bare.py", "exec"),
        module.__dict__,
    )
    said = _status_text(Workflow(tmp_path, machine=module).status())  # type: ignore[arg-type]
    assert said.splitlines()[0] == "draft"  # no `draft: `
    assert "Files there" not in said and "none" not in said


ONE_LINE_ERRORS = [
    (["session", "session", "status"], "usage_error", "session is named twice"),
    (["--format", "session", "status"], "usage_error", "invalid choice: 'session'"),
    (["--root"], "usage_error", "--root: expected one argument"),
    (["session", "cast"], "usage_error", "cast needs the trigger to cast"),
    (["", "session", "status"], "usage_error", "the command is an empty word"),
    (["check-transition", "session", "A", "B"], "usage_error", "spell session check-transition"),
    (["check-transition", "A", "B"], "unknown_state", "unknown state 'A'"),
    (["check-transition", "--state-file", "/nonexistent"], "bad_file", "/nonexistent"),
    (["check-transition"], "usage_error", "give FROM TO"),
    (["check-transition", "--bogus"], "usage_error", "unrecognized arguments: --bogus"),
    (["--machine", "session", "--machine", "spell", "status"], "unknown_machine", "two machines"),
    (["--machine=session", "--machine", "spell", "lumos"], "unknown_machine", "two machines"),
    (["--machine", "a", "check-transition", "--machine", "b"], "unknown_machine", "two machines"),
    (["--machine=", "status"], "unknown_machine", "--machine needs a machine's name"),
    (["--machine=", "check-transition", "A", "B"], "unknown_machine", "--machine needs"),
    (["session", "--machine", "spell", "status"], "unknown_machine", "give one machine"),
]


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize(
    ("argv", "kind", "said"), ONE_LINE_ERRORS, ids=[" ".join(a) for a, _, _ in ONE_LINE_ERRORS]
)
def test_a_command_line_spell_cannot_take_is_one_line_and_a_json_error_with_json(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    kind: str,
    said: str,
    as_json: bool,
) -> None:
    """Each is refused (exit 2) in one line on stderr, `error: ...`, never argparse's
    usage; with --json, the same message as a JSON error object on stdout."""
    from spellbook.doors import cli

    monkeypatch.chdir(tmp_path)
    code = cli.main(["--json", *argv] if as_json else argv)
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and said in err, err
    assert "usage:" not in err
    if as_json:
        error = json.loads(out)["error"]
        assert error == {"kind": kind, "message": err[len("error: ") : -1], "exit_code": 2}
    else:
        assert out == ""


def test_the_same_machine_named_twice_is_one_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from spellbook.doors import cli

    monkeypatch.chdir(tmp_path)
    assert cli.main(["--machine", "session", "--machine=session", "status"]) == EXIT_OK
    assert capsys.readouterr().out.startswith("START: ")
