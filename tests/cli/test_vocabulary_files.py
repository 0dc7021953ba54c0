"""A vocabulary written as data: a project's own markdown file of Nouns, Terms and File
groups (`vocabulary = "words/tickets.md"`), with its templates beside it. It is read
with no --trust (it is data), carried into the generated module, and never read by
`spell`; a row it cannot take is exit 2 naming the file and line."""

# ruff: noqa: E501 (the tables' rows are one line each)

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.commands import clean
from tests.support.git_traps import commit_all, init

ROOT = Path(__file__).resolve().parents[2]

WORDS = """\
# The ticket workflow's words

## Nouns

| Noun | Also written | Fact | File | Said |
| --- | --- | --- | --- | --- |
| open ticket | open tickets | `tickets[status=open]` | board.json | {file} has an open ticket / {file} has no open ticket |
| unchecked risk | unchecked risks | unchecked items under "Risks" | notes.md | |
| ticket key | ticket keys, keys | matches of `[A-Z]+-[0-9]+` | notes.md | |

## Terms

| Phrase | Means |
| --- | --- |
| the work is done | no open ticket in board.json AND no unchecked risk in notes.md |

## File groups

| Group | Files |
| --- | --- |
| work files | board.json, notes.md |
"""
NOTES = "# Notes\n\n## Risks\n\n- [ ] a risk to weigh\n"
DESK = """\
# Desk

## Machine

### Spells
1. **Start**
   - *Description*: start the work
2. **Finish**
   - *Description*: finish the work

### States
1. **NEW**
    - *Description*: nothing started
    - *Valid Actions*: Start, Finish
2. **WORK**
    - *Description*: at work
    - *Valid Actions*: Start, Finish
3. **DONE**
    - *Description*: done
    - *Valid Actions*: Start, Finish
    - *Goal*: yes

### State Persistence
The state is kept in `.desk/state.json`:
```json
{ "current_state": "NEW" }
```

### Transition Rules
| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| D1 | NEW | Start | - | WORK | Create `notes.md` | Notes made. |
| D2 | WORK | Finish | the work is done AND ≥1 ticket key in notes.md | DONE | Archive work files to `archive/` | Done. |
| D3 | WORK | Finish | ≥1 open ticket in board.json | Same state | No state change | Close the open tickets first. |
| D4 | WORK | Finish | ≥1 unchecked risk in notes.md | Same state | No state change | Weigh the risks first. |
| D5 | WORK | Finish | - | Same state | No state change | Name a ticket in the notes. |
| D6 | NEW | Finish | - | Same state | No state change | Start first. |
| D7 | WORK | Start | - | Same state | No state change | Started already. |
| D8 | DONE | Start | - | Same state | No state change | Done already. |
| D9 | DONE | Finish | - | Same state | No state change | Done already. |
"""
PYPROJECT = """\
[project]
name = "desk"
version = "0"

[tool.spellbook]
default = "desk"
vocabulary = "words/tickets.md"

[tool.spellbook.machines]
desk = "spec/DESK.md"
"""


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A command as a user runs it in `cwd`: no PYTHONPATH, nothing of the test's path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


def compiler(cwd: Path, command: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`spellbook-verify` (command "verify") or `spellbook-codegen` ("generate") in `cwd`."""
    code = f"import sys, spellbook.doors.compiler as c; del sys.argv[1]; raise SystemExit(c.{command}())"
    return run(cwd, "-c", code, "--", *args)


def desk(folder: Path, words: str = WORDS) -> Path:
    """A project of a team's own whose words are a vocabulary file, no Python."""
    (folder / "spec").mkdir(parents=True)
    (folder / "words" / "templates").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / "words" / "tickets.md").write_text(words, encoding="utf-8")
    (folder / "words" / "templates" / "notes.md").write_text(NOTES, encoding="utf-8")
    (folder / "spec" / "DESK.md").write_text(DESK, encoding="utf-8")
    (folder / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return folder


def cast(project: Path, spell: str) -> dict[str, object]:
    result = run(project, "-m", "spellbook", "--json", spell)
    clean(result)
    found: dict[str, object] = json.loads(result.stdout)
    return found


def test_a_project_s_vocabulary_file_verifies_generates_and_runs_with_no_trust(
    tmp_path: Path,
) -> None:
    project = desk(tmp_path / "desk")
    elsewhere = tmp_path / "reviewer"
    elsewhere.mkdir()
    # Read from another project's folder, with no --trust: it is data, not code.
    verified = compiler(elsewhere, "verify", "--spec", str(project / "spec" / "DESK.md"))
    assert verified.returncode == 0, clean(verified) + verified.stdout
    assert "words/tickets.md` vocabulary" in verified.stdout
    made = compiler(project, "generate")
    assert made.returncode == 0, clean(made) + made.stdout
    module = (project / "generated" / "desk.py").read_text(encoding="utf-8")
    assert 'VOCABULARY = ""' in module  # no module to import
    assert "a risk to weigh" in module  # the template travels in the machine
    # `spell` never needs the vocabulary file: the generated module says it all (it only
    # looks whether the file has changed since, to say so).
    os.rename(project / "words", project / "words-gone")

    assert cast(project, "start")["after"] == "WORK"
    workspace = project / ".desk"
    assert (workspace / "notes.md").read_text(encoding="utf-8") == NOTES
    (workspace / "board.json").write_text('{"tickets": [{"status": "open"}]}')
    assert "Close the open tickets first." in str(cast(project, "finish")["response"])
    (workspace / "board.json").write_text('{"tickets": [{"status": "closed"}]}')
    notes = NOTES + "- [ ] the rollback\n"  # a risk of its own: the template's is none
    (workspace / "notes.md").write_text(notes, encoding="utf-8")
    assert "Weigh the risks first." in str(cast(project, "finish")["response"])
    weighed = notes.replace("[ ]", "[x]")
    (workspace / "notes.md").write_text(weighed, encoding="utf-8")
    assert "Name a ticket in the notes." in str(cast(project, "finish")["response"])
    (workspace / "notes.md").write_text(weighed + "ENG-12\n", encoding="utf-8")
    done = cast(project, "finish")
    assert done["after"] == "DONE", done
    archived = sorted(p.name for p in (workspace / "archive").iterdir())
    assert archived == ["board.json", "notes.md"]  # the file group's files


def test_a_vocabulary_file_or_template_changed_since_generating_is_said_never_refused(
    tmp_path: Path,
) -> None:
    project = desk(tmp_path / "desk")
    made = compiler(project, "generate")
    assert made.returncode == 0, clean(made) + made.stdout
    module = project / "generated" / "desk.py"
    words, template = project / "words" / "tickets.md", project / "words" / "templates" / "notes.md"
    later = module.stat().st_mtime_ns + 5_000_000_000
    os.utime(words, ns=(later, later))  # newer, as a checkout leaves it, the same bytes
    quiet = run(project, "-m", "spellbook", "status")
    assert quiet.returncode == 0 and "has changed" not in quiet.stderr, clean(quiet)

    for changed, text in (
        (words, WORDS.replace("board.json, notes.md", "board.json")),
        (template, NOTES + "- [ ] another risk\n"),
    ):
        changed.write_text(text, encoding="utf-8")
        os.utime(changed, ns=(later, later))
    done = run(project, "-m", "spellbook", "start")
    assert done.returncode == 0, clean(done)
    assert (
        "spell: note: words/tickets.md and words/templates/notes.md have changed since "
        "generated/desk.py was generated from them: this runs the machine as generated"
    ) in " ".join(done.stderr.split()), done.stderr
    # The machine runs as generated: the template it carries, not the file as changed.
    assert (project / ".desk" / "notes.md").read_text(encoding="utf-8") == NOTES
    assert compiler(project, "generate").returncode == 0
    fresh = run(project, "-m", "spellbook", "status")
    assert fresh.returncode == 0 and "has changed" not in fresh.stderr, clean(fresh)
    # A file the module names that is no file to read (a FIFO a pull request put there)
    # is never opened: reading it would never end.
    if hasattr(os, "mkfifo"):
        words.unlink()
        os.mkfifo(words)
        os.utime(words, ns=(later * 2, later * 2))
        piped = run(project, "-m", "spellbook", "status")
        assert piped.returncode == 0 and "has changed" not in piped.stderr, clean(piped)


def test_the_reading_shows_the_vocabulary_s_terms_the_rows_use(tmp_path: Path) -> None:
    project = desk(tmp_path / "desk")
    shown = compiler(project, "verify", "--explain")
    assert shown.returncode == 0, clean(shown) + shown.stdout
    assert "1 term (1 of the vocabulary's, which the rows use)" in shown.stdout
    assert (
        "term 'the work is done' (of words/tickets.md) means the condition: board.json has "
        'no `tickets[status=open]` AND notes.md has no unchecked items under "Risks"'
    ) in shown.stdout
    read = compiler(project, "verify", "--format", "json")
    (term,) = json.loads(read.stdout)["reading"]["terms"]
    assert (term["phrase"], term["vocabulary"], term["as"]) == (
        "the work is done",
        "words/tickets.md",
        "condition",
    )


BAD_NOUNS = [
    ("| open ticket | open tickets | | board.json | |", "has no fact"),
    ("| open ticket | open tickets | `tickets[status=open] | board.json | |", "not one the core"),
    ("| open ticket | open tickets | tickets are open | board.json | |", "not one the core"),
    ("| | open tickets | `tickets[status=open]` | board.json | |", "has no name"),
    ("| open ticket | `open` | `tickets[status=open]` | board.json | |", "no backticks"),
    ("| open ticket | | `tickets[status=open]` | board.json | {file} is open |", "' / '"),
    ("| open ticket | | `tickets[status=open]` | board.json | {x} / {file} no |", "only {file}"),
    # a file's name: `board.json exists` would ask the noun's fact, not the file
    ("| open ticket | board.json | `tickets[status=open]` | board.json | |", "as a file is"),
]


@pytest.mark.parametrize(("row", "said"), BAD_NOUNS, ids=[s for _, s in BAD_NOUNS])
def test_a_nouns_row_the_reader_cannot_take_is_exit_2_at_its_line(
    tmp_path: Path, row: str, said: str
) -> None:
    lines = WORDS.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("| open ticket |"))
    lines[at] = row
    project = desk(tmp_path / "desk", "\n".join(lines))
    for result in (
        compiler(project, "verify", "--spec", "spec/DESK.md"),
        compiler(project, "generate"),
    ):
        err = clean(result)
        assert result.returncode == 2, err
        assert f"words/tickets.md:{at + 1}: vocabulary:" in err, err
        assert said in err, err
    assert not (project / "generated").exists()


def test_a_vocabulary_term_that_is_a_core_fact_is_an_error_at_its_line(tmp_path: Path) -> None:
    # `| notes.md exists | notes.md is filled in |` redefined existence in every spec, so
    # `notes.md missing` was no longer its negation, with no word
    lines = WORDS.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("| the work is done |"))
    lines.insert(at + 1, '| notes.md exists | notes.md has unchecked items under "Done" |')
    project = desk(tmp_path / "desk", "\n".join(lines))
    result = compiler(project, "verify", "--spec", "spec/DESK.md")
    err = clean(result)
    assert result.returncode == 2, err
    assert f"words/tickets.md:{at + 2}: vocabulary: term 'notes.md exists' is a fact" in err, err


def test_two_nouns_written_alike_are_an_error_at_the_second(tmp_path: Path) -> None:
    # the plural read one noun and the singular the other, with no word
    words = WORDS.replace(
        "| unchecked risk | unchecked risks |", "| unchecked risk | open tickets |"
    )
    project = desk(tmp_path / "desk", words)
    result = compiler(project, "verify", "--spec", "spec/DESK.md")
    line = next(i for i, row in enumerate(words.split("\n")) if row.startswith("| unchecked risk"))
    err = clean(result)
    assert result.returncode == 2 and f"words/tickets.md:{line + 1}: " in err, err
    assert "'open tickets' is written for the noun 'open ticket' too" in err


def test_a_file_group_named_as_a_file_is_an_error_at_its_line(tmp_path: Path) -> None:
    # `| review.json | draft.md |` made `Delete review.json` delete draft.md
    words = WORDS.replace("| work files | board.json, notes.md |", "| board.json | notes.md |")
    project = desk(tmp_path / "desk", words)
    result = compiler(project, "verify", "--spec", "spec/DESK.md")
    line = words.split("\n").index("| board.json | notes.md |") + 1
    err = clean(result)
    assert result.returncode == 2 and f"words/tickets.md:{line}: " in err, err
    assert "named as a file is" in err


def test_a_vocabulary_file_s_table_of_no_known_kind_is_an_error_at_its_line(
    tmp_path: Path,
) -> None:
    words = WORDS.replace("| Group | Files |", "| Group | Members |")
    project = desk(tmp_path / "desk", words)
    result = compiler(project, "verify", "--spec", "spec/DESK.md")
    line = words.split("\n").index("| Group | Members |") + 1
    assert result.returncode == 2 and f"words/tickets.md:{line}: " in clean(result)
    assert "'members' is not one of this table's" in result.stderr


def test_a_project_vocabulary_s_pattern_re2_refuses_is_refused(tmp_path: Path) -> None:
    words = WORDS.replace("`[A-Z]+-[0-9]+`", "`(?<=key )[A-Z]+-[0-9]+`")
    project = desk(tmp_path / "desk", words)
    line = next(i for i, t in enumerate(words.split("\n"), 1) if t.startswith("| ticket key"))
    result = compiler(project, "verify", "--spec", "spec/DESK.md")
    err = clean(result)
    assert result.returncode == 2, err
    assert f"words/tickets.md:{line}: vocabulary: noun 'ticket key'" in err
    assert "RE2" in err and "linear time" in err


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("../words.md", "outside the project"),
        ("words/missing.md", "no such file"),
        (".git/words.md", ".git"),
    ],
)
def test_a_vocabulary_file_outside_the_project_s_files_is_refused(
    tmp_path: Path, written: str, said: str
) -> None:
    project = desk(tmp_path / "desk")
    (tmp_path / "words.md").write_text(WORDS, encoding="utf-8")
    (project / ".git" / "words.md").write_text(WORDS, encoding="utf-8")
    config = PYPROJECT.replace("words/tickets.md", written)
    (project / "pyproject.toml").write_text(config, encoding="utf-8")
    result = compiler(project, "verify", "--spec", "spec/DESK.md")
    err = clean(result)
    assert result.returncode == 2, err
    assert "pyproject.toml" in err and said in err, err


def test_a_link_out_of_the_project_is_no_vocabulary_file(tmp_path: Path) -> None:
    project = desk(tmp_path / "desk")
    (tmp_path / "theirs.md").write_text(WORDS, encoding="utf-8")
    (project / "words" / "tickets.md").unlink()
    (project / "words" / "tickets.md").symlink_to(tmp_path / "theirs.md")
    result = compiler(project, "verify", "--spec", "spec/DESK.md")
    assert result.returncode == 2 and "a link leads out" in clean(result)


def test_the_docs_worked_example_is_the_vocabulary_driven_here() -> None:
    page = (ROOT / "docs" / "guide" / "your-own-workflow.md").read_text(encoding="utf-8")
    section = page[page.index("### A vocabulary of your own") :]
    example = section[section.index("```markdown\n") + len("```markdown\n") :]
    assert example[: example.index("```")] == WORDS


def test_against_a_revision_reads_the_old_spec_with_the_vocabulary_as_it_was_there(
    tmp_path: Path,
) -> None:
    # A file group gains a file, the spec unchanged: D2 now archives it too. A revision
    # reads the old spec with the vocabulary as it was there, and the change is listed; a
    # file names no revision of the vocabulary, and the report says both were read with
    # it as it is now.
    project = desk(tmp_path / "desk")
    (project / ".git").rmdir()
    init(project)
    commit_all(project)
    old = tmp_path / "old.md"
    old.write_text(DESK, encoding="utf-8")
    (project / "words" / "tickets.md").write_text(
        WORDS.replace(
            "| work files | board.json, notes.md |", "| work files | board.json, notes.md, log.md |"
        ),
        encoding="utf-8",
    )
    result = compiler(
        project, "verify", "--spec", "spec/DESK.md", "--against", "HEAD:", "--format", "json"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["behaviour_changed"] and report["rules"]["changed"] == [
        {"rule": "D2", "what": ["actions"]}
    ]
    (change,) = report["changes"]
    assert change["was"]["actions"] == ["Archive work files to `archive/` (board.json, notes.md)"]
    assert change["now"]["actions"] == [
        "Archive work files to `archive/` (board.json, notes.md, log.md)"
    ]
    assert report["vocabulary"]["old"].startswith("words/tickets.md at HEAD (commit ")
    assert report["vocabulary"]["new"] == "words/tickets.md as it is now (changed since)"
    result = compiler(project, "verify", "--spec", "spec/DESK.md", "--against", str(old))
    clean(result)
    said = " ".join(result.stdout.split())
    assert "no behaviour change" in said
    assert (
        "Vocabulary: the old spec read with words/tickets.md as it is now (a file names no "
        "revision of the vocabulary: a change of it is not compared;"
    ) in said


def test_a_copy_of_a_listed_spec_read_without_its_vocabulary_says_how_to_read_it_so(
    tmp_path: Path,
) -> None:
    # A copy of the machine's spec (spec/x.md), which pyproject.toml does not list, was
    # read with the core's words alone: unknown conditions, and "define it in a Terms
    # table", with no word of the vocabulary file the listed machine is read with.
    project = desk(tmp_path / "desk")
    (project / "pyproject.toml").write_text(
        PYPROJECT.replace('vocabulary = "words/tickets.md"\n', "").replace(
            'desk = "spec/DESK.md"',
            'desk = { spec = "spec/DESK.md", vocabulary = "words/tickets.md" }',
        ),
        encoding="utf-8",
    )
    (project / "spec" / "x.md").write_text(DESK, encoding="utf-8")
    result = compiler(project, "verify", "--spec", "spec/x.md")
    note = " ".join(result.stderr.split())
    assert (
        "note: spec/x.md is no machine pyproject.toml lists, so it is read with the project's "
        "own settings, not a listed machine's: desk reads spec/DESK.md with words/tickets.md; "
        "--vocabulary words/tickets.md reads this one with it"
    ) in note, note
    listed = compiler(project, "verify", "--spec", "spec/DESK.md")
    assert "note:" not in listed.stderr
    given = compiler(project, "verify", "--spec", "spec/x.md", "--vocabulary", "words/tickets.md")
    assert "note:" not in given.stderr


def test_against_a_revision_says_a_file_template_changed_since(tmp_path: Path) -> None:
    # Only words/templates/notes.md changed: "no behaviour change", and the vocabulary
    # file, which had not changed, was said to have. D1 now creates another text.
    project = desk(tmp_path / "desk")
    (project / ".git").rmdir()
    init(project)
    commit_all(project)
    template = project / "words" / "templates" / "notes.md"
    template.write_text(NOTES + "\nOne more line.\n", encoding="utf-8")
    result = compiler(
        project, "verify", "--spec", "spec/DESK.md", "--against", "HEAD:", "--format", "json"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["file_templates_changed"] == [{"file": "notes.md", "rows": ["D1"]}]
    assert report["verdict"].startswith("behaviour changed (1 file template changed")
    assert report["vocabulary"]["new"] == (
        "words/tickets.md as it is now (templates/ changed since: notes.md)"
    )
    said = " ".join(
        compiler(project, "verify", "--spec", "spec/DESK.md", "--against", "HEAD:").stdout.split()
    )
    assert "Templates: notes.md's template changed, so the notes.md that D1 creates is" in said


def test_against_a_revision_without_the_vocabulary_file_reads_the_old_spec_without_it(
    tmp_path: Path,
) -> None:
    # The vocabulary file added since HEAD: the old spec was read with it as it is now,
    # words HEAD never had, and its changes were reported against a spec no one wrote.
    project = desk(tmp_path / "desk")
    (project / ".git").rmdir()
    init(project)
    (project / "words" / "tickets.md").unlink()
    commit_all(project)
    (project / "words" / "tickets.md").write_text(WORDS, encoding="utf-8")
    result = compiler(
        project, "verify", "--spec", "spec/DESK.md", "--against", "HEAD:", "--format", "json"
    )
    report = json.loads(result.stdout)
    assert report["vocabulary"]["old"] == (
        "the core's words and its own Terms (words/tickets.md is not at HEAD)"
    ), report["vocabulary"]
    assert report["vocabulary"]["new"] == "words/tickets.md as it is now"
