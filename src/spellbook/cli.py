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
    SpellbookError,
    StateFileError,
    Undefined,
    UnknownSpell,
    UnknownState,
    UnsafePath,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

    from spellbook.workflow import Workflow

# Exit statuses, in one place.
EXIT_OK = 0  # a transition or a no-op; status, repair and diagram done
EXIT_FAILED = 1  # the cast could not run: another cast holds the lock, a disk error
EXIT_BAD_INPUT = 2  # unknown spell, unusable state file, unsafe path, bad frontmatter,
# a condition the spec does not define
EXIT_BLOCKED = 3  # the spec refuses this spell in this state
EXIT_UNHANDLED = 4  # no rule of the spec covers the spell for the files as they are

MACHINES = {
    "spell": "spellbook.machines.spell_machine",
    "session": "spellbook.machines.session_machine",
}
EXIT_REFUSED = 1  # check-transition: the spec does not allow the move
EXIT_HOOK_BLOCK = 2  # check-transition --claude-hook: Claude Code's "block this tool call"
EPILOG = f"""commands:
  SPELL      cast it (case does not matter): accio, expecto, reparo, reverto, finite, lumos
             (spell session TRIGGER: advance, finish, restart, check)
  status     the current state and what each spell would do now
  repair     replace an unusable state file (kept as a backup) with a state read off the files
  diagram    a mermaid diagram of the machine, the current state highlighted
  mcp        serve the spells as MCP tools over stdio (needs spellbook[mcp])
  spell session check-transition FROM TO | --state-file PATH | --claude-hook
             judge a move of the session's state made by hand

exit status:
  {EXIT_OK}  transition or no-op (and status, repair, diagram done)
  {EXIT_FAILED}  the cast could not run (another cast holds the lock, a disk error)
  {EXIT_BAD_INPUT}  bad input: unknown spell, unusable state file, unsafe path, bad frontmatter
  {EXIT_BLOCKED}  blocked: the spec refuses the spell in this state
  {EXIT_UNHANDLED}  unhandled: no rule covers the spell for the files as they are
  check-transition: 0 allowed, {EXIT_REFUSED} refused (the reason on stderr);
  with --claude-hook, {EXIT_HOOK_BLOCK} refused (Claude Code blocks the tool call)"""


def quick_arguments(argv: Sequence[str]) -> SimpleNamespace | None:
    """`[--root DIR] [--json] COMMAND`, read without argparse; None for anything else.

    argparse builds a help formatter on every parse, importing shutil, locale and
    gettext: about 5 ms, more than half of what starting `spell` may cost on top of
    `import transitions`. Anything but this common form goes to argparse.
    """
    root, as_json, command = ".", False, None
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
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--root", default=".", help="the repository (default: the current folder)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "command",
        help="a spell, or status, repair, diagram, mcp"
        if machine == "spell"
        else "a trigger, or status, repair, diagram, mcp, check-transition",
    )
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


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    machine = "spell"
    if args[:1] == ["session"]:
        machine, args = "session", args[1:]
    try:
        if "check-transition" in args:
            return _check_transition(args, machine)
        return _main(args, machine)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED


def _workflow(root: str, machine: str) -> Workflow:
    from importlib import import_module

    from spellbook.workflow import Workflow

    return Workflow(root, import_module(MACHINES[machine]))


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
    except (UnknownSpell, UnknownState, StateFileError, UnsafePath, ActionError, Undefined) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (SpellbookError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(result.response)
    return {"blocked": EXIT_BLOCKED, "unhandled": EXIT_UNHANDLED}.get(result.outcome, EXIT_OK)


def _print(data: dict[str, object], as_json: bool, text: object) -> int:
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(text(data))  # type: ignore[operator]
    return EXIT_OK


def _status_text(data: dict[str, object]) -> str:
    lines = [f"{data['state']}: {data['description']}", ""]
    if data.get("interrupted"):
        lines += [f"Interrupted: {data['interrupted']}", ""]
    lines.append("What each would do now:")
    spells = data["spells"]
    assert isinstance(spells, dict)
    for spell, summary in spells.items():
        lines.append(f"  {spell}: {summary or 'nothing (no rule applies now)'}")
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


def _check_transition(argv: Sequence[str], machine: str) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog=f"spell {'session ' if machine == 'session' else ''}check-transition",
        description="Judge a move of the state made by hand: allowed (exit 0) or refused "
        f"(exit {EXIT_REFUSED}, the reason on stderr).",
    )
    parser.add_argument("--root", default=".")
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
        "of the state file that the spec does not allow",
    )
    args = parser.parse_intermixed_args(argv)
    from spellbook.formats import STATE_LIMIT

    workflow = _workflow(args.root, machine)
    try:
        if args.claude_hook:
            return _claude_hook(workflow, sys.stdin.read())
        if args.state_file:
            with open(args.state_file, "rb") as f:
                ok, reason = workflow.judge_file(f.read(STATE_LIMIT + 1))
        elif len(args.states) == 2:
            ok, reason = workflow.judge(*args.states)
        else:
            parser.error("give FROM TO, --state-file PATH or --claude-hook")
    except (UnknownState, StateFileError, UnsafePath, ActionError, Undefined, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps({"allowed": ok, "reason": reason}))
    if not (args.json and ok):
        print(reason, file=sys.stdout if ok else sys.stderr)
    return EXIT_OK if ok else EXIT_REFUSED


def _claude_hook(workflow: Workflow, event_text: str) -> int:
    """A Claude Code PreToolUse hook: judge a Write or Edit of the state file."""
    try:
        event = json.loads(event_text)
        tool = event.get("tool_input") or {}
        base = event.get("cwd") or workflow.workspace.root
        path = os.path.abspath(os.path.join(base, tool.get("file_path", "")))
    except (ValueError, AttributeError, TypeError):
        return EXIT_OK  # not an event this hook is about
    if path != workflow.workspace.path(workflow.state_file):
        return EXIT_OK
    from spellbook.formats import STATE_LIMIT

    current = workflow.workspace.read_text(workflow.state_file, STATE_LIMIT) or ""
    if "content" in tool:
        proposed = str(tool["content"])
    else:
        proposed = current
        edits = tool.get("edits") or [tool]
        for edit in edits:
            old, new = str(edit.get("old_string", "")), str(edit.get("new_string", ""))
            count = -1 if edit.get("replace_all") else 1
            proposed = proposed.replace(old, new, count) if old else proposed
    ok, reason = workflow.judge_file(proposed.encode("utf-8"))
    if ok:
        return EXIT_OK
    print(reason, file=sys.stderr)
    return EXIT_HOOK_BLOCK
