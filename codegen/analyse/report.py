"""Verifier output: the coverage matrices, findings and reading as text, JSON, markdown
or SARIF."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..model import Spec, Specificity
from ..read.lexicon import ReadOptions
from .coverage import Coverage, family_cell, family_coverage, state_coverage
from .findings import SEVERITY, Finding, Severity
from .reading import guard_title, read_spec, shown_vocabulary

WILDCARD_MARK = "*"
MISSING = "MISSING"


def _counts(findings: Sequence[Finding]) -> dict[str, int]:
    return {
        "errors": sum(f.severity is Severity.ERROR for f in findings),
        "warnings": sum(f.severity is Severity.WARNING for f in findings),
        "info": sum(f.severity is Severity.INFO for f in findings),
    }


def is_ok(findings: Sequence[Finding], strict: bool = False) -> bool:
    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    return not any(f.severity in failing for f in findings)


# --- JSON ---------------------------------------------------------------------


def finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "kind": finding.kind,
        "severity": finding.severity.value,
        "rule": finding.rule,
        "line": finding.line,
        "state": finding.state,
        "spell": finding.spell,
        "message": finding.message,
        "world": finding.world,
        "states": list(finding.states or ([finding.state] if finding.state else [])),
    }


def to_json(
    spec: Spec,
    findings: Sequence[Finding],
    strict: bool = False,
    options: ReadOptions | None = None,
) -> dict[str, Any]:
    spells = [sp.name for sp in spec.spells]
    states_cov, families_cov = state_coverage(spec), family_coverage(spec)
    shown = answering(spec, findings)
    return {
        "spec": spec.path,
        "sha256": spec.sha256,
        "vocabulary": shown_vocabulary(spec.vocabulary),
        "terms": [t.phrase for t in spec.terms],
        "states": [st.name for st in spec.states],
        "families": [fam.name for fam in spec.families],
        "family_members": {fam.name: list(fam.members) for fam in spec.families},
        "spells": spells,
        "initial": spec.initial,
        "rows": len(spec.rows),
        "rules": sum(1 for r in spec.rules if not r.policy),
        "coverage": {
            "families": {"covered": families_cov.covered, "total": families_cov.total},
            "states": {"covered": states_cov.covered, "total": states_cov.total},
        },
        "matrix": {
            st.name: {sp: [r.id for r in shown.cell(st.name, sp)] for sp in spells}
            for st in spec.states
        },
        "family_matrix": {
            fam.name: {sp: list(family_cell(shown, fam.name, sp)) for sp in spells}
            for fam in spec.families
        },
        "findings": [finding_json(f) for f in findings],
        "summary": _counts(findings),
        "ok": is_ok(findings, strict),
        "reading": read_spec(spec, options).json(),
    }


def answering(spec: Spec, findings: Sequence[Finding]) -> Spec:
    """The spec whose cells the matrices show: the rules that may answer each. The
    policy's rule for where none of a cell's rows fires (`expand.policy_rules`) is
    shown only in a cell where some world reaches it (an `unlisted_gap`), or that was
    too complex to check; elsewhere the rows cover every world, and it never fires."""
    reached = {
        (state, f.spell)
        for f in findings
        if f.kind in ("unlisted_gap", "cell_too_complex")
        for state in (f.states or (f.state,))
    }
    kept = tuple(
        r
        for r in spec.rules
        if r.specificity is not Specificity.POLICY or (r.source, r.spell) in reached
    )
    return spec if len(kept) == len(spec.rules) else replace(spec, rules=kept)


# --- text ---------------------------------------------------------------------


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]


def _ids(spec: Spec, rules: Sequence[tuple[str, Specificity]]) -> str:
    return " ".join(
        rid + (WILDCARD_MARK if spec_ is Specificity.WILDCARD else "") for rid, spec_ in rules
    )


def _state_matrix(spec: Spec) -> list[str]:
    spells = [sp.name for sp in spec.spells]
    rows = []
    for st in spec.states:
        cells = []
        for sp in spells:
            rules = spec.cell(st.name, sp)
            cells.append(_ids(spec, [(r.id, r.specificity) for r in rules]) or MISSING)
        rows.append([st.name, *cells])
    return _table(["STATE", *spells], rows)


def _family_matrix(spec: Spec) -> list[str]:
    spells = [sp.name for sp in spec.spells]
    wildcard = {r.id for r in spec.rules if r.specificity is Specificity.WILDCARD}
    rows = []
    for fam in spec.families:
        cells = []
        for sp in spells:
            ids = family_cell(spec, fam.name, sp)
            text = " ".join(i + (WILDCARD_MARK if i in wildcard else "") for i in ids)
            missing = [m for m in fam.members if not spec.cell(m, sp)]
            if not ids:
                text = MISSING
            elif missing:
                text += " (missing for " + ", ".join(missing) + ")"
            cells.append(text)
        rows.append([fam.name, *cells])
    return _table(["STATE FAMILY", *spells], rows)


def _no_families(spec: Spec) -> bool:
    """Whether every family is one state: its matrix by family is its matrix by state."""
    return all(len(fam.members) == 1 for fam in spec.families)


def _by_family(spec: Spec, covered: Coverage) -> list[str]:
    """The coverage matrix by state family, where the spec has families."""
    if _no_families(spec):
        return []
    return [
        f"Coverage by state family: {covered} cells "
        f"({_plural(len(spec.families), 'family')} x "
        f"{_plural(len(spec.spells), spec.spell_word)})",
        *_family_matrix(spec),
        "",
    ]


def format_finding(path: str, finding: Finding) -> str:
    where = f"{path}:{finding.line}" if finding.line else path
    return f"{where}: {finding.severity.value}: {finding.message} [{finding.kind}]"


def _words(spec: Spec) -> str:
    """Whose words the spec was read with: the core's, its vocabulary's, its own Terms."""
    shown = shown_vocabulary(spec.vocabulary)
    vocabulary = f"the `{shown}` vocabulary" if shown else "no vocabulary"
    terms = len(spec.terms)
    return f"the core's words, {vocabulary} and " + (
        f"{terms} term{'s' if terms != 1 else ''} of its own" if terms else "no terms of its own"
    )


def format_text(
    spec: Spec,
    findings: Sequence[Finding],
    strict: bool = False,
    explain: bool = False,
    options: ReadOptions | None = None,
) -> str:
    """The report; with `explain`, every row's and term's reading before the findings."""
    families_cov, states_cov = family_coverage(spec), state_coverage(spec)
    shown = answering(spec, findings)
    word = spec.spell_word
    out = [
        f"{spec.path}: {_plural(len(spec.states), 'state')}"
        + ("" if _no_families(spec) else f" in {_plural(len(spec.families), 'family')}")
        + f", {_plural(len(spec.spells), word)}, "
        f"{_plural(len(spec.rows), 'rule row')} expanding to "
        f"{_rules(spec)}",
        f"Read with {_words(spec)}",
        "",
        *_by_family(shown, families_cov),
        f"Coverage by state: {states_cov} cells "
        f"({_plural(len(spec.states), 'state')} x {_plural(len(spec.spells), word)}"
        + ("; no state families, so no matrix by family" if _no_families(spec) else "")
        + ")",
        *_state_matrix(shown),
        "",
        f"Rule IDs are in priority order: rows naming the state first, then "
        f"wildcard rows ({WILDCARD_MARK}); within each, document order.",
        "",
    ]
    if explain:
        out += _explained(spec, options)
    counts = _counts(findings)
    out.append(
        f"Findings: {_plural(counts['errors'], 'error')}, "
        f"{_plural(counts['warnings'], 'warning')}, {counts['info']} info"
    )
    kinds = sorted({f.kind for f in findings}, key=lambda k: (_rank(findings, k), _order(k), k))
    for kind in kinds:
        group = [f for f in findings if f.kind == kind]
        out.append(f"  {kind} ({len(group)})")
        out.extend("    " + format_finding(spec.path, f) for f in group)
    out.append("")
    out.append(_verdict(spec, findings, strict))
    return "\n".join(out) + "\n"


def _explained(spec: Spec, options: ReadOptions | None) -> list[str]:
    """Every row's and every term's reading, in the core's canonical words."""
    reading = read_spec(spec, options)
    rows, terms = len(reading.rows), len(reading.terms)
    borrowed = sum(1 for t in reading.terms if t.vocabulary)
    titled = [("state", s.title, s.name) for s in spec.states if s.title]
    titled += [(spec.spell_word, s.title, s.name) for s in spec.spells if s.title]
    names = (
        [
            "Names as written, and the identifiers code uses for them:",
            *(f"  {what} {title!r}: {name}" for what, title, name in titled),
            "",
        ]
        if titled
        else []
    )
    why = spec.started or "its first state: no line of the spec says where it starts"
    kept = (
        f"State file: {spec.state_file} (line {spec.state_line}); the workspace, where the "
        f"rules' files are, is {spec.workspace}/"
        if spec.state_line and spec.workspace
        else f"State file: {spec.state_file} (line {spec.state_line}); the workspace, where "
        "the rules' files are, is the repository's top folder"
        if spec.state_line
        else "State: kept by the project's own code (own_code: no state file, no workspace)"
        if spec.own_code
        else f"State file: {spec.state_file} (the default: no line of the spec names one); "
        "the workspace, where the rules' files are, is the repository's top folder"
    )
    return [
        *names,
        f"Starts in: {spec.initial} ({why})",
        kept,
        "",
        f"Reading: {_plural(rows, 'row')} and {_plural(terms, 'term')}"
        + (f" ({borrowed} of the vocabulary's, which the rows use)" if borrowed else "")
        + ", in the core's words",
        *(f"  {line}" for line in reading.lines()),
        "",
    ]


def format_brief(
    spec: Spec,
    findings: Sequence[Finding],
    strict: bool = False,
    explain: bool = False,
    options: ReadOptions | None = None,
) -> str:
    """Only what fails (errors; warnings too with `strict`), most severe first, then the
    one-line verdict: for a hook, where the whole report would bury the one line (with
    `explain`, every reading first)."""
    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    kinds = sorted({f.kind for f in findings}, key=lambda k: (_rank(findings, k), _order(k), k))
    out = [
        format_finding(spec.path, f)
        for kind in kinds
        for f in findings
        if f.kind == kind and f.severity in failing
    ]
    shown = _explained(spec, options) if explain else []
    return "\n".join([*shown, *out, _verdict(spec, findings, strict)]) + "\n"


def _verdict(spec: Spec, findings: Sequence[Finding], strict: bool) -> str:
    counts = _counts(findings)
    verdict = "OK" if is_ok(findings, strict) else "FAILED"
    return (
        f"{verdict}: {_covered(spec)}; {_plural(counts['errors'], 'error')}, "
        f"{_plural(counts['warnings'], 'warning')}" + (" (strict: warnings fail)" if strict else "")
    )


def _covered(spec: Spec) -> str:
    """How many cells some rule covers: by family and by state, or by state alone where
    the spec has no state families (every family would be one state)."""
    if _no_families(spec):
        return f"{state_coverage(spec)} cells covered"
    return f"{family_coverage(spec)} family cells and {state_coverage(spec)} state cells covered"


def _order(kind: str) -> int:
    """Kinds of one severity in SEVERITY's order: a name that does not resolve (the
    cause) before the gap or dead rule it leaves (the consequence)."""
    kinds = list(SEVERITY)
    return kinds.index(kind) if kind in kinds else len(kinds)


def _rank(findings: Sequence[Finding], kind: str) -> int:
    order = [Severity.ERROR, Severity.WARNING, Severity.INFO]
    return min(order.index(f.severity) for f in findings if f.kind == kind)


def _plural(count: int, word: str) -> str:
    from spellbook.records.words import counted

    return counted(count, word)


# --- markdown -----------------------------------------------------------------


def md_text(text: str, cell: bool = True) -> str:
    """Text for a markdown cell (or, not `cell`, a line): no table breaks, no raw HTML (a
    comment would hide the rest of the report), no image or link (`![x](y)`, `[x](y)`),
    no mention or reference a host links (`@octocat`, `@org/team`, `other/repo#1`, `#12`
    ping people and link issues when a report is posted), and no backtick that opens a
    code span no run of as many closes (it would run to the line's end). Inside a code
    span, which shows its text as it is and links nothing, only a cell's `|` is escaped
    (a table's cell would end there)."""
    text = printable(text)
    out: list[str] = []
    at = 0
    while at < len(text):
        tick = text.find("`", at)
        if tick < 0:
            out.append(_md_plain(text[at:]))
            break
        out.append(_md_plain(text[at:tick]))
        run = len(text) - tick - len(text[tick:].lstrip("`"))
        slashes = len(text[:tick]) - len(text[:tick].rstrip("\\"))
        if slashes % 2:  # `\``: a backtick escaped, which opens no code span
            out.append("&#96;")
            at = tick + 1
            continue
        close = _closing_run(text, tick + run, run)
        if close < 0:  # no run of as many backticks closes it: they are backticks
            out.append("&#96;" * run)
            at = tick + run
            continue
        code = text[tick : close + run]
        out.append(code.replace("|", "\\|") if cell else code)
        at = close + run
    return "".join(out)


def _closing_run(text: str, start: int, run: int) -> int:
    """Where the first run of exactly `run` backticks at or after `start` begins, -1 if
    none does (markdown closes a code span only with a run as long as its opening)."""
    at = start
    while (tick := text.find("`", at)) >= 0:
        length = len(text) - tick - len(text[tick:].lstrip("`"))
        if length == run:
            return tick
        at = tick + length
    return -1


def _md_plain(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|")
    return text.translate(
        {ord("@"): "&#64;", ord("#"): "&#35;", ord("["): "\\[", ord("]"): "\\]", ord("!"): "&#33;"}
    )


def printable(text: str) -> str:
    """Control characters from a spec shown as escapes, not sent to a terminal."""
    return "".join(
        c if c in "\n\t" or (ord(c) >= 32 and ord(c) != 127) else f"\\x{ord(c):02x}" for c in text
    )


def _md_cell(text: str) -> str:
    return md_text(text) or " "


def to_markdown(
    spec: Spec,
    findings: Sequence[Finding],
    strict: bool = False,
    options: ReadOptions | None = None,
) -> str:
    """A report to paste into a pull request: verdict, family matrix, findings as a
    checklist, and what every row and term was read as."""
    counts = _counts(findings)
    verdict = "OK" if is_ok(findings, strict) else "FAILED"
    spells = [sp.name for sp in spec.spells]
    wildcard = {r.id for r in spec.rules if r.specificity is Specificity.WILDCARD}
    out = [
        f"# Verification of `{spec.path}`",
        "",
        f"Read with {_words(spec)}.",
        "",
        f"**{verdict}**: {_covered(spec)}; "
        f"{_plural(counts['errors'], 'error')}, {_plural(counts['warnings'], 'warning')}, "
        f"{counts['info']} info" + (" (strict)" if strict else "") + ".",
        "",
        f"## Coverage: {_plural(len(spec.families), 'state family')} x "
        f"{_plural(len(spells), spec.spell_word)}"
        if not _no_families(spec)
        else f"## Coverage: {_plural(len(spec.states), 'state')} x "
        f"{_plural(len(spells), spec.spell_word)} (no state families)",
        "",
        ("| State | " if _no_families(spec) else "| State family | ") + " | ".join(spells) + " |",
        "|---|" + "---|" * len(spells),
    ]
    shown = answering(spec, findings)
    for fam in spec.families:
        cells = []
        for sp in spells:
            ids = family_cell(shown, fam.name, sp)
            text = ", ".join(i + (WILDCARD_MARK if i in wildcard else "") for i in ids)
            cells.append(_md_cell(text or f"**{MISSING}**"))
        out.append(f"| `{fam.name}` | " + " | ".join(cells) + " |")
    out += [
        "",
        f"Rule IDs in priority order; `{WILDCARD_MARK}` marks wildcard rows (`Any state...`).",
        "",
        "## Findings",
        "",
    ]
    if not findings:
        out.append("No findings.")
    kinds = sorted({f.kind for f in findings}, key=lambda k: (_rank(findings, k), _order(k), k))
    for kind in kinds:
        group = [f for f in findings if f.kind == kind]
        out += [f"### `{kind}` ({len(group)})", ""]
        for f in group:
            where = f"line {f.line}" if f.line else "spec"
            out.append(f"- [ ] **{f.severity.value}** {where}: {md_text(f.message)}")
        out.append("")
    if out[-1]:
        out.append("")
    out += _md_reading(spec, options)
    return "\n".join(out).rstrip("\n") + "\n"


def _md_reading(spec: Spec, options: ReadOptions | None) -> list[str]:
    """The reading as tables: each row, each term, in the core's canonical words."""
    reading = read_spec(spec, options)
    out = [
        "## Reading",
        "",
        "What each row and term was read as, in the core's words (which read back as the "
        "same facts and actions).",
        "",
        "| Row | In | On | When | Then | Next |",
        "|---|---|---|---|---|---|",
    ]
    for r in reading.rows:
        when = r.when + (f" (not read: {'; '.join(map(repr, r.unread))})" if r.unread else "")
        cells = (r.id, r.states, " or ".join(r.spells), when, "; ".join(r.then) or "-", r.next)
        out.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
    if reading.terms:
        out += ["", "| Term | Read as | Reading |", "|---|---|---|"]
        for t in reading.terms:
            out.append(f"| {_md_cell(t.phrase)} | {t.kind} | {_md_cell(t.reading)} |")
    if reading.policy:
        out += ["", _md_cell(reading.policy[0].upper() + reading.policy[1:])]
    if reading.guards:
        out += ["", "| Guard | Line | Reading |", "|---|---|---|"]
        for g in reading.guards:
            said = g.said.split(": ", 1)[1] if not g.problem else "not read: " + g.problem
            out.append(f"| {_md_cell(guard_title(g.guard))} | {g.guard.line} | {_md_cell(said)} |")
    if reading.kept:
        out += ["", *(f"- {_md_cell(k[0].upper() + k[1:])}." for k in reading.kept)]
    return out


# --- SARIF --------------------------------------------------------------------

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def to_sarif(spec: Spec, findings: Sequence[Finding]) -> dict[str, Any]:
    """SARIF 2.1.0, so code-scanning tools annotate the spec's lines."""
    return sarif_log(spec.path, findings)


def sarif_log(path: str, findings: Sequence[Finding]) -> dict[str, Any]:
    """The SARIF 2.1.0 log of `findings` in the file `path` (a spec read, or one that
    could not be)."""
    kinds = sorted({f.kind for f in findings})
    results = []
    for f in findings:
        location: dict[str, Any] = {"artifactLocation": {"uri": path}}
        if f.line:
            location["region"] = {"startLine": f.line}
        results.append(
            {
                "ruleId": f.kind,
                "ruleIndex": kinds.index(f.kind),
                "level": SARIF_LEVEL[f.severity],
                "message": {"text": f.message},
                "locations": [{"physicalLocation": location}],
            }
        )
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "verify-state-machine",
                        "rules": [
                            {
                                "id": kind,
                                "defaultConfiguration": {"level": SARIF_LEVEL[SEVERITY[kind]]},
                            }
                            for kind in kinds
                        ],
                    }
                },
                "results": results,
            }
        ],
    }


def _rules(spec: Spec) -> str:
    """`12 rules`, and the cells the policy that transitions not listed are rejected blocks."""
    written = sum(1 for r in spec.rules if not r.policy)
    blocked = sum(1 for r in spec.rules if r.policy and not r.fills_gap)
    policy = f" (and {_plural(blocked, 'cell')} not listed, rejected)" if blocked else ""
    return f"{_plural(written, 'rule')}{policy}"
