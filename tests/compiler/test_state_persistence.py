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


@pytest.mark.parametrize(
    "sentence",
    [
        "State is kept in .oncall/state.json.",
        "State is kept in **.oncall/state.json**.",
        "State is kept in [.oncall/state.json](.oncall/state.json).",
        "State is kept in [the state file](.oncall/state.json).",
        "The state is stored under `.oncall/` in `state.json`.",
        "The state is kept in `.oncall/state.json`.",
    ],
)
def test_the_state_file_is_read_bare_bold_as_a_link_or_as_folder_and_file(
    sentence: str,
) -> None:
    spec = parse_spec_text(SPEC.replace("The state is kept in `STATE`.", sentence))
    assert (spec.state_file, spec.workspace, spec.state_line) == (
        ".oncall/state.json",
        ".oncall",
        15,
    )
    assert not [n for n in spec.notices if n.kind == "state_file_unread"]


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("State is kept in the .oncall folder.", "it names no path"),
        ("State is kept in `.oncall/status.json`.", "'.oncall/status.json' is no state file"),
    ],
)
def test_a_state_persistence_section_naming_no_state_file_is_said_at_its_line(
    sentence: str, said: str
) -> None:
    spec = parse_spec_text(SPEC.replace("The state is kept in `STATE`.", sentence))
    assert spec.state_file == "state.json" and spec.state_line == 0
    (notice,) = [n for n in spec.notices if n.kind == "state_file_unread"]
    assert notice.line == 15 and said in notice.message
    assert "`state.json` in the repository's top folder" in notice.message
    assert "bare (State is kept in .x/state.json.)" in notice.message


def test_a_bare_state_file_stays_inside_the_repository() -> None:
    with pytest.raises(SpecError, match="not a path inside the repository") as err:
        parse_spec_text(SPEC.replace("The state is kept in `STATE`.", "Kept in .git/state.json."))
    assert err.value.line == 15


def test_a_bare_path_outside_the_state_persistence_section_is_not_the_state_file() -> None:
    text = SPEC.replace("The state is kept in `STATE`.", "")
    spec = parse_spec_text(text + "\nA copy goes to backup/state.json.\n")
    assert spec.state_file == "state.json" and spec.state_line == 0
