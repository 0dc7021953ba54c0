"""`python -m codegen`: reproducible output, --check and what it finds stale, refusal of
broken specs, and a one-word change of the spec a one-line change of the module."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )


def refused_here(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m codegen ARGS` in `cwd`, run by this process's `codegen.cli.generate.main`:
    for a run refused before any spec is read (its configuration, or a place it would
    write), which takes milliseconds where a process of its own takes half a second.
    The command's own process (its exit status, its streams) is tested by the tests
    that `run` it. The working folder and `sys.path` (the project made importable) are
    this process's again after."""
    from codegen.cli.generate import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(cwd)
        patch.setattr(sys, "path", list(sys.path))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(args))
    return subprocess.CompletedProcess(
        ["-m", "codegen", *args], status, out.getvalue(), err.getvalue()
    )


def codegen_here(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m codegen ARGS` in `cwd`, run by this process as `refused_here` runs it:
    for a test of what codegen finds stale, writes or refuses, where a process of its own
    adds a second of start-up and nothing the test looks at. The command's own process
    (its exit status and streams, hash seeds, a FIFO, Python's own cache) is tested by the
    tests that `run` it."""
    return refused_here(*args, cwd=cwd)


def split_a_row(text: str) -> tuple[str, str]:
    """The spec with its first row of a named state and no condition split in two: a
    new row before it for worlds where comments.md exists, the row for the others (the
    verifier's matrix shows the new row); and the new row's ID."""
    found = re.search(r"^\| (\w+) \| ([A-Z][A-Z_]*) \| (\w+) \| - \|(.*)$", text, re.M)
    assert found is not None
    rid, state, spell, rest = found.groups()
    new = f"| {rid}z | {state} | {spell} | comments.md exists |{rest}"
    old = f"| {rid} | {state} | {spell} | comments.md missing |{rest}"
    return text[: found.start()] + new + "\n" + old + text[found.end() :], f"{rid}z {rid}"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of what codegen reads and writes: pyproject.toml, spec/, generated/ and
    docs/ (the reports and the documents that show the machines)."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "verify-state-machine.py", tmp_path)  # the command docs/ shows
    shutil.copytree(
        ROOT / "generated", tmp_path / "generated", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


def test_check_passes_on_the_committed_files() -> None:
    result = run("-m", "codegen", "--check")
    assert result.returncode == 0, result.stderr
    assert "fresh" in result.stdout


def test_check_fails_after_the_spec_changes_and_writes_nothing(checkout: Path) -> None:
    spec = checkout / "spec" / "STATE_MACHINE.md"
    spec.write_text(spec.read_text(encoding="utf-8").replace("Initial state;", "First state;"))
    before = {p.name: p.read_bytes() for p in (checkout / "generated").iterdir()}
    result = run("-m", "codegen", "--check", cwd=checkout)
    assert result.returncode == 1
    assert "generated/spell_machine.py: stale" in result.stderr
    assert {p.name: p.read_bytes() for p in (checkout / "generated").iterdir()} == before
    assert codegen_here(cwd=checkout).returncode == 0
    assert codegen_here("--check", cwd=checkout).returncode == 0
    assert "First state;" in (checkout / "generated" / "spell_machine.py").read_text()


def test_check_fails_on_a_generated_file_no_spec_makes(checkout: Path) -> None:
    (checkout / "generated" / "old_machine.py").write_text("# left behind\n")
    result = codegen_here("--check", cwd=checkout)
    assert result.returncode == 1
    assert "generated/old_machine.py: no spec generates it" in result.stderr


def test_only_the_listed_machines_are_generated_and_a_scratch_spec_is_named(
    checkout: Path,
) -> None:
    shutil.copy(checkout / "spec" / "STATE_MACHINE.md", checkout / "spec" / "SCRATCH copy.md")
    result = codegen_here(cwd=checkout)
    assert result.returncode == 0, result.stderr
    assert "spec/SCRATCH copy.md is not generated" in result.stderr
    assert sorted(p.name for p in (checkout / "generated").glob("*.py")) == [
        "session_machine.py",
        "spell_machine.py",
    ]
    assert codegen_here("--check", cwd=checkout).returncode == 0
    alone = codegen_here("--spec", "spec/SCRATCH copy.md", cwd=checkout)
    assert alone.returncode == 0, alone.stderr
    assert "wrote generated/scratch_copy.py" in alone.stdout  # a module that can be imported


def test_output_is_identical_across_runs_and_hash_seeds(checkout: Path) -> None:
    digests = set()
    for seed in ("0", "1", "12345"):
        shutil.rmtree(checkout / "generated")
        assert run("-m", "codegen", cwd=checkout, env={"PYTHONHASHSEED": seed}).returncode == 0
        digests.add(
            tuple(
                hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted((checkout / "generated").iterdir())
            )
        )
    assert len(digests) == 1
    committed = tuple(
        hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((ROOT / "generated").glob("*"))
        if p.is_file()
    )
    assert digests == {committed}


def test_spec_with_errors_is_not_generated(checkout: Path) -> None:
    spec = checkout / "spec" / "STATE_MACHINE.md"
    spec.write_text(
        spec.read_text(encoding="utf-8").replace(
            "| ER7 | ERROR_PLAN_MISSING |", "| ER7 | ERROR_PLAN_MISING |"
        )
    )
    result = codegen_here(cwd=checkout)
    assert result.returncode == 1
    assert "unknown state 'ERROR_PLAN_MISING'" in result.stderr
    assert "fix them before generating" in result.stderr


def test_unreadable_spec_exits_2(checkout: Path) -> None:
    (checkout / "spec" / "STATE_MACHINE.md").write_bytes(b"\xff\xfe garbage")
    result = codegen_here("--check", cwd=checkout)
    assert result.returncode == 2
    assert "spec/STATE_MACHINE.md:1: not UTF-8" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.timeout(120)
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="makes a FIFO")
def test_a_listed_spec_that_is_a_fifo_is_refused_at_once_naming_it(checkout: Path) -> None:
    """A FIFO would block the read until a writer came (the budget then called the spec
    too costly): it is refused before anything is read, by name."""
    spec = checkout / "spec" / "STATE_MACHINE.md"
    spec.unlink()
    os.mkfifo(spec)
    result = run("-m", "codegen", "--check", "--budget", "10", cwd=checkout)
    assert result.returncode == 2, result.stderr
    assert "error: spec/STATE_MACHINE.md: is not a regular file (a FIFO, " in result.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="writes to /dev/full")
@pytest.mark.parametrize("args", [["--check"], [], ["--help"]])
def test_a_stdout_that_cannot_take_the_output_is_one_line_exit_2(
    checkout: Path, args: list[str]
) -> None:
    if not args:
        make_stale(checkout)  # the modules and the report to write
    for stdout, why in (("> /dev/full", "No space left on device"), (">&-", "closed")):
        command = [sys.executable, "-m", "codegen", *args]
        result = subprocess.run(
            ["sh", "-c", f'exec "$@" {stdout}', "sh", *command],
            cwd=checkout,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("error: cannot write the output: "), result.stderr
        assert why in result.stderr and result.stderr.count("\n") == 1, result.stderr
    if not args:  # every file was written all the same
        assert run("-m", "codegen", "--check", cwd=checkout).returncode == 0


def test_a_spec_path_s_terminal_controls_never_reach_the_terminal(checkout: Path) -> None:
    result = run("-m", "codegen", "--check", "--spec", "m\x1b]0;T\x07\x9b.md", cwd=checkout)
    assert result.returncode == 2
    assert "m\ufffd]0;T\ufffd\ufffd.md: no such file" in result.stderr


def test_check_formats_nothing_it_can_prove_fresh() -> None:
    code = (
        "import sys\n"
        "from codegen.cli.generate import main\n"
        "assert main(['--check']) == 0\n"
        "print('black' in sys.modules)\n"
    )
    result = run("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False"


def test_a_hand_edit_is_stale_even_with_the_fingerprint_kept(checkout: Path) -> None:
    module = checkout / "generated" / "spell_machine.py"
    text = module.read_text(encoding="utf-8")
    assert text.splitlines()[2].startswith("# Fingerprint: ")
    module.write_text(text.replace("Initial state; no plan", "Initial state, no plan", 1))
    result = codegen_here("--check", cwd=checkout)
    assert result.returncode == 1
    # Outside a checkout of Spellbook, the command that works there is named.
    assert result.stderr.strip() == "generated/spell_machine.py: stale; run spellbook-codegen"


def test_a_module_a_formatter_laid_out_otherwise_is_stale_and_says_why(checkout: Path) -> None:
    module = checkout / "generated" / "spell_machine.py"
    done = subprocess.run(
        [sys.executable, "-m", "black", "-q", "--line-length", "79", str(module)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = codegen_here("--check", cwd=checkout)
    assert result.returncode == 1
    assert result.stderr.startswith("generated/spell_machine.py: stale; run spellbook-codegen")
    assert "a formatter was run over it; leave the generated folder out" in result.stderr


def test_one_changed_word_of_a_response_changes_one_line(checkout: Path) -> None:
    spec = checkout / "spec" / "STATE_MACHINE.md"
    text = spec.read_text(encoding="utf-8")
    assert text.count("allowing us to start a fresh PR review process") == 1
    phrase = "allowing us to start a fresh PR review process"
    spec.write_text(text.replace(phrase, "letting us start a fresh PR review process"))
    before = (checkout / "generated" / "spell_machine.py").read_text(encoding="utf-8")
    assert codegen_here(cwd=checkout).returncode == 0
    after = (checkout / "generated" / "spell_machine.py").read_text(encoding="utf-8")
    changed = [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b
    ]
    # The spec's hash (header and SPEC_SHA256), the fingerprint, and the one line of the
    # response's changed clause: the other clauses of its text are where they were.
    hashes = [(a, b) for a, b in changed if "sha256" in a.lower() or "Fingerprint" in a]
    assert len(hashes) == 3
    assert [b for a, b in changed if (a, b) not in hashes] == [
        '            "letting us start a fresh PR review process."'
    ]


def test_an_edit_with_a_recomputed_fingerprint_is_still_stale(checkout: Path) -> None:
    """Whoever edits what the machine does and recomputes the file's hash is caught: the
    module's syntax tree must be the template's output, whatever the fingerprint says."""
    from codegen.render.freshness import FINGERPRINT, _hash, _header

    module = checkout / "generated" / "spell_machine.py"
    head, rest = _header(module.read_text(encoding="utf-8"))
    line, _, body = rest.partition("\n")
    assert body.count('dest="GATHER_EDITING"') >= 1
    body = body.replace('dest="GATHER_EDITING"', 'dest="ACHIEVE_COMPLETE"', 1)
    made = line[len(FINGERPRINT) :].split(" ")[0]
    module.write_text(f"{head}{FINGERPRINT}{made} {_hash(head + body)}\n{body}")
    result = codegen_here("--check", cwd=checkout)
    assert result.returncode == 1
    assert "generated/spell_machine.py: stale" in result.stderr


def test_a_spec_change_refreshes_the_reports_and_the_documents_parts_only(
    checkout: Path,
) -> None:
    spec = checkout / "spec" / "STATE_MACHINE.md"
    text, shown_ids = split_a_row(spec.read_text(encoding="utf-8"))
    spec.write_text(text, encoding="utf-8")
    docs = checkout / "docs"
    before = {p.relative_to(docs).as_posix(): p.read_text("utf-8") for p in docs.rglob("*.md")}
    result = codegen_here("--check", cwd=checkout)
    assert result.returncode == 1
    stale = {line.split(":")[0] for line in result.stderr.splitlines()}
    assert {
        "docs/reports/spell-machine-verification.md",
        "docs/reference/verifier.md",
        "generated/spell_machine.py",
    } <= stale
    assert (
        "docs/reports/session-machine-verification.md" not in stale
        and "docs/guide/generating.md" not in stale
    )
    assert codegen_here(cwd=checkout).returncode == 0
    assert codegen_here("--check", cwd=checkout).returncode == 0
    after = {p.relative_to(docs).as_posix(): p.read_text("utf-8") for p in docs.rglob("*.md")}
    assert {n for n in after if after[n] != before[n]} == {
        "reports/spell-machine-verification.md",
        "reference/verifier.md",
    }
    # The verifier's output for the new spec, between the markers; the rest kept.
    shown = run("verify-state-machine.py", "--spec", str(spec), cwd=checkout).stdout
    assert shown_ids in shown
    assert shown.replace(str(spec), "spec/STATE_MACHINE.md") in after["reference/verifier.md"]
    outside = before["reference/verifier.md"].split("<!-- spellbook: verify spell_machine -->")
    assert after["reference/verifier.md"].startswith(outside[0])
    assert after["reference/verifier.md"].endswith(outside[1].split("<!-- /spellbook -->")[1])


@pytest.mark.parametrize(
    ("document", "said"),
    [
        (
            "x\n<!-- spellbook: verify nobody -->\n<!-- /spellbook -->\n",
            "x.md:2: no machine 'nobody'",
        ),
        (
            "<!-- spellbook: table spell_machine -->\n<!-- /spellbook -->\n",
            "x.md:1: no part of kind 'table'",
        ),
        (
            "a\nb\n<!-- spellbook: diagram spell_machine -->\nold\n",
            "x.md:3: the part opened here has no closing",
        ),
        ("<!-- spellbook:diagram -->\n", "x.md:1: a spellbook part opens with"),
        (None, "x.md: listed in [tool.spellbook] documents, but there is no such file"),
    ],
)
def test_a_document_part_that_cannot_be_taken_is_an_error_naming_its_line(
    checkout: Path, document: str | None, said: str
) -> None:
    pyproject = checkout / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(
        text.replace(
            'documents = ["docs/guide/generating.md", "docs/reference/verifier.md"]',
            'documents = ["x.md"]',
        )
    )
    if document is not None:
        (checkout / "x.md").write_text(document, encoding="utf-8")
    for check in (["--check"], []):
        result = refused_here(*check, cwd=checkout)
        assert result.returncode == 2, result.stderr
        assert result.stderr == f"error: {said}" + result.stderr.split(said, 1)[1], result.stderr
        assert "Traceback" not in result.stderr
    if document is not None:
        assert (checkout / "x.md").read_text(encoding="utf-8") == document


def test_a_document_that_is_a_link_is_refused(
    checkout: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "doc.md"
    outside.write_text("<!-- spellbook: diagram spell_machine -->\n<!-- /spellbook -->\n")
    (checkout / "docs" / "guide" / "generating.md").unlink()
    (checkout / "docs" / "guide" / "generating.md").symlink_to(outside)
    result = codegen_here(cwd=checkout)
    assert result.returncode == 2 and "is a symbolic link" in result.stderr
    assert outside.read_text() == "<!-- spellbook: diagram spell_machine -->\n<!-- /spellbook -->\n"


def _list_documents(checkout: Path, documents: str, machine: str | None = None) -> None:
    pyproject = checkout / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    text = text.replace(
        'documents = ["docs/guide/generating.md", "docs/reference/verifier.md"]', documents
    )
    if machine is not None:
        text = text.replace(
            'spell_machine = { spec = "spec/STATE_MACHINE.md", '
            'report = "docs/reports/spell-machine-verification.md" }',
            machine,
        )
    pyproject.write_text(text, encoding="utf-8")


REPORTED = 'spell_machine = {{ spec = "spec/STATE_MACHINE.md", report = "{}" }}'
TAKEN = "codegen already reads or writes this file"
MD = "it is not a markdown file (.md)"
GIT = "it is in .git"


def line_of(checkout: Path, start: str) -> int:
    """The number of pyproject.toml's first line that starts with `start`."""
    lines = (checkout / "pyproject.toml").read_text(encoding="utf-8").split("\n")
    return next(n for n, line in enumerate(lines, 1) if line.startswith(start))


def everything(*folders: Path) -> dict[Path, bytes | str]:
    """Every file and link under the folders, with its bytes (a link: where it points)."""
    return {
        p: os.readlink(p) if p.is_symlink() else p.read_bytes()
        for folder in folders
        for p in folder.rglob("*")
        if p.is_symlink() or p.is_file()
    }


PART = "<!-- spellbook: diagram spell_machine -->\nold\n<!-- /spellbook -->\n"


def test_a_document_keeps_its_line_endings_and_byte_order_mark(checkout: Path) -> None:
    _list_documents(checkout, 'documents = ["crlf.md", "bom.md"]')
    crlf = ("# Title\n\n" + PART + "\nThe end.\n").replace("\n", "\r\n").encode()
    (checkout / "crlf.md").write_bytes(crlf)
    (checkout / "bom.md").write_bytes(b"\xef\xbb\xbf# Title\n\n" + PART.encode())
    assert codegen_here("--check", cwd=checkout).returncode == 1
    assert codegen_here(cwd=checkout).returncode == 0
    done = (checkout / "crlf.md").read_bytes()
    assert done.startswith(
        b"# Title\r\n\r\n<!-- spellbook: diagram spell_machine -->\r\n```mermaid"
    )
    assert done.endswith(b"<!-- /spellbook -->\r\n\r\nThe end.\r\n") and b"\r\r" not in done
    assert done.count(b"\n") == done.count(b"\r\n")
    assert (checkout / "bom.md").read_bytes().startswith(b"\xef\xbb\xbf# Title\n\n<!-- spellbook")
    assert codegen_here("--check", cwd=checkout).returncode == 0


def test_a_document_with_one_crlf_line_keeps_each_line_s_own_ending(checkout: Path) -> None:
    _list_documents(checkout, 'documents = ["mixed.md"]')
    head, tail = b"# Title\r\n\n", b"\nThe end.\r\nBye\r"
    (checkout / "mixed.md").write_bytes(head + PART.encode() + tail)
    assert codegen_here(cwd=checkout).returncode == 0
    done = (checkout / "mixed.md").read_bytes()
    assert done.startswith(head + b"<!-- spellbook: diagram spell_machine -->\n```mermaid\n")
    assert done.endswith(b"```\n<!-- /spellbook -->\n" + tail)
    assert done.count(b"\r") == 3  # the three lines that had one
    assert codegen_here("--check", cwd=checkout).returncode == 0


def test_markers_in_a_code_block_are_an_example_and_an_indented_part_keeps_its_indent(
    checkout: Path,
) -> None:
    example = "```markdown\n<!-- spellbook: diagram MACHINE -->\n<!-- /spellbook -->\n```\n"
    listed = (
        "- The diagram:\n\n  <!-- spellbook: diagram spell_machine -->\n  <!-- /spellbook -->\n"
    )
    _list_documents(checkout, 'documents = ["doc.md"]')
    (checkout / "doc.md").write_text(example + "\n" + listed, encoding="utf-8")
    assert codegen_here(cwd=checkout).returncode == 0
    text = (checkout / "doc.md").read_text(encoding="utf-8")
    assert text.startswith(example)  # untouched
    assert "\n  ```mermaid\n  ---\n  title: State Machine\n" in text
    assert text.endswith("\n  ```\n  <!-- /spellbook -->\n")


def test_a_document_that_is_not_utf8_is_an_error(checkout: Path) -> None:
    _list_documents(checkout, 'documents = ["latin.md"]')
    (checkout / "latin.md").write_bytes("caf\xe9\n".encode("latin-1") + PART.encode())
    done = codegen_here("--check", cwd=checkout)
    assert done.returncode == 2
    assert done.stderr.startswith("error: latin.md: listed in [tool.spellbook] documents, but")


@pytest.mark.parametrize(
    ("machine", "documents", "refused", "said"),
    [
        (REPORTED.format("spec/STATE_MACHINE.md"), None, "spec/STATE_MACHINE.md", TAKEN),
        # Another case of the spec's name: the same file on a case-insensitive filesystem.
        (REPORTED.format("SPEC/State_Machine.MD"), None, "SPEC/State_Machine.MD", TAKEN),
        (REPORTED.format("generated/spell_machine.py"), None, "generated/spell_machine.py", MD),
        (
            REPORTED.format("docs/reports/session-machine-verification.md"),
            None,
            "docs/reports/session-machine-verification.md",
            TAKEN,
        ),
        (REPORTED.format(".git/hooks/notes.md"), None, ".git/hooks/notes.md", GIT),
        (
            None,
            'documents = ["docs/reports/spell-machine-verification.md"]',
            "docs/reports/spell-machine-verification.md",
            TAKEN,
        ),
        (None, 'documents = ["pyproject.toml"]', "pyproject.toml", MD),
    ],
)
def test_codegen_never_writes_a_report_or_document_over_a_file_it_reads_or_writes(
    checkout: Path, machine: str | None, documents: str | None, refused: str, said: str
) -> None:
    _list_documents(checkout, documents or 'documents = ["docs/reference/verifier.md"]', machine)
    # The line of the machine the error names: session_machine's own report, taken.
    named = "session_machine =" if "session-machine" in refused else "spell_machine ="
    line = line_of(checkout, named if machine else "documents =")
    before = {p: p.read_bytes() for p in checkout.rglob("*") if p.is_file()}
    for check in (["--check"], []):
        done = refused_here(*check, cwd=checkout)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"error: pyproject.toml:{line}: "), done.stderr
        assert f'"{refused}": {said}' in done.stderr
    assert {p: p.read_bytes() for p in checkout.rglob("*") if p.is_file()} == before


def test_a_document_or_report_in_a_folder_that_leads_out_is_refused(
    checkout: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (checkout / "linked").symlink_to(outside)
    machine = 'spell_machine = { spec = "spec/STATE_MACHINE.md", report = "linked/report.md" }'
    _list_documents(checkout, 'documents = ["docs/reference/verifier.md"]', machine)
    done = codegen_here(cwd=checkout)
    assert done.returncode == 2 and "linked is a symbolic link" in done.stderr
    assert not list(outside.iterdir())


def make_stale(checkout: Path) -> None:
    """Change the spec, so that codegen would write the modules and the report."""
    spec = checkout / "spec" / "STATE_MACHINE.md"
    spec.write_text(spec.read_text(encoding="utf-8").replace("Initial state;", "First state;"))


def set_generated(checkout: Path, folder: str) -> None:
    pyproject = checkout / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('generated = "generated"', f'generated = "{folder}"'))


@pytest.mark.parametrize("linked", ["the folder", "a folder on the way", "the module"])
def test_codegen_never_writes_through_a_symbolic_link(
    checkout: Path, tmp_path_factory: pytest.TempPathFactory, linked: str
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "spell_machine.py").write_text("# someone else's file\n")
    if linked == "the folder":  # committed as a link: a pull request can
        shutil.rmtree(checkout / "generated")
        (checkout / "generated").symlink_to(outside)
    elif linked == "a folder on the way":
        set_generated(checkout, "build/generated")
        (checkout / "build").symlink_to(outside)
    else:
        (checkout / "generated" / "spell_machine.py").unlink()
        (checkout / "generated" / "spell_machine.py").symlink_to(outside / "spell_machine.py")
    make_stale(checkout)
    before = everything(checkout, outside)
    for check in (["--check"], []):
        done = refused_here(*check, cwd=checkout)
        assert done.returncode == 2, done.stdout + done.stderr
        line = line_of(checkout, "generated =")
        assert done.stderr.startswith(f"error: pyproject.toml:{line}: the generated folder ")
        assert "is a symbolic link, and codegen never writes through one" in done.stderr
        assert "Traceback" not in done.stderr
    assert everything(checkout, outside) == before


@pytest.mark.parametrize(
    "folder",
    # git's own folder as git refuses its names on any filesystem: NTFS's short name and
    # a stream of it, and HFS+'s ignored characters inside it.
    [
        ".git/hooks",
        ".GIT/hooks",
        "tools/.Git.",
        "GIT~1/hooks",
        ".g\u200cit/hooks",
    ],
)
def test_codegen_never_writes_into_git(checkout: Path, folder: str) -> None:
    (checkout / ".git" / "hooks").mkdir(parents=True)
    set_generated(checkout, folder)
    before = everything(checkout)
    for check in (["--check"], []):
        done = refused_here(*check, cwd=checkout)
        assert done.returncode == 2, done.stdout + done.stderr
        line = line_of(checkout, "generated =")
        assert done.stderr.startswith(
            f'error: pyproject.toml:{line}: the generated folder "{folder}'
        )
        assert GIT in done.stderr
    assert everything(checkout) == before


def _planted(checkout: Path, place: str) -> tuple[str, str]:
    """Plant what `place` says; the start of pyproject.toml's line that names it, and
    what the error must say."""
    if place == "a report that is a folder":
        _list_documents(
            checkout, 'documents = ["docs/reference/verifier.md"]', REPORTED.format("docs.md")
        )
        (checkout / "docs.md").mkdir()
        return "spell_machine =", "docs.md is a folder, not a file"
    if place == "a report that is a FIFO":
        _list_documents(
            checkout, 'documents = ["docs/reference/verifier.md"]', REPORTED.format("docs.md")
        )
        os.mkfifo(checkout / "docs.md")
        return "spell_machine =", "docs.md is a FIFO (named pipe), not a file"
    if place == "a document that is a folder":
        _list_documents(checkout, 'documents = ["docs/reference/verifier.md", "shown.md"]')
        (checkout / "shown.md").mkdir()
        return "documents =", "shown.md is a folder, not a file"
    if place == "a diagram that is a folder":
        (checkout / "generated" / "spell_machine.mmd").unlink()
        (checkout / "generated" / "spell_machine.mmd").mkdir()
        return "generated =", "generated/spell_machine.mmd is a folder, not a file"
    shutil.rmtree(checkout / "generated")
    (checkout / "generated").write_text("a file where the folder should be\n")
    return "generated =", "generated is a file, where a folder should be"


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "place",
    [
        "a report that is a folder",
        "a report that is a FIFO",
        "a document that is a folder",
        "a diagram that is a folder",
        "a folder that is a file",
    ],
)
def test_every_output_is_checked_before_any_is_written(checkout: Path, place: str) -> None:
    start, said = _planted(checkout, place)
    make_stale(checkout)
    before = everything(checkout)
    for check in (["--check"], []):
        done = refused_here(*check, cwd=checkout)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.startswith(f"error: pyproject.toml:{line_of(checkout, start)}: ")
        assert f"{said}" in done.stderr and "nothing was written" in done.stderr
        assert "Traceback" not in done.stderr
    assert everything(checkout) == before


def test_a_folder_codegen_cannot_write_in_stops_it_before_anything_is_written(
    checkout: Path,
) -> None:
    from tests.support.commands import obeying_permissions

    _list_documents(
        checkout,
        'documents = ["docs/reference/verifier.md"]',
        REPORTED.format("reports/checked.md"),
    )
    (checkout / "reports").mkdir(mode=0o555)
    make_stale(checkout)
    before = everything(checkout)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    for check, status in ((["--check"], 1), ([], 2)):  # --check writes nothing: stale
        done = subprocess.run(
            [sys.executable, "-m", "codegen", *check],
            cwd=checkout,
            capture_output=True,
            text=True,
            timeout=120,
            env=environment,
            **obeying_permissions(),  # type: ignore[call-overload]
        )
        assert done.returncode == status, done.stdout + done.stderr
    line = line_of(checkout, "spell_machine =")
    assert done.stderr.startswith(f"error: pyproject.toml:{line}: spell_machine's report ")
    assert "the folder reports cannot be written in; nothing was written" in done.stderr
    assert everything(checkout) == before


def python_s_own_cache(checkout: Path, *options: str) -> None:
    """Import the generated modules as Python does, which writes its cache of them."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    code = "import sys\nsys.path.insert(0, 'generated')\nimport session_machine, spell_machine\n"
    subprocess.run(
        [sys.executable, *options, "-c", code],
        cwd=checkout,
        check=True,
        timeout=120,
        env={**environment, "PYTHONPATH": str(ROOT)},
    )


def test_python_s_own_cache_of_the_modules_passes_the_check(checkout: Path) -> None:
    python_s_own_cache(checkout)
    python_s_own_cache(checkout, "-O")
    assert len(list((checkout / "generated" / "__pycache__").glob("*.pyc"))) == 4
    done = run("-m", "codegen", "--check", cwd=checkout)
    assert done.returncode == 0, done.stderr


def _hidden_code(checkout: Path) -> bytes:
    """The spell machine's code with a line of its own: what a planted .pyc holds."""
    import marshal

    source = (checkout / "generated" / "spell_machine.py").read_text(encoding="utf-8")
    code = compile(source + "HIDDEN = 'ran'\n", "spell_machine.py", "exec", dont_inherit=True)
    return marshal.dumps(code)


def _pyc(checkout: Path, how: str) -> Path:
    """Plant bytecode of the kind `how` says; where it is."""
    import importlib.util

    folder = checkout / "generated"
    module = folder / "spell_machine.py"
    cached = Path(importlib.util.cache_from_source(str(module)))
    cached.parent.mkdir(exist_ok=True)
    magic = importlib.util.MAGIC_NUMBER
    size, mtime = module.stat().st_size, int(module.stat().st_mtime)
    if how == "an unchecked hash":
        data = magic + (1).to_bytes(4, "little") + bytes(8) + _hidden_code(checkout)
    elif how == "a checked hash of the source":
        digest = importlib.util.source_hash(module.read_bytes())
        data = magic + (3).to_bytes(4, "little") + digest + _hidden_code(checkout)
    elif how == "the source's time and size":
        stamp = (mtime & 0xFFFFFFFF).to_bytes(4, "little") + size.to_bytes(4, "little")
        data = magic + bytes(4) + stamp + _hidden_code(checkout)
    elif how.startswith("another Python's"):  # what only that Python could check
        other = "cpython-312" if sys.implementation.cache_tag != "cpython-312" else "cpython-313"
        cached = cached.with_name(f"spell_machine.{other}.pyc")
        flags = (1 if how.endswith("hash") else 0).to_bytes(4, "little")
        stamp = (mtime & 0xFFFFFFFF).to_bytes(4, "little") + size.to_bytes(4, "little")
        data = b"\0\0\r\n" + flags + stamp + b"code"
    elif how == "a .pyc beside the module":
        cached = folder / "spell_machine.pyc"
        data = magic + bytes(12) + _hidden_code(checkout)
    elif how == "an extension beside the module":
        cached, data = folder / "spell_machine.abi3.so", b"\x7fELF"
    else:  # a package of the module's name, which Python imports in its place
        (folder / "spell_machine").mkdir()
        (folder / "spell_machine" / "__init__.py").write_text("HIDDEN = 'ran'\n")
        return folder / "spell_machine"
    cached.write_bytes(data)
    return cached


RUN_BY_PYTHON = ["an unchecked hash", "a checked hash of the source", "the source's time and size"]


@pytest.mark.parametrize(
    "how",
    [
        *RUN_BY_PYTHON,
        "another Python's unchecked hash",
        "another Python's bytecode stamped with the source's time and size",
        "a .pyc beside the module",
        "an extension beside the module",
        "a package",
    ],
)
def test_check_fails_on_compiled_code_python_would_run_in_place_of_a_module(
    checkout: Path, how: str
) -> None:
    planted = _pyc(checkout, how)
    if how in RUN_BY_PYTHON:  # the attack: Python runs the planted code, not the module's
        code = "import sys\nsys.path.insert(0, 'generated')\nimport spell_machine\n"
        imported = run("-c", code + "print(spell_machine.HIDDEN)", cwd=checkout)
        assert imported.stdout.strip() == "ran", imported.stderr
    done = codegen_here("--check", cwd=checkout)
    assert done.returncode == 1, done.stdout + done.stderr
    shown = planted.relative_to(checkout).as_posix()
    command = "rm -r generated/__pycache__" if "__pycache__" in shown else f"rm -r {shown}"
    if planted.is_file() and "__pycache__" not in shown:
        command = f"rm {shown}"
    assert done.stderr.startswith(f"{shown}: "), done.stderr
    assert done.stderr.strip().endswith(f"; delete it: {command}"), done.stderr
    written = codegen_here(cwd=checkout)  # writing it says the same, as a warning
    assert written.returncode == 0 and f"warning: {shown}: " in written.stderr


def test_a_module_never_goes_over_a_file_the_generator_did_not_write(checkout: Path) -> None:
    # A machine named `setup` under `generated = "."` wrote over the project's setup.py.
    (checkout / "generated" / "session_machine.py").write_text("print('hand-written')\n")
    before = everything(checkout)
    done = codegen_here(cwd=checkout)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "generated/session_machine.py is a file that spellbook-codegen did not write" in (
        done.stderr
    )
    assert everything(checkout) == before  # nothing written, the other module neither
    checked = codegen_here("--check", cwd=checkout)
    assert checked.returncode == 2 and "did not write" in checked.stderr  # not "stale"
