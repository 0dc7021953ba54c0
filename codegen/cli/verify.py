"""`verify-state-machine.py`: coverage matrix and findings for a spec, as text or JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from spellbook.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from spellbook.terminal import text

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
from ..budget import Stopped, add_arguments, budget, ending, out_of_memory, signals
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
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    said = _error_form(args)
    on_end = None if said is None else (lambda message: _say_error(said, args, message))
    try:
        with signals(), budget(args.budget, args.spec, args.memory, on_end):
            try:
                return _run(args)
            except MemoryError:  # writing the report, say: the checks catch their own
                return _failed(args, out_of_memory())
    except Stopped as err:  # a signal, wherever it came
        return _failed(args, err)


def _run(args: argparse.Namespace) -> int:
    if args.against is not None:
        return _against(args)
    try:
        spec = load_spec(args.spec, dialect=_dialect(args))
        findings = analyse(spec)
    except MemoryError:
        return _failed(args, out_of_memory())
    except SpecError as err:
        return _failed(args, err)
    ending()
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
        sys.stdout.write(text(format_brief(spec, findings, args.strict)))
    else:
        sys.stdout.write(text(format_text(spec, findings, args.strict)))
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
    except OldSpecError as err:
        return _failed(args, SpecError(str(err), 0).locate(args.against, None), shown=str(err))
    except SpecError as err:
        return _failed(args, err)
    ending()
    if args.format == "json":
        json.dump(to_json(diff), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif args.format == "markdown":
        sys.stdout.write(to_markdown(diff))
    else:
        sys.stdout.write(text(format_text(diff)))
    return EXIT_FAILED if diff.breaking else EXIT_OK


def _failed(args: argparse.Namespace, err: SpecError, shown: str | None = None) -> int:
    """The spec could not be checked, or the run was stopped: the error on stderr (and,
    for a format a machine or a pull request reads, its error form on stdout), exit 2
    (128 + the signal's number for a signal)."""
    ending()
    if err.path == "<spec>":
        err.locate(args.spec, None)
    print(text(f"error: {shown or err}"), file=sys.stderr)
    said = _error_form(args)
    if said is not None:
        _write(said(args, err))
    return err.exit_code if isinstance(err, Stopped) else EXIT_BAD_INPUT


ErrorForm = Callable[[argparse.Namespace, SpecError], "str | dict[str, object]"]


def _error_form(args: argparse.Namespace) -> ErrorForm | None:
    """How the run's format says an error on stdout, if it does (text says it on stderr
    alone)."""
    return (_AGAINST_ERRORS if args.against is not None else _ERRORS).get(args.format)


def _say_error(said: ErrorForm, args: argparse.Namespace, message: str) -> None:
    """The error the budget's watchdog ends the run with, in the run's format."""
    _write(said(args, SpecError(message, 0).locate(args.spec, None)))


def _write(data: str | dict[str, object]) -> None:
    if isinstance(data, str):
        sys.stdout.write(data)
    else:
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    sys.stdout.flush()


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


def _error_markdown(err: SpecError) -> str:
    where = f"{err.path}:{err.line}" if err.line else err.path
    return f"# Verification of `{err.path}`\n\n**Not verified**: `{where}`: {err.message}\n"


def _against_error_json(args: argparse.Namespace, err: SpecError) -> dict[str, object]:
    return {
        "old": {"spec": args.against, "sha256": None},
        "new": {"spec": args.spec, "sha256": None},
        "verdict": "not compared",
        "error": {"spec": err.path, "line": err.line or None, "message": err.message},
    }


def _against_error_markdown(args: argparse.Namespace, err: SpecError) -> str:
    where = f"{err.path}:{err.line}" if err.line else err.path
    return (
        f"# Spec change: `{args.spec}` against `{args.against}`\n\n"
        f"**Not compared**: `{where}`: {err.message}\n"
    )


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


# Each format's error form, for every way a run ends without its report.
_ERRORS: dict[str, ErrorForm] = {
    "json": lambda args, err: _error_json(err),
    "sarif": lambda args, err: _error_sarif(err),
    "markdown": lambda args, err: _error_markdown(err),
}
_AGAINST_ERRORS: dict[str, ErrorForm] = {
    "json": _against_error_json,
    "markdown": _against_error_markdown,
}
