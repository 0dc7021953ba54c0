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

from spellbook.errors import ActionError, BadFile
from spellbook.state_file import parse_json
from spellbook.vocabulary import FILE, Noun, Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spellbook.actions import Step
    from spellbook.schema import Action

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
        value = parse_json(text, shown)
    except BadFile as err:
        raise ActionError(str(err)) from None
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


JUDGED = frozenset({"feature-list.json"})  # files whose hand-made writes judge_write judges


def judge_write(name: str, before: str | None, after: str) -> str | None:
    """Why a hand-made write of `name` (text `before` -> `after`) must be refused, or
    None: a feature is written `pending` (only the session's casts mark it tested or
    blocked, after running the tests), and the test command, once written, is left
    as it is."""
    if name != "feature-list.json":
        return None
    try:
        proposed = parse_json(after, name)
    except BadFile as err:
        return f"the new {err}"
    try:
        current = parse_json(before, name) if before and before.strip() else {}
    except BadFile:
        current = {}  # the file on disk is broken: any feature marked now is new
    was = {
        f.get("id"): f.get("status")
        for f in _features(current)
        if isinstance(f.get("id"), (str, int))
    }
    for feature in _features(proposed):
        status = feature.get("status")
        if status != "pending" and was.get(feature.get("id")) != status:
            return (
                f"feature {str(feature.get('id'))[:80]} would be marked {str(status)[:40]} by "
                "hand; a feature is written pending, and only the session marks it, after "
                "running the tests: cast Advance instead"
            )
    before_command = current.get("test_command") if isinstance(current, dict) else None
    after_command = proposed.get("test_command") if isinstance(proposed, dict) else None
    if before_command and after_command != before_command:
        return (
            "the test command would change; what counts as the tests passing is the "
            "developer's to change, not the session's"
        )
    return None


def _features(value: object) -> list[dict[str, object]]:
    found = value.get("features") if isinstance(value, dict) else None
    return [f for f in found if isinstance(f, dict)] if isinstance(found, list) else []
