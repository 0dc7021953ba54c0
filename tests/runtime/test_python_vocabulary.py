"""A vocabulary written in Python (`tests.support.vocabularies.own_words`), the kind a team whose
workflow needs code may still name: its verbs plan casts and set the state file's
fields, and its judge refuses hand-made writes of the files it guards."""

# ruff: noqa: E501 (the tables' rows are one line each)

from __future__ import annotations

import json
import types
from pathlib import Path

from codegen import parse_spec_text
from codegen.read.lexicon import ReadOptions
from codegen.render import render_machine
from spellbook import Workflow

SPEC = """\
# Features

## Machine

### Spells
1. **Advance**
   - *Description*: go on

### States
1. **START**
    - *Description*: nothing chosen
    - *Valid Actions*: Advance
2. **WORK**
    - *Description*: a feature in hand
    - *Valid Actions*: Advance
3. **DONE**
    - *Description*: every feature tested
    - *Valid Actions*: Advance
    - *Goal*: yes

### State Persistence
The state is kept in `.w/state.json`:
```json
{ "current_state": "START", "feature_id": null, "attempts": 0 }
```

### Transition Rules
| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| A1 | START | Advance | feature-list.json has a pending feature | WORK | Select the next pending feature in feature-list.json | Chosen. |
| A2 | START | Advance | feature-list.json has no pending feature | DONE | No state change | Nothing to do. |
| A3 | WORK | Advance | - | DONE | Mark the current feature tested in feature-list.json | Tested. |
| A4 | DONE | Advance | - | Same state | No state change | Done. |
"""
FEATURES = {
    "test_command": "true",
    "features": [
        {"id": "F1", "description": "one", "status": "pending"},
        {"id": "F2", "description": "two", "status": "tested"},
    ],
}


def machine() -> types.ModuleType:
    options = ReadOptions("tests.support.vocabularies.own_words")
    source = render_machine(parse_spec_text(SPEC, "features.md", options=options), "features")
    assert 'VOCABULARY = "tests.support.vocabularies.own_words"' in source  # imported to cast
    module = types.ModuleType("features")
    exec(compile(source, "features.py", "exec"), module.__dict__)
    return module


def test_a_python_vocabulary_s_verbs_plan_the_cast_and_set_its_fields(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    listed = tmp_path / ".w" / "feature-list.json"
    listed.write_text(json.dumps(FEATURES), encoding="utf-8")
    flow = Workflow(tmp_path, machine=machine())  # type: ignore[arg-type]
    assert flow.cast("advance").after == "WORK"
    assert flow.read().extra["feature_id"] == "F1"  # `writes` of the verb `select`
    assert flow.cast("advance").after == "DONE"
    assert json.loads(listed.read_text())["features"][0]["status"] == "tested"


def test_a_python_vocabulary_s_judge_refuses_a_hand_made_write(tmp_path: Path) -> None:
    (tmp_path / ".w").mkdir()
    listed = tmp_path / ".w" / "feature-list.json"
    listed.write_text(json.dumps(FEATURES), encoding="utf-8")
    flow = Workflow(tmp_path, machine=machine())  # type: ignore[arg-type]
    marked = json.loads(json.dumps(FEATURES))
    marked["features"][0]["status"] = "tested"
    allowed, why = flow.judge_write("feature-list.json", json.dumps(marked))
    assert not allowed and "only the session marks it" in why
    more = json.loads(json.dumps(FEATURES))
    more["features"].append({"id": "F3", "description": "three", "status": "pending"})
    assert flow.judge_write("feature-list.json", json.dumps(more))[0]
    assert flow.judge_write("notes.md", "anything")[0]  # a file it does not guard
