"""A markdown file's lines as markdown reads them (`spellbook.facts.sections.lines_of`): a line
ends at `\\n`, `\\r\\n` or `\\r` only, so a form feed, a U+2028 line separator or any other
character `str.splitlines` splits at never shows the runtime a heading, a code fence or
a checklist item that a markdown reader (GitHub, mistune) shows as part of a line; in
each reader of markdown: checklists, sections, headings, ledgers and frontmatter."""

from __future__ import annotations

import re
from pathlib import Path

import mistune
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from spellbook import Workflow
from spellbook.facts.frontmatter import frontmatter
from spellbook.facts.ledgers import listed_lines, unlisted_matches
from spellbook.facts.sections import checklist, real_items, real_lines
from tests.support.workspaces import executed, write

# What `str.splitlines` splits at and markdown does not.
NOT_LINE_ENDS = ["\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85"]


@pytest.mark.parametrize("sep", NOT_LINE_ENDS, ids=[f"U+{ord(c):04X}" for c in NOT_LINE_ENDS])
def test_lines_end_where_markdown_ends_them(sep: str) -> None:
    from spellbook.facts.sections import lines_of

    assert lines_of(f"a{sep}b\nc\r\nd\re\n") == [f"a{sep}b", "c", "d", "e"]
    assert lines_of("") == [] and lines_of("\n") == [""] and lines_of("x") == ["x"]


@pytest.mark.parametrize("sep", NOT_LINE_ENDS, ids=[f"U+{ord(c):04X}" for c in NOT_LINE_ENDS])
def test_a_heading_hidden_in_a_line_does_not_end_the_section(sep: str) -> None:
    # GitHub shows "done" and "## Notes" as one paragraph: the unchecked item is a criterion.
    plan = f"# Plan\n\n## Acceptance Criteria\n\n- [x] one\n\ndone{sep}## Notes\n\n- [ ] two\n"
    assert real_items(plan, "", "Acceptance Criteria") == [True, False]
    assert "done" in real_lines(plan, "", "Acceptance Criteria")[1]
    rendered = mistune.html(plan)
    assert "<h2>Notes</h2>" not in rendered and "two" in rendered


@pytest.mark.parametrize("sep", NOT_LINE_ENDS, ids=[f"U+{ord(c):04X}" for c in NOT_LINE_ENDS])
def test_a_code_fence_hidden_in_a_line_hides_no_item(sep: str) -> None:
    plan = f"## Acceptance Criteria\n\n- [x] one\n{sep}```\n- [ ] two\n"
    assert [done for done, _ in checklist(plan, "Acceptance Criteria")] == [True, False]


@pytest.mark.parametrize("sep", NOT_LINE_ENDS, ids=[f"U+{ord(c):04X}" for c in NOT_LINE_ENDS])
def test_an_item_is_one_line_as_markdown_reads_it(sep: str) -> None:
    # One item, ticked, whose text runs on: markdown shows no second box.
    assert checklist(f"## AC\n\n- [x] one{sep}- [ ] two\n", "AC") == [(True, "one - [ ] two")]
    # Line ends markdown reads: each item its own.
    for end in ("\n", "\r\n", "\r"):
        text = end.join(["## AC", "", "- [x] one", "- [ ] two", ""])
        assert checklist(text, "AC") == [(True, "one"), (False, "two")]


def test_a_ledger_line_is_a_line_as_markdown_reads_it() -> None:
    assert listed_lines("ENG-1\u2028ENG-2\r\nENG-3\rENG-4\n") == {"ENG-1 ENG-2", "ENG-3", "ENG-4"}
    # ENG-2 is not a line of the ledger of its own: it is still to be recorded.
    assert unlisted_matches("ENG-1 ENG-2", r"ENG-\d+", "ENG-1\u2028ENG-2\n") == ["ENG-1", "ENG-2"]


def test_frontmatter_lines_end_as_markdown_ends_them() -> None:
    assert frontmatter("---\rtask_name: greet\r---\r# Task\r", "task.md") == {"task_name": "greet"}
    assert frontmatter("---\u2028task_name: greet\n---\n", "task.md") == {}  # no opening line


def test_the_workflow_is_not_complete_while_a_criterion_hides_behind_a_line_separator(
    tmp_path: Path,
) -> None:
    executed(tmp_path)
    flow = Workflow(tmp_path)
    assert flow.cast("accio").after == "ACHIEVE_TASK_DRAFTING"
    write(
        tmp_path,
        "plan.md",
        "# Plan\n\n## Acceptance Criteria\n\n- [x] one\n\nAll done.\u2028## Notes\n\n- [ ] two\n",
    )
    assert flow.cast("accio").after != "ACHIEVE_COMPLETE"


def test_headings_are_the_titles_outside_code_fences() -> None:
    from spellbook.facts.sections import headings

    text = "# Plan\n\n## Pre-flight ##\n```\n## not one\n```\n#nope\n    # code\n### \n## Notes\n"
    assert headings(text) == ["Plan", "Pre-flight", "Notes"]


@pytest.mark.parametrize(
    ("text", "section", "items"),
    [
        # `Done` was found in `Abandoned ideas`, `AC` in `Background`
        ("## Done\n- [x] a\n## Abandoned ideas\n- [ ] b\n", "Done", [(True, "a")]),
        ("## Background\n- [ ] x\n## AC\n- [x] y\n", "AC", [(True, "y")]),
        # a heading that is the name itself is the section, not one that has it among others
        ("## Done\n- [x] a\n## Not done\n- [ ] c\n", "Done", [(True, "a")]),
        # where none is, the words as whole words, the last one's plural too
        ("## Not done (v2)\n- [ ] c\n", "Done", [(False, "c")]),
        ("## Open risks\n- [ ] r\n", "Risk", [(False, "r")]),
        ("## Undone\n- [ ] u\n", "Done", []),
    ],
)
def test_a_section_is_its_words_as_whole_words_of_a_heading(
    text: str, section: str, items: list[tuple[bool, str]]
) -> None:
    assert checklist(text, section) == items


def test_an_html_comment_holds_no_heading_and_no_item() -> None:
    # A heading in a comment ended the section, so the item after it went uncounted and
    # "no unchecked items under Checks" held; an item in a comment counted, though markdown
    # shows neither.
    text = (
        "## Checks\n- [x] links\n<!--\n## Notes for reviewers\n- [ ] hidden\n-->\n"
        "- [ ] spelling\n<!-- - [ ] also hidden -->\n## Next\n- [ ] later\n"
    )
    assert checklist(text, "Checks") == [(True, "links"), (False, "spelling")]
    fenced = "## Checks\n```\n<!--\n```\n- [ ] shown\n"
    assert checklist(fenced, "Checks") == [(False, "shown")]  # code, not a comment


def test_an_item_in_a_block_quote_is_an_item() -> None:
    # `> - [ ] ...` shows as an item in markdown; it was not counted, so "no unchecked
    # items" held
    text = "## Checks\n> - [ ] quoted\n>> * [x] deeper\n> not an item\n"
    assert checklist(text, "Checks") == [(False, "quoted"), (True, "deeper")]


def test_a_setext_heading_is_a_section_and_ends_the_one_above() -> None:
    # `Risks` over `-----` was no section, and its item was counted under `## Steps`.
    text = "---\ntitle: x\n---\n## Steps\n- [x] a\n\nRisks\n-----\n- [ ] unresolved risk\n"
    assert checklist(text, "Steps") == [(True, "a")]
    assert checklist(text, "Risks") == [(False, "unresolved risk")]
    plan = "Plan\n====\nAcceptance\ncriteria\n---\n- [ ] x\n\ntext\n\n---\n- [ ] y\n"
    assert checklist(plan, "Acceptance criteria") == [(False, "x"), (False, "y")]
    # A break under an item, or after a blank line, heads nothing.
    assert checklist("## AC\n- [ ] x\nRisks\n---\n- [ ] y\n", "AC") == [(False, "x"), (False, "y")]


def test_a_fence_closes_only_on_its_own_marker_and_a_hash_of_a_title_is_its_own() -> None:
    text = (
        "## Notes\n````markdown\n```\n## Done\n- [ ] not an item\n```\n````\n"
        "## Done\n- [x] real\n## C#\n- [ ] port\n~~~\n## x\n```\n~~~~\n- [ ] after\n"
    )
    from spellbook.facts.sections import headings

    assert headings(text) == ["Notes", "Done", "C#"]
    assert checklist(text, "Done") == [(True, "real")]
    assert checklist(text, "C#") == [(False, "port"), (False, "after")]


def test_an_item_s_text_on_the_next_line_is_its_text() -> None:
    # `- [ ]` then its text, indented, on the next line: an item not ticked, not an empty
    # one (which is not counted).
    assert checklist("## AC\n- [ ]\n  password reset\n- [x]\n", "AC") == [
        (False, "password reset"),
        (True, ""),
    ]
    assert checklist("## AC\n- [ ]\npassword reset\n", "AC") == [(False, "password reset")]


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("## Steps\n\nIntro.\n\n    - [ ] in code\n\n- [x] a\n", [(True, "a")]),
        ("## Steps\n    - [ ] in code\n- [x] a\n", [(True, "a")]),  # after a heading
        ("## Steps\n\n- [ ] a\n\n      - [ ] code in a\n- [x] b\n", [(False, "a"), (True, "b")]),
        # an item's own blocks, four spaces in: items of a list in it, no code
        ("## Steps\n\n- [ ] a\n\n    - [ ] under a\n", [(False, "a"), (False, "under a")]),
        ("## Steps\n\n1. [ ] a\n    - [ ] under a\n", [(False, "a"), (False, "under a")]),
        # a marker with spaces after it: its text, and its own blocks, start past them
        ("## Steps\n\n-   [x] a\n\n      - [ ] under a\n", [(True, "a"), (False, "under a")]),
    ],
    ids=[
        "after a paragraph",
        "after a heading",
        "in an item",
        "nested",
        "nested, numbered",
        "wide marker",
    ],
)
def test_an_item_in_indented_code_is_none(text: str, items: list[tuple[bool, str]]) -> None:
    # Markdown shows `    - [ ] in code` as code: an unchecked item counted there kept
    # `no unchecked items` from holding over a list all ticked.
    assert checklist(text, "Steps") == items
    rendered = mistune.html(text)
    assert "in code" not in rendered or "<code>" in rendered


@pytest.mark.parametrize(
    "text",
    [
        "## Checks\n| a | b |\n|---|---|\n| 1 | 2 |\n---\n- [ ] deploy\n",  # a break
        "## Checks\nsome text\n\t---\n- [ ] deploy\n",  # code's indent: no underline
        "\ufeff---\ntitle: Risks\n---\n## Checks\n- [ ] deploy\n",  # frontmatter
    ],
    ids=["a table", "a tab", "a byte order mark"],
)
def test_a_line_of_dashes_underlines_only_a_paragraph(text: str) -> None:
    from spellbook.facts.sections import headings

    assert checklist(text, "Checks") == [(False, "deploy")]
    assert headings(text) == ["Checks"]


@st.composite
def _markdown(draw: st.DrawFn) -> str:
    pieces = st.sampled_from(
        [
            "## A", "## C#", "# B ##", "Risks", "more text", "---", "===", "- [ ] x",
            "- item", "1. one", "```", "````", "~~~", "", "", "| a | b |", "<!--", "-->",
            "***", "\t---", "- [ ]", "    ## D", "    - [ ] y",
        ]
    )  # fmt: skip
    return "\n".join(draw(st.lists(pieces, max_size=10))) + "\n"


@settings(max_examples=300, deadline=None)
@given(_markdown())
@example("Risks\nmore text\n===\n")
@example("## A\n---\n---\n")
@example("````\n```\n## A\n````\n")
def test_the_headings_are_those_markdown_shows(text: str) -> None:
    """Headings as mistune (CommonMark) reads them: ATX and Setext, outside fences and
    comments, a break no heading. (Block quotes and the lines an item holds after a
    blank line are left out: mistune reads `> q` then `## A` as one quote.)"""
    from spellbook.facts.sections import headings

    if text.startswith("---"):
        return  # frontmatter, which markdown renders and the runtime reads apart
    if re.search(r"^(?:[-*+]|\d+\.)(?: .*)?\n(?:.*\n)*?\n[\t ]", text, re.M):
        return  # an item, a blank line, an indented line: mistune departs (in the docstring)
    tree = mistune.create_markdown(renderer=None, plugins=["table"])(text)

    def said(token: dict[str, object]) -> str:
        if token["type"] == "softbreak":
            return " "
        children = token.get("children", [])
        raw = token.get("raw")
        if isinstance(raw, str):
            return raw
        return "".join(said(c) for c in children) if isinstance(children, list) else ""

    wanted = [" ".join(said(t).split()) for t in tree if t["type"] == "heading"]
    assert headings(text) == [h for h in wanted if h]
