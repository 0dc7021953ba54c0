"""Golden cases: each tests/cases/<name>/spec.md and what the tools must make of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import load_spec
from codegen.analyse import analyse
from codegen.render import render_machine

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
NAMES = sorted(p.name for p in CASES.iterdir() if p.is_dir())
EXPECTED = ("machine.py", "findings.txt")


def shown(case: str) -> str:
    return f"tests/cases/{case}/spec.md"


def outputs(case: str) -> dict[str, str]:
    spec = load_spec(CASES / case / "spec.md", shown=shown(case))
    findings = analyse(spec)
    out = {
        "findings.txt": "".join(
            f"{f.line}: {f.severity.value}: {f.message} [{f.kind}]\n" for f in findings
        )
    }
    if not any(f.severity.value == "error" for f in findings):
        out["machine.py"] = render_machine(spec, case)
    return out


def test_there_are_cases() -> None:
    assert len(NAMES) >= 3


@pytest.mark.parametrize("case", NAMES)
def test_case_is_complete(case: str) -> None:
    folder = CASES / case
    assert (folder / "spec.md").is_file(), f"{case}: no spec.md"
    assert any((folder / name).is_file() for name in EXPECTED), (
        f"{case}: no expected output ({' or '.join(EXPECTED)}); "
        "run pytest tests/test_cases.py --update-cases"
    )


@pytest.mark.parametrize("case", NAMES)
def test_case_output_matches(case: str, update_cases: bool) -> None:
    folder = CASES / case
    produced = outputs(case)
    if update_cases:
        for name, text in produced.items():
            # An empty findings.txt is only kept where a case asks for "no findings".
            if text or (folder / name).exists():
                (folder / name).write_text(text, encoding="utf-8")
    checked = 0
    for name in EXPECTED:
        path = folder / name
        if path.is_file():
            assert name in produced, f"{case}: {name} expected, but the spec has errors"
            assert produced[name] == path.read_text(encoding="utf-8"), f"{case}/{name} differs"
            checked += 1
    assert checked, f"{case}: nothing to compare"
