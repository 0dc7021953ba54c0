"""Specs written to exhaust the verifier end in a result or a clear error, never a hang:
the attack specs of `bench/attacks.py` are checked exactly (the dead rules and the
changed worlds named), and a run past its time budget stops with exit 2 naming the
spec and what it was doing."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.cli import generate, verify
from codegen.model import Atom
from tests.support.spec_builders import alike_rows, alternatives, pairs, repeated_term, title
from tests.support.spec_builders import spec_of as _spec
from tests.support.worlds import cell_atoms, holds, worlds

ROOT = Path(__file__).resolve().parents[2]
VERIFY = (sys.executable, str(ROOT / "verify-state-machine.py"))


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.timeout(120)
def test_copies_of_a_row_of_64_alternatives_are_each_found_dead() -> None:
    found = analyse(parse_spec_text(alternatives(40), "spec/ALT.md"))
    dead = {f.rule: f.message for f in found if f.kind == "dead_rule"}
    assert set(dead) == {f"R{i}" for i in range(2, 41)}
    assert all("R1 comes first wherever it applies" in m for m in dead.values())
    assert not [f for f in found if f.kind in ("gap", "cell_too_complex")]


@pytest.mark.timeout(120)
def test_a_change_over_eight_pairs_of_facts_is_said_in_those_facts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _write(tmp_path, "new.md", pairs(2, True))
    old = _write(tmp_path, "old.md", pairs(2, False))
    assert verify.main(["--spec", str(new), "--against", str(old), "--format", "json"]) == 0
    out = capsys.readouterr().out
    # Where no pair holds, the cell now keeps its state: said as one world per missing
    # fact of each pair, over both cells' own files.
    assert '"spell": "Go"' in out and "a0_0.md missing" in out and "b1_7.md missing" in out


@pytest.mark.timeout(120)
def test_specs_differing_in_their_title_only_show_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _write(tmp_path, "new.md", title(60, "New"))
    old = _write(tmp_path, "old.md", title(60, "Old"))
    assert verify.main(["--spec", str(new), "--against", str(old)]) == 0
    assert capsys.readouterr().out.endswith(": no behaviour change\n")


@pytest.mark.parametrize("against", [False, True])
def test_past_its_budget_verify_stops_with_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], against: bool
) -> None:
    spec = _write(tmp_path, "alt.md", alternatives(4))
    args = ["--spec", str(spec), "--budget", "1e-9"]
    if against:
        args += ["--against", str(_write(tmp_path, "old.md", alternatives(3)))]
    assert verify.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {spec}: stopped after 1e-09 s, its time budget, while ")
    assert "--budget SECONDS" in err and "Traceback" not in err


def test_past_its_budget_codegen_stops_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "a"\n\n[tool.spellbook]\n')
    (tmp_path / "spec").mkdir()
    _write(tmp_path / "spec", "STATE_MACHINE.md", alternatives(4))
    monkeypatch.chdir(tmp_path)
    assert generate.main(["--budget", "1e-9", "--allow-errors"]) == 2
    err = capsys.readouterr().err
    assert "spec/STATE_MACHINE.md: stopped after" in err, err
    assert not (tmp_path / "generated").exists()


@pytest.mark.timeout(120)
def test_thousands_of_alike_rows_list_fifty_overlaps_and_count_the_rest() -> None:
    spec = parse_spec_text(alike_rows(3000), "spec/ALIKE.md")
    found = analyse(spec)
    dead = [f for f in found if f.kind == "dead_rule"]
    assert len(dead) == 3000 - 64  # all but the first row of each condition
    overlaps = [f for f in found if f.kind == "overlap"]
    assert len(overlaps) == 51
    assert [f.rule for f in overlaps].count(None) == 1  # the one that counts the rest


def test_the_overlaps_left_out_are_counted_exactly() -> None:
    # 300 rows over 4 conditions of 4 facts (and K, `-`): count the pairs by brute
    # force, world by world, as the first rule that fires and each other that does.
    spec = parse_spec_text(alike_rows(300, side=2), "spec/ALIKE.md")
    rules = spec.cell("A", "Go")
    atoms = cell_atoms(spec, "A", "Go")
    pairs = set()
    for world in worlds(atoms):
        firing = [i for i, rule in enumerate(rules) if holds(rule.condition, world)]
        pairs |= {(firing[0], j) for j in firing[1:]}
    (more,) = [f for f in analyse(spec) if f.kind == "overlap" and f.rule is None]
    assert f": {len(pairs) - 50} more pairs" in more.message, (len(pairs), more.message)


@pytest.mark.timeout(60)
def test_work_that_cannot_check_the_budget_is_ended_by_the_watchdog(tmp_path: Path) -> None:
    # Reading this row takes about 30 s and has no loop that checks the budget: the
    # watchdog ends the run 2 s after the deadline, with the same error.
    spec = _write(tmp_path, "repeated.md", repeated_term(1000))
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "verify-state-machine.py"),
            "--spec",
            str(spec),
            "--budget",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {spec}: stopped after 1 s, its time budget, while ")
    assert "Traceback" not in done.stderr


def _alike_states(count: int) -> str:
    lines = ["# Alike", "", "## States", ""]
    for i in range(count):
        lines += [f"- **S{i}**: state {i}", "  - *Indicators*: `x.md` exists"]
    lines += ["", "## Spells", "", "- **Go**: go", "", "## Spell Transitions", ""]
    lines += [
        "| Rule | From | Spell | Condition | Action | Next State |",
        "|---|---|---|---|---|---|",
    ]
    lines += ["| R | Any state | Go | - | - | Same state |", ""]
    return "\n".join(lines)


@pytest.mark.timeout(120)
def test_states_with_the_same_indicators_are_one_finding_not_one_per_pair() -> None:
    # 1,000 such states were 499,500 findings (849 MB, 172 MB of text).
    found = analyse(parse_spec_text(_alike_states(1000), "spec/ALIKE.md"))
    (alike,) = [f for f in found if f.kind == "indicators_alike"]
    assert len(alike.states) == 1000 and "S0, S1, S2" in alike.message
    assert "and 990 more" in alike.message and "chooses S999, listed last" in alike.message
    (pair,) = [
        f
        for f in analyse(parse_spec_text(_alike_states(2), "s.md"))
        if f.kind == "indicators_alike"
    ]
    assert pair.message.startswith("states S0 and S1: their Indicators say the same (S0: ")


@pytest.mark.timeout(120)
def test_many_states_renamed_at_once_are_matched_in_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 3,000 removed and 3,000 added states alike in everything took over 300 s.
    rows = ["| R | Any state | Go | - | - | Same state |"]
    new = _write(tmp_path, "new.md", _spec("New", [f"FRESH_{i}_STATE" for i in range(1500)], rows))
    old = _write(tmp_path, "old.md", _spec("Old", [f"OLD_NUMBER_{i}" for i in range(1500)], rows))
    verify.main(["--spec", str(new), "--against", str(old), "--format", "json"])
    states = json.loads(capsys.readouterr().out)["states"]
    assert len(states["renamed"]) == 1500 and not states["added"] and not states["removed"]


@pytest.mark.timeout(60)
def test_past_its_memory_budget_verify_stops_with_a_clear_error(tmp_path: Path) -> None:
    # This cell of 20,000 rows grows verify to about 150 MB: with 60 MB allowed it
    # stops, naming the size it reached and what it was doing.
    spec = _write(tmp_path, "alike.md", alike_rows(20000))
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "verify-state-machine.py"),
            "--spec",
            str(spec),
            "--memory",
            "60",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {spec}: stopped at "), done.stderr
    assert "MB, past its memory budget of 60 MB, while " in done.stderr
    assert "--memory MB" in done.stderr and "Traceback" not in done.stderr
    (finding,) = json.loads(done.stdout)["findings"]
    assert finding["message"].startswith("stopped at ")


# A process whose size is always past a memory budget of 10 MB, in that budget.
PAST_MEMORY = (
    "import sys, time\n"
    f"sys.path.insert(0, {str(ROOT)!r})\n"
    "from codegen import budget\n"
    "budget.size_mb = lambda: 999.0\n"
    "with budget.budget(None, 'x.md', memory=10):\n"
)


@pytest.mark.timeout(30)
def test_work_that_cannot_check_the_memory_budget_is_ended_by_the_watchdog() -> None:
    # Work with no loop of ours (here, a sleep) in a process past its bound: the
    # watchdog ends it GRACE seconds later with the same error.
    # The grace is cut to nothing once the work is reached: nothing else could end it.
    program = PAST_MEMORY + (
        "    budget.stage('formatting')\n    budget.GRACE = 0.0\n    time.sleep(20)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=25
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "error: x.md: stopped at 999 MB, past its memory budget of 10 MB, while formatting: "
        "the spec is too large to check in that memory (cells of many facts, many rules in "
        "one cell, many states or spells); split it, or allow more with --memory MB\n"
    )


def test_a_process_past_its_memory_budget_stops_at_the_next_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from codegen import budget

    monkeypatch.setattr(budget, "size_mb", lambda: 999.0)
    past = "past its memory budget of 10 MB, while "
    with pytest.raises(budget.OverBudget, match=past), budget.budget(None, "x.md", memory=10):
        time.sleep(budget.POLL * 4)
        budget.check("counting")
    with budget.budget(None, "x.md", memory=0):  # 0: no bound
        time.sleep(budget.POLL * 4)
        budget.check("counting")


@pytest.mark.parametrize("against", [False, True])
def test_out_of_memory_verify_stops_with_a_clear_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    against: bool,
) -> None:
    def exhausted(*args: object) -> None:
        raise MemoryError

    monkeypatch.setattr(verify, "analyse", exhausted)
    monkeypatch.setattr("codegen.diff.compare", exhausted)
    spec = _write(tmp_path, "alt.md", alternatives(2))
    args = ["--spec", str(spec)] + (["--against", str(spec)] if against else [])
    assert verify.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {spec}: ran out of memory while "), err
    assert "split it" in err and "Traceback" not in err


def test_out_of_memory_codegen_stops_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def exhausted(*args: object) -> None:
        raise MemoryError

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "a"\n\n[tool.spellbook]\n')
    (tmp_path / "spec").mkdir()
    _write(tmp_path / "spec", "STATE_MACHINE.md", alternatives(2))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(generate, "analyse", exhausted)
    assert generate.main([]) == 2
    assert capsys.readouterr().err.startswith(
        "error: spec/STATE_MACHINE.md: ran out of memory while "
    )
    assert not (tmp_path / "generated").exists()


@pytest.mark.timeout(30)
def test_a_run_that_has_raised_its_budget_error_is_not_cut_short_while_saying_it() -> None:
    # Once `check` has raised, the run ends by writing the error (a JSON report, say):
    # the watchdog's grace must not end the process half way through.
    program = PAST_MEMORY + (
        "    time.sleep(budget.POLL * 4)\n"
        "    try:\n"
        "        budget.check('counting')\n"
        "    except budget.OverBudget:\n"
        "        budget.GRACE = 0.0  # past the bound with no grace left\n"
        "        time.sleep(1)  # slow to write the error\n"
        "print('said in full')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=25
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "said in full\n", "")


# verify, in a process whose size is always past its memory budget, at work that has no
# check (the analysis, made to sleep): only the watchdog can end it, its grace (time for a
# loop to reach its next check) cut to nothing once the run is in that work.
UNCHECKED = (
    "import sys, time\n"
    f"sys.path.insert(0, {str(ROOT)!r})\n"
    "from codegen import budget\n"
    "from codegen.cli import verify\n"
    "import codegen.diff\n"
    "budget.size_mb = lambda: 999.0\n"
    "def unchecked(*args):\n"
    "    budget.GRACE = 0.0\n"
    "    time.sleep(60)\n"
    "verify.analyse = codegen.diff.compare = unchecked\n"
    "sys.exit(verify.main(sys.argv[1:]))\n"
)
# The same, told to stop by a signal while it works (with the grace kept: the signal ends it).
SIGNALLED = UNCHECKED.replace(
    "    budget.GRACE = 0.0\n    time.sleep(60)\n",
    "    import os, signal\n    os.kill(os.getpid(), signal.SIGTERM)\n    time.sleep(60)\n",
)


def _verify_with(program: str, spec: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", program, "--spec", str(spec), "--memory", "10", *args],
        capture_output=True,
        text=True,
        timeout=50,
    )


MEMORY = "stopped at 999 MB, past its memory budget of 10 MB, while "


@pytest.mark.timeout(60)
@pytest.mark.parametrize("form", ["json", "sarif", "markdown"])
def test_a_run_the_watchdog_ends_says_so_in_the_format_asked_for(tmp_path: Path, form: str) -> None:
    spec = _write(tmp_path, "alt.md", alternatives(2))
    done = _verify_with(UNCHECKED, spec, "--format", form)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {spec}: {MEMORY}"), done.stderr
    if form == "json":
        report = json.loads(done.stdout)
        assert (report["spec"], report["ok"]) == (str(spec), False)
        (finding,) = report["findings"]
        assert finding["message"].startswith(MEMORY) and finding["severity"] == "error"
    elif form == "sarif":
        (result,) = json.loads(done.stdout)["runs"][0]["results"]
        assert result["message"]["text"].startswith(MEMORY)
    else:
        assert done.stdout.startswith(f"# Verification of `{spec}`\n\n**Not verified**: ")
        assert MEMORY in done.stdout


@pytest.mark.timeout(60)
@pytest.mark.parametrize("form", ["json", "markdown"])
def test_a_diff_the_watchdog_ends_says_so_in_the_format_asked_for(
    tmp_path: Path, form: str
) -> None:
    spec = _write(tmp_path, "alt.md", alternatives(2))
    done = _verify_with(UNCHECKED, spec, "--against", str(spec), "--format", form)
    assert done.returncode == 2, done.stderr
    if form == "json":
        report = json.loads(done.stdout)
        assert report["verdict"] == "not compared"
        assert report["error"]["message"].startswith(MEMORY)
        assert report["new"]["spec"] == report["old"]["spec"] == str(spec)
    else:
        assert done.stdout.startswith(f"# Spec change: `{spec}` against `{spec}`\n\n")
        assert "**Not compared**: " in done.stdout and MEMORY in done.stdout


@pytest.mark.timeout(60)
@pytest.mark.parametrize("against", [False, True])
def test_a_run_stopped_by_a_signal_says_so_in_the_format_asked_for(
    tmp_path: Path, against: bool
) -> None:
    spec = _write(tmp_path, "alt.md", alternatives(2))
    more = ["--against", str(spec)] if against else []
    done = _verify_with(SIGNALLED, spec, "--memory", "0", "--format", "json", *more)
    assert done.returncode == 128 + 15, done.stderr
    assert done.stderr == f"error: {spec}: stopped by SIGTERM before it was done\n"
    report = json.loads(done.stdout)
    said = report["error"]["message"] if against else report["findings"][0]["message"]
    assert said == "stopped by SIGTERM before it was done"


def test_a_bad_revision_is_said_in_the_json_asked_for(tmp_path: Path) -> None:
    spec = _write(tmp_path, "alt.md", alternatives(2))
    done = subprocess.run(
        [*VERIFY, "--spec", str(spec), "--against", str(tmp_path / "gone.md"), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["message"].endswith(
        "gone.md: no such file (a git "
        "revision is written REV:PATH, e.g. origin/main:spec/STATE_MACHINE.md)"
    )


# verify, sent SIGTERM just after its budget has ended (its report written), while its
# own signal handlers are still on.
SIGNALLED_AFTER = (
    "import contextlib, os, signal, sys\n"
    f"sys.path.insert(0, {str(ROOT)!r})\n"
    "from codegen.cli import verify\n"
    "within = verify.budget\n"
    "@contextlib.contextmanager\n"
    "def budget(*args, **kwargs):\n"
    "    with within(*args, **kwargs):\n"
    "        yield\n"
    "    os.kill(os.getpid(), signal.SIGTERM)\n"
    "verify.budget = budget\n"
    "sys.exit(verify.main(sys.argv[1:]))\n"
)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("form", ["json", "sarif", "markdown"])
def test_a_run_that_has_said_how_it_ended_says_nothing_more_when_signalled(
    tmp_path: Path, form: str
) -> None:
    """Once the report is written, a signal changes neither it nor the exit status: one
    document on stdout, whatever the timing (after the budget has ended too)."""
    spec = _write(tmp_path, "alt.md", alternatives(2))
    done = subprocess.run(
        [sys.executable, "-c", SIGNALLED_AFTER, "--spec", str(spec), "--format", form],
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert done.returncode in (0, 1), done.stderr
    assert "stopped by" not in done.stdout + done.stderr
    if form == "markdown":
        assert done.stdout.count("# Verification of ") == 1, done.stdout
    else:
        json.loads(done.stdout)  # one document, nothing after it


def test_a_cell_of_alike_rows_is_read_once_not_once_per_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each region of a cell of thousands of rules asks what each of its facts implies
    once (not once per rule that names it), and the cell's signature is read once (it is
    hashed to share regions between alike cells: at every rule, it was hashed thousands
    of times over)."""
    from codegen import logic
    from codegen.analyse import effects

    asked: list[object] = []
    read: list[object] = []
    closures: list[tuple[int, int]] = []  # (distinct atoms given, implications asked)
    implied, signature, closure = logic.implied, effects.signature, effects.closure

    def counted(atoms: Iterable[Atom]) -> tuple[Atom, ...]:
        given, before = list(atoms), len(asked)
        found = closure(given)
        closures.append((len(set(given)), len(asked) - before))
        return found

    monkeypatch.setattr(logic, "implied", lambda atom: asked.append(atom) or implied(atom))
    monkeypatch.setattr(effects, "signature", lambda rules: read.append(1) or signature(rules))
    monkeypatch.setattr(effects, "closure", counted)
    spec = parse_spec_text(alike_rows(400), "spec/ALIKE.md")
    found = effects.Effects(spec)
    for at, rule in enumerate(spec.cell("A", "Go")):
        found.region(rule, at)
    assert closures and all(given == asked for given, asked in closures), closures[:3]
    assert len(read) == 1
