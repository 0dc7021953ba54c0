"""The spec's State Persistence section: where the state file is kept, and only inside
the repository."""

from __future__ import annotations

import pytest

from codegen import parse_spec_text
from codegen.spec_error import SpecError

SPEC = """\
# S

### Spells

1. **Go**

### States

1. **A**
    - *Description*: a
    - *Valid Actions*: Go

### State Persistence

The state is kept in `STATE`.

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| G1 | A | Go | - | Same state | No state change | Done. |
"""


@pytest.mark.parametrize(
    "state_file",
    [
        "../escaped/state.json",
        "/tmp/state.json",
        "~/state.json",
        "C:/w/state.json",
        "a/../../state.json",
        ".git/state.json",
    ],
)
def test_a_state_file_outside_the_repository_is_refused_at_its_line(state_file: str) -> None:
    with pytest.raises(SpecError, match="not a path inside the repository") as err:
        parse_spec_text(SPEC.replace("STATE", state_file))
    assert err.value.line == 15
