"""The README's Python examples run as written."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
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


JSON_BLOCKS = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", README, re.DOTALL)]


def test_readme_feature_list_example_drives_a_session(tmp_path: Path) -> None:
    from spellbook import Workflow
    from spellbook.machines import session_machine

    (example,) = [b for b in JSON_BLOCKS if "features" in b]
    folder = tmp_path / ".claude" / "progress"
    folder.mkdir(parents=True)
    (folder / "feature-list.json").write_text(json.dumps(example), encoding="utf-8")
    flow = Workflow(tmp_path, machine=session_machine)  # type: ignore[arg-type]
    result = flow.cast("advance")
    assert (result.after, flow.read().extra["feature_id"]) == ("IMPLEMENT", "PT-001")


def test_readme_hook_settings_block_a_skipped_step(tmp_path: Path) -> None:
    import shlex
    import subprocess
    import sys

    (settings,) = [b for b in JSON_BLOCKS if "hooks" in b]
    (entry,) = settings["hooks"]["PreToolUse"]
    assert re.fullmatch(entry["matcher"], "Write") and re.fullmatch(entry["matcher"], "Edit")
    command = shlex.split(entry["hooks"][0]["command"])
    assert command[0] == "spell"
    state = tmp_path / ".claude" / "progress" / "state.json"
    event = {
        "cwd": str(tmp_path),
        "tool_name": "Write",
        "tool_input": {"file_path": str(state), "content": '{"state": "COMPLETE"}'},
    }
    done = subprocess.run(
        [sys.executable, "-m", "spellbook", *command[1:]],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2 and "COMPLETE" in done.stderr


def test_readme_embeds_the_spell_machine_diagram_as_generated() -> None:
    diagram = (ROOT / "generated" / "spell_machine.mmd").read_text(encoding="utf-8")
    (embedded,) = re.findall(r"```mermaid\n(.*?)```", README, re.DOTALL)
    assert embedded == diagram


@pytest.mark.parametrize(
    ("report", "spec"),
    [
        ("docs/verification.md", "spec/STATE_MACHINE.md"),
        ("docs/verification-session.md", "spec/SESSION_STATE_MACHINE.md"),
    ],
)
def test_committed_verification_reports_are_fresh(
    report: str, spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codegen.verify import main

    monkeypatch.chdir(ROOT)  # the report names the spec as given, relative to the root
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--spec", spec, "--format", "markdown"]) == 0
    committed = (ROOT / report).read_text(encoding="utf-8")
    assert out.getvalue() == committed, f"{report} is stale: regenerate it (see README)"


def test_github_workflow_runs_the_readme_quickstart_as_written() -> None:
    quickstart = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", quickstart, re.DOTALL)
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert len(commands) == 2
    for command in commands:
        assert f"          {command}\n" in workflow
    assert "bash .ci/run" in workflow


def test_readme_quotes_the_latest_benchmark_headline() -> None:
    """The README's figures are the ones bench/run.py last wrote to docs/performance.md."""
    report = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    headline = report.split("## Headline\n\n", 1)[1].split("\n\n", 1)[0]
    quoted = README.split("<!-- bench/run.py: headline -->\n", 1)[1].split("<!--", 1)[0]
    assert headline.startswith("- cold `spell lumos`: ")
    assert quoted.strip() == headline.strip()
