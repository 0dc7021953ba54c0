"""`spell mcp`: the spells as tools of an MCP server, for AI assistants.

Built on the official MCP Python SDK (`pip install "spellbook-md[mcp]"`), served over
stdio. One tool per spell of the machine, without arguments, whose result is the
cast's response (markdown); a failed cast is a tool error carrying the message
the `spell` command would print. Two resources: the state (`spellbook://state`,
JSON: the current state, what each spell would do now, the history) and the
machine's mermaid diagram (`spellbook://diagram`, the current state highlighted).

Every cast takes the workspace's lock, so the server and the `spell` command (or
a second server) can cast in the same repository at once without losing a cast.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import TYPE_CHECKING, Any

from spellbook.errors import SpellbookError
from spellbook.exits import EXIT_NOT_INSTALLED, EXIT_OK

if TYPE_CHECKING:
    from spellbook.workflow import Workflow

MISSING_SDK = (
    'spell mcp needs the MCP Python SDK, which is not installed: pip install "spellbook-md[mcp]"'
)


def build(workflow: Workflow, name: str = "spellbook") -> Any:
    """An MCP server (the SDK's `MCPServer`) casting spells with `workflow`."""
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    from mcp_types import CallToolResult, TextContent

    # transitions logs every callback at INFO; a server's stderr is for problems.
    logging.getLogger("transitions").setLevel(logging.WARNING)
    machine = workflow.machine
    word = machine.SPELL_WORD
    server = MCPServer(
        name,
        log_level="WARNING",
        instructions=(
            f"{machine.TITLE}: cast a {word} by calling its tool; each returns the response "
            "for the AI and the developer. Read spellbook://state for where the workflow is."
        ),
    )

    def caster(spell: str) -> Any:
        def cast(ctx: Context) -> CallToolResult:
            given = (ctx.request_context.params or {}).get("arguments")
            if given:
                names = ", ".join(sorted(map(str, given)))
                raise ToolError(f"{spell} takes no arguments (given: {names}); nothing was cast")
            try:
                result = workflow.cast(spell)
            except (SpellbookError, OSError) as err:
                raise ToolError(str(err)) from None
            outcome = {k: v for k, v in result.to_dict().items() if k != "response"}
            return CallToolResult(
                content=[TextContent(type="text", text=result.response)],
                structured_content={**outcome, "notes": list(result.notes)},
            )

        # The SDK reads the annotations to find the context parameter; this module's
        # are strings (`from __future__ import annotations`) naming lazy imports.
        cast.__annotations__ = {"ctx": Context, "return": CallToolResult}
        return cast

    for spell, trigger in machine.TRIGGERS.items():
        server.add_tool(
            caster(spell),
            name=trigger,
            title=spell,
            description=f"Cast {spell}. {machine.SPELL_DESCRIPTIONS.get(spell, '')}".strip(),
            structured_output=False,
        )

    @server.resource(
        "spellbook://state",
        name="state",
        description=f"The current state, what each {word} would do now, and the history.",
        mime_type="application/json",
    )
    def state() -> str:
        try:
            status = workflow.status()
            status["history"] = workflow.read().history
        except (SpellbookError, OSError) as err:  # the message, not "Error reading resource"
            raise ResourceError(str(err)) from None
        return json.dumps(status, ensure_ascii=False, indent=2)

    @server.resource(
        "spellbook://diagram",
        name="diagram",
        description="The machine as a mermaid state diagram, the current state highlighted.",
        mime_type="text/plain",
    )
    def diagram() -> str:
        try:
            return workflow.diagram()
        except (SpellbookError, OSError) as err:
            raise ResourceError(str(err)) from None

    return server


def serve(workflow: Workflow) -> int:
    """Serve over stdio until the client closes the connection."""
    try:
        server = build(workflow)
    except ImportError:
        print(f"error: {MISSING_SDK}", file=sys.stderr)
        return EXIT_NOT_INSTALLED
    from spellbook.commands import stop_commands_on_signals

    stop_commands_on_signals()  # a test command a cast runs dies with the server
    server.run("stdio")
    return EXIT_OK
