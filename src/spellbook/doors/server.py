"""`spell mcp`: the spells as tools of an MCP server, for AI assistants.

Built on the official MCP Python SDK (Spellbook's `mcp` extra), served over
stdio. One tool per spell of the machine, without arguments, whose result is the
cast's response (markdown) and its outcome as structured content (`CastOutcome`,
the tool's output schema); a failed cast is a tool error carrying the message the
`spell` command would print, naming the `repair_state_file` tool where the command
would name `spell repair`. Each spell's annotations are read off the spec: a spell
none of whose rules changes the state or acts on files is read-only and idempotent
(its cast only adds an entry to the history); one whose rules archive or delete
files is destructive (they go to folders of the workspace, never away). The
`repair_state_file` tool is `spell repair`. Two resources: the state (`spellbook://state`,
JSON: the current state, what each spell would do now, the history) and the
machine's mermaid diagram (`spellbook://diagram`, the current state highlighted).

Every cast takes the workspace's lock, so the server and the `spell` command (or
a second server) can cast in the same repository at once without losing a cast.

The server keeps the machine it started with, and its tools are that machine's
spells: once the generated module is written again (`spellbook-codegen` after a
spec change), every tool call and resource read is refused, saying to restart the
server, rather than cast by rules the spec no longer has.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any, TypedDict

from spellbook.records.errors import SpellbookError, said
from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_NOT_INSTALLED, EXIT_OK

if TYPE_CHECKING:
    from spellbook.cast.workflow import Workflow

# The MCP tool that is `spell repair` (a trigger never takes this name: codegen's RESERVED).
REPAIR_TOOL = "repair_state_file"


class CastOutcome(TypedDict):
    """A cast's structured result: `spellbook.records.outcome.CastResult` without the response
    (the tool's text content)."""

    spell: str
    rule: str | None
    outcome: str
    before: str
    after: str
    archive: str
    notes: list[str]
    cast: str


class RepairOutcome(TypedDict):
    """What `repair_state_file` did, as `spell repair` says it."""

    message: str


def _over_mcp(err: BaseException) -> str:
    """An error's message, with the command it names said as the tool that does it."""
    from spellbook.records.terminal import text

    return text(said(err).replace("run `spell repair`", f"call the {REPAIR_TOOL} tool"))


def _unfinished(pending: str, spell: str, tools: dict[str, str]) -> str:
    """Why the read-only tool of `spell` casts nothing while a cast is interrupted
    (`pending`, as status tells it): it does not finish it, as any other cast would; the
    interrupted cast's own tool (`tools`: each spell's), or the repair tool, does. A
    record no cast finishes (a damaged or forged one) is told as it is: only the repair
    tool sets it aside."""
    from spellbook.records.terminal import text

    if " was interrupted; " not in pending:
        return f"{_over_mcp(SpellbookError(pending))}; nothing was cast"
    cast = pending.split(" was interrupted; ")[0]
    own = tools.get(cast.split(" (")[0], cast.split(" (")[0])  # the cast's spell's tool
    return text(
        f"{cast} was interrupted; the {tools.get(spell, spell)} tool is read-only and does "
        f"not finish it, so nothing was cast: call the {own} tool to finish it and cast "
        f"nothing more, or the {REPAIR_TOOL} tool"
    )


def annotations_of(machine: Any, spell: str) -> tuple[bool, bool]:
    """What the spec says a spell's casts do to the workspace: whether they leave it as
    it is (read-only, and so idempotent), whether they may rewrite, move or remove
    files (destructive)."""
    from spellbook.verbs.actions import VERBS

    rules = [r for r in machine.RULES if r.spell == spell]
    # A verb that changes no file and no field (a file's text loaded into the
    # response, a value read, an instruction to the AI) leaves the workspace as it is.
    moves = any(
        r.changes_state
        or any(
            a.verb not in VERBS or (VERBS[a.verb].files, VERBS[a.verb].fields) != ("none", "none")
            for a in r.actions
        )
        for r in rules
    )
    # A verb that only adds to the workspace (a file made where there was none, text
    # added, a count kept) or changes no file is not destructive, as MCP means it; one
    # that rewrites, moves or removes files is, and so is a vocabulary's own.
    rewrites = any(
        a.verb not in VERBS
        or "rewrites" in (VERBS[a.verb].files, VERBS[a.verb].fields)
        or VERBS[a.verb].fields == "sets"
        for r in rules
        for a in r.actions
    )
    return not moves, rewrites


CLOSED = "spell mcp serves over its standard input and output, and its standard {} is closed"
MISSING_SDK = (
    "spell mcp needs the MCP Python SDK, which is not installed; install Spellbook with its "
    "mcp extra: {}"
)


def build(workflow: Workflow, name: str = "spellbook") -> Any:
    """An MCP server (the SDK's `MCPServer`) casting spells with `workflow`."""
    from typing import Annotated

    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    from mcp_types import CallToolResult, TextContent, ToolAnnotations

    from spellbook.records import words
    from spellbook.records.terminal import json_text, text

    # transitions logs every callback at INFO; a server's stderr is for problems.
    logging.getLogger("transitions").setLevel(logging.WARNING)
    machine = workflow.machine
    word = machine.SPELL_WORD
    # The machine's module, and the project's configuration that says which module and
    # where (a machine renamed, or generated into another folder, leaves the old in place).
    watched = [getattr(machine, "__file__", None)]
    watched.append(os.path.join(workflow.workspace.root, "pyproject.toml"))
    started = [_identity(path) for path in watched]

    def unchanged(undone: str, error: type[Exception]) -> None:
        """Refuse a call once the machine's module or the project's configuration was
        written again since the start."""
        for path, was in zip(watched, started, strict=True):
            if path is None or _identity(path) == was:
                continue
            shown = os.path.relpath(path, workflow.workspace.root)
            shown = shown if not shown.startswith("..") else path
            raise error(
                f"{shown} changed since this MCP server started (regenerated, or the project "
                f"reconfigured?), and the server still has the machine it started with; "
                f"{undone}. Restart the MCP server (`spell mcp`: reconnect it in the MCP "
                "client) to use the new one"
            )

    server = MCPServer(
        name,
        version=version(),
        log_level="WARNING",
        instructions=(
            f"{machine.TITLE}: {words.verb(word)} {words.a(word)} by calling its tool; each "
            "returns the response "
            "for the AI and the developer. Read spellbook://state for where the workflow is."
        ),
    )

    def annotations(spell: str) -> ToolAnnotations:
        still, removes = annotations_of(machine, spell)
        return ToolAnnotations(
            read_only_hint=still,
            idempotent_hint=still,
            destructive_hint=removes,
            open_world_hint=False,
        )

    def no_arguments(ctx: Context, tool: str, undone: str) -> None:
        """A tool call with arguments is refused: no tool takes any, and one that names a
        file (`{"path": "/etc/passwd"}`) must not look as if it were read."""
        given = (ctx.request_context.params or {}).get("arguments")
        if given:
            names = ", ".join(sorted(map(str, given)))
            raise ToolError(f"{tool} takes no arguments (given: {names}); {undone}")

    def caster(spell: str) -> Any:
        read_only = annotations_of(machine, spell)[0]

        def cast(ctx: Context) -> CallToolResult:
            no_arguments(ctx, spell, "nothing was cast")
            unchanged("nothing was cast", ToolError)
            try:
                journal = workflow.journal
                pending = journal.interrupted(workflow.read(), done=False) if read_only else None
                if pending is not None:  # finishing it moves files: no read-only tool's work
                    raise ToolError(_unfinished(pending, spell, machine.TRIGGERS))
                result = workflow.cast(spell)
            except (SpellbookError, OSError) as err:
                raise ToolError(_over_mcp(err)) from None
            outcome = {k: v for k, v in result.to_dict().items() if k != "response"}
            return CallToolResult(
                content=[TextContent(type="text", text=text(result.response))],
                structured_content={**outcome, "notes": [text(n) for n in result.notes]},
            )

        # The SDK reads the annotations to find the context parameter and the output
        # schema (the structured content of the CallToolResult); this module's are
        # strings (`from __future__ import annotations`) naming lazy imports.
        cast.__annotations__ = {
            "ctx": Context,
            "return": Annotated[CallToolResult, CastOutcome],
        }
        return cast

    for spell, trigger in machine.TRIGGERS.items():
        server.add_tool(
            caster(spell),
            name=trigger,
            title=spell,
            description=f"{words.verb(word).title()} {spell}. "
            f"{machine.SPELL_DESCRIPTIONS.get(spell, '')}".strip(),
            annotations=annotations(spell),
        )

    def repair(ctx: Context) -> CallToolResult:
        no_arguments(ctx, REPAIR_TOOL, "nothing was repaired")
        unchanged("nothing was repaired", ToolError)
        try:
            message = text(workflow.repair())
        except (SpellbookError, OSError) as err:
            raise ToolError(said(err)) from None
        # The sentences `spell repair` prints, as the text; the same as structured content.
        return CallToolResult(
            content=[TextContent(type="text", text=message)],
            structured_content={"message": message},
        )

    repair.__annotations__ = {
        "ctx": Context,
        "return": Annotated[CallToolResult, RepairOutcome],
    }

    server.add_tool(
        repair,
        name=REPAIR_TOOL,
        title="Repair the state file",
        description="What `spell repair` does: replace an unusable, missing or oversized "
        "state file, keeping the old one as a backup, with the state the workspace's files "
        "show; an interrupted cast is finished first. Says what it did.",
        annotations=ToolAnnotations(
            read_only_hint=False,
            idempotent_hint=True,
            destructive_hint=False,
            open_world_hint=False,
        ),
    )

    @server.resource(
        "spellbook://state",
        name="state",
        description=f"The current state, what each {word} would do now, and the history.",
        mime_type="application/json",
    )
    def state() -> str:
        unchanged("the state is not read", ResourceError)
        try:
            status = workflow.status()
            status["history"] = workflow.read().history
        except (SpellbookError, OSError) as err:  # the message, not "Error reading resource"
            raise ResourceError(_over_mcp(err)) from None
        return json_text(status)

    @server.resource(
        "spellbook://diagram",
        name="diagram",
        description="The machine as a mermaid state diagram, the current state highlighted.",
        mime_type="text/plain",
    )
    def diagram() -> str:
        unchanged("the diagram is not drawn", ResourceError)
        try:
            return workflow.diagram()
        except (SpellbookError, OSError) as err:
            raise ResourceError(_over_mcp(err)) from None

    return server


def _identity(path: str | None) -> tuple[int, int, int] | None:
    """What tells a file written again: its time, size and inode (None: no file)."""
    if not path:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size, found.st_ino


def version() -> str:
    """The installed package's version (the package's own where it is run uninstalled)."""
    from importlib import metadata

    try:
        return metadata.version("spellbook-md")
    except metadata.PackageNotFoundError:
        from spellbook import __version__

        return __version__


def serve(workflow: Workflow) -> int:
    """Serve over stdio until the client closes the connection."""
    for stream, role in ((sys.stdin, "input"), (sys.stdout, "output")):
        if stream is None:  # the descriptor was closed when the process started
            print(f"error: {CLOSED.format(role)}", file=sys.stderr)
            return EXIT_BAD_INPUT
    from spellbook.doors.wire import null_stderr

    null_stderr()
    try:
        server = build(workflow)
        import anyio
    except ImportError:
        from spellbook.records.errors import install_hint

        print(f"error: {MISSING_SDK.format(install_hint('mcp'))}", file=sys.stderr)
        return EXIT_NOT_INSTALLED
    from spellbook.facts.commands import stop_commands_on_signals

    stop_commands_on_signals()  # a test command a cast runs dies with the server
    anyio.run(_serve_stdio, server)
    return EXIT_OK


async def _serve_stdio(server: Any) -> None:
    """The SDK's stdio transport, reading the client's lines as `spellbook.doors.wire` does:
    each with a bound, and every request answered, even one the SDK cannot read."""
    from mcp.server.stdio import stdio_server

    from spellbook.doors.wire import CheckedLines, Lines, stdin

    with stdin() as reader:
        checked = CheckedLines(Lines(reader))
        async with stdio_server(stdin=checked) as (read_stream, write_stream):  # type: ignore[arg-type]
            checked.answers = write_stream
            # MCPServer.run("stdio") is this, on the SDK's own reading of stdin.
            lowlevel = server._lowlevel_server
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
