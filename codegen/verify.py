"""`verify-state-machine.py`: coverage matrix and findings for a spec, as text or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from codegen import load_spec
from codegen.analyse import analyse
from codegen.errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, SpecError
from codegen.report import format_text, is_ok, to_json

DEFAULT_SPEC = "spec/STATE_MACHINE.md"


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="verify-state-machine.py",
        description="Check that a markdown state-machine spec defines every "
        "(state, spell) combination, and report what it finds.",
        epilog=f"Exit status: {EXIT_OK} no errors, {EXIT_FAILED} errors found "
        f"(or warnings with --strict), {EXIT_BAD_INPUT} unusable input.",
    )
    parser.add_argument(
        "--spec", default=DEFAULT_SPEC, help=f"spec file to verify (default: {DEFAULT_SPEC})"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--strict", action="store_true", help="fail on warnings too")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        spec = load_spec(args.spec)
    except SpecError as err:
        print(f"error: {err}", file=sys.stderr)
        if args.format == "json":
            json.dump(_error_json(err), sys.stdout, indent=2, ensure_ascii=False)
            sys.stdout.write("\n")
        return EXIT_BAD_INPUT
    findings = analyse(spec)
    if args.format == "json":
        json.dump(to_json(spec, findings, args.strict), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_text(spec, findings, args.strict))
    return EXIT_OK if is_ok(findings, args.strict) else EXIT_FAILED


def _error_json(err: SpecError) -> dict[str, object]:
    return {
        "spec": err.path,
        "ok": False,
        "findings": [
            {
                "kind": "parse_error",
                "severity": "error",
                "rule": None,
                "line": err.line or None,
                "state": None,
                "spell": None,
                "message": err.message,
                "world": None,
            }
        ],
    }
