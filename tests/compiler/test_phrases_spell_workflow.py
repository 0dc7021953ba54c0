"""Condition phrases of the `spell_workflow` vocabulary: its nouns and its procedures. Each
beside its near misses, read as its author means or refused (the corpus:
tests/compiler/test_phrase_corpus.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.phrases import AC, ATLASSIAN_URL, Lit, assert_reads, no, one, read, refused, yes

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


PHRASES = [*SPELL_NOUNS, *PROCEDURES]


@pytest.mark.parametrize(("words", "workspace", "text", "expected", "why"), PHRASES)
def test_phrase(
    words: str, workspace: str, text: str, expected: list[list[Lit]] | None, why: str
) -> None:
    assert_reads(words, workspace, text, expected, why)
