"""Property tests of the runtime's input boundary: the JSON decoder and the Claude Code hook.

`parse_json` is the one way any JSON the runtime reads is decoded: whatever the
bytes (random values, lone surrogate escapes, integers too long for Python,
nesting too deep for the parser, a byte order mark, CRLF, truncation, binary),
it returns a value that can be written back as UTF-8 or raises BadFile naming
the input; `StateFormat.read` returns a Record or raises StateFileError.

The session machine's PreToolUse hook (`claude_hook`) never raises and answers
0 or 2 (2 with a reason on stderr) for any stdin, and never allows (0) what it
cannot judge or must refuse: stdin that is not a JSON object, a Write of the
state file that is not a valid state file, a Write, Edit or MultiEdit of the
state file that skips testing (IMPLEMENT -> COMPLETE), a hand-made mark of a
feature as tested. It allows IMPLEMENT -> TEST (rule M1) and a Bash command.
All run against one repository whose session is in IMPLEMENT, whose files no
event may change.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from spellbook.errors import BadFile, StateFileError
from spellbook.hook import claude_hook
from spellbook.state_file import Record, StateFormat, parse_json

SHOWN = "the input.json"
EXAMPLES = settings(max_examples=200, deadline=None)
HOOK_EXAMPLES = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

# --- JSON values and the texts made of them -----------------------------------

SURROGATES = ["\ud83d", "\ude00", "\ud800", "\udfff"]  # halves of a character
ESCAPED_SURROGATES = ['"\\ud83d"', '"\\ude00"', '"\\uDBFF"', '"\\ude00\\ud83d"', '{"\\ud800": 1}']
BOM = "\ufeff"

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)


def _trees(leaves: st.SearchStrategy[Any], keys: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=20,
    )


# JSON values with no lone surrogate in them: they round-trip.
json_values = _trees(scalars, st.text(max_size=8))
# Text that may hold halves of a character, alone or in pairs.
wild_text = st.text(st.characters() | st.sampled_from(SURROGATES), max_size=20)
wild_values = _trees(scalars | wild_text, wild_text)


def huge_integers(low: int = 4_301, high: int = 6_000) -> st.SearchStrategy[str]:
    """An integer literal longer than Python reads (4,300 digits)."""
    return st.builds(
        lambda n, sign: sign + "1" * n, st.integers(low, high), st.sampled_from(["", "-"])
    )


def deep_nesting() -> st.SearchStrategy[str]:
    return st.builds(
        lambda n, shape: {
            "open": "[" * n,
            "closed": "[" * n + "]" * n,
            "objects": '{"a":' * n + "1" + "}" * n,
            "mixed": '[{"a":' * n,
        }[shape],
        st.integers(1, 200_000),
        st.sampled_from(["open", "closed", "objects", "mixed"]),
    )


hostile_fragments = st.one_of(
    st.sampled_from(ESCAPED_SURROGATES),
    st.sampled_from(SURROGATES),
    huge_integers(),
    deep_nesting(),
    st.sampled_from(["\r\n", BOM, "\x00", "NaN", "Infinity", "-", "1e999999", '"\\', "\\u12"]),
    st.text(max_size=10),
)


def serialized(value: Any, ensure_ascii: bool, indent: int | None, crlf: bool, bom: bool) -> str:
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    if crlf:
        text = text.replace("\n", "\r\n")  # json.dumps writes a newline only between tokens
    return BOM + text if bom else text


def as_input(text: str, as_bytes: bool) -> bytes | str:
    """The text as a str, or as the bytes a file holding it would (a lone surrogate
    becomes the three bytes no UTF-8 decoder accepts)."""
    return text.encode("utf-8", "surrogatepass") if as_bytes else text


@st.composite
def documents(draw: st.DrawFn) -> bytes | str:
    """A file or an event, as the runtime might be given it."""
    kind = draw(st.sampled_from(["value", "fragment", "binary"]))
    if kind == "binary":
        return draw(st.binary(max_size=200))
    if kind == "fragment":
        text = draw(hostile_fragments)
    else:
        text = serialized(
            draw(wild_values),
            draw(st.booleans()),
            draw(st.none() | st.just(1)),
            draw(st.booleans()),
            draw(st.booleans()),
        )
    for _ in range(draw(st.integers(0, 2))):  # splice hostile pieces in
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(hostile_fragments) + text[at:]
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]  # cut short
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text = BOM + text
    return as_input(text, draw(st.booleans()))


def to_bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data


def encodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# --- parse_json --------------------------------------------------------------


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


# --- StateFormat.read ----------------------------------------------------------

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


# --- the Claude Code hook -------------------------------------------------------

PROGRESS = ".claude/progress"
SESSION_STATES = ["START", "INIT", "IMPLEMENT", "TEST", "COMPLETE"]
CURRENT = {"state": "IMPLEMENT", "feature_id": "F1", "attempts": 1, "context": {}, "history": []}
FEATURES = {
    "test_command": "false",
    "features": [{"id": "F1", "description": "x", "status": "pending"}],
}
TOOLS = ["Write", "Edit", "MultiEdit", "Bash", "Read"]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A repository whose session is in IMPLEMENT, on its first feature; the hook is given
    it as --root, so $CLAUDE_PROJECT_DIR must play no part."""
    root = tmp_path_factory.mktemp("repo")
    (root / PROGRESS).mkdir(parents=True)
    (root / PROGRESS / "state.json").write_text(json.dumps(CURRENT), encoding="utf-8")
    (root / PROGRESS / "feature-list.json").write_text(json.dumps(FEATURES), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("CLAUDE_PROJECT_DIR", raising=False)
        yield root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def run_hook(root: Path, stdin: bytes, capsys: pytest.CaptureFixture[str]) -> int:
    """The hook's answer to `stdin`: 0, or 2 with a reason (and no traceback) on stderr.
    It changes no file of the repository."""
    before = snapshot(root)
    capsys.readouterr()
    code = claude_hook(str(root), "session", io.BytesIO(stdin))
    err = capsys.readouterr().err
    assert code in (0, 2), (code, stdin[:300])
    if code == 2:
        assert err.strip(), stdin[:300]
        assert "Traceback" not in err, err
    assert snapshot(root) == before
    return code


def event_bytes(event: Any, ensure_ascii: bool = True) -> bytes:
    return json.dumps(event, ensure_ascii=ensure_ascii).encode("utf-8", "surrogatepass")


def spellings(root: Path, name: str) -> st.SearchStrategy[tuple[str | None, str]]:
    """(cwd, file_path) pairs that all name the workspace file `name`."""
    absolute = str(root / PROGRESS / name)
    here, below, deeper = str(root), str(root / "src"), str(root / "src" / "deep")
    return st.sampled_from(
        [
            (None, absolute),
            (here, absolute),
            (below, absolute),
            (None, f"{root}/./{PROGRESS}/./{name}"),
            (None, f"{root}/{PROGRESS}/../progress/{name}"),
            (None, f"{root}//{PROGRESS}//{name}"),
            (None, f"{PROGRESS}/{name}"),
            (None, f"./{PROGRESS}/{name}"),
            (here, f"{PROGRESS}/{name}"),
            (here, f"./.claude/./progress/{name}"),
            (below, f"../{PROGRESS}/{name}"),
            (deeper, f"../../{PROGRESS}/{name}"),
            (deeper, f"./../../.claude/progress/../progress/{name}"),
        ]
    )


def write(cwd: str | None, file_path: str, tool: str, **tool_input: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"file_path": file_path, **tool_input},
    }
    if cwd is not None:
        event["cwd"] = cwd
    return event


def state_text(value: dict[str, Any], indent: int | None, crlf: bool) -> str:
    return serialized(value, True, indent, crlf, False)


@st.composite
def proposed_states(draw: st.DrawFn, state: st.SearchStrategy[Any]) -> dict[str, Any]:
    """A state file as a hand might write it: the given state, the session's fields as
    they are (only casts change them), and any context and history."""
    value: dict[str, Any] = {"state": draw(state)}
    if draw(st.booleans()):
        value["feature_id"] = "F1"
    if draw(st.booleans()):
        value["attempts"] = 1
    value["context"] = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=3))
    value["history"] = draw(st.lists(json_values, max_size=3))
    return value


@st.composite
def state_contents(draw: st.DrawFn) -> Any:
    """Write content for the state file: often a state file with a random state,
    sometimes with an integer too long to read or a lone surrogate spliced in,
    sometimes not text at all."""
    kind = draw(st.sampled_from(["state", "twisted", "value"]))
    if kind == "value":
        return draw(wild_values)
    names = st.sampled_from([*SESSION_STATES, "DONE", "implement", ""]) | wild_text
    text = state_text(
        draw(proposed_states(names)), draw(st.none() | st.just(2)), draw(st.booleans())
    )
    if kind == "twisted":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(hostile_fragments) + text[at:]
    return text


@st.composite
def edits(draw: st.DrawFn) -> dict[str, Any]:
    """old_string/new_string (or a MultiEdit's edits), well-formed or not."""
    pieces = st.sampled_from(['"IMPLEMENT"', '"COMPLETE"', '"TEST"', '"F1"', "pending", "tested"])
    strings = pieces | wild_text
    edit: dict[str, Any] = {}
    for key in ("old_string", "new_string"):
        if draw(st.integers(0, 4)):
            edit[key] = draw(strings if draw(st.integers(0, 3)) else wild_values)
    if draw(st.booleans()):
        edit["replace_all"] = draw(st.booleans() | wild_values)
    shape = draw(st.sampled_from(["edit", "edits", "bad edits", "bad items"]))
    if shape == "edit":
        return edit
    if shape == "edits":
        return {"edits": [edit, *draw(st.lists(st.just(edit), max_size=2))]}
    if shape == "bad edits":
        return {"edits": draw(wild_values.filter(lambda v: not isinstance(v, list)))}
    return {"edits": [edit, *draw(st.lists(wild_values, min_size=1, max_size=3))]}


rarely = st.sampled_from([True] + [False] * 9)


@st.composite
def events(draw: st.DrawFn, root: Path) -> bytes:
    """A PreToolUse event, often well-formed, on the state file, the feature list or
    some other file, with any content, edits, and cwd."""
    target = draw(st.sampled_from(["state.json"] * 3 + ["feature-list.json", "notes.md", "."]))
    cwd, file_path = draw(spellings(root, target))
    if draw(rarely):
        file_path = draw(
            st.sampled_from(
                [
                    "/etc/hosts",
                    str(root / "src" / "x.py"),
                    "x.py",
                    ".claude/x",
                    f"{root}/{PROGRESS}/state.json\x00",  # no path holds a NUL
                    f"{root}/{PROGRESS}/{'a' * 5000}",  # nor a name this long
                    f"{root}/{PROGRESS}/" + "x/" * 3000 + "state.json",
                ]
            )
        )
    elif draw(rarely):
        file_path = draw(wild_values)
    if draw(rarely):
        cwd = draw(wild_values)
    tool: dict[str, Any] = {}
    if file_path is not None or draw(st.booleans()):
        tool["file_path"] = file_path
    kind = draw(st.sampled_from(["content", "content", "edits", "other"]))
    if kind == "content":
        tool["content"] = draw(state_contents())
    elif kind == "edits":
        tool.update(draw(edits()))
    else:
        tool.update(draw(st.dictionaries(wild_text, wild_values, max_size=3)))
    event: dict[str, Any] = {"tool_name": draw(st.sampled_from(TOOLS)), "tool_input": tool}
    if cwd is not None or draw(st.booleans()):
        event["cwd"] = cwd
    if draw(rarely):
        event["tool_input"] = draw(wild_values)
    return event_bytes(event, draw(st.booleans()))


@HOOK_EXAMPLES
@given(st.data())
def test_hook_answers_0_or_2_to_any_stdin(
    repo: Path, capsys: pytest.CaptureFixture[str], data: st.DataObject
) -> None:
    stdin = data.draw(
        st.one_of(
            st.binary(max_size=300),
            documents().map(to_bytes),
            wild_values.map(event_bytes),
            events(repo),
        )
    )
    run_hook(repo, stdin, capsys)


def is_json_object(data: bytes) -> bool:
    try:
        return isinstance(json.loads(data), dict)
    except Exception:
        return False


@HOOK_EXAMPLES
@given(st.data())
def test_hook_blocks_stdin_that_is_not_a_json_object(
    repo: Path, capsys: pytest.CaptureFixture[str], data: st.DataObject
) -> None:
    stdin = data.draw(
        st.one_of(
            st.sampled_from([b"", b" ", b"\r\n", BOM.encode(), b"null", b"[]", b"{", b"{}}"]),
            st.binary(max_size=300),
            json_values.filter(lambda v: not isinstance(v, dict)).map(event_bytes),
            documents().map(to_bytes),
        )
    )
    assume(not is_json_object(stdin))
    assert run_hook(repo, stdin, capsys) == 2


@st.composite
def invalid_state_contents(draw: st.DrawFn) -> str:
    """Text that is not a valid session state file, though it would move IMPLEMENT to
    TEST (which the spec allows) if it were read as one."""
    value = draw(proposed_states(st.just("TEST")))
    text = state_text(value, draw(st.none() | st.just(1)), draw(st.booleans()))
    kind = draw(
        st.sampled_from(
            ["cut", "text", "not object", "state", "context", "field", "huge", "surrogate"]
        )
    )
    if kind == "cut":
        return text[: draw(st.integers(0, len(text) - 1))]
    if kind == "text":
        return draw(st.text(max_size=40).filter(lambda t: not is_json_object(t.encode())))
    if kind == "not object":
        return json.dumps(draw(json_values.filter(lambda v: not isinstance(v, dict))))
    if kind == "state":
        value["state"] = draw(
            st.sampled_from(["DONE", "test", "TEST ", ""])
            | st.text(max_size=10).filter(lambda s: s not in SESSION_STATES)
            | json_values.filter(lambda v: not isinstance(v, str))
        )
        if draw(st.booleans()):
            del value["state"]
    elif kind == "context":
        key = draw(st.sampled_from(["context", "history"]))
        kind_of = dict if key == "context" else list
        value[key] = draw(json_values.filter(lambda v: not isinstance(v, kind_of)))
    elif kind == "field":
        if draw(st.booleans()):
            value["attempts"] = draw(st.sampled_from([True, 1.5, "1", [1], {}]))
        else:
            value[draw(st.sampled_from(["feature_id", "entered_at"]))] = draw(
                st.sampled_from([1, True, [], {}, 1.5])
            )
    elif kind == "huge":
        key = draw(st.sampled_from(["attempts", "extra", "context"]))
        value[key] = "HUGE"
        return json.dumps(value).replace('"HUGE"', draw(huge_integers()))
    else:
        key = draw(st.sampled_from(["note", "feature_id", "context"]))
        value[key] = "HALF"
        return json.dumps(value).replace('"HALF"', draw(st.sampled_from(ESCAPED_SURROGATES)))
    return state_text(value, None, False)


@HOOK_EXAMPLES
@given(st.data())
def test_hook_blocks_a_write_of_the_state_file_it_cannot_read(
    repo: Path, capsys: pytest.CaptureFixture[str], data: st.DataObject
) -> None:
    cwd, file_path = data.draw(spellings(repo, "state.json"))
    content = data.draw(invalid_state_contents())
    event = write(cwd, file_path, "Write", content=content)
    assert run_hook(repo, event_bytes(event, data.draw(st.booleans())), capsys) == 2


def move_to(repo: Path, data: st.DataObject, state: str) -> bytes:
    """An event that moves the state file to `state`: a Write, an Edit or a MultiEdit."""
    cwd, file_path = data.draw(spellings(repo, "state.json"))
    how = data.draw(st.sampled_from(["Write", "Edit", "MultiEdit"]))
    if how == "Write":
        value = data.draw(proposed_states(st.just(state)))
        content = state_text(value, data.draw(st.none() | st.just(2)), data.draw(st.booleans()))
        event = write(cwd, file_path, how, content=content)
    elif how == "Edit":
        event = write(cwd, file_path, how, old_string='"IMPLEMENT"', new_string=json.dumps(state))
    else:
        steps = [
            {"old_string": '"context": {}', "new_string": '"context": {"note": "x"}'},
            {"old_string": '"IMPLEMENT"', "new_string": json.dumps(state)},
        ]
        event = write(cwd, file_path, how, edits=steps)
    return event_bytes(event, data.draw(st.booleans()))


@HOOK_EXAMPLES
@given(st.data())
def test_hook_blocks_a_move_from_implement_to_complete(
    repo: Path, capsys: pytest.CaptureFixture[str], data: st.DataObject
) -> None:
    assert run_hook(repo, move_to(repo, data, "COMPLETE"), capsys) == 2


@HOOK_EXAMPLES
@given(st.data())
def test_hook_allows_a_move_from_implement_to_test(
    repo: Path, capsys: pytest.CaptureFixture[str], data: st.DataObject
) -> None:
    assert run_hook(repo, move_to(repo, data, "TEST"), capsys) == 0  # rule M1


@HOOK_EXAMPLES
@given(st.data())
def test_hook_blocks_marking_a_feature_tested_by_hand(
    repo: Path, capsys: pytest.CaptureFixture[str], data: st.DataObject
) -> None:
    cwd, file_path = data.draw(spellings(repo, "feature-list.json"))
    if data.draw(st.booleans()):
        features = json.loads(json.dumps(FEATURES))
        features["features"][0]["status"] = "tested"
        others = data.draw(st.lists(st.sampled_from(["F2", "F3"]), max_size=2, unique=True))
        features["features"] += [
            {"id": i, "description": data.draw(st.text(max_size=10)), "status": "pending"}
            for i in others
        ]
        indent = data.draw(st.none() | st.just(2))
        event = write(cwd, file_path, "Write", content=json.dumps(features, indent=indent))
    else:
        event = write(cwd, file_path, "Edit", old_string='"pending"', new_string='"tested"')
    assert run_hook(repo, event_bytes(event, data.draw(st.booleans())), capsys) == 2


@HOOK_EXAMPLES
@given(
    st.text(max_size=40),
    st.none() | st.sampled_from([".", "/", "src"]),
    st.dictionaries(st.sampled_from(["description", "timeout", "run_in_background"]), json_values),
)
def test_hook_allows_a_bash_command(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    cwd: str | None,
    other: dict[str, Any],
) -> None:
    event: dict[str, Any] = {
        "tool_name": "Bash",
        "tool_input": {"command": command, **other},
    }
    if cwd is not None:
        event["cwd"] = os.path.join(repo, cwd)
    assert run_hook(repo, event_bytes(event), capsys) == 0
