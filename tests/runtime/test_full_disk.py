"""A write that fails half way (a full disk) names the file the user knows, not a
temporary, and leaves no temporary behind (issue: "No space left on device" alone)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from spellbook.disk.store import Workspace


def test_a_full_disk_names_the_file_being_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = Workspace(str(tmp_path), ".w")

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError, match=r"cannot write \.w/state\.json: No space left on device"):
        workspace.replace("state.json", b"{}")
    with pytest.raises(OSError, match=r"cannot write \.w/notes\.md"):
        workspace.create("notes.md", "x")
    assert sorted(p.name for p in (tmp_path / ".w").iterdir()) == []  # no temporary left
