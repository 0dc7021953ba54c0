"""A spec's Mermaid state diagrams, read (`codegen.read.mermaid`) and compared with its
tables (`codegen.analyse.diagram_checks`): where it starts, the arrows no row makes, the
moves of the rows it leaves out, labels against triggers, and the lines not read."""

from __future__ import annotations

import pytest

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.findings import Finding
from codegen.pipeline import parse_machines_text

_TABLE = """
## Transitions

| From | Event | To |
|---|---|---|
| draft | submit | review |
| review | approve | done |
| review | reject | draft |
"""


def _spec(diagram: str, table: str = _TABLE) -> str:
    return "# Order\n\n```mermaid\n" + diagram.strip("\n") + "\n```\n" + table


def _found(text: str, kind: str = "diagram_disagrees") -> list[Finding]:
    return [f for f in analyse(parse_spec_text(text)) if f.kind == kind]


_AGREES = """stateDiagram-v2
    [*] --> draft
    draft --> review: submit
    review --> done: approve
    review --> draft: reject
"""


def test_a_diagram_that_agrees_with_the_tables_has_no_finding() -> None:
    assert _found(_spec(_AGREES)) == []
    assert _found(_spec(_AGREES), "diagram_unread") == []


def test_a_diagram_starting_elsewhere_is_a_warning_at_its_start_line() -> None:
    [found] = _found(_spec(_AGREES.replace("[*] --> draft", "[*] --> review")))
    assert found.line == 5
    assert found.severity.value == "warning"
    assert "starts in review (`[*] --> review`), the tables in draft" in found.message


def test_an_arrow_no_row_makes_names_both_sides() -> None:
    [found] = _found(_spec(_AGREES + "    done --> draft: reopen\n"))
    assert found.line == 9
    assert "draws `done --> draft: reopen`, but no row moves done to draft" in found.message


def test_an_arrow_to_a_state_no_table_has_is_a_warning() -> None:
    [found] = _found(_spec(_AGREES + "    review --> cancelled: cancel\n"))
    assert "no table has a state cancelled" in found.message


def test_a_move_of_the_rows_the_diagram_leaves_out_is_a_warning_at_the_diagram() -> None:
    [found] = _found(_spec(_AGREES.replace("    review --> draft: reject\n", "")))
    assert found.line == 3
    assert "the rows move review to draft on reject" in found.message
    assert "draws no `review --> draft`" in found.message


def test_a_label_that_is_not_the_rows_trigger_is_a_warning() -> None:
    [found] = _found(_spec(_AGREES.replace("review: submit", "review: send")))
    assert "the rows move draft to review on submit" in found.message
    assert "not on 'send'" in found.message


def test_a_label_with_a_guard_or_an_action_names_its_event() -> None:
    drawn = _AGREES.replace("review: submit", "review: submit [complete] / notify")
    assert _found(_spec(drawn)) == []


def test_long_names_and_written_names_match_by_identifier() -> None:
    table = """
## Transitions

| From | Event | To |
|---|---|---|
| Story newly created | Start work | In progress |
| In progress | Finish | Done |
"""
    drawn = """stateDiagram-v2
    state "Story newly created" as New
    [*] --> New
    New --> in_progress: Start work
    in_progress --> DONE: finish
"""
    assert _found(_spec(drawn, table)) == []


def test_an_id_written_without_the_space_matches_the_table_s_name() -> None:
    # `InReview` for `In review` (a diagram's id holds no space): six false warnings.
    table = """
## Transitions

| From | Event | To |
|---|---|---|
| Story newly created | Start work | In review |
| In review | Finish | Done |
"""
    drawn = """stateDiagram-v2
    state "Story newly created" as New
    [*] --> New
    New --> InReview: Start work
    inReview --> Done: finish
"""
    assert _found(_spec(drawn, table)) == []


def test_comments_directions_notes_and_styles_are_read_without_findings() -> None:
    drawn = """---
title: Order
---
stateDiagram-v2
    %% the order's life
    direction LR
    classDef hot fill:#f00
    note right of draft : an order not sent yet
    note left of review
        someone reads it
    end note
    draft : not sent
    [*] --> draft
    draft:::hot --> review: submit
    review --> done: approve
    review --> draft: reject
    done --> [*]
"""
    assert _found(_spec(drawn)) == []
    assert _found(_spec(drawn), "diagram_unread") == []


def test_a_line_not_read_is_said_rather_than_guessed() -> None:
    found = _found(_spec(_AGREES + "    review -> done\n"), "diagram_unread")
    assert [f.line for f in found] == [9]
    assert "`review -> done` is not an arrow" in found[0].message


def test_composite_states_are_entered_at_their_start_and_left_from_any_inner_state() -> None:
    table = """
## Transitions

| From | Event | To |
|---|---|---|
| idle | begin | drafting |
| drafting | submit | reviewing |
| drafting | cancel | idle |
| reviewing | cancel | idle |
"""
    drawn = """stateDiagram-v2
    [*] --> idle
    idle --> Working: begin
    state Working {
        [*] --> drafting
        drafting --> reviewing: submit
    }
    Working --> idle: cancel
"""
    assert _found(_spec(drawn, table)) == []


def test_moves_of_a_state_to_itself_are_not_missed_where_the_diagram_leaves_them_out() -> None:
    table = _TABLE + "| review | comment | review |\n"
    assert _found(_spec(_AGREES, table)) == []


def test_other_mermaid_diagrams_are_not_read() -> None:
    from codegen.read.mermaid import parse_diagram

    assert parse_diagram("flowchart LR\n  a --> b\n", 3) is None
    assert _found(_spec("flowchart LR\n    x --> y\n")) == []


def test_a_diagram_belongs_to_the_section_of_a_file_of_several_machines() -> None:
    text = """# Two machines

## Order

```mermaid
stateDiagram-v2
    [*] --> draft
    draft --> review: submit
```

| From | Event | To |
|---|---|---|
| draft | submit | review |

## Kettle

| From | Event | To |
|---|---|---|
| cold | heat | hot |
"""
    order, kettle = parse_machines_text(text)
    assert [f for f in analyse(order.spec) if f.kind.startswith("diagram")] == []
    assert [f for f in analyse(kettle.spec) if f.kind.startswith("diagram")] == []
    assert len(order.spec.diagrams) == 1
    assert kettle.spec.diagrams == ()


def test_a_composite_drawn_as_the_start_starts_where_its_own_start_leads() -> None:
    table = """
## Transitions

| From | Event | To |
|---|---|---|
| drafting | submit | done |
"""
    drawn = """stateDiagram-v2
    state Working {
        [*] --> drafting
    }
    state Empty {
    }
    [*] --> Working
    Working --> done: submit
"""
    assert _found(_spec(drawn, table)) == []


@pytest.mark.timeout(30)
def test_composites_drawn_inside_many_others_are_walked_once() -> None:
    # Each level's two composites hold both of the next level's: 2**25 ways down.
    deep = 25
    lines = ["stateDiagram-v2", "    [*] --> draft", "    draft --> review: submit"]
    lines += [
        "    review --> L0: approve",
        "    state L0 {",
        "        state L1a",
        "        state L1b",
        "    }",
    ]
    for level in range(1, deep):
        for side in "ab":
            lines += [f"    state L{level}{side} {{"]
            lines += [f"        state L{level + 1}a", f"        state L{level + 1}b", "    }"]
    found = _found(_spec("\n".join(lines)))
    assert any("L25a" in f.message for f in found)


def _plantuml(diagram: str, table: str = _TABLE, info: str = "plantuml") -> str:
    return f"# Order\n\n```{info}\n" + diagram.strip("\n") + "\n```\n" + table


_DEPLOY = """# Deploy

```plantuml
@startuml
[*] --> queued
queued --> running : start
running --> succeeded : pass
running --> failed : fail
failed --> queued : retry
running --> cancelled : cancel
@enduml
```

Transitions not listed are rejected.

| From | Event | To |
|------|-------|----|
| idle | enqueue | queued |
| queued | start | running |
| running | pass | succeeded |
| running | fail | failed |
| failed | retry | queued |
| succeeded | - | (none) |
"""

_PLANTUML_AGREES = """@startuml
[*] --> draft
draft --> review : submit
review --> done : approve
review --> draft : reject
done --> [*]
@enduml
"""


def test_a_plantuml_diagram_that_disagrees_with_the_tables_is_compared_like_mermaid() -> None:
    found = {f.line: f.message for f in _found(_DEPLOY)}
    assert "the PlantUML state diagram starts in queued (`[*] --> queued`)" in found[5]
    assert "the tables in idle" in found[5]
    assert "draws `running --> cancelled: cancel`" in found[10]
    assert "no table has a state cancelled" in found[10]
    assert "the PlantUML state diagram draws no `idle --> queued`" in found[3]
    assert not any("Mermaid" in m for m in found.values())


@pytest.mark.parametrize("info", ["plantuml", "puml", "uml", "PlantUML", "", "text"])
def test_a_plantuml_diagram_that_agrees_has_no_finding(info: str) -> None:
    text = _plantuml(_PLANTUML_AGREES, info=info)
    assert len(parse_spec_text(text).diagrams) == 1
    assert _found(text) == []
    assert _found(text, "diagram_unread") == []
    moved = _plantuml(_PLANTUML_AGREES.replace("draft --> review", "draft --> done"), info=info)
    assert any("draws `draft --> done: submit`, but no row" in f.message for f in _found(moved))


@pytest.mark.parametrize(
    "arrow",
    [
        *("-->", "->", "--->", "-down->", "-d->", "-left->", "-up->", "-r->", "--right-->"),
        *("-[#red]->", "-[dashed]->", "-[#red,bold]->", "-up[#blue]->", "-[#blue]down->"),
    ],
)
def test_each_plantuml_arrow_is_read(arrow: str) -> None:
    text = _plantuml(_PLANTUML_AGREES.replace("draft --> review", f"draft {arrow} review"))
    assert _found(text) == []
    assert _found(text, "diagram_unread") == []
    moved = _plantuml(_PLANTUML_AGREES.replace("draft --> review", f"draft {arrow} done"))
    assert any("draws `draft --> done: submit`" in f.message for f in _found(moved))


def test_each_plantuml_form_is_read_without_a_finding() -> None:
    drawn = """@startuml
' a line comment
/' a comment
   of two lines '/
skinparam backgroundColor #EEEBDC
skinparam state {
  BackgroundColor Peru
}
hide empty description
show stereotype
left to right direction
title The order
state draft : not sent
state "Under review" as review #pink
state done #lightgreen
draft : a description line
note left of draft : one line
note right of review
  a note of
  two lines
end note
note top of done : on top
note bottom of done : below
note "floating" as N1
N1 .. done
[*] --> draft
draft -down-> review : submit
review -[#green]-> done : approve
review -[dashed]-> draft /' inline '/ : reject
done --> [*]
@enduml
"""
    diagram = parse_spec_text(_plantuml(drawn)).diagrams[0]
    assert diagram.language == "PlantUML"
    assert dict(diagram.names) == {"review": "Under review"}
    assert len(diagram.moves) == 5
    assert _found(_plantuml(drawn)) == []
    assert _found(_plantuml(drawn), "diagram_unread") == []


def test_plantuml_composites_regions_and_choices_are_read() -> None:
    table = """
## Transitions

| From | Event | To |
|---|---|---|
| idle | begin | drafting |
| drafting | submit | reviewing |
| drafting | cancel | idle |
| reviewing | cancel | idle |
"""
    drawn = """@startuml
[*] --> idle
idle --> Working : begin
state Working #lightblue {
  [*] --> drafting
  drafting --> reviewing : submit
  --
  ||
}
Working --> idle : cancel
state check <<choice>>
state split <<fork>>
state merge <<join>>
@enduml
"""
    assert _found(_plantuml(drawn, table)) == []
    unread = _found(_plantuml(drawn, table), "diagram_unread")
    assert [f.line for f in unread] == [14, 15, 16]
    assert "check is a choice, fork or join state of the PlantUML state diagram" in (
        unread[0].message
    )


def test_a_plantuml_sequence_or_activity_diagram_is_no_diagram() -> None:
    from codegen.read.mermaid import parse_plantuml

    sequence = "@startuml\nAlice -> Bob : hello\nBob --> Alice : hi\n@enduml\n"
    activity = "@startuml\nstart\n:read the order;\nstop\n@enduml\n"
    old_activity = '@startuml\n(*) --> "First"\n"First" --> (*)\n@enduml\n'
    for text in (sequence, activity, old_activity):
        assert parse_plantuml(text, 3) is None
        assert parse_spec_text(_plantuml(text)).diagrams == ()
        assert _found(_plantuml(text), "diagram_unread") == []


def test_a_plantuml_line_not_read_is_diagram_unread_at_its_line() -> None:
    drawn = _PLANTUML_AGREES.replace("done --> [*]", "done --> [*]\nreview <-- done\nfoo bar")
    found = _found(_plantuml(drawn), "diagram_unread")
    assert [f.line for f in found] == [10, 11]
    assert "this line of the PlantUML state diagram is not read" in found[0].message
    assert "`review <-- done` is not an arrow" in found[0].message
    assert "`foo bar` is not an arrow" in found[1].message


def test_a_plantuml_block_of_several_machines_above_the_sections_names_plantuml() -> None:
    text = """# Two machines

```plantuml
[*] --> draft
draft --> hot
```

## Order

| From | Event | To |
|---|---|---|
| draft | submit | review |

## Kettle

| From | Event | To |
|---|---|---|
| cold | heat | hot |
"""
    order, _ = parse_machines_text(text)
    [notice] = [f for f in analyse(order.spec) if f.kind == "diagram_unread"]
    assert notice.message.startswith("this PlantUML state diagram, ")


@pytest.mark.timeout(30)
def test_long_plantuml_lines_are_read_in_one_pass() -> None:
    from codegen.read.mermaid import parse_plantuml

    n = 50_000
    lines = ["a" + "-" * n + "x", "state a" + " " * n + "x", "note left of a" + " " * n + "x"]
    lines += ["a" + "-d" * n, "/'" * n + " '/"]
    diagram = parse_plantuml("[*] --> a\n" + "\n".join(lines) + "\n", 1)
    assert diagram is not None
    assert [at for at, _ in diagram.unread] == [3, 4, 5, 6]


def test_a_plantuml_note_or_skinparam_block_never_closed_is_said() -> None:
    for opening in ("note left of draft", "skinparam state {"):
        drawn = _PLANTUML_AGREES.replace("done --> [*]", f"{opening}\ndone --> [*]")
        [found] = _found(_plantuml(drawn), "diagram_unread")
        assert found.line == 9
        assert "is never closed with" in found.message
    shaped = _PLANTUML_AGREES + "state check <<Choice>>\n"
    assert "check is a choice" in _found(_plantuml(shaped), "diagram_unread")[0].message
