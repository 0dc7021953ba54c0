"""The core's verbs that edit files in place (`spellbook.verbs.edits`), as planned: a JSON file
set a field keeps its own layout, and no edit writes a file larger than a cast reads
(it stops before anything moves, naming the file)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from spellbook.disk.state_file import Record
from spellbook.disk.store import READ_LIMIT, Workspace
from spellbook.records.errors import ActionError
from spellbook.schema import Action, Row, Rule
from spellbook.verbs.actions import plan
from spellbook.verbs.operations import apply


def rule(*actions: Action) -> Rule:
    return Rule(Row("R1", "Go", ("A",), actions=actions), "A", "Go", "A", (0, 0))


def set_done(name: str = "data.json") -> Rule:
    return rule(Action("set_field", f"Set done in {name} to true", (name,), '["done", true]'))


def rewritten(tmp_path: Path, text: str) -> str:
    (tmp_path / ".w").mkdir(exist_ok=True)
    (tmp_path / ".w" / "data.json").write_text(text, encoding="utf-8", newline="")
    workspace = Workspace(str(tmp_path), ".w")
    apply(plan(set_done(), workspace, Record("A")).operations, workspace)
    return (tmp_path / ".w" / "data.json").read_bytes().decode("utf-8")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('{"a":1,"b":[1,2]}', '{"a":1,"b":[1,2],"done":true}'),
        ('{"a": 1, "b": [1, 2]}\n', '{"a": 1, "b": [1, 2], "done": true}\n'),
        (
            '{\n    "a": [\n        1\n    ]\n}\n',
            '{\n    "a": [\n        1\n    ],\n    "done": true\n}\n',
        ),
        ('{\n\t"a": 1\n}', '{\n\t"a": 1,\n\t"done": true\n}'),
        ('\ufeff{\r\n  "a": 1\r\n}\r\n', '\ufeff{\r\n  "a": 1,\r\n  "done": true\r\n}\r\n'),
        ('{"t": "x: y, z"}', '{"t": "x: y, z", "done": true}'),
    ],
    ids=["compact", "one line", "indent 4", "tab", "crlf and bom", "spaces in a string"],
)
def test_a_json_file_keeps_its_own_layout(tmp_path: Path, before: str, after: str) -> None:
    assert rewritten(tmp_path, before) == after


def test_a_new_json_file_has_two_spaces_of_indent(tmp_path: Path) -> None:
    workspace = Workspace(str(tmp_path), ".w")
    (tmp_path / ".w").mkdir()
    apply(plan(set_done(), workspace, Record("A")).operations, workspace)
    assert (tmp_path / ".w" / "data.json").read_text() == '{\n  "done": true\n}\n'


def test_a_small_nested_json_stays_small(tmp_path: Path) -> None:
    nested = {"deep": json.loads("[" * 500 + "]" * 500)}
    compact = json.dumps(nested, separators=(",", ":"))
    assert len(compact) < 2_100
    after = rewritten(tmp_path, compact)  # was 1.9 MB: two spaces per level per line
    assert len(after) == len(compact) + len(',"done":true')
    assert json.loads(after) == {**nested, "done": True}
    from spellbook.verbs.edits import layout

    assert layout(compact)(nested) == compact


def test_an_edit_past_the_read_limit_stops_the_cast_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    big = json.dumps({"notes": "x" * (READ_LIMIT - 100)})
    (tmp_path / ".w" / "data.json").write_text(big)
    (tmp_path / ".w" / "log.txt").write_text("y" * (READ_LIMIT - 10))
    workspace = Workspace(str(tmp_path), ".w")
    for edit in (
        Action(
            "set_field", "Set more in data.json", ("data.json",), '["more", "' + "z" * 200 + '"]'
        ),
        Action("append", 'Append "a longer line" to log.txt', ("log.txt",), "a longer line"),
    ):
        with pytest.raises(
            ActionError, match=r"\.w/(data\.json|log\.txt) would be 1,000,\d+ bytes"
        ):
            plan(rule(edit), workspace, Record("A"))
    assert (tmp_path / ".w" / "data.json").read_text() == big  # nothing written


FEATURES = {"features": [{"id": "F1", "status": "pending"}, {"id": "F2", "status": "pending"}]}


def json_edit(verb: str, file: str, query: str, value: object) -> Action:
    return Action(verb, f"{verb} {query}", (file,), json.dumps([query, value]))


def cast(tmp_path: Path, *actions: Action, **fields: object) -> Path:
    """Plans and applies the actions on `.w/`, the state file holding `fields`."""
    workspace = Workspace(str(tmp_path), ".w")
    record = Record("A")
    record.extra.update(fields)
    apply(plan(rule(*actions), workspace, record).operations, workspace)
    return tmp_path / ".w"


def features(tmp_path: Path, value: object = None) -> Path:
    (tmp_path / ".w").mkdir(exist_ok=True)
    path = tmp_path / ".w" / "feature-list.json"
    path.write_text(json.dumps(FEATURES if value is None else value, indent=2) + "\n")
    return path


@pytest.mark.parametrize(
    ("query", "fields"),
    [("features[id=F2].status", {}), ("features[id=$feature_id].status", {"feature_id": "F2"})],
    ids=["literal", "state file field"],
)
def test_a_set_reaches_the_one_list_item_a_filter_keeps(
    tmp_path: Path, query: str, fields: dict[str, object]
) -> None:
    path = features(tmp_path)
    cast(tmp_path, json_edit("set_field", "feature-list.json", query, "tested"), **fields)
    assert json.loads(path.read_text()) == {
        "features": [{"id": "F1", "status": "pending"}, {"id": "F2", "status": "tested"}]
    }


def test_a_set_through_a_state_file_field_says_which_item_it_set(tmp_path: Path) -> None:
    """The words (`features[id=$feature_id].status`) do not say which item; the note does.
    A query that names its item in its words needs no note."""
    features(tmp_path)
    workspace = Workspace(str(tmp_path), ".w")
    record = Record("A")
    record.extra["feature_id"] = "F2"
    chosen = json_edit(
        "set_field", "feature-list.json", "features[id=$feature_id].status", "tested"
    )
    assert plan(rule(chosen), workspace, record).done.notes == [
        '`features[id=F2].status` of .w/feature-list.json is now "tested"'
    ]
    named = json_edit("set_field", "feature-list.json", "features[id=F1].status", "tested")
    assert plan(rule(named), workspace, record).done.notes == []


def test_a_set_makes_the_key_missing_in_the_item_it_reaches(tmp_path: Path) -> None:
    path = features(tmp_path, {"features": [{"id": 7}]})
    cast(tmp_path, json_edit("set_field", "feature-list.json", "features[id=7].notes", ["a"]))
    assert json.loads(path.read_text()) == {"features": [{"id": 7, "notes": ["a"]}]}


@pytest.mark.parametrize(
    ("value", "query", "fields", "said"),
    [
        (FEATURES, "features[id=F9].status", {}, "no item of `features` has id = F9"),
        (FEATURES, "features[id=$feature_id].status", {}, "feature_id is not set"),
        (
            FEATURES,
            "features[id=$feature_id].status",
            {"feature_id": "F9"},
            "no item of `features` has id = F9 (`$feature_id`)",
        ),
        (
            {"features": [{"id": "F1"}, {"id": "F1"}]},
            "features[id=F1].status",
            {},
            "2 items of `features` have id = F1, where one is meant",
        ),
        ({"items": []}, "features[id=F1].status", {}, "it has no `features`"),
        ({"features": {"id": "F1"}}, "features[id=F1].status", {}, "`features` is not a list"),
        ({"features": [1, 2]}, "features.status", {}, "is not a JSON object"),
    ],
    ids=["no match", "unset", "matches none", "two matches", "no key", "no list", "list"],
)
def test_a_set_that_names_no_one_place_stops_the_cast_with_nothing_written(
    tmp_path: Path, value: object, query: str, fields: dict[str, object], said: str
) -> None:
    path = features(tmp_path, value)
    before = path.read_bytes()
    first = json_edit("append_item", "progress.json", "done", "F1")  # planned, then not applied
    with pytest.raises(ActionError, match=re.escape(said)):
        cast(tmp_path, first, json_edit("set_field", "feature-list.json", query, "x"), **fields)
    assert path.read_bytes() == before
    assert not (tmp_path / ".w" / "progress.json").exists()


def test_an_item_is_appended_to_a_list_made_if_missing_with_state_file_fields(
    tmp_path: Path,
) -> None:
    (tmp_path / ".w").mkdir()
    item = {"id": "$feature_id", "tags": ["$feature_id", "$other"], "note": "costs $5"}
    append = json_edit("append_item", "progress.json", "done", item)
    work = cast(tmp_path, append, feature_id="F2", other=3)
    assert json.loads((work / "progress.json").read_text()) == {
        "done": [{"id": "F2", "tags": ["F2", 3], "note": "costs $5"}]
    }
    work = cast(tmp_path, append, feature_id="F3", other=4)
    done = json.loads((work / "progress.json").read_text())["done"]
    assert [d["id"] for d in done] == ["F2", "F3"]


def test_an_item_is_appended_inside_the_one_item_a_filter_keeps(tmp_path: Path) -> None:
    path = features(tmp_path, {"features": [{"id": "F1", "log": ["made"]}, {"id": "F2"}]})
    cast(tmp_path, json_edit("append_item", "feature-list.json", "features[id=F1].log", "tried"))
    assert json.loads(path.read_text())["features"][0]["log"] == ["made", "tried"]


@pytest.mark.parametrize(
    ("value", "item", "fields", "said"),
    [
        ({"done": 3}, "x", {}, "`done` is not a list"),
        ({"done": []}, {"id": "$feature_id"}, {}, "feature_id is not set in the state file"),
        ([1], "x", {}, "is not a JSON object"),
    ],
    ids=["not a list", "field unset", "not an object"],
)
def test_an_append_that_cannot_be_done_stops_the_cast_with_nothing_written(
    tmp_path: Path, value: object, item: object, fields: dict[str, object], said: str
) -> None:
    (tmp_path / ".w").mkdir()
    path = tmp_path / ".w" / "progress.json"
    path.write_text(json.dumps(value))
    with pytest.raises(ActionError, match=re.escape(said)):
        cast(tmp_path, json_edit("append_item", "progress.json", "done", item), **fields)
    assert path.read_text() == json.dumps(value)


def test_a_cast_interrupted_after_its_append_appends_once_when_finished(tmp_path: Path) -> None:
    """The intent record's operations applied again (`spellbook.cast.commit_point`) finish the
    cast: the update is of the text the plan read, so the item is not added twice."""
    (tmp_path / ".w").mkdir()
    path = tmp_path / ".w" / "progress.json"
    path.write_text('{"done": []}\n')
    workspace = Workspace(str(tmp_path), ".w")
    record = Record("A")
    record.extra["feature_id"] = "F1"
    append = json_edit("append_item", "progress.json", "done", "$feature_id")
    operations = plan(rule(append), workspace, record).operations
    apply(operations, workspace)
    apply(operations, workspace)  # the next cast finishing it
    assert json.loads(path.read_text()) == {"done": ["F1"]}
