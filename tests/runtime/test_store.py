"""Hostile and broken input: a clear error or a safe refusal, no file outside .ai/task/
touched, nothing lost, never a traceback."""

from __future__ import annotations

import fcntl
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from spellbook import ActionError, StateFileError, UnsafePath, Workflow
from spellbook.cast.commit_point import Journal
from spellbook.disk import lock as lock_module
from spellbook.disk.store import Workspace
from tests.support.commands import clean, obeying_permissions, spell
from tests.support.workspaces import (
    TASK,
    files,
    history,
    plan,
    set_state,
    task,
    write,
)

EXIT_BAD_INPUT = 2


BAD_STATES = {
    "corrupt JSON": (b'{"current_state": "GATHER_EDITING",', "not valid JSON"),
    "empty file": (b"", "is empty"),
    "JSON array": (b'["GATHER_EDITING"]', "holds a JSON list"),
    "wrong types": (b'{"current_state": 7}', "no current_state string"),
    "history not a list": (
        b'{"current_state": "GATHER_EDITING", "history": {}}',
        "history a list",
    ),
    "unknown state": (
        b'{"current_state": "DONE_AND_DUSTED"}',
        "names state 'DONE_AND_DUSTED', which",
    ),
    "not UTF-8": (b'{"current_state": "\xff"}', "not UTF-8"),
}


@pytest.mark.parametrize("case", list(BAD_STATES), ids=list(BAD_STATES))
def test_bad_state_file_is_refused_and_never_overwritten(tmp_path: Path, case: str) -> None:
    data, words = BAD_STATES[case]
    state = tmp_path / TASK / "state.json"
    state.parent.mkdir(parents=True)
    state.write_bytes(data)
    before = files(tmp_path)
    result = spell(tmp_path, "accio")
    assert result.returncode == EXIT_BAD_INPUT
    assert "Traceback" not in result.stderr
    assert words in result.stderr and "spell repair" in result.stderr
    assert files(tmp_path) == before


def test_huge_state_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    state = tmp_path / TASK / "state.json"
    state.parent.mkdir(parents=True)
    with state.open("wb") as f:
        f.write(b'{"current_state": "GATHER_EDITING", "history": ["')
        f.write(b"x" * 50_000_000)
        f.write(b'"]}')
    size = state.stat().st_size
    result = spell(tmp_path, "lumos")
    assert result.returncode == EXIT_BAD_INPUT
    assert "50.0 MB" in result.stderr and "Traceback" not in result.stderr
    assert state.stat().st_size == size


def test_repair_backs_up_and_infers_the_state_from_the_files(tmp_path: Path) -> None:
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", task())
    bad = tmp_path / TASK / "state.json"
    bad.write_bytes(b"{ garbage")
    result = spell(tmp_path, "repair")
    assert result.returncode == 0, result.stderr
    assert "Chose ACHIEVE_TASK_DRAFTING" in result.stdout
    assert "task.md exists, task-results.md missing" in result.stdout
    backups = list((tmp_path / TASK).glob("state.json.bad-*"))
    assert [b.read_bytes() for b in backups] == [b"{ garbage"]
    assert Workflow(tmp_path).state == "ACHIEVE_TASK_DRAFTING"
    assert history(tmp_path)[-1]["trigger"] == "repair"
    assert "nothing to repair" in spell(tmp_path, "repair").stdout


def test_repair_keeps_a_state_the_damaged_file_still_names(tmp_path: Path) -> None:
    set_state(tmp_path, "PR_REVIEW_TASK_DRAFT_A")
    state = tmp_path / TASK / "state.json"
    state.write_text(state.read_text().replace('"history": []', '"history": 5'))
    assert (
        "Chose PR_REVIEW_TASK_DRAFT_A: the damaged file still names it"
        in spell(tmp_path, "repair").stdout
    )


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("../../etc", "etc"),
        ("a/b", "a-b"),
        ("/etc/passwd", "etc-passwd"),
        ("with\x00nul", "with-nul"),
        ("Upper Case", "upper-case"),
        ("-lead", "lead"),
        (".hidden", "hidden"),
        ("a..b", "a.b"),
        ("1.2.0/..", "1.2.0"),
        ("C:\\Windows", "c-windows"),
    ],
)
def test_a_task_name_becomes_a_folder_name_inside_the_workspace(
    tmp_path: Path, name: str, folder: str
) -> None:
    """Any text with letters or digits names a folder: lower case, other characters
    a dash, never a path; the developer is told how it was named."""
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", f"---\ntask_name: {json.dumps(name)}\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    result = Workflow(tmp_path).cast("accio")
    assert result.archive.startswith(f"{TASK}/tasks/task-{folder}-")
    assert (tmp_path / result.archive / "task.md").is_file()
    assert f"names the folder {folder!r}" in result.response


@pytest.mark.parametrize("name", ["..", ".", "x" * 300, "", "---", "!?", "\u00e9\u00e8"])
def test_task_names_that_could_escape_are_refused(tmp_path: Path, name: str) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", f"---\ntask_name: {json.dumps(name)}\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    before = files(tmp_path)
    with pytest.raises(ActionError, match=r"cannot name a folder|has no task_name"):
        Workflow(tmp_path).cast("accio")
    after = files(tmp_path)
    state = after.pop(f"{TASK}/state.json")
    before.pop(f"{TASK}/state.json")
    assert after == before  # nothing moved, nothing created
    assert json.loads(state)["history"][-1]["outcome"] == "failed"
    assert json.loads(state)["current_state"] == "ACHIEVE_TASK_EXECUTED"


def test_a_version_with_dots_names_its_archive_folder(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", "---\ntask_name: release-1.2.0\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    archive = Workflow(tmp_path).cast("accio").archive
    assert archive.startswith(f"{TASK}/tasks/task-release-1.2.0-")


@pytest.mark.parametrize(
    "frontmatter",
    [
        "task_name: [a, b]",
        "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: &d [*c, *c]\ntask_name: *d",
        "task_name: !!python/object/apply:os.system ['echo owned']",
        "task_name: 'ok\n",
    ],
)
def test_frontmatter_that_is_not_a_plain_name_is_refused(tmp_path: Path, frontmatter: str) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", f"---\n{frontmatter}\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    result = spell(tmp_path, "accio")
    assert result.returncode == EXIT_BAD_INPUT
    assert "Traceback" not in result.stderr and "owned" not in result.stdout
    assert (tmp_path / TASK / "task.md").is_file()


def test_non_utf8_task_file_is_a_clean_error(tmp_path: Path) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    (tmp_path / TASK / "task.md").write_bytes(b"---\ntask_name: caf\xe9\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    result = spell(tmp_path, "accio")
    assert result.returncode == EXIT_BAD_INPUT and "Traceback" not in result.stderr


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("untouched\n")
    return outside


def test_symlinked_archive_folder_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = _outside(tmp_path)
    set_state(root, "ACHIEVE_TASK_EXECUTED")
    write(root, "plan.md", plan(unchecked=1))
    write(root, "task.md", task("safe-name"))
    write(root, "task-results.md", "results\n")
    os.symlink(outside, root / TASK / "tasks")
    before = files(root)
    with pytest.raises(UnsafePath, match="symbolic link"):
        Workflow(root).cast("accio")
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    after = files(root)
    after.pop(f"{TASK}/state.json")
    before.pop(f"{TASK}/state.json")
    assert after == before


@pytest.mark.parametrize("link", [".ai", ".ai/task"])
def test_symlinked_workspace_is_refused(tmp_path: Path, link: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    outside = _outside(tmp_path)
    if link == ".ai/task":
        (root / ".ai").mkdir()
    os.symlink(outside, root / link)
    result = spell(root, "accio")
    assert result.returncode == EXIT_BAD_INPUT
    assert "symbolic link" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("link", [".ai", ".ai/task"])
def test_a_workspace_folder_made_a_link_between_casts_is_refused(tmp_path: Path, link: str) -> None:
    # A long-lived workflow (the MCP server's) checks the folders again at every cast.
    root = tmp_path / "repo"
    (root / TASK).mkdir(parents=True)
    outside = _outside(tmp_path)
    (outside / "task").mkdir()
    flow = Workflow(root)
    flow.cast("lumos")
    os.rename(root / link, tmp_path / "set-aside")
    os.symlink(outside / "task" if link == TASK else outside, root / link)
    with pytest.raises(UnsafePath, match=f"{link} is a symbolic link"):
        flow.cast("lumos")
    assert sorted(p.name for p in outside.rglob("*")) == ["keep.txt", "task"]


def _swapped_while_waiting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, to: Path) -> object:
    """A cast that waits for the lock while `.ai/task` is moved away and `to` (made a
    link, or a folder) put in its place: what the cast returned or raised."""
    root = tmp_path / "repo"
    set_state(root, "GATHER_EDITING")
    waiting = threading.Event()
    tried = lock_module._try_lock

    def try_lock(fd: int) -> bool:
        got = tried(fd)
        if not got:
            waiting.set()
        return got

    monkeypatch.setattr(lock_module, "_try_lock", try_lock)
    held = os.open(root / TASK, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    outcome: list[object] = []

    def cast() -> None:
        try:
            outcome.append(Workflow(root).cast("lumos"))
        except UnsafePath as err:
            outcome.append(err)

    caster = threading.Thread(target=cast)
    caster.start()
    try:
        assert waiting.wait(30)
        os.rename(root / TASK, tmp_path / "set-aside")
        if to.is_dir():
            os.symlink(to, root / TASK)
        else:
            (root / TASK).mkdir()
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        os.close(held)
        caster.join(30)
    return outcome[0]


def test_a_workspace_folder_made_a_link_while_a_cast_waits_for_the_lock_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = _outside(tmp_path)
    outcome = _swapped_while_waiting(tmp_path, monkeypatch, outside)
    assert isinstance(outcome, UnsafePath) and ".ai/task is a symbolic link" in str(outcome)
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]


def test_a_cast_that_waited_locks_the_workspace_folder_there_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The folder it waited on was moved away: its lock guards nothing any more.
    locked_there: list[bool] = []
    load = Journal.load

    def load_and_look(flow: Journal) -> Any:
        probe = os.open(flow.workspace.base, os.O_RDONLY)
        try:
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            locked_there.append(True)  # held by the cast, as it should be
        else:
            locked_there.append(False)
        finally:
            os.close(probe)
        return load(flow)

    monkeypatch.setattr(Journal, "load", load_and_look)
    outcome = _swapped_while_waiting(tmp_path, monkeypatch, tmp_path / "none")
    assert not isinstance(outcome, Exception)
    assert locked_there == [True]
    assert json.loads((tmp_path / "repo" / TASK / "state.json").read_text())["history"]


def test_a_long_lived_workflow_checks_the_folders_again_when_asked_its_status(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    set_state(root, "GATHER_NEEDS_PLAN")
    outside = _outside(tmp_path)
    (outside / "state.json").write_text((root / TASK / "state.json").read_text())
    flow = Workflow(root)
    flow.cast("lumos")
    os.rename(root / TASK, tmp_path / "set-aside")
    os.symlink(outside, root / TASK)
    for look in (flow.status, flow.read, lambda: flow.judge("GATHER_NEEDS_PLAN", "GATHER_EDITING")):
        with pytest.raises(UnsafePath, match=r"\.ai/task is a symbolic link"):
            look()


def test_a_workspace_folder_made_a_file_between_casts_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / TASK).mkdir(parents=True)
    flow = Workflow(root)
    flow.cast("lumos")
    os.rename(root / TASK, tmp_path / "set-aside")
    (root / TASK).write_text("a file\n")
    with pytest.raises(UnsafePath, match=f"{TASK} is not a folder"):
        flow.cast("lumos")
    assert (root / TASK).read_text() == "a file\n"


def test_a_state_file_made_a_link_during_a_cast_is_replaced_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cast read state.json as a file, so it does not ask again before replacing
    # it; a link put there meanwhile is replaced itself, and where it points is kept.
    root = tmp_path / "repo"
    set_state(root, "GATHER_EDITING")
    outside = _outside(tmp_path)
    flow = Workflow(root)
    written = flow.format.write

    def write_then_swap(*args: object) -> bytes:
        data = written(*args)  # type: ignore[arg-type]
        state = root / TASK / "state.json"
        state.unlink()
        state.symlink_to(outside / "keep.txt")
        return data

    monkeypatch.setattr(flow.format, "write", write_then_swap)
    assert flow.cast("lumos").rule == "L1"
    assert (outside / "keep.txt").read_text() == "untouched\n"
    state = root / TASK / "state.json"
    assert not state.is_symlink() and json.loads(state.read_text())["history"][-1]["rule"] == "L1"


def test_symlinked_state_file_is_not_read_or_replaced(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = _outside(tmp_path)
    (root / TASK).mkdir(parents=True)
    os.symlink(outside / "keep.txt", root / TASK / "state.json")
    with pytest.raises((UnsafePath, StateFileError)):
        Workflow(root).cast("lumos")
    assert (outside / "keep.txt").read_text() == "untouched\n"


def test_existing_files_are_never_overwritten_by_create(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_NEEDS_PLAN")  # as R4 leaves it
    write(tmp_path, "plan.md", "# My own plan\n")
    result = Workflow(tmp_path).cast("accio")  # G1 would create plan.md from the template
    assert result.rule == "G1"
    assert (tmp_path / TASK / "plan.md").read_text() == "# My own plan\n"
    assert "kept `.ai/task/plan.md` as it is (it already exists)" in result.response


def test_archives_never_overwrite_each_other(tmp_path: Path) -> None:
    for round_ in range(3):
        set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
        write(tmp_path, "plan.md", plan(unchecked=1))
        write(tmp_path, "task.md", task("same-name"))
        write(tmp_path, "task-results.md", f"results {round_}\n")
        assert Workflow(tmp_path).cast("accio").rule == "A2"
    folders = sorted((tmp_path / TASK / "tasks").iterdir())
    assert len(folders) == 3
    assert sorted((f / "task-results.md").read_text() for f in folders) == [
        "results 0\n",
        "results 1\n",
        "results 2\n",
    ]


def test_unknown_spell_lists_the_six(tmp_path: Path) -> None:
    result = spell(tmp_path, "alohomora")
    assert result.returncode == EXIT_BAD_INPUT
    assert "Accio, Expecto, Reparo, Reverto, Finite, Lumos" in result.stderr
    assert not (tmp_path / ".ai").exists()


@pytest.mark.timeout(120)
def test_a_billion_laughs_task_name_is_refused_in_bounded_time(tmp_path: Path) -> None:
    """Nine levels of nine aliases: 387 million strings if expanded; refused without expanding."""
    levels = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    set_state(tmp_path, "ACHIEVE_TASK_EXECUTED")
    write(tmp_path, "plan.md", plan(unchecked=1))
    write(tmp_path, "task.md", "---\n" + "\n".join(levels) + "\ntask_name: *l8\n---\n")
    write(tmp_path, "task-results.md", "results\n")
    result = spell(tmp_path, "accio")
    assert result.returncode == EXIT_BAD_INPUT and "Traceback" not in result.stderr
    assert "its frontmatter's aliases (`*name`) make it more than" in result.stderr
    assert (tmp_path / TASK / "task.md").is_file()


def test_a_plan_over_the_read_limit_stops_the_cast_instead_of_reading_as_done(
    tmp_path: Path,
) -> None:
    set_state(tmp_path, "ACHIEVE_TASK_DRAFTING")
    write(tmp_path, "plan.md", plan(unchecked=2) + "\n## Log\n\n" + "log line\n" * 130_000)
    before = files(tmp_path)
    result = spell(tmp_path, "accio")
    assert result.returncode == 2
    assert "plan.md is 1.2 MB" in clean(result)
    assert files(tmp_path) == before  # not ACHIEVE_COMPLETE
    status = spell(tmp_path, "status")
    assert status.returncode == 0 and "cannot tell" in status.stdout


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["plan.md", "state.json"])
def test_a_fifo_in_the_workspace_blocks_nothing(tmp_path: Path, name: str) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=1))
    (tmp_path / TASK / name).unlink()
    os.mkfifo(tmp_path / TASK / name)
    for command in ("accio", "lumos", "status"):
        result = spell(tmp_path, command)
        if name == "state.json" or command == "accio":
            assert result.returncode == 2
            assert "is a FIFO (named pipe), not a file" in clean(result)
        else:  # what needs plan.md cannot tell, and says so
            assert result.returncode == 0 and "cannot tell" in result.stdout
    repaired = spell(tmp_path, "repair")
    assert repaired.returncode == 0, repaired.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX permissions")
def test_a_read_only_workspace_is_named_by_the_file_not_its_temporary(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    set_state(root, "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=0))
    kw = obeying_permissions()
    (root / TASK).chmod(0o555)
    result = spell(root, "lumos", **kw)
    assert result.returncode == 1
    assert "cannot write .ai/task/state.json: Permission denied" in clean(result)
    assert ".state.json." not in result.stderr


def test_the_runtime_never_touches_a_git_folder(tmp_path: Path) -> None:
    workspace = Workspace(str(tmp_path), "")
    for rel in (".git/config", "a/.git/hooks/x", ".Git./config"):
        with pytest.raises(UnsafePath, match=r"\.git folder"):
            workspace.path(rel)


@pytest.mark.timeout(120)  # exponential before: never finished
def test_a_glob_of_many_double_stars_walks_each_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ".w"
    for _ in range(25):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "x.zz").write_text("")
    listed: list[object] = []
    scandir = os.scandir

    def counted(path: Any) -> Any:
        listed.append(path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    found = Workspace(str(tmp_path), ".w").glob("**/**/**/**/**/**/**/**/*.zz")
    assert found == ["d/" * 25 + "x.zz"]
    assert len(listed) == 26  # the workspace folder and its 25 folders, each listed once


def test_exists_refuses_a_symbolic_link_on_the_way_as_reading_does(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_text("")
    (tmp_path / ".w").mkdir()
    os.symlink(outside, tmp_path / ".w" / "docs")
    with pytest.raises(UnsafePath, match="symbolic link"):
        Workspace(str(tmp_path), ".w").exists("docs/a.md")


@pytest.mark.parametrize("folder", ["../escaped", "/tmp/x", "~/x", "C:/x", "a/../..", ".git"])
def test_the_runtime_refuses_a_workspace_outside_the_repository(
    tmp_path: Path, folder: str
) -> None:
    with pytest.raises(UnsafePath, match="not a folder inside the repository"):
        Workspace(str(tmp_path), folder)
