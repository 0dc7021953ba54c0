"""Golden cases: each tests/data/cases/<name>/spec.md and what the tools must make of it.

`findings.txt` holds the verifier's findings, `error.txt` the error for a spec
that cannot be read, `machine.py` the generated module (only where a case has
one). Every finding kind has a case `<kind>` that triggers it and `<kind>-ok`
that does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import SpecError, load_spec
from codegen.analyse import SEVERITY, analyse
from codegen.model import Spec
from codegen.pipeline import load_machines
from codegen.render import render_machine

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "data" / "cases"
NAMES = sorted(p.name for p in CASES.iterdir() if p.is_dir())
EXPECTED = ("findings.txt", "error.txt", "machine.py")


def outputs(case: str) -> dict[str, str]:
    """What the tools make of a case: its findings (a file of several machines: each
    machine's under a line naming its section), its error, or its module."""
    path, shown = CASES / case / "spec.md", f"tests/data/cases/{case}/spec.md"
    try:
        found = load_machines(path, shown=shown)
        if len(found) > 1:
            return {"findings.txt": "".join(_machine_findings(m.section, m.spec) for m in found)}
        spec = load_spec(path, shown=shown)
    except SpecError as err:
        return {"error.txt": f"{err.line}: {err.message}\n"}
    findings = analyse(spec)
    out = {
        "findings.txt": "".join(
            f"{f.line}: {f.severity.value}: {f.message} [{f.kind}]\n" for f in findings
        )
    }
    if not any(f.severity.value == "error" for f in findings):
        out["machine.py"] = render_machine(spec, case)
    return out


def _machine_findings(section: str, spec: Spec) -> str:
    return f"## {section}\n" + "".join(
        f"{f.line}: {f.severity.value}: {f.message} [{f.kind}]\n" for f in analyse(spec)
    )


def test_there_are_cases() -> None:
    assert len(NAMES) >= 3


@pytest.mark.parametrize("case", NAMES)
def test_case_is_complete(case: str) -> None:
    folder = CASES / case
    assert (folder / "spec.md").is_file(), f"{case}: no spec.md"
    assert any((folder / name).is_file() for name in EXPECTED), (
        f"{case}: no expected output ({', '.join(EXPECTED)}); "
        "create the file, then run pytest tests/compiler/test_cases.py --update-cases"
    )


@pytest.mark.parametrize("case", NAMES)
def test_case_output_matches(case: str, update_cases: bool) -> None:
    folder = CASES / case
    produced = outputs(case)
    if update_cases:
        for name, text in produced.items():
            # A case asks for an output by having the file; update only those.
            if (folder / name).exists() or (name != "machine.py" and text):
                (folder / name).write_text(text, encoding="utf-8")
    checked = 0
    for name in EXPECTED:
        path = folder / name
        if path.is_file():
            assert name in produced, f"{case}: {name} expected, but not produced"
            assert produced[name] == path.read_text(encoding="utf-8"), f"{case}/{name} differs"
            checked += 1
    assert checked, f"{case}: nothing to compare"


@pytest.mark.parametrize("kind", sorted(SEVERITY))
def test_every_finding_kind_has_a_case_that_triggers_it_and_one_that_does_not(kind: str) -> None:
    triggers, clean = CASES / kind, CASES / f"{kind}-ok"
    assert triggers.is_dir() and clean.is_dir(), (
        f"tests/data/cases/{kind}/ and {kind}-ok/ are needed"
    )
    expected = "error.txt" if kind == "parse_error" else "findings.txt"
    found = outputs(kind).get(expected, "")
    assert (f"[{kind}]" in found) if expected == "findings.txt" else found, (
        f"{kind}/spec.md does not trigger {kind}"
    )
    assert "error.txt" not in outputs(f"{kind}-ok")
    assert f"[{kind}]" not in outputs(f"{kind}-ok").get("findings.txt", "")
