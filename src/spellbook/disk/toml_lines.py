"""Where in a pyproject.toml's text a key of `[tool.spellbook]` is written: its line.

TOML's parser gives no positions, so each place the key's name is written (a table
header, a dotted key, before an `=`, inside an inline table) is tried in turn: the name
there is replaced by one no file holds and the text parsed again, and the place that
moves the key is where it is written. A value is found the same way, on the key's line
or after it (a list spread over lines). Where no place moves it (a default, a name
spelled with escapes), the answer is 0: the file without a line, never a wrong one.

Read only on the way to an error, never by a cast that succeeds.
"""

from __future__ import annotations

import posixpath
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROBE = "spellbook_probe_0d6f2b"  # a name no pyproject.toml holds
TRIES = 12  # places tried per key or value: each is a parse of the whole text
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'([^\'\n]*)\'')


def line_of(text: str, keys: tuple[str, ...], value: str | None = None) -> int:
    """The line of `text` that writes the key `keys` of `[tool.spellbook]` (`()`: the
    table itself), or, with `value`, the line of the string `value` it holds (a path
    compared as a path); the key's line where the value's cannot be told; 0 for none."""
    path = ("tool", "spellbook", *keys)
    at = _key_at(text, path)
    if at < 0:
        return 0
    line = text.count("\n", 0, at) + 1
    if value is None:
        return line
    found = _value_at(text, path, value, text.rfind("\n", 0, at) + 1)
    return line if found < 0 else text.count("\n", 0, found) + 1


def _key_at(text: str, path: tuple[str, ...]) -> int:
    """Where in `text` the last key of `path` is written, or -1."""
    name = path[-1]
    if not name:
        return -1
    # Where a key can stand: first on its line, or after `[`, `.`, `{` or `,`; then `=`,
    # `.` or `]` after it (a name inside a string is not tried, or seldom).
    pattern = re.compile(
        rf"(?:^|(?<=[\[.{{,]))[ \t]*(?P<quote>[\"']?)(?P<name>{re.escape(name)})(?P=quote)"
        r"[ \t]*(?=[=.\]])",
        re.MULTILINE,
    )
    for tries, found in enumerate(pattern.finditer(text)):
        if tries == TRIES:
            break
        changed = text[: found.start("name")] + PROBE + text[found.end("name") :]
        parent = _get(_parsed(changed), path[:-1])
        if isinstance(parent, dict) and PROBE in parent:
            return found.start("name")
    return -1


def _value_at(text: str, path: tuple[str, ...], value: str, start: int) -> int:
    """Where in `text`, from `start`, the string `value` the key `path` holds is written,
    or -1."""
    wanted = _normal(value)
    tries = 0
    for found in STRING.finditer(text, start):
        written = found.group(1) if found.group(1) is not None else found.group(2)
        if written != value and _normal(written) != wanted:
            continue
        if tries == TRIES:
            break
        tries += 1
        inner = found.start() + 1
        changed = text[:inner] + PROBE + text[found.end() - 1 :]
        held = _get(_parsed(changed), path)
        if held == PROBE or (isinstance(held, list) and PROBE in held):
            return found.start()
    return -1


def _normal(value: str) -> str:
    """A path as `spellbook.disk.project` keeps one: '/' between folders, `.` and `//` gone."""
    return posixpath.normpath(value.replace("\\", "/")) if value else ""


def _parsed(text: str) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except Exception:  # the probe broke the text (or it never parsed): not this place
        return None


def _get(table: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(table, dict):
            return None
        table = table.get(key)
    return table
