"""`spell`: cast a spell, show the status, repair the state file, draw the diagram.

`spell --machine NAME ...` does the same for a machine of the project
(`spellbook.disk.project`), `spell session ...` for the coding-session machine, and
`spell check-transition` judges a move of the state made by hand (a hook:
`spellbook.doors.hook`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Sequence
from types import SimpleNamespace

from spellbook.doors.repository import (
    MACHINE_HELP,
    UnknownMachine,
    one_machine,
    open_workflow,
    resolve,
)
from spellbook.records import terminal
from spellbook.records.errors import (
    ActionError,
    BadFile,
    SpellbookError,
    Stopped,
    Undefined,
    UnknownSpell,
    UnknownState,
    UnsafePath,
    said,
)
from spellbook.records.exits import (
    EXIT_BAD_INPUT,
    EXIT_BLOCKED,
    EXIT_FAILED,
    EXIT_HOOK_BLOCK,
    EXIT_INTERRUPTED,
    EXIT_NOT_INSTALLED,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_UNHANDLED,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import NoReturn

    from _typeshed import SupportsWrite

    from spellbook.cast.workflow import Workflow


def epilog(module: ModuleType | None, prog: str) -> str:
    """The commands and exit statuses, in the machine's words (`spell --help`)."""
    if module is None:
        word, names, workspace = "spell", "the machine's (not known: see above)", "its workspace"
    else:
        word = module.SPELL_WORD
        names = ", ".join(name.lower() for name in module.SPELLS)
        workspace = f"{module.WORKSPACE}/"
    from spellbook.records import words

    return f"""commands:
  {word.upper():<10} {words.verb(word)} it (case does not matter): {names}
  cast {word.upper():<5} the same, and only that: `{prog} cast status` {words.does(word)} \
{words.a(word)} named Status
  status     the current state and what each {word} would do now
  repair     replace an unusable or missing state file with a state read off the files
  diagram    a mermaid diagram of the machine, the current state highlighted
  mcp        serve the {words.plural(word)} as MCP tools over stdio (needs the mcp extra)
  check-transition FROM TO | --state-file PATH | --claude-hook
             judge a move of the state made by hand ({prog} check-transition --help)
  session    the same commands for the coding session that ships (spell session --help)

machines:
  Without --machine, {prog} drives the default machine of the project it is run in (the
  nearest pyproject.toml with [tool.spellbook.machines]: `default`, else the first
  listed), else the AI Engineer workflow that ships with Spellbook (`spell`). `spell
  session` is `spell --machine session`, the coding session that ships with it.

Without --root, {prog} works in the project's folder for a machine the project lists;
otherwise in the nearest folder at or above the current one that holds {workspace},
else at the top of the git repository, else here.

exit status:
  {EXIT_OK}  transition or no-op (and status, repair, diagram done)
  {EXIT_FAILED}  the cast could not run (another cast holds the lock, a disk error)
  {EXIT_BAD_INPUT}  bad input: unknown {word} or machine, unusable state file or configuration,
     unsafe path, bad frontmatter; a stdout that cannot take the output
  {EXIT_BLOCKED}  blocked: the spec refuses the {word} in this state
  {EXIT_UNHANDLED}  unhandled: no rule covers the {word} for the files as they are
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C): a cast cut short is finished by the next one
  129, 143  ended by SIGHUP or SIGTERM while a command of the cast ran: its processes
     were stopped, and nothing moved
  check-transition: {EXIT_OK} allowed, {EXIT_REFUSED} refused (the reason on stderr);
  with --claude-hook, {EXIT_HOOK_BLOCK} refused (Claude Code blocks the tool call)"""


def quick_arguments(argv: Sequence[str]) -> SimpleNamespace | None:
    """`[--root DIR] [--machine NAME] [--json] COMMAND` (or `cast NAME`), read without
    argparse; None for anything else.

    argparse builds a help formatter on every parse, importing shutil, locale and
    gettext: about 5 ms, more than half of what starting `spell` may cost on top of
    `import transitions`. Anything but this common form goes to argparse.
    """
    options: dict[str, str | None] = {"root": None, "machine": None}
    as_json = False
    words: list[str] = []  # the command, or cast and the spell's name
    items = list(argv)
    while items:
        item = items.pop(0)
        name, equals, value = item.partition("=")
        if item == "--json":
            as_json = True
        elif name in ("--root", "--machine") and (equals or items):
            options[name[2:]] = value if equals else items.pop(0)
        elif item.startswith("-") or len(words) == 2:
            return None
        else:
            words.append(item)
    if not words or (len(words) == 2) != (words[0].lower() == "cast"):
        return None
    return SimpleNamespace(
        json=as_json, command=words[0], spell=words[-1], format="mermaid", **options
    )


DESCRIPTIONS = {
    "spellbook.machines.spell_machine": "Cast a spell in a repository's AI Engineer workflow "
    "(.ai/task/).",
    "spellbook.machines.session_machine": "Drive a repository's coding session "
    "(.claude/progress/) with a trigger.",
}


def _arguments(argv: Sequence[str], machine: str | None) -> SimpleNamespace:
    """The command line read, every usage error said in one line (a UsageError)."""
    prog = "spell session" if machine == "session" else "spell"
    at = _command_at(list(argv))
    if at is not None and argv[at] == "session":  # `spell session session status`
        raise UsageError(f"{prog}: session is named twice (spell session COMMAND)")
    if at is not None and not argv[at]:
        raise UsageError(f"{prog}: the command is an empty word (see {prog} --help)")
    quick = quick_arguments(argv)
    if quick is not None:
        return _one_machine(quick, machine, argv)
    import argparse

    module, unknown = _help_machine(argv, machine)
    word = "spell" if module is None else module.SPELL_WORD
    from spellbook.records import words

    class Parser(argparse.ArgumentParser):
        """argparse, printing its help, usage and errors as `spellbook.records.terminal` makes
        them safe (an argument is echoed in an error)."""

        def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
            if file is None or file is sys.stdout:  # the help: written as the output is
                _write(terminal.text(message))
            else:
                _say(message.rstrip("\n"))

    parser = Parser(
        prog=prog,
        description=DESCRIPTIONS.get(getattr(module, "__name__", ""))
        or (
            f"{words.verb(word).title()} {words.a(word)} of the machine "
            f"{module.TITLE!r} ({module.SPEC})."
            if module is not None
            else f"Cast a spell of the project's machine, which cannot be loaded here, so "
            f"its spells are not listed: {unknown}"
        ),
        epilog=epilog(module, prog),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # `--js` is not `--json`: a JSON reader is told by `--json` alone
    )
    parser.add_argument(
        "--root",
        help="the repository (default: the project's folder, for a machine it lists; else the "
        "nearest folder at or above the current one that holds the workspace, else the "
        "repository's top folder, else the current one)",
    )
    parser.add_argument("--machine", metavar="NAME", help=MACHINE_HELP)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")

    class Version(argparse.Action):
        """`--version`: `spell (spellbook-md) 0.1.0`, read off the package's metadata only
        when asked (a cast never pays for it)."""

        def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
            from spellbook.doors.server import version

            parser._print_message(f"{prog} (spellbook-md) {version()}\n")
            parser.exit()

    parser.add_argument("--version", action=Version, nargs=0, help="print the version and exit")
    parser.add_argument(
        "--format",
        choices=("mermaid", "svg", "png"),  # spellbook.records.diagram.FORMATS
        default="mermaid",
        help="diagram: mermaid text (the default), or SVG or PNG drawn by Graphviz",
    )
    from spellbook.doors.subcommands import COMMANDS  # not on a cast's path

    parser.add_argument("command", nargs="?", help=f"{words.a(word)}, or {', '.join(COMMANDS)}")
    parser.add_argument("spell", nargs="?", metavar="NAME", help=f"after cast: the {word}")

    def refuse(message: str) -> NoReturn:  # one line (`_failed`), not argparse's usage
        raise UsageError(f"{prog}: {message} (see {prog} --help)")

    parser.error = refuse  # type: ignore[method-assign]
    args = parser.parse_args(argv)
    if args.command is None and not args.json:  # `spell` alone: what it can do, not an error
        parser.print_help()
        parser.exit()
    if args.command is None:
        parser.error(f"give {words.a(word)} or a command")
    if (args.command.lower() == "cast") != (args.spell is not None):
        parser.error(
            f"cast needs the {word} to {words.verb(word)}: {prog} cast NAME"
            if args.spell is None
            else f"unrecognized arguments: {args.spell} (to {words.verb(word)} {words.a(word)}: "
            f"{prog} cast NAME)"
        )
    args.spell = args.spell or args.command
    return _one_machine(SimpleNamespace(**vars(args)), machine, argv)


def _one_machine(
    args: SimpleNamespace, machine: str | None, argv: Sequence[str]
) -> SimpleNamespace:
    args.machine = one_machine(machine, args.machine, argv)
    return args


def _help_machine(argv: Sequence[str], machine: str | None) -> tuple[ModuleType | None, str]:
    """The machine `--help` speaks of, if it can be told; None if not, with why (the help
    still shows)."""
    items = list(argv)
    found: dict[str, str | None] = {"--root": None, "--machine": machine}
    for at, item in enumerate(items):
        name, equals, value = item.partition("=")
        if name in found:
            found[name] = value if equals else (items[at + 1] if at + 1 < len(items) else None)
    try:
        return resolve(found["--root"], found["--machine"])[0], ""
    except (SpellbookError, OSError) as err:
        return None, str(err)


def run() -> NoReturn:
    """The `spell` command: `main()` in a process of its own, which then exits."""
    # A cast allocates little and the process ends at once, so the cyclic garbage
    # collector would only walk the machine's objects over and over (during the
    # imports, and all of them again at exit): about a tenth of a cold cast. It is
    # off here and in `python -m spellbook`; the long-running `spell mcp` turns it
    # back on, and `main()` called from Python leaves it alone.
    gc.disable()
    point = sys.modules.get("spellbook.cast.commit_point")
    if point is not None:  # this command's casts alone (one process may run several)
        point.DONE.clear()
    try:
        code = main()
    except KeyboardInterrupt:
        # Ctrl-C: no traceback. A cast cut short is finished by the next one from its
        # intent record (`spellbook.cast.commit_point`); a hook cut short blocks what it judged.
        print(_interrupted(), file=sys.stderr)
        sys.exit(EXIT_HOOK_BLOCK if "check-transition" in sys.argv else EXIT_INTERRUPTED)
    except Stopped as stopped:
        # SIGTERM or SIGHUP while a command ran: its processes are already stopped.
        print(
            "spell: stopped by a signal while the command ran; its processes were stopped, "
            "and nothing half done is lost",
            file=sys.stderr,
        )
        sys.exit(128 + stopped.signum)
    gc.freeze()  # what is left is freed at exit without another full collection
    sys.exit(code)


def _interrupted() -> str:
    """What Ctrl-C cut short, in one line: a cast this process had done in full (its
    answer cut short: the same command again would cast anew), or what the next command
    finishes."""
    point = sys.modules.get("spellbook.cast.commit_point")
    done: list[str] = getattr(point, "DONE", [])
    at = _command_at(sys.argv[1:])
    if done and (at is None or sys.argv[1:][at] != "mcp"):  # a server's answers are its SDK's
        return (
            f"spell: interrupted after the cast of {done[-1]} was done, before its answer "
            "was written in full; nothing is lost; the same command again would cast it "
            "anew: `spell status` says where the workflow is"
        )
    return (
        "spell: interrupted; nothing half done is lost (a cast that had begun changing "
        "files is finished by the next command: the same command again finishes it "
        "and casts nothing more; `spell status` says)"
    )


# Errors that are the input's fault (exit 2); any other SpellbookError or OSError is 1.
BAD_INPUT = (UnknownSpell, UnknownState, BadFile, UnsafePath, ActionError, Undefined)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    machine: str | None = None
    at = _command_at(args)
    if at is not None and args[at] == "session":
        machine, args = "session", args[:at] + args[at + 1 :]
    try:
        if "check-transition" in args:
            return _check_transition(args, machine)
        code = _main(args, machine)
        _flush()
        point = sys.modules.get("spellbook.cast.commit_point")
        if point is not None:  # its answer is out in full: no Ctrl-C cuts it short now
            point.DONE.clear()
        return code
    except Unwritten as err:
        _say(f"error: cannot write the output: {err}")
        return EXIT_BAD_INPUT
    except Exception as err:  # a bug: said in one line (SPELLBOOK_DEBUG=1 for the traceback)
        if os.environ.get("SPELLBOOK_DEBUG"):
            raise
        if "--claude-hook" in args:  # a hook that failed blocks: it could not judge
            _say(f"the spellbook hook could not judge this tool call: internal error ({err})")
            return EXIT_HOOK_BLOCK
        message = f"internal error ({type(err).__name__}: {err}); please report it"
        try:
            return _failed(message, EXIT_FAILED, "--json" in args, "internal_error")
        except Unwritten:
            return EXIT_FAILED


# The options that take a value, as `_arguments` declares them.
VALUED = ("--root", "--machine", "--format")


def _command_at(args: list[str]) -> int | None:
    """Where the first word that is no option nor an option's value is (`spell --root DIR
    session status`: at 2), or None."""
    at = 0
    while at < len(args):
        item = args[at]
        if item == "--":
            return at + 1 if at + 1 < len(args) else None
        if not item.startswith("-"):
            return at
        at += 2 if item in VALUED else 1
    return None


def _check_transition(args: list[str], machine: str | None) -> int:
    """`spell check-transition`, its verdict and reason written as `_write` writes (its
    own reading catches its errors: an OSError out of it is a failed write)."""
    from spellbook.doors.hook import check_transition

    hooked = "--claude-hook" in args
    if sys.stdout is None and not hooked:  # print would drop the verdict
        raise Unwritten("standard output is closed")
    try:
        code = check_transition(args, machine)
    except SystemExit:  # its help, or a usage error: what it wrote is flushed first
        _flush()
        raise
    except BrokenPipeError:
        _drop_stdout()
        return EXIT_HOOK_BLOCK if hooked else EXIT_FAILED  # a hook never allows unsaid
    except OSError as err:
        _drop_stdout()
        raise Unwritten(err.strerror or str(err)) from None
    _flush()
    return code


def _emit(text: str) -> None:
    """Write text to stdout, made safe for a terminal (`spellbook.records.terminal`); a reader
    that has gone (`spell status | head -1`) is no error."""
    _write(terminal.text(text))


def _emit_json(data: object) -> None:
    """Write `data` to stdout as JSON, every terminal control in it escaped."""
    _write(terminal.json_text(data) + "\n")


def _write(text: str) -> None:
    """Write to stdout, now. A reader that has gone is no error (the rest is dropped); a
    stdout that cannot take it (a full disk, closed) raises Unwritten."""
    if sys.stdout is None:
        raise Unwritten("standard output is closed")
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        _drop_stdout()
    except OSError as err:
        _drop_stdout()
        raise Unwritten(err.strerror or str(err)) from None
    _flush()


def _flush() -> None:
    """Flush stdout, so a failure to write is said here, not at exit."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
    except OSError as err:
        _drop_stdout()
        raise Unwritten(err.strerror or str(err)) from None


def _drop_stdout() -> None:
    """What is left to write to stdout goes to the null device (the exit flushes it)."""
    terminal.to_null(sys.stdout)


def _say(line: str) -> None:
    """A line on stderr, made safe for a terminal; nothing if stderr cannot take it."""
    if sys.stderr is None:  # closed: print would write to stdout instead
        return
    with contextlib.suppress(OSError, ValueError):
        print(terminal.text(line), file=sys.stderr)


class Unwritten(Exception):
    """stdout cannot take what the command says: why."""


class UsageError(Exception):
    """The command line cannot be taken (with --json: said as a JSON error object)."""


def _failed(message: str, code: int, as_json: bool, kind: str) -> int:
    """The error on stderr, and with --json as an object on stdout; its exit status."""
    _say(f"error: {message}")
    if as_json:
        _emit_json({"error": {"kind": kind, "message": message, "exit_code": code}})
    return code


def _kind(err: BaseException) -> str:
    """The error's kind for a JSON reader: its class's name in snake case."""
    import re

    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(err).__name__).lower()


def _main(argv: Sequence[str], machine: str | None) -> int:
    as_json = "--json" in argv
    try:
        args = _arguments(argv, machine)
        if args.format != "mermaid" and args.command.lower() != "diagram":
            raise UsageError(f"--format is for diagram, not {args.command}")
    except (UnknownMachine, UsageError) as err:
        return _failed(said(err), EXIT_BAD_INPUT, as_json, _kind(err))
    try:
        workflow = open_workflow(args.root, args.machine)
        command = args.command.lower()
        if command == "cast":  # `spell cast NAME`: a spell, whatever its name
            result = workflow.cast(args.spell.lower())
        elif command == "status":
            return _print(workflow.status(), args.json, _status_text)
        elif command == "repair":
            return _print({"message": workflow.repair()}, args.json, lambda d: d["message"])
        elif command == "diagram":
            if args.format != "mermaid":
                return _drawn(workflow, args.format, args.json)
            return _print({"diagram": workflow.diagram()}, args.json, lambda d: d["diagram"])
        elif command == "mcp":
            from spellbook.doors.server import serve

            gc.enable()
            return serve(workflow)
        else:
            result = workflow.cast(command)
    except UnknownSpell as err:
        known = [name.lower() for name in workflow.machine.SPELLS]
        if args.command.lower() != "cast":
            from spellbook.doors.subcommands import COMMANDS

            known += COMMANDS
        message = f"{said(err)}{_did_you_mean(args.spell.lower(), known)}"
        return _failed(message, EXIT_BAD_INPUT, args.json, _kind(err))
    except BAD_INPUT as err:
        return _failed(said(err), EXIT_BAD_INPUT, args.json, _kind(err))
    except (SpellbookError, OSError) as err:
        kind = _kind(err) if isinstance(err, SpellbookError) else "os_error"
        return _failed(said(err), EXIT_FAILED, args.json, kind)
    if args.json:
        _emit_json(result.to_dict())
    else:
        _emit(result.response)
    return {"blocked": EXIT_BLOCKED, "unhandled": EXIT_UNHANDLED}.get(result.outcome, EXIT_OK)


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    from difflib import get_close_matches

    close = get_close_matches(word, known, n=1, cutoff=0.75)  # a misspelling, not a kin
    return f"; did you mean {close[0]}?" if close else ""


def _print(data: dict[str, object], as_json: bool, text: object) -> int:
    if as_json:
        _emit_json(data)
    else:
        _emit(text(data) + "\n")  # type: ignore[operator]
    return EXIT_OK


def _drawn(workflow: Workflow, format: str, as_json: bool) -> int:
    """`spell diagram --format svg|png`: the drawing's bytes on stdout (SVG with --json
    is its text; a PNG is no text)."""
    from spellbook.records.diagram import NoGraphviz

    if as_json and format == "png":
        return _failed("a PNG is no text: --json takes --format svg", EXIT_BAD_INPUT, True, "usage")
    try:
        drawn = workflow.drawing(format)
    except NoGraphviz as err:
        return _failed(said(err), EXIT_NOT_INSTALLED, as_json, _kind(err))
    if as_json:
        return _print({"diagram": drawn.decode("utf-8"), "format": format}, True, None)
    out = getattr(sys.stdout, "buffer", None)
    if out is None:
        return _failed("standard output takes no bytes", EXIT_FAILED, False, "os_error")
    try:
        out.write(drawn)
        out.flush()
    except BrokenPipeError:
        _drop_stdout()
    return EXIT_OK


def _status_text(data: dict[str, object]) -> str:
    from spellbook.cast.responses import unmet_said

    state = f"{data['state']}: {data['description']}" if data["description"] else data["state"]
    lines = [str(state), f"Workspace: {data['workspace']}/"]
    fields = data.get("fields")
    assert isinstance(fields, dict)
    lines += [f"{name}: {value}" for name, value in fields.items() if value is not None]
    files = data.get("files")
    assert isinstance(files, dict)
    there = [f for f, held in files.items() if held]
    missing = [f for f, held in files.items() if not held]
    if files:  # a machine whose rules ask about no file has none to list
        lines.append(
            f"Files there: {', '.join(there) or 'none'}; not there: {', '.join(missing) or 'none'}"
        )
    unmet = data.get("unmet")
    if unmet:
        assert isinstance(unmet, list)
        lines.append(unmet_said(str(data["state"]), unmet))
    lines.append("")
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
        said = str(summary or "nothing (no rule applies now)")
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
