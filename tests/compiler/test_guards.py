"""A spec's State Guards list: each guard read into the states its spell is allowed and
blocked in and checked against the tables (`guard_disagrees`), or said not to be read
(`guard_unread`); never a rule its author believes in that nothing checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import load_spec, parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.reading import read_spec
from codegen.pipeline import parse_machines_text
from codegen.read.guards import read_guards, resolve
from codegen.read.markdown import read_blocks

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec" / "STATE_MACHINE.md"
GUARDS = ("guard_disagrees", "guard_unread")


def _with_guard(line: str) -> tuple[str, int]:
    """spec/STATE_MACHINE.md with one more guard after its three, and that guard's line."""
    text = SPEC.read_text(encoding="utf-8")
    last = "3. **Reverto Guard**: Only allowed in PR states"
    at = text.index(last)
    end = text.index("\n", at)
    text = text[:end] + "\n" + line + text[end:]
    return text, text[: end + 1].count("\n") + 1


def test_the_three_guards_of_the_spec_are_read_and_agree_with_its_tables() -> None:
    spec = load_spec(SPEC, shown="spec/STATE_MACHINE.md")
    guards = read_spec(spec).guards
    # the list's three, then the one Usage field that claims and has no guard of the list
    assert [g.spell for g in guards] == ["Expecto", "Reparo", "Reverto", "Lumos"]
    assert not [g.problem for g in guards if g.problem]
    expecto, reparo, reverto, lumos = guards
    assert lumos.guard.usage and lumos.guard.line == 56 and len(lumos.allowed) == len(spec.states)
    assert expecto.allowed == ("GATHER_NEEDS_PLAN", "GATHER_EDITING")
    assert len(expecto.blocked) == len(spec.states) - 2
    assert reparo.blocked == ("PR_APPLIED_PENDING_ARCHIVE_G", "PR_APPLIED_PENDING_ARCHIVE_A")
    assert reparo.allowed == ()
    assert "PR_APPLIED_PENDING_ARCHIVE_A" in reverto.blocked
    assert all(s.startswith("PR_") for s in reverto.allowed) and len(reverto.allowed) == 8
    assert reverto.guard.notes == ("where Accio must be used to complete the archive",)
    assert not [f for f in analyse(spec) if f.kind in GUARDS]


def test_a_guard_the_tables_do_not_keep_is_said_at_its_line_naming_the_row() -> None:
    text, line = _with_guard("4. **Lumos Guard**: Blocked in ERROR states")
    spec = parse_spec_text(text, "spec.md")
    (found,) = [f for f in analyse(spec) if f.kind in GUARDS]
    assert found.kind == "guard_disagrees" and found.line == line
    assert found.rule == "L1" and found.spell == "Lumos"
    assert "ERROR_PLAN_MISSING" in found.states and "L1 (line 357)" in found.message
    assert "guard 'Lumos Guard'" in "\n".join(read_spec(spec).lines())


def test_a_comment_that_names_a_state_makes_the_guard_unread() -> None:
    text, line = _with_guard(
        "4. **Lumos Guard**: Blocked in ERROR_PLAN_MISSING since ERROR_TASK_MISSING is worse"
    )
    spec = parse_spec_text(text, "spec.md")
    (found,) = [f for f in analyse(spec) if f.kind in GUARDS]
    assert found.kind == "guard_unread" and found.line == line
    assert "names ERROR_TASK_MISSING, which is not read" in found.message


def test_a_guard_it_cannot_read_is_said_with_the_forms_that_read() -> None:
    text, line = _with_guard("4. **Lumos Guard**: Blocked while the plan is open")
    spec = parse_spec_text(text, "spec.md")
    (found,) = [f for f in analyse(spec) if f.kind in GUARDS]
    assert found.kind == "guard_unread" and found.line == line
    assert "Only allowed in STATES" in found.message


def test_a_spec_without_guards_reports_no_guards_in_its_reading() -> None:
    spec = load_spec(ROOT / "spec" / "SESSION_STATE_MACHINE.md")
    assert spec.guards == ()
    assert "guards" not in read_spec(spec).json()


_MACHINE = """# Door

| From | Event | To |
|---|---|---|
| closed | open | opened |
| opened | close | closed |
| opened | open | [BLOCKED] |

Transitions not listed are rejected.

## State Guards

1. **open Guard**: {guard}
"""


@pytest.mark.parametrize(
    ("guard", "kind"),
    [
        ("Only allowed in closed", None),
        ("Blocked in opened", None),
        # `close` in `closed` is not listed: the policy rejects it
        ("Blocked in all states except closed", None),
        ("Allowed in opened", "guard_disagrees"),
        # it lets `open` through in closed, and is blocked in opened: two findings
        ("Only allowed in opened", "guard_disagrees guard_disagrees"),
        ("Blocked if closed", "guard_disagrees"),
        ("Blocked in closed when the door is locked", "guard_unread"),
        ("Blocked in ajar", "guard_unread"),
        # `only` after the states is the `only` claim, not a condition
        ("Allowed in closed only", None),
        ("Allowed in opened only", "guard_disagrees guard_disagrees"),
        ("Blocked in opened only", "guard_unread"),
        # `as well as` joins one more state; it starts no comment
        ("Blocked in opened as well as closed", "guard_disagrees"),
        # the words that may begin a guard are one list, the Event cells' as well
        ("Blocked in closed as long as the door is locked", "guard_unread"),
        ("Blocked in closed (given a lock)", "guard_unread"),
        # `but` joins a comment here (and `but not` is the list's own `except`)
        ("Blocked in opened (but the bell still rings)", None),
        ("Never in opened", None),
        # a comment that makes a claim of its own says more than the sentence read
        ("Allowed in closed; never in opened", "guard_unread"),
        ("Allowed in closed. Blocked in opened.", "guard_unread"),
        ("Allowed in closed; blocked elsewhere", "guard_unread"),
        ("Allowed in closed \u2014 blocked everywhere else", "guard_unread"),
        ("Allowed in closed (nowhere else)", "guard_unread"),
        ("Allowed in closed (not in opened)", "guard_unread"),
        # a reason that uses such a word is a comment still
        ("Only allowed in closed, where the handle is available", None),
    ],
)
def test_guards_of_a_machine_of_light_tables(guard: str, kind: str | None) -> None:
    spec = parse_spec_text(_MACHINE.format(guard=guard), "door.md")
    found = [f.kind for f in analyse(spec) if f.kind in GUARDS]
    assert found == (kind.split() if kind else [])


def test_a_comment_that_says_where_else_the_spell_is_blocked_asks_for_only() -> None:
    spec = parse_spec_text(_MACHINE.format(guard="Allowed in closed; blocked elsewhere"), "d.md")
    (found,) = [f for f in analyse(spec) if f.kind == "guard_unread"]
    assert "'blocked elsewhere'" in found.message and "`Only allowed in closed`" in found.message


def test_a_rule_that_keeps_the_state_and_does_nothing_is_no_disagreement() -> None:
    text = _MACHINE.format(guard="Blocked in opened").replace(
        "| opened | open | [BLOCKED] |", "| opened | open | Same state |"
    )
    spec = parse_spec_text(text, "door.md")
    assert not [f for f in analyse(spec) if f.kind in GUARDS]


def test_the_policy_that_blocks_a_cell_is_named_where_a_guard_allows_the_spell() -> None:
    spec = parse_spec_text(
        _MACHINE.format(guard="Allowed in closed").replace("open G", "close G"), "d.md"
    )
    (found,) = [f for f in analyse(spec) if f.kind in GUARDS]
    assert "transitions not listed" in found.message and found.states == ("closed",)


_SHOP = (
    "# Shop\n\n{above}\n\n## Payment\n\n| From | Event | To |\n|---|---|---|\n"
    "| new | pay | paid |\n| paid | pay | [BLOCKED] |\n{inside}\n\n## Refund\n\n"
    "| From | Event | To |\n|---|---|---|\n| requested | approve | refunded |\n"
)


def test_a_guards_list_above_the_sections_is_no_machine_s() -> None:
    above = "### State Guards\n\n- **pay Guard**: Only allowed in new"
    text = _SHOP.format(above=above, inside="")
    for machine in parse_machines_text(text, "shop.md"):
        assert machine.spec.guards == ()
        (unread,) = [f for f in analyse(machine.spec) if f.kind in GUARDS]
        assert unread.kind == "guard_unread" and unread.line == 5
        assert "read by none of them" in unread.message


def test_a_guards_list_in_a_section_is_that_machine_s() -> None:
    inside = "\n### State Guards\n\n- **pay Guard**: Only allowed in new"
    payment, refund = parse_machines_text(_SHOP.format(above="", inside=inside), "shop.md")
    assert [g.title for g in payment.spec.guards] == ["pay Guard"]
    assert refund.spec.guards == ()
    assert not [f for m in (payment, refund) for f in analyse(m.spec) if f.kind in GUARDS]


def test_a_list_under_a_sub_heading_of_the_guards_is_read_too() -> None:
    blocks = read_blocks("## Guards\n\n### Paying\n\n- **pay**: Blocked in paid\n")
    (guard,) = read_guards(blocks)
    assert (guard.claim, guard.names, guard.problem) == ("blocked", ("paid",), "")


@pytest.mark.parametrize(
    ("name", "states"),
    [
        ("GATHER states", ("GATHER_A", "GATHER_B")),
        ("gather states", ("GATHER_A", "GATHER_B")),
        ("all states", ("GATHER_A", "GATHER_B", "PR_X_G", "PR_X_A", "PRX")),
        ("PR_X", ("PR_X_G", "PR_X_A")),
        ("PR_X_[G/A]", ("PR_X_G", "PR_X_A")),
        ("PR states", ("PR_X_G", "PR_X_A")),  # not PRX: a word, then `_`
        ("PRX", ("PRX",)),
        ("GATHER", ()),  # a word alone is no family of states
        ("PR review states", ()),
        ("gather a", ("GATHER_A",)),  # as a table writes a name: its identifier
    ],
)
def test_the_names_a_guard_gives_its_states(name: str, states: tuple[str, ...]) -> None:
    every = ("GATHER_A", "GATHER_B", "PR_X_G", "PR_X_A", "PRX")
    families = {"PR_X_[G/A]": ("PR_X_G", "PR_X_A"), "PR_X": ("PR_X_G", "PR_X_A")}
    assert resolve(name, every, families) == states


def test_a_title_that_says_guards_heads_no_guards_list() -> None:
    blocks = read_blocks(
        "# Guards\n\n## Spells\n\n1. **pay**\n\n## Guards\n\n- **pay**: Blocked in a\n"
    )
    assert [g.title for g in read_guards(blocks)] == ["pay"]


def test_guards_defined_by_name_under_a_guards_heading_are_no_state_guards() -> None:
    """`**isPaid**: the provider confirmed the charge` names no spell and says no claim: a
    guard of the tables' own defined, not a State Guard, so no `guard_unread` (which
    `--strict` fails on); an item naming a spell, or saying a claim, is still read."""
    table = (
        "# Checkout\n\nTransitions not listed are rejected.\n\n| From | Event | To |\n"
        "|---|---|---|\n| cart | pay | paid |\n| paid | - | (none) |\n\n## Guards\n\n"
    )
    defined = "- **isPaid**: the payment provider confirmed the charge.\n"
    spec = parse_spec_text(table + defined)
    assert not [f for f in analyse(spec) if f.kind in GUARDS]
    assert read_spec(spec).guards == ()
    for item in ("- **pay**: the payment provider says so\n", "- **isPaid**: Blocked in paid\n"):
        said = [f.kind for f in analyse(parse_spec_text(table + item)) if f.kind in GUARDS]
        assert said == ["guard_unread"], item


_SPELLS = """# Door

### Spells

1. **Open**
   - *Usage*: {usage}
2. **Close**
   - *Usage*: Closes the door

### States

1. **CLOSED**
2. **OPENED**

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
| O1 | CLOSED | Open | - | OPENED | Update state to OPENED | Opened |
| O2 | OPENED | Open | - | [BLOCKED] | No state change | Already open |
| C1 | OPENED | Close | - | CLOSED | Update state to CLOSED | Closed |
| C2 | CLOSED | Close | - | [BLOCKED] | No state change | Already closed |
{guards}"""


@pytest.mark.parametrize(
    ("usage", "kinds"),
    [
        ("Only allowed in CLOSED", []),
        ("Only available in OPENED", ["guard_disagrees", "guard_disagrees"]),
        ("Available in all states", ["guard_disagrees"]),
        ("Blocked in OPENED", []),
        # a Usage that claims in words the guards do not read is an info, not a warning
        ("Available in most states except where blocked", ["usage_unread"]),
        # a Usage that claims nothing is a description
        ("Opens the door", []),
    ],
)
def test_a_spells_usage_field_is_checked_as_a_guard(usage: str, kinds: list[str]) -> None:
    spec = parse_spec_text(_SPELLS.format(usage=usage, guards=""), "door.md")
    found = [f for f in analyse(spec) if f.kind in (*GUARDS, "usage_unread")]
    assert [f.kind for f in found] == kinds
    assert all(f.line == 6 for f in found)
    assert all("the Usage of Open says of Open" in f.message for f in found if "disag" in f.kind)


def test_a_usage_is_not_checked_where_the_guards_list_speaks_of_its_spell() -> None:
    guards = "\n### State Guards\n\n1. **Open Guard**: Only allowed in CLOSED\n"
    spec = parse_spec_text(_SPELLS.format(usage="Available in all states", guards=guards), "d.md")
    assert not [f for f in analyse(spec) if f.kind in (*GUARDS, "usage_unread")]
    (read,) = read_spec(spec).guards
    assert not read.guard.usage
