"""Every speed figure of Spellbook, measured side by side on this machine, in one table.

    python bench/run.py [--quick]

1. Cold start: `spell lumos` (in a new workspace, and in one whose task is executed,
   where the preview of the archiving Accio reads frontmatter with PyYAML) and `spell
   accio`, against `python -c "import transitions"`, each in a fresh interpreter,
   taking turns; the ratio is the median over rounds of each command's time over the
   baseline's in the same round. Also the modules the cold cast imports beyond those
   `transitions` imports.
2. Warm, in process: `Workflow.cast("Lumos")`, and a file-moving Accio (rule A2:
   two files archived, a new task.md, with fsync) against one bare atomic write of
   state.json with fsync, on the same filesystem, in rounds taking turns (medians of
   all rounds' casts, each round a new workspace whose history grows from 20 entries
   by one per cast); and the fsyncs each
   cast makes, against the documented minimum (a regression if either grows).
3. The MCP server: casts per second over stdio, 1,000 Lumos calls from the SDK's client.
4. Verify and codegen on the project spec and on specs cloned 1x, 10x and 40x (and
   clones whose wildcard rows still name the original states: many unknown names):
   time and peak memory of a fresh process each; `python -m codegen --check` on the
   project's specs against `verify-state-machine.py` on the project spec; the
   behavioural diff (`--against`) of the two 40x clones against verifying one.
5. Verify on the seed against importing mistune and parsing the seed alone, and, given
   `--peer PATH`, against the upstream project's regex verifier (another project's
   script, never part of this repository: docs/reports/performance.md says how to get it),
   side by side; and the resource attacks of `bench/attacks.py`, once each.
6. The generated machines: source and bytecode size, longest line, and import time,
   also side by side with the modules of the commit before they declared the spec's
   rows (`bench/generated_import.py`, which needs the repository's history).

The table is printed and written to docs/reports/performance.md; README.md's benchmark
block gets the headline figures. Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import py_compile
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import cast_speed, cold_start, generated_import  # noqa: E402
from bench.clone_spec import clone  # noqa: E402
from codegen import load_spec  # noqa: E402

SIZES = (1, 10, 40)
# The fsyncs a cast needs (docs/reference/reliability.md): a state-only cast writes the state
# file and its folder; the archiving Accio also its intent record (data and folder),
# the new task.md, and each folder its moves change (`.ai/task/`, `tasks/`, the archive).
MIN_FSYNCS = {"lumos": 2, "accio": 8}
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
REPORT = ROOT / "docs" / "reports" / "performance.md"
README = ROOT / "README.md"
BLOCK = ("<!-- bench/run.py: headline -->", "<!-- bench/run.py: end -->")


def verdict(met: bool) -> str:
    return "target met:" if met else "target MISSED:"


class Table:
    """Rows of (area, measure, figure, target, verdict), and the headline figures."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str]] = []
        self.headline: list[str] = []
        self.syncs: dict[str, float] = {}

    def add(
        self, area: str, measure: str, figure: str, target: str = "", met: bool | None = None
    ) -> None:
        verdict = "" if met is None else ("met" if met else "MISSED")
        self.rows.append((area, measure, figure, target, verdict))
        print(f"  {measure:<58} {figure:>16}  {target:<16} {verdict}", flush=True)

    def markdown(self) -> str:
        lines = ["| area | measure | figure | target | |", "|---|---|---|---|---|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)


# -- 1. cold start --


def cold(table: Table, runs: int) -> None:
    print(f"cold start: {runs} rounds", flush=True)
    spells = cold_start.spell_commands()
    commands = [cold_start.BASELINE, *spells]
    found = cold_start.ratios(cold_start.measure(commands, runs), cold_start.BASELINE[0])
    base = found[cold_start.BASELINE[0]][0]
    table.add("cold start", "`python -c 'import transitions'` (the floor)", f"{base * 1e3:.1f} ms")
    for name in ("spell lumos", "spell accio", "spell lumos, task executed", cold_start.PROJECT):
        median, ratio = found[name]
        table.add(
            "cold start",
            f"`{name}`: {median * 1e3:.1f} ms, against the floor",
            f"{ratio:.2f}x",
            "<= 1.25x",
            ratio <= 1.25,
        )
        table.headline.append(
            f"cold `{name}`: {ratio:.2f}x `import transitions` ({verdict(ratio <= 1.25)} 1.25x)"
        )
    lumos_root = spells[0][1][2]  # spell --root ROOT lumos
    extra = extra_modules(lumos_root)
    table.add(
        "cold start",
        "modules `spell lumos` imports beyond `transitions`'s",
        f"{len(extra)}: {', '.join(extra)}",
    )


def extra_modules(root: str) -> list[str]:
    code = (
        "import sys\n"
        "import transitions\n"
        "floor = set(sys.modules)\n"
        "import contextlib, io\n"
        "seen = set(sys.modules)\n"
        "from spellbook.doors.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['--root', {root!r}, 'lumos'])\n"
        "print(' '.join(sorted(set(sys.modules) - floor - (seen - floor))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV
    )
    return out.stdout.split()


# -- 2. warm casts --


# Warm casts are measured in rounds, each a new workspace, the bare write and the
# cast taking turns: a stretch of a shared machine running slow (a round of 300
# casts takes about 60 ms) then weighs on one round of several, not on the figure.
ROUNDS = 5


def warm(table: Table, casts: int) -> None:
    print(f"warm casts: {ROUNDS} rounds of {casts} each", flush=True)
    places = [("disk", tempfile.gettempdir())]
    if os.path.isdir("/dev/shm"):
        places.append(("RAM", "/dev/shm"))
    seen: dict[str, float] = {}
    for label, base in places:
        writes: list[float] = []
        lumoses: list[float] = []
        for _ in range(ROUNDS):
            writes += cast_speed.bare_write(tempfile.mkdtemp(dir=base), True, casts)
            lumoses += cast_speed.casts(tempfile.mkdtemp(dir=base), True, casts)
        lumos, write = statistics.median(lumoses), statistics.median(writes)
        accio = statistics.median(archive_casts(tempfile.mkdtemp(dir=base), max(casts // 3, 20)))
        table.add(
            "warm cast",
            f"one bare atomic write of state.json, with fsync, {label} ({base})",
            f"{write * 1e6:.0f} us",
        )
        ram = label == "RAM"
        table.add(
            "warm cast",
            f'`cast("Lumos")` median, with fsync, {label}',
            f"{lumos * 1e6:.0f} us = {lumos / write:.1f}x the bare write",
            "<= 200 us" if ram else "",
            lumos * 1e6 <= 200 if ram else None,
        )
        if ram:
            on_disk = f"; {seen['disk']:.1f}x one bare write on disk" if "disk" in seen else ""
            table.headline.append(
                f'`cast("Lumos")` in process: {lumos * 1e6:.0f} us on a RAM filesystem '
                f"({verdict(lumos * 1e6 <= 200)} 200 us){on_disk}"
            )
        seen[label] = lumos / write
        table.add(
            "warm cast",
            f"Accio archiving a task (A2: 2 moves, 1 new file), with fsync, {label}",
            f"{accio * 1e6:.0f} us = {accio / write:.1f}x the bare write",
        )
    syncs = fsyncs_per_cast()
    table.syncs = syncs
    for cast, what in (("lumos", "Lumos (state only)"), ("accio", "the archiving Accio")):
        least = MIN_FSYNCS[cast]
        table.add(
            "warm cast",
            f"fsyncs per cast: {what}, against the minimum its commit needs",
            f"{syncs[cast]:.0f} (minimum {least})",
            f"<= {least}",
            syncs[cast] <= least,
        )
    table.headline.append(
        f"fsyncs per cast: Lumos {syncs['lumos']:.0f}, a file-moving Accio "
        f"{syncs['accio']:.0f} ({verdict(syncs['lumos'] <= 2 and syncs['accio'] <= 8)} "
        "no more than the 2 and 8 a single commit point needs)"
    )


def fsyncs_per_cast() -> dict[str, float]:
    """How many times a cast calls fsync, on average, once its workspace exists: the
    disk's share of its cost."""
    real = os.fsync
    counted = 0

    def fsync(fd: int) -> None:
        nonlocal counted
        counted += 1
        real(fd)

    os.fsync = fsync
    try:
        from spellbook import Workflow

        flow = Workflow(tempfile.mkdtemp())
        flow.cast("lumos")  # the first cast also makes the workspace folder
        counted = 0
        for _ in range(20):
            flow.cast("lumos")
        lumos, counted = counted / 20, 0
        archive_casts(tempfile.mkdtemp(), 17)  # 3 to warm up, 17 more
        accio = counted / 20
    finally:
        os.fsync = real
    return {"lumos": lumos, "accio": accio}


def archive_casts(folder: str, runs: int) -> list[float]:
    """Accio in ACHIEVE_TASK_EXECUTED (rule A2): task.md and task-results.md archived,
    the results loaded, a new task.md made; the workspace laid out again between casts."""
    from spellbook import Workflow

    task = Path(folder, ".ai", "task")
    task.mkdir(parents=True)
    (task / "plan.md").write_text("# Plan\n\n## Acceptance Criteria\n\n- [ ] ship it\n")
    flow = Workflow(folder)
    times = []
    for i in range(runs + 3):
        state = '{"current_state": "ACHIEVE_TASK_EXECUTED", "context": {}, "history": []}\n'
        (task / "state.json").write_text(state)
        (task / "task.md").write_text(f"---\ntask_name: task-{i}\n---\n\n# Task {i}\n")
        (task / "task-results.md").write_text(f"# Results {i}\n")
        start = time.perf_counter()
        result = flow.cast("accio")
        elapsed = time.perf_counter() - start
        assert result.rule == "A2", result
        if i >= 3:  # the first casts build the machine's states
            times.append(elapsed)
    return times


# -- 3. the MCP server --


def mcp(table: Table, calls: int) -> None:
    print(f"MCP server: {calls} calls", flush=True)
    try:
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters
    except ImportError:
        table.add("MCP server", "Lumos casts per second over stdio", "not measured: no mcp")
        return
    root = tempfile.mkdtemp(prefix="bench-mcp-")
    server = StdioServerParameters(command=cold_start.SPELL, args=["--root", root, "mcp"], env=ENV)

    async def main() -> float:
        async with Client(server, read_timeout_seconds=60) as client:
            for _ in range(10):
                await client.call_tool("lumos", {})
            start = time.perf_counter()
            for _ in range(calls):
                await client.call_tool("lumos", {})
            return time.perf_counter() - start

    seconds = asyncio.run(main())
    rate = calls / seconds
    where = f"the workspace on {filesystem(root)}, each cast synced"
    table.add(
        "MCP server",
        f"Lumos over stdio, {calls} calls one after another ({where})",
        f"{rate:.0f} casts/s ({seconds / calls * 1e3:.2f} ms each)",
    )
    table.headline.append(
        f"the MCP server: {rate:.0f} Lumos casts per second over stdio ({where}; a cast "
        "costs what the disk's fsync costs)"
    )


def filesystem(path: str) -> str:
    """The type of the filesystem `path` is on (`ext4`, `tmpfs (RAM)`), from /proc/mounts."""
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            table = [line.split()[1:3] for line in mounts]
    except OSError:
        return "an unknown filesystem"
    real = os.path.realpath(path)
    _, kind = max(
        ((m, t) for m, t in table if real == m or real.startswith(m.rstrip("/") + "/")),
        key=lambda found: len(found[0]),
        default=("/", "an unknown filesystem"),
    )
    return f"{kind} (RAM)" if kind in ("tmpfs", "ramfs") else kind


# -- 4. verify and codegen at scale --

# Peak memory: the process's own high-water mark (VmHWM, reset by exec; ru_maxrss
# would count the forking parent's memory too), or ru_maxrss where there is no /proc.
PEAK = (
    "def peak():\n"
    "    try:\n"
    "        for line in open('/proc/self/status'):\n"
    "            if line.startswith('VmHWM:'):\n"
    "                return int(line.split()[1])\n"
    "    except OSError:\n"
    "        pass\n"
    "    import resource\n"
    "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
)
VERIFY = PEAK + (
    "import contextlib, io, sys\n"
    "sys.path.insert(0, {root!r})\n"
    "from codegen.cli.verify import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    main(['--spec', {spec!r}, '--format', 'json'])\n"
    "print(peak())\n"
)
DIFF = PEAK + (
    "import contextlib, io, sys\n"
    "sys.path.insert(0, {root!r})\n"
    "from codegen.cli.verify import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    main(['--spec', {spec!r}, '--against', OLD_SPEC, '--format', 'json'])\n"
    "print(peak())\n"
)
CODEGEN = PEAK + (
    "import resource, shutil, sys\n"
    "shutil.rmtree('generated', ignore_errors=True)  # made afresh, black included\n"
    "sys.path.insert(0, {root!r})\n"
    "from codegen.cli.generate import main\n"
    "main(['--spec', {spec!r}, '--allow-errors'])\n"
    "print(peak(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)
# Codegen runs black's workers, then a compile of the module, in processes of their own:
# where /proc can be read, its memory is the most its process tree held at once (sampled
# every 10 ms), else its own peak plus, for each CPU, its largest child's.
CHECK = PEAK + (
    "import contextlib, io, sys\n"
    "sys.path.insert(0, {root!r})\n"
    "from codegen.cli.generate import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    assert main(['--check']) == 0\n"
    "print(peak())\n"
)
# Black works on as many processes as there are CPUs for a large spec.
WORKERS = os.cpu_count() or 1


def fresh(template: str, spec: Path, cwd: Path | None = None) -> tuple[float, float]:
    """Wall seconds and peak MB of one fresh interpreter running `template` on `spec`
    (for codegen, the most its process tree held at once, where /proc tells)."""
    code = template.format(root=str(ROOT), spec=str(spec), workers=WORKERS)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        cwd=cwd,
    )
    tree = 0
    sampled = template is CODEGEN and os.path.isdir("/proc/self")
    while sampled and proc.poll() is None:
        tree = max(tree, _tree_kb(proc.pid))
        time.sleep(0.01)
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, "codegen", out, err)
    if template is not CODEGEN:
        return seconds, int(out.split()[-1]) / 1024
    own, children = (int(n) for n in out.split()[-2:])
    peak = max(tree, own) if sampled else own + children * WORKERS
    return seconds, peak / 1024


def _tree_kb(root: int) -> int:
    """The resident memory of a process and all its descendants now, in KB."""
    parents: dict[int, int] = {}
    sizes: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/status", encoding="utf-8") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        sizes[int(entry)] = int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, total = [root], 0
    while found:
        pid = found.pop()
        total += sizes.get(pid, 0)
        found += [child for child, parent in parents.items() if parent == pid]
    return total


def scale(table: Table, runs: int, folder: Path) -> None:
    print(f"verify and codegen at scale: {runs} runs each", flush=True)
    source = load_spec(ROOT / "spec" / "STATE_MACHINE.md")
    specs: dict[tuple[str, int], Path] = {("project", 0): ROOT / "spec" / "STATE_MACHINE.md"}
    for kind, unknown in (("clone", False), ("unknown", True)):
        for n in SIZES:
            specs[(kind, n)] = folder / f"{kind}{n}.md"
            specs[(kind, n)].write_text(clone(source, n, unknown), encoding="utf-8")
    limits = {"verify": (2.0, None), "codegen": (20.0, 250.0)}
    for job, template in (("verify", VERIFY), ("codegen", CODEGEN)):
        fresh(template, specs[("project", 0)], folder)  # warm the bytecode caches
        times: dict[tuple[str, int], list[float]] = {key: [] for key in specs}
        memory = dict.fromkeys(specs, 0.0)
        for round_ in range(runs):
            for key in list(specs) if round_ % 2 == 0 else list(specs)[::-1]:
                seconds, mb = fresh(template, specs[key], folder)
                times[key].append(seconds)
                memory[key] = max(memory[key], mb)
        medians = {key: statistics.median(t) for key, t in times.items()}
        seconds_limit, mb_limit = limits[job]
        for (kind, n), path in specs.items():
            kb = path.stat().st_size / 1024
            what = {
                "project": "the project spec",
                "clone": f"{n}x clone ({24 * n} states)",
                "unknown": f"{n}x clone naming the original states in wildcard rows",
            }[kind]
            if n == 40:
                met = medians[(kind, n)] <= seconds_limit and (
                    mb_limit is None or memory[(kind, n)] <= mb_limit
                )
                target = f"<= {seconds_limit:.0f} s" + (f", {mb_limit:.0f} MB" if mb_limit else "")
            elif kind == "project" and job == "codegen":
                met = medians[(kind, n)] <= 1.5
                target = "<= 1.5 s"
            else:
                met, target = None, ""
            table.add(
                job,
                f"{job} {what}, {kb:.0f} KB: time, peak memory",
                f"{medians[(kind, n)]:.2f} s, {memory[(kind, n)]:.0f} MB",
                target,
                met,
            )
        for kind in ("clone", "unknown"):
            ratio = medians[(kind, 40)] / medians[(kind, 1)]
            table.add(
                job, f"{job} time, 40x over 1x ({kind})", f"{ratio:.1f}", "<= 60", ratio <= 60
            )
            within = f"{verdict(medians[(kind, 40)] <= seconds_limit)} {seconds_limit:.0f} s"
            table.headline.append(
                f"{job} at 40x the spec ({kind}): {medians[(kind, 40)]:.2f} s ({within}), "
                f"{ratio:.1f} times the 1x time ({verdict(ratio <= 60)} 60), "
                f"peak {memory[(kind, 40)]:.0f} MB"
            )
    spec_diff(table, runs, specs[("clone", 40)], specs[("unknown", 40)])
    check(table, runs)


def spec_diff(table: Table, runs: int, new: Path, old: Path) -> None:
    """The behavioural diff of the two 40x clones (`--against`), against verifying one
    of them, taking turns."""
    template = DIFF.replace("OLD_SPEC", repr(str(old)))
    pairs: list[tuple[float, float]] = []
    peak = 0.0
    for _ in range(max(runs, 3)):
        diffed, mb = fresh(template, new)
        verified, _ = fresh(VERIFY, new)
        pairs.append((diffed, verified))
        peak = max(peak, mb)
    ratio = statistics.median(d / v for d, v in pairs)
    seconds = statistics.median(d for d, _ in pairs)
    table.add(
        "spec diff",
        f"`--against`: the 40x clone against the 40x clone naming the original states "
        f"({seconds:.2f} s, peak {peak:.0f} MB), against verifying one",
        f"{ratio:.1f}x",
        "<= 5x",
        ratio <= 5,
    )
    table.headline.append(
        f"the behavioural diff of the two 40x clones: {ratio:.1f}x the time of verifying one "
        f"({verdict(ratio <= 5)} 5x)"
    )


def check(table: Table, runs: int) -> None:
    """`python -m codegen --check` on the project's specs, against verifying the project
    spec, taking turns."""
    spec = ROOT / "spec" / "STATE_MACHINE.md"
    pairs: list[tuple[float, float]] = []
    for _ in range(max(runs, 3) * 3):
        checked, _ = fresh(CHECK, spec, ROOT)
        verified, _ = fresh(VERIFY, spec)
        pairs.append((checked, verified))
    ratio = statistics.median(c / v for c, v in pairs)
    checked = statistics.median(c for c, _ in pairs)
    table.add(
        "codegen",
        f"`python -m codegen --check` (both specs): {checked:.2f} s, against verify",
        f"{ratio:.1f}x",
        "<= 3x",
        ratio <= 3,
    )
    table.headline.append(
        f"`python -m codegen --check`: {ratio:.1f}x the time of verifying the project spec "
        f"({verdict(ratio <= 3)} 3x)"
    )


# Verify on the seed, against importing mistune and parsing the seed alone: the most a
# verifier built on mistune may add to the parser's own start-up and reading.
SEED_TARGET = 1.25


def peer(table: Table, runs: int, folder: Path, upstream_script: Path | None) -> None:
    """`verify-state-machine.py` on the seed spec against importing mistune and parsing
    the seed alone, and against the upstream project's regex verifier (`upstream_script`,
    where given) on the same file, with the same interpreter, taking turns; and `python -c
    pass`, the floor of all."""
    seed = folder / "state-machine.md"  # the name the upstream script reads
    seed.write_bytes((ROOT / "tests" / "data" / "fixtures" / "seed_spec.md").read_bytes())
    ours = [sys.executable, str(ROOT / "verify-state-machine.py"), "--spec", str(seed)]
    floor = [sys.executable, "-c", "pass"]
    # What reading the seed with mistune alone costs (the markdown parser the verifier is
    # built on): the floor of any verifier that parses markdown rather than matching lines.
    parse = [
        sys.executable,
        "-c",
        "import mistune; mistune.create_markdown(renderer=None, plugins=['table'])"
        f"(open({str(seed)!r}, encoding='utf-8').read())",
    ]
    commands = {"ours": ours, "floor": floor, "mistune": parse}
    if upstream_script is not None:
        commands["upstream"] = [sys.executable, str(upstream_script)]
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(max(runs, 5) * 3 + 1):
        order = list(commands.items())
        for name, command in order if round_ % 2 else order[::-1]:
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, env=ENV, cwd=folder)
            if round_:  # the first round warms the bytecode caches
                times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(found) for name, found in times.items()}
    parsed = statistics.median(o / m for o, m in zip(times["ours"], times["mistune"], strict=True))
    table.add(
        "verify",
        f"the seed: {median['ours']:.2f} s, against importing mistune and parsing the seed "
        f"with it alone ({median['mistune']:.2f} s; `python -c pass` {median['floor']:.2f} s)",
        f"{parsed:.2f}x",
        f"<= {SEED_TARGET:.2f}x",
        parsed <= SEED_TARGET,
    )
    headline = (
        f"verifying the seed: {parsed:.2f}x importing mistune and parsing it alone "
        f"({verdict(parsed <= SEED_TARGET)} {SEED_TARGET:.2f}x)"
    )
    if upstream_script is None:
        print(
            "  the seed against the upstream regex verifier: skipped, no --peer PATH given "
            "(docs/reports/performance.md says how to get it)",
            flush=True,
        )
    else:
        pairs = zip(times["ours"], times["upstream"], strict=True)
        ratio = statistics.median(o / u for o, u in pairs)
        table.add(
            "verify",
            f"the seed, against the upstream regex verifier given as --peer "
            f"({median['upstream']:.2f} s)",
            f"{ratio:.1f}x",
        )
        headline += f", {ratio:.1f}x the upstream regex verifier's time on the same interpreter"
    table.headline.append(headline)


def attacks(table: Table) -> None:
    """The resource attacks of `bench/attacks.py`, once each in a fresh process: the
    specs of issue 29's table and the cell of 400 facts (`wide-400`) within 2 s and 200 MB,
    the rest within 10 s and 500 MB."""
    from bench import attacks as attack

    strict = ("alternatives", "pairs", "title-30", "wide")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "pyproject.toml").write_text('[project]\nname = "attacks"\n\n[tool.spellbook]\n')
        for name, template, make in attack.cases(folder):
            seconds, mb, ended = attack.run(template, make(folder), folder, 120.0)
            limit = (2.0, 200.0) if any(k in name for k in strict) else (10.0, 500.0)
            met = seconds <= limit[0] and mb <= limit[1] and "exit" in ended
            table.add(
                "attacks",
                f"{name} ({ended.split(':')[0]})",
                f"{seconds:.2f} s, {mb:.0f} MB",
                f"<= {limit[0]:g} s, {limit[1]:g} MB",
                met,
            )


# -- 5. the generated machines --

IMPORT = (
    "import time, transitions\n"
    "start = time.perf_counter()\n"
    "import spellbook.machines.{module}\n"
    "print(time.perf_counter() - start)\n"
)


def generated(table: Table, runs: int, folder: Path) -> None:
    print(f"generated machines: {runs} imports each", flush=True)
    for source in sorted((ROOT / "generated").glob("*.py")):
        if source.name == "__init__.py":
            continue
        module = source.stem
        pyc = py_compile.compile(str(source), cfile=str(folder / f"{module}.pyc"), doraise=True)
        code = IMPORT.format(module=module)
        times = []
        for _ in range(runs + 1):
            out = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV
            )
            times.append(float(out.stdout))
        text = source.read_text(encoding="utf-8")
        lines = text.count("\n")
        kb = source.stat().st_size / 1024
        # A line over 120 characters is allowed only for a single word (a long pattern).
        long = [ln for ln in text.splitlines() if len(ln) > 120 and " " in ln.strip()]
        small = lines <= 1500 and kb <= 80
        table.add(
            "generated",
            f"`{module}`: source, bytecode, import after `transitions`",
            f"{kb:.0f} KB ({lines} lines), "
            f"{Path(pyc).stat().st_size / 1024:.0f} KB, "
            f"{statistics.median(times[1:]) * 1e3:.1f} ms",
            "<= 1,500 lines, 80 KB",
            small,
        )
        table.add(
            "generated",
            f"`{module}`: lines over 120 characters (other than one long word)",
            str(len(long)),
            "0",
            not long,
        )
        try:
            rounds = runs if runs < 11 else 21
            against = generated_import.compare(generated_import.BEFORE_ROWS, rounds, module)
        except (subprocess.CalledProcessError, OSError) as err:  # a clone without history
            table.add("generated", f"`{module}`: import against before", f"not measured: {err}")
        else:
            now, then = against["package and module"]
            table.add(
                "generated",
                f"`{module}`: import after `transitions`, against the module before it "
                f"declared rows ({generated_import.BEFORE_ROWS}), taking turns",
                f"{now * 1e3:.2f} ms against {then * 1e3:.2f} ms: {now / then:.2f}x",
                "<= 1x" if module == "spell_machine" else "",
                now <= then if module == "spell_machine" else None,
            )
        if module == "spell_machine":
            table.headline.append(
                f"`generated/spell_machine.py`: {lines} lines, {kb:.0f} KB "
                f"({verdict(small)} 1,500 lines and 80 KB), {len(long)} lines over 120"
            )


# -- the report --


def report(table: Table, seconds: float, quick: bool) -> str:
    machine = (
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs"
    )
    syncs = table.syncs
    return f"""# Performance

Measured by `python bench/run.py`{" --quick" if quick else ""} ({seconds:.0f} s), \
{time.strftime("%Y-%m-%d")}, {machine}. Figures move by a few percent between runs
on a shared machine; ratios are taken side by side in one run, which is what the
targets are about. Nothing here is a timed test in the suite.

## Headline

{chr(10).join("- " + line for line in table.headline)}

## Every figure

{table.markdown()}

## Notes

- **fsyncs per cast** are held to the minimum a single commit point needs: the
  archiving Accio makes {syncs.get("accio", 0):.0f} (minimum 8) where a state-only cast
  makes {syncs.get("lumos", 0):.0f} (minimum 2): the intent record (its data and its
  folder) before the first move, the new task.md's data, each folder the moves change
  (`.ai/task/`, `tasks/`, the archive folder), then the state file (data and folder).
  Fewer would rely on a filesystem committing metadata in order (ext4's journal does;
  POSIX does not promise it). Its time against one bare write is shown, not judged:
  it is the disk's fsync, eight times.
- **Codegen time is black's**: the generated module declares the spec (one record per
  row), so black has a few thousand lines to format for the project spec and about
  44,000 for the 40x clone; the rows are formatted in chunks of 100 on every CPU:
  by fresh processes when there are more than 4 chunks, otherwise shared evenly with
  processes forked from the compiler (black already loaded; Linux).
  `python -m codegen --check` formats nothing it can prove fresh (the fingerprint
  line), so CI pays for reading the specs only.

## How each is measured

- **Cold start**: each command in a fresh interpreter with bytecode caches warm, the
  commands taking turns in an order that alternates every round; the ratio is the
  median over rounds of the command's time over `import transitions`'s in the same
  round. `spell` runs without Python's cyclic garbage collector (see `spellbook.doors.cli.run`).
- **Warm casts**: one `Workflow`, the same workspace, median of many casts. The bare
  write is what every cast must do at least: a temporary file, fsync, `os.replace`,
  fsync of the folder. The archiving Accio also writes and deletes its intent record
  (the commit point, see docs/reference/reliability.md), makes the archive folder, moves two
  files, links in a new task.md and writes the state file, each made durable.
- **MCP server**: `spell mcp` started as an assistant starts it; the SDK's `Client`
  calls the `lumos` tool over stdio, one call after another.
- **Verify and codegen**: `bench/clone_spec.py` clones every state family N times
  (`--unknown`: its wildcard rows keep naming the original states, which the clone
  does not have); each run is a fresh process (`codegen.cli.verify.main`, or
  `python -m codegen --spec X --allow-errors` in a scratch folder, black included);
  peak memory is the process's maximum resident size, plus, for codegen, its largest
  black worker's once per CPU (a forked worker's counts the pages it shares with the
  compiler, so small specs are overstated). `--check` and verify take turns, each a fresh process.
- **Spec diff**: `verify-state-machine.py --spec <40x clone> --against <40x clone naming
  the original states>` and verifying the first take turns, each a fresh process; the
  diff analyses both specs, so twice a verify is its floor.
- **Generated machines**: the size of the module and of its bytecode, and the time
  to import it in a fresh interpreter once `transitions` is imported.
- **The upstream verifier** (`--peer PATH`): the coverage verifier of the project that
  implements this workflow by hand (github.com/dil-ddaradics/ai-engineer,
  `state-machine/verify-state-machine.py`, commit 978e8c0 reads the seed's dialect). It
  is another project's code and never part of this repository: fetch that repository,
  `git show 978e8c0:state-machine/verify-state-machine.py > /tmp/peer.py`, and run
  `python bench/run.py --peer /tmp/peer.py`. It reads `./state-machine.md`; the bench
  runs it in a scratch folder holding the seed under that name. Without `--peer` the row
  is skipped, saying so.
"""


def update_readme(table: Table) -> None:
    text = README.read_text(encoding="utf-8")
    start, end = BLOCK
    if start not in text or end not in text:
        return
    before, rest = text.split(start, 1)
    _, after = rest.split(end, 1)
    lines = "\n".join("- " + line for line in table.headline)
    README.write_text(f"{before}{start}\n{lines}\n{end}{after}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, for a first look")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--peer",
        type=Path,
        metavar="PATH",
        help="the upstream project's verify-state-machine.py, fetched by you (it is another "
        "project's code, never part of this repository; docs/reports/performance.md says how to "
        "get it): verify on the seed is measured against it too",
    )
    args = parser.parse_args()
    if args.peer is not None and not args.peer.is_file():
        parser.error(f"--peer {args.peer}: no such file")
    quick = args.quick
    table = Table()
    started = time.perf_counter()
    steps: list[Callable[[], None]] = [
        lambda: cold(table, 5 if quick else 21),
        lambda: warm(table, 100 if quick else 300),
        lambda: mcp(table, 200 if quick else 1000),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        steps += [
            lambda: peer(table, 1 if quick else 5, Path(tmp), args.peer),
            lambda: attacks(table),
            lambda: scale(table, 1 if quick else 3, Path(tmp)),
            lambda: generated(table, 3 if quick else 11, Path(tmp)),
        ]
        for step in steps:
            step()
    seconds = time.perf_counter() - started
    print()
    print(table.markdown())
    if not args.no_write:
        REPORT.write_text(report(table, seconds, quick), encoding="utf-8")
        update_readme(table)
        print(f"\nwritten to {REPORT.relative_to(ROOT)} and README.md's benchmark block")
    missed = [row for row in table.rows if row[4] == "MISSED"]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
