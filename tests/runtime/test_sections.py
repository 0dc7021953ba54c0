"""A markdown file's lines as markdown reads them (`spellbook.facts.sections.lines_of`): a line
ends at `\\n`, `\\r\\n` or `\\r` only, so a form feed, a U+2028 line separator or any other
character `str.splitlines` splits at never shows the runtime a heading, a code fence or
a checklist item that a markdown reader (GitHub, mistune) shows as part of a line; in
each reader of markdown: checklists, sections, headings, ledgers and frontmatter."""

from __future__ import annotations

from pathlib import Path

import mistune
import pytest

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
