"""The commands as a user runs them, in a subprocess: `spell` and `spell session`, and
what a test needs around them (stderr without a traceback, file permissions obeyed
even as root)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT_USER = os.geteuid() == 0 if hasattr(os, "geteuid") else False
PR_CAPBSET_READ, PR_CAPBSET_DROP = 23, 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def spell(
    root: Path, *args: str, cwd: Path | None = None, **kw: object
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spellbook", "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        **kw,  # type: ignore[arg-type]
    )


def session_cli(
    *args: str, stdin: str | bytes = "", cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "spellbook", "session", *args],
        capture_output=True,
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def clean(result: subprocess.CompletedProcess[str] | subprocess.CompletedProcess[bytes]) -> str:
    """stderr, after checking that it holds no traceback."""
    err = result.stderr if isinstance(result.stderr, str) else result.stderr.decode()
    assert "Traceback" not in err, err
    return err


def obeying_permissions() -> dict[str, object]:
    """subprocess arguments that make the command obey file permissions: root reads
    anything, so as root the command runs without CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH (dropped from its bounding set before it starts)."""
    if not ROOT_USER:
        return {}
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_CAPBSET_READ, CAP_DAC_OVERRIDE, 0, 0, 0) < 0:
        pytest.skip("no capabilities to drop here")

    def drop() -> None:
        for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return {"preexec_fn": drop}


def alive(pid: int) -> bool:
    """Whether process `pid` is running (read from /proc; a zombie is dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def ends(pid: int, within: float = 30.0) -> bool:
    """Whether process `pid` is gone (or a zombie) within `within` seconds: a process
    sent SIGKILL ends when the kernel gets to it, later on a busy machine."""
    import time

    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
