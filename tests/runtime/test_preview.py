"""What a response tells of the workspace now (what each spell would do, what to do
first, which files are there) is worked out once and reused while the files look the
same: these tests show that a reuse never tells anything a fresh workflow would not."""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spellbook import SpellbookError, Workflow
from spellbook.disk import store as store_module
from spellbook.disk.state_file import Record
from spellbook.machines import session_machine
from tests.support.workspaces import TASK, plan, set_state, task, write

SPELLS = ("Accio", "Expecto", "Reparo", "Reverto", "Finite", "Lumos")


def counting(flow: Workflow) -> list[str]:
    """The states `flow` works out what each spell would do in, one per time."""
    worked: list[str] = []
    foresee = flow.foresight.foresee

    def counted(model: Any, machine: Any, state: str) -> Any:
        worked.append(state)
        return foresee(model, machine, state)

    flow.foresight.foresee = counted  # type: ignore[method-assign]
    return worked


def fresh_telling(root: Path) -> dict[str, str]:
    """What a workflow that has never looked at `root` tells of it now."""
    flow = Workflow(root)
    record = flow.read()
    return flow.foresight.telling(record, record.state)


def spells_said(response: str) -> str:
    """The response's list of what each spell would do."""
    return response.split("### Available Spells\n", 1)[1].split("\n###", 1)[0]


def test_casting_again_with_the_files_unchanged_reuses_what_was_worked_out(
    tmp_path: Path,
) -> None:
    set_state(tmp_path, "GATHER_NEEDS_PLAN")
    flow = Workflow(tmp_path)
    worked = counting(flow)
    first = flow.cast("lumos").response
    second = flow.cast("lumos").response
    assert worked == ["GATHER_NEEDS_PLAN"]
    assert second == first
    assert second == Workflow(tmp_path).cast("lumos").response


def test_a_file_that_appears_is_seen_at_the_next_cast(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_NEEDS_PLAN")
    flow = Workflow(tmp_path)
    worked = counting(flow)
    before = spells_said(flow.cast("lumos").response)
    assert "creates `.ai/task/plan.md` from its template" in before
    write(tmp_path, "plan.md", plan())
    after = spells_said(flow.cast("lumos").response)
    assert worked == ["GATHER_NEEDS_PLAN", "GATHER_NEEDS_PLAN"]
    assert "keeps `.ai/task/plan.md` as it is (it already exists)" in after
    assert after == spells_said(Workflow(tmp_path).cast("lumos").response)


def test_an_archive_folder_made_by_hand_or_a_new_day_changes_the_folder_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    for name, text in (("plan.md", plan()), ("task.md", task()), ("task-results.md", "done\n")):
        write(tmp_path, name, text)
    flow = Workflow(tmp_path)
    today = time.strftime("%Y-%m-%d")
    folder = f"tasks/task-first-task-{today}"
    assert f"`.ai/task/{folder}/`" in spells_said(flow.cast("lumos").response)
    (tmp_path / TASK / folder).mkdir(parents=True)
    assert f"`.ai/task/{folder}-2/`" in spells_said(flow.cast("lumos").response)

    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 86400)  # the same hour tomorrow
    tomorrow = time.strftime("%Y-%m-%d", time.localtime(time.time()))
    said = spells_said(flow.cast("lumos").response)
    assert f"`.ai/task/tasks/task-first-task-{tomorrow}/`" in said


def test_a_folder_that_stops_being_writable_is_seen_at_the_next_cast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The folder Accio would archive into; the cast itself writes only .ai/task/.
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    for name, text in (("plan.md", plan()), ("task.md", task()), ("task-results.md", "done\n")):
        write(tmp_path, name, text)
    (tmp_path / TASK / "tasks").mkdir()
    flow = Workflow(tmp_path)
    assert "refused now" not in spells_said(flow.cast("lumos").response)
    real = os.access
    monkeypatch.setattr(
        store_module.os,
        "access",
        lambda path, mode: not path.endswith(f"{os.sep}tasks") and real(path, mode),
    )
    said = spells_said(flow.cast("lumos").response)
    assert "- **Accio**: refused now: .ai/task/tasks/ is not writable" in said


def test_the_folder_a_cast_just_wrote_in_is_not_asked_again_whether_it_is_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_state(tmp_path, "GATHER_NEEDS_PLAN")
    flow = Workflow(tmp_path)
    flow.cast("lumos")
    asked: list[str] = []
    real = os.access

    def access(path: str, mode: int) -> bool:
        asked.append(path)
        return real(path, mode)

    monkeypatch.setattr(store_module.os, "access", access)
    flow.cast("lumos")
    assert asked == []  # the state file was just replaced there: it is writable


def test_a_file_read_moments_after_it_changed_is_read_again_next_time(tmp_path: Path) -> None:
    # A change in the same tick of the filesystem's clock as the read could go unseen
    # by the file's times: such a file is not taken as known.
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=1))
    flow = Workflow(tmp_path)
    worked = counting(flow)
    flow.cast("lumos")
    flow.cast("lumos")
    assert worked == ["GATHER_EDITING", "GATHER_EDITING"]


def test_a_change_that_keeps_a_files_size_and_times_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", task())
    path = tmp_path / TASK / "plan.md"
    old = os.stat(path)
    os.utime(path, ns=(old.st_atime_ns - 10**10, old.st_mtime_ns - 10**10))
    # Look as if the files were read long after they last changed.
    monkeypatch.setattr(store_module.Looks, "RECENT_NS", -(10**10))
    flow = Workflow(tmp_path)
    worked = counting(flow)
    first = spells_said(flow.cast("lumos").response)
    assert spells_said(flow.cast("lumos").response) == first
    assert worked == ["ACHIEVE_TASK_DRAFTING"]  # known: reused
    time.sleep(0.02)  # a later tick of the filesystem's clock
    seen = os.stat(path)
    path.write_text(path.read_text(encoding="utf-8").replace("[ ]", "[x]"), encoding="utf-8")
    os.utime(path, ns=(seen.st_atime_ns, seen.st_mtime_ns))  # size and times as they were
    assert os.stat(path).st_size == seen.st_size
    again = spells_said(flow.cast("lumos").response)
    assert worked == ["ACHIEVE_TASK_DRAFTING", "ACHIEVE_TASK_DRAFTING"]
    assert again != first
    assert again == spells_said(Workflow(tmp_path).cast("lumos").response)


def test_a_name_that_turns_into_a_link_or_a_folder_is_seen(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_NEEDS_PLAN")
    flow = Workflow(tmp_path)
    worked = counting(flow)
    flow.cast("lumos")
    (tmp_path / TASK / "plan.md").symlink_to(tmp_path / "elsewhere.md")
    linked = spells_said(flow.cast("lumos").response)
    # a link is no file kept: the cast that creates plan.md is refused, and says why
    assert "refused now: .ai/task/plan.md is a symbolic link; not creating it" in linked
    assert linked == spells_said(Workflow(tmp_path).cast("lumos").response)
    (tmp_path / TASK / "plan.md").unlink()
    (tmp_path / TASK / "plan.md").mkdir()
    folder = spells_said(flow.cast("lumos").response)
    assert "refused now: .ai/task/plan.md is a folder, not a file; move it away" in folder
    assert folder == spells_said(Workflow(tmp_path).cast("lumos").response)
    assert worked == ["GATHER_NEEDS_PLAN"] * 3


def test_a_machine_whose_facts_depend_on_the_time_never_reuses(tmp_path: Path) -> None:
    flow = Workflow(tmp_path, machine=session_machine)
    worked = counting(flow)
    flow.cast("check")
    flow.cast("check")
    assert len(worked) == 2


# Each step changes the files (or not), then casts a spell with one long-lived
# workflow; what that cast told must be what a new workflow tells of the same files.
FILES = ("plan.md", "task.md", "task-results.md", "comments.md", "review-task.md")
CHANGES = st.one_of(
    st.tuples(st.just("none"), st.just("")),
    st.tuples(st.sampled_from(("write", "remove", "flip", "folder")), st.sampled_from(FILES)),
    st.tuples(st.just("archive"), st.just("tasks/task-first-task-" + time.strftime("%Y-%m-%d"))),
)


def _change(root: Path, kind: str, name: str) -> None:
    path = root / TASK / name
    time.sleep(0.02)  # a later tick of the filesystem's clock than the last read
    if kind == "write":
        if path.is_dir():
            path.rmdir()
        text = plan() if name == "plan.md" else task() if name == "task.md" else "text\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    elif kind == "remove" and path.is_file():
        path.unlink()
    elif kind == "remove" and path.is_dir():
        path.rmdir()
    elif kind == "flip" and path.is_file():  # same size, same times
        seen = os.stat(path)
        text = path.read_text(encoding="utf-8")
        flipped = text.replace("[ ]", "[x]") if "[ ]" in text else text.replace("[x]", "[ ]")
        path.write_text(flipped, encoding="utf-8")
        os.utime(path, ns=(seen.st_atime_ns, seen.st_mtime_ns))
    elif kind in ("folder", "archive") and not path.exists():
        path.mkdir(parents=True)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.tuples(CHANGES, st.sampled_from(SPELLS)), min_size=1, max_size=8))
def test_what_a_long_lived_workflow_tells_is_what_a_new_one_would(
    steps: list[tuple[tuple[str, str], str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every file counts as read long after it changed, so reuse is as frequent as it
    # can be; the steps wait a tick of the clock between a read and a change.
    monkeypatch.setattr(store_module.Looks, "RECENT_NS", -(10**10))
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        set_state(root, "GATHER_NEEDS_PLAN")
        flow = Workflow(root)
        told: list[dict[str, str]] = []
        telling = flow.foresight.telling

        def kept(record: Record, state: str) -> dict[str, str]:
            values = telling(record, state)
            told.append(dict(values))  # as told, before the response adds its own
            return values

        flow.foresight.telling = kept  # type: ignore[method-assign]
        for (kind, name), spell in steps:
            _change(root, kind, name)
            told.clear()
            try:
                flow.cast(spell)
            except SpellbookError:
                continue  # refused: nothing was told
            assert len(told) == 1
            assert told[0] == fresh_telling(root), (kind, name, spell)


def test_a_spell_that_could_not_be_told_is_told_again_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Something outside the workspace (the vocabulary, not importable yet) kept a spell
    # from being told: once it is put right, the next cast tells it.
    monkeypatch.setattr(store_module.Looks, "RECENT_NS", -(10**10))
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(checked=1, unchecked=0))
    name = "tests.support.vocabularies.own_words"  # a vocabulary in Python, imported to cast
    machine = with_python_vocabulary(name)
    vocabulary = importlib.import_module(name)
    monkeypatch.setitem(sys.modules, name, None)
    flow = Workflow(tmp_path, machine=machine)  # type: ignore[arg-type]
    assert "cannot tell" in spells_said(flow.cast("lumos").response)
    monkeypatch.setitem(sys.modules, name, vocabulary)
    said = spells_said(flow.cast("lumos").response)
    assert "cannot tell" not in said
    again = Workflow(tmp_path, machine=machine)  # type: ignore[arg-type]
    assert said == spells_said(again.cast("lumos").response)


def with_python_vocabulary(name: str) -> types.ModuleType:
    """The spell machine, as if generated with the Python vocabulary module `name`."""
    from spellbook.machines import spell_machine

    module = types.ModuleType("spell_machine_in_python")
    module.__dict__.update(vars(spell_machine))
    module.VOCABULARY = name
    del module.VOCABULARY_FILES  # a Python vocabulary's templates are its own
    return module


def test_a_name_written_in_another_case_makes_the_check_look_again(tmp_path: Path) -> None:
    # Where the filesystem ignores case (macOS, Windows), `Plan.md` is plan.md: a
    # folder's listing is compared without case.
    set_state(tmp_path, "GATHER_NEEDS_PLAN")
    flow = Workflow(tmp_path)
    worked = counting(flow)
    flow.cast("lumos")
    write(tmp_path, "PLAN.md", plan())
    flow.cast("lumos")
    assert worked == ["GATHER_NEEDS_PLAN"] * 2


def test_a_file_that_reads_short_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A read may return less than asked (a network filesystem, a signal): read on.
    set_state(tmp_path, "GATHER_EDITING")
    text = plan(unchecked=3)
    write(tmp_path, "plan.md", text)
    real = os.read
    monkeypatch.setattr(store_module.os, "read", lambda fd, n: real(fd, min(n, 7)))
    workspace = store_module.Workspace(str(tmp_path), TASK)
    assert workspace.read_text("plan.md", 10_000) == text
