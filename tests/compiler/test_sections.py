"""Several machines in one file (`codegen.read.sections`, `pipeline.load_machines`): one
machine per section where the sections say so or share no state, an error naming the
sections where they may be one machine or several, never one machine merged silently;
a file of one machine read exactly as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from codegen import SpecError, parse_spec_text
from codegen.analyse import analyse, errors
from codegen.pipeline import load_machines, parse_machines_text
from codegen.read.document import parse_document
from codegen.read.lexicon import ReadOptions
from codegen.read.markdown import Heading, read_blocks
from codegen.read.sections import machines, sections, select
from tests.support.specs import one_machine_cases

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "fixtures" / "machines"
DECLARED = (FIXTURES / "declared.md").read_text(encoding="utf-8")
UNDECLARED = (FIXTURES / "undeclared.md").read_text(encoding="utf-8")
DISJOINT = (FIXTURES / "disjoint.md").read_text(encoding="utf-8")
ONE_SECTION = (FIXTURES / "one_section.md").read_text(encoding="utf-8")


def _line(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(start))


def test_sections_that_declare_their_own_states_are_read_as_one_machine_each() -> None:
    found = parse_machines_text(DECLARED, "shop.md", options=ReadOptions())
    assert [(m.section, m.line) for m in found] == [
        ("Payment", _line(DECLARED, "## Payment")),
        ("Refund", _line(DECLARED, "## Refund")),
    ]
    payment, refund = (m.spec for m in found)
    assert [s.name for s in payment.states] == ["CREATED", "PROCESSING", "PAID"]
    assert [s.name for s in refund.states] == ["REQUESTED", "PROCESSING", "REFUNDED"]
    assert [r.id for r in payment.rows] == ["P1", "P2", "P3", "P4", "P5", "P6"]
    assert [r.id for r in refund.rows] == ["R1", "R2", "R3", "R4", "R5", "R6"]
    assert refund.initial == "REQUESTED"
    # Merged, the refund's rows were the payment's and REQUESTED a false unreachable state.
    assert [errors(analyse(m.spec)) for m in found] == [[], []]


def test_a_file_of_several_machines_read_as_one_is_an_error_not_a_merge() -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec_text(DECLARED, "shop.md", options=ReadOptions())
    message = str(caught.value)
    assert caught.value.line == _line(DECLARED, "## Payment")
    assert "2 machines, one per section" in message
    assert "'Payment' (line 6)" in message and "'Refund' (line 37)" in message
    assert 'section = "Payment"' in message and "--section" in message


def test_sections_that_share_a_state_and_declare_none_are_an_error_naming_both() -> None:
    with pytest.raises(SpecError) as caught:
        parse_machines_text(UNDECLARED, "shop.md", options=ReadOptions())
    err = caught.value
    payment, refund = _line(UNDECLARED, "## Payment"), _line(UNDECLARED, "## Refund")
    assert err.line == _line(UNDECLARED, "| R1 |")
    assert f"'Payment' (line {payment}) and 'Refund' (line {refund})" in err.message
    assert "share the state 'PROCESSING'" in err.message
    assert f"lines {_line(UNDECLARED, '| P1 |')} and {err.line}" in err.message
    assert "neither section declares its states" in err.message
    # The ways to say which reading is meant: one machine per section, one machine, or one.
    assert "declare each section's states in it" in err.message
    assert "declare its states once, above the sections" in err.message
    assert 'section = "Payment"' in err.message


@pytest.mark.parametrize("other", ["in review", "in-review", "`In review`", "IN REVIEW"])
def test_a_state_written_otherwise_in_another_section_is_still_shared(other: str) -> None:
    # `In review` and `in review` are one state of the tables' reading (`in_review`): the
    # sections were read as two machines, each with half of the moves.
    text = (
        "# Articles\n\n## Writing\n\n| From | Event | To |\n|---|---|---|\n"
        "| (start) | created | Draft |\n| Draft | submit | In review |\n\n"
        "## Reviewing\n\n| From | Event | To |\n|---|---|---|\n"
        f"| {other} | approve | Published |\n"
    )
    with pytest.raises(SpecError, match="share the state 'In review'"):
        machines(read_blocks(text))


def test_sections_that_share_no_state_are_two_machines() -> None:
    found = machines(read_blocks(DISJOINT))
    assert [(s.name, s.line) for s in found] == [("Door", 3), ("Lamp", 12)]
    assert found[0].blocks[0] is found[0].heading


def test_a_section_naming_states_by_what_they_are_may_share_any_of_them() -> None:
    text = DISJOINT.replace("| `on` | `off` |", "| any | `off` |")
    with pytest.raises(SpecError, match="may share states"):
        machines(read_blocks(text))


def test_states_declared_above_the_sections_make_the_file_one_machine() -> None:
    text = DISJOINT.replace("## Door", "**States**: closed, open, locked, off, on\n\n## Door")
    assert machines(read_blocks(text)) == ()


def test_a_one_section_file_reads_exactly_as_before() -> None:
    blocks = read_blocks(ONE_SECTION)
    assert machines(blocks) == ()
    assert sections(blocks) == ()
    (found,) = parse_machines_text(ONE_SECTION, "kettle.md")
    assert (found.section, found.line) == ("", 0)
    assert found.spec == parse_spec_text(ONE_SECTION, "kettle.md")
    assert parse_document(blocks) == parse_document(select(blocks, "kettle")[1])


def test_a_chosen_section_reads_only_its_blocks_the_title_and_the_terms_outside() -> None:
    terms = (
        "## Terms\n\n| Phrase | Means |\n|---|---|\n| the bank paid back | `refund.md` exists |\n\n"
    )
    text = DECLARED.replace("\n## Payment\n", f"\n{terms}## Payment\n").replace(
        "| refund.md exists |", "| the bank paid back |"
    )
    chosen, blocks = select(read_blocks(text), "REFUND")
    assert chosen.name == "Refund"
    headings = [b.text for b in blocks if isinstance(b, Heading)]
    assert headings == [
        "Shop payments: two machines, one per section",
        "Refund",
        "Spells",
        "States",
        "Refund Transitions",
    ]
    (found,) = parse_machines_text(text, "shop.md", options=ReadOptions(section="refund"))
    assert found.section == "Refund"
    assert [r.id for r in found.spec.rows] == ["R1", "R2", "R3", "R4", "R5", "R6"]
    assert [t.phrase for t in found.spec.terms] == ["the bank paid back"]
    assert found.spec.title == "Shop payments: two machines, one per section"
    assert "Pay" not in [s.name for s in found.spec.spells]
    assert not errors(analyse(found.spec))


def test_a_section_is_named_without_its_number_in_any_case() -> None:
    text = DECLARED.replace("\n## Payment\n", "\n## 1. Payment\n").replace(
        "\n## Refund\n", "\n## 2. Refund\n"
    )
    assert [m.section for m in parse_machines_text(text)] == ["Payment", "Refund"]
    assert parse_spec_text(text, options=ReadOptions(section="payment")).states[0].name == "CREATED"
    assert parse_spec_text(text, options=ReadOptions(section="2. refund")).states[0].name == (
        "REQUESTED"
    )


def test_an_unknown_section_is_an_error_listing_the_sections() -> None:
    with pytest.raises(SpecError) as caught:
        parse_spec_text(DECLARED, "shop.md", options=ReadOptions(section="Shipping"))
    assert caught.value.message == (
        "no section 'Shipping' holds a transition table; the sections are "
        "'Payment' (line 6), 'Refund' (line 37)"
    )
    with pytest.raises(SpecError, match="this file is one machine"):
        parse_spec_text(ONE_SECTION, "kettle.md", options=ReadOptions(section="Teapot"))


def test_an_error_in_one_machine_names_its_section() -> None:
    text = DECLARED.replace("### States\n\n1. **REQUESTED**", "### States\n\n1. **NOT A NAME**")
    with pytest.raises(SpecError) as caught:
        parse_machines_text(text, "shop.md")
    assert caught.value.message.startswith("in section 'Refund': state name 'NOT A NAME'")


def _specs() -> list[Path]:
    found = [
        *sorted((ROOT / "spec").glob("*.md")),
        *sorted((ROOT / "examples").glob("*/spec/*.md")),
        *one_machine_cases(ROOT),
        *sorted(p for p in (ROOT / "tests" / "data" / "fixtures").glob("*.md")),
    ]
    seed = Path("/work/shared/seeds/004_0cd903b1ded8a194.txt")
    later = sorted(Path("/work/shared/specs").glob("*.md"))
    return found + ([seed] if seed.is_file() else []) + later


@pytest.mark.parametrize(
    "path", _specs(), ids=lambda p: p.name if "cases" not in str(p) else p.parent.name
)
def test_every_spec_of_one_machine_stays_one(path: Path) -> None:
    assert machines(read_blocks(path.read_text(encoding="utf-8-sig"))) == ()


def test_load_machines_reads_a_file_as_its_project_configures_it(tmp_path: Path) -> None:
    spec = tmp_path / "shop.md"
    spec.write_text(DECLARED, encoding="utf-8")
    found = load_machines(spec, "shop.md", ReadOptions())
    assert [m.section for m in found] == ["Payment", "Refund"]
    (one,) = load_machines(spec, "shop.md", replace(ReadOptions(), section="Refund"))
    assert one.section == "Refund"


# A file of several machines, as a file of one machine names its state file: above them.
DESK = """\
# Desk

State is kept in `.desk/state.json`.

## Review

| From | Event | To |
|---|---|---|
| draft | submit | review |
| review | approve | draft |

Transitions not listed are rejected.

## Publishing

| From | Event | To |
|---|---|---|
| queued | publish | live |
| live | retract | queued |

Transitions not listed are rejected.
"""


@pytest.mark.parametrize("section", [None, "Review", "publishing"])
def test_a_state_file_named_above_the_sections_of_several_machines_is_an_error_at_its_line(
    section: str | None,
) -> None:
    # Before, the sentence was dropped: both machines kept their state in `state.json`.
    options = ReadOptions(section=section or "")
    with pytest.raises(SpecError) as caught:
        parse_machines_text(DESK, "desk.md", options=options)
    err = caught.value
    assert (err.path, err.line) == ("desk.md", 3)
    assert "the state file `.desk/state.json` is named above the sections" in err.message
    assert "'Review' (line 5), 'Publishing' (line 14)" in err.message
    assert "two machines cannot share one state file" in err.message
    assert "under 'Review' (line 5) the sentence State is kept in `.desk/review/state.json`" in (
        err.message
    )


def test_each_section_naming_its_own_state_file_is_read_with_it() -> None:
    text = DESK.replace("State is kept in `.desk/state.json`.\n\n", "")
    text = text.replace("## Review\n", "## Review\n\nState is kept in `.desk/review/state.json`.\n")
    text = text.replace(
        "## Publishing\n", "## Publishing\n\nState is kept in `./.desk/publishing/state.json`.\n"
    )
    found = parse_machines_text(text, "desk.md")
    assert [m.spec.state_file for m in found] == [
        ".desk/review/state.json",
        ".desk/publishing/state.json",
    ]
    # Said again above the sections, a section's own state file is no error.
    above = text.replace("# Desk\n", "# Desk\n\nReview keeps `.desk/review/state.json`.\n")
    assert [m.spec.state_file for m in parse_machines_text(above, "desk.md")] == [
        ".desk/review/state.json",
        ".desk/publishing/state.json",
    ]
    # A file of one machine still reads the sentence above its section.
    (one,) = parse_machines_text(DESK.split("## Publishing")[0], "desk.md")
    assert one.spec.state_file == ".desk/state.json"


_SHOP = (
    "# Shop\n\n{above}\n\n## Payment\n\n| From | Event | To |\n|---|---|---|\n"
    "| new | pay | paid |\n| paid | ship | shipped |\n\n## Refund\n\n"
    "| From | Event | To |\n|---|---|---|\n| requested | approve | refunded |\n"
    "| requested | deny | closed |\n{below}"
)


@pytest.mark.parametrize(
    ("above", "below"),
    [
        ("Transitions not listed are rejected.", ""),
        ("", "\n## Notes\n\nAll other transitions are invalid.\n"),
    ],
)
def test_a_policy_outside_every_section_is_every_machines(above: str, below: str) -> None:
    found = parse_machines_text(_SHOP.format(above=above, below=below), "shop.md")
    assert [m.spec.unlisted is not None for m in found] == [True, True]
    assert not [f for m in found for f in analyse(m.spec) if f.kind == "missing_cell"]


def test_an_initial_state_above_the_sections_is_the_machine_having_it() -> None:
    text = _SHOP.format(above="The machine starts in `paid`.", below="")
    payment, refund = parse_machines_text(text, "shop.md")
    assert payment.spec.initial == "paid" and refund.spec.initial == "requested"
    other = _SHOP.format(above="An order starts in `paid`.", below="")
    payment, _ = parse_machines_text(other, "shop.md")
    assert payment.spec.initial == "new"
    assert [f.line for f in analyse(payment.spec) if f.kind == "states_unread"] == [3]


_TWO_ORDERS = (
    "# Shop\n\n## Order\n\n| From | Event | To |\n|---|---|---|\n| new | pay | paid |\n\n"
    "## Order\n\n| From | Event | To |\n|---|---|---|\n| requested | deny | closed |\n"
)


def test_a_section_chosen_by_a_name_two_sections_are_headed_is_an_error_naming_both() -> None:
    with pytest.raises(SpecError) as caught:
        select(read_blocks(_TWO_ORDERS), "Order")
    assert caught.value.line == 9
    assert "'Order' (line 3), 'Order' (line 9)" in caught.value.message
    assert "rename one" in caught.value.message


_SUB = (
    "# Shop\n\n## Payment\n\n{above}### Happy path\n\n{happy}| From | Event | To |\n"
    "|---|---|---|\n| new | pay | paid |\n\n### Errors\n\n{errors}| From | Event | To |\n"
    "|---|---|---|\n| failed | retry | pending |\n"
)


def test_sub_sections_of_one_heading_sharing_no_state_are_an_error_not_two_machines() -> None:
    text = _SUB.format(above="", happy="", errors="")
    with pytest.raises(SpecError) as caught:
        parse_machines_text(text, "shop.md", options=ReadOptions())
    err = caught.value
    assert err.line == _line(text, "### Errors")
    assert "'Happy path' (line 5) and 'Errors' (line 11)" in err.message
    assert "under the heading 'Payment' (line 3)" in err.message
    assert "declare its states once under 'Payment'" in err.message


def test_sub_sections_of_one_heading_are_one_machine_or_two_as_their_states_say() -> None:
    one = _SUB.format(above="**States**: new, paid, failed, pending\n\n", happy="", errors="")
    (machine,) = parse_machines_text(one, "shop.md", options=ReadOptions())
    assert machine.section == "" and len(machine.spec.rows) == 2
    two = _SUB.format(
        above="", happy="**States**: new, paid\n\n", errors="**States**: failed, pending\n\n"
    )
    found = parse_machines_text(two, "shop.md", options=ReadOptions())
    assert [m.section for m in found] == ["Happy path", "Errors"]


def test_an_example_table_in_a_section_of_its_own_is_no_machine() -> None:
    text = (
        "# Shop\n\n## Order\n\n| From | Event | To |\n|---|---|---|\n| new | pay | paid |\n\n"
        "## Example of a refund (not part of the machine)\n\n| From | Event | To |\n"
        "|---|---|---|\n| requested | deny | closed |\n"
    )
    assert machines(read_blocks(text)) == ()
    (machine,) = parse_machines_text(text, "shop.md", options=ReadOptions())
    assert [s.name for s in machine.spec.states] == ["new", "paid"]


_DIAGRAM = "```mermaid\nstateDiagram-v2\n    [*] --> {start}\n    {start} --> {to}: pay\n```"


@pytest.mark.parametrize("section", ["", "Payment"])
def test_a_diagram_above_the_sections_is_the_machine_s_whose_states_it_draws(section: str) -> None:
    # Before, the diagram was dropped: no machine compared it, nothing said so.
    text = _SHOP.format(above=_DIAGRAM.format(start="new", to="shipped"), below="")
    found = parse_machines_text(text, "shop.md", options=ReadOptions(section=section))
    payment = found[0].spec
    assert len(payment.diagrams) == 1
    disagrees = [f.message for f in analyse(payment) if f.kind == "diagram_disagrees"]
    assert any("draws `new --> shipped: pay`, but no row moves" in m for m in disagrees)
    assert not [f for m in found[1:] for f in analyse(m.spec) if f.kind.startswith("diagram")]


@pytest.mark.parametrize(
    ("start", "to", "said"),
    [
        ("new", "requested", "draws states of 'Payment' (new); 'Refund' (requested)"),
        ("draft", "sent", "draws no state of any of them ('Payment' (line 9), 'Refund'"),
    ],
)
def test_a_diagram_above_the_sections_drawing_several_machines_or_none_is_said(
    start: str, to: str, said: str
) -> None:
    text = _SHOP.format(above=_DIAGRAM.format(start=start, to=to), below="")
    for machine in parse_machines_text(text, "shop.md"):
        assert machine.spec.diagrams == ()
        (unread,) = [f for f in analyse(machine.spec) if f.kind == "diagram_unread"]
        assert unread.line == 3 and said in unread.message
        assert "so it is compared with none of them" in unread.message


@pytest.mark.parametrize(
    "above",
    [
        "- The initial state is `paid`.",
        "> The initial state is `paid`.",
        "| State | Meaning |\n|---|---|\n| paid (initial) | paid for |",
    ],
)
def test_an_initial_state_above_the_sections_in_a_list_a_quote_or_a_table_is_read(
    above: str,
) -> None:
    payment, refund = parse_machines_text(_SHOP.format(above=above, below=""), "shop.md")
    assert payment.spec.initial == "paid" and refund.spec.initial == "requested"


@pytest.mark.parametrize("section", ["", "Refund"])
def test_an_initial_state_above_the_sections_naming_no_machine_s_state_is_said(
    section: str,
) -> None:
    # Before, `Initial state: pending` above the sections was dropped without a word.
    text = _SHOP.format(above="Initial state: pending", below="")
    found = parse_machines_text(text, "shop.md", options=ReadOptions(section=section))
    for machine in found:
        (unread,) = [f for f in analyse(machine.spec) if f.kind == "states_unread"]
        assert unread.line == 3
        assert "'pending', which is no state of any of them" in unread.message
    assert [m.spec.initial for m in found] == ["new", "requested"][-len(found) :]


def test_an_initial_state_above_the_sections_naming_a_shared_state_is_said() -> None:
    text = DECLARED.replace(
        "\n## Payment\n", "\nThe initial state is `PROCESSING`.\n\n## Payment\n"
    )
    at = _line(text, "The initial state is")
    for machine in parse_machines_text(text, "shop.md"):
        (unread,) = [f for f in analyse(machine.spec) if f.kind == "states_unread"]
        assert unread.line == at
        assert "'PROCESSING', a state of 'Payment' and 'Refund'" in unread.message


def test_a_policy_in_a_list_item_above_the_sections_is_every_machine_s() -> None:
    text = _SHOP.format(above="- Transitions not listed are rejected.", below="")
    found = parse_machines_text(text, "shop.md")
    assert [m.spec.unlisted is not None for m in found] == [True, True]


def test_a_keeping_list_above_the_sections_is_said_to_be_no_machine_s() -> None:
    text = _SHOP.format(above="Events that never change state:\n\n- `ping`", below="")
    for machine in parse_machines_text(text, "shop.md"):
        assert "ping" not in [s.name for s in machine.spec.spells]
        (unread,) = [f for f in analyse(machine.spec) if f.kind == "keeping_unread"]
        assert unread.line == 5 and "is no machine's" in unread.message


@pytest.mark.parametrize("stay", ["stay", "itself", "unchanged", "(no change)", "current"])
def test_a_word_for_the_same_state_in_two_sections_is_no_shared_state(stay: str) -> None:
    text = (
        "# Shop\n\n## Payment\n\n| From | Event | To |\n|---|---|---|\n"
        f"| created | pay | paid |\n| paid | ping | {stay} |\n\n"
        "## Refund\n\n| From | Event | To |\n|---|---|---|\n"
        f"| requested | approve | refunded |\n| refunded | ping | {stay} |\n"
    )
    assert [s.name for s in machines(read_blocks(text))] == ["Payment", "Refund"]


_TWO = (
    "# Shop\n\n{above}\n## M1\n\n| From | Event | To |\n|---|---|---|\n"
    "| a1 | go | b1 |\n| b1 | back | a1 |\n\n"
    "## M2\n\n| From | Event | To |\n|---|---|---|\n| a2 | go | b2 |\n| b2 | back | a2 |\n"
)


def test_front_matter_and_an_initial_state_heading_above_the_sections_are_read() -> None:
    text = "---\ninitial: b1\n---\n" + _TWO.format(above="## Initial state\n\n`b2`\n")
    m1, m2 = parse_machines_text(text, "shop.md")
    assert (m1.spec.initial, m2.spec.initial) == ("b1", "b2")


def test_front_matter_naming_no_machine_s_state_is_said_in_each_report() -> None:
    text = "---\ninitial: zz\n---\n" + _TWO.format(above="")
    for found in parse_machines_text(text, "shop.md"):
        (unread,) = [f for f in analyse(found.spec) if f.kind == "states_unread"]
        assert unread.line == 2 and "'zz'" in unread.message


@pytest.mark.timeout(30)
def test_a_large_diagram_above_many_sections_is_read_once() -> None:
    drawn = "".join(f"    x{i} --> y{i}\n" for i in range(60_000))
    sections_ = "".join(
        f"## M{i}\n\n| From | Event | To |\n|---|---|---|\n| a{i} | go | b{i} |\n"
        f"| b{i} | back | a{i} |\n\n"
        for i in range(60)
    )
    text = f"# File\n\n```mermaid\nstateDiagram-v2\n{drawn}```\n\n{sections_}"
    found = parse_machines_text(text, "file.md")
    assert len(found) == 60
    unread = [f for f in analyse(found[0].spec) if f.kind == "diagram_unread"]
    assert [f.line for f in unread] == [3]


@pytest.mark.parametrize(
    ("above", "what"),
    [
        ("### Spells\n\n1. **Pay**\n2. **Ship**", "Spells"),
        ("## Events\n\n- `pay`: the customer pays\n- `approve`", "Spells"),
    ],
)
def test_a_names_list_above_the_sections_is_said_to_be_no_machine_s(above: str, what: str) -> None:
    text = _SHOP.format(above=above, below="")
    line = text.splitlines().index(above.splitlines()[2]) + 1
    for machine in parse_machines_text(text, "shop.md"):
        (unread,) = [f for f in analyse(machine.spec) if f.kind == "list_unread"]
        assert unread.line == line and f"the {what} list" in unread.message, unread


def test_a_list_of_prose_above_the_sections_is_no_names_list() -> None:
    text = _SHOP.format(above="## Events\n\nWhat happens:\n\n- the customer pays", below="")
    for machine in parse_machines_text(text, "shop.md"):
        assert [f for f in analyse(machine.spec) if f.kind == "list_unread"] == []


def test_two_states_shared_on_one_line_are_named_alike_in_every_run() -> None:
    # Which of `cart` and `paying` (both on lines 9 and 17) was named hung on set order.
    import os
    import subprocess
    import sys

    text = (
        "# Shop\n\n## Happy path\n\n| From | Event | To |\n|---|---|---|\n"
        "| cart | checkout | paying |\n\n## Errors\n\n| From | Event | To |\n|---|---|---|\n"
        "| paying | fail | cart |\n"
    )
    code = (
        "import sys\nfrom codegen import SpecError, parse_spec_text\n"
        "try:\n    parse_spec_text(sys.stdin.read())\n"
        "except SpecError as e:\n    print(e.message)\n"
    )
    said = {
        subprocess.run(
            [sys.executable, "-c", code],
            input=text,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            check=True,
        ).stdout
        for seed in range(6)
    }
    assert len(said) == 1 and "share the state 'cart'" in said.pop()
