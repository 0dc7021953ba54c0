"""A markdown file's lines, sections and checklists, read without regular expressions.

A line ends where markdown ends one (CommonMark): at a line feed, a carriage return,
or the two together, and nowhere else (`lines_of`): not at a form feed, a U+2028 line
separator or the other characters Python's `str.splitlines` splits at, which would
show a reader (GitHub, any markdown renderer) one line and the runtime two.

A section is a heading (`## Risks`, or `Risks` over a line of `-` or `=`, as markdown
shows both; never one inside a code fence, which only a line of its own marker, as long
or longer, closes) whose words contain the name's, as whole words, in any case,
the last one's plural too (`Risks` and `Risk` are in `## Open risks`; `Pre-flight` is
not in `## Preflight`, nor `Done` in `## Abandoned ideas`, nor `AC` in `##
Background`), up to the next heading of the same or a higher level; where a heading
is the name itself (`## Done`), only such headings are (`## Not done` is not then); a
file with no such heading has no such section (`has_section`, `titled`). Its items are
`- [ ]` / `- [x]` lines (`*`, `+` and `1.` bullets too; `[/]`, `[-]`, `[~]`, `[?]` and
the like are items not ticked) outside code fences, indented code (four spaces in, past
an item's text where in one) and HTML comments (markdown shows neither a heading nor an
item in code or a comment). An item
with no text is not counted, nor are the items of a section still exactly its
template's (a fresh file made from its template has no items yet); an item whose text
is on the next line (`- [ ]`, then `  password reset`) has that text; once the section
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


def fenced(lines: list[str]) -> int | None:
    """Where the frontmatter that opens a file of `lines` ends: the index of the first
    line after the first that is `---` or `...` (spaces after it allowed, none before);
    0 where no line closes it; None where the first line is no `---`, or a blank line
    follows it (a thematic break, as GitHub and Jekyll read it). The one test, for the
    runtime and for a spec's reader (`codegen.read.markdown`), and `frontmatter`'s."""
    if not lines or lines[0].rstrip(" \t") != "---" or len(lines) < 2 or not lines[1].strip():
        return None
    return next((i for i in range(1, len(lines)) if lines[i].rstrip(" \t") in ("---", "...")), 0)


def _fence(line: str) -> str:
    """The marker of the code fence the line opens or closes (```` ``` ````, `~~~~`), ""
    where it is no fence's line."""
    indented = line.lstrip(" ")  # markdown indents with spaces, not a form feed
    if indented[:3] not in ("```", "~~~") or len(line) - len(indented) > 3:
        return ""
    return indented[: len(indented) - len(indented.lstrip(indented[0]))]


def _closes(line: str, opened: str) -> bool:
    """Whether the line closes the fence `opened` opened: the same character, at least
    as many, nothing after them (```` ```` ```` holds a ```` ``` ```` line as code)."""
    marker = _fence(line)
    return (
        marker[:1] == opened[:1]
        and len(marker) >= len(opened)
        and not line.strip()[len(marker) :].strip()
    )


def _cells(row: str) -> int:
    """How many cells a table's row has (its outer `|` aside)."""
    return len(row.strip().strip("|").split("|"))


def _delimiter_row(line: str) -> bool:
    """Whether a line is a table's delimiter row, under its header: `|---|:--:|`, `--- |
    ---` (a `|` in it, each cell dashes with a colon at either end or none)."""
    row = line.strip()
    if "|" not in row:
        return False
    for cell in row.strip("|").split("|"):
        dashes = cell.strip()
        dashes = dashes[1:] if dashes[:1] == ":" else dashes
        dashes = dashes[:-1] if dashes[-1:] == ":" else dashes
        if not dashes or dashes.strip("-"):
            return False
    return True


def _underline(line: str) -> int:
    """The level of the Setext heading a line of `=` (1) or `-` (2) underlines, 0 where
    it is no such line."""
    stripped = line.strip(" \t")
    spaced = line.expandtabs(4)
    if len(spaced) - len(spaced.lstrip(" ")) > 3 or not stripped:  # a tab: code's indent
        return 0
    if stripped == "=" * len(stripped):
        return 1
    return 2 if stripped == "-" * len(stripped) else 0


def _paragraph(line: str) -> bool:
    """Whether a text line may be a paragraph's, which a Setext underline makes a heading
    of: not blank, not indented code, not an ATX heading, an item, a quote or a break."""
    spaced = line.expandtabs(4)
    stripped = spaced.lstrip(" ")
    if not stripped.strip() or len(spaced) - len(stripped) > 3:
        return False
    if _heading(line) is not None or stripped[:1] == ">" or _break(stripped):
        return False
    return not (_bullet(stripped) or (stripped[:1].isdecimal() and _numbered(stripped)))


def _break(stripped: str) -> bool:
    """Whether a line is a thematic break: three or more `-`, `*` or `_`, spaces between."""
    marks = stripped.replace(" ", "").replace("\t", "")
    return len(marks) >= 3 and marks[0] in "-*_" and marks == marks[0] * len(marks)


def _bullet(stripped: str) -> bool:
    return stripped[:1] in ("-", "*", "+") and stripped[1:2] in (" ", "\t", "")


def _numbered(stripped: str) -> bool:
    digits = len(stripped) - len(stripped.lstrip("0123456789"))
    return 1 <= digits <= 9 and stripped[digits : digits + 1] in (".", ")")


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, read without a regular expression."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    title = rest.strip()
    closing = title.rstrip("#")  # `## Done ##`; never `## C#`, whose `#` is its own
    if not closing or closing[-1] in " \t":
        title = closing.strip()
    return level, title


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


Heading = tuple[int, str]


def _read(text: str) -> Iterator[tuple[str, str, Heading | None]]:
    """The text's lines, each with what it is: "fence" (a code fence's marker), "code"
    (inside a fence), or "text", with the heading a text line is (ATX, `## Risks`, or
    Setext, `Risks` over a `-----` line, which is then left out), else None. The lines
    of an HTML comment (`<!--` opening a line, to `-->`) are left out, as markdown shows
    nothing of them: a heading or an item in one is none. What follows a comment's end
    on its line is text. The frontmatter opening the file (`---` lines) is left out too."""
    lines = lines_of(text)
    if lines and lines[0].startswith("\ufeff"):  # a byte order mark opens no line's text
        lines[0] = lines[0][1:]
    start = 0
    if lines and lines[0].startswith("---"):
        start = (fenced(lines) or -1) + 1
    opened = ""
    commented = False
    pending: list[str] = []  # a paragraph's lines, which a Setext underline makes a heading
    lazy = False  # the line before was an item's or a quote's, which a paragraph line runs on
    table = False  # in a table's rows
    listed: list[int] = []  # where the text of each list item these lines may be in starts
    for line in lines[start:]:
        if commented:
            end = line.find("-->")
            if end < 0:
                continue
            commented, line = False, line[end + 3 :]
            if not line.strip():
                continue
        if opened:
            if _closes(line, opened):
                opened = ""
                yield line, "fence", None
            else:
                yield line, "code", None
            continue
        if table:  # a table's rows, to a blank line or another block: none heads a section
            table = bool(line.strip()) and _heading(line) is None and not _fence(line)
            if table and line.lstrip()[:1] != ">":
                yield line, "text", None
                continue
            table = False
        if pending and _delimiter_row(line) and _cells(pending[-1]) == _cells(line):
            # the line above is a table's header (`| a | b |` over `|---|---|`): its rows
            # follow; no paragraph, so no `---` after it underlines a heading
            for held in pending:
                yield held, "text", None
            pending, table = [], True
            yield line, "text", None
            continue
        level = _underline(line) if pending else 0
        if level:
            title = " ".join(" ".join(pending).split())
            yield pending[-1], "text", (level, title)
            pending = []
            continue
        spaced = line.expandtabs(4)
        depth = len(spaced) - len(spaced.lstrip())
        if line.strip() and not ((pending or lazy) and _paragraph(line)):
            while listed and listed[-1] > depth:  # the items a line of its own is outside
                listed.pop()
        if line.strip() and not pending and not lazy and depth - (listed[-1] if listed else 0) >= 4:
            # indented code (after a blank line, a heading, a fence; four spaces past an
            # item's text where in one): markdown shows it as code, no item or heading
            yield line, "code", None
            continue
        start_of = line.lstrip(" ")
        comment = start_of.startswith("<!--") and len(line) - len(start_of) <= 3
        # (indented code never interrupts a paragraph: its line runs the paragraph on)
        indented = bool(pending) and bool(line.strip()) and len(spaced) - len(spaced.lstrip()) > 3
        if (_paragraph(line) or indented) and not comment and not _fence(line):
            if lazy:  # an item's or a quote's text run on: no paragraph of its own
                yield line, "text", None
            else:
                pending.append(line)
            continue
        stripped = line.strip()
        item = _bullet(stripped) or _numbered(stripped)
        if item:  # where its text starts: the column its own blocks are indented to
            marker = stripped.split(None, 1)[0]
            after = spaced[depth + len(marker) :]
            gap = len(after) - len(after.lstrip(" "))
            listed.append(depth + len(marker) + (gap if 1 <= gap <= 4 else 1))
        lazy = bool(stripped) and (
            item
            or stripped[:1] == ">"
            or (lazy and line[:1] in (" ", "\t"))  # the item's own lines go on
        )
        for held in pending:
            yield held, "text", None
        pending = []
        marker = _fence(line)
        if marker:
            opened = marker
            yield line, "fence", None
            continue
        if comment:
            end = start_of.find("-->", 4)
            if end < 0:
                commented = True
                continue
            line = start_of[end + 3 :]
            if not line.strip():
                continue
        yield line, "text", _heading(line)
    for held in pending:
        yield held, "text", None


def _section(
    text: str, section: str, fences: bool = False, marks: bool = False
) -> Iterator[tuple[str, bool]]:
    """The lines of the sections whose heading names `section` (`titled`), but their
    headings and (unless `fences`) code fences' markers: (line, whether it is outside a
    code fence) each; with `marks`, a heading inside them as ("", False), so that no
    line before it runs on past it (`- [ ]`, `### Notes`, a paragraph)."""
    exact = _exact(text, section)
    level = 0
    for line, kind, heading in _read(text):
        if kind != "text":
            if level and (fences or kind == "code"):
                yield line, False
            continue
        if heading is not None:
            depth, title = heading
            if level and depth <= level:
                level = 0
            if not level and titled(title, section, exact):
                level = depth
            elif level and marks:
                yield "", False
            continue
        if level:
            yield line, True


def headings(text: str) -> list[str]:
    """The titles of the text's headings, outside code fences and HTML comments, in order:
    the sections a condition may name (a section is a heading whose title has its words)."""
    found: list[str] = []
    for _, _, heading in _read(text):
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
    lines = list(_section(text, section, marks=True))
    for at, (line, plain) in enumerate(lines):
        box = _item(line) if plain else None
        if box is None:
            continue
        said = " ".join(box[1].split())
        if not said and _runs_on(lines, at):  # `- [ ]` and its text on the next line
            said = " ".join(lines[at + 1][0].split())
        items.append((box[0], said))
    return items


def _runs_on(lines: list[tuple[str, bool]], at: int) -> bool:
    """Whether the empty item at `at` has its text on the next line: one indented, or a
    paragraph's (lazy), outside code and no item itself."""
    if at + 1 >= len(lines):
        return False
    after, outside = lines[at + 1]
    runs_on = after[:1] in (" ", "\t") or _paragraph(after)
    return outside and runs_on and _item(after) is None


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
    read = list(_section(text, section, marks=True))
    carried = -1  # the line an empty item's text runs on to (`- [ ]`, then its text)
    for at, (line, plain) in enumerate(read):
        words = " ".join(line.split())
        box = _item(line) if plain else None
        if at == carried:
            if words and not untouched:
                found.append(words)  # an item's text, as `checklist` reads it
        elif box is not None:
            if " ".join(box[1].split()):
                if not untouched:
                    found.append(words)
            elif _runs_on(read, at):
                carried = at + 1
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
