"""examples/orders: a machine whose guards and callbacks are the shop's own code
(`own_code = true`), driven by a program of its own through the generated `build(model)`,
as docs/guide/for-transitions-users.md shows."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_BAD_INPUT
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


def test_an_order_of_one_s_own_class_is_attached_with_no_workspace() -> None:
    import importlib.util

    from spellbook import attach
    from spellbook.schema import MissingCode

    found = importlib.util.spec_from_file_location(
        "orders_attached", EXAMPLE / "generated" / "orders.py"
    )
    assert found is not None and found.loader is not None
    orders = importlib.util.module_from_spec(found)
    found.loader.exec_module(orders)
    guards = {guard.name for guard in orders.GUARDS}

    class Basket:
        """Not the generated Model: every guard and callback a method of its own."""

        done: list[str]

    answers = {"card_authorised": True, "basket_empty": False}
    for name in orders.OWN_CODE:
        if name in guards:
            setattr(Basket, name, lambda self, *a, _n=name, **k: answers.get(_n, True))
        else:
            setattr(Basket, name, lambda self, *a, _n=name, **k: self.done.append(_n))
    basket = Basket()
    basket.done = []
    orders.build(attach(basket, orders))  # own code only: no workspace to read
    assert basket.pay() is True and (basket.fired, basket.state) == ("P1", "PAID")  # type: ignore[attr-defined]
    assert basket.done == ["charge_the_card", "send_a_receipt"]
    del Basket.card_authorised  # type: ignore[attr-defined]
    with pytest.raises(MissingCode, match="Basket does not define card_authorised"):
        orders.build(attach(Basket(), orders))
