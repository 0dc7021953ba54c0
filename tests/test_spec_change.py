"""A spec change made as the README says: on a copy of the repository, a row is added
and a condition changed, the README's "When the spec changes" steps are run as
written, and then CI's checks (`.ci/run`: verify both specs, `--check` everything
derived) and the tests that pin the project spec's behaviour pass.

The README's last step, the whole suite, is this suite: here the copy runs the
tests that read the project spec, its generated machine and the docs derived from
them (the ones a spec change can break), not every test again.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A row added before A4, and A4's condition changed to leave it the other worlds.
A4 = "| A4 | ACHIEVE_COMPLETE | Accio | - |"
CHANGED = (
    "| A4a | ACHIEVE_COMPLETE | Accio | comments.md exists | ACHIEVE_COMPLETE | No state "
    "change | Remind user that review comments are waiting and suggest Reparo | "
    "[A4.md](responses/achieve_transitions/A4.md) |\n"
    "| A4 | ACHIEVE_COMPLETE | Accio | comments.md missing |"
)

# The generated module's size the README quotes is bench/run.py's figure, which a spec
# change makes stale until the bench runs again: the copy does not run the bench.
SIZES = (
    " --deselect tests/test_readme.py::"
    + "test_the_readme_s_line_counts_of_generated_files_are_the_files_own"
)

# The README's last step: the whole suite.
TESTS = ".venv/bin/python -m pytest"

# The tests that read the project spec, its machine or what is derived from them.
PINNED = [
    "tests/test_readme.py",
    "tests/runtime/test_response_goldens.py",
    "tests/runtime/test_facts.py",
    "tests/compiler/test_dialects.py",
    "tests/compiler/test_diff.py",
    "tests/compiler/test_render.py",
    "tests/cli/test_generate.py",
    "tests/cli/test_precommit_hooks.py",
]
# Of those, the ones no spec change can make fail, as their assertions hold for any spec
# the README's steps accept (these pass in the copy as here, and run in the suite):
UNPINNED = [
    # a fresh environment verifying a spec of its own;
    "tests/cli/test_precommit_hooks.py::"
    "test_the_hooks_declared_dependencies_alone_verify_a_twenty_fact_cell",
    # specs, rows and texts of their own, or committed fixtures of other dialects;
    "tests/compiler/test_diff.py::test_the_same_spec_in_another_dialect_diffs_as_no_behaviour",
    "tests/compiler/test_render.py::test_spec_text_never_becomes_code",
    "tests/compiler/test_render.py::test_py_filter_makes_literals",
    "tests/compiler/test_render.py::test_rows_for_every_kind_generate_a_working_module",
    "tests/compiler/test_render.py::test_a_row_alone_in_its_piece_is_formatted_as_a_whole",
    "tests/compiler/test_render.py::test_long_text_is_cut_into_pieces_that_join_to_it",
    "tests/compiler/test_render.py::test_a_clause_whose_space_passes_the_width_leaves_no_empty",
    # codegen refusing a spec put out of reach (garbage, a FIFO, a path that is not there),
    # a configuration, a place to write or a stream, before or whatever the spec says;
    "tests/cli/test_generate.py::test_unreadable_spec_exits_2",
    "tests/cli/test_generate.py::test_a_listed_spec_that_is_a_fifo_is_refused_at_once_naming",
    "tests/cli/test_generate.py::test_a_stdout_that_cannot_take_the_output_is_one_line_exit_2",
    "tests/cli/test_generate.py::test_a_spec_path_s_terminal_controls_never_reach_the_terminal",
    "tests/cli/test_generate.py::test_a_document_part_that_cannot_be_taken_is_an_error_naming",
    "tests/cli/test_generate.py::test_a_document_that_is_a_link_is_refused",
    "tests/cli/test_generate.py::test_a_document_that_is_not_utf8_is_an_error",
    "tests/cli/test_generate.py::test_codegen_never_writes_a_report_or_document_over_a_file_it",
    "tests/cli/test_generate.py::test_a_document_or_report_in_a_folder_that_leads_out_is_refused",
    "tests/cli/test_generate.py::test_codegen_never_writes_through_a_symbolic_link",
    "tests/cli/test_generate.py::test_codegen_never_writes_into_git",
    "tests/cli/test_generate.py::test_every_output_is_checked_before_any_is_written",
    "tests/cli/test_generate.py::test_a_folder_codegen_cannot_write_in_stops_it_before_anything",
    # documents of their own, whose line endings and byte order mark are kept;
    "tests/cli/test_generate.py::test_a_document_keeps_its_line_endings_and_byte_order_mark",
    "tests/cli/test_generate.py::test_a_document_with_one_crlf_line_keeps_each_line_s_own_ending",
    # and bytecode planted beside a generated module, whatever the module says.
    "tests/cli/test_generate.py::test_check_fails_on_compiled_code_python_would_run_in_place_of",
]


def readme_steps() -> list[str]:
    """The commands of the README's "When the spec changes", as written."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## When the spec changes", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    return [line.strip() for line in block.strip().splitlines()]


def ci_checks() -> list[str]:
    """`.ci/run`'s checks of the specs and of what is derived from them."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    return [
        line.strip()
        for line in script.splitlines()
        if re.match(r"\.venv/bin/python (verify-state-machine\.py|-m codegen)", line.strip())
    ]


def test_the_readme_steps_use_the_quickstart_s_interpreter() -> None:
    steps = readme_steps()
    assert steps[0].startswith(".venv/bin/python verify-state-machine.py --strict")
    assert ".venv/bin/python -m codegen" in steps
    assert all(step.startswith(".venv/bin/python ") for step in steps), steps
    # The whole suite, last: the test below runs the pinned tests in its place (were it
    # written otherwise, the copy would run the whole suite, this test included, again).
    assert steps[-1] == TESTS, steps
    assert len(ci_checks()) >= 3, ci_checks()
    # Each test left out of the copy's run is one of the pinned files' tests (by the start
    # of its name, which --deselect takes).
    for test in UNPINNED:
        path, name = test.split("::")
        assert path in PINNED and f"\ndef {name}" in (ROOT / path).read_text(), test


@pytest.mark.timeout(600)
def test_a_spec_change_made_with_the_readme_s_steps_leaves_ci_green(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", ".mypy_cache"
        ),
    )
    # The quickstart's environment, as `.venv/` of the copy; the copy's own code first.
    (copy / ".venv").symlink_to(Path(sys.executable).parent.parent)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(copy / "src"), str(copy)]),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,  # no signing or hooks of the user's
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    env.pop("PYTEST_ADDOPTS", None)

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            shlex.split(command),
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=540,
        )

    # The branch the change will merge into: the copy as it is, as origin/main.
    for git in ("git init -q", "git add -A", "git commit -qm main"):
        assert run(git).returncode == 0
    assert run("git update-ref refs/remotes/origin/main HEAD").returncode == 0

    spec = copy / "spec" / "STATE_MACHINE.md"
    text = spec.read_text(encoding="utf-8")
    assert text.count(A4) == 1
    spec.write_text(text.replace(A4, CHANGED), encoding="utf-8")

    said: dict[str, str] = {}
    for step in readme_steps():
        if step == TESTS:
            step += " -q -p no:cacheprovider " + " ".join(PINNED) + SIZES
            step += "".join(f" --deselect {test}" for test in UNPINNED)
        assert "pytest" not in step or "tests/" in step, step  # never the whole suite again
        done = run(step)
        assert done.returncode == 0, (step, done.stdout[-3000:], done.stderr[-3000:])
        said[step] = done.stdout
    # The change is what was meant: the diff names the new row, and the checks hold.
    (against,) = [out for step, out in said.items() if "--against" in step]
    assert "A4a" in against and "comments.md exists" in against, against
    for check in ci_checks():
        done = run(check)
        assert done.returncode == 0, (check, done.stdout[-3000:], done.stderr[-3000:])
    goldens = (copy / "tests" / "data" / "goldens" / "responses-state_machine.txt").read_text()
    assert "A4a" in goldens
