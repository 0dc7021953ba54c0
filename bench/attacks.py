"""The resource attacks on the verifier, codegen and `--against`: time, peak memory and
how each run ends, in fresh processes.

    python bench/attacks.py [--only NAME] [--limit SECONDS]

The specs, small files written to exhaust the analysis, are made by
`tests/support/spec_builders.py` (the tests hold the same specs at a smaller size):

- `alternatives-N`: N copies of one row whose condition is a term of 64
  alternatives over 16 facts (every copy after the first is dead, and each dead
  rule is explained), N = 4, 10, 40.
- `alike-20000`: one cell of 20,000 rows over 64 conditions (1.4 MB): 19,936 dead
  rules, and 1.3 million pairs of overlapping rows (50 listed, the rest counted).
- `wide-F`: one cell of F facts (64, 200), checked with a SAT solver; `--against` the
  same cell where R2 reads the g files the other way round. And verify of `wide-400`:
  one (state, spell) cell whose rules hold 400 facts in all (350 ANDed, 50 ORed).
- `pairs-K` (`--against`): one cell whose new outcome depends on 8 pairs of facts,
  in K cells (K = 1, 2), against the spec where the cell always moves.
- `html-rows`, `heading-spaces`: 1 MB of markup, an HTML table whose rows are never
  closed and a heading of 500,000 non-breaking spaces.
- `title-S` (`--against`): two specs of S states, each state a cell of 16 facts of
  its own, that differ only in their title, S = 100, 200, 400; and verify of S = 30.

Each run is a fresh interpreter, ended after `--limit` seconds (default 400). The
promise (docs/reference/reliability.md): none of these runs longer than 10 s or larger than
500 MB, and each ends in a result or a clear error (exit 2, one line, no
traceback). Nothing here runs in the tests; `tests/compiler/test_budgets.py` holds
the same specs to the promise at a smaller size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import PEAK as PEAK_OF_RUN  # noqa: E402
from tests.support.spec_builders import (  # noqa: E402
    alike_rows,
    alternatives,
    pairs,
    title,
    wide,
)

PROMISE_SECONDS, PROMISE_MB = 10.0, 500.0

# The child's own high-water mark (bench/run.py's), then this checkout's compiler.
PEAK = PEAK_OF_RUN + "import sys\nsys.path.insert(0, {root!r})\n"
VERIFY = PEAK + (
    "import contextlib, io\n"
    "from codegen.cli.verify import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    code = main({args!r})\n"
    "print(code, peak(), file=sys.stderr)\n"
)
CODEGEN = PEAK + (
    "import contextlib, io\n"
    "from codegen.cli.generate import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    code = main({args!r})\n"
    "print(code, peak(), file=sys.stderr)\n"
)


def run(template: str, args: list[str], cwd: Path, limit: float) -> tuple[float, float, str]:
    """Seconds, peak MB and how it ended, of one fresh interpreter."""
    code = template.format(root=str(ROOT), args=args)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=limit,
            cwd=cwd,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, float("nan"), f"still running after {limit:g} s"
    seconds = time.perf_counter() - start
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    if "Traceback" in done.stderr or len(last.split()) != 2:
        return seconds, float("nan"), "TRACEBACK" if "Traceback" in done.stderr else last
    status, kb = last.split()
    said = [ln for ln in done.stderr.splitlines()[:-1] if ln.startswith("error:")]
    ended = f"exit {status}" + (f": {said[0][:90]}" if said else "")
    return seconds, int(kb) / 1024, ended


Case = tuple[str, str, Callable[[Path], list[str]]]


def cases(folder: Path) -> list[Case]:
    """(name, template, args made in `folder`) for every attack."""

    def write(name: str, text: str) -> Path:
        path = folder / name
        path.write_text(text, encoding="utf-8")
        return path

    found: list[Case] = []
    for n in (4, 10, 40):
        spec = write(f"alternatives-{n}.md", alternatives(n))
        found.append((f"verify alternatives-{n}", VERIFY, lambda f, s=spec: ["--spec", str(s)]))
        found.append(
            (
                f"codegen alternatives-{n}",
                CODEGEN,
                lambda f, s=spec: ["--spec", str(s), "--allow-errors"],
            )
        )
    spec = write("alike-20000.md", alike_rows(20_000))
    found.append(("verify alike-20000", VERIFY, lambda f, s=spec: ["--spec", str(s)]))
    for facts in (64, 200):
        spec, old = (
            write(f"wide-{facts}.md", wide(facts)),
            write(f"wide-{facts}-old.md", wide(facts, True)),
        )
        found.append((f"verify wide-{facts}", VERIFY, lambda f, s=spec: ["--spec", str(s)]))
        found.append(
            (
                f"--against wide-{facts}",
                VERIFY,
                lambda f, n=spec, o=old: [
                    "--spec",
                    str(n),
                    "--against",
                    str(o),
                    "--format",
                    "json",
                ],
            )
        )
    spec = write("wide-400.md", wide(400))
    found.append(("verify wide-400", VERIFY, lambda f, s=spec: ["--spec", str(s)]))
    for k in (1, 2):
        new, old = (
            write(f"pairs-{k}.md", pairs(k, True)),
            write(f"pairs-{k}-old.md", pairs(k, False)),
        )
        found.append(
            (
                f"--against pairs-{k}",
                VERIFY,
                lambda f, n=new, o=old: ["--spec", str(n), "--against", str(o), "--format", "json"],
            )
        )
    # Markup read before any analysis, 1 MB each (half the size a spec may have): an HTML
    # table whose rows are never closed, and a heading of 500,000 non-breaking spaces.
    for name, text in (
        ("html-rows", "# M\n\n<table><tr><td>" + "<tr>" * 250_000 + "\n"),
        ("heading-spaces", "# M\n\n## a" + "\u00a0" * 500_000 + "b\n"),
    ):
        spec = write(f"{name}.md", text)
        found.append((f"verify {name}", VERIFY, lambda f, s=spec: ["--spec", str(s)]))
    spec = write("title-30.md", title(30, "Thirty"))
    found.append(("verify title-30", VERIFY, lambda f, s=spec: ["--spec", str(s)]))
    for s in (100, 200, 400):
        new = write(f"title-{s}.md", title(s, "New title"))
        old = write(f"title-{s}-old.md", title(s, "Old title"))
        found.append(
            (
                f"--against title-{s}",
                VERIFY,
                lambda f, n=new, o=old: ["--spec", str(n), "--against", str(o), "--format", "json"],
            )
        )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only the cases whose name holds this")
    parser.add_argument("--limit", type=float, default=400.0)
    args = parser.parse_args()
    missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "pyproject.toml").write_text('[project]\nname = "attacks"\n\n[tool.spellbook]\n')
        print(f"{'case':<28} {'time':>9} {'peak':>8}  ended")
        for name, template, make in cases(folder):
            if args.only and args.only not in name:
                continue
            seconds, mb, ended = run(template, make(folder), folder, args.limit)
            kept = seconds <= PROMISE_SECONDS and mb <= PROMISE_MB and "TRACEBACK" not in ended
            missed += not kept
            print(
                f"{name:<28} {seconds:>8.2f}s {mb:>6.0f}MB  {ended}{'' if kept else '  MISSED'}",
                flush=True,
            )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
