"""A brute-force oracle over worlds: every assignment of the atoms a cell's conditions use.

Tests compare the generated machine and the verifier against this, so it is
written as plainly as possible and shares nothing with them but the core's
implications. `lay_out` writes a world as files in a workspace, for the runtime.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import product
from pathlib import Path

from codegen.logic import follows, implied
from codegen.model import Atom, Condition, RuleSpec, Spec
from tests.support.workspaces import plan, task, write

World = dict[Atom, bool]


def closure(atoms: Iterable[Atom]) -> list[Atom]:
    """The atoms and every atom they imply, sorted."""
    found = set(atoms)
    for atom in list(found):
        found.update(implied(atom))
    return sorted(found)


def consistent(world: World) -> bool:
    """No atom holds while an atom it implies does not."""
    return all(
        world[other]
        for atom, value in world.items()
        if value
        for other in world
        if follows(atom, other)
    )


def worlds(atoms: Iterable[Atom]) -> Iterator[World]:
    names = closure(atoms)
    for values in product((False, True), repeat=len(names)):
        world = dict(zip(names, values, strict=True))
        if consistent(world):
            yield world


def holds(condition: Condition, world: World) -> bool:
    """Some alternative of the condition has every literal as the world says."""
    return any(all(world[lit.atom] == lit.positive for lit in c) for c in condition.clauses)


def cell_atoms(spec: Spec, state: str, spell: str) -> list[Atom]:
    return closure(lit.atom for r in spec.cell(state, spell) for lit in r.condition.literals)


def winner(spec: Spec, state: str, spell: str, world: World) -> RuleSpec | None:
    """The rule the priority policy picks in this world: the first whose condition holds."""
    return next((r for r in spec.cell(state, spell) if holds(r.condition, world)), None)


def winning_world(spec: Spec, rule: RuleSpec) -> World | None:
    """A world in which `rule` wins its cell, or None if there is none."""
    for world in worlds(cell_atoms(spec, rule.source, rule.spell)):
        if winner(spec, rule.source, rule.spell, world) == rule:
            return world
    return None


class WorldFacts:
    """Facts for a generated model, answered from a world; asking about any other atom fails."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.asked: list[Atom] = []

    def check(self, probe: str, file: str, param: str) -> bool:
        atom = Atom(probe, file, param)
        self.asked.append(atom)
        return self.world[atom]


def lay_out(root: Path, world: World) -> None:
    """Files in .ai/task/ that make every atom of `world` true or false as it says."""
    value = {(a.probe, a.file): v for a, v in world.items()}
    for atom, present in world.items():
        if atom.probe != "exists" or not present:
            continue
        if atom.file == "plan.md":
            has_ac = value.get(("items", "plan.md"), False)
            unchecked = value.get(("unchecked", "plan.md"), has_ac)
            text = plan(
                checked=1 if has_ac and not unchecked else 0,
                unchecked=1 if unchecked else 0,
                atlassian=value.get(("matches", "plan.md"), False),
            )
            if not value.get(("section", "plan.md"), True):  # the heading renamed
                text = text.replace("## Acceptance Criteria", "## Criteria")
        elif atom.file == "task.md" and not value.get(("edited", "task.md"), True):
            text = shipped_template("task.md")  # left as it was made
        elif atom.file == "task.md" and not value.get(("value", "task.md"), True):
            text = "---\nowner: someone\n---\n\n# Task\n\nDo the thing.\n"  # no task_name
        elif atom.file == "task.md":
            text = task("rule-check")
        else:
            text = f"# {atom.file}\n"
        write(root, atom.file, text)


def shipped_template(name: str) -> str:
    """The shipped `spell_workflow` vocabulary's template for the file `name`, as the
    generated module carries it (`VOCABULARY_FILES`)."""
    from spellbook.machines import spell_machine

    return spell_machine.VOCABULARY_FILES[name]
