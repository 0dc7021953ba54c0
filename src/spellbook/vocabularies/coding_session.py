"""The coding session's words: a feature list, its pending features, the tests passing.

The session's spec (`spec/SESSION_STATE_MACHINE.md`) keeps its features in
`feature-list.json`:

    {"test_command": "python -m pytest -q",
     "features": [{"id": "PT-001", "description": "...", "status": "pending"}]}

`feature-list.json has a pending feature`, `... has another pending feature`
(one other than the session's current `feature_id`) and `tests pass` are
defined here in the generic core's terms. Marking and selecting a feature are
the spec's own Terms, in the core's verbs.
"""

from __future__ import annotations

from spellbook.vocabulary import Noun

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
