"""Action phrases of the JSON verbs, each with its one reading or refused, beside its near
misses (the corpus of Condition phrases: tests/compiler/test_phrase_corpus.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.phrases import FEATURES, LEXICONS, WORKSPACE

# Action phrases of the JSON verbs, each with its one reading (verb, file, [query, value])
# or refused: an instruction with why (`hint`, or a near miss `near_verbs` aims at a verb),
# or the verb with the problem that stops the spec (`problem`). Near misses: a typo, a
# missing backtick, a filter that keeps many, a query that ends in a filter, a value
# that is not JSON, a file that is not JSON, a path out of the workspace.
FEATURE_STATUS = "features[id=$feature_id].status"


def act(text: str, verb: str, file: str, query: str, value: object) -> Any:
    return pytest.param(text, (verb, file, query, value), "", "", id=text)


def state_field(text: str, field: str, value: object, query: str = "", file: str = "") -> Any:
    """A field of the state file set to a literal, or to the first value `query`
    selects in `file`."""
    how = ["first", query] if query else ["value", value]
    return pytest.param(text, ("set_state_field", file, field, how), "", "", id=text)


def act_refused(text: str, why: str, aimed: str = "") -> Any:
    """Refused, saying `why`; `aimed`: a near miss of that verb (`near_verbs`)."""
    return pytest.param(text, None, why, aimed, id=text)


JSON_VERBS = [
    act(
        f'Set `{FEATURE_STATUS}` in feature-list.json to "tested"',
        "set_field",
        FEATURES,
        FEATURE_STATUS,
        "tested",
    ),
    act(
        f'Sets {FEATURE_STATUS} in feature-list.json to "blocked"',
        "set_field",
        FEATURES,
        FEATURE_STATUS,
        "blocked",
    ),
    act(
        'Set `features[id=F1].status` of `.ai/task/feature-list.json` to "tested"',
        "set_field",
        FEATURES,
        "features[id=F1].status",
        "tested",
    ),
    act("Set `a.b` in x.json to 2", "set_field", "x.json", "a.b", 2),
    act("Set approved in review.json to true", "set_field", "review.json", "approved", True),
    act_refused(f'Set `{FEATURE_STATUS} in feature-list.json to "tested"', ""),
    act_refused(f'Set `{FEATURE_STATUS}` in feature-list.json "tested"', "", "set_field"),
    act_refused(f'Sett `{FEATURE_STATUS}` in feature-list.json to "tested"', ""),
    act_refused('Set `features[id!=F1].status` in feature-list.json to "x"', "keeps many"),
    act_refused('Set `features[id=F1]` in feature-list.json to "x"', "ends in a filter"),
    act_refused('Set `features[id==F1].status` in feature-list.json to "x"', "is not a query"),
    act_refused('Set `features[id="F1"].status` in feature-list.json to "x"', "is not a query"),
    act_refused(f"Set `{FEATURE_STATUS}` in feature-list.json to tested", "not a JSON value"),
    act_refused(f'Set `{FEATURE_STATUS}` in features.md to "tested"', "not a JSON file"),
    act_refused(f'Set `{FEATURE_STATUS}` in ../feature-list.json to "x"', "outside the workspace"),
    act(
        'Append {"id": "$feature_id"} to `done` in progress.json',
        "append_item",
        "progress.json",
        "done",
        {"id": "$feature_id"},
    ),
    act(
        'Appends "$feature_id" to blocked in progress.json',
        "append_item",
        "progress.json",
        "blocked",
        "$feature_id",
    ),
    act(
        "Append [1, 2] to `features[id=F1].runs` of feature-list.json",
        "append_item",
        FEATURES,
        "features[id=F1].runs",
        [1, 2],
    ),
    act(
        'Append "go to bed" to `todo` in p.json',
        "append_item",
        "p.json",
        "todo",
        "go to bed",
    ),
    act_refused('Apend {"id": "$feature_id"} to `done` in progress.json', "", "append_item"),
    act_refused('Push {"id": "$feature_id"} to `done` in progress.json', "", "append_item"),
    act_refused('Append {"id": "$feature_id"} to done progress.json', ""),
    act_refused('Append {"id": "$feature_id" to `done` in progress.json', "not a JSON value"),
    act_refused("Append the feature to `done` in progress.json", ""),
    act_refused('Append {"id": 1} to `done` in progress.md', "not a JSON file"),
    act_refused("Append 1 to `features[id!=F1].runs` in feature-list.json", "keeps many"),
    act_refused("Append 1 to `features[id=F1]` in feature-list.json", "ends in a filter"),
    act_refused("Append 1 to `done` in .git/progress.json", ".git"),
    state_field('Set `feature_id` in the state file to "F1"', "feature_id", "F1"),
    state_field("Sets the feature_id field of the state file to null", "feature_id", None),
    state_field("Set `round` in the state file to 2", "round", 2),
    state_field(
        "Set `feature_id` in the state file to the first `features[status=pending].id` of "
        "feature-list.json",
        "feature_id",
        None,
        "features[status=pending].id",
        FEATURES,
    ),
    state_field(
        "Set feature_id in the state file to first features[status=pending].id in "
        "`.ai/task/feature-list.json`",
        "feature_id",
        None,
        "features[status=pending].id",
        FEATURES,
    ),
    act_refused("Set `feature_id` in the state file to F1", "not a value", "set_state_field"),
    act_refused('Set feature_id to "F1"', "", "set_state_field"),
    act_refused('Store `feature_id` in the state file as "F1"', "", "set_state_field"),
    act_refused(
        "Set feature_id to the next pending feature in the state file", "", "set_state_field"
    ),
    act_refused(
        "Set `feature_id` in the state file to the next pending feature",
        "the first `QUERY` of F.json",
        "set_state_field",
    ),
    act_refused('Set `feature_id` in the state file to ["F1"]', "a JSON list"),
    act_refused('Set `feature-id` in the state file to "F1"', "not a field's name"),
    act_refused(
        "Set `feature_id` in the state file to the first `features[status=pending].id` of "
        "features.md",
        "not a JSON file",
    ),
    act_refused(
        "Set `feature_id` in the state file to the first `features[status=pending.id` of "
        "feature-list.json",
        "not a query",
    ),
    act_refused(
        "Set `feature_id` in the state file to the first `features.id` of ../f.json",
        "outside the workspace",
    ),
]


@pytest.mark.parametrize(("text", "expected", "why", "aimed"), JSON_VERBS)
def test_json_verb_phrase(
    text: str, expected: tuple[str, str, str, object] | None, why: str, aimed: str
) -> None:
    import json

    from codegen.read.action_phrases import parse_actions
    from codegen.read.near_verbs import aimed_at

    (action,) = parse_actions(text, WORKSPACE)
    if expected is None:
        refused = action.verb == "instruct" or bool(action.problem)
        assert refused, f"{text!r} must be refused, but reads as {action}"
        reason = action.problem or action.hint
        assert why in reason, f"{text!r} is refused, but not saying {why!r}: {reason!r}"
        if aimed:  # a near miss, which the verifier warns of, giving the forms that read
            found = aimed_at(text, LEXICONS["core"])
            assert found is not None and found.verb == aimed, (text, found)
    else:
        verb, file, query, value = expected
        assert not action.problem, action.problem
        assert (action.verb, action.files) == (verb, (file,) if file else ())
        said = [query, *value] if verb == "set_state_field" else [query, value]  # type: ignore[misc]
        assert json.loads(action.target) == said
