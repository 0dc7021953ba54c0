"""The paths a tool call names, as the hook reads them: every string of its input, at any
depth and under any key, taken as a path the way a tool or the system would take it.

A tool names a file by whatever key it likes (`file_path`, an MCP tool's `path`, a
move's `source` and `destination`, a list of `paths`, a key that is itself a path), so
every string counts, keys included. Each is read relative to the event's folder: as
written with `..` and `.` folded away (as tools normalise a path), and as the system
resolves it (links first, then `..`); a `file:` URI and a leading `~` as well; a NUL
ends it (as C does), in a `file:` URI's path too (`%00`). Nothing is opened. The walk
is bounded (`MAX_DEPTH` levels, `MAX_STRINGS` strings, `MAX_PARTS` path components
resolved): past a bound the event is refused (`TooBig`), never judged slowly.
"""

from __future__ import annotations

import os
import re

from spellbook.doors.guarded import is_glob
from spellbook.records.errors import BadFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

MAX_DEPTH = 32  # levels of objects and lists in a tool's input
MAX_STRINGS = 10_000  # strings (keys and values) in a tool's input
MAX_PARTS = 200_000  # path components resolved (links looked up) for one event
PATH_MAX = 4096  # bytes: no system call takes a longer path
WHERE = 200  # characters of where a string is (`a.b[2].c`) kept: a reason shows fewer


class TooBig(BadFile):
    """A tool's input past a bound of the walk: refused, not judged."""


def strings(value: object, skip: Collection[str] = ()) -> list[tuple[str, str]]:
    """(where, text) for every string of a tool's input, keys and values: `where` says
    where it is (`destination`, `edits[2].path`, `files{}` for a key of `files`; its
    first WHERE characters, so a deep input of long keys is walked in linear time). The
    top-level keys in `skip` (a tool's own data, as a Write's `content`) are left out."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[object, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, str):
            found.append((where, item))
            if len(found) > MAX_STRINGS:
                raise TooBig(f"the tool's input holds more than {MAX_STRINGS:,} strings")
            continue
        if not isinstance(item, (dict, list)):
            continue
        if depth >= MAX_DEPTH:
            raise TooBig(f"the tool's input is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, list):
            stack += [(v, f"{where}[{i}]"[:WHERE], depth + 1) for i, v in enumerate(item)]
            continue
        for key, v in item.items():
            if depth == 0 and key in skip:
                continue
            inner = f"{where}.{str(key)[:WHERE]}"[:WHERE] if where else str(key)[:WHERE]
            stack += [(key, f"{inner}{{}}", depth + 1), (v, inner, depth + 1)]
    found.reverse()  # in the order of the input
    return found


class Resolver:
    """Turns a string of a tool's input into the absolute paths it may name, relative to
    each folder of `bases` (the event's first), counting the components it resolves
    against `MAX_PARTS`."""

    def __init__(self, bases: list[str]) -> None:
        self.bases = [os.path.abspath(b) for b in dict.fromkeys(bases) if b]
        self.parts = 0

    def paths(self, text: str, first: bool = False, glob: bool = False) -> list[str]:
        """The absolute paths `text` may name: as written with `.`, `..` and doubled `/`
        folded away (as tools normalise), with links resolved, and, where `..` follows a
        link, as the system resolves it (the link, then `..`). A path no system call
        could take (longer than PATH_MAX) names nothing; a `glob` longer than that may
        (a shell or glob library expands it part by part, to names that fit). With
        `first`, relative to the first base only (the event's folder, which Claude
        Code's own tools take it from)."""
        found: list[str] = []
        readings = _readings(text)
        relative = any(not os.path.isabs(r) for r in readings)
        bases = self.bases if relative and not first else self.bases[:1]
        for written, base in ((r, b) for r in readings for b in dict.fromkeys(bases)):
            joined = os.path.join(base, written)
            lexical = os.path.normpath(joined)
            long = len(os.fsencode(lexical)) >= PATH_MAX
            if long and not (glob and any(is_glob(p) for p in lexical.split(os.sep))):
                continue
            found.append(lexical)
            found.append(self._real(lexical))
            climbs = ".." in written.replace("\\", "/").split("/")
            if climbs and (long or len(os.fsencode(joined)) < PATH_MAX):
                found.append(self._real(joined))
        return list(dict.fromkeys(found))

    def charge(self, parts: int) -> None:
        """Count `parts` more path components looked up (a folder listed counts its
        entries): TooBig past MAX_PARTS for the event."""
        self.parts += parts
        if self.parts > MAX_PARTS:
            raise TooBig(f"the tool's input names more than {MAX_PARTS:,} path components")

    def _real(self, path: str) -> str:
        """`path` (absolute) as the system resolves it: its links (and `..` after them)
        resolved as far as it exists; the rest, which no link can be in, as written."""
        parts = path.split(os.sep)
        low, high = 1, len(parts)  # parts[:low] exists (the root); find the longest that does
        while low < high:
            middle = (low + high + 1) // 2
            try:
                os.lstat(os.sep.join(parts[:middle]) or os.sep)
                low = middle
            except (OSError, ValueError):
                high = middle - 1
        self.charge(low)
        found = os.path.realpath(os.sep.join(parts[:low]) or os.sep)
        return os.path.normpath(os.path.join(found, *parts[low:])) if low < len(parts) else found


MAX_READINGS = 64  # ways one string is read (its braces expanded)
BRACE_STEPS = 1_000  # groups expanded in one string
# An innermost `{...}` with a comma. Its first comma ends the first run (`[^{},]*`), so
# no text is tried two ways: a search is linear in the string's length.
_GROUP = re.compile(r"\{([^{},]*,[^{}]*)\}")


def _readings(text: str) -> list[str]:
    """The ways a tool may read `text` as a path: as written (up to a NUL), a `file:`
    URI's path (up to a NUL, `%00` too), `~` as the home folder, `\\` as `/`, and, in
    one line of at most four times PATH_MAX (a glob, not a file's content), `{a,b}` as
    each of a and b."""
    text = text.partition("\0")[0]
    found = [text] if text else []
    if text[:5].casefold() == "file:":
        from urllib.parse import unquote, urlsplit

        found.append(unquote(urlsplit(text).path).partition("\0")[0])  # `%00` ends it too
    found += [os.path.expanduser(t) for t in found if t.startswith("~")]
    found += [t.replace("\\", "/") for t in found if "\\" in t]
    if "{" in text and "," in text and "\n" not in text and len(text) <= 4 * PATH_MAX:
        for t in list(found):
            found += _braces(t)
    return [f for f in dict.fromkeys(found) if f]


def _braces(text: str) -> list[str]:
    """`text` with its `{a,b,...}` groups expanded (innermost first), as shells and glob
    libraries do: TooBig past MAX_READINGS results or BRACE_STEPS groups."""
    found, done, steps = [text], list[str](), 0
    while found:
        item = found.pop()
        group = _GROUP.search(item)  # an innermost `{...}` with a comma (`{x}` is none)
        if group is None:
            done.append(item)
        else:
            head, tail = item[: group.start()], item[group.end() :]
            found += [head + choice + tail for choice in group.group(1).split(",")]
        steps += 1
        if len(done) + len(found) > MAX_READINGS or steps > BRACE_STEPS:
            raise TooBig(f"a string of the tool's input expands to more than {MAX_READINGS} paths")
    return done
