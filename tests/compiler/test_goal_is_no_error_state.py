"""A goal state is where the work ends, not a lost file: advice that leads there is
sound, and the machine offers the way there (found by writing examples/review)."""

from __future__ import annotations

from pathlib import Path

from codegen import load_spec
from codegen.analyse import analyse
from codegen.read.lexicon import ReadOptions

RELEASE = Path(__file__).resolve().parents[2] / "examples" / "release" / "spec" / "RELEASE.md"
ADVICE = "The notes are being written: Sign when they are."


def test_advice_that_leads_into_a_goal_whose_files_are_gone_is_not_misleading(
    tmp_path: Path,
) -> None:
    text = RELEASE.read_text()
    assert ADVICE in text
    spec_file = tmp_path / "RELEASE.md"
    spec_file.write_text(text.replace(ADVICE, ADVICE[:-1] + ", or Scrap the release."))
    spec = load_spec(spec_file, options=ReadOptions(""))
    assert "IDLE" in spec.goals
    assert not [f for f in analyse(spec) if f.kind == "misleading_advice"]
    # Without the goal, IDLE would stand for lost notes, and the advice would mislead.
    lines = spec_file.read_text().splitlines(keepends=True)
    spec_file.write_text("".join(ln for ln in lines if "*Goal*" not in ln))
    found = [
        f
        for f in analyse(load_spec(spec_file, options=ReadOptions("")))
        if f.kind == "misleading_advice"
    ]
    assert found and "Scrap" in found[0].message
