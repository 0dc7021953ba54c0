"""The pre-commit hooks this repository publishes, run as pre-commit would run them.

Each hook's entry is a console script of the package; here it runs through the
function pyproject.toml names for that script, in a copy of the repository's
specs, generated files and configuration, with pre-commit's `files` filter.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
HOOKS: list[dict[str, Any]] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
LOCAL: dict[str, Any] = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
SCRIPTS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def checkout(tmp_path: Path) -> Path:
    """What the hooks look at, as in a clean checkout."""
    for name in ("spec", "generated", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copy(ROOT / "verify-state-machine.py", tmp_path / "verify-state-machine.py")
    return tmp_path


def run_hook(hook: dict[str, Any], repo: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    script, *args = shlex.split(hook["entry"])
    module, function = SCRIPTS[script].split(":")
    code = f"import sys; from {module} import {function}; sys.exit({function}())"
    return subprocess.run(
        [sys.executable, "-c", code, *args, *hook.get("args", []), *extra],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )


def hook(hook_id: str) -> dict[str, Any]:
    (found,) = [h for h in HOOKS if h["id"] == hook_id]
    return found


def test_the_published_hooks_run_on_the_files_they_guard() -> None:
    assert {h["id"] for h in HOOKS} == {"verify-state-machine", "codegen-check", "spec-diff"}
    for h in HOOKS:
        assert h["language"] == "python" and h["pass_filenames"] is False
        assert shlex.split(h["entry"])[0] in SCRIPTS
        assert re.search(h["files"], "spec/STATE_MACHINE.md")
    assert re.search(hook("codegen-check")["files"], "generated/spell_machine.py")
    # A generated module carries its templates and vocabulary, wherever they are kept
    # (`templates = "tpl"`): its freshness is checked on every commit.
    assert hook("codegen-check").get("always_run") is True
    assert re.search(hook("codegen-check")["files"], "docs/reference/verifier.md")
    assert not re.search(hook("verify-state-machine")["files"], "src/spellbook/doors/cli.py")
    # A machine's spec lives where [tool.spellbook.machines] says: not only under spec/.
    for guard in ("verify-state-machine", "spec-diff"):
        for path in ("docs/pr-lifecycle.md", "pyproject.toml", "services/a/pyproject.toml"):
            assert re.search(hook(guard)["files"], path), (guard, path)
        assert not re.search(hook(guard)["files"], "mypyproject.toml")


def test_hooks_pass_on_a_clean_checkout(tmp_path: Path) -> None:
    repo = committed(checkout(tmp_path))
    for h in HOOKS:
        done = run_hook(h, repo)
        assert done.returncode == 0, (h["id"], done.stdout, done.stderr)


def test_codegen_check_fails_after_the_spec_is_edited_without_regenerating(
    tmp_path: Path,
) -> None:
    repo = checkout(tmp_path)
    spec = repo / "spec" / "STATE_MACHINE.md"
    text = spec.read_text(encoding="utf-8")
    edited = text.replace(
        "Guide user in filling out sections", "Guide the user through the plan", 1
    )
    assert edited != text
    spec.write_text(edited, encoding="utf-8")
    done = run_hook(hook("codegen-check"), repo)
    assert done.returncode == 1
    # Named with the command that works in the repository the hook runs in.
    assert "generated/spell_machine.py: stale; run spellbook-codegen" in done.stderr
    # The spec itself is still sound: only regeneration is missing.
    assert run_hook(hook("verify-state-machine"), repo).returncode == 0


def test_verify_hook_fails_when_an_edit_leaves_a_gap(tmp_path: Path) -> None:
    repo = checkout(tmp_path)
    spec = repo / "spec" / "STATE_MACHINE.md"
    lines = spec.read_text(encoding="utf-8").splitlines(keepends=True)
    (row,) = [i for i, line in enumerate(lines) if line.startswith("| L1 |")]
    spec.write_text("".join(lines[:row] + lines[row + 1 :]), encoding="utf-8")
    done = run_hook(hook("verify-state-machine"), repo)
    assert done.returncode == 1
    assert "Lumos" in done.stdout


def committed(repo: Path) -> Path:
    """`repo` as a git repository whose origin/main is what it holds now."""
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    subprocess.run([*git, "update-ref", "refs/remotes/origin/main", "HEAD"], check=True)
    return repo


def test_the_spec_diff_hook_fails_a_push_that_strands_workspaces(tmp_path: Path) -> None:
    repo = committed(checkout(tmp_path))
    spec = repo / "spec" / "STATE_MACHINE.md"
    text = spec.read_text(encoding="utf-8")
    renamed = re.sub(r"\bERROR_PLAN_MISSING\b", "ERROR_NO_PLAN", text)
    spec.write_text(renamed, encoding="utf-8")
    done = run_hook(hook("spec-diff"), repo)
    assert done.returncode == 1, done.stderr
    assert "renamed ERROR_PLAN_MISSING → ERROR_NO_PLAN (NO migration)" in done.stdout
    spec.write_text(
        renamed.replace(
            "**ERROR_NO_PLAN**\n", "**ERROR_NO_PLAN**\n    - *Formerly*: ERROR_PLAN_MISSING\n"
        ),
        encoding="utf-8",
    )
    done = run_hook(hook("spec-diff"), repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "renamed ERROR_PLAN_MISSING → ERROR_NO_PLAN (with a migration)" in done.stdout


@pytest.mark.parametrize("hook_id", ["verify-state-machine", "codegen-check", "spec-diff"])
def test_this_repository_runs_the_hooks_it_publishes(hook_id: str) -> None:
    local = {h["id"]: h for r in LOCAL["repos"] if r["repo"] == "local" for h in r["hooks"]}
    assert local[hook_id]["entry"] == hook(hook_id)["entry"]
    assert local[hook_id].get("args") == hook(hook_id).get("args")
    assert {"ruff-check", "ruff-format"} <= set(local)


def test_the_hooks_declare_the_compiler_s_dependencies() -> None:
    """Each hook installs the `codegen` extra (but `transitions`, which the package itself
    needs): python-sat included, which a cell of more than 16 facts needs."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    needed = [
        d for d in extra["optional-dependencies"]["codegen"] if d not in extra["dependencies"]
    ]
    assert any(d.startswith("python-sat") for d in needed)
    for h in HOOKS:
        assert sorted(h["additional_dependencies"]) == sorted(needed), h["id"]


WIDE = (ROOT / "tests" / "data" / "cases" / "many_facts" / "spec.md").read_text(encoding="utf-8")


def twenty_facts() -> str:
    """A spec whose cell (A, Go) reads 20 facts: the verifier asks its SAT solver."""
    more = " AND f18.md exists AND f19.md exists AND f20.md exists"
    text = WIDE.replace("AND f17.md exists |", f"AND f17.md exists{more} |")
    assert "f20.md exists" in text
    return text


SAT = "python-sat>=1.8.dev16,<2"


def index_reachable(scratch: Path) -> bool:
    """Whether pip can fetch python-sat from its package index (into `scratch`; nothing
    is installed)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(scratch), SAT],
            capture_output=True,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def pip_installs_elsewhere() -> bool:
    """Whether this interpreter's pip installs into another environment (`--python`)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(n) for n in version("pip").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (22, 3)


@pytest.mark.timeout(900)
def test_the_hooks_declared_dependencies_alone_verify_a_twenty_fact_cell(tmp_path: Path) -> None:
    """As pre-commit installs a hook: a fresh environment with this repository and exactly
    the hook's additional_dependencies, no more."""
    if not index_reachable(tmp_path / "probe"):
        pytest.skip("no package index is reachable to install the hooks' dependencies from")
    import venv

    env = tmp_path / "env"
    # This interpreter's pip installs into the new environment (`--python`, pip 22.3 and
    # later), which saves bootstrapping a pip of its own there; an older pip, its own.
    outer = pip_installs_elsewhere()
    venv.create(env, with_pip=not outer)
    python = env / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)] if outer else [python, "-m", "pip"]
    deps = hook("verify-state-machine")["additional_dependencies"]
    installed = subprocess.run(
        [*map(str, pip), "install", "--quiet", str(ROOT), *deps],
        capture_output=True,
        text=True,
        timeout=800,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    repo = tmp_path / "repo"
    (repo / "spec").mkdir(parents=True)
    (repo / "spec" / "WIDE.md").write_text(twenty_facts(), encoding="utf-8")
    script, *args = shlex.split(hook("verify-state-machine")["entry"])
    done = subprocess.run(
        [str(env / "bin" / script), *args, "--spec", "spec/WIDE.md"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert "f20.md exists" in done.stdout  # the overlap the solver found, named
    assert done.returncode == 1  # --strict: that overlap is a warning


def test_the_spec_diff_hook_shows_its_report_and_names_a_missing_remote(tmp_path: Path) -> None:
    assert hook("spec-diff")["verbose"] is True  # pre-commit shows it when it passes too
    repo = checkout(tmp_path)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    done = run_hook(hook("spec-diff"), repo)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "has no remote named 'origin' (it has no remote)" in done.stderr
