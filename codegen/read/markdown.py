"""Markdown reading: mistune's AST, with the source line of every block, table row and list item.

This is the only module that imports mistune. mistune's AST carries no source
positions, so the block parser is given a state that stamps each token with the
line its block starts on. List items and block quotes are parsed from dedented
copies of their text (child states); the list and block-quote methods tell each
child state which source line its copy starts on. Table rows are one line each,
so row `i` of a table sits `i + 2` lines below its header.
"""

from __future__ import annotations

import bisect
import html
import re
import string
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import mistune
from mistune.block_parser import BlockParser
from mistune.core import BlockState
from mistune.list_parser import LIST_PATTERN
from mistune.plugins.table import table as table_plugin

Token = dict[str, Any]


def _glued_end(seg: Segment) -> str:
    """The word (or `]`) a text segment ends with, right against what follows."""
    if seg.kind != "text":
        return ""
    text = seg.text
    i = len(text)
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_]"):
        i -= 1
    return text[i:]


def _glued_start(seg: Segment) -> str:
    """The word (or `[...]`) a text segment starts with, right against what precedes."""
    if seg.kind != "text":
        return ""
    text = seg.text
    i = 0
    while i < len(text) and (text[i].isalnum() or text[i] in "_[]/"):
        i += 1
    return text[:i]


def html_comment_in_cell(what: str) -> str:
    """Why a cell holding an HTML comment (`x.md exists <!-- TODO -->`) does not read, the
    comment read as part of its `what` (its condition, its name)."""
    return (
        f"it holds an HTML comment (`<!-- ... -->`), which GitHub hides but the cell would "
        f"read as part of its {what}; move the comment out of the table, to a line above "
        "or below it"
    )


def _starred(before: str, text: str, after: str) -> bool:
    """Whether emphasis glued to a word has a star against an underscore (`ACHIEVE_*`,
    `*_MISSING`): a wildcard, where a formatter writes a star for an underscore."""
    return bool(before or after) and (
        before.endswith("_") or after.startswith("_") or text[:1] == "_" or text[-1:] == "_"
    )


@dataclass(frozen=True)
class Segment:
    """A run of inline text: plain, `code`, **strong**, *emphasis*, a [link](target) or a
    [[wikilink]] (its text the page it names, its target the link as written).

    `written` is set on strong or emphasis text that held emphasis a formatter glued
    into a name (`**PR*GATHERING_COMMENTS*[G/A]**`): the text as written, where `text`
    is read back with the underscores it was (`PR_GATHERING_COMMENTS_[G/A]`).
    """

    kind: str
    text: str
    target: str = ""
    written: str = ""

    @property
    def markdown(self) -> str:
        if self.kind == "code":
            return f"`{self.text}`"
        if self.kind == "strong":
            return f"**{self.text}**"
        if self.kind == "emphasis":
            return f"*{self.text}*"
        if self.kind == "link":
            return f"[{self.text}]({self.target})"
        if self.kind == "wikilink":
            return self.target  # as written: `[[Rejected|Rejected candidate]]`
        return self.text


@dataclass(frozen=True)
class Inline:
    """One source line of inline markdown, as segments, and as written (`source`, where
    the line is a paragraph's)."""

    line: int
    segments: tuple[Segment, ...]
    source: str = ""

    @property
    def plain(self) -> str:
        return "".join(s.text for s in self.segments).strip()

    @property
    def markdown(self) -> str:
        return "".join(s.markdown for s in self.segments).strip()

    def recovered(
        self, markdown: bool = False, code: bool = False
    ) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The text with emphasis that a formatter glued to a word read back as the
        underscores it was, and each such fragment as (written, read). With `markdown`,
        the other segments are written as markdown; with `code`, only code spans are
        (in backticks) and wikilinks (as GitHub shows them), the rest as plain text.

        A name like `PR_GATHERING_COMMENTS_[G/A]` reads as `PR` + *GATHERING_COMMENTS*
        + `[G/A]` once a formatter writes it `PR*GATHERING_COMMENTS*[G/A]`: emphasis
        with a word (or a bracket) right against it is not emphasis anyone meant. A star
        against an underscore (`ACHIEVE_*, PR_*`) is no underscore a formatter turned into
        a star but a wildcard its author wrote: kept as written, stars and all, so the
        names read are the ones written (and a wildcard is said not to read).
        """
        out: list[str] = []
        fragments: list[tuple[str, str]] = []
        segs = self.segments
        for i, seg in enumerate(segs):
            before = _glued_end(segs[i - 1]) if i > 0 else ""
            after = _glued_start(segs[i + 1]) if i + 1 < len(segs) else ""
            if seg.written:
                fragments.append((seg.written, seg.text))
            if seg.kind in ("emphasis", "strong") and _starred(before, seg.text, after):
                out.append(seg.markdown)
            elif seg.kind in ("emphasis", "strong") and (before or after):
                mark = "_" if seg.kind == "emphasis" else "__"
                star = "*" if seg.kind == "emphasis" else "**"
                fragments.append(
                    (
                        f"{before}{star}{seg.text}{star}{after}",
                        f"{before}{mark}{seg.text}{mark}{after}",
                    )
                )
                out.append(f"{mark}{seg.text}{mark}")
            elif markdown or (code and seg.kind in ("code", "wikilink")):
                out.append(seg.markdown)
            else:
                out.append(seg.text)
        return "".join(out).strip(), tuple(fragments)


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str


@dataclass(frozen=True)
class Paragraph:
    line: int
    lines: tuple[Inline, ...]


# A name written as Python writes a special one: `__start__`, `__init__`, `__end__`.


@cache
def line_break() -> re.Pattern[str]:
    """A table cell's line break, `<br>` (`<br/>`, `<BR />`)."""
    return re.compile(r"<br\s*/?>", re.IGNORECASE)


@cache
def _special() -> re.Pattern[str]:
    return re.compile(r"__[A-Za-z0-9](?:\w*[A-Za-z0-9])?__")


@dataclass(frozen=True)
class Cell:
    line: int
    source: str
    inline: Inline

    @property
    def plain(self) -> str:
        return self.special or self.inline.plain

    @property
    def special(self) -> str:
        """The cell's text where it is one name written as Python writes a special one
        (`__start__`, `__init__`), which markdown shows in bold (`start`); "" otherwise."""
        if "__" not in self.source:
            return ""
        text = self.source.strip()
        return text if _special().fullmatch(text) and self.inline.plain != text else ""

    @property
    def written(self) -> str:
        """The cell's text as written (`as_written`), emphasis a formatter glued into a
        name read back as the underscores it was."""
        return self.written_and_recovered[0]

    @property
    def written_and_recovered(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The cell's text as written, and each fragment read back from a formatter's
        emphasis as (written, read)."""
        if not has_markup(self.source):
            return self.source.strip(), ()  # plain text: as written, nothing to recover
        return recover_state_names(as_written(self.source), self.inline.recovered()[1])


@dataclass(frozen=True)
class TableRow:
    line: int
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Table:
    line: int
    header: TableRow
    rows: tuple[TableRow, ...]
    # Rows written with more or fewer cells than the header, as (line, cells written):
    # read as GitHub shows them, extra cells dropped and missing ones empty (`_ragged`).
    ragged: tuple[tuple[int, int], ...] = ()
    # Each such row's cells as written, every one, and the row's line (`_ragged`).
    written: tuple[tuple[int, tuple[str, ...]], ...] = ()
    sources: tuple[tuple[int, str], ...] = ()

    @property
    def end_line(self) -> int:
        return self.rows[-1].line if self.rows else self.header.line + 1


@dataclass(frozen=True)
class Code:
    line: int
    info: str
    text: str


@dataclass(frozen=True)
class BrokenTable:
    """Lines that start like a table but that mistune could not read as one."""

    line: int
    bad_line: int
    reason: str
    text: str


@dataclass(frozen=True)
class LooseRows:
    """Lines that look like table rows (`| a | b |`) but belong to no table: a blank
    line ended the table above them, or there never was a header. `after_text` says
    they ran on from a paragraph of text (no blank line between)."""

    line: int
    rows: tuple[TableRow, ...]
    after_text: bool = False


@dataclass(frozen=True)
class Item:
    line: int
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class ItemList:
    line: int
    ordered: bool
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Quote:
    """A block quote (`> ...`) and the blocks inside it; `alert` the kind of a GitHub
    alert (`> [!WARNING]`), "" for a plain quote."""

    line: int
    blocks: tuple[Block, ...]
    alert: str = ""


@dataclass(frozen=True)
class Html:
    """A block of raw HTML (a comment, a `<table>`), from `line` to `end_line`;
    `header` the cells of a `<table>`'s first row."""

    line: int
    end_line: int
    text: str
    header: tuple[str, ...] = ()

    @property
    def comment(self) -> bool:
        return self.text.lstrip().startswith("<!--")

    @property
    def details(self) -> tuple[str | None, ...]:
        """The `<details>` and `</details>` tags of the block, in the order written: None
        for a `</details>`, and for a `<details>` the text of its `<summary>` ("" for
        none): what GitHub shows of a folded block, as a heading would be shown. Each tag
        is found once, so a block of many unclosed tags is read in one pass."""
        tags: list[str | None] = []
        at = 0
        closing = True  # whether a `</summary>` is still ahead
        while (found := _DETAILS_TAG.search(self.text, at)) is not None:
            at = found.end()
            if found["end"]:
                if found["name"].lower() == "details":
                    tags.append(None)
            elif found["name"].lower() == "details":
                tags.append("")
            elif tags and tags[-1] == "" and closing:
                end = _SUMMARY_END.search(self.text, at)
                if end is None:
                    closing = False
                    continue
                said = _SUMMARY_MARKUP.sub("", self.text[at : end.start()])
                tags[-1] = " ".join(html.unescape(said).split())
                at = end.end()
        return tuple(tags)


@dataclass(frozen=True)
class FrontMatter:
    """The YAML front matter that opens a file (`---` ... `---`): `text` its lines between
    the two marks, the first of them on `line + 1`."""

    line: int
    end_line: int
    text: str


Block = (
    Heading | Paragraph | Table | Code | BrokenTable | LooseRows | ItemList | Quote | Html
) | FrontMatter


# ASCII punctuation: what a backslash escapes in markdown (CommonMark, "Backslash escapes").
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_BACKTICKS = re.compile(r"`+")


def as_written(source: str) -> str:
    """A cell's or line's text as its author wrote it: markdown's backslash escapes
    taken out (`\\*` is `*`, `\\_` is `_`, `\\|` is `|`), code spans kept whole with
    their backticks (in a table, `\\|` is a bar inside one too), and nothing else
    changed: `*` and `_` are never read as emphasis, so `sql/*.up.sql` and
    `src/__init__.py` are the names they look like."""
    if "\\" not in source and "`" not in source:
        return source  # no escape and no code span: the text is as it is
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char == "`":
            run = _BACKTICKS.match(source, i)
            assert run is not None
            ticks = run.group(0)
            end = next(
                (m.end() for m in _BACKTICKS.finditer(source, run.end()) if m.group(0) == ticks),
                None,
            )
            if end is None:  # no closing run of as many backticks: they are text
                out.append(ticks)
                i = run.end()
                continue
            out.append(source[i:end].replace("\\|", "|"))
            i = end
        elif char == "\\" and i + 1 < n and source[i + 1] in _ESCAPABLE:
            out.append(source[i + 1])
            i += 2
        else:
            out.append(char)
            i += 1
    return "".join(out)


# A state's name, as `Update state to NAME` names it: an identifier, maybe a family's.
_STATE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\[[^\]\s]*\])?")
# Where a cell's text names a state: after `state to` (`Update state to NAME`).
_NAMES_A_STATE = r"(?i:\bstate\s+to\s+)"


def recover_state_names(
    text: str, fragments: tuple[tuple[str, str], ...]
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """`text` (as written) with each state name a formatter glued emphasis into read back
    as the underscores it was (`Update state to PR*GATHERING_COMMENTS*[G/A]`), and the
    fragments so read. Only a whole state name where the text names a state is: a path,
    a glob, a quotation or a code span is read as written, stars and all."""
    found: list[tuple[str, str]] = []
    for written, read in fragments:
        if not _STATE_NAME.fullmatch(read):
            continue
        pattern = re.compile(f"(?P<lead>{_NAMES_A_STATE})" + re.escape(written) + r"(?![\w.*/`\-])")
        new = pattern.sub(lambda m, read=read: m["lead"] + read, text)  # type: ignore[misc]
        if new != text:
            text = new
            found.append((written, read))
    return text.strip(), tuple(found)


def normalize_newlines(text: str) -> str:
    """Line ends as mistune sees them; line numbers everywhere count these."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class _LocatedState(BlockState):
    """A block state whose tokens carry `line`: the source line they start on."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.first_line = 1
        self.next_child_line: int | None = None
        self.child_lines: list[int] = []
        self._newlines: list[int] | None = None

    def process(self, src: str) -> None:
        super().process(src)
        self._newlines = None

    def line_at(self, pos: int) -> int:
        return self.first_line + bisect.bisect_left(self.newlines(), pos)

    def newlines(self) -> list[int]:
        """Where each newline of the source is."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.src)]
        return self._newlines

    def source_line(self, index: int) -> str | None:
        """Line `index` (from 0) of the source, without its newline; None past the end."""
        newlines = self.newlines()
        if index > len(newlines):
            return None
        start = newlines[index - 1] + 1 if index else 0
        end = newlines[index] if index < len(newlines) else len(self.src)
        return self.src[start:end]

    def child_state(self, src: str, lazy_line_starts: set[int] | None = None) -> BlockState:
        child = super().child_state(src, lazy_line_starts)
        assert isinstance(child, _LocatedState)
        first = self.next_child_line
        if first is None:
            first = self.line_at(self.cursor)
        child.first_line = first
        self.child_lines.append(first)
        # A list item's lines are collected before its child state is made; when
        # another item follows, the cursor is already past that item's marker line.
        self.next_child_line = self.line_at(self.cursor) - 1
        return child

    def append_token(self, token: Token) -> None:
        token.setdefault("line", self.line_at(self.cursor))
        super().append_token(token)

    def add_paragraph(self, text: str) -> None:
        last = self.last_token()
        starts_new = not (last and last["type"] == "paragraph")
        super().add_paragraph(text)
        if starts_new:
            self.tokens[-1]["line"] = self.line_at(self.cursor)


_LIST_MARKER = re.compile(LIST_PATTERN, re.M)


class _LocatedBlockParser(BlockParser):
    state_cls = _LocatedState

    def parse_list(self, m: re.Match[str], state: BlockState) -> int:
        assert isinstance(state, _LocatedState)
        start = state.line_at(m.start())
        saved = (state.next_child_line, state.child_lines)
        state.next_child_line, state.child_lines = start, []
        count = len(state.tokens)
        try:
            end = super().parse_list(m, state)
            if len(state.tokens) > count and state.tokens[count]["type"] == "list":
                token = state.tokens[count]
                token["line"] = start
                # One child state per item; strict=False keeps parsing if that ever changes.
                for item, line in zip(token["children"], state.child_lines, strict=False):
                    item["line"] = line
                    _shift_if_marker_line_empty(item, state, line)
        finally:
            state.next_child_line, state.child_lines = saved
        return end

    def parse_block_quote(self, m: re.Match[str], state: BlockState) -> int:
        assert isinstance(state, _LocatedState)
        saved = (state.next_child_line, state.child_lines)
        start = state.line_at(m.start())
        state.next_child_line, state.child_lines = start, []
        count = len(state.tokens)
        try:
            end = super().parse_block_quote(m, state)
            if len(state.tokens) > count and state.tokens[count]["type"] == "block_quote":
                state.tokens[count]["line"] = start
            return end
        finally:
            state.next_child_line, state.child_lines = saved

    def parse_atx_heading(self, m: re.Match[str], state: BlockState) -> int:
        """An ATX heading (`## Title ##`), the token mistune makes, with its closing
        `#`s found in one pass: mistune's own expression for them is searched again
        from every space of the heading, minutes for a heading of 100,000 spaces."""
        text = _unclosed(m.group("atx_2").strip(string.whitespace))
        level = len(m.group("atx_1"))
        state.append_token(
            {"type": "heading", "text": text, "attrs": {"level": level}, "style": "atx"}
        )
        return m.end() + 1


def _unclosed(heading: str) -> str:
    """An ATX heading's text without its closing sequence: the last run of `#`s, when
    only white space follows it and white space or nothing comes before it, together
    with that white space (CommonMark 4.2; `str.isspace` is the `\\s` of `re`)."""
    end = len(heading.rstrip())
    start = len(heading[:end].rstrip("#"))
    if start == end:
        return heading
    if start == 0:
        return ""
    if not heading[start - 1].isspace():
        return heading
    return heading[:start].rstrip()


def _shift_if_marker_line_empty(item: Token, state: _LocatedState, line: int) -> None:
    """An item whose marker stands alone on its line starts its text one line later."""
    text = state.source_line(line - state.first_line)
    if text is None:
        return
    marker = _LIST_MARKER.match(text)
    if marker and not marker.group("list_3").strip():
        for child in item["children"]:
            _shift_lines(child, 1)


def _shift_lines(token: Token, delta: int) -> None:
    if "line" in token:
        token["line"] += delta
    for child in token.get("children", ()):
        if isinstance(child, dict) and child.get("type") not in _INLINE_TYPES:
            _shift_lines(child, delta)


_INLINE_TYPES = {
    "text",
    "codespan",
    "strong",
    "emphasis",
    "link",
    "image",
    "softbreak",
    "linebreak",
    "inline_html",
}


def _keep_source(md: mistune.Markdown, state: BlockState) -> None:
    """Before inline parsing replaces it, keep each block's raw markdown as `source`."""

    def walk(tokens: Iterable[Token]) -> None:
        for token in tokens:
            if "text" in token:
                token["source"] = token["text"]
            walk(token.get("children", ()))

    walk(state.tokens)


_PARSER: mistune.Markdown | None = None


def _parser() -> mistune.Markdown:
    global _PARSER
    if _PARSER is None:
        md = mistune.Markdown(renderer=None, block=_LocatedBlockParser(), plugins=[table_plugin])
        md.before_render_hooks.append(_keep_source)
        _PARSER = md
    return _PARSER


# Text with none of these is plain text to mistune's inline parser (no escape, code,
# emphasis, link, image, HTML, entity or line break can start without one of them). An
# underscore between two letters or digits (`GATHER_EDITING`) can neither open nor
# close emphasis.
_MARKUP = re.compile(r"[\\`*\[\]<>&!~\n]|  $|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def has_markup(text: str) -> bool:
    """Whether markdown's inline parser could read `text` as more than plain text."""
    return _MARKUP.search(text) is not None


class _RepeatedInline:
    """The inline parser, remembering its answer for text it has seen in this document,
    and answering plain text (most cells) itself: one text token, as mistune would.

    Specs repeat cells word for word (`-`, `No state change`, whole conditions and
    responses); the tokens are only read afterwards, so one list serves every copy.
    """

    def __init__(self, inline: Any) -> None:
        self.inline = inline
        self.seen: dict[str, list[Token]] = {}

    def __call__(self, text: str, env: Any) -> list[Token]:
        found = self.seen.get(text)
        if found is None:
            if _MARKUP.search(text) is None:
                found = [{"type": "text", "raw": text}]
            else:
                found = self.inline(text, env)
            self.seen[text] = found
        return found


# The blocks of the texts read last, kept while their texts add up to no more than
# KEPT characters: the blocks are immutable, so a text read twice in one run (a
# project's check that no two machines share a state file, then each machine's reading)
# is parsed once; a large spec is never kept, so what is kept stays small.
KEPT = 400_000
_kept: dict[str, tuple[Block, ...]] = {}


def read_blocks(text: str) -> tuple[Block, ...]:
    """Parse markdown into located blocks, in document order."""
    found = _kept.get(text)
    if found is None:
        found = _read_blocks(text)
        if len(text) <= KEPT // 4:
            _kept[text] = found
            while sum(map(len, _kept)) > KEPT:
                del _kept[next(iter(_kept))]  # the oldest first
    return found


def _read_blocks(text: str) -> tuple[Block, ...]:
    front = front_matter(text)
    if front is not None:
        # Its lines are blank to mistune, so a `---` under `key: value` is no heading
        # and every line below keeps its number.
        lines = text.split("\n")
        text = "\n" * front.end_line + "\n".join(lines[front.end_line :])
    md = _parser()
    inline = md.inline
    md.inline = _RepeatedInline(inline)  # type: ignore[assignment]
    try:
        tokens, _state = md.parse(text)
    finally:
        md.inline = inline
    assert isinstance(tokens, list)
    return ((front,) if front is not None else ()) + tuple(_blocks(tokens))


def front_matter(text: str) -> FrontMatter | None:
    """The front matter that opens `text`: a first line `---` with no blank line after
    it, up to the next line that is `---` or `...` (`spellbook.facts.frontmatter.fenced`,
    as GitHub and static site generators read it), whose text YAML reads as a mapping or
    cannot read (an error at its line); None where there is none, no line closes it, or
    YAML reads it as something else (a thematic break, a paragraph, another `---`)."""
    start = 1 if text.startswith("\ufeff") else 0
    eol = text.find("\n", start)
    if text[start : eol if eol >= 0 else len(text)].rstrip(" \t") != "---":
        return None  # no front matter: its reader is not even imported (nor the text copied)
    from spellbook.facts.frontmatter import NotAMapping, frontmatter
    from spellbook.facts.sections import fenced
    from spellbook.records.errors import ActionError

    lines = text.lstrip("\ufeff").split("\n")
    end = fenced(lines)
    if not end:
        return None
    front = FrontMatter(1, end + 1, "\n".join(lines[1:end]))
    try:
        frontmatter(f"---\n{front.text}\n---\n", "")
    except NotAMapping:
        return None
    except ActionError:
        pass  # YAML it cannot read: front matter all the same, its error said at its line
    return front


def _blocks(tokens: Iterable[Token]) -> Iterator[Block]:
    previous: Block | None = None
    for token in tokens:
        block = _block(token, previous)
        if block is None:
            continue
        if isinstance(block, Paragraph) and (rows := _rows_in_text(token, block)) is not None:
            # Rows typed right under a line of text join its paragraph: keep both.
            yield block
            block = rows
        previous = block
        yield block


def _block(token: Token, previous: Block | None) -> Block | None:
    kind = token["type"]
    line: int = token.get("line", 0)
    if kind == "heading":
        return Heading(line, token["attrs"]["level"], _inline(token["children"], line).plain)
    if kind in ("paragraph", "block_text"):
        broken = _broken_table(token, previous)
        if broken is not None:
            return broken
        return Paragraph(line, _inline_lines(token["children"], line, token.get("source", "")))
    if kind == "table":
        return _table(token, line)
    if kind == "list":
        items = tuple(
            Item(item.get("line", line), tuple(_blocks(item["children"])))
            for item in token["children"]
        )
        return ItemList(line, bool(token["attrs"].get("ordered")), items)
    if kind == "block_code":
        info = token.get("attrs", {}).get("info", "")
        return Code(line, info, token["raw"])
    if kind == "block_quote":
        blocks = tuple(_blocks(token["children"]))
        first = blocks[0] if blocks else None
        alert = _ALERT.match(first.lines[0].plain) if isinstance(first, Paragraph) else None
        return Quote(line, blocks, alert.group(1).upper() if alert else "")
    if kind == "block_html":
        raw: str = token.get("raw", "")
        end = line + raw.rstrip("\n").count("\n")
        return Html(line, end, raw, _html_header(raw))
    return None


# A GitHub alert's first line: `> [!NOTE]`, `> [!WARNING]`.
_ALERT = re.compile(r"\[!(note|tip|important|warning|caution)\]", re.IGNORECASE)
# An HTML table's rows and cells, opened and closed: `<tr ...>` ... `</tr>`.
_HTML_ROW = (re.compile(r"<tr\b", re.IGNORECASE), re.compile(r"</tr\s*>", re.IGNORECASE))
_HTML_CELL = (re.compile(r"<t[hd]\b", re.IGNORECASE), re.compile(r"</t[hd]\s*>", re.IGNORECASE))
# A `<details>` or `<summary>` tag, opening or closing; a tag is what runs to the next
# `>` before any other `<`, so no search scans past the next tag.
_DETAILS_TAG = re.compile(r"<(?P<end>/?)(?P<name>details|summary)\b[^<>]*>", re.IGNORECASE)
_SUMMARY_END = re.compile(r"</summary\s*>", re.IGNORECASE)
_SUMMARY_MARKUP = re.compile(r"<[^<>]*>")


# The text inside an element, and where its closing tag ends.
_Inside = tuple[str, int]


def _html_header(raw: str) -> tuple[str, ...]:
    """The cells of the first row of an HTML `<table>`, as text; () for other HTML."""
    if not re.search(r"<table\b", raw, re.IGNORECASE):
        return ()
    row = _element(raw, _HTML_ROW, 0)
    if row is None:
        return ()
    cells = []
    cell = _element(row[0], _HTML_CELL, 0)
    while cell is not None:
        cells.append(" ".join(html.unescape(_untagged(cell[0])).split()))
        cell = _element(row[0], _HTML_CELL, cell[1])
    return tuple(cells)


def _element(raw: str, tags: tuple[re.Pattern[str], re.Pattern[str]], at: int) -> _Inside | None:
    """What is inside the first element from `at` that is closed (`<tr ...>` to the first
    `</tr>` after it), and where its closing tag ends; None if none is. One pass: when
    the first opening tag has no `>` or no closing tag after it, no later one has."""
    opening, closing = tags
    start = opening.search(raw, at)
    if start is None:
        return None
    inside = raw.find(">", start.end())
    end = closing.search(raw, inside + 1) if inside >= 0 else None
    if end is None:
        return None
    return raw[inside + 1 : end.start()], end.end()


def _untagged(text: str) -> str:
    """The text without its tags, each from a `<` to the next `>`, in one pass (a `<`
    with no `>` after it, and what follows it, is kept as written)."""
    kept = []
    at = 0
    while (start := text.find("<", at)) >= 0 and (end := text.find(">", start)) >= 0:
        kept.append(text[at:start])
        at = end + 1
    kept.append(text[at:])
    return "".join(kept)


def _table(token: Token, line: int) -> Table:
    head, body = token["children"]
    header = TableRow(line, tuple(_cell(c, line) for c in head["children"]))
    rows = tuple(
        TableRow(line + 2 + i, tuple(_cell(c, line + 2 + i) for c in row["children"]))
        for i, row in enumerate(body["children"])
    )
    if len(header.cells) > 1 and all(not r.cells or not r.cells[0].source for r in (header, *rows)):
        # `| From | Event | To` over `|---|---|---`, bars at the start of each line and not
        # at the end: mistune reads a first column of nothing, GitHub the bar as the
        # table's edge (GFM: the bars at either end are optional). So is it read here.
        header = TableRow(line, header.cells[1:])
        rows = tuple(TableRow(r.line, r.cells[1:]) for r in rows)
    return Table(line, header, rows)


def _cell(token: Token, line: int) -> Cell:
    return Cell(line, token.get("source", "").strip(), _cell_inline(token["children"], line))


def _cell_inline(children: list[Token], line: int) -> Inline:
    """A table cell's text: in a cell, `\\|` is a bar even inside a code span (GFM)."""
    inline = _inline(children, line)
    if not any(s.kind == "code" and "\\|" in s.text for s in inline.segments):
        return inline
    return Inline(
        line,
        tuple(
            Segment(s.kind, s.text.replace("\\|", "|"), s.target) if s.kind == "code" else s
            for s in inline.segments
        ),
    )


def _inline_lines(children: list[Token], line: int, source: str = "") -> tuple[Inline, ...]:
    lines: list[Inline] = []
    current: list[Token] = []
    for child in children:
        if child["type"] in ("softbreak", "linebreak"):
            lines.append(_inline(current, line + len(lines)))
            current = []
        else:
            current.append(child)
    lines.append(_inline(current, line + len(lines)))
    written = source.rstrip("\n").split("\n")
    if len(written) != len(lines):  # each line's text as written only where they pair up
        return tuple(lines)
    return tuple(Inline(i.line, i.segments, w) for i, w in zip(lines, written, strict=True))


def _inline(children: list[Token], line: int) -> Inline:
    segments: list[Segment] = []
    for child in children:
        _flatten(child, segments)
    return Inline(line, _merge(segments))


def _flatten(token: Token, out: list[Segment]) -> None:
    kind = token["type"]
    if kind in ("text", "inline_html"):
        out.append(Segment("text", token["raw"]))
    elif kind == "codespan":
        out.append(Segment("code", token["raw"]))
    elif kind in ("softbreak", "linebreak"):
        out.append(Segment("text", " "))
    elif kind in ("strong", "emphasis"):
        out.append(_emphasis(kind, token))
    elif kind == "link":
        out.append(Segment("link", _text_of(token), token.get("attrs", {}).get("url", "")))
    elif "children" in token:
        for child in token["children"]:
            _flatten(child, out)
    elif "raw" in token:
        out.append(Segment("text", token["raw"]))


def _emphasis(kind: str, token: Token) -> Segment:
    """Strong or emphasis text; emphasis a formatter glued into a name inside it is read
    back as the underscores it was, and the text as written kept (`Segment.written`)."""
    parts: list[Segment] = []
    for child in token.get("children", ()):
        _flatten(child, parts)
    inner = Inline(0, _merge(parts))
    read, fragments = inner.recovered()
    if not fragments:
        return Segment(kind, "".join(p.text for p in parts))
    return Segment(kind, read, written="".join(p.markdown for p in inner.segments).strip())


def _text_of(token: Token) -> str:
    parts: list[Segment] = []
    for child in token.get("children", ()):
        _flatten(child, parts)
    return "".join(p.text for p in parts)


def _merge(segments: list[Segment]) -> tuple[Segment, ...]:
    merged: list[Segment] = []
    for seg in segments:
        if merged and seg.kind == "text" and merged[-1].kind == "text":
            merged[-1] = Segment("text", merged[-1].text + seg.text)
        else:
            merged.append(seg)
    if not any(s.kind == "text" and "[[" in s.text for s in merged):
        return tuple(merged)
    return tuple(w for s in merged for w in (_wikilinks(s.text) if s.kind == "text" else (s,)))


# A wikilink as Obsidian, Foam and wikis write one: `[[Rejected]]`, `[[Rejected|Rejected
# candidate]]` (`\|` in a table cell), or `[[Rejected#Heading]]`.
_WIKILINK = re.compile(
    r"\[\[(?P<target>[^\[\]|#\n]*[^\[\]|#\s][^\[\]|#\n]*)(?:#[^\[\]|\n]*)?(?:\\?\|[^\[\]\n]*)?\]\]"
)


def _wikilinks(text: str) -> tuple[Segment, ...]:
    """Text with its wikilinks read as their targets (a `wikilink` segment, the link as
    written its `target`), as a `[link](#target)` reads as its text: the page a
    `[[Rejected|Rejected candidate]]` names is the state `Rejected`."""
    out: list[Segment] = []
    at = 0
    for found in _WIKILINK.finditer(text):
        if found.start() > at:
            out.append(Segment("text", text[at : found.start()]))
        out.append(Segment("wikilink", found.group("target").strip(), found.group()))
        at = found.end()
    if at < len(text):
        out.append(Segment("text", text[at:]))
    return tuple(out)


_PIPE_ROW = re.compile(r"^ {0,3}\|")


@cache
def _family_pipe() -> re.Pattern[str]:
    return re.compile(r"\w_?\[[^\]|/]*\|[^\]]*\]")


def _is_delimiter(line: str) -> bool:
    return "-" in line and not set(line.strip()) - set("|-: \t")


def _broken_table(token: Token, previous: Block | None) -> Block | None:
    """Say why lines that look like table rows did not become (part of) a table."""
    source: str = token.get("source", "")
    line: int = token.get("line", 0)
    lines = source.split("\n")
    if isinstance(previous, Table) and line == previous.end_line + 1:
        return BrokenTable(line, line, _not_a_row(lines[0]), lines[0])
    mixed = _mixed_ends(lines, line)
    if mixed is not None:
        return mixed
    if not _PIPE_ROW.match(lines[0]):
        return _pipeless_header(lines, line)
    if len(lines) < 2 or not _is_delimiter(lines[1]):
        rows = [(i, row) for i, row in enumerate(lines) if row.strip()]
        if all(_PIPE_ROW.match(row) for _, row in rows):
            return LooseRows(line, tuple(_loose_row(row, line + i) for i, row in rows))
        return None
    if not _is_table("\n".join(lines[:2])):
        reason = "table header and delimiter row do not have the same cells"
        return BrokenTable(line, line + 1, _pipe_hint(reason, lines[0]), lines[0])
    columns = _column_count("\n".join(lines[:2]))
    ragged = _ragged(lines, line, columns)
    if ragged is not None:
        return ragged
    for offset, row in enumerate(lines[2:], start=2):
        if row.strip() and not _is_table("\n".join([*lines[:2], row])):
            reason = f"row does not have the {columns} cells of the table header"
            return BrokenTable(line, line + offset, _pipe_hint(reason, row), lines[0])
    return BrokenTable(
        line, line, "lines that look like a table could not be read as one", lines[0]
    )


def _pipeless_header(lines: list[str], line: int) -> BrokenTable | None:
    """A header and delimiter row written without a leading '|' over rows written with
    one: GitHub shows a table, the reading here a paragraph of text."""
    if len(lines) < 3 or "|" not in lines[0] or not _is_delimiter(lines[1]):
        return None
    if not any(_PIPE_ROW.match(row) for row in lines[2:]):
        return None
    reason = (
        "GitHub shows these lines as a table, but they are read as text: the header and "
        "delimiter rows do not start with '|' where the rows below do; start and end "
        f"every line of the table with '|', `| {' | '.join(split_cells(lines[0]))} |`"
    )
    return BrokenTable(line, line, reason, lines[0])


def _mixed_ends(lines: list[str], line: int) -> BrokenTable | None:
    """Lines of a table (each starting with `|`, a delimiter row second) of which some
    end with `|` and some do not: GitHub shows them as one table; mistune, read here,
    does not. The reason, at the first line that ends otherwise than the header."""
    rows = [row.rstrip() for row in lines if row.strip()]
    if len(rows) < 2 or not all(_PIPE_ROW.match(r) for r in rows) or not _is_delimiter(rows[1]):
        return None
    ends = [r.endswith("|") and not r.endswith("\\|") for r in rows]
    if all(ends) or not any(ends):
        return None
    at = next(i for i, end in enumerate(ends) if end != ends[0])
    return BrokenTable(
        line,
        line + at,
        "the lines of this table do not all end with '|' (GitHub shows it as a table all "
        "the same, this reading does not): end every line of it with '|', or none",
        lines[0],
    )


def _not_a_row(text: str) -> str:
    """Why a line right under a table is not one of its rows, and the fix."""
    if _PIPE_ROW.match(text) and not text.rstrip().endswith("|"):
        return (
            "line is not read as a row of the table above: it does not end with '|', as "
            "the table's lines do (GitHub shows it as a row all the same); end it with '|'"
        )
    reason = "line is not a table row (rows start and end with '|')"
    cells = split_cells(text)
    if len(cells) > 1:
        return f"{reason}; write it `| {' | '.join(cells)} |`"
    return (
        f"{reason}: GitHub shows text right under a table as one more row of it; put a "
        "blank line between the table and the text"
    )


def _ragged(lines: list[str], line: int, width: int) -> Table | None:
    """A table whose rows have more or fewer cells than its header, read as GitHub
    renders it (GFM: the excess ignored, missing cells empty), each such row kept in
    `Table.ragged`. None where a line is not a `|` row, or where a bar inside
    `NAME_[G|A]` is what split a cell (an error that names the fix)."""
    body = [(offset, row) for offset, row in enumerate(lines[2:], start=2) if row.strip()]
    if not width or not body or any(not _PIPE_ROW.match(row) for _, row in body):
        return None
    if any(_family_pipe().search(row) for _, row in body):
        return None
    header = _loose_row(lines[0], line)
    if len(header.cells) != width:
        return None
    rows: list[TableRow] = []
    ragged: list[tuple[int, int]] = []
    written: list[tuple[int, tuple[str, ...]]] = []
    sources: list[tuple[int, str]] = []
    for offset, text in body:
        read = _loose_row(text, line + offset)
        cells = split_cells(text)
        if len(cells) != width:
            ragged.append((read.line, len(cells)))
            written.append((read.line, tuple(c.strip() for c in cells)))
            sources.append((read.line, text))
        empty = tuple(Cell(read.line, "", Inline(read.line, ())) for _ in range(width))
        rows.append(TableRow(read.line, (*read.cells, *empty)[:width]))
    if not ragged:
        return None
    return Table(line, header, tuple(rows), tuple(ragged), tuple(written), tuple(sources))


def _rows_in_text(token: Token, paragraph: Paragraph) -> LooseRows | None:
    """The `| ... |` lines of a paragraph that starts with text, as loose rows."""
    lines = token.get("source", "").split("\n")
    rows = [
        (i, row)
        for i, row in enumerate(lines)
        if i and _PIPE_ROW.match(row) and row.rstrip().endswith("|")
    ]
    if not rows:
        return None
    first = paragraph.line
    return LooseRows(
        first + rows[0][0], tuple(_loose_row(r, first + i) for i, r in rows), after_text=True
    )


def _pipe_hint(reason: str, row: str) -> str:
    """The reason, with the fix when a `|` inside `NAME_[G|A]` is what split a cell."""
    pipe = _family_pipe().search(row)
    if not pipe:
        return reason
    return (
        f"{reason}: the '|' in {pipe.group(0)!r} splits its cell in two (a table cell "
        f"ends at every '|'); write the suffixes with a slash, "
        f"{pipe.group(0).replace('|', '/')!r}, or escape the bar as '\\|'"
    )


def split_cells(row: str) -> list[str]:
    """A table row's cells as written, split at every '|' that is not escaped."""
    text = row.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    cells: list[str] = []
    current: list[str] = []
    escaped = False
    for char in text:
        if char == "|" and not escaped:
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        escaped = char == "\\" and not escaped
    cells.append("".join(current).strip())
    return cells


def _loose_row(text: str, line: int) -> TableRow:
    """One `| a | b |` line read as a row of a table of its own."""
    cells = split_cells(text)
    header = "|" + " c |" * len(cells) + "\n|" + "---|" * len(cells) + "\n"
    tokens = [t for t in _probe(header + text) if t["type"] == "table"]
    if not tokens or not tokens[0]["children"][1]["children"]:
        return TableRow(
            line, tuple(Cell(line, c, Inline(line, (Segment("text", c),))) for c in cells)
        )
    found = tokens[0]["children"][1]["children"][0]["children"]
    return TableRow(
        line,
        tuple(
            Cell(line, written, _cell_inline(cell["children"], line))
            for written, cell in zip(cells, found, strict=False)
        ),
    )


_PROBE: mistune.Markdown | None = None


def _probe(text: str) -> list[Token]:
    global _PROBE
    if _PROBE is None:
        _PROBE = mistune.create_markdown(renderer=None, plugins=["table"])
    tokens = _PROBE(text + "\n")
    assert isinstance(tokens, list)
    return tokens


def _is_table(text: str) -> bool:
    tokens = [t for t in _probe(text) if t["type"] != "blank_line"]
    return len(tokens) == 1 and tokens[0]["type"] == "table"


def _column_count(text: str) -> int:
    for token in _probe(text):
        if token["type"] == "table":
            return len(token["children"][0]["children"])
    return 0


# Text GitHub may show struck out: `~~a~~`, `~a~`, `<del>a</del>`, `<s>`, `<strike>`.
_MAY_STRIKE = re.compile(r"~|<(?:del|s|strike)\b", re.IGNORECASE)
_STRIKE_OPEN = re.compile(r"<(del|s|strike)\b[^<>]*>", re.IGNORECASE)
_STRIKE_CLOSE = re.compile(r"</(del|s|strike)\s*>", re.IGNORECASE)
_STRIKE: mistune.Markdown | None = None


def _one_tilde(text: str) -> str:
    """`~text~` as GitHub strikes it: a single tilde that can open (left-flanking, in
    CommonMark's terms: `~5 min`) up to the next single tilde that can close
    (right-flanking: `min~`); "" where none does. `(~5 min) or later (~1 h)` strikes
    nothing: a tilde after `(` and before a letter cannot close."""
    opened = -1
    for at, char in enumerate(text):
        before, after = text[at - 1 : at], text[at + 1 : at + 2]
        if char != "~" or before in ("~", "\\") or after == "~":
            continue
        if opened >= 0 and _flanking(after or " ", before or " "):
            return text[opened : at + 1]
        if opened < 0 and _flanking(before or " ", after or " "):
            opened = at
    return ""


def _flanking(before: str, after: str) -> bool:
    """Whether a delimiter between `before` and `after` is left-flanking (with the two
    swapped: right-flanking), as CommonMark defines it."""
    if after.isspace():
        return False
    return not _punctuation(after) or before.isspace() or _punctuation(before)


def _punctuation(char: str) -> bool:
    return char in _ESCAPABLE or unicodedata.category(char)[0] in "PS"


def struck(source: str) -> str:
    """The part of `source` (a cell as written) that GitHub shows crossed out:
    `~~text~~`, `~text~`, or text in `<del>`, `<s>` or `<strike>`; "" where none is.
    A code span is text as it is (`` `~~a~~` `` shows its tildes)."""
    if not _MAY_STRIKE.search(source):
        return ""
    global _STRIKE
    if _STRIKE is None:
        _STRIKE = mistune.create_markdown(renderer=None, plugins=["strikethrough"])
    tokens = _STRIKE(source)
    assert isinstance(tokens, list)
    return _struck_in(tokens, source)


def _strike_tag(source: str) -> str:
    """The first `<del>`, `<s>` or `<strike>` of `source` with the text up to its closing
    tag, "" for none. Each closing tag is found once, so many unclosed tags are read in
    one pass."""
    closing: dict[str, list[tuple[int, int]]] = {}
    for tag in _STRIKE_CLOSE.finditer(source):
        closing.setdefault(tag.group(1).lower(), []).append((tag.start(), tag.end()))
    for tag in _STRIKE_OPEN.finditer(source):
        ends = closing.get(tag.group(1).lower(), [])
        after = bisect.bisect_left(ends, (tag.end(), 0))
        if after < len(ends):
            return source[tag.start() : ends[after][1]]
    return ""


def _struck_in(tokens: list[Token], source: str) -> str:
    for token in tokens:
        kind = token.get("type")
        if kind == "strikethrough":
            return f"~~{_text_of(token)}~~"
        if kind == "inline_html" and re.match(r"<(del|s|strike)\b", token["raw"], re.I):
            return _strike_tag(source) or token["raw"]
        if kind == "text" and (one := _one_tilde(token.get("raw", ""))):
            return one
        found = _struck_in(token.get("children", []), source)
        if found:
            return found
    return ""
