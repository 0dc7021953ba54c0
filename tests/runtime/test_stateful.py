"""A stateful model test: random casts and random edits of the workflow's files.

Hypothesis drives a real workspace with three kinds of step: casting any spell,
the developer writing or deleting any workflow file, and a cast whose k-th I/O
call fails (that call only, or every call from it on), followed by the
recovery the next cast would make. Before each cast the
files on disk decide every fact the cell's conditions use (read here by a plain
oracle, not by the runtime's probes), and the spec's own priority table
(`tests/worlds.winner`) says which rule must fire and where the workflow must
go. A cast that fails part way must have happened fully (as the same cast
without the failure, in a copy of the workspace) or not at all. After every
step: the state file parses, it holds one history entry per cast that happened,
and nothing outside `.ai/task/` changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from codegen import load_spec
from codegen.model import Atom
from spellbook import Workflow
from spellbook.records.errors import ActionError, SpellbookError
from tests.support.faults import faults, tree
from tests.support.workspaces import TASK, plan, task
from tests.support.worlds import cell_atoms, winner

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec(ROOT / "spec" / "STATE_MACHINE.md")
FILES = sorted({a.file for r in SPEC.rules for a in r.condition.atoms} | {"plan.md", "task.md"})
OTHER = ("task-results.md", "comments.md", "review-task.md", "review-task-results.md")
OUTCOMES: Counter[str] = Counter()  # what the casts of a run did, for its figures


def fact(workspace: Path, atom: Atom) -> bool:
    """What the files say about one atom, read as plainly as possible."""
    path = workspace / atom.file
    if atom.probe == "exists":
        return path.exists()
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if atom.probe == "edited":  # text, and not the template left as the cast made it
        return path.exists() and bool(text.strip()) and "task_name: next-task" not in text
    if atom.probe in ("field", "value") and atom.file == "task.md":
        # task_name has a value (field), one with a letter or digit (value).
        head = text.split("\n---", 1)[0] if text.startswith("---") else ""
        named = re.search(r"^task_name: *(.*?) *$", head, re.MULTILINE)
        if named is None or named.group(1) in ("", "''", '""', "null", "~"):
            return False
        return atom.probe == "field" or re.search("[A-Za-z0-9]", named.group(1)) is not None
    if atom.probe == "section":
        return "\n## Acceptance Criteria\n" in text
    heading = "\n## Acceptance Criteria\n"
    section = text.split(heading, 1)[1].split("\n## ", 1)[0] if heading in text else ""
    # Items only the template has are not criteria; the oracle's plans have none.
    if atom.probe == "items":
        return "- [ ] to do" in section or "- [x] done" in section
    if atom.probe == "unchecked":
        return "- [ ] to do" in section
    if atom.probe == "matches":
        return "atlassian.net" in text
    raise AssertionError(f"no oracle for {atom}")


def snapshot(root: Path) -> dict[str, str]:
    """Every file outside the workspace, by content hash."""
    found = {}
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root:
            dirs[:] = [d for d in dirs if d != ".ai"]
        for name in files:
            path = Path(folder, name)
            found[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


class Workflows(RuleBasedStateMachine):
    @initialize()
    def start(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="stateful-"))
        (self.root / "src").mkdir()
        (self.root / "src" / "app.py").write_text("print('hello')\n")
        (self.root / "README.md").write_text("# A repository\n")
        self.outside = snapshot(self.root)
        self.workspace = self.root / TASK
        self.flow = Workflow(self.root, durable=False)
        # The state file exists from the first cast on: without it, files past the
        # initial state stop every cast until `spell repair` (tested on its own).
        self.flow.cast("lumos")
        self.casts = 1

    def teardown(self) -> None:
        if hasattr(self, "root"):
            shutil.rmtree(self.root, ignore_errors=True)

    @rule(spell=st.sampled_from([s.name for s in SPEC.spells]))
    def cast(self, spell: str) -> None:
        state = self.flow.state
        world = {a: fact(self.workspace, a) for a in cell_atoms(SPEC, state, spell)}
        expected = winner(SPEC, state, spell, world)
        self.casts += 1
        try:
            result = self.flow.cast(spell)
        except ActionError:
            # Refused before any change (e.g. a task.md without a usable task_name).
            assert self.flow.state == state
            OUTCOMES["refused (bad task_name)"] += 1
            return
        OUTCOMES[result.outcome] += 1
        if expected is None:
            assert (result.outcome, result.after) == ("unhandled", state)
        else:
            assert result.rule == expected.id, (state, spell, world)
            assert result.after == (expected.dest or state)

    @rule(
        spell=st.sampled_from([s.name for s in SPEC.spells]),
        k=st.integers(1, 30),
        onward=st.booleans(),
    )
    def cast_and_fail(self, spell: str, k: int, onward: bool) -> None:
        copy = Path(tempfile.mkdtemp(prefix="stateful-reference-")) / "repo"
        shutil.copytree(self.root, copy, symlinks=True)
        with contextlib.suppress(ActionError):
            Workflow(copy, durable=False).cast(spell)
        state, before = self.flow.state, tree(self.root)
        done, undone = tree(copy), before
        with faults(k, onward) as faulty, contextlib.suppress(OSError, SpellbookError):
            self.flow.cast(spell)
        self.flow.repair()  # what the next cast does first: finish an interrupted cast
        path = self.workspace / "state.json"
        entries = len(json.loads(path.read_text())["history"]) if path.exists() else 0
        if entries == self.casts + 1:
            self.casts += 1
            assert tree(self.root) == done, "the cast happened, but not as it does uninterrupted"
            assert self.flow.state == Workflow(copy).state
            OUTCOMES["failed at an I/O call: happened" if faulty.failed else "not failed"] += 1
        else:
            assert entries == self.casts and faulty.failed
            assert tree(self.root) == undone, "the cast did not happen, but files changed"
            assert self.flow.state == state
            OUTCOMES["failed at an I/O call: did not happen"] += 1
        shutil.rmtree(copy.parent)

    @rule(
        checked=st.integers(0, 2),
        unchecked=st.integers(0, 2),
        atlassian=st.booleans(),
        section=st.booleans(),
    )
    def write_plan(self, checked: int, unchecked: int, atlassian: bool, section: bool) -> None:
        self.workspace.mkdir(parents=True, exist_ok=True)
        text = plan(checked, unchecked, atlassian)
        if not section:  # the criteria's heading renamed: no such section
            text = text.replace("## Acceptance Criteria", "## Criteria")
        (self.workspace / "plan.md").write_text(text)

    @rule(name=st.sampled_from(["first-task", "fix-42", "Bad Name", "../escape", "", "--"]))
    def write_task(self, name: str) -> None:
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.workspace / "task.md").write_text(task(name))

    @rule(name=st.sampled_from(["task.md", "plan.md"]), text=st.sampled_from(["", " \n"]))
    def empty(self, name: str, text: str) -> None:
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.workspace / name).write_text(text)

    @rule(name=st.sampled_from(OTHER))
    def write_other(self, name: str) -> None:
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.workspace / name).write_text(f"# {name}\n\nWritten by hand.\n")

    @rule(name=st.sampled_from(FILES))
    def delete(self, name: str) -> None:
        path = self.workspace / name
        if path.is_file():
            path.unlink()

    @invariant()
    def state_file_is_whole_and_counts_every_cast(self) -> None:
        if not hasattr(self, "root"):
            return
        path = self.workspace / "state.json"
        if self.casts == 0:
            return
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["current_state"] in {s.name for s in SPEC.states}
        assert len(data["history"]) == self.casts

    @invariant()
    def nothing_outside_the_workspace_changes(self) -> None:
        if hasattr(self, "root"):
            assert snapshot(self.root) == self.outside


EXAMPLES = int(os.environ.get("SPELLBOOK_STATEFUL_EXAMPLES", "200"))


def test_random_casts_and_edits_do_what_the_spec_says() -> None:
    OUTCOMES.clear()
    run_state_machine_as_test(
        Workflows,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=50,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
    casts = sum(OUTCOMES.values())
    print(f"\n{EXAMPLES} runs of up to 50 steps: {casts} casts checked, {dict(OUTCOMES)}")
    assert casts > EXAMPLES * 3
