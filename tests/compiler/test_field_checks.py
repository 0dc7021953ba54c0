"""The state file's fields that conditions read: each is set by something, or a finding
says it is not (`codegen.analyse.field_checks`)."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from codegen import load_spec, parse_spec_text
from codegen.analyse import Finding, Severity, analyse
from codegen.config import ReadOptions
from codegen.render import render_machine
from spellbook import Workflow
from spellbook.records.errors import ActionError
from tests.support.specs import row, spec_text, spec_with
from tests.support.vocabularies import own_words

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("undefined_field", "never_counted", "never_set")


def persisted(text: str, example: dict[str, object]) -> str:
    """`text` with a State Persistence section showing `example`."""
    return text + f"\n### State Persistence\n\n```json\n{json.dumps(example)}\n```\n"


def found(text: str, options: ReadOptions | None = None) -> list[Finding]:
    spec = parse_spec_text(text, "spec.md", options=options)
    return [f for f in analyse(spec) if f.kind in KINDS]


def seen(findings: list[Finding]) -> set[tuple[str, str | None]]:
    return {(f.kind, f.rule) for f in findings}


# A sauce reduced until it is thick and tasted: `thickness` is counted, `taste` is not.
SAUCE = spec_text(
    ["SIMMER", "SERVED"],
    ["Stir"],
    [
        row(
            "S1",
            "SIMMER",
            "Stir",
            "thickness ≥ 4 AND taste ≥ 7",
            "SERVED",
            "Update state to SERVED",
        ),
        row(
            "S2",
            "SIMMER",
            "Stir",
            "thickness < 4 OR taste < 7",
            "Same state",
            "Increment thickness",
        ),
        row("S3", "SERVED", "Stir"),
    ],
)


def test_a_counter_nothing_sets_is_an_error_naming_the_row_and_the_counter() -> None:
    findings = found(SAUCE)
    assert seen(findings) == {("undefined_field", "S1"), ("undefined_field", "S2")}
    first = findings[0]
    assert first.severity is Severity.ERROR
    assert SAUCE.splitlines()[first.line - 1].startswith("| S1 |")
    assert "`taste`" in first.message and "nothing sets it" in first.message
    assert "`taste ≥ 7` never holds" in first.message
    assert "`taste < 7` always holds" in findings[1].message
    assert not any("`thickness`" in f.message for f in findings)  # S2 counts it


def test_a_counter_the_example_shows_is_defined_but_never_counted_is_a_warning() -> None:
    text = persisted(SAUCE, {"current_state": "SIMMER", "taste": 0, "thickness": 0})
    findings = found(text)
    assert seen(findings) == {("never_counted", "S1")}
    assert findings[0].severity is Severity.WARNING
    assert "rules S1, S2 compare the counter `taste`" in findings[0].message
    # Set, but still never counted.
    reset = text.replace("| Increment thickness |", "| (1) Increment thickness; (2) Reset taste |")
    assert seen(found(reset)) == {("never_counted", "S1")}
    counted = text.replace(
        "| Increment thickness |", "| (1) Increment thickness; (2) Increment taste |"
    )
    assert found(counted) == []


# A queue of orders in a cafe: the order being made is `$order`.
CAFE = spec_text(
    ["IDLE", "MAKING"],
    ["Next"],
    [
        row(
            "C1",
            "IDLE",
            "Next",
            "`orders.json` has `orders[made=false]`",
            "MAKING",
            "Update state to MAKING",
        ),
        row("C2", "IDLE", "Next", "`orders.json` has no `orders[made=false]`"),
        row(
            "C3",
            "MAKING",
            "Next",
            "`orders.json` has `orders[made=false][id!=$order]`",
            "Same state",
        ),
        row(
            "C4",
            "MAKING",
            "Next",
            "`orders.json` has no `orders[made=false][id!=$order]` AND "
            "`orders.json` has `orders[table=$current].seats` ≥ 2",
            "IDLE",
            "Update state to IDLE",
        ),
        row(
            "C5",
            "MAKING",
            "Next",
            "`orders.json` has no `orders[made=false][id!=$order]` AND "
            "`orders.json` has no `orders[table=$current].seats` ≥ 2",
            "IDLE",
            "Update state to IDLE",
        ),
    ],
)


def test_a_dollar_name_nothing_sets_is_an_error_and_current_named_nowhere_too() -> None:
    findings = found(CAFE)
    assert seen(findings) == {("undefined_field", r) for r in ("C3", "C4", "C5")}
    assert {f.rule for f in findings if "`$current`" in f.message} == {"C4", "C5"}
    assert {f.rule for f in findings if "`$order`" in f.message} == {"C3", "C4", "C5"}
    assert all(f.severity is Severity.ERROR for f in findings)


def test_a_dollar_name_only_the_example_shows_is_a_warning() -> None:
    text = persisted(CAFE, {"current_state": "IDLE", "order": "A-1", "current": 3})
    findings = found(text)
    assert seen(findings) == {("never_set", "C3"), ("never_set", "C4")}
    assert all(f.severity is Severity.WARNING for f in findings)
    assert "rules C3, C4, C5 read `$order`" in findings[0].message


def test_the_state_key_is_not_a_field_a_query_reads() -> None:
    text = CAFE.replace("$current", "$current_state")
    said = [f.message for f in found(text) if "current_state" in f.message]
    assert said and all("where the state file keeps its state" in m for m in said)


def test_fields_the_runtime_writes_are_defined() -> None:
    text = spec_text(
        ["WAIT", "DONE"],
        ["Go"],
        [
            row(
                "W1",
                "WAIT",
                "Go",
                "in this state for more than 2 hours AND `log.json` has "
                "`entries[at=$entered_at]` AND the command `check` of `log.json` passes",
                "DONE",
                "Update state to DONE",
            ),
            row(
                "W2",
                "WAIT",
                "Go",
                "in this state for 2 hours or less OR `log.json` has no "
                "`entries[at=$entered_at]` OR the command `check` of `log.json` fails",
            ),
            row("D1", "DONE", "Go", "the last run of `check` passed"),
            row("D2", "DONE", "Go", "the last run of `check` did not pass"),
        ],
    )
    assert found(text) == []
    # No condition runs `check`: no run of it is ever recorded.
    unrun = text.replace("the command `check` of `log.json` passes", "`log.json` exists")
    unrun = unrun.replace("the command `check` of `log.json` fails", "`log.json` missing")
    findings = found(unrun)
    assert seen(findings) == {("undefined_field", "D1"), ("undefined_field", "D2")}
    assert "no condition of the spec runs it" in findings[0].message


def test_a_vocabulary_verb_sets_the_fields_it_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "spec" / "SESSION_STATE_MACHINE.md").read_text(encoding="utf-8")
    start = text.index("```json\n// .claude")
    bare = text[:start] + text[text.index("```", start + 3) + 3 :]  # no State Persistence
    terms = bare.index("### Terms")  # Mark and Select: the Python vocabulary's verbs
    bare = bare[:terms] + bare[bare.index("### Transition Rules") :]
    session = ReadOptions(
        "tests.support.vocabularies.own_words"
    )  # a vocabulary with verbs of its own
    assert found(bare, session) == []  # `Select the next pending feature` writes feature_id
    select = next(v for v in own_words.VERBS if v.name == "select")
    monkeypatch.setattr(select, "writes", ())
    findings = found(bare, session)
    assert {f.rule for f in findings if "`$feature_id`" in f.message} == {
        "T1",
        "T2",
        "R2",
        "R3",
        "B9",
        "E1",
    }
    assert {f.kind for f in findings} == {"undefined_field"}


@pytest.mark.parametrize("name", ["STATE_MACHINE.md", "SESSION_STATE_MACHINE.md"])
def test_the_project_specs_define_every_field_they_read(name: str) -> None:
    assert [f for f in analyse(load_spec(ROOT / "spec" / name)) if f.kind in KINDS] == []


def machine(text: str) -> types.ModuleType:
    module = types.ModuleType("fields_machine")
    exec(
        compile(render_machine(parse_spec_text(text), "fields_machine"), "m.py", "exec"),
        module.__dict__,
    )
    return module


def test_what_the_findings_say_is_what_casts_do(tmp_path: Path) -> None:
    """A counter nothing sets stays 0, and a `$name` only the example shows is null: the
    rules the findings name never fire, however often the spell is cast."""
    (tmp_path / "sauce").mkdir()
    module = machine(SAUCE)
    flow = Workflow(tmp_path / "sauce", machine=module)  # type: ignore[arg-type]
    for _ in range(10):
        assert flow.cast("stir").rule == "S2"  # thickness counts up; taste stays 0
    state = json.loads((tmp_path / "sauce" / module.STATE_FILE).read_text())
    assert (state["thickness"], state["taste"]) == (10, 0)
    cafe = persisted(CAFE.replace("$current", "$order"), {"current_state": "IDLE", "order": "A-1"})
    (tmp_path / "cafe").mkdir()
    module = machine(cafe)
    flow = Workflow(tmp_path / "cafe", machine=module)  # type: ignore[arg-type]
    orders = tmp_path / "cafe" / module.WORKSPACE / "orders.json"
    orders.parent.mkdir(parents=True, exist_ok=True)
    orders.write_text('{"orders": [{"id": "A-1", "made": false, "table": 1, "size": 1}]}')
    assert flow.cast("next").after == "MAKING"
    # The one order left is the one being made, but `$order` is null: it is "another".
    assert flow.cast("next").rule == "C3"
    state = json.loads((tmp_path / "cafe" / module.STATE_FILE).read_text())
    assert state["order"] is None


@pytest.mark.parametrize(
    "query",
    [
        "features[status=pending][id!=$feature_id]",
        "a[x=$one].b[y!= $two ][z=3]",
        "items[tag=$]",
        "plain.key",
        "a[x=1$]",
    ],
)
def test_the_names_a_query_reads_are_those_select_looks_up(query: str) -> None:
    from spellbook.facts.json_values import select, variables

    class Asked(dict[str, object]):
        def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
            asked.append(key)
            return default

    asked: list[str] = []
    select({}, query, Asked())  # each filter's `$name` is looked up, items or none
    assert variables(query) == asked


def test_a_dollar_name_in_a_count_s_query_is_checked_too() -> None:
    """Each kind of fact says where its JSON query is (`Probe.query`): a count's `$name`
    is a field like any other query's."""
    text = spec_with("count of tickets[owner!=$desk] in queue.json ≥ 2")
    findings = found(text)
    assert seen(findings) == {("undefined_field", "T1")}
    assert "`$desk`" in findings[0].message


# A feature marked, and listed as done, by the state file's `$feature_id`.
MARKING = spec_text(
    ["WORK"],
    ["Pass"],
    [
        row(
            "P1",
            "WORK",
            "Pass",
            "-",
            "Same state",
            '(1) Set `features[id=$feature_id].status` in feature-list.json to "tested"; '
            '(2) Append {"id": "$who", "at": ["$when"]} to `done` in progress.json',
        ),
    ],
)


def test_a_dollar_name_a_json_action_reads_and_nothing_sets_is_an_error() -> None:
    findings = found(MARKING)
    assert seen(findings) == {("undefined_field", "P1")}
    said = sorted(f.message for f in findings)
    assert len(said) == 3
    assert sum("action (1)" in m for m in said) == 1
    for name in ("feature_id", "who", "when"):
        assert any(f"field `{name}`" in m and "the cast always stops" in m for m in said), name
    example = {"current_state": "WORK", "feature_id": "F1", "who": "", "when": ""}
    assert found(persisted(MARKING, example)) == []


# A feature chosen into the state file, then marked by the `$feature_id` it set.
def chosen(cell: str, example: dict[str, object]) -> str:
    return persisted(
        spec_text(
            ["WORK"],
            ["Next", "Pass"],
            [
                row("N1", "WORK", "Next", "-", "Same state", cell),
                row(
                    "P1",
                    "WORK",
                    "Pass",
                    "feature-list.json has `features[id=$feature_id]`",
                    "Same state",
                    'Set `features[id=$feature_id].status` in feature-list.json to "tested"',
                ),
                row("P2", "WORK", "Pass", "feature-list.json has no `features[id=$feature_id]`"),
            ],
        ),
        example,
    )


@pytest.mark.parametrize(
    "cell",
    [
        "Set `feature_id` in the state file to the first `features[status=pending].id` of "
        "feature-list.json",
        'Set `feature_id` in the state file to "F1"',
    ],
)
def test_a_field_set_in_the_state_file_is_one_that_something_sets(cell: str) -> None:
    declared = {"current_state": "WORK", "feature_id": None}
    assert found(chosen(cell, declared)) == []
    # Without the Set, the `$feature_id` the conditions and the marking read is never set.
    assert seen(found(chosen("No state change", declared))) == {("never_set", "P1")}
    # A field the example does not declare is not set: the spec is refused where it says so.
    undeclared = chosen(cell, {"current_state": "WORK"})
    refused = [f for f in analyse(parse_spec_text(undeclared, "spec.md")) if f.rule == "N1"]
    assert [f.kind for f in refused] == ["action_path"]
    assert "`feature_id` is not a field the State Persistence example declares" in (
        refused[0].message
    )


@pytest.mark.parametrize("condition", ["retries is 3", "retries ~ 3", "retries =< 3"])
def test_a_counter_a_condition_names_but_cannot_be_read_is_not_said_unread(
    condition: str,
) -> None:
    """`unread_counter` says no condition reads the counter: one that names it, unread
    (`unknown_condition`), is what to fix, not the action."""
    text = spec_text(
        ["A", "B"],
        ["Go"],
        [
            row("R1", "A", "Go", condition, "B"),
            row("R2", "A", "Go", f"NOT ({condition})", action="Increment retries"),
            row("R3", "B", "Go"),
        ],
    )
    kinds = {f.kind for f in analyse(parse_spec_text(text, "spec.md"))}
    assert "unknown_condition" in kinds
    assert "unread_counter" not in kinds


# Retries of a build check: C3 gives up after two failed checks, if `attempts` is counted.
RETRY = """# Retry

State is kept in `.r/state.json`.

### State Persistence

```json
{{"current_state": "WAITING", "attempts": 0}}
```

| ID | Current State | Event | Condition | Next State | Action | Response |
|----|---|---|---|---|---|---|
| S1 | WAITING | Start | - | CHECKING | Reset attempts | Checking. |
| S2 | CHECKING, FAILED | Start | - | WAITING | - | Again. |
| C1 | CHECKING | Check | build.log exists | WAITING | - | Built. |
| C2 | CHECKING | Check | build.log missing AND attempts < 2 | Same state | {counting} | Not yet. |
| C3 | CHECKING | Check | build.log missing AND attempts >= 2 | FAILED | - | Gave up. |
| C4 | WAITING, FAILED | Check | - | [BLOCKED] | - | Nothing to check. |
"""


@pytest.mark.parametrize(
    ("counting", "dead"),
    [
        ("Increment attempt", ["C3"]),  # a typo: `attempts` is never counted
        ("Increment attempts", []),
        ("Reset attempts to 2", []),  # set to a value the comparison asks for
        ("Reset attempts to 1", ["C3"]),  # only ever 0 or 1
    ],
)
def test_a_rule_asking_a_value_an_uncounted_counter_never_has_is_dead(
    counting: str, dead: list[str]
) -> None:
    """A counter no action counts is only ever 0 or what an action sets it to, so a
    rule that asks for another value never fires: `dead_rule`, saying why, and the
    state it alone leads to cannot be reached."""
    spec = parse_spec_text(RETRY.format(counting=counting), "spec.md")
    findings = analyse(spec)
    assert [f.rule for f in findings if f.kind == "dead_rule"] == dead
    unreachable = [f.state for f in findings if f.kind == "unreachable_state"]
    assert unreachable == (["FAILED"] if dead else [])
    if counting == "Increment attempt":
        (finding,) = [f for f in findings if f.kind == "dead_rule"]
        assert finding.message.endswith(
            "can never hold: no action counts `attempts` (`Increment attempts`), so it is "
            "only ever 0"
        ), finding.message


# A reviewer named by the state file's `$owner`, which another rule sets.
OWNED = spec_text(
    ["WORK"],
    ["Claim", "Review"],
    [
        row("C1", "WORK", "Claim", "-", "Same state", 'Set `owner` in the state file to "ann"'),
        row(
            "R1",
            "WORK",
            "Review",
            "-",
            "Same state",
            '(1) Set `reviewer` in review.json to "$owner"; '
            '(2) Set `round` in review.json to ["$owner"]',
        ),
    ],
)


def test_a_dollar_name_a_set_writes_is_the_state_file_s_field(tmp_path: Path) -> None:
    example = {"current_state": "WORK", "owner": None}
    assert found(persisted(OWNED, example)) == []
    findings = found(OWNED.replace('Set `owner` in the state file to "ann"', "No state change"))
    assert ("undefined_field", "R1") in seen(findings)
    assert any("field `owner`" in f.message for f in findings)
    module = machine(persisted(OWNED, example))
    flow = Workflow(tmp_path, machine=module)  # type: ignore[arg-type]
    review = tmp_path / module.WORKSPACE / "review.json"
    with pytest.raises(ActionError, match="owner is not set"):
        flow.cast("review")
    assert not review.exists()  # nothing written
    flow.cast("claim")
    flow.cast("review")
    assert json.loads(review.read_text()) == {"reviewer": "ann", "round": ["ann"]}
