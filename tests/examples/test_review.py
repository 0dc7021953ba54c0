"""examples/review: a document review workflow with no Python, driven through real files.

The example is copied into a new git repository; its committed generated module must
be fresh, and every cast goes through the front door (`spell --machine review`, and
the project's default from a subfolder), as docs/guide/your-own-workflow.md tells a newcomer
to run it. Its table's columns have names of its own (`Stage`, `Move`, `Goes to`,
`Tell the author`), given in its `pyproject.toml`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from spellbook.records.exits import EXIT_BLOCKED, EXIT_OK
from tests.cli.test_project_machines import compiler, spell
from tests.support.commands import clean

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "review"
TEMPLATES = EXAMPLE / "spec" / "templates"

DRAFT = """\
---
slug: style-guide
---

# Style guide

How we write, for everyone who writes here.

## Before circulating

- [ ] spelling checked
- [x] every link opens
"""


def test_the_example_is_sound_and_its_generated_machine_fresh() -> None:
    fresh = compiler(EXAMPLE, "generate", "--check")
    assert fresh.returncode == 0, fresh.stderr
    verified = compiler(EXAMPLE, "verify", "--spec", "spec/REVIEW.md")
    assert verified.returncode == 0 and "0 errors, 0 warnings" in verified.stdout
    assert "0 info" in verified.stdout


def test_a_document_from_draft_to_published_through_real_files(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".git").mkdir()
    (repo / "src").mkdir()
    work = repo / ".papers"

    def cast(*args: str, where: Path = repo, code: int = EXIT_OK) -> str:
        done = spell(where, *args)
        assert done.returncode == code, done.stdout + clean(done)
        return done.stdout

    def record() -> dict[str, object]:
        found: dict[str, object] = json.loads((work / "state.json").read_text())
        return found

    def state() -> object:
        return record()["current_state"]

    def verdicts(**by_reader: str) -> None:
        readers = [{"name": name, "verdict": verdict} for name, verdict in by_reader.items()]
        (work / "panel.json").write_text(json.dumps({"readers": readers}))

    def remark(line: str) -> None:
        with (work / "remarks.md").open("a") as sheet:
            sheet.write(line + "\n")

    def tick_all_remarks() -> None:
        sheet = work / "remarks.md"
        sheet.write_text(sheet.read_text().replace("- [ ] bo:", "- [x] bo:"))

    # Compose: the draft is written from the template the spec names.
    assert "Write the document" in cast("--machine", "review", "compose")
    assert state() == "DRAFTING"
    assert (work / "draft.md").read_text() == (TEMPLATES / "draft.md").read_text()
    assert "still the template" in cast("circulate", where=repo / "src")  # the default machine
    assert "blocked" in cast("publish", code=EXIT_BLOCKED).lower()

    # Circulate asks for a slug, then for the checklist, before the readers get the draft.
    (work / "draft.md").write_text(DRAFT.replace("slug: style-guide", "slug: Style Guide"))
    assert "Give the draft a slug" in cast("circulate")
    (work / "draft.md").write_text(DRAFT)
    assert "Tick every item" in cast("circulate")
    assert state() == "DRAFTING"
    (work / "draft.md").write_text(DRAFT.replace("- [ ] spelling", "- [x] spelling"))
    assert "Name the readers" in cast("circulate")
    assert state() == "WITH_READERS"
    assert (work / "panel.json").read_text() == (TEMPLATES / "panel.json").read_text()
    assert (work / "remarks.md").read_text() == (TEMPLATES / "remarks.md").read_text()
    assert "blocked" in cast("compose", code=EXIT_BLOCKED).lower()

    # Gather waits for every verdict (a JSON query on panel.json), then loads the remarks.
    assert "not given their verdict" in cast("gather")
    assert state() == "WITH_READERS"
    rounds_folder = work / "rounds"
    for round_number in (1, 2, 3):
        verdicts(ana="approve", bo="revise")
        remark(f"- [ ] bo: round {round_number}, the second section repeats the first")
        gathered = cast("gather")
        assert f"bo: round {round_number}, the second section" in gathered  # Load remarks.md
        assert state() == "ANSWERING"
        assert "Answer every remark" in cast("decide")
        tick_all_remarks()
        assert "another round" in cast("decide")
        assert state() == "DRAFTING" and record()["rounds"] == round_number
        assert not (work / "panel.json").exists() and not (work / "remarks.md").exists()
        assert "Name the readers" in cast("circulate")

    # Three rounds are filed, one folder each (the same day: -2, -3), and the limit holds.
    folders = sorted(rounds_folder.iterdir(), key=lambda p: (len(p.name), p.name))
    assert len(folders) == 3
    for number, folder in enumerate(folders, start=1):
        assert sorted(p.name for p in folder.iterdir()) == ["panel.json", "remarks.md"]
        assert f"bo: round {number}," in (folder / "remarks.md").read_text()
        assert json.loads((folder / "panel.json").read_text())["readers"][1]["verdict"] == "revise"
    verdicts(ana="approve", bo="revise")
    remark("- [x] bo: round 4, still too long")
    cast("gather")
    assert "Three rounds are the limit" in cast("decide")
    assert state() == "ANSWERING" and record()["rounds"] == 3
    assert len(list(rounds_folder.iterdir())) == 3

    # Every reader approves: the document waits to be published, under its slug.
    verdicts(ana="approve", bo="approve")
    assert "Every reader approves" in cast("decide")
    assert state() == "APPROVED"
    assert "blocked" in cast("decide", code=EXIT_BLOCKED).lower()
    published = (work / "draft.md").read_text()
    (work / "draft.md").write_text(published.replace("slug: style-guide", "slug:"))
    assert "lost its slug" in cast("publish")
    assert state() == "APPROVED"
    (work / "draft.md").write_text(published)
    assert "Published" in cast("publish")
    assert state() == "DESK_CLEAR" and record()["rounds"] == 0  # the next document's own
    folder = work / "published" / "style-guide"
    assert sorted(p.name for p in folder.iterdir()) == ["draft.md", "panel.json", "remarks.md"]
    assert (folder / "draft.md").read_text() == published
    assert "bo: round 4, still too long" in (folder / "remarks.md").read_text()
    assert not (work / "draft.md").exists() and not (work / "panel.json").exists()
    assert "no document in progress" in cast("withdraw", code=EXIT_BLOCKED).lower()

    # Withdrawing files the papers there are; here the draft alone, none of a panel.
    cast("--machine", "review", "compose")
    (work / "draft.md").write_text("---\nslug: faq\n---\n\n# FAQ\n\nDraft.\n")
    assert "Withdrawn" in cast("withdraw")
    assert state() == "DESK_CLEAR" and not (work / "draft.md").exists()
    (withdrawn,) = (work / "withdrawn").iterdir()
    assert [p.name for p in withdrawn.iterdir()] == ["draft.md"]
    assert (withdrawn / "draft.md").read_text() == "---\nslug: faq\n---\n\n# FAQ\n\nDraft.\n"


def test_a_lost_state_file_is_repaired_from_what_the_papers_say(tmp_path: Path) -> None:
    """The three states with a panel and a sheet of remarks are told apart by their
    Indicators' contents: verdicts still pending, every verdict in, every reader approving."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".git").mkdir()
    work = repo / ".papers"

    def repaired() -> object:
        (work / "state.json").unlink()
        done = spell(repo, "repair")
        assert done.returncode == EXIT_OK, done.stdout + clean(done)
        return json.loads((work / "state.json").read_text())["current_state"]

    assert spell(repo, "compose").returncode == EXIT_OK
    (work / "draft.md").write_text(DRAFT.replace("- [ ] spelling", "- [x] spelling"))
    assert spell(repo, "circulate").returncode == EXIT_OK
    assert repaired() == "WITH_READERS"
    for verdict, then in (("revise", "ANSWERING"), ("approve", "APPROVED")):
        panel = {"readers": [{"name": "bo", "verdict": verdict}]}
        (work / "panel.json").write_text(json.dumps(panel))
        assert repaired() == then
