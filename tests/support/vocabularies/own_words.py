"""A vocabulary written in Python, of the tests' own: the coding session's words as code.

Spellbook's own vocabularies are data (`spellbook/vocabularies/NAME/vocabulary.md`); a
team whose workflow needs code may still name a Python module (`vocabulary =
"my_project.words"`, imported only from the project a command runs in, or with
`--trust`). This one proves that mechanism: its `NOUNS` and `TERMS`, its own verbs
(`VERBS`, planned by `plan_mark` and `plan_select`, `Verb.writes`) and its judge of
hand-made writes (`JUDGED`, `judge_write`). A spec read with it says, for example,
`Mark the current feature tested in feature-list.json` and `Select the next pending
feature in feature-list.json`; its features are kept in `feature-list.json`:

    {"test_command": "python -m pytest -q",
     "features": [{"id": "PT-001", "description": "...", "status": "pending"}]}
"""

from __future__ import annotations

from spellbook.disk.state_file import parse_json
from spellbook.records.errors import ActionError, BadFile
from spellbook.records.vocabulary import FILE, Noun, Verb
from spellbook.verbs.edits import layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spellbook.schema import Action
    from spellbook.verbs.actions import Step

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
    Verb(
        "select",
        rf"selects? the next pending feature (?:in|from) {FILE}",
        writes=("feature_id", "attempts"),
    ),
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
            step.update(name, layout(step.read(name))(value))  # as the file was written
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
    None. Of the feature list, a hand may add pending features and edit what else a
    feature says (its description); nothing else: only the session's casts mark a
    feature tested or blocked (after running the tests), and no hand removes a feature,
    changes its id or status, lists one twice, or changes the test command once written."""
    if name != "feature-list.json":
        return None
    try:
        proposed = parse_json(after, name)
    except BadFile as err:
        return f"the new {err}"
    try:
        current = parse_json(before, name) if before and before.strip() else {}
    except BadFile:
        current = {}  # the file on disk is broken: every feature written now is new
    problem = _shape(proposed)
    if problem:
        return problem
    was, now = _features(current), _features(proposed)
    was_ids, now_ids = [f.get("id") for f in was], [f.get("id") for f in now]
    for at, feature in enumerate(was):
        wanted = feature.get("id")
        if wanted not in now_ids:
            other = now_ids[at] if at < len(now_ids) else None
            if other is not None and other not in was_ids:
                return f"feature {_said(wanted)}'s id would change to {_said(other)}; {KEPT}"
            return f"feature {_said(wanted)} would be removed; {KEPT}"
        statuses = [f.get("status") for f in was if f.get("id") == wanted]
        written = [f.get("status") for f in now if f.get("id") == wanted]
        if len(written) > len(statuses):
            return f"feature {_said(wanted)} would be listed twice; {KEPT}"
        changed = [s for s in written if s not in statuses] or [
            s for s in written if written.count(s) != statuses.count(s)
        ]
        if changed:
            return f"{_marked(wanted, changed[0])} by hand; {MARKS}"
    for feature in now:
        wanted, status = feature.get("id"), feature.get("status")
        if wanted in was_ids:
            continue
        if now_ids.count(wanted) > 1:
            return f"feature {_said(wanted)} would be listed twice; {KEPT}"
        if status != "pending":
            return f"{_marked(wanted, status)} by hand; a feature is written pending, and {MARKS}"
    before_command = current.get("test_command") if isinstance(current, dict) else None
    after_command = proposed.get("test_command") if isinstance(proposed, dict) else None
    if before_command and after_command != before_command:
        return (
            "the test command would change; what counts as the tests passing is the "
            "developer's to change, not the session's"
        )
    return None


KEPT = (
    "a hand may add pending features and edit their descriptions, but every feature "
    "stays, once, with its id and status"
)
MARKS = "only the session marks it, after running the tests: cast Advance instead"


def _marked(feature: object, status: object) -> str:
    return f"feature {_said(feature)} would be marked {str(status)[:40]}"


def _said(value: object) -> str:
    return str(value)[:80]


def _shape(value: object) -> str | None:
    """What keeps `value` from being a feature list the session's casts can read."""
    entries = value.get("features") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        return 'the new file must be an object with a "features" list'
    if not all(isinstance(f, dict) and isinstance(f.get("id"), str) for f in entries):
        return 'every feature of the new file must be an object with a text "id"'
    return None


def _features(value: object) -> list[dict[str, object]]:
    found = value.get("features") if isinstance(value, dict) else None
    return [f for f in found if isinstance(f, dict)] if isinstance(found, list) else []
