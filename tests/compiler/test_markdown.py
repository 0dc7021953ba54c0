"""Line numbers recovered from mistune's AST: tables, list items, nested items, odd numbering."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from codegen import load_spec
from codegen.read.markdown import BrokenTable, ItemList, Paragraph, Table, read_blocks

SEED = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "seed_spec.md"


def test_table_rows_carry_their_own_lines() -> None:
    text = "# T\n\nintro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"
    (table,) = [b for b in read_blocks(text) if isinstance(b, Table)]
    assert table.line == 5
    assert [r.line for r in table.rows] == [7, 8]
    assert [r.cells[0].plain for r in table.rows] == ["1", "3"]


def test_list_items_and_nested_items_carry_their_lines() -> None:
    text = (
        "1. **ONE**\n"  # 1
        "   - *Description*: first\n"  # 2
        "\n"  # 3
        "   - *Indicators*: x\n"  # 4
        "2. **TWO**\n"  # 5
        "\n"  # 6
        "\n"  # 7
        "3. **THREE**\n"  # 8
        "   - *Description*: third\n"  # 9
    )
    (lst,) = [b for b in read_blocks(text) if isinstance(b, ItemList)]
    assert [item.line for item in lst.items] == [1, 5, 8]
    nested = next(b for b in lst.items[0].blocks if isinstance(b, ItemList))
    assert [i.line for i in nested.items] == [2, 4]
    third = next(b for b in lst.items[2].blocks if isinstance(b, ItemList))
    assert third.items[0].line == 9


def test_item_whose_marker_stands_alone_starts_on_the_next_line() -> None:
    text = "intro\n\n-\n  **LATER**\n- **NEXT**\n"
    (lst,) = [b for b in read_blocks(text) if isinstance(b, ItemList)]
    first = lst.items[0].blocks[0]
    assert isinstance(first, Paragraph)
    assert first.lines[0].line == 4
    assert lst.items[1].line == 5


def test_block_quote_that_interrupts_a_list_does_not_shift_its_items() -> None:
    text = "1. **ONE**\n2. **TWO**\n   text\n> quote\n\n- **THREE**\n- **FOUR**\n"
    first, second = [b for b in read_blocks(text) if isinstance(b, ItemList)]
    assert [i.line for i in first.items] == [1, 2]
    assert [i.line for i in second.items] == [6, 7]
    two = first.items[1].blocks[0]
    assert isinstance(two, Paragraph)
    assert [ln.line for ln in two.lines] == [2, 3]


def test_crlf_line_ends_count_like_lf() -> None:
    text = "# T\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n"
    (table,) = [b for b in read_blocks(text) if isinstance(b, Table)]
    assert table.rows[0].line == 5


def test_row_with_wrong_cell_count_is_read_as_github_renders_it() -> None:
    """GFM: a missing cell is empty, an extra one is dropped; each such row is kept
    with its line and the cells it has, for the reader to warn of."""
    text = "## X\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |\n| 5 | 6 | 7 |\n"
    assert not [b for b in read_blocks(text) if isinstance(b, BrokenTable)]
    (table,) = [b for b in read_blocks(text) if isinstance(b, Table)]
    assert [[c.plain for c in r.cells] for r in table.rows] == [["1", "2"], ["3", ""], ["5", "6"]]
    assert [r.line for r in table.rows] == [5, 6, 7]
    assert table.ragged == ((6, 1), (7, 3))


def test_a_bar_inside_a_family_still_refuses_the_row() -> None:
    text = "| a | b |\n|---|---|\n| X_[G|A] | 2 |\n"
    (broken,) = [b for b in read_blocks(text) if isinstance(b, BrokenTable)]
    assert broken.bad_line == 3
    assert "X_[G/A]" in broken.reason


def test_seed_lines_match_the_source() -> None:
    """Every rule row and state of the seed points at the line that defines it."""
    spec = load_spec(SEED)
    source = SEED.read_text(encoding="utf-8").split("\n")
    for r in spec.rows:
        assert source[r.line - 1].startswith(f"| {r.id} |"), (r.id, r.line)
    for st in spec.states:
        assert f"**{st.name}**" in source[st.line - 1], (st.name, st.line)
        for action in st.valid_actions:
            assert "*Valid Actions*" in source[action.line - 1]
    for sp in spec.spells:
        assert f"**{sp.name}**" in source[sp.line - 1]


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("GATHER_NEEDS_PLAN", 60),
        ("PR_CONFIRM_RESTART_TASK_A", 130),
        ("ERROR_TASK_MISSING", 135),  # numbered 11 again after 15
        ("ERROR_COMMENTS_MISSING_A", 155),  # numbered 14a: a paragraph, not a list item
        ("ERROR_REVIEW_TASK_MISSING_A", 165),
        ("ERROR_REVIEW_TASK_RESULTS_MISSING_A", 175),
    ],
)
def test_seed_states_with_odd_numbering(name: str, line: int) -> None:
    spec = load_spec(SEED)
    state = spec.state(name)
    assert state.line == line
    assert state.description
    assert state.valid_actions


def test_seed_rule_lines() -> None:
    spec = load_spec(SEED)
    lines = {r.id: r.line for r in spec.rows}
    assert lines["G1"] == 199
    assert lines["ER7"] == 301
    assert lines["E2"] == 348


@given(hs.text(hs.sampled_from("aZ9 _*`[]<>&!~\\.,:-#|\n\té"), max_size=40))
def test_text_read_as_plain_without_mistune_is_what_mistune_reads(text: str) -> None:
    """The inline parser's shortcut: text with no markup is one text token, as mistune says."""
    from codegen.read.markdown import _MARKUP, _parser

    if _MARKUP.search(text) is None:
        tokens = _parser().inline(text, _parser().block.state_cls())
        assert tokens == [{"type": "text", "raw": text}]


def test_a_bold_name_with_a_space_is_told_what_a_name_may_hold() -> None:
    from codegen import parse_spec_text
    from codegen.spec_error import SpecError
    from tests.support.specs import fill, spec_text

    text = spec_text(["A", "B"], ["Go"], fill(["A", "B"], ["Go"])).replace(
        "1. **Go**", "1. **Report Lost**"
    )
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    said = str(raised.value)
    assert "'Report Lost' is not an identifier" in said
    assert "write it in bold" not in said  # it is in bold already
    assert "**ReportLost** or **Report_Lost**" in said


def test_a_tenth_item_s_lines_indented_as_the_ninth_s_are_told_how_far_to_indent() -> None:
    """Under `10. **S10**`, `   - *Description*: ...` (3 spaces, as under `9.`) is an
    item of the list to markdown: it was told to write its name in bold, which it is."""
    from codegen import parse_spec_text
    from codegen.spec_error import SpecError

    items = "\n".join(f"{i}. **S{i}**\n   - *Description*: spell {i}" for i in range(1, 11))
    text = (
        f"# M\n\n## Spells\n\n{items}\n\n## States\n\n1. **A**\n\n## Transitions\n\n"
        "| ID | State | Spell | Condition | Next | Actions | Response |\n"
        "|---|---|---|---|---|---|---|\n| R1 | A | S1 | - | Same state | - | ok |\n"
    )
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    said = str(raised.value)
    assert "write it in bold" not in said, said
    assert "4 spaces under `10. `" in said, said


SPREAD = """\
## Machine

### Spells

1. **Go**
   - *Description*: go on to the next step, whatever the files say, and tell
     the developer where it went

### States

1. **A**
    - *Description*: the first state
    - *Indicators*: a.md exists AND
      b.md exists
    - *Valid Actions*: Go,
      Stop
2. **B**
    - *Description*: the last state, where no spell does anything
    - *Indicators*: c.md exists
    - *Valid Actions*: none
    - *Goal*: yes
3. **C**
    - *Description*: another state
      *Goal*: yes
    - *Valid Actions*: -

### Transition Rules

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| R1 | A | Go | - | B | - | Gone. |
"""


def test_a_field_written_over_several_lines_is_read_whole() -> None:
    """A field's value that goes on to the next line, as markdown lets a list item's text
    go on, is one value: never its first line alone (Indicators cut at `AND`, a Valid
    Actions list cut at its comma)."""
    from codegen import parse_spec_text

    spec = parse_spec_text(SPREAD)
    (go,) = spec.spells
    assert go.description == (
        "go on to the next step, whatever the files say, and tell the developer where it went"
    )
    a, _, c = spec.states
    assert a.indicators == "a.md exists AND b.md exists"
    assert [(fact.atom.file, fact.positive) for fact in a.evidence] == [
        ("a.md", True),
        ("b.md", True),
    ]
    assert [action.spell for action in a.valid_actions] == ["Go", "Stop"]
    # A field's key on a line of its own is a field, not the value before it.
    assert (c.description, c.goal) == ("another state", True)
    # A line going on with words in emphasis is the value's, not a field of its own:
    # `*nothing* is paid yet` was dropped, and Indicators lost their second fact.
    emphasised = SPREAD.replace("      b.md exists", "      **b.md exists**").replace(
        "     the developer where it went", "     *the developer* where it went"
    )
    spec = parse_spec_text(emphasised)
    assert spec.spells[0].description.endswith("and tell *the developer* where it went")
    a = spec.states[0]
    assert a.indicators == "a.md exists AND **b.md exists**"
    # A field's key the reader knows starts a field with no colon too, as on a line
    # of its own (`*Goal* yes`).
    keyed = parse_spec_text(SPREAD.replace("      *Goal*: yes", "      *Goal* yes"))
    assert (keyed.states[2].description, keyed.states[2].goal) == ("another state", True)


def test_valid_actions_of_none_or_a_dash_list_no_spell() -> None:
    from codegen import parse_spec_text

    _, b, c = parse_spec_text(SPREAD).states
    assert b.valid_actions == () and c.valid_actions == ()


def test_a_text_read_twice_is_parsed_once_and_a_large_one_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A project's check that no two machines share a state file reads each spec before
    its machine is read: the second reading takes the first's blocks (immutable). What
    is kept stays small: a text over a quarter of `KEPT` is parsed each time."""
    from codegen.read import markdown

    parsed: list[int] = []
    real = markdown._read_blocks
    monkeypatch.setattr(markdown, "_read_blocks", lambda t: parsed.append(len(t)) or real(t))
    monkeypatch.setattr(markdown, "_kept", {})
    small = "# Spec\n\n| A | B |\n|---|---|\n| 1 | 2 |\n"
    assert markdown.read_blocks(small) == markdown.read_blocks(small)
    assert len(parsed) == 1
    large = small + "x" * (markdown.KEPT // 4)
    markdown.read_blocks(large)
    markdown.read_blocks(large)
    assert len(parsed) == 3 and large not in markdown._kept


def test_block_quotes_alerts_and_html_tables_carry_their_lines() -> None:
    from codegen.read.markdown import Html, Quote

    text = (
        "# T\n\n> [!NOTE]\n> a\n>\n> | a | b |\n> |---|---|\n> | 1 | 2 |\n\n"
        "<table><tr><th>From</th><th>To</th></tr></table>\n"
    )
    quote = next(b for b in read_blocks(text) if isinstance(b, Quote))
    assert (quote.line, quote.alert) == (3, "NOTE")
    assert [b.line for b in quote.blocks] == [3, 6]
    html = next(b for b in read_blocks(text) if isinstance(b, Html))
    assert (html.line, html.header) == (10, ("From", "To"))


def _header_by_regex(raw: str) -> tuple[str, ...]:
    """An HTML table's first row as the regular expressions of its definition read it."""
    import html as html_module
    import re

    if not re.search(r"<table\b", raw, re.I):
        return ()
    row = re.search(r"<tr\b[^>]*>(.*?)</tr\s*>", raw, re.I | re.S)
    if row is None:
        return ()
    cells = re.findall(r"<t[hd]\b[^>]*>(.*?)</t[hd]\s*>", row.group(1), re.I | re.S)
    return tuple(" ".join(html_module.unescape(re.sub("<[^>]*>", "", c)).split()) for c in cells)


@given(
    hs.lists(
        hs.sampled_from(
            [
                "<table>",
                "<tr>",
                "<tr",
                "</tr>",
                "</TR >",
                "<th>",
                "<td x='>'>",
                "<td",
                "</td>",
                "</th>",
                "<b>",
                "<",
                ">",
                "a",
                " ",
                "&amp;",
                "\n",
            ]
        ),
        max_size=24,
    )
)
def test_an_html_table_s_header_is_what_its_regular_expressions_read(parts: list[str]) -> None:
    from codegen.read.markdown import _html_header

    raw = "<table>" + "".join(parts)
    assert _html_header(raw) == _header_by_regex(raw)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "html",
    [
        "<table><tr><td>" + "<tr>" * 250_000,  # rows never closed
        "<table>" + "<tr" * 330_000,  # row tags never ended
        "<table><tr>" + "<td>" * 250_000 + "</tr>",  # cells never closed
        "<table><tr><td>" + "<" * 1_000_000 + "</td></tr>",  # tags never ended in a cell
    ],
)
def test_an_html_table_never_closed_is_read_in_one_pass(html: str) -> None:
    """1 MB each, half the size a spec may have: searched again from every opening tag,
    these took minutes (a 400 KB spec 117 s); read in one pass, well under a second."""
    from codegen.read.markdown import Html

    blocks = read_blocks("# T\n\n" + html + "\n")
    assert any(isinstance(b, Html) for b in blocks)


@given(hs.text(alphabet="# \t\u00a0\u2003a\\", max_size=16))
def test_a_heading_s_closing_hashes_are_taken_off_as_mistune_takes_them_off(text: str) -> None:
    from mistune.block_parser import _ATX_HEADING_TRIM

    from codegen.read.markdown import _unclosed

    assert _unclosed(text) == _ATX_HEADING_TRIM.sub("", text)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("space", [" ", "\u00a0", "\t"])
def test_a_heading_of_half_a_million_spaces_is_read_in_one_pass(space: str) -> None:
    """Searched again from every space by mistune's own expression, a heading of 100,000
    non-breaking spaces took over a minute (a spec may have 2 MB)."""
    from codegen.read.markdown import Heading

    blocks = read_blocks("# T\n\n## a" + space * 500_000 + "b #\n")
    assert [b.text.split() for b in blocks if isinstance(b, Heading)] == [["T"], ["a", "b"]]


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("~~approve~~", "~~approve~~"),
        ("a ~~b c~~ d", "~~b c~~"),
        ("~approve~", "~approve~"),
        ("<del>x</del> y", "<del>x</del>"),
        ("`~~x~~`", ""),
        ("Copy ~/a to ~/b", ""),
        ("approve", ""),
        ("retry in (~5 min) or later (~1 h)", ""),  # `(~1` cannot close: not struck
        ("~ a ~", ""),
        ("x~y~z", "~y~"),
    ],
)
def test_struck_finds_what_github_shows_crossed_out(source: str, shown: str) -> None:
    from codegen.read.markdown import struck

    assert struck(source) == shown


@pytest.mark.timeout(30)
def test_struck_reads_many_unclosed_strike_tags_at_once() -> None:
    from codegen.read.markdown import struck

    assert struck("<s>" * 60_000) == "<s>"
    assert struck("<s>" * 60_000 + "a</S>") == "<s>" * 60_000 + "a</S>"


def test_a_bold_name_in_another_script_is_offered_in_latin_letters() -> None:
    from codegen import parse_spec_text
    from codegen.spec_error import SpecError
    from tests.support.specs import fill, spec_text

    text = spec_text(["A", "B"], ["Go"], fill(["A", "B"], ["Go"])).replace(
        "1. **Go**", "1. **Отправить**"
    )
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    said = str(raised.value)
    # It offered the name itself, "e.g. **Отправить** or **Отправить**".
    assert "a name is ASCII letters" in said and "e.g. **Otpravit**;" not in said
    assert "e.g. **Otpravit**)" in said, said


@pytest.mark.parametrize(
    "text",
    [
        "| From | Event | To\n|---|---|---\n| locked | fire alarm | opened\n",
        "|From|Event|To\n|:--|---|--:\n|locked|fire alarm|opened\n",
    ],
)
def test_a_table_with_bars_at_the_start_of_its_lines_alone_is_read_as_github_shows_it(
    text: str,
) -> None:
    # mistune read a first column of nothing; GitHub takes the bar for the table's edge.
    (table,) = read_blocks(text)
    assert isinstance(table, Table)
    assert [c.plain for c in table.header.cells] == ["From", "Event", "To"]
    assert [c.plain for c in table.rows[0].cells] == ["locked", "fire alarm", "opened"]
    # a first column empty in the header alone is a column (a matrix's corner)
    (matrix,) = read_blocks("| | pay | ship |\n|---|---|---|\n| new | R1 | R2 |\n")
    assert isinstance(matrix, Table) and len(matrix.header.cells) == 3


def test_a_table_whose_lines_end_with_a_bar_and_without_one_is_refused_with_the_reason() -> None:
    # `| From | Event | To` over `|---|---|---|`: "header and delimiter row do not have
    # the same cells", untrue; a last row without its bar: "rows start and end with '|'".
    from codegen.read.markdown import BrokenTable

    mixed = "| From | Event | To\n|---|---|---|\n| closed | open | opened |\n"
    (broken,) = [b for b in read_blocks(mixed) if isinstance(b, BrokenTable)]
    assert "do not all end with '|'" in broken.reason and broken.bad_line == 2
    last = "| From | Event | To |\n|---|---|---|\n| a | b | c |\n| c | d | e\n"
    (broken,) = [b for b in read_blocks(last) if isinstance(b, BrokenTable)]
    assert "it does not end with '|', as the table's lines do" in broken.reason
