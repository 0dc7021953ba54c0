"""Every row and sentence the verifier suggests, pasted where it says, reads as what it
means: the finding it fixes is gone, and the machine has no state or trigger the
suggestion does not name. One corpus of specs, one per shape a transition table comes
in, each round-tripped through every suggestion its findings make."""

from __future__ import annotations

import re

import pytest

from codegen import SpecError
from codegen.analyse import analyse
from codegen.analyse.findings import Finding, Severity
from codegen.model import Spec
from codegen.pipeline import parse_machines_text

# Each spec leaves a spell out of some state (`missing_cell`) and declares no goal
# (`no_goal`), so each suggests a row or a sentence of both kinds.
CORPUS = {
    "from-event-to": """\
# Orders

| From | Event | To |
|---|---|---|
| draft | submit | review |
| review | approve | done |
| review | reject | draft |
""",
    "from-event-to-who": """\
# Parcels

| From | Event | To | Who |
|------|-------|----|-----|
| (start) | label printed | packed | desk |
| packed | courier collects | in transit | courier |
| in transit | handed over | delivered | courier |
""",
    "from-event-to-refusals": """\
# Orders

| From | Event | To |
|---|---|---|
| draft | submit | done |
| done | submit | [BLOCKED] |
""",
    "from-to-event": """\
# Orders

| From | To | Event |
|---|---|---|
| draft | review | submit |
| review | done | approve |
| review | draft | reject |
""",
    "from-to-trigger": """\
# Orders

| From State | To State | Trigger |
|---|---|---|
| draft | review | submit |
| review | done | approve |
| review | draft | reject |
""",
    "from-to-guard": """\
# Ticket

State is kept in `.tk/state.json`.

| From | To | Guard |
|------|----|-------|
| new | open | - |
| open | closed | notes.md exists |
| open | new | - |
""",
    "id-column": """\
# Orders

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| T1 | draft | submit | - | review | - | Submitted. |
| T2 | review | approve | - | done | - | Approved. |
| T3 | review | reject | - | draft | - | Rejected. |
""",
    "sections": """\
# Shop

## Orders

| From | Event | To |
|---|---|---|
| draft | submit | placed |
| placed | ship | sent |

## Parcels

| From | To | Trigger |
|---|---|---|
| packed | shipped | load |
| shipped | packed | recall |
| shipped | delivered | drop |
""",
}

_BACKTICKED = re.compile(r"`([^`]+)`")
_SENTENCE = "Transitions not listed are rejected."


def _machines(text: str) -> dict[str, Spec]:
    return {m.section: m.spec for m in parse_machines_text(text, "spec.md")}


def _names(spec: Spec) -> tuple[set[str], set[str]]:
    return {s.name for s in spec.states}, {s.name for s in spec.spells}


def _errors(findings: list[Finding]) -> set[str]:
    return {f.kind for f in findings if f.severity is Severity.ERROR}


def _table_end(lines: list[str], line: int) -> int:
    """The index after the last row of the table holding 1-based `line`."""
    at = line - 1
    assert lines[at].startswith("|"), f"line {line} is no table row: {lines[at]!r}"
    while at < len(lines) and lines[at].startswith("|"):
        at += 1
    return at


def _pasted(text: str, section: str, finding: Finding, suggestion: str) -> str:
    """`text` with `suggestion` pasted where the finding says: a row after the last row
    of the machine's table, the sentence in the spec or its section, a States list at
    the end of the spec."""
    lines = text.splitlines()
    assert finding.line is not None
    if suggestion.startswith("| "):
        lines.insert(_table_end(lines, finding.line), suggestion)
    elif suggestion == _SENTENCE:
        if section:
            assert f"in its section {section!r}" in finding.message
            heading = lines.index(f"## {section}")
            lines[heading + 1 : heading + 1] = ["", suggestion]
        else:
            assert "in the spec" in finding.message
            lines += ["", suggestion]
    else:
        raise AssertionError(f"no way to paste {suggestion!r}")
    return "\n".join(lines) + "\n"


def _states_list(text: str, finding: Finding, spec: Spec) -> str:
    """`text` with the States list the no_goal finding spells out, each state it names an
    item, `- *Goal*: yes` under each state no rule leads out of."""
    items = re.findall(r"`\d+\. \*\*(\w+)\*\*`", finding.message)
    assert items == [s.name for s in spec.states]
    leaves = {r.source for r in spec.rules if r.changes_state}
    listed = ["", "## States", ""]
    for number, name in enumerate(items, 1):
        listed.append(f"{number}. **{name}**")
        if name not in leaves:
            listed.append("    - *Goal*: yes")
    return text + "\n".join(listed) + "\n"


def _suggestions(finding: Finding) -> list[str]:
    """The rows and sentences a finding offers to paste."""
    return [
        said
        for said in _BACKTICKED.findall(finding.message)
        if said.startswith("| ") or said == _SENTENCE
    ]


def _cases() -> list[tuple[str, str, str, int]]:
    """(shape, section, finding kind, index of the suggestion) for every suggestion."""
    cases = []
    for shape, text in CORPUS.items():
        for section, spec in _machines(text).items():
            for finding in analyse(spec):
                if finding.kind in ("missing_cell", "no_goal"):
                    for i, _ in enumerate(_suggestions(finding)):
                        cases.append((shape, section, f"{finding.kind}:{finding.spell}", i))
    return cases


def test_the_corpus_suggests_a_row_or_a_sentence_for_each_shape() -> None:
    shapes = {shape for shape, _, _, _ in _cases()}
    assert shapes | set(_LISTS) == set(CORPUS)
    kinds = {(shape, kind.split(":")[0]) for shape, _, kind, _ in _cases()}
    assert {(shape, "no_goal") for shape in CORPUS if shape not in _LISTS} <= kinds


# The shapes whose no_goal finding spells out a States list: an ID-column table, and a
# light one whose end state has a row of its own.
_LISTS = ("id-column", "from-event-to-refusals")


@pytest.mark.parametrize(("shape", "section", "about", "index"), _cases())
def test_a_suggestion_pasted_where_it_says_fixes_its_finding_and_names_nothing_new(
    shape: str, section: str, about: str, index: int
) -> None:
    text = CORPUS[shape]
    before = _machines(text)[section]
    kind, _, spell = about.partition(":")
    finding = next(f for f in analyse(before) if f.kind == kind and (f.spell or "None") == spell)
    suggestion = _suggestions(finding)[index]
    changed = _pasted(text, section, finding, suggestion)
    try:
        after = _machines(changed)[section]
    except SpecError as err:
        pytest.fail(f"pasting {suggestion!r} makes the spec unreadable: {err}")
    assert _names(after) == _names(before), f"pasting {suggestion!r} named something new"
    found = analyse(after)
    if kind == "missing_cell":
        assert not [f for f in found if f.kind == kind and f.spell == finding.spell]
    else:
        assert not [f for f in found if f.kind == kind]
    assert _errors(found) <= _errors(analyse(before))


@pytest.mark.parametrize("shape", sorted(CORPUS))
def test_every_suggestion_pasted_at_once_reads_as_what_each_says(shape: str) -> None:
    # Rows suggested by several findings carry IDs of their own: pasted together, no two
    # collide, and the spell each names is refused wherever no row names it.
    text = CORPUS[shape]
    changed = text
    for section, spec in _machines(text).items():
        for finding in analyse(spec):
            rows = [s for s in _suggestions(finding) if s.startswith("| ")]
            if finding.kind == "missing_cell" and rows:
                changed = _pasted(changed, section, finding, rows[0])
    after = _machines(changed)
    for section, spec in _machines(text).items():
        assert _names(after[section]) == _names(spec)
        found = analyse(after[section])
        assert "duplicate_id" not in _errors(found)
        refused = {
            f.spell
            for f in analyse(spec)
            if f.kind == "missing_cell" and "add the row" in f.message
        }
        assert not [f for f in found if f.kind == "missing_cell" and f.spell in refused]


@pytest.mark.parametrize("shape", _LISTS)
def test_the_states_list_a_no_goal_finding_spells_out_declares_the_goal(shape: str) -> None:
    text = CORPUS[shape]
    before = _machines(text)[""]
    (finding,) = [f for f in analyse(before) if f.kind == "no_goal"]
    after = _machines(_states_list(text, finding, before))[""]
    assert _names(after) == _names(before)
    assert [s.name for s in after.states if s.goal] == ["done"]
    assert not [f for f in analyse(after) if f.kind == "no_goal"]
    assert _errors(analyse(after)) <= _errors(analyse(before))


# A row a light table refuses, and the row its error says to write in its place: the
# To cell is an end marker on an event, or the event is a marker of none.
REFUSED = {
    "from-event-to": "| done | finish | (none) |",
    "from-to-event": "| done | (none) | finish |",
    "from-to-trigger": "| done | (end) | finish |",
    "from-event-to-none": "| done | (none) | Terminal state |",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_terminal_row_an_error_suggests_is_read_as_a_terminal_state(case: str) -> None:
    bad = REFUSED[case]
    text = CORPUS[case.removesuffix("-none")]
    lines = text.splitlines()
    lines.insert(_table_end(lines, 5), bad)
    with pytest.raises(SpecError) as raised:
        _machines("\n".join(lines) + "\n")
    said = _BACKTICKED.findall(str(raised.value))
    rows = [s for s in said if s.startswith("| done |") and "(none)" in s and "<" not in s]
    assert rows, str(raised.value)
    lines[lines.index(bad)] = rows[-1]
    fixed = _machines("\n".join(lines) + "\n")[""]
    assert _names(fixed) == _names(_machines(text)[""])
    assert [s.name for s in fixed.states if s.goal] == ["done"]
