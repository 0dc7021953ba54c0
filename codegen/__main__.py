"""`python -m codegen`: generate the machines from the specs, or check they are fresh."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .analyse.report import format_finding
from .cli.generate import Made, NotGenerated, orphans, render, stale, targets, write
from .config import importable, load_config
from .spec_error import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, SpecError, quick

# How to see a spec's findings: the checkout's script, or the installed command.
VERIFY = (
    "python verify-state-machine.py"
    if (Path.cwd() / "verify-state-machine.py").is_file()
    else "spellbook-verify"
)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m codegen",
        description="Generate a transitions machine and a mermaid diagram from each spec "
        "(every spec/*.md, or the ones given), into the generated/ folder.",
        epilog=f"Exit status: {EXIT_OK} done (or fresh, with --check), {EXIT_FAILED} stale "
        f"files (--check) or a spec with errors, {EXIT_BAD_INPUT} unusable input.",
    )
    parser.add_argument("--spec", action="append", metavar="PATH", help="spec to generate from")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming each stale file"
    )
    parser.add_argument(
        "--allow-errors",
        action="store_true",
        help="generate even from a spec with error-level findings (they are printed as "
        "warnings); a machine can allow this for itself with allow_errors = true",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    with quick():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = _arguments(argv)
    root = Path.cwd()
    importable(root)
    try:
        config = load_config(root)
    except SpecError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    out = root / config.out
    chosen = targets(root, config, args.spec)
    if not chosen:
        print(f"error: no specs found in {root / 'spec'} (use --spec PATH)", file=sys.stderr)
        return EXIT_BAD_INPUT
    files: dict[str, Made] = {}
    try:
        for target in chosen:
            made, despite = render(target, root, args.allow_errors)
            files.update(made)
            if despite and not args.check:
                print(
                    f"warning: {target.spec}: generated despite {len(despite)} error(s) "
                    f"(`{VERIFY} --spec {target.spec}`)",
                    file=sys.stderr,
                )
    except SpecError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except NotGenerated as err:
        for finding in err.findings:
            print(format_finding(err.spec, finding), file=sys.stderr)
        print(
            f"error: {err.spec} has {len(err.findings)} error(s); fix them before generating "
            f"(see them all with `{VERIFY} --spec {err.spec}`), or generate anyway with "
            "--allow-errors or, for this machine, allow_errors = true under [tool.spellbook]",
            file=sys.stderr,
        )
        return EXIT_FAILED
    leftover = orphans(out, files) if not args.spec else []
    if args.check:
        outdated = stale(out, files)
        for path in outdated:
            print(f"{path.relative_to(root)}: stale; run python -m codegen", file=sys.stderr)
        for path in leftover:
            print(f"{path.relative_to(root)}: no spec generates it; delete it", file=sys.stderr)
        if outdated or leftover:
            return EXIT_FAILED
        print(f"{len(files)} generated files are fresh")
        return EXIT_OK
    for name, file in sorted(files.items()):
        path = out / name
        print(f"{'wrote' if write(path, file) else 'unchanged'} {path.relative_to(root)}")
    for path in leftover:
        print(f"warning: {path.relative_to(root)}: no spec generates it", file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
