"""The core's facts of time, JSON values, counts, text under a heading, modification
times and globs at run time, against real files; and their implications, each checked
against what the checks answer, so the verifier's worlds are the ones that can be."""

from __future__ import annotations

import json
import os
import tempfile
import time
from itertools import product
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from spellbook.disk.state_file import Record
from spellbook.disk.store import Workspace
from spellbook.disk.walk import GLOB_DEPTH
from spellbook.facts.answers import Facts
from spellbook.facts.globs import glob_path, glob_within, partner
from spellbook.facts.implications import excludes, implied, implies
from spellbook.facts.json_values import _STEP, _steps, compare, comparison_param
from spellbook.facts.ledgers import ledger_param, ledger_parts, record_parts, record_target
from spellbook.facts.sections import real_items, real_lines
from spellbook.facts.wording import describe
from spellbook.records.errors import BadFile, UnsafePath


def facts(tmp_path: Path, files: dict[str, str], **extra: object) -> Facts:
    folder = tmp_path / "ws"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return Facts(Workspace(str(tmp_path), "ws"), Record("S", extra=dict(extra)))


# -- time in a state, in any unit -----------------------------------------------------


def test_time_in_a_state_is_said_in_the_largest_whole_unit() -> None:
    said = [describe("over_minutes", "", str(n), True) for n in (2880, 90, 60, 1, 10080, 0)]
    assert said == [
        "in this state for more than 2 days",
        "in this state for more than 90 minutes",
        "in this state for more than 1 hour",
        "in this state for more than 1 minute",
        "in this state for more than 1 week",
        "in this state for more than 0 minutes",
    ]
    assert describe("over_minutes", "", "180", False) == "in this state for 3 hours or less"
    assert implies(("over_minutes", "", "2880"), ("over_minutes", "", "60"))
    assert not implies(("over_minutes", "", "60"), ("over_minutes", "", "2880"))


def test_more_than_two_days_in_a_state(tmp_path: Path) -> None:
    entered = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3 * 86400))
    found = facts(tmp_path, {}, entered_at=entered)
    assert found.check("over_minutes", "", "2880") is True
    assert found.check("over_minutes", "", "10080") is False


# -- JSON values compared -------------------------------------------------------------


def value(query: str, op: str, operand: object) -> tuple[str, str, str]:
    return ("value", "r.json", comparison_param(query, op, operand))


@pytest.mark.parametrize(
    ("data", "query", "op", "operand", "holds"),
    [
        ({"approved": True}, "approved", "=", True, True),
        ({"approved": 1}, "approved", "=", True, False),  # 1 is not true
        ({"approved": True}, "approved", "=", 1, False),
        ({"n": 2}, "n", "=", 2.0, True),  # numbers as numbers
        ({"n": 2}, "n", ">=", 2, True),
        ({"n": 1.5}, "n", ">", 1, True),
        ({"n": "three"}, "n", ">", 1, False),  # text has no order (a numeral stops the cast)
        ({"n": True}, "n", ">", 0, False),  # nor has true
        ({"n": None}, "n", "<", 1, False),
        ({"n": [0, 5]}, "n", ">", 4, True),  # a list's items are the values
        ({"n": 10**301}, "n", ">", 1e300, True),  # exactly, not as floats
        ({"n": 10**300}, "n", ">", 1e300, False),  # 1e300 is a little more than 10**300
        ({"n": -(10**301)}, "n", "<", -1e300, True),
        ({"n": None}, "n", "=", None, True),
        ({"n": None}, "n", "!=", None, False),
        ({}, "n", "!=", 2, False),  # a missing key compares with nothing
        ({"s": "done"}, "s", "=", "done", True),
        ({"s": "Done"}, "s", "=", "done", False),
        ({"v": "1.2.0"}, "v", "~", r"^1\.", True),
        ({"v": 1.2}, "v", "~", r"^1\.", True),  # a number matches as it is written plainly
        ({"v": 1.20}, "v", "~", r"^1\.20$", False),  # 1.20 is the number 1.2: quote it
        ({"v": ["2.0", "1.0"]}, "v", "~", r"^1\.", True),
        (
            {"items": [{"s": "open", "p": 3}, {"s": "done", "p": 9}]},
            "items[s=open].p",
            ">",
            5,
            False,
        ),
        ({"items": [{"s": "open", "p": 3}, {"s": "done", "p": 9}]}, "items.p", ">", 5, True),
        (
            {"items": [{"id": "a", "p": 3}, {"id": "b", "p": 9}]},
            "items[id!=$current].p",
            "=",
            9,
            True,
        ),
        ("text", "n", "=", "text", False),
    ],
)
def test_json_values_compare_as_json(
    tmp_path: Path, data: object, query: str, op: str, operand: object, holds: bool
) -> None:
    found = facts(tmp_path, {"r.json": json.dumps(data)}, current="a")
    assert found.check(*value(query, op, operand)) is holds


@given(st.text(alphabet=st.sampled_from("ab .[]=!$ \n"), max_size=12))
@example("task_name")
@example("")
def test_a_query_of_one_key_is_read_as_the_pattern_reads_it(query: str) -> None:
    """A query without `.`, `[` or `]` is told without compiling the pattern: the steps
    are the pattern's, whatever the query."""
    import re

    assert _steps(query) == [m.groups() for m in re.compile(_STEP).finditer(query)]


@pytest.mark.parametrize(
    ("data", "op", "operand"),
    [
        ({"n": [[5]]}, ">", 4),  # a list's lists
        ({"n": {"a": 5}}, ">", 4),
        ({"n": {"a": 5}}, "!=", 4),
        ({"n": [{"a": 5}]}, "=", True),
    ],
)
def test_objects_never_compare_with_a_number_or_true_and_the_cast_says_so(
    tmp_path: Path, data: object, op: str, operand: object
) -> None:
    """Read as not holding, `has `n` ≥ 4` with objects there would be a rule that never
    fires for want of a count: the cast stops, naming the file, and the count."""
    from spellbook.records.errors import BadFile

    found = facts(tmp_path, {"r.json": json.dumps(data)})
    with pytest.raises(BadFile, match=r"r\.json: `n` holds .*count of n in r\.json"):
        found.check(*value("n", op, operand))


def test_a_missing_or_empty_file_compares_with_nothing(tmp_path: Path) -> None:
    assert facts(tmp_path, {}).check(*value("n", "!=", 2)) is False
    assert facts(tmp_path, {"r.json": " \n"}).check(*value("n", "!=", 2)) is False


def test_a_file_that_is_not_json_is_an_error_naming_it(tmp_path: Path) -> None:
    found = facts(tmp_path, {"r.json": '{"n": NaN}'})
    with pytest.raises(BadFile, match=r"r\.json"):
        found.check(*value("n", ">", 1))


def test_comparisons_are_said_as_a_condition_writes_them() -> None:
    assert describe(*value("count", ">=", 2), True) == "r.json has `count` ≥ 2"
    assert describe(*value("s", "=", "done"), False) == 'r.json has no `s` = "done"'
    assert describe(*value("v", "~", r"^1\."), True) == r"r.json has `v` matching `^1\.`"


def test_a_comparison_only_a_value_passes_implies_its_query_has_one() -> None:
    assert ("field", "r.json", "count") in implied(*value("count", ">=", 0))
    assert ("field", "r.json", "s") in implied(*value("s", "=", "done"))
    assert ("field", "r.json", "n") in implied(*value("n", "=", 0))  # 0 is a value
    for op, operand in (("=", None), ("=", False), ("=", ""), ("!=", 2), ("~", "x*")):
        assert implied(*value("n", op, operand)) == [("exists", "r.json", "")], (op, operand)


SCALARS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([0.5, -1.5, 2.0, True, False, None, "", "a", "1.0", "b1"]),
)
COMPARISONS = st.one_of(
    st.tuples(st.sampled_from(["<", "<=", ">", ">="]), st.integers(-3, 3) | st.just(1.5)),
    st.tuples(st.sampled_from(["=", "!="]), SCALARS),
    st.tuples(st.just("~"), st.sampled_from(["^1", "a", "^$", "."])),
)


@given(COMPARISONS, COMPARISONS, st.lists(SCALARS, max_size=4))
@example(("~", "."), ("!=", 0), [0])  # a number matches a pattern, and may be 0
def test_one_comparison_implies_another_only_where_every_value_passing_it_passes_both(
    first: tuple[str, object], second: tuple[str, object], values: list[object]
) -> None:
    a, b = value("n", *first), value("n", *second)
    if implies(a, b):
        for each in values:
            assert not compare(each, *first) or compare(each, *second), (each, first, second)


def test_limits_of_one_query_imply_each_other() -> None:
    assert implies(value("n", ">=", 3), value("n", ">=", 2))
    assert implies(value("n", ">=", 3), value("n", ">", 2))
    assert not implies(value("n", ">=", 2), value("n", ">", 2))
    assert implies(value("n", "<", 2), value("n", "<=", 2))
    assert implies(value("n", "=", 3), value("n", ">", 2))
    assert implies(value("n", "=", 3), value("n", "!=", 2))
    assert implies(value("n", ">", 3), value("n", "!=", "x"))
    assert not implies(value("n", ">=", 3), value("m", ">=", 2))  # another query
    assert not implies(value("n", ">=", 2), value("n", "<", 5))


def test_a_parameter_the_reader_would_not_write_compares_with_nothing(tmp_path: Path) -> None:
    found = facts(tmp_path, {"r.json": '{"n": 1}'})
    assert found.check("value", "r.json", "n > 0") is False
    assert not implies(("value", "r.json", "x"), ("value", "r.json", "y"))


# -- counts of checklist items, and text under a heading ------------------------------

PLAN = "## Risks\n\n- [ ] Example risk\n\n## Summary\n\nWrite the summary here.\n"


def test_counts_of_items_count_the_template_s_own_once_the_section_is_touched(
    tmp_path: Path,
) -> None:
    untouched = facts(tmp_path / "fresh", {"plan.md": PLAN})
    untouched.template = lambda name: PLAN
    assert untouched.check("items", "plan.md", "Risks") is False  # not filled in yet
    text = PLAN.replace(
        "- [ ] Example risk\n",
        "- [ ] Example risk\n- [ ] Fire\n- [x] Flood\n- [ ] Drought\n- [ ]\n",
    )
    found = facts(tmp_path, {"plan.md": text})
    found.template = lambda name: PLAN
    assert found.check("items_at_least", "plan.md", "4 Risks") is True  # Example risk too
    assert found.check("items_at_least", "plan.md", "5 Risks") is False  # not the empty one
    assert found.check("unchecked_at_least", "plan.md", "3 Risks") is True
    assert found.check("unchecked_at_least", "plan.md", "4 Risks") is False
    assert facts(tmp_path / "x", {}).check("items_at_least", "plan.md", "2 Risks") is False


def test_counts_imply_smaller_counts_and_the_checklist_itself() -> None:
    assert implied("unchecked_at_least", "p.md", "3 Open Questions") == [
        ("unchecked", "p.md", "Open Questions"),
        ("items", "p.md", "Open Questions"),
        ("section", "p.md", "Open Questions"),
        ("exists", "p.md", ""),
    ]
    assert implies(("items_at_least", "p.md", "3 S"), ("items_at_least", "p.md", "2 S"))
    assert implies(("unchecked_at_least", "p.md", "3 S"), ("items_at_least", "p.md", "3 S"))
    assert not implies(("items_at_least", "p.md", "3 S"), ("unchecked_at_least", "p.md", "2 S"))
    assert not implies(("items_at_least", "p.md", "3 S"), ("items_at_least", "p.md", "2 T"))
    assert not implies(("items_at_least", "p.md", "3 S"), ("items_at_least", "q.md", "2 S"))
    assert describe("items_at_least", "p.md", "3 S", False) == (
        'p.md has no section "S" with at least 3 checklist items'
    )


def test_text_under_a_heading_is_neither_headings_nor_the_template_s_own(
    tmp_path: Path,
) -> None:
    found = facts(tmp_path, {"plan.md": PLAN})
    found.template = lambda name: PLAN
    assert found.check("section_text", "plan.md", "Summary") is False
    assert facts(tmp_path / "b", {"plan.md": PLAN}).check("section_text", "plan.md", "Summary")
    assert real_lines(PLAN + "\nShip it.\n", PLAN, "Summary") == ["Ship it."]
    # Sub-headings, fences' markers, empty items and blank lines are not text ...
    empty = "## Summary\n\n### Details\n\n```\n```\n- [ ]\n  \n## Next\nx\n"
    assert real_lines(empty, "", "Summary") == []
    # ... what a fence holds is, and so is an item the template does not have.
    assert real_lines("## Summary\n```\n# not a heading\n```\n", "", "Summary") == [
        "# not a heading"
    ]
    assert real_lines(PLAN.replace("Example risk", "Fire"), PLAN, "Risks") == ["- [ ] Fire"]
    # A template's item ticked is the section touched: it counts, as an item does.
    assert real_lines(PLAN.replace("[ ] Example", "[x] Example"), PLAN, "Risks") == [
        "- [x] Example risk"
    ]
    assert real_lines(PLAN + "\n## Risks again\n- [ ]\n", PLAN, "Risks") == []
    assert facts(tmp_path / "c", {}).check("section_text", "plan.md", "Summary") is False


LINES = st.lists(
    st.sampled_from(
        ["## S", "### T", "## U", "```", "- [ ] a", "- [x] a", "- [ ] b", "- [ ]", "a", "", " "]
    ),
    max_size=10,
)


@given(LINES, LINES)
def test_a_checklist_item_that_counts_is_always_text(text: list[str], template: list[str]) -> None:
    """`items` implies `section_text` (`probes.implies`): never one without the other."""
    body, own = "\n".join(text), "\n".join(template)
    if real_items(body, own, "S"):
        assert real_lines(body, own, "S")
    assert implies(("items", "p.md", "S"), ("section_text", "p.md", "S"))


# -- newer than -----------------------------------------------------------------------


def test_newer_compares_modification_times_of_two_files(tmp_path: Path) -> None:
    found = facts(tmp_path, {"a.md": "a", "b.md": "b"})
    os.utime(tmp_path / "ws" / "a.md", ns=(2_000_000_000_000, 2_000_000_000_000))
    os.utime(tmp_path / "ws" / "b.md", ns=(1_000_000_000_000, 1_000_000_000_001))
    assert found.check("newer", "a.md", "b.md") is True
    assert found.check("newer", "b.md", "a.md") is False
    assert found.check("newer", "a.md", "missing.md") is False
    assert found.check("newer", "missing.md", "a.md") is False
    assert implied("newer", "a.md", "b.md") == [("exists", "a.md", ""), ("exists", "b.md", "")]
    assert excludes(("newer", "a.md", "b.md"), ("newer", "b.md", "a.md"))
    assert not excludes(("newer", "a.md", "b.md"), ("newer", "a.md", "c.md"))


def test_newer_refuses_a_folder_and_a_link_as_reading_does(tmp_path: Path) -> None:
    found = facts(tmp_path, {"a.md": "a"})
    (tmp_path / "ws" / "folder.md").mkdir()
    (tmp_path / "ws" / "link.md").symlink_to(tmp_path / "ws" / "a.md")
    with pytest.raises(BadFile, match=r"folder\.md is a folder"):
        found.check("newer", "folder.md", "a.md")
    with pytest.raises(UnsafePath, match=r"link\.md is a symbolic link"):
        found.check("newer", "a.md", "link.md")


def test_exists_refuses_a_folder_and_a_link_by_the_file_s_name(tmp_path: Path) -> None:
    # A folder `comments.md` made `comments.md exists` hold: casts moved on, told of "the
    # existing comments.md file", until one that moves it refused.
    found = facts(tmp_path, {"a.md": "a"})
    (tmp_path / "ws" / "comments.md").mkdir()
    (tmp_path / "ws" / "link.md").symlink_to(tmp_path / "ws" / "a.md")
    assert found.check("exists", "a.md", "") is True
    assert found.check("exists", "missing.md", "") is False
    with pytest.raises(BadFile, match=r"comments\.md is a folder, not a file; move it away"):
        found.check("exists", "comments.md", "")
    with pytest.raises(UnsafePath, match=r"link\.md is a symbolic link"):
        found.check("exists", "link.md", "")


def test_a_modification_time_seen_while_observed_is_noted(tmp_path: Path) -> None:
    found = facts(tmp_path, {"a.md": "a"})
    workspace = found.workspace
    looks = workspace.observe()
    assert workspace.mtime("a.md") is not None
    workspace.unobserve()
    assert workspace.unchanged(looks)
    os.utime(tmp_path / "ws" / "a.md", ns=(1, 1))
    assert not workspace.unchanged(looks)


# -- globs ----------------------------------------------------------------------------


def tree(root: Path, paths: list[str]) -> None:
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.write_text("x")


def test_a_glob_names_files_in_the_workspace_folder(tmp_path: Path) -> None:
    tree(tmp_path / "ws", ["a.md", "docs/b.md", "docs/deep/c.md", "docs/.hidden/d.md", ".e.md"])
    workspace = Workspace(str(tmp_path), "ws")
    assert workspace.glob("*.md") == ["a.md"]  # `*` crosses no `/`, names no hidden file
    assert workspace.glob(".*.md") == [".e.md"]
    assert workspace.glob("docs/*.md") == ["docs/b.md"]
    assert workspace.glob("docs/**/*.md") == ["docs/b.md", "docs/deep/c.md"]
    assert workspace.glob("**/?.md") == ["a.md", "docs/b.md", "docs/deep/c.md"]
    assert workspace.glob("docs/*") == ["docs/b.md", "docs/deep"]  # a folder is a name
    assert workspace.glob("nowhere/*.md") == []
    assert Workspace(str(tmp_path), "missing").glob("*.md") == []
    assert Workspace(str(tmp_path / "ws"), "").glob("*.md") == ["a.md"]


def test_a_glob_enters_no_symbolic_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    tree(outside, ["secret.md", "sub/x.md"])
    tree(tmp_path / "ws", ["docs/a.md"])
    (tmp_path / "ws" / "docs" / "linked").symlink_to(outside)
    (tmp_path / "ws" / "docs" / "link.md").symlink_to(outside / "secret.md")
    workspace = Workspace(str(tmp_path), "ws")
    assert workspace.glob("docs/**/*.md") == ["docs/a.md", "docs/link.md"]
    assert workspace.glob("docs/linked/*.md") == []
    assert workspace.glob("docs/*/*.md") == []
    (tmp_path / "link").symlink_to(tmp_path / "ws")
    with pytest.raises(UnsafePath, match="symbolic link"):
        Workspace(str(tmp_path), "link").glob("*.md")


def test_a_glob_that_would_look_too_far_is_an_error_not_part_of_an_answer(
    tmp_path: Path,
) -> None:
    tree(tmp_path / "ws", [f"n{i}.txt" for i in range(6)])
    workspace = Workspace(str(tmp_path), "ws")
    with pytest.raises(BadFile, match=r"`\*\.md` looks at more than 5 names in ws"):
        workspace.glob("*.md", limit=5)
    assert workspace.glob("*.md", limit=6) == []
    assert workspace.glob("n1.txt", limit=0) == ["n1.txt"]  # looked up, not listed
    deep = "/".join(["d"] * (GLOB_DEPTH + 1))
    tree(tmp_path / "ws", [f"{deep}/x.md"])
    with pytest.raises(BadFile, match=f"more than {GLOB_DEPTH} folders deep"):
        workspace.glob("**/x.md")
    with pytest.raises(UnsafePath):
        workspace.glob("../*.md")


def test_a_glob_seen_while_observed_is_not_kept(tmp_path: Path) -> None:
    """What a folder lists is not noted, so what was told from it is worked out again."""
    workspace = Workspace(str(tmp_path), "ws")
    looks = workspace.observe()
    workspace.glob("*.md")
    workspace.unobserve()
    assert not looks.settled


def test_a_glob_through_facts(tmp_path: Path) -> None:
    found = facts(tmp_path, {"notes/a.md": "x"})
    assert found.check("glob", "", "notes/*.md") is True
    assert found.check("glob", "", "notes/*.txt") is False
    assert describe("glob", "", "notes/*.md", False) == "no file matches `notes/*.md`"


PAIR = "sql/*.up.sql sql/*.down.sql"


def test_a_pair_of_globs_pairs_names_by_the_part_the_star_matched() -> None:
    assert partner("sql/003.up.sql", "sql/*.up.sql", "sql/*.down.sql") == "sql/003.down.sql"
    assert partner("src/a.b.py", "src/*.py", "tests/test_*.py") == "tests/test_a.b.py"
    assert partner("x", "*", "done/*.md") == "done/x.md"
    assert partner("up/a", "up/*", "down/*.sql") == "down/a.sql"
    # What would leave the plain path is no file: `...` by `.*` puts `..` in a folder.
    assert partner("...", ".*", "x/*/y") is None
    assert partner("sql/a/b.up.sql", "sql/*.up.sql", "sql/*.down.sql") is None


def test_every_up_script_has_its_down_script(tmp_path: Path) -> None:
    found = facts(tmp_path, {"sql/001.up.sql": "", "sql/001.down.sql": "", "sql/x.txt": ""})
    assert found.check("paired", "", PAIR) is True
    found = facts(tmp_path, {"sql/002.up.sql": ""})
    assert found.check("paired", "", PAIR) is False
    # The down script of another name, a folder of the name, a hidden one: none pairs.
    found = facts(tmp_path / "b", {"sql/003.up.sql": "", "sql/3.down.sql": ""})
    assert found.check("paired", "", PAIR) is False
    (tmp_path / "b" / "ws" / "sql" / "003.down.sql").mkdir()
    assert facts(tmp_path / "b", {}).check("paired", "", PAIR) is True  # something is there
    assert facts(tmp_path / "c", {}).check("paired", "", PAIR) is True  # no up script at all
    assert describe("paired", "", PAIR, True) == "every `sql/*.up.sql` has a `sql/*.down.sql`"
    assert describe("paired", "", PAIR, False) == "some `sql/*.up.sql` has no `sql/*.down.sql`"


def test_a_pair_looks_through_no_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    tree(outside, ["001.down.sql"])
    tree(tmp_path / "ws", ["sql/001.up.sql"])
    (tmp_path / "ws" / "down").symlink_to(outside)
    found = Facts(Workspace(str(tmp_path), "ws"), Record("S"))
    with pytest.raises(UnsafePath, match="symbolic link"):
        found.check("paired", "", "sql/*.up.sql down/*.down.sql")


def test_some_match_listed_in_a_ledger(tmp_path: Path) -> None:
    param = r".seen T-\d+"
    found = facts(tmp_path, {"notes.md": "T-1 and T-2\n", ".seen": "T-2\n"})
    assert found.check("listed", "notes.md", param) is True
    assert found.check("unlisted", "notes.md", param) is True  # T-1: both at once
    found = facts(tmp_path / "b", {"notes.md": "T-1\n", ".seen": "T-10\nT-1 x\n"})
    assert found.check("listed", "notes.md", param) is False  # a line, not part of one
    assert facts(tmp_path / "c", {"notes.md": "T-1\n"}).check("listed", "notes.md", param) is False
    assert facts(tmp_path / "d", {".seen": "T-1\n"}).check("listed", "notes.md", param) is False
    assert set(implied("listed", "notes.md", param)) == {
        ("matches", "notes.md", r"T-\d+"),
        ("exists", ".seen", ""),  # a missing ledger lists nothing
        ("exists", "notes.md", ""),
    }
    assert describe("listed", "notes.md", param, False) == (
        "no match of `T-\\d+` in notes.md is listed in `.seen`"
    )


TABLES_PLAN = """# Plan

## Tables

- orders
- invoices

## Checklist

- a
- the
"""
TABLE_NAME = r"^- (\w+)$"


def test_a_ledger_scoped_to_a_section_reads_only_that_section(tmp_path: Path) -> None:
    scoped = ledger_param(".applied", TABLE_NAME, "Tables")
    whole = ledger_param(".applied", TABLE_NAME)
    assert whole == ".applied ^- (\\w+)$"  # unscoped: the parameter it always had
    assert ledger_parts(scoped) == (".applied", TABLE_NAME, "Tables")
    found = facts(tmp_path, {"plan.md": TABLES_PLAN, ".applied": "orders\ninvoices\n"})
    assert found.check("unlisted", "plan.md", scoped) is False  # the checklist is not asked
    assert found.check("unlisted", "plan.md", whole) is True  # `a` and `the` are not listed
    assert found.check("listed", "plan.md", scoped) is True
    found = facts(tmp_path / "b", {"plan.md": TABLES_PLAN, ".applied": "a\nthe\n"})
    assert found.check("unlisted", "plan.md", scoped) is True
    assert found.check("listed", "plan.md", scoped) is False
    assert found.check("listed", "plan.md", whole) is True
    # Under a section the file lacks there are no matches: neither fact holds, and the
    # phrases that say "no" of it say the section is there (as `items` does).
    found = facts(tmp_path / "c", {"plan.md": "# Plan\n\n- orders\n"})
    assert found.check("unlisted", "plan.md", scoped) is False
    assert found.check("listed", "plan.md", scoped) is False
    assert found.check("section", "plan.md", "Tables") is False
    assert ("section", "plan.md", "Tables") in implied("unlisted", "plan.md", scoped)
    assert ("section", "plan.md", "Tables") not in implied("unlisted", "plan.md", whole)
    assert implies(("unlisted", "plan.md", scoped), ("unlisted", "plan.md", whole))
    assert not implies(("unlisted", "plan.md", whole), ("unlisted", "plan.md", scoped))
    assert describe("unlisted", "plan.md", scoped, True) == (
        'plan.md has matches of `^- (\\w+)$` under "Tables" not listed in `.applied`'
    )
    assert describe("unlisted", "plan.md", scoped, False, absent=True) == (
        'every match of `^- (\\w+)$` under "Tables" in plan.md is listed in `.applied`'
    )
    assert describe("listed", "plan.md", scoped, False) == (
        'plan.md has no section "Tables" with matches of `^- (\\w+)$` listed in `.applied`'
    )


def test_a_ledger_parameter_that_would_read_as_scoped_is_written_scoped() -> None:
    odd = ledger_param('["a",', '"b", "c"]')
    assert odd.startswith("[") and ledger_parts(odd) == ('["a",', '"b", "c"]', "")
    assert record_target('["a", "b"]') == '["[\\"a\\", \\"b\\"]", ""]'
    assert record_parts(record_target('["a", "b"]')) == ('["a", "b"]', "")
    assert record_target("x") == "x" and record_parts("x") == ("x", "")
    assert record_parts(record_target("x", "Tables")) == ("x", "Tables")


def test_a_file_implies_the_globs_its_path_matches_and_globs_their_wider_globs() -> None:
    assert implies(("exists", "docs/a.md", ""), ("glob", "", "docs/*.md"))
    assert implies(("exists", "docs/x/a.md", ""), ("glob", "", "**/*.md"))
    assert not implies(("exists", "docs/.a.md", ""), ("glob", "", "docs/*.md"))
    assert not implies(("exists", "a.md", ""), ("glob", "", "docs/*.md"))
    assert implies(("glob", "", "docs/a*.md"), ("glob", "", "docs/*.md"))
    assert implies(("glob", "", "docs/a?.md"), ("glob", "", "docs/a*"))
    assert not implies(("glob", "", "docs/*.md"), ("glob", "", "docs/a*.md"))
    assert not implies(("glob", "", "docs/*"), ("glob", "", "docs/?"))


NAMES = st.sampled_from(["a", "b", ".h", "x.md", "y.txt", "ab.md"])
PARTS = st.sampled_from(["*", "*.md", "a", "?", ".h", ".*", "x.*", "a*", "*b*", "?.md"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(NAMES, min_size=1, max_size=3).map("/".join), max_size=8),
    st.lists(PARTS | st.just("**"), min_size=1, max_size=3).map("/".join),
)
def test_the_walk_finds_exactly_the_paths_the_glob_names(paths: list[str], pattern: str) -> None:
    """`Workspace.glob` and `probes.glob_path` (which the implications use) agree."""
    if pattern.endswith("**"):
        pattern += "/*"
    with tempfile.TemporaryDirectory() as top:
        folder = Path(top) / "ws"
        folder.mkdir()
        for path in paths:
            try:
                tree(folder, [path])
            except (FileExistsError, NotADirectoryError, IsADirectoryError):
                continue  # a file where a folder would be, or the reverse
        there = {str(p.relative_to(folder)) for p in folder.rglob("*")}
        found = Workspace(top, "ws").glob(pattern)
        assert set(found) == {p for p in there if glob_path(p, pattern)}, (pattern, there)


@given(
    st.lists(PARTS, min_size=1, max_size=2).map("/".join),
    st.lists(PARTS, min_size=1, max_size=2).map("/".join),
    st.lists(st.lists(NAMES, min_size=1, max_size=2).map("/".join), max_size=6),
)
def test_a_glob_within_another_names_nothing_the_other_does_not(
    narrow: str, wide: str, paths: list[str]
) -> None:
    if glob_within(narrow, wide):
        for path in paths:
            assert not glob_path(path, narrow) or glob_path(path, wide), (path, narrow, wide)


def test_a_long_glob_is_compared_without_exhausting_the_stack() -> None:
    """Two globs as long as a clause may be: compared by a table, not by recursion."""
    long = "a" * 995
    assert not glob_within(long + "*", "*" + long)
    assert glob_within(long + "b.md", "*b.md")
    assert glob_within(long + "?", long + "?")


# -- counts of what a JSON query selects, and of checked items --------------------------


def _features(*statuses: str) -> str:
    listed = [{"id": f"F-{i}", "status": s} for i, s in enumerate(statuses)]
    return json.dumps({"features": listed})


def test_a_count_of_a_query_counts_the_objects_it_selects(tmp_path: Path) -> None:
    pending = "features[status=pending]"
    two = facts(tmp_path / "two", {"list.json": _features("pending", "done", "pending")})
    one = facts(tmp_path / "one", {"list.json": _features("pending", "done", "done")})
    assert two.check("count_at_least", "list.json", f"2 {pending}") is True
    assert one.check("count_at_least", "list.json", f"2 {pending}") is False
    assert one.check("count_at_least", "list.json", f"1 {pending}") is True
    # A key's list counts by its items; a missing file or key counts none.
    assert one.check("count_at_least", "list.json", "3 features") is True
    assert one.check("count_at_least", "list.json", "4 features") is False
    assert one.check("count_at_least", "list.json", "1 nothing") is False
    assert facts(tmp_path / "none", {}).check("count_at_least", "list.json", "1 features") is False
    # `$name` in a filter is the state file's field, as in any query.
    other = facts(
        tmp_path / "other",
        {"list.json": _features("pending", "pending")},
        current="F-0",
    )
    assert other.check("count_at_least", "list.json", f"1 {pending}[id!=$current]") is True
    assert other.check("count_at_least", "list.json", f"2 {pending}[id!=$current]") is False
    # A Markdown file's frontmatter is counted the same way.
    tags = facts(tmp_path / "md", {"task.md": "---\ntags: [a, b]\n---\n# Task\n"})
    assert tags.check("count_at_least", "task.md", "2 tags") is True
    assert tags.check("count_at_least", "task.md", "3 tags") is False


def test_a_count_implies_smaller_counts_of_the_query_and_of_it_with_fewer_filters() -> None:
    pending = "features[status=pending]"
    assert implies(
        ("count_at_least", "l.json", f"3 {pending}"), ("count_at_least", "l.json", f"2 {pending}")
    )
    assert implies(
        ("count_at_least", "l.json", f"2 {pending}"), ("count_at_least", "l.json", "2 features")
    )
    assert implies(
        ("count_at_least", "l.json", f"2 {pending}[id!=$x]"),
        ("count_at_least", "l.json", f"1 {pending}"),
    )
    assert not implies(
        ("count_at_least", "l.json", "2 features"), ("count_at_least", "l.json", f"2 {pending}")
    )
    assert not implies(
        ("count_at_least", "l.json", f"2 {pending}"), ("count_at_least", "l.json", f"3 {pending}")
    )
    assert not implies(
        ("count_at_least", "l.json", f"2 {pending}.id"), ("count_at_least", "l.json", "2 features")
    )
    assert not implies(
        ("count_at_least", "l.json", "2 features"), ("count_at_least", "m.json", "2 features")
    )
    assert not implies(("count_at_least", "l.md", "2 Risks"), ("items_at_least", "l.md", "2 Risks"))
    assert implied("count_at_least", "l.json", f"2 {pending}") == [("exists", "l.json", "")]
    assert describe("count_at_least", "l.json", f"2 {pending}", True) == (
        f"l.json has at least 2 `{pending}`"
    )
    assert describe("count_at_least", "t.md", "3 tags", False) == (
        "t.md frontmatter has fewer than 3 `tags`"
    )


def test_checked_items_are_counted_as_items_are(tmp_path: Path) -> None:
    text = "## Risks\n- [x] Fire\n- [X] Flood\n- [ ] Drought\n- [x]\n"
    found = facts(tmp_path, {"plan.md": text})
    assert found.check("checked_at_least", "plan.md", "2 Risks") is True
    assert found.check("checked_at_least", "plan.md", "3 Risks") is False  # not the empty one
    assert facts(tmp_path / "x", {}).check("checked_at_least", "plan.md", "1 Risks") is False
    assert implies(("checked_at_least", "p.md", "3 S"), ("items_at_least", "p.md", "2 S"))
    assert not implies(("checked_at_least", "p.md", "3 S"), ("unchecked_at_least", "p.md", "1 S"))
    assert implied("checked_at_least", "p.md", "2 S") == [
        ("items", "p.md", "S"),
        ("section", "p.md", "S"),
        ("exists", "p.md", ""),
    ]
    assert describe("checked_at_least", "p.md", "2 S", False) == (
        'p.md has no section "S" with at least 2 checked items'
    )


def test_a_count_of_what_a_filter_keeps_is_at_least_one_exactly_when_the_query_has_a_value(
    tmp_path: Path,
) -> None:
    pending = "features[status=pending]"
    some, two = ("field", "l.json", pending), ("count_at_least", "l.json", f"2 {pending}")
    assert implies(two, some) and implies(some, ("count_at_least", "l.json", f"1 {pending}"))
    assert not implies(some, two)
    # What is counted is a value (null is not counted), so any query counted has one; a
    # list of no values (`[""]`) is a value, and counts none.
    assert implies(
        ("count_at_least", "l.json", "2 features.id"), ("field", "l.json", "features.id")
    )
    assert not implies(("field", "l.json", "features"), ("count_at_least", "l.json", "1 features"))
    for statuses in ((), ("done",), ("pending",), ("pending", "pending")):
        found = facts(
            tmp_path / str(len(statuses)) / "_".join(statuses), {"l.json": _features(*statuses)}
        )
        for a, b in ((two, some), (some, ("count_at_least", "l.json", f"1 {pending}"))):
            assert not found.check(*a) or found.check(*b), (statuses, a, b)
        assert found.check(*some) == found.check("count_at_least", "l.json", f"1 {pending}")


def test_a_number_matches_a_pattern_as_it_is_written_and_true_matches_none() -> None:
    from spellbook.facts.json_values import compare

    assert compare(1234, "~", "^[0-9]+$")
    assert compare(1.5, "~", r"^1\.5$")
    assert not compare(1234, "~", "[A-Za-z]")
    assert not compare(True, "~", "true")  # `true` is no text
    assert not compare(None, "~", ".*")
    assert not compare([1, 2], "~", "1")


def test_what_is_no_value_is_not_counted() -> None:
    """A count counts values, as `F has `Q`` means one: null, false and empty text,
    lists and objects are none; 0 and an object with keys are."""
    from spellbook.facts.json_values import count_of, select

    assert count_of(select({"tickets": None}, "tickets", {})) == 0
    assert count_of(select({"tickets": [None, False, "", {}, []]}, "tickets", {})) == 0
    assert count_of(select({"tickets": [0, {"id": 1}, "a"]}, "tickets", {})) == 3
    assert count_of(select({"approved": False}, "approved", {})) == 0


# -- files of the repository, named from its top (`/tests/a.py`) -----------------------


def repository(tmp_path: Path) -> Facts:
    """A repository with a workspace `ws`, tests at its top, git's own folder, a link out
    of the repository, and a link to a file beside the tests."""
    root = tmp_path / "repo"
    for name, text in {
        "ws/plan.md": "# Plan\n",
        "ws/tests/test_feature.py": "in the workspace\n",
        "tests/test_feature.py": "def test_feature(): pass\n",
        "sql/001.up.sql": "create table a;\n",
        "sql/001.down.sql": "drop table a;\n",
        ".git/config": "[core]\n",
        "git~1/config": "[core]\n",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def test_secret(): pass\n", encoding="utf-8")
    os.symlink(outside, root / "out")
    os.symlink(outside / "secret.py", root / "tests" / "test_link.py")
    return Facts(Workspace(str(root), "ws"), Record("S"))


def test_a_repository_file_is_read_from_the_repository_s_top(tmp_path: Path) -> None:
    found = repository(tmp_path)
    assert found.check("exists", "/tests/test_feature.py", "")
    assert found.check("exists", "tests/test_feature.py", "")  # the workspace's own
    assert not found.check("exists", "/tests/nothing.py", "")
    assert not found.check("exists", "/plan.md", "")  # the workspace's is not at the top
    assert found.check("matches", "/tests/test_feature.py", "def test_")
    assert not found.check("matches", "tests/test_feature.py", "def test_")
    assert found.check("glob", "", "/tests/test_*.py")
    assert found.check("glob", "", "/**/test_feature.py")
    assert found.check("paired", "", "/sql/*.up.sql /sql/*.down.sql")
    assert not found.check("paired", "", "/sql/*.down.sql /sql/*.sql.bak")
    assert found.workspace.glob("/tests/*.py") == ["/tests/test_feature.py", "/tests/test_link.py"]


@pytest.mark.parametrize(
    ("probe", "file", "param"),
    [
        ("exists", "/../outside/secret.py", ""),
        ("exists", "/tests/../../outside/secret.py", ""),
        ("exists", "//outside/secret.py", ""),
        ("exists", "/.git/config", ""),
        ("matches", "/.GIT/config", "core"),
        ("exists", "/git~1/config", ""),
        ("glob", "", "/../outside/*.py"),
        ("glob", "", "/.git/*"),
        ("matches", "/tests/test_link.py", "def"),  # a link to a file outside
        ("exists", "/out/secret.py", ""),  # a link on the way
        ("newer", "/out/secret.py", "plan.md"),
    ],
)
def test_a_repository_path_out_of_it_into_git_or_through_a_link_is_refused(
    tmp_path: Path, probe: str, file: str, param: str
) -> None:
    found = repository(tmp_path)
    with pytest.raises(UnsafePath):
        found.check(probe, file, param)


def test_a_repository_glob_enters_no_link_and_never_names_git_s_folder(tmp_path: Path) -> None:
    found = repository(tmp_path)
    assert not found.check("glob", "", "/out/*.py")
    assert not found.check("glob", "", "/*/secret.py")
    assert found.workspace.glob("/.*") == []  # `.git` is never named
    assert found.workspace.glob("/*/config") == []  # nor `git~1`, its short name
    # Read only; the compiler refuses a glob that may reach into the workspace folder.
    assert "/ws/plan.md" in found.workspace.glob("/*/plan.md")


def test_a_repository_file_is_read_within_the_read_limit(tmp_path: Path) -> None:
    found = repository(tmp_path)
    (tmp_path / "repo" / "big.log").write_bytes(b"x" * 20)
    found.workspace.fresh()
    assert found.workspace.read_text("/big.log", 20) == "x" * 20
    with pytest.raises(BadFile, match=r"big\.log"):
        found.workspace.read_text("/big.log", 19)


@pytest.mark.parametrize(
    "write",
    [
        lambda w: w.create("/tests/new.py", "x"),
        lambda w: w.replace("/tests/test_feature.py", b"x"),
        lambda w: w.remove("/tests/test_feature.py"),
        lambda w: w.move("plan.md", "/plan.md"),
        lambda w: w.is_file("/tests/test_feature.py", "moving"),
        lambda w: w.unwritable("/tests/new.py"),
    ],
)
def test_a_repository_file_is_never_written(tmp_path: Path, write: object) -> None:
    found = repository(tmp_path)
    before = sorted(p.name for p in (tmp_path / "repo").rglob("*"))
    with pytest.raises(UnsafePath, match="only reads"):
        write(found.workspace)  # type: ignore[operator]
    assert sorted(p.name for p in (tmp_path / "repo").rglob("*")) == before
    assert (tmp_path / "repo" / "tests" / "test_feature.py").read_text().startswith("def")


def test_a_repository_file_and_a_workspace_glob_imply_nothing_of_each_other() -> None:
    """`/x.py` is at the repository's top, `**/*.py` in the workspace folder: neither
    says anything of the other (a `**` that took the leading `/` for a folder would)."""
    assert not glob_path("/x.py", "**/*.py")
    assert not glob_path("x.py", "/*.py")
    assert glob_path("/tests/x.py", "/tests/*.py")
    assert not glob_within("/*.py", "*/*.py")
    assert not glob_within("*.py", "/*.py")
    assert glob_within("/tests/a*.py", "/tests/*.py")
    assert not implies(("exists", "/x.py", ""), ("glob", "", "**/*.py"))
    assert implies(("exists", "/tests/x.py", ""), ("glob", "", "/tests/*.py"))
    assert partner("/sql/003.up.sql", "/sql/*.up.sql", "/sql/*.down.sql") == "/sql/003.down.sql"
    assert partner("/sql/003.up.sql", "/sql/*.up.sql", "down/*.sql") == "down/003.sql"


def test_some_file_a_glob_matches_is_newer_than_a_file(tmp_path: Path) -> None:
    """A test written since the feature list was: some name the glob matches was modified
    after the file; none, or a missing file, is not."""
    found = facts(tmp_path, {"list.json": "{}", "tests/test_a.py": "", "tests/test_b.py": ""})
    ws = tmp_path / "ws"
    os.utime(ws / "list.json", ns=(2_000, 2_000))
    os.utime(ws / "tests" / "test_a.py", ns=(1_000, 1_000))
    os.utime(ws / "tests" / "test_b.py", ns=(2_000, 2_000))  # as old: not newer
    param = "tests/test_*.py"
    assert found.check("newer_some", "list.json", param) is False
    os.utime(ws / "tests" / "test_b.py", ns=(3_000, 3_000))
    assert facts(tmp_path, {}).check("newer_some", "list.json", param) is True
    assert facts(tmp_path, {}).check("newer_some", "gone.json", param) is False
    assert facts(tmp_path, {}).check("newer_some", "list.json", "tests/x_*.py") is False
    assert ("glob", "", param) in implied("newer_some", "list.json", param)
    assert ("exists", "list.json", "") in implied("newer_some", "list.json", param)
    said = describe("newer_some", "list.json", param, True)
    assert said == "some `tests/test_*.py` is newer than list.json"
    assert describe("newer_some", "list.json", param, False).startswith("no `tests/")


# -- facts of one JSON query together, as the runtime checks them and the verifier sees them


class _Values:
    """A file's JSON value as the checks ask for it: `MISSING` for no file."""

    def __init__(self, data: object) -> None:
        self.data = data
        self.record = Record("S")

    def exists(self, name: str) -> bool:
        return self.data is not _MISSING

    def json(self, name: str) -> object:
        return None if self.data is _MISSING else self.data


_MISSING = object()
# Values a query may select: no value (null, false, empty text, lists and objects), values,
# lists of them (with "" beside another value, or alone), lists in lists, objects.
_ONE = ["", None, False, True, 0, 3, 5, 1.5, -1, "x", "xa", "y", {}, {"m": ""}, {"m": "x"}]
_LISTS: list[object] = [[], [""], ["", "x"], [None], [False], ["x"], ["x", "y"], ["x", "x"]]
_LISTS += [[1, 9], [0], [3], [3, 3], ["", "x", "y"], [[""]], [{}], [[], "x"], [None, 3]]
_LISTS += [["xa", ""], [{"m": 1}], [False, 0], [None, "x", "y"], [False, 0, 3]]


def _data(query: str) -> list[object]:
    """Files in which `query` selects no value, each value above, or two of them."""
    found: list[object] = [_MISSING, None, {}, []]
    nest = (lambda v: {"k": v}) if query == "k" else (lambda v: {"a": {"k": v}})
    found += [nest(v) for v in (*_ONE, *_LISTS)]
    pairs = [[{"k": a}, {"k": b}] for a in _ONE for b in _ONE if a is not b]
    found += pairs if query == "k" else [{"a": p} for p in pairs]  # a file that is a list
    return found


def _family(query: str) -> list[tuple[str, str, str]]:
    """A query's facts: it has a value, its values compared, counted."""
    compared = [("=", ""), ("=", None), ("=", False), ("=", "x"), ("=", 0), ("=", 3)]
    compared += [("!=", ""), ("!=", "x"), ("!=", None), ("<", 3), (">=", 3)]
    compared += [("~", "^x"), ("~", "x*")]  # a pattern the empty text does not match, one all do
    return [
        ("field", "r.json", query),
        *(value(query, op, operand) for op, operand in compared),
        *(("count_at_least", "r.json", f"{n} {query}") for n in (1, 2)),
    ]


def _seen(facts: list[tuple[str, str, str]], data: object) -> tuple[bool, ...] | None:
    """What the runtime's own checks answer of `data`; None where the cast stops."""
    from spellbook.facts.probes import PROBES

    try:
        return tuple(PROBES[f[0]].check(_Values(data), f[1], f[2]) for f in facts)  # type: ignore[arg-type]
    except BadFile:
        return None


def _one_value(query: str, data: object) -> bool:
    """Whether the query selects one value that is no list, or none."""
    from spellbook.facts.json_values import select

    if data is _MISSING:
        return True
    found = select(data, query, {})
    return len(found) <= 1 and not any(isinstance(v, list) for v in found)


# Pairs the verifier lets hold so that no value can: what makes them so takes a third fact
# (`has k` with neither `k = "x"` nor `k ≠ "x"`), or knowing which patterns match every
# number's text (`x*` does, so any number compared by order matches it).
_NO_VALUE_CAN = {
    (("value", "<", 3), True, ("value", "~", "x*"), False),
    (("value", ">=", 3), True, ("value", "~", "x*"), False),
    (("value", "~", "^x"), True, ("value", "~", "x*"), False),
}
# Pairs only several values make so, that `needs_several` does not tell: a pattern is not
# looked into where the other fact leaves a query any of many values (no number matches `^x`).
_NOT_TOLD = {
    (("value", "<", 3), True, ("value", "~", "^x"), True),
    (("value", ">=", 3), True, ("value", "~", "^x"), True),
}


@pytest.mark.parametrize("query", ["k", "a.k"])
def test_two_facts_of_one_query_hold_together_in_the_verifier_s_worlds_as_at_run_time(
    query: str,
) -> None:
    """For each pair of facts of one query, each held or not: the verifier's model lets them
    be so exactly where some file's value makes the runtime's checks answer so (never a live
    rule called dead, never a world no file makes); and `needs_several` says exactly which
    of them only a list, or a query selecting several values, makes so."""
    from itertools import combinations

    from codegen.logic import Worlds, closure
    from codegen.model import Atom
    from spellbook.facts.implications import needs_several

    files = _data(query)
    family = _family(query)
    wrong = []
    for a, b in combinations(family, 2):
        atoms = closure([Atom(*a), Atom(*b)])
        space = Worlds(atoms)
        allowed = {
            tuple(bool(w >> i & 1) for i in range(len(atoms)))
            for w in range(1 << len(atoms))
            if space.consistent >> w & 1
        }
        at = [atoms.index(Atom(*a)), atoms.index(Atom(*b))]
        one: set[tuple[bool, ...]] = set()
        several: set[tuple[bool, ...]] = set()
        for data in files:
            seen = _seen([(x.probe, x.file, x.param) for x in atoms], data)
            if seen is None:
                continue
            # Soundness: every world a file makes, the verifier keeps.
            assert seen in allowed, (a, b, data, seen)
            (one if _one_value(query, data) else several).add(tuple(seen[i] for i in at))
        said = {tuple(world[i] for i in at) for world in allowed}
        for held in product((True, False), repeat=2):
            short = (_short(a), held[0], _short(b), held[1])
            if held in said and held not in one | several and short not in _NO_VALUE_CAN:
                wrong.append(("no file makes", short))
            if held in one | several:
                only_several = held not in one
                told = needs_several(a, held[0], b, held[1])
                if told != only_several and short not in _NOT_TOLD:
                    wrong.append(("only several" if only_several else "one value", short))
    assert not wrong, wrong


def _short(fact: tuple[str, str, str]) -> tuple[object, ...]:
    if fact[0] == "value":
        from spellbook.facts.json_values import comparison

        _, op, operand = comparison(fact[2])
        return ("value", op, operand)
    return (fact[0], fact[2].partition(" ")[0] if fact[0] == "count_at_least" else "")


def test_a_filter_keeps_an_item_without_its_key_as_other_and_reads_true_as_json_s() -> None:
    # `items[status!=done]` left out an item with no status yet, so "no unfinished item"
    # held while work was unstarted; `[approved=true]` kept the text "true" too.
    from spellbook.facts.json_values import select

    board = {"items": [{"id": "intro"}, {"id": "proof", "status": "done"}, "loose"]}
    assert select(board, "items[status!=done]", {}) == [{"id": "intro"}]
    assert select(board, "items[status=done]", {}) == [{"id": "proof", "status": "done"}]
    review = {"r": [{"n": "a", "ok": "true"}, {"n": "b", "ok": True}, {"n": "c", "ok": None}]}
    assert [x["n"] for x in select(review, "r[ok=true]", {})] == ["b"]
    assert [x["n"] for x in select(review, "r[ok!=true]", {})] == ["a", "c"]
    assert [x["n"] for x in select(review, "r[ok=null]", {})] == ["c"]


def test_a_glob_never_names_the_runtime_s_own_files(tmp_path: Path) -> None:
    # `no *.json` never held once the workflow kept its state file in the folder: the
    # glob named state.json (and its backups), which no rule means.
    files = {
        "state.json": "{}",
        "state.json.bad-20261127T101500Z": "{}",
        "review.json": "{}",
        ".intent.json": "{}",
    }
    found = facts(tmp_path, files)
    found.own = ("state.json",)
    assert found.glob("*.json") == ["review.json"]
    assert found.glob("state.json*") == []
    (tmp_path / "ws" / "review.json").unlink()
    again = facts(tmp_path, {})
    again.own = ("state.json",)
    assert again.check("glob", "", "*.json") is False


def test_frontmatter_compared_with_text_is_the_text_as_written(tmp_path: Path) -> None:
    # YAML reads `yes` as true, `NO` as false, `1.10` as 1.1 and `12:30` as 750; a
    # condition comparing with text or a pattern means what the file shows.
    text = "---\nreviewed: yes\ncountry: NO\nversion: 1.10\nstarts: 12:30 # local\n---\n"
    found = facts(tmp_path, {"draft.md": text})

    def holds(key: str, op: str, operand: object) -> bool:
        return found.check("value", "draft.md", comparison_param(key, op, operand))

    assert holds("reviewed", "=", "yes") and not holds("reviewed", "!=", "yes")
    assert holds("reviewed", "=", True)  # as YAML reads it, too
    assert holds("country", "=", "NO") and not holds("country", "=", "no")
    assert holds("version", "~", r"^1\.10$") and holds("version", "=", "1.10")
    assert holds("version", "=", 1.1) and not holds("version", "=", "1.1")
    assert holds("starts", "=", "12:30") and holds("starts", ">", 700)
    # The line YAML keeps (the last of a key written twice), a tab before a comment, a
    # quoted key: as YAML reads them.
    for text in (
        "---\nreviewed: no\nreviewed: yes\n---\n",
        "---\nreviewed: yes\t# ok\n---\n",
        '---\n"reviewed": yes\n---\n',
    ):
        found = facts(tmp_path / str(abs(hash(text))), {"draft.md": text})
        assert holds("reviewed", "=", "yes") and not holds("reviewed", "=", "no"), text
    # JSON is JSON: `true` is never the text "true".
    found = facts(tmp_path / "j", {"r.json": '{"ok": true, "v": 1.10}'})
    assert not found.check("value", "r.json", comparison_param("ok", "=", "true"))
    assert not found.check("value", "r.json", comparison_param("v", "~", r"^1\.10$"))


def test_frontmatter_below_the_top_compared_with_text_is_the_text_as_written(
    tmp_path: Path,
) -> None:
    # A nested key or a list's items were still YAML 1.1's: one indent level flipped
    # `meta.version ~ ^1\.10` and `tags = "yes"` to false with no word.
    text = (
        "---\nmeta:\n  version: 1.10\nrelease:\n  time: 12:30\ntags: [yes, 1.10]\n"
        "steps:\n  - no\n  - done\n---\n"
    )
    found = facts(tmp_path, {"task.md": text})

    def holds(key: str, op: str, operand: object) -> bool:
        return found.check("value", "task.md", comparison_param(key, op, operand))

    assert holds("meta.version", "~", r"^1\.10$") and holds("meta.version", "=", "1.10")
    assert holds("release.time", "=", "12:30") and holds("release.time", ">", 700)
    assert holds("tags", "=", "yes") and holds("tags", "=", "1.10") and holds("tags", "=", True)
    assert holds("steps", "=", "no") and not holds("steps", "=", "false")
    assert holds("meta.version", "=", 1.1)  # compared with a number, as YAML reads it


def test_an_item_boxed_otherwise_than_ticked_is_an_item_not_ticked(tmp_path: Path) -> None:
    text = "## Checks\n- [x] spelling\n- [/] links (half done)\n* [-] legal\n- [1] see notes\n"
    assert real_items(text, "", "Checks") == [True, False, False]  # `[1]` is no box
    found = facts(tmp_path, {"d.md": text})
    assert found.check("unchecked", "d.md", "Checks") is True
    assert found.check("checked_at_least", "d.md", "2 Checks") is False


def test_an_empty_item_s_text_on_the_next_line_is_text_where_it_counts_as_an_item() -> None:
    """`- [ ]` then `a` (its text, run on): an item, whose text `a` was dropped as a line
    of the template's, so `items` held without `section_text` (found by hypothesis)."""
    assert real_items("## S\n- [ ]\na", "## S\na", "S") == [False]
    assert real_lines("## S\n- [ ]\na", "## S\na", "S") == ["a"]


def test_an_empty_item_never_takes_the_text_after_a_heading_for_its_own() -> None:
    """`- [ ]` then `### Notes` and a paragraph: the paragraph under the sub-heading was
    the empty item's text, so `F has checklist items under "Tasks"` held for an empty
    box. The item stays empty; the paragraph is the section's text as before."""
    from spellbook.facts.sections import checklist

    text = "## Tasks\n- [ ]\n### Notes\nSome paragraph.\n"
    assert checklist(text, "Tasks") == [(False, "")]
    assert real_items(text, "", "Tasks") == []
    assert real_lines(text, "", "Tasks") == ["Some paragraph."]
    ran_on = "## Tasks\n- [ ]\n  run on\n### Notes\nSome paragraph.\n"
    assert checklist(ran_on, "Tasks") == [(False, "run on")]
