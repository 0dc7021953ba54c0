"""Judging a hand-made write of a workspace JSON file by what only casts change there
(`spellbook.cast.hand_writes`, from the generated module's `KEPT`): the words are the
spec's names."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from codegen import parse_spec_text
from codegen.render import render_machine
from spellbook import Workflow
from tests.support.kept_specs import TICKETS
from tests.support.sessions import PROGRESS, code_session, session_in

LISTED = [
    {"id": "T1", "title": "one", "state": "closed"},
    {"id": "T2", "title": "two", "state": "open"},
]


def tickets(root: Path) -> Workflow:
    """A workflow of the tickets spec, its list of tickets written, on ticket T2."""
    module = types.ModuleType("tickets_machine")
    source = render_machine(parse_spec_text(TICKETS, "spec.md"), "tickets_machine")
    exec(compile(source, "tickets_machine.py", "exec"), module.__dict__)
    (root / ".t").mkdir()
    (root / ".t" / "tickets.json").write_text(_listed(*LISTED))
    (root / ".t" / "state.json").write_text(json.dumps({"state": "OPEN", "ticket": "T2"}))
    return Workflow(root, machine=module)  # type: ignore[arg-type]


def _listed(*items: dict[str, Any], command: str = "true") -> str:
    return json.dumps({"check": command, "tickets": list(items)})


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (_listed(LISTED[1]), "ticket T1 would be removed; a hand may add tickets (none closed"),
        (_listed(LISTED[0], {**LISTED[1], "id": "T9"}), "ticket T2's id would change to T9"),
        (_listed(LISTED[0], {**LISTED[1], "state": "closed"}), "T2 would be marked closed by hand"),
        (_listed(*LISTED, {"id": "T3", "state": "stuck"}), "a new ticket is never written closed"),
        (_listed(*LISTED, LISTED[1]), "ticket T2 would be listed twice"),
        (_listed(*LISTED, command="false"), "the command `check` would change"),
        (json.dumps({"check": "true", "tickets": {}}), 'an object with a "tickets" list'),
        (_listed(*LISTED, {"title": "no id"}), "every ticket of the new file must be an object"),
    ],
)
def test_a_hand_may_not_change_what_only_casts_change(
    tmp_path: Path, content: str, said: str
) -> None:
    flow = tickets(tmp_path)
    allowed, why = flow.judge_write("tickets.json", content)
    assert not allowed and said in why, why
    assert (
        "only the workflow marks it, after running the command `check`: cast Close"
        in (flow.judge_write("tickets.json", _listed({**LISTED[0], "state": "open"}, LISTED[1]))[1])
    )


@pytest.mark.parametrize(
    "content",
    [
        _listed(*LISTED, {"id": "T3", "title": "new", "state": "open"}),  # a value no cast sets
        _listed(*LISTED, {"id": "T3", "title": "new"}),
        _listed(LISTED[0], {**LISTED[1], "title": "reworded"}),
        _listed(LISTED[1], LISTED[0]),
    ],
)
def test_a_hand_may_add_items_and_edit_their_other_keys(tmp_path: Path, content: str) -> None:
    allowed, why = tickets(tmp_path).judge_write("tickets.json", content)
    assert allowed, why


def test_only_the_files_the_casts_write_are_judged(tmp_path: Path) -> None:
    flow = tickets(tmp_path)
    assert flow.guards("tickets.json") and flow.guards("state.json")
    assert not flow.guards("notes.json")
    assert flow.judge_write("notes.json", "{}") == (True, ".t/notes.json is not guarded")


def test_the_judge_of_kept_files_is_imported_only_when_one_is_written(tmp_path: Path) -> None:
    """A cast, and a hand-made write of a file nothing keeps, never load it."""
    session_in(tmp_path, "IMPLEMENT", "true")
    code = (
        "import sys; from tests.support.sessions import session; "
        f"flow = session({str(tmp_path)!r}); flow.cast('Check'); "
        "kept = 'spellbook.cast.hand_writes'; "
        "flow.judge_write('notes.json', '{}'); print(kept in sys.modules); "
        "flow.judge_write('feature-list.json', '{}'); print(kept in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120
    )
    assert ran.stdout.split() == ["False", "True"], ran.stderr


def test_a_python_vocabulary_still_judges_the_writes_it_names(tmp_path: Path) -> None:
    """A team's vocabulary module may judge hand-made writes of its own (`JUDGED`,
    `judge_write`), beside what the spec keeps; its verbs still carry the casts."""
    session_in(tmp_path, "IMPLEMENT", "true")
    flow = code_session(tmp_path)
    dropped = json.dumps({"test_command": "true", "features": []})
    allowed, why = flow.judge_write("feature-list.json", dropped)
    assert not allowed and "feature F1 would be removed; a hand may add pending features" in why
    (tmp_path / "tests-pass").write_text("")
    assert flow.cast("Advance").rule is not None  # M1: to TEST
    done = flow.cast("Advance")  # T2: the vocabulary's Mark
    assert "feature F1 is now tested" in done.notes, done.notes
    listed = json.loads((tmp_path / PROGRESS / "feature-list.json").read_text())
    assert listed["features"][0]["status"] == "tested"
