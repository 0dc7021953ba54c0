"""`verify-state-machine.py --explain`: every row's and every term's reading, in the
core's canonical words, in text; the JSON and markdown reports carry it too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.specs import row, spec_text

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "verify-state-machine.py"

MIGRATIONS = spec_text(
    ["A", "B"],
    ["Go"],
    [
        row(
            "R1",
            "A",
            "Go",
            "`sql/*.up.sql` exists AND no `sql/*.down.sql`",
            "B",
            "(1) Increments attempts; (2) Tell the user which script has no down script",
        ),
        row("R2", "A", "Go", "up scripts ready OR plan.md has text under `Rollback`"),
        row("R3", "A", "Go", "the moon is full"),
        row("R4", "B", "Go", "-", "[BLOCKED]"),
    ],
).replace(
    "### Transition Rules",
    "| Phrase | Means |\n|---|---|\n"
    "| up scripts ready | `sql/*.up.sql` exists AND `VERSION` exists |\n"
    "| log it | Append `ran ${date}` to log.md |\n\n### Transition Rules",
)


def verify(spec: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--spec", str(spec), "--vocabulary", "", *args],
        cwd=spec.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _spec(tmp_path: Path) -> Path:
    path = tmp_path / "MIGRATIONS.md"
    path.write_text(MIGRATIONS, encoding="utf-8")
    return path


R1 = (
    "R1 fires in A on Go when: some file matches `sql/*.up.sql` AND no file matches "
    "`sql/*.down.sql`; then: (1) Increment attempts; (2) instruction to the AI: Tell the "
    "user which script has no down script; → B"
)
R2_WHEN = (
    '(some file matches `sql/*.up.sql` AND `VERSION` exists) OR plan.md has text under "Rollback"'
)


def test_explain_prints_every_row_s_and_term_s_reading_in_canonical_words(
    tmp_path: Path,
) -> None:
    result = verify(_spec(tmp_path), "--explain")
    assert result.returncode == 1, result.stderr  # R3's condition is not read: an error
    out = result.stdout
    assert "Reading: 4 rows and 2 terms, in the core's words" in out
    assert f"  {R1}\n" in out
    assert f"R2 fires in A on Go when: {R2_WHEN}; then: No state change; → same state" in out
    assert "R3 fires in A on Go when: the moon is full (not read: 'the moon is full')" in out
    assert "R4 fires in B on Go when: always; then: No state change; → [BLOCKED]" in out
    assert (
        "term 'up scripts ready' means the condition: some file matches `sql/*.up.sql` AND "
        "`VERSION` exists" in out
    )
    assert "term 'log it' means the action: Append `ran ${date}` to log.md" in out
    # The reading comes before the findings, and the verdict stays the last line.
    assert out.index("Reading:") < out.index("Findings:")
    assert out.rstrip().splitlines()[-1].startswith("FAILED")


def test_without_explain_the_text_report_has_no_reading(tmp_path: Path) -> None:
    out = verify(_spec(tmp_path)).stdout
    assert "Reading:" not in out and "R1 fires" not in out


def test_explain_with_brief_prints_the_reading_then_what_fails(tmp_path: Path) -> None:
    out = verify(_spec(tmp_path), "--brief", "--explain").stdout
    assert out.startswith("Starts in: A (its first state: no line of the spec says where")
    assert "\n\nReading: 4 rows" in out
    assert R1 in out
    assert "[unknown_condition]" in out


def test_the_json_report_carries_the_reading(tmp_path: Path) -> None:
    for args in ([], ["--explain"]):
        report = json.loads(verify(_spec(tmp_path), "--format", "json", *args).stdout)
        rows = {r["rule"]: r for r in report["reading"]["rows"]}
        assert rows["R1"]["reading"] == R1
        assert rows["R1"]["when"].startswith("some file matches `sql/*.up.sql` AND")
        assert rows["R1"]["then"] == [
            "Increment attempts",
            "instruction to the AI: Tell the user which script has no down script",
        ]
        assert (rows["R1"]["states"], rows["R1"]["spells"], rows["R1"]["next"]) == (
            "A",
            ["Go"],
            "B",
        )
        assert rows["R3"]["unread"] == ["the moon is full"]
        terms = {t["phrase"]: t for t in report["reading"]["terms"]}
        assert terms["up scripts ready"]["as"] == "condition"
        assert terms["log it"] == {
            "phrase": "log it",
            "line": terms["log it"]["line"],
            "means": "Append `ran ${date}` to log.md",
            "as": "action",
            "reading": "Append `ran ${date}` to log.md",
        }


def test_the_markdown_report_carries_the_reading(tmp_path: Path) -> None:
    for args in ([], ["--explain"]):
        out = verify(_spec(tmp_path), "--format", "markdown", *args).stdout
        assert "## Reading" in out
        assert (
            "| R1 | A | Go | some file matches `sql/*.up.sql` AND no file matches "
            "`sql/*.down.sql` | Increment attempts; instruction to the AI: Tell the user "
            "which script has no down script | B |"
        ) in out
        assert f"| R2 | A | Go | {R2_WHEN} | No state change | same state |" in out
        assert "| up scripts ready | condition | some file matches `sql/*.up.sql` AND" in out


LOAN_DESK = ROOT / "tests" / "data" / "fixtures" / "library_loans.md"


def test_explain_reads_the_loan_desk_s_rules_and_terms_as_their_author_meant() -> None:
    """A spec written from the docs alone: two rows and two terms, spelt out."""
    result = verify(LOAN_DESK, "--explain", "--brief", "--strict")
    assert result.returncode == 0, result.stdout + result.stderr
    readings = result.stdout.splitlines()
    assert (
        "  N5 fires in ON_LOAN on Renew when: loans/current.loan.md is filled in AND "
        "notes/__desk__.md does not match `NO\\ RENEWALS` AND no file matches "
        "`holds/*.hold` AND renewals.json has no `renewals[status=refused]` AND "
        'fines.json has `amount` > 0 AND fines.json has `status` ≠ "waived"; then: '
        "(1) Extract amount from fines.json; (2) Append `renewal refused: fine ${amount}` "
        "to notes/__desk__.md; → same state"
    ) in readings
    assert (
        "  S1 fires in RETURNING on Shelve when: loans/current.loan.md frontmatter has "
        "`borrower` matching `[A-Za-z0-9]` AND return.md has at least 3 checklist items "
        'under "Condition check" AND return.md has no unchecked items under "Condition '
        'check" AND return.md has no section "Damage" with text; then: (1) Extract borrower '
        "from loans/current.loan.md frontmatter; (2) Archive loans/current.loan.md and "
        "return.md and fines.json to history/${borrower}-${date}/; (3) Delete renewals.json "
        "and notice.md; (4) Reset renewal_count to 0; → AVAILABLE"
    ) in readings
    assert (
        "  term 'the desk is closed' means the condition: notes/__desk__.md matches "
        "`^CLOSED\\b` OR `CLOSED` exists"
    ) in readings
    assert (
        "  term 'Record the barcode as lost' means the action: Record matches of "
        "`BC-\\d{4}` of loans/current.loan.md in lost-ledger.txt"
    ) in readings


def test_a_terms_row_naming_a_pattern_is_read_as_the_pattern(tmp_path: Path) -> None:
    """A Terms row a `Record` reads as its noun is shown as the pattern it names, not as
    a phrase nothing reads."""
    from codegen import parse_spec_text
    from codegen.analyse.reading import read_spec
    from tests.support.specs import fill, row, spec_text

    states, spells = ["A"], ["Go"]
    rows = [row("T1", "A", "Go", "-", "Same state", "Record jira keys of notes.md in `seen`")]
    text = spec_text(states, spells, rows + fill(states, spells, ["A/Go"])).replace(
        "### Transition Rules",
        "| Phrase | Means |\n|---|---|\n| jira keys | matches of `[A-Z]+-\\d+` |\n\n"
        "### Transition Rules",
    )
    (term,) = read_spec(parse_spec_text(text)).terms
    assert term.kind == "pattern"
    assert term.said() == (
        "term 'jira keys' means the pattern: matches of `[A-Z]+-\\d+`, a noun the ledger verbs read"
    )


def test_one_phrase_holding_a_semicolon_is_not_read_as_two() -> None:
    """An unnumbered Action cell is one phrase: `A; B` in it is one instruction, which
    the reading shows apart from the two phrases `(1) A; (2) B`."""
    from codegen import parse_spec_text
    from codegen.analyse.reading import read_spec
    from tests.support.specs import fill, row, spec_text

    def then(action: str) -> str:
        rows = [row("T1", "A", "Go", "-", "Same state", action)]
        spec = parse_spec_text(spec_text(["A"], ["Go"], rows + fill(["A"], ["Go"], ["A/Go"])))
        (reading,) = [r for r in read_spec(spec).rows if r.id == "T1"]
        return reading.said().split("; then: ")[1]

    assert then("Ping the team; Increment pings") == (
        "instruction to the AI: Ping the team; Increment pings; → same state"
    )
    assert then("(1) Ping the team; (2) Increment pings") == (
        "(1) instruction to the AI: Ping the team; (2) Increment pings; → same state"
    )


def test_explain_says_where_the_state_file_and_the_workspace_are(tmp_path: Path) -> None:
    out = verify(_spec(tmp_path), "--explain").stdout
    assert (
        "State file: state.json (the default: no line of the spec names one); the workspace, "
        "where the rules' files are, is the repository's top folder"
    ) in out
    kept = tmp_path / "kept.md"
    kept.write_text(
        MIGRATIONS.replace(
            "### Transition Rules",
            "### State Persistence\n\nState is kept in .ai/task/state.json.\n\n"
            "### Transition Rules",
        )
    )
    out = verify(kept, "--explain").stdout
    assert "State file: .ai/task/state.json (line " in out
    assert "the workspace, where the rules' files are, is .ai/task/" in out
    assert "[state_file_unread]" not in out
