"""`verify-state-machine.py`: coverage matrix and findings for a spec, as text or JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from spellbook.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK

from ..analyse import analyse
from ..analyse.report import (
    SARIF_SCHEMA,
    format_brief,
    format_text,
    is_ok,
    to_json,
    to_markdown,
    to_sarif,
)
from ..budget import add_arguments, budget, out_of_memory
from ..config import dialect_for
from ..pipeline import load_spec, quick
from ..read.lexicon import Dialect
from ..spec_error import SpecError

DEFAULT_SPEC = "spec/STATE_MACHINE.md"


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="verify-state-machine.py",
        description="Check that a markdown state-machine spec defines every "
        "(state, spell) combination, and report what it finds.",
        epilog=f"Exit status: {EXIT_OK} no errors, {EXIT_FAILED} errors found "
        f"(or warnings with --strict; with --against, a change that can break existing "
        f"workspaces), {EXIT_BAD_INPUT} unusable input.",
    )
    parser.add_argument(
        "--spec", default=DEFAULT_SPEC, help=f"spec file to verify (default: {DEFAULT_SPEC})"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "markdown", "sarif"),
        default="text",
        help="text (default), json, markdown (a report for a pull request) or sarif (2.1.0)",
    )
    parser.add_argument("--strict", action="store_true", help="fail on warnings too")
    parser.add_argument(
        "--brief",
        action="store_true",
        help="text format: only the findings that fail, then a one-line verdict (for hooks)",
    )
    parser.add_argument(
        "--against",
        metavar="OLD_SPEC",
        help="compare the spec's behaviour with an older revision of it instead: a file, a "
        "git revision and path (origin/main:spec/STATE_MACHINE.md), or a revision alone "
        "(origin/main:) for the same file there; exit status 1 when the change can break "
        "existing workspaces (a state removed or renamed with no migration)",
    )
    parser.add_argument(
        "--vocabulary",
        metavar="NAME",
        help="the workflow's vocabulary module (default: the one [tool.spellbook] in "
        "pyproject.toml names for this spec; '' for the core alone)",
    )
    add_arguments(parser, "checking the spec")
    parser.add_argument(
        "--trust",
        action="store_true",
        help="import the vocabulary module a spec's own project names even when that is "
        "not the project this command runs in (importing it runs its code; without this "
        "flag such a spec is read with the shipped vocabularies only)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        with quick():
            return _main(argv)
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as other tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED


def _main(argv: Sequence[str] | None) -> int:
    args = _arguments(argv)
    with budget(args.budget, args.spec, args.memory):
        try:
            return _run(args)
        except MemoryError:  # writing the report, say: the checks catch their own
            print(f"error: {out_of_memory()}", file=sys.stderr)
            return EXIT_BAD_INPUT


def _run(args: argparse.Namespace) -> int:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if args.against is not None:
        return _against(args)
    try:
        spec = load_spec(args.spec, dialect=_dialect(args))
        findings = analyse(spec)
    except MemoryError:
        return _failed(args, out_of_memory())
    except SpecError as err:
        return _failed(args, err)
    if args.format in ("json", "sarif"):
        data = (
            to_json(spec, findings, args.strict)
            if args.format == "json"
            else to_sarif(spec, findings)
        )
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif args.format == "markdown":
        sys.stdout.write(to_markdown(spec, findings, args.strict))
    elif args.brief:
        sys.stdout.write(format_brief(spec, findings, args.strict))
    else:
        sys.stdout.write(format_text(spec, findings, args.strict))
    return EXIT_OK if is_ok(findings, args.strict) else EXIT_FAILED


def _against(args: argparse.Namespace) -> int:
    """The behavioural diff of `--spec` against `--against`."""
    from ..diff import compare
    from ..diff.report import format_text, to_json, to_markdown
    from ..diff.revisions import OldSpecError, load_old

    if args.format == "sarif":
        print("error: --against reports as text, markdown or json, not sarif", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        dialect = _dialect(args)
        new = load_spec(args.spec, dialect=dialect)
        old, borrowed = load_old(args.against, new, dialect, args.spec)
        diff = compare(old, new, borrowed)
    except MemoryError:
        return _failed(args, out_of_memory())
    except (SpecError, OldSpecError) as err:
        if isinstance(err, SpecError) and err.path == "<spec>":
            err.locate(args.spec, None)
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.format == "json":
        json.dump(to_json(diff), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif args.format == "markdown":
        sys.stdout.write(to_markdown(diff))
    else:
        sys.stdout.write(format_text(diff))
    return EXIT_FAILED if diff.breaking else EXIT_OK


def _failed(args: argparse.Namespace, err: SpecError) -> int:
    """The spec could not be checked: the error on stderr (and as a report on stdout
    for a machine reader), exit 2."""
    if err.path == "<spec>":
        err.locate(args.spec, None)
    print(f"error: {err}", file=sys.stderr)
    if args.format in ("json", "sarif") and args.against is None:
        data = _error_json(err) if args.format == "json" else _error_sarif(err)
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    return EXIT_BAD_INPUT


def _dialect(args: argparse.Namespace) -> Dialect:
    """How to read the spec: as the project that holds it configures it, or else the
    project in the current folder; another project's own vocabulary only with --trust."""
    return dialect_for(args.spec, Path.cwd(), args.trust, args.vocabulary)


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


def _error_sarif(err: SpecError) -> dict[str, object]:
    location: dict[str, object] = {"artifactLocation": {"uri": err.path}}
    if err.line:
        location["region"] = {"startLine": err.line}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {"name": "verify-state-machine", "rules": [{"id": "parse_error"}]}
                },
                "results": [
                    {
                        "ruleId": "parse_error",
                        "level": "error",
                        "message": {"text": err.message},
                        "locations": [{"physicalLocation": location}],
                    }
                ],
            }
        ],
    }
