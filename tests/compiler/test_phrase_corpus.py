"""A corpus of Condition phrases, each with the one reading its author means, or refused.

Every form `docs/guide/reading-specs.md` documents is here, read with the core alone,
with the `spell_workflow` and `coding_session` vocabularies, and with a spec's own
Terms table; and beside each, near misses: a typo, a missing backtick, words in
another order, an extra word, a unit or a sign the reader does not know, a path
that leaves the workspace, parentheses that hold something else, a plural. Each
near miss is read as what its author would mean, or refused (`unknown`, which the
verifier reports); never as another fact. The expected readings were decided from
the documentation and from what an author writing the phrase means.

A reading is its alternatives (OR), each a list of literals (AND), each
`(probe, file, param, holds)`; the order of either does not matter. A refusal may
name a fragment of the reason the reader must give.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from codegen.model import Term
from codegen.read.conditions import parse_condition
from codegen.read.lexicon import Dialect, Lexicon
from spellbook.patterns import VOCABULARY
from tests.vocabularies import ATLASSIAN_URL as WRITTEN

# The vocabulary's pattern as a guard has it: marked as the vocabulary's, run with `re`.
ATLASSIAN_URL = VOCABULARY + WRITTEN

Lit = tuple[str, str, str, bool]

WORKSPACE = ".ai/task"
AC = "Acceptance Criteria"
PENDING = "features[status=pending]"
OTHER_PENDING = "features[status=pending][id!=$feature_id]"
GITHUB_ISSUE = r"github\.com/[\w.-]+/[\w.-]+/issues/\d+"

LEXICONS = {
    "core": Lexicon.of(Dialect("")),
    "spell": Lexicon.of(Dialect("spell_workflow")),
    "session": Lexicon.of(Dialect("coding_session")),
    # A spec's own Terms table, over the spell_workflow vocabulary.
    "terms": Lexicon.of(Dialect("spell_workflow")).with_terms(
        [
            Term("No review under way", "comments.md missing AND review-task.md missing"),
            Term("plan.md cites an issue", f"plan.md matches `{GITHUB_ISSUE}`"),
            Term("review done", "review-task-results.md exists"),
            Term("ready", "plan.md exists AND ≥1 AC in plan.md"),
            Term("blocked", "NOT ready"),
            Term("either draft", "a.md exists OR b.md exists"),
            Term("moon is full", "the moon is full"),
            Term("task.md exists", "other.md exists"),
            Term("retry allowed", "attempts < 3"),
            Term("has criteria", "Counts AC (finds some)"),
            Term("spin", "spin OR a.md exists"),
            Term(
                "Checks `.atlassian-refs` for processed URLs (finds new)",
                "Atlassian URLs not listed in `.atlassian-refs` found",
            ),
            Term(
                "Checks `.atlassian-refs` for processed URLs (all done)",
                "no Atlassian URLs not listed in `.atlassian-refs` found",
            ),
        ]
    ),
}


def yes(probe: str, file: str = "", param: str = "") -> Lit:
    return (probe, file, param, True)


def no(probe: str, file: str = "", param: str = "") -> Lit:
    return (probe, file, param, False)


# Test ids in ASCII that tell every character apart: `≥ 1` is not `>= 1`.
_NAMES = {
    "≥": "[ge]",
    "≤": "[le]",
    "⩾": "[geslant]",
    "\uff1c": "[fullwidth <]",
    "≠": "[ne]",
    "“": "[ldquo]",
    "”": "[rdquo]",
    "\u2019": "[rsquo]",
    "—": "[mdash]",
    "\u2013": "[ndash]",
}


def _id(words: str, text: str, workspace: str) -> str:
    shown = "".join(c if c.isascii() else _NAMES.get(c, f"[U+{ord(c):04X}]") for c in text)
    where = "" if workspace == WORKSPACE else f"@{workspace or 'root'}"
    return f"{words}{where}: {shown or '(empty)'}"


def read(
    words: str, text: str, *alternatives: list[Lit], workspace: str = WORKSPACE, **kw: Any
) -> Any:
    """`text` reads as these alternatives (none: it can never hold)."""
    expected = [list(a) for a in alternatives]
    return pytest.param(words, workspace, text, expected, "", id=_id(words, text, workspace), **kw)


def one(words: str, text: str, *literals: Lit, workspace: str = WORKSPACE) -> Any:
    """`text` reads as one alternative: these literals, all holding together."""
    return read(words, text, list(literals), workspace=workspace)


def refused(words: str, text: str, why: str = "", workspace: str = WORKSPACE) -> Any:
    """`text` is not read: it is reported, with `why` in the reason if given."""
    return pytest.param(words, workspace, text, None, why, id=_id(words, text, workspace))


ALWAYS: list[Any] = [
    # -- a cell with no condition: `-` (see test_conditions), and its other spellings --
    read("core", "\u2013", []),  # en dash
    read("core", "none", []),
    read("core", "(none)", []),
    read("core", "Always", []),
    # Near misses: not a way of saying "no condition".
    refused("core", "n/a"),
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
    one("core", "./context.md exists", yes("exists", "context.md")),
    one("core", "./.ai/task/context.md exists", yes("exists", "context.md")),
    one("core", "docs/notes.md exists", yes("exists", "docs/notes.md")),
    one("core", "context.md Exists", yes("exists", "context.md")),
    one("core", "CONTEXT.md exists", yes("exists", "CONTEXT.md")),  # names keep their case
    one("core", "context.md exists.", yes("exists", "context.md")),
    one("core", "`.atlassian-refs` exists", yes("exists", ".atlassian-refs")),
    one("core", "`.ai/task/.atlassian-refs` is missing", no("exists", ".atlassian-refs")),
    one("core", "`notes/` exists", yes("exists", "notes/")),  # a folder
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

CHECKLISTS: list[Any] = [
    # -- `F has [no] [unchecked] checklist items under "Section"` (quoted, or `the
    # Section section`) -------------------------------------------------------------
    one(
        "core",
        'plan.md has checklist items under "Open Questions"',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has checklist item under "Open Questions"',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has a checklist item under "Open Questions"',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        "plan.md has checklist items under `Open Questions`",
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        "plan.md has checklist items under “Open Questions”",
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        "plan.md has checklist items under the Open Questions section",
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has no checklist items under "Open Questions"',
        no("items", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has no checklist item under "Open Questions"',
        no("items", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has unchecked items under "Open Questions"',
        yes("unchecked", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has an unchecked item under "Open Questions"',
        yes("unchecked", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has unchecked checklist items under "Open Questions"',
        yes("unchecked", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has no unchecked checklist items under "Open Questions"',
        no("unchecked", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        "plan.md has no unchecked items under the Open Questions section",
        no("unchecked", "plan.md", "Open Questions"),
        yes("section", "plan.md", "Open Questions"),
    ),
    # The heading's words, as the author wrote the heading, or with spaces around.
    one(
        "core",
        'plan.md has checklist items under "## Open Questions"',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has checklist items under " Open Questions "',
        yes("items", "plan.md", "Open Questions"),
    ),
    one(
        "core",
        'plan.md has checklist items under "Risks; Issues"',
        yes("items", "plan.md", "Risks; Issues"),
    ),
    one(
        "core",
        "plan.md has unchecked items under the Risks and Issues section",
        yes("unchecked", "plan.md", "Risks and Issues"),
    ),
    one(
        "core",
        'plan.md has checklist items under "Open Questions" AND task.md exists',
        yes("items", "plan.md", "Open Questions"),
        yes("exists", "task.md"),
    ),
    # -- "no" of a section says the section is there (a missing file or section is
    # never "no unchecked items"); `F has no section S with ...` is the negation alone --
    one(
        "core",
        'plan.md has no unchecked items under "Pre-flight"',
        no("unchecked", "plan.md", "Pre-flight"),
        yes("section", "plan.md", "Pre-flight"),
    ),
    one(
        "core",
        'plan.md has no text under "Risks"',
        no("section_text", "plan.md", "Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has fewer than 2 checklist items under "Risks"',
        no("items_at_least", "plan.md", "2 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at most 1 unchecked items under "Risks"',
        no("unchecked_at_least", "plan.md", "2 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one("core", 'plan.md has a section "Risks"', yes("section", "plan.md", "Risks")),
    one("core", "plan.md has the section `Risks`", yes("section", "plan.md", "Risks")),
    one("core", 'plan.md has no section "Risks"', no("section", "plan.md", "Risks")),
    one(
        "core",
        'plan.md has no section "Risks" with unchecked items',
        no("unchecked", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has no section "Risks" with checklist items',
        no("items", "plan.md", "Risks"),
    ),
    one("core", 'plan.md has no section "Risks" with text', no("section_text", "plan.md", "Risks")),
    one(
        "core",
        'plan.md has no section "Risks" with at least 2 unchecked items',
        no("unchecked_at_least", "plan.md", "2 Risks"),
    ),
    one(
        "core",
        'NOT plan.md has unchecked items under "Risks"',
        no("unchecked", "plan.md", "Risks"),
    ),
    read(
        "core",
        'NOT plan.md has no unchecked items under "Risks"',
        [yes("unchecked", "plan.md", "Risks")],
        [no("section", "plan.md", "Risks")],
    ),
    one(
        "spell",
        "No unchecked AC in plan.md",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one(
        "spell",
        "plan.md has no acceptance criteria",
        no("items", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    refused("core", "plan.md has section Risks"),
    refused("core", 'plan.md has no section "Risks" with unchecked items under "Risks"'),
    refused("core", 'plan.md has checklist items under "#"', "the section has no name"),
    refused("core", 'plan.md has checklist items under ""'),
    refused("core", "plan.md has checklist items under Open Questions"),
    refused("core", "plan.md has checklist items under 'Open Questions'"),
    refused("core", 'plan.md has checklist items in "Open Questions"'),
    refused("core", 'plan.md has checklist items below "Open Questions"'),
    refused("core", 'plan.md has items under "Open Questions"'),
    refused("core", 'plan.md has checked items under "Open Questions"'),
    refused("core", 'plan.md has no unchecked items under "Open Questions" section'),
    refused("core", 'plan.md has checklist items under the "Open Questions" section'),
    refused("core", "plan.md has checklist items under the Open Questions"),
    refused("core", "plan.md has checklist items under the Open Questions heading"),
    refused("core", 'plan.md has 2 checklist items under "Open Questions"'),
    refused("core", 'plan.md has any checklist items under "Open Questions"'),
    refused("core", 'plan.md has some unchecked items under "Open Questions"'),
    refused("core", 'plan.md has all items checked under "Open Questions"'),
    refused("core", "plan.md has checklist items under the section"),
    refused("core", "plan.md has unchecked items under the Risks, Issues section"),
]

QUERIES: list[Any] = [
    # -- `F.json has `QUERY``, `F.json has no `QUERY``: keys joined by dots, filters
    # `[key=value]` / `[key!=value]`; and frontmatter, which only a procedure reads ----
    one("core", "tasks.json has `items`", yes("field", "tasks.json", "items")),
    one(
        "core",
        "tasks.json has `items[status=open]`",
        yes("field", "tasks.json", "items[status=open]"),
    ),
    one(
        "core",
        "tasks.json has no `items[status=open]`",
        no("field", "tasks.json", "items[status=open]"),
    ),
    one(
        "core",
        "tasks.json has `items[status=open][id!=$current]`",
        yes("field", "tasks.json", "items[status=open][id!=$current]"),
    ),
    one("core", "tasks.json has `a.b.c`", yes("field", "tasks.json", "a.b.c")),
    one("core", "tasks.json has `a-b.c_d`", yes("field", "tasks.json", "a-b.c_d")),
    one("core", 'tasks.json has "items"', yes("field", "tasks.json", "items")),
    one("core", "tasks.json has “items”", yes("field", "tasks.json", "items")),
    one(
        "core",
        "tasks.json has `items[status!=done]`",
        yes("field", "tasks.json", "items[status!=done]"),
    ),
    one(
        "core", "tasks.json has `items[done=true]`", yes("field", "tasks.json", "items[done=true]")
    ),
    one("core", "tasks.json has `items[count=0]`", yes("field", "tasks.json", "items[count=0]")),
    one("core", "`.ai/task/tasks.json` has `items`", yes("field", "tasks.json", "items")),
    one("spell", "Reads task.md frontmatter", yes("exists", "task.md")),
    # Not a query: another comparison, an index, quotes, spaces, a JSONPath.
    refused("core", "tasks.json has `items[status = open]`", "is not a query"),
    refused("core", "tasks.json has `items[status==open]`", "is not a query"),
    refused("core", 'tasks.json has `items[status="open"]`', "is not a query"),
    refused("core", "tasks.json has `items[status='open']`", "is not a query"),
    refused("core", "tasks.json has `items[status=open`", "is not a query"),
    refused("core", "tasks.json has `items(status=open)`", "is not a query"),
    refused("core", "tasks.json has `items.[status=open]`", "is not a query"),
    refused("core", "tasks.json has `$.items`", "is not a query"),
    refused("core", "tasks.json has `.items`", "is not a query"),
    refused("core", "tasks.json has `items.`", "is not a query"),
    refused("core", "tasks.json has `items[0]`", "is not a query"),
    refused("core", "tasks.json has `items[*]`", "is not a query"),
    refused("core", "tasks.json has `items[status>1]`", "is not a query"),
    refused("core", "tasks.json has `items[status<=1]`", "is not a query"),
    refused("core", "tasks.json has `items[a=b]c`", "is not a query"),
    refused("core", "tasks.json has `count > 0`", "is not a query"),
    # Not a JSON file: a query of one is not a search of text or frontmatter.
    refused("core", "notes.md has `items`", "not a JSON file"),
    refused("core", "tasks.yaml has `items`", "not a JSON file"),
    refused("core", "tasks.JSON has `items`", "not a JSON file"),
    refused("core", "task.md has `task_name`", "frontmatter has `task_name`"),
    refused("core", "../tasks.json has `items`", "outside the workspace folder"),
    # Other words.
    refused("core", "tasks.json has items"),
    refused("core", "tasks.json has a `items`"),
    refused("core", "tasks.json has the `items` key"),
    refused("core", "tasks.json has `items` set"),
    refused("core", "tasks.json doesn't have `items`"),
    refused("core", "tasks.json does not have `items`"),
    refused("core", "tasks.json has not `items`"),
    refused("core", "tasks.json lacks `items`"),
    refused("core", "tasks.json has `items`, `x`"),
    refused("core", "tasks.json has no `items` yet"),
    # A Markdown file's YAML frontmatter: said so, then a key (or a query) of it.
    one("core", "task.md frontmatter has `task_name`", yes("field", "task.md", "task_name")),
    one("core", "task.md's frontmatter has `task_name`", yes("field", "task.md", "task_name")),
    one("core", "task.md frontmatter has no `task_name`", no("field", "task.md", "task_name")),
    one(
        "core",
        "task.md frontmatter has `task_name` matching `[a-z]`",
        yes("value", "task.md", '["task_name", "~", "[a-z]"]'),
    ),
    one(
        "core",
        "task.md frontmatter has `priority` ≥ 2",
        yes("value", "task.md", '["priority", ">=", 2]'),
    ),
    refused("core", "tasks.json frontmatter has `items`", "a JSON file, which has no frontmatter"),
    refused("core", "task.md frontmatter has task_name"),
    refused("core", "task.md frontmatter has `task name`", "is not a query"),
    refused("spell", "Reads task.md front matter"),
]

COUNTERS: list[Any] = [
    # -- `COUNTER < N`, `COUNTER ≥ N` (or `>=`): a counter of the state file ---------
    one("core", "retries < 5", yes("below", "", "retries<5")),
    one("core", "retries<5", yes("below", "", "retries<5")),
    one("core", "retries ≥ 5", no("below", "", "retries<5")),
    one("core", "retries >= 5", no("below", "", "retries<5")),
    one("core", "retries>=5", no("below", "", "retries<5")),
    one("core", "retry_count < 2", yes("below", "", "retry_count<2")),
    one("core", "NOT retries < 5", no("below", "", "retries<5")),
    one("core", "retries < 05", yes("below", "", "retries<5")),  # the same limit
    one(
        "core",
        "attempts < 3 AND attempts ≥ 1",
        yes("below", "", "attempts<3"),
        no("below", "", "attempts<1"),
    ),
    one("core", "retry allowed (retries < 5)", yes("below", "", "retries<5")),
    one("core", "give up (attempts ≥ 3)", no("below", "", "attempts<3")),
    refused("core", "attempts ≥ 3 (give up)"),
    refused("core", "give up: attempts ≥ 3"),
    # Signs, words and units the core does not compare with.
    refused("core", "retries > 4"),
    refused("core", "retries <= 5"),
    refused("core", "retries ≤ 5"),
    refused("core", "retries = 5"),
    refused("core", "retries == 5"),
    refused("core", "retries != 5"),
    refused("core", "retries ≠ 5"),
    refused("core", "retries at least 5"),
    refused("core", "retries is at least 5"),
    refused("core", "retries is less than 5"),
    refused("core", "retries below 5"),
    refused("core", "fewer than 5 retries"),
    refused("core", "5 > retries"),
    refused("core", "retries =< 5"),
    refused("core", "retries => 5"),
    refused("core", "retries ⩾ 5"),
    refused("core", "retries \uff1c 5"),  # a fullwidth <
    refused("core", "retries < 5 times"),
    refused("core", "retries < 5 minutes"),
    refused("core", "retries < five"),
    refused("core", "retries < 2.5"),
    refused("core", "retries < -1"),
    refused("core", "retry-count < 5"),
    refused("core", "state.json retries < 5"),
    refused("core", "retries in state.json < 5"),
    refused("core", "state.retries < 5"),
    refused("core", "`retries` < 5"),
    refused("core", "`retries < 5`"),
    refused("core", "retries < 5 (retry)"),
    # What a step finds is not a counter of the state file.
    refused("core", "finds ≥ 1", "not a counter of the state file"),
    refused("core", "found < 1", "not a counter of the state file"),
    refused("core", "Finds >= 1", "not a counter of the state file"),
]

TIME: list[Any] = [
    # -- `in this state for more than N minutes`, `... for N minutes or less` -------
    one("core", "in this state for more than 15 minutes", yes("over_minutes", "", "15")),
    one("core", "in this state more than 15 minutes", yes("over_minutes", "", "15")),
    one("core", "in this state for more than 15 min", yes("over_minutes", "", "15")),
    one("core", "in this state for more than 1 minute", yes("over_minutes", "", "1")),
    one("core", "In this state for more than 15 minutes", yes("over_minutes", "", "15")),
    one("core", "in this state for more than 015 minutes", yes("over_minutes", "", "15")),
    one("core", "in this state for 15 minutes or less", no("over_minutes", "", "15")),
    one("core", "in this state for 15 min or less", no("over_minutes", "", "15")),
    one("core", "NOT in this state for more than 15 minutes", no("over_minutes", "", "15")),
    one("core", "stale (in this state for more than 15 minutes)", yes("over_minutes", "", "15")),
    one(
        "core",
        "in this state for more than 15 minutes, plan.md exists",
        yes("over_minutes", "", "15"),
        yes("exists", "plan.md"),
    ),
    refused("core", "in this state for more than 15 mins", "not a unit of time"),
    refused("core", "in this state for more than 15minutes"),
    # Hours, days and weeks are read in minutes (see DURATIONS).
    one("core", "in this state for more than 2 hours", yes("over_minutes", "", "120")),
    refused("core", "in this state for more than 30 seconds", "not seconds"),
    one("core", "in this state for more than 1 day", yes("over_minutes", "", "1440")),
    refused("core", "in this state for more than 15 m", "not a unit of time"),
    refused("core", "in this state for more than 15 minutess", "not a unit of time"),
    refused("core", "in this state for more than fifteen minutes", "not a whole number"),
    refused("core", "in this state for more than 0.5 minutes", "not a whole number"),
    refused("core", "in this state for over 15 minutes"),
    refused("core", "in this state for at least 15 minutes"),
    refused("core", "in this state for less than 15 minutes"),
    refused("core", "in this state for 15 minutes or more"),
    refused("core", "in this state for > 15 minutes"),
    refused("core", "in this state for more than 15 minutes ago"),
    refused("core", "in state for more than 15 minutes"),
    refused("core", "in the state for more than 15 minutes"),
    refused("core", "entered more than 15 minutes ago"),
]

COMMANDS: list[Any] = [
    # -- `the command `KEY` of F passes` / `fails`: the command under KEY in F.json ---
    one("core", "the command `lint` of checks.json passes", yes("passes", "checks.json", "lint")),
    one("core", "command `lint` of checks.json passes", yes("passes", "checks.json", "lint")),
    one("core", "the command `lint` in checks.json passes", yes("passes", "checks.json", "lint")),
    one("core", "the command `lint` of checks.json succeeds", yes("passes", "checks.json", "lint")),
    one("core", "the command `lint` of checks.json fails", no("passes", "checks.json", "lint")),
    one("core", 'the command "lint" of checks.json passes', yes("passes", "checks.json", "lint")),
    one("core", "the command `lint` of `checks.json` passes", yes("passes", "checks.json", "lint")),
    one(
        "core",
        "the command `test-cmd` of checks.json passes",
        yes("passes", "checks.json", "test-cmd"),
    ),
    one(
        "core", "NOT the command `lint` of checks.json passes", no("passes", "checks.json", "lint")
    ),
    read(
        "core",
        "the command `lint` of checks.json fails OR the command `build` of checks.json fails",
        [no("passes", "checks.json", "lint")],
        [no("passes", "checks.json", "build")],
    ),
    one(
        "core",
        "lint ok (the command `lint` of checks.json passes)",
        yes("passes", "checks.json", "lint"),
    ),
    refused("core", "the command `lint` of checks.json passes (yes)"),
    # The command itself, or a path, where the key that holds it belongs.
    refused("core", "the command `npm test` of checks.json passes", "is not a key"),
    refused("core", "the command `lint; rm -rf /` of checks.json passes", "is not a key"),
    refused("core", "the command `scripts.test` of package.json passes", "is not a key"),
    refused("core", "the command `test` of `Makefile` passes", "not a JSON file"),
    refused("core", "the command `lint` of notes.md passes", "not a JSON file"),
    refused("core", "the command `lint` of ../checks.json passes", "outside the workspace"),
    refused("core", "the command `lint` of checks.json doesn't pass"),
    refused("core", "the command `lint` of checks.json does not pass"),
    refused("core", "the command `lint` of checks.json passed"),
    refused("core", "the command `lint` of checks.json pass"),
    refused("core", "the commands `lint` of checks.json pass"),
    refused("core", "the command `lint` from checks.json passes"),
    refused("core", "the command lint of checks.json passes"),
    refused("core", "the `lint` command of checks.json passes"),
    refused("core", "the command `lint` passes"),
    refused("core", "the command `lint` of checks.json exits 0"),
    refused("core", "the command `` of checks.json passes"),
]

LOGIC: list[Any] = [
    # -- AND (or `;`, `,`) binds tighter than OR; NOT (capitals) negates a clause;
    # parentheses group ---------------------------------------------------------------
    one("core", "a.md exists AND b.md exists", yes("exists", "a.md"), yes("exists", "b.md")),
    one("core", "a.md exists, b.md exists", yes("exists", "a.md"), yes("exists", "b.md")),
    one("core", "a.md exists;b.md exists", yes("exists", "a.md"), yes("exists", "b.md")),
    one("core", "a.md exists ,b.md exists", yes("exists", "a.md"), yes("exists", "b.md")),
    read("core", "a.md exists OR b.md exists", [yes("exists", "a.md")], [yes("exists", "b.md")]),
    read("core", "a.md exists; OR b.md exists", [yes("exists", "a.md")], [yes("exists", "b.md")]),
    one("core", "NOT a.md exists", no("exists", "a.md")),
    one("core", "NOT  a.md exists", no("exists", "a.md")),
    one("core", "NOT NOT a.md exists", yes("exists", "a.md")),
    one("core", "NOT a.md missing", yes("exists", "a.md")),
    one("core", "NOT(a.md exists)", no("exists", "a.md")),
    one("core", "NOT(a.md exists OR b.md exists)", no("exists", "a.md"), no("exists", "b.md")),
    read(
        "core",
        "NOT (a.md exists AND b.md exists)",
        [no("exists", "a.md")],
        [no("exists", "b.md")],
    ),
    read(
        "core",
        "NOT a.md exists OR NOT b.md exists",
        [no("exists", "a.md")],
        [no("exists", "b.md")],
    ),
    one("core", "a.md exists AND NOT b.md exists", yes("exists", "a.md"), no("exists", "b.md")),
    read(
        "core",
        "a.md exists AND NOT b.md exists OR c.md exists",
        [yes("exists", "a.md"), no("exists", "b.md")],
        [yes("exists", "c.md")],
    ),
    read(
        "core",
        "a.md exists AND b.md exists AND c.md exists OR d.md exists",
        [yes("exists", "a.md"), yes("exists", "b.md"), yes("exists", "c.md")],
        [yes("exists", "d.md")],
    ),
    read(
        "core",
        "(a.md exists OR b.md exists) AND (c.md exists OR d.md exists)",
        [yes("exists", "a.md"), yes("exists", "c.md")],
        [yes("exists", "a.md"), yes("exists", "d.md")],
        [yes("exists", "b.md"), yes("exists", "c.md")],
        [yes("exists", "b.md"), yes("exists", "d.md")],
    ),
    one("core", "((a.md exists))", yes("exists", "a.md")),
    one("core", "NOT(a.md exists) AND b.md exists", no("exists", "a.md"), yes("exists", "b.md")),
    read(
        "core",
        "plan.md exists OR (task.md exists AND NOT (a.md exists OR b.md exists))",
        [yes("exists", "plan.md")],
        [yes("exists", "task.md"), no("exists", "a.md"), no("exists", "b.md")],
    ),
    one("core", "a.md exists AND (b.md exists)", yes("exists", "a.md"), yes("exists", "b.md")),
    one(
        "core",
        "a.md exists AND NOT (b.md exists OR c.md exists)",
        yes("exists", "a.md"),
        no("exists", "b.md"),
        no("exists", "c.md"),
    ),
    read("core", "a.md exists AND a.md missing"),  # never holds
    read("core", "a.md exists OR a.md missing", [yes("exists", "a.md")], [no("exists", "a.md")]),
    # Connectives in lower case or as symbols, dangling, doubled, glued.
    refused("core", "a.md exists and b.md exists"),
    refused("core", "a.md exists And b.md exists"),
    refused("core", "a.md exists & b.md exists"),
    refused("core", "a.md exists && b.md exists"),
    refused("core", "a.md exists or b.md exists"),
    refused("core", "a.md exists || b.md exists"),
    refused("core", "a.md exists / b.md exists"),
    refused("core", "a.md exists XOR b.md exists"),
    refused("core", "a.md exists but b.md missing"),
    refused("core", "a.md exists, and b.md exists"),
    refused("core", "not a.md exists"),
    refused("core", "Not a.md exists"),
    refused("core", "a.md exists AND"),
    refused("core", "AND a.md exists"),
    refused("core", "a.md exists OR"),
    refused("core", "OR a.md exists"),
    refused("core", "a.md exists AND AND b.md exists"),
    refused("core", "a.md exists OR OR b.md exists"),
    refused("core", "a.md exists AND OR b.md exists"),
    refused("core", "a.md exists ANDb.md exists"),
    refused("core", "(a.md exists"),
    refused("core", "a.md exists)"),
    refused("core", "(a.md exists))"),
    refused("core", "(a.md exists)(b.md exists)"),
    refused("core", "a.md exists AND ()", "the parentheses hold no condition"),
]

LABELS: list[Any] = [
    # -- `label (clause)` means its clause ------------------------------------------
    one(
        "core",
        "PR review underway (comments.md exists; review-task.md missing)",
        yes("exists", "comments.md"),
        no("exists", "review-task.md"),
    ),
    read(
        "core",
        "PR review underway (comments.md exists OR review-task.md exists)",
        [yes("exists", "comments.md")],
        [yes("exists", "review-task.md")],
    ),
    one("core", "Plan drafted: (plan.md exists)", yes("exists", "plan.md")),
    one("core", "task.md drafted (task.md exists)", yes("exists", "task.md")),
    one("core", "in progress (NOT comments.md exists)", no("exists", "comments.md")),
    one("core", "review NOT started (comments.md missing)", no("exists", "comments.md")),
    one("core", "NOT review started (comments.md exists)", no("exists", "comments.md")),
    one(
        "spell",
        "Checks whether a review is in progress (comments.md exists)",
        yes("exists", "comments.md"),
    ),
    # Words before the parentheses that are not a label: a connective, a negation, a
    # condition of their own. Reading only the parentheses would drop them.
    refused("core", "not (a.md exists)", "continues the condition"),
    refused("core", "no (a.md exists)", "continues the condition"),
    refused("core", "never (a.md exists)", "continues the condition"),
    refused("core", "unless (a.md exists)", "continues the condition"),
    refused("core", "except when (a.md exists)", "continues the condition"),
    refused("core", "if not (a.md exists)", "continues the condition"),
    refused("core", "neither (a.md exists OR b.md exists)", "continues the condition"),
    refused("core", "a.md exists and (b.md exists)", "continues the condition"),
    refused("core", "a.md exists or (b.md exists)", "continues the condition"),
    refused("core", "a.md exists XOR (b.md exists)", "continues the condition"),
    refused("core", "a.md exists && (b.md exists)", "continues the condition"),
    refused("core", "a.md exists (b.md exists)", "names a.md"),
    refused("core", "plan.md exists (NOT task.md exists)", "names plan.md"),
    # Parentheses that hold no clause.
    refused("core", "review started (comments.md exists) (review-task.md missing)"),
    refused("core", "review started (see notes)"),
    refused("core", "review started (1)"),
    refused("core", "review started (missing)"),
    refused("core", "review started (yes)"),
    refused("core", "review started ()"),
    refused("core", "a.md (exists)"),
    refused("core", "`a.md` (missing)"),
    refused("core", "plan.md exists (optional)"),
    refused("core", "plan.md exists (or task.md exists)"),
    refused("core", "in progress (finds ≥1)", "is the outcome of a procedure's step"),
    refused("core", "in progress (found ≥1)", "is the outcome of a procedure's step"),
]

SPELL_NOUNS: list[Any] = [
    # -- spell_workflow: acceptance criteria (a checklist of plan.md) -----------------
    one("spell", "≥ 1 AC in plan.md", yes("items", "plan.md", AC)),
    one("spell", ">=1 AC in plan.md", yes("items", "plan.md", AC)),
    one("spell", "≥1 ACs in plan.md", yes("items", "plan.md", AC)),
    one("spell", "≥1 acs in plan.md", yes("items", "plan.md", AC)),
    one("spell", "≥1 Acceptance Criteria in plan.md", yes("items", "plan.md", AC)),
    one("spell", "≥1 acceptance-criteria in plan.md", yes("items", "plan.md", AC)),
    one("spell", "≥1 AC in `.ai/task/plan.md`", yes("items", "plan.md", AC)),
    one("spell", "≥1 AC in brief.md", yes("items", "brief.md", AC)),
    # A file whose template has no such section never has it: refused, with its headings.
    refused("spell", "≥1 AC in task.md", "has no heading with"),
    refused("spell", "Reads context.md content; AC found", "has no heading with"),
    one("spell", "at least one AC in plan.md", yes("items", "plan.md", AC)),
    one("spell", "one or more AC in plan.md", yes("items", "plan.md", AC)),
    one("spell", "some AC in plan.md", yes("items", "plan.md", AC)),
    one("spell", "any AC in plan.md", yes("items", "plan.md", AC)),
    one("spell", "some ACs in plan.md", yes("items", "plan.md", AC)),
    one("spell", "no AC in plan.md", no("items", "plan.md", AC), yes("section", "plan.md", AC)),
    one("spell", "No ACs in plan.md", no("items", "plan.md", AC), yes("section", "plan.md", AC)),
    one("spell", "no AC in `plan.md`", no("items", "plan.md", AC), yes("section", "plan.md", AC)),
    one("spell", "≥1 unchecked acceptance criteria in plan.md", yes("unchecked", "plan.md", AC)),
    one(
        "spell",
        "no unchecked acceptance criteria in plan.md",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one("spell", "AC found", yes("items", "plan.md", AC)),
    one("spell", "AC found in plan.md", yes("items", "plan.md", AC)),
    one("spell", "ACs found", yes("items", "plan.md", AC)),
    one("spell", "no AC found", no("items", "plan.md", AC), yes("section", "plan.md", AC)),
    one(
        "spell", "No AC found in plan.md", no("items", "plan.md", AC), yes("section", "plan.md", AC)
    ),
    one("spell", "plan.md has AC", yes("items", "plan.md", AC)),
    one("spell", "plan.md has an AC", yes("items", "plan.md", AC)),
    one("spell", "plan.md has some AC", yes("items", "plan.md", AC)),
    one("spell", "plan.md contains AC", yes("items", "plan.md", AC)),
    one("spell", "plan.md contains an acceptance criterion", yes("items", "plan.md", AC)),
    one("spell", "plan.md has no AC", no("items", "plan.md", AC), yes("section", "plan.md", AC)),
    one("spell", "plan.md has unchecked AC", yes("unchecked", "plan.md", AC)),
    one(
        "spell",
        "plan.md has no unchecked AC",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    # A description that narrows the checklist to its unchecked items, as it says.
    one("spell", "≥1 AC (unchecked) in plan.md", yes("unchecked", "plan.md", AC)),
    one(
        "spell",
        "no AC (lines starting with `- [ ]`) in plan.md",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    refused("spell", "≥1 AC (checked) in plan.md", "checked items alone"),
    one(
        "spell",
        "no AC (unchecked) found",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one("spell", "AC (unchecked) found", yes("unchecked", "plan.md", AC)),
    one(
        "spell",
        "plan.md has no AC (unchecked)",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    refused("spell", "≥1 AC (in the Risks section) in plan.md", "the description"),
    # Counts the core cannot say, words it does not know.
    refused("spell", "≥2 AC in plan.md"),
    refused("spell", ">1 AC in plan.md"),
    refused("spell", "> 0 AC in plan.md"),
    refused("spell", "≥0 AC in plan.md"),
    refused("spell", "1 AC in plan.md"),
    refused("spell", "exactly one AC in plan.md"),
    refused("spell", "at least 1 AC in plan.md"),
    refused("spell", "at least two AC in plan.md"),
    refused("spell", "zero AC in plan.md"),
    refused("spell", "0 AC in plan.md"),
    refused("spell", "≥1 acceptance criterias in plan.md"),
    refused("spell", "≥1 acceptance critera in plan.md"),
    refused("spell", "≥1 AC in ../plan.md", "outside the workspace folder"),
    refused("spell", "≥1 AC"),
    refused("spell", "≥1 AC in the plan"),
    refused("spell", "≥1 AC in plan"),
    refused("spell", "≥1 AC on plan.md"),
    refused("spell", "no checked AC in plan.md"),
    refused("spell", "≥1 checked AC in plan.md"),
    refused("spell", "≥1 un-checked AC in plan.md"),
    refused("spell", "≥1 open AC in plan.md"),
    refused("spell", "all AC checked in plan.md"),
    refused("spell", "AC not found"),
    refused("spell", "AC were found"),
    refused("spell", "plan.md doesn't have AC"),
    refused("spell", "plan.md has AC items"),
    refused("spell", 'plan.md has acceptance criteria under "Risks"'),
    # -- spell_workflow: Atlassian URLs (a pattern; plan.md by default) ---------------
    one("spell", "Atlassian URL found", yes("matches", "plan.md", ATLASSIAN_URL)),
    one("spell", "atlassian links found", yes("matches", "plan.md", ATLASSIAN_URL)),
    one("spell", "Jira links found", yes("matches", "plan.md", ATLASSIAN_URL)),
    one("spell", "Jira or Confluence URLs found", yes("matches", "plan.md", ATLASSIAN_URL)),
    one("spell", "Atlassian URLS found in context.md", yes("matches", "context.md", ATLASSIAN_URL)),
    one("spell", "no Atlassian URLs in context.md", no("matches", "context.md", ATLASSIAN_URL)),
    one("spell", "≥1 Atlassian URL in context.md", yes("matches", "context.md", ATLASSIAN_URL)),
    one("spell", "context.md has Atlassian URLs", yes("matches", "context.md", ATLASSIAN_URL)),
    one("spell", "context.md has no Atlassian links", no("matches", "context.md", ATLASSIAN_URL)),
    refused("spell", "Confluence URLs found"),
    refused("spell", "Atlassian-URLs found"),
    refused("spell", "Atlasian URLs found"),
    refused("spell", "Atlassian URLs not found"),
    refused("spell", "Atlassian URLs found (context.md)"),
    refused("spell", "Atlassian URLs found in ../context.md", "outside the workspace folder"),
    refused("spell", "Atlassian URLs (lines starting with `- [ ]`) found", "the description"),
    # A file group names files for actions, not a fact.
    refused("spell", "review files found"),
    refused("spell", "review files exist"),
    # Without the vocabulary, its nouns are not the core's.
    refused("core", "no AC found"),
    refused("core", "Atlassian URLs found"),
    refused("session", "plan.md has AC"),
]

PROCEDURES: list[Any] = [
    # -- `Reads F content`: F exists; the steps after it are about F -----------------
    one("spell", "Reads plan.md content", yes("exists", "plan.md")),
    one("spell", "Read plan.md content", yes("exists", "plan.md")),
    one("spell", "Reads plan.md", yes("exists", "plan.md")),
    one("spell", "Reads `plan.md` contents", yes("exists", "plan.md")),
    one("spell", "Reads plan.md text", yes("exists", "plan.md")),
    refused("spell", "Reads the plan.md content"),
    refused("spell", "Reads plan.md content (exists)"),
    refused("spell", "Reading plan.md content"),
    refused("spell", "Reads ../plan.md content", "outside the workspace folder"),
    one("spell", "Reads `/tmp/plan.md` content", yes("exists", "/tmp/plan.md")),
    refused("spell", "Reads `/../plan.md` content", "not a path inside the repository"),
    # -- `Counts NOUN (finds ≥1)` / `(finds some)` / `(finds 0)` / `(finds none)` -----
    one(
        "spell",
        "Reads plan.md content; Counts AC (finds ≥1)",
        yes("exists", "plan.md"),
        yes("items", "plan.md", AC),
    ),
    *(
        one(
            "spell",
            f"Reads plan.md content; Counts AC ({outcome})",
            yes("exists", "plan.md"),
            yes("items", "plan.md", AC),
        )
        for outcome in (
            "finds some",
            "finds >= 1",
            "finds ≥ 1",
            "finds > 0",
            "finds at least one",
            "finds one or more",
            "found some",
            "finds any",
            "find ≥1",
        )
    ),
    *(
        one(
            "spell",
            f"Reads plan.md content; Counts AC ({outcome})",
            yes("exists", "plan.md"),
            no("items", "plan.md", AC),
            yes("section", "plan.md", AC),
        )
        for outcome in ("finds 0", "finds none", "finds nothing", "finds zero")
    ),
    one(
        "spell",
        "Reads plan.md content; Count AC (finds ≥1)",
        yes("exists", "plan.md"),
        yes("items", "plan.md", AC),
    ),
    one(
        "spell",
        "Reads brief.md content; Counts AC (finds ≥1)",
        yes("exists", "brief.md"),
        yes("items", "brief.md", AC),
    ),
    one(
        "spell",
        "Reads plan.md content; Counts AC in brief.md (finds ≥1)",
        yes("exists", "plan.md"),
        yes("items", "brief.md", AC),
    ),
    one("spell", "Counts AC (finds some)", yes("items", "plan.md", AC)),  # its usual file
    one(
        "spell",
        "Counts unchecked AC (finds none)",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one(
        "spell",
        "Counts acceptance criteria (unchecked) (finds ≥1)",
        yes("unchecked", "plan.md", AC),
    ),
    one(
        "spell",
        "Counts acceptance criteria (lines starting with `* [ ]`) (finds ≥1)",
        yes("unchecked", "plan.md", AC),
    ),
    one(
        "spell",
        "Counts acceptance criteria (lines starting with - [ ]) (finds ≥1)",
        yes("unchecked", "plan.md", AC),
    ),
    one(
        "spell",
        "Counts unchecked acceptance criteria (lines starting with `- [ ]`) (finds 0)",
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    refused("spell", "Reads plan.md content; Counts AC (finds 1)", "not one the core reads"),
    refused("spell", "Reads plan.md content; Counts AC (finds ≥2)", "not one the core reads"),
    refused("spell", "Reads plan.md content; Counts AC (finds ≥1 items)", "not one the core reads"),
    refused("spell", "Reads plan.md content; Counts AC (fnds ≥1)", "not one the core reads"),
    refused("spell", "Reads plan.md content; Counts AC"),
    refused("spell", "Reads plan.md content; Counts AC finds ≥1"),
    refused("spell", "Reads plan.md content; Counts AC, finds ≥1"),
    refused("spell", "Reads plan.md content; Counts AC: finds ≥1"),
    refused("spell", "Counting AC (finds ≥1)", "is the outcome of a procedure's step"),
    refused("spell", "Counts the AC (finds ≥1)", "is the outcome of a procedure's step"),
    refused("spell", "Counts AC items (finds ≥1)", "is the outcome of a procedure's step"),
    refused("spell", "Counts AC in ../task.md (finds ≥1)", "outside the workspace folder"),
    refused(
        "spell",
        "Counts acceptance criteria (lines starting with `- [x]`) (finds ≥1)",
        "checked items alone",
    ),
    refused(
        "spell",
        "Counts acceptance criteria (lines starting with `- [X]`) (finds 0)",
        "checked items alone",
    ),
    refused("spell", "Counts acceptance criteria (checklist lines) (finds ≥1)", "the description"),
    refused("spell", "Counts AC (not checked) (finds ≥1)", "the description"),
    refused(
        "spell", "Counts AC (lines starting with `- [ ]` or `- [x]`) (finds ≥1)", "checked items"
    ),
    one(
        "spell",
        "Counts AC (lines starting with `- [ ]`) in brief.md (finds ≥1)",
        yes("unchecked", "brief.md", AC),
    ),
    refused(
        "spell",
        "Counts Atlassian URLs (lines starting with `- [ ]`) (finds ≥1)",
        "the description",
    ),
    refused("spell", "Counts mitigation steps (finds none)"),
    refused("spell", "Counts mitigation steps (finds 0)"),
    refused("spell", "Counts mitigation steps (exists)"),
    refused("spell", "Counts mitigation steps (plan.md exists)", "is a procedure's step"),
    refused("spell", "Counts mitigation steps (attempts < 3)", "is a procedure's step"),
    refused("spell", "Counts AC (attempts < 3)", "not one the core reads"),
    refused("spell", "Counts steps (n ≥ 1)", "is a procedure's step"),
    refused("spell", "Counts steps (≥1)"),
    refused("core", "Counts AC (finds ≥1)"),
    # -- `Checks F exists (exists)` / `(missing)`, and `Checks F (missing)` ----------
    *(
        one("spell", f"Checks task.md exists ({outcome})", yes("exists", "task.md"))
        for outcome in ("exists", "present", "yes", "true", "found", "finds some", "finds ≥1")
    ),
    *(
        one("spell", f"Checks task.md exists ({outcome})", no("exists", "task.md"))
        for outcome in (
            "missing",
            "doesn't exist",
            "does not exist",
            "absent",
            "no",
            "false",
            "not found",
            "Missing",
            "MISSING",
            " missing ",
            "finds none",
            "finds 0",
        )
    ),
    one("spell", "Checks task.md exists(missing)", no("exists", "task.md")),
    one("spell", "Checks task.md is present (missing)", no("exists", "task.md")),
    one("spell", "Checks whether task.md exists (missing)", no("exists", "task.md")),
    one("spell", "Checks if task.md exists (exists)", yes("exists", "task.md")),
    one("spell", "Checks that task.md exists (exists)", yes("exists", "task.md")),
    one("spell", "Check task.md exists (exists)", yes("exists", "task.md")),
    one("spell", "Checks task.md (exists)", yes("exists", "task.md")),
    one("spell", "Checks task.md (yes)", yes("exists", "task.md")),
    one("spell", "Checks task.md (no)", no("exists", "task.md")),
    one("spell", "Checks task.md (found)", yes("exists", "task.md")),
    one(
        "spell",
        "Checks task.md exists (missing); Checks plan.md exists (exists)",
        no("exists", "task.md"),
        yes("exists", "plan.md"),
    ),
    read(
        "spell",
        "Checks task.md exists (missing) OR Checks plan.md exists (exists)",
        [no("exists", "task.md")],
        [yes("exists", "plan.md")],
    ),
    refused("spell", "Checks task.md exists (exist)", "not one the core reads"),
    refused("spell", "Checks task.md exists (missng)", "not one the core reads"),
    refused("spell", "Checks task.md exists (it does)", "not one the core reads"),
    refused("spell", "Checks task.md exists (task.md exists)", "not one the core reads"),
    refused("spell", "Checks task.md exists (plan.md exists)", "not one the core reads"),
    refused("spell", "Checks task.md exists (attempts < 3)", "not one the core reads"),
    refused("spell", "Checks task.md exists (fnds ≥1)", "not one the core reads"),
    refused("spell", "Checks task.md exists"),
    refused("spell", "Checks task.md missing (missing)"),
    refused("spell", "Checks task.md is missing (yes)"),
    refused("spell", "Checks task.md does not exist (true)"),
    refused("spell", "Checks `task.md exists (missing)"),
    refused("spell", "Checks task.md exist (missing)"),
    refused("spell", "Checks task.md (finds none)", "names nothing to search for"),
    refused("spell", "Checks ../task.md exists (missing)", "outside the workspace folder"),
    refused("spell", "Checks `responders[role=primary]` (missing)", "not a file's name"),
    refused("spell", "Checks `*.md` exists (missing)", "not a file's name"),
    # -- `Checks F for NOUN (finds some)` ----------------------------------------------
    one("spell", "Checks plan.md for AC (finds some)", yes("items", "plan.md", AC)),
    one(
        "spell",
        "Checks plan.md for AC (finds none)",
        no("items", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one(
        "spell",
        "Checks plan.md for AC (missing)",
        no("items", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one("spell", "Checks plan.md for unchecked AC (finds ≥1)", yes("unchecked", "plan.md", AC)),
    one(
        "spell",
        "Checks context.md for Atlassian URLs (finds some)",
        yes("matches", "context.md", ATLASSIAN_URL),
    ),
    one("spell", "Searches plan.md for AC (finds some)", yes("items", "plan.md", AC)),
    refused("spell", "Checks plan.md for mitigation steps (finds some)"),
    refused("spell", "Checks plan.md for AC"),
    refused("spell", "Checks for AC in plan.md (finds some)"),
    refused("spell", "Checks plan.md for AC (finds 2)", "not one the core reads"),
    refused("spell", "Checks ../plan.md for AC (finds some)", "outside the workspace folder"),
    refused(
        "spell", "Checks `.ai/task/.atlassian-refs` for processed URLs (all already processed)"
    ),
    # -- `Extracts NOUN from content (finds some)`: the file read, or the noun's own --
    *(
        one(
            "spell",
            f"Reads context.md content; {step} (finds some)",
            yes("exists", "context.md"),
            yes("matches", "context.md", ATLASSIAN_URL),
        )
        for step in (
            "Extracts Atlassian URLs from content",
            "Extract Atlassian URLs from content",
            "Extracts Atlassian URLs from contents",
            "Extracts Atlassian URLs from the content",
            "Extracts Atlassian URLs from text",
            "Finds Atlassian URLs in content",
        )
    ),
    one(
        "spell",
        "Reads context.md content; Extracts Atlassian URLs from content (finds none)",
        yes("exists", "context.md"),
        no("matches", "context.md", ATLASSIAN_URL),
    ),
    one(
        "spell",
        "Extracts Atlassian URLs from content (finds some)",
        yes("matches", "plan.md", ATLASSIAN_URL),
    ),
    one(
        "spell",
        "Extracts Atlassian URLs from context.md (finds some)",
        yes("matches", "context.md", ATLASSIAN_URL),
    ),
    one(
        "spell",
        "Extracts Atlassian URLs in context.md (finds some)",
        yes("matches", "context.md", ATLASSIAN_URL),
    ),
    one(
        "spell",
        "Extracts Atlassian URLs from `.ai/task/context.md` (finds none)",
        no("matches", "context.md", ATLASSIAN_URL),
    ),
    one(
        "spell",
        "Looks for Atlassian URLs in context.md (finds none)",
        no("matches", "context.md", ATLASSIAN_URL),
    ),
    one("spell", "Searches for AC in plan.md (finds some)", yes("items", "plan.md", AC)),
    refused("spell", "Reads context.md content; Extracts Atlassian URLs from it (finds some)"),
    refused(
        "spell", "Reads context.md content; Extracts all Atlassian URLs from content (finds some)"
    ),
    refused("spell", "Reads context.md content; Extracts Atlassian URLs (finds some)"),
    refused("spell", "Extracts Atlassian URLs from content"),
    refused("spell", "Extracts Confluence URLs from content (finds some)"),
    refused("spell", "Extracts Atlassian URLs from content (finds 3)", "not one the core reads"),
    refused(
        "spell",
        "Extracts Atlassian URLs from content (finds unprocessed URLs)",
        "not one the core reads",
    ),
    refused(
        "spell",
        "Extracts Atlassian URLs from ../context.md (finds none)",
        "outside the workspace folder",
    ),
    # -- which file a step after a `Reads` is about --------------------------------------
    one(
        "spell",
        "Reads context.md content; Reads plan.md content; "
        "Extracts Atlassian URLs from content (finds some)",
        yes("exists", "context.md"),
        yes("exists", "plan.md"),
        yes("matches", "plan.md", ATLASSIAN_URL),
    ),
    one(
        "spell",
        "Reads notes.md content; plan.md exists; Counts AC (finds some)",
        yes("exists", "notes.md"),
        yes("exists", "plan.md"),
        yes("items", "notes.md", AC),
    ),
    one(
        "spell",
        "Reads notes.md content; NOT Counts AC (finds some)",
        yes("exists", "notes.md"),
        no("items", "notes.md", AC),
    ),
    one(
        "spell",
        "Reads notes.md content; AC found",
        yes("exists", "notes.md"),
        yes("items", "notes.md", AC),
    ),
    one(
        "spell",
        "Reads notes.md content; no AC found",
        yes("exists", "notes.md"),
        no("items", "notes.md", AC),
        yes("section", "notes.md", AC),
    ),
    one(
        "spell",
        "Reads context.md content; ≥1 AC in plan.md",
        yes("exists", "context.md"),
        yes("items", "plan.md", AC),
    ),
    # A step that checks another file does not read it.
    one(
        "spell",
        "Reads plan.md content; Checks task.md (missing); Counts AC (finds some)",
        yes("exists", "plan.md"),
        no("exists", "task.md"),
        yes("items", "plan.md", AC),
    ),
    one(
        "spell",
        "Reads plan.md content; Checks brief.md for AC (finds some); Counts AC (finds 0)",
        yes("exists", "plan.md"),
        yes("items", "brief.md", AC),
        no("items", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one(
        "spell",
        "Reads notes.md content; (Counts AC (finds some))",
        yes("exists", "notes.md"),
        yes("items", "notes.md", AC),
    ),
    one(
        "spell",
        "(Reads notes.md content); Counts AC (finds some)",
        yes("exists", "notes.md"),
        yes("items", "notes.md", AC),
    ),
    one(
        "spell",
        "Reads notes.md content; criteria (AC found)",
        yes("exists", "notes.md"),
        yes("items", "notes.md", AC),
    ),
    read(
        "spell",
        "Reads context.md content OR Reads plan.md content; Counts AC (finds some)",
        [yes("exists", "context.md")],
        [yes("exists", "plan.md"), yes("items", "plan.md", AC)],
    ),
    refused(
        "spell",
        "(Reads context.md content OR Reads task.md content); Counts AC (finds some)",
        "read different files",
    ),
]

SESSION: list[Any] = [
    # -- coding_session: pending features (JSON queries of feature-list.json) --------
    one(
        "session",
        "feature-list.json has a pending feature",
        yes("field", "feature-list.json", PENDING),
    ),
    one(
        "session",
        "feature-list.json has pending features",
        yes("field", "feature-list.json", PENDING),
    ),
    one(
        "session",
        "feature-list.json has a pending features",
        yes("field", "feature-list.json", PENDING),
    ),
    one(
        "session",
        "feature-list.json has no pending features",
        no("field", "feature-list.json", PENDING),
    ),
    one(
        "session",
        "feature-list.json has an other pending feature",
        yes("field", "feature-list.json", OTHER_PENDING),
    ),
    one(
        "session",
        "feature-list.json has other pending features",
        yes("field", "feature-list.json", OTHER_PENDING),
    ),
    one(
        "session",
        "feature-list.json has no other pending features",
        no("field", "feature-list.json", OTHER_PENDING),
    ),
    one(
        "session",
        "≥1 pending feature in feature-list.json",
        yes("field", "feature-list.json", PENDING),
    ),
    one(
        "session",
        "no pending feature in feature-list.json",
        no("field", "feature-list.json", PENDING),
    ),
    one("session", "pending feature found", yes("field", "feature-list.json", PENDING)),
    one("session", "no pending feature found", no("field", "feature-list.json", PENDING)),
    one(
        "session",
        "another pending feature found",
        yes("field", "feature-list.json", OTHER_PENDING),
    ),
    one(
        "session",
        "no other pending feature found",
        no("field", "feature-list.json", OTHER_PENDING),
    ),
    one(
        "session",
        "pending features found in feature-list.json",
        yes("field", "feature-list.json", PENDING),
    ),
    one(
        "session",
        "Counts pending features (finds some)",
        yes("field", "feature-list.json", PENDING),
    ),
    one(
        "session",
        "Counts other pending features (finds 0)",
        no("field", "feature-list.json", OTHER_PENDING),
    ),
    one(
        "session",
        "Reads feature-list.json content; Counts pending features (finds ≥1)",
        yes("exists", "feature-list.json"),
        yes("field", "feature-list.json", PENDING),
    ),
    one(
        "session",
        "Checks feature-list.json for pending features (finds none)",
        no("field", "feature-list.json", PENDING),
    ),
    # The noun's query and the query written out are one fact.
    one(
        "session",
        "feature-list.json has `features[status=pending][id!=$feature_id]`",
        yes("field", "feature-list.json", OTHER_PENDING),
    ),
    # The noun about another JSON file is its query there.
    one("session", "features.json has a pending feature", yes("field", "features.json", PENDING)),
    refused("session", "feature-list.md has a pending feature", "not a JSON file"),
    refused(
        "session",
        "feature-list.json has another pending feature (other than the current one)",
        "the description",
    ),
    refused("session", "feature-list.json has a pending feture"),
    refused("session", "feature-list.json has a feature pending"),
    refused("session", "feature-list.json has an open feature"),
    refused("session", "feature-list.json has a tested feature"),
    refused("session", "feature-list.json has a blocked feature"),
    refused("session", "a pending feature in feature-list.json"),
    refused("session", "there is a pending feature"),
    refused("session", "there is no pending feature"),
    refused("session", "pending feature (feature-list.json)"),
    refused("core", "feature-list.json has a pending feature"),
    refused("spell", "Counts pending features (finds some)"),
    # -- coding_session: the terms `tests pass` / `tests fail` -------------------------
    one("session", "tests pass", yes("passes", "feature-list.json", "test_command")),
    one("session", "Tests pass", yes("passes", "feature-list.json", "test_command")),
    one("session", "tests pass.", yes("passes", "feature-list.json", "test_command")),
    one("session", "all tests pass", yes("passes", "feature-list.json", "test_command")),
    one("session", "Tests fail", no("passes", "feature-list.json", "test_command")),
    one("session", "NOT tests pass", no("passes", "feature-list.json", "test_command")),
    one("session", "green (tests pass)", yes("passes", "feature-list.json", "test_command")),
    one(
        "session",
        "the command `test_command` of feature-list.json passes",
        yes("passes", "feature-list.json", "test_command"),
    ),
    one(
        "session",
        "tests pass AND feature-list.json has a pending feature",
        yes("passes", "feature-list.json", "test_command"),
        yes("field", "feature-list.json", PENDING),
    ),
    read(
        "session",
        "feature-list.json has a pending feature OR tests fail",
        [yes("field", "feature-list.json", PENDING)],
        [no("passes", "feature-list.json", "test_command")],
    ),
    one(
        "session",
        "attempts < 3 AND tests fail",
        yes("below", "", "attempts<3"),
        no("passes", "feature-list.json", "test_command"),
    ),
    refused("session", "the tests pass"),
    refused("session", "tests passes"),
    refused("session", "test pass"),
    refused("session", "tests passed"),
    refused("session", "tests failed"),
    refused("session", "tests don't pass"),
    refused("session", "all tests fail"),
    refused("session", "tests are passing"),
    refused("session", "unit tests pass"),
    refused("session", "tests pass (feature-list.json)"),
    refused("spell", "tests pass"),
    refused("core", "tests fail"),
]

TERMS: list[Any] = [
    # -- the spec's own Terms table: a phrase read as its meaning ---------------------
    one(
        "terms",
        "No review under way",
        no("exists", "comments.md"),
        no("exists", "review-task.md"),
    ),
    one(
        "terms",
        "no review under way",
        no("exists", "comments.md"),
        no("exists", "review-task.md"),
    ),
    one(
        "terms",
        "No review under way.",
        no("exists", "comments.md"),
        no("exists", "review-task.md"),
    ),
    one(
        "terms",
        "No `review` under way",
        no("exists", "comments.md"),
        no("exists", "review-task.md"),
    ),
    read(
        "terms",
        "NOT No review under way",
        [yes("exists", "comments.md")],
        [yes("exists", "review-task.md")],
    ),
    read(
        "terms",
        "No review under way OR review done",
        [no("exists", "comments.md"), no("exists", "review-task.md")],
        [yes("exists", "review-task-results.md")],
    ),
    one(
        "terms",
        "No review under way AND plan.md exists",
        no("exists", "comments.md"),
        no("exists", "review-task.md"),
        yes("exists", "plan.md"),
    ),
    one("terms", "plan.md cites an issue", yes("matches", "plan.md", GITHUB_ISSUE)),
    one("terms", "plan.md cites an Issue", yes("matches", "plan.md", GITHUB_ISSUE)),
    one("terms", "ready", yes("exists", "plan.md"), yes("items", "plan.md", AC)),
    one("terms", "Ready", yes("exists", "plan.md"), yes("items", "plan.md", AC)),
    read("terms", "NOT ready", [no("exists", "plan.md")], [no("items", "plan.md", AC)]),
    read("terms", "blocked", [no("exists", "plan.md")], [no("items", "plan.md", AC)]),
    one("terms", "NOT blocked", yes("exists", "plan.md"), yes("items", "plan.md", AC)),
    read("terms", "either draft", [yes("exists", "a.md")], [yes("exists", "b.md")]),
    one("terms", "NOT either draft", no("exists", "a.md"), no("exists", "b.md")),
    read(
        "terms",
        "(ready OR review done) AND NOT either draft",
        [
            yes("exists", "plan.md"),
            yes("items", "plan.md", AC),
            no("exists", "a.md"),
            no("exists", "b.md"),
        ],
        [yes("exists", "review-task-results.md"), no("exists", "a.md"), no("exists", "b.md")],
    ),
    # The spec's term comes first, even over a phrase the core reads.
    one("terms", "task.md exists", yes("exists", "other.md")),
    one("terms", "retry allowed", yes("below", "", "attempts<3")),
    one("terms", "NOT retry allowed", no("below", "", "attempts<3")),
    one("terms", "has criteria", yes("items", "plan.md", AC)),
    # A label that is a term, with the term's own meaning in parentheses.
    one(
        "terms",
        "review done (review-task-results.md exists)",
        yes("exists", "review-task-results.md"),
    ),
    one("terms", "all good (ready)", yes("exists", "plan.md"), yes("items", "plan.md", AC)),
    one(
        "terms",
        "all good (ready; review done)",
        yes("exists", "plan.md"),
        yes("items", "plan.md", AC),
        yes("exists", "review-task-results.md"),
    ),
    refused("terms", "ready (plan.md exists)", "is itself a condition"),
    refused("terms", "No reviews under way"),
    refused("terms", "No review is under way"),
    refused("terms", "plan.md cites issues"),
    refused("terms", "task.md cites an issue"),
    refused("terms", "not ready"),
    refused("terms", "retry not allowed"),
    refused("terms", "moon is full"),
    refused("terms", "NOT moon is full"),
    refused("terms", "moon is full AND plan.md exists"),
    refused("terms", "spin", "defined by itself"),
    # Another spec's terms are not this one's.
    refused("spell", "No review under way"),
]

URL = r"https://\S+"
REFS = ".atlassian-refs"
TABLE = r"^- (\w+)$"


def under(ledger: str, pattern: str, section: str) -> str:
    """A ledger fact's parameter scoped to a section: a JSON list of the three."""
    return json.dumps([ledger, pattern, section])


LEDGERS: list[Any] = [
    # -- a ledger: matches of a file not yet listed in another (`unlisted`) ------------
    one(
        "core",
        "context.md has matches of `https://\\S+` not listed in `.refs`",
        yes("unlisted", "context.md", f".refs {URL}"),
    ),
    one(
        "core",
        "context.md has lines matching `https://\\S+` that are not yet recorded in seen.txt",
        yes("unlisted", "context.md", f"seen.txt {URL}"),
    ),
    one(
        "core",
        "context.md has no matches of `https://\\S+` not listed in `.refs`",
        no("unlisted", "context.md", f".refs {URL}"),
    ),
    one(
        "core",
        "every match of `https://\\S+` in context.md is listed in `.refs`",
        no("unlisted", "context.md", f".refs {URL}"),
    ),
    one(
        "spell",
        "Atlassian URLs not listed in `.ai/task/.atlassian-refs` found in context.md",
        yes("unlisted", "context.md", f"{REFS} {ATLASSIAN_URL}"),
    ),
    one(
        "spell",
        "Reads context.md content; Counts Atlassian URLs not yet listed in `.atlassian-refs` "
        "(finds ≥1)",
        yes("exists", "context.md"),
        yes("unlisted", "context.md", f"{REFS} {ATLASSIAN_URL}"),
    ),
    one(
        "spell",
        "plan.md has no Jira links not recorded in `.atlassian-refs`",
        no("unlisted", "plan.md", f"{REFS} {ATLASSIAN_URL}"),
    ),
    # A term about the file a procedure read: read where a row uses it, about that file.
    one(
        "terms",
        "Reads plan.md content; Checks `.atlassian-refs` for processed URLs (finds new)",
        yes("exists", "plan.md"),
        yes("unlisted", "plan.md", f"{REFS} {ATLASSIAN_URL}"),
    ),
    one(
        "terms",
        "Reads context.md content; Checks `.atlassian-refs` for processed URLs (all done)",
        yes("exists", "context.md"),
        no("unlisted", "context.md", f"{REFS} {ATLASSIAN_URL}"),
    ),
    # Near misses.
    refused("core", r"context.md has matches of `(a)\1` not listed in `.refs`", "linear time"),
    refused(
        "core",
        "context.md has matches of `https://\\S+` not listed in `../refs`",
        "outside the workspace",
    ),
    refused("core", "context.md has matches of `x` not listed in `*.txt`", "not a file's name"),
    refused("core", "context.md has matches of https://x not listed in `.refs`"),
    refused("core", "context.md has matches of `x` not listed in .refs"),  # no backticks
    refused("core", "context.md has `x` not listed in `.refs`"),
    refused(
        "spell",
        "acceptance criteria not listed in `.refs` found in plan.md",
        "not matches of a pattern",
    ),
    refused("spell", "Mitigations not listed in `.refs` found in plan.md"),
    # -- its counterpart: some match of a file already listed in a ledger (`listed`) ---
    one(
        "core",
        "some match of `https://\\S+` in context.md is listed in `.refs`",
        yes("listed", "context.md", f".refs {URL}"),
    ),
    one(
        "core",
        "a line of `https://\\S+` in context.md is already recorded in seen.txt",
        yes("listed", "context.md", f"seen.txt {URL}"),
    ),
    one(
        "core",
        "context.md has matches of `https://\\S+` that are already listed in `.refs`",
        yes("listed", "context.md", f".refs {URL}"),
    ),
    one(
        "core",
        "no match of `https://\\S+` in context.md is listed in `.refs`",
        no("listed", "context.md", f".refs {URL}"),
    ),
    one(
        "core",
        "context.md has no lines matching `https://\\S+` listed in seen.txt",
        no("listed", "context.md", f"seen.txt {URL}"),
    ),
    refused("core", "some item of context.md is listed in `.refs`", "a pattern says"),
    refused("core", "each entry in context.md is listed in seen.txt", "some match of `RE`"),
    refused("core", "some match of https://x in context.md is listed in `.refs`"),
    refused("core", "some match of `x` in context.md is listed in .refs"),  # no backticks
    refused("core", "some match of `x` in context.md is listed in `../refs`", "outside the"),
    refused("core", "some match of `x` in context.md is listed in `*.txt`", "not a file's name"),
    refused("core", r"some match of `(a)\1` in context.md is listed in `.refs`", "linear time"),
    refused("core", "some matches of `x` in context.md are listed in `.refs`"),
    refused("core", "Checks `.atlassian-refs` for processed URLs (finds unprocessed URLs)"),
    # Without a file read first, the noun's usual file (plan.md for Atlassian URLs).
    one(
        "terms",
        "Checks `.atlassian-refs` for processed URLs (finds new)",
        yes("unlisted", "plan.md", f"{REFS} {ATLASSIAN_URL}"),
    ),
    # -- a ledger scoped to a section: only the section's lines are searched -------------
    one(
        "core",
        'plan.md has matches of `^- (\\w+)$` under "Tables" not listed in `.applied`',
        yes("unlisted", "plan.md", under(".applied", TABLE, "Tables")),
    ),
    one(
        "core",
        "plan.md has lines matching `^- (\\w+)$` under the Tables section that are not yet "
        "recorded in applied.txt",
        yes("unlisted", "plan.md", under("applied.txt", TABLE, "Tables")),
    ),
    # Saying "no" of a section says it is there, as `items` does.
    one(
        "core",
        'plan.md has no matches of `^- (\\w+)$` under "## Tables" not listed in `.applied`',
        no("unlisted", "plan.md", under(".applied", TABLE, "Tables")),
        yes("section", "plan.md", "Tables"),
    ),
    one(
        "core",
        'every match of `^- (\\w+)$` under "Tables" in plan.md is listed in `.applied`',
        no("unlisted", "plan.md", under(".applied", TABLE, "Tables")),
        yes("section", "plan.md", "Tables"),
    ),
    one(
        "core",
        'plan.md has no section "Tables" with matches of `^- (\\w+)$` not listed in `.applied`',
        no("unlisted", "plan.md", under(".applied", TABLE, "Tables")),
    ),
    one(
        "core",
        'some match of `^- (\\w+)$` under "Tables" in plan.md is listed in `.applied`',
        yes("listed", "plan.md", under(".applied", TABLE, "Tables")),
    ),
    one(
        "core",
        'no match of `^- (\\w+)$` under "Tables" in plan.md is listed in `.applied`',
        no("listed", "plan.md", under(".applied", TABLE, "Tables")),
        yes("section", "plan.md", "Tables"),
    ),
    one(
        "core",
        'plan.md has no section "Tables" with matches of `^- (\\w+)$` listed in `.applied`',
        no("listed", "plan.md", under(".applied", TABLE, "Tables")),
    ),
    # A name that would start the scoped form's list is no file's name.
    refused("core", 'plan.md has matches of `x` not listed in `["a",`', "not a file's name"),
    # Near misses.
    refused("core", 'plan.md has matches of `x` under "" not listed in `.applied`'),
    refused("core", "plan.md has matches of `x` under Tables not listed in `.applied`"),
    refused("core", 'plan.md has matches of `x` not listed in `.applied` under "Tables"'),
    refused("core", 'some match of `x` in plan.md under "Tables" is listed in `.applied`'),
    refused(
        "core", 'plan.md has matches of `x` under "Tables" not listed in `../applied`', "outside"
    ),
    refused(
        "core",
        r'plan.md has matches of `(a)\1` under "Tables" not listed in `.applied`',
        "linear time",
    ),
]


DURATIONS: list[Any] = [
    # -- `in this state for more than N hours / days / weeks`: read in minutes -----------
    one("core", "in this state for more than 2 days", yes("over_minutes", "", "2880")),
    one("core", "in this state for more than 3 hours", yes("over_minutes", "", "180")),
    one("core", "in this state for more than 90 minutes", yes("over_minutes", "", "90")),
    one("core", "in this state for more than 1 week", yes("over_minutes", "", "10080")),
    one("core", "in this state for more than 2 weeks", yes("over_minutes", "", "20160")),
    one("core", "in this state for more than 1 hour", yes("over_minutes", "", "60")),
    one("core", "in this state more than 2 days", yes("over_minutes", "", "2880")),
    one("core", "In this state for more than 2 Days", yes("over_minutes", "", "2880")),
    one("core", "in this state for 2 days or less", no("over_minutes", "", "2880")),
    one("core", "in this state for 3 hours or less", no("over_minutes", "", "180")),
    one("core", "in this state for 1 week or less", no("over_minutes", "", "10080")),
    one("core", "NOT in this state for more than 2 days", no("over_minutes", "", "2880")),
    # The same time in other units is the same fact.
    one("core", "in this state for more than 48 hours", yes("over_minutes", "", "2880")),
    one(
        "core",
        "in this state for more than 2 days AND in this state for 1 week or less",
        yes("over_minutes", "", "2880"),
        no("over_minutes", "", "10080"),
    ),
    refused("core", "in this state for more than 2 dayz", "`dayz` is not a unit of time"),
    refused("core", "in this state for more than 2 hrs", "`hrs` is not a unit of time"),
    refused("core", "in this state for more than 2 h", "`h` is not a unit of time"),
    refused("core", "in this state for more than 2 d", "not a unit of time"),
    refused("core", "in this state for more than 1.5 days", "(36 hours)"),
    refused("core", "in this state for more than 0.5 hours", "(30 minutes)"),
    refused("core", "in this state for more than 1.3 minutes", "not a whole number"),
    refused("core", "in this state for more than 2 months", "no fixed length"),
    refused("core", "in this state for more than 1 year", "no fixed length"),
    refused("core", "in this state for more than 1 month", "no fixed length"),
    refused("core", "in this state for more than 45 seconds", "not seconds"),
    refused("core", "in this state for more than two days", "not a whole number"),
    refused("core", "in this state for more than -2 days", "not a whole number"),
    refused("core", "in this state for more than 2 days ago"),
    refused("core", "in this state for more than 2days"),
    refused("core", "in this state for over 2 days"),
    refused("core", "in this state for at least 2 days"),
    refused("core", "in this state for less than 2 days"),
    refused("core", "in this state for 2 days or more"),
    refused("core", "in this state for 2 dayz or less", "`dayz` is not a unit of time"),
    refused("core", "in this state for 2 months or less", "no fixed length"),
]

COMPARISONS: list[Any] = [
    # -- ``F.json has `QUERY` OP VALUE``, ``... matching `RE` ``: a value the query selects
    one(
        "core",
        "review.json has `approved` = true",
        yes("value", "review.json", '["approved", "=", true]'),
    ),
    one("core", "tasks.json has `count` ≥ 2", yes("value", "tasks.json", '["count", ">=", 2]')),
    one("core", "tasks.json has `count` >= 2", yes("value", "tasks.json", '["count", ">=", 2]')),
    one("core", "tasks.json has `count`>=2", yes("value", "tasks.json", '["count", ">=", 2]')),
    one("core", "tasks.json has `count` > 2", yes("value", "tasks.json", '["count", ">", 2]')),
    one("core", "tasks.json has `count` < 2", yes("value", "tasks.json", '["count", "<", 2]')),
    one("core", "tasks.json has `count` ≤ 2", yes("value", "tasks.json", '["count", "<=", 2]')),
    one("core", "tasks.json has `count` <= 2", yes("value", "tasks.json", '["count", "<=", 2]')),
    one("core", "tasks.json has `count` ≠ 2", yes("value", "tasks.json", '["count", "!=", 2]')),
    one("core", "tasks.json has `count` != 2", yes("value", "tasks.json", '["count", "!=", 2]')),
    one(
        "core",
        "tasks.json has `score` > -1.5",
        yes("value", "tasks.json", '["score", ">", -1.5]'),
    ),
    one(
        "core",
        'tasks.json has `status` = "done"',
        yes("value", "tasks.json", '["status", "=", "done"]'),
    ),
    one(
        "core",
        "tasks.json has `status` = “done”",
        yes("value", "tasks.json", '["status", "=", "done"]'),
    ),
    one(
        "core",
        'tasks.json has `status` = `"done"`',
        yes("value", "tasks.json", '["status", "=", "done"]'),
    ),
    one(
        "core", "tasks.json has `owner` = null", yes("value", "tasks.json", '["owner", "=", null]')
    ),
    one(
        "core",
        "tasks.json has `done` = `false`",
        yes("value", "tasks.json", '["done", "=", false]'),
    ),
    one(
        "core",
        "tasks.json has no `count` ≥ 2",
        no("value", "tasks.json", '["count", ">=", 2]'),
    ),
    one(
        "core",
        "tasks.json has `items[status=open].points` > 3",
        yes("value", "tasks.json", '["items[status=open].points", ">", 3]'),
    ),
    one(
        "core",
        "tasks.json has `version` matching `^1\\.`",
        yes("value", "tasks.json", '["version", "~", "^1\\\\."]'),
    ),
    one(
        "core",
        "tasks.json has `version` that matches `^1\\.`",
        yes("value", "tasks.json", '["version", "~", "^1\\\\."]'),
    ),
    one(
        "core",
        "tasks.json has no `version` matching `^1\\.`",
        no("value", "tasks.json", '["version", "~", "^1\\\\."]'),
    ),
    one(
        "core",
        "`.ai/task/tasks.json` has `count` ≥ 2 AND tasks.json has `count` < 5",
        yes("value", "tasks.json", '["count", ">=", 2]'),
        yes("value", "tasks.json", '["count", "<", 5]'),
    ),
    # Text has no order, JSON has no True, and a value is JSON.
    refused("core", 'tasks.json has `name` > "abc"', "only numbers have an order"),
    refused("core", "tasks.json has `done` < true", "only numbers have an order"),
    refused("core", "tasks.json has `owner` >= null", "only numbers have an order"),
    refused("core", "tasks.json has `approved` = True", "lower case"),
    refused("core", "tasks.json has `approved` = yes", "not a JSON value"),
    refused("core", "tasks.json has `status` = done", "double quotes"),
    refused("core", "tasks.json has `status` = 'done'", "not a JSON value"),
    refused("core", "tasks.json has `count` = NaN", "not a JSON value"),
    refused("core", "tasks.json has `count` > Infinity", "not a JSON value"),
    refused("core", "tasks.json has `count` > 1e999", "not a JSON value"),
    refused("core", "tasks.json has `count` = 2 points", "not a JSON value"),
    refused("core", "tasks.json has `count` = $limit", "not a JSON value"),
    refused("core", "tasks.json has `tags` = [1]", "a JSON list"),
    refused("core", 'tasks.json has `meta` = {"a": 1}', "a JSON object"),
    refused("core", "tasks.json has `count` == 2", "`==` is not a comparison"),
    refused("core", "tasks.json has `count` =< 2", "`=<` is not a comparison"),
    refused("core", "tasks.json has `count` => 2", "`=>` is not a comparison"),
    refused("core", "tasks.json has `count` <> 2", "`<>` is not a comparison"),
    refused("core", "tasks.json has `count` ⩾ 2", "is not a comparison"),
    refused("core", "notes.md has `count` ≥ 2", "not a JSON file"),
    refused("core", "tasks.json has `items[status==open]` ≥ 2", "is not a query"),
    refused("core", "tasks.json has `$.count` ≥ 2", "is not a query"),
    refused("core", "tasks.json has `version` matching `(?<=v)1`", "cannot run in linear time"),
    refused("core", "tasks.json has `version` matching `[`", "not a regular expression"),
    refused("core", "../tasks.json has `count` ≥ 2", "outside the workspace folder"),
    refused("core", "tasks.json has `count` ≥"),
    refused("core", "tasks.json has count ≥ 2"),
    refused("core", "tasks.json has `count` is 2"),
    refused("core", "tasks.json has `count` equal to 2"),
    refused("core", "tasks.json has `version` matches `^1`"),
    refused("core", "tasks.json has `version` matching ^1"),
]

COUNTS: list[Any] = [
    # -- `F has at least N checklist items under "S"`, more than, fewer than, at most ---
    one(
        "core",
        'plan.md has at least 2 checklist items under "Risks"',
        yes("items_at_least", "plan.md", "2 Risks"),
    ),
    one(
        "core",
        'plan.md has more than 2 checklist items under "Risks"',
        yes("items_at_least", "plan.md", "3 Risks"),
    ),
    one(
        "core",
        'plan.md has fewer than 3 checklist items under "Risks"',
        no("items_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has less than 3 checklist items under "Risks"',
        no("items_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at most 2 checklist items under "Risks"',
        no("items_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has no more than 2 checklist items under "Risks"',
        no("items_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at least 2 unchecked items under "Risks"',
        yes("unchecked_at_least", "plan.md", "2 Risks"),
    ),
    one(
        "core",
        "plan.md has more than 2 unchecked checklist items under the Open Questions section",
        yes("unchecked_at_least", "plan.md", "3 Open Questions"),
    ),
    one(
        "core",
        'plan.md has fewer than 3 unchecked items under "## Risks"',
        no("unchecked_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    # One item is the fact `items` itself; none, its negation.
    one(
        "core",
        'plan.md has at least 1 checklist item under "Risks"',
        yes("items", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has more than 0 unchecked items under "Risks"',
        yes("unchecked", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has fewer than 1 unchecked item under "Risks"',
        no("unchecked", "plan.md", "Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at most 0 checklist items under "Risks"',
        no("items", "plan.md", "Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at least one checklist item under "Risks"',
        yes("items", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has more than one unchecked item under "Risks"',
        yes("unchecked_at_least", "plan.md", "2 Risks"),
    ),
    refused("core", 'plan.md has at least 0 checklist items under "Risks"', "always holds"),
    refused("core", 'plan.md has fewer than 0 checklist items under "Risks"', "never holds"),
    refused("core", 'plan.md has 2 checklist items under "Risks"', "an exact count"),
    refused("core", 'plan.md has exactly 2 unchecked items under "Risks"', "an exact count"),
    # Checked items are counted too: at least N of the section's items are ticked.
    one(
        "core",
        'plan.md has at least 2 checked items under "Risks"',
        yes("checked_at_least", "plan.md", "2 Risks"),
    ),
    one(
        "core",
        'plan.md has at least one checked checklist item under "Risks"',
        yes("checked_at_least", "plan.md", "1 Risks"),
    ),
    one(
        "core",
        'plan.md has fewer than 2 ticked items under "Risks"',
        no("checked_at_least", "plan.md", "2 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    one(
        "core",
        'plan.md has at most 2 checked items under "Risks"',
        no("checked_at_least", "plan.md", "3 Risks"),
        yes("section", "plan.md", "Risks"),
    ),
    refused("core", 'plan.md has at least 2 done items under "Risks"', "'done' items are not"),
    refused("core", 'plan.md has exactly 2 checked items under "Risks"'),
    refused("core", 'plan.md has at least two checklist items under "Risks"', "in digits"),
    refused("core", 'plan.md has at least 2.5 checklist items under "Risks"', "in digits"),
    refused("core", 'plan.md has at least 2 open items under "Risks"', "'open' items are not"),
    refused("core", 'plan.md has at least 2 checklist items under "#"', "the section has no name"),
    refused("core", "plan.md has at least 2 checklist items under Risks"),
    refused("core", 'plan.md has at least 2 checklist items in "Risks"'),
    refused("core", 'plan.md has 2 or more checklist items under "Risks"'),
    refused("core", 'plan.md has over 2 checklist items under "Risks"'),
    refused("core", 'plan.md has at least 2 items under "Risks"', "write checklist items"),
]

FEATURES = "feature-list.json"

TYPED_QUERIES: list[Any] = [
    # -- what a query selects, from its syntax: a filter selects objects, a key a value;
    # objects compared with a value never match, and counting is its own phrase ---------
    one(
        "core",
        "count of features[status=pending] in feature-list.json ≥ 2",
        yes("count_at_least", FEATURES, f"2 {PENDING}"),
    ),
    one(
        "core",
        "the number of `features[status=pending]` in feature-list.json > 2",
        yes("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "count of features[status=pending] in feature-list.json < 2",
        no("count_at_least", FEATURES, f"2 {PENDING}"),
    ),
    one(
        "core",
        "count of features[status=pending] in feature-list.json <= 2",
        no("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "count of features[status=pending] in feature-list.json = 2",
        yes("count_at_least", FEATURES, f"2 {PENDING}"),
        no("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "count of features[status=pending] in feature-list.json = 0",
        no("count_at_least", FEATURES, f"1 {PENDING}"),
    ),
    read(
        "core",
        "count of features[status=pending] in feature-list.json ≠ 1",
        [no("count_at_least", FEATURES, f"1 {PENDING}")],
        [yes("count_at_least", FEATURES, f"2 {PENDING}")],
    ),
    one(
        "core",
        "feature-list.json has at least 2 `features[status=pending]`",
        yes("count_at_least", FEATURES, f"2 {PENDING}"),
    ),
    one(
        "core",
        "feature-list.json has more than one `features`",
        yes("count_at_least", FEATURES, "2 features"),
    ),
    one(
        "core",
        "feature-list.json has fewer than 3 `features[status=pending]`",
        no("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "feature-list.json has at most 2 `features[status=pending]`",
        no("count_at_least", FEATURES, f"3 {PENDING}"),
    ),
    one(
        "core",
        "task.md frontmatter has at least 2 `tags`",
        yes("count_at_least", "task.md", "2 tags"),
    ),
    refused("core", "count of features[status=pending] in feature-list.json ≥ 0", "always"),
    refused("core", "feature-list.json has fewer than 0 `features`", "never holds"),
    refused("core", "count of features in feature-list.json ≥ two", "in digits"),
    refused("core", "count of features in feature-list.json ≥ 1.5", "whole number"),
    refused("core", "count of features in feature-list.json == 2", "`==` is not a comparison"),
    refused("core", "count of features in notes.md ≥ 2", "not a JSON file"),
    refused("core", "count of features[status==open] in feature-list.json ≥ 2", "not a query"),
    refused("core", "task.md has at least 2 `tags`", "frontmatter has `tags`"),
    refused("core", "count features in feature-list.json ≥ 2"),
    # Objects (what a filter keeps) compared with a value: never true, so never read.
    refused(
        "core",
        "feature-list.json has `features[status=pending]` = true",
        "selects objects",
    ),
    refused(
        "core",
        "feature-list.json has `features[status=pending]` != true",
        "count of `features[status=pending]` in feature-list.json",
    ),
    refused("core", "feature-list.json has `features[status=pending]` ≥ 2", "selects objects"),
    refused(
        "core",
        "feature-list.json has `features[status=pending]` matching `^x`",
        "selects objects",
    ),
    refused("core", "task.md frontmatter has `links[kind=jira]` = null", "selects objects"),
    # A key of the objects is a value: it compares.
    one(
        "core",
        'feature-list.json has `features[status=pending].id` = "PT-1"',
        yes("value", FEATURES, '["features[status=pending].id", "=", "PT-1"]'),
    ),
    one(
        "core",
        "feature-list.json has `features[status=pending].points` ≥ 2",
        yes("value", FEATURES, '["features[status=pending].points", ">=", 2]'),
    ),
    # A key alone may be a number: read, unless the vocabulary filters it (objects).
    one(
        "core",
        "feature-list.json has `features` ≥ 2",
        yes("value", FEATURES, '["features", ">=", 2]'),
    ),
    refused("session", "feature-list.json has `features` ≥ 2", "count of `features`"),
    refused("session", "feature-list.json has `features` = true", "selects objects"),
    one(
        "session",
        'feature-list.json has `features.id` = "PT-1"',
        yes("value", FEATURES, '["features.id", "=", "PT-1"]'),
    ),
    # `.length`, `.size`: a list's length in other languages, a key in JSON; `.count`
    # where a list or objects are before it. Each points at the count.
    refused("core", "feature-list.json has `features.length` ≥ 2", "count of `features`"),
    refused("core", "feature-list.json has `features.size` > 0", "count of `features`"),
    refused("core", "feature-list.json has `features[status=pending].count` ≥ 2", "to count"),
    refused("session", "feature-list.json has `features.count` ≥ 2", "count of `features`"),
    refused("core", "task.md frontmatter has `tags.length` ≥ 2", "task.md frontmatter"),
    refused("core", "feature-list.json has `features.length`", "to count what `features`"),
    one(
        "core",
        "stats.json has `stats.count` ≥ 2",
        yes("value", "stats.json", '["stats.count", ">=", 2]'),
    ),
    one("core", "stats.json has `count` ≥ 2", yes("value", "stats.json", '["count", ">=", 2]')),
    # A section the file's template (here the vocabulary's plan.md) has no heading for.
    one(
        "spell",
        'plan.md has no unchecked items under "Acceptance Criteria"',
        no("unchecked", "plan.md", AC),
        yes("section", "plan.md", AC),
    ),
    one("spell", 'plan.md has text under "goal"', yes("section_text", "plan.md", "goal")),
    refused(
        "spell",
        'plan.md has no unchecked items under "Acceptance Critera"',
        'did you mean "Acceptance Criteria"?',
    ),
    refused(
        "spell",
        'plan.md has at least 2 checked items under "Pre-flight"',
        '"Plan", "Goal", "Context", "Acceptance Criteria", "Notes"',
    ),
    refused("spell", 'plan.md has text under "Risks"', 'has no heading with "Risks"'),
    # A file with no template is not checked.
    one("spell", 'notes.md has text under "Risks"', yes("section_text", "notes.md", "Risks")),
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

UP, DOWN = "sql/*.up.sql", "sql/*.down.sql"
PAIR = f"{UP} {DOWN}"

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

LAST_RUN: list[Any] = [
    # -- the last recorded run of a command, read without running it ----------------
    one("core", "the last run of `test_command` passed", yes("last_passed", "", "test_command")),
    one("core", "last recorded run of `lint` succeeded", yes("last_passed", "", "lint")),
    one("core", "the last run of `lint` did not pass", no("last_passed", "", "lint")),
    one("core", "the last recorded run of `lint` didn't succeed", no("last_passed", "", "lint")),
    refused("core", "the last run of `npm test` passed", "not a key"),
    refused("core", "the last run of test passed"),
    refused("core", "the last run of `lint` failed"),
    refused("core", "the first run of `lint` passed"),
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


CORPUS = [
    *ALWAYS,
    *EXISTENCE,
    *EDITED,
    *PATTERNS,
    *CHECKLISTS,
    *QUERIES,
    *COUNTERS,
    *TIME,
    *COMMANDS,
    *LOGIC,
    *LABELS,
    *SPELL_NOUNS,
    *PROCEDURES,
    *SESSION,
    *TERMS,
    *LEDGERS,
    *LAST_RUN,
    *DURATIONS,
    *COMPARISONS,
    *COUNTS,
    *TYPED_QUERIES,
    *SECTION_TEXT,
    *NEWER,
    *GLOBS,
    *PAIRS,
    *REPOSITORY_FILES,
    *NEWER_SOME,
]


def _reading(text: str, words: str, workspace: str) -> tuple[list[list[Lit]] | None, str]:
    cond = parse_condition(text, LEXICONS[words], workspace)
    if cond.unknown:
        return None, " | ".join(why for _, why in cond.why)
    found = [
        sorted((lit.atom.probe, lit.atom.file, lit.atom.param, lit.positive) for lit in clause)
        for clause in cond.clauses
    ]
    return sorted(found), ""


@pytest.mark.parametrize(("words", "workspace", "text", "expected", "why"), CORPUS)
def test_phrase(
    words: str, workspace: str, text: str, expected: list[list[Lit]] | None, why: str
) -> None:
    found, reason = _reading(text, words, workspace)
    if expected is None:
        assert found is None, f"{text!r} must be refused, but reads as {found}"
        assert why in reason, f"{text!r} is refused, but not saying {why!r}: {reason!r}"
    else:
        assert found is not None, f"{text!r} must read, but is refused: {reason!r}"
        assert found == sorted(sorted(a) for a in expected)


def test_the_corpus_is_large_and_names_each_phrase_once() -> None:
    ids = [p.id for p in CORPUS]
    assert len(ids) >= 300
    assert len(set(ids)) == len(ids), [i for i in ids if ids.count(i) > 1]
    refusals = sum(p.values[3] is None for p in CORPUS)
    assert 0.3 < refusals / len(CORPUS) < 0.7  # near misses beside every form


# Facts whose canonical words (`spellbook.probes.describe`) must read back to themselves.
CANONICAL = [
    ("count_at_least", FEATURES, f"2 {PENDING}"),
    ("count_at_least", FEATURES, f"1 {OTHER_PENDING}"),
    ("count_at_least", FEATURES, "3 features"),
    ("count_at_least", "task.md", "2 tags"),
    ("checked_at_least", "plan.md", "2 Risks"),
    ("checked_at_least", "plan.md", "1 Open Questions"),
    ("paired", "", PAIR),
    ("paired", "", ".*.up .*.down"),
    ("listed", "context.md", f".refs {URL}"),
    ("listed", "context.md", "seen.txt ^- \\[x\\] (\\S+)"),
    ("exists", "/tests/test_feature.py", ""),
    ("glob", "", "/tests/test_*.py"),
    ("matches", "/src/app.py", "def main"),
    ("paired", "", "/sql/*.up.sql /sql/*.down.sql"),
    ("listed", "/CHANGELOG.md", "/docs/seen.txt ^- (\\S+)"),
]


@pytest.mark.parametrize("fact", CANONICAL, ids=[" ".join(f) for f in CANONICAL])
@pytest.mark.parametrize("holds", [True, False], ids=["holds", "not"])
def test_canonical_words_read_back_to_the_same_fact(
    fact: tuple[str, str, str], holds: bool
) -> None:
    from spellbook.probes import describe

    words = describe(*fact, holds)
    found, reason = _reading(words, "core", WORKSPACE)
    assert found == [[(*fact, holds)]], (words, reason)


# Action phrases of the JSON verbs, each with its one reading (verb, file, [query, value])
# or refused: an instruction with why (`hint`, or a near miss `near_verbs` aims at a verb),
# or the verb with the problem that stops the spec (`problem`). Near misses: a typo, a
# missing backtick, a filter that keeps many, a query that ends in a filter, a value
# that is not JSON, a file that is not JSON, a path out of the workspace.
FEATURE_STATUS = "features[id=$feature_id].status"


def act(text: str, verb: str, file: str, query: str, value: object) -> Any:
    return pytest.param(text, (verb, file, query, value), "", "", id=text)


def state_field(text: str, field: str, value: object, query: str = "", file: str = "") -> Any:
    """A field of the state file set to a literal, or to the first value `query`
    selects in `file`."""
    how = ["first", query] if query else ["value", value]
    return pytest.param(text, ("set_state_field", file, field, how), "", "", id=text)


def act_refused(text: str, why: str, aimed: str = "") -> Any:
    """Refused, saying `why`; `aimed`: a near miss of that verb (`near_verbs`)."""
    return pytest.param(text, None, why, aimed, id=text)


JSON_VERBS = [
    act(
        f'Set `{FEATURE_STATUS}` in feature-list.json to "tested"',
        "set_field",
        FEATURES,
        FEATURE_STATUS,
        "tested",
    ),
    act(
        f'Sets {FEATURE_STATUS} in feature-list.json to "blocked"',
        "set_field",
        FEATURES,
        FEATURE_STATUS,
        "blocked",
    ),
    act(
        'Set `features[id=F1].status` of `.ai/task/feature-list.json` to "tested"',
        "set_field",
        FEATURES,
        "features[id=F1].status",
        "tested",
    ),
    act("Set `a.b` in x.json to 2", "set_field", "x.json", "a.b", 2),
    act("Set approved in review.json to true", "set_field", "review.json", "approved", True),
    act_refused(f'Set `{FEATURE_STATUS} in feature-list.json to "tested"', ""),
    act_refused(f'Set `{FEATURE_STATUS}` in feature-list.json "tested"', "", "set_field"),
    act_refused(f'Sett `{FEATURE_STATUS}` in feature-list.json to "tested"', ""),
    act_refused('Set `features[id!=F1].status` in feature-list.json to "x"', "keeps many"),
    act_refused('Set `features[id=F1]` in feature-list.json to "x"', "ends in a filter"),
    act_refused('Set `features[id==F1].status` in feature-list.json to "x"', "is not a query"),
    act_refused('Set `features[id="F1"].status` in feature-list.json to "x"', "is not a query"),
    act_refused(f"Set `{FEATURE_STATUS}` in feature-list.json to tested", "not a JSON value"),
    act_refused(f'Set `{FEATURE_STATUS}` in features.md to "tested"', "not a JSON file"),
    act_refused(f'Set `{FEATURE_STATUS}` in ../feature-list.json to "x"', "outside the workspace"),
    act(
        'Append {"id": "$feature_id"} to `done` in progress.json',
        "append_item",
        "progress.json",
        "done",
        {"id": "$feature_id"},
    ),
    act(
        'Appends "$feature_id" to blocked in progress.json',
        "append_item",
        "progress.json",
        "blocked",
        "$feature_id",
    ),
    act(
        "Append [1, 2] to `features[id=F1].runs` of feature-list.json",
        "append_item",
        FEATURES,
        "features[id=F1].runs",
        [1, 2],
    ),
    act(
        'Append "go to bed" to `todo` in p.json',
        "append_item",
        "p.json",
        "todo",
        "go to bed",
    ),
    act_refused('Apend {"id": "$feature_id"} to `done` in progress.json', "", "append_item"),
    act_refused('Push {"id": "$feature_id"} to `done` in progress.json', "", "append_item"),
    act_refused('Append {"id": "$feature_id"} to done progress.json', ""),
    act_refused('Append {"id": "$feature_id" to `done` in progress.json', "not a JSON value"),
    act_refused("Append the feature to `done` in progress.json", ""),
    act_refused('Append {"id": 1} to `done` in progress.md', "not a JSON file"),
    act_refused("Append 1 to `features[id!=F1].runs` in feature-list.json", "keeps many"),
    act_refused("Append 1 to `features[id=F1]` in feature-list.json", "ends in a filter"),
    act_refused("Append 1 to `done` in .git/progress.json", ".git"),
    state_field('Set `feature_id` in the state file to "F1"', "feature_id", "F1"),
    state_field("Sets the feature_id field of the state file to null", "feature_id", None),
    state_field("Set `round` in the state file to 2", "round", 2),
    state_field(
        "Set `feature_id` in the state file to the first `features[status=pending].id` of "
        "feature-list.json",
        "feature_id",
        None,
        "features[status=pending].id",
        FEATURES,
    ),
    state_field(
        "Set feature_id in the state file to first features[status=pending].id in "
        "`.ai/task/feature-list.json`",
        "feature_id",
        None,
        "features[status=pending].id",
        FEATURES,
    ),
    act_refused("Set `feature_id` in the state file to F1", "not a value", "set_state_field"),
    act_refused('Set feature_id to "F1"', "", "set_state_field"),
    act_refused('Store `feature_id` in the state file as "F1"', "", "set_state_field"),
    act_refused(
        "Set feature_id to the next pending feature in the state file", "", "set_state_field"
    ),
    act_refused(
        "Set `feature_id` in the state file to the next pending feature",
        "the first `QUERY` of F.json",
        "set_state_field",
    ),
    act_refused('Set `feature_id` in the state file to ["F1"]', "a JSON list"),
    act_refused('Set `feature-id` in the state file to "F1"', "not a field's name"),
    act_refused(
        "Set `feature_id` in the state file to the first `features[status=pending].id` of "
        "features.md",
        "not a JSON file",
    ),
    act_refused(
        "Set `feature_id` in the state file to the first `features[status=pending.id` of "
        "feature-list.json",
        "not a query",
    ),
    act_refused(
        "Set `feature_id` in the state file to the first `features.id` of ../f.json",
        "outside the workspace",
    ),
]


@pytest.mark.parametrize(("text", "expected", "why", "aimed"), JSON_VERBS)
def test_json_verb_phrase(
    text: str, expected: tuple[str, str, str, object] | None, why: str, aimed: str
) -> None:
    import json

    from codegen.read.action_phrases import parse_actions
    from codegen.read.near_verbs import aimed_at

    (action,) = parse_actions(text, WORKSPACE)
    if expected is None:
        refused = action.verb == "instruct" or bool(action.problem)
        assert refused, f"{text!r} must be refused, but reads as {action}"
        reason = action.problem or action.hint
        assert why in reason, f"{text!r} is refused, but not saying {why!r}: {reason!r}"
        if aimed:  # a near miss, which the verifier warns of, giving the forms that read
            found = aimed_at(text, LEXICONS["core"])
            assert found is not None and found.verb == aimed, (text, found)
    else:
        verb, file, query, value = expected
        assert not action.problem, action.problem
        assert (action.verb, action.files) == (verb, (file,) if file else ())
        said = [query, *value] if verb == "set_state_field" else [query, value]  # type: ignore[misc]
        assert json.loads(action.target) == said
