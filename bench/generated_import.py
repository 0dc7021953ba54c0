"""Import time of the generated machines, side by side with those of another commit.

    python bench/generated_import.py [--against REV] [--rounds N]

Each round imports `spellbook.machines.<module>` once from this checkout and once
from REV's (unpacked with `git archive` into a temporary folder), each in a fresh
interpreter that has imported `transitions` already, with bytecode written and
used, taking turns; the first round only writes the bytecode. Two figures: the
import as `bench/run.py` times it (the `spellbook` package and the module), and
the module alone (the package imported first). Prints the medians and their ratio.

The cyclic garbage collector is off while the import is timed, as `timeit` has it
and as `spell` runs: whether one of its young-generation collections (about a
millisecond here, walking the objects `transitions` made) falls inside a 2 ms
import depends on how much the process allocated before it, not on the module
(importing `gc` first moved 1018ae4's `spell_machine` from 1.5 to 2.7 ms).
The default REV is the last commit whose generated module held one `Rule(...)`
per expanded rule, before the module declared the spec's rows.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE_ROWS = "29c3c34"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TIMED = {
    "package and module": "import gc, time, transitions\n"
    "gc.disable()\n"
    "start = time.perf_counter()\n"
    "import spellbook.machines.{module}\n"
    "print(time.perf_counter() - start)\n",
    "module alone": "import gc, time, transitions, spellbook, spellbook.machines\n"
    "gc.disable()\n"
    "start = time.perf_counter()\n"
    "import spellbook.machines.{module}\n"
    "print(time.perf_counter() - start)\n",
}


def unpack(rev: str, into: Path) -> Path:
    """REV's files, written under `into` (made if missing)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = into / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", rev], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.10.12, 3.11.4 and later
            tar.extractall(into / "tree", filter="data")
        else:
            tar.extractall(into / "tree")  # our own repository's archive
    return into / "tree"


def timed(tree: Path, code: str) -> float:
    env = dict(ENV, PYTHONPATH=str(tree / "src"))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return float(out.stdout)


def compare(against: str, rounds: int, module: str) -> dict[str, tuple[float, float]]:
    """For each figure: the median import time here, and at `against` (seconds)."""
    with tempfile.TemporaryDirectory() as scratch:
        trees = {"here": ROOT, "then": unpack(against, Path(scratch))}
        times: dict[tuple[str, str], list[float]] = {}
        for round_ in range(rounds + 1):
            for what, code in TIMED.items():
                for label, tree in trees.items():
                    took = timed(tree, code.format(module=module))
                    if round_:
                        times.setdefault((what, label), []).append(took)
    return {
        what: (statistics.median(times[(what, "here")]), statistics.median(times[(what, "then")]))
        for what in TIMED
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=BEFORE_ROWS)
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    for module in ("spell_machine", "session_machine"):
        for what, (now, then) in compare(args.against, args.rounds, module).items():
            print(
                f"{module}, {what}: {now * 1e3:.2f} ms here, {then * 1e3:.2f} ms at "
                f"{args.against}: {now / then:.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
