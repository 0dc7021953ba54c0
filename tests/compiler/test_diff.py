"""The behavioural diff of two specs (`verify-state-machine.py --against`): renames and
migrations, conditions and order, dialects, the seed against docs/reference/spec-edit-log.md, and
what a change does to workspaces. (A workspace carried across a rename at run time:
runtime/test_migrations.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.config import load_config
from codegen.diff import Change, Renamed, SpecDiff, compare
from codegen.diff.report import format_text, to_json, to_markdown, verdict
from codegen.diff.revisions import load_old
from codegen.read.lexicon import ReadOptions
from tests.support.specs import fill, renamed, row, spec_text

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "spec" / "STATE_MACHINE.md"
FIXTURES = ROOT / "tests" / "data" / "fixtures"
READ_OPTIONS = load_config(ROOT).machine_for("spec/STATE_MACHINE.md").options
TEXT = PROJECT.read_text(encoding="utf-8")


def diff(old: str, new: str) -> SpecDiff:
    return compare(
        parse_spec_text(old, "old.md", options=READ_OPTIONS),
        parse_spec_text(new, "new.md", options=READ_OPTIONS),
    )


def said(found: SpecDiff) -> list[str]:
    return [c.said() for c in found.changes]


def verify(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "verify-state-machine.py"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_rename_with_a_migration_changes_no_behaviour_and_breaks_nothing() -> None:
    found = diff(TEXT, renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", migration=True))
    assert found.states_renamed == [Renamed("ERROR_PLAN_MISSING", "ERROR_NO_PLAN", True)]
    assert (found.states_added, found.states_removed) == ([], [])
    assert found.changes == found.told == []
    assert found.rules_changed == found.findings_new == found.findings_gone == []
    assert found.breaking == []
    assert verdict(found) == "no behaviour change"


def test_a_rename_without_a_migration_is_found_and_breaks_workspaces(tmp_path: Path) -> None:
    new = renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", migration=False)
    found = diff(TEXT, new)
    assert found.states_renamed == [Renamed("ERROR_PLAN_MISSING", "ERROR_NO_PLAN", False)]
    assert found.changes == []
    (why,) = found.breaking
    assert "add `- *Formerly*: ERROR_PLAN_MISSING` to ERROR_NO_PLAN" in why
    (tmp_path / "new.md").write_text(new, encoding="utf-8")
    result = verify("--spec", str(tmp_path / "new.md"), "--against", str(PROJECT))
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith(f"{tmp_path / 'new.md'} against {PROJECT}: BREAKING")


_TICKETS = """# Tickets

| From | To | Event | Guard |
|---|---|---|---|
| (start) | open | start | - |
| open | done | close | result.md exists |
| open | cancelled | close | result.md missing |
| open | open | reopen | - |
| done | open | reopen | - |
| cancelled | open | reopen | - |

Transitions not listed are rejected.
"""


def test_two_states_renamed_at_once_are_paired_by_the_rows_that_enter_them() -> None:
    # done and cancelled behave alike: they were paired by name, crosswise (done →
    # aborted), and the advice to follow moved every done workspace into aborted.
    new = _TICKETS.replace("cancelled", "aborted").replace("done", "finished")
    found = diff(_TICKETS, new)
    assert found.states_renamed == [
        Renamed("done", "finished", False),
        Renamed("cancelled", "aborted", False),
    ]
    assert not found.changes


def test_a_rename_only_the_names_chose_is_said_to_be_a_guess() -> None:
    old = _TICKETS.replace("result.md exists", "-").replace(
        "| close | result.md missing", "| cancel | -"
    )
    new = old.replace("cancelled", "aborted").replace("done", "finished")
    new = new.replace("| close |", "| finish |").replace("| cancel |", "| abort |")
    found = diff(old, new)
    assert {r.old: r.alike for r in found.states_renamed} == {
        "done": ("finished",),
        "cancelled": ("aborted",),
    } or {r.old: r.alike for r in found.states_renamed} == {
        "done": ("aborted",),
        "cancelled": ("finished",),
    }
    assert "a guess:" in format_text(found)


def test_a_family_renamed_is_said_as_a_family() -> None:
    new = renamed(TEXT, "PR_APPLIED_PENDING_ARCHIVE", "PR_AWAITING_ARCHIVE", migration=False)
    for suffix in "GA":
        new = new.replace(
            f"**PR_AWAITING_ARCHIVE_{suffix}**\n",
            f"**PR_AWAITING_ARCHIVE_{suffix}**\n"
            f"    - *Formerly*: PR_APPLIED_PENDING_ARCHIVE_{suffix}\n",
        )
    found = diff(TEXT, new)
    assert found.families_renamed == [
        ("PR_APPLIED_PENDING_ARCHIVE_[G/A]", "PR_AWAITING_ARCHIVE_[G/A]")
    ]
    assert [(r.new, r.migrated) for r in found.states_renamed] == [
        ("PR_AWAITING_ARCHIVE_G", True),
        ("PR_AWAITING_ARCHIVE_A", True),
    ]
    assert found.changes == found.breaking == []


def test_a_removed_state_taken_over_by_another_is_a_migration_and_a_behaviour_change() -> None:
    states, spells = ["A", "B", "C"], ["Go"]
    old = spec_text(
        states,
        spells,
        [
            row("R1", "A", "Go", nxt="B"),
            row("R2", "B", "Go", nxt="C"),
            row("R3", "C", "Go", nxt="A"),
        ],
    )
    new = spec_text(
        ["A", "C"], spells, [row("R1", "A", "Go", nxt="C"), row("R3", "C", "Go", nxt="A")]
    )
    assert diff(old, new).breaking  # B is gone, and nothing says where its workspaces go
    new = new.replace("**C**\n", "**C**\n    - *Formerly*: B\n")
    found = diff(old, new)
    assert found.states_removed == ["B"] and found.merged == {"B": "C"}
    assert found.breaking == []
    assert said(found) == [
        "Go in A: was B (R1), now C (R1)",
        # what a workspace that was in B, now in C, sees
        "Go in B (its workspaces in C): was C (R2), now A (R3)",
    ]


SMALL = ["A", "B", "C"], ["Go"]


def small(*rows: str) -> str:
    rest = [row("Z1", "B", "Go"), row("Z2", "C", "Go", nxt="A")]
    return spec_text(*SMALL, [*rows, *rest])


def test_reordering_overlapping_rows_changes_the_worlds_where_both_apply() -> None:
    first = row("R1", "A", "Go", "x.md exists", "B")
    second = row("R2", "A", "Go", "y.md exists", "C")
    rest = row("R3", "A", "Go", "x.md missing AND y.md missing")
    found = diff(small(first, second, rest), small(second, first, rest))
    assert said(found) == ["Go in A when x.md exists, y.md exists: was B (R1), now C (R2)"]
    assert found.rules_changed == [] and found.breaking == []


def test_reordering_rows_that_never_both_apply_changes_nothing() -> None:
    first = row("R1", "A", "Go", "x.md exists", "B")
    second = row("R2", "A", "Go", "x.md missing", "C")
    found = diff(small(first, second), small(second, first))
    assert not found.behaviour_changed and found.told == []
    assert format_text(found).endswith(": no behaviour change\n")


def test_a_condition_reworded_with_the_same_meaning_changes_nothing() -> None:
    first = row("R1", "A", "Go", "x.md exists", "B")
    old = row("R2", "A", "Go", "x.md missing AND y.md missing")
    new = row("R2", "A", "Go", "there is no y.md AND x.md is missing")
    found = diff(
        small(first, old, row("R3", "A", "Go", "x.md missing AND y.md exists", "C")),
        small(first, new, row("R3", "A", "Go", "y.md exists AND x.md missing", "C")),
    )
    assert not found.behaviour_changed and found.rules_changed == []


def test_a_condition_whose_meaning_changes_is_said_in_the_worlds_it_changes() -> None:
    rows = [row("R2", "A", "Go", "x.md missing", "C")]
    old = small(row("R1", "A", "Go", "x.md exists", "B"), *rows)
    new = small(row("R1", "A", "Go", "x.md exists AND y.md missing", "B"), *rows)
    found = diff(old, new)
    assert said(found) == ["Go in A when x.md exists, y.md exists: was B (R1), now no rule fires"]
    assert found.rules_changed == [("R1", ("condition",))]
    assert [f.kind for f in found.findings_new] == ["gap"]
    # The diff judges the change, but the headline says the spec has errors of its own
    # (a gap is one), which a CI that runs only `--against` would not otherwise see.
    assert verdict(found) == (
        "1 behaviour change; existing workspaces carry across; the spec has 1 error, so "
        "spellbook-codegen refuses it (but for a machine that allows errors): run the verifier "
        "without --against"
    )
    assert verdict(diff(old, old)) == "no behaviour change"


def test_an_added_state_is_listed_and_the_cells_leading_to_it_changed() -> None:
    old = spec_text(
        ["A", "B"],
        ["Go", "Look"],
        [
            row("R1", "A", "Go", nxt="B"),
            row("R2", "B", "Go", nxt="A"),
            row("L1", "Any state", "Look"),
        ],
    )
    new = spec_text(
        ["A", "B", "D"],
        ["Go", "Look"],
        [
            row("R1", "A", "Go", nxt="B"),
            row("R2", "B", "Go", nxt="A"),
            row("R3", "D", "Go", nxt="A"),
            row("L0", "A", "Look", nxt="D"),
            row("L1", "Any state", "Look"),
        ],
    )
    found = diff(old, new)
    assert found.states_added == ["D"] and found.breaking == []
    assert said(found) == ["Look in A: was no change (L1), now D (L0)"]
    assert found.rules_added == ["R3", "L0"]


@pytest.mark.parametrize(
    ("new", "old"),
    [
        (FIXTURES / "prettier_source_STATE_MACHINE.md", FIXTURES / "prettier2_STATE_MACHINE.md"),
        (FIXTURES / "prettier_source_STATE_MACHINE.md", FIXTURES / "prettier3_STATE_MACHINE.md"),
        (FIXTURES / "later_revision.md", FIXTURES / "later_revision_normalized.md"),
    ],
    ids=["prettier2", "prettier3", "later revision"],
)
def test_the_same_spec_in_another_dialect_diffs_as_no_behaviour_change(
    new: Path, old: Path
) -> None:
    result = verify("--spec", str(new), "--against", str(old), "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # (read outside the project, with no vocabulary: the headline says their errors too)
    assert report["verdict"].partition(";")[0] == "no behaviour change"
    assert report["changes"] == report["told"] == report["templates_changed"] == []
    assert report["rules"] == {
        "added": [],
        "removed": [],
        "renamed": [],
        "renumbered": [],
        "changed": [],
    }
    assert report["findings"] == {"new": [], "gone": []}


def _doc_rows(heading: str, columns: int) -> list[list[str]]:
    """The rows of the first table after `heading` in docs/reference/spec-edit-log.md."""
    text = (ROOT / "docs" / "reference" / "spec-edit-log.md").read_text(encoding="utf-8")
    start = text.index(heading)
    rows: list[list[str]] = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("| #") or line.startswith("|---"):
            continue
        if line.startswith("| "):
            cells = [c.strip() for c in line.strip()[1:-1].split("|")]
            assert len(cells) == columns, line
            rows.append(cells)
        elif rows:
            break
    return rows


def test_the_seed_against_the_project_spec_lists_exactly_what_spec_changes_md_records() -> None:
    # The project spec as the record leaves it (item 18), frozen beside the seed: a
    # later change of the spec is reviewed by its own `--against` report.
    recorded = (FIXTURES / "spec_changes_STATE_MACHINE.md").read_text(encoding="utf-8")
    project = parse_spec_text(recorded, "spec/STATE_MACHINE.md", options=READ_OPTIONS)
    old, borrowed, _ = load_old(str(FIXTURES / "seed_spec.md"), project, READ_OPTIONS)
    found = compare(old, project, borrowed)
    doc = (ROOT / "docs" / "reference" / "spec-edit-log.md").read_text(encoding="utf-8")
    items = set(re.findall(r"^\| (\d+) \| [`(]", doc, re.M))  # the decisions table
    behaviour = _doc_rows("## What the changes do", 6)
    told = _doc_rows("What the developer and the AI are told changes", 5)
    assert {r[0] for r in behaviour + told} <= items
    assert sorted(tuple(r[1:]) for r in behaviour) == sorted(
        (c.spell, ", ".join(c.states), c.when or "always", c.was.said(False), c.now.said(False))
        for c in found.changes
    )

    def rule(c: Change) -> str:
        return str(c.was.rule if c.was.rule == c.now.rule else f"{c.was.rule}, now {c.now.rule}")

    assert sorted(tuple(r[1:]) for r in told if r[2]) == sorted(
        (c.spell, ", ".join(c.states), c.when or "always", rule(c)) for c in found.told
    )
    assert [r[1] for r in told if not r[2]] == [
        f"the {kind} response template" for kind in found.templates_changed
    ]
    rows = re.search(r"Rows added: (.*); removed: (.*)\.", doc)
    assert rows is not None
    assert re.findall(r"[A-Z]+\d+[a-z]?", rows.group(1)) == found.rules_added
    assert re.findall(r"[A-Z]+\d+[a-z]?", rows.group(2)) == found.rules_removed
    assert not (found.states_added or found.states_removed or found.states_renamed)
    assert found.breaking == [] and [t.phrase for t in borrowed] == ["No PR review in progress"]


def test_against_a_git_revision(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "spec").mkdir(parents=True)
    spec = repo / "spec" / "STATE_MACHINE.md"
    spec.write_text(TEXT, encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "spec"], check=True)
    spec.write_text(renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", False), encoding="utf-8")
    result = verify(
        "--spec",
        str(spec),
        "--against",
        "HEAD:spec/STATE_MACHINE.md",
        "--format",
        "markdown",
        "--vocabulary",
        "spell_workflow",
        cwd=repo,
    )
    assert result.returncode == 1, result.stderr
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout[:12]
    assert result.stdout.startswith(
        f"# Spec change: `{spec}` against `spec/STATE_MACHINE.md at HEAD (commit {commit})`"
    )
    assert "renamed ERROR_PLAN_MISSING → ERROR_NO_PLAN (NO migration)" in result.stdout
    missing = verify("--spec", str(spec), "--against", "HEAD~3:spec/STATE_MACHINE.md", cwd=repo)
    assert missing.returncode == 2
    assert missing.stderr.startswith(
        f"error: HEAD~3:spec/STATE_MACHINE.md: 'HEAD~3' is no revision of the repository at "
        f"{repo} (not fetched yet?"
    )
    gone = verify("--spec", str(spec), "--against", "HEAD:spec/GONE.md", cwd=repo)
    assert gone.returncode == 2
    assert gone.stderr == (
        f"error: spec/GONE.md at HEAD (commit {commit}): no such file at that revision\n"
    )
    assert "Traceback" not in missing.stderr


def test_the_reports_agree(tmp_path: Path) -> None:
    found = diff(TEXT, renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", False))
    report = to_json(found)
    assert report["states"]["renamed"] == [
        {"old": "ERROR_PLAN_MISSING", "new": "ERROR_NO_PLAN", "migrated": False, "alike": []}
    ]
    assert report["breaking"] == found.breaking and report["verdict"].startswith("BREAKING")
    markdown = to_markdown(found)
    assert f"- :warning: {found.breaking[0]}" in markdown
    assert "sarif" in verify("--against", str(PROJECT), "--format", "sarif").stderr


def test_moving_the_state_file_or_renaming_its_key_breaks_workspaces() -> None:
    moved = diff(TEXT, TEXT.replace("`.ai/task/state.json`", "`.ai/work/state.json`"))
    assert moved.state_file == (".ai/task/state.json", ".ai/work/state.json")
    assert any("the state file moves" in why for why in moved.breaking)
    key = diff(TEXT, TEXT.replace('"current_state": ', '"state": '))
    assert key.state_key == ("current_state", "state")
    assert any("stops working" in why for why in key.breaking)


def test_a_new_initial_state_is_a_behaviour_change() -> None:
    first, second = TEXT.index("1. **GATHER_NEEDS_PLAN**"), TEXT.index("2. **GATHER_EDITING**")
    third = TEXT.index("3. **ACHIEVE_TASK_DRAFTING**")
    swapped = TEXT[:first] + TEXT[second:third] + TEXT[first:second] + TEXT[third:]
    found = diff(TEXT, swapped)
    assert found.initial == ("GATHER_NEEDS_PLAN", "GATHER_EDITING")
    assert found.behaviour_changed and "Initial state" in format_text(found)


def test_a_migration_dropped_breaks_the_workspaces_not_cast_since() -> None:
    with_migration = renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", migration=True)
    without = renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", migration=False)
    found = diff(with_migration, without)
    assert found.migrations_dropped == {"ERROR_PLAN_MISSING": "ERROR_NO_PLAN"}
    assert any("keep `- *Formerly*: ERROR_PLAN_MISSING`" in why for why in found.breaking)


def test_a_renamed_spell_is_found_and_its_cells_compared() -> None:
    found = diff(TEXT, re.sub(r"\bExpecto\b", "Enrich", TEXT))
    assert found.spells_renamed == [("Expecto", "Enrich")]
    assert (found.spells_added, found.spells_removed, found.changes) == ([], [], [])


def test_a_renamed_or_removed_spell_says_its_command_and_tool_change() -> None:
    """No cell behaves otherwise, yet `spell expecto`, the MCP tool `expecto` and every
    instruction naming them stop working: the report says so."""
    found = diff(TEXT, re.sub(r"\bExpecto\b", "Enrich", TEXT))
    text = format_text(found)
    assert "no behaviour change" in text
    assert "Callers: the `spell` commands and MCP tools named after them change " in text
    assert "(`expecto` is now `enrich`)" in text
    assert "Callers:" in to_markdown(found)


def test_responses_still_naming_a_renamed_spell_are_said() -> None:
    # Renamed everywhere but in one Response: the AI would be told to cast Expecto.
    renamed_text = re.sub(r"\bExpecto\b", "Enrich", TEXT)
    (row,) = [r for r in parse_spec_text(renamed_text, "new.md", options=READ_OPTIONS).rows][:1]
    line = next(ln for ln in renamed_text.splitlines() if ln.startswith(f"| {row.id} |"))
    told = renamed_text.replace(line, line.rstrip(" |") + " Then cast Expecto. |", 1)
    found = diff(TEXT, told)
    assert found.still_named == [("Expecto", [row.id])]
    assert f"Responses: {row.id} still names Expecto, which is no spell" in format_text(found)
    assert to_json(found)["spells"]["still_named"] == [{"spell": "Expecto", "rows": [row.id]}]
    assert diff(TEXT, renamed_text).still_named == []
    # the word in prose is no spell: `the expecto step`
    prose = renamed_text.replace(line, line.rstrip(" |") + " The expecto step can wait. |", 1)
    assert diff(TEXT, prose).still_named == []
    for said in (
        "Run `spell expecto`.",
        "Run spell cast expecto.",
        "Type /expecto.",
        "Cast the expecto spell.",
    ):
        command = renamed_text.replace(line, line.rstrip(" |") + f" {said} |", 1)
        assert diff(TEXT, command).still_named == [("Expecto", [row.id])], said


def test_a_new_instruction_to_the_ai_is_said_even_when_the_actions_change_too() -> None:
    found = diff(
        TEXT, TEXT.replace("(2) Load task.md content into memory", "(2) Delete the repository")
    )
    assert [c.now.rule for c in found.changes] == ["G4"]
    assert [c.now.rule for c in found.told] == ["G4"]


def test_a_term_redefined_is_said_in_facts_that_mean_the_same_in_both() -> None:
    new = TEXT.replace(
        "| No PR review in progress | comments.md missing AND review-task.md missing |",
        "| No PR review in progress | comments.md missing |",
    )
    found = diff(TEXT, new)
    assert found.changes and not [c for c in found.changes if "No PR review" in c.when]


def test_findings_naming_a_renamed_state_are_the_same_findings() -> None:
    """F1 is shadowed in GATHER_NEEDS_PLAN and GATHER_EDITING; renamed, it still is."""
    new = renamed(TEXT, "GATHER_EDITING", "GATHER_PLAN_EDITING", migration=True)
    found = diff(TEXT, new)
    assert any("GATHER_PLAN_EDITING" in f.message for f in analyse(found.new))
    assert found.findings_new == found.findings_gone == []


def test_the_markdown_report_carries_no_raw_html_from_the_spec() -> None:
    """A condition the spec writes reaches the report (its worlds, its finding): an HTML
    comment in it would hide the rest of the report on the pull request."""
    text = spec_text(["A", "B"], ["Go"], [row("G1", "A", "Go", "-", "B"), row("G2", "B", "Go")])
    hidden = text.replace("| G1 | A | Go | - |", "| G1 | A | Go | <!-- hidden --> holds |")
    assert hidden != text
    report = to_markdown(diff(text, hidden))
    outside_code = re.sub(r"`[^`\n]*`", "", report)  # a code span shows `<!--` as it is
    assert "&lt;&#33;-- hidden" in report and "<!--" not in outside_code


def test_the_markdown_report_pings_nobody_and_links_nothing() -> None:
    """Names a spec gives (a rule ID here) reach a pull request's comment: no mention, team,
    issue reference or unmatched backtick survives as markdown."""
    hostile = "D3 @octocat @some-org/security other/repo#1 `x"
    old = parse_spec_text(spec_text(["A", "B"], ["Go"], [row(hostile, "A, B", "Go")]))
    new = parse_spec_text(spec_text(["A", "B"], ["Go"], [row("D4", "A, B", "Go", nxt="A")]))
    report = to_markdown(compare(old, new))
    assert "octocat" in report  # the row is reported ...
    assert "@octocat" not in report and "@some-org" not in report and "repo#1" not in report
    assert "&#64;octocat" in report and "repo&#35;1" in report  # ... and shown, not linked
    assert all(line.count("`") % 2 == 0 for line in report.splitlines())


def test_a_rule_that_leads_back_to_its_own_state_is_a_noop_as_the_runtime_says() -> None:
    # G1 names A as its Next State (a transition in the table, the state kept): the
    # runtime reports such a cast as "noop", and so does the diff.
    rows = [row("G1", "A", "Go", "`x.md` exists", "A"), row("G2", "A", "Go", "`x.md` missing")]
    old = spec_text(["A", "B"], ["Go"], [*rows, row("G3", "B", "Go")])
    new = old.replace("| G1 | A | Go | `x.md` exists | A |", "| G1 | A | Go | `x.md` exists | B |")
    assert new != old
    (change,) = diff(old, new).changes
    assert change.was.json() == {"rule": "G1", "outcome": "noop", "state": None, "actions": []}
    assert change.now.json()["outcome"] == "transition" and change.now.state == "B"
    assert change.said().endswith("was no change (G1), now B (G1)")
    # Written as a move to itself or as `Same state`, it is the same behaviour.
    same = old.replace(
        "| G1 | A | Go | `x.md` exists | A |", "| G1 | A | Go | `x.md` exists | Same state |"
    )
    assert same != old and not diff(old, same).changes


def test_a_row_read_as_something_else_is_named_with_both_readings() -> None:
    """A term redefined: the rows that use it keep their words and their ID, and are read
    as other facts; the diff names each, with what it was and is read as."""
    new = TEXT.replace(
        "| No PR review in progress | comments.md missing AND review-task.md missing |",
        "| No PR review in progress | comments.md missing |",
    )
    found = diff(TEXT, new)
    assert [rid for rid, _, _ in found.readings_changed] == ["G5", "A5a", "A5b"]
    _, was, now = found.readings_changed[0]
    assert "when: comments.md missing AND review-task.md missing; then:" in was
    assert "when: comments.md missing; then:" in now
    text = format_text(found)
    assert "Rows read differently (3):" in text
    unwrapped = re.sub(r"\n {6,}", " ", text)  # a long line's later lines, joined again
    assert f"  G5 was read: {was}\n  G5 now reads: {now}\n" in unwrapped
    assert "## Rows read differently (3)" in to_markdown(found)
    (first, *_) = to_json(found)["read_differently"]
    assert first == {"rule": "G5", "was": was, "now": now}


def test_rows_reworded_reordered_or_renamed_are_not_read_differently() -> None:
    first = row("R1", "A", "Go", "x.md exists", "B")
    old = row("R2", "A", "Go", "x.md missing AND y.md missing")
    new = row("R2", "A", "Go", "there is no y.md AND x.md is missing")
    found = diff(small(first, old), small(first, new))
    assert found.readings_changed == []
    assert "read differently" not in format_text(found)
    moved = diff(TEXT, renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", migration=True))
    assert moved.readings_changed == []
    changed = diff(small(first, old), small(first, row("R2", "A", "Go", "x.md missing")))
    assert [rid for rid, _, _ in changed.readings_changed] == ["R2"]


def test_a_state_said_alone_has_its_own_destination_and_a_whole_family_its_family() -> None:
    from tests.compiler.test_families_declared import FAMILIES, HEAD, TABLE

    old = HEAD + FAMILIES + TABLE
    resolves = "| T1 | ON_CALL_[P/S] | Resolve |"
    waits = "| T5 | {} | Resolve | - | Same state | No state change | Not yet |\n| T2 |"
    one = old.replace(resolves, "| T1 | ON_CALL_P | Resolve |")
    one = one.replace("| T2 |", waits.format("ON_CALL_S"))
    assert said(diff(old, one)) == ["Resolve in ON_CALL_S: was RESOLVED_S (T1), now no change (T5)"]
    row_t1 = next(line for line in old.splitlines() if line.startswith(resolves))
    everyone = old.replace(row_t1 + "\n", "").replace("| T2 |", waits.format("ON_CALL_[P/S]"))
    assert said(diff(old, everyone)) == [
        "Resolve in ON_CALL_[P/S]: was RESOLVED_[P/S] (T1), now no change (T5)"
    ]


def test_the_text_report_s_lines_are_of_a_readable_width() -> None:
    recorded = (FIXTURES / "spec_changes_STATE_MACHINE.md").read_text(encoding="utf-8")
    project = parse_spec_text(recorded, "spec/STATE_MACHINE.md", options=READ_OPTIONS)
    old, borrowed, _ = load_old(str(FIXTURES / "seed_spec.md"), project, READ_OPTIONS)
    first, *lines = format_text(compare(old, project, borrowed)).splitlines()
    assert first.startswith("spec/STATE_MACHINE.md against ")  # the verdict, whole
    assert len(lines) > 100
    # Over 100 only where one word is: a path or a name longer than a line stays whole.
    assert all(len(ln) <= 100 or len(ln.split()) == 1 for ln in lines), [
        ln for ln in lines if len(ln) > 100
    ]
    # A long item goes on under itself, four spaces in.
    assert any(ln.startswith("      ") and not ln.startswith("       ") for ln in lines)


LIGHT = """# PR lifecycle

| From | Event | To |
|---|---|---|
| (start) | open | ci-running |
| ci-running | ci_pass | merge-queued |
| ci-running | ci_fail | ci-failed |
| ci-failed | push | ci-running |
| merge-queued | merge | merged |
| merged | (none) | (none) |
"""


def test_a_rename_in_a_spec_with_no_states_list_says_the_list_to_write() -> None:
    found = diff(LIGHT, LIGHT.replace("ci-failed", "checks-failed"))
    (why,) = found.breaking
    assert why.startswith("state ci_failed is renamed checks_failed with no migration: a state")
    assert (
        "this spec has no States list: add a `## States` list of its 4 states as the tables "
        "write them, with `- *Formerly*: ci_failed` under checks-failed: `1. **ci-running**`, "
        "`2. **merge-queued**`, `3. **checks-failed**` with `- *Formerly*: ci_failed` under "
        "it, `4. **merged**`"
    ) in why
    # What it says to write is what takes the rename across.
    written = LIGHT.replace("ci-failed", "checks-failed") + (
        "\n## States\n\n1. **ci-running**\n2. **merge-queued**\n3. **checks-failed**\n"
        "   - *Formerly*: ci_failed\n4. **merged**\n"
    )
    assert diff(LIGHT, written).breaking == []


def test_a_machine_of_own_code_keeps_its_states_in_its_own_storage() -> None:
    own = ReadOptions(own_code=True)
    new = LIGHT.replace("ci-failed", "checks-failed")
    found = compare(
        parse_spec_text(LIGHT, "old.md", options=own), parse_spec_text(new, "new.md", options=own)
    )
    (why,) = found.breaking
    assert "a state saved as ci_failed in the project's own storage stops working" in why
    assert "state file" not in why


# A machine of the project's own code, its table numbered by position (no ID column).
PULLS = """# Pull requests

| From | Event | Guard | To | Effects |
|---|---|---|---|---|
| (start) | Opened | - | draft | - |
| draft | Ready | - | review | request reviewers |
| review | Approved | - | approved | - |
| review | Changes requested | - | draft | notify author |
| approved | CI finished | checks green | mergeable | - |
| approved | CI finished | NOT checks green | review | notify author |
| mergeable | Merge | - | merged | merge branch |
| merged | - | - | (none) | - |

Transitions not listed are rejected.
"""
INSERTED = PULLS.replace(
    "| review | Changes requested | - | draft | notify author |\n",
    "| review | Changes requested | - | draft | notify author |\n"
    "| draft | Abandon | - | closed | - |\n| review | Abandon | - | closed | - |\n",
).replace(
    "| merged | - | - | (none) | - |\n",
    "| merged | - | - | (none) | - |\n| closed | - | - | (none) | - |\n",
)


def own_diff(old: str, new: str) -> SpecDiff:
    from codegen.read.lexicon import ReadOptions

    own = ReadOptions(own_code=True)
    return compare(
        parse_spec_text(old, "old.md", options=own), parse_spec_text(new, "new.md", options=own)
    )


def test_rows_numbered_by_position_are_matched_by_what_they_say() -> None:
    """Two rows inserted mid-table are two rows added; the rows below only moved, and say
    so, never "changed" or read as the unrelated rows that took their numbers."""
    found = own_diff(PULLS, INSERTED)
    assert found.rules_added == ["R4", "R5", "R10"]
    assert found.rules_removed == []
    assert found.rules_renumbered == [("R4", "R6"), ("R5", "R7"), ("R6", "R8"), ("R7", "R9")]
    assert found.rules_changed == [("R9", ("spells",))]  # the terminal row refuses Abandon too
    assert [rid for rid, _, _ in found.readings_changed] == ["R9"]
    text = format_text(found)
    assert "R4 is now R6, R5 is now R7, R6 is now R8, R7 is now R9" in text
    assert 'model.fired == "R4"' in text
    assert to_json(found)["rules"]["renumbered"][0] == {"old": "R4", "new": "R6"}
    # A row that changed and moved is that row, changed.
    moved = own_diff(
        PULLS, INSERTED.replace("| checks green | mergeable", "| ci green | mergeable")
    )
    assert ("R6", ("condition",)) in moved.rules_changed
    assert ("R4", "R6") in moved.rules_renumbered


def test_rows_with_written_ids_keep_being_matched_by_their_id() -> None:
    first = row("R1", "A", "Go", "x.md exists", "B")
    second = row("R2", "A", "Go", "x.md missing", "C")
    found = diff(small(first, second), small(second.replace("R2", "R1"), first.replace("R1", "R2")))
    assert found.rules_renumbered == []
    assert [i for i, _ in found.rules_changed] == ["R1", "R2"]


def test_a_trigger_renamed_or_removed_in_a_machine_of_own_code_is_breaking(
    tmp_path: Path,
) -> None:
    renamed_event = PULLS.replace("CI finished", "checks completed")
    found = own_diff(PULLS, renamed_event)
    assert found.spells_renamed == [("ci_finished", "checks_completed")]
    (why,) = found.breaking
    assert "trigger ci_finished is renamed checks_completed" in why
    assert "ci_finished() or may_ci_finished()" in why
    assert verdict(found).startswith(
        "BREAKING: 1 change can break the code that calls the machine; "
        "otherwise the machine behaves as before"
    )
    removed = own_diff(
        PULLS, PULLS.replace("| mergeable | Merge | - | merged | merge branch |\n", "")
    )
    assert any(w.startswith("trigger merge is removed") for w in removed.breaking_code)
    # The exit status says so.
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "0"\n[tool.spellbook]\nown_code = true\n'
        '[tool.spellbook.machines]\npulls = { spec = "new.md" }\n',
        encoding="utf-8",
    )
    (tmp_path / "old.md").write_text(PULLS, encoding="utf-8")
    (tmp_path / "new.md").write_text(renamed_event, encoding="utf-8")
    result = verify("--spec", "new.md", "--against", "old.md", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "breaking: trigger ci_finished is renamed checks_completed" in result.stdout


def test_a_trigger_rename_declared_with_formerly_is_not_breaking(tmp_path: Path) -> None:
    """A rename made on purpose (its callers updated in the same change) is declared with
    `*Formerly*` under the new event, as a state's is: then it breaks nothing; undeclared,
    the message says how to declare it, in a light table with no Events list the list to
    write."""
    renamed_event = PULLS.replace("CI finished", "checks completed")
    (why,) = own_diff(PULLS, renamed_event).breaking
    assert "a rename made on purpose, its callers updated in the same change, is declared" in why
    assert "add a section `Events` listing its 5 events by their names in code" in why
    assert "`4. **checks_completed**` with `- *Formerly*: ci_finished` under it" in why
    events = "\n## Events\n\n" + "".join(
        f"{i}. **{name}**\n"
        + ("   - *Formerly*: CI finished\n" if name == "checks_completed" else "")
        for i, name in enumerate(
            ["Ready", "Approved", "changes_requested", "checks_completed", "Merge"], 1
        )
    )
    declared = own_diff(PULLS, renamed_event + events)
    assert declared.breaking == []
    assert declared.spells_declared == [("ci_finished", "checks_completed")]
    text = " ".join(format_text(declared).split())
    assert "renamed ci_finished → checks_completed (declared: *Formerly*)" in text
    assert "ci_finished() and may_ci_finished() are now checks_completed()" in text
    assert to_json(declared)["spells"]["renamed"] == [
        {
            "old": "ci_finished",
            "new": "checks_completed",
            "behaviour_changed": False,
            "declared": True,
        }
    ]
    # A list already there takes the line under the new event; a rename that also changes
    # what the event does is declared the same way, its changes still listed.
    listed = PULLS + events.replace("checks_completed", "ci_finished").replace(
        "   - *Formerly*: CI finished\n", ""
    )
    (why,) = own_diff(listed, renamed_event + events.replace("CI finished", "nothing")).breaking
    assert "add `- *Formerly*: ci_finished` under checks_completed in the Events list" in why
    changed = (renamed_event + events).replace(
        "| checks green | mergeable", "| checks green | merged"
    )
    found = own_diff(listed, changed)
    assert found.breaking == []
    assert found.spells_renamed_changed == [("ci_finished", "checks_completed")]
    assert found.changes
    # The exit status says so.
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "0"\n[tool.spellbook]\nown_code = true\n'
        '[tool.spellbook.machines]\npulls = { spec = "new.md" }\n',
        encoding="utf-8",
    )
    (tmp_path / "old.md").write_text(PULLS, encoding="utf-8")
    (tmp_path / "new.md").write_text(renamed_event + events, encoding="utf-8")
    result = verify("--spec", "new.md", "--against", "old.md", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_diff_of_a_machine_of_own_code_says_only_what_applies_to_it() -> None:
    """No "what the developer and the AI are told" (it has no responses), no spec-wide
    note counted anew, and a headline that says what changed where no cell both have did."""
    found = own_diff(PULLS, INSERTED.replace("CI finished", "checks completed"))
    assert found.told == []
    kinds = {f.kind for f in found.findings_new + found.findings_gone}
    assert kinds == {"consolidation"}  # the rows inserted could be one: news
    head = verdict(found)
    assert "behaviour changed (1 state added, 1 event added: see below)" in head, head
    text = format_text(found)
    assert "What the developer and the AI are told" not in text
    assert "names_from_tables" not in text
    assert "unlisted_rejected" not in text
    # A spec-wide note that appears is still news.
    gone = own_diff(PULLS, PULLS.replace("Transitions not listed are rejected.\n", ""))
    assert "unlisted_rejected" in [f.kind for f in gone.findings_gone]


def test_the_methods_a_machine_of_own_code_now_needs_are_said() -> None:
    changed = PULLS.replace("checks green", "checks passed").replace(
        "| merge branch |", "| merge branch; tag release |"
    )
    found = own_diff(PULLS, changed)
    assert found.methods == (
        ["checks_passed (guard)", "tag_release (callback)"],
        ["checks_green (guard)"],
    )
    text = format_text(found)
    assert "Model methods (the project's own code): the model must now have checks_passed" in (
        " ".join(text.split())
    ), text
    assert to_json(found)["methods"] == {
        "added": ["checks_passed (guard)", "tag_release (callback)"],
        "removed": ["checks_green (guard)"],
        "reworded": [],
    }
    assert diff(TEXT, TEXT).methods == ([], [])  # a machine of the core's has none


def test_a_method_of_own_code_whose_words_change_by_what_its_name_drops_is_said() -> None:
    # `checks green` → `checks green ++` kept the method checks_green: "no behaviour
    # change", and nothing said the project's method now had other words to answer.
    changed = PULLS.replace("checks green", "checks green ++").replace(
        "| notify author |", "| notify author # |"
    )
    found = own_diff(PULLS, changed)
    assert found.methods == ([], [])
    assert found.methods_reworded == [
        ("checks_green", "checks green", "checks green ++"),
        ("notify_author", "notify author", "notify author #"),
    ]
    assert "no behaviour change; 2 methods of the project's code must answer other words" in (
        verdict(found)
    )
    assert "checks_green keeps its name, but its words changed" in " ".join(
        format_text(found).split()
    )


def test_a_spell_renamed_in_a_spell_machine_is_said_and_breaks_nothing() -> None:
    found = diff(TEXT, re.sub(r"\bExpecto\b", "Enrich", TEXT))
    assert found.breaking == []
    assert "Spells: renamed Expecto → Enrich" in format_text(found)


def test_the_headline_of_a_breaking_change_with_no_behaviour_change_agrees_with_itself() -> None:
    found = diff(TEXT, renamed(TEXT, "ERROR_PLAN_MISSING", "ERROR_NO_PLAN", migration=False))
    assert verdict(found) == (
        "BREAKING: 1 change can break existing workspaces; otherwise the machine behaves as before"
    )


def _checked(spell: str, done_to: str, states: list[str]) -> str:
    """A spec whose spell `spell` moves B to `done_to` once done.md is there."""
    rows = [
        row("G1", "A", "Go", "-", "B", "Update state to B"),
        row("K1", "B", spell, "`done.md` exists", done_to, f"Update state to {done_to}"),
        row("K2", "B", spell, "`done.md` missing", response="Not done yet"),
    ]
    return spec_text(
        states, ["Go", spell], rows + fill(states, ["Go", spell], ["A/Go", f"B/{spell}"])
    )


def test_a_spell_renamed_in_the_edit_that_changes_what_it_does_has_its_changes_listed() -> None:
    old = _checked("Check", "C", ["A", "B", "C"])
    new = _checked("Verify", "D", ["A", "B", "C", "D"])
    found = diff(old, new)
    assert found.spells_renamed == found.spells_renamed_changed == [("Check", "Verify")]
    assert (found.spells_added, found.spells_removed) == ([], [])
    assert said(found) == ["Verify in B when done.md exists: was C (K1), now D (K1)"]
    report = to_json(found)
    assert report["behaviour_changed"] and report["changes"] == [c.json() for c in found.changes]
    assert report["spells"]["renamed"] == [
        {"old": "Check", "new": "Verify", "behaviour_changed": True, "declared": False}
    ]
    text = format_text(found)
    assert "Behaviour (1):" in text
    assert "Spells: renamed Check → Verify (and what it does changed: see Behaviour)" in text
    # A row that differs only in the renamed spell is said as such, and not read differently.
    changed = dict(found.rules_changed)
    assert changed["K2"] == ("spell renamed",)
    assert changed["K1"] == ("spell renamed", "next state")
    assert [rid for rid, _, _ in found.readings_changed] == ["K1"]
    # Renamed alone: no behaviour change, and the rows say only that.
    alone = diff(old, _checked("Verify", "C", ["A", "B", "C"]))
    assert alone.spells_renamed == [("Check", "Verify")] and alone.spells_renamed_changed == []
    assert not alone.behaviour_changed and alone.readings_changed == []
    assert dict(alone.rules_changed)["K1"] == ("spell renamed",)
