"""The core's verbs that edit files in place (`spellbook.edits`), as planned: a JSON file
set a field keeps its own layout, and no edit writes a file larger than a cast reads
(it stops before anything moves, naming the file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spellbook.actions import apply, plan
from spellbook.errors import ActionError
from spellbook.schema import Action, Row, Rule
from spellbook.state_file import Record
from spellbook.store import READ_LIMIT, Workspace


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
    from spellbook.edits import layout

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
