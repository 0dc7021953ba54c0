"""Every rule that can win, cast through the runtime with real files: its response is
byte for byte the one recorded in `tests/data/goldens/` (times and dates masked).

The goldens change only when the spec or the response wording is meant to change:
regenerate them with `pytest tests/runtime/test_response_goldens.py --update-cases` and review
the diff like any other change of what the developer and the AI are told.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest

from codegen import load_spec
from codegen.model import RuleSpec, Spec
from spellbook import Workflow
from spellbook.machines import session_machine
from spellbook.records.errors import SpellbookError
from tests.support.sessions import PROGRESS, TEST_COMMAND
from tests.support.workspaces import set_state
from tests.support.worlds import World, cell_atoms, lay_out, winner, winning_world, worlds

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = Path(__file__).resolve().parents[1] / "data" / "goldens"

# Dates and times (archive folders, history stamps) differ from run to run.
_STAMP = re.compile(r"\d{4}-?\d{2}-?\d{2}(?:[T_ -]?\d{2}:?\d{2}:?\d{2}(?:\.\d+)?Z?)?(?:-\d+)?")

# How long a command ran differs too.
_SECONDS = re.compile(r"(?<=[(, ])\d+(?:\.\d+)? s\)")


def masked(text: str) -> str:
    """The response without what differs from run to run and machine to machine: dates,
    times, a command's duration, the path of the Python running the tests."""
    return _SECONDS.sub(
        "<seconds>)", _STAMP.sub("<time>", text.replace(sys.executable, "<python>"))
    )


def session_lay_out(root: Path, rule: RuleSpec, world: World) -> None:
    """A coding session's files that make every atom of `world` as it says."""
    value = {(a.probe, a.param): v for a, v in world.items()}
    folder = root / PROGRESS
    folder.mkdir(parents=True)
    if value.get(("exists", ""), True):
        pending = value.get(("field", "features[status=pending]"), False)
        other = value.get(("field", "features[status=pending][id!=$feature_id]"), False)
        statuses = {"F1": "pending" if pending and not other else "tested", "F2": "tested"}
        if other:
            statuses["F2"] = "pending"
        features = [{"id": i, "description": i, "status": s} for i, s in statuses.items()]
        (folder / "feature-list.json").write_text(
            json.dumps({"test_command": TEST_COMMAND, "features": features})
        )
    if value.get(("passes", "test_command"), False):
        (root / "tests-pass").write_text("")
    long_ago = value.get(("over_minutes", "30"), False)
    entered = time.gmtime(time.time() - (3600 if long_ago else 0))
    state = {
        "state": rule.source,
        "feature_id": "F1",
        "attempts": 1 if value.get(("below", "attempts<3"), True) else 3,
        "entered_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", entered),
        "context": {},
        "history": [],
    }
    (folder / "state.json").write_text(json.dumps(state))


def responses(spec: Spec, tmp: Path, machine: object = None) -> str:
    """Every winnable rule's response, one section per rule, in the spec's rule order."""
    out = []
    for rule in spec.rules:
        said = said_by(spec, rule, tmp, machine)
        if said is not None:
            out.append(f"=== {rule.id} {rule.source} {rule.spell}\n{masked(said)}")
    return "".join(out)


def said_by(spec: Spec, rule: RuleSpec, tmp: Path, machine: object) -> str | None:
    """The response of a cast where `rule` wins: in the first winning world the files
    can make (a session's rule that marks a feature needs the feature list there)."""
    if machine is None:
        world = winning_world(spec, rule)
        if world is None:
            return None
        root = tmp / f"{rule.id}-{rule.source}-{rule.spell}"
        lay_out(root, world)
        set_state(root, rule.source)
        result = Workflow(root).cast(rule.spell)
        assert (result.rule, result.after) == (rule.id, rule.dest), (rule, result)
        return result.response
    for n, world in enumerate(worlds(cell_atoms(spec, rule.source, rule.spell))):
        if winner(spec, rule.source, rule.spell, world) != rule:
            continue
        root = tmp / f"{rule.id}-{rule.source}-{rule.spell}-{n}"
        session_lay_out(root, rule, world)
        try:
            result = Workflow(root, machine=machine).cast(rule.spell)  # type: ignore[arg-type]
        except SpellbookError:
            continue
        assert (result.rule, result.after) == (rule.id, rule.dest), (rule, result)
        return result.response
    return None


@pytest.mark.parametrize(
    ("spec", "machine"),
    [("STATE_MACHINE.md", None), ("SESSION_STATE_MACHINE.md", session_machine)],
)
def test_every_winning_rule_says_what_its_golden_says(
    tmp_path: Path,
    spec: str,
    machine: object,
    update_cases: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The tests' command where a world has no feature list to name it.
    monkeypatch.setenv("SPELLBOOK_TEST_COMMAND", TEST_COMMAND)
    got = responses(load_spec(ROOT / "spec" / spec), tmp_path, machine)
    golden = GOLDENS / f"responses-{spec.removesuffix('.md').lower()}.txt"
    if update_cases:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert golden.exists(), f"no {golden.name}: record it with --update-cases"
    assert got == golden.read_text(encoding="utf-8"), (
        f"tests/data/goldens/{golden.name} is not what the spec's rules say now; if the change "
        "is meant, record it with `.venv/bin/python -m pytest "
        "tests/runtime/test_response_goldens.py --update-cases` and review the diff"
    )
