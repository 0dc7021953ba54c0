"""The core's facts of time, JSON values, counts, text, age and globs with no Python:
`in this state for more than 2 days`, ``F.json has `score` ≥ 3``, `F has at least 3
checklist items under "S"`, `F has text under "S"`, `F is newer than G`, `notes/*.md
exists`. Each is proven by the verifier (a spec that needs its implications reads
clean; the gap a missing row leaves is found, in the fact's words) and driven through
`spell --machine` over real files."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.support.commands import clean

DESK = """\
# Desk

## Machine

### Spells

1. **Start**
   - *Description*: make plan.md from its template
2. **Age**
   - *Description*: how long the desk has been open
3. **Score**
   - *Description*: what score review.json gives
4. **Approve**
   - *Description*: whether review.json approves
5. **Release**
   - *Description*: which version review.json names
6. **Risks**
   - *Description*: how many risks plan.md lists
7. **Open**
   - *Description*: how many risks are still open
8. **Summary**
   - *Description*: whether plan.md has a summary
9. **Fresh**
   - *Description*: whether report.md is newer than data.json
10. **Notes**
    - *Description*: whether there are notes

### States

1. **OPEN**
    - *Description*: the desk is open
    - *Valid Actions*: Start, Age, Score, Approve, Release, Risks, Open, Summary, Fresh, Notes
    - *Goal*: yes

### State Persistence

The state is kept in `.desk/state.json`:

```json
{ "current_state": "OPEN" }
```

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| S1 | OPEN | Start | - | Same state | Create plan.md | Plan made. |
| A1 | OPEN | Age | in this state for more than 2 days | Same state | No state change | Old desk. |
| A2 | OPEN | Age | in this state for more than 1 hour AND in this state for 2 days or less | Same state | No state change | Settled desk. |
| A3 | OPEN | Age | in this state for 60 minutes or less | Same state | No state change | New desk. |
| V1 | OPEN | Score | review.json has `score` ≥ 3 | Same state | No state change | High score. |
| V2 | OPEN | Score | review.json has `score` > 0 AND review.json has no `score` ≥ 3 | Same state | No state change | Some score. |
| V3 | OPEN | Score | review.json has no `score` > 0 | Same state | No state change | No score. |
| P1 | OPEN | Approve | review.json has `approved` = true | Same state | No state change | Approved. |
| P2 | OPEN | Approve | review.json has no `approved` = true AND review.json exists | Same state | No state change | Not approved. |
| P3 | OPEN | Approve | review.json is missing | Same state | No state change | No review. |
| R1 | OPEN | Release | review.json has `version` matching `^1\\.` | Same state | No state change | Version one. |
| R2 | OPEN | Release | review.json has no `version` matching `^1\\.` | Same state | No state change | Another version. |
| C1 | OPEN | Risks | plan.md has at least 3 checklist items under "Risks" | Same state | No state change | Many risks. |
| C2 | OPEN | Risks | plan.md has checklist items under "Risks" AND plan.md has fewer than 3 checklist items under "Risks" | Same state | No state change | Few risks. |
| C3 | OPEN | Risks | plan.md has no section "Risks" with checklist items | Same state | No state change | No risks. |
| U1 | OPEN | Open | plan.md has more than 1 unchecked items under "Risks" | Same state | No state change | Risks open. |
| U2 | OPEN | Open | plan.md has at least 2 checklist items under "Risks" AND plan.md has at most 1 unchecked item under "Risks" | Same state | No state change | Risks mostly done. |
| U3 | OPEN | Open | plan.md has no section "Risks" with at least 2 checklist items | Same state | No state change | Too few risks. |
| T1 | OPEN | Summary | plan.md has checklist items under "Summary" | Same state | No state change | A checklist for a summary. |
| T2 | OPEN | Summary | plan.md has text under "Summary" AND plan.md has no checklist items under "Summary" | Same state | No state change | Summary written. |
| T3 | OPEN | Summary | plan.md has no section "Summary" with text | Same state | No state change | No summary. |
| F1 | OPEN | Fresh | report.md is newer than data.json | Same state | No state change | Report is fresh. |
| F2 | OPEN | Fresh | report.md is older than data.json | Same state | No state change | Report is stale. |
| F3 | OPEN | Fresh | report.md is not newer than data.json AND data.json is not newer than report.md | Same state | No state change | Cannot tell. |
| D1 | OPEN | Notes | notes/todo.md exists | Same state | No state change | A todo. |
| D2 | OPEN | Notes | some file matches notes/*.md AND notes/todo.md is missing | Same state | No state change | Some notes. |
| D3 | OPEN | Notes | no notes/*.md | Same state | No state change | No notes. |
"""

PLAN = """\
# Plan

## Summary

Write the summary here.

## Risks

- [ ] Example risk
"""

PYPROJECT = """\
[project]
name = "desk"
version = "0"

[tool.spellbook.machines]
desk = { spec = "spec/DESK.md", vocabulary = "" }
"""


def project(root: Path, spec: str = DESK) -> Path:
    (root / "spec" / "templates").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "DESK.md").write_text(spec, encoding="utf-8")
    (root / "spec" / "templates" / "plan.md").write_text(PLAN, encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return root


def verify(root: Path) -> str:
    done = compiler(root, "verify", "--spec", "spec/DESK.md")
    return done.stdout + clean(done)


def test_the_desk_reads_clean_only_with_each_fact_s_implications(tmp_path: Path) -> None:
    """Without them, worlds that cannot be would be overlaps: more than 2 days but not
    more than an hour (A1, A3); a score ≥ 3 but not > 0 (V1, V3); 3 items but none (C1,
    C3); an item but no text (T1, T3); each file newer than the other (F1, F2);
    notes/todo.md but no notes/*.md (D1, D3); an approval without the file (P1, P3)."""
    said = verify(project(tmp_path / "desk"))
    assert "0 errors, 0 warnings" in said, said


def test_without_the_implications_each_rule_pair_would_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the clean reading above rests on: with no implication or exclusion between
    facts, each cell has an overlap in a world that cannot be."""
    import codegen.logic
    from codegen import load_spec
    from codegen.analyse import analyse

    monkeypatch.setattr(codegen.logic, "implies", lambda a, b: False)
    monkeypatch.setattr(codegen.logic, "excludes", lambda a, b: False)
    monkeypatch.setattr(codegen.logic, "core_implied", lambda probe, file, param: [])
    spec = load_spec(project(tmp_path / "desk") / "spec" / "DESK.md")
    overlaps = {f.rule for f in analyse(spec) if f.kind == "overlap"}
    assert overlaps == {"A3", "V3", "P3", "C3", "U3", "T3", "F2", "D3"}


GAPS = {
    "A2": "in this state for more than 1 hour, in this state for 2 days or less",
    "V2": "review.json has `score` > 0, review.json has no `score` ≥ 3",
    # The negation alone of a fact about a section, in its words (the section is said).
    "C2": 'plan.md has checklist items under "Risks", plan.md has no section "Risks" with at least 3 checklist items',
    "U2": 'plan.md has at least 2 checklist items under "Risks", plan.md has no section "Risks" with at least 2 unchecked items',
    "T2": 'plan.md has no section "Summary" with checklist items, plan.md has text under "Summary"',
    "F3": "report.md is not newer than data.json, data.json is not newer than report.md",
    "D2": "notes/todo.md missing, some file matches `notes/*.md`",
}


@pytest.mark.parametrize("row", list(GAPS))
def test_the_gap_a_missing_row_leaves_is_found_in_the_fact_s_words(
    tmp_path: Path, row: str
) -> None:
    spec = "".join(line for line in DESK.splitlines(True) if not line.startswith(f"| {row} |"))
    said = verify(project(tmp_path / "desk", spec))
    assert said.count("[gap]") == 1, said
    (gap,) = [line for line in said.splitlines() if "[gap]" in line]
    for fact in GAPS[row].split(", "):
        assert fact in gap, gap


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = project(tmp_path_factory.mktemp("generated") / "desk")
    generate(root)
    return root


@pytest.fixture
def desk(generated: Path, tmp_path: Path) -> Path:
    """A copy of the generated project, its workspace folder made by a first cast."""
    root = tmp_path / "desk"
    shutil.copytree(generated, root)
    cast(root, "age", "New desk")
    return root


def cast(root: Path, spell_name: str, expected: str) -> None:
    done = spell(root, "--machine", "desk", spell_name)
    assert done.returncode == EXIT_OK, done.stdout + clean(done)
    assert expected in done.stdout, done.stdout


def write(root: Path, name: str, text: str) -> Path:
    path = root / ".desk" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_time_in_a_state_in_hours_and_days(desk: Path) -> None:
    state = desk / ".desk" / "state.json"
    fields = json.loads(state.read_text())
    for entered, expected in (
        ("2020-01-01T00:00:00Z", "Old desk"),
        (_ago(3 * 3600), "Settled desk"),
        (_ago(47 * 3600), "Settled desk"),
        (_ago(49 * 3600), "Old desk"),
        (_ago(30 * 60), "New desk"),
    ):
        state.write_text(json.dumps({**fields, "entered_at": entered}))
        cast(desk, "age", expected)


def _ago(seconds: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds))


@pytest.mark.parametrize(
    ("review", "score", "approve", "release"),
    [
        (None, "No score", "No review", "Another version"),
        ({"score": 5, "approved": True, "version": "1.2.0"}, "High", "Approved", "Version one"),
        (
            {"score": 3.0, "approved": 1, "version": 1.2},
            "High",
            "Not approved",
            "Version one",
        ),  # 1.2 matches `^1\.` as written
        ({"score": [0, 2], "approved": [False, True]}, "Some score", "Approved", "Another"),
        (
            {"score": "five", "approved": "true", "version": "v1.0"},
            "No score",
            "Not approved",
            "Another",
        ),
        (
            {"score": True, "approved": None, "version": ["2.0", "1.0"]},
            "No score",
            "Not approved",
            "Version one",
        ),
        ({"score": 10**300, "approved": False}, "High score", "Not approved", "Another"),
        ({"score": -1e300, "items": [[1, 2]]}, "No score", "Not approved", "Another"),
    ],
)
def test_json_values_compared_as_json(
    desk: Path, review: object, score: str, approve: str, release: str
) -> None:
    if review is not None:
        write(desk, "review.json", json.dumps(review))
    cast(desk, "score", score)
    cast(desk, "approve", approve)
    cast(desk, "release", release)


@pytest.mark.parametrize(
    ("review", "spell_name", "query"),
    [
        ({"score": {"a": 5}}, "score", "score"),
        ({"score": [{"a": 5}, {"a": 1}]}, "score", "score"),
        ({"approved": {"x": True}}, "approve", "approved"),
        ({"score": [[1, 2]]}, "score", "score"),
    ],
)
def test_objects_compared_with_a_number_or_true_stop_the_cast_saying_so(
    desk: Path, review: object, spell_name: str, query: str
) -> None:
    """Objects (or lists in a list) never compare with a number or `true`: the cast
    stops with an error naming the file and the query and the count that was likely
    meant, never reads the rule as not holding."""
    write(desk, "review.json", json.dumps(review))
    done = spell(desk, "--machine", "desk", spell_name)
    said = done.stdout + done.stderr
    assert done.returncode != EXIT_OK, said
    assert f"review.json: `{query}` holds" in said
    assert f"count of {query} in review.json" in said
    assert "Traceback" not in done.stderr
    status = spell(desk, "--machine", "desk", "status")  # what each spell would do
    assert "Traceback" not in status.stderr
    assert f"`{query}` holds" in status.stdout + status.stderr


def test_a_review_that_is_not_json_is_an_error_naming_it(desk: Path) -> None:
    write(desk, "review.json", '{"score": NaN}')
    done = spell(desk, "--machine", "desk", "score")
    assert done.returncode != EXIT_OK
    assert "review.json" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_counts_and_text_under_a_heading_leave_the_template_s_own_out(desk: Path) -> None:
    cast(desk, "start", "Plan made")
    cast(desk, "risks", "No risks")  # the template's example risk is not one
    cast(desk, "summary", "No summary")  # nor is its placeholder text
    cast(desk, "open", "Too few risks")
    plan = desk / ".desk" / "plan.md"
    plan.write_text(PLAN.replace("- [ ] Example risk", "- [ ] Fire\n- [x] Flood\n- [ ]"))
    cast(desk, "risks", "Few risks")
    cast(desk, "open", "Risks mostly done")
    plan.write_text(plan.read_text() + "- [ ] Drought\n")
    cast(desk, "risks", "Many risks")
    cast(desk, "open", "Risks open")
    text = plan.read_text().replace("Write the summary here.", "Ship on Monday.")
    plan.write_text(text)
    cast(desk, "summary", "Summary written")
    plan.write_text(text.replace("Ship on Monday.", "- [ ] Decide the date"))
    cast(desk, "summary", "A checklist for a summary")
    plan.write_text(text.replace("Ship on Monday.", "### Notes\n\n```\n```\n- [ ]"))
    cast(desk, "summary", "No summary")
    # `no section "S" with ...`: a plan without the section, or none at all, has none.
    plan.write_text("# Plan\n\n## Risk\n\n- [ ] Fire\n- [ ] Flood\n")
    cast(desk, "risks", "No risks")
    cast(desk, "open", "Too few risks")
    plan.unlink()
    cast(desk, "summary", "No summary")


def test_newer_compares_modification_times(desk: Path) -> None:
    cast(desk, "fresh", "Cannot tell")
    data = write(desk, "data.json", "{}")
    cast(desk, "fresh", "Cannot tell")  # no report yet
    report = write(desk, "report.md", "# Report\n")
    os.utime(data, (1_000_000, 1_000_000))
    os.utime(report, (2_000_000, 2_000_000))
    cast(desk, "fresh", "Report is fresh")
    os.utime(data, (3_000_000, 3_000_000))
    cast(desk, "fresh", "Report is stale")
    os.utime(report, (3_000_000, 3_000_000))
    cast(desk, "fresh", "Cannot tell")  # the same time: neither is newer


def test_newer_refuses_a_link_as_reading_does(desk: Path) -> None:
    write(desk, "data.json", "{}")
    (desk / ".desk" / "report.md").symlink_to(desk / ".desk" / "data.json")
    done = spell(desk, "--machine", "desk", "fresh")
    assert done.returncode != EXIT_OK
    assert "symbolic link" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_glob_finds_names_but_not_hidden_ones_nor_through_links(
    desk: Path, tmp_path: Path
) -> None:
    cast(desk, "notes", "No notes")
    write(desk, "notes/.draft.md", "x")
    write(desk, "notes/readme.txt", "x")
    cast(desk, "notes", "No notes")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_text("x")
    (desk / ".desk" / "notes" / "linked").symlink_to(outside)
    cast(desk, "notes", "No notes")
    write(desk, "notes/idea.md", "x")
    cast(desk, "notes", "Some notes")
    write(desk, "notes/todo.md", "x")
    cast(desk, "notes", "A todo")
    status = spell(desk, "--machine", "desk", "status")
    assert status.returncode == EXIT_OK, clean(status)
    assert "Notes: no state change: a todo" in status.stdout, status.stdout


def test_a_glob_over_too_many_names_stops_with_an_error(desk: Path) -> None:
    folder = desk / ".desk" / "notes"
    folder.mkdir()
    for n in range(10_001):
        (folder / f"{n}.txt").touch()
    done = spell(desk, "--machine", "desk", "notes")
    assert done.returncode != EXIT_OK
    assert "looks at more than 10,000 names" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


TALLY = """\
# Tally

## Machine

### Spells

1. **Bump**
   - *Description*: count one more
2. **Ask**
   - *Description*: how many so far

### States

1. **OPEN**
    - *Description*: counting
    - *Valid Actions*: Bump, Ask
    - *Goal*: yes

### State Persistence

The state is kept in `.desk/state.json`:

```json
{ "current_state": "OPEN" }
```

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| B1 | OPEN | Bump | - | Same state | Increment tries | Bumped. |
| K1 | OPEN | Ask | tries == 0 | Same state | No state change | None yet. |
| K2 | OPEN | Ask | tries > 0 AND tries <= 2 | Same state | No state change | A few. |
| K3 | OPEN | Ask | tries = 3 | Same state | No state change | Three. |
| K4 | OPEN | Ask | tries != 3 AND tries ≥ 3 | Same state | No state change | Many. |
"""


def test_a_counter_compared_every_way_reads_clean_and_counts_so(tmp_path: Path) -> None:
    """`>`, `<=`, `==`, `=`, `!=` of a counter are the fact `below` and its negation, in
    the verifier (no gap, no overlap: `> 0 AND <= 2` and `!= 3 AND ≥ 3` meet the others
    exactly) and in the runtime alike."""
    root = project(tmp_path / "tally", TALLY)
    said = verify(root)
    assert "0 errors, 0 warnings" in said, said
    assert "unknown_condition" not in said and "unread_counter" not in said, said
    generate(root)
    answers = ["None yet", "A few", "A few", "Three", "Many", "Many"]
    for count, expected in enumerate(answers):
        cast(root, "ask", expected)
        if count < len(answers) - 1:
            cast(root, "bump", "Bumped")


def test_a_counter_compared_so_that_it_always_holds_fires_always(tmp_path: Path) -> None:
    """`tries >= 0` is read as `-` with an `always_holds` warning (not an error), and the
    generated machine fires its row whatever the counter is, as the reading says."""
    rows = (
        "| B1 | OPEN | Bump | tries < 5 | Same state | Increment tries | Bumped. |\n"
        "| B2 | OPEN | Bump | tries ≥ 5 | Same state | No state change | Full. |\n"
        "| K1 | OPEN | Ask | tries >= 0 | Same state | No state change | Always. |\n"
    )
    spec = TALLY[: TALLY.index("| B1 |")] + rows
    root = project(tmp_path / "tally", spec)
    said = verify(root)
    assert "0 errors, 1 warning" in said and "[always_holds]" in said, said
    assert "unknown_condition" not in said and "unlisted_gap" not in said, said
    generate(root)
    for _ in range(3):
        cast(root, "ask", "Always.")
        cast(root, "bump", "Bumped")
