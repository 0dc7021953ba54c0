"""The AI Engineer workflow's words: acceptance criteria, Atlassian links, PR review files.

Its specs (`spec/STATE_MACHINE.md` and its revisions) say `≥1 AC in plan.md`,
`No unchecked AC in plan.md`, `Atlassian URLs found`, `Counts acceptance criteria
(lines starting with `- [ ]`) (finds ≥1)`, `Extracts Atlassian URLs from content
(finds none)`, and `Archive review files to pr-reviews/pr-review-<date>/`. Here is
what those words mean in the generic core's terms (see `spellbook.vocabulary`).
Phrases a spec defines for itself (`No PR review in progress`) are in its own
Terms table, not here.
"""

from __future__ import annotations

import os

from spellbook.vocabulary import Noun

# A link to Jira or Confluence: a URL on an `atlassian.net` host, or a `/browse/KEY-123`
# or `/wiki/` path. A match is the whole link (for a ledger of links processed), up to
# a space, `)`, `>` or `]`, without a sentence's final punctuation. Hosts and path
# segments stop at the next `/` and every repeat is bounded, so a line costs time in
# proportion to its length.
_REST = r"[^\s)>\]]{0,2000}(?<![.,;:!?'\"])"
ATLASSIAN_URL = (
    rf"https?://[^\s/)>\]]{{1,253}}(?<=atlassian\.net)(?![^\s/)>\]]){_REST}"
    r"|https?://[^\s/)>\]]{1,253}(?:/[^\s/)>\]]{0,200}){0,12}?/"
    rf"(?:browse/[A-Z][A-Z0-9]{{0,30}}-\d|wiki/){_REST}"
)

_AC = r"(?:acs?|acceptance criteri(?:on|a)|acceptance-criteri(?:on|a))"

NOUNS = (
    Noun(
        "unchecked acceptance criteria",
        rf"unchecked {_AC}",
        "unchecked",
        "Acceptance Criteria",
        "plan.md",
    ),
    Noun("acceptance criteria", _AC, "items", "Acceptance Criteria", "plan.md"),
    Noun(
        "Atlassian URLs",
        r"atlassian (?:urls?|links?)|jira (?:or confluence )?(?:urls?|links?)",
        "matches",
        ATLASSIAN_URL,
        "plan.md",
    ),
)

# Groups of files that actions name together.
FILE_GROUPS = {
    "review files": ("comments.md", "review-task.md", "review-task-results.md"),
}

# New plans, tasks and review tasks are written from these.
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
