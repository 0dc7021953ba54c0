"""Condition phrases that count and query: checklists, JSON queries and what they select,
counts of items. Each beside its near misses, read as its author means or refused (the
corpus: tests/compiler/test_phrase_corpus.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.phrases import (
    AC,
    FEATURES,
    PENDING,
    Lit,
    assert_reads,
    no,
    one,
    read,
    refused,
    yes,
)

CHECKLISTS: list[Any] = [
    # -- `F has [no] [unchecked] checklist items under "Section"` (quoted, or `the
    # Section section`) -------------------------------------------------------------
    one(
        "core",
        'plan.md has checklist items under "Open Questions"',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has checklist item under "Open Questions"',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has a checklist item under "Open Questions"',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        "plan.md has checklist items under `Open Questions`",
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        "plan.md has checklist items under “Open Questions”",
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        "plan.md has checklist items under the Open Questions section",
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has no checklist items under "Open Questions"',
        no("items", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has no checklist item under "Open Questions"',
        no("items", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has unchecked items under "Open Questions"',
        yes("unchecked", "plan.md", "Open Questions"),
    ),
    # A checklist of the whole file: the core counts one under a section, and says so.
    refused("core", "plan.md has unchecked items", 'has unchecked items under "SECTION"'),
    refused("core", "plan.md has no open items", "counted under a section of plan.md"),
    refused("core", "all items in plan.md are checked", "counted under a section of plan.md"),
    one(
        "core",
        'plan.md has an unchecked item under "Open Questions"',
        yes("unchecked", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has unchecked checklist items under "Open Questions"',
        yes("unchecked", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has no unchecked checklist items under "Open Questions"',
        no("unchecked", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        "plan.md has no unchecked items under the Open Questions section",
        no("unchecked", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    # The heading's words, as the author wrote the heading, or with spaces around.
    one(
        "core",
        'plan.md has checklist items under "## Open Questions"',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has checklist items under " Open Questions "',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has checklist items under "Risks; Issues"',
        yes("items", "plan.md", "Risks; Issues"),
    ),
    one(
        "core",
        "plan.md has unchecked items under the Risks and Issues section",
        yes("unchecked", "plan.md", "Risks and Issues"),
    ),
    one(
        "core",
        'plan.md has checklist items under "Open Questions" AND task.md exists',
        yes("items", "plan.md", "Open Questions"),
        yes("exists", "task.md"),
    ),
    # -- "no" of a section says the section is there (a missing file or section is
    # never "no unchecked items"); `F has no section S with ...` is the negation alone --
    one(
        "core",
        'plan.md has no unchecked items under "Pre-flight"',
        no("unchecked", "plan.md", "Pre-flight"),
        yes("section", "plan.md", "Pre-flight"),
    ),
    one(
        "core",
        'plan.md has no text under "Risks"',
        no("section_text", "plan.md", "Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has fewer than 2 checklist items under "Risks"',
        no("items_at_least", "plan.md", "2 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at most 1 unchecked items under "Risks"',
        no("unchecked_at_least", "plan.md", "2 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one("core", 'plan.md has a section "Risks"', yes("section", "plan.md", "Risks")),
    one("core", "plan.md has the section `Risks`", yes("section", "plan.md", "Risks")),
    one("core", 'plan.md has no section "Risks"', no("section", "plan.md", "Risks")),
    one(
        "core",
        'plan.md has no section "Risks" with unchecked items',
        no("unchecked", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has no section "Risks" with checklist items',
        no("items", "plan.md", "Risks"),
    ),
    one("core", 'plan.md has no section "Risks" with text', no("section_text", "plan.md", "Risks")),
    one(
        "core",
        'plan.md has no section "Risks" with at least 2 unchecked items',
        no("unchecked_at_least", "plan.md", "2 Risks"),
    ),
    one(
        "core",
        'NOT plan.md has unchecked items under "Risks"',
        no("unchecked", "plan.md", "Risks"),
    ),
    read(
        "core",
        'NOT plan.md has no unchecked items under "Risks"',
        [yes("unchecked", "plan.md", "Risks")],
        [no("section", "plan.md", "Risks")],
    ),
    one(
        "spell",
        "No unchecked AC in plan.md",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one(
        "spell",
        "plan.md has no acceptance criteria",
        no("items", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    refused("core", "plan.md has section Risks"),
    refused("core", 'plan.md has no section "Risks" with unchecked items under "Risks"'),
    refused("core", 'plan.md has checklist items under "#"', "the section has no name"),
    refused("core", 'plan.md has checklist items under ""'),
    refused("core", "plan.md has checklist items under Open Questions"),
    refused("core", "plan.md has checklist items under 'Open Questions'"),
    refused("core", 'plan.md has checklist items in "Open Questions"'),
    refused("core", 'plan.md has checklist items below "Open Questions"'),
    refused("core", 'plan.md has items under "Open Questions"'),
    refused("core", 'plan.md has checked items under "Open Questions"'),
    refused("core", 'plan.md has no unchecked items under "Open Questions" section'),
    refused("core", 'plan.md has checklist items under the "Open Questions" section'),
    refused("core", "plan.md has checklist items under the Open Questions"),
    refused("core", "plan.md has checklist items under the Open Questions heading"),
    refused("core", 'plan.md has 2 checklist items under "Open Questions"'),
    refused("core", 'plan.md has any checklist items under "Open Questions"'),
    refused("core", 'plan.md has some unchecked items under "Open Questions"'),
    refused("core", 'plan.md has all items checked under "Open Questions"'),
    refused("core", "plan.md has checklist items under the section"),
    refused("core", "plan.md has unchecked items under the Risks, Issues section"),
]


QUERIES: list[Any] = [
    # -- `F.json has `QUERY``, `F.json has no `QUERY``: keys joined by dots, filters
    # `[key=value]` / `[key!=value]`; and frontmatter, which only a procedure reads ----
    one("core", "tasks.json has `items`", yes("field", "tasks.json", "items")),
    # A value said as a sentence: told the comparison to write, not `contains `text``.
    refused("core", 'review.json verdict is "approved"', '``review.json has `verdict` = "ap'),
    refused("core", 'the `verdict` in review.json is "ok"', '``review.json has `verdict` = "ok"``'),
    refused("core", "review.json `score` equals 3", "``review.json has `score` = 3``"),
    refused("core", 'review.json verdict is not "ok"'),
    one(
        "core",
        "tasks.json has `items[status=open]`",
        yes("field", "tasks.json", "items[status=open]"),
    ),
    one(
        "core",
        "tasks.json has no `items[status=open]`",
        no("field", "tasks.json", "items[status=open]"),
    ),
    one(
        "core",
        "tasks.json has `items[status=open][id!=$current]`",
        yes("field", "tasks.json", "items[status=open][id!=$current]"),
    ),
    one("core", "tasks.json has `a.b.c`", yes("field", "tasks.json", "a.b.c")),
    one("core", "tasks.json has `a-b.c_d`", yes("field", "tasks.json", "a-b.c_d")),
    one("core", 'tasks.json has "items"', yes("field", "tasks.json", "items")),
    one("core", "tasks.json has “items”", yes("field", "tasks.json", "items")),
    one(
        "core",
        "tasks.json has `items[status!=done]`",
        yes("field", "tasks.json", "items[status!=done]"),
    ),
    one(
        "core", "tasks.json has `items[done=true]`", yes("field", "tasks.json", "items[done=true]")
    ),
    one("core", "tasks.json has `items[count=0]`", yes("field", "tasks.json", "items[count=0]")),
    one("core", "`.ai/task/tasks.json` has `items`", yes("field", "tasks.json", "items")),
    one("spell", "Reads task.md frontmatter", yes("exists", "task.md")),
    # Not a query: another comparison, an index, quotes, spaces, a JSONPath.
    refused("core", "tasks.json has `items[status = open]`", "is not a query"),
    refused("core", "tasks.json has `items[status==open]`", "is not a query"),
    refused("core", 'tasks.json has `items[status="open"]`', "is not a query"),
    refused("core", "tasks.json has `items[status='open']`", "is not a query"),
    refused("core", "tasks.json has `items[status=open`", "is not a query"),
    refused("core", "tasks.json has `items(status=open)`", "is not a query"),
    refused("core", "tasks.json has `items.[status=open]`", "is not a query"),
    refused("core", "tasks.json has `$.items`", "is not a query"),
    refused("core", "tasks.json has `.items`", "is not a query"),
    refused("core", "tasks.json has `items.`", "is not a query"),
    refused("core", "tasks.json has `items[0]`", "is not a query"),
    refused("core", "tasks.json has `items[*]`", "is not a query"),
    refused("core", "tasks.json has `items[status>1]`", "is not a query"),
    refused("core", "tasks.json has `items[status<=1]`", "is not a query"),
    refused("core", "tasks.json has `items[a=b]c`", "is not a query"),
    refused("core", "tasks.json has `count > 0`", "is not a query"),
    # Not a JSON file: a query of one is not a search of text or frontmatter.
    refused("core", "notes.md has `items`", "not a JSON file"),
    refused("core", "tasks.yaml has `items`", "not a JSON file"),
    refused("core", "tasks.JSON has `items`", "not a JSON file"),
    refused("core", "task.md has `task_name`", "frontmatter has `task_name`"),
    refused("core", "../tasks.json has `items`", "outside the workspace folder"),
    # Other words.
    refused("core", "tasks.json has items"),
    refused("core", "tasks.json has a `items`"),
    refused("core", "tasks.json has the `items` key"),
    refused("core", "tasks.json has `items` set"),
    refused("core", "tasks.json doesn't have `items`"),
    refused("core", "tasks.json does not have `items`"),
    refused("core", "tasks.json has not `items`"),
    refused("core", "tasks.json lacks `items`"),
    refused("core", "tasks.json has `items`, `x`"),
    refused("core", "tasks.json has no `items` yet"),
    # A key named as one: the phrase with the key in backticks, never another fact.
    refused("core", 'tasks.json has key "items"', "``tasks.json has `items` ``"),
    refused("core", "tasks.json has the field `items`", "``tasks.json has `items` ``"),
    refused("core", "tasks.json has a property “items”", "``tasks.json has `items` ``"),
    # A Markdown file's YAML frontmatter: said so, then a key (or a query) of it.
    one("core", "task.md frontmatter has `task_name`", yes("field", "task.md", "task_name")),
    one("core", "task.md's frontmatter has `task_name`", yes("field", "task.md", "task_name")),
    one("core", "task.md frontmatter has no `task_name`", no("field", "task.md", "task_name")),
    one(
        "core",
        "task.md frontmatter has `task_name` matching `[a-z]`",
        yes("value", "task.md", '["task_name", "~", "[a-z]"]'),
    ),
    one(
        "core",
        "task.md frontmatter has `priority` ≥ 2",
        yes("value", "task.md", '["priority", ">=", 2]'),
    ),
    refused("core", "tasks.json frontmatter has `items`", "a JSON file, which has no frontmatter"),
    refused("core", "task.md frontmatter has task_name"),
    refused("core", "task.md frontmatter has `task name`", "is not a query"),
    refused("spell", "Reads task.md front matter"),
]


COUNTS: list[Any] = [
    # -- `F has at least N checklist items under "S"`, more than, fewer than, at most ---
    one(
        "core",
        'plan.md has at least 2 checklist items under "Risks"',
        yes("items_at_least", "plan.md", "2 Risks"),
    ),
    one(
        "core",
        'plan.md has more than 2 checklist items under "Risks"',
        yes("items_at_least", "plan.md", "3 Risks"),
    ),
    one(
        "core",
        'plan.md has fewer than 3 checklist items under "Risks"',
        no("items_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has less than 3 checklist items under "Risks"',
        no("items_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at most 2 checklist items under "Risks"',
        no("items_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has no more than 2 checklist items under "Risks"',
        no("items_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at least 2 unchecked items under "Risks"',
        yes("unchecked_at_least", "plan.md", "2 Risks"),
    ),
    one(
        "core",
        "plan.md has more than 2 unchecked checklist items under the Open Questions section",
        yes("unchecked_at_least", "plan.md", "3 Open Questions"),
    ),
    one(
        "core",
        'plan.md has fewer than 3 unchecked items under "## Risks"',
        no("unchecked_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    # One item is the fact `items` itself; none, its negation.
    one(
        "core",
        'plan.md has at least 1 checklist item under "Risks"',
        yes("items", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has more than 0 unchecked items under "Risks"',
        yes("unchecked", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has fewer than 1 unchecked item under "Risks"',
        no("unchecked", "plan.md", "Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at most 0 checklist items under "Risks"',
        no("items", "plan.md", "Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at least one checklist item under "Risks"',
        yes("items", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has more than one unchecked item under "Risks"',
        yes("unchecked_at_least", "plan.md", "2 Risks"),
    ),
    # At least 0 of a section's items says only that the section is there; a JSON count at
    # least 0 always holds (a missing key counts 0), read as always with the advice, as
    # `count of ... ≥ 0` is. Both were refused as saying nothing.
    one(
        "core",
        'plan.md has at least 0 checklist items under "Risks"',
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has no section "Risks" with at least 0 checklist items',
        no("section", "plan.md", "Risks"),
    ),
    read("core", "feature-list.json has at least 0 `features`", []),
    refused("core", 'plan.md has fewer than 0 checklist items under "Risks"', "never holds"),
    refused("core", 'plan.md has 2 checklist items under "Risks"', "an exact count"),
    refused("core", 'plan.md has exactly 2 unchecked items under "Risks"', "an exact count"),
    # Checked items are counted too: at least N of the section's items are ticked.
    one(
        "core",
        'plan.md has at least 2 checked items under "Risks"',
        yes("checked_at_least", "plan.md", "2 Risks"),
    ),
    one(
        "core",
        'plan.md has at least one checked checklist item under "Risks"',
        yes("checked_at_least", "plan.md", "1 Risks"),
    ),
    one(
        "core",
        'plan.md has fewer than 2 ticked items under "Risks"',
        no("checked_at_least", "plan.md", "2 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at most 2 checked items under "Risks"',
        no("checked_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    refused("core", 'plan.md has at least 2 done items under "Risks"', "'done' items are not"),
    refused("core", 'plan.md has exactly 2 checked items under "Risks"'),
    refused("core", 'plan.md has at least two checklist items under "Risks"', "in digits"),
    refused("core", 'plan.md has at least 2.5 checklist items under "Risks"', "in digits"),
    refused("core", 'plan.md has at least 2 open items under "Risks"', "'open' items are not"),
    refused("core", 'plan.md has at least 2 checklist items under "#"', "the section has no name"),
    refused("core", "plan.md has at least 2 checklist items under Risks"),
    refused("core", 'plan.md has at least 2 checklist items in "Risks"'),
    refused("core", 'plan.md has 2 or more checklist items under "Risks"'),
    refused("core", 'plan.md has over 2 checklist items under "Risks"'),
    refused("core", 'plan.md has at least 2 items under "Risks"', "write checklist items"),
]


TYPED_QUERIES: list[Any] = [
    # -- what a query selects, from its syntax: a filter selects objects, a key a value;
    # objects compared with a value never match, and counting is its own phrase ---------
    one(
        "core",
        "count of features[status=pending] in feature-list.json ≥ 2",
        yes("count_at_least", FEATURES, f"2 {PENDING}"),
    ),
    one(
        "core",
        "the number of `features[status=pending]` in feature-list.json > 2",
        yes("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "count of features[status=pending] in feature-list.json < 2",
        no("count_at_least", FEATURES, f"2 {PENDING}"),
    ),
    one(
        "core",
        "count of features[status=pending] in feature-list.json <= 2",
        no("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "count of features[status=pending] in feature-list.json = 2",
        yes("count_at_least", FEATURES, f"2 {PENDING}"),
        no("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "count of features[status=pending] in feature-list.json = 0",
        no("count_at_least", FEATURES, f"1 {PENDING}"),
    ),
    read(
        "core",
        "count of features[status=pending] in feature-list.json ≠ 1",
        [no("count_at_least", FEATURES, f"1 {PENDING}")],
        [yes("count_at_least", FEATURES, f"2 {PENDING}")],
    ),
    one(
        "core",
        "feature-list.json has at least 2 `features[status=pending]`",
        yes("count_at_least", FEATURES, f"2 {PENDING}"),
    ),
    one(
        "core",
        "feature-list.json has more than one `features`",
        yes("count_at_least", FEATURES, "2 features"),
    ),
    one(
        "core",
        "feature-list.json has fewer than 3 `features[status=pending]`",
        no("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "feature-list.json has at most 2 `features[status=pending]`",
        no("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "task.md frontmatter has at least 2 `tags`",
        yes("count_at_least", "task.md", "2 tags"),
    ),
    # A count that always holds is read as always (`condition_advice`); one that never
    # does is refused.
    read("core", "count of features[status=pending] in feature-list.json ≥ 0", []),
    read("core", "count of features in feature-list.json ≠ -1", []),
    refused("core", "count of features in feature-list.json < 0", "a count < 0 never holds"),
    refused("core", "count of features in feature-list.json = -1", "a count = -1 never holds"),
    refused("core", "feature-list.json has at least -1 `features`", "in digits"),
    refused("core", "feature-list.json has fewer than 0 `features`", "never holds"),
    refused("core", "count of features in feature-list.json ≥ two", "in digits"),
    refused("core", "count of features in feature-list.json ≥ 1.5", "whole number"),
    one(
        "core",
        "count of features in feature-list.json == 2",
        yes("count_at_least", FEATURES, "2 features"),
        no("count_at_least", FEATURES, "3 features"),
    ),
    refused("core", "count of features in notes.md ≥ 2", "not a JSON file"),
    refused("core", "count of features[status==open] in feature-list.json ≥ 2", "not a query"),
    refused("core", "task.md has at least 2 `tags`", "frontmatter has `tags`"),
    refused("core", "count features in feature-list.json ≥ 2"),
    # Objects (what a filter keeps) compared with a value: never true, so never read.
    refused(
        "core",
        "feature-list.json has `features[status=pending]` = true",
        "selects objects",
    ),
    refused(
        "core",
        "feature-list.json has `features[status=pending]` != true",
        "count of `features[status=pending]` in feature-list.json",
    ),
    refused("core", "feature-list.json has `features[status=pending]` ≥ 2", "selects objects"),
    refused(
        "core",
        "feature-list.json has `features[status=pending]` matching `^x`",
        "selects objects",
    ),
    refused("core", "task.md frontmatter has `links[kind=jira]` = null", "selects objects"),
    # A key of the objects is a value: it compares.
    one(
        "core",
        'feature-list.json has `features[status=pending].id` = "PT-1"',
        yes("value", FEATURES, '["features[status=pending].id", "=", "PT-1"]'),
    ),
    one(
        "core",
        "feature-list.json has `features[status=pending].points` ≥ 2",
        yes("value", FEATURES, '["features[status=pending].points", ">=", 2]'),
    ),
    # A key alone may be a number: read, unless the vocabulary filters it (objects).
    one(
        "core",
        "feature-list.json has `features` ≥ 2",
        yes("value", FEATURES, '["features", ">=", 2]'),
    ),
    refused("session", "feature-list.json has `features` ≥ 2", "count of `features`"),
    refused("session", "feature-list.json has `features` = true", "selects objects"),
    one(
        "session",
        'feature-list.json has `features.id` = "PT-1"',
        yes("value", FEATURES, '["features.id", "=", "PT-1"]'),
    ),
    # `.length`, `.size`: a list's length in other languages, a key in JSON; `.count`
    # where a list or objects are before it. Each points at the count.
    refused("core", "feature-list.json has `features.length` ≥ 2", "count of `features`"),
    refused("core", "feature-list.json has `features.size` > 0", "count of `features`"),
    refused("core", "feature-list.json has `features[status=pending].count` ≥ 2", "to count"),
    refused("session", "feature-list.json has `features.count` ≥ 2", "count of `features`"),
    refused("core", "task.md frontmatter has `tags.length` ≥ 2", "task.md frontmatter"),
    refused("core", "feature-list.json has `features.length`", "to count what `features`"),
    one(
        "core",
        "stats.json has `stats.count` ≥ 2",
        yes("value", "stats.json", '["stats.count", ">=", 2]'),
    ),
    one("core", "stats.json has `count` ≥ 2", yes("value", "stats.json", '["count", ">=", 2]')),
    # A section the file's template (here the vocabulary's plan.md) has no heading for.
    one(
        "spell",
        'plan.md has no unchecked items under "Acceptance Criteria"',
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one("spell", 'plan.md has text under "goal"', yes("section_text", "plan.md", "goal")),
    refused(
        "spell",
        'plan.md has no unchecked items under "Acceptance Critera"',
        'did you mean "Acceptance Criteria"?',
    ),
    refused(
        "spell",
        'plan.md has at least 2 checked items under "Pre-flight"',
        '"Plan", "Goal", "Context", "Acceptance Criteria", "Notes"',
    ),
    refused("spell", 'plan.md has text under "Risks"', 'has no heading with "Risks"'),
    # A file with no template is not checked.
    one("spell", 'notes.md has text under "Risks"', yes("section_text", "notes.md", "Risks")),
]


PHRASES = [*CHECKLISTS, *QUERIES, *COUNTS, *TYPED_QUERIES]


@pytest.mark.parametrize(("words", "workspace", "text", "expected", "why"), PHRASES)
def test_phrase(
    words: str, workspace: str, text: str, expected: list[list[Lit]] | None, why: str
) -> None:
    assert_reads(words, workspace, text, expected, why)
