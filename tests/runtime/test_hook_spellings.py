"""The hook judges a file by what it is, not by how a tool call spells it: case variants,
Unicode normalization, trailing dots and spaces, `..`, `/proc/self/cwd`, hard links, and
any tool that names a path (NotebookEdit's `notebook_path`, an MCP tool's `path`). No
spelling lets a move the spec forbids through (IMPLEMENT -> COMPLETE skips testing)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spellbook.doors.hook import claude_hook, judge_event
from tests.support.json_inputs import json_values
from tests.support.sessions import PROGRESS, session_in

FORBIDDEN = json.dumps({"state": "COMPLETE", "attempts": 1, "feature_id": "F1"})


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    (root / ".git").mkdir()
    session_in(root, "IMPLEMENT", "false")
    os.link(root / PROGRESS / "state.json", root / PROGRESS / "second-name.json")
    os.link(root / PROGRESS / "state.json", root / "outside.json")
    return root


def name_spellings() -> st.SearchStrategy[str]:
    def vary(name: str, upper: list[bool], tail: str, form: str) -> str:
        cased = "".join(c.upper() if u else c for c, u in zip(name, upper, strict=False))
        return unicodedata.normalize(form, cased + name[len(upper) :]) + tail

    return st.one_of(
        st.builds(
            vary,
            st.just("state.json"),
            st.lists(st.booleans(), max_size=10),
            st.sampled_from(["", ".", " ", ". ", "..."]),
            st.sampled_from(["NFC", "NFD"]),
        ),
        st.just("second-name.json"),
    )


def folder_spellings(root: Path) -> st.SearchStrategy[str]:
    progress = str(root / PROGRESS)
    return st.sampled_from(
        [
            progress,
            f"{root}/.claude/../.claude/progress",
            f"{root}/./.claude/progress/",
            f"/proc/self/cwd/{PROGRESS}" if os.path.isdir("/proc/self/cwd") else progress,
        ]
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_no_spelling_of_the_state_file_lets_a_forbidden_move_through(
    repo: Path, data: st.DataObject
) -> None:
    folder = data.draw(folder_spellings(repo))
    name = data.draw(name_spellings())
    key = data.draw(st.sampled_from(["file_path", "notebook_path", "path"]))
    tool = {key: f"{folder.rstrip('/')}/{name}", "content": FORBIDDEN}
    event = {
        "tool_name": data.draw(st.sampled_from(["Write", "NotebookEdit", "mcp__fs__write"])),
        "tool_input": tool,
        "cwd": str(repo),
    }
    here = os.getcwd()
    os.chdir(repo)  # `/proc/self/cwd` is the judging process's folder: the repository
    try:
        allowed, why = judge_event(None, "session", json.dumps(event).encode())
    finally:
        os.chdir(here)
    assert not allowed, (tool, why)


def test_a_hard_link_outside_the_workspace_is_judged_as_the_state_file(repo: Path) -> None:
    event = {
        "tool_input": {"file_path": str(repo / "outside.json"), "content": FORBIDDEN},
        "cwd": str(repo),
    }
    assert not judge_event(None, "session", json.dumps(event).encode())[0]


def test_a_tool_whose_change_the_hook_cannot_read_is_blocked_on_a_guarded_file(
    repo: Path,
) -> None:
    event = {
        "tool_name": "NotebookEdit",
        "cwd": str(repo),
        "tool_input": {"notebook_path": str(repo / PROGRESS / "state.json"), "new_source": "x"},
    }
    allowed, why = judge_event(None, "session", json.dumps(event).encode())
    assert not allowed and "cannot tell what this tool would write" in why
    # A file of no workspace stays the tool's business.
    event["tool_input"] = {"notebook_path": str(repo / "notes.ipynb"), "new_source": "x"}
    assert judge_event(None, "session", json.dumps(event).encode())[0]


def test_a_tool_that_only_reads_the_state_file_is_let_through(repo: Path) -> None:
    """Reading is no move: a Read of the state file is allowed, whatever the matcher."""
    state = str(repo / PROGRESS / "state.json")
    read = {"tool_name": "Read", "cwd": str(repo), "tool_input": {"file_path": state}}
    assert judge_event(None, "session", json.dumps(read).encode())[0]
    read["tool_name"] = "Write"  # the same event from a tool that writes: judged, refused
    assert not judge_event(None, "session", json.dumps(read).encode())[0]


# -- any tool, any key: a move, copy or delete naming a guarded file or folder --

MOVERS = [
    "mcp__filesystem__move_file",
    "mcp__fs__copy_file",
    "mcp__files__delete",
    "mcp__serena__rename_file",
    "mcp__x__write_files",
    "Move",
    "NotebookEdit",
    "Write",
]
ORDINARY = ["src/app.py", "/tmp/elsewhere/forged.json", f"{PROGRESS}/notes.md", "README.md"]
# Keys a move, copy or delete may name its files by (never a Write's or Edit's data).
PAIRS = [
    ("source", "destination"),
    ("from", "to"),
    ("src", "dst"),
    ("path", "new_path"),
    ("old_path", "target"),
    ("file_path", "destination"),
]


def hook(event: dict[str, Any]) -> tuple[bool, str]:
    """(allowed, why) as the hook answers `event`: whatever error it meets blocks."""
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        code = claude_hook(None, "session", io.BytesIO(json.dumps(event).encode()))
    assert code in (0, 2), code
    return code == 0, said.getvalue()


@pytest.fixture(scope="module")
def linked(repo: Path) -> Path:
    """The repository with links to its workspace: `shortcut` to the progress folder,
    `dotclaude` to `.claude`, and a folder `src` to be the agent's folder."""
    (repo / "src").mkdir(exist_ok=True)
    for name, target in (("shortcut", repo / PROGRESS), ("dotclaude", repo / ".claude")):
        if not (repo / name).is_symlink():
            (repo / name).symlink_to(target)
    return repo


def guarded_spellings(root: Path, cwd: Path) -> st.SearchStrategy[str]:
    """Spellings of a guarded file or folder of `root`'s workspace, for an agent in `cwd`:
    absolute, relative (through `..` where `cwd` is below the root), through a link to
    the workspace, a hard link, a file: URI, in another case or normalization."""
    up = os.path.relpath(root, cwd)
    files = ["state.json", "feature-list.json", ".intent.json", ".history/1.jsonl"]
    spellings = []
    for name in files:
        spellings += [
            f"{root}/{PROGRESS}/{name}",
            f"{up}/{PROGRESS}/{name}",
            f"{up}/./{PROGRESS}//{name}",
            f"{up}/{PROGRESS}/../progress/{name}",
            f"{up}/shortcut/{name}",
            f"{up}/dotclaude/progress/{name}",
            f"{up}/shortcut/../progress/{name}",
            f"file://{root}/{PROGRESS}/{name}",
        ]
    spellings += [
        f"{up}/{PROGRESS}/State.json",
        f"{up}/{PROGRESS}/STATE.JSON.",
        f"{up}/{PROGRESS}/\u017ftate.json",  # a long s, which case folding makes an s
        f"{up}/{PROGRESS}/second-name.json",  # a hard link to the state file
        f"{up}/outside.json",  # the same, outside the workspace
        f"{up}/{PROGRESS}",  # the workspace folder
        f"{up}/{PROGRESS}/",
        f"{up}/.claude",  # a folder that holds it
        f"{up}/.Claude/",
        f"{up}/shortcut",
        f"{root}",  # the repository's folder
        up,
        # Globs and the like, for a tool that expands them.
        f"{up}/{PROGRESS}/*.json",
        f"{up}/{PROGRESS}/st?te.json",
        f"{up}/{PROGRESS}/[s]tate.json",
        f"{up}/{PROGRESS}/{{notes,state}}.json",
        f"{up}/{{src,.claude}}/progress/",
        f"{up}/.claude/**",
        f"{up}/**/state.json",
        f"{up}/.cl*",
        f"{up}/{PROGRESS}/.*",
        f"{up}\\.claude\\progress\\state.json",  # a tool that takes a backslash for /
        # Glob syntax beyond `*`, `?` and `[...]`, read as naming at least as much.
        f"{up}/{PROGRESS}/@(state).json",
        f"{up}/{PROGRESS}/+(s)tate.json",
        f"{up}/{PROGRESS}/[[:alpha:]]tate.json",
        f"{up}/{PROGRESS}/[^x]tate.json",
        f"{up}/{PROGRESS}/st\\ate.json",
        f"{up}/{PROGRESS}/state.{{js..js}}on",
        f"{up}/.cl{{a..a}}ude/progress",
        # git's own folder, whose HEAD the hook reads a project's machine from.
        f"{up}/.git/HEAD",
        f"{up}/.git/refs/heads/main",
        f"{up}/.gi[t]/config",
        f"{up}/src/.git",  # any `.git`: one planted in a subfolder would end a search there
        f"{up}/src/.GIT./config",
    ]
    return st.sampled_from(spellings)


@st.composite
def move_inputs(draw: st.DrawFn, guarded: str) -> dict[str, Any]:
    """A tool's input that names `guarded` as the source or the destination of a move,
    a copy or a delete, under any key, at any depth: flat, nested, in a list, as a key
    of an object; beside other keys of any value."""
    other = draw(st.sampled_from(ORDINARY))
    source, destination = (guarded, other) if draw(st.booleans()) else (other, guarded)
    first, second = draw(st.sampled_from(PAIRS))
    shape = draw(st.sampled_from(["flat", "nested", "listed", "paths", "keyed", "delete"]))
    if shape == "flat":
        found: dict[str, Any] = {first: source, second: destination}
    elif shape == "nested":
        found = {"operation": {"arguments": {first: source, second: destination}}}
    elif shape == "listed":
        found = {"moves": [{"dry_run": False}, {first: source, second: destination}]}
    elif shape == "paths":
        found = {"paths": [[source], destination] if draw(st.booleans()) else [source, destination]}
    elif shape == "keyed":
        found = {"renames": {source: destination}}
    else:
        found = {first: guarded, "recursive": True}
    data = {"content", "edits", "old_string", "new_string", "new_source"}  # a Write's text...
    keys = st.sampled_from(["args", "request", "0", "ops"]) | st.text(min_size=1, max_size=6)
    keys = keys.filter(lambda key: key not in data)
    for _ in range(draw(st.integers(0, 3))):  # wrapped in objects and lists, at random
        found = {draw(keys): found if draw(st.booleans()) else [draw(json_values), found]}
    extra = draw(st.dictionaries(st.sampled_from(["mode", "overwrite", "note"]), json_values))
    return {**extra, **found}


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_no_tool_naming_a_guarded_file_or_folder_gets_a_move_of_it_allowed(
    linked: Path, data: st.DataObject
) -> None:
    cwd = data.draw(st.sampled_from([linked, linked / "src"]))
    guarded = data.draw(guarded_spellings(linked, cwd))
    from spellbook.doors.hook import NOT_JUDGED

    # any tool but those that only read or run a shell (which hypothesis may draw from
    # the hook's own constants: `BashOutput`)
    other = st.text(min_size=1, max_size=20).filter(lambda name: name not in NOT_JUDGED)
    tool = data.draw(st.sampled_from(MOVERS) | other)
    event = {"tool_name": tool, "cwd": str(cwd), "tool_input": data.draw(move_inputs(guarded))}
    allowed, why = hook(event)
    assert not allowed, (event, why)
    # Blocked because it names what is guarded, not because the hook failed on the way.
    assert "is guarded (" in why and "could not judge" not in why, (event, why)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_tool_naming_only_ordinary_files_is_let_through(
    linked: Path, data: st.DataObject
) -> None:
    """The same shapes, naming files the hook does not guard: nothing to block."""
    cwd = data.draw(st.sampled_from([linked, linked / "src"]))
    names = st.sampled_from([*ORDINARY, f"{linked}/src/deep/x.py", "notes.txt"])
    first, second = data.draw(st.sampled_from(PAIRS))
    tool_input = {first: data.draw(names), second: data.draw(names), "overwrite": True}
    tool = data.draw(st.sampled_from(MOVERS))
    event = {"tool_name": tool, "cwd": str(cwd), "tool_input": tool_input}
    allowed, why = hook(event)
    assert allowed, (event, why)


def test_a_path_read_into_a_folder_that_is_not_there_is_still_judged_as_guarded(
    linked: Path,
) -> None:
    """`file:///...` read as a relative path names a workspace in a folder that does not
    exist (`./file:/...`): a workspace a write would start, guarded as any other, not a
    failure to judge."""
    state = f"file://{linked}/{PROGRESS}/state.json"
    tool_input = {"path": state, "new_path": "elsewhere.json"}
    allowed, why = hook(
        {"tool_name": "mcp__fs__move", "cwd": str(linked), "tool_input": tool_input}
    )
    assert not allowed and "is guarded (the state file)" in why, why


def test_two_allowed_calls_cannot_put_a_hand_made_state_file_in_place(
    linked: Path, tmp_path: Path
) -> None:
    """A Write of a file nobody guards is allowed; moving it onto the state file, or the
    state file away, names a guarded file as destination or source: blocked."""
    forged = tmp_path / "forged.json"
    write = {"tool_name": "Write", "cwd": str(linked), "tool_input": {"file_path": str(forged)}}
    write["tool_input"]["content"] = FORBIDDEN
    assert judge_event(None, "session", json.dumps(write).encode())[0]
    state = f"{PROGRESS}/state.json"
    for source, destination in ((str(forged), state), (state, str(tmp_path / "away.json"))):
        move = {
            "tool_name": "mcp__filesystem__move_file",
            "cwd": str(linked),
            "tool_input": {"source": source, "destination": destination},
        }
        allowed, why = judge_event(None, "session", json.dumps(move).encode())
        assert not allowed and "cannot tell what this tool would write" in why, why
        assert "as `source`" in why or "as `destination`" in why, why


DEEP = "/".join(["d"] * 100)  # folders 100 deep, made by the test


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("tool_input", "said"),
    [
        ({"a": functools.reduce(lambda inner, _: [inner], range(40), "x")}, "nested more than"),
        ({"paths": [f"f{i}" for i in range(20_000)]}, "more than 10,000 strings"),
        ({"paths": [f"{DEEP}/{i}" for i in range(3000)]}, "path components"),
        ({"glob": "{a,b}" * 10}, "expands to more than 64 paths"),
    ],
)
def test_a_tool_input_too_large_to_walk_is_refused(
    linked: Path, tmp_path: Path, tool_input: dict[str, Any], said: str
) -> None:
    """Past a bound (depth, strings, components of folders that exist), refused."""
    (tmp_path / DEEP).mkdir(parents=True)
    event = {"tool_name": "mcp__x__y", "cwd": str(tmp_path), "tool_input": tool_input}
    allowed, why = judge_event(None, "session", json.dumps(event).encode())
    assert not allowed and said in why, why


# Globs naming `feature-list.json` in syntax beyond `*`, `?` and `[...]` of plain names:
# bash (with extglob), minimatch or picomatch each match the file by some of them.
GLOBS = [
    "feature-list.jso[^x]",
    "feature-list.jso[!x]",
    "[[:alpha:]]eature-list.json",
    "[]f]eature-list.json",
    "feature-list.js\\on",
    "@(feature-list).json",
    "+(feature-list).json",
    "*(feature-list).json",
    "?(f)eature-list.json",
    "!(state).json",
    "(feature-list|notes).json",
    "feature-list.{js..js}on",
    "f{e..e}ature-list.json",
    "{feature-list,notes}.json",
    "../@(progress/feature-list).json",  # a group with a `/` in it
]


@pytest.mark.parametrize("glob", GLOBS)
def test_a_glob_the_hook_cannot_read_exactly_is_taken_to_name_more(linked: Path, glob: str) -> None:
    """A glob's syntax beyond `*` and `?` is read as naming at least what any of them
    would name (a bracket, a group, an escape, a range as `*`): never less."""
    tool_input = {"glob": f"{PROGRESS}/{glob}", "search": '"pending"', "replace": '"tested"'}
    event = {"tool_name": "mcp__files__replace_in_files", "cwd": str(linked)}
    allowed, why = hook({**event, "tool_input": tool_input})
    assert not allowed and "is guarded" in why, why


def test_a_negated_glob_is_taken_to_name_everything(linked: Path) -> None:
    """minimatch and picomatch read a leading `!` as every path but the pattern's."""
    event = {"tool_name": "mcp__fs__delete_files", "cwd": str(linked / "src")}
    allowed, why = hook({**event, "tool_input": {"glob": "!notes.txt"}})
    assert not allowed and "is guarded" in why, why
    allowed, why = hook({**event, "tool_input": {"glob": "!(notes).txt"}})  # an extglob: not all
    assert allowed, why


def test_the_python_that_runs_the_hook_is_guarded(linked: Path, tmp_path: Path) -> None:
    """A file written where the hook's Python loads code from (a `.pth` in site-packages,
    a module of the standard library or of Spellbook, a script of its environment, a
    virtual environment inside the repository included) would run at its next call."""
    import site

    import spellbook

    targets = [
        os.path.join(site.getsitepackages()[0], "planted.pth"),
        os.path.join(site.getusersitepackages(), "planted.pth"),
        os.path.join(sys.prefix, "bin", "spell"),
        os.path.join(sys.exec_prefix, "lib", "planted.py"),
        os.path.join(os.path.dirname(os.__file__), "json", "__init__.py"),
        os.path.join(os.path.dirname(spellbook.__file__), "hook.py"),
    ]
    for path in targets:
        tool_input = {"file_path": path, "content": "import os\n"}
        allowed, why = hook({"tool_name": "Write", "cwd": str(linked), "tool_input": tool_input})
        assert not allowed and "the Python that runs the hook" in why, (path, why)
    planted = str(tmp_path / "venv")  # put in the environment's place
    tool_input = {"source": planted, "destination": sys.prefix}
    allowed, why = hook(
        {"tool_name": "mcp__fs__move", "cwd": str(linked), "tool_input": tool_input}
    )
    assert not allowed and "the Python that runs the hook" in why, why


def _deep_keys() -> dict[str, Any]:
    """An input 30 objects deep, each named by a key of 90,000 characters or more, over
    an object of 5,000 keys: where each string is would be 3 MB long if kept whole."""
    found: dict[str, Any] = {str(i): 1 for i in range(5000)}
    for level in range(30):
        found = {f"k{level}" * 30_000: found}
    return found


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "tool_input",
    [
        {"globs": ["{" + "," * 16383] * 20},  # a brace never closed, before many commas
        _deep_keys(),
    ],
    ids=["unclosed-brace", "deep-long-keys"],
)
def test_the_walk_of_a_tool_input_takes_time_linear_in_its_size(
    tmp_path: Path, tool_input: dict[str, Any]
) -> None:
    """Each step of the walk (a string's braces, where each string is) is linear in
    what it reads: an input of a few MB is judged in well under the bound, not in
    minutes."""
    event = {"tool_name": "mcp__x__y", "cwd": str(tmp_path), "tool_input": tool_input}
    _, why = judge_event(None, "session", json.dumps(event).encode())
    assert "internal error" not in why, why


def test_a_write_the_hook_judges_takes_its_path_as_written_and_git_s_folder_is_guarded(
    linked: Path,
) -> None:
    """The path of a Write is the file it writes, never a glob: a file named `*.json` in
    the workspace is only that file. A write into `.git` is blocked: the hook reads a
    project's machine from HEAD."""
    star = {"file_path": f"{linked}/{PROGRESS}/*.json", "content": "{}"}
    event = {"tool_name": "Write", "cwd": str(linked), "tool_input": star}
    assert hook(event)[0]
    event["tool_name"] = "mcp__fs__delete_files"
    event["tool_input"] = {"paths": [star["file_path"]]}
    assert not hook(event)[0]
    event["tool_name"] = "Write"
    event["tool_input"] = {"file_path": f"{linked}/.git/HEAD", "content": "ref: refs/heads/x\n"}
    allowed, why = hook(event)
    assert not allowed and "git's own folder" in why, why


def test_spellbook_s_cache_is_guarded(
    linked: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table planted in the cache would be what `spell` takes for pyproject.toml's."""
    monkeypatch.setenv("SPELLBOOK_CACHE", str(tmp_path / "cache"))
    kept = {"file_path": str(tmp_path / "cache" / "projects" / "0badcafe.json"), "content": "{}"}
    event = {"tool_name": "Write", "cwd": str(linked), "tool_input": kept}
    allowed, why = hook(event)
    assert not allowed and "Spellbook's cache" in why, why


def test_the_temporary_folder_keys_are_kept_in_is_guarded_as_the_cache_is(
    linked: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the cache folder cannot be written, the seal keys are in the system's
    temporary folder: a key written by hand there voids (or forges) a cast's record."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    key = tmp_path / "tmp" / f"spellbook-{os.geteuid()}" / "keys" / "0badcafe.key"
    event = {"tool_name": "Write", "cwd": str(linked), "tool_input": {"file_path": str(key)}}
    event["tool_input"]["content"] = "k" * 32
    allowed, why = hook(event)
    assert not allowed and "Spellbook's cache" in why, why


def test_every_cache_folder_a_cast_of_the_user_s_may_use_is_guarded(
    linked: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key written by hand in a cache folder the hook's own environment does not use
    (`spell mcp`'s ~/.cache/spellbook, while $SPELLBOOK_CACHE is set here) would seal a
    forged record that cast accepts."""
    monkeypatch.setenv("SPELLBOOK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    key = tmp_path / "home" / ".cache" / "spellbook" / "keys" / "0badcafe.key"
    event = {"tool_name": "Write", "cwd": str(linked), "tool_input": {"file_path": str(key)}}
    event["tool_input"]["content"] = "k" * 32
    allowed, why = hook(event)
    assert not allowed and "Spellbook's cache" in why, why


LONG = "e" * 4100  # a glob longer than PATH_MAX (4,096 bytes): still one a tool may expand


@pytest.mark.parametrize(
    "glob",
    [
        f"{PROGRESS}/stat[{LONG}].json",
        f"{PROGRESS}/@(state.json|{LONG})",
        f"{PROGRESS}/st{'*' * 4100}.json",
    ],
)
def test_a_glob_longer_than_a_path_can_be_still_names_what_it_matches(
    linked: Path, glob: str
) -> None:
    """No system call takes a path past PATH_MAX, but a shell or a glob library expands
    a glob part by part, into names that fit: only a literal path that long names
    nothing."""
    event = {"tool_name": "mcp__fs__delete", "cwd": str(linked), "tool_input": {"pattern": glob}}
    allowed, why = hook(event)
    assert not allowed and "is guarded (" in why and "could not judge" not in why, why


@pytest.mark.parametrize("uri", ["file://{}%00", "file://{}%00.txt", "file:{}%00x"])
def test_a_file_uri_ends_at_an_encoded_nul(linked: Path, uri: str) -> None:
    """A tool that decodes a `file:` URI and hands the path to the system ends it at a
    NUL, `%00` too: the state file is what it names."""
    named = uri.format(f"{linked}/{PROGRESS}/state.json")
    event = {"tool_name": "mcp__fs__delete", "cwd": str(linked), "tool_input": {"uri": named}}
    allowed, why = hook(event)
    assert not allowed and "is guarded (the state file)" in why, why


def test_an_mcp_tool_of_a_write_s_shape_is_judged_as_one(repo: Path) -> None:
    """An MCP tool whose input is a Write's, an Edit's or a MultiEdit's (`path` and
    `content`, or the edits, and nothing else) is judged by what it writes: its text is
    not a path. One of any other shape naming the state file is blocked."""
    state = str(repo / PROGRESS / "state.json")
    moved = json.dumps({**json.loads(Path(state).read_text()), "state": "TEST"})
    edit = {"old_string": '"IMPLEMENT"', "new_string": '"TEST"'}
    shapes = [
        ("mcp__fs__write_file", {"path": state, "content": moved}),
        ("mcp__fs__edit_file", {"path": state, **edit}),
        ("mcp__fs__edit_file", {"path": state, **edit, "replace_all": False}),
        ("mcp__fs__edit_file", {"file_path": state, "edits": [edit]}),
    ]
    for tool, tool_input in shapes:
        event = {"tool_name": tool, "cwd": str(repo), "tool_input": tool_input}
        allowed, why = hook(event)
        assert allowed, (tool_input, why)
    skipped = {"path": state, "content": FORBIDDEN}  # IMPLEMENT -> COMPLETE
    allowed, why = hook(
        {"tool_name": "mcp__fs__write_file", "cwd": str(repo), "tool_input": skipped}
    )
    assert not allowed and "skips testing" in why, why
    for other in (
        {"path": state, "edits": [{**edit, "path": "notes.md"}]},  # an edit naming a file
        {"path": state, "content": {"text": moved}},  # content that is not text
        {"path": state, "content": moved, "mode": "append"},
    ):
        event = {"tool_name": "mcp__fs__write_file", "cwd": str(repo), "tool_input": other}
        allowed, why = hook(event)
        assert not allowed and "cannot tell what this tool would write" in why, (other, why)


def test_a_bare_name_given_to_an_mcp_tool_is_read_in_the_workspace_and_claude_folders(
    repo: Path,
) -> None:
    """An MCP server takes a relative path from its own folder, which the hook cannot
    know: rooted at the workspace, `state.json` is the state file; at `.claude`,
    `settings.json` Claude Code's settings. Such a name is judged as those files too;
    one Claude Code's own Write takes from the event's folder is judged there alone."""
    moved = json.dumps({**json.loads((repo / PROGRESS / "state.json").read_text())})
    for tool, tool_input, said in (
        ("mcp__fs__write_file", {"path": "state.json", "content": FORBIDDEN}, "state.json"),
        ("mcp__fs__delete", {"path": "state.json"}, "is guarded (the state file)"),
        ("mcp__fs__move", {"source": "notes.md", "destination": "state.json"}, "is guarded ("),
        (
            "mcp__fs__write_file",
            {"path": "settings.json", "content": '{"disableAllHooks": true}'},
            "Claude Code's settings",
        ),
    ):
        allowed, why = hook({"tool_name": tool, "cwd": str(repo), "tool_input": tool_input})
        assert not allowed and said in why, (tool_input, why)
    for tool, tool_input in (
        ("mcp__fs__write_file", {"path": "notes.md", "content": moved}),
        ("Write", {"file_path": "state.json", "content": "{}"}),  # the repository's own
    ):
        allowed, why = hook({"tool_name": tool, "cwd": str(repo), "tool_input": tool_input})
        assert allowed, (tool_input, why)


def test_a_path_given_to_an_mcp_tool_is_read_from_the_folders_a_workspace_is_in(
    tmp_path: Path,
) -> None:
    """A server rooted at `.ai/` takes `task/state.json` for the spell workflow's state
    file (and `task` for its workspace folder)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".ai" / "task").mkdir(parents=True)
    state = tmp_path / ".ai" / "task" / "state.json"
    state.write_text('{"current_state": "GATHER_NEEDS_PLAN"}')
    for path in ("task/state.json", "task"):
        event = {"tool_name": "mcp__fs__delete", "cwd": str(tmp_path), "tool_input": {"path": path}}
        allowed, why = hook(event)
        assert not allowed and "is guarded (" in why, (path, why)
    other = {"tool_name": "mcp__fs__delete", "cwd": str(tmp_path), "tool_input": {"path": "x.md"}}
    assert hook(other)[0]


def test_every_entry_of_the_hook_s_module_path_is_guarded(
    linked: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond its installation, the hook's Python loads code from each entry of its module
    path (a folder a `.pth` adds, as an editable install's `src/`; PYTHONPATH; a zip):
    a `sitecustomize` there, or a module of a name it imports, would run at its next
    call. The rest of such a folder stays writable (a project's own modules, which the
    hook runs only as HEAD holds them); one packages are installed in is guarded whole.
    The base installation's interpreter, shared library and standard library zip are
    guarded too."""
    src, zipped, packages = tmp_path / "src", tmp_path / "lib.zip", tmp_path / "packages"
    src.mkdir()
    (packages / "door_bell-1.0.dist-info").mkdir(parents=True)  # packages installed there
    monkeypatch.setattr(sys, "path", [*sys.path, str(src), str(zipped), str(packages)])
    version = f"{sys.version_info.major}{sys.version_info.minor}"
    base = sys.base_prefix
    guarded = [
        src / "sitecustomize.py",
        src / "SiteCustomize.PY",
        src / "usercustomize" / "__init__.py",
        src / "json.py",  # a module of the standard library: first found here, or missing
        src / "yaml" / "__init__.py",  # an installed package's
        src / "spellbook" / "hook.py",
        src / "__pycache__" / "sitecustomize.cpython.pyc",
        src,
        zipped,
        packages / "door_bell" / "__init__.py",  # guarded whole, as site-packages
        packages / "anything.py",
        os.path.realpath(sys.executable),
        os.path.join(base, "bin", "python3"),
        os.path.join(base, "lib", f"python{version}.zip"),
        os.path.join(base, "lib", "libpython3.so"),
    ]
    for path in guarded:
        event = {"tool_name": "Write", "cwd": str(linked)}
        allowed, why = hook({**event, "tool_input": {"file_path": str(path), "content": "x"}})
        assert not allowed and "the Python that runs the hook" in why, (path, why)
    pattern = {"tool_name": "mcp__fs__delete", "cwd": str(linked)}
    allowed, why = hook({**pattern, "tool_input": {"glob": f"{src}/site*"}})
    assert not allowed and "the Python that runs the hook" in why, why
    for path in (src / "house" / "words.py", src / "notes.md", tmp_path / "json.py"):
        event = {"tool_name": "Write", "cwd": str(linked)}
        allowed, why = hook({**event, "tool_input": {"file_path": str(path), "content": "x"}})
        assert allowed, (path, why)


def _at_the_bound(make: Any, root: Path) -> dict[str, Any]:
    """An MCP tool's input of strings `make(i, root)`, as many as fit in 10 MB."""
    found, size = [], 0
    while True:
        text = make(len(found), root)
        size += len(json.dumps(text)) + 2
        if size > 9_900_000 or len(found) >= 9_999:
            return {"p": found}
        found.append(text)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "make",
    [
        lambda i, root: "/" + "q*" * 2000,  # the same glob, of 2,000 parts that are globs
        lambda i, root: "/" + f"q{i}*" * 1500,  # each string another glob
        lambda i, root: f"q{i}*" * 1500,  # relative: read from each folder the event names
        lambda i, root: "file:///" + f"%71{i}*" * 1200,
        lambda i, root: f"{root}/src/" + "/".join([f"x{i}*"] * 1500),  # in a folder listed
    ],
    ids=["same", "distinct", "relative", "file-uri", "parts"],
)
def test_an_event_at_the_size_bound_is_judged_in_time_linear_in_its_size(
    linked: Path, make: Any
) -> None:
    """Each glob's part is read once, whatever it is matched against (every guarded
    folder, every name of a folder listed): an event of 10 MB is judged well within the
    bound, not in minutes."""
    tool_input = _at_the_bound(make, linked)
    event = {"tool_name": "mcp__x__y", "cwd": str(linked / "src"), "tool_input": tool_input}
    data = json.dumps(event).encode()
    assert len(data) < 10_000_000
    _, why = judge_event(None, "session", data)
    assert "internal error" not in why and "larger than" not in why, why


# -- Claude Code's settings: a settings file can remove the hook or turn every hook off --


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A repository whose session is in IMPLEMENT, with Claude Code's project settings
    (a link `dotclaude` to `.claude`, a hard link `linked-settings.json` to its
    settings.json, a subfolder `sub` with settings of its own), and a home folder and a
    `$CLAUDE_CONFIG_DIR` of the test's own, under `home/`."""
    root = tmp_path_factory.mktemp("configured")
    (root / ".git").mkdir()
    session_in(root, "IMPLEMENT", "false")
    for folder in (root, root / "sub"):
        (folder / ".claude").mkdir(parents=True, exist_ok=True)
        (folder / ".claude" / "settings.json").write_text("{}", encoding="utf-8")
    (root / "dotclaude").symlink_to(root / ".claude")
    os.link(root / ".claude" / "settings.json", root / "linked-settings.json")
    home = tmp_path_factory.mktemp("home")
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{}", encoding="utf-8")
    (home / "config").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("CLAUDE_PROJECT_DIR", raising=False)
        patch.setenv("HOME", str(home))
        patch.delenv("CLAUDE_CONFIG_DIR", raising=False)
        yield root


def _settings_spellings() -> list[tuple[str, str]]:
    """(how, path) for a settings file, or a folder holding one, of the `configured`
    repository (`{root}`), its home (`{home}`) or `$CLAUDE_CONFIG_DIR` (`{config}`)."""
    return [
        ("relative", ".claude/settings.json"),
        ("local", ".claude/settings.local.json"),
        ("absolute", "{root}/.claude/settings.json"),
        ("dot-parts", "./.claude/./settings.json"),
        ("doubled-slash", "{root}//.claude//settings.local.json"),
        ("climbing", "src/../.claude/settings.json"),
        ("climbing-absent", "{root}/nothing/here/../../.claude/settings.json"),
        ("case", ".Claude/SETTINGS.json"),
        ("trailing-dot", ".claude/settings.json."),
        ("symlink", "dotclaude/settings.json"),
        ("hard-link", "linked-settings.json"),
        ("proc-cwd", "/proc/self/cwd/.claude/settings.json"),
        ("file-uri", "file://{root}/.claude/settings.local.json"),
        ("backslash", ".claude\\settings.json"),
        ("subfolder", "sub/.claude/settings.local.json"),
        ("claude-folder", ".claude"),
        ("folder-holding", "sub"),
        ("user", "{home}/.claude/settings.json"),
        ("user-local", "{home}/.claude/settings.local.json"),
        ("user-folder", "{home}/.claude"),
        ("config-dir", "{config}/settings.json"),
        ("config-dir-local", "{config}/settings.local.json"),
        ("config-dir-folder", "{config}"),
        ("managed", "/etc/claude-code/managed-settings.json"),
        ("managed-drop-in", "/etc/claude-code/managed-settings.d/10-hooks.json"),
        ("managed-macos", "/Library/Application Support/ClaudeCode/managed-settings.json"),
    ]


SETTINGS_SPELLINGS = _settings_spellings()
SETTINGS_GLOBS = [  # in `sub`, which no workspace is in: nothing else guarded there
    ("star", "sub/.claude/*.json"),
    ("suffix", "sub/.claude/settings.*"),
    ("folder-star", "sub/*/settings.json"),
    ("deep", "sub/**"),
    ("folder-glob-deep", "sub/.cla*/**"),
    ("braces", "{root}/sub/.claude/settings.{json,local.json}"),
    ("bracket", "sub/.claude/setting[s].json"),
    ("tilde", "~/.claude/settings.json"),
    ("tilde-star", "~/.claude/*.json"),
]


def _settings_event(root: Path, how: str, path: str, tool: dict[str, Any]) -> dict[str, Any]:
    home, config = os.environ["HOME"], str(Path(os.environ["HOME"]) / "config")
    if how.startswith("config-dir"):
        os.environ["CLAUDE_CONFIG_DIR"] = config
    named = path.replace("{root}", str(root)).replace("{home}", home).replace("{config}", config)
    return {"tool_name": tool["name"], "cwd": str(root), "tool_input": tool["input"](named)}


WRITES = {
    "Write": {"name": "Write", "input": lambda p: {"file_path": p, "content": "{}"}},
    "Edit": {
        "name": "Edit",
        "input": lambda p: {"file_path": p, "old_string": "{}", "new_string": "{ }"},
    },
    "move": {
        "name": "mcp__filesystem__move_file",
        "input": lambda p: {"source": "elsewhere.json", "destination": p},
    },
    "delete": {"name": "mcp__fs__delete", "input": lambda p: {"paths": [p]}},
}


@pytest.mark.parametrize("tool", list(WRITES))
@pytest.mark.parametrize(
    ("how", "path"), SETTINGS_SPELLINGS, ids=[h for h, _ in SETTINGS_SPELLINGS]
)
def test_no_spelling_of_a_claude_code_settings_file_is_written(
    configured: Path, how: str, path: str, tool: str
) -> None:
    """A Write, an Edit, a move or a delete of a settings file that can carry hooks (the
    project's, the user's, `$CLAUDE_CONFIG_DIR`'s, the managed ones), or of a folder
    holding one, is blocked, however the path is spelled, naming the file and that the
    developer edits it by hand."""
    if how == "proc-cwd" and not os.path.isdir("/proc/self/cwd"):
        pytest.skip("no /proc")
    here = os.getcwd()
    os.chdir(configured)  # `/proc/self/cwd` is the judging process's folder
    try:
        event = _settings_event(configured, how, path, WRITES[tool])
        allowed, why = hook(event)
    finally:
        os.chdir(here)
        os.environ.pop("CLAUDE_CONFIG_DIR", None)
    assert not allowed, (event, why)
    assert "Claude Code" in why and "by hand" in why and "disableAllHooks" in why, why
    assert "could not judge" not in why, why


@pytest.mark.parametrize(("how", "glob"), SETTINGS_GLOBS, ids=[h for h, _ in SETTINGS_GLOBS])
def test_a_glob_or_a_tilde_naming_a_claude_code_settings_file_is_blocked(
    configured: Path, how: str, glob: str
) -> None:
    """A tool that expands a glob (or `~`) names every settings file it may match."""
    tool = {"name": "mcp__fs__delete", "input": lambda p: {"pattern": p, "recursive": True}}
    allowed, why = hook(_settings_event(configured, how, glob, tool))
    assert not allowed, why
    assert "Claude Code" in why and "disableAllHooks" in why, why


def test_claude_code_s_own_state_file_is_the_developer_s(
    configured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`~/.claude.json` holds the MCP servers of the user's and the local scope, as
    `.mcp.json` holds a project's: the same door around the guards."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    target = tmp_path / "home" / ".claude.json"
    event = {
        "tool_name": "Write",
        "cwd": str(configured),
        "tool_input": {"file_path": str(target), "content": "{}"},
    }
    allowed, why = hook(event)
    assert not allowed and "by hand" in why, why


@pytest.mark.parametrize("path", [".mcp.json", "sub/.MCP.json"])
def test_a_project_s_mcp_servers_file_is_the_developer_s(configured: Path, path: str) -> None:
    """`.mcp.json` says which program `spell mcp` is and its environment: written by the
    session, `SPELLBOOK_TEST_COMMAND=true` would pass every feature's tests."""
    servers = {"mcpServers": {"s": {"command": "spell", "env": {"SPELLBOOK_TEST_COMMAND": "true"}}}}
    event = {
        "tool_name": "Write",
        "cwd": str(configured),
        "tool_input": {"file_path": path, "content": json.dumps(servers)},
    }
    allowed, why = hook(event)
    assert not allowed and ".mcp.json" in why and "by hand" in why, why


def test_files_beside_claude_code_settings_stay_the_agents(configured: Path) -> None:
    """Only the settings files are guarded: a skill, an agent's notes, a file named like
    settings outside a `.claude` folder are written as before."""
    for path in (".claude/skills/x/SKILL.md", "settings.json", "src/.claude-notes.md"):
        event = {
            "tool_name": "Write",
            "cwd": str(configured),
            "tool_input": {"file_path": path, "content": "{}"},
        }
        allowed, why = hook(event)
        assert allowed, (path, why)


@pytest.mark.timeout(120)
def _judged_in(root: Path, tool: str, given: dict[str, Any]) -> tuple[int, str]:
    """The hook's answer (exit code, what it said) to a tool call in the release example
    at `root`."""
    event = {"hook_event_name": "PreToolUse", "cwd": str(root), "tool_name": tool}
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        code = claude_hook(
            str(root), "release", io.BytesIO(json.dumps(event | {"tool_input": given}).encode())
        )
    return code, said.getvalue()


def test_the_state_file_of_a_machine_not_committed_yet_is_never_written_by_hand(
    tmp_path: Path,
) -> None:
    """A machine added (or a workspace moved) in the working tree: `spell` drives it, but
    the hook judges by HEAD, which has no such machine; it allowed any write of that
    state file with no word, a move no rule makes. Blocked until committed."""
    import shutil
    import subprocess

    root = tmp_path / "release"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "release", root)
    git = ["git", "-c", "user.name=a", "-c", "user.email=a@b"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "release"]):
        subprocess.run([*git, *args], cwd=root, check=True, timeout=60)
    # the working tree's project lists two machines more, generated, not committed
    module = (root / "generated" / "release.py").read_text(encoding="utf-8")
    for name, folder in (("other", ".other"), ("deep", "deep/a/b")):
        text = module.replace('".release/state.json"', f'"{folder}/state.json"')
        (root / "generated" / f"{name}.py").write_text(text, encoding="utf-8")
        with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
            f.write(f'{name} = {{ spec = "spec/RELEASE.md", vocabulary = "" }}\n')
    other = root / ".other"
    other.mkdir()  # the machine `other` has cast here: its state file
    state = '{"current_state": "WRITING", "summary": "%s", "context": {}, "history": []}'
    (other / "state.json").write_text(state % ("y" * 5000))  # a long field before `context`
    (root / ".release").mkdir(exist_ok=True)

    judged = functools.partial(_judged_in, root)

    forged = {"file_path": str(other / "state.json"), "content": '{"current_state": "SIGNING"}'}
    blocked = [
        ("Write", forged),
        ("mcp__fs__delete", {"path": str(other)}),
        ("Write", {"file_path": str(other / "state.json.bad-20261129T000000Z"), "content": "{}"}),
        # one not written yet, and a folder two levels above one
        ("Write", {"file_path": str(root / "deep" / "a" / "b" / "state.json"), "content": "{}"}),
        ("mcp__fs__delete", {"path": str(root / "deep")}),
    ]
    (root / "deep" / "a" / "b").mkdir(parents=True)
    for n in range(300):  # a state file past many other files of its folder
        (other / f"a{n:03}.json").write_text("{}")
    for tool, tool_input in blocked:
        code, why = judged(tool, tool_input)
        assert code == 2 and "no machine the project has as committed" in why, (tool_input, why)
    # a file beside it that is no state file, and a committed machine's workspace: as before
    code, why = judged("Write", {"file_path": str(other / "notes.md"), "content": "x"})
    assert code == 0, why
    # nor a file of the project's own that only looks like one: a module naming the key,
    # a fixture, an agent's chat log with `context` and `history`, a large trace
    (root / "models.py").write_text('STATE = "current_state"\n')
    (root / "fixture.json").write_text('{"id": 1, "current_state": "paid"}\n')
    chat = {"model": "m", "context": {"repo": "x"}, "history": [{"role": "user"}]}
    (root / "chat.json").write_text(json.dumps(chat))
    trace = '{"spans": [{"context": {"id": "a"}}' + ', {"name": "s"}' * 100_000 + "]}"
    (root / "trace.json").write_text(trace)
    for mine in ("models.py", "fixture.json", "chat.json", "trace.json"):
        code, why = judged("Write", {"file_path": str(root / mine), "content": "x"})
        assert code == 0, (mine, why)
    code, why = judged("Write", {"file_path": str(root / ".release" / "notes.md"), "content": "x"})
    assert code == 0, why
    # a module that is a FIFO is never waited on (bounded by the suite's timeout)
    (root / "generated" / "other.py").unlink()
    os.mkfifo(root / "generated" / "other.py")
    code, why = judged("Write", {"file_path": str(root / "notes.md"), "content": "x"})
    assert code == 0, why
    # the working tree's pyproject.toml mid-edit: its machines are not known, so a JSON
    # file or a folder outside the committed workspaces is blocked, saying why
    with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write("oops = \n")
    for tool, tool_input in blocked[:2]:
        code, why = judged(tool, tool_input)
        assert code == 2 and "pyproject.toml cannot be read" in why, (tool_input, why)
    code, why = judged("Write", {"file_path": str(root / "notes.md"), "content": "x"})
    assert code == 0, why


def test_a_python_vocabulary_of_the_project_is_never_written_by_hand(tmp_path: Path) -> None:
    """`vocabulary = "words"`: the hook let the agent write `words.py` (or a package's
    module, its `__init__.py`, the compiled file beside it), which the next `spell`
    imports and runs: any code, then any state."""
    import shutil
    import subprocess

    root = tmp_path / "release"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "release", root)
    config = root / "pyproject.toml"
    config.write_text(
        config.read_text().replace(
            'default = "release"', 'default = "release"\nvocabulary = "words"'
        )
        + 'other = { spec = "spec/RELEASE.md", vocabulary = "pkg.words" }\n'
    )
    (root / "words.py").write_text("TERMS = {}\n")
    module = (root / "generated" / "release.py").read_text(encoding="utf-8")
    other = module.replace('".release/state.json"', '".other/state.json"')
    (root / "generated" / "other.py").write_text(other, encoding="utf-8")
    git = ["git", "-c", "user.name=a", "-c", "user.email=a@b"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "release"]):
        subprocess.run([*git, *args], cwd=root, check=True, timeout=60)

    judged = functools.partial(_judged_in, root)

    for written in (
        "words.py",
        "pkg/words.py",
        "pkg/__init__.py",
        "__pycache__/words.cpython-311.pyc",
        "Words.py",  # one file where case is not told apart
    ):
        code, why = judged("Write", {"file_path": str(root / written), "content": "import os\n"})
        assert code == 2 and "the project's Python vocabulary" in why, (written, why)
    code, why = judged("mcp__fs__delete", {"path": str(root / "pkg")})
    assert code == 2 and "the project's Python vocabulary" in why, why
    # the rest of the package it is in is the app's own; a file of words is data
    for mine in ("notes.md", "words.md", "src/words.py", "pkg/app.py", "pkg/sub/x.py"):
        code, why = judged("Write", {"file_path": str(root / mine), "content": "x"})
        assert code == 0, (mine, why)


def test_only_a_python_vocabulary_of_the_project_s_own_is_guarded() -> None:
    """`vocabulary = "spell_workflow"` (one that ships) or `"glossary.md"` (a file of
    words) guarded a `glossary/` folder and the top `__pycache__` as Python; and
    `my_project.words` guarded the whole `my_project` package of the app."""
    from spellbook.doors.guarded import _module_files, _python_vocabulary

    assert _python_vocabulary("words") and _python_vocabulary("my_project.words")
    for data in ("spell_workflow", "coding_session", "glossary.md", "words/ours.md", ""):
        assert not _python_vocabulary(data), data
    files = _module_files("my_project.words")
    assert "my_project" not in files and os.path.join("my_project", "words.py") in files
    assert os.path.join("my_project", "__init__.py") in files
