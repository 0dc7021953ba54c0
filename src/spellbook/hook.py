"""`spell check-transition` and the Claude Code hook: judging moves of the state made by hand."""

from __future__ import annotations

import json
import os
import sys

from spellbook.errors import BadFile, SpellbookError, said
from spellbook.exits import EXIT_BAD_INPUT, EXIT_HOOK_BLOCK, EXIT_OK, EXIT_REFUSED
from spellbook.repository import MACHINE_HELP, find_root, one_machine, open_workflow, resolve
from spellbook.state_file import STATE_LIMIT, parse_json
from spellbook.store import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from spellbook.workflow import Workflow

HOOK_LIMIT = 10_000_000  # bytes of a hook event read from stdin
PATH_KEYS = ("file_path", "notebook_path", "path")  # where tools name the file they touch
# Claude Code's tools that only read: any other tool naming a guarded file is judged.
READ_ONLY_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
MAX_EDITS = 100  # edits of one MultiEdit the hook judges


def check_transition(argv: Sequence[str], machine: str | None) -> int:
    """`spell [session] check-transition`: judge a move of the state made by hand (FROM
    TO, or a proposed state file), or, with --claude-hook, a Claude Code tool call."""
    import argparse

    parser = argparse.ArgumentParser(
        prog=f"spell {'session ' if machine == 'session' else ''}check-transition",
        description=f"Judge a move of the state made by hand: allowed (exit {EXIT_OK}) or "
        f"refused (exit {EXIT_REFUSED}, the reason on stderr). Never runs the project's commands: "
        "a guard on a command's outcome is judged by the last run a cast recorded.",
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
    args = parser.parse_intermixed_args(argv)
    try:
        machine = one_machine(machine, args.machine)
    except SpellbookError as err:
        parser.error(said(err))
    if args.claude_hook:
        return claude_hook(args.root, machine, sys.stdin.buffer)
    try:
        workflow = open_workflow(args.root, machine)
        if args.state_file:
            path = os.path.abspath(args.state_file)
            place = Workspace(os.path.dirname(path), "")
            data = place.read_bytes(os.path.basename(path), STATE_LIMIT)  # no FIFO, no link
            if data is None:
                raise BadFile(f"{args.state_file} does not exist")
            ok, reason = workflow.judge_file(data)
        elif len(args.states) == 2:
            ok, reason = workflow.judge(*args.states)
        else:
            parser.error("give FROM TO, --state-file PATH or --claude-hook")
    except (SpellbookError, OSError) as err:
        print(f"error: {said(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps({"allowed": ok, "reason": reason}))
    if not (args.json and ok):
        print(reason, file=sys.stdout if ok else sys.stderr)
    return EXIT_OK if ok else EXIT_REFUSED


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
        ok, reason = False, f"the spellbook hook could not judge this tool call: {why}"
    if ok:
        return EXIT_OK
    print(reason, file=sys.stderr)
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
    # Write, Edit, MultiEdit name `file_path`; NotebookEdit `notebook_path`; MCP file
    # tools `path`: a tool that names a file is judged whatever its name.
    named = [tool[key] for key in PATH_KEYS if tool.get(key) is not None]
    if not named or event.get("tool_name") in READ_ONLY_TOOLS:
        return True, "not a tool call that writes a file"
    if len(named) > 1:
        return False, "the hook event names more than one file; it is judged one at a time"
    file_path = named[0]
    cwd = event.get("cwd")
    if not isinstance(file_path, str) or not (cwd is None or isinstance(cwd, str)):
        return False, "the hook event's file_path or cwd is not text"
    if "\0" in file_path or (cwd and "\0" in cwd):
        return False, "the hook event's file_path or cwd holds a NUL byte"
    if file_path.startswith("~"):
        return False, "the hook event's file_path starts with ~, which the hook cannot resolve"
    base = cwd or os.environ.get("CLAUDE_PROJECT_DIR") or root or os.getcwd()
    written = os.path.normpath(os.path.join(os.path.abspath(base), file_path))
    target = os.path.realpath(written)
    said = (True, "not a file of the workspace")
    for found in _hook_roots(root, base, (written, target), machine):
        said = _judge_in(open_workflow(found, machine), target, tool)
        if not said[0]:
            return said
    return said


def _hook_roots(
    given: str | None, base: str, paths: tuple[str, ...], machine: str | None
) -> list[str]:
    """The repositories a hook event's file may belong to: --root if given; else each
    one whose workspace folder the file's path (as written, and with links resolved)
    goes through, and the repository of the folder the event names (whose files a
    hard link elsewhere may be). A file is judged by the workspace it is written
    into, so no folder planted on its way (a `.git`, a second workspace) can hide it."""
    if given:
        return [given]
    folder = os.path.abspath(base)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    workspace = resolve(folder, machine)[0].WORKSPACE
    found = [_workspace_root(p, workspace) for p in paths] + [find_root(folder, workspace)]
    return [r for r in dict.fromkeys(found) if r]


def _workspace_root(path: str, workspace: str) -> str:
    """The folder whose `workspace` (`.claude/progress`) `path` is in, or is; "" if none.
    The outermost one: a workspace folder inside another is that one's file."""
    parts = path.split(os.sep)
    inner = workspace.strip("/").split("/")
    for at in range(len(parts) - len(inner) + 1):
        if parts[at : at + len(inner)] == inner:
            return os.sep.join(parts[:at]) or os.sep
    return ""


def _judge_in(workflow: Workflow, target: str, tool: dict[str, Any]) -> tuple[bool, str]:
    """(allowed, why) for a write of `target` (links resolved), as `workflow`'s."""
    folder = os.path.realpath(workflow.workspace.base)
    rel: str | None = None
    if os.path.commonpath([target, folder]) == folder:
        rel = os.path.relpath(target, folder).replace(os.sep, "/")
    else:
        rel = _same_file(target, folder)  # a hard link to a workspace file, say
    if rel is None:
        return True, "not a file of the workspace"
    rel = _judged_name(workflow, target, folder, rel)
    if rel.startswith("."):
        return False, (
            f"{workflow.workspace.shown(rel)} is the runtime's own (an interrupted cast's "
            "record, history, trash, lock): only casts write it"
        )
    if not workflow.guards(rel):
        return True, f"{workflow.workspace.shown(rel)} is not guarded"
    if not ("content" in tool or "edits" in tool or "old_string" in tool):
        return False, (
            f"{workflow.workspace.shown(rel)} is guarded, and the hook cannot tell what this "
            "tool would write in it; cast a spell instead"
        )
    proposed = _proposed(workflow, rel, tool)
    if rel == workflow.state_file:
        return workflow.judge_file(proposed.encode("utf-8", "surrogatepass"))
    return workflow.judge_write(rel, proposed)


def _judged_name(workflow: Workflow, target: str, folder: str, rel: str) -> str:
    """The name the workspace knows a file written as `rel` by: the file it is (a hard
    link, a name a case-insensitive filesystem folds), or a guarded file whose name it
    is but for case, Unicode normalization and trailing dots or spaces (`State.json`,
    `state.json.`), which some filesystems take for the same file."""
    if os.path.lexists(target):
        same = _same_file(target, folder)
        if same is not None:
            return same
    key = _folded(rel)
    guarded = [workflow.state_file, *getattr(workflow.engine.vocabulary, "JUDGED", ())]
    return next((name for name in guarded if _folded(name) == key), rel)


def _folded(rel: str) -> str:
    import unicodedata

    parts = rel.replace("\\", "/").split("/")
    return "/".join(unicodedata.normalize("NFC", p).casefold().rstrip(". ") for p in parts)


def _same_file(target: str, folder: str) -> str | None:
    """The workspace file (relative to `folder`) that `target` is the same file as (a
    hard link, or a name that differs only in case on a filesystem that ignores it)."""
    try:
        info = os.stat(target)
        entries = os.listdir(folder)
    except (OSError, ValueError):
        return None
    for name in entries:
        try:
            other = os.stat(os.path.join(folder, name))
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            return name
    return None


def _proposed(workflow: Workflow, rel: str, tool: dict[str, Any]) -> str:
    """The file's text after the Write, Edit or MultiEdit in `tool`."""
    if "content" in tool:
        if not isinstance(tool["content"], str):
            raise BadFile("the hook event's content is not text")
        return tool["content"]
    proposed = workflow.workspace.read_text(rel, STATE_LIMIT) or ""
    edits = tool.get("edits") if "edits" in tool else [tool]
    if not isinstance(edits, list) or not edits or len(edits) > MAX_EDITS:
        raise BadFile(f"the hook event's edits are not a list of 1 to {MAX_EDITS} edits")
    for edit in edits:
        if not isinstance(edit, dict):
            raise BadFile("the hook event's edit is not an object")
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            raise BadFile("the hook event's old_string or new_string is not text")
        found = proposed.count(old)
        every = edit.get("replace_all") is True
        if found == 0 or (found > 1 and not every):
            # Judged only as the edit the tool makes: one that matches nowhere, or in
            # several places without replace_all, is one it refuses too.
            raise BadFile(
                f"the edit's old_string is found {found} times in "
                f"{workflow.workspace.shown(rel)}; the hook judges only an exact, unique match"
            )
        proposed = proposed.replace(old, new, -1 if every else 1)
        if len(proposed) > STATE_LIMIT:
            raise BadFile(
                f"the edits make {workflow.workspace.shown(rel)} larger than "
                f"{STATE_LIMIT / 1e6:.0f} MB"
            )
    return proposed
