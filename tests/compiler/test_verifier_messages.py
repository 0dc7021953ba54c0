"""What the verifier says about a mistake: the cause once and first, never a
consequence said as something else, and how to resolve what fails --strict."""

from __future__ import annotations

import json
from pathlib import Path

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.report import format_brief, format_text, to_json, to_markdown, to_sarif
from tests.support.specs import row, spec_text

ROOT = Path(__file__).resolve().parents[2]
PROJECT = (ROOT / "spec" / "STATE_MACHINE.md").read_text(encoding="utf-8")
FAMILY_ROW = "| P1 | PR_GATHERING_COMMENTS_[G/A] | Accio | comments.md exists | "


def _errors(text: str) -> list[str]:
    spec = parse_spec_text(text, "spec/X.md")
    report = format_text(spec, analyse(spec))
    return [line.strip() for line in report.splitlines() if ": error: " in line]


def test_a_typo_in_a_family_s_name_is_said_once_and_before_the_gap_it_leaves() -> None:
    assert PROJECT.count(FAMILY_ROW) == 1
    typo = PROJECT.replace(FAMILY_ROW, FAMILY_ROW.replace("COMMENTS", "COMENTS", 1))
    errors = _errors(typo)
    unknown = [e for e in errors if "[unknown_state]" in e]
    assert len(unknown) == 1, unknown
    assert "'PR_GATHERING_COMENTS_[G/A]' in Current State (did you mean " in unknown[0]
    assert "no state PR_GATHERING_COMENTS_G" not in unknown[0]
    assert errors[0] == unknown[0]  # the cause, then the gap
    assert any("[gap]" in e for e in errors[1:])


def test_a_typo_in_a_family_next_state_is_said_once() -> None:
    typo = PROJECT.replace(
        FAMILY_ROW + "PR_REVIEW_TASK_DRAFT_[G/A]", FAMILY_ROW + "PR_REVIEW_TASK_DRAFTT_[G/A]"
    )
    assert typo != PROJECT
    unknown = [e for e in _errors(typo) if "[unknown_state]" in e]
    assert len(unknown) == 1 and "'PR_REVIEW_TASK_DRAFTT_[G/A]' in Next State" in unknown[0]


def test_a_spell_with_no_rule_in_a_state_is_not_said_to_be_blocked_there() -> None:
    rows = [row("G1", "A", "Go", "-", "NOWHERE"), row("G2", "B", "Go")]
    text = spec_text(["A", "B"], ["Go"], rows)
    errors = _errors(text)
    assert "[unknown_state]" in errors[0] and "[missing_cell]" in errors[1], errors
    found = analyse(parse_spec_text(text, "spec/X.md"))
    assert not [f for f in found if "always blocked" in f.message]


def test_a_catch_all_row_after_a_specific_one_says_how_to_write_it() -> None:
    rows = [
        row("G1", "A", "Go", "`x.md` exists", "B"),
        row("G2", "A", "Go"),
        row("G3", "B", "Go"),
    ]
    spec = parse_spec_text(spec_text(["A", "B"], ["Go"], rows), "spec/X.md")
    (overlap,) = [f for f in analyse(spec) if f.kind == "overlap"]
    assert overlap.message == (
        "Go in A: rules G1 and G2 both fire when x.md exists; G1 wins because it comes "
        "first. If G2 is meant for every other case, give it the condition under which G1 "
        "does not apply, so the rows say which applies and not their order"
    )
    fixed = spec_text(
        ["A", "B"], ["Go"], [rows[0], row("G2", "A", "Go", "`x.md` missing"), rows[2]]
    )
    assert not [f for f in analyse(parse_spec_text(fixed, "s.md")) if f.kind == "overlap"]


def test_brief_output_is_what_fails_then_the_verdict(tmp_path: Path) -> None:
    import subprocess
    import sys

    typo = tmp_path / "typo.md"
    typo.write_text(
        PROJECT.replace(FAMILY_ROW, FAMILY_ROW.replace("COMMENTS", "COMENTS", 1)),
        encoding="utf-8",
    )
    for args, code in (([], 0), (["--spec", str(typo)], 1)):
        done = subprocess.run(
            [sys.executable, str(ROOT / "verify-state-machine.py"), "--brief", "--strict", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == code, done.stderr
        lines = done.stdout.splitlines()
        assert lines[-1].startswith("OK: " if code == 0 else "FAILED: ")
        assert all(": error: " in x or ": warning: " in x for x in lines[:-1])
        assert len(lines) == 1 if code == 0 else "[unknown_state]" in lines[0]


def test_the_report_counts_one_of_a_kind_in_the_singular() -> None:
    spec = parse_spec_text(spec_text(["A"], ["Go"], [row("T1", "A", "Go")]))
    head = format_text(spec, analyse(spec)).splitlines()
    assert head[0].endswith(": 1 state, 1 spell, 1 rule row expanding to 1 rule")
    assert "(1 state x 1 spell; no state families, so no matrix by family)" in head[3]
    assert "1 states" not in "\n".join(head) and "1 spells" not in "\n".join(head)


def test_the_headline_counts_families_only_where_the_spec_has_them() -> None:
    plain = parse_spec_text(spec_text(["A", "B", "C"], ["Go"], [row("T1", "A, B, C", "Go")]))
    findings = analyse(plain)
    text = format_text(plain, findings).splitlines()
    assert text[0].endswith(": 3 states, 1 spell, 1 rule row expanding to 3 rules"), text[0]
    assert "no state families, so no matrix by family" in text[3]
    # The other forms never said it; the JSON report keeps its keys.
    assert "in 3 families" not in to_markdown(plain, findings)
    assert "in 3 families" not in json.dumps([to_json(plain, findings), to_sarif(plain, findings)])
    assert {"states", "families", "family_matrix"} <= set(to_json(plain, findings))
    project = parse_spec_text(PROJECT, "spec/STATE_MACHINE.md")
    head = format_text(project, analyse(project)).splitlines()[0]
    assert head.startswith("spec/STATE_MACHINE.md: 24 states in 16 families, 6 spells, "), head


def test_the_verdict_counts_family_cells_only_where_the_spec_has_families() -> None:
    plain = parse_spec_text(spec_text(["A", "B", "C"], ["Go"], [row("T1", "A, B", "Go")]))
    findings = analyse(plain)
    for report in (format_text(plain, findings), format_brief(plain, findings)):
        assert report.splitlines()[-1].startswith("FAILED: 2/3 cells covered; "), report
    assert "**FAILED**: 2/3 cells covered; " in to_markdown(plain, findings)
    assert "family cells" not in format_text(plain, findings) + to_markdown(plain, findings)
    project = parse_spec_text(PROJECT, "spec/STATE_MACHINE.md")
    last = format_text(project, analyse(project)).splitlines()[-1]
    assert ": 96/96 family cells and 144/144 state cells covered; " in last, last


def test_a_table_s_one_trigger_is_counted_in_the_singular() -> None:
    text = "# M\n\n| From | Event | To |\n|---|---|---|\n| A | go | B |\n| B | go | A |\n"
    notes = [n.message for n in parse_spec_text(text).notices]
    assert any("its 1 event is read from them" in n for n in notes), notes


def test_findings_call_the_spells_what_the_spec_s_list_heading_does() -> None:
    rows = [row("T1", "A", "Go", nxt="B"), row("T2", "A", "Jump"), row("T3", "B", "Status")]
    text = spec_text(["A", "B"], ["Go", "Go", "Status"], rows).replace("### Spells", "### Events")
    text = text.replace("#### Transitions", "Transitions not listed are rejected.\n\n#### T")
    spec = parse_spec_text(text)
    assert spec.spell_word == "event"
    said = {f.kind: f.message for f in analyse(spec)}
    assert said["duplicate_spell"].startswith("event Go is defined again"), said
    assert "names unknown event 'Jump' in Trigger" in said["unknown_spell"], said
    assert said["spell_shadowed"] == (
        "event Status cannot be sent as `spell status`: that runs the command status of "
        "`spell`; rename the event, or send it as `spell cast status`"
    )
    assert "2 (state, event) cells no row names are blocked" in said["unlisted_rejected"], said
    assert "no event leads out of it" in said["dead_end"], said
    # The seed's own word, as it always was.
    spells = {f.kind: f.message for f in analyse(parse_spec_text(text.replace("Events", "Spells")))}
    assert "no spell leads out of it" in spells["dead_end"]
    assert spells["spell_shadowed"].startswith("spell Status cannot be cast as `spell status`")


def test_a_trigger_the_model_cannot_call_by_its_name_is_a_warning_that_holds() -> None:
    from codegen.render.machine_records import MachineRecords

    text = "# Lamp\n\n| From | Event | To |\n|---|---|---|\n| off | fired | on |\n"
    text += "| on | trigger | off |\n| off | may_switch | off |\n| on | switch | on |\n"
    spec = parse_spec_text(text)
    warned = {f.spell: f.message for f in analyse(spec) if f.kind == "trigger_renamed"}
    assert set(warned) == {"fired", "trigger", "may_switch"}, warned
    assert "`fired` is a name the model already has" in warned["fired"]
    assert "the check whether switch may fire" in warned["may_switch"]
    called = {t.spell: t.name for t in MachineRecords(spec).triggers}
    assert {s: called[s] != s for s in called} == {
        "fired": True,
        "trigger": True,
        "may_switch": True,
        "switch": False,
    }, called


def test_a_hint_for_a_time_in_the_state_keeps_the_author_s_number_and_unit() -> None:
    """`in this state for 30 days` was answered `did you mean 'in this state for more
    than 30 minutes'?`: pasted, the trial expired after 30 minutes."""
    rows = [
        row("R1", "A", "Go", "in this state for 30 days", "B"),
        row("R2", "A", "Go", "in this state for 30 days or less"),
        row("R3", "B", "Go", "-", "A"),
    ]
    (said,) = [e for e in _errors(spec_text(["A", "B"], ["Go"], rows)) if "did you mean" in e]
    assert "did you mean 'in this state for more than 30 days'?" in said, said
