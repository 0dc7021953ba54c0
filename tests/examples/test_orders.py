"""examples/orders: a machine whose guards and callbacks are the shop's own code
(`own_code = true`), driven by a program of its own through the generated `build(model)`,
as docs/for-transitions-users.md shows."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spellbook.exits import EXIT_BAD_INPUT
from tests.cli.test_project_machines import compiler, run, spell

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "orders"


def test_the_example_is_sound_and_its_generated_machine_fresh() -> None:
    fresh = compiler(EXAMPLE, "generate", "--check")
    assert fresh.returncode == 0, fresh.stderr
    verified = compiler(EXAMPLE, "verify", "--spec", "spec/ORDERS.md")
    assert verified.returncode == 0 and "0 errors, 0 warnings" in verified.stdout


def test_the_shop_drives_an_order_through_its_own_guards_and_callbacks(tmp_path: Path) -> None:
    shop = tmp_path / "shop"
    shutil.copytree(EXAMPLE, shop, ignore=shutil.ignore_patterns("__pycache__"))
    done = run(shop, "shop.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "pay: done by P1, now PAID",
        "pack: done by K2, now PAID",
        "pack: done by K1, now PACKED",
        "deliver: done by D2, now PACKED",
        "deliver: done by D1, now DELIVERED",
        "cancel: refused by X1, now DELIVERED",
        "charged 3 items",
        "receipt sent",
        "substitute offered for figs",
        "packed",
        "card left",
        "thanked",
    ]
    (shop / ".git").mkdir()
    refused = spell(shop, "pay")
    assert refused.returncode == EXIT_BAD_INPUT
    assert "drive it through its generated build(model)" in refused.stderr


@pytest.mark.timeout(600)
def test_the_shop_and_its_machine_pass_mypy_strict(tmp_path: Path) -> None:
    shop = tmp_path / "shop"
    shutil.copytree(EXAMPLE, shop, ignore=shutil.ignore_patterns("__pycache__"))
    for target in ("shop.py", "generated/orders.py"):
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "c"), target],
            cwd=shop,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
