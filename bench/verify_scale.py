"""Verify time and peak memory on specs cloned 1x, 10x and 40x, in fresh processes.

    python bench/verify_scale.py [--runs N]

The 40x spec clones every state family of spec/STATE_MACHINE.md 40 times
(960 states). Targets: verify at 40x within 2 s and 300 MB; the 40x/1x time
ratio shows how cost grows with the spec (40 would be exactly linear).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.clone_spec import clone  # noqa: E402
from bench.run import VERIFY, fresh  # noqa: E402
from codegen import load_spec  # noqa: E402

SIZES = (1, 10, 40)


def run(spec: Path) -> tuple[float, float]:
    """Wall seconds and peak MB of one verify in a fresh interpreter."""
    return fresh(VERIFY, spec)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    source = load_spec(ROOT / "spec" / "STATE_MACHINE.md")
    with tempfile.TemporaryDirectory() as tmp:
        specs = {}
        for n in SIZES:
            specs[n] = Path(tmp) / f"x{n}.md"
            specs[n].write_text(clone(source, n), encoding="utf-8")
        times: dict[int, list[float]] = {n: [] for n in SIZES}
        memory: dict[int, float] = {n: 0.0 for n in SIZES}
        run(specs[1])  # warm the bytecode caches
        for round_ in range(args.runs):
            order = SIZES if round_ % 2 == 0 else SIZES[::-1]
            for n in order:
                seconds, mb = run(specs[n])
                times[n].append(seconds)
                memory[n] = max(memory[n], mb)
        base = statistics.median(times[1])
        print(f"verify, {args.runs} runs each (median), fresh processes, {sys.executable}")
        print(f"{'spec':<6} {'states':>7} {'size':>9} {'time':>8} {'vs 1x':>6} {'peak':>8}")
        for n in SIZES:
            median = statistics.median(times[n])
            size = specs[n].stat().st_size / 1024
            print(
                f"{n:>3}x   {24 * n:>7} {size:>7.0f}KB {median:>7.2f}s {median / base:>6.1f} "
                f"{memory[n]:>6.0f}MB"
            )
        at_40 = statistics.median(times[40])
        verdict = "ok" if at_40 <= 2.0 and memory[40] <= 300 else "MISSED"
        print(f"targets at 40x: <= 2 s and <= 300 MB: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
