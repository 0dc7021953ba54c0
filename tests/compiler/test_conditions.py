"""The condition language: core phrases, vocabulary nouns, terms, procedures, OR, unknowns.

What could hang the reader or change a meaning without a word (patterns that
backtrack, malformed JSON queries, alternatives and terms that multiply, paths
outside the workspace) is a finding that says why; and whatever the text, the
reader returns a condition (fuzzed).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen import load_spec, parse_spec_text
from codegen.analyse import SEVERITY, analyse
from codegen.analyse.spec_checks import _alike
from codegen.logic import describe
from codegen.model import LiteralSpec, Term
from codegen.read.conditions import Words, parse_condition
from codegen.read.lexicon import Lexicon, ReadOptions
from tests.support.fuzzing import TEXT, fuzz
from tests.support.specs import fill, findings_of, row, spec_text, spec_with

SEED = Path(__file__).resolve().parents[1] / "data" / "fixtures" / "seed_spec.md"
SPELL = Lexicon.of(ReadOptions("spell_workflow"))
SESSION = Lexicon.of(ReadOptions("coding_session"))
AC = "Acceptance Criteria"

ROOT = Path(__file__).resolve().parents[2]


def lits(text: str, lexicon: Lexicon = SPELL) -> list[tuple[str, str, str, bool]]:
    """The one alternative of a condition, as (probe, file, param, sign) each."""
    cond = parse_condition(text, lexicon, ".ai/task")
    assert cond.unknown == (), cond.unknown
    (clause,) = cond.clauses
    return [(lit.atom.probe, lit.atom.file, lit.atom.param, lit.positive) for lit in clause]


def alternatives(text: str, lexicon: Lexicon = SPELL) -> list[list[tuple[str, str, bool]]]:
    cond = parse_condition(text, lexicon, ".ai/task")
    assert cond.unknown == (), cond.unknown
    return [[(lit.atom.probe, lit.atom.file, lit.positive) for lit in c] for c in cond.clauses]


@pytest.mark.parametrize("text", ["-", "", "  -  ", "—", "always"])
def test_always(text: str) -> None:
    cond = parse_condition(text)
    assert cond.always and cond.unknown == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("task.md exists", [("exists", "task.md", "", True)]),
        ("plan.md missing", [("exists", "plan.md", "", False)]),
        ("plan.md is absent", [("exists", "plan.md", "", False)]),
        ("there is no task.md", [("exists", "task.md", "", False)]),
        ("task.md doesn't exist", [("exists", "task.md", "", False)]),
        ("task.md does not exist", [("exists", "task.md", "", False)]),
        ("`.ai/task/plan.md` is present", [("exists", "plan.md", "", True)]),
        ("review-task-results.md is missing", [("exists", "review-task-results.md", "", False)]),
        ("plan.md matches `^## Risks`", [("matches", "plan.md", "^## Risks", True)]),
        ("plan.md contains `a.b`", [("matches", "plan.md", r"a\.b", True)]),
        ('plan.md has checklist items under "Risks"', [("items", "plan.md", "Risks", True)]),
        (
            'plan.md has no unchecked items under "Risks"',
            [("unchecked", "plan.md", "Risks", False), ("section", "plan.md", "Risks", True)],
        ),
        ("x.json has `a[b=c]`", [("field", "x.json", "a[b=c]", True)]),
        ("attempts < 3", [("below", "", "attempts<3", True)]),
        ("attempts ≥ 3", [("below", "", "attempts<3", False)]),
        ("in this state for more than 30 minutes", [("over_minutes", "", "30", True)]),
        ("the command `lint` of x.json passes", [("passes", "x.json", "lint", True)]),
        ("PR review in progress (comments.md exists)", [("exists", "comments.md", "", True)]),
        (
            "review started (comments.md exists, review-task.md missing)",
            [("exists", "comments.md", "", True), ("exists", "review-task.md", "", False)],
        ),
        ("NOT plan.md exists", [("exists", "plan.md", "", False)]),
    ],
)
def test_core_phrases(text: str, expected: list[tuple[str, str, str, bool]]) -> None:
    assert lits(text, Lexicon()) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("≥1 AC in plan.md", [("items", "plan.md", AC, True)]),
        (">= 1 AC in plan.md", [("items", "plan.md", AC, True)]),
        ("at least one acceptance criterion in plan.md", [("items", "plan.md", AC, True)]),
        ("No AC in plan.md", [("items", "plan.md", AC, False), ("section", "plan.md", AC, True)]),
        (
            "No unchecked AC in plan.md",
            [("unchecked", "plan.md", AC, False), ("section", "plan.md", AC, True)],
        ),
        ("≥1 unchecked AC in plan.md", [("unchecked", "plan.md", AC, True)]),
        (
            "plan.md has no acceptance criteria",
            [("items", "plan.md", AC, False), ("section", "plan.md", AC, True)],
        ),
    ],
)
def test_vocabulary_nouns(text: str, expected: list[tuple[str, str, str, bool]]) -> None:
    assert lits(text) == expected


def test_atlassian_urls_default_to_the_plan() -> None:
    ((probe, file, _, sign),) = lits("No Atlassian URLs found")
    assert (probe, file, sign) == ("matches", "plan.md", False)


def test_a_vocabulary_noun_is_unknown_without_the_vocabulary() -> None:
    assert parse_condition("≥1 AC in plan.md", Lexicon()).unknown == ("≥1 AC in plan.md",)


def test_clauses_join_with_and_semicolons_and_commas_in_order() -> None:
    expected = [
        ("items", "plan.md", AC, True),
        ("exists", "task.md", "", False),
        ("exists", "plan.md", "", True),
    ]
    assert lits("≥1 AC in plan.md AND task.md doesn't exist AND plan.md exists") == expected
    assert lits("≥1 AC in plan.md; task.md doesn't exist; plan.md exists") == expected
    assert lits("≥1 AC in plan.md, task.md doesn't exist, plan.md exists") == expected


def test_or_gives_alternatives_and_binds_looser_than_and() -> None:
    assert alternatives("plan.md is absent OR task.md exists AND comments.md missing") == [
        [("exists", "plan.md", False)],
        [("exists", "task.md", True), ("exists", "comments.md", False)],
    ]


def test_not_of_alternatives_is_every_alternative_false() -> None:
    found = alternatives("NOT PR review (comments.md exists)")
    assert found == [[("exists", "comments.md", False)]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Reads `.ai/task/plan.md` content; Counts acceptance criteria (lines starting with "
            "`- [ ]`) (finds ≥1); Checks `.ai/task/task.md` exists (doesn't exist)",
            [
                ("exists", "plan.md", "", True),
                ("unchecked", "plan.md", AC, True),
                ("exists", "task.md", "", False),
            ],
        ),
        (
            "Reads `.ai/task/plan.md` content; Counts acceptance criteria (finds 0)",
            [
                ("exists", "plan.md", "", True),
                ("items", "plan.md", AC, False),
                ("section", "plan.md", AC, True),
            ],
        ),
        (
            "Reads `.ai/task/context.md` content; "
            "Extracts Atlassian URLs from content (finds some)",
            [("exists", "context.md", "", True), ("matches", "context.md", "*", True)],
        ),
        (
            "Reads `.ai/task/context.md` content; "
            "Extracts Atlassian URLs from content (finds none)",
            [("exists", "context.md", "", True), ("matches", "context.md", "*", False)],
        ),
        ("Checks `.ai/task/plan.md` exists (missing)", [("exists", "plan.md", "", False)]),
        ("Checks `.ai/task/plan.md` exists (exists)", [("exists", "plan.md", "", True)]),
        ("Checks plan.md for acceptance criteria (finds some)", [("items", "plan.md", AC, True)]),
    ],
)
def test_procedural_steps(text: str, expected: list[tuple[str, str, str, bool]]) -> None:
    found = lits(text)
    # The pattern of a noun is the vocabulary's business; `*` stands for it here.
    assert [(p, f, "*" if p == "matches" else a, s) for p, f, a, s in found] == expected


def test_a_step_about_a_file_the_core_cannot_check_is_unknown() -> None:
    text = (
        "Reads `.ai/task/plan.md` content; Checks `.ai/task/.atlassian-refs` for processed "
        "URLs (finds unprocessed URLs)"
    )
    cond = parse_condition(text, SPELL, ".ai/task")
    assert cond.unknown == (
        "Checks `.ai/task/.atlassian-refs` for processed URLs (finds unprocessed URLs)",
    )


def test_terms_are_read_by_their_meaning_and_the_spec_s_come_first() -> None:
    own = SPELL.with_terms(
        [
            Term("No PR review in progress", "comments.md missing AND review-task.md missing"),
            Term("plan.md mentions a GitHub issue", r"plan.md matches `github\.com/.+/issues/\d+`"),
        ]
    )
    assert lits("No PR review in progress", own) == [
        ("exists", "comments.md", "", False),
        ("exists", "review-task.md", "", False),
    ]
    assert lits("plan.md mentions a GitHub issue", own) == [
        ("matches", "plan.md", r"github\.com/.+/issues/\d+", True)
    ]
    # Without the spec's term, the phrase is not the compiler's to know.
    assert parse_condition("No PR review in progress", SPELL).unknown == (
        "No PR review in progress",
    )


def test_a_term_that_names_itself_is_unknown_not_a_hang() -> None:
    own = Lexicon().with_terms([Term("loop", "loop AND plan.md exists")])
    assert parse_condition("loop", own).unknown == ("loop",)


def test_a_term_gives_its_words_to_the_fact_it_names() -> None:
    words = Words()
    cond = parse_condition("tests fail", SESSION, "", words)
    (atom,) = cond.atoms
    assert words.said[atom][1] == "tests fail"
    assert describe(LiteralSpec(atom, False), words.said) == "tests fail"


def test_session_nouns_are_json_queries() -> None:
    assert lits("feature-list.json has another pending feature", SESSION) == [
        ("field", "feature-list.json", "features[status=pending][id!=$feature_id]", True)
    ]
    assert lits("feature-list.json has no pending feature", SESSION) == [
        ("field", "feature-list.json", "features[status=pending]", False)
    ]


def test_unknown_phrase_is_kept_and_reported_once_with_its_rows() -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row("U1", "A", "Go", condition="plan.md exists AND moon is full"),
        row("U2", "B", "Go", condition="moon is full"),
    ]
    text = spec_text(states, spells, rows + fill(states, spells, ["A/Go", "B/Go"]))
    spec = parse_spec_text(text)
    (rule,) = [r for r in spec.rows if r.id == "U1"]
    assert rule.condition.unknown == ("moon is full",)
    assert [lit.atom.probe for lit in rule.condition.literals] == ["exists", "unknown"]
    (finding,) = findings_of(text)
    assert (finding.kind, finding.rule, finding.line) == ("unknown_condition", "U1", rule.line)
    assert "rules U1, U2" in finding.message
    # The row still covers its cell.
    assert [r.id for r in spec.cell("A", "Go")] == ["U1"]


def test_unknown_phrase_gets_a_suggestion() -> None:
    states, spells = ["A"], ["Go"]
    text = spec_text(states, spells, [row("U1", "A", "Go", condition="task.md exsts")])
    (finding,) = findings_of(text)
    assert "did you mean 'task.md exists'?" in finding.message


@pytest.mark.parametrize(
    ("written", "offered"),
    [
        ("unless task.md exists", "NOT task.md exists"),
        ("Unless task.md exsts", "NOT task.md exists"),
        ("except when task.md exists", "NOT task.md exists"),
        ("not yet task.md exists", "NOT task.md exists"),
        ("not task.md exists", "NOT task.md exists"),
    ],
)
def test_a_phrase_denied_in_words_is_offered_its_negation(written: str, offered: str) -> None:
    # `unless X` is X in letters and its opposite in sense: offering X would have the
    # author write the very condition the row does not mean.
    states, spells = ["A"], ["Go"]
    text = spec_text(states, spells, [row("U1", "A", "Go", condition=written)])
    (finding,) = findings_of(text)
    assert f"did you mean {offered!r}?" in finding.message, finding.message


@pytest.mark.parametrize(
    ("written", "not_offered"),
    [
        ("attempts is 3", "attempts < 3"),
        ("attempts ~ 3", "attempts < 3"),
        ("task.md is not there", "task.md exists"),
    ],
)
def test_no_suggestion_says_another_comparison_or_sense(written: str, not_offered: str) -> None:
    """A did-you-mean is a spelling of the same condition: never another operator, number
    or negation, which would offer the opposite (`attempts is 3` -> `attempts < 3`)."""
    text = spec_text(["A"], ["Go"], [row("U1", "A", "Go", condition=written)])
    (finding,) = findings_of(text)
    assert finding.kind == "unknown_condition"
    assert f"did you mean {not_offered!r}" not in finding.message, finding.message


@pytest.mark.parametrize(
    ("one", "other", "alike"),
    [
        ("a.json has `n` ≥ 2", "a.json has `n` ⩾ 2", True),
        ("a.json has `n` ≤ 2", "a.json has `n` ≦ 2", True),
        ("a.json has `n` = 2", "a.json has `n` == 2", True),
        ("a.json has `n` ≥ 2", "a.json has `n` ⩽ 2", False),
    ],
)
def test_a_suggestion_s_sense_reads_comparisons_by_the_one_table(
    one: str, other: str, alike: bool
) -> None:
    """Whether a did-you-mean says the same comparison is `core_phrases._OPS`'s to say:
    `⩾` is `≥` there, so it is here."""
    assert _alike(one, other) is alike


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("[attempts >= 3]", "attempts >= 3"),
        ("[ attempts < 3 AND task.md exists ]", "attempts < 3 AND task.md exists"),
        ("[task.md contains `[x]`]", "task.md contains `[x]`"),
    ],
)
def test_a_uml_guard_s_brackets_around_the_whole_cell_are_dropped(written: str, meant: str) -> None:
    """`[attempts >= 3]` in a Condition cell is read as an Event cell's `event [guard]` is."""
    found = parse_condition(written)
    assert not found.unknown
    assert found.clauses == parse_condition(meant).clauses


@pytest.mark.parametrize("written", ["[x] AND [y]", "[ ]", "[]"])
def test_brackets_that_do_not_hold_the_whole_cell_stay(written: str) -> None:
    assert parse_condition(written).unknown


@pytest.mark.parametrize(
    ("written", "vacuous"),
    [
        ("attempts >= 0", ["attempts >= 0"]),
        ("attempts > -1 AND task.md exists", ["attempts > -1"]),
        ("retry allowed (attempts != -1)", ["attempts != -1"]),
        ("count of `x` in a.json ≥ 0", ["count of `x` in a.json ≥ 0"]),
        # Not read, so nothing read always: the reason is the cell's.
        ("attempts >= 0 and task.md exists", []),
        ("attempts >= 0 AND the moon is full", ["attempts >= 0"]),
        ("attempts < 0", []),
    ],
)
def test_a_comparison_that_always_holds_is_read_as_always_and_kept_for_advice(
    written: str, vacuous: list[str]
) -> None:
    """`attempts >= 0` holds of every counter: it reads as always (`((),)` of its own),
    and the condition keeps the phrase with why, for the `always_holds` warning."""
    found = parse_condition(written)
    assert [phrase for phrase, _ in found.vacuous] == vacuous
    assert all("always holds" in why for _, why in found.vacuous)
    if vacuous == [written]:
        assert found.clauses == ((),) and not found.unknown


def test_a_comparison_that_always_holds_is_a_warning_and_the_row_fires_always() -> None:
    """Not an error with an info that the row never fires: a warning to write `-`, and
    no gap where the counter is 0 or more."""
    rows = [
        row("U1", "A", "Go", "tries >= 0", "B"),
        row("U2", "B", "Go", "-", "A", "Increment tries"),
    ]
    findings = findings_of(spec_text(["A", "B"], ["Go"], rows), set(SEVERITY))
    kinds = [f.kind for f in findings]
    assert "always_holds" in kinds and "unknown_condition" not in kinds, findings
    assert not [f for f in findings if f.kind in ("gap", "unlisted_gap", "dead_rule")]
    (advice,) = [f for f in findings if f.kind == "always_holds"]
    assert (advice.rule, advice.severity.value) == ("U1", "warning")
    assert "write `-`" in advice.message and "a counter ≥ 0 always holds" in advice.message


def test_seed_conditions_are_read_but_for_the_phrase_it_defines_only_in_prose() -> None:
    spec = load_spec(SEED)
    assert {u for r in spec.rows for u in r.condition.unknown} == {"No PR review in progress"}
    atoms = sorted(
        {(a.probe, a.file) for r in spec.rows for a in r.condition.atoms if a.probe != "unknown"}
    )
    assert atoms == [
        ("exists", "comments.md"),
        ("exists", "plan.md"),
        ("exists", "review-task-results.md"),
        ("exists", "review-task.md"),
        ("exists", "task-results.md"),
        ("exists", "task.md"),
        ("items", "plan.md"),
        ("matches", "plan.md"),
        ("section", "plan.md"),
        ("unchecked", "plan.md"),
    ]


def test_a_broken_term_is_reported_at_the_term_not_again_where_it_is_negated() -> None:
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row("U1", "A", "Go", condition="signed", nxt="B"),
        row("U2", "A", "Go", condition="NOT signed"),
    ]
    text = spec_text(states, spells, rows + fill(states, spells, ["A/Go"]))
    text = text.replace(
        "### Transition Rules",
        "| Phrase | Means |\n|---|---|\n| signed | the ink is dry |\n\n### Transition Rules",
    )
    found = findings_of(text, {"unknown_condition", "unknown_term"})
    assert [f.kind for f in found] == ["unknown_term"]
    assert "rules U1, U2 use it" in found[0].message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A label is words, even when they start with "not": only NOT negates.
        ("not started yet (task.md missing)", [[("exists", "task.md", False)]]),
        # Parentheses group.
        (
            "(plan.md missing OR task.md exists) AND comments.md missing",
            [
                [("exists", "plan.md", False), ("exists", "comments.md", False)],
                [("exists", "task.md", True), ("exists", "comments.md", False)],
            ],
        ),
        (
            "NOT (x.md exists OR y.md exists)",
            [[("exists", "x.md", False), ("exists", "y.md", False)]],
        ),
    ],
)
def test_grouping_and_negation(text: str, expected: list[list[tuple[str, str, bool]]]) -> None:
    assert [sorted(c) for c in alternatives(text, Lexicon())] == [sorted(c) for c in expected]


@pytest.mark.parametrize(
    "text",
    [
        "Counts acceptance criteria (finds 5)",  # not ≥1, not 0: an outcome the core cannot say
        "plan.md has no unchecked items under Acceptance Criteria and the review is done",
        "; ; ;",
        "plan.md contains “a; b",  # an unclosed quote does not hide a separator
    ],
)
def test_what_cannot_be_read_exactly_is_unknown_not_approximated(text: str) -> None:
    assert parse_condition(text, SPELL, ".ai/task").unknown


def test_curly_quotes_keep_their_separators() -> None:
    assert lits("plan.md contains “a; b”", Lexicon()) == [("matches", "plan.md", "a;\\ b", True)]


def test_the_outcome_the_core_cannot_say_is_named() -> None:
    cond = parse_condition("Checks `.ai/task/plan.md` exists (twice)", SPELL, ".ai/task")
    assert "the outcome (twice) is not one the core reads" in dict(cond.why)[cond.unknown[0]]


def test_indicators_split_at_commas_and_keep_code() -> None:
    from codegen.read.conditions import parse_indicators

    found, complete = parse_indicators("`plan.md` exists, `task.md` missing", Lexicon())
    assert complete and [(lit.atom.file, lit.positive) for lit in found] == [
        ("plan.md", True),
        ("task.md", False),
    ]
    found, complete = parse_indicators("plan.md contains `status: done`", Lexicon())
    assert complete and found[0].atom.probe == "matches"


def test_paths_are_relative_to_the_workspace_the_same_way_everywhere() -> None:
    from codegen.read.action_phrases import parse_actions

    (create,) = parse_actions("Create ./.ai/task/plan.md from template", ".ai/task", SPELL)
    assert create.files == ("plan.md",)
    assert lits("`./.ai/task/plan.md` exists", Lexicon()) == [("exists", "plan.md", "", True)]


# The vocabulary's nouns, and terms that name each other, for the condition parser.
LEXICON = Lexicon.of(ReadOptions("spell_workflow")).with_terms(
    [Term("busy", "comments.md exists OR idle"), Term("idle", "NOT busy AND plan.md missing")]
)
CONDITION_WORDS = st.lists(
    st.sampled_from(
        [
            " AND ", " OR ", "; ", ", ", "NOT ", "(", ")", "`", "plan.md", " exists", " missing",
            "≥1 AC in ", "No ", "Reads ", " content", "Counts ", "acceptance criteria",
            " (finds ≥1)", " (finds none)", "Checks ", "busy", "idle", "attempts < 3",
        ]
    )
    | st.text(max_size=5),
    max_size=25,
).map("".join)  # fmt: skip


@fuzz(5_000)
@given(TEXT | CONDITION_WORDS)
def test_condition_parser_returns_a_condition(text: str) -> None:
    condition = parse_condition(text, LEXICON, ".ai/task")
    for literal in condition.literals:
        assert literal.atom.name
    assert condition.always or condition.clauses or not condition.unknown


def unknown(text: str) -> list[str]:
    return [f.message for f in analyse(parse_spec_text(text)) if f.kind == "unknown_condition"]


def run(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-"],
        input=textwrap.dedent(code),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(\w+)-\1", "a backreference needs backtracking"),
        ("(?P<n>a)(?P=n)", "a backreference needs backtracking"),
        ("(?<=v)[0-9]+", "a lookahead or lookbehind needs backtracking"),
        ("TODO(?!:)", "a lookahead or lookbehind needs backtracking"),
        (r"done\Z", "RE2 has no `\\Z`"),
        (r"(a\|b)*a(a\|b){400}x", "more than 1000"),
        ("a{99999999999}", "is not a regular expression"),
        ("(unclosed", "is not a regular expression"),
    ],
)
def test_a_pattern_that_cannot_run_in_linear_time_or_compile_is_refused_with_why(
    pattern: str, why: str
) -> None:
    text = spec_with(f"x.md matches `{pattern}`")
    (finding,) = [f for f in analyse(parse_spec_text(text)) if f.kind == "unknown_condition"]
    assert why in finding.message
    assert "cannot run in linear time" in finding.message or "not a regular" in finding.message
    assert text.splitlines()[finding.line - 1].startswith("| T1 |")  # the row is named


@pytest.mark.parametrize("pattern", ["(a+)+$", r"(x\|y*){2,}", r"^(\w+\s?)+$", "[A-Z]+-\\d+"])
def test_a_nested_or_adjacent_repeat_is_read_since_it_runs_in_linear_time(pattern: str) -> None:
    assert unknown(spec_with(f"x.md matches `{pattern}`")) == []


def test_a_bar_escaped_in_a_table_cell_is_a_bar_in_the_pattern() -> None:
    spec = parse_spec_text(spec_with(r"x.md matches `foo\|bar`"))
    (t1,) = [r for r in spec.rows if r.id == "T1"]
    assert t1.condition.atoms[0].param == "foo|bar"


def test_contains_is_literal_but_a_file_named_contain_is_not() -> None:
    spec = parse_spec_text(spec_with(r"containers.md matches `^a+$`"))
    (t1,) = [r for r in spec.rows if r.id == "T1"]
    assert t1.condition.atoms[0].param == "^a+$"


@pytest.mark.parametrize("query", ["x]", "[", "a[b=c", "items[status]", "$", "a..b"])
def test_a_malformed_query_is_refused_with_what_a_query_is(query: str) -> None:
    (message,) = unknown(spec_with(f"list.json has `{query}`"))
    assert "is not a query" in message


def test_a_query_on_a_file_that_is_not_json_says_to_use_contains() -> None:
    (message,) = unknown(spec_with("notes.md has `TODO`"))
    assert "not a JSON file" in message and "contains" in message


def test_alternatives_are_kept_whole_up_to_the_limit_and_past_it_are_unknown() -> None:
    def condition(n: int) -> tuple[str, str]:
        terms = "\n".join(f"| p{k} | a{k}.md exists OR b{k}.md exists |" for k in range(1, n))
        return " AND ".join(f"p{k}" for k in range(1, n)) + " AND a1.md missing", terms

    # b1 and one of a_k, b_k for k = 2..7: all 64 alternatives, none dropped.
    spec = parse_spec_text(spec_with(*condition(8)))
    (t1,) = [r for r in spec.rows if r.id == "T1"]
    assert len(t1.condition.clauses) == 64 and not t1.condition.unknown
    (message,) = unknown(spec_with(*condition(9)))
    assert "multiply past 64" in message


def test_terms_that_fan_out_deeply_are_read_once_each() -> None:
    terms = ["| t0 | x.md exists |"] + [
        f"| t{k} | " + " AND ".join([f"t{k - 1}"] * 5) + " |" for k in range(1, 9)
    ]
    text = spec_with("t8", "\n".join(terms))
    result = run(
        f"""
        from codegen import parse_spec_text
        spec = parse_spec_text({text!r})
        print(spec.rules[0].condition.clauses)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "x.md" in result.stdout


def test_a_very_long_conjunction_and_a_very_long_word_are_read_in_bounded_time() -> None:
    clauses = " AND ".join(f"f{i}.md exists" for i in range(3000))
    word = "x" * 100_000
    result = run(
        f"""
        from codegen import parse_spec_text
        from codegen.analyse import analyse
        from tests.support.specs import spec_text, row
        for condition in ({clauses!r}, {word!r}):
            text = spec_text(["A"], ["Go"], [row("T1", "A", "Go", condition)])
            analyse(parse_spec_text(text))
        print("ok")
        """,
        timeout=120,
    )
    assert result.stdout.strip() == "ok", result.stderr


def test_terms_deeper_than_the_limit_say_so() -> None:
    terms = ["| t0 | x.md exists |"] + [f"| t{k} | t{k - 1} |" for k in range(1, 70)]
    messages = [
        f.message
        for f in analyse(parse_spec_text(spec_with("t69", "\n".join(terms))))
        if f.kind == "unknown_term"
    ]
    assert any("more than 64 deep" in m for m in messages)


def test_a_term_defined_twice_is_reported_and_the_first_definition_used() -> None:
    text = spec_with("ready", "| ready | x.md exists |\n| Ready. | y.md exists |")
    spec = parse_spec_text(text)
    (t1,) = [r for r in spec.rows if r.id == "T1"]
    assert [a.file for a in t1.condition.atoms] == ["x.md"]
    (found,) = [f for f in analyse(spec) if f.kind == "term_conflict"]
    assert found.severity.value == "error"


def test_a_glossary_for_readers_does_not_fail_verification() -> None:
    text = spec_with("-", "| idempotent | doing it twice does what doing it once does |")
    (found,) = [f for f in analyse(parse_spec_text(text)) if f.kind == "unknown_term"]
    assert found.severity.value == "info" and "no rule uses it" in found.message


def test_a_term_a_rule_uses_through_another_term_is_never_unused() -> None:
    terms = "| door open | open.flag exists AND hinges creak |\n| hinges creak | the hinges creak |"
    found = [
        f
        for f in analyse(parse_spec_text(spec_with("door open", terms)))
        if f.kind == "unknown_term"
    ]
    assert sorted((f.message.split("'")[1], f.severity.value) for f in found) == [
        ("door open", "error"),
        ("hinges creak", "error"),
    ]
    assert all(f.message.endswith("rule T1 uses it") for f in found)


def test_a_misspelt_fact_in_a_term_is_offered_the_fact_it_is_close_to() -> None:
    # a row's `plan.md matchs ...` was offered `matches`; a term's got no hint at all
    text = spec_with("it is done", "| it is done | plan.md matchs `^Done` |")
    (found,) = [f for f in analyse(parse_spec_text(text)) if f.kind == "unknown_term"]
    assert "'plan.md matchs `^Done`' (did you mean 'plan.md matches `pattern`'?)" in found.message


_COUNTED_WORDS = b"""# Review words

## Nouns

| Noun | Also written | Fact | File | Said |
| --- | --- | --- | --- | --- |
| approval | approvals | `reviewers[approved=true]` | review.json | |
| open question | open questions | unchecked items under "Questions" | draft.md | |
"""


def test_a_count_of_a_noun_counts_what_the_noun_s_query_selects() -> None:
    # `count of approvals in review.json ≥ 2` counted a key `approvals`, which review.json
    # never has: the rule never fired, verified OK.
    from codegen.read.vocabulary_file import lexicon_at

    words = lexicon_at("review-words.md", _COUNTED_WORDS, {}, "words/review.md")
    read = parse_condition("count of approvals in review.json ≥ 2", words, "", Words())
    ((literal,),) = read.clauses
    assert (literal.atom.probe, literal.atom.param) == (
        "count_at_least",
        "2 reviewers[approved=true]",
    )
    # a noun of another file, or of another fact, is no count of this file's values
    text = _COUNTED_WORDS.replace(b"open question | open questions", b"question | questions")
    other = lexicon_at("review-words-2.md", text, {}, "words/review.md")
    for phrase, lexicon in (
        ("count of approvals in draft.json ≥ 2", words),
        ("count of questions in review.json ≥ 1", other),
    ):
        read = parse_condition(phrase, lexicon, "", Words())
        assert read.unknown and "counts no values of" in dict(read.why)[read.unknown[0]]


@pytest.mark.parametrize(
    ("phrase", "param", "positive"),
    [
        ("at least 2 approvals in review.json", "2 reviewers[approved=true]", True),
        ("≥2 approvals in review.json", "2 reviewers[approved=true]", True),
        ("2 or more approvals in review.json", "2 reviewers[approved=true]", True),
        ("review.json has more than 2 approvals", "3 reviewers[approved=true]", True),
        ("fewer than 3 approvals in review.json", "3 reviewers[approved=true]", False),
    ],
)
def test_a_count_of_a_noun_said_in_words_is_the_count(
    phrase: str, param: str, positive: bool
) -> None:
    # `≥2 approvals in reviewers.json` was an unknown condition, telling the author to
    # give the vocabulary a noun it has.
    from codegen.read.vocabulary_file import lexicon_at

    words = lexicon_at("review-words.md", _COUNTED_WORDS, {}, "words/review.md")
    read = parse_condition(phrase, words, "", Words())
    ((literal,),) = read.clauses
    assert (literal.atom.probe, literal.atom.param, literal.positive) == (
        "count_at_least",
        param,
        positive,
    )


def test_a_path_outside_the_workspace_is_refused_by_the_verifier() -> None:
    text = spec_with("../outside.md exists")
    (message,) = unknown(text)
    assert "outside the workspace folder" in message


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # Not a counter `finds ≥ 1` under the label "Counts mitigation steps".
        ("Counts mitigation steps (finds ≥1)", "(finds ≥1) is the outcome of a procedure's step"),
        ("Counts mitigation steps (finds ≥2)", "(finds ≥2) is the outcome of a procedure's step"),
        # Not "a file named `responders[...]` exists".
        (
            "Checks `responders[role=primary][acked=true]` (finds some)",
            "(finds some) is what a search finds",
        ),
        ("Checks `.ai/task/plan.md` (finds ≥1)", "names nothing to search for"),
        # A pattern that can never match: `$` ends the line.
        ("CHANGELOG.md matches `^## \\[$version\\]`", "has `$version`, which can never match"),
        ("CHANGELOG.md matches `v${version}`", "has `${version}`, which can never match"),
    ],
)
def test_words_that_would_read_as_another_fact_are_refused_with_why(text: str, why: str) -> None:
    cond = parse_condition(text, SPELL, ".ai/task")
    assert cond.unknown == (text,), cond.clauses
    assert why in dict(cond.why)[text]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Plan ready (plan.md exists)", [("exists", "plan.md", "", True)]),
        ("Checks `.ai/task/plan.md` (missing)", [("exists", "plan.md", "", False)]),
        ("Checks `.ai/task/plan.md` (not found)", [("exists", "plan.md", "", False)]),
        ("Counts acceptance criteria (finds ≥1)", [("items", "plan.md", AC, True)]),
        ("plan.md matches `done$`", [("matches", "plan.md", "done$", True)]),
        ("plan.md matches `^\\$version`", [("matches", "plan.md", "^\\$version", True)]),
        ("plan.md matches `[$x]`", [("matches", "plan.md", "[$x]", True)]),
        ("plan.md matches `(a|b$)`", [("matches", "plan.md", "(a|b$)", True)]),
    ],
)
def test_the_forms_beside_them_still_read(
    text: str, expected: list[tuple[str, str, str, bool]]
) -> None:
    assert lits(text) == expected


def test_a_pattern_that_can_never_match_is_an_error_at_its_line() -> None:
    (message,) = unknown(spec_with("x.md matches `^v$version`"))
    assert "`$version`, which can never match" in message


def test_the_negation_of_a_term_too_large_to_negate_is_an_error_not_a_silent_fact() -> None:
    # NOT of 16 alternatives of two facts each: 2^16 clauses, past the limit. The row is
    # read as a fact nothing defines; before, no finding said so, and the cell's worlds
    # counted it as a 17th fact the files could make true.
    term = " OR ".join(f"(a{k}.md exists AND b{k}.md exists)" for k in range(16))
    (message,) = unknown(spec_with("NOT ready", f"| ready | {term} |"))
    assert "'NOT ready'" in message and "multiply past 64" in message
    assert "`-`" in message  # and how to write it instead


def test_a_file_s_template_in_the_project_says_which_sections_and_keys_it_has(
    tmp_path: Path,
) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "checks.md").write_text("# Checks\n\n## Preflight\n\n- [ ] Backups\n")
    (templates / "list.json").write_text('{"features": [{"id": "F-1"}], "owner": null}\n')
    (templates / "blank.md").write_text("Anything goes.\n")
    options = ReadOptions(folder=str(tmp_path), templates=str(templates), root=str(tmp_path))
    rows = {
        'checks.md has no unchecked items under "Pre-flight"': 'did you mean "Preflight"?',
        'checks.md has at least 2 checked items under "Rollback"': '"Checks", "Preflight"',
        "list.json has `feature[id=F-1]`": "no key `feature`: its keys are `features`, `owner`",
        "list.json has `features` = true": "selects objects",
        "list.json has `features` ≥ 2": "count of `features` in list.json ≥ N",
    }
    for condition, why in rows.items():
        spec = parse_spec_text(spec_with(condition), options=options)
        found = [f for f in analyse(spec) if f.kind == "unknown_condition"]
        assert len(found) == 1 and why in found[0].message, (condition, found)
        assert "T1" in found[0].message, found[0].message
    # What the template has reads; a file with no template, or one with no heading, is
    # not checked.
    for condition in (
        'checks.md has no unchecked items under "preflight"',
        'list.json has `features[id=F-1].id` = "F-1"',
        "list.json has at least 2 `features`",
        "list.json has `owner` = null",
        'notes.md has text under "Anything"',
        'blank.md has text under "Anything"',
    ):
        spec = parse_spec_text(spec_with(condition), options=options)
        assert not [f for f in analyse(spec) if f.kind == "unknown_condition"], condition


def test_the_verifier_reasons_with_counts_of_a_query() -> None:
    pending = "features[status=pending]"
    # Some pending feature, or none: every world, and never both.
    cells = [
        (f"feature-list.json has `{pending}`", f"count of {pending} in feature-list.json = 0"),
        (
            f"feature-list.json has at least 2 `{pending}`",
            f"feature-list.json has fewer than 2 `{pending}`",
        ),
        (
            f"count of {pending} in feature-list.json ≥ 3",
            f"count of {pending} in feature-list.json < 2",
        ),
    ]
    for first, second in cells:
        rows = [
            row("T1", "A", "Go", first, "B", "Update state to B"),
            row("T2", "A", "Go", second),
        ]
        found = analyse(
            parse_spec_text(
                spec_text(["A", "B"], ["Go"], rows + fill(["A", "B"], ["Go"], ["A/Go"]))
            )
        )
        kinds = {f.kind for f in found if f.kind in ("gap", "overlap", "unknown_condition")}
        expected = {"gap"} if "≥ 3" in first else set()  # exactly 2 falls between
        assert kinds == expected, (first, second, [f.message for f in found])


def test_a_template_the_spec_creates_a_file_from_says_which_sections_it_has(
    tmp_path: Path,
) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "notes.md").write_text("# Notes\n\n## Highlights\n\n## Fixes\n")
    options = ReadOptions(folder=str(tmp_path), root=str(tmp_path))
    create = "Create `notes.md` from `templates/notes.md`"
    for section, refused in (("Hilights", 'did you mean "Highlights"?'), ("fixes", "")):
        condition = f'notes.md has text under "{section}"'
        rows = [
            row("T1", "A", "Go", "-", "B", create),
            row("T2", "B", "Go", condition, "A", "Update state to A"),
            row("T3", "B", "Go"),
        ]
        text = spec_text(["A", "B"], ["Go"], rows)
        found = [
            f.message
            for f in analyse(parse_spec_text(text, options=options))
            if f.kind == "unknown_condition"
        ]
        assert (refused in found[0] and "rule T2" in found[0]) if refused else not found, found


def test_a_section_written_in_another_case_leaves_no_false_gap() -> None:
    from tests.support.specs import fill, row, spec_text

    states, spells = ["A", "B"], ["Go"]
    rows = [
        row("T1", "A", "Go", 'plan.md has a section "Risks"', "B", "Update state to B"),
        row("T2", "A", "Go", 'plan.md has no section "risks"'),
    ]
    text = spec_text(states, spells, rows + fill(states, spells, ["A/Go"]))
    kinds = {f.kind for f in analyse(parse_spec_text(text))}
    assert not kinds & {"gap", "overlap", "conflict"}


def test_a_gap_only_a_newer_glob_leaves_is_found() -> None:
    """A cell whose rows say only that some test is newer than the list leaves the worlds
    where none is (the list missing among them) to a `gap`; its negation closes it."""
    states, spells = ["A", "B"], ["Go"]
    newer = "some `tests/test_*.py` is newer than list.json"
    rows = [row("T1", "A", "Go", newer, "B", "Update state to B")]
    text = spec_text(states, spells, rows + fill(states, spells, ["A/Go"]))
    gaps = findings_of(text, {"gap"})
    assert len(gaps) == 1 and "no `tests/test_*.py` is newer than list.json" in gaps[0].message
    closed = text.replace(
        rows[0], rows[0] + "\n" + row("T2", "A", "Go", newer.replace("some", "no", 1))
    )
    assert findings_of(closed, {"gap", "overlap"}) == []


# A file and a parameter for each kind of fact, as its probe takes them.
_SAMPLES = {
    "exists": ("plan.md", ""),
    "matches": ("plan.md", "^TODO"),
    "items": ("plan.md", "Risks"),
    "unchecked": ("plan.md", "Risks"),
    "items_at_least": ("plan.md", "2 Risks"),
    "unchecked_at_least": ("plan.md", "2 Risks"),
    "checked_at_least": ("plan.md", "2 Risks"),
    "count_at_least": ("t.json", "2 tickets[status=open]"),
    "section_text": ("plan.md", "Risks"),
    "section": ("plan.md", "Risks"),
    "edited": ("plan.md", ""),
    "field": ("t.json", "status"),
    "value": ("t.json", '["status", "=", "open"]'),
    "newer": ("a.md", "b.md"),
    "newer_some": ("a.md", "src/*.py"),
    "glob": ("", "src/*.py"),
    "paired": ("", "src/*.py tests/test_*.py"),
    "unlisted": ("notes.md", "seen.md ^- "),
    "listed": ("notes.md", "seen.md ^- "),
    "below": ("", "attempts<3"),
    "over_minutes": ("", "90"),
    "passes": ("checks.json", "test"),
    "last_passed": ("", "test"),
}


@pytest.mark.parametrize("holds", [True, False], ids=["yes", "no"])
@pytest.mark.parametrize("probe", sorted(_SAMPLES))
def test_every_kind_of_fact_reads_back_from_its_own_words(probe: str, holds: bool) -> None:
    """The grammar of facts has one home, `spellbook.facts.probes.PROBES` (the reader's
    docstring points there rather than repeating it): each kind's words, when it holds
    and when not, read back as that fact."""
    import codegen.read.conditions
    from spellbook.facts.probes import PROBES
    from spellbook.facts.wording import describe as words_of

    assert "`spellbook.facts.probes.PROBES`" in (codegen.read.conditions.__doc__ or "")
    assert set(PROBES) - {"unknown", "own"} == set(_SAMPLES)  # a new kind gets a sample
    file, param = _SAMPLES[probe]
    cond = parse_condition(words_of(probe, file, param, holds))
    assert cond.unknown == ()
    assert any(lit.atom.probe == probe and lit.positive is holds for lit in cond.literals)


def test_a_path_with_a_drive_is_refused_by_the_verifier_as_by_the_runtime() -> None:
    condition = parse_condition("`C:/x.md` exists", Lexicon.of(ReadOptions("")), ".w")
    assert condition.unknown


@pytest.mark.parametrize(
    ("written", "said"),
    [
        (
            "task.md exists and plan.md exists",
            "`and` joins conditions only in capitals: write `task.md exists AND plan.md exists`",
        ),
        (
            "task.md is missing or plan.md is missing",
            "`or` joins conditions only in capitals: write `task.md is missing OR plan.md is "
            "missing`",
        ),
        (
            "task.md exists<br>plan.md exists",
            "a line break does not say how the conditions it separates join: write `task.md "
            "exists AND plan.md exists` (all of them hold) or `task.md exists OR plan.md "
            "exists` (any of them holds)",
        ),
    ],
)
def test_conditions_joined_in_lowercase_or_by_a_line_break_are_told_in_full(
    written: str, said: str
) -> None:
    """Each side reads, the whole does not: the finding says the whole condition in
    capitals, never a did-you-mean of one side that drops the other."""
    text = spec_text(["A"], ["Go"], [row("U1", "A", "Go", condition=written)])
    (finding,) = findings_of(text)
    assert finding.kind == "unknown_condition"
    assert said in finding.message, finding.message
    assert "did you mean" not in finding.message


@pytest.mark.parametrize("written", ["moon is full and task.md exists", "task.md exists and"])
def test_a_side_that_does_not_read_gets_no_joined_advice(written: str) -> None:
    assert not parse_condition(written).why


@pytest.mark.parametrize("otherwise", ["otherwise", "else", "[else]", "Otherwise", "default"])
def test_otherwise_is_told_as_the_negation_of_the_cell_s_other_rows(otherwise: str) -> None:
    """`otherwise` is not read (which rows share its cells is the table's to say), but the
    finding writes the condition that means it, and that condition reads clean."""
    others = [
        row("U1", "A", "Go", condition="task.md exists AND plan.md exists", nxt="B"),
        row("U2", "A", "Go", condition="[notes.md is missing]", nxt="B"),
    ]
    rows = [*others, row("U3", "A", "Go", condition=otherwise), row("U4", "B", "Go")]
    (finding,) = findings_of(spec_text(["A", "B"], ["Go"], rows))
    meant = "NOT (task.md exists AND plan.md exists) AND NOT notes.md is missing"
    assert finding.kind == "unknown_condition"
    assert "negation of the other rows' conditions in its cell (Go in A)" in finding.message
    assert finding.message.endswith(f": `{meant}`"), finding.message
    rows[2] = row("U3", "A", "Go", condition=meant)
    assert findings_of(spec_text(["A", "B"], ["Go"], rows)) == []


def test_otherwise_in_cells_with_other_rows_each_is_told_without_one_condition() -> None:
    rows = [
        row("U1", "A", "Go", condition="task.md exists", nxt="B"),
        row("U2", "B", "Go", condition="plan.md exists"),
        row("U3", "A, B", "Go", condition="otherwise"),
    ]
    (finding,) = findings_of(spec_text(["A", "B"], ["Go"], rows))
    assert finding.message.endswith("so the rows say which fires and not their order")


def test_a_double_bar_in_a_condition_is_named_with_or_to_write() -> None:
    """`a || b` in a Condition cell splits it at each bar: the error names the `||`, not
    only the empty cell it pushed the row's last cells into."""
    from codegen.spec_error import SpecError

    text = spec_text(
        ["A", "B"],
        ["Go"],
        [
            "| R1 | A | Go | task.md exists || plan.md exists | B | No state change | ok |",
            row("R2", "B", "Go"),
        ],
    )
    with pytest.raises(SpecError) as raised:
        parse_spec_text(text)
    said = str(raised.value)
    assert "'task.md exists || plan.md exists' is one cell split at `||`" in said, said
    assert "'task.md exists OR plan.md exists'" in said and "`\\|\\|`" in said


def test_a_double_bar_in_the_last_column_is_named_too_with_what_is_dropped() -> None:
    # In the last column the cells it split were past the header's: the warning said
    # only that cells were dropped, not that half of an `or` was, nor which words.
    text = (
        "# M\n\n| From | Event | To | Guard |\n|---|---|---|---|\n"
        "| draft | go | done | a.md exists || b.md exists |\n| done | - | (none) | |\n"
        "| draft | stop | draft | a.md exists | later |\n"
    )
    said = [f.message for f in analyse(parse_spec_text(text)) if f.kind == "ragged_row"]
    assert "'a.md exists || b.md exists' is one cell split at `||`" in said[0], said
    assert "2 cells past the last column dropped ('b.md exists')" in said[0]
    assert "1 cell past the last column dropped ('later')" in said[1]
    # an empty cell written `| |`, a stray word after it: no `||` to undo
    stray = text.replace(
        "| draft | stop | draft | a.md exists | later |", "| draft | stop | draft | | later |"
    )
    said = [f.message for f in analyse(parse_spec_text(stray)) if f.kind == "ragged_row"]
    assert "split at `||`" not in said[1]


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("a.md exists<br>AND b.md missing", "a.md exists AND b.md missing"),
        ("a.md exists AND<br/>b.md missing", "a.md exists AND b.md missing"),
        ("a.md exists <br /> OR b.md missing", "a.md exists OR b.md missing"),
        ("a.md exists AND<br>NOT b.md missing", "a.md exists AND NOT b.md missing"),
    ],
)
def test_a_line_break_beside_a_capital_and_or_is_a_space(written: str, meant: str) -> None:
    found = parse_condition(written)
    assert not found.unknown and found.clauses == parse_condition(meant).clauses


def test_a_line_break_alone_between_conditions_is_still_not_read() -> None:
    assert parse_condition("a.md exists<br>b.md missing").unknown


def test_a_dot_slash_path_outside_the_workspace_prefix_is_refused_saying_both_readings() -> None:
    """`./.ai/task/plan.md` names the workspace's plan.md from the repository's top;
    `./README.md` may mean the repository's README.md or the workspace's: not guessed."""
    workspace = ".ai/task"
    same = parse_condition("`./.ai/task/plan.md` exists", workspace=workspace)
    assert not same.unknown
    assert same.clauses == parse_condition("plan.md exists", workspace=workspace).clauses
    found = parse_condition("`./README.md` exists", workspace=workspace)
    assert found.unknown
    (why,) = [w for _, w in found.why]
    assert "write `/README.md` for the repository's, `README.md` for the workspace's" in why
    assert not parse_condition("`./README.md` exists").unknown  # the workspace is the top


@pytest.mark.parametrize("join", ["&&", "&", "but", "BUT"])
def test_c_s_and_is_said_with_the_condition_to_write_never_a_close_phrase(join: str) -> None:
    # `a & b` and `a but b` were offered "did you mean 'b'?": one side, or its opposite
    found = parse_condition(f"comments.md exists {join} review-task.md missing")
    assert found.unknown
    (why,) = [w for _, w in found.why]
    assert why == (
        f"`{join}` does not join conditions: write `comments.md exists AND review-task.md missing`"
    )
    # a word that holds it is no join
    assert "does not join" not in str(parse_condition("butter.md exists").why)


def test_a_count_of_a_noun_of_words_counts_its_query_in_its_own_file_only() -> None:
    # `pending features` (two words, no query) could not be counted: the phrase was
    # unknown with no reason.
    session = Lexicon.of(ReadOptions("coding_session"))
    read = parse_condition("at least 2 pending features in feature-list.json", session, "", Words())
    ((literal,),) = read.clauses
    assert (literal.atom.probe, literal.atom.param) == (
        "count_at_least",
        "2 features[status=pending]",
    )
    other = parse_condition("at least 2 pending features in other.json", session, "", Words())
    assert "counts no values of other.json" in dict(other.why)[other.unknown[0]]
    # `≥1 NOUN in F` stays the noun's own fact
    once = parse_condition("≥1 pending feature in feature-list.json", session, "", Words())
    assert once.clauses[0][0].atom.probe == "field"


def test_a_cell_read_as_never_with_a_phrase_not_read_is_kept_whole_as_unknown() -> None:
    # Found by the property test above: empty operands of AND (an unread phrase) beside a
    # contradiction read as a condition that never holds, the unread phrase in no clause.
    text = " AND  AND attempts < 3 AND NOT attempts < 3"
    condition = parse_condition(text, LEXICON, ".ai/task")
    assert condition.unknown and condition.clauses
    assert condition.clauses[0][0].atom.probe == "unknown"


@pytest.mark.parametrize("text", ["`out/` exists", "`out/` is missing", "`.w/out/` exists"])
def test_a_folder_by_a_name_ending_in_a_slash_is_no_file_a_fact_asks_of(text: str) -> None:
    """`out/ exists` passed the verifier; every cast that asked it then stopped ("'out/'
    is not a path inside .w/"), and status told the folder "not there" while it was."""
    cond = parse_condition(text, SPELL, ".w")
    assert cond.unknown, cond
    ((_, why),) = cond.why
    assert "names a folder" in why and "some file matches" in why, why
