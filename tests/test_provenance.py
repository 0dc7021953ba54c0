"""Every file of the repository is the project's own: no other project's code or
documents (a benchmark's peer, a real spec from elsewhere) is committed. A file that
carries a licence or copyright notice is another project's, since this project's
licence is declared once, in pyproject.toml."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTICE = re.compile(
    rb"copyright \(c\)|copyright \d{4}|all rights reserved|permission is hereby granted"
    rb"|permission to use, copy, modify|licensed under the|isc license|spdx-license-identifier",
    re.IGNORECASE,
)
OWN = {"pyproject.toml", "tests/test_provenance.py"}


def tracked() -> list[str]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    done = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True, timeout=60
    )
    return [name for name in done.stdout.decode("utf-8").split("\0") if name]


def test_no_file_carries_another_project_s_licence_notice() -> None:
    found = [
        name
        for name in tracked()
        if name not in OWN
        and (ROOT / name).is_file()
        and NOTICE.search((ROOT / name).read_bytes()[:200_000])
    ]
    assert found == []


def test_no_compiled_code_is_committed() -> None:
    """Bytecode or a compiled extension in the repository would run in place of the
    source it claims to be (and an installed wheel would carry it): none is committed."""
    compiled = (".pyc", ".pyo", ".so", ".pyd", ".dylib")
    assert [name for name in tracked() if name.endswith(compiled)] == []
