"""A file of several machines, one per section, as a user verifies and generates it: each
machine verified on its own in every report format (the exit status the worst), one
chosen with `--section` or `section = ...`, and codegen generating one module per
listed section, never one machine merged out of several."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "verify-state-machine.py"
FIXTURES = ROOT / "tests" / "data" / "fixtures" / "machines"
DECLARED = FIXTURES / "declared.md"
UNDECLARED = FIXTURES / "undeclared.md"
ONE_SECTION = FIXTURES / "one_section.md"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def verify(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run(str(SCRIPT), *args, cwd=cwd)


def test_each_machine_is_verified_on_its_own_with_a_report_headed_by_its_section() -> None:
    result = verify("--spec", str(DECLARED))
    assert result.returncode == 0, result.stderr
    reports = result.stdout.split("\n== ")
    assert len(reports) == 2
    assert reports[0].startswith(f"== {DECLARED}: section 'Payment' (line 6) ==\n")
    assert reports[1].startswith(f"{DECLARED}: section 'Refund' (line 37) ==\n")
    assert "3 states, 2 spells, 6 rule rows" in reports[0]
    assert "REQUESTED" not in reports[0] and "REQUESTED" in reports[1]
    assert "unreachable" not in result.stdout


def test_json_is_one_object_holding_a_report_per_machine() -> None:
    result = verify("--spec", str(DECLARED), "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["spec"] == str(DECLARED)
    assert [(m["section"], m["line"], m["states"]) for m in report["machines"]] == [
        ("Payment", 6, ["CREATED", "PROCESSING", "PAID"]),
        ("Refund", 37, ["REQUESTED", "PROCESSING", "REFUNDED"]),
    ]
    assert all(m["findings"] == [] for m in report["machines"])


def test_sarif_has_a_run_per_machine_and_markdown_a_section_per_machine() -> None:
    sarif = json.loads(verify("--spec", str(DECLARED), "--format", "sarif").stdout)
    assert [r["properties"]["section"] for r in sarif["runs"]] == ["Payment", "Refund"]
    assert len({r["automationDetails"]["id"] for r in sarif["runs"]}) == 2
    markdown = verify("--spec", str(DECLARED), "--format", "markdown").stdout
    headings = [line for line in markdown.split("\n") if line.startswith(("# ", "## "))]
    assert headings == [
        f"# Verification of `{DECLARED}`: 2 machines, one per section",
        "## Section 'Payment' (line 6)",
        "## Section 'Refund' (line 37)",
    ]
    assert markdown.count("### Findings") == 2


def test_the_exit_status_is_the_worst_machine_s(tmp_path: Path) -> None:
    spec = tmp_path / "shop.md"
    text = DECLARED.read_text(encoding="utf-8")
    row = next(line for line in text.split("\n") if line.startswith("| R6 |"))
    spec.write_text(text.replace(row + "\n", ""), encoding="utf-8")  # REFUNDED x Finish
    result = verify("--spec", str(spec), "--format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert [m["ok"] for m in report["machines"]] == [True, False]
    assert report["ok"] is False
    assert verify("--spec", str(spec), "--section", "payment").returncode == 0


def test_a_chosen_section_is_verified_alone_and_an_unknown_one_is_named() -> None:
    result = verify("--spec", str(DECLARED), "--section", "refund", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["states"] == ["REQUESTED", "PROCESSING", "REFUNDED"]
    unknown = verify("--spec", str(DECLARED), "--section", "Shipping")
    assert unknown.returncode == 2
    assert "no section 'Shipping'" in unknown.stderr
    assert "'Payment' (line 6), 'Refund' (line 37)" in unknown.stderr


def test_sections_that_may_be_one_machine_or_two_are_refused_naming_both() -> None:
    result = verify("--spec", str(UNDECLARED))
    assert result.returncode == 2
    assert result.stdout == ""
    assert "'Payment' (line 7) and 'Refund' (line 25) share the state 'PROCESSING'" in (
        result.stderr
    )
    assert "--section Payment" in result.stderr


def test_a_file_of_one_machine_reports_as_before() -> None:
    result = verify("--spec", str(ONE_SECTION))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{ONE_SECTION}: 2 states, 2 spells")
    assert "==" not in result.stdout
    assert verify("--spec", str(ONE_SECTION), "--section", "Kettle").stdout == result.stdout


def test_comparing_a_file_of_several_machines_compares_each_section_or_the_one_chosen() -> None:
    result = verify("--spec", str(DECLARED), "--against", str(DECLARED))
    assert result.returncode == 0, result.stderr
    assert "section 'Payment'" in result.stdout and "section 'Refund'" in result.stdout
    chosen = verify("--spec", str(DECLARED), "--against", str(DECLARED), "--section", "Refund")
    assert chosen.returncode == 0, chosen.stderr
    assert "section 'Payment'" not in chosen.stdout


def test_a_section_not_in_the_older_file_is_a_new_machine_and_the_others_are_compared(
    tmp_path: Path,
) -> None:
    # A machine added as a section of its own refused the whole comparison (exit 2, "no
    # section 'Refund' holds a transition table"): no word of the machines both have.
    text = DECLARED.read_text(encoding="utf-8")
    older = tmp_path / "older.md"
    older.write_text(text[: text.index("\n## Refund\n")] + "\n", encoding="utf-8")
    result = verify("--spec", str(DECLARED), "--against", str(older))
    assert result.returncode == 0, result.stderr
    payment, refund = result.stdout.split("== ")[1:]
    assert "section 'Payment'" in payment and "no behaviour change" in payment
    assert "section 'Refund'" in refund and "(no section 'Refund' there): a new machine" in refund
    as_json = json.loads(
        verify("--spec", str(DECLARED), "--against", str(older), "--format", "json").stdout
    )
    assert [m["verdict"] for m in as_json["machines"]] == ["no behaviour change", "new machine"]


def test_a_section_only_the_older_file_has_is_a_machine_removed_and_breaking(
    tmp_path: Path,
) -> None:
    # A machine removed from a file of several (or its heading renamed) was not said at
    # all: workspaces in its states were left with no machine, and CI passed.
    text = DECLARED.read_text(encoding="utf-8")
    refund = text[text.index("## Refund\n") :]
    older = tmp_path / "older.md"
    older.write_text(text + "\n" + refund.replace("## Refund", "## Returns"), encoding="utf-8")
    result = verify("--spec", str(DECLARED), "--against", str(older))
    assert result.returncode == 1, result.stderr
    assert f"against {older} (section 'Returns'): BREAKING: a machine no longer in the spec" in (
        result.stdout
    )
    markdown = verify("--spec", str(DECLARED), "--against", str(older), "--format", "markdown")
    assert "**BREAKING**: a machine no longer in the spec" in markdown.stdout


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A project whose spec/shop.md holds a payment machine and a refund machine, each
    naming its own state file in its section."""
    (tmp_path / "spec").mkdir()
    text = DECLARED.read_text(encoding="utf-8")
    for name in ("Payment", "Refund"):
        kept = f"State is kept in `.shop/{name.lower()}/state.json`."
        text = text.replace(f"\n## {name}\n", f"\n## {name}\n\n{kept}\n", 1)
    (tmp_path / "spec" / "shop.md").write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    return tmp_path


def _configure(project: Path, machines: str) -> None:
    (project / "pyproject.toml").write_text(
        f"[tool.spellbook]\n[tool.spellbook.machines]\n{machines}", encoding="utf-8"
    )


def test_codegen_asks_for_a_listed_file_of_several_machines_to_be_listed_by_section(
    shop: Path,
) -> None:
    _configure(shop, 'shop = "spec/shop.md"\n')
    result = run("-m", "codegen", cwd=shop)
    assert result.returncode == 2
    assert "spec/shop.md:6: this file holds 2 machines, one per section" in result.stderr
    assert 'shop_payment = { spec = "spec/shop.md", section = "Payment" }' in result.stderr
    assert 'shop_refund = { spec = "spec/shop.md", section = "Refund" }' in result.stderr
    assert not (shop / "generated").exists()


def test_codegen_generates_a_module_per_listed_section(shop: Path) -> None:
    _configure(
        shop,
        'pay = { spec = "spec/shop.md", section = "Payment" }\n'
        'refund = { spec = "spec/shop.md", section = "refund" }\n',
    )
    result = run("-m", "codegen", cwd=shop)
    assert result.returncode == 0, result.stderr
    pay = (shop / "generated" / "pay.py").read_text(encoding="utf-8")
    refund = (shop / "generated" / "refund.py").read_text(encoding="utf-8")
    assert 'INITIAL = "CREATED"' in pay and "REQUESTED" not in pay
    assert 'INITIAL = "REQUESTED"' in refund and "CREATED" not in refund
    assert run("-m", "codegen", "--check", cwd=shop).returncode == 0
    # The one file, verified in its project: each machine on its own.
    verified = verify("--spec", "spec/shop.md", "--brief", cwd=shop)
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.count("== spec/shop.md: section") == 2
    # `python -m codegen --spec` of that file makes both of its machines.
    again = run("-m", "codegen", "--spec", "spec/shop.md", cwd=shop)
    assert again.returncode == 0, again.stderr
    assert "unchanged generated/pay.py" in again.stdout
    assert "unchanged generated/refund.py" in again.stdout
