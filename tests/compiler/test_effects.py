"""What the actions do (`codegen.analyse.effects`): the findings on the user's later
revision, the two engines agreeing, and a checked value carried through the states."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import load_spec
from codegen.analyse import analyse
from codegen.pipeline import parse_spec_text

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("action_no_effect", "indicators_broken", "indicators_unchecked", "action_input")
SPECS = [
    ROOT / "spec" / "STATE_MACHINE.md",
    ROOT / "spec" / "SESSION_STATE_MACHINE.md",
    ROOT / "tests" / "data" / "fixtures" / "seed_spec.md",
    ROOT / "tests" / "data" / "fixtures" / "later_revision.md",
    *sorted((ROOT / "tests" / "data" / "cases").glob("*/spec.md")),
]


def effects(spec_path: Path) -> list[tuple[object, ...]]:
    try:
        spec = load_spec(spec_path)
    except Exception:  # a case of a spec that cannot be read
        return []
    return [(f.kind, f.line, f.message, f.level) for f in analyse(spec) if f.kind in KINDS]


def test_the_later_revision_as_published_names_c1_c2_r2_r3_and_a2() -> None:
    found = {
        (f.kind, f.rule, f.line)
        for f in analyse(load_spec(ROOT / "tests" / "data" / "fixtures" / "later_revision.md"))
        if f.kind in KINDS
    }
    assert ("action_no_effect", "C1", 302) in found  # comments.md is always there
    assert ("action_no_effect", "C2", 303) in found  # comments.md may be there
    assert ("indicators_broken", "R2", 314) in found  # task-results.md left behind
    assert ("action_no_effect", "R3", 315) in found  # the archive is text: task.md kept
    assert ("action_input", "A2", 261) in found  # task_name not guaranteed


def test_the_project_specs_have_none_to_fix() -> None:
    for name in ("STATE_MACHINE.md", "SESSION_STATE_MACHINE.md"):
        found = [f for f in analyse(load_spec(ROOT / "spec" / name)) if f.kind in KINDS]
        assert not found, found


@pytest.mark.parametrize("path", SPECS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_solver_and_the_world_sets_agree(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every region asked of the SAT solver (as a cell of more than 16 facts is) gives
    the findings the world sets give."""
    listed = effects(path)
    monkeypatch.setattr("codegen.analyse.effects.MAX_ATOMS", 0)
    assert effects(path) == listed


CARRIED = """# Carried

### Spells

1. **Go**

### States

1. **IDLE**
    - *Description*: nothing in progress
    - *Indicators*: -
    - *Valid Actions*: Go
    - *Goal*: yes
2. **READY**
    - *Description*: the task is written
    - *Indicators*: `task.md` exists
    - *Valid Actions*: Go
3. **WORKING**
    - *Description*: the task is done
    - *Indicators*: `task.md` exists
    - *Valid Actions*: Go

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| W1 | IDLE | Go | `task.md` frontmatter has `name` | READY | - | Ready. |
| W2 | IDLE | Go | NOT `task.md` frontmatter has `name` | Same state | No state change | Name it. |
| W3 | READY | Go | `task.md` exists | WORKING | TOUCH | Working. |
| W4 | READY | Go | `task.md` missing | IDLE | - | Gone. |
| F1 | WORKING | Go | `task.md` exists | IDLE | FILE | Filed. |
| F2 | WORKING | Go | `task.md` missing | IDLE | - | Gone. |
""".replace(
    "FILE", "(1) Extract name from `task.md` frontmatter; (2) Archive `task.md` to `done/${name}/`"
)


def test_a_value_checked_two_states_back_holds_until_an_action_touches_its_file() -> None:
    kept = parse_spec_text(CARRIED.replace("TOUCH", "-"), "carried.md")
    assert not [f for f in analyse(kept) if f.kind == "action_input"]
    touched = parse_spec_text(
        CARRIED.replace("TOUCH", "Append `- started` to `task.md`"), "carried.md"
    )
    (found,) = [f for f in analyse(touched) if f.kind == "action_input"]
    assert found.rule == "F1"
    assert "nothing makes sure task.md's frontmatter has `name`" in found.message
    # W3 writes task.md itself, so it is no place to check; no rule into WORKING is.
    assert "in this rule's condition" in found.message


COPIED = """# Copied

### Spells

1. **Go**

### States

1. **A**
    - *Description*: a is written
    - *Indicators*: `a.md` exists
    - *Valid Actions*: Go
    - *Goal*: yes
2. **B**
    - *Description*: no b yet
    - *Indicators*: `b.md` missing
    - *Valid Actions*: Go

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| T1 | A | Go | - | B | Copy `a.md` to `b.md` | Copied. |
| T2 | B | Go | - | A | - | Back. |
"""


def test_a_copy_that_leaves_a_file_the_next_state_rules_out_says_which_action() -> None:
    (found,) = [
        f for f in analyse(parse_spec_text(COPIED, "copied.md")) if f.kind == "indicators_broken"
    ]
    assert found.rule == "T1"
    assert "b.md is still there after the rule (action (1) copies it there" in found.message


_BACKED_UP = """# Drafts

Transitions not listed are rejected.

| ID | From | Event | Condition | To | Action |
|---|---|---|---|---|---|
| T1 | drafting | review | draft.md exists | drafting | ACTION |
| T2 | drafting | done | - | done | - |
| T3 | done | - | - | (none) | - |
"""


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("Copy draft.md to `backup/draft.md`", "may already be there"),
        ("(1) Copy draft.md to `b.md`; (2) Copy draft.md to `b.md`", "which is always there"),
        ("(1) Delete existing `backup/draft.md`; (2) Copy draft.md to `backup/draft.md`", ""),
        ("Copy draft.md to `backup/${date}.md`", ""),
    ],
)
def test_a_copy_onto_a_copy_that_may_be_there_is_said_to_keep_the_old_one(
    action: str, said: str
) -> None:
    # Backing up the latest draft kept the first backup, with no word (Create says so).
    spec = parse_spec_text(_BACKED_UP.replace("ACTION", action), "drafts.md")
    found = [f for f in analyse(spec) if f.kind == "action_no_effect"]
    if not said:
        assert found == []
        return
    assert said in found[-1].message and "a copy never overwrites" in found[-1].message
    assert found[-1].world.endswith("exists")


MARKED = """# Marked

### Spells

1. **Pass**
2. **Next**

### States

1. **WORK**
    - *Description*: a feature is being built
    - *Indicators*: `feature-list.json` exists
    - *Valid Actions*: Pass
    - *Goal*: yes
2. **TESTED**
    - *Description*: the feature's tests passed
    - *Indicators*: `feature-list.json` has `features[id=$feature_id].status` = "tested"
    - *Valid Actions*: Next

### State Persistence

```json
{"state": "WORK", "feature_id": "F1", "history": []}
```

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| P1 | WORK | Pass | - | TESTED | MARK | Marked. |
| N1 | TESTED | Next | - | WORK | - | Next. |
"""


def marked(action: str) -> list[str]:
    spec = parse_spec_text(MARKED.replace("MARK", action), "marked.md")
    return [f.message for f in analyse(spec) if f.kind == "indicators_broken"]


def test_a_value_the_next_state_s_indicators_rule_out_is_found_where_an_action_sets_it() -> None:
    query = "`features[id=$feature_id].status` in feature-list.json"
    (found,) = marked(f'Set {query} to "blocked"')
    assert found.startswith("rule P1 leads to TESTED, whose Indicators say feature-list.json has")
    assert 'but action (1) sets it to "blocked" (`features[id=$feature_id].status`' in found
    assert not marked(f'Set {query} to "tested"')
    # The value set, then the file changed again: what it holds is not known, not refused.
    assert not marked(f'(1) Set {query} to "blocked"; (2) Append 1 to `runs` in feature-list.json')
    # The field the filter names set again: another item's value, not known.
    assert not marked(f'(1) Set {query} to "blocked"; (2) Reset feature_id to 3')
    assert marked(f'(1) Set {query} to "tested"; (2) Set {query} to "blocked"')


def test_the_value_a_set_of_a_state_file_field_leaves_is_known_after_the_rule() -> None:
    from codegen.analyse.effects import Effects

    def fields_after(action: str) -> dict[str, object]:
        spec = parse_spec_text(MARKED.replace("MARK", action), "marked.md")
        (rule,) = [r for r in spec.rules if r.id == "P1"]
        effect = Effects(spec).effect(rule, 0)
        assert effect is not None
        return {name: value for name, (value, _) in effect.fields.items()}

    assert fields_after('Set `feature_id` in the state file to "F2"') == {"feature_id": "F2"}
    first = (
        "Set `feature_id` in the state file to the first `features[status=pending].id` of "
        "feature-list.json"
    )
    assert fields_after(f'(1) Set `feature_id` in the state file to "F2"; (2) {first}') == {}
    assert fields_after(f"(1) {first}; (2) Set `feature_id` in the state file to null") == {
        "feature_id": None
    }


LEDGER = """# Ledger

### Spells

1. **Apply**
2. **Next**

### States

1. **PLANNED**
    - *Description*: the plan names its tables
    - *Indicators*: plan.md exists
    - *Valid Actions*: Apply
    - *Goal*: yes
2. **APPLIED**
    - *Description*: the tables were applied
    - *Indicators*: plan.md exists AND INDICATOR
    - *Valid Actions*: Next

Transitions not listed are rejected.

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| A1 | PLANNED | Apply | - | APPLIED | RECORD | Done. |
| N1 | APPLIED | Next | - | PLANNED | - | Back to planning. |
"""
TABLES = 'matches of `^- (\\w+)$` under "Tables"'


def ledger_findings(indicator: str, record: str) -> list[str]:
    text = LEDGER.replace("INDICATOR", indicator).replace("RECORD", record)
    found = analyse(parse_spec_text(text, "ledger.md"))
    return [f"{f.kind}: {f.message}" for f in found if f.kind != "unlisted_rejected"]


@pytest.mark.parametrize(
    ("indicator", "record", "broken"),
    [
        # Recorded under "Tables": every match there is listed after the rule.
        (
            f"plan.md has {TABLES} not listed in `.applied`",
            f"Record {TABLES} of plan.md in `.applied`",
            True,
        ),
        # The whole file recorded: its section's matches too.
        (
            f"plan.md has {TABLES} not listed in `.applied`",
            "Record matches of `^- (\\w+)$` of plan.md in `.applied`",
            True,
        ),
        # Another section recorded, or the file's other lines asked about: not known.
        (
            f"plan.md has {TABLES} not listed in `.applied`",
            'Record matches of `^- (\\w+)$` under "Checklist" of plan.md in `.applied`',
            False,
        ),
        (
            "plan.md has matches of `^- (\\w+)$` not listed in `.applied`",
            f"Record {TABLES} of plan.md in `.applied`",
            False,
        ),
        # What the Indicators say after the Record is what it leaves.
        (
            'every match of `^- (\\w+)$` under "Tables" in plan.md is listed in `.applied`',
            f"Record {TABLES} of plan.md in `.applied`",
            False,
        ),
        # The source changed after the Record: nothing is known of what it lists.
        (
            f"plan.md has {TABLES} not listed in `.applied`",
            f'(1) Record {TABLES} of plan.md in `.applied`; (2) Append "- more" to plan.md',
            False,
        ),
    ],
)
def test_a_record_scoped_to_a_section_lists_only_that_section_s_matches(
    indicator: str, record: str, broken: bool
) -> None:
    found = ledger_findings(indicator, record)
    assert [f for f in found if f.startswith("indicators_broken")] == (
        [
            "indicators_broken: rule A1 leads to APPLIED, whose Indicators say plan.md has "
            f"{TABLES} not listed in `.applied`, but action (1) records them, so every one "
            "is listed after it; lead to a state whose Indicators say they are listed, or "
            'record another section (`under "S"`)'
        ]
        if broken
        else []
    )
    assert len(found) == (1 if broken else 0), found  # the spec's only finding, or none


def test_after_a_record_under_a_section_its_matches_are_known_listed_and_no_others() -> None:
    from codegen.analyse.effects import Effects
    from codegen.model import Atom
    from spellbook.facts.ledgers import ledger_param

    text = LEDGER.replace("INDICATOR", "plan.md exists").replace(
        "RECORD", f"Record {TABLES} of plan.md in `.applied`"
    )
    spec = parse_spec_text(text, "ledger.md")
    (rule,) = [r for r in spec.rules if r.id == "A1"]
    effect = Effects(spec).effect(rule, 0)
    assert effect is not None
    pattern = r"^- (\w+)$"
    tables = Atom("unlisted", "plan.md", ledger_param(".applied", pattern, "Tables"))
    whole = Atom("unlisted", "plan.md", ledger_param(".applied", pattern))
    assert effect.all_listed(tables) == "action (1) records them"
    assert effect.all_listed(whole) == ""
