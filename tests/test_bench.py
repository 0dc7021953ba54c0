"""The bench's own helpers: what its report says about the machine it ran on."""

from __future__ import annotations

from pathlib import Path


def test_the_servers_casts_per_second_say_which_filesystem_they_were_on() -> None:
    import pytest

    mounts = Path("/proc/mounts")
    if not mounts.exists():
        pytest.skip("no /proc/mounts here")
    from bench.run import filesystem

    kinds = {line.split()[1]: line.split()[2] for line in mounts.read_text().splitlines()}
    root = kinds.get("/")
    assert root is not None and filesystem("/") == (
        f"{root} (RAM)" if root in ("tmpfs", "ramfs") else root
    )
    if kinds.get("/dev/shm") == "tmpfs":
        assert filesystem("/dev/shm/any/file") == "tmpfs (RAM)"
