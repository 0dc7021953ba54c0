"""Cold-start wall time of commands, side by side, as ratios against `import transitions`.

    python bench/cold_start.py [--runs N]

Each command runs in a fresh interpreter. The commands take turns, in an order
that alternates every round, so a noisy machine affects them alike; the ratio
is the median over rounds of each command's time over the baseline's time in
the same round.

Bytecode caching is on for the subprocesses (PYTHONDONTWRITEBYTECODE is
removed), as it is for an installed wheel, whose modules pip compiles at
install time, and for `transitions` itself.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BASELINE = ("import transitions", "import transitions")
BUILD_MACHINE = (
    "import + build the spell machine",
    "from spellbook.machines import spell_machine as m\n"
    "class Facts:\n"
    "    def check(self, probe, arg): return False\n"
    "m.build(m.Model(Facts()))",
)
TARGETS = {
    "import + build the spell machine": 1.15,
    "spell lumos": 1.25,
    "spell accio": 1.25,
    "spell lumos, a project's own machine": 1.25,
}
SPELL = str(Path(sys.executable).parent / "spell")


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall_time(code: str | list[str]) -> float:
    """Wall time of `python -c code`, or of a command given as a list."""
    command = [sys.executable, "-c", code] if isinstance(code, str) else code
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(commands: list[tuple[str, str | list[str]]], runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name, _ in commands}
    for _, code in commands:  # warm the bytecode caches
        wall_time(code)
    for round_ in range(runs):
        order = commands if round_ % 2 == 0 else commands[::-1]
        for name, code in order:
            times[name].append(wall_time(code))
    return times


def spell_commands() -> list[tuple[str, str | list[str]]]:
    """`spell lumos` in a new workspace, and `spell accio` in one where every run casts
    the same rule: G3 (GATHER_EDITING, a plan without criteria), which keeps the state."""
    lumos_root = tempfile.mkdtemp(prefix="bench-lumos-")
    accio_root = tempfile.mkdtemp(prefix="bench-accio-")
    subprocess.run([SPELL, "--root", accio_root, "accio"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(accio_root, ".ai", "task", "plan.md"), "w") as f:  # made by G1
        f.write("# Plan\n\n## Acceptance Criteria\n\nNone yet.\n")
    # Lumos where what Accio would do is an archive: its preview reads task.md's
    # frontmatter, so PyYAML is loaded.
    executed_root = tempfile.mkdtemp(prefix="bench-executed-")
    task = os.path.join(executed_root, ".ai", "task")
    os.makedirs(task)
    for name, text in (
        ("plan.md", "# Plan\n\n## Acceptance Criteria\n\n- [ ] ship it\n"),
        ("task.md", "---\ntask_name: ship-it\n---\n\n# Task\n"),
        ("task-results.md", "Shipped.\n"),
        ("state.json", '{"current_state": "ACHIEVE_TASK_EXECUTED", "history": []}\n'),
    ):
        with open(os.path.join(task, name), "w") as f:
            f.write(text)
    return [
        ("spell lumos", [SPELL, "--root", lumos_root, "lumos"]),
        ("spell accio", [SPELL, "--root", accio_root, "accio"]),
        ("spell lumos, task executed", [SPELL, "--root", executed_root, "lumos"]),
        (PROJECT, [SPELL, "--root", project(), "lumos"]),
    ]


PROJECT = "spell lumos, a project's own machine"


def project() -> str:
    """A project of its own: a pyproject.toml (with other tools' tables, as real ones
    have) listing a machine generated from a copy of the spec, found by `spell` from
    `[tool.spellbook]` and imported from the project's `generated/` folder."""
    root = tempfile.mkdtemp(prefix="bench-project-")
    os.makedirs(os.path.join(root, "spec"))
    os.makedirs(os.path.join(root, ".git"))
    with open(ROOT / "spec" / "STATE_MACHINE.md", encoding="utf-8") as f:
        spec = f.read()
    with open(os.path.join(root, "spec", "FLOW.md"), "w", encoding="utf-8") as f:
        f.write(spec)
    with open(os.path.join(root, "pyproject.toml"), "w", encoding="utf-8") as f:
        f.write(
            '[project]\nname = "team"\nversion = "1.0"\ndependencies = ["spellbook-md"]\n\n'
            "[tool.ruff]\nline-length = 100\n\n"
            '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n'
            "[tool.spellbook.machines]\n"
            'flow = { spec = "spec/FLOW.md", vocabulary = "spell_workflow" }\n'
        )
    codegen = str(Path(sys.executable).parent / "spellbook-codegen")
    subprocess.run([codegen], check=True, cwd=root, env=ENV, stdout=subprocess.DEVNULL)
    return root


def ratios(times: dict[str, list[float]], baseline: str) -> dict[str, tuple[float, float]]:
    """Each command's median time, and the median of its time over the baseline's
    in the same round."""
    base = times[baseline]
    return {
        name: (
            statistics.median(samples),
            statistics.median(t / b for t, b in zip(samples, base, strict=True)),
        )
        for name, samples in times.items()
    }


def table(times: dict[str, list[float]], baseline: str) -> list[str]:
    lines = [f"{'command':<36} {'median':>9} {'ratio':>6} {'target':>10}"]
    for name, (median, ratio) in ratios(times, baseline).items():
        target = TARGETS.get(name)
        verdict = ""
        if target is not None:
            verdict = f"<={target:.2f} " + ("ok" if ratio <= target else "MISSED")
        lines.append(f"{name:<36} {median * 1000:>7.1f}ms {ratio:>6.2f} {verdict:>10}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    commands = [BASELINE, BUILD_MACHINE, *spell_commands()]
    times = measure(commands, args.runs)
    print(f"{args.runs} rounds, order alternating, {sys.executable}, bytecode cached")
    print("\n".join(table(times, BASELINE[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
