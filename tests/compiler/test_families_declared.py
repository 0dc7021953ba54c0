"""A family of states declared once in the States list, `**NAME_[G/A]**`: it declares
each member, in the notation's order, with the item's fields, and reads to the machine
its members declared one by one make (coverage, reachability, the generated module)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codegen import SpecError, load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.model import Spec
from codegen.render import render_machine
from tests.compiler.test_dialects import machine

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "cases"
FIXTURES = ROOT / "tests" / "data" / "fixtures"

HEAD = """# Incident

### Spells

1. **Page**
   - *Description*: pages someone
2. **Resolve**
   - *Description*: closes the incident

### States

"""
FAMILIES = """1. **ON_CALL_[P/S]**
    - *Description*: Looking into the incident
    - *Indicators*: notes.md exists
    - *Valid Actions*: Page, Resolve
2. **RESOLVED_[P/S]**
    - *Description*: Closed
    - *Valid Actions*: Page, Resolve
    - *Goal*: yes
"""
ONE_BY_ONE = """1. **ON_CALL_P**
    - *Description*: Looking into the incident
    - *Indicators*: notes.md exists
    - *Valid Actions*: Page, Resolve
2. **ON_CALL_S**
    - *Description*: Looking into the incident
    - *Indicators*: notes.md exists
    - *Valid Actions*: Page, Resolve
3. **RESOLVED_P**
    - *Description*: Closed
    - *Valid Actions*: Page, Resolve
    - *Goal*: yes
4. **RESOLVED_S**
    - *Description*: Closed
    - *Valid Actions*: Page, Resolve
    - *Goal*: yes
"""
TABLE = """
### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| T1 | ON_CALL_[P/S] | Resolve | - | RESOLVED_[P/S] | Update state to RESOLVED_[P/S] | Done |
| T2 | ON_CALL_P | Page | - | ON_CALL_S | Update state to ON_CALL_S | Paged |
| T3 | ON_CALL_S | Page | - | Same state | No state change | Already paged |
| T4 | RESOLVED_[P/S] | Page, Resolve | - | Same state | No state change | Closed |
"""
# T2 keeps ON_CALL_P where it is: nothing leads to ON_CALL_S or RESOLVED_S.
STUCK = TABLE.replace(
    "| ON_CALL_S | Update state to ON_CALL_S | Paged |", "| Same state | No state change | Paged |"
)


def line_of(text: str, words: str) -> int:
    return next(i for i, ln in enumerate(text.split("\n"), 1) if words in ln)


def found(spec: Spec) -> list[tuple[str, str, str | None]]:
    """The verifier's findings, where they were written aside."""
    return [(f.kind, f.message, f.state) for f in analyse(spec)]


def body(module: str) -> str:
    """A generated module without the lines that name its spec file and hash."""
    named = re.compile(r"(?i)sha256|fingerprint|^SPEC = |from '")
    return "\n".join(ln for ln in module.split("\n") if not named.search(ln))


def test_a_family_item_declares_each_member_in_the_notation_s_order() -> None:
    spec = parse_spec_text(HEAD + FAMILIES + TABLE)
    assert [s.name for s in spec.states] == ["ON_CALL_P", "ON_CALL_S", "RESOLVED_P", "RESOLVED_S"]
    assert [f.name for f in spec.families] == ["ON_CALL_[P/S]", "RESOLVED_[P/S]"]
    assert spec.initial == "ON_CALL_P"
    reversed_order = FAMILIES.replace("ON_CALL_[P/S]", "ON_CALL_[S/P]")
    assert parse_spec_text(HEAD + reversed_order + TABLE).initial == "ON_CALL_S"


def test_each_member_has_the_item_s_fields_and_line() -> None:
    text = HEAD + FAMILIES + TABLE
    spec = parse_spec_text(text)
    for name in ("ON_CALL_P", "ON_CALL_S"):
        state = spec.state(name)
        assert state.description == "Looking into the incident"
        assert state.indicators == "notes.md exists" and state.evidence and state.inferable
        assert [a.spell for a in state.valid_actions] == ["Page", "Resolve"]
        assert not state.goal
        assert state.line == line_of(text, "**ON_CALL_[P/S]**")
    assert spec.goals == ("RESOLVED_P", "RESOLVED_S")


@pytest.mark.parametrize("table", [TABLE, STUCK], ids=["covered", "unreachable members"])
def test_a_family_declared_once_is_its_members_declared_one_by_one(table: str) -> None:
    once = parse_spec_text(HEAD + FAMILIES + table, "spec.md")
    each = parse_spec_text(HEAD + ONE_BY_ONE + table, "spec.md")
    assert machine(once) == machine(each)
    assert once.families == tuple(
        f.__class__(f.name, f.base, f.members, f.suffixes, once.families[i].line)
        for i, f in enumerate(each.families)
    )
    assert found(once) == found(each)
    assert body(render_machine(once, "incident")) == body(render_machine(each, "incident"))


def test_a_member_no_rule_reaches_is_reported_at_the_family_s_line() -> None:
    text = HEAD + FAMILIES + STUCK
    unreachable = [f for f in analyse(parse_spec_text(text)) if f.kind == "unreachable_state"]
    assert [f.state for f in unreachable] == ["ON_CALL_S", "RESOLVED_S"]
    assert [f.line for f in unreachable] == [
        line_of(text, "**ON_CALL_[P/S]**"),
        line_of(text, "**RESOLVED_[P/S]**"),
    ]


def test_a_rule_over_a_member_the_family_does_not_declare_is_an_unknown_state() -> None:
    text = HEAD + FAMILIES.replace("ON_CALL_[P/S]", "ON_CALL_[P]") + TABLE
    unknown = [f for f in analyse(parse_spec_text(text)) if f.kind == "unknown_state"]
    assert unknown and all("ON_CALL_S" in f.message for f in unknown)


@pytest.mark.parametrize("separate_first", [False, True], ids=["family first", "state first"])
def test_a_member_also_declared_on_its_own_is_a_duplicate_state(separate_first: bool) -> None:
    alone = "1. **ON_CALL_S**\n    - *Description*: on its own\n"
    states = alone + FAMILIES if separate_first else FAMILIES + alone
    text = HEAD + states + TABLE
    (dup,) = [f for f in analyse(parse_spec_text(text)) if f.kind == "duplicate_state"]
    family, single = line_of(text, "**ON_CALL_[P/S]**"), line_of(text, "**ON_CALL_S**")
    later, first = (family, single) if separate_first else (single, family)
    assert (dup.state, dup.line, dup.severity.value) == ("ON_CALL_S", later, "error")
    assert f"first at line {first}" in dup.message


@pytest.mark.parametrize("title", ["ON_CALL_[P-S]", "ON_CALL_[]", "ON_CALL_[P/S", "ON CALL_[P/S]"])
def test_a_family_whose_members_are_not_names_is_refused_at_its_line(title: str) -> None:
    text = HEAD + FAMILIES.replace("ON_CALL_[P/S]", title, 1) + TABLE
    with pytest.raises(SpecError, match=r"not an identifier .*\*\*NAME_\[G/A\]\*\*") as err:
        parse_spec_text(text)
    assert err.value.line == line_of(text, f"**{title}**")


def test_a_formerly_family_names_the_member_with_the_same_suffix() -> None:
    closed = "    - *Description*: Closed\n"
    text = HEAD + FAMILIES.replace(closed, closed + "    - *Formerly*: DONE_[P/S]\n")
    spec = parse_spec_text(text + TABLE)
    assert spec.formerly == {"DONE_P": "RESOLVED_P", "DONE_S": "RESOLVED_S"}
    assert not [f for f in analyse(spec) if f.kind == "former_name"]


def test_the_golden_case_declared_once_generates_the_machine_of_the_one_by_one_case() -> None:
    once = (CASES / "families_declared" / "machine.py").read_text(encoding="utf-8")
    each = (CASES / "families" / "machine.py").read_text(encoding="utf-8")
    # The one-by-one case describes each member in its own words.
    descriptions = re.compile(r'^\s*description=".*",$', re.M)
    assert descriptions.sub("", body(once)) == descriptions.sub("", body(each))


@pytest.mark.parametrize("version", [2, 3])
def test_prettier_output_of_family_items_reads_to_the_same_machine(version: int) -> None:
    """`npx prettier@N --parser markdown < tests/data/cases/families_declared/spec.md`: Prettier 2
    writes `**MISSING_NOTES_[P/W]**` as `**MISSING*NOTES*[P/W]**`, both write `\\_[`."""
    pretty = load_spec(FIXTURES / f"prettier{version}_families_declared.md")
    assert machine(pretty) == machine(load_spec(CASES / "families_declared" / "spec.md"))
    titles = [f for f in analyse(pretty) if f.kind == "name_recovered" and "state " in f.message]
    if version == 2:
        (title,) = titles
        assert "'MISSING*NOTES*[P/W]' as 'MISSING_NOTES_[P/W]'" in title.message
        assert title.line == line_of(pretty_text(version), "**MISSING*NOTES*[P/W]**")
    else:
        assert titles == []


def pretty_text(version: int) -> str:
    return (FIXTURES / f"prettier{version}_families_declared.md").read_text(encoding="utf-8")
