"""The state file's encoding: readable JSON, and the same with or without the cache."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from spellbook.state_file import Record, StateFormat, dump

scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


@given(
    st.dictionaries(st.text(max_size=6), values, max_size=4),
    st.lists(st.lists(values, max_size=3), max_size=4),
)
def test_dump_round_trips_and_the_cache_changes_nothing(
    fields: dict[str, Any], appends: list[list[Any]]
) -> None:
    history: list[Any] = []
    state: dict[str, Any] = {"state": "S", **fields, "history": history}
    known: dict[int, tuple[int, bytes]] = {}
    for batch in [[], *appends]:
        history.extend(batch)
        cached = dump(state, known)
        assert cached == dump(state)
        assert json.loads(cached) == state


def test_dump_puts_each_key_and_each_history_entry_on_its_own_line() -> None:
    text = dump({"state": "S", "history": [{"a": 1}, {"b": "é"}], "context": {}}).decode()
    assert text == (
        '{\n  "state": "S",\n  "history": [\n    {"a": 1},\n    {"b": "é"}\n  ],\n'
        '  "context": {}\n}\n'
    )


def test_a_damaged_state_file_with_a_key_not_in_ascii_still_names_its_state() -> None:
    # `spell repair` reads the state off the head of a file that is not JSON any more.
    fmt = StateFormat("état", ("timestamp",), (), {}, "S")
    data = fmt.write(Record("DONE", {}, [{"timestamp": "x"}], {}))
    assert fmt.last_state({}, {"DONE"}, data[:40]) == "DONE"
