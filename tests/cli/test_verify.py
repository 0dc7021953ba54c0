"""`verify-state-machine.py` as a user runs it: output, JSON schema, exit codes, bad input."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.specs import fill, spec_text

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "verify-state-machine.py"
SEED = ROOT / "tests" / "data" / "fixtures" / "seed_spec.md"


def verify(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_seed_json_reports_full_coverage_and_the_unknown_state() -> None:
    result = verify("--spec", str(SEED), "--format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert len(report["states"]) == 24
    assert len(report["families"]) == 16
    assert len(report["spells"]) == 6
    assert report["coverage"] == {
        "families": {"covered": 96, "total": 96},
        "states": {"covered": 144, "total": 144},
    }
    unknown = [f for f in report["findings"] if f["kind"] == "unknown_state"]
    assert [(f["rule"], f["line"], f["severity"]) for f in unknown] == [("ER7", 301, "error")]
    assert "PR_APPLIED_PENDING_ARCHIVE_[G/A]" in unknown[0]["message"]
    assert report["ok"] is False
    assert set(report["findings"][0]) >= {"kind", "severity", "rule", "line", "state", "spell"}


def test_seed_json_matrix_is_in_priority_order() -> None:
    report = json.loads(verify("--spec", str(SEED), "--format", "json").stdout)
    assert report["states"][:2] == ["GATHER_NEEDS_PLAN", "GATHER_EDITING"]
    assert report["matrix"]["GATHER_EDITING"]["Accio"] == ["G2", "G2b", "G3", "G4"]
    # ER5 names the state; F1 (`Any state except ...`) is a wildcard, so ER5 comes first.
    assert report["matrix"]["ERROR_TASK_MISSING"]["Finite"] == ["ER5", "F1"]
    assert report["family_matrix"]["PR_APPLIED_PENDING_ARCHIVE_[G/A]"]["Accio"] == [
        "P3",
        "P3b",
        "P4a",
        "P4b",
    ]


def test_project_spec_verifies_clean_with_the_default_path() -> None:
    result = verify()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK: 96/96 family cells and 144/144 state cells covered; 0 errors" in result.stdout


def test_text_output_shows_both_matrices_findings_and_verdict() -> None:
    out = verify("--spec", str(SEED)).stdout
    assert "Coverage by state family: 96/96 cells" in out
    assert "Coverage by state: 144/144 cells" in out
    assert f"{SEED}:301: error: rule ER7 names unknown state" in out
    assert out.rstrip().splitlines()[-1].startswith("FAILED: 96/96 family cells")


def test_a_spec_with_no_families_prints_one_matrix_saying_so(tmp_path: Path) -> None:
    spec = tmp_path / "doors.md"
    spec.write_text(
        "# Door\n\n| From | Event | To |\n|---|---|---|\n| (start) | fit | closed |\n"
        "| closed | open | opened |\n| opened | close | closed |\n\n"
        "Transitions not listed are rejected.\n",
        encoding="utf-8",
    )
    out = verify("--spec", str(spec)).stdout
    assert "Coverage by state family" not in out
    assert out.count("\nSTATE ") == 1 and "STATE FAMILY" not in out
    assert (
        "Coverage by state: 4/4 cells (2 states x 2 events; no state families, so no matrix "
        "by family)"
    ) in out
    markdown = verify("--spec", str(spec), "--format", "markdown").stdout
    assert "## Coverage: 2 states x 2 events (no state families)\n\n| State | open |" in markdown
    assert "State family" not in markdown
    data = json.loads(verify("--spec", str(spec), "--format", "json").stdout)
    assert set(data["coverage"]) == {"states", "families"}  # the keys stay


def test_missing_cell_fails_with_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "spec.md"
    path.write_text(spec_text(["A", "B"], ["Go"], fill(["A", "B"], ["Go"], skip=["B/Go"])))
    result = verify("--spec", str(path), "--format", "json")
    assert result.returncode == 1
    findings = json.loads(result.stdout)["findings"]
    (finding,) = [f for f in findings if f["kind"] == "missing_cell"]
    assert (finding["kind"], finding["state"], finding["spell"]) == ("missing_cell", "B", "Go")


GOOD = spec_text(["A", "B"], ["Go"], fill(["A", "B"], ["Go"]))
TABLE_LINE = next(i for i, ln in enumerate(GOOD.split("\n"), 1) if ln.startswith("| ID |"))


def without_column(text: str, index: int) -> str:
    """The spec with one column removed from every line of its table."""
    lines = []
    for ln in text.split("\n"):
        if ln.startswith("|"):
            cells = ln.split("|")
            ln = "|".join(cells[: index + 1] + cells[index + 2 :])
        lines.append(ln)
    return "\n".join(lines)


BAD_INPUTS = {
    "empty file": (b"", 1, "empty"),
    "whitespace only": (b"\n\n  \n", 1, "empty"),
    "prose, no tables": (b"# Notes\n\nJust text.\n", 1, "not a state-machine spec"),
    "no transition table": (
        GOOD.split("### Transition Rules")[0].encode(),
        1,
        "no transition table",
    ),
    "table with a missing column": (
        without_column(GOOD, 3).encode(),
        TABLE_LINE,
        "no 'Condition' column",
    ),
    "garbled row (a bar splits a family's cell)": (
        GOOD.replace("| Z2 | B |", "| Z2 | B_[G|A] |", 1).encode(),
        TABLE_LINE + 3,
        "row does not have the 7 cells",
    ),
    "garbled row (not a row)": (
        (GOOD + "Z3 B Go garbage\n").encode(),
        TABLE_LINE + 4,
        "not a table row",
    ),
    "row with empty Current State": (
        GOOD.replace("| Z2 | B |", "| Z2 |  |", 1).encode(),
        TABLE_LINE + 3,
        "empty 'Current State' cell",
    ),
    "row with empty Condition (a merged cell)": (
        GOOD.replace("| Z2 | B | Go | - |", "| Z2 | B | Go |  |", 1).encode(),
        TABLE_LINE + 3,
        "empty 'Condition' cell: write `-`",
    ),
    "non-UTF-8 bytes": (
        GOOD.encode().replace(b"the B state", b"the \xff state"),
        next(i for i, ln in enumerate(GOOD.split("\n"), 1) if "the B state" in ln),
        "not UTF-8",
    ),
    "binary": (b"\x00\x01\x02PNG\x00", 1, "NUL bytes"),
    "state name not an identifier": (
        GOOD.replace("**B**", "**B state**").encode(),
        next(i for i, ln in enumerate(GOOD.split("\n"), 1) if "**B**" in ln),
        "not an identifier",
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS), ids=list(BAD_INPUTS))
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_bad_input_is_a_clean_error_with_file_and_line(tmp_path: Path, case: str, fmt: str) -> None:
    data, line, words = BAD_INPUTS[case]
    path = tmp_path / "spec.md"
    path.write_bytes(data)
    result = verify("--spec", str(path), "--format", fmt)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert f"{path}:{line}: " in result.stderr
    assert words in result.stderr
    if fmt == "json":
        report = json.loads(result.stdout)
        assert report["ok"] is False
        assert report["findings"][0]["kind"] == "parse_error"
        assert report["findings"][0]["line"] == line


@pytest.mark.parametrize("target", ["missing.md", "."])
def test_unreadable_path_exits_2(tmp_path: Path, target: str) -> None:
    result = verify("--spec", str(tmp_path / target))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert str(tmp_path / target) in result.stderr


def test_default_spec_missing_in_other_directory_says_how_to_point_at_one(tmp_path: Path) -> None:
    result = verify(cwd=tmp_path)
    assert result.returncode == 2
    assert "spec/STATE_MACHINE.md" in result.stderr and "no such file" in result.stderr


def test_bad_arguments_exit_2() -> None:
    result = verify("--format", "yaml")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


def test_a_spec_over_the_size_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    from codegen import SPEC_LIMIT

    path = tmp_path / "huge.md"
    path.write_bytes(GOOD.encode() + b"| x | y |\n" * (SPEC_LIMIT // 2))  # 10 MB
    start = time.monotonic()
    result = verify("--spec", str(path))
    elapsed = time.monotonic() - start
    print(f"\n{path.stat().st_size / 1e6:.0f} MB spec refused in {elapsed:.2f} s")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{path}: over 2 MB: not read" in result.stderr


def test_a_table_with_10000_columns_is_a_short_clean_error(tmp_path: Path) -> None:
    header = "| ID | Current State | Spell | " + " | ".join(f"c{i}" for i in range(10_000)) + " |"
    rule = "|" + "---|" * 10_003
    path = tmp_path / "wide.md"
    path.write_text(GOOD + "\n" + header + "\n" + rule + "\n", encoding="utf-8")
    result = verify("--spec", str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "and 9993 more" in result.stderr and len(result.stderr) < 2000


@pytest.mark.parametrize("share", [0.05, 0.2, 0.41, 0.63, 0.8, 0.97])
def test_a_truncated_spec_is_a_clean_error_for_verify_and_codegen(
    tmp_path: Path, share: float
) -> None:
    """The project spec cut off part way (mid-row, mid-list, mid-character): the verifier
    and the code generator finish in bounded time, with file:line for anything wrong
    (a cut that leaves a whole spec may pass)."""
    data = (ROOT / "spec" / "STATE_MACHINE.md").read_bytes()
    path = tmp_path / "spec.md"
    path.write_bytes(data[: int(len(data) * share)])
    for command in (
        [sys.executable, str(SCRIPT), "--spec", str(path), "--format", "json"],
        [sys.executable, "-m", "codegen", "--spec", str(path), "--check"],
    ):
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert result.returncode in (0, 1, 2), result.stdout[-500:] + result.stderr[-500:]
        assert "Traceback" not in result.stderr
        if result.returncode == 2:
            assert f"{path}:" in result.stderr


@pytest.mark.parametrize(
    ("typo", "meant"), [("plan.md exist", "plan.md exists"), ("task.md exsts", "task.md exists")]
)
def test_a_misspelt_condition_is_matched_to_one_on_the_same_file(
    tmp_path: Path, typo: str, meant: str
) -> None:
    text = (ROOT / "spec" / "STATE_MACHINE.md").read_text(encoding="utf-8")
    row = (
        "| A2 | ACHIEVE_TASK_EXECUTED | Accio | task.md exists AND task-results.md exists AND "
        "plan.md exists |"
    )
    assert row in text
    spec = tmp_path / "spec.md"
    spec.write_text(text.replace(row, row.replace(meant, typo, 1)), encoding="utf-8")
    result = verify("--spec", str(spec))
    assert f"condition {typo!r} in rule A2 is not a fact this spec's words define " in result.stdout
    assert f"(did you mean {meant!r}?)" in result.stdout


def test_a_spec_s_terminal_controls_never_reach_the_terminal(tmp_path: Path) -> None:
    """A pull request's spec can hold escape sequences (a window title, a clipboard
    write): the source line an error quotes is printed with each control U+FFFD."""
    title = "\x1b]0;owned\x07"
    broken = tmp_path / "broken.md"
    broken.write_text(f"# Title{title}\n\n| a | b |\n|---|\n| {title} |\n", encoding="utf-8")
    for args in (("--format", "text"), ("--brief",), ("--against", str(broken))):
        done = verify("--spec", str(broken), *args)
        said = done.stdout + done.stderr
        assert done.returncode == 2 and "\ufffd]0;owned\ufffd" in done.stderr, said
        assert "\x1b" not in said and "\x07" not in said, said


@pytest.mark.timeout(120)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="makes a FIFO")
@pytest.mark.parametrize("where", ["--spec", "--against"])
def test_a_fifo_given_as_a_spec_is_refused_at_once_naming_it(tmp_path: Path, where: str) -> None:
    """A FIFO would block the read until a writer came (the budget then called the spec
    too costly): it is refused before anything is read, by name."""
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    args = ["--spec", str(fifo)] if where == "--spec" else ["--spec", str(SEED)]
    if where == "--against":
        args += ["--against", str(fifo)]
    result = verify(*args, "--budget", "10")
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"error: {fifo}: is not a regular file (a FIFO, ")


HOSTILE_NAME = "m\x1b]0;T\x07 \x9b31m \u202eevil \x85.md"  # ESC, C1 controls, a bidi override
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")


@pytest.mark.parametrize("fmt", ["markdown", "json", "sarif", "text"])
def test_a_spec_path_s_terminal_controls_never_reach_stdout(tmp_path: Path, fmt: str) -> None:
    """The report names the spec by its path, a name the disk gives: every report format
    prints it without a control (JSON escapes each, the same value), report or error."""
    spec = tmp_path / HOSTILE_NAME
    shutil.copy(SEED, spec)
    for path in (spec, tmp_path / f"gone {HOSTILE_NAME}"):
        result = verify("--spec", str(path), "--format", fmt)
        assert result.returncode in (1, 2), result.stderr
        assert not UNSAFE.search(result.stdout + result.stderr)
        if fmt == "json":
            assert json.loads(result.stdout)["spec"] == str(path)
        elif fmt == "markdown":
            assert result.stdout.startswith("# Verification of `")


@pytest.mark.parametrize("fmt", ["json", "sarif", "markdown"])
@pytest.mark.parametrize("bad", [["--budget", "abc"], ["--memory=-5"], ["--bogus"]])
def test_a_usage_error_is_said_in_the_format_asked_for(fmt: str, bad: list[str]) -> None:
    result = verify("--form", fmt, "--spec", "mine.md", *bad)
    assert result.returncode == 2
    assert "usage: verify-state-machine.py" in result.stderr
    if fmt == "json":
        report = json.loads(result.stdout)
        assert (report["spec"], report["ok"]) == ("mine.md", False)
        assert report["findings"][0]["message"] in result.stderr
    elif fmt == "sarif":
        (said,) = json.loads(result.stdout)["runs"][0]["results"]
        assert said["message"]["text"] in result.stderr
    else:
        assert result.stdout.startswith("# Verification of `mine.md`\n\n**Not verified**: ")


def test_the_spec_may_be_given_as_the_command_s_argument() -> None:
    """`verify-state-machine.py SPEC` is `--spec SPEC`; given both ways, it is refused."""
    as_option = verify("--spec", str(SEED), "--format", "json")
    as_argument = verify("--format", "json", str(SEED))
    assert as_option.returncode == as_argument.returncode == 1
    assert as_argument.stdout == as_option.stdout
    twice = verify(str(SEED), "--spec", "spec/STATE_MACHINE.md", "--format=json")
    assert twice.returncode == 2
    assert "the spec is given twice" in twice.stderr
    assert json.loads(twice.stdout)["spec"] == str(SEED)


def test_a_usage_error_names_the_spec_given_as_the_argument() -> None:
    result = verify("--format", "json", "--section", "Door", "mine.md", "--bogus")
    assert result.returncode == 2
    assert json.loads(result.stdout)["spec"] == "mine.md"  # not --section's value


def test_a_usage_error_of_a_comparison_is_said_as_one() -> None:
    result = verify("--format=json", "--against", "old.md", "--budget", "x")
    assert result.returncode == 2
    report = json.loads(result.stdout)
    assert (report["verdict"], report["old"]["spec"]) == ("not compared", "old.md")
    assert "--budget" in report["error"]["message"]


def test_a_format_argparse_cannot_take_is_said_on_stderr_alone() -> None:
    result = verify("--format", "yaml", "--bogus")
    assert (result.returncode, result.stdout) == (2, "")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="writes to /dev/full")
@pytest.mark.parametrize("args", [[], ["--format", "json"], ["--against", str(SEED)], ["--help"]])
def test_a_stdout_that_cannot_take_the_report_is_one_line_exit_2(args: list[str]) -> None:
    for stdout, why in (("> /dev/full", "No space left on device"), (">&-", "closed")):
        command = [sys.executable, str(SCRIPT), "--spec", str(SEED), *args]
        result = subprocess.run(
            ["sh", "-c", f'exec "$@" {stdout}', "sh", *command],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("error: cannot write the report: "), result.stderr
        assert why in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_a_spec_path_too_long_to_look_up_is_an_error_in_the_form_asked_for() -> None:
    done = verify("--spec", "a" * 256 + "/x.md", "--format", "json")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (finding,) = json.loads(done.stdout)["findings"]
    assert finding["message"] == "cannot read: File name too long"


@pytest.mark.parametrize(
    ("step", "code", "form"),
    [
        ("Delet notes.md", 1, "`Delete notes.md`"),  # misspelt: the file would stay
        ("Remove notes.md", 1, "`Delete notes.md`"),  # a synonym, naming the file
        ("Set attempts = 1", 1, "`Set attempts to 1`"),  # the verb's word, not its form
        ("Ask the developer to review the plan", 0, ""),  # plainly the AI's
    ],
)
def test_strict_fails_on_a_verb_that_does_not_read_and_passes_an_instruction(
    tmp_path: Path, step: str, code: int, form: str
) -> None:
    from tests.support.specs import row

    states, spells = ["A", "B"], ["Go"]
    rows = [
        row("X1", "A", "Go", "attempts < 3", "A", f"(1) Increment attempts; (2) {step}"),
        row("X2", "A", "Go", "attempts ≥ 3", "B", "Update state to B"),
        row("X3", "B", "Go", "-", "A", "(1) Reset attempts; (2) Update state to A"),
    ]
    path = tmp_path / "spec.md"
    path.write_text(spec_text(states, spells, rows), encoding="utf-8")
    assert verify("--spec", str(path)).returncode == 0
    result = verify("--spec", str(path), "--strict")
    assert result.returncode == code, result.stdout + result.stderr
    if code:
        assert "[unread_verb]" in result.stdout and form in result.stdout
    else:
        assert "[unknown_action]" in result.stdout


# Patterns only some specs need (a light table's notes, a States line written as prose,
# a hint for a Next State that is no state, ...): built on first use, never at import.
_ON_FIRST_USE = {
    "codegen.expand": ("_negated", "_same_words", "_blocked_words"),
    "codegen.analyse.kept": ("_addressed",),
    "codegen.read.document": ("_states_word", "_plain_states", "_plain_name", "_states_heading"),
    "codegen.read.conditions": ("_grammar_left",),
    "codegen.read.core_phrases": ("_time_bound",),
    "codegen.read.initial": (
        "initial_mark",
        "trailing_mark",
        "_initial_sentence",
        "_initial_line",
        "_starts",
        "_initially",
        "_negated",
        "_qualifier",
        "_clause",
    ),
    "codegen.read.light_tables": ("_no_event", "_note", "keeping", "_named_item", "_duration"),
    "codegen.read.light_cells": (
        *("_comment", "_tag", "_footnote", "_separator", "_others"),
        *("_state_separator", "_bracket_guard", "_word_guard", "_paren_guard"),
        *("_paren_more", "_word", "_action", "_state_note"),
    ),
    "codegen.read.markdown": ("_family_pipe", "line_break"),
    "codegen.read.near_verbs": ("_counter_phrase", "_add", "_to_value"),
    "codegen.read.policies": ("_qualified",),
    "codegen.read.rows": ("state_separator",),
    "codegen.read.sections": ("_number", "_every"),
}


def test_importing_the_verifier_compiles_no_pattern_only_some_specs_need() -> None:
    code = (
        "import importlib, re, sys\n"
        "compiled = []\n"
        "real = re.compile\n"
        "re.compile = lambda p, flags=0: compiled.append(p) or real(p, flags)\n"
        "import codegen.cli.verify\n"
        "re.compile = real\n"
        f"for module, names in {_ON_FIRST_USE!r}.items():\n"
        "    for name in names:\n"
        "        build = getattr(importlib.import_module(module), name)\n"
        "        assert build() is build(), (module, name)  # built once\n"
        "        if build().pattern in compiled:\n"
        "            print(f'{module}.{name}')\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ok"]


def test_verifying_imports_no_stage_it_does_not_use() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from codegen.cli.verify import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['--spec', {str(SEED)!r}, '--format', 'json'])\n"
        "stages = ('jinja2', 'black', 'codegen.render', 'codegen.diff', 'transitions',\n"
        "          'codegen.read.mermaid', 'spellbook.facts.frontmatter', 'yaml')\n"
        "print(sorted(m for m in sys.modules if any(m == s or m.startswith(s + '.') "
        "for s in stages)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symbolic links")
def test_a_spec_is_never_read_through_a_link_out_of_its_repository_or_from_git(
    tmp_path: Path,
) -> None:
    """A pull request that makes a spec (or a machine's entry) a link to a file of the
    machine the verifier runs on, or names git's own files, gets a refusal that quotes
    nothing of that file; a link within the repository is read as usual."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN=hunter2\n", encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "spec").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    (repo / "spec" / "real.md").write_text(
        (ROOT / "spec" / "STATE_MACHINE.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    os.symlink(secret, repo / "spec" / "out.md")
    os.symlink("../.git/config", repo / "spec" / "config.md")
    os.symlink("real.md", repo / "spec" / "in.md")
    refused = {
        "spec/out.md": "outside the repository",
        "spec/config.md": "a link into the repository's .git folder",
        ".git/config": "is in a .git folder",
    }
    for spec, why in refused.items():
        done = verify("--spec", spec, cwd=repo)
        assert done.returncode == 2 and why in done.stderr, done.stderr
        assert "hunter2" not in done.stdout + done.stderr
        assert "[core]" not in done.stdout + done.stderr and "Traceback" not in done.stderr
    (repo / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\nleak = "spec/out.md"\n', encoding="utf-8"
    )
    project = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "from codegen.cli.verify import main; sys.exit(main([], 'spellbook-verify', None))",
            str(ROOT),
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert project.returncode == 2 and "hunter2" not in project.stdout + project.stderr
    assert verify("--spec", "spec/in.md", "--brief", cwd=repo).returncode in (0, 1)


def test_a_machine_new_since_the_revision_is_said_new_not_an_error(tmp_path: Path) -> None:
    """`--against REV:` for a spec added since REV (a pull request adding a machine):
    nothing to compare and nothing that can break, exit 0, in each format; a file named
    at a revision (`REV:PATH`) that is not there is still an error."""
    repo = tmp_path / "repo"
    (repo / "spec").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    (repo / "spec" / "OLD.md").write_text("# Old\n", encoding="utf-8")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b",
    }
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, timeout=60)
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-qm", "one"], check=True, timeout=60, env=env
    )
    (repo / "spec" / "NEW.md").write_text(
        (ROOT / "examples" / "orders" / "spec" / "ORDERS.md").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    text = verify("--spec", "spec/NEW.md", "--against", "HEAD:", cwd=repo)
    assert text.returncode == 0, text.stderr
    assert (
        "spec/NEW.md against spec/NEW.md at HEAD" in text.stdout and "a new machine" in text.stdout
    )
    said = json.loads(
        verify("--spec", "spec/NEW.md", "--against", "HEAD:", "--format", "json", cwd=repo).stdout
    )
    assert said["verdict"] == "new machine" and said["breaking"] == []
    markdown = verify(
        "--spec", "spec/NEW.md", "--against", "HEAD:", "--format", "markdown", cwd=repo
    )
    assert markdown.returncode == 0 and "**New machine**" in markdown.stdout
    named = verify("--spec", "spec/NEW.md", "--against", "HEAD:spec/NEW.md", cwd=repo)
    assert named.returncode == 2 and "no such file at that revision" in named.stderr


def test_a_machine_whose_spec_moved_is_compared_with_its_old_file_not_called_new(
    tmp_path: Path,
) -> None:
    """The project's machine `orders` keeps its name while its spec moves to another
    file: `--against REV:` compares it with the file the machine had at REV (a state
    renamed there is a breaking change, exit 1), never "a new machine" that breaks nothing."""
    repo = tmp_path / "repo"
    (repo / "spec").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    orders = (ROOT / "examples" / "orders" / "spec" / "ORDERS.md").read_text(encoding="utf-8")
    (repo / "spec" / "ORDERS.md").write_text(orders, encoding="utf-8")
    (repo / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\norders = "spec/ORDERS.md"\n', encoding="utf-8"
    )
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b"}
    env |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, timeout=60)
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-qm", "one"], check=True, timeout=60, env=env
    )
    (repo / "spec" / "ORDERS.md").unlink()
    (repo / "spec" / "SHOP.md").write_text(orders.replace("PLACED", "RECEIVED"), encoding="utf-8")
    (repo / "pyproject.toml").write_text(
        '[tool.spellbook.machines]\norders = "spec/SHOP.md"\n', encoding="utf-8"
    )
    moved = verify("--spec", "spec/SHOP.md", "--against", "HEAD:", cwd=repo)
    assert "new machine" not in moved.stdout, moved.stdout
    assert "spec/ORDERS.md at HEAD" in moved.stdout and moved.returncode == 1, moved.stdout


@pytest.mark.parametrize(
    "command",
    [["verify-state-machine.py"], ["-m", "codegen", "--check"]],
    ids=["verify", "codegen"],
)
def test_a_checkout_run_by_a_python_without_the_project_says_how_to_install_it(
    command: list[str],
) -> None:
    # `python verify-state-machine.py` before the quickstart was a traceback ending in
    # "No module named 'spellbook'" (a Python whose site-packages lack it: `-S`).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-S", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "is not installed for" in done.stderr and "Traceback" not in done.stderr
    assert 'python3 -m venv .venv && .venv/bin/pip install -e ".[dev]"' in done.stderr
