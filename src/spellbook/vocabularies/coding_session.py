"""The coding session's words: a feature list, its pending features, the tests passing.

The session's spec (`spec/SESSION_STATE_MACHINE.md`) keeps its features in
`feature-list.json`:

    {"test_command": "python -m pytest -q",
     "features": [{"id": "PT-001", "description": "...", "status": "pending"}]}

`feature-list.json has a pending feature`, `... has another pending feature`
(one other than the session's current `feature_id`) and `tests pass` are
defined here in the generic core's terms; `Mark the current feature tested in
feature-list.json` and `Select the next pending feature in feature-list.json`
are this workflow's own verbs, planned by `plan_mark` and `plan_select`.
"""

from __future__ import annotations

import json

from spellbook.errors import ActionError
from spellbook.vocabulary import FILE, Noun, Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spellbook.actions import Step
    from spellbook.tables import Action

PENDING = "features[status=pending]"

NOUNS = (
    Noun(
        "other pending feature",
        r"(?:an)?other pending features?",
        "field",
        PENDING + "[id!=$feature_id]",
        "feature-list.json",
        yes="{file} has another pending feature",
        no="{file} has no other pending feature",
    ),
    Noun(
        "pending feature",
        r"pending features?",
        "field",
        PENDING,
        "feature-list.json",
        yes="{file} has a pending feature",
        no="{file} has no pending feature",
    ),
)

TERMS = {
    "tests pass": "the command `test_command` of feature-list.json passes",
    "all tests pass": "the command `test_command` of feature-list.json passes",
    "tests fail": "the command `test_command` of feature-list.json fails",
}

VERBS = (
    Verb(
        "mark",
        rf"marks? the (?:current )?feature (?:as )?(?P<target>tested|blocked|pending) in {FILE}",
    ),
    Verb("select", rf"selects? the next pending feature (?:in|from) {FILE}"),
)


def feature_list(step: Step, name: str) -> dict[str, object]:
    """A feature list, checked: an object with a list of features, each with an id."""
    text = step.read(name)
    shown = step.shown(name)
    if text is None:
        raise ActionError(f"{shown} is missing")
    try:
        value = json.loads(text)
    except ValueError as err:
        raise ActionError(f"{shown} is not valid JSON ({err})") from None
    entries = value.get("features") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        raise ActionError(f'{shown} must be an object with a "features" list')
    if not all(isinstance(f, dict) and isinstance(f.get("id"), str) for f in entries):
        raise ActionError(f'{shown}: every feature must be an object with a text "id"')
    return value  # type: ignore[no-any-return]


def plan_mark(step: Step, action: Action) -> None:
    """Set the status of the session's current feature (`feature_id`)."""
    name = action.files[0]
    value = feature_list(step, name)
    current = step.fields.get("feature_id")
    entries = value["features"]
    assert isinstance(entries, list)
    for feature in entries:
        if feature.get("id") == current:
            feature["status"] = action.target
            step.update(name, json.dumps(value, indent=2, ensure_ascii=False) + "\n")
            step.note(f"feature {current} is now {action.target}")
            return
    step.note(f"no current feature to mark {action.target} in {step.shown(name)}")


def plan_select(step: Step, action: Action) -> None:
    """Make the first pending feature the current one, with its attempts at 1."""
    entries = feature_list(step, action.files[0])["features"]
    assert isinstance(entries, list)
    pending = [f["id"] for f in entries if f.get("status") == "pending"]
    step.fields["feature_id"] = pending[0] if pending else None
    step.fields["attempts"] = 1
    step.note(f"current feature: {pending[0]}" if pending else "no pending feature is left")
