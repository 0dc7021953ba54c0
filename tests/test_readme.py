"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"```python\n(.*?)```", README, re.DOTALL)


def test_readme_has_examples() -> None:
    assert EXAMPLES


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_readme_example_runs(code: str) -> None:
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_readme_documents_every_finding_kind() -> None:
    from codegen.analyse import SEVERITY

    missing = [kind for kind in SEVERITY if f"`{kind}`" not in README]
    assert not missing, missing


def test_readme_shows_the_verifier_output_as_it_is() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    shown = README.split("$ python verify-state-machine.py\n", 1)[1].split("```", 1)[0]
    actual = subprocess.run(
        [sys.executable, "verify-state-machine.py"], cwd=root, capture_output=True, text=True
    ).stdout
    assert shown == actual, "README's verifier output is stale; paste the current output"
