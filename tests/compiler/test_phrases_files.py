"""Condition phrases of files: a cell with no condition, a file that exists or was edited,
what it matches, a section's text, globs, files newer than others, pairs of files and
the repository's own files. Each beside its near misses, read as its author means or
refused (the corpus: tests/compiler/test_phrase_corpus.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.phrases import PAIR, Lit, assert_reads, no, one, read, refused, yes

ALWAYS: list[Any] = [
    # -- a cell with no condition: `-` (see test_conditions), and its other spellings --
    read("core", "\u2013", []),  # en dash
    read("core", "none", []),
    read("core", "(none)", []),
    read("core", "Always", []),
    # not applicable: no condition applies, as a light table's Condition cell `N/A` says
    read("core", "n/a", []),
    read("core", "N/A", []),
    # Near misses: not a way of saying "no condition".
    read("core", "never"),  # a row that never fires: its condition can never hold
    refused("core", "true"),
    refused("core", "()", "the parentheses hold no condition"),
    refused("core", "( ; )", "the parentheses hold no condition"),
    refused("core", ", ,", "nothing but separators"),
    refused("core", "AND"),
    refused("core", "NOT"),
    refused("core", "NOT -"),
]


EXISTENCE: list[Any] = [
    # -- `F exists`, `F is present`, `F missing`, `F is absent`, `F doesn't exist`,
    # `there is no F`; files relative to the workspace, or with it in front ----------
    one("core", "context.md exists", yes("exists", "context.md")),
    one("core", "notes.md is present", yes("exists", "notes.md")),
    one("core", "context.md missing", no("exists", "context.md")),
    one("core", "context.md is missing", no("exists", "context.md")),
    one("core", "context.md absent", no("exists", "context.md")),
    one("core", "context.md is absent", no("exists", "context.md")),
    one("core", "context.md doesn't exist", no("exists", "context.md")),
    one("core", "context.md does not exist", no("exists", "context.md")),
    one("core", "context.md don't exist", no("exists", "context.md")),
    one("core", "there is no context.md", no("exists", "context.md")),
    one("core", "There is no context.md", no("exists", "context.md")),
    one("core", "no context.md", no("exists", "context.md")),
    one("core", "No context.md", no("exists", "context.md")),
    one("core", "`context.md` exists", yes("exists", "context.md")),
    one("core", "`.ai/task/context.md` is missing", no("exists", "context.md")),
    one("core", ".ai/task/context.md exists", yes("exists", "context.md")),
    # `./` before a name outside the workspace's prefix may mean the repository's top
    refused("core", "./context.md exists", "write `/context.md` for the repository's"),
    one("core", "./context.md exists", yes("exists", "context.md"), workspace=""),
    one("core", "./.ai/task/context.md exists", yes("exists", "context.md")),
    one("core", "docs/notes.md exists", yes("exists", "docs/notes.md")),
    one("core", "context.md Exists", yes("exists", "context.md")),
    one("core", "CONTEXT.md exists", yes("exists", "CONTEXT.md")),  # names keep their case
    one("core", "context.md exists.", yes("exists", "context.md")),
    one("core", "`.atlassian-refs` exists", yes("exists", ".atlassian-refs")),
    one("core", "`.ai/task/.atlassian-refs` is missing", no("exists", ".atlassian-refs")),
    # a folder: `exists` asks of a file (a cast that asked it of a folder stopped)
    refused("core", "`notes/` exists", "names a folder"),
    # A spec without a state file keeps its workspace at the repository's root.
    one("core", ".ai/context.md exists", yes("exists", ".ai/context.md"), workspace=""),
    one("core", "`.ai/task` exists", yes("exists", ".ai/task"), workspace=""),
    one("core", "there is no `context.md`", no("exists", "context.md")),
    # Paths that leave the workspace, or are not one file's name.
    refused("core", "../context.md exists", "outside the workspace folder"),
    refused("core", ".ai/task/../context.md exists", "outside the workspace folder"),
    refused("core", "~/context.md exists", "outside the workspace folder"),
    # From the repository's top, a file outside the workspace (see REPOSITORY_FILES).
    one("core", "`/tmp/context.md` exists", yes("exists", "/tmp/context.md")),
    refused("core", "no ~/context.md", "outside the workspace folder"),
    refused("core", "`C:\\context.md` exists", "not a file's name"),
    refused("core", ".ai/context.md exists", "not in the workspace folder .ai/task"),
    refused("core", ".ai/notes/a.md exists", "from the repository's top, `/.ai/notes/a.md`"),
    refused("core", ".ai/tasks/context.md exists", "not in the workspace folder .ai/task"),
    refused("core", "`.ai/task` exists", "the workspace folder itself"),
    # A glob is a fact of its own (see GLOBS), not a file's name.
    one("core", "`*.md` exists", yes("glob", "", "*.md")),
    one("core", "`tasks/*.md` exists", yes("glob", "", "tasks/*.md")),
    refused("core", "`task-${task_name}.md` exists", "not a file's name"),
    refused("core", "`pr-reviews/pr-review-<date>/` exists", "not a file's name"),
    one("core", "`context.md?` exists", yes("glob", "", "context.md?")),
    refused("core", "`context.md,` exists", "not a file's name"),
    refused("core", "`[ATLASSIAN_URLS_PLACEHOLDER]` exists", "not a file's name"),
    refused("core", "`a/./b.md` exists", "not a plain path"),
    refused("core", "`a//b.md` exists", "not a plain path"),
    # Typos, missing backticks, other words and word orders.
    refused("core", "context.md exist"),
    refused("core", "context.md exsts"),
    refused("core", "exists context.md"),
    refused("core", "context.md is exists"),
    refused("core", "context.md exists already"),
    refused("core", "context.md exists (yes)"),
    refused("core", "`context.md exists"),
    refused("core", "context.md` exists"),
    refused("core", "context exists"),
    refused("core", "the context.md exists"),
    refused("core", "context.md file exists"),
    refused("core", "context.md does exist"),
    refused("core", "context.md is not present"),
    refused("core", "context.md isn't present"),
    refused("core", "context.md not exists"),
    refused("core", "context.md is not missing"),
    refused("core", "context.md are missing"),
    refused("core", "context.md is still missing"),
    refused("core", "there's no context.md"),
    refused("core", "there is a context.md"),
    refused("core", "no context.md file"),
    refused("core", "context.md doesnt exist"),
    refused("core", "context.md doesn\u2019t exist"),  # a curly apostrophe
    refused("core", "context.md did not exist"),
    refused("core", "`context.md` `notes.md` exist"),
]


EDITED: list[Any] = [
    # -- `F is filled in`, `F is not filled in` (`F is still its template`) ------------
    one("core", "plan.md is filled in", yes("edited", "plan.md")),
    one("core", "`.ai/task/plan.md` is filled in", yes("edited", "plan.md")),
    one("core", "task.md is still its template", no("edited", "task.md")),
    one("core", "task.md is its template", no("edited", "task.md")),
    one("core", "task.md is the template", no("edited", "task.md")),
    one("core", "task.md is still the template", no("edited", "task.md")),
    one("core", "NOT plan.md is filled in", no("edited", "plan.md")),
    refused("core", "plan.md is filled"),
    refused("core", "plan.md is filled out"),
    refused("core", "plan.md filled in"),
    one("core", "plan.md is not filled in", no("edited", "plan.md")),
    one("core", "plan.md isn't filled in", no("edited", "plan.md")),
    refused("core", "plan.md is not filled"),
    refused("core", "plan.md is not yet filled in"),
    refused("core", "plan.md is a template"),
    refused("core", "plan.md is still template"),
    refused("core", "plan.md is no longer its template"),
    refused("core", "plan.md is still it's template"),
    refused("core", "plan.md is edited"),
    refused("core", "../plan.md is filled in", "outside the workspace folder"),
    # Empty is two facts; the near miss names both, never a weaker one (`F exists`).
    refused("core", "notes.md is not empty", "write ``notes.md matches `\\S` ``"),
    refused("core", "notes.md isn't empty", "`notes.md is filled in`"),
    refused("core", "notes.md is non-empty", "`notes.md is filled in`"),
    refused("core", "notes.md has content", "`notes.md is filled in`"),
    refused("core", "notes.md is empty", "``notes.md exists AND NOT notes.md matches `\\S` ``"),
    one("core", "notes.md matches `\\S`", yes("matches", "notes.md", "\\S")),
]


PATTERNS: list[Any] = [
    # -- `F matches `RE`` (a regular expression), `F contains `TEXT`` (literal) ------
    one("core", "context.md matches `^## Links`", yes("matches", "context.md", "^## Links")),
    one("core", 'context.md matches "^## Links"', yes("matches", "context.md", "^## Links")),
    one("core", "context.md matches “^## Links”", yes("matches", "context.md", "^## Links")),
    one("core", "`.ai/task/context.md` matches `x`", yes("matches", "context.md", "x")),
    one("core", "context.md does not match `TODO`", no("matches", "context.md", "TODO")),
    one("core", "context.md doesn't match `TODO`", no("matches", "context.md", "TODO")),
    one(
        "core",
        "context.md contains `status: done`",
        yes("matches", "context.md", re.escape("status: done")),
    ),
    one("core", "context.md doesn't contain `a.b`", no("matches", "context.md", re.escape("a.b"))),
    one("core", "context.md does not contain `[x]`", no("matches", "context.md", re.escape("[x]"))),
    one(
        "core",
        "context.md contains `(finds ≥1)`",
        yes("matches", "context.md", re.escape("(finds ≥1)")),
    ),
    # Separators inside backticks do not split; spaces inside them are kept.
    one("core", "context.md matches `a; b`", yes("matches", "context.md", "a; b")),
    one("core", "context.md matches `a OR b`", yes("matches", "context.md", "a OR b")),
    one("core", "context.md contains `a  b`", yes("matches", "context.md", re.escape("a  b"))),
    one(
        "core",
        "context.md matches `x` AND notes.md matches `y`",
        yes("matches", "context.md", "x"),
        yes("matches", "notes.md", "y"),
    ),
    one("core", r"context.md matches `v\$version`", yes("matches", "context.md", r"v\$version")),
    one(
        "core",
        "context.md matches `^Status: (open|closed)$`",
        yes("matches", "context.md", "^Status: (open|closed)$"),
    ),
    # Patterns that are not regular expressions, could hang, or can never match.
    refused("core", "context.md matches `*.md`", "is not a regular expression"),
    refused("core", "context.md matches `[`", "is not a regular expression"),
    one("core", r"context.md matches `(\w+)*$`", yes("matches", "context.md", r"(\w+)*$")),
    refused("core", r"context.md matches `(\w+) \1`", "cannot run in linear time"),
    refused("core", "context.md matches `^v$version`", "which can never match"),
    # Near misses.
    refused("core", "context.md matches '^## Links'"),
    refused("core", "context.md matches ^## Links"),
    refused("core", "context.md match `x`"),
    refused("core", "context.md matching `x`"),
    refused("core", "context.md does not matches `x`"),
    refused("core", "context.md contains TODO"),
    refused("core", "context.md contains `TODO"),
    refused("core", "context.md includes `TODO`"),
    refused("core", "context.md mentions `TODO`"),
    refused("core", "context.md matches `a*b` somewhere"),
    refused("core", "context.md matches `a`, `b`"),
    refused("core", "context.md matches regex `x`"),
    refused("core", "context.md matches the pattern `x`"),
    refused("core", "context.md contains the text `x`"),
    refused("core", "context.md contains ``"),
    refused("core", "context.md contains `TODO` (case-insensitive)"),
    refused("core", "../context.md contains `x`", "outside the workspace folder"),
]


SECTION_TEXT: list[Any] = [
    # -- `F has text under "S"`, `F has no text under "S"` --------------------------------
    one("core", 'plan.md has text under "Summary"', yes("section_text", "plan.md", "Summary")),
    one(
        "core",
        'plan.md has some text under "Summary"',
        yes("section_text", "plan.md", "Summary"),
    ),
    one(
        "core",
        "plan.md has text under the Summary section",
        yes("section_text", "plan.md", "Summary"),
    ),
    one(
        "core",
        'plan.md has text under "## Summary"',
        yes("section_text", "plan.md", "Summary"),
    ),
    one(
        "core",
        'plan.md has no text under "Summary"',
        no("section_text", "plan.md", "Summary"),
        yes("section", "plan.md", "Summary"),
    ),
    one(
        "core",
        "plan.md has no text under `Open Questions`",
        no("section_text", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    refused("core", 'plan.md has text under "#"', "the section has no name"),
    refused("core", "plan.md has text under Summary"),
    refused("core", 'plan.md has text in "Summary"'),
    refused("core", 'plan.md has texts under "Summary"'),
    refused("core", 'plan.md has any text under "Summary"'),
    refused("core", '`*.md` has text under "Summary"', "not a file's name"),
]


NEWER: list[Any] = [
    # -- `F is newer than G`, `F is not newer than G`, `F is older than G` --------------
    one("core", "report.md is newer than data.json", yes("newer", "report.md", "data.json")),
    one(
        "core",
        "`.ai/task/report.md` is newer than `data.json`",
        yes("newer", "report.md", "data.json"),
    ),
    one("core", "report.md is not newer than data.json", no("newer", "report.md", "data.json")),
    one("core", "report.md isn't newer than data.json", no("newer", "report.md", "data.json")),
    one("core", "report.md is older than data.json", yes("newer", "data.json", "report.md")),
    one(
        "core",
        "report.md is not older than data.json",
        no("newer", "data.json", "report.md"),
    ),
    one("core", "NOT report.md is newer than data.json", no("newer", "report.md", "data.json")),
    refused("core", "report.md is newer than report.md", "never newer"),
    refused("core", "report.md is newer then data.json", "is newer than data.json"),
    refused("core", "report.md was modified after data.json", "is newer than data.json"),
    refused("core", "report.md is newer than ../data.json", "outside the workspace folder"),
    refused("core", "report.md is newer than `*.json`", "not a file's name"),
    refused("core", "report.md newer than data.json"),
    refused("core", "report.md is newer than data.json by a day"),
    refused("core", "report.md is more recent than data.json"),
]


GLOBS: list[Any] = [
    # -- `docs/*.md exists`, `no docs/*.md`, `some file matches docs/*.md` -------------
    one("core", "docs/*.md exists", yes("glob", "", "docs/*.md")),
    one("core", "`docs/*.md` exists", yes("glob", "", "docs/*.md")),
    one("core", "`.ai/task/docs/*.md` exists", yes("glob", "", "docs/*.md")),
    one("core", "no docs/*.md", no("glob", "", "docs/*.md")),
    one("core", "there is no `docs/*.md`", no("glob", "", "docs/*.md")),
    one("core", "docs/*.md is missing", no("glob", "", "docs/*.md")),
    one("core", "`docs/*.md` doesn't exist", no("glob", "", "docs/*.md")),
    one("core", "some file matches docs/*.md", yes("glob", "", "docs/*.md")),
    one("core", "a file matches `notes/draft-?.md`", yes("glob", "", "notes/draft-?.md")),
    one("core", "no file matches docs/*.md", no("glob", "", "docs/*.md")),
    one("core", "`docs/**/*.md` exists", yes("glob", "", "docs/**/*.md")),
    one("core", "`**/*.md` exists", yes("glob", "", "**/*.md")),
    one("core", "`.*.swp` exists", yes("glob", "", ".*.swp")),
    # Without a wildcard: one file's name, or a search of text? Neither is read.
    refused("core", "some file matches plan.md", "write `plan.md exists`"),
    refused("core", "no file matches `VERSION`", "no `*` or `?`"),
    refused("core", "some file matches `TODO`", "search a file's text"),
    refused("core", "some file matches `\\d+.*`", "`\\` is no part of one"),
    refused("core", "some file matches `^TODO.*`", "`^` is no part of one"),
    refused("core", "`docs/**` exists", "ends in `**`"),
    refused("core", "`docs/a**.md` exists", "within a name"),
    refused("core", "`docs/*.{md,txt}` exists", "`{` is no part of one"),
    refused("core", "`docs/[ab].md` exists", "not a file's name"),
    refused("core", "some file matches `docs/[ab]*.md`", "`[` is no part of one"),
    refused("core", "`../*.md` exists", "outside the workspace folder"),
    one("core", "`/tmp/*.md` exists", yes("glob", "", "/tmp/*.md")),
    refused("core", "`.ai/*.md` exists", "not in the workspace folder .ai/task"),
    refused("core", "`docs//*.md` exists", "not a plain path"),
    refused("core", "some file matches `$name*.md`", "`$` is no part of one"),
    refused("core", "docs/*.md exist"),
    refused("core", "docs/*.md are present"),
    refused("core", "any docs/*.md"),
    refused("core", "some files match docs/*.md"),
    refused("core", "a file matching docs/*.md exists"),
]


PAIRS: list[Any] = [
    # -- `every sql/*.up.sql has a sql/*.down.sql`: by the part the star matched ---------
    one("core", "every sql/*.up.sql has a sql/*.down.sql", yes("paired", "", PAIR)),
    one("core", "each `sql/*.up.sql` has its `sql/*.down.sql`", yes("paired", "", PAIR)),
    one("core", "every sql/*.up.sql has a matching sql/*.down.sql", yes("paired", "", PAIR)),
    one("core", "every sql/*.up.sql has sql/*.down.sql", yes("paired", "", PAIR)),
    one("core", "every `.ai/task/sql/*.up.sql` has a sql/*.down.sql", yes("paired", "", PAIR)),
    one(
        "core",
        "every src/*.py has a tests/test_*.py",
        yes("paired", "", "src/*.py tests/test_*.py"),
    ),
    one("core", "some sql/*.up.sql has no sql/*.down.sql", no("paired", "", PAIR)),
    one("core", "an `sql/*.up.sql` has no matching `sql/*.down.sql`", no("paired", "", PAIR)),
    one("core", "NOT every sql/*.up.sql has a sql/*.down.sql", no("paired", "", PAIR)),
    # Near misses: a glob of a pair has one star; "no A has a B" is another fact.
    refused("core", "every sql/*.up.sql has no sql/*.down.sql", "not a fact the core checks"),
    refused("core", "each sql/*.up.sql has no matching sql/*.down.sql", "some sql/*.up.sql has no"),
    refused("core", "every sql/001.up.sql has a sql/*.down.sql", "not a glob of a pair"),
    refused("core", "every sql/*.up.sql has a sql/001.down.sql", "one `*`"),
    refused("core", "every sql/*/*.up.sql has a sql/*/*.down.sql", "one `*`"),
    refused("core", "every `sql/**/*.up.sql` has a `sql/**/*.down.sql`", "no `?` or `**`"),
    refused("core", "every sql/*.up.sql has a sql/?.down.sql", "no `?` or `**`"),
    refused("core", "every sql/*.sql has a sql/*.sql", "its own pair"),
    refused("core", "every ../sql/*.up.sql has a sql/*.down.sql", "outside the workspace folder"),
    refused("core", "every `sql/*.{up,do}.sql` has a sql/*.down.sql", "`{` is no part of one"),
    refused("core", "every sql/*.up.sql has a down script"),
    refused("core", "all sql/*.up.sql have a sql/*.down.sql"),
    refused("core", "any sql/*.up.sql has no sql/*.down.sql"),
]


REPOSITORY_FILES: list[Any] = [
    # -- a file of the repository outside the workspace, named from its top with `/` -----
    one("core", "`/tests/test_feature.py` exists", yes("exists", "/tests/test_feature.py")),
    one("core", "/tests/test_feature.py exists", yes("exists", "/tests/test_feature.py")),
    one("core", "`/tests/test_feature.py` is missing", no("exists", "/tests/test_feature.py")),
    one("core", "there is no `/VERSION`", no("exists", "/VERSION")),
    one("core", "`/tests/test_*.py` exists", yes("glob", "", "/tests/test_*.py")),
    one("core", "no file matches `/tests/**/test_*.py`", no("glob", "", "/tests/**/test_*.py")),
    one("core", "some file matches /scripts/*.sh", yes("glob", "", "/scripts/*.sh")),
    one("core", "/src/app.py matches `def main`", yes("matches", "/src/app.py", "def main")),
    one("core", "`/Makefile` contains `test:`", yes("matches", "/Makefile", "test:")),
    one(
        "core",
        "every /sql/*.up.sql has a /sql/*.down.sql",
        yes("paired", "", "/sql/*.up.sql /sql/*.down.sql"),
    ),
    one(
        "core",
        '/CHANGELOG.md has text under "Unreleased"',
        yes("section_text", "/CHANGELOG.md", "Unreleased"),
    ),
    one("core", "/package.json has `version`", yes("field", "/package.json", "version")),
    one("core", "plan.md is newer than /src/app.py", yes("newer", "plan.md", "/src/app.py")),
    # A workspace at the repository's top names its files so too: the same file.
    one("core", "`/tests/test_a.py` exists", yes("exists", "tests/test_a.py"), workspace=""),
    # Near misses: out of the repository, into `.git`, into the workspace folder, a form
    # the reader does not take, and facts only of a workspace file.
    refused("core", "`/../tests/a.py` exists", "is not a path inside the repository"),
    refused("core", "`//tests/a.py` exists", "is not a path inside the repository"),
    refused("core", "`/tests/./a.py` exists", "is not a path inside the repository"),
    refused("core", "`/.git/config` exists", "in a .git folder"),
    refused("core", "`/.GIT/hooks/*` exists", "in a .git folder"),
    refused("core", "`/.ai/task/plan.md` exists", "without `/` (`plan.md`)"),
    refused("core", "`/.AI/Task/plan.md` exists", "in the workspace folder .ai/task/"),
    refused("core", "`/.ai/*/plan.md` exists", "in the workspace folder .ai/task/"),
    refused("core", "`/.ai/task` exists", "in the workspace folder .ai/task/"),
    refused("core", "`../../tests/a.py` exists", "name it from its top, `/tests/a.py`"),
    refused("core", "`../../../a.py` exists", "outside the workspace folder"),
    refused("core", "the repository's `tests/a.py` exists", "write ``/tests/a.py` exists`"),
    refused("core", "repository file tests/*.py exists", "write ``/tests/*.py` exists`"),
    refused("core", "the command `test` of /package.json passes", "run from a workspace file"),
    refused("core", "/docs/a.md is filled in", "no template"),
]


NEWER_SOME: list[Any] = [
    # -- ``some `G` is newer than F``: a name the glob matches modified after the file ----
    one(
        "core",
        "some `/tests/test_*.py` is newer than feature-list.json",
        yes("newer_some", "feature-list.json", "/tests/test_*.py"),
    ),
    one(
        "core",
        "a tests/test_*.py is newer than list.json",
        yes("newer_some", "list.json", "tests/test_*.py"),
    ),
    one(
        "core",
        "no `/tests/test_*.py` is newer than feature-list.json",
        no("newer_some", "feature-list.json", "/tests/test_*.py"),
    ),
    # Near misses: a glob alone, every, older, and a glob out of the workspace.
    refused(
        "core",
        "`/tests/test_*.py` is newer than list.json",
        "some `/tests/test_*.py` is newer than list.json",
    ),
    refused("core", "every tests/*.py is newer than list.json", "some `tests/*.py` is newer"),
    refused("core", "some tests/*.py is older than list.json", "some `tests/*.py` is newer"),
    refused("core", "some ../tests/*.py is newer than list.json", "outside the workspace"),
]


PHRASES = [
    *ALWAYS,
    *EXISTENCE,
    *EDITED,
    *PATTERNS,
    *SECTION_TEXT,
    *NEWER,
    *GLOBS,
    *PAIRS,
    *REPOSITORY_FILES,
    *NEWER_SOME,
]


@pytest.mark.parametrize(("words", "workspace", "text", "expected", "why"), PHRASES)
def test_phrase(
    words: str, workspace: str, text: str, expected: list[list[Lit]] | None, why: str
) -> None:
    assert_reads(words, workspace, text, expected, why)
