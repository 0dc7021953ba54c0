"""The action vocabulary: each verb, unknown phrases, unsafe paths, and the verifier's findings."""

from __future__ import annotations

import json

import pytest

from codegen import parse_spec_text
from codegen.model import Term
from codegen.read.action_phrases import parse_actions, split_phrases
from codegen.read.lexicon import Lexicon, ReadOptions
from codegen.read.near_verbs import aimed_at
from tests.support.specs import fill, findings_of, row, spec_text

WS = ".ai/task"
SPELL = Lexicon.of(ReadOptions("spell_workflow"))
# A vocabulary in Python, with verbs of its own (a team that needs code writes one).
OWN_WORDS = Lexicon.of(ReadOptions("tests.support.vocabularies.own_words"))


def verbs(text: str, lexicon: Lexicon = SPELL) -> list[tuple[str, tuple[str, ...], str]]:
    return [(a.verb, a.files, a.target) for a in parse_actions(text, WS, lexicon)]


def test_numbered_phrases_are_split() -> None:
    assert split_phrases("(1) Do a; (2) Do b; (3) Do c") == ["Do a", "Do b", "Do c"]
    assert split_phrases("Update state to X") == ["Update state to X"]
    assert split_phrases("") == []
    assert split_phrases("-") == []


@pytest.mark.parametrize(
    "cell", ["1) Do a 2) Do b", "1. Do a 2. Do b", "1) Do a; 2) Do b", "(1) Do a (2) Do b"]
)
def test_a_cell_that_numbers_its_phrases_in_other_ways_is_split_too(cell: str) -> None:
    # `1) charge the card 2) send a receipt` was one callback, _1_charge_the_card_2_...
    assert split_phrases(cell) == ["Do a", "Do b"]


def test_a_number_inside_a_phrase_splits_nothing() -> None:
    assert split_phrases("Set version to 2. Done") == ["Set version to 2. Done"]
    assert split_phrases("Retry 3) times") == ["Retry 3) times"]
    # a step's number inside quoted text split the cell, and the Append was lost
    assert split_phrases('(1) Append "see step (2) below" to log.md; (2) Delete a.md') == [
        'Append "see step (2) below" to log.md',
        "Delete a.md",
    ]


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


def test_a_python_vocabulary_s_own_verbs() -> None:
    assert verbs("Mark the current feature tested in feature-list.json", OWN_WORDS) == [
        ("mark", ("feature-list.json",), "tested")
    ]
    assert verbs("Select the next pending feature in feature-list.json", OWN_WORDS) == [
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


@pytest.mark.parametrize("said", ["No state change", "Same state", "Unchanged"])
def test_an_action_saying_the_state_stays_on_a_row_that_moves_it_is_said(said: str) -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [row("X1", "A", "Go", nxt="B", action=said), *fill(states, spells, skip=["A/Go"])]
    (finding,) = findings_of(spec_text(states, spells, rows), {"action_state"})
    assert finding.rule == "X1" and finding.severity.value == "warning"
    assert (
        f"action says {said!r}, that the state does not change, but Next State moves it "
        "from A to B; the machine follows Next State"
    ) in finding.message


def test_an_action_saying_the_state_stays_on_a_row_that_keeps_it_is_not_said() -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row("X1", "A", "Go", nxt="Same state", action="No state change"),
        row("X2", "B", "Go", nxt="B", action="Same state"),
    ]
    assert findings_of(spec_text(states, spells, rows), {"action_state"}) == []


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

CORE = Lexicon.of(ReadOptions(""))
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
        # scoped to a section, `of F` before or after it: the pattern and the section
        (
            CORE,
            'Record matches of `^- (\\w+)$` under "Tables" of plan.md in `.applied`',
            [("record", ("plan.md", ".applied"), '["^- (\\\\w+)$", "Tables"]')],
        ),
        (
            CORE,
            "Record matches of `x` of plan.md under the Tables section in `.applied`",
            [("record", ("plan.md", ".applied"), '["x", "Tables"]')],
        ),
        (
            SPELL,
            'Record Atlassian URLs under "## Links" of context.md in `.refs`',
            [("record", ("context.md", ".refs"), json.dumps([ATLASSIAN.param, "Links"]))],
        ),
        # near misses: no pattern, no noun that is one, a path that leaves, a glob
        (CORE, 'Record matches of `x` under "" of plan.md in `.applied`', [("instruct", (), "")]),
        (
            CORE,
            "Record matches of `x` under Tables of plan.md in `.applied`",
            [("instruct", (), "")],
        ),
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
        # a table cell's line break is one of the file's: a heading, then an item
        (
            'Append "## Review<br>- [ ] check links" to notes.md',
            [("append", ("notes.md",), "## Review\n- [ ] check links")],
        ),
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


# -- read or refused: a phrase aimed at a core verb that does not read is a warning with
# the forms that read; only a phrase plainly the AI's is passed to it as an instruction --

COUNTERS = {"attempts", "rounds"}


@pytest.mark.parametrize(
    ("text", "verb", "form"),
    [
        # misspelt by one edit: a letter dropped, added, changed, two swapped
        ("Incremnt attempts", "increment", "Increment attempts"),
        ("Icnrement rounds", "increment", "Increment rounds"),
        ("Delet old-notes.md", "delete", "Delete old-notes.md"),
        ("Creat `VERSION`", "create", "Create `VERSION`"),
        ("Archve a.md and b.md to done", "archive", "Archive a.md and b.md to FOLDER/"),
        ("Renmae draft.md to final.md", "move", "Move draft.md to final.md"),
        ("Resett rounds", "reset", "Reset rounds"),
        ("Apend shipped to CHANGES.md", "append", 'Append "TEXT" to CHANGES.md'),
        ("Updaet state to DONE", "set_state", "Update state to DONE"),
        # synonyms, with what the verb acts on
        ("Increase attempts", "increment", "Increment attempts"),
        ("Bumps the rounds counter", "increment", "Increment rounds"),
        ("Increase the timeout by 5", "increment", "Increment timeout"),
        ("Add 1 to attempts", "increment", "Increment attempts"),
        ("Adds one to the rounds counter", "increment", "Increment rounds"),
        ("Remove scratch.md", "delete", "Delete scratch.md"),
        ("Erases `TAG` and notes.md", "delete", "Delete `TAG` and notes.md"),
        ("Clear attempts", "reset", "Reset attempts"),
        ("Touch `work/started.flag`", "create", "Create empty `work/started.flag`"),
        ("Touches a.flag and b.flag", "create", "Create empty a.flag and b.flag"),
        ('Write "hello" to `work/log.md`', "append", 'Append "hello" to `work/log.md`'),
        ("Writes 'done' into log.md", "append", 'Append "done" to log.md'),
        ('Log "shipped" to CHANGES.md', "append", 'Append "shipped" to CHANGES.md'),
        ("Duplicate notes.md to notes-old.md", "copy", "Copy notes.md to notes-old.md"),
        ("Change the state to REVIEW", "set_state", "Update state to REVIEW"),
        # the verb's own word, in a form it does not take
        ("Set attempts = 1", "reset", "Set attempts to 1"),
        ("Set rounds to one", "reset", "Set rounds to N"),
        ("Increments attempts by 2", "increment", "Increment attempts"),
        (
            "Set approved in review.json to yes",
            "set_field",
            "Set approved in review.json to VALUE",
        ),
        ("Copy notes.md", "copy", "Copy notes.md to G"),
        ("Moves notes.md somewhere", "move", "Move notes.md to FOLDER/"),
        # one more, and one less, of a counter: only an info, passed to the AI, which
        # cannot change the state file's counters
        ("Set attempts to attempts + 1", "increment", "Increment attempts"),
        ("Decrement attempts", "reset", "Reset attempts to N"),
        ("attempts -= 1", "reset", "Reset attempts to N"),
        # the place is a folder: the form says so, not a file named `old`
        ("Move notes.md to `old` folder", "move", "Move notes.md to `old/`"),
        ("Load notes.md into the response", "load", "Load notes.md content"),
        (
            "Extract version from release.json please",
            "extract",
            "Extract version from release.json",
        ),
        ("Append notes.md to `.seen`", "append", 'Append "TEXT" to `.seen`'),
        (
            "Record acceptance criteria of plan.md in seen.txt",
            "record",
            "Record NOUN of plan.md in seen.txt",
        ),
        # code, written as a step
        ("attempts++", "increment", "Increment attempts"),
        ("rounds = 0", "reset", "Set rounds to 0"),
    ],
)
def test_a_phrase_aimed_at_a_core_verb_says_the_forms_that_read(
    text: str, verb: str, form: str
) -> None:
    (action,) = parse_actions(text, WS, SPELL)
    assert action.verb == "instruct"  # not read: never carried out with another meaning
    aim = aimed_at(text, SPELL, COUNTERS)
    assert aim is not None and aim.verb == verb
    assert form in aim.forms


@pytest.mark.parametrize(
    "text",
    [
        "Ask the developer to review the plan",
        "Summarise the diff for the reviewer",
        "Set up the CI pipeline",
        "Create a pull request",
        "Get approval from the team lead",
        "Test the build",
        "Remove the TODO markers from notes.md",  # an edit of the file, not the file gone
        "Increase the timeout",  # a synonym, and no counter of the spec
        "Clear the cache",
        "Update plan.md with the references",
        "Read state.json",  # a bare read is the AI's, as documented
        "Move on to the next feature",
        "Record a short demo video",
        "Archives task files",  # no file named: the AI's (told it needs a folder)
        "Fetch content via Atlassian MCP",
        "File `draft.md` with the published papers",
        "Write the release notes to notes.md",  # no text to append: the AI's to write
        "Touch base with the team",
    ],
)
def test_a_phrase_plainly_for_the_ai_is_an_instruction(text: str) -> None:
    (action,) = parse_actions(text, WS, SPELL)
    assert action.verb == "instruct"
    assert aimed_at(text, SPELL, COUNTERS) is None


def test_the_verifier_warns_of_a_misspelt_verb_and_notes_an_instruction() -> None:
    states, spells = ["A", "B"], ["Go"]
    action = "(1) Incremnt attempts; (2) Ask the developer to review; (3) Update state to B"
    rows = [
        row("X1", "A", "Go", "attempts < 3", "B", action),
        row("X2", "A", "Go", "attempts ≥ 3"),
        *fill(states, spells, skip=["A/Go"]),
    ]
    findings = findings_of(spec_text(states, spells, rows), {"unread_verb", "unknown_action"})
    assert sorted((f.kind, f.severity.value) for f in findings) == [
        ("unknown_action", "info"),
        ("unread_verb", "warning"),
    ]
    (unread,) = [f for f in findings if f.kind == "unread_verb"]
    assert "'Incremnt attempts'" in unread.message and "`Increment attempts`" in unread.message
    (note,) = [f for f in findings if f.kind == "unknown_action"]
    assert "'Ask the developer to review'" in note.message and "Incremnt" not in note.message


def test_steps_written_without_numbers_are_a_warning_giving_the_numbered_form() -> None:
    """`Increment attempts; Reset tries` unnumbered is one phrase the AI would be told:
    the verifier says so, with the numbered form the core carries out; prose with a `;`
    that no core verb reads stays the AI's, and a `;` inside backticks parts nothing."""
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row("X1", "A", "Go", "attempts < 3", "B", "Increment attempts; Reset tries"),
        row("X2", "A", "Go", "attempts ≥ 3", "B", "Tell the developer; then stop"),
        row("X3", "B", "Go", "tries < 2", "B", "Append `a; b` to notes.md"),
        row("X4", "B", "Go", "tries ≥ 2"),
        *fill(states, spells, skip=["A/Go", "B/Go"]),
    ]
    findings = findings_of(spec_text(states, spells, rows), {"unread_verb", "unknown_action"})
    (unread,) = [f for f in findings if f.kind == "unread_verb"]
    assert unread.rule == "X1" and "several steps written as one" in unread.message
    assert "`(1) Increment attempts; (2) Reset tries`" in unread.message
    assert all(f.rule != "X3" for f in findings)  # one step, read as the core's
    (note,) = [f for f in findings if f.kind == "unknown_action"]
    assert note.rule == "X2"


@pytest.mark.parametrize(
    "text",
    [
        "Delete notes.md<br>Delete signoff.json",
        "Delete notes.md<br/>Delete signoff.json",
        "1. Delete notes.md 2. Delete signoff.json",
        "1) Delete notes.md 2) Delete signoff.json",
        # a list in a cell, its marks no part of a step (`(2) 2. Delete ...` was offered)
        "\u2022 Delete notes.md<br>\u2022 Delete signoff.json",
        "- Delete notes.md<br>- Delete signoff.json",
        "1. Delete notes.md<br>2. Delete signoff.json",
    ],
)
def test_steps_parted_by_a_line_break_or_list_numbers_are_steps_written_as_one(text: str) -> None:
    """Steps parted by `<br>` or numbered as a markdown list are read as one phrase the
    AI would be told, as steps parted by `;` are: a warning with the core's numbered form."""
    aim = aimed_at(text, SPELL, COUNTERS)
    assert aim is not None and aim.verb == "steps"
    assert aim.forms == ("(1) Delete notes.md; (2) Delete signoff.json",)


@pytest.mark.parametrize(
    "text",
    ["Archive notes.md to shipped/1.4.0/", "Tell the developer 2. then stop", "Ship v1. 2. Wait"],
)
def test_numbers_that_count_no_list_part_no_steps(text: str) -> None:
    aim = aimed_at(text, SPELL, COUNTERS)
    assert aim is None or aim.verb != "steps"


# -- a Terms row naming a pattern: the noun of `Record NOUN of F in G` ------------------

JIRA = r"[A-Z][A-Z0-9]+-\d+"


@pytest.mark.parametrize(
    "means",
    [f"matches of `{JIRA}`", f"`{JIRA}`", f"notes.md matches `{JIRA}`"],
)
def test_a_terms_row_naming_a_pattern_is_the_noun_a_ledger_records(means: str) -> None:
    lexicon = CORE.with_terms([Term("Jira keys", means)])
    assert verbs("Record Jira keys of notes.md in `.seen`", lexicon) == [
        ("record", ("notes.md", ".seen"), JIRA)
    ]
    assert verbs(
        "(1) Extracts all Jira keys from notes.md; (2) Records new Jira keys in seen.txt", lexicon
    ) == [
        ("find", ("notes.md",), ""),
        ("record", ("notes.md", "seen.txt"), JIRA),
    ]


def test_a_terms_row_naming_a_pattern_is_checked_as_the_spec_s_own() -> None:
    lexicon = CORE.with_terms([Term("echoes", r"matches of `(a)\1`")])
    (action,) = parse_actions("Record echoes of a.md in `.seen`", WS, lexicon)
    assert action.verb == "record" and "cannot run in linear time" in action.problem


def test_a_terms_row_naming_no_pattern_is_a_record_refused_with_the_forms_that_read() -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row(
            "X1",
            "A",
            "Go",
            "-",
            "B",
            "(1) Record Jira keys of notes.md in `.seen`; (2) Update state to B",
        ),
        *fill(states, spells, skip=["A/Go"]),
    ]
    text = spec_text(states, spells, rows).replace(
        "### Transition Rules",
        "| Phrase | Means |\n|---|---|\n| Jira keys | Jira tickets |\n\n### Transition Rules",
    )
    findings = findings_of(text, {"unread_verb", "unknown_action", "unknown_term"})
    (found,) = findings
    assert (found.kind, found.severity.value) == ("unread_verb", "warning")
    assert "'Jira keys' means 'Jira tickets', which names no pattern" in found.message
    assert "Record NOUN of notes.md in `.seen`" in found.message


@pytest.mark.parametrize(
    ("means", "kinds"),
    [
        # read through the other term: nothing to say
        ("Archive a.md to done/", []),
        # not read: an error naming the rule that uses it, with the form that reads
        ("Incremnt attempts", [("unknown_term", "error"), ("unknown_term", "error")]),
    ],
)
def test_a_term_used_only_through_another_action_term_is_used(
    means: str, kinds: list[tuple[str, str]]
) -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row("X1", "A", "Go", "-", "B", "(1) Tidy up; (2) Update state to B"),
        *fill(states, spells, skip=["A/Go"]),
    ]
    terms = f"| Tidy up | (1) File the task; (2) Reset attempts |\n| File the task | {means} |"
    text = spec_text(states, spells, rows).replace(
        "### Transition Rules", f"| Phrase | Means |\n|---|---|\n{terms}\n\n### Transition Rules"
    )
    found = findings_of(text, {"unknown_term"})
    assert sorted((f.kind, f.severity.value) for f in found) == kinds
    assert not [f for f in found if "no rule uses it" in f.message]
    if found:
        (inner,) = [f for f in found if "'File the task' means" in f.message]
        assert "rule X1 uses it in Actions" in inner.message
        assert "`Increment attempts`" in inner.message


def test_the_near_misses_know_every_verb_that_does_something_by_the_runtime_s_name() -> None:
    """Each verb a cast carries out (and `Update state`) has its words for near misses,
    keyed by its name in the runtime's one table of verbs."""
    from codegen.read.near_verbs import VERBS as NEAR
    from spellbook.verbs.actions import VERBS

    doing = {name for name, verb in VERBS.items() if not verb.passive} | {"set_state"}
    assert {v.verb for v in NEAR} == doing


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("Delete a.md " + "x" * 100_000, "delete"),
        ("Copy a.md " + "/" * 100_000, "copy"),
        ("Set " + "a" * 100_000 + " in b.json to 1", "set_field"),
        ("Record " + "in a " * 20_000 + "to b.md", "record"),
        ("Remove a.md " + "a.b" * 30_000, "delete"),
    ],
)
def test_a_long_phrase_is_weighed_in_time_linear_in_its_length(text: str, verb: str) -> None:
    """Each word is matched once: a long word cannot make the near-miss test slow."""
    aim = aimed_at(text, SPELL, COUNTERS)
    assert aim is not None and aim.verb == verb


def test_words_of_what_a_created_file_holds_are_not_dropped() -> None:
    """`Create F with failing tests` for a file with no template would make it empty and
    drop the words: refused with the forms that read. With a template, the template
    holds what the words describe."""

    (dropped,) = parse_actions("Create tests/test_new.py with failing tests", "")
    assert dropped.verb == "create" and "'with failing tests' would not" in dropped.problem
    assert "Create empty tests/test_new.py" in dropped.problem
    for plain in ("Create notes.md", "Create notes.md file", "Create new notes.md from template"):
        (action,) = parse_actions(plain, "")
        assert (action.verb, action.problem) == ("create", ""), plain
    spell = Lexicon.of(ReadOptions("spell_workflow"))
    (templated,) = parse_actions("Create plan.md with sections for the criteria", "", spell)
    assert (templated.target, templated.problem) == ("plan.md", "")


def problem(text: str, workspace: str = "") -> str:
    (action,) = parse_actions(text, workspace, CORE)
    return action.problem or action.hint or action.verb


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Move `tools/hook.sh` to `.git/hooks/pre-commit`", "in a .git folder"),
        ('Append "[core] fsmonitor = x" to `.git/config`', "in a .git folder"),
        ("Create `.GIT/config`", "in a .git folder"),
        ("Copy `docs/*.md` to out/", "not a file's name"),
        ("Move `notes-${date}.md` to old/", "not a file's name"),
        ('Append "x" to `<date>.log`', "not a file's name"),
        ('Append "x" to `.trash/note`', "Spellbook's own file"),
        ("Delete `.intent.json`", "Spellbook's own file"),
        ("Set big in r.json to 1e400", "not a JSON value"),
        ("Set big in r.json to NaN", "not a JSON value"),
        # a text line after a JSON value breaks the file every later cast reads
        ('Append "reviewed" to review.json', "makes it no JSON"),
        # a Response's placeholder is no action's: it was written as it is
        ('Append "{{archive_path}}" to log.md', "a Response's placeholder"),
        # a file named `done` was made, where the folder done/ was most likely meant
        ("Move a.md to done", "write `Move a.md to done/` for the folder done"),
        ("Copy draft.md to backup", "or `Copy draft.md to backup.md` for a file"),
    ],
)
def test_an_action_no_spec_may_take_is_refused_when_it_is_read(text: str, said: str) -> None:
    assert said in problem(text)


def test_create_makes_every_file_it_names() -> None:
    """`Create F and G`, `Create F, G`: a file made for each, as Delete reads `F and G`."""
    for text in ("Create plan.md and task.md", "Create plan.md, task.md"):
        actions = parse_actions(text, WS, SPELL)
        assert [(a.verb, a.files, a.target) for a in actions] == [
            ("create", ("plan.md",), "plan.md"),
            ("create", ("task.md",), "task.md"),
        ], text
    actions = parse_actions("Create empty a.md and b.md", "", CORE)
    assert [(a.verb, a.files, a.target) for a in actions] == [
        ("create", ("a.md",), ""),
        ("create", ("b.md",), ""),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Create plan.md & task.md",
        "Create plan.md in drafts/",
        "Create `plan.md` from `templates/plan.md` and post to #releases",
        'Create plan.md then append "sign-off requested" to log.md',
        "Create empty plan.md and tell the team",
        "Create plan.md and task.md from `templates/plan.md`",
        "Create plan.md with a summary and post to #releases",
        "Create `plan.md` with the criteria, and then notify the reviewer",
        "Create task.md template with YAML frontmatter and commit it",
        # values for the file, which its template does not carry out
        'Create task.md with {"approved": false}',
        "Create task.md with approved set to true",
        'Create task.md with "status": "draft"',
        "Create task.md with status = done",
    ],
)
def test_create_never_drops_the_words_after_its_file(text: str) -> None:
    """Words Create does not read after its files make the phrase the AI's, aimed at
    Create (an `unread_verb` warning), never a file made and the words dropped."""
    (action,) = parse_actions(text, WS, SPELL)
    assert action.verb == "instruct"
    aim = aimed_at(text, SPELL, COUNTERS)
    assert aim is not None and aim.verb == "create"


@pytest.mark.parametrize(
    "text",
    [
        "Create `.ai/task/review-task.md` with structured template including sections for "
        "task summary, specific tasks, and acceptance criteria",
        "Create plan.md with sections for the goal and the run instructions",
        "Create task.md with YAML frontmatter and a checklist",
    ],
)
def test_what_a_template_holds_said_after_create_is_not_a_step(text: str) -> None:
    """`with ...` after a file that has a template says what the template holds, nouns
    joined by `and` included: the file is made from it."""
    (action,) = parse_actions(text, WS, SPELL)
    assert action.verb == "create" and not action.problem, action


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("Reset attempts to 0 and delete notes.md", "reset"),
        ("Increment attempts twice", "increment"),
        ("Reset unknown_counter and tell the team", "reset"),
        ('Append "scrapped ${date}" to log.md and commit it', "append"),
    ],
)
def test_a_counter_or_append_phrase_with_more_words_is_aimed_at_its_verb(
    text: str, verb: str
) -> None:
    """More words after what the verb acts on: not read, and aimed at the verb (a
    warning), as `Delete F and tell the team` is."""
    (action,) = parse_actions(text, WS, SPELL)
    assert action.verb == "instruct"
    aim = aimed_at(text, SPELL, COUNTERS)
    assert aim is not None and aim.verb == verb
