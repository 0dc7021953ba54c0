"""`spell check-transition` and the Claude Code hook: judging moves of the state made by hand."""

from __future__ import annotations

import json
import os
import sys

from spellbook.disk.project import PROJECT_LIMIT
from spellbook.disk.state_file import STATE_LIMIT, parse_json
from spellbook.disk.store import Workspace
from spellbook.doors.guarded import (
    CACHE,
    CONFIG,
    FOLDER,
    GENERATED,
    GIT,
    INTERPRETER,
    RUNTIME,
    SETTINGS,
    UNCOMMITTED,
    UNREAD,
    VOCABULARY,
    WORKSPACE,
    Hit,
)
from spellbook.doors.places import Guard
from spellbook.doors.repository import MACHINE_HELP, one_machine, open_workflow
from spellbook.doors.tool_paths import TooBig, strings
from spellbook.records import terminal
from spellbook.records.errors import BadFile, SpellbookError, said
from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_HOOK_BLOCK, EXIT_OK, EXIT_REFUSED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

HOOK_LIMIT = 10_000_000  # bytes of a hook event read from stdin
PATH_KEYS = ("file_path", "notebook_path", "path")  # where a tool that writes names its file
# Claude Code's tools that only read, or write no file by a path (a shell command is no
# path: guard Bash with Claude Code's permissions). Any other tool is judged by the
# strings of its input.
NOT_JUDGED = frozenset(
    {
        "Read",
        "Glob",
        "Grep",
        "LS",
        "NotebookRead",
        "Bash",
        "BashOutput",
        "KillShell",
        "TodoWrite",
        "Task",
        "WebFetch",
        "WebSearch",
        "ExitPlanMode",
    }
)
# Claude Code's own tools that write a file, by a path relative to the event's `cwd`.
CLAUDE_CODE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
# What Claude Code's own file tools write, not where: never read as a path.
DATA_KEYS = {
    "Write": ("content",),
    "Edit": ("old_string", "new_string"),
    "MultiEdit": ("edits",),
    "NotebookEdit": ("new_source",),
}
# The inputs whose effect the hook can judge, besides the one key of PATH_KEYS naming
# the file: a Write's content, an Edit's strings, a MultiEdit's edits.
SHAPES = (
    frozenset({"content"}),
    frozenset({"old_string", "new_string", "replace_all"}),
    frozenset({"edits"}),
)
MAX_EDITS = 100  # edits of one MultiEdit the hook judges
TEXT_KEYS = ("old_string", "new_string")  # an edit's text


class _Usage(Exception):
    """The command line cannot be taken: said in one line (and as JSON with --json)."""


def check_transition(argv: Sequence[str], machine: str | None) -> int:
    """`spell [session] check-transition`: judge a move of the state made by hand (FROM
    TO, or a proposed state file), or, with --claude-hook, a Claude Code tool call. An
    error is one line on stderr (`error: ...`), and with --json a JSON error object on
    stdout, as `spell` says its own."""
    import argparse

    prog = f"spell {'session ' if machine == 'session' else ''}check-transition"

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise _Usage(f"{prog}: {message} (see {prog} --help)")

    parser = Parser(
        prog=prog,
        description=f"Judge a move of the state: allowed (exit {EXIT_OK}) or refused (exit "
        f"{EXIT_REFUSED}, the reason on stderr). FROM TO: whether a rule of the spec leads "
        "from FROM to TO with the files as they are now (what the rule also does aside). "
        "--state-file: a state file written by hand, refused too where the rule that makes "
        "the move also acts, which only a cast carries out. Never runs the project's "
        "commands: a guard on a command's outcome is judged by the last run a cast recorded.",
    )
    parser.add_argument(
        "--root",
        help="the repository (default: found from the current folder as `spell` finds it; "
        "for --claude-hook, $CLAUDE_PROJECT_DIR or found from the event's folder)",
    )
    parser.add_argument("--machine", metavar="NAME", help=MACHINE_HELP)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("check", choices=["check-transition"], help=argparse.SUPPRESS)
    parser.add_argument("states", nargs="*", metavar="FROM TO")
    parser.add_argument(
        "--state-file", help="a proposed new state file, judged against the current one"
    )
    parser.add_argument(
        "--claude-hook",
        action="store_true",
        help=f"read a Claude Code PreToolUse event from stdin; block (exit {EXIT_HOOK_BLOCK}) a "
        "Write or Edit of the state file that the spec does not allow, or of a file only casts "
        "may change; anything it cannot judge is blocked too",
    )
    as_json = "--json" in argv
    try:
        args = parser.parse_intermixed_args(argv)
        machine = one_machine(machine, args.machine, argv)
    except (_Usage, SpellbookError) as err:
        return _error(said(err), as_json, err)
    if args.claude_hook:
        return claude_hook(args.root, machine, sys.stdin.buffer)
    try:
        if not args.state_file and len(args.states) != 2:
            hint = ""
            if args.states[:1] == ["session"]:  # `spell check-transition session A B`
                hint = "; for the session: spell session check-transition FROM TO"
            raise _Usage(f"{prog}: give FROM TO, --state-file PATH or --claude-hook{hint}")
        workflow = open_workflow(args.root, machine)
        if args.state_file:
            path = os.path.abspath(args.state_file)
            place = Workspace(os.path.dirname(path), "")
            data = place.read_bytes(os.path.basename(path), STATE_LIMIT)  # no FIFO, no link
            if data is None:
                raise BadFile(f"{args.state_file} does not exist")
            ok, reason = workflow.judge_file(data)
        else:
            ok, reason = workflow.judge(*args.states)
    except (_Usage, SpellbookError, OSError) as err:
        return _error(said(err), as_json, err)
    if args.json:
        print(json.dumps({"allowed": ok, "reason": reason}))
    if not (args.json and ok):
        print(terminal.text(reason), file=sys.stdout if ok else sys.stderr)
    return EXIT_OK if ok else EXIT_REFUSED


def _error(message: str, as_json: bool, err: BaseException) -> int:
    """`check-transition`'s error: one line on stderr, and with --json a JSON error object
    on stdout (its kind: the error's class in snake case, `usage_error` for the command
    line, `os_error`), as `spell` says its own; EXIT_BAD_INPUT."""
    import re

    print(terminal.text(f"error: {message}"), file=sys.stderr)
    if as_json:
        name = "UsageError" if isinstance(err, _Usage) else type(err).__name__
        kind = "os_error" if isinstance(err, OSError) else re.sub(r"(?<!^)(?=[A-Z])", "_", name)
        error = {"kind": kind.lower(), "message": message, "exit_code": EXIT_BAD_INPUT}
        print(terminal.json_text({"error": error}))
    return EXIT_BAD_INPUT


COULD_NOT_JUDGE = "the spellbook hook could not judge this tool call"


def claude_hook(root: str | None, machine: str | None, stdin: Any) -> int:
    """A Claude Code PreToolUse hook. EXIT_OK allows the tool call; EXIT_HOOK_BLOCK blocks
    it, with the reason on stderr for the model. Every failure, this program's own included,
    blocks: a hook that crashed would otherwise let the call through."""
    try:
        ok, reason = judge_event(root, machine, stdin.read(HOOK_LIMIT + 1))
    except Exception as err:  # fail closed, whatever went wrong
        why = (
            said(err)
            if isinstance(err, (SpellbookError, OSError))
            else f"internal error ({type(err).__name__}: {err})"
        )
        ok, reason = False, f"{COULD_NOT_JUDGE}: {why}"
    if ok:
        return EXIT_OK
    if sys.stderr is None:  # closed: print would write the reason to stdout instead
        return EXIT_HOOK_BLOCK
    try:
        print(terminal.text(reason), file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):  # stderr gone: the call is blocked all the same
        terminal.to_null(sys.stderr)
    return EXIT_HOOK_BLOCK


def judge_event(root: str | None, machine: str | None, data: bytes) -> tuple[bool, str]:
    """(allowed, why) for one PreToolUse event."""
    if len(data) > HOOK_LIMIT:
        return False, f"the hook event is larger than {HOOK_LIMIT / 1e6:.0f} MB"
    event = parse_json(data, "the hook event")
    if not isinstance(event, dict):
        return False, "the hook event is not a JSON object"
    tool = event.get("tool_input")
    if tool is None:
        return True, "not a tool call on a file"
    if not isinstance(tool, dict):
        return False, "the hook event's tool_input is not an object"
    name = event.get("tool_name")
    name = name if isinstance(name, str) else ""  # none, or not text: a tool of no known kind
    if name in NOT_JUDGED:
        return True, f"{name} only reads, or writes no file by a path"
    cwd = event.get("cwd")
    if not (cwd is None or isinstance(cwd, str)) or (cwd and "\0" in cwd):
        return False, "the hook event's cwd is not text (or holds a NUL byte)"
    named = [tool[key] for key in PATH_KEYS if tool.get(key) is not None]
    for path in named:
        if isinstance(path, str) and "\0" in path:
            return False, "the hook event's file_path holds a NUL byte"
        if isinstance(path, str) and path.startswith("~"):
            return False, "the hook event's file_path starts with ~, which the hook cannot resolve"
    base = cwd or os.environ.get("CLAUDE_PROJECT_DIR") or root or os.getcwd()
    from spellbook.doors import committed

    try:
        texts = strings(tool, _data_keys(name, tool))
        if not texts:
            return True, "the tool call names no file"
        with committed.loading():  # a project's machine, as HEAD holds it
            try:
                ok, why = _judge(Guard(root, machine, base), name, tool, texts)
            except SpellbookError as err:
                ok, why = False, f"{COULD_NOT_JUDGE}: {said(err)}"
            changed = committed.uncommitted()
    except TooBig as err:
        return False, f"{err}: too much for the hook to judge, so it is blocked"
    if not ok and changed:  # what it said may be of the spec before the change
        listed = ", ".join(changed)
        why = _without_rename_advice(why)
        why += (
            f" (the hook judges by {listed} as HEAD holds it, and the working tree's "
            f"differs: a change of the spec counts here once the spec and what "
            f"spellbook-codegen wrote are committed)"
        )
    return ok, why


def _without_rename_advice(why: str) -> str:
    """`why` without the advice to declare a state's former name: where the spec's change
    is not committed, the state the HEAD's machine lacks may be the new name, which the
    working tree's spec has (and advising it as a former name would be backwards)."""
    from spellbook.disk.state_file import RENAMED_HINT, REPAIR_TO_CHOOSE

    start = why.find(RENAMED_HINT)
    end = why.find("there)", start)
    if start >= 0 and end >= 0:
        why = why[:start] + why[end + len("there)") :]
    # nor to repair: the state file is right by the working tree's machine, and repair,
    # which reads it so, finds nothing to do
    return why.replace(f"; {REPAIR_TO_CHOOSE}", "")


def _judge(
    guard: Guard, name: str, tool: dict[str, Any], texts: list[tuple[str, str]]
) -> tuple[bool, str]:
    """(allowed, why) for a tool call whose input holds `texts` (where, string)."""
    written = _written(tool)
    judgeable = _judgeable(name, tool, written)
    own = name in CLAUDE_CODE_TOOLS  # a path relative to the event's folder
    found: list[tuple[str, Hit]] = []
    for where, text in texts:
        path = where == written
        hits = guard.hits(text, path, not (judgeable and path), own and path)
        found += [(where, hit) for hit in hits]
        if any(not (judgeable and path) or hit.kind not in (WORKSPACE, CONFIG) for hit in hits):
            break  # blocked whatever the rest names
    if not found:
        return True, "the tool call names no file the hook guards"
    elsewhere = [(where, hit) for where, hit in found if where != written]
    if elsewhere or not judgeable:
        where, hit = (elsewhere or found)[0]
        tool_name = name[:80] or "the tool"
        return False, (
            f"{hit.shown()} is guarded ({hit.what()}), and the hook cannot tell what this "
            f"tool would write in it ({tool_name} names it as `{where[:80]}`): it judges "
            "only a Write, Edit or MultiEdit of one file; any other tool naming a guarded "
            "file or folder (a move, copy or delete of it, as source or destination) is "
            "blocked: cast a spell instead"
        )
    said = (True, "")
    for _, hit in found:
        said = _judge_write(hit, tool)
        if not said[0]:
            return said
    return said


def _written(tool: dict[str, Any]) -> str | None:
    """The key of PATH_KEYS naming the one file the tool writes; None unless one does."""
    keys = [key for key in PATH_KEYS if tool.get(key) is not None]
    return keys[0] if len(keys) == 1 and isinstance(tool[keys[0]], str) else None


def _judgeable(name: str, tool: dict[str, Any], written: str | None) -> bool:
    """Whether the tool call writes the one file `written` names in a way the hook can
    read: Claude Code's Write, Edit or MultiEdit, or a tool whose input has their shape
    (and their types: text, or a list of edits of text)."""
    if written is None:
        return False
    keys = set(tool) - {written}
    if not keys & {"content", "old_string", "edits"}:
        return False
    if name in ("Write", "Edit", "MultiEdit"):
        return True
    if name in DATA_KEYS or not any(keys <= shape for shape in SHAPES):
        return False
    if "edits" in keys:  # MultiEdit's shape: each edit of Edit's
        edits = tool["edits"]
        return isinstance(edits, list) and all(
            isinstance(edit, dict) and set(edit) <= SHAPES[1] and _text(edit) for edit in edits
        )
    return _text(tool)


def _text(fields: dict[str, Any]) -> bool:
    """Whether the content, old and new strings that `fields` holds are text."""
    return all(isinstance(fields.get(key, ""), str) for key in ("content", *TEXT_KEYS))


def _data_keys(name: str, tool: dict[str, Any]) -> tuple[str, ...]:
    """The keys of the tool's input that say what it writes, not where: never read as
    paths. Those of Claude Code's own tools (DATA_KEYS), and of a tool judged as one of
    them (an MCP `write_file` of `path` and `content`)."""
    if name in DATA_KEYS:
        return DATA_KEYS[name]
    written = _written(tool)
    return tuple(set(tool) - {written}) if _judgeable(name, tool, written) else ()


def _judge_write(hit: Hit, tool: dict[str, Any]) -> tuple[bool, str]:
    """(allowed, why) for a Write, Edit or MultiEdit of the guarded thing `hit`."""
    shown = hit.shown()
    if hit.kind == RUNTIME:
        return False, (
            f"{shown} is the runtime's own (an interrupted cast's record, history, trash, "
            "lock): only casts write it"
        )
    if hit.kind in (FOLDER, GIT, CACHE, INTERPRETER):
        return False, f"{shown} is {hit.what()}: no write by hand is judged there"
    if hit.kind in (UNCOMMITTED, UNREAD):
        return False, f"{shown} is {hit.what()}"
    if hit.kind == SETTINGS:
        return False, f"{shown} is {hit.what()}"
    if hit.kind == VOCABULARY:
        return False, f"{shown} is {hit.what()}: the developer edits it by hand, not the session"
    if hit.kind == GENERATED:
        return False, (
            f"{shown} is {hit.what()} from the spec: regenerate them with spellbook-codegen "
            "instead of writing them by hand"
        )
    if hit.kind == CONFIG:
        real = os.path.realpath(shown)
        data = Workspace(os.path.dirname(real), "").read_bytes(
            os.path.basename(real), PROJECT_LIMIT
        )
        current = None if data is None else data.decode("utf-8", "replace")
        proposed = _proposed(shown, current, tool)
        if proposed is None:
            return True, f"{shown} does not exist: an edit of it changes nothing"
        return judge_config(shown, data or b"", proposed.encode("utf-8", "surrogatepass"))
    if hit.place is None:  # a workspace's file always has its place; fail closed
        return False, f"{shown}: the hook found no workspace to judge it by"
    workflow = hit.place.workflow
    current = workflow.workspace.read_text(hit.name, STATE_LIMIT)
    proposed = _proposed(shown, current, tool)
    if proposed is None:
        return True, f"{shown} does not exist: an edit of it changes nothing"
    if hit.name == workflow.state_file:
        return workflow.judge_file(proposed.encode("utf-8", "surrogatepass"))
    return workflow.judge_write(hit.name, proposed)


def judge_config(shown: str, before: bytes, after: bytes) -> tuple[bool, str]:
    """(allowed, why) for a write of a pyproject.toml (`before`: its bytes, b"" if there
    is none): refused if it adds or removes a `[tool.spellbook]` table, however TOML
    writes it (`project.has_table`, as `spell` finds a project), changes what the
    table says (which machines run, from which modules, with which words), or would
    make the file larger than `spell` reads of one (PROJECT_LIMIT)."""
    from spellbook.disk.project import ProjectError, has_table, spellbook_table

    if len(after) > PROJECT_LIMIT:
        return False, (
            f"{shown}: refused: it would be larger than {PROJECT_LIMIT // 1_000_000} MB, "
            "more than spell reads of a pyproject.toml to find a project"
        )
    had, has = has_table(before), has_table(after)
    if not had and not has:
        return True, f"{shown} does not configure Spellbook"
    if had != has:
        done = "removes the" if had else "adds a"
        return False, (
            f"{shown}: refused: it {done} [tool.spellbook] table, which makes a project of "
            "its folder (which machines run, from which modules): the developer changes "
            "it, not the session"
        )
    try:
        old: dict[str, object] | None = spellbook_table(before.decode("utf-8"))
    except (ProjectError, UnicodeDecodeError):
        old = None
    try:
        new = spellbook_table(after.decode("utf-8"))
    except UnicodeDecodeError as err:
        return False, f"{shown}: refused: the new file is not UTF-8 (byte {err.start})"
    except ProjectError as err:
        return False, f"{shown}: refused: the new file cannot be read ({said(err)})"
    if old != new:
        return False, (
            f"{shown}: refused: it changes [tool.spellbook] (which machines run, from which "
            "modules, with which vocabulary): the developer changes it, not the session"
        )
    return True, f"{shown}: [tool.spellbook] stays as it is"


def _proposed(shown: str, current: str | None, tool: dict[str, Any]) -> str | None:
    """The file's text after the Write, Edit or MultiEdit in `tool` (`current` before,
    None where there is no file); None for edits of a file that is not there, which the
    tool cannot make (an edit whose `old_string` is empty, which would make the file,
    is refused)."""
    if "content" in tool:
        if not isinstance(tool["content"], str):
            raise BadFile("the hook event's content is not text")
        return tool["content"]
    proposed = current or ""
    edits = tool.get("edits") if "edits" in tool else [tool]
    if not isinstance(edits, list) or not edits or len(edits) > MAX_EDITS:
        raise BadFile(f"the hook event's edits are not a list of 1 to {MAX_EDITS} edits")
    for edit in edits:
        if not isinstance(edit, dict):
            raise BadFile("the hook event's edit is not an object")
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            raise BadFile("the hook event's old_string or new_string is not text")
        if current is None:
            continue  # checked for what it is; it edits nothing
        found = proposed.count(old)
        every = edit.get("replace_all") is True
        if found == 0 or (found > 1 and not every):
            # Judged only as the edit the tool makes: one that matches nowhere, or in
            # several places without replace_all, is one it refuses too.
            raise BadFile(
                f"the edit's old_string is found {found} times in {shown}; the hook judges "
                "only an exact, unique match"
            )
        proposed = proposed.replace(old, new, -1 if every else 1)
        if len(proposed) > STATE_LIMIT:
            raise BadFile(f"the edits make {shown} larger than {STATE_LIMIT / 1e6:.0f} MB")
    return None if current is None else proposed
