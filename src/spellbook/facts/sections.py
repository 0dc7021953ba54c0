"""A markdown file's lines, sections and checklists, read without regular expressions.

A line ends where markdown ends one (CommonMark): at a line feed, a carriage return,
or the two together, and nowhere else (`lines_of`): not at a form feed, a U+2028 line
separator or the other characters Python's `str.splitlines` splits at, which would
show a reader (GitHub, any markdown renderer) one line and the runtime two.

A section is a heading whose words contain the name's, as whole words, in any case,
the last one's plural too (`Risks` and `Risk` are in `## Open risks`; `Pre-flight` is
not in `## Preflight`, nor `Done` in `## Abandoned ideas`, nor `AC` in `##
Background`), up to the next heading of the same or a higher level; where a heading
is the name itself (`## Done`), only such headings are (`## Not done` is not then); a
file with no such heading has no such section (`has_section`, `titled`). Its items are
`- [ ]` / `- [x]` lines (`*`, `+` and `1.` bullets too; `[/]`, `[-]`, `[~]`, `[?]` and
the like are items not ticked) outside code fences and HTML
comments (markdown shows neither a heading nor an item in a comment). An item
with no text is not counted, nor are the items of a section still exactly its
template's (a fresh file made from its template has no items yet); once the section
differs, every item counts. Its lines of text
are read alike, the template's own lines never counting.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


def lines_of(text: str) -> list[str]:
    """`text`'s lines as markdown reads them: each ends at `\n`, `\r\n` or `\r`, which
    it does not hold; a text that ends with one has no empty last line."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    found = text.split("\n")
    if found[-1] == "":
        found.pop()
    return found


def _fence(line: str) -> bool:
    """Whether the line opens or closes a code fence."""
    indented = line.lstrip(" ")  # markdown indents with spaces, not a form feed
    return indented[:3] in ("```", "~~~") and len(line) - len(indented) <= 3


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
    or `+` bullet, or up to 9 digits and `.` or `)`), in a block quote too (`> - [ ] text`,
    which markdown shows as an item), read without a regular expression."""
    rest = line.lstrip(" \t")
    while rest[:1] == ">":
        rest = rest[1:].lstrip(" \t")
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
    mark = box[1:2]
    if mark in (" ", "x", "X"):
        return mark != " ", box[3:]
    if mark in _OPEN_MARKS:  # `[/]` in progress, `[-]` dropped, `[?]`: not ticked
        return False, box[3:]
    return None  # `- [1] see below`: a list item, no box


# Boxes task lists write besides `[ ]` and `[x]` (in progress, cancelled, moved, a
# question): an item not ticked, so `no unchecked items` does not hold over it.
_OPEN_MARKS = frozenset("/-~><?!*.")


def titled(title: str, section: str, exact: bool = False) -> bool:
    """Whether a heading's title names the section: has its words as whole words, in
    any case, the last one's plural too (`Open risks` names `Risks` and `Risk`;
    `Abandoned ideas` does not name `Done`), or, `exact`, is them (`Done`, `Done:`)."""
    have, wanted = " ".join(title.lower().split()), " ".join(section.lower().split())
    if exact or not wanted:
        return bool(wanted) and have.rstrip(" :") == wanted
    at = have.find(wanted)
    while at >= 0:
        end = at + len(wanted)
        end += 2 if have[end : end + 2] == "es" else 1 if have[end : end + 1] == "s" else 0
        if (at == 0 or not have[at - 1].isalnum()) and (
            end == len(have) or not have[end].isalnum()
        ):
            return True
        at = have.find(wanted, at + 1)
    return False


def _exact(text: str, section: str) -> bool:
    """Whether a heading of the text is the section's name itself: then only such
    headings are the section (`## Done`, not `## Not done` too)."""
    return any(titled(title, section, exact=True) for title in headings(text))


def _read(text: str) -> Iterator[tuple[str, str]]:
    """The text's lines, each with what it is: "fence" (a code fence's marker), "code"
    (inside a fence), or "text"; the lines of an HTML comment (`<!--` opening a line, to
    `-->`) are left out, as markdown shows nothing of them: a heading or an item in one
    is none. What follows a comment's end on its line is text."""
    fenced = commented = False
    for line in lines_of(text):
        if commented:
            end = line.find("-->")
            if end < 0:
                continue
            commented, line = False, line[end + 3 :]
            if not line.strip():
                continue
        if _fence(line):
            fenced = not fenced
            yield line, "fence"
            continue
        if fenced:
            yield line, "code"
            continue
        start = line.lstrip(" ")
        if start.startswith("<!--") and len(line) - len(start) <= 3:
            end = start.find("-->", 4)
            if end < 0:
                commented = True
                continue
            line = start[end + 3 :]
            if not line.strip():
                continue
        yield line, "text"


def _section(text: str, section: str, fences: bool = False) -> Iterator[tuple[str, bool]]:
    """The lines of the sections whose heading names `section` (`titled`), but their
    headings and (unless `fences`) code fences' markers: (line, whether it is outside a
    code fence) each."""
    exact = _exact(text, section)
    level = 0
    for line, kind in _read(text):
        if kind != "text":
            if level and (fences or kind == "code"):
                yield line, False
            continue
        heading = _heading(line)
        if heading is not None:
            depth, title = heading
            if level and depth <= level:
                level = 0
            if not level and titled(title, section, exact):
                level = depth
            continue
        if level:
            yield line, True


def headings(text: str) -> list[str]:
    """The titles of the text's headings, outside code fences and HTML comments, in order:
    the sections a condition may name (a section is a heading whose title has its words)."""
    found: list[str] = []
    for line, kind in _read(text):
        heading = _heading(line) if kind == "text" else None
        if heading is not None and heading[1]:
            found.append(heading[1])
    return found


def has_section(text: str, section: str) -> bool:
    """Whether a heading outside code fences names `section`, as `_section` finds one (a
    heading with no lines under it is a section too)."""
    return any(titled(title, section) for title in headings(text))


def section_text(text: str, section: str) -> str:
    """The lines of the sections whose heading has `section`'s words (as `has_section`
    finds one), their headings left out, each ended by a line feed; "" where there is
    none. A ledger's pattern scoped to a section is searched in it."""
    return "".join(line + "\n" for line, _ in _section(text, section, fences=True))


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
    """The section's real items, checked or not, none empty. While the section's
    checklist is still its template's, item for item and box for box, it has none (a
    fresh file is not filled in); once anything in it differs (an item ticked, added,
    removed or reworded), every item counts, the template's own too."""
    items = checklist(text, section)
    if template and _untouched(items, template, section):
        return []
    return [done for done, item in items if item]


def real_lines(text: str, template: str, section: str) -> list[str]:
    """The section's lines of text, whitespace squeezed: not blank, not a heading or a
    code fence's marker, not a line of the template's own section other than an item
    `real_items` counts (an item it counts is always text), not an empty item."""
    lines = _own(template, section)[1] if template else frozenset()
    untouched = bool(template) and _untouched(checklist(text, section), template, section)
    found = []
    for line, plain in _section(text, section):
        words = " ".join(line.split())
        box = _item(line) if plain else None
        if box is not None:
            if " ".join(box[1].split()) and not untouched:
                found.append(words)
        elif words and words not in lines:
            found.append(words)
    return found


def _untouched(items: list[tuple[bool, str]], template: str, section: str) -> bool:
    """Whether a section's checklist is its template's own, unchanged, empty items aside
    (a template with no checklist there has nothing to leave untouched)."""
    own = [item for item in _own(template, section)[0] if item[1]]
    return bool(own) and [item for item in items if item[1]] == own


_OWN: dict[tuple[str, str], tuple[tuple[tuple[bool, str], ...], frozenset[str]]] = {}


def _own(template: str, section: str) -> tuple[tuple[tuple[bool, str], ...], frozenset[str]]:
    """The checklist and the lines of a template's section (templates do not change
    while we run)."""
    found = _OWN.get((template, section))
    if found is None:
        found = _OWN[(template, section)] = (
            tuple(checklist(template, section)),
            frozenset(" ".join(line.split()) for line, _ in _section(template, section)),
        )
    return found
