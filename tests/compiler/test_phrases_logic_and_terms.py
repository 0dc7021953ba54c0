"""Condition phrases joined by logic, labels, a spec's own Terms, and ledgers (matches of a
file not yet listed in another). Each beside its near misses, read as its author means
or refused (the corpus: tests/compiler/test_phrase_corpus.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.phrases import (
    AC,
    ATLASSIAN_URL,
    GITHUB_ISSUE,
    REFS,
    TABLE,
    URL,
    Lit,
    assert_reads,
    no,
    one,
    read,
    refused,
    under,
    yes,
)

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
    refused("core", "a.md exists and (b.md exists)", "`and` joins conditions only in capitals"),
    refused("core", "a.md exists or (b.md exists)", "`or` joins conditions only in capitals"),
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


PHRASES = [*LOGIC, *LABELS, *TERMS, *LEDGERS]


@pytest.mark.parametrize(("words", "workspace", "text", "expected", "why"), PHRASES)
def test_phrase(
    words: str, workspace: str, text: str, expected: list[list[Lit]] | None, why: str
) -> None:
    assert_reads(words, workspace, text, expected, why)
