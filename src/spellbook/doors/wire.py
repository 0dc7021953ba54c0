"""The MCP server's wire: the client's messages read line by line from standard input,
each with a bound, and the answer owed to a line the SDK cannot read.

The SDK's stdio transport reads a line whole, however long, and drops one it cannot
read without an answer (the client waits for ever). Here a line longer than
`LINE_LIMIT` bytes is read past as it arrives (only its start is kept, to find its
id), and every request the SDK cannot read gets JSON-RPC's error: a line that is not
JSON a parse error (-32700, id null), JSON that is not a request an invalid request
error (-32600) with the request's id where it can be found. A notification or a
response (a message with `result` or `error`) is owed no answer, and gets none.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from typing import IO, TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

LINE_LIMIT = 10_000_000  # bytes of one message the server reads (as the hook's event)
HEAD = 65_536  # bytes of a longer line kept to find its id
CHUNK = 1 << 20  # bytes read at a time past the bound
SCANNED = 100_000  # tokens of a message looked at for its top-level keys

# JSON-RPC's codes for a message that is not JSON, and for JSON that is not a request.
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class Overlong(NamedTuple):
    """A line longer than LINE_LIMIT bytes, read past: only its start is kept."""

    head: str


def read_line(reader: IO[bytes], limit: int = LINE_LIMIT) -> str | Overlong | None:
    """The next line of `reader` as text (None at its end). One longer than `limit` bytes
    is never held whole: the rest of it is read and dropped a chunk at a time."""
    line = reader.readline(limit + 1)
    if not line:
        return None
    if len(line) <= limit or line.endswith(b"\n"):
        return line.decode("utf-8", "replace")
    head = line[:HEAD].decode("utf-8", "replace")
    del line
    while True:
        rest = reader.readline(CHUNK)
        if not rest or rest.endswith(b"\n"):
            return Overlong(head)


class Lines:
    """The client's lines, each read in a worker thread (reading blocks), as the SDK's
    transport reads its stdin."""

    def __init__(self, reader: IO[bytes]) -> None:
        self.reader = reader

    def __aiter__(self) -> AsyncIterator[str | Overlong]:
        return self._read()

    async def _read(self) -> AsyncIterator[str | Overlong]:
        import anyio.to_thread

        while True:
            line = await anyio.to_thread.run_sync(read_line, self.reader)
            if line is None:
                return
            yield line


class CheckedLines:
    """The client's lines as the SDK's transport reads them, less those it cannot read,
    which are answered here (`answers`: the transport's write stream)."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self.answers: Any = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._read()

    async def _read(self) -> AsyncIterator[str]:
        from mcp.shared.message import SessionMessage

        async for line in self.lines:
            answer = overlong(line.head) if isinstance(line, Overlong) else unreadable(line)
            if answer is None:
                assert isinstance(line, str)
                yield line
            elif answer is not False and self.answers is not None:
                await self.answers.send(SessionMessage(answer))


@contextlib.contextmanager
def stdin() -> Iterator[IO[bytes]]:
    """The wire's stdin, read from a descriptor of its own (above the standard three,
    so a closed stdout or stderr is never taken for it) while fd 0 points at the null
    device, so nothing a cast runs reads the client's messages: as the SDK's transport
    does when it claims stdin itself. Where no descriptor can be had, stdin is read
    where it is."""
    try:
        wire = _above_standard(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        yield sys.stdin.buffer
        return
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    except OSError:  # fd 0 still carries the wire: read it there
        yield sys.stdin.buffer
        return
    try:
        # Never closed: a worker thread may still be blocked reading it, and would
        # read whatever a recycled descriptor of that number held.
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


def null_stderr() -> None:
    """A closed stderr made the null device, before the server opens anything: else the
    first descriptor it opens (the event loop's) would take number 2, and the SDK's
    stdout, which it points where stderr points while it serves, with it."""
    try:
        os.fstat(2)
    except OSError:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != 2:
            os.dup2(null, 2)
            os.close(null)


def _above_standard(fd: int) -> int:
    """A copy of `fd` that no child inherits, numbered 3 or more."""
    try:
        import fcntl
    except ImportError:  # Windows: no F_DUPFD
        copy = os.dup(fd)
        if copy <= 2:
            os.close(copy)
            raise OSError(f"the copy of fd {fd} took a standard descriptor") from None
        return copy
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def unreadable(line: str) -> Any:
    """None for a line the SDK reads; else the JSON-RPC error that answers it, or False
    for one no answer is owed (a blank line, a notification, a response)."""
    import mcp_types as types
    from pydantic import ValidationError

    if not line.strip():
        return False
    try:
        read = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as err:
        problems = err.errors()
    else:  # the SDK takes a request whose id is no string nor number for a notification
        if not isinstance(read, types.JSONRPCNotification) or not _has_id(line):
            return None
        return _error(INVALID_REQUEST, None, "its id is neither a string nor an integer")
    why = str(problems[0]["msg"]) if problems else "unreadable"
    if problems and problems[0]["type"] == "json_invalid" and "recursion limit" not in why:
        return _error(PARSE_ERROR, None, why)  # not JSON: a lone surrogate's escape too
    try:
        message = json.loads(line)
    except ValueError as err:  # past the SDK's depth, not JSON either
        return _error(PARSE_ERROR, None, f"Invalid JSON: {err}")
    except RecursionError:  # past json's depth too: its top level, looked at as text
        keys = top_level(line)
    else:
        keys = _Keys(dict(message) if isinstance(message, dict) else None, True)
    if "recursion limit" in why:
        why = "nested deeper than the server reads"
    return _answer(keys, why)


def _has_id(line: str) -> bool:
    """Whether a message's top level has an `id` key."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        found = top_level(line).found
        return found is not None and "id" in found
    return isinstance(message, dict) and "id" in message


def overlong(head: str) -> Any:
    """The answer to a line past LINE_LIMIT (False for a response: owed none)."""
    return _answer(top_level(head), f"a message longer than {LINE_LIMIT / 1e6:.0f} MB")


class _Keys(NamedTuple):
    """What a message's top level was seen to hold: its keys, each with its value where
    that is a string or a number (None for a message that is no JSON object), and
    whether all of it was seen."""

    found: dict[str, Any] | None
    whole: bool


def _answer(keys: _Keys, why: str) -> Any:
    """The invalid request error for a message of these keys, or False where none is
    owed: a notification (a method without an id) or a response (a result or an error,
    without a method)."""
    found = keys.found
    if found is not None and "method" in found and "id" not in found and keys.whole:
        return False
    if found is not None and "method" not in found and ("result" in found or "error" in found):
        return False
    ident = found.get("id") if found is not None else None
    if isinstance(ident, bool) or not isinstance(ident, (str, int)):
        ident = None
    return _error(INVALID_REQUEST, ident, why)


def _error(code: int, ident: str | int | None, why: str) -> Any:
    import mcp_types as types

    said = "Parse error" if code == PARSE_ERROR else "Invalid request"
    return types.JSONRPCError(
        jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=f"{said}: {why}")
    )


# A JSON text's tokens: a string (one never closed runs to the end of the text, in one
# token: else each of its quotes would start a scan to the end again), a run of opening
# or of closing brackets, a colon or a comma, a bare word (a number, true, false, null),
# blanks.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)|[\[{]+|[\]}]+|[:,]|[^\s"\[\]{}:,]+|\s+')


def top_level(text: str) -> _Keys:
    """The keys of the JSON object `text` starts with, looked at without parsing what
    they hold (which may be nested past any parser's depth, or cut short), over at most
    SCANNED tokens."""
    found: dict[str, Any] = {}
    depth, key, expecting = 0, "", "{"  # then "key", ":", "value", "," in turn
    for count, match in enumerate(_TOKEN.finditer(text)):
        token = match.group()
        if count >= SCANNED:
            break
        if token.isspace():
            continue
        opens, closes = token[0] in "[{", token[0] in "]}"
        if expecting == "{":
            if token != "{":
                return _Keys(None, True)  # no object: an array, a string, a number
            depth, expecting = 1, "key"
        elif depth > 1:  # inside a value: only its brackets count
            depth += len(token) if opens else -len(token) if closes else 0
            if depth < 1:  # the object is closed too
                return _Keys(found, True)
            expecting = "," if depth == 1 else expecting
        elif closes and expecting in ("key", ","):
            return _Keys(found, True)
        elif expecting == "key" and token[0] == '"':
            named = _decoded(token)
            key, expecting = named if isinstance(named, str) else "", ":"
        elif expecting == ":" and token == ":":
            expecting = "value"
        elif expecting == "value" and opens:
            found[key], depth = ..., 1 + len(token)
        elif expecting == "value" and not closes and token not in ":,":
            found[key], expecting = _decoded(token), ","
        elif expecting == "," and token == ",":
            expecting = "key"
        else:
            break  # not JSON: what was seen is all there is
    return _Keys(found, False)


def _decoded(token: str) -> Any:
    """A string's or a number's value (None for what is neither)."""
    try:
        return json.loads(token)
    except (ValueError, RecursionError):
        return None
