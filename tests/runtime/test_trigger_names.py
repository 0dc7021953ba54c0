"""A spell named like a method `transitions` gives the model for another (`May_open`
beside `Open`: `may_open`) gets a trigger of its own, and casting it does what its
rows say (issue: the verifier said full coverage, and the cast answered "unhandled")."""

from __future__ import annotations

from pathlib import Path

from spellbook import Workflow
from tests.runtime.test_migrations import machine_of
from tests.support.specs import row, spec_text


def test_a_spell_named_may_open_beside_open_is_cast_by_its_own_rules(tmp_path: Path) -> None:
    text = spec_text(
        ["A", "B"],
        ["Open", "May_open", "Is_a"],
        [
            row("R1", "A", "Open", nxt="B"),
            row("R2", "B", "Open"),
            row("R3", "A, B", "May_open", nxt="A"),
            row("R4", "A, B", "Is_a"),
        ],
    )
    module = machine_of(text, "doors")
    triggers = {spell: trigger for spell, trigger in module.TRIGGERS.items()}
    assert triggers["Open"] == "open" and triggers["May_open"] != "may_open"
    flow = Workflow(tmp_path, machine=module)
    assert flow.cast("open").after == "B"
    result = flow.cast("may_open")
    assert (result.rule, result.after) == ("R3", "A")
    assert flow.cast("is_a").rule == "R4"


def test_spells_named_like_the_model_s_callbacks_or_the_repair_tool_get_triggers_of_their_own(
    tmp_path: Path,
) -> None:
    # `clear_rule`, `unrefused` and `refused` are the model's (the rule a trigger chose);
    # `repair_state_file` is the MCP server's tool beside the triggers.
    names = ["Clear_rule", "Unrefused", "Refused", "Repair_state_file"]
    rows = [row(f"R{i}", "A", name) for i, name in enumerate(names)]
    module = machine_of(spec_text(["A"], names, rows), "named")
    taken = {"clear_rule", "unrefused", "refused", "repair_state_file"}
    assert not taken & set(module.TRIGGERS.values()), module.TRIGGERS
    flow = Workflow(tmp_path, machine=module)
    assert [flow.cast(name).rule for name in names] == ["R0", "R1", "R2", "R3"]
