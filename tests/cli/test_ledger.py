"""A ledger with no Python: `F has matches of `RE` not listed in G` and `Append matches
of `RE` from F to G`, proven by the verifier and driven through `spell --machine`."""

# ruff: noqa: E501 (the spec's table rows are one line each)
from __future__ import annotations

from pathlib import Path

import pytest

from spellbook.records.exits import EXIT_OK
from tests.cli.test_project_machines import compiler, generate, spell
from tests.support.commands import clean

INBOX = """\
# Inbox

## Machine

### Spells

1. **Sweep**
   - *Description*: take in the links of inbox.md not taken in yet

### States

1. **OPEN**
    - *Description*: links are collected in inbox.md
    - *Valid Actions*: Sweep
    - *Goal*: yes

### State Persistence

The state is kept in `.inbox/state.json`:

```json
{ "current_state": "OPEN" }
```

### Terms

| Phrase | Means |
|---|---|
| a new link | inbox.md has matches of `https?://\\S+` not listed in `seen` |
| a link | inbox.md matches `https?://\\S+` |

### Transition Rules

| ID | Current State | Spell | Condition | Next State | Action | Response |
|----|---------------|-------|-----------|------------|--------|----------|
| S1 | OPEN | Sweep | a new link | Same state | Append matches of `https?://\\S+` from inbox.md to `seen` | Read the new links. |
| S2 | OPEN | Sweep | NOT a link | Same state | No state change | Nothing to sweep. |
COVERED
"""

EVERY = "| S3 | OPEN | Sweep | a link AND NOT a new link | Same state | - | Seen them all. |\n"
PYPROJECT = """\
[project]
name = "inbox"
version = "0"

[tool.spellbook.machines]
inbox = { spec = "spec/INBOX.md", vocabulary = "" }
"""


def project(tmp_path: Path, covered: str) -> Path:
    root = tmp_path / "inbox"
    (root / "spec").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "spec" / "INBOX.md").write_text(INBOX.replace("COVERED\n", covered))
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


def test_a_gap_that_only_the_ledger_leaves_is_found(tmp_path: Path) -> None:
    """Links there, all of them listed: neither S1 nor S2 fires."""
    verified = compiler(project(tmp_path, ""), "verify", "--spec", "spec/INBOX.md")
    assert verified.returncode == 1, clean(verified)
    assert "no rule fires when" in verified.stdout and "[gap]" in verified.stdout
    assert "is listed in `seen`" in verified.stdout


@pytest.mark.parametrize("overlap", [False, True])
def test_the_ledger_covered_and_an_overlap_on_it(tmp_path: Path, overlap: bool) -> None:
    row = EVERY.replace("AND NOT a new link", "") if overlap else EVERY
    verified = compiler(project(tmp_path, row), "verify", "--spec", "spec/INBOX.md")
    if overlap:  # S3 says only "a link": it fires with S1 wherever a link is new
        assert "rules S1 and S3 both fire" in verified.stdout, clean(verified)
    else:
        assert verified.returncode == 0, verified.stdout
        assert "0 errors, 0 warnings" in verified.stdout


def test_sweeping_records_each_new_link_once(tmp_path: Path) -> None:
    root = project(tmp_path, EVERY)
    generate(root)
    inbox, seen = root / ".inbox" / "inbox.md", root / ".inbox" / "seen"

    def sweep(expected: str) -> str:
        done = spell(root, "--machine", "inbox", "sweep")
        assert done.returncode == EXIT_OK, done.stdout + clean(done)
        assert expected in done.stdout
        return done.stdout

    sweep("Nothing to sweep")
    assert not seen.exists()
    (root / ".inbox").mkdir(exist_ok=True)
    inbox.write_text("- https://a.example/1\n- https://b.example/2 https://a.example/1\n")
    said = sweep("recorded 2 new entries of `.inbox/inbox.md` in `.inbox/seen`")
    assert "Read the new links" in said
    assert seen.read_text() == "https://a.example/1\nhttps://b.example/2\n"
    sweep("Seen them all")
    inbox.write_text(inbox.read_text() + "https://c.example/3\n")
    status = spell(root, "--machine", "inbox", "status")
    assert "recorded 1 new entry" in status.stdout or "records" in status.stdout, status.stdout
    sweep("recorded 1 new entry")
    assert seen.read_text().splitlines() == [
        "https://a.example/1",
        "https://b.example/2",
        "https://c.example/3",
    ]


def test_a_terms_row_naming_the_pattern_is_the_noun_a_record_takes(tmp_path: Path) -> None:
    """`| links | matches of `RE` |`: `Record links of F in G` is the ledger's verb, read
    and carried out, not an instruction passed to the AI."""
    root = project(tmp_path, EVERY)
    spec = root / "spec" / "INBOX.md"
    text = spec.read_text()
    written = "Append matches of `https?://\\S+` from inbox.md to `seen`"
    assert written in text
    text = text.replace(written, "Record links of inbox.md in `seen`")
    text = text.replace("| a link |", "| links | matches of `https?://\\S+` |\n| a link |")
    spec.write_text(text)
    verified = compiler(root, "verify", "--spec", "spec/INBOX.md", "--strict")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    assert "unknown_action" not in verified.stdout and "unknown_term" not in verified.stdout
    generate(root)
    (root / ".inbox").mkdir(exist_ok=True)
    (root / ".inbox" / "inbox.md").write_text("- https://a.example/1 and https://b.example/2\n")
    done = spell(root, "--machine", "inbox", "sweep")
    assert done.returncode == EXIT_OK, done.stdout + clean(done)
    assert (root / ".inbox" / "seen").read_text() == "https://a.example/1\nhttps://b.example/2\n"


# A spell that asks whether some link was taken in already: its counterpart.
REVIEW = INBOX.replace("**Sweep**", "**Review**").replace(
    "take in the links of inbox.md not taken in yet", "whether some link of inbox.md was seen"
)
REVIEW = REVIEW.replace("*Valid Actions*: Sweep", "*Valid Actions*: Review")
REVIEW = REVIEW.split("| S1 |")[0] + (
    "| V1 | OPEN | Review | some match of `https?://\\S+` in inbox.md is listed in `seen` | Same state | - | Some links were seen before. |\n"
    "| V2 | OPEN | Review | no match of `https?://\\S+` in inbox.md is listed in `seen` | Same state | - | No link seen yet. |\n"
)


def reviewing(tmp_path: Path, spec: str = REVIEW) -> Path:
    root = project(tmp_path, "")
    (root / "spec" / "INBOX.md").write_text(spec)
    return root


def test_some_match_listed_in_the_ledger_is_read_and_its_gap_found(tmp_path: Path) -> None:
    verified = compiler(reviewing(tmp_path / "a"), "verify", "--spec", "spec/INBOX.md")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    assert "0 errors, 0 warnings" in verified.stdout, verified.stdout
    only_some = REVIEW.split("| V2 |")[0]
    verified = compiler(reviewing(tmp_path / "b", only_some), "verify", "--spec", "spec/INBOX.md")
    assert verified.returncode == 1, verified.stdout
    (gap,) = [line for line in verified.stdout.splitlines() if "[gap]" in line]
    assert "no match of `https?://\\S+` in inbox.md is listed in `seen`" in gap, gap


def test_some_match_listed_in_the_ledger_through_spell(tmp_path: Path) -> None:
    root = reviewing(tmp_path)
    generate(root)

    def review(expected: str) -> None:
        done = spell(root, "--machine", "inbox", "review")
        assert done.returncode == EXIT_OK, done.stdout + clean(done)
        assert expected in done.stdout, done.stdout

    review("No link seen yet")  # no inbox, no ledger
    (root / ".inbox").mkdir(exist_ok=True)
    (root / ".inbox" / "inbox.md").write_text("- https://a.example/1\n")
    (root / ".inbox" / "seen").write_text("https://a.example/10\n")  # a line, not part of one
    review("No link seen yet")
    (root / ".inbox" / "seen").write_text("https://a.example/10\nhttps://a.example/1\n")
    review("Some links were seen before")
    # The ledger is one of the files the rules look at, said with the status.
    status = spell(root, "--machine", "inbox", "status")
    assert "Files there: inbox.md, seen" in status.stdout, status.stdout


def test_repair_takes_the_ledger_as_spoken_of_by_the_indicators_that_name_it(
    tmp_path: Path,
) -> None:
    """A state whose Indicators say some match is listed in the ledger speaks of the
    ledger too: repair, choosing it, does not say the ledger is there unexplained."""
    listed = "some match of `https?://\\S+` in inbox.md is listed in `seen`"
    unseen = "no match of `https?://\\S+` in inbox.md is listed in `seen`"
    spec = REVIEW.replace("    - *Goal*: yes\n", "", 1)
    spec = spec.replace(
        "links are collected in inbox.md\n",
        f"links are collected in inbox.md\n    - *Indicators*: {unseen}\n",
        1,
    ).replace(
        "\n### State Persistence",
        "2. **SEEN**\n    - *Description*: some link was seen before\n"
        f"    - *Indicators*: {listed}\n    - *Valid Actions*: Review\n    - *Goal*: yes\n"
        "\n### State Persistence",
        1,
    )
    spec = spec.split("| V1 |")[0] + (
        f"| V1 | OPEN | Review | {listed} | SEEN | - | Some links were seen before. |\n"
        f"| V2 | OPEN | Review | {unseen} | Same state | - | No link seen yet. |\n"
        "| V3 | SEEN | Review | - | Same state | - | Seen already. |\n"
    )
    root = reviewing(tmp_path, spec)
    verified = compiler(root, "verify", "--spec", "spec/INBOX.md")
    assert verified.returncode == 0, verified.stdout + clean(verified)
    generate(root)
    (root / ".inbox").mkdir()
    (root / ".inbox" / "inbox.md").write_text("- https://a.example/1\n")
    (root / ".inbox" / "seen").write_text("https://a.example/1\n")
    repaired = spell(root, "--machine", "inbox", "repair")
    assert repaired.returncode == EXIT_OK, repaired.stdout + clean(repaired)
    assert "Chose SEEN" in repaired.stdout, repaired.stdout
    assert "Also there" not in repaired.stdout, repaired.stdout
