"""The verifier's output formats, one entry each in `FORMATS`: how a format says a report
(one machine, a file of several, a comparison with --against) and how it says a run that
ended without one (a spec that cannot be read, a budget or a signal that stopped it, an
argument or a project it refuses). The command line's choices and every way a run ends
read this table; adding a format is adding an entry."""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias, cast

from spellbook.records.terminal import json_text

from ..analyse import Finding
from ..analyse.report import (
    SARIF_SCHEMA,
    finding_json,
    format_brief,
    format_text,
    is_ok,
    md_text,
    sarif_log,
    to_json,
    to_markdown,
    to_sarif,
)
from ..model import Spec
from ..pipeline import SectionSpec
from ..read.lexicon import ReadOptions
from ..spec_error import SpecError

if TYPE_CHECKING:
    from ..diff.result import SpecDiff

Said: TypeAlias = "str | dict[str, object]"
Checked: TypeAlias = Sequence[tuple[SectionSpec, list[Finding]]]


class Ran(NamedTuple):
    """One machine of a project's several, as its run ended: its arguments (`spec`,
    `section`), what it said on stdout (its report, or its failure form), and whether it
    passed (exit status 0). A named tuple: built only for such a project, it costs a
    verify of one machine nothing to declare."""

    args: argparse.Namespace
    said: Said
    ok: bool


class Gathered(NamedTuple):
    """One document of several machines' outputs, written piece by piece as each run
    ends (a project's machines are many reports: none is kept once written): `opening`
    the document with its `head` (the project's, or the file's), each machine's `entry`
    (the pieces joined by ",\n"), and `closing` it, saying whether every one passed."""

    opening: Callable[[dict[str, str]], str]
    entry: Callable[[Ran], str]
    closing: Callable[[bool], str]

    def whole(self, head: dict[str, str], ran: Sequence[Ran]) -> str:
        """The document of `ran`, written at once."""
        entries = ",\n".join(e for e in map(self.entry, ran) if e)
        return (
            self.opening(head)
            + entries
            + ("\n" if ran else "")
            + self.closing(all(r.ok for r in ran))
        )


@dataclass(frozen=True)
class Format:
    """One output format. Each form takes the run's arguments (`--spec`, `--against`,
    `--strict`, `--brief`, `--explain`) and returns what stdout says: text, or a dict
    written as JSON."""

    name: str
    help: str  # its words in `--format`'s help
    report: Callable[[argparse.Namespace, Spec, list[Finding], ReadOptions], Said]
    # A file of several machines, one per section, each verified on its own.
    sections: Callable[[argparse.Namespace, ReadOptions, Checked], Said]
    # A run that ends without its report; None: said on stderr alone.
    failure: Callable[[argparse.Namespace, SpecError], Said] | None
    # --against's report and its failure; a format without the report refuses --against.
    diff: Callable[[SpecDiff], Said] | None
    diff_failure: Callable[[argparse.Namespace, SpecError], Said] | None
    # --against REV: for a spec not at REV (`shown` names it there): a new machine.
    diff_new: Callable[[argparse.Namespace, str], Said] | None
    # --against of a file of several machines: a section of the older file (`shown`)
    # that the spec has no more, a machine removed.
    diff_gone: Callable[[argparse.Namespace, str], Said] | None
    # --against's report of a file of several machines: each section's diff (`Ran.said`,
    # said by `diff`) against the same section of the older file.
    diff_sections: Callable[[argparse.Namespace, Sequence[Ran]], Said] | None
    # A project's several machines (`--spec` left out), in one of two ways: what comes
    # before the `at`th one's output (text, markdown); or one document of every run's
    # output (`gathered`: json, sarif, whose reader takes one document). Both are
    # written as each run ends. Each format has exactly one.
    between: Callable[[int, argparse.Namespace], str] | None
    gathered: Gathered | None

    def failure_of(
        self, args: argparse.Namespace
    ) -> Callable[[argparse.Namespace, SpecError], Said] | None:
        """How this format says a run of `args` that ended without its report."""
        return self.failure if args.against is None else self.diff_failure


def _of(options: ReadOptions, machine: SectionSpec) -> ReadOptions:
    return replace(options, section=machine.section)


# --- text ---------------------------------------------------------------------


def _text(
    args: argparse.Namespace, spec: Spec, findings: list[Finding], options: ReadOptions
) -> str:
    if args.brief:
        return format_brief(spec, findings, args.strict, args.explain, options)
    return format_text(spec, findings, args.strict, args.explain, options)


def _text_sections(args: argparse.Namespace, options: ReadOptions, checked: Checked) -> str:
    write = format_brief if args.brief else format_text
    return "\n".join(
        f"== {args.spec}: section {m.section!r} (line {m.line}) ==\n"
        + write(m.spec, findings, args.strict, args.explain, _of(options, m))
        for m, findings in checked
    )


def _text_diff(diff: SpecDiff) -> str:
    from ..diff.report import format_text as diff_text

    return diff_text(diff)


def _text_diff_sections(args: argparse.Namespace, ran: Sequence[Ran]) -> str:
    return "".join(f"{_text_between(at, r.args)}{r.said}" for at, r in enumerate(ran))


# Why a spec not at the revision --against names is compared with nothing.
NEW = "not at that revision: nothing to compare, and no workspace can be in its states yet"


def _text_diff_new(args: argparse.Namespace, shown: str) -> str:
    return f"{args.spec} against {shown}: a new machine, {NEW}\n"


# Why a machine the older file has and the spec has not can break workspaces.
GONE = (
    "a machine no longer in the spec: a workspace in one of its states is left with no "
    "machine to run it (a section renamed is one removed and one new)"
)


def _text_diff_gone(args: argparse.Namespace, shown: str) -> str:
    return f"{args.spec} against {shown}: BREAKING: {GONE}\n"


def _text_between(at: int, run: argparse.Namespace) -> str:
    section = f", section {run.section!r}" if run.section else ""
    return ("\n" if at else "") + f"== {run.spec}{section} ==\n"


# --- JSON ---------------------------------------------------------------------


def _json(
    args: argparse.Namespace, spec: Spec, findings: list[Finding], options: ReadOptions
) -> dict[str, object]:
    return to_json(spec, findings, args.strict, options)


def _json_sections(
    args: argparse.Namespace, options: ReadOptions, checked: Checked
) -> dict[str, object]:
    return {
        "spec": args.spec,
        "ok": all(is_ok(findings, args.strict) for _, findings in checked),
        "machines": [
            {
                "section": m.section,
                "line": m.line,
                **to_json(m.spec, findings, args.strict, _of(options, m)),
            }
            for m, findings in checked
        ],
    }


def _json_opening(head: dict[str, str]) -> str:
    keys = "".join(f"  {json_text(k)}: {json_text(v)},\n" for k, v in head.items())
    return "{\n" + keys + '  "machines": [\n'


def _json_entry(ran: Ran) -> str:
    """A machine's report (or failure form) as its own run says it, headed by the
    project's name for it and its section, where it has them."""
    said = ran.said if isinstance(ran.said, dict) else {"said": ran.said}
    named = {
        key: value
        for key, value in (
            ("machine", getattr(ran.args, "machine", None)),
            ("section", ran.args.section),
        )
        if value and key not in said
    }
    return textwrap.indent(json_text({**named, **said}), "    ")


def _json_closing(ok: bool) -> str:
    return f'  ],\n  "ok": {json_text(ok)}\n}}\n'


JSON_GATHERED = Gathered(_json_opening, _json_entry, _json_closing)


def _json_diff_sections(args: argparse.Namespace, ran: Sequence[Ran]) -> str:
    return JSON_GATHERED.whole({"spec": args.spec}, ran)


def _json_diff(diff: SpecDiff) -> dict[str, object]:
    from ..diff.report import to_json as diff_json

    return diff_json(diff)


def _error_finding(err: SpecError) -> Finding:
    return Finding("parse_error", err.message, line=err.line or None)


# The keys of a report a run that ended without one cannot fill, in the report's order:
# its failure form has them all, as None (null), so both forms have the same keys.
UNREAD = (
    "sha256",
    "vocabulary",
    "terms",
    "states",
    "families",
    "family_members",
    "spells",
    "initial",
    "rows",
    "rules",
    "coverage",
    "matrix",
    "family_matrix",
)
UNCOMPARED = (
    "behaviour_changed",
    "breaking",
    "changes",
    "not_compared",
    "states",
    "families",
    "spells",
    "methods",
    "state_file",
    "state_key",
    "initial",
    "migrations_dropped",
    "indicators_changed",
    "descriptions_changed",
    "rules",
    "read_differently",
    "told",
    "templates_changed",
    "file_templates_changed",
    "findings",
    "borrowed_terms",
    "vocabulary",
)


def _json_failure(args: argparse.Namespace, err: SpecError) -> dict[str, object]:
    """The error as the report's one finding, counted in its summary; nothing read."""
    return {
        "spec": err.path,
        **dict.fromkeys(UNREAD),
        "findings": [finding_json(_error_finding(err))],
        "summary": {"errors": 1, "warnings": 0, "info": 0},
        "ok": False,
        "reading": None,
    }


def _json_diff_new(args: argparse.Namespace, shown: str) -> dict[str, object]:
    """The comparison's keys: nothing compared, nothing that could break."""
    return _json_uncompared(args, shown, "new machine", [])


def _json_diff_gone(args: argparse.Namespace, shown: str) -> dict[str, object]:
    """The comparison's keys: nothing compared, and what breaks."""
    return _json_uncompared(args, shown, "machine removed", [GONE])


def _json_uncompared(
    args: argparse.Namespace, shown: str, verdict: str, breaking: list[str]
) -> dict[str, object]:
    """A comparison of a machine one side has and the other has not: every key, null
    where nothing was compared."""
    return {
        "old": {"spec": shown, "sha256": None},
        "new": {"spec": args.spec, "sha256": None},
        "verdict": verdict,
        **dict.fromkeys(UNCOMPARED),
        "behaviour_changed": True,
        "breaking": breaking,
    }


def _json_diff_failure(args: argparse.Namespace, err: SpecError) -> dict[str, object]:
    """The comparison's keys, nothing compared, and the error that stopped it."""
    return {
        "old": {"spec": args.against, "sha256": None},
        "new": {"spec": args.spec, "sha256": None},
        "verdict": "not compared",
        **dict.fromkeys(UNCOMPARED),
        "error": {"spec": err.path, "line": err.line or None, "message": err.message},
    }


# --- markdown -----------------------------------------------------------------


def _markdown(
    args: argparse.Namespace, spec: Spec, findings: list[Finding], options: ReadOptions
) -> str:
    return to_markdown(spec, findings, args.strict, options)


def _markdown_sections(args: argparse.Namespace, options: ReadOptions, checked: Checked) -> str:
    return (
        f"# Verification of `{args.spec}`: {len(checked)} machines, one per section\n\n"
        + "\n".join(
            _demoted(
                to_markdown(m.spec, findings, args.strict, _of(options, m)),
                f"Section {m.section!r} (line {m.line})",
            )
            for m, findings in checked
        )
    )


def _markdown_diff_sections(args: argparse.Namespace, ran: Sequence[Ran]) -> str:
    return (
        f"# Spec change: `{args.spec}` against `{args.against}`: {len(ran)} machines, one "
        "per section\n\n"
        + "\n".join(_demoted(str(r.said), f"Section {r.args.section!r}") for r in ran)
    )


def _demoted(report: str, title: str) -> str:
    """A machine's markdown report as a section of the file's: its headings one level
    down, its title the machine's section."""
    lines = report.split("\n")
    lines[0] = f"## {title}"
    return "\n".join(
        f"#{line}" if line.startswith("#") and i else line for i, line in enumerate(lines)
    )


def _markdown_diff(diff: SpecDiff) -> str:
    from ..diff.report import to_markdown as diff_markdown

    return diff_markdown(diff)


def _where(err: SpecError) -> str:
    return f"{err.path}:{err.line}" if err.line else err.path


def _md_code(text: str) -> str:
    """A path or a revision as a code span of a markdown line."""
    return md_text(f"`{text}`", cell=False)


def _md_why(err: SpecError) -> str:
    """Where a spec could not be read, and why, as a markdown line says it."""
    return f"{_md_code(_where(err))}: {md_text(err.message, cell=False)}"


def _markdown_failure(args: argparse.Namespace, err: SpecError) -> str:
    return f"# Verification of {_md_code(err.path)}\n\n**Not verified**: {_md_why(err)}\n"


def _markdown_diff_new(args: argparse.Namespace, shown: str) -> str:
    head = f"# Spec change: {_md_code(args.spec)} against {_md_code(shown)}"
    return f"{head}\n\n**New machine**: {NEW}\n"


def _markdown_diff_gone(args: argparse.Namespace, shown: str) -> str:
    head = f"# Spec change: {_md_code(args.spec)} against {_md_code(shown)}"
    return f"{head}\n\n**BREAKING**: {GONE}\n"


def _markdown_diff_failure(args: argparse.Namespace, err: SpecError) -> str:
    head = f"# Spec change: {_md_code(args.spec)} against {_md_code(args.against)}"
    return f"{head}\n\n**Not compared**: {_md_why(err)}\n"


def _markdown_between(at: int, run: argparse.Namespace) -> str:
    return "\n" if at else ""


# --- SARIF --------------------------------------------------------------------


def _sarif(
    args: argparse.Namespace, spec: Spec, findings: list[Finding], options: ReadOptions
) -> dict[str, object]:
    return to_sarif(spec, findings)


def _sarif_sections(
    args: argparse.Namespace, options: ReadOptions, checked: Checked
) -> dict[str, object]:
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [_sarif_run(m, findings) for m, findings in checked],
    }


def _sarif_run(machine: SectionSpec, findings: list[Finding]) -> dict[str, object]:
    """One machine's SARIF run, saying its section."""
    run: dict[str, object] = to_sarif(machine.spec, findings)["runs"][0]
    run["automationDetails"] = {"id": f"verify-state-machine/{machine.section}"}
    run["properties"] = {"section": machine.section, "line": machine.line}
    return run


def _sarif_opening(head: dict[str, str]) -> str:
    return f'{{\n  "$schema": {json_text(SARIF_SCHEMA)},\n  "version": "2.1.0",\n  "runs": [\n'


def _sarif_entry(ran: Ran) -> str:
    """Every run of a machine's log, each named in `automationDetails` by the project's
    name for the machine (unique in the project), and its section where it has one, so
    no two runs of the document share an id."""
    said = ran.said if isinstance(ran.said, dict) else {}
    name = getattr(ran.args, "machine", None) or ran.args.spec
    runs = []
    for one in cast("list[dict[str, Any]]", said.get("runs", [])):
        section = one.get("properties", {}).get("section") or ran.args.section
        named = f"{name}/{section}" if section else name
        one = {**one, "automationDetails": {"id": f"verify-state-machine/{named}"}}
        runs.append(textwrap.indent(json_text(one), "    "))
    return ",\n".join(runs)


def _sarif_closing(ok: bool) -> str:
    return "  ]\n}\n"


def _sarif_failure(args: argparse.Namespace, err: SpecError) -> dict[str, object]:
    return sarif_log(err.path, [_error_finding(err)])


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format(
            name="text",
            help="text (default)",
            report=_text,
            sections=_text_sections,
            failure=None,
            diff=_text_diff,
            diff_failure=None,
            diff_new=_text_diff_new,
            diff_gone=_text_diff_gone,
            diff_sections=_text_diff_sections,
            between=_text_between,
            gathered=None,
        ),
        Format(
            name="json",
            help="json",
            report=_json,
            sections=_json_sections,
            failure=_json_failure,
            diff=_json_diff,
            diff_failure=_json_diff_failure,
            diff_new=_json_diff_new,
            diff_gone=_json_diff_gone,
            diff_sections=_json_diff_sections,
            between=None,
            gathered=JSON_GATHERED,
        ),
        Format(
            name="markdown",
            help="markdown (a report for a pull request)",
            report=_markdown,
            sections=_markdown_sections,
            failure=_markdown_failure,
            diff=_markdown_diff,
            diff_failure=_markdown_diff_failure,
            diff_new=_markdown_diff_new,
            diff_gone=_markdown_diff_gone,
            diff_sections=_markdown_diff_sections,
            between=_markdown_between,
            gathered=None,
        ),
        # SARIF has no form for a comparison: --against is refused, in its failure form.
        Format(
            name="sarif",
            help="sarif (2.1.0)",
            report=_sarif,
            sections=_sarif_sections,
            failure=_sarif_failure,
            diff=None,
            diff_failure=_sarif_failure,
            diff_new=None,
            diff_gone=None,
            diff_sections=None,
            between=None,
            gathered=Gathered(_sarif_opening, _sarif_entry, _sarif_closing),
        ),
    )
}
DEFAULT = "text"


def formats_help() -> str:
    """`--format`'s help: every format's words, in the table's order."""
    said = [f.help for f in FORMATS.values()]
    return ", ".join(said[:-1]) + " or " + said[-1]
