"""The README's and docs' examples run as written: Python blocks run, JSON blocks
drive the runtime, the five-minute walk runs in a scratch git repository, and the
shown outputs are what the tools print now."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {
    p.relative_to(ROOT / "docs").as_posix(): p.read_text(encoding="utf-8")
    for p in sorted((ROOT / "docs").rglob("*.md"))
}
PAGES = {"README.md": README, **{f"docs/{name}": text for name, text in DOCS.items()}}
EXAMPLES = [
    (page, code)
    for page, text in PAGES.items()
    for code in re.findall(r"```python\n(.*?)```", text, re.DOTALL)
]


def test_readme_has_examples() -> None:
    assert EXAMPLES


@pytest.mark.parametrize(
    ("page", "code"), EXAMPLES, ids=[f"{page}-{i}" for i, (page, _) in enumerate(EXAMPLES)]
)
def test_readme_example_runs(page: str, code: str) -> None:
    exec(compile(code, page, "exec"), {"__name__": "readme"})


def test_readme_documents_every_finding_kind() -> None:
    from codegen.analyse import SEVERITY

    missing = [kind for kind in SEVERITY if f"`{kind}`" not in DOCS["reference/verifier.md"]]
    assert not missing, missing


def test_readme_five_minute_walk_runs_as_written(tmp_path: Path) -> None:
    """Each line of the walk, in a new git repository, with `spell` on PATH; a cast
    commented `-> STATE` leaves the workflow there."""
    import os

    walk = README.split("## Five minutes in your own repository", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```bash\n(.*?)```", walk, re.DOTALL)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for line in block.strip().splitlines():
        done = subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, (line, done.stderr)
        expected = re.search(r"# -> (\w+)", line)
        if expected:
            status = subprocess.run(
                ["bash", "-c", "spell status --json"],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert json.loads(status.stdout)["state"] == expected[1], line
    archived = list((tmp_path / ".ai/task/tasks").iterdir())
    assert len(archived) == 1 and archived[0].name.startswith("task-greet-")


JSON_BLOCKS = [
    json.loads(b)
    for text in PAGES.values()
    for b in re.findall(r"```json\n(.*?)```", text, re.DOTALL)
]


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

    (settings,) = [b for b in JSON_BLOCKS if "hooks" in b and "spell session" in json.dumps(b)]
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


def test_the_docs_show_the_verifier_output_and_the_diagram_as_codegen_writes_them() -> None:
    """docs/reference/verifier.md quotes the verifier and docs/guide/generating.md the
    diagram, as parts `python -m codegen` refreshes (its --check, run by the suite and CI,
    tells them stale), and the reports are the verifier's markdown."""
    from codegen.cli.generate import Checked, render
    from codegen.config import load_config
    from codegen.render.documents import refresh

    config = load_config(ROOT)
    checked: dict[str, Checked] = {}
    for machine in config.machines:
        checked[machine.module] = render(machine, ROOT)[2]
        assert machine.report, machine.module
        report = (ROOT / machine.report).read_text(encoding="utf-8")
        assert report.startswith(f"# Verification of `{machine.spec}`"), report[:80]
    verifier, generating = DOCS["reference/verifier.md"], DOCS["guide/generating.md"]
    assert (
        "<!-- spellbook: verify spell_machine -->\n```text\n"
        "$ spellbook-verify --spec spec/STATE_MACHINE.md\n" in verifier
    )
    assert "<!-- spellbook: diagram spell_machine -->\n```mermaid\n" in generating
    for text in (verifier, generating):
        assert refresh("doc", text, lambda kind, m: checked[m].part(kind)) == text, (
            "stale: run .venv/bin/python -m codegen"
        )


def test_github_workflow_runs_the_readme_quickstart_as_written() -> None:
    quickstart = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", quickstart, re.DOTALL)
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert len(commands) == 2
    for command in commands:
        assert f"          {command}\n" in workflow
    assert "bash .ci/run" in workflow


def test_readme_quotes_the_latest_benchmark_headline() -> None:
    """The README's figures are the ones bench/run.py last wrote to docs/reports/performance.md."""
    report = (ROOT / "docs" / "reports" / "performance.md").read_text(encoding="utf-8")
    headline = report.split("## Headline\n\n", 1)[1].split("\n\n", 1)[0]
    quoted = README.split("<!-- bench/run.py: headline -->\n", 1)[1].split("<!--", 1)[0]
    assert headline.startswith("- cold `spell lumos`: ")
    assert quoted.strip() == headline.strip()


# Lines of the docs' bash blocks that are synopses (placeholders), installs, or the
# slow runs (the test suite itself, benchmarks): shown, not run here.
NOT_RUN = re.compile(
    r"[\[|]|\b(?:FROM|PATH|DIR|REV)\b|^pip |pytest|bench/|^\s|\\$|^SPELLBOOK_|^python3 -m venv"
)


def test_every_command_of_the_docs_runs(tmp_path: Path) -> None:
    """Every other command line of a bash block in the README and docs runs: `spell`
    commands in a new git repository, the compiler's in a copy of this one."""
    import os
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "python"  # `python` as the docs write it: this interpreter, its venv
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}"
        f"{os.pathsep}{os.environ['PATH']}",
    }
    copy = tmp_path / "copy"
    shutil.copytree(
        ROOT, copy, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info")
    )
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    # docs/guide/your-own-workflow.md's commands run in its finished example, a repository.
    example = tmp_path / "example"
    shutil.copytree(ROOT / "examples" / "release", example)
    subprocess.run(["git", "init", "-q", str(example)], check=True)
    ran = []
    for page, text in PAGES.items():
        if page == "README.md":  # its walk and quickstart have tests of their own
            continue
        for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL):
            for line in block.strip().splitlines():
                if NOT_RUN.search(line):
                    continue
                where = repo if re.match(r"spell\b(?!book-)", line) else copy
                if page == "docs/guide/your-own-workflow.md":
                    where = example
                done = subprocess.run(
                    ["bash", "-c", line],
                    cwd=where,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                # the user's spec: 7 errors
                seed = "--spec tests/data/fixtures/seed_spec.md" in line
                assert done.returncode == (1 if seed else 0), (page, line, done.stderr[-2000:])
                ran.append(line)
    assert len(ran) >= 10, ran
    assert (copy / "docs" / "reports" / "spell-machine-verification.md").read_text() == DOCS[
        "reports/spell-machine-verification.md"
    ]


def _python_blocks(doc: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOCS[doc], re.DOTALL)


@pytest.mark.parametrize("number", range(3))
def test_the_examples_of_using_the_generated_machine_run_as_written(number: int) -> None:
    blocks = _python_blocks("guide/generating.md")
    assert len(blocks) == 3
    done = subprocess.run(
        [sys.executable, "-c", blocks[number]],
        capture_output=True,
        text=True,
        cwd=ROOT / "tests",  # not the root: the installed package, as a user imports it
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    said = {
        0: "",
        1: "entered GATHER_EDITING by rule G1\nGB1 refused Reverto: ",
        2: "stateDiagram-v2",
    }[number]
    assert said in done.stdout, done.stdout


def test_the_gitignore_of_runtime_md_ignores_the_runtime_s_own_files_and_no_work(
    tmp_path: Path,
) -> None:
    """What docs/guide/runtime.md says to ignore is every file the runtime keeps for itself
    (`schema.RUNTIME_FILES`, repair's backups), in both shipped workspaces, and none
    of the workflow's files or its state file."""
    from spellbook.disk.own_files import RUNTIME_FILES
    from spellbook.machines import session_machine, spell_machine

    section = DOCS["guide/runtime.md"].split("### What to commit", 1)[1].split("\n## ", 1)[0]
    (ignore,) = re.findall(r"```gitignore\n(.*?)```", section, re.DOTALL)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(ignore, encoding="utf-8")
    own = [f"{name}/x" if "." not in name[1:] else name for name in RUNTIME_FILES]
    own += ["state.json.bad-20261127T101500Z", ".intent.json.bad-20261127T101500Z-2"]
    work = ["state.json", "plan.md", "tasks/task-greet-2026-11-27/task.md"]
    for workspace in (spell_machine.WORKSPACE, session_machine.WORKSPACE):
        paths = [f"{workspace}/{name}" for name in (*own, *work)]
        checked = subprocess.run(
            ["git", "check-ignore", "--no-index", *paths],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert checked.stdout.split() == paths[: len(own)], checked.stdout

    # A real backup `spell repair` makes is left out of what git sees; the state is not.
    task = tmp_path / spell_machine.WORKSPACE
    task.mkdir(parents=True)
    (task / "state.json").write_text("{ not json", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "spellbook", "repair"], cwd=tmp_path, check=True)
    seen = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"?? {spell_machine.WORKSPACE}/state.json\n" in seen and ".bad-" not in seen, seen
    assert [p.name for p in task.iterdir() if ".bad-" in p.name]


# Pages for working on this repository, which may name the checkout's own commands;
# README's sections for it say so in their headings.
CHECKOUT_PAGES = {
    "docs/reference/development.md",  # the checkout's commands, by design
    "docs/reference/architecture.md",  # this repository's layers, the modules by name
    "docs/reports/performance.md",  # bench/run.py's table of this checkout's commands
    "docs/reference/reliability.md",  # the tests of this repository
    "docs/reference/spec-edit-log.md",  # this repository's record of its spec's edits
}
CHECKOUT_SECTION = "working on this repository"


def user_text(page: str, text: str) -> str:
    """What a user of the installed package reads on `page`: README (and the docs' index)
    without its sections for working on this repository, and the benchmark figures
    bench/run.py writes."""
    if page not in ("README.md", "docs/index.md"):
        return text
    kept = [
        part
        for part in re.split(r"\n(?=## )", text)
        if CHECKOUT_SECTION not in part.split("\n", 1)[0]
    ]
    return re.sub(r"<!-- bench/run.py: headline -->.*?<!--", "", "\n".join(kept), flags=re.DOTALL)


def test_no_user_page_tells_a_user_to_run_the_checkout_s_commands() -> None:
    checkout_forms = re.compile(r"python -m codegen|verify-state-machine\.py|spellbook-md\[\w+\]\"")
    pages = {page: text for page, text in PAGES.items() if page not in CHECKOUT_PAGES}
    assert {
        "README.md",
        "docs/guide/your-own-workflow.md",
        "docs/guide/generating.md",
        "docs/guide/runtime.md",
    } <= set(pages)
    assert {
        "docs/guide/mcp.md",
        "docs/guide/session.md",
        "docs/guide/when-the-spec-changes.md",
        "docs/reference/verifier.md",
    } <= set(pages)
    found = [
        (page, line)
        for page, text in pages.items()
        for line in user_text(page, text).splitlines()
        if checkout_forms.search(line)
    ]
    assert not found, found
    sections = [h for h in re.findall(r"^## (.*)$", README, re.MULTILINE) if CHECKOUT_SECTION in h]
    assert len(sections) == 2, sections  # the quickstart and "When the spec changes"


# -- the docs' tree: guides, references, reports; an index, a glossary, a changelog --


# Links to pages written elsewhere at the same time, checked once they are in the tree.
def test_docs_are_guides_references_and_reports_the_tools_write() -> None:
    """Every page is in docs/guide/, docs/reference/ or docs/reports/ (or is the index),
    and docs/reports/ holds exactly what `python -m codegen` and bench/run.py write."""
    from codegen.config import load_config

    bench = (ROOT / "bench" / "run.py").read_text(encoding="utf-8")
    assert 'REPORT = ROOT / "docs" / "reports" / "performance.md"' in bench
    written = {m.report for m in load_config(ROOT).machines} | {"docs/reports/performance.md"}
    pages = {f"docs/{name}" for name in DOCS}
    assert {page for page in pages if page.startswith("docs/reports/")} == written
    loose = {
        p for p in pages if not re.match(r"docs/(guide|reference|reports)/|docs/index\.md$", p)
    }
    assert not loose, loose


def test_every_relative_link_of_the_readme_and_docs_resolves() -> None:
    broken = []
    for page, text in {**PAGES, "CHANGELOG.md": (ROOT / "CHANGELOG.md").read_text()}.items():
        for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)", text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            path = (ROOT / page).parent / target
            if not path.exists():
                broken.append((page, target))
    assert not broken, broken


def test_the_index_lists_every_page_and_the_readme_links_it_and_the_glossary() -> None:
    index = DOCS["index.md"]
    listed = set(re.findall(r"\]\(([^)#\s]+)\)", index))
    assert {name for name in DOCS if name != "index.md"} <= listed
    assert "reference/architecture.md" in listed
    assert "(docs/index.md)" in README and "(docs/reference/glossary.md)" in README
    assert "(reference/glossary.md)" in index


WHERE_TO_ADD = (
    "a fact kind",
    "a verb",
    "an output format",
    "a spec column",
    "a CLI option",
    "a finding kind",
    "a dialect",
)


def _where_to_add() -> list[tuple[str, str, str]]:
    """The rows of the index's "Where to add": (what, its homes, its tests)."""
    table = DOCS["index.md"].split("## Where to add", 1)[1]
    rows = [r for r in table.splitlines() if r.startswith("| ") and not r.startswith("| to add")]
    found = []
    for row in rows:
        what, home, tests = row.strip().strip("|").split(" | ")
        found.append((what.strip(), home, tests))
    return found


_PATH = r"`((?:src|codegen|tests|docs)/[\w/.-]+\.(?:py|md))`"


def test_the_index_names_one_home_and_its_test_for_each_thing_to_add() -> None:
    """Each row of the index's "Where to add" names homes and tests that exist."""
    rows = _where_to_add()
    for thing in WHERE_TO_ADD:
        assert any(what.startswith(thing) for what, _, _ in rows), thing
    for what, home, tests in rows:
        assert re.findall(_PATH, tests), (what, "names no test")
        for path in re.findall(_PATH, home + tests):
            assert (ROOT / path).exists(), (what, path)


def test_each_row_s_tests_hold_its_first_home() -> None:
    """The first home of each row (the table a new thing is an entry of) is named by one of
    the tests the row names: by its module, or by a name the row gives it in brackets
    (`PROBES`, `ROLES`, `add_arguments`)."""
    for what, home, tests in _where_to_add():
        first = re.search(_PATH + r"(?: \(([^)]*)\))?", home)
        assert first, (what, home)
        path, bracket = first[1], first[2] or ""
        module = path.removeprefix("src/").removesuffix(".py").replace("/", ".")
        names = [module.partition(".")[2], *re.findall(r"`([^`]+)`", bracket)]
        texts = [(ROOT / t).read_text(encoding="utf-8") for t in re.findall(_PATH, tests)]
        assert any(name in text for name in names for text in texts), (
            f"{what}: none of its tests names {path} ({', '.join(names)})"
        )


def test_the_roles_of_reading_specs_are_the_reader_s() -> None:
    """docs/guide/reading-specs.md's table of column roles is `codegen.read.rows.ROLES`:
    each role, its key in `columns` and its header names in order."""
    from codegen.read.rows import ROLES

    text = DOCS["guide/reading-specs.md"]
    table = text.split("| role | key in `columns` | names |", 1)[1].split("\n\n", 1)[0]
    listed = {
        key: re.findall(r"`([^`]+)`", names)
        for key, names in re.findall(r"^\| [^|]+ \| `(\w+)` \| (.+) \|$", table, re.MULTILINE)
    }
    assert listed == {role.replace(" ", "_"): list(names) for role, names in ROLES.items()}


def test_the_verifier_s_synopsis_names_every_option() -> None:
    """docs/reference/verifier.md's synopsis names every option `spellbook-verify --help`
    shows, and no other."""
    synopsis = DOCS["reference/verifier.md"].split("```bash\nspellbook-verify ", 1)[1]
    synopsis = synopsis.split("\n", 1)[0]
    done = subprocess.run(
        [sys.executable, str(ROOT / "verify-state-machine.py"), "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    usage = done.stdout.split("\n\n", 1)[0]
    shown = set(re.findall(r"--[\w-]+", usage)) - {"--help"}
    assert shown and set(re.findall(r"--[\w-]+", synopsis)) == shown, (synopsis, shown)


GLOSSED = (
    *("cast", "spell", "world", "cell", "probe", "fact", "fact kind", "verb", "rule", "row"),
    *("wildcard", "family", "`[G/A]` notation", "guard", "judge", "foresight", "journal"),
    *("ledger", "kept", "policy", "dialect", "vocabulary", "term", "finding", "knock-on"),
    *("reading", "round-trip", "budget", "machine", "state file", "trash", "history"),
    *("core", "atom", "IR", "role", "light table", "near miss", "canonical words", "effect"),
    *("golden case", "seed", "front door", "door", "records", "intent record", "format"),
)


def test_the_glossary_defines_each_word_once() -> None:
    glossary = DOCS["reference/glossary.md"]
    defined = re.findall(r"^- \*\*(.+?)\*\*", glossary, re.MULTILINE)
    defined += re.findall(r"\(\*\*(.+?)\*\*\)", glossary)
    assert len(defined) == len(set(defined)), defined
    missing = [word for word in GLOSSED if word not in defined]
    assert not missing, missing


def test_the_changelog_has_an_unreleased_section_and_the_current_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (version,) = re.findall(r'^version = "(.+)"$', pyproject, re.MULTILINE)
    releases = re.findall(r"^## \[(.+?)\]", changelog, re.MULTILINE)
    assert releases[:2] == ["Unreleased", version], releases
    assert "(docs/index.md)" in README and "(CHANGELOG.md)" in README


def test_the_readme_s_line_counts_of_generated_files_are_the_files_own() -> None:
    """Every "`generated/X.py`: N lines" of the README (and of the report it quotes, with
    its "(N lines)" rows) is the file's line count as bench/run.py counts it."""
    report = (ROOT / "docs" / "reports" / "performance.md").read_text(encoding="utf-8")
    stated = re.findall(r"`(generated/\w+\.py)`: ([\d,]+) lines", README + report)
    stated += [
        (f"generated/{module}.py", lines)
        for module, lines in re.findall(
            r"`(\w+_machine)`: source[^|]*\|[^|]*\(([\d,]+) lines\)", report
        )
    ]
    assert len(stated) >= 3, stated
    for path, lines in stated:
        assert (ROOT / path).read_text(encoding="utf-8").count("\n") == int(
            lines.replace(",", "")
        ), (
            path,
            lines,
        )
