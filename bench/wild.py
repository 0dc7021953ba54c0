"""How the verifier reads markdown state machines written by other people, as published.

    python bench/wild.py [FOLDER] [--show]

FOLDER (default `../shared/wild` from the project's root) holds the documents, one
`*.md` each (its README.md is skipped). None of them is copied into the project:
each is copied, byte for byte, into a temporary folder of its own outside it, with a
`pyproject.toml` whose `[tool.spellbook]` table is one of CONFIGURATIONS (the
smallest first), and `verify-state-machine.py --spec <copy> --format json` is run
there, as a user of that project would run it. The first configuration the
verifier accepts (exit status 0: no errors) is the one reported, with its size in
lines; a document no configuration makes verify is shown with what the verifier
said last.

For each machine the document holds: its states, triggers and rows as read, the
initial state, and its findings by severity; `--show` lists the states and triggers
by name, to check by hand against the document. The exit status is 1 when some
document does not verify. Nothing here runs in the tests.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERIFY = ROOT / "verify-state-machine.py"
# The [tool.spellbook] tables tried, smallest first (each line counted, header included).
CONFIGURATIONS: tuple[tuple[str, ...], ...] = (
    (),
    ("[tool.spellbook]", 'unlisted = "rejected"'),
    ("[tool.spellbook]", "own_code = true"),
    ("[tool.spellbook]", "own_code = true", 'unlisted = "rejected"'),
)
TIMEOUT = 120


def verify(document: Path, config: tuple[str, ...]) -> tuple[int, object]:
    """The verifier's exit status and JSON report (or its words) for `document` in a
    project of its own configured with `config`."""
    with tempfile.TemporaryDirectory(prefix="spellbook-wild-") as folder:
        copy = Path(folder) / document.name
        shutil.copyfile(document, copy)
        if config:
            (Path(folder) / "pyproject.toml").write_text("\n".join(config) + "\n")
        done = subprocess.run(
            [sys.executable, str(VERIFY), "--spec", str(copy), "--format", "json"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    try:
        report: object = json.loads(done.stdout)
    except ValueError:
        report = (done.stdout + done.stderr).strip().replace(folder, "<tmp>")
    return done.returncode, report


def machines(report: object) -> list[dict[str, object]]:
    """The per-machine reports of a JSON report (a file may hold several machines)."""
    if isinstance(report, dict) and isinstance(report.get("machines"), list):
        return [m for m in report["machines"] if isinstance(m, dict)]
    return [report] if isinstance(report, dict) else []


def describe(machine: dict[str, object], show: bool) -> list[str]:
    findings = machine.get("findings", [])
    severities = Counter(f.get("severity", "?") for f in findings if isinstance(f, dict))  # type: ignore[union-attr]
    kinds = Counter(
        f"{f.get('severity', '?')}:{f.get('kind', '?')}" for f in findings if isinstance(f, dict)
    )  # type: ignore[union-attr]
    states = machine.get("states", [])
    spells = machine.get("spells", [])
    rows = machine.get("rows", 0)
    count = rows if isinstance(rows, int) else len(rows)  # type: ignore[arg-type]
    name = machine.get("section") or machine.get("title") or ""
    lines = [
        f"    machine {name!r}: {len(states)} states, {len(spells)} triggers, "  # type: ignore[arg-type]
        f"{count} rows, initial {machine.get('initial')!r}; "  # type: ignore[arg-type]
        + (", ".join(f"{n} {s}" for s, n in sorted(severities.items())) or "no findings")
    ]
    if kinds:
        lines.append("      " + ", ".join(f"{k} x{n}" for k, n in sorted(kinds.items())))
    for f in findings if isinstance(findings, list) else []:
        if isinstance(f, dict) and f.get("severity") == "error":
            lines.append(f"      line {f.get('line')}: {str(f.get('message'))[:200]}")
    if show:
        lines.append("      states: " + ", ".join(_names(states)))
        lines.append("      triggers: " + ", ".join(_names(spells)))
    return lines


def _names(items: object) -> list[str]:
    found = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            name, title = str(item.get("name", "?")), item.get("title")
            found.append(f"{name} ({title!r})" if title and title != name else name)
        else:
            found.append(str(item))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default=str(ROOT.parent / "shared" / "wild"))
    parser.add_argument("--show", action="store_true", help="list states and triggers")
    args = parser.parse_args(argv)
    documents = sorted(p for p in Path(args.folder).glob("*.md") if p.name != "README.md")
    if not documents:
        print(f"no documents in {args.folder}", file=sys.stderr)
        return 2
    failed = 0
    for document in documents:
        for config in CONFIGURATIONS:
            status, report = verify(document, config)
            if status == 0:
                break
        size = f"{len(config)} lines: " + "; ".join(config[1:]) if config else "no configuration"
        verdict = "verifies" if status == 0 else f"DOES NOT VERIFY (exit {status})"
        print(f"{document.name}: {verdict} with {size}")
        if isinstance(report, str):
            print("    " + "\n    ".join(report.splitlines()[:6]))
        for machine in machines(report):
            print("\n".join(describe(machine, args.show)))
        failed += status != 0
    print(f"{len(documents) - failed} of {len(documents)} verify")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
