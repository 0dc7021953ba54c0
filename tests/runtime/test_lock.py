"""Concurrent casts on one workspace: every cast is in the history, once, in order.

8 processes cast 50 times each at the same workspace while a reader parses
state.json as fast as it can. The history must hold exactly the 400 casts, each
process's in the order it made them, and every read must see a whole file. The
control runs the same with the lock switched off (a test-only switch), to show
that this test can fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tests.support.workspaces import (
    TASK,
    history,
    plan,
    set_state,
    write,
)

PROCESSES = 8
CASTS = 50

# A worker casts Lumos and Accio in turn (GATHER_EDITING with a plan without
# criteria: both keep the state) and prints the id of each of its casts.
WORKER = textwrap.dedent(
    """
    import sys
    from spellbook import Workflow
    from spellbook.disk import lock

    root, casts, locked = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
    lock.ENABLED = locked
    flow = Workflow(root)
    ids = [flow.cast("Lumos" if i % 2 else "Accio").cast for i in range(casts)]
    print(" ".join(ids))
    """
)

READER = textwrap.dedent(
    """
    import json, sys, time
    path, seconds = sys.argv[1], float(sys.argv[2])
    reads = bad = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            continue
        reads += 1
        try:
            json.loads(data)["current_state"]
        except (ValueError, KeyError, TypeError):
            bad += 1
    print(reads, bad)
    """
)


def race(root: Path, locked: bool) -> tuple[list[list[str]], list[dict[str, object]]]:
    """Run the workers; each process's cast ids, and the history they left."""
    set_state(root, "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=0))
    start = time.monotonic()
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), str(CASTS), "1" if locked else "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    ids = []
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
        ids.append(out.split())
    elapsed = time.monotonic() - start
    history = json.loads((root / TASK / "state.json").read_text(encoding="utf-8"))["history"]
    print(
        f"\n{PROCESSES} processes x {CASTS} casts, lock {'on' if locked else 'off'}: "
        f"{len(history)} history entries in {elapsed:.1f} s"
    )
    return ids, history


def test_concurrent_casts_lose_nothing_and_keep_each_process_in_order(tmp_path: Path) -> None:
    ids, history = race(tmp_path, locked=True)
    logged = [str(e["cast"]) for e in history]
    assert len(logged) == PROCESSES * CASTS
    assert len(set(logged)) == len(logged), "a cast was logged twice"
    assert set(logged) == {i for process in ids for i in process}
    for process in ids:
        positions = [logged.index(i) for i in process]
        assert positions == sorted(positions), "a process's casts are out of order"


def test_readers_never_see_a_partial_state_file(tmp_path: Path) -> None:
    set_state(tmp_path, "GATHER_EDITING")
    write(tmp_path, "plan.md", plan(unchecked=0))
    path = str(tmp_path / TASK / "state.json")
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, path, "3"], stdout=subprocess.PIPE, text=True
    )
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path), str(CASTS), "1"],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(4)
    ]
    for worker in workers:
        assert worker.wait(timeout=300) == 0
    out, _ = reader.communicate(timeout=60)
    reads, bad = map(int, out.split())
    print(f"\nreader: {reads} reads of state.json during 200 casts, {bad} unparsable")
    assert reads > 100 and bad == 0


def test_control_without_the_lock_casts_are_lost(tmp_path: Path) -> None:
    _, history = race(tmp_path, locked=False)
    assert len(history) < PROCESSES * CASTS, "without the lock nothing was lost: no race seen"


LUMOS_WORKER = textwrap.dedent(
    """
    import os, sys
    from spellbook import Workflow
    from spellbook.disk import lock
    def no_folder_lock(folder, fd=None):  # as where flock cannot lock a folder
        if fd is not None:
            os.close(fd)
        return None
    if sys.argv[3] == "file":  # the fallback where folders cannot be locked
        lock._folder_lock = no_folder_lock
    flow = Workflow(sys.argv[1])
    print(" ".join(flow.cast("lumos").cast for _ in range(int(sys.argv[2]))))
    """
)


def _race_deleting_the_lock_file(root: Path, mode: str) -> tuple[list[str], list[str], int]:
    """8 processes x 50 Lumos while a thread deletes (and recreates) `.state.lock` as fast
    as it can: the cast ids printed, the ids in the history, the deletions."""
    set_state(root, "GATHER_EDITING")
    write(root, "plan.md", plan(unchecked=0))
    lock = root / TASK / ".state.lock"
    stop = threading.Event()
    unlinked = [0]

    def unlink() -> None:
        while not stop.is_set():
            try:
                lock.unlink()
                unlinked[0] += 1
            except FileNotFoundError:
                lock.touch()  # in folder mode there is no lock file: one to delete
            time.sleep(0.0005)

    remover = threading.Thread(target=unlink)
    remover.start()
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", LUMOS_WORKER, str(root), "50", mode],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    ids = []
    try:
        for worker in workers:
            out, err = worker.communicate(timeout=200)
            assert worker.returncode == 0, err
            ids += out.split()
    finally:
        stop.set()
        remover.join()
    logged = [str(e["cast"]) for e in history(root)]
    print(
        f"\n8 x 50 Lumos, {mode} lock, lock file deleted {unlinked[0]} times: {len(logged)} entries"
    )
    return ids, logged, unlinked[0]


@pytest.mark.timeout(240)
def test_casts_lose_nothing_while_the_lock_file_is_deleted(tmp_path: Path) -> None:
    ids, logged, unlinked = _race_deleting_the_lock_file(tmp_path, "folder")
    assert unlinked > 0
    assert len(ids) == 400 and sorted(logged) == sorted(ids)


@pytest.mark.timeout(240)
def test_control_a_lock_file_deleted_while_held_lets_casts_in_together(
    tmp_path: Path,
) -> None:
    """Why the lock is on the folder: the file lock alone loses casts in the same race."""
    ids, logged, _ = _race_deleting_the_lock_file(tmp_path, "file")
    assert len(ids) == 400 and len(logged) < 400
