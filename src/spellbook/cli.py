"""`spell`: cast a spell, show the status, repair the state file, draw the diagram."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from types import SimpleNamespace

from spellbook.errors import ActionError, SpellbookError, StateFileError, UnknownSpell, UnsafePath

# Exit statuses, in one place.
EXIT_OK = 0  # a transition or a no-op; status, repair and diagram done
EXIT_FAILED = 1  # the cast could not run: another cast holds the lock, a disk error
EXIT_BAD_INPUT = 2  # unknown spell, unusable state file, unsafe path, bad frontmatter
EXIT_BLOCKED = 3  # the spec refuses this spell in this state
EXIT_UNHANDLED = 4  # no rule of the spec covers the spell for the files as they are

COMMANDS = ("status", "repair", "diagram")
EPILOG = f"""commands:
  SPELL      cast it (case does not matter): accio, expecto, reparo, reverto, finite, lumos
  status     the current state and what each spell would do now
  repair     replace an unusable state file (kept as a backup) with a state read off the files
  diagram    a mermaid diagram of the machine, the current state highlighted

exit status:
  {EXIT_OK}  transition or no-op (and status, repair, diagram done)
  {EXIT_FAILED}  the cast could not run (another cast holds the lock, a disk error)
  {EXIT_BAD_INPUT}  bad input: unknown spell, unusable state file, unsafe path, bad frontmatter
  {EXIT_BLOCKED}  blocked: the spec refuses the spell in this state
  {EXIT_UNHANDLED}  unhandled: no rule covers the spell for the files as they are"""


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


def _arguments(argv: Sequence[str] | None) -> SimpleNamespace:
    quick = quick_arguments(sys.argv[1:] if argv is None else argv)
    if quick is not None:
        return quick
    import argparse

    parser = argparse.ArgumentParser(
        prog="spell",
        description="Cast a spell in a repository's AI Engineer workflow (.ai/task/).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--root", default=".", help="the repository (default: the current folder)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("command", help="a spell, or status, repair, diagram")
    return SimpleNamespace(**vars(parser.parse_args(argv)))


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED


def _main(argv: Sequence[str] | None) -> int:
    args = _arguments(argv)
    from spellbook.workflow import Workflow

    try:
        workflow = Workflow(args.root)
        command = args.command.lower()
        if command == "status":
            return _print(workflow.status(), args.json, _status_text)
        if command == "repair":
            return _print({"message": workflow.repair()}, args.json, lambda d: d["message"])
        if command == "diagram":
            return _print({"diagram": workflow.diagram()}, args.json, lambda d: d["diagram"])
        result = workflow.cast(command)
    except (UnknownSpell, StateFileError, UnsafePath, ActionError) as err:
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
    lines = [f"{data['state']}: {data['description']}", "", "Spells now:"]
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
                lines.append(
                    f"  {entry.get('timestamp', '?')}  {entry.get('trigger', '?')}: "
                    f"{entry.get('transition', '?')} ({entry.get('outcome', '?')})"
                )
    return "\n".join(lines)
