"""The generated machine as a `transitions` user meets it: each model its own `fired`,
read by `on_exit_*` and `on_enter_*` callbacks; a spell a rule refuses is no successful
transition (`may_<trigger>` and the trigger return False, `refused` says which rule);
`build` makes the Machine class it is given (GraphMachine, LockedMachine,
AsyncMachine). The machine is generated from a small spec of its own, imported as a
module."""

from __future__ import annotations

import asyncio
import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest
from transitions.extensions import GraphMachine, LockedMachine
from transitions.extensions.asyncio import AsyncMachine

from codegen import parse_spec_text
from codegen.render import render_machine
from tests.support.specs import row, spec_text

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
    assert "A --> B: Go" in drawn and "B --> A: Go" in drawn
    assert model.go() is True and model.fired == "G1"


@pytest.mark.parametrize("conditions", [False, True])
def test_a_graph_machine_draws_the_moves_only_with_the_spec_s_title(
    m: Any, conditions: bool
) -> None:
    # Stop (refused everywhere) and Look (refused or staying put) move nothing: no
    # self-loop for them, none of the machine's own callbacks in a label.
    model = m.Model(Files())
    m.build(model, machine_cls=GraphMachine, graph_engine="mermaid", show_conditions=conditions)
    drawn = str(model.get_graph().draw(None))
    edges = sorted(line.strip() for line in drawn.splitlines() if "-->" in line)
    if conditions:
        assert edges == ["A --> B: Go [x_md_exists]", "B --> A: Go", "[*] --> A"]
    else:
        assert edges == ["A --> B: Go", "B --> A: Go", "[*] --> A"]
    assert drawn.startswith(f"---\n{m.TITLE}\n---\n") and m.TITLE != "State Machine"
    for leak in ("[internal]", "unrefused", "refused:", "fired:", "Stop", "Look"):
        assert leak not in drawn
    # The machine still refuses as before: only the drawing leaves the refusals out.
    assert model.stop() is False and model.refused == "S1"


def test_a_graph_machine_s_title_may_still_be_given(m: Any) -> None:
    model = m.Model(Files())
    m.build(model, machine_cls=GraphMachine, graph_engine="mermaid", title="Mine")
    assert str(model.get_graph().draw(None)).startswith("---\nMine\n---\n")


def test_options_pass_through_to_the_machine(m: Any) -> None:
    from transitions.core import MachineError

    # By default: no `to_<STATE>()`, and a trigger with no rule here answers False.
    model = m.Model(Files())
    m.build(model, initial="B", sources=("A",))
    assert not hasattr(model, "to_A") and model.go() is False
    # ignore_invalid_triggers=False: such a trigger raises, as in `transitions`.
    strict = m.Model(Files())
    m.build(strict, initial="B", sources=("A",), ignore_invalid_triggers=False)
    with pytest.raises(MachineError):
        strict.go()
    # auto_transitions=True: `to_<STATE>()` moves without any rule of the spec.
    free = m.Model(Files())
    m.build(free, auto_transitions=True)
    assert free.to_B() is True and free.state == "B"


def test_a_queued_machine_says_true_for_every_trigger_so_refused_tells(m: Any) -> None:
    # `transitions` queues a trigger and answers True for it, refused or not (its result
    # is not known when a trigger fired from a callback is queued): `refused` says.
    model = m.Model(Files())
    m.build(model, queued=True)
    assert model.stop() is True
    assert (model.fired, model.refused, model.state) == (None, "S1", "A")
    assert model.go() is True and (model.fired, model.state) == ("G2", "A")


def test_available_spells_leaves_out_those_refused_now(m: Any) -> None:
    model = m.Model(Files("x.md", "y.md"))
    machine = m.build(model)
    # `get_triggers` is transitions': every trigger with a rule from the state, a
    # refusing one too (the refusal is a transition that fails, so `refused` says why).
    assert sorted(machine.get_triggers("A")) == ["go", "look", "stop"]
    assert model.available_spells() == ["Go"]  # Stop refused (S1), Look refused (B1)
    model.facts = Files("x.md")
    assert model.available_spells() == ["Go", "Look"]
    assert model.available_triggers() == ["go", "look"]  # the names `trigger()` takes
    assert model.state == "A" and model.fired is None  # asking moves nothing
    assert model.trigger(model.available_triggers()[1]) is True and model.fired is not None


class Ticket:
    """A model of one's own: no base class of Spellbook's."""

    def __init__(self, title: str) -> None:
        self.title = title


def test_attach_drives_a_model_of_one_s_own_class(m: Any) -> None:
    from spellbook import attach

    ticket = attach(Ticket("t1"), m, Files("x.md"))
    m.build(ticket)
    assert ticket.go() is True and (ticket.fired, ticket.state) == ("G1", "B")
    assert ticket.stop() is False and (ticket.fired, ticket.refused) == (None, "S1")
    assert ticket.available_spells() == ["Go", "Look"] and ticket.title == "t1"


def test_attach_reads_a_workspace_folder_afresh(m: Any, tmp_path: Path) -> None:
    from spellbook import attach

    ticket = attach(Ticket("t2"), m, tmp_path)
    m.build(ticket)
    assert ticket.go() is True and (ticket.fired, ticket.state) == ("G2", "A")
    folder = tmp_path / m.WORKSPACE
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "x.md").write_text("x\n", encoding="utf-8")
    assert ticket.go() is True and (ticket.fired, ticket.state) == ("G1", "B")


def test_attach_never_overwrites_a_name_the_model_has(m: Any) -> None:
    from spellbook import attach

    class Busy(Ticket):
        def x_md_exists(self) -> bool:  # the name of one of the machine's guards
            return True

    with pytest.raises(TypeError, match="Busy already has x_md_exists"):
        attach(Busy("t3"), m, Files())
    with pytest.raises(TypeError, match="needs a repository's folder"):
        attach(Ticket("t4"), m)


def test_build_refuses_a_model_of_one_s_own_class_not_attached(m: Any) -> None:
    # Not an AttributeError about the machine's own callbacks at the first trigger.
    with pytest.raises(TypeError, match=r"Ticket is no model of this machine.*spellbook\.attach"):
        m.build(Ticket("t5"))


def test_mypy_strict_catches_a_trigger_typo(m: Any, tmp_path: Path) -> None:
    """The model declares its triggers; no catch-all `__getattr__` is seen by mypy."""
    mypy = pytest.importorskip("mypy.api")
    (tmp_path / "ab_machine.py").write_text(Path(m.__file__).read_text(encoding="utf-8"))
    (tmp_path / "use.py").write_text(
        "import ab_machine\n\n\n"
        "class NoFiles:\n"
        "    def check(self, probe: str, file: str, param: str) -> bool:\n"
        "        return False\n\n\n"
        "model = ab_machine.Model(NoFiles())\n"
        "ab_machine.build(model)\n"
        "done: bool = model.go()\n"
        "spells: list[str] = model.available_spells()\n"
        "model.goo()\n",
        encoding="utf-8",
    )
    out, err, status = mypy.run(
        ["--strict", "--no-incremental", "--cache-dir", os.devnull, str(tmp_path / "use.py")]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1, out + err
    assert len(errors) == 1 and 'use.py:13: error: "Model" has no attribute "goo"' in errors[0]


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
