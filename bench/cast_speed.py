"""In-process cast speed, side by side with the floor: one bare atomic write of state.json.

    python bench/cast_speed.py [--casts N]

Every cast appends one history entry and rewrites state.json atomically (a
temporary file, `os.replace`, and with durability on, fsync of the file and its
folder). So the floor for a cast is one such write; this prints both, on the
temporary folder's filesystem and on a RAM filesystem (/dev/shm) where there is
one, so what the disk costs and what the cast costs can be told apart. Target:
`cast("Lumos")` median within 200 us.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from spellbook import Workflow

TARGET_US = 200.0
STATE = b'{\n  "current_state": "GATHER_NEEDS_PLAN",\n  "context": {},\n  "history": []\n}\n'


def bare_write(folder: str, durable: bool, runs: int) -> list[float]:
    """The cost of one atomic replacement of state.json, as the runtime does it."""
    target = os.path.join(folder, "state.json")
    times = []
    for i in range(runs):
        start = time.perf_counter()
        tmp = os.path.join(folder, f".state.json.{i}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, STATE)
        if durable:
            os.fsync(fd)
        os.close(fd)
        os.replace(tmp, target)
        if durable:
            dir_fd = os.open(folder, os.O_RDONLY)
            os.fsync(dir_fd)
            os.close(dir_fd)
        times.append(time.perf_counter() - start)
    return times


def casts(folder: str, durable: bool, runs: int) -> list[float]:
    flow = Workflow(folder, durable=durable)
    for _ in range(20):  # warm: machine built, first state file written
        flow.cast("lumos")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        flow.cast("lumos")
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--casts", type=int, default=300)
    args = parser.parse_args()
    places = [("temporary folder", tempfile.gettempdir())]
    if os.path.isdir("/dev/shm"):
        places.append(("RAM (/dev/shm)", "/dev/shm"))
    print(f"median of {args.casts} each; the history grows from 20 entries, one per cast")
    print(f"{'where':<18} {'durable':<8} {'bare write':>11} {'cast Lumos':>11} {'ratio':>6}")
    for label, base in places:
        for durable in (False, True):
            write = statistics.median(bare_write(tempfile.mkdtemp(dir=base), durable, args.casts))
            cast = statistics.median(casts(tempfile.mkdtemp(dir=base), durable, args.casts))
            verdict = "ok" if cast * 1e6 <= TARGET_US else "over"
            print(
                f"{label:<18} {'yes' if durable else 'no':<8} {write * 1e6:>9.0f}us "
                f"{cast * 1e6:>9.0f}us {cast / write:>6.1f}  (target {TARGET_US:.0f}us: {verdict})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
