"""The generic core's probes at run time, against real files, as the compiler reads them."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spellbook.disk.state_file import Record
from spellbook.disk.store import READ_LIMIT, Workspace
from spellbook.facts.answers import Facts
from spellbook.facts.implications import implied, implies
from spellbook.facts.probes import PROBES
from spellbook.facts.sections import checklist
from tests.support.commands import clean, spell
from tests.support.workspaces import (
    set_state,
    write,
)

ROOT = Path(__file__).resolve().parents[2]


def facts(tmp_path: Path, files: dict[str, str], **extra: object) -> Facts:
    folder = tmp_path / "ws"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return Facts(Workspace(str(tmp_path), "ws"), Record("S", extra=dict(extra)))


def test_a_missing_file_matches_nothing_not_even_what_empty_text_would(tmp_path: Path) -> None:
    found = facts(tmp_path, {})
    assert found.check("matches", "plan.md", "^(?!.*TBD)") is False
    assert found.check("exists", "plan.md", "") is False


@pytest.mark.parametrize(
    ("query", "holds"),
    [
        ("items[done=false]", True),
        ("items[done=true]", False),
        ("items[owner=null]", True),
        ("items[count=0]", True),
        ("items.count", True),  # 0 is a value
        ("items.owner", False),  # null is not
        ("items[id!=$current]", False),  # the one item is the current one
        ("items[id=$current][done=false]", True),
    ],
)
def test_queries_compare_json_values_as_json_writes_them(
    tmp_path: Path, query: str, holds: bool
) -> None:
    data = {"items": [{"id": "a", "done": False, "owner": None, "count": 0}]}
    found = facts(tmp_path, {"list.json": "\ufeff" + json.dumps(data)}, current="a")
    assert found.check("field", "list.json", query) is holds


def test_checklist_reads_headings_without_a_regular_expression() -> None:
    text = "## Acceptance Criteria" + " " * 100_000 + "#" * 50_000 + "\n- [ ] one\n"
    assert checklist(text, "Acceptance Criteria") == [(False, "one")]


@given(st.text(alphabet=" \t-*+.)[]xX ab019\u0663\u00b2\xa0", max_size=16))
def test_an_item_is_read_as_the_pattern_of_a_checklist_item_reads_it(line: str) -> None:
    pattern = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\](.*)")
    found = pattern.match(line)
    expected = [] if found is None else [(found.group(1) != " ", " ".join(found.group(2).split()))]
    assert checklist("# Tasks\n" + line, "Tasks") == expected


def test_the_template_s_own_items_and_empty_items_are_not_items(tmp_path: Path) -> None:
    found = facts(tmp_path, {"plan.md": "## Goals\n- [ ] Example goal\n- [ ]\n"})
    found.template = lambda name: "## Goals\n- [ ] Example goal\n" if name == "plan.md" else ""
    assert found.check("items", "plan.md", "Goals") is False
    (tmp_path / "ws" / "plan.md").write_text("## Goals\n- [x] Example goal\n- [ ] Real one\n")
    fresh = Facts(found.workspace, found.record, template=found.template)
    assert fresh.check("unchecked", "plan.md", "Goals") is True


# -- `F is filled in`: text that is neither blank nor the template's ------------------

TEMPLATE = "# Plan\n\n## Goal\n\nWhat should be true when this work is done.\n"


@pytest.mark.parametrize(
    ("text", "template", "filled"),
    [
        (None, TEMPLATE, False),  # missing
        ("", TEMPLATE, False),  # emptied to 0 bytes
        (" \n\t\n", TEMPLATE, False),  # blank
        ("\ufeff\n", TEMPLATE, False),  # a byte order mark and a line feed
        (TEMPLATE, TEMPLATE, False),  # as it was created
        ("# Plan\n## Goal\nWhat should be  true\nwhen this work is done.", TEMPLATE, False),
        ("# Plan\n\n## Goal\n\nThe greeter prints hello.\n", TEMPLATE, True),
        ("", "", False),  # made empty, with no template
        ("\n \n", "", False),
        ("Notes.\n", "", True),
    ],
    ids=[
        "missing",
        "empty",
        "blank",
        "bom",
        "template",
        "template reflowed",
        "written",
        "no template, empty",
        "no template, blank",
        "no template, written",
    ],
)
def test_filled_in_is_text_neither_blank_nor_the_template_s(
    tmp_path: Path, text: str | None, template: str, filled: bool
) -> None:
    found = facts(tmp_path, {} if text is None else {"plan.md": text})
    found.template = lambda name: template
    assert found.check("edited", "plan.md", "") is filled


# -- "no" of a section: the section is there, and none of what it counts -------------


def reads(tmp_path: Path, condition: str, text: str | None, template: str = "") -> bool:
    """Whether `condition`, read as the compiler reads it, holds of plan.md's `text`
    (None: no plan.md)."""
    from codegen.read.conditions import parse_condition

    read = parse_condition(condition)
    assert not read.unknown, read.why
    tmp_path.mkdir()
    found = facts(tmp_path, {} if text is None else {"plan.md": text})
    found.template = lambda name: template
    return any(
        all(found.check(lit.atom.probe, lit.atom.file, lit.atom.param) is lit.positive for lit in c)
        for c in read.clauses
    )


PREFLIGHT = "# Release\n\n## Pre-flight\n\n- [x] tests pass\n- [x] notes written\n"
SECTIONS = {
    "missing": None,
    "no heading": "# Release\n\n- [x] tests pass\n",
    "heading spelt otherwise": PREFLIGHT.replace("Pre-flight", "Preflight"),
    "heading in a code fence": "# Release\n\n```\n## Pre-flight\n```\n- [x] tests pass\n",
    "all checked": PREFLIGHT,
    "one unchecked": PREFLIGHT.replace("[x] notes", "[ ] notes"),
    "empty section": "# Release\n\n## Pre-flight\n\n## Notes\n\nShip it.\n",
}


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        (
            'plan.md has no unchecked items under "Pre-flight"',
            {"all checked", "empty section"},
        ),
        ('plan.md has no checklist items under "Pre-flight"', {"empty section"}),
        ('plan.md has no text under "Pre-flight"', {"empty section"}),
        (
            'plan.md has fewer than 2 unchecked items under "Pre-flight"',
            {"all checked", "one unchecked", "empty section"},
        ),
        ('plan.md has a section "Pre-flight"', {"all checked", "one unchecked", "empty section"}),
        ('plan.md has unchecked items under "Pre-flight"', {"one unchecked"}),
        # The negation alone: a missing file, or a missing section, has no unchecked items.
        (
            'plan.md has no section "Pre-flight" with unchecked items',
            {
                "missing",
                "no heading",
                "heading spelt otherwise",
                "heading in a code fence",
                "all checked",
                "empty section",
            },
        ),
        (
            'NOT plan.md has no unchecked items under "Pre-flight"',
            {"missing", "no heading", "heading spelt otherwise", "heading in a code fence"}
            | {"one unchecked"},
        ),
    ],
)
def test_no_items_under_a_section_holds_only_where_the_section_is(
    tmp_path: Path, condition: str, holds: set[str]
) -> None:
    found = {case for case, text in SECTIONS.items() if reads(tmp_path / case, condition, text)}
    assert found == holds


def test_a_template_s_untouched_section_is_there_with_no_items(tmp_path: Path) -> None:
    template = "# Plan\n\n## Acceptance Criteria\n\n- [ ] A first criterion\n"
    no_unchecked = 'plan.md has no unchecked items under "Acceptance Criteria"'
    assert reads(tmp_path / "a", no_unchecked, template, template) is True
    emptied = template.replace("## Acceptance Criteria", "## Criteria")
    assert reads(tmp_path / "b", no_unchecked, emptied, template) is False


def test_limits_of_one_counter_imply_each_other() -> None:
    assert implies(("below", "", "attempts<3"), ("below", "", "attempts<5"))
    assert not implies(("below", "", "attempts<5"), ("below", "", "attempts<3"))
    assert not implies(("below", "", "attempts<3"), ("below", "", "tries<5"))
    assert implies(("over_minutes", "", "30"), ("over_minutes", "", "10"))
    assert implied("field", "f.json", "x]") == [("exists", "f.json", "")]


def test_the_probes_table_of_reading_specs_names_every_probe_but_unknown() -> None:
    # The records in PROBES are the one source; the docs' table must not drift from them.
    text = (ROOT / "docs" / "guide" / "reading-specs.md").read_text(encoding="utf-8")
    lines = text.split("| fact (probe) |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    first = [line.strip().split("|")[1] for line in lines if line.strip().startswith("|")]
    listed = [name for cell in first for name in re.findall(r"`(\w+)`", cell)]
    assert sorted(listed) == sorted(name for name in PROBES if name != "unknown")


ADVERSARIAL = {
    "heading of spaces": "# Plan" + " " * (READ_LIMIT - 100) + "x\n",
    "a line of URLs": ("https://acme.atlassian.net/browse/ENG-1?" * 30_000)[: READ_LIMIT - 100],
    "almost URLs": ("https://acme.atlassian.ne" * 50_000)[: READ_LIMIT - 100],
    "unclosed items": ("- [ " * 300_000)[: READ_LIMIT - 100],
    "many headings": ("#" * 7 + " \n" + "## Acceptance Criteria\n- [ ] a\n" * 30_000)[
        : READ_LIMIT - 100
    ],
    "fences": ("```\n- [ ] x\n" * 100_000)[: READ_LIMIT - 100],
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", list(ADVERSARIAL), ids=list(ADVERSARIAL))
def test_probes_finish_on_adversarial_files_at_the_read_limit(tmp_path: Path, case: str) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    text = ADVERSARIAL[case]
    assert len(text.encode()) <= READ_LIMIT
    for name in ("plan.md", "task.md", "comments.md", "review-task.md"):
        write(tmp_path, name, text)
    start = time.perf_counter()
    result = spell(tmp_path, "lumos")
    took = time.perf_counter() - start
    print(f"\n{case}: spell lumos on four {len(text) / 1e6:.1f} MB files: {took:.2f} s")
    assert result.returncode == 0, clean(result)


def test_one_item_is_said_as_one() -> None:
    from spellbook.facts.wording import describe

    assert describe("checked_at_least", "plan.md", "1 Risks", True) == (
        'plan.md has at least 1 checked item under "Risks"'
    )
    assert describe("items_at_least", "plan.md", "2 Risks", False) == (
        'plan.md has no section "Risks" with at least 2 checklist items'
    )
    assert describe("checked_at_least", "plan.md", "1 Risks", False) == (
        'plan.md has no section "Risks" with at least 1 checked item'
    )


def test_a_section_s_words_in_another_case_are_the_same_section() -> None:
    """At cast time a section is a heading with its words, in any case; the verifier
    reasons the same way."""
    from spellbook.facts.implications import implies
    from spellbook.facts.sections import has_section

    text = "# Plan\n\n## Known Risks\n\n- [ ] one\n"
    assert has_section(text, "risks") and has_section(text, "Risk")
    assert implies(("section", "plan.md", "Known Risks"), ("section", "plan.md", "risk"))
    assert not implies(("section", "plan.md", "risk"), ("section", "plan.md", "Known Risks"))
    for kind in ("unchecked", "items", "section_text"):
        assert implies((kind, "plan.md", "Risks"), (kind, "plan.md", "RISKS"))
    assert implies(
        ("unchecked_at_least", "plan.md", "2 Risks"), ("items_at_least", "plan.md", "1 risks")
    )


KEYED = {"iocs": {"a": {"status": "open"}}}  # a list written as an object keyed by id


@pytest.mark.parametrize(
    ("data", "probe", "param", "where"),
    [
        (KEYED, "count_at_least", "1 iocs[status=open]", "`iocs` is an object without"),
        (KEYED, "field", "iocs[status=open]", "`iocs` is an object without `status`"),
        ({"iocs": "none"}, "field", "iocs[status!=done]", '`iocs` is "none"'),
        ({"a": {"status": "open"}}, "field", "[status=open]", "the file is an object without"),
        (
            {"iocs": {"count": 3}},  # one item with no status yet, or a summary: not known
            "field",
            "iocs[status=done]",
            "`iocs` is an object without `status`, not a list, so the filter `[status=done]` has "
            "no items "
            'to keep; if it is one item whose `status` is not set yet, give it `"status": null`',
        ),
        (
            KEYED,
            "value",
            '["iocs[status=open].id", "=", "a"]',
            "`iocs` is an object without",
        ),
    ],
)
def test_a_filter_over_what_is_not_a_list_stops_the_cast_naming_file_and_query(
    tmp_path: Path, data: object, probe: str, param: str, where: str
) -> None:
    """An IOC list written as an object keyed by id: `iocs[status=open]` kept none of
    it, so `no open indicator` held with one open. Its items are not known: the cast
    stops, naming the file and where the query met no list."""
    from spellbook.records.errors import BadFile

    found = facts(tmp_path, {"iocs.json": json.dumps(data)})
    with pytest.raises(BadFile, match=re.escape(f"iocs.json: {where}")) as err:
        found.check(probe, "iocs.json", param)
    assert "not a list, so the filter" in str(err.value)


def test_a_query_by_key_of_a_file_that_is_a_list_stops_the_cast(tmp_path: Path) -> None:
    """`features[status=pending]` over `[{"id": "a", "status": "pending"}]`: no key of a
    list is there, and "feature-list.json has no pending feature" was said of a file with
    one. Empty placeholders (`{}`, `false`, `""`) are no items, as null and [] are."""
    from spellbook.records.errors import BadFile

    listed = facts(tmp_path, {"f.json": '[{"id": "a", "status": "pending"}]'})
    with pytest.raises(BadFile, match=r"f\.json: the file is a list, not an object with `feat"):
        listed.check("field", "f.json", "features[status=pending]")
    with pytest.raises(BadFile, match="the file is a list"):
        listed.check("value", "f.json", '["n", "=", 1]')
    for empty in ("{}", "false", '""', "null", "[]"):
        (tmp_path / "ws" / "e.json").write_text(f'{{"features": {empty}}}')
        found = Facts(Workspace(str(tmp_path), "ws"), Record("S"))
        assert found.check("field", "e.json", "features[status=pending]") is False, empty


def test_a_filter_on_a_number_compares_its_value_not_how_it_is_written(tmp_path: Path) -> None:
    """`runs[lr=0.10]` missed `"lr": 0.1`, `[epochs=1]` missed `"epochs": 1.0`: the filter
    compared spellings while the `value` fact compares numbers, and "no run reached the
    threshold" was said of a file where one had. Text that reads as the number still
    matches, as written; `true` is still never the text "true"."""
    runs = [{"lr": 0.1, "epochs": 1.0, "big": 10**20}, {"lr": "0.25", "epochs": 2}]
    found = facts(tmp_path, {"m.json": json.dumps({"runs": runs})})
    for query, holds in (
        ("runs[lr=0.10]", True),
        ("runs[lr=1e-1]", True),
        ("runs[epochs=1]", True),
        ("runs[epochs!=1][lr=0.25]", True),  # the text "0.25", as written
        ("runs[lr=0.11]", False),
        ("runs[epochs=2.0][lr=0.25]", True),
        ("runs[big=100000000000000000000]", True),
        ("runs[big=100000000000000000001]", False),  # whole numbers exactly
        ("runs[lr!=0.1][epochs=2]", True),
        ("runs[epochs=01]", False),  # not a number as JSON writes one: text
        ("runs[big=" + "1" * 5000 + "]", False),  # more digits than Python reads: no error
    ):
        assert found.check("field", "m.json", query) is holds, query


def test_a_filter_after_a_filter_and_over_null_reads_as_before(tmp_path: Path) -> None:
    data = {"items": [{"a": 1, "b": 2}, {"a": 1}], "none": None}
    data["ticket"] = {"status": "done", "title": "x"}  # one object: an item the filter keeps
    found = facts(tmp_path, {"f.json": json.dumps(data)})
    assert found.check("field", "f.json", "ticket[status=done]") is True
    assert found.check("field", "f.json", "ticket[status=open]") is False
    assert found.check("field", "f.json", "items[a=1][b=2]") is True
    assert found.check("field", "f.json", "items[a=1][b=3]") is False
    assert found.check("count_at_least", "f.json", "2 items[a=1]") is True
    assert found.check("field", "f.json", "none[a=1]") is False
    assert found.check("field", "f.json", "gone[a=1]") is False


def test_text_that_reads_as_a_number_compared_by_order_stops_the_cast(tmp_path: Path) -> None:
    """`"auc": "0.81"` (many loggers write metrics as text) was silently below 0.75: the
    "weak result" rule fired and wrote "No run reached an AUC of 0.75" into the write-up.
    Text has no order: the cast stops, naming the file, the query and the text."""
    from spellbook.records.errors import BadFile

    runs = {"runs": [{"status": "done", "auc": "0.81"}, {"status": "done", "auc": 0.5}]}
    found = facts(tmp_path, {"m.json": json.dumps(runs)})
    with pytest.raises(
        BadFile, match=r'm\.json: `runs\.auc` holds the text "0\.81", which has no order'
    ):
        found.check("value", "m.json", '["runs.auc", ">=", 0.75]')
    # as text, or a word that is no number: as before
    assert found.check("value", "m.json", '["runs.auc", "=", "0.81"]') is True
    (tmp_path / "b").mkdir()
    named = facts(tmp_path / "b", {"m.json": json.dumps({"level": "high"})})
    assert named.check("value", "m.json", '["level", ">=", 3]') is False
