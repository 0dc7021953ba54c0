"""A markdown file's sections and checklists, read without regular expressions.

A section is a heading whose words contain the name, up to the next heading of
the same or a higher level; its items are `- [ ]` / `- [x]` lines (`*`, `+` and
`1.` bullets too) outside code fences. An item with no text, or with the text of
an item of the file's own template, is not counted: a fresh file made from its
template has no items yet. Its lines of text are read alike.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, read without a regular expression."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    return level, rest.strip().rstrip("#").strip()


def _item(line: str) -> tuple[bool, str] | None:
    """(checked, text) of a checklist item's line (`- [ ] text`, `1. [x] text`: a `-`, `*`
    or `+` bullet, or up to 9 digits and `.` or `)`), read without a regular expression."""
    rest = line.lstrip(" \t")
    if rest[:1] in ("-", "*", "+"):
        rest = rest[1:]
    else:
        digits = 0
        while digits < len(rest) and rest[digits].isdecimal():
            digits += 1
        if not 1 <= digits <= 9 or rest[digits : digits + 1] not in (".", ")"):
            return None
        rest = rest[digits + 1 :]
    box = rest.lstrip(" \t")
    if len(box) == len(rest) or box[:1] != "[" or box[2:3] != "]":
        return None
    if box[1:2] not in (" ", "x", "X"):
        return None
    return box[1] != " ", box[3:]


def _section(text: str, section: str) -> Iterator[tuple[str, bool]]:
    """The lines of the sections whose heading has `section`'s words, but their headings
    and code fences' markers: (line, whether it is outside a code fence) each."""
    wanted = section.lower()
    level = 0
    fenced = False
    for line in text.splitlines():
        start = line.lstrip()[:3]
        if start in ("```", "~~~") and len(line) - len(line.lstrip()) <= 3:
            fenced = not fenced
            continue
        if fenced:
            if level:
                yield line, False
            continue
        heading = _heading(line)
        if heading is not None:
            depth, title = heading
            if level and depth <= level:
                level = 0
            if not level and wanted in title.lower():
                level = depth
            continue
        if level:
            yield line, True


def checklist(text: str, section: str) -> list[tuple[bool, str]]:
    """The checklist items of the section whose heading has `section`'s words:
    (checked, text) each."""
    items: list[tuple[bool, str]] = []
    for line, plain in _section(text, section):
        box = _item(line) if plain else None
        if box is not None:
            items.append((box[0], " ".join(box[1].split())))
    return items


def real_items(text: str, template: str, section: str) -> list[bool]:
    """The section's real items, checked or not: none empty, none the template's own."""
    own = _own(template, section)[0] if template else frozenset()
    return [done for done, item in checklist(text, section) if item and item not in own]


def real_lines(text: str, template: str, section: str) -> list[str]:
    """The section's lines of text, whitespace squeezed: not blank, not a heading or a
    code fence's marker, not a checklist item that `real_items` does not count, not a
    line of the template's own section. An item it counts is always text."""
    items, lines = _own(template, section) if template else (frozenset(), frozenset())
    found = []
    for line, plain in _section(text, section):
        words = " ".join(line.split())
        box = _item(line) if plain else None
        if box is not None:
            item = " ".join(box[1].split())
            if item and item not in items:
                found.append(words)
        elif words and words not in lines:
            found.append(words)
    return found


_OWN: dict[tuple[str, str], tuple[frozenset[str], frozenset[str]]] = {}


def _own(template: str, section: str) -> tuple[frozenset[str], frozenset[str]]:
    """The item texts and the lines of a template's section (templates do not change
    while we run)."""
    found = _OWN.get((template, section))
    if found is None:
        found = _OWN[(template, section)] = (
            frozenset(t for _, t in checklist(template, section)),
            frozenset(" ".join(line.split()) for line, _ in _section(template, section)),
        )
    return found
