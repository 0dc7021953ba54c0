"""This checkout against another revision, side by side in one run, through the front doors.

    python bench/against.py [--against REV] [--quick] [--self]

"Here" is this working tree as it is on disk (uncommitted changes included);
"then" is REV's files, unpacked with `git archive` into a temporary folder. Only
the project's stable entry points are timed, so the figures hold while the
modules behind them move: the function the tree's `spell` script calls (its
`pyproject.toml`'s `[project.scripts]`)
with PYTHONPATH=<tree>/src, `verify-state-machine.py` and `python -m codegen`
with PYTHONPATH=<tree>:<tree>/src. Each run is a fresh interpreter with bytecode
caches warm (PYTHONDONTWRITEBYTECODE is removed, and every command runs once in
each tree before anything is timed), and here and then take turns in an order
that alternates every round, so a noisy stretch of the machine weighs on both.

1. Cold start, against `python -c "import transitions"` (the floor, in the same
   rounds, without PYTHONPATH): `spell lumos` in a new workspace, `spell accio` in
   one where every run casts the same rule (G3), `spell lumos` in one whose task is
   executed; each tree's workspaces are made by its own `spell`, as
   `bench/cold_start.py` makes them. For each: the median time, the ratio to the
   floor (the median over rounds of time/floor in the same round).
2. Verify, `verify-state-machine.py --spec SPEC --format json` run in the tree (its
   `[tool.spellbook]` configuration applies): the project spec (each tree's own)
   and a 40x clone of it (`bench/clone_spec.py`, written once and given to both).
   Time, and peak memory: the child's maximum resident size from `os.wait4`.
3. Codegen, `python -m codegen --spec SPEC` in a new scratch folder for each run
   (with a `pyproject.toml` naming the `spell_workflow` vocabulary): the 40x clone
   with `--allow-errors`, and the tree's project spec copied in. And
   `python -m codegen --check` run in the tree, which must exit 0 in both.
4. The behavioural diff: `verify-state-machine.py --spec <40x clone> --against
   <40x clone whose wildcard rows name the original states>` (`clone_spec --unknown`).
5. Verify of the seed (`tests/data/fixtures/seed_spec.md`, here's, given to both), where
   start-up is most of the time, and of one cell whose rules hold 400 facts
   (`bench/attacks.py` `wide(400)`, written once and given to both).

here/then is the median, over rounds, of here's time over then's run next to it
(or of the two peaks); the short commands of 2. and 3. (the project spec's verify
and codegen, `--check`) run three such pairs a round. A figure is "no worse" when
here/then is at most 1 + TOLERANCE (memory: 1 + MEMORY_TOLERANCE), else "WORSE";
a command that fails in either tree is "FAILED". The exit status is 1 if any
figure is WORSE or FAILED. `--self` compares REV with REV (unpacked twice, into
two folders): the noise of this machine, which the tolerances are chosen from.
Nothing here runs in the tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.attacks import wide  # noqa: E402
from bench.generated_import import unpack  # noqa: E402

DEFAULT_REV = "1018ae4"  # the commit before the reorganisation of codegen/ and src/spellbook/
# `--self` on the 2-core machine this was written on, with other work running (load 2-5):
# REV against REV put the time figures at 0.924-1.064 in three runs with the default
# rounds, the peaks at 0.998-1.005. `--quick` (3 rounds) is a first look, not a
# verdict: two of three `--self --quick` runs put codegen of the 40x clone at 1.49-1.56.
TOLERANCE = 0.10
MEMORY_TOLERANCE = 0.02
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
PYTHON = sys.executable


def spell_code(tree: Path) -> str:
    """What the tree's installed `spell` script runs, from its own pyproject.toml."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - tomli is the runtime's own dependency before 3.11
        import tomli as tomllib
    scripts = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    module, _, function = scripts["scripts"]["spell"].partition(":")
    return f"from {module} import {function}; {function}()"


FLOOR = "import transitions"
CONFIG = '[tool.spellbook]\nvocabulary = "spell_workflow"\n'
PROJECT_SPEC = Path("spec", "STATE_MACHINE.md")
COPIES = 40
SIDES = ("here", "then")


@dataclass
class Run:
    seconds: float
    peak_mb: float
    code: int
    problem: str  # empty when the command did what it should


def run(
    command: list[str], cwd: Path, pythonpath: str | None, ok: frozenset[int] = frozenset({0})
) -> Run:
    """One fresh process: its wall time, peak memory (its largest process's maximum
    resident size, from `os.wait4`) and exit status."""
    env = dict(ENV, PYTHONPATH=pythonpath) if pythonpath else ENV
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    problem = ""
    if code not in ok or "Traceback (most recent call last)" in text:
        last = [line.strip() for line in text.splitlines() if line.strip()][-1:]
        problem = f"exit {code}" + (f": {last[0][:160]}" if last else "")
    return Run(seconds, usage.ru_maxrss / 1024, code, problem)


def paths(tree: Path) -> str:
    """PYTHONPATH for the compiler's entry points: the tree's `codegen` and `spellbook`."""
    return f"{tree}{os.pathsep}{tree / 'src'}"


def check_origin(tree: Path, neutral: Path) -> None:
    """The packages the commands import must be the tree's, not the editable install's."""
    for pythonpath, modules in (
        (str(tree / "src"), "spellbook"),
        (paths(tree), "codegen, spellbook"),
    ):
        out = subprocess.run(
            [PYTHON, "-c", f"import {modules}\nfor m in ({modules},): print(m.__file__)"],
            cwd=neutral,
            env=dict(ENV, PYTHONPATH=pythonpath),
            capture_output=True,
            text=True,
        )
        if out.returncode:
            sys.exit(f"PYTHONPATH={pythonpath}: import {modules} failed: {out.stderr.strip()}")
        for found in out.stdout.split():
            if not Path(found).resolve().is_relative_to(tree.resolve()):
                sys.exit(f"PYTHONPATH={pythonpath} imports {found}, not the tree's own")


def clone_specs(trees: list[Path], folder: Path) -> tuple[Path, Path]:
    """The 40x clone and the 40x clone naming the original states, made once by the
    first tree's `bench/clone_spec.py` that works (here's, else then's)."""
    made = []
    for unknown in (False, True):
        target = folder / f"x{COPIES}{'-unknown' if unknown else ''}.md"
        for tree in trees:
            command = [PYTHON, "bench/clone_spec.py", str(COPIES), str(tree / PROJECT_SPEC)]
            out = subprocess.run(
                [*command, *(["--unknown"] if unknown else [])],
                cwd=tree,
                env=dict(ENV, PYTHONPATH=paths(tree)),
                capture_output=True,
                text=True,
            )
            if out.returncode == 0 and out.stdout:
                target.write_text(out.stdout, encoding="utf-8")
                break
            print(f"clone_spec.py in {tree} failed: {out.stderr.strip()[-300:]}", flush=True)
        else:
            sys.exit("no tree could clone the spec")
        made.append(target)
    return made[0], made[1]


# -- 1. cold start --


def workspaces(tree: Path, folder: Path) -> dict[str, list[str]]:
    """The cold commands for one tree, in workspaces its own `spell` prepares, as
    `bench/cold_start.py` `spell_commands()` does."""
    spell = [PYTHON, "-c", spell_code(tree), "--root"]
    folder.mkdir()
    lumos, accio, executed = folder / "lumos", folder / "accio", folder / "executed"
    lumos.mkdir()
    accio.mkdir()
    done = run([*spell, str(accio), "accio"], folder, str(tree / "src"))  # G1 makes plan.md
    if done.problem:
        sys.exit(f"{tree}: `spell accio` to prepare a workspace: {done.problem}")
    (accio / ".ai" / "task" / "plan.md").write_text(
        "# Plan\n\n## Acceptance Criteria\n\nNone yet.\n"
    )
    task = executed / ".ai" / "task"
    task.mkdir(parents=True)
    for name, text in (
        ("plan.md", "# Plan\n\n## Acceptance Criteria\n\n- [ ] ship it\n"),
        ("task.md", "---\ntask_name: ship-it\n---\n\n# Task\n"),
        ("task-results.md", "Shipped.\n"),
        ("state.json", '{"current_state": "ACHIEVE_TASK_EXECUTED", "history": []}\n'),
    ):
        (task / name).write_text(text)
    return {
        "spell lumos": [*spell, str(lumos), "lumos"],
        "spell accio": [*spell, str(accio), "accio"],
        "spell lumos, task executed": [*spell, str(executed), "lumos"],
    }


@dataclass
class Figure:
    """One row: samples per side, and here/then per round."""

    name: str
    times: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in SIDES})
    peaks: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in SIDES})
    floors: dict[str, list[float]] = field(default_factory=lambda: {s: [] for s in SIDES})
    paired: list[float] = field(default_factory=list)
    paired_peak: list[float] = field(default_factory=list)
    codes: dict[str, set[int]] = field(default_factory=lambda: {s: set() for s in SIDES})
    problems: dict[str, str] = field(default_factory=dict)

    def add(self, side: str, done: Run) -> None:
        if done.problem:
            self.problems.setdefault(side, done.problem)
            return
        self.times[side].append(done.seconds)
        self.peaks[side].append(done.peak_mb)
        self.codes[side].add(done.code)

    def pair(self) -> None:
        """here/then of this round's two samples."""
        if all(self.times[s] for s in SIDES) and len(self.times["here"]) == len(self.times["then"]):
            self.paired.append(self.times["here"][-1] / self.times["then"][-1])
            self.paired_peak.append(self.peaks["here"][-1] / self.peaks["then"][-1])


def cold(trees: dict[str, Path], folder: Path, rounds: int) -> tuple[list[float], list[Figure]]:
    commands = {side: workspaces(tree, folder / f"spell-{side}") for side, tree in trees.items()}
    figures = {name: Figure(f"cold `{name}`") for name in commands["here"]}
    jobs: list[tuple[str, str]] = [("floor", "")]
    jobs += [(name, side) for name in figures for side in SIDES]
    floor: list[float] = []
    print(f"cold start: {rounds} rounds of {len(jobs)} commands", flush=True)
    for round_ in range(rounds + 1):  # round 0 writes and warms the bytecode caches
        took: dict[tuple[str, str], Run] = {}
        for name, side in jobs if round_ % 2 == 0 else jobs[::-1]:
            if name == "floor":
                took[(name, side)] = run([PYTHON, "-c", FLOOR], folder, None)
            else:
                took[(name, side)] = run(commands[side][name], folder, str(trees[side] / "src"))
        if took[("floor", "")].problem:
            sys.exit(f"`python -c {FLOOR!r}` failed: {took[('floor', '')].problem}")
        if round_ == 0:
            for (name, side), done in took.items():
                if done.problem:
                    figures[name].add(side, done)
            continue
        base = took[("floor", "")].seconds
        floor.append(base)
        for name, figure in figures.items():
            for side in SIDES:
                done = took[(name, side)]
                if side not in figure.problems:
                    figure.add(side, done)
                    if not done.problem:
                        figure.floors[side].append(done.seconds / base)
            figure.pair()
    return floor, list(figures.values())


# -- 2., 3., 4. verify, codegen, the behavioural diff --


@dataclass
class Job:
    name: str
    command: list[str]
    in_tree: bool  # run in the tree, else in a new scratch folder
    ok: frozenset[int]
    spec: Path | None = None  # copied into the scratch folder as spec/STATE_MACHINE.md
    memory: bool = False  # a memory row too
    repeat: int = 1  # pairs per round: more of the short ones, whose noise is the largest


def jobs(x40: Path, unknown40: Path, seed: Path, wide400: Path) -> list[Job]:
    verify = [PYTHON, "verify-state-machine.py"]
    codegen = [PYTHON, "-m", "codegen"]
    findings = frozenset({0, 1})  # 1: the spec has errors, or a state went without a migration
    return [
        Job(
            "verify the project spec",
            [*verify, "--spec", str(PROJECT_SPEC), "--format", "json"],
            True,
            findings,
            memory=True,
            repeat=3,
        ),
        Job(
            f"verify the {COPIES}x clone",
            [*verify, "--spec", str(x40), "--format", "json"],
            True,
            findings,
            memory=True,
        ),
        Job(
            f"codegen the {COPIES}x clone (`--allow-errors`)",
            [*codegen, "--spec", str(x40), "--allow-errors"],
            False,
            frozenset({0}),
            memory=True,
        ),
        Job(
            "codegen the project spec",
            [*codegen, "--spec", str(PROJECT_SPEC)],
            False,
            frozenset({0}),
            spec=PROJECT_SPEC,
            repeat=3,
        ),
        Job("`codegen --check` in the tree", [*codegen, "--check"], True, frozenset({0}), repeat=3),
        Job(
            f"diff: {COPIES}x clone `--against` the {COPIES}x clone naming the originals",
            [*verify, "--spec", str(x40), "--against", str(unknown40)],
            True,
            findings,
            memory=True,
        ),
        Job("verify the seed", [*verify, "--spec", str(seed)], True, findings, repeat=3),
        Job(
            "verify a cell of 400 facts (`wide-400`)",
            [*verify, "--spec", str(wide400)],
            True,
            findings,
            memory=True,
        ),
    ]


def run_job(job: Job, tree: Path, scratch_in: Path) -> Run:
    if job.in_tree:
        return run(job.command, tree, paths(tree), job.ok)
    scratch = Path(tempfile.mkdtemp(dir=scratch_in, prefix="codegen-"))
    try:
        (scratch / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
        if job.spec is not None:
            (scratch / PROJECT_SPEC).parent.mkdir(parents=True)
            shutil.copyfile(tree / job.spec, scratch / PROJECT_SPEC)
        return run(job.command, scratch, paths(tree), job.ok)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def compiler(
    trees: dict[str, Path], folder: Path, specs: tuple[Path, Path, Path, Path], rounds: int
) -> tuple[list[Job], list[Figure]]:
    todo = jobs(*specs)
    figures = {job.name: Figure(job.name) for job in todo}
    pairs = [job for job in todo for _ in range(job.repeat)]
    print(f"verify, codegen, diff: {rounds} rounds of {len(pairs)} pairs", flush=True)
    for round_ in range(rounds + 1):  # round 0 writes and warms the bytecode caches
        started = time.perf_counter()
        for job in pairs if round_ % 2 == 0 else pairs[::-1]:
            figure = figures[job.name]
            if round_ == 0 and figure.codes["here"]:  # warmed once
                continue
            for side in SIDES if round_ % 2 == 0 else SIDES[::-1]:
                if figure.problems:  # failed in one tree: not timed any more
                    break
                done = run_job(job, trees[side], folder)
                figure.add(side, done)
            if round_ == 0:  # the warm-up's samples are not kept
                for side in SIDES:
                    figure.times[side].clear()
                    figure.peaks[side].clear()
            elif not figure.problems:
                figure.pair()
        print(f"  round {round_}: {time.perf_counter() - started:.0f} s", flush=True)
    return todo, list(figures.values())


# -- the table --


def verdict(ratio: float, tolerance: float) -> str:
    return "no worse" if ratio <= 1 + tolerance else "WORSE"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def rows(
    floor: list[float], cold_figures: list[Figure], todo: list[Job], figures: list[Figure]
) -> tuple[list[tuple[str, str, str, str, str]], list[str]]:
    median = statistics.median
    table = [("cold `python -c 'import transitions'` (the floor)", ms(median(floor)), "", "", "")]
    notes: list[str] = []

    def failed(figure: Figure) -> bool:
        if not figure.problems:
            return False
        where = "; ".join(f"{side}: {why}" for side, why in figure.problems.items())
        table.append((figure.name, "", "", "", f"FAILED ({where})"))
        return True

    for figure in cold_figures:
        if failed(figure):
            continue
        ratio = median(figure.paired)
        cells = [
            f"{ms(median(figure.times[s]))}, {median(figure.floors[s]):.2f}x floor" for s in SIDES
        ]
        table.append((figure.name, *cells, f"{ratio:.3f}", verdict(ratio, TOLERANCE)))
    memory = {job.name for job in todo if job.memory}
    for figure in figures:
        if failed(figure):
            continue
        ratio = median(figure.paired)
        cells = [ms(median(figure.times[s])) for s in SIDES]
        table.append((figure.name, *cells, f"{ratio:.3f}", verdict(ratio, TOLERANCE)))
        if figure.name in memory:
            ratio = median(figure.paired_peak)
            cells = [f"{median(figure.peaks[s]):.0f} MB" for s in SIDES]
            table.append(
                (
                    f"{figure.name}: peak memory",
                    *cells,
                    f"{ratio:.3f}",
                    verdict(ratio, MEMORY_TOLERANCE),
                )
            )
        if figure.codes["here"] != figure.codes["then"]:
            notes.append(
                f"{figure.name}: exit status {sorted(figure.codes['here'])} here, "
                f"{sorted(figure.codes['then'])} then"
            )
    return table, notes


def markdown(table: list[tuple[str, str, str, str, str]]) -> str:
    lines = ["| figure | here | then | here/then | verdict |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in table]
    return "\n".join(lines)


def describe_here() -> str:
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    changed = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    return f"the working tree {ROOT} ({head or 'no commit'} and {len(changed)} changed files)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=DEFAULT_REV, metavar="REV")
    parser.add_argument("--quick", action="store_true", help="fewer rounds, for a first look")
    parser.add_argument(
        "--self", dest="self_", action="store_true", help="REV against REV: this machine's noise"
    )
    args = parser.parse_args()
    cold_rounds, rounds = (11, 3) if args.quick else (41, 9)
    started, load = time.perf_counter(), os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-against-") as tmp:
        folder = Path(tmp)
        then = unpack(args.against, folder / "then")
        here = unpack(args.against, folder / "here") if args.self_ else ROOT
        trees = {"here": here, "then": then}
        neutral = folder / "work"
        neutral.mkdir()
        for tree in trees.values():
            check_origin(tree, neutral)
        same = (here / PROJECT_SPEC).read_bytes() == (then / PROJECT_SPEC).read_bytes()
        seed, wide400 = folder / "seed.md", folder / "wide-400.md"
        shutil.copyfile(ROOT / "tests" / "data" / "fixtures" / "seed_spec.md", seed)
        wide400.write_text(wide(400), encoding="utf-8")
        specs = (*clone_specs([here, then], folder), seed, wide400)
        floor, cold_figures = cold(trees, neutral, cold_rounds)
        todo, figures = compiler(trees, neutral, specs, rounds)
    seconds = time.perf_counter() - started
    table, notes = rows(floor, cold_figures, todo, figures)
    where = f"{args.against} (unpacked twice)" if args.self_ else describe_here()
    print()
    print(f"here: {where}; then: {args.against}")
    print(
        f"{cold_rounds} cold rounds, {rounds} compiler rounds, taking turns; {seconds:.0f} s; "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs; tolerance "
        f"{TOLERANCE:.0%} (time), {MEMORY_TOLERANCE:.0%} (peak memory); load average "
        f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    )
    if not same:
        notes.append(f"{PROJECT_SPEC} differs between here and then: each tree's own is used")
    print()
    print(markdown(table))
    for note in notes:
        print(f"\nnote: {note}")
    print("\nhere/then per round, lowest and highest (the noise behind each median):")
    for figure in cold_figures + figures:
        if figure.paired:
            print(f"  {figure.name}: {min(figure.paired):.3f} - {max(figure.paired):.3f}")
    bad = [row for row in table if row[4] in ("WORSE",) or row[4].startswith("FAILED")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
