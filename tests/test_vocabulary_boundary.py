"""The compiler's stages and the runtime's cast never name a workflow's own words: those
live in the vocabulary files (`spellbook/vocabularies/NAME/vocabulary.md`)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The session's words are its feature list and pending features; "feature flag" and
# "planned features" are how any spec's author speaks of rules not live yet.
WORKFLOW_WORDS = re.compile(
    r"atlassian|acceptance|review-task|feature[-_ ]list|pending feature|comments\.md", re.I
)


def test_generic_modules_do_not_name_a_workflow_s_words() -> None:
    generic = sorted((ROOT / "codegen").rglob("*.py")) + sorted(
        (ROOT / "src" / "spellbook").glob("*.py")
    )
    assert len(generic) > 20
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in generic
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if WORKFLOW_WORDS.search(line)
    ]
    assert not found, found


def test_the_vocabularies_are_where_those_words_are() -> None:
    vocabularies = ROOT / "src" / "spellbook" / "vocabularies"
    text = "".join(p.read_text(encoding="utf-8") for p in vocabularies.rglob("vocabulary.md"))
    for word in ("Atlassian", "acceptance criteria", "review files", "pending feature"):
        assert word.lower() in text.lower(), word


def test_the_shipped_vocabularies_are_data_with_no_python() -> None:
    vocabularies = ROOT / "src" / "spellbook" / "vocabularies"
    modules = sorted(p.relative_to(vocabularies).as_posix() for p in vocabularies.rglob("*.py"))
    assert modules == ["__init__.py"]  # the package's marker, a docstring alone
    assert sorted(p.parent.name for p in vocabularies.glob("*/vocabulary.md")) == [
        "coding_session",
        "spell_workflow",
    ]
