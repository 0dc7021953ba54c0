"""The state file's encoding: readable JSON, and the same with or without the cache.

`parse_json` is the one way any JSON the runtime reads is decoded: whatever the
bytes (random values, lone surrogate escapes, integers too long for Python,
nesting too deep for the parser, a byte order mark, CRLF, truncation, binary),
it returns a value that can be written back as UTF-8 or raises BadFile naming
the input; `StateFormat.read` returns a Record or raises StateFileError.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spellbook import Workflow
from spellbook.disk.state_file import Record, StateFormat, dump, parse_json
from spellbook.records.errors import BadFile, StateFileError
from tests.support.commands import clean, session_cli, spell
from tests.support.json_inputs import (
    BOM,
    HUGE,
    SURROGATES,
    as_input,
    documents,
    huge_integers,
    json_values,
    serialized,
    to_bytes,
    wild_text,
    wild_values,
)
from tests.support.sessions import PROGRESS, session_in
from tests.support.workspaces import (
    TASK,
    plan,
    set_state,
    write,
)

scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)

SHOWN = "the input.json"
EXAMPLES = settings(max_examples=200, deadline=None)


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


def encodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@EXAMPLES
@given(documents())
def test_parse_json_returns_a_writable_value_or_bad_file(data: bytes | str) -> None:
    try:
        value = parse_json(data, SHOWN)
    except BadFile as err:
        assert str(err).startswith(SHOWN), err
        return
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # no lone surrogate got through


@EXAMPLES
@given(
    json_values,
    st.booleans(),
    st.none() | st.integers(0, 2),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_parse_json_reads_back_what_json_wrote(
    value: Any, ensure_ascii: bool, indent: int | None, crlf: bool, bom: bool, as_bytes: bool
) -> None:
    text = serialized(value, ensure_ascii, indent, crlf, bom)
    assert parse_json(as_input(text, as_bytes), SHOWN) == value


@EXAMPLES
@given(
    json_values,
    st.sampled_from(SURROGATES),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_parse_json_refuses_a_lone_surrogate(
    value: Any, half: str, ensure_ascii: bool, as_bytes: bool, first: bool
) -> None:
    document = [half + "x", value] if first else [value, {"note": "x" + half}]
    text = json.dumps(document, ensure_ascii=ensure_ascii)
    with pytest.raises(BadFile) as refused:
        parse_json(as_input(text, as_bytes), SHOWN)
    assert str(refused.value).startswith(SHOWN)


@EXAMPLES
@given(json_values, huge_integers(), st.integers(0, 3), st.booleans())
def test_parse_json_refuses_an_integer_too_long_to_read(
    value: Any, digits: str, where: int, as_bytes: bool
) -> None:
    shapes = [
        digits,
        f"[{json.dumps(value)}, {digits}]",
        f'{{"a": {json.dumps(value)},\r\n "n": {digits}}}',
        f"{BOM}[[[{digits}]]]",
    ]
    with pytest.raises(BadFile, match="digits") as refused:
        parse_json(as_input(shapes[where], as_bytes), SHOWN)
    assert str(refused.value).startswith(SHOWN)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 200_000), st.sampled_from(["[", '{"a":', "[{}, "]))
def test_parse_json_refuses_unclosed_deep_nesting(depth: int, opener: str) -> None:
    with pytest.raises(BadFile) as refused:
        parse_json(opener * depth, SHOWN)
    assert str(refused.value).startswith(SHOWN)


STATES = {"A", "B"}


def read_or_refuse(data: bytes) -> Record | None:
    """The record, or None where StateFileError (and nothing else) refused it."""
    try:
        record = StateFormat().read(data, "state.json", STATES)
    except StateFileError as err:
        assert str(err).startswith("state.json"), err
        return None
    assert isinstance(record, Record)
    assert record.state in STATES
    assert isinstance(record.context, dict) and isinstance(record.history, list)
    return record


@EXAMPLES
@given(documents())
def test_state_format_reads_a_record_or_refuses_any_input(data: bytes | str) -> None:
    read_or_refuse(to_bytes(data))


@st.composite
def state_objects(draw: st.DrawFn) -> dict[str, Any]:
    value: dict[str, Any] = draw(st.dictionaries(wild_text, wild_values, max_size=3))  # junk
    if draw(st.booleans()):
        value["current_state"] = draw(st.sampled_from(["A", "B", "C", "", "a"]) | wild_values)
    if draw(st.booleans()):
        value["context"] = draw(st.dictionaries(wild_text, wild_values, max_size=3) | wild_values)
    if draw(st.booleans()):
        value["history"] = draw(st.lists(wild_values, max_size=3) | wild_values)
    return value


@EXAMPLES
@given(state_objects(), st.booleans(), st.none() | st.just(1), st.booleans(), st.booleans())
def test_state_format_reads_exactly_the_well_formed_objects(
    value: dict[str, Any], ensure_ascii: bool, indent: int | None, crlf: bool, bom: bool
) -> None:
    text = serialized(value, ensure_ascii, indent, crlf, bom)
    record = read_or_refuse(text.encode("utf-8", "surrogatepass"))
    well_formed = (
        isinstance(value.get("current_state"), str)
        and value["current_state"] in STATES
        and isinstance(value.get("context", {}), dict)
        and isinstance(value.get("history", []), list)
        and encodable(value)
    )
    if not well_formed:
        return
    assert record is not None, value
    assert record.state == value["current_state"]
    assert record.context == value.get("context", {})
    assert record.history == value.get("history", [])
    assert record.extra == {
        k: v for k, v in value.items() if k not in ("current_state", "context", "history")
    }


def test_a_lone_surrogate_in_the_feature_list_is_a_clear_error(tmp_path: Path) -> None:
    session_in(tmp_path, "TEST", "true")
    features = tmp_path / PROGRESS / "feature-list.json"
    features.write_text(
        '{"test_command": "true",\n "features": [{"id": "F1", "status": '
        '"pending", "description": "\\udc80"}]}'
    )
    result = session_cli("--root", str(tmp_path), "advance")
    assert result.returncode == 2
    assert "feature-list.json:2" in clean(result)
    assert json.loads((tmp_path / PROGRESS / "state.json").read_text())["state"] == "TEST"
    features.write_text(
        json.dumps(
            {
                "test_command": "true",
                "features": [{"id": "F1", "status": "pending", "description": "fixed"}],
            }
        )
    )
    assert session_cli("--root", str(tmp_path), "advance").returncode == 0  # T2: not stuck


def test_a_huge_integer_in_the_state_file_or_intent_record_is_refused(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=0))
    state = tmp_path / TASK / "state.json"
    state.write_text(f'{{"current_state": "GATHER_EDITING", "n": {HUGE}}}')
    for command in ("lumos", "status"):
        result = spell(tmp_path, command)
        assert result.returncode == 2 and "4,400 digits" in clean(result)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0 and "GATHER_EDITING" in repaired.stdout, repaired.stderr
    intent = tmp_path / TASK / ".intent.json"
    intent.write_text(f'{{"cast": {HUGE}}}')
    result = spell(tmp_path, "lumos")
    assert result.returncode == 2 and "intent.json" in clean(result)
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0 and "Set its record aside" in repaired.stdout
    assert spell(tmp_path, "lumos").returncode == 0


def test_a_byte_order_mark_in_the_state_file_is_read(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=0))
    state = tmp_path / TASK / "state.json"
    state.write_bytes(b"\xef\xbb\xbf" + state.read_bytes().replace(b"\n", b"\r\n"))
    result = spell(tmp_path, "lumos")
    assert result.returncode == 0, result.stderr


def test_bad_file_errors_name_the_file(tmp_path: Path) -> None:
    """The library raises its own errors, never a bare OSError or ValueError."""
    set_state(tmp_path, "GATHER_EDITING")
    (tmp_path / TASK / "state.json").write_text('{"current_state": "GATHER_EDITING", "x": [')
    with pytest.raises(StateFileError, match=r"state.json:1: not valid JSON"):
        Workflow(tmp_path).cast("lumos")
    assert issubclass(StateFileError, BadFile)
    shutil.rmtree(tmp_path / TASK)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"current_state": "A\tB"}', "not valid JSON at column 21: a tab inside a string, "),
        ('{"a": "x\ny"}', "not valid JSON at column 9: a line break inside a string, "),
        ('{"a": "x\x01"}', "column 9: the control character U+0001 inside a string, where JSON"),
        ('{"a": 1,}', "not valid JSON at column 9: Expecting property name enclosed in"),
    ],
)
def test_json_that_cannot_be_read_is_said_in_a_whole_sentence(
    tmp_path: Path, text: str, said: str
) -> None:
    (tmp_path / TASK).mkdir(parents=True)
    (tmp_path / TASK / "state.json").write_text(text, encoding="utf-8")
    with pytest.raises(StateFileError) as raised:
        Workflow(tmp_path).cast("lumos")
    assert said in str(raised.value), str(raised.value)
    assert " at," not in str(raised.value)


@given(
    st.datetimes(),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_a_time_field_is_read_as_the_calendar_reads_it(moment: Any, minutes: int) -> None:
    """`seconds` is UTC's epoch of a time written with `Z`, an offset, or none, as the
    standard library's calendar says it (no import of datetime at a cast's start)."""
    import calendar

    from spellbook.disk.state_file import seconds

    written = moment.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0")
    utc = calendar.timegm(moment.timetuple())
    assert seconds(written + "Z") == seconds(written) == utc
    sign, hours, rest = "+" if minutes >= 0 else "-", abs(minutes) // 60, abs(minutes) % 60
    assert seconds(f"{written}{sign}{hours:02d}:{rest:02d}") == utc - minutes * 60
    assert seconds(written.replace("T", " ")) is None
