"""The action vocabulary: each verb, unknown phrases, unsafe paths, and the verifier's findings."""

from __future__ import annotations

import pytest

from codegen import parse_spec_text
from codegen.model import Term
from codegen.read.action_phrases import parse_actions, split_phrases
from codegen.read.lexicon import Dialect, Lexicon
from tests.specs import fill, findings_of, row, spec_text

WS = ".ai/task"
SPELL = Lexicon.of(Dialect("spell_workflow"))
SESSION = Lexicon.of(Dialect("coding_session"))


def verbs(text: str, lexicon: Lexicon = SPELL) -> list[tuple[str, tuple[str, ...], str]]:
    return [(a.verb, a.files, a.target) for a in parse_actions(text, WS, lexicon)]


def test_numbered_phrases_are_split() -> None:
    assert split_phrases("(1) Do a; (2) Do b; (3) Do c") == ["Do a", "Do b", "Do c"]
    assert split_phrases("Update state to X") == ["Update state to X"]
    assert split_phrases("") == []
    assert split_phrases("-") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Create `.ai/task/plan.md` from template", [("create", ("plan.md",), "plan.md")]),
        (
            "Create new task.md template with YAML frontmatter",
            [("create", ("task.md",), "task.md")],
        ),
        ("Create `.ai/task/comments.md` empty file", [("create", ("comments.md",), "")]),
        ("Create empty comments.md", [("create", ("comments.md",), "")]),
        ("Create new comments.md", [("create", ("comments.md",), "")]),
        (
            "Archive task.md and task-results.md to `.ai/task/tasks/task-${task_name}-${date}/`",
            [("archive", ("task.md", "task-results.md"), "tasks/task-${task_name}-${date}/")],
        ),
        (
            "Archive review files to pr-reviews/pr-review-<date>/",
            [
                (
                    "archive",
                    ("comments.md", "review-task.md", "review-task-results.md"),
                    "pr-reviews/pr-review-${date}/",
                )
            ],
        ),
        (
            "Archive task.md to `.ai/task/incomplete-task/` folder (passed to AI as [X])",
            [("archive", ("task.md",), "incomplete-task/")],
        ),
        ("Delete existing comments.md", [("delete", ("comments.md",), "")]),
        (
            "Delete existing review files",
            [("delete", ("comments.md", "review-task.md", "review-task-results.md"), "")],
        ),
        ("Load task.md content into memory", [("load", ("task.md",), "")]),
        ("Load plan.md content", [("load", ("plan.md",), "")]),
        ("Extract task_name from task.md frontmatter", [("extract", ("task.md",), "task_name")]),
        (
            "Update state to PR_GATHERING_COMMENTS_[G/A]",
            [("set_state", (), "PR_GATHERING_COMMENTS_[G/A]")],
        ),
        ("No state change", [("no_change", (), "")]),
        ("Fetch content via Atlassian MCP", [("instruct", (), "")]),
        # Third person, and the other ways a later revision of the spec writes them.
        ("Creates `.ai/task/plan.md` file", [("create", ("plan.md",), "plan.md")]),
        ("Creates `.ai/task/comments.md` file", [("create", ("comments.md",), "")]),
        (
            "Creates `.ai/task/context.md` with template",
            [("create", ("context.md",), "context.md")],
        ),
        ("Reads `.ai/task/task.md` content", [("load", ("task.md",), "")]),
        ("Read state.json", [("instruct", (), "")]),
        ("Reads `.ai/task/task.md` frontmatter", [("extract", ("task.md",), "")]),
        (
            "Archives review files to `pr-reviews/pr-review-<date>/`",
            [
                (
                    "archive",
                    ("comments.md", "review-task.md", "review-task-results.md"),
                    "pr-reviews/pr-review-${date}/",
                )
            ],
        ),
        ("Deletes existing comments.md", [("delete", ("comments.md",), "")]),
        ("Replaces `[TASK_CONTENT_PLACEHOLDER]` in response with task content", [("fill", (), "")]),
        ("Updates state to X", [("set_state", (), "X")]),
        ("-", []),
    ],
)
def test_verbs(text: str, expected: list[tuple[str, tuple[str, ...], str]]) -> None:
    assert verbs(text) == expected


def test_a_file_group_is_the_vocabulary_s() -> None:
    (action,) = parse_actions("Archive review files to done/", WS, Lexicon())
    assert action.verb == "instruct"


def test_an_archive_without_a_folder_says_what_it_needs() -> None:
    (action,) = parse_actions("Archives task files", WS, SPELL)
    assert action.verb == "instruct" and "needs a folder" in action.hint


def test_frontmatter_read_whole_makes_its_values_known_to_archives() -> None:
    text = "(1) Reads task.md frontmatter; (2) Archives task.md to done/task-${task_name}/"
    extract, archive = parse_actions(text, WS, SPELL)
    assert (extract.verb, extract.target) == ("extract", "")
    assert (archive.verb, archive.problem) == ("archive", "")


def test_the_session_s_own_verbs() -> None:
    assert verbs("Mark the current feature tested in feature-list.json", SESSION) == [
        ("mark", ("feature-list.json",), "tested")
    ]
    assert verbs("Select the next pending feature in feature-list.json", SESSION) == [
        ("select", ("feature-list.json",), "")
    ]
    # Not the spell workflow's words.
    assert verbs("Select the next pending feature in feature-list.json") == [("instruct", (), "")]


def test_archive_variables_must_be_known() -> None:
    (action,) = parse_actions("Archive task.md to done/${who}/", WS)
    assert action.verb == "archive" and "${who} is not known here" in action.problem
    _, archive = parse_actions(
        "(1) Extract who from task.md frontmatter; (2) Archive task.md to done/${who}/", WS
    )
    assert archive.problem == ""


@pytest.mark.parametrize(
    "text",
    [
        "Delete ../outside.md",
        "Create /etc/passwd.txt from template",
        "Archive task.md to ../../elsewhere/",
        "Load ../secret.md content",
    ],
)
def test_paths_outside_the_workspace_are_refused(text: str) -> None:
    (action,) = parse_actions(text, WS)
    assert "outside the workspace folder" in action.problem


def test_home_paths_are_not_files_at_all() -> None:
    (action,) = parse_actions("Load ~/secret.md content", WS)
    assert action.verb == "instruct"


def test_verifier_reports_action_findings() -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row(
            "X1",
            "A",
            "Go",
            nxt="B",
            action="(1) Ring the bell; (2) Delete ../x.md; (3) Update state to A",
        ),
        *fill(states, spells, skip=["A/Go"]),
    ]
    findings = findings_of(
        spec_text(states, spells, rows), {"action_path", "action_state", "unknown_action"}
    )
    assert sorted((f.kind, f.severity.value) for f in findings) == [
        ("action_path", "error"),
        ("action_state", "warning"),
        ("unknown_action", "info"),
    ]


def test_family_state_update_follows_the_source_suffix() -> None:
    states, spells = ["S_G", "S_A", "T_G", "T_A"], ["Go"]
    rows = [
        row("F1", "S_[G/A]", "Go", nxt="T_[G/A]", action="Update state to T_[G/A]"),
        *fill(states, spells, skip=["S_G/Go", "S_A/Go"]),
    ]
    spec = parse_spec_text(spec_text(states, spells, rows))
    assert [(r.source, r.actions[0].target) for r in spec.rules if r.id == "F1"] == [
        ("S_G", "T_G"),
        ("S_A", "T_A"),
    ]
    assert findings_of(spec_text(states, spells, rows), {"action_state"}) == []


# -- the verbs a workflow writes with no Python: ledgers, counters, files without an
# extension, and a Terms table's own action phrases; each with its near misses ------

CORE = Lexicon.of(Dialect(""))
URL = r"https://\S+"
TERMS = SPELL.with_terms(
    [
        Term("Reads `.ai/task/.refs`", "-"),
        Term("Updates .refs with processed URLs", "Record Atlassian URLs in `.refs`"),
        Term("Files the task", "Archive task.md to done/"),
        Term("Tidies up", "(1) Files the task; (2) Reset attempts"),
        Term("Does magic", "Wave a wand"),
        Term("Loops", "Loops"),
    ]
)
ATLASSIAN = SPELL.noun("Atlassian URLs")
assert ATLASSIAN is not None


@pytest.mark.parametrize(
    ("lexicon", "text", "expected"),
    [
        # record: a ledger of matches, from a named file or the one the cell read last
        (
            CORE,
            f"Append matches of `{URL}` from notes.md to `.seen`",
            [("record", ("notes.md", ".seen"), URL)],
        ),
        (
            CORE,
            f"Records lines matching `{URL}` of notes.md in seen.txt",
            [("record", ("notes.md", "seen.txt"), URL)],
        ),
        (
            SPELL,
            "Record Atlassian URLs of context.md in `.ai/task/.atlassian-refs`",
            [("record", ("context.md", ".atlassian-refs"), ATLASSIAN.param)],
        ),
        (
            SPELL,
            "(1) Extracts all Atlassian URLs from plan.md; (2) Adds new Atlassian URLs to `.refs`",
            [("find", ("plan.md",), ""), ("record", ("plan.md", ".refs"), ATLASSIAN.param)],
        ),
        (
            SPELL,
            "(1) Load plan.md content; (2) Record Jira links in `.refs`",
            [("load", ("plan.md",), ""), ("record", ("plan.md", ".refs"), ATLASSIAN.param)],
        ),
        # near misses: no pattern, no noun that is one, a path that leaves, a glob
        (CORE, "Append notes.md to `.seen`", [("instruct", (), "")]),
        (SPELL, "Record acceptance criteria of plan.md in `.refs`", [("instruct", (), "")]),
        (CORE, "Append matches of `x` from notes.md to seen", [("instruct", (), "")]),
        # counters
        (CORE, "Reset rounds", [("reset", (), "rounds=0")]),
        (CORE, "Resets the rounds counter to 2", [("reset", (), "rounds=2")]),
        (CORE, "Set rounds to 1", [("reset", (), "rounds=1")]),
        (CORE, "Increment rounds", [("increment", (), "rounds")]),
        (CORE, "Set rounds to one", [("instruct", (), "")]),
        (CORE, "Reset rounds to -1", [("instruct", (), "")]),
        # files without an extension, in backticks only
        (CORE, "Create `VERSION`", [("create", ("VERSION",), "")]),
        (CORE, "Delete `TAG` and notes.md", [("delete", ("TAG", "notes.md"), "")]),
        (CORE, "Create VERSION", [("instruct", (), "")]),
        (CORE, "Create `*.md`", [("instruct", (), "")]),
        # a Terms table's phrases: their meaning's actions, `-` for none
        (
            TERMS,
            "(1) Reads `.ai/task/.refs`; (2) Load context.md content; "
            "(3) Updates .refs with processed URLs",
            [("load", ("context.md",), ""), ("record", ("context.md", ".refs"), ATLASSIAN.param)],
        ),
        (TERMS, "Tidies up", [("archive", ("task.md",), "done/"), ("reset", (), "attempts=0")]),
        (TERMS, "Does magic", [("instruct", (), "")]),
        (TERMS, "Loops", [("instruct", (), "")]),
    ],
)
def test_the_verbs_of_a_workflow_without_python(
    lexicon: Lexicon, text: str, expected: list[tuple[str, tuple[str, ...], str]]
) -> None:
    assert verbs(text, lexicon) == expected


def test_a_record_with_no_file_to_read_says_how_to_name_one() -> None:
    (action,) = parse_actions("Record Atlassian URLs in `.refs`", WS, SPELL)
    assert action.verb == "record" and "say `of F`" in action.problem
    (action,) = parse_actions(r"Append matches of `(a)\1` from a.md to `.seen`", WS, CORE)
    assert "cannot run in linear time" in action.problem
    (action,) = parse_actions("Append matches of `x` from a.md to `../seen`", WS, CORE)
    assert "outside the workspace" in action.problem
    (term,) = parse_actions("Does magic", WS, TERMS)
    assert "'Wave a wand', which the core does not read" in term.hint


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Copy notes.md to notes-old.md", [("copy", ("notes.md", "notes-old.md"), "")]),
        ("Copies `VERSION` to `VERSION.bak`", [("copy", ("VERSION", "VERSION.bak"), "")]),
        ("Move draft.md to done/", [("move", ("draft.md", "done/"), "")]),
        ("Renames draft.md to final.md", [("move", ("draft.md", "final.md"), "")]),
        (
            'Append "Shipped ${date}" to CHANGES.md',
            [("append", ("CHANGES.md",), "Shipped ${date}")],
        ),
        ("Append `- [ ] review` to notes.md", [("append", ("notes.md",), "- [ ] review")]),
        (
            "Set approved in review.json to true",
            [("set_field", ("review.json",), '["approved", true]')],
        ),
        (
            'Sets `status` of review.json to "done"',
            [("set_field", ("review.json",), '["status", "done"]')],
        ),
        ("Extract version from release.json", [("extract", ("release.json",), "version")]),
        # near misses: not a JSON value, no line in quotes, no destination
        ("Set approved in review.json to yes", [("instruct", (), "")]),
        ("Append shipped to CHANGES.md", [("instruct", (), "")]),
        ("Copy notes.md", [("instruct", (), "")]),
        ("Move notes.md somewhere", [("instruct", (), "")]),
    ],
)
def test_the_verbs_that_edit_files(
    text: str, expected: list[tuple[str, tuple[str, ...], str]]
) -> None:
    assert verbs(text, CORE) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Copy notes.md to notes.md", "would be copied onto itself"),
        ("Move notes.md to ../elsewhere.md", "outside the workspace"),
        ('Append "by ${who}" to log.md', "${who} is not known here"),
        ("Move a.md to done-${who}/", "${who} is not known here"),
        ("Set approved in notes.md to true", "not a JSON file"),
    ],
)
def test_an_edit_that_cannot_be_done_as_written_is_refused(text: str, problem: str) -> None:
    (action,) = parse_actions(text, WS, CORE)
    assert problem in action.problem
