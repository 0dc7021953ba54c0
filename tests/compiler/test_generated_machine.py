"""The generated machine as a `transitions` user meets it: each model its own `fired`,
read by `on_exit_*` and `on_enter_*` callbacks; a spell a rule refuses is no successful
transition (`may_<trigger>` and the trigger return False, `refused` says which rule);
`build` makes the Machine class it is given (GraphMachine, LockedMachine,
AsyncMachine). The machine is generated from a small spec of its own, imported as a
module."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import pytest
from transitions.extensions import GraphMachine, LockedMachine
from transitions.extensions.asyncio import AsyncMachine

from codegen import parse_spec_text
from codegen.render import render_machine
from tests.specs import row, spec_text

ROWS = [
    row("G1", "A", "Go", "`x.md` exists", "B", "Update state to B"),
    row("G2", "A", "Go", "`x.md` missing"),
    row("G3", "B", "Go", "-", "A", "Update state to A"),
    row("S1", "Any state", "Stop", "-", "[BLOCKED]", "No state change", "Not now"),
    row("B1", "A", "Look", "`y.md` exists", "[BLOCKED]", "No state change", "Not with y"),
    row("L1", "Any state", "Look"),
]


@pytest.fixture(scope="module")
def m(tmp_path_factory: pytest.TempPathFactory) -> Any:
    text = spec_text(["A", "B"], ["Go", "Stop", "Look"], ROWS)
    path = tmp_path_factory.mktemp("machine") / "ab_machine.py"
    path.write_text(render_machine(parse_spec_text(text, "spec/AB.md"), "ab"), encoding="utf-8")
    found = importlib.util.spec_from_file_location("ab_machine", path)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


class Files:
    """Facts for a model: the files that exist."""

    def __init__(self, *present: str) -> None:
        self.present = set(present)

    def check(self, probe: str, file: str, param: str) -> bool:
        assert probe == "exists", probe
        return file in self.present


def test_each_model_of_one_machine_has_its_own_fired(m: Any) -> None:
    a, b = m.Model(Files()), m.Model(Files("x.md"))
    machine = m.build(a)
    machine.add_model(b)
    assert b.go() is True
    assert (b.fired, b.state) == ("G1", "B")
    assert (a.fired, a.state) == (None, "A")
    assert a.go() is True
    assert (a.fired, a.state, b.fired) == ("G2", "A", "G1")


def test_callbacks_on_exit_and_on_enter_see_the_rule_that_fired(m: Any) -> None:
    class Watched(m.Model):  # type: ignore[misc, name-defined]
        def __init__(self, facts: Any) -> None:
            super().__init__(facts)
            self.seen: list[tuple[str, str | None]] = []

        def on_exit_A(self) -> None:
            self.seen.append(("exit A", self.fired))

        def on_enter_B(self) -> None:
            self.seen.append(("enter B", self.fired))

    model = Watched(Files("x.md"))
    m.build(model)
    model.go()
    assert model.seen == [("exit A", "G1"), ("enter B", "G1")]


def test_a_refused_spell_is_no_successful_transition_and_says_which_rule(m: Any) -> None:
    model = m.Model(Files("x.md"))
    m.build(model)
    assert model.may_stop() is False
    assert model.stop() is False
    assert (model.fired, model.refused, model.state) == (None, "S1", "A")
    # A rule of lower priority never fires where one refuses; the next trigger
    # starts afresh.
    assert model.look() is True
    assert (model.fired, model.refused) == ("L1", None)
    assert model.may_go() is True and model.state == "A"


def test_a_spell_no_rule_answers_is_no_successful_transition(m: Any) -> None:
    model = m.Model(Files())
    m.build(model, initial="B", sources=("A",))  # no rule from B yet
    assert model.may_go() is False and model.go() is False
    assert (model.fired, model.refused, model.state) == (None, None, "B")


def test_build_makes_a_graph_machine_whose_diagram_has_the_spec_s_moves(m: Any) -> None:
    model = m.Model(Files("x.md"))
    machine = m.build(model, machine_cls=GraphMachine, graph_engine="mermaid")
    assert isinstance(machine, GraphMachine)
    drawn = str(model.get_graph().draw(None))
    assert "A --> B: go" in drawn and "B --> A: go" in drawn
    assert model.go() is True and model.fired == "G1"


def test_build_makes_a_locked_machine_that_casts_from_threads(m: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    models = [m.Model(Files("x.md")) for _ in range(8)]
    machine = m.build(models[0], machine_cls=LockedMachine)
    assert isinstance(machine, LockedMachine)
    for model in models[1:]:
        machine.add_model(model)
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda model: model.go(), models))
    assert done == [True] * 8
    assert {(x.fired, x.state) for x in models} == {("G1", "B")}


def test_build_makes_an_async_machine_whose_triggers_are_awaited(m: Any) -> None:
    async def cast() -> list[object]:
        model = m.Model(Files("x.md"))
        machine = m.build(model, machine_cls=AsyncMachine)
        assert isinstance(machine, AsyncMachine)
        seen: list[object] = [await model.go(), model.fired, model.state]
        return [*seen, await model.stop(), model.refused, model.fired]

    assert asyncio.run(cast()) == [True, "G1", "B", False, "S1", None]


@pytest.mark.parametrize("machine_cls", [None, AsyncMachine])
def test_a_rule_refuses_only_where_its_condition_holds_whatever_the_machine_class(
    m: Any, machine_cls: Any
) -> None:
    # B1 refuses Look in A when y.md exists; otherwise L1 (a wildcard row) answers.
    # AsyncMachine checks every condition of a transition at once, not in order.
    async def look(*present: str) -> tuple[object, ...]:
        model = m.Model(Files(*present))
        if machine_cls is None:
            m.build(model)
            may, done = model.may_look(), model.look()
        else:
            m.build(model, machine_cls=machine_cls)
            may, done = await model.may_look(), await model.look()
        return may, done, model.fired, model.refused

    assert asyncio.run(look()) == (True, True, "L1", None)
    assert asyncio.run(look("y.md")) == (False, False, None, "B1")


def test_a_rule_with_no_alternative_first_in_its_cell_leaves_no_refusal_behind(
    tmp_path: Path,
) -> None:
    # G0's condition can never hold (generated despite the error): the cell's first
    # transition is G1's, which must still start each trigger afresh.
    rows = [
        row("S1", "A", "Stop", "-", "[BLOCKED]", "No state change", "Not now"),
        row("G0", "A", "Go", "`x.md` exists AND `x.md` missing", "B"),
        row("G1", "A", "Go"),
        row("G2", "B", "Go, Stop"),
    ]
    text = spec_text(["A", "B"], ["Go", "Stop"], rows)
    path = tmp_path / "never.py"
    path.write_text(render_machine(parse_spec_text(text, "spec/N.md"), "never"), encoding="utf-8")
    found = importlib.util.spec_from_file_location("never_machine", path)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    model = module.Model(Files())
    module.build(model)
    assert model.go() is True and model.fired == "G1"
    assert model.stop() is False and model.refused == "S1"
    assert model.go() is True and (model.fired, model.refused) == ("G1", None)
