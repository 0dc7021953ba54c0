"""`spell mcp`, driven over stdio by the MCP SDK's own client, as an assistant would."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from spellbook.machines import session_machine, spell_machine
from tests.support.commands import ends
from tests.support.sessions import session_in
from tests.support.workspaces import CONTROLS, HOSTILE, executed, write

STATE = Path(".ai/task/state.json")


def served(root: Path, *command: str) -> StdioServerParameters:
    from mcp.client.stdio import get_default_environment

    # The SDK starts the server with a few variables alone: the tests' cache folder too,
    # where the casts of this process keep the key their intent records are sealed with.
    cache = {k: v for k, v in os.environ.items() if k == "SPELLBOOK_CACHE"}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "spellbook", *command, "--root", str(root), "mcp"],
        env={**get_default_environment(), **cache},
    )


def run(root: Path, body: Callable[[Client], Awaitable[Any]], *command: str) -> Any:
    async def main() -> Any:
        async with Client(served(root, *command), read_timeout_seconds=60) as client:
            return await body(client)

    return asyncio.run(main())


def text(result: Any) -> str:
    return "".join(c.text for c in result.content)


def state_file(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / STATE).read_text(encoding="utf-8"))
    return data


def test_one_tool_per_spell_without_arguments(tmp_path: Path) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = run(tmp_path, body)
    assert [t.name for t in tools] == [*spell_machine.TRIGGERS.values(), "repair_state_file"]
    for tool in tools[:-1]:
        assert tool.input_schema.get("properties") == {}
        assert tool.description.startswith(f"Cast {tool.title}. ") and len(tool.description) > 20


def test_every_tool_declares_its_output_and_what_it_does_to_the_workspace(
    tmp_path: Path,
) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools, client.server_info

    tools, initialized = run(tmp_path, body)
    from importlib.metadata import version

    assert initialized.version == version("spellbook-md") != ""
    by_name = {t.name: t for t in tools}
    for tool in tools:
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.open_world_hint is False
    assert set(by_name["accio"].output_schema["required"]) >= {"spell", "rule", "outcome"}
    # Lumos only shows; Accio moves the workflow and archives files; Expecto (its rules
    # keep the state and act on no file: it asks the AI to) changes nothing itself.
    lumos, accio = by_name["lumos"].annotations, by_name["accio"].annotations
    assert lumos.read_only_hint is True and lumos.idempotent_hint is True
    assert accio.read_only_hint is False and accio.destructive_hint is True
    assert by_name["expecto"].annotations.read_only_hint is True
    repair = by_name["repair_state_file"]
    assert repair.annotations.idempotent_hint is True and repair.annotations.read_only_hint is False
    assert repair.output_schema["required"] == ["message"]


def test_the_state_file_is_repaired_over_mcp_as_the_error_says(tmp_path: Path) -> None:
    (tmp_path / STATE).parent.mkdir(parents=True)
    (tmp_path / STATE).write_text("{ not json", encoding="utf-8")

    async def body(client: Client) -> Any:
        refused = await client.call_tool("accio", {})
        repaired = await client.call_tool("repair_state_file", {})
        await client.session.validate_tool_result("repair_state_file", repaired)
        return refused, repaired, await client.call_tool("lumos", {})

    refused, repaired, lumos = run(tmp_path, body)
    assert refused.is_error and "call the repair_state_file tool" in text(refused)
    assert "spell repair" not in text(refused)
    assert not repaired.is_error and repaired.structured_content["message"]
    # The text is what `spell repair` says, in sentences, not its JSON.
    (content,) = repaired.content
    assert content.text == repaired.structured_content["message"]
    assert content.text.startswith(".ai/task/state.json could not be used: "), content.text
    assert not lumos.is_error
    backups = [p.name for p in (tmp_path / STATE).parent.iterdir() if p.name != "state.json"]
    assert any("state" in name for name in backups), backups


def test_a_sequence_of_casts_moves_the_workflow_and_writes_the_files(tmp_path: Path) -> None:
    async def body(client: Client) -> Any:
        first = await client.call_tool("accio", {})
        # The developer writes acceptance criteria; the next Accio drafts a task.
        (tmp_path / ".ai/task/plan.md").write_text(
            "# Plan\n\n## Acceptance Criteria\n\n- [ ] it works\n", encoding="utf-8"
        )
        second = await client.call_tool("accio", {})
        lumos = await client.call_tool("lumos", {})
        state = await client.read_resource("spellbook://state")
        diagram = await client.read_resource("spellbook://diagram")
        return first, second, lumos, state, diagram

    first, second, lumos, state, diagram = run(tmp_path, body)
    assert not first.is_error and "created `.ai/task/plan.md`" in text(first)
    assert not second.is_error and "ACHIEVE_TASK_DRAFTING" in text(second)
    assert "## Response to the Developer" in text(lumos)
    assert (tmp_path / ".ai/task/task.md").is_file()
    on_disk = state_file(tmp_path)
    assert on_disk["current_state"] == "ACHIEVE_TASK_DRAFTING"
    assert [e["rule"] for e in on_disk["history"]] == ["G1", "G2", "L1"]
    served_state = json.loads(state.contents[0].text)
    assert served_state["state"] == "ACHIEVE_TASK_DRAFTING"
    assert served_state["history"] == on_disk["history"]
    assert set(served_state["spells"]) == set(spell_machine.SPELLS)
    mermaid = diagram.contents[0].text
    assert mermaid.startswith("---") or "stateDiagram" in mermaid
    assert "ACHIEVE_TASK_DRAFTING" in mermaid


def test_a_cast_that_cannot_run_is_a_tool_error_and_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / STATE).parent.mkdir(parents=True)
    (tmp_path / STATE).write_text("{ not json", encoding="utf-8")

    async def body(client: Client) -> Any:
        return await client.call_tool("accio", {})

    result = run(tmp_path, body)
    assert result.is_error and "repair_state_file" in text(result)
    assert (tmp_path / STATE).read_text(encoding="utf-8") == "{ not json"


def test_a_read_only_tool_does_not_finish_an_interrupted_cast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Lumos is annotated read-only, yet it finished a cut-short Accio (moving files and
    # the state) for a client that approves read-only tools without asking.
    from spellbook import Workflow
    from spellbook.cast.commit_point import Journal

    executed(tmp_path)
    (tmp_path / ".ai/task/task-results.md").write_text("# Results\n")

    def commit(self: Journal, record: Any, intent: dict[str, Any]) -> list[str]:
        self.write_intent(intent)
        raise KeyboardInterrupt

    monkeypatch.setattr(Journal, "commit", commit)
    with pytest.raises(KeyboardInterrupt):
        Workflow(tmp_path).cast("accio")
    monkeypatch.undo()

    async def body(client: Client) -> Any:
        return await client.call_tool("lumos", {}), await client.call_tool("accio", {})

    lumos, accio = run(tmp_path, body)
    said = text(lumos)
    assert lumos.is_error and "the lumos tool is read-only and does not finish it" in said
    # told as an MCP client can act on it: the tools, never a shell's `spell repair`, and
    # never that another cast finishes it first
    assert "call the accio tool to finish it" in said and "repair_state_file" in said, said
    assert "spell repair" not in said and "finishes it first" not in said, said
    assert not accio.is_error and "Accio was not cast again" in text(accio)
    assert state_file(tmp_path)["current_state"] == "ACHIEVE_TASK_DRAFTING"


def test_the_session_machine_serves_its_triggers(tmp_path: Path) -> None:
    async def body(client: Client) -> Any:
        names = [t.name for t in (await client.list_tools()).tools]
        return names, await client.call_tool("advance", {})

    names, advanced = run(tmp_path, body, "session")
    assert names == [*session_machine.TRIGGERS.values(), "repair_state_file"]
    assert not advanced.is_error
    assert json.loads((tmp_path / ".claude/progress/state.json").read_text())["state"] == "INIT"


def test_server_and_command_casting_at_once_lose_nothing(tmp_path: Path) -> None:
    casts = 12

    def command_casts() -> list[int]:
        return [
            subprocess.run(
                [sys.executable, "-m", "spellbook", "--root", str(tmp_path), "lumos"],
                capture_output=True,
                timeout=60,
            ).returncode
            for _ in range(casts)
        ]

    async def body(client: Client) -> Any:
        await client.list_tools()  # the server is up before the race starts
        cli = asyncio.get_running_loop().run_in_executor(None, command_casts)
        served = [await client.call_tool("lumos", {}) for _ in range(casts)]
        return served, await cli

    served, codes = run(tmp_path, body)
    assert codes == [0] * casts
    assert not any(r.is_error for r in served)
    history = state_file(tmp_path)["history"]
    assert len(history) == 2 * casts
    assert len({e["cast"] for e in history}) == 2 * casts


def test_without_the_sdk_the_command_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from spellbook.doors import cli

    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    assert cli.main(["--root", str(tmp_path), "mcp"]) == 2
    err = capsys.readouterr().err
    assert "install Spellbook with its mcp extra: pip install" in err and "[mcp]" in err


def test_an_unusable_state_file_is_said_when_the_state_is_read(tmp_path: Path) -> None:
    (tmp_path / STATE).parent.mkdir(parents=True)
    (tmp_path / STATE).write_text("{ not json", encoding="utf-8")

    async def body(client: Client) -> Any:
        from mcp import MCPError

        try:
            await client.read_resource("spellbook://state")
        except MCPError as err:
            return str(err)
        return None

    errors = tmp_path / "stderr.txt"
    with errors.open("w") as log:

        async def main() -> Any:
            transport = stdio_client(served(tmp_path), errlog=log)
            async with Client(transport, read_timeout_seconds=60) as client:
                return await body(client)

        said = asyncio.run(main())
    assert said is not None and "call the repair_state_file tool" in said and "state.json" in said
    assert "Traceback" not in errors.read_text(encoding="utf-8")


def test_a_cast_returns_its_outcome_as_structured_content(tmp_path: Path) -> None:
    async def body(client: Client) -> Any:
        blocked, moved = await client.call_tool("reverto", {}), await client.call_tool("accio", {})
        for result in (blocked, moved):  # as the client did: against the output schema
            await client.session.validate_tool_result("accio", result)
        return blocked, moved

    blocked, moved = run(tmp_path, body)
    assert not blocked.is_error and "cannot be used right now" in text(blocked)
    assert {k: blocked.structured_content[k] for k in ("spell", "rule", "outcome")} == {
        "spell": "Reverto",
        "rule": "GB1",
        "outcome": "blocked",
    }
    assert blocked.structured_content["before"] == blocked.structured_content["after"]
    assert moved.structured_content["before"] == "GATHER_NEEDS_PLAN"
    assert moved.structured_content["after"] == "GATHER_EDITING"


def test_arguments_a_spell_does_not_take_are_refused(tmp_path: Path) -> None:
    async def body(client: Client) -> Any:
        return await client.call_tool("accio", {"x": 1})

    result = run(tmp_path, body)
    assert result.is_error and "Accio takes no arguments (given: x)" in text(result)
    assert not (tmp_path / STATE).exists()


def test_arguments_the_repair_tool_does_not_take_are_refused(tmp_path: Path) -> None:
    # `repair_state_file` with {"path": "/etc/passwd"} answered "state.json is fine",
    # as if it had looked at the file named.
    (tmp_path / STATE).parent.mkdir(parents=True)
    (tmp_path / STATE).write_text("not json", encoding="utf-8")

    async def body(client: Client) -> Any:
        return await client.call_tool("repair_state_file", {"path": "/etc/passwd"})

    result = run(tmp_path, body)
    assert result.is_error
    assert "repair_state_file takes no arguments (given: path); nothing was repaired" in text(
        result
    )
    assert (tmp_path / STATE).read_text(encoding="utf-8") == "not json"


@pytest.mark.timeout(60)
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sigterm_to_the_server_stops_the_test_command_a_cast_runs(tmp_path: Path) -> None:
    # The cast runs in a worker thread of the server: the server's own handler kills
    # the command's process group (a session of its own) before the server ends.
    session_in(tmp_path, "TEST", "echo $PPID > server.pid; sleep 600 & echo $! > child.pid; wait")
    child = tmp_path / "child.pid"

    async def body(client: Client) -> Any:
        cast = asyncio.create_task(client.call_tool("advance", {}))
        for _ in range(600):
            if child.exists() and child.read_text().strip():
                break
            await asyncio.sleep(0.05)
        os.kill(int((tmp_path / "server.pid").read_text()), signal.SIGTERM)
        with pytest.raises(Exception):  # noqa: B017 - the connection closes, in the SDK's words
            await asyncio.wait_for(cast, 20)

    run(tmp_path, body, "session")
    assert ends(int(child.read_text())), "the test command outlived the server"


class Wire:
    """`spell mcp` spoken to line by line, as raw JSON-RPC (what a client may send that
    the SDK's own client never would)."""

    def __init__(self, root: Path, redirect: str = "") -> None:
        import queue
        import threading

        command = [sys.executable, "-m", "spellbook", "--root", str(root), "mcp"]
        if redirect:  # a standard descriptor closed, as a shell closes it
            command = ["sh", "-c", f'exec "$@" {redirect}', "sh", *command]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "wire", "version": "1"},
                },
            }
        )
        assert self.answer()["id"] == 1
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, message: dict[str, Any] | str) -> None:
        assert self.process.stdin is not None
        line = message if isinstance(message, str) else json.dumps(message)
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def send_bytes(self, *parts: bytes) -> None:
        assert self.process.stdin is not None
        for part in parts:
            self.process.stdin.write(part)
        self.process.stdin.flush()

    def peak_mb(self) -> float:
        """The server's peak resident size so far (Linux's VmHWM)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kb = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))
        return int(kb) / 1024

    def answer(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.lines.get(timeout=60))
        return found

    def close(self) -> None:
        self.process.kill()
        self.process.wait(timeout=60)


@pytest.mark.timeout(120)
def test_every_request_is_answered_even_one_the_sdk_cannot_read(tmp_path: Path) -> None:
    deep = "[" * 250 + "]" * 250
    wire = Wire(tmp_path)
    try:
        wire.send(
            '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
            f'"params": {{"name": "lumos", "arguments": {{"a": {deep}}}}}}}'
        )
        assert wire.answer() == {
            "jsonrpc": "2.0",
            "id": 2,
            "error": {
                "code": -32600,
                "message": "Invalid request: nested deeper than the server reads",
            },
        }
        wire.send("this is not json")
        said = wire.answer()
        assert (said["id"], said["error"]["code"]) == (None, -32700)
        wire.send({"jsonrpc": "2.0", "id": "x", "params": 3})
        said = wire.answer()
        assert (said["id"], said["error"]["code"]) == ("x", -32600)
        # An id that is no string nor number: the SDK took the request for a notification,
        # and it was never answered.
        for ident in ({"a": 1}, [1], 1.5, None):
            wire.send({"jsonrpc": "2.0", "id": ident, "method": "tools/list"})
            said = wire.answer()
            assert (said["id"], said["error"]["code"]) == (None, -32600), (ident, said)
        # A notification it cannot read is owed no answer; the next request still is.
        wire.send('{"jsonrpc": "2.0", "method": "notifications/x", "params": ' + deep + "}")
        wire.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        said = wire.answer()
        assert said["id"] == 3 and "lumos" in {t["name"] for t in said["result"]["tools"]}
    finally:
        wire.close()


def test_what_the_server_sends_carries_no_terminal_control(tmp_path: Path) -> None:
    """A task's results loaded into the response reach the client (whose terminal may show
    them) with every control made U+FFFD, as `spell` prints them."""
    executed(tmp_path)
    write(tmp_path, "task-results.md", HOSTILE)

    async def body(client: Client) -> Any:
        cast = await client.call_tool("accio", {})
        state = await client.read_resource("spellbook://state")
        return text(cast), state.contents[0].text

    response, state = run(tmp_path, body)
    assert "]52;c;cHduZWQ=" in response and not CONTROLS.search(response)
    assert not CONTROLS.search(state)


@pytest.mark.timeout(120)
def test_a_request_the_sdk_cannot_read_is_answered_as_json_rpc_says(tmp_path: Path) -> None:
    """Not JSON, a lone surrogate's escape too: a parse error, id null. Nested past any
    parser's depth: the id is still found. A response (or an error) from the client,
    malformed or not, is never answered."""
    deep = "[" * 100_000 + "]" * 100_000
    wire = Wire(tmp_path)
    try:
        wire.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"a": "\\ud800"}}')
        said = wire.answer()
        assert (said["id"], said["error"]["code"]) == (None, -32700)
        wire.send('{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": ' + deep + "}")
        said = wire.answer()
        assert (said["id"], said["error"]["code"]) == (4, -32600)
        wire.send('{"jsonrpc": "2.0", "method": "tools/call", "params": ' + deep + ', "id": "z"}')
        said = wire.answer()
        assert (said["id"], said["error"]["code"]) == ("z", -32600)
        wire.send({"jsonrpc": "2.0", "id": 5, "result": 3})
        wire.send({"jsonrpc": "2.0", "id": 6, "error": "no"})
        wire.send('{"jsonrpc": "2.0", "id": 8, "result": ' + deep + "}")
        wire.send({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
        assert wire.answer()["id"] == 9  # nothing was said to the responses before it
    finally:
        wire.close()


@pytest.mark.timeout(300)
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_line_past_the_bound_is_read_past_and_answered(tmp_path: Path) -> None:
    """A 100 MB line is never held whole: the server reads past it, answers it with an
    error carrying the id its start shows, and serves the next request."""
    wire = Wire(tmp_path)
    try:
        before = wire.peak_mb()
        head = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "lumos", '
        pad = b"x" * 2**20
        wire.send_bytes(head, b'"arguments": {"pad": "', *[pad] * 100, b'"}}}\n')
        said = wire.answer()
        assert (said["id"], said["error"]["code"]) == (7, -32600)
        assert "longer than 10 MB" in said["error"]["message"]
        assert wire.peak_mb() - before < 60, "the line was held whole"
        wire.send({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
        assert wire.answer()["id"] == 8
    finally:
        wire.close()


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("redirect", "stream"), [("<&-", "input"), (">&-", "output")])
def test_a_closed_standard_stream_is_said_in_one_line(
    tmp_path: Path, redirect: str, stream: str
) -> None:
    server = [sys.executable, "-m", "spellbook", "--root", str(tmp_path), "mcp"]
    done = subprocess.run(
        ["sh", "-c", f'exec "$@" {redirect}', "sh", *server],
        capture_output=True,
        timeout=50,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "error: spell mcp serves over its standard input and output, and its standard "
        f"{stream} is closed\n"
    )


@pytest.mark.timeout(120)
@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc")
def test_a_closed_stderr_is_the_null_device_while_serving(tmp_path: Path) -> None:
    """With stderr closed, no standard descriptor of the server is its client's pipe or
    anything else of its own (the event loop's, say): a stray read or write reaches the
    null device. The copy of stdin the server reads is numbered above 2."""
    wire = Wire(tmp_path, "2>&-")
    try:
        assert wire.process.stdin is not None
        pipe = f"pipe:[{os.fstat(wire.process.stdin.fileno()).st_ino}]"
        held = {}
        for fd in os.listdir(f"/proc/{wire.process.pid}/fd"):
            with contextlib.suppress(OSError):
                held[int(fd)] = os.readlink(f"/proc/{wire.process.pid}/fd/{fd}")
        assert [held.get(fd) for fd in (0, 1, 2)] == ["/dev/null"] * 3
        assert any(what == pipe for what in held.values())
        wire.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert wire.answer()["id"] == 3
    finally:
        wire.close()


def test_the_wire_stays_open_for_a_reader_still_blocked_on_it() -> None:
    """Leaving the server's stdin never closes the descriptor it read from (a worker
    thread may still be blocked reading it): a file opened after never takes its number."""
    script = (
        "import os, sys\n"
        "from spellbook.doors.wire import stdin\n"
        "with stdin() as reader:\n"
        "    fd = reader.fileno()\n"
        "os.open(os.devnull, os.O_RDONLY)\n"
        "print(os.fstat(fd).st_ino == os.fstat(0).st_ino)\n"
    )
    read, write = os.pipe()
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], stdin=read, capture_output=True, timeout=50
        )
    finally:
        os.close(read)
        os.close(write)
    assert done.stdout.decode().strip() == "True", done.stderr.decode()


@pytest.mark.timeout(60)
def test_a_line_of_escaped_quotes_is_read_in_time_linear_in_its_length() -> None:
    """An unclosed string of escaped quotes is one token: before, each quote began a scan
    to the end of the line (69 KB took 14 s, a 10 MB line would take hours)."""
    from spellbook.doors import wire

    head = '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": '
    for size in (32_000, 3_000_000):
        answer = wire.unreadable(head + "[" * 5000 + '\\"' * size)
        assert answer.id == 7 and answer.error.code == -32600


def test_the_guide_s_python_client_runs_as_written(tmp_path: Path) -> None:
    """docs/guide/mcp.md shows a client of the SDK driving `spell mcp`: run as written, it
    prints what its comments say (tests/test_readme.py runs it too, in-process)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "mcp.md").read_text()
    code = page[page.index("```python\n") + len("```python\n") :]
    (tmp_path / "client.py").write_text(code[: code.index("```")], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "client.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    tools, outcome, response = done.stdout.split("\n", 2)
    assert tools == str([*spell_machine.TRIGGERS.values(), "repair_state_file"])
    assert outcome == "False noop" and response.startswith("## Response to the AI")
