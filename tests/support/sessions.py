"""Coding-session workspaces for runtime tests: `.claude/progress/` as the session and a
developer leave it, and the session machine to cast in it."""

from __future__ import annotations

import json
import sys
from functools import cache
from importlib import import_module
from pathlib import Path
from types import ModuleType

from spellbook import Workflow
from spellbook.facts.commands import Run, repository_digest

MACHINE = import_module("spellbook.machines.session_machine")
PROGRESS = ".claude/progress"
ROOT = Path(__file__).resolve().parents[2]
CODE = "tests.support.vocabularies.own_words"  # a vocabulary of Python, the tests' own
# Passes when the repository has a file named tests-pass; the session runs it for real.
TEST_COMMAND = (
    f"{sys.executable} -c \"import os, sys; sys.exit(0 if os.path.exists('tests-pass') else 1)\""
)


def session(root: Path) -> Workflow:
    return Workflow(root, machine=MACHINE)  # type: ignore[arg-type]


@cache
def code_machine() -> ModuleType:
    """The session's spec read with `tests.support.vocabularies.own_words` instead of its Terms:
    Mark and Select are that Python vocabulary's own verbs, and its `judge_write` judges
    hand-made writes of the feature list. Generated in memory, once."""
    from codegen import parse_spec_text
    from codegen.config import ReadOptions
    from codegen.render import render_machine

    text = (ROOT / "spec" / "SESSION_STATE_MACHINE.md").read_text(encoding="utf-8")
    text = text[: text.index("### Terms")] + text[text.index("### Transition Rules") :]
    spec = parse_spec_text(text, "spec/SESSION_STATE_MACHINE.md", options=ReadOptions(CODE))
    module = ModuleType("session_code_machine")
    source = render_machine(spec, "session_code_machine")
    exec(compile(source, "session_code_machine.py", "exec"), module.__dict__)
    return module


def code_session(root: Path) -> Workflow:
    """A session whose Mark and Select are the Python vocabulary's (`code_machine`)."""
    return Workflow(root, machine=code_machine())  # type: ignore[arg-type]


def write_features(root: Path, *ids: str) -> None:
    folder = root / PROGRESS
    folder.mkdir(parents=True, exist_ok=True)
    features = [{"id": i, "description": f"feature {i}", "status": "pending"} for i in ids]
    (folder / "feature-list.json").write_text(
        json.dumps({"test_command": TEST_COMMAND, "features": features}), encoding="utf-8"
    )


def prepared(tmp_path: Path, source: str, *, passing: bool, pending: int | None) -> Workflow:
    """A session in `source`, with `pending` pending features (None: no feature list)
    and tests passing or not."""
    ids = ["F1", "F2"][: pending or 0]
    tmp_path.mkdir(parents=True, exist_ok=True)
    if pending is not None:
        write_features(tmp_path, *(ids or ["DONE"]))
        if not pending:
            data = json.loads((tmp_path / PROGRESS / "feature-list.json").read_text())
            data["features"][0]["status"] = "tested"
            (tmp_path / PROGRESS / "feature-list.json").write_text(json.dumps(data))
    if passing:
        (tmp_path / "tests-pass").write_text("")
    # The tests' last run, as a cast records it: the judge never runs them itself.
    ran = Run("test_command", TEST_COMMAND, 0 if passing else 1, "", 1.0)
    ran.digest = repository_digest(str(tmp_path), PROGRESS)
    state = {
        "state": source,
        "feature_id": "F1",
        "attempts": 1,
        "context": {},
        "history": [],
        "runs": {"test_command": ran.recorded()},
    }
    (tmp_path / PROGRESS).mkdir(parents=True, exist_ok=True)
    (tmp_path / PROGRESS / "state.json").write_text(json.dumps(state))
    return session(tmp_path)


def session_in(root: Path, state: str, command: str, **extra: object) -> None:
    """A session in `state` on feature F1 (pending), whose tests are `command`."""
    folder = root / PROGRESS
    folder.mkdir(parents=True, exist_ok=True)
    features = [{"id": "F1", "description": "one", "status": "pending"}]
    (folder / "feature-list.json").write_text(
        json.dumps({"test_command": command, "features": features})
    )
    data = {"state": state, "feature_id": "F1", "attempts": 1, "context": {}, "history": []}
    data.update(extra)
    (folder / "state.json").write_text(json.dumps(data))
