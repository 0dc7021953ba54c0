"""Crash consistency: a cast that changes files has one commit point, its intent record.

Fault injection makes the k-th I/O call of a cast fail (open, write, fsync,
replace, rename, mkdir, link, unlink), for every k until the cast gets through,
once failing only call k and once every call from k on. Then I/O works again and
the next cast recovers. After each, the cast has fully happened or not at all:
the state file parses; its history is the old one, or the old one and the cast;
the files are exactly as before the cast, or exactly as a cast that was never
interrupted leaves them; no file is lost, and nothing outside `.ai/task/` changed.
Then a casting process is killed (SIGKILL) at random moments, with the same checks.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import multiprocessing.context
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

import spellbook
from codegen import load_spec
from spellbook import Workflow
from spellbook.cast.commit_point import INTENT_FILE, Journal
from spellbook.records.errors import SpellbookError, StateFileError
from spellbook.verbs.actions import passive
from tests.support.commands import clean, obeying_permissions, spell
from tests.support.faults import TEMPORARY, faults, tree
from tests.support.workspaces import (
    TASK,
    executed,
    files,
    history,
    history_entries,
    plan,
    sealed,
    set_state,
    task,
    write,
)
from tests.support.worlds import lay_out, winning_world

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec(ROOT / "spec" / "STATE_MACHINE.md")
SESSION = import_module("spellbook.machines.session_machine")
KILLS = int(os.environ.get("SPELLBOOK_KILLS", "200"))


def contents(root: Path) -> list[bytes]:
    return sorted(tree(root).values())


def entries(root: Path, state_file: str) -> list[dict[str, Any]]:
    data = json.loads((root / state_file).read_text(encoding="utf-8"))
    found = data["history"]
    assert isinstance(found, list)
    return found


class Scenario:
    """One cast to interrupt: how to lay out its workspace and what it should do."""

    def __init__(
        self,
        name: str,
        prepare: Callable[[Path], None],
        spell: str,
        rule: str,
        before: str,
        after: str,
        machine: Any = None,
        state_file: str = f"{TASK}/state.json",
        recover: str = "lumos",
    ) -> None:
        self.name = name
        self.prepare = prepare
        self.spell = spell
        self.rule = rule
        self.before = before
        self.after = after
        self.machine = machine
        self.state_file = state_file
        self.recover = recover

    def workflow(self, root: Path) -> Workflow:
        return Workflow(root, machine=self.machine)


def spell_scenarios() -> list[Scenario]:
    """Every rule of the spell workflow that changes files, in a workspace where it wins."""
    found = []
    for rule in SPEC.rules:
        if all(passive(a.verb) for a in rule.actions):
            continue
        world = winning_world(SPEC, rule)
        if world is None:
            continue

        def prepare(root: Path, rule: Any = rule, world: Any = world) -> None:
            lay_out(root, world)
            old = [{"trigger": "Lumos", "transition": "x → x", "cast": f"old{i}"} for i in range(3)]
            set_state(root, rule.source, old)
            (root / "outside.txt").write_text("not the workflow's\n")

        found.append(
            Scenario(
                f"{rule.id}@{rule.source}", prepare, rule.spell, rule.id, rule.source, rule.dest
            )
        )
    return found


def session_scenario(name: str, rule: str, after: str, command: str) -> Scenario:
    progress = ".claude/progress"

    def prepare(root: Path) -> None:
        (root / progress).mkdir(parents=True)
        features = [{"id": i, "description": i, "status": "pending"} for i in ("F1", "F2")]
        (root / progress / "feature-list.json").write_text(
            json.dumps({"test_command": command, "features": features}, indent=2)
        )
        state = {"state": "TEST", "feature_id": "F1", "attempts": 1, "context": {}, "history": []}
        (root / progress / "state.json").write_text(json.dumps(state))

    return Scenario(
        name, prepare, "Advance", rule, "TEST", after, SESSION, f"{progress}/state.json", "status"
    )


SCENARIOS = [
    *spell_scenarios(),
    session_scenario("session T1 (mark, select)", "T1", "IMPLEMENT", "true"),
    session_scenario("session R1 (increment)", "R1", "IMPLEMENT", "false"),
]


def reference(tmp: Path, scenario: Scenario) -> dict[str, bytes]:
    """The files after the cast, never interrupted."""
    root = tmp / "reference"
    scenario.prepare(root)
    result = scenario.workflow(root).cast(scenario.spell)
    assert (result.rule, result.after) == (scenario.rule, scenario.after), result
    return tree(root)


def recover(scenario: Scenario, root: Path) -> None:
    flow = scenario.workflow(root)
    if scenario.recover == "status":
        flow.repair()  # the session's casts run its tests; repair finishes the cast alone
        return
    notes = flow.cast(scenario.recover).notes
    # Finishing an interrupted cast finds nothing out of place: no other note.
    assert [n for n in notes if not n.startswith("first finished the interrupted")] == []


def check(
    scenario: Scenario, root: Path, old: int, before: dict[str, bytes], after: dict[str, bytes]
) -> str:
    """The invariants after a failed cast and the recovery; which way the cast went."""
    assert not (root / scenario.state_file).with_name(INTENT_FILE).exists()
    found = entries(root, scenario.state_file)
    if scenario.recover != "status":
        assert found[-1]["trigger"].lower() == scenario.recover  # the recovering cast
        found = found[:-1]
    files = tree(root)
    if scenario.machine is None:  # the spell workflow only moves and creates files
        lost = [path for path, data in before.items() if data not in files.values()]
        assert not lost, f"lost {lost}"
    if len(found) == old:  # the state file says the cast did not happen: nor did its actions
        assert files == before, sorted(set(files) ^ set(before)) or "contents differ"
        return "not at all"
    assert len(found) == old + 1  # it did happen, fully
    assert (found[-1]["rule"], found[-1]["outcome"]) == (scenario.rule, outcome(scenario))
    assert files == after, sorted(set(files) ^ set(after)) or "contents differ"
    return "fully"


def outcome(scenario: Scenario) -> str:
    return "transition" if scenario.after != scenario.before else "noop"


def interrupt(tmp: Path, scenario: Scenario, onward: bool) -> dict[str, int]:
    """Fail call k of the cast, for k = 1, 2, ... until the cast gets through."""
    after = reference(tmp, scenario)
    counts = {"casts": 0, "failed": 0, "fully": 0, "not at all": 0}
    for k in range(1, 500):
        root = tmp / f"k{k}"
        scenario.prepare(root)
        before = tree(root)
        old = len(entries(root, scenario.state_file))
        with faults(k, onward) as faulty:
            try:
                scenario.workflow(root).cast(scenario.spell)
            except (OSError, spellbook.SpellbookError):
                counts["failed"] += 1
        recover(scenario, root)
        counts[check(scenario, root, old, before, after)] += 1
        counts["casts"] += 1
        if faulty.calls < k:  # no call failed: the cast got through
            assert counts["fully"] and tree(root) == after
            return counts
    raise AssertionError("the cast never got through")


@pytest.mark.parametrize("onward", [False, True], ids=["only call k fails", "calls k on fail"])
def test_an_interrupted_cast_happens_fully_or_not_at_all(tmp_path: Path, onward: bool) -> None:
    totals = {"casts": 0, "failed": 0, "fully": 0, "not at all": 0}
    for n, scenario in enumerate(SCENARIOS):
        counts = interrupt(tmp_path / str(n), scenario, onward)
        for key, value in counts.items():
            totals[key] += value
        shutil.rmtree(tmp_path / str(n))
    print(
        f"\n{len(SCENARIOS)} casts that change files, each failed at every I/O call in turn "
        f"({'that call and every later one' if onward else 'that call only'}): "
        f"{totals['casts']} interrupted casts, {totals['failed']} raised; after the next cast "
        f"{totals['fully']} had happened fully and {totals['not at all']} not at all"
    )
    assert len(SCENARIOS) >= 30
    assert totals["fully"] and totals["not at all"] and totals["failed"]


def test_control_without_the_intent_record_an_interrupted_cast_is_half_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks above can fail: carry out the plan without writing its record first."""
    monkeypatch.setattr(Journal, "commit", lambda self, rec, intent: self.finish(rec, intent))
    archive = next(s for s in SCENARIOS if s.name.startswith("A2@"))
    with pytest.raises(AssertionError):
        interrupt(tmp_path, archive, onward=False)


# A process that works through tasks for ever: it writes task.md, casts Accio (the
# task runs), writes task-results.md, casts Accio (both are archived and a new task.md
# is made), and so on. Every text it writes carries a mark, logged once written;
# it never overwrites a marked file. It is given `root` and `ready` (says it is casting).
WORKER = """
import os, sys, time
from spellbook import Workflow

task = os.path.join(root, ".ai", "task")
flow = Workflow(root)
log = open(os.path.join(root, "written.log"), "a")


def write(name, text):
    path = os.path.join(task, name)
    if os.path.exists(path) and "mark:" in open(path).read():
        return  # written before this process was started: the developer's, kept
    with open(path + ".new", "w") as f:
        f.write(text)
    os.replace(path + ".new", path)
    mark = text.split("mark:")[1].split()[0]
    log.write(mark + "\\n")
    log.flush()


ready.send("ready")
while True:
    state = flow.state
    mark = f"{os.getpid()}-{time.perf_counter_ns()}"
    if state == "GATHER_EDITING":
        write("plan.md", f"# Plan\\n\\n## Acceptance Criteria\\n\\n- [ ] go\\n\\nmark:{mark}\\n")
    elif state == "ACHIEVE_TASK_DRAFTING":
        write("task.md", f"---\\ntask_name: t-{mark}\\n---\\n\\n# Task\\n\\nmark:{mark}\\n")
    elif state == "ACHIEVE_TASK_EXECUTED":
        write("task-results.md", f"# Results\\n\\nmark:{mark}\\n")
    flow.cast("accio")
"""


def casting_processes() -> multiprocessing.context.ForkServerContext:
    """Processes forked from one that has imported what a cast imports (a process of its
    own costs the Python start-up and those imports, 0.1 s, at every kill); a process
    with no thread of the tests' but its own, where a fork of the test process would
    inherit whatever lock another thread held."""
    context = multiprocessing.get_context("forkserver")
    # What the first cast imports, in a scratch workspace of this process.
    with tempfile.TemporaryDirectory() as scratch:
        Workflow(scratch).cast("lumos")
    context.set_forkserver_preload(
        sorted(m for m in sys.modules if m.split(".")[0] in ("spellbook", "transitions"))
    )
    return context


def test_casts_killed_at_random_moments_lose_nothing(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    task_folder = root / TASK
    root.mkdir()
    (root / "outside.txt").write_text("not the workflow's\n")
    rng = random.Random(8)
    interrupted = unparsable = 0
    processes = casting_processes()
    for _ in range(KILLS):
        told, ready = processes.Pipe(duplex=False)
        code = {"__name__": "__main__", "root": str(root), "ready": ready}
        worker = processes.Process(target=exec, args=(WORKER, code))
        worker.start()
        ready.close()
        assert told.recv() == "ready"
        time.sleep(rng.uniform(0.0, 0.03))
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGKILL)
        worker.join()
        assert worker.exitcode == -signal.SIGKILL  # killed while casting, not ended
        told.close()
        # Before anything recovers: the state file is whole, old or new.
        try:
            Workflow(root).read()
        except StateFileError:
            unparsable += 1
        interrupted += (task_folder / INTENT_FILE).exists()
        Workflow(root).cast("lumos")  # the next cast recovers
        check_workspace(root)
    casts = len(history(root))
    print(
        f"\n{KILLS} casting processes killed at random moments: {casts} casts in the history, "
        f"{interrupted} kills landed between a cast's commit point and its end (finished by "
        f"the next cast), {unparsable} left a state file that does not parse; "
        f"{len(list((task_folder / 'tasks').iterdir()))} tasks archived, no file lost"
    )
    assert unparsable == 0
    assert interrupted > 0  # the kills did land inside casts that move files


def check_workspace(root: Path) -> None:
    task_folder = root / TASK
    assert not (task_folder / INTENT_FILE).exists()
    assert (root / "outside.txt").read_text() == "not the workflow's\n"
    entries = history(root)
    casts = [e["cast"] for e in entries]
    assert len(set(casts)) == len(casts), "a cast was applied twice"
    moves = [str(e["transition"]).split(" → ") for e in entries]
    for earlier, later in itertools.pairwise(moves):  # the history is one path
        assert earlier[1] == later[0]
    state = Workflow(root).state
    exists = {name: (task_folder / name).exists() for name in ("task.md", "task-results.md")}
    if state == "ACHIEVE_TASK_DRAFTING":
        assert exists == {"task.md": True, "task-results.md": False}
    elif state == "ACHIEVE_TASK_EXECUTED":
        assert exists["task.md"]
    archives = task_folder / "tasks"
    for folder in archives.iterdir() if archives.exists() else []:
        assert sorted(p.name for p in folder.iterdir()) == ["task-results.md", "task.md"]
    texts = "".join(
        p.read_text() for p in task_folder.rglob("*.md") if not TEMPORARY.search(p.name)
    )
    log = (root / "written.log").read_text() if (root / "written.log").exists() else ""
    marks = [line for line in log.split("\n")[:-1] if line]
    lost = [mark for mark in marks if f"mark:{mark}\n" not in texts]
    assert not lost, f"lost the files marked {lost}"


def executed_flow(root: Path) -> Workflow:
    """A workspace in ACHIEVE_TASK_EXECUTED with a task and its results (Accio archives both)."""
    write(root, "plan.md", plan(unchecked=1))
    write(root, "task.md", task("first"))
    set_state(root, "ACHIEVE_TASK_EXECUTED")
    write(root, "task-results.md", "# Results\n")
    return Workflow(root)


def stop_after_commit(monkeypatch: pytest.MonkeyPatch, flow: Workflow, *, files: bool) -> None:
    """The next cast writes its intent record and stops: before its file operations, or
    (files=True) after them and the state file, just before deleting the record."""

    def commit(self: Journal, record: Any, intent: dict[str, Any]) -> list[str]:
        self.write_intent(intent)
        if files:
            monkeypatch.setattr(self.workspace, "remove", lambda rel: None)
            self.finish(record, intent)
        raise KeyboardInterrupt  # the process stops here

    monkeypatch.setattr(Journal, "commit", commit)
    with pytest.raises(KeyboardInterrupt):
        flow.cast("accio")
    monkeypatch.undo()


def test_the_next_cast_finishes_an_interrupted_one_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flow = executed_flow(tmp_path)
    stop_after_commit(monkeypatch, flow, files=False)
    assert (tmp_path / TASK / "task-results.md").exists()  # nothing moved yet
    result = Workflow(tmp_path).cast("lumos")
    assert result.notes[0].startswith(
        "first finished the interrupted cast of Accio "
        "(ACHIEVE_TASK_EXECUTED → ACHIEVE_TASK_DRAFTING, rule A2)"
    )
    assert "first finished the interrupted cast of Accio" in result.response
    (archive,) = (tmp_path / TASK / "tasks").iterdir()
    assert sorted(p.name for p in archive.iterdir()) == ["task-results.md", "task.md"]
    assert (history(tmp_path)[0]["trigger"], history(tmp_path)[0]["rule"]) == ("Accio", "A2")
    assert [e["trigger"] for e in history(tmp_path)] == ["Accio", "Lumos"]
    assert result.before == "ACHIEVE_TASK_DRAFTING"


def test_the_spell_cast_again_after_it_was_cut_short_is_finished_not_cast_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's `spell accio` was killed after its commit point; they run it again.
    flow = executed_flow(tmp_path)
    stop_after_commit(monkeypatch, flow, files=False)
    result = Workflow(tmp_path).cast("accio")
    assert (result.before, result.after, result.rule) == (
        "ACHIEVE_TASK_EXECUTED",
        "ACHIEVE_TASK_DRAFTING",
        "A2",
    )
    assert [e["trigger"] for e in history(tmp_path)] == ["Accio"]  # one step, not two
    assert result.notes[-1] == (
        "that was the cast of Accio this command asked for: Accio was not cast again"
    )
    (archive,) = (tmp_path / TASK / "tasks").iterdir()
    assert result.archive == f"{TASK}/tasks/{archive.name}/"
    assert f"`{TASK}/tasks/{archive.name}/`" in result.response  # where A2 archived
    assert "Accio was not cast again" in result.response
    # the next Accio is a cast of its own
    assert Workflow(tmp_path).cast("accio").before == "ACHIEVE_TASK_DRAFTING"


@pytest.mark.parametrize("files", [False, True], ids=["before its files", "before its record"])
def test_the_spell_cast_again_answers_as_the_cast_uninterrupted_would_have(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: bool
) -> None:
    # The response is what the cast would have said (where A2 archived, the results it
    # loaded from there), not the spec's actions as declared: and cut short after its
    # state file, before its record was deleted, it is not cast twice either.
    whole = executed_flow(tmp_path / "whole").cast("accio")
    flow = executed_flow(tmp_path / "cut")
    stop_after_commit(monkeypatch, flow, files=files)
    again = Workflow(tmp_path / "cut").cast("accio")
    assert (again.before, again.after, again.rule) == (whole.before, whole.after, whole.rule)
    assert [e["trigger"] for e in history(tmp_path / "cut")] == ["Accio"]

    def told(response: str) -> str:
        return response.split("### Notes")[0].strip()

    assert told(again.response) == told(whole.response)
    assert "# Results" in again.response


def test_a_finished_cast_whose_record_was_left_is_not_applied_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flow = executed_flow(tmp_path)
    stop_after_commit(monkeypatch, flow, files=True)
    assert (tmp_path / TASK / INTENT_FILE).exists()
    (tmp_path / TASK / "task.md").unlink()  # the developer removes the new task.md meanwhile
    result = Workflow(tmp_path).cast("lumos")
    assert not (tmp_path / TASK / INTENT_FILE).exists()
    assert not (tmp_path / TASK / "task.md").exists()  # not made again by a replay
    assert not any("interrupted" in note for note in result.notes)
    assert (history(tmp_path)[0]["trigger"], history(tmp_path)[0]["rule"]) == ("Accio", "A2")
    assert [e["trigger"] for e in history(tmp_path)] == ["Accio", "Lumos"]


@pytest.mark.parametrize(
    "record",
    [
        b"{ not json",
        b"[]",
        {"cast": 1},
        {"cast": "x", "before": "NOWHERE"},
        {
            "cast": "c",
            "before": "ACHIEVE_TASK_EXECUTED",
            "after": "ACHIEVE_TASK_DRAFTING",
            "entry": {"cast": "c", "trigger": "Accio"},
            "extra": {},
            "operations": [["move", "plan.md", "../../outside.md"]],
        },
    ],
    ids=["not JSON", "an array", "wrong types", "unknown state", "a path outside"],
)
def test_a_damaged_intent_record_stops_casts_until_repair_sets_it_aside(
    tmp_path: Path, record: bytes | dict[str, Any]
) -> None:
    flow = executed_flow(tmp_path)
    if isinstance(record, dict):  # sealed as a cast's, so that its content is what is wrong
        record = sealed(tmp_path / TASK, record).encode()
    (tmp_path / TASK / INTENT_FILE).write_bytes(record)
    before = tree(tmp_path)
    with pytest.raises(StateFileError, match=r"\.ai/task/\.intent\.json\b.*spell repair"):
        flow.cast("accio")
    assert tree(tmp_path) == before
    said = Workflow(tmp_path).repair()
    assert "Set its record aside as .ai/task/.intent.json.bad-" in said
    (kept,) = (tmp_path / TASK).glob(".intent.json.bad-*")
    assert kept.read_bytes() == record
    assert Workflow(tmp_path).cast("accio").rule == "A2"


def _forged(tmp_path: Path, how: str) -> dict[str, Any]:
    """An intent record that moves GATHER_NEEDS_PLAN to ACHIEVE_TASK_DONE
    with files no rule writes: unsealed, sealed for another workspace, or sealed and then
    changed."""
    intent: dict[str, Any] = {
        "cast": "c0ffee000001",
        "before": "GATHER_NEEDS_PLAN",
        "after": "ACHIEVE_TASK_DONE",
        "entry": {"cast": "c0ffee000001", "trigger": "Accio", "rule": "A2", "changed": {}},
        "extra": {"foo": 1},
        "operations": [["create", "plan.md", "- [x] forged\n"]],
    }
    if how == "unsealed":
        return intent
    if how == "another workspace":
        other = tmp_path / "other"
        other.mkdir()
        return dict(json.loads(sealed(other, intent)))
    record = dict(json.loads(sealed(tmp_path / TASK, {**intent, "after": "GATHER_EDITING"})))
    return {**record, "after": "ACHIEVE_TASK_DONE"}


@pytest.mark.parametrize("how", ["unsealed", "another workspace", "changed after sealing"])
def test_an_intent_record_no_cast_of_the_user_wrote_is_never_carried_out(
    tmp_path: Path, how: str
) -> None:
    # A pull request that commits `.ai/task/.intent.json`, or a hand that writes one,
    # would otherwise make the next cast (a Lumos even) jump states and write files.
    Workflow(tmp_path).cast("lumos")
    (tmp_path / TASK / INTENT_FILE).write_text(json.dumps(_forged(tmp_path, how)))
    before = tree(tmp_path)
    for spell_ in ("lumos", "accio"):
        with pytest.raises(StateFileError, match="not written by a cast of yours here"):
            Workflow(tmp_path).cast(spell_)
    assert tree(tmp_path) == before
    run = spell(tmp_path, "lumos")
    assert run.returncode == 2 and "spell repair" in clean(run), run.stderr
    said = Workflow(tmp_path).repair()
    assert "Set its record aside as .ai/task/.intent.json.bad-" in said
    assert Workflow(tmp_path).cast("lumos").before == "GATHER_NEEDS_PLAN"
    assert not (tmp_path / TASK / "plan.md").exists()


def test_without_a_cache_folder_the_key_is_kept_in_a_temporary_folder_of_the_user_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No cache folder (a relative $SPELLBOOK_CACHE, an unwritable home): the record was
    # written unsealed and then refused, the cast left half done.
    monkeypatch.setenv("SPELLBOOK_CACHE", "not/absolute")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    flow = executed_flow(tmp_path / "ws")
    stop_after_commit(monkeypatch, flow, files=False)
    monkeypatch.setenv("SPELLBOOK_CACHE", "not/absolute")  # undone by stop_after_commit
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    assert "seal" in json.loads((tmp_path / "ws" / TASK / INTENT_FILE).read_text())
    assert list((tmp_path / "tmp").glob("spellbook-*/keys/*.key"))
    result = Workflow(tmp_path / "ws").cast("lumos")
    assert result.notes[0].startswith("first finished the interrupted cast of Accio")


def test_two_workspaces_never_share_a_key_even_where_their_paths_share_a_checksum(
    tmp_path: Path,
) -> None:
    """The key was found by the CRC32 of the workspace's path, which a spec can choose
    two folder names to share: a sealed record of one was carried out in the other."""
    import zlib

    from spellbook.disk.user_cache import seal_key

    first, second = _colliding(tmp_path)
    assert zlib.crc32(first.encode()) == zlib.crc32(second.encode())
    one, other = seal_key(first, create=True), seal_key(second, create=True)
    assert one is not None and other is not None and one != other
    assert seal_key(first, create=False) == one


def _colliding(tmp_path: Path) -> tuple[str, str]:
    """Two paths in `tmp_path` whose CRC32s are equal, found as a birthday search finds
    them (about 80,000 names: the chance of none in 600,000 is nil)."""
    import hashlib
    import zlib

    seen: dict[int, str] = {}
    for number in range(600_000):  # names far apart: CRC32 tells near ones apart always
        path = str(tmp_path / hashlib.sha256(b"%d" % number).hexdigest()[:16])
        found = seen.setdefault(zlib.crc32(path.encode()), path)
        if found != path:
            return found, path
    raise AssertionError("no two names with one checksum")


@pytest.mark.parametrize("later", ["XDG_CACHE_HOME", "SPELLBOOK_CACHE", "a cache folder"])
def test_a_record_sealed_under_another_cache_folder_of_the_user_s_is_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, later: str
) -> None:
    """`spell mcp`, started by an MCP client with a bare environment, keeps its key in
    ~/.cache/spellbook; `spell` in a shell with $XDG_CACHE_HOME looks in another folder,
    and took the user's own interrupted cast for a forged one. So did a cast whose cache
    folder appeared after a cast sealed with the temporary folder's key."""
    import tempfile

    def environment(sealing: bool) -> None:
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        monkeypatch.delenv("SPELLBOOK_CACHE", raising=False)
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
        if later == "a cache folder" and sealing:  # no cache folder can be written
            monkeypatch.setenv("SPELLBOOK_CACHE", "not/absolute")
        elif not sealing and later != "a cache folder":
            monkeypatch.setenv(later, str(tmp_path / "elsewhere"))

    (tmp_path / "tmp").mkdir()
    flow = executed_flow(tmp_path / "ws")
    environment(sealing=True)
    stop_after_commit(monkeypatch, flow, files=False)
    environment(sealing=False)
    result = Workflow(tmp_path / "ws").cast("lumos")
    assert result.notes[0].startswith("first finished the interrupted cast of Accio")


def test_where_no_key_can_be_kept_a_cast_that_changes_files_is_refused_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import spellbook.disk.user_cache

    monkeypatch.setenv("SPELLBOOK_CACHE", "not/absolute")
    monkeypatch.setattr(spellbook.disk.user_cache, "_own_temporary", lambda: None)
    flow = executed_flow(tmp_path)
    before = tree(tmp_path)
    with pytest.raises(SpellbookError, match="set SPELLBOOK_CACHE to an absolute folder"):
        flow.cast("accio")
    assert tree(tmp_path) == before
    assert not (tmp_path / TASK / INTENT_FILE).exists()
    assert flow.cast("lumos").before == "ACHIEVE_TASK_EXECUTED"  # a cast of no file: fine


def test_an_intent_record_from_another_state_is_not_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flow = executed_flow(tmp_path)
    stop_after_commit(monkeypatch, flow, files=False)
    set_state(tmp_path, "GATHER_EDITING")  # the state file was changed by hand since
    with pytest.raises(StateFileError, match="interrupted in ACHIEVE_TASK_EXECUTED"):
        Workflow(tmp_path).cast("lumos")
    assert (tmp_path / TASK / "task-results.md").exists()


def test_applying_a_plan_again_changes_nothing_and_overwrites_nothing(tmp_path: Path) -> None:
    from spellbook.verbs.operations import apply, checksum_of

    flow = executed_flow(tmp_path)
    folder = tmp_path / TASK
    (folder / "list.json").write_text("old\n")
    operations = [
        ["folder", "tasks/t-1"],
        ["move", "task.md", "tasks/t-1/task.md"],
        ["move", "task-results.md", "tasks/t-1/task-results.md"],
        ["create", "task.md", "new task\n"],
        ["update", "list.json", "new\n", checksum_of("old\n")],
    ]
    assert apply(operations, flow.workspace) == []
    once = tree(tmp_path)
    assert apply(operations, flow.workspace) == []  # every operation found done
    assert tree(tmp_path) == once
    # Since then the developer wrote task-results.md again and changed list.json: both stay.
    (folder / "task-results.md").write_text("newer results\n")
    (folder / "list.json").write_text("edited\n")
    notes = apply(operations, flow.workspace)
    assert notes == [
        ".ai/task/tasks/t-1/task-results.md already holds a file and .ai/task/task-results.md "
        "is there too: both are left as they are, the move not made again",
        ".ai/task/list.json changed since the cast read it; not updated",
    ]
    assert (folder / "task-results.md").read_text() == "newer results\n"
    assert (folder / "list.json").read_text() == "edited\n"
    assert (folder / "tasks/t-1/task-results.md").read_text() == "# Results\n"


def test_a_file_gone_before_its_move_is_a_note_not_an_error(tmp_path: Path) -> None:
    from spellbook.verbs.operations import apply

    flow = executed_flow(tmp_path)
    (tmp_path / TASK / "task-results.md").unlink()
    notes = apply([["move", "task-results.md", "tasks/t-1/task-results.md"]], flow.workspace)
    assert notes == [".ai/task/task-results.md is gone; there was nothing to move"]


def test_a_cast_a_full_disk_interrupts_says_how_to_finish_it_without_casting_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It said "[Errno 28] cannot write ...; the next cast finishes it", and the next
    # `spell accio` finished the cast, then cast Accio once more.
    import spellbook.verbs.operations as operations

    flow = executed_flow(tmp_path)

    def full(*args: Any) -> list[str]:
        raise OSError(28, "cannot write .ai/task/task.md: No space left on device")

    monkeypatch.setattr(operations, "apply", full)
    with pytest.raises(Exception) as raised:
        flow.cast("accio")
    monkeypatch.undo()
    message = str(raised.value)
    assert "[Errno" not in message
    assert message.startswith(
        "Accio in ACHIEVE_TASK_EXECUTED was interrupted: cannot write .ai/task/task.md: No "
        "space left on device; once the disk takes it, run `spell repair` to finish it and "
        "cast nothing more"
    ), message
    said = Workflow(tmp_path).repair()
    assert Workflow(tmp_path).status()["interrupted"] is None
    state = json.loads((tmp_path / TASK / "state.json").read_text())
    assert state["current_state"] == "ACHIEVE_TASK_DRAFTING", said  # A2, and no more
    assert [e["rule"] for e in state["history"]][-1:] == ["A2"]


def test_status_says_a_cast_done_but_cut_short_before_its_answer_is_answered_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the state file was written, before the record was deleted: status
    said nothing was interrupted and foretold the next Accio's rule, while `spell
    accio` answers that done cast again (and casts nothing)."""
    flow = executed_flow(tmp_path)
    before = flow.status()["spells"]["Lumos"]
    stop_after_commit(monkeypatch, flow, files=True)
    status = Workflow(tmp_path).status()
    cast = "Accio (ACHIEVE_TASK_EXECUTED → ACHIEVE_TASK_DRAFTING, rule A2)"
    assert status["interrupted"] == (
        f"{cast} was done but cut short before its answer; cast Accio again to see it "
        "(it casts nothing more); any other cast is cast as usual"
    )
    assert status["spells"]["Accio"] == (
        f"answers the cast of {cast}, done but cut short before its answer, and casts nothing more"
    )
    assert not status["spells"]["Lumos"].startswith("first finishes"), before
    result = Workflow(tmp_path).cast("accio")
    assert result.rule == "A2" and result.after == "ACHIEVE_TASK_DRAFTING"
    assert Workflow(tmp_path).status()["interrupted"] is None
    # moved on by hand since: the next cast of its spell is cast as usual, and said so
    flow = executed_flow(tmp_path / "again")
    stop_after_commit(monkeypatch, flow, files=True)
    state = tmp_path / "again" / TASK / "state.json"
    state.write_text(state.read_text().replace('"ACHIEVE_TASK_DRAFTING"', '"GATHER_EDITING"', 1))
    status = Workflow(tmp_path / "again").status()
    assert status["interrupted"] is None, status["interrupted"]
    assert not status["spells"]["Accio"].startswith("answers the cast"), status["spells"]


def test_status_says_an_interrupted_cast_will_be_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flow = executed_flow(tmp_path)
    assert flow.status()["interrupted"] is None
    stop_after_commit(monkeypatch, flow, files=False)
    said = Workflow(tmp_path).status()["interrupted"]
    assert said == (
        "Accio (ACHIEVE_TASK_EXECUTED → ACHIEVE_TASK_DRAFTING, rule A2) was interrupted; "
        "run `spell repair`, or cast Accio again, to finish it and cast nothing more (any "
        "other cast finishes it first)"
    )
    # what each spell would do is not told from the files of the state it left
    spells = Workflow(tmp_path).status()["spells"]
    assert spells["Accio"] == (
        "finishes the interrupted cast of Accio (ACHIEVE_TASK_EXECUTED → "
        "ACHIEVE_TASK_DRAFTING, rule A2) and casts nothing more"
    )
    assert spells["Lumos"].startswith("first finishes the interrupted cast of Accio (")
    shown = subprocess.run(
        [sys.executable, "-m", "spellbook", "--root", str(tmp_path), "status"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert f"Interrupted: {said}" in shown.stdout
    Workflow(tmp_path).cast("lumos")
    assert Workflow(tmp_path).status()["interrupted"] is None


def test_history_past_its_limit_goes_to_a_file_no_cast_reads(tmp_path: Path) -> None:
    from spellbook.cast.commit_point import HISTORY_KEEP, HISTORY_LIMIT

    set_state(tmp_path, "GATHER_EDITING", history_entries(HISTORY_LIMIT))
    write(tmp_path, "plan.md", plan(unchecked=0))
    assert spell(tmp_path, "lumos").returncode == 0
    kept = history(tmp_path)
    assert len(kept) == HISTORY_KEEP and kept[-1]["trigger"] == "Lumos"
    (rotated,) = (tmp_path / TASK / ".history").iterdir()
    older = [json.loads(line) for line in rotated.read_text().splitlines()]
    assert [e["cast"] for e in older + kept] == [f"{i:012x}" for i in range(HISTORY_LIMIT)] + [
        kept[-1]["cast"]
    ]


def test_history_moved_to_a_name_already_taken_goes_to_a_name_of_its_own(
    tmp_path: Path,
) -> None:
    # A file planted under the name rotation would use (its stamp and cast id are in the
    # state file) was taken for these entries: 506 of them were moved out, into nothing.
    from spellbook.cast.commit_point import HISTORY_KEEP, HISTORY_LIMIT

    set_state(tmp_path, "GATHER_EDITING", history_entries(HISTORY_LIMIT))
    write(tmp_path, "plan.md", plan(unchecked=0))
    older = history(tmp_path)[: -HISTORY_KEEP + 1]
    last = older[-1]
    stamp = "".join(c for c in last["timestamp"] if c.isalnum())[:16]
    taken = tmp_path / TASK / ".history" / f"state.json-{stamp}-{last['cast']}.jsonl"
    taken.parent.mkdir()
    taken.write_text('{"cast": "forged"}\n')
    assert spell(tmp_path, "lumos").returncode == 0
    assert taken.read_text() == '{"cast": "forged"}\n'
    (moved,) = [p for p in taken.parent.iterdir() if p != taken]
    assert moved.name == taken.name.replace(".jsonl", "-2.jsonl")
    entries = [json.loads(line) for line in moved.read_text().splitlines()]
    assert [e["cast"] for e in entries] == [e["cast"] for e in older]


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX permissions")
def test_a_file_unreadable_after_the_commit_point_is_a_note_not_an_error(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    executed(root)
    kw = obeying_permissions()
    (root / TASK / "plan.md").chmod(0o000)
    result = spell(root, "--json", "accio", **kw)
    assert result.returncode == 0, result.stderr
    done = json.loads(result.stdout)
    assert (done["rule"], done["after"]) == ("A2", "ACHIEVE_TASK_DRAFTING")
    assert "the results" in done["response"]  # the task results reach the AI
    assert "Permission denied" in done["response"]


def test_a_folder_named_like_a_file_is_named_in_the_error(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    (tmp_path / TASK / "plan.md").mkdir()
    result = spell(tmp_path, "accio")
    assert result.returncode == 2
    assert ".ai/task/plan.md is a folder, not a file" in clean(result)


def test_a_file_over_the_read_limit_met_while_planning_stops_the_cast_naming_it(
    tmp_path: Path,
) -> None:
    executed(tmp_path)
    write(tmp_path, "task-results.md", "x" * 2_000_000)  # A2 loads it, then archives it
    before = files(tmp_path)
    result = spell(tmp_path, "--json", "accio")
    assert result.returncode == 2, result.stdout + result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["kind"] == "too_large", error
    assert ".ai/task/task-results.md is 2.0 MB" in error["message"], error
    assert "no file or state was changed; the history records the attempt" in clean(result)
    after = files(tmp_path)
    assert {k: v for k, v in after.items() if not k.endswith("state.json")} == {
        k: v for k, v in before.items() if not k.endswith("state.json")
    }


def test_a_link_where_a_file_to_delete_is_stops_the_cast_before_its_commit_point(
    tmp_path: Path,
) -> None:
    set_state(tmp_path, "PR_CONFIRM_RESTART_TASK_G")
    write(tmp_path, "comments.md", "comments\n")
    write(tmp_path, "elsewhere.md", "not the review task\n")
    (tmp_path / TASK / "review-task.md").symlink_to("elsewhere.md")
    before = files(tmp_path)
    result = spell(tmp_path, "reparo")  # C2: delete the review files
    assert result.returncode == 2, result.stdout
    assert ".ai/task/review-task.md is a symbolic link; not moving it" in clean(result)
    assert "no file or state was changed" in result.stderr
    assert not (tmp_path / TASK / ".intent.json").exists()  # no half-done cast to finish
    after = files(tmp_path)
    assert {k: v for k, v in after.items() if not k.endswith("state.json")} == {
        k: v for k, v in before.items() if not k.endswith("state.json")
    }
    (tmp_path / TASK / "review-task.md").unlink()
    write(tmp_path, "review-task.md", "the review task\n")
    again = spell(tmp_path, "reparo")  # the next cast is not held up
    assert again.returncode == 0, clean(again)
    assert not (tmp_path / TASK / "review-task.md").exists()


def test_a_trash_that_is_a_file_stops_the_cast_before_anything_moves(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_CONFIRM_RESTART_TASK_G")
    write(tmp_path, "review-task.md", "old review\n")
    write(tmp_path, ".trash", "not a folder\n")
    before = files(tmp_path)
    result = spell(tmp_path, "reparo")
    assert result.returncode == 2
    assert ".trash is a file where a folder is needed" in clean(result)
    after = files(tmp_path)
    assert {k: v for k, v in after.items() if not k.endswith("state.json")} == {
        k: v for k, v in before.items() if not k.endswith("state.json")
    }
    assert not (tmp_path / TASK / ".intent.json").exists()
    assert spell(tmp_path, "lumos").returncode == 0


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX permissions")
def test_an_archive_folder_that_is_not_writable_stops_the_cast_before_anything_moves(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    executed(root)
    (root / TASK / "tasks").mkdir()
    kw = obeying_permissions()
    (root / TASK / "tasks").chmod(0o555)
    result = spell(root, "accio", **kw)
    assert result.returncode == 2
    assert "tasks/ is not writable" in clean(result)
    assert (root / TASK / "task.md").exists() and (root / TASK / "task-results.md").exists()
    assert spell(root, "lumos", **kw).returncode == 0


def test_an_archive_path_past_the_system_limit_stops_the_cast_before_anything_moves(
    tmp_path: Path,
) -> None:
    root = tmp_path
    while len(str(root)) < 4096 - 90:  # the repository itself is deep, but usable
        root = root / ("d" * min(200, 4096 - 90 - len(str(root))))
    old = os.getcwd()
    try:  # long paths are made relative to a working folder inside them
        os.makedirs(root)
    except OSError:
        pytest.skip("this filesystem refuses paths this long")
    finally:
        os.chdir(old)
    executed(root)
    write(root, "task.md", task("a" * 60))
    result = spell(root, "accio")
    assert result.returncode == 2, result.stdout
    assert "longer than this system allows" in clean(result)
    assert (root / TASK / "task.md").exists() and (root / TASK / "task-results.md").exists()
    assert spell(root, "lumos").returncode == 0


def test_a_first_cast_interrupted_before_its_state_file_is_finished_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first cast (no state file yet) stops after creating plan.md and before
    writing the state file: the files say "past GATHER_NEEDS_PLAN", but the intent
    record explains them, so status and the next cast finish the cast instead of
    refusing the workspace."""

    def stop(self: Journal, *args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt  # the process stops between the files and the state file

    monkeypatch.setattr(Journal, "save", stop)
    with pytest.raises(KeyboardInterrupt):
        Workflow(tmp_path).cast("accio")
    monkeypatch.undo()
    assert (tmp_path / TASK / "plan.md").exists()
    assert not (tmp_path / TASK / "state.json").exists()
    assert (tmp_path / TASK / INTENT_FILE).exists()
    said = Workflow(tmp_path).status()
    assert said["interrupted"] == (
        "Accio (GATHER_NEEDS_PLAN → GATHER_EDITING, rule G1) was interrupted; "
        "run `spell repair`, or cast Accio again, to finish it and cast nothing more (any "
        "other cast finishes it first)"
    )
    result = Workflow(tmp_path).cast("lumos")
    assert result.notes[0].startswith("first finished the interrupted cast of Accio")
    assert [e["trigger"] for e in history(tmp_path)] == ["Accio", "Lumos"]
    assert result.before == "GATHER_EDITING"
    assert not (tmp_path / TASK / INTENT_FILE).exists()


def test_repair_of_a_cast_done_but_cut_short_says_the_spell_would_now_be_cast_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Repair deleted the record of a cast done but cut short before its answer and said
    "nothing to repair", after status had said the same spell again casts nothing more:
    cast again, it moved the workflow a second step with no word."""
    flow = executed_flow(tmp_path)
    stop_after_commit(monkeypatch, flow, files=True)
    said = Workflow(tmp_path).repair()
    cast = "Accio (ACHIEVE_TASK_EXECUTED → ACHIEVE_TASK_DRAFTING, rule A2)"
    assert said.startswith(
        f"The cast of {cast} was done but cut short before its answer; its record is "
        "removed, so casting Accio again casts it anew."
    ), said
    assert "nothing to repair" not in said
    assert Workflow(tmp_path).status()["interrupted"] is None


def test_ctrl_c_after_a_cast_was_done_says_so_never_that_the_same_command_casts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C landing after a cast was done, while its answer was written: `spell` said the
    same command again "finishes it and casts nothing more", and the same command moved
    the workflow a second step."""
    from spellbook.cast import commit_point
    from spellbook.doors import cli
    from spellbook.records.exits import EXIT_INTERRUPTED

    flow = executed_flow(tmp_path)
    monkeypatch.setattr(commit_point, "DONE", [])
    monkeypatch.setattr(cli.gc, "disable", lambda: None)  # as `spell` runs: not here

    def cast_then_interrupt(argv: object = None) -> int:
        flow.cast("accio")
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "main", cast_then_interrupt)
    with pytest.raises(SystemExit) as ended:
        cli.run()
    assert ended.value.code == EXIT_INTERRUPTED
    said = capsys.readouterr().err
    assert said.startswith(
        "spell: interrupted after the cast of Accio (ACHIEVE_TASK_EXECUTED → "
        "ACHIEVE_TASK_DRAFTING, rule A2) was done, before its answer was written in full"
    ), said
    assert "casts nothing more" not in said and "cast it anew" in said
    # a server answers over MCP: a Ctrl-C of it never says an answer was cut short
    monkeypatch.setattr("sys.argv", ["spell", "--root", "x", "mcp"])

    def served(argv: object = None) -> int:
        commit_point.DONE[:] = ["Accio (A → B, rule A2)"]  # a cast it answered
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "main", served)
    with pytest.raises(SystemExit):
        cli.run()
    assert "the same command again finishes it" in capsys.readouterr().err
    monkeypatch.setattr("sys.argv", ["spell", "accio"])
    monkeypatch.setattr(commit_point, "DONE", [])  # before any cast: as it was
    monkeypatch.setattr(cli, "main", lambda argv=None: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(SystemExit):
        cli.run()
    assert "the same command again finishes it" in capsys.readouterr().err


def test_a_finished_cast_never_says_it_moved_a_file_left_where_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interrupted before its archive, then the archive's file written by hand: the same
    spell again finished the cast and said it had archived task-results.md, which was
    still where it was (the notes said both were left)."""
    flow = executed_flow(tmp_path)
    stop_after_commit(monkeypatch, flow, files=False)
    intent = json.loads((tmp_path / TASK / ".intent.json").read_text())
    moved = [op for op in intent["operations"] if op[0] == "move"]
    source, dest = next((op[1], op[2]) for op in moved if op[1] == "task-results.md")
    (tmp_path / TASK / dest).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / TASK / dest).write_text("written by hand\n")
    result = Workflow(tmp_path).cast("accio")
    assert (tmp_path / TASK / source).exists()  # left where it was
    said = result.response.split("### ")[1]  # what just happened
    assert "archived `.ai/task/task.md` to" in said, said
    assert "and `.ai/task/task-results.md`" not in said and "results.md` to" not in said, said
    assert any("both are left as they are" in n for n in result.notes), result.notes
