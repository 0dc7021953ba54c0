"""`spell`: cast a spell, show the status, repair the state file, draw the diagram.

`spell session ...` does the same for the coding-session machine, and
`spell session check-transition` judges a move of its state made by hand (a hook).
"""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Sequence
from types import SimpleNamespace

from spellbook.errors import (
    ActionError,
    BadFile,
    SpellbookError,
    Undefined,
    UnknownSpell,
    UnknownState,
    UnsafePath,
    said,
)
from spellbook.exits import (
    EXIT_BAD_INPUT,
    EXIT_BLOCKED,
    EXIT_FAILED,
    EXIT_HOOK_BLOCK,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_UNHANDLED,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from spellbook.workflow import Workflow

MACHINES = {
    "spell": "spellbook.machines.spell_machine",
    "session": "spellbook.machines.session_machine",
}
COMMANDS = ("status", "repair", "diagram", "mcp", "check-transition")


def epilog(machine: str) -> str:
    """The commands and exit statuses, in the machine's words (`spell --help`)."""
    from importlib import import_module

    module = import_module(MACHINES[machine])
    word = module.SPELL_WORD
    prog = "spell" if machine == "spell" else f"spell {machine}"
    names = ", ".join(name.lower() for name in module.SPELLS)
    return f"""commands:
  {word.upper():<10} {"cast" if word == "spell" else "fire"} it (case does not matter): {names}
  status     the current state and what each {word} would do now
  repair     replace an unusable or missing state file with a state read off the files
  diagram    a mermaid diagram of the machine, the current state highlighted
  mcp        serve the {word}s as MCP tools over stdio (needs spellbook[mcp])
  check-transition FROM TO | --state-file PATH | --claude-hook
             judge a move of the state made by hand ({prog} check-transition --help)

Without --root, {prog} works in the nearest folder at or above the current one that
holds {module.WORKSPACE}/, else at the top of the git repository, else here.

exit status:
  {EXIT_OK}  transition or no-op (and status, repair, diagram done)
  {EXIT_FAILED}  the cast could not run (another cast holds the lock, a disk error)
  {EXIT_BAD_INPUT}  bad input: unknown {word}, unusable state file, unsafe path, bad frontmatter
  {EXIT_BLOCKED}  blocked: the spec refuses the {word} in this state
  {EXIT_UNHANDLED}  unhandled: no rule covers the {word} for the files as they are
  check-transition: 0 allowed, {EXIT_REFUSED} refused (the reason on stderr);
  with --claude-hook, {EXIT_HOOK_BLOCK} refused (Claude Code blocks the tool call)"""


def quick_arguments(argv: Sequence[str]) -> SimpleNamespace | None:
    """`[--root DIR] [--json] COMMAND`, read without argparse; None for anything else.

    argparse builds a help formatter on every parse, importing shutil, locale and
    gettext: about 5 ms, more than half of what starting `spell` may cost on top of
    `import transitions`. Anything but this common form goes to argparse.
    """
    root: str | None = None
    as_json, command = False, None
    items = list(argv)
    while items:
        item = items.pop(0)
        if item == "--json":
            as_json = True
        elif item == "--root" and items:
            root = items.pop(0)
        elif item.startswith("--root="):
            root = item[len("--root=") :]
        elif item.startswith("-") or command is not None:
            return None
        else:
            command = item
    if command is None:
        return None
    return SimpleNamespace(root=root, json=as_json, command=command)


DESCRIPTIONS = {
    "spell": "Cast a spell in a repository's AI Engineer workflow (.ai/task/).",
    "session": "Drive a repository's coding session (.claude/progress/) with a trigger.",
}


def _arguments(argv: Sequence[str], machine: str = "spell") -> SimpleNamespace:
    quick = quick_arguments(argv)
    if quick is not None:
        return quick
    import argparse

    parser = argparse.ArgumentParser(
        prog="spell" if machine == "spell" else "spell session",
        description=DESCRIPTIONS[machine],
        epilog=epilog(machine),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--root",
        help="the repository (default: the nearest folder at or above the current one "
        "that holds the workspace, else the repository's top folder, else the current one)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    word = "spell" if machine == "spell" else "trigger"
    parser.add_argument("command", help=f"a {word}, or {', '.join(COMMANDS)}")
    return SimpleNamespace(**vars(parser.parse_args(argv)))


def run() -> NoReturn:
    """The `spell` command: `main()` in a process of its own, which then exits."""
    # A cast allocates little and the process ends at once, so the cyclic garbage
    # collector would only walk the machine's objects over and over (during the
    # imports, and all of them again at exit): about a tenth of a cold cast. It is
    # off here and in `python -m spellbook`; the long-running `spell mcp` turns it
    # back on, and `main()` called from Python leaves it alone.
    gc.disable()
    code = main()
    gc.freeze()  # what is left is freed at exit without another full collection
    sys.exit(code)


# Errors that are the input's fault (exit 2); any other SpellbookError or OSError is 1.
BAD_INPUT = (UnknownSpell, UnknownState, BadFile, UnsafePath, ActionError, Undefined)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    machine = "spell"
    if args[:1] == ["session"]:
        machine, args = "session", args[1:]
    if "check-transition" in args:
        return _check_transition(args, machine)
    try:
        return _main(args, machine)
    except Exception as err:  # a bug: said in one line (SPELLBOOK_DEBUG=1 for the traceback)
        if os.environ.get("SPELLBOOK_DEBUG"):
            raise
        print(
            f"error: internal error ({type(err).__name__}: {err}); please report it",
            file=sys.stderr,
        )
        return EXIT_FAILED


def _emit(text: str) -> None:
    """Write to stdout; a reader that has gone (`spell status | head -1`) is no error."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _workflow(root: str | None, machine: str) -> Workflow:
    """The workflow of the repository at `root`, or, without one, of the repository the
    current folder is in (`find_root`), said on stderr when that is not the current
    folder: a cast from a subfolder never starts a second workspace there."""
    from importlib import import_module

    from spellbook.workflow import Workflow

    module = import_module(MACHINES[machine])
    if root is None:
        here = os.getcwd()
        root = find_root(here, module.WORKSPACE)
        if root != here:
            shown = os.path.join(os.path.relpath(root, here), module.WORKSPACE)
            print(f"spell: using the workspace {shown}/ ({root})", file=sys.stderr)
    elif not root:
        raise BadFile("--root needs a folder")
    elif not os.path.isdir(root):
        what = "is not a folder" if os.path.lexists(root) else "does not exist"
        raise BadFile(f"the repository folder {os.path.abspath(root)} {what}")
    return Workflow(root, module)


def find_root(start: str, workspace: str) -> str:
    """The repository a command run in `start` is about, found the way git finds its
    repository: the nearest folder at or above `start` holding the `workspace` folder,
    without leaving the repository `start` is in (its top is the nearest folder with a
    `.git` folder; a submodule's `.git` file does not end the search), else that top
    (a new workspace starts there), else `start`. A workspace above `start` counts
    only if it belongs to this user (as git asks of a repository another user owns)."""
    chain = [os.path.abspath(start)]
    while os.path.dirname(chain[-1]) != chain[-1]:
        chain.append(os.path.dirname(chain[-1]))
    inside = ""  # the nearest folder with a .git (folder or a submodule's file)
    for folder in chain:
        found = os.path.join(folder, workspace)
        if os.path.lexists(found) and (folder == chain[0] or _own(found)):
            return folder
        git = os.path.join(folder, ".git")
        if os.path.isdir(git) and not os.path.islink(git):
            return inside or folder
        if not inside and os.path.lexists(git):
            inside = folder
    return inside or chain[0]


def _own(path: str) -> bool:
    """Whether `path` belongs to the user running this (always, where there are no users)."""
    try:
        return not hasattr(os, "geteuid") or os.lstat(path).st_uid == os.geteuid()
    except OSError:
        return False


def _main(argv: Sequence[str], machine: str) -> int:
    args = _arguments(argv, machine)
    try:
        workflow = _workflow(args.root, machine)
        command = args.command.lower()
        if command == "status":
            return _print(workflow.status(), args.json, _status_text)
        if command == "repair":
            return _print({"message": workflow.repair()}, args.json, lambda d: d["message"])
        if command == "diagram":
            return _print({"diagram": workflow.diagram()}, args.json, lambda d: d["diagram"])
        if command == "mcp":
            from spellbook.server import serve

            gc.enable()
            return serve(workflow)
        result = workflow.cast(command)
    except UnknownSpell as err:
        known = [name.lower() for name in workflow.machine.SPELLS] + [*COMMANDS]
        print(f"error: {said(err)}{_did_you_mean(args.command.lower(), known)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BAD_INPUT as err:
        print(f"error: {said(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (SpellbookError, OSError) as err:
        print(f"error: {said(err)}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        _emit(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        _emit(result.response)
    return {"blocked": EXIT_BLOCKED, "unhandled": EXIT_UNHANDLED}.get(result.outcome, EXIT_OK)


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    from difflib import get_close_matches

    close = get_close_matches(word, known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _print(data: dict[str, object], as_json: bool, text: object) -> int:
    if as_json:
        _emit(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        _emit(text(data) + "\n")  # type: ignore[operator]
    return EXIT_OK


def _status_text(data: dict[str, object]) -> str:
    lines = [f"{data['state']}: {data['description']}", f"Workspace: {data['workspace']}/"]
    fields = data.get("fields")
    assert isinstance(fields, dict)
    lines += [f"{name}: {value}" for name, value in fields.items() if value is not None]
    files = data.get("files")
    assert isinstance(files, dict)
    there = [f for f, held in files.items() if held]
    missing = [f for f, held in files.items() if not held]
    lines += [
        f"Files there: {', '.join(there) or 'none'}; not there: {', '.join(missing) or 'none'}",
        "",
    ]
    if data.get("formerly"):
        lines += [
            f"The state file names {data['formerly']}, the spec's former name for "
            f"{data['state']}: the next cast (or `spell repair`) records the move.",
            "",
        ]
    if data.get("interrupted"):
        lines += [f"Interrupted: {data['interrupted']}", ""]
    lines.append("What each would do now:")
    spells = data["spells"]
    assert isinstance(spells, dict)
    for spell, summary in spells.items():
        said = str(summary or "nothing (no rule applies now)").replace("**", "")  # plain text
        lines.append(f"  {spell}: {said}")
    history = data["history"]
    assert isinstance(history, list)
    if history:
        lines += ["", "Latest casts:"]
        for entry in history:
            if isinstance(entry, dict):
                when = entry.get("timestamp") or entry.get("at") or "?"
                move = entry.get("transition") or f"→ {entry.get('state', '?')}"
                lines.append(
                    f"  {when}  {entry.get('trigger', '?')}: {move} ({entry.get('outcome', '?')})"
                )
    return "\n".join(lines)


HOOK_LIMIT = 10_000_000  # bytes of a hook event read from stdin
MAX_EDITS = 100  # edits of one MultiEdit the hook judges


def _check_transition(argv: Sequence[str], machine: str) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog=f"spell {'session ' if machine == 'session' else ''}check-transition",
        description="Judge a move of the state made by hand: allowed (exit 0) or refused "
        f"(exit {EXIT_REFUSED}, the reason on stderr). Never runs the project's commands: "
        "a guard on a command's outcome is judged by the last run a cast recorded.",
    )
    parser.add_argument(
        "--root",
        help="the repository (default: found from the current folder as `spell` finds it; "
        "for --claude-hook, $CLAUDE_PROJECT_DIR or found from the event's folder)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("check", choices=["check-transition"], help=argparse.SUPPRESS)
    parser.add_argument("states", nargs="*", metavar="FROM TO")
    parser.add_argument(
        "--state-file", help="a proposed new state file, judged against the current one"
    )
    parser.add_argument(
        "--claude-hook",
        action="store_true",
        help="read a Claude Code PreToolUse event from stdin; block (exit 2) a Write or Edit "
        "of the state file that the spec does not allow, or of a file only casts may change; "
        "anything it cannot judge is blocked too",
    )
    args = parser.parse_intermixed_args(argv)
    if args.claude_hook:
        return _claude_hook(args.root, machine, sys.stdin.buffer)
    from spellbook.state_file import STATE_LIMIT

    try:
        workflow = _workflow(args.root, machine)
        if args.state_file:
            from spellbook.store import Workspace

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
    except (*BAD_INPUT, SpellbookError, OSError) as err:
        print(f"error: {said(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps({"allowed": ok, "reason": reason}))
    if not (args.json and ok):
        print(reason, file=sys.stdout if ok else sys.stderr)
    return EXIT_OK if ok else EXIT_REFUSED


def _claude_hook(root: str | None, machine: str, stdin: Any) -> int:
    """A Claude Code PreToolUse hook. Exit 0 allows the tool call; exit 2 blocks it, with
    the reason on stderr for the model. Every failure, this program's own included,
    blocks: a hook that crashed would otherwise let the call through."""
    try:
        ok, reason = _judge_event(root, machine, stdin.read(HOOK_LIMIT + 1))
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


def _judge_event(root: str | None, machine: str, data: bytes) -> tuple[bool, str]:
    """(allowed, why) for one PreToolUse event."""
    from spellbook.state_file import parse_json

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
    file_path = tool.get("file_path")
    if file_path is None:
        return True, "not a tool call on a file"
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
        said = _judge_in(_workflow(found, machine), target, tool)
        if not said[0]:
            return said
    return said


def _hook_roots(given: str | None, base: str, paths: tuple[str, ...], machine: str) -> list[str]:
    """The repositories a hook event's file may belong to: --root if given; else each
    one whose workspace folder the file's path (as written, and with links resolved)
    goes through, and the repository of the folder the event names (whose files a
    hard link elsewhere may be). A file is judged by the workspace it is written
    into, so no folder planted on its way (a `.git`, a second workspace) can hide it."""
    if given:
        return [given]
    from importlib import import_module

    workspace = import_module(MACHINES[machine]).WORKSPACE
    folder = os.path.abspath(base)
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
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
    if rel.startswith("."):
        return False, (
            f"{workflow.workspace.shown(rel)} is the runtime's own (an interrupted cast's "
            "record, history, trash, lock): only casts write it"
        )
    if not workflow.guards(rel):
        return True, f"{workflow.workspace.shown(rel)} is not guarded"
    proposed = _proposed(workflow, rel, tool)
    if rel == workflow.state_file:
        return workflow.judge_file(proposed.encode("utf-8", "surrogatepass"))
    return workflow.judge_write(rel, proposed)


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
    from spellbook.errors import BadFile
    from spellbook.state_file import STATE_LIMIT

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
