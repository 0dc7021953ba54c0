"""Guards and callbacks of the project's own code (`own_code = true`): how phrases the
core does not read become named guards and callbacks, and how the verifier reasons
about them as about any fact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.analyse.reading import read_spec
from codegen.config import load_config
from codegen.model import CALL, OWN, Atom, LiteralSpec
from codegen.read.conditions import Words, parse_condition
from codegen.read.lexicon import Lexicon, ReadOptions
from codegen.read.own_phrases import own_condition
from spellbook.disk.project import ProjectError, project_from
from spellbook.facts.wording import describe

OWN_CODE = ReadOptions(own_code=True)


def spec(rows: str, terms: str = "", spells: tuple[str, ...] = ("Go", "Stop")) -> str:
    listed = "\n".join(f"{i}. **{name}**" for i, name in enumerate(spells, 1))
    text = f"""# orders

### Spells

{listed}

### States

1. **OPEN**
    - *Description*: open
    - *Valid Actions*: {", ".join(spells)}
2. **DONE**
    - *Description*: done
    - *Goal*: yes

### Transitions

| ID | Current State | Trigger | Condition | Next State | Action | Response |
|----|---------------|---------|-----------|------------|--------|----------|
{rows}
| Z1 | DONE | {", ".join(spells)} | - | [BLOCKED] | - | Done |
"""
    if terms:
        text += f"\n### Terms\n\n| Phrase | Means |\n|--------|-------|\n{terms}\n"
    return text


def findings(text: str, options: ReadOptions = OWN_CODE) -> list[tuple[str, str]]:
    return [(f.kind, f.message) for f in analyse(parse_spec_text(text, options=options))]


def kinds(text: str, options: ReadOptions = OWN_CODE) -> list[str]:
    return [kind for kind, _ in findings(text, options)]


def own(phrase: str, positive: bool = True) -> LiteralSpec:
    return LiteralSpec(Atom(OWN, "", phrase), positive)


def read(text: str) -> tuple[tuple[LiteralSpec, ...], ...]:
    condition = parse_condition(text, Lexicon.of(OWN_CODE), "", Words())
    assert not condition.unknown, condition.why
    return condition.clauses


# -- reading --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "clauses"),
    [
        ("payment accepted", ((own("payment_accepted"),),)),
        ("Payment accepted.", ((own("payment_accepted"),),)),
        ("not payment accepted", ((own("payment_accepted", False),),)),
        ("NOT payment accepted", ((own("payment_accepted", False),),)),
        ("no blockers", ((own("blockers", False),),)),
        ("ALL acceptance criteria tests pass", ((own("all_acceptance_criteria_tests_pass"),),)),
        ("acceptance tests fail", ((own("acceptance_tests_pass", False),),)),
        ("fraud check fails", ((own("fraud_check_passes", False),),)),
        ("the order is not paid", ((own("the_order_is_paid", False),),)),
        ("the order isn't paid", ((own("the_order_is_paid", False),),)),
        (
            "payment accepted; escrow hold successful",
            ((own("payment_accepted"), own("escrow_hold_successful")),),
        ),
        (
            "PR approved, CI passing, mergeable",
            ((own("pr_approved"), own("ci_passing"), own("mergeable")),),
        ),
        (
            "pricing snapshot locked; order invariants valid",
            ((own("pricing_snapshot_locked"), own("order_invariants_valid")),),
        ),
        # lower-case `and`/`or` inside a phrase is the phrase's own: one question for the
        # project's code, never a guard `PR state` cut out of `confirmed by (reviewer or PR
        # state)`
        (
            "Confirmed by reviewer or PR state",
            ((own("confirmed_by_reviewer_or_pr_state"),),),
        ),
        (
            "pricing snapshot locked and order invariants valid",
            ((own("pricing_snapshot_locked_and_order_invariants_valid"),),),
        ),
        ("a OR b", ((own("a"),), (own("b"),))),
        # a comma between digits groups them: `1,000` is one number, not two guards
        ("amount under 1,000", ((own("amount_under_1_000"),),)),
        ("amount 1,000 or more, card valid", ((own("amount_1_000_or_more"), own("card_valid")),)),
    ],
)
def test_a_phrase_the_core_does_not_read_is_a_guard_of_the_projects_own(
    cell: str, clauses: tuple[tuple[LiteralSpec, ...], ...]
) -> None:
    assert read(cell) == clauses


@pytest.mark.parametrize(
    ("cell", "clauses"),
    [
        ("all tests fail", ((own("all_tests_fail"),),)),
        ("some tests fail", ((own("some_tests_fail"),),)),
        ("at least one check failed", ((own("at_least_one_check_failed"),),)),
        ("any payment fails", ((own("any_payment_fails"),),)),
        ("some items are not shipped", ((own("some_items_are_not_shipped"),),)),
        ("every order isn't paid", ((own("every_order_isn_t_paid"),),)),
        ("3 retries failed", ((own("_3_retries_failed"),),)),
    ],
)
def test_a_quantified_phrase_is_never_read_as_the_negation_of_another(
    cell: str, clauses: tuple[tuple[LiteralSpec, ...], ...]
) -> None:
    # "all tests fail" is not "not all tests pass" (one test failing is the latter), nor
    # "some items are not shipped" "not some items are shipped": each is its own guard.
    assert read(cell) == clauses


@pytest.mark.parametrize(
    "cell", ["!account locked", "~account locked", "¬account locked", "not(account locked)"]
)
def test_negation_written_as_code_is_the_guard_not_holding(cell: str) -> None:
    # `!account locked` was the guard `account_locked` that must hold: the opposite.
    assert read(cell) == ((own("account_locked", False),),)


@pytest.mark.parametrize("cell", ["if paid", "only if paid", "when paid", "only when paid"])
def test_words_that_only_say_a_guard_is_one_are_not_its_name(cell: str) -> None:
    assert read(cell) == ((own("paid"),),)


@pytest.mark.parametrize(
    "cell",
    ["unless paid", "Unless paid", "except when paid", "except if paid", "not yet paid",
     "no longer paid", "if not paid", "but not paid"],
)  # fmt: skip
def test_words_that_deny_a_guard_are_the_guard_not_holding(cell: str) -> None:
    # `unless paid` was a guard `unless_paid` that must hold: paid not holding is meant,
    # and its other rows' `paid` must be the same guard, or no gap or overlap is seen.
    assert read(cell) == ((own("paid", False),),)


def test_a_row_unless_a_guard_and_a_row_if_it_cover_the_cell_once() -> None:
    text = spec(
        "| G1 | OPEN | Go | unless the hold is set | DONE | - | Shipped |\n"
        "| G2 | OPEN | Go | the hold is set | [BLOCKED] | - | Held |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    assert not {"gap", "overlap"} & set(kinds(text)), kinds(text)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("temperature below 5", "temperature below -5"),
        ("rating +1", "rating -1"),
        ("C++ build", "C build"),
        ("fee over 100 €", "fee over 100 $"),
        ("discount 10%", "discount 10"),
    ],
)
def test_two_guards_whose_name_drops_the_signs_between_them_are_refused(
    first: str, second: str
) -> None:
    # `below -5` and `below 5` were one method, temperature_below_5: cooling froze at 4.
    text = spec(
        f"| G1 | OPEN | Go | {first} | DONE | - | Done |\n"
        f"| G2 | OPEN | Stop | {second} | DONE | - | Done |\n"
        "| G3 | DONE | Go, Stop | - | Same state | - | Done |"
    )
    found = parse_spec_text(text, options=OWN_CODE)
    (row,) = [r for r in found.rows if r.id == "G2"]
    (why,) = [w for _, w in row.condition.why]
    assert f"'{second}' and '{first}' name one guard of the project's code" in why


@pytest.mark.parametrize(
    ("cell", "write"),
    [
        ("in stock ✗", "`NOT in stock`"),
        ("❌ shipped", "`NOT shipped`"),
        ("shipped: ✗", "`NOT shipped`"),
        ("paid: no", "`NOT paid`"),
        ("paid? no", "`NOT paid`"),
        ("paid: yes", "`paid`"),
    ],
)
def test_a_guard_marked_no_or_answered_is_refused_with_what_to_write(cell: str, write: str) -> None:
    # `in stock ✗` was the guard in_stock holding, the opposite; `paid: no` a guard of its
    # own, paid_no, unrelated to `paid`.
    found = own_condition(cell)
    assert isinstance(found, str) and f"write {write}" in found


@pytest.mark.parametrize("cell", ["✗", "no", "false"])
def test_a_guard_that_says_the_row_never_fires_is_refused(cell: str) -> None:
    assert (
        own_condition(cell)
        == f"'{cell}' says the row never fires, which no guard says: remove the row"
    )


def test_a_guard_ticked_yes_is_its_words() -> None:
    assert read("paid ✓") == read("paid") == ((own("paid"),),)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("refund 50%", "refund 50"),
        ("add tip of 5 €", "add tip of 5 $"),
        ('log "C++ build"', 'log "C build"'),
    ],
)
def test_two_callbacks_whose_name_drops_the_signs_between_them_are_refused(
    first: str, second: str
) -> None:
    # `refund 50%` and `refund 50` were one method, refund_50, with no word
    text = spec(
        f"| G1 | OPEN | Go | - | DONE | {first} | Done |\n"
        f"| G2 | OPEN | Stop | - | DONE | {second} | Done |\n"
        "| G3 | DONE | Go, Stop | - | Same state | - | Done |"
    )
    (message,) = [m for k, m in findings(text) if k == "own_code"]
    assert f"rule G2: the callback {second!r} and {first!r} (rule G1) name one method" in message


def test_one_guard_written_in_other_case_or_with_a_period_is_still_one_guard() -> None:
    text = spec(
        "| G1 | OPEN | Go | Payment accepted. | DONE | - | Done |\n"
        "| G2 | OPEN | Go | NOT payment accepted | Same state | - | Wait |\n"
        "| S1 | OPEN, DONE | Stop | - | Same state | - | Stopped |\n"
        "| G3 | DONE | Go | - | Same state | - | Done |"
    )
    found = parse_spec_text(text, options=OWN_CODE)
    assert all(not r.condition.unknown for r in found.rows)


def test_except_before_a_preposition_keeps_it_in_the_guard_not_holding() -> None:
    # `funds available, except on weekends`: its second clause was a guard that must hold.
    assert read("except on weekends") == ((own("on_weekends", False),),)


@pytest.mark.parametrize(
    ("cell", "word"),
    [
        ("funds available unless weekend", "unless"),
        ("funds available but not weekend", "but not"),
        ("funds available except on weekends", "except"),
    ],
)
def test_a_guard_denied_after_its_words_is_refused_with_the_two_guards_to_write(
    cell: str, word: str
) -> None:
    # Each was one guard that must hold, `funds_available_unless_weekend`.
    condition = parse_condition(cell, Lexicon.of(OWN_CODE), "", Words())
    assert condition.unknown == (cell,)
    (why,) = [w for _, w in condition.why]
    assert f"(`{word}`)" in why and "`funds available AND NOT " in why


def test_unless_before_a_lower_case_join_is_refused() -> None:
    # Whether `unless` denies `paid` alone or `paid and shipped`, the words do not say.
    condition = parse_condition("unless paid and shipped", Lexicon.of(OWN_CODE), "", Words())
    assert condition.unknown == ("unless paid and shipped",)
    (why,) = [w for _, w in condition.why]
    assert "AND" in why, why


@pytest.mark.parametrize(
    ("cell", "operator"),
    [
        ("credit >= price", ">="),
        ("credit < price", "<"),
        ("status == captured", "=="),
        ("status != captured", "!="),
        ("badge ok && pin ok", "&&"),
        ("badge ok || pin ok", "||"),
    ],
)
def test_a_comparison_a_guard_s_name_would_drop_is_refused(cell: str, operator: str) -> None:
    condition = parse_condition(cell, Lexicon.of(OWN_CODE), "", Words())
    assert condition.unknown == (cell,)
    (why,) = [w for _, w in condition.why]
    assert f"compares or joins with `{operator}`, which the name" in why
    assert "write what the project's method answers in words" in why


def test_all_pass_and_all_fail_leave_the_world_where_some_fail_uncovered() -> None:
    text = spec(
        "| G1 | OPEN | Go | all tests pass | DONE | - | Shipped |\n"
        "| G2 | OPEN | Go | all tests fail | [BLOCKED] | - | Fix |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    assert "gap" in kinds(text)


@pytest.mark.parametrize("holds", [True, False])
def test_a_guard_s_canonical_words_read_back_to_the_same_guard(holds: bool) -> None:
    words = describe(OWN, "", "payment_accepted", holds)
    assert read(words) == ((own("payment_accepted", holds),),)


@pytest.mark.parametrize(
    ("phrase", "file"),
    [
        ("reviewer signed notes.md", "notes.md"),
        ("Checks `.ai/task/.refs` for processed URLs", ".ai/task/.refs"),
        ("`docs/review` approved", "docs/review"),
    ],
)
def test_a_phrase_about_a_file_is_never_a_guard_of_the_projects_own(phrase: str, file: str) -> None:
    condition = parse_condition(phrase, Lexicon.of(OWN_CODE), "", Words())
    assert condition.unknown == (phrase,)
    assert f"names the file {file}" in dict(condition.why)[phrase]


def test_a_word_capitalised_in_one_row_is_the_same_guard_and_callback_as_in_another() -> None:
    # `Approved` and `approved` were two guards the analysis could not relate, `Charge`
    # and `charge` two callbacks, while `Payment accepted` and `payment accepted` were one.
    text = (
        "# O\n\nTransitions not listed are rejected.\n\n"
        "| From | To | Event | Guard | Action |\n|---|---|---|---|---|\n"
        "| new | paid | pay | Approved | Charge |\n"
        "| new | held | pay | not APPROVED | charge |\n"
        "| paid | checked | check | isApproved | Deregister |\n"
        "| held | (none) | - | - | - |\n| checked | (none) | - | - | - |\n"
    )
    spec = parse_spec_text(text, options=OWN_CODE)
    assert sorted(a.param for a in spec.own_guards) == ["approved", "isApproved"]
    assert sorted(a.target for a in spec.callbacks) == ["charge", "deregister"]
    assert not [f for f in analyse(spec) if f.spell == "pay"]  # one guard: no gap, no overlap


@pytest.mark.parametrize(
    ("phrase", "words"),
    [("user.isAdmin", "user is admin"), ("order.is_paid", "order is paid")],
)
def test_an_attribute_read_as_a_file_is_told_the_words_of_a_guard(phrase: str, words: str) -> None:
    # `user.isAdmin` was refused as a file with no word on what to write for a guard.
    condition = parse_condition(phrase, Lexicon.of(OWN_CODE), "", Words())
    why = dict(condition.why)[phrase]
    assert "is an attribute of the project's code, write the question" in why
    assert why.endswith(f"in words, `{words}`")
    assert read(words) == ((own(words.replace(" ", "_")),),)


@pytest.mark.parametrize("phrase", ["reviewer signed notes.md", "config.yaml is valid"])
def test_a_file_name_is_not_taken_for_an_attribute(phrase: str) -> None:
    condition = parse_condition(phrase, Lexicon.of(OWN_CODE), "", Words())
    assert "attribute" not in dict(condition.why)[phrase]


def test_the_opt_in_is_not_offered_for_a_phrase_about_a_file() -> None:
    text = spec(
        "| G1 | OPEN | Go | Checks `.refs` for processed URLs | DONE | - | Done |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    messages = [m for k, m in findings(text, ReadOptions()) if k == "unknown_condition"]
    assert messages and not any("own_code" in m for m in messages)


def test_the_core_reads_its_own_phrases_first() -> None:
    (clause,) = read("plan.md exists")
    assert [lit.atom.probe for lit in clause] == ["exists"]


def test_a_term_relates_two_phrases_of_the_projects_own() -> None:
    text = spec(
        "| G1 | OPEN | Go | card authorised | DONE | - | Paid |\n"
        "| G2 | OPEN | Go | card declined | [BLOCKED] | - | Declined |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |",
        "| card declined | NOT card authorised |",
    )
    found = parse_spec_text(text, options=OWN_CODE)
    assert found.rows[1].condition.clauses == ((own("card_authorised", False),),)
    assert kinds(text) == []


def test_an_action_the_core_does_not_read_is_callbacks_split_at_semicolons() -> None:
    text = spec(
        "| G1 | OPEN | Go | - | DONE | emit `ORDER_CREATED`; write audit record | Done |\n"
        "| S1 | OPEN | Stop | - | Same state | Register with orchestrator | Stopped |"
    )
    found = parse_spec_text(text, options=OWN_CODE)
    assert [(a.verb, a.target, a.text) for a in found.rows[0].actions] == [
        (CALL, "emit_order_created", "emit `ORDER_CREATED`"),
        (CALL, "write_audit_record", "write audit record"),
    ]
    assert [a.target for a in found.callbacks] == [
        "emit_order_created",
        "write_audit_record",
        "register_with_orchestrator",
    ]


@pytest.mark.parametrize(
    ("cell", "names"),
    [
        ("Remove from queue, log", ["remove_from_queue", "log"]),
        ("charge card / send receipt", ["charge_card", "send_receipt"]),
        ("print label -> hand to courier", ["print_label", "hand_to_courier"]),
        ("print label → hand to courier", ["print_label", "hand_to_courier"]),
        ("refund 1,000 credits, notify buyer", ["refund_1_000_credits", "notify_buyer"]),
        ("emit `A, B` / log `C -> D`", ["emit_a_b", "log_c_d"]),
        ("log and/or alert", ["log_and_or_alert"]),
        # Not inside parentheses: `(type; (2) id)` was two callbacks, the second `id`.
        ("log event (type, id)", ["log_event_type_id"]),
        ("notify(owner, reviewer); archive", ["notify_owner_reviewer", "archive"]),
    ],
)
def test_an_action_joined_by_comma_slash_or_arrow_is_callbacks_in_order(
    cell: str, names: list[str]
) -> None:
    # `Remove from queue, log` was the one callback remove_from_queue_log
    text = spec(
        f"| G1 | OPEN | Go | - | DONE | {cell} | Done |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    found = parse_spec_text(text, options=OWN_CODE)
    assert [(a.verb, a.target) for a in found.rows[0].actions] == [(CALL, n) for n in names]


@pytest.mark.parametrize("cell", ["refund if amount > 0", "notify; alert when retries >= 3"])
def test_a_callback_whose_name_would_drop_a_comparison_is_refused(cell: str) -> None:
    # `refund if amount > 0` was the callback refund_if_amount_0, the one method
    # `refund if amount < 0` would name too.
    text = spec(
        f"| G1 | OPEN | Go | - | DONE | {cell} | Done |\n"
        "| S1 | OPEN | Stop | - | Same state | log stop | Stopped |"
    )
    said = [m for k, m in findings(text) if k == "own_code"]
    assert len(said) == 1 and "is not read as a callback (its name, " in said[0], said
    assert (
        "say what the callback does in words, and a condition on the move in its Guard" in said[0]
    )


@pytest.mark.parametrize("cell", ["yes", "true", "True", "✓", "[yes]"])
def test_a_guard_that_says_only_that_the_row_fires_is_always_with_a_warning(cell: str) -> None:
    # `yes` was a guard yes() of the project's code
    assert read(cell) == ((),)
    text = spec(
        f"| G1 | OPEN | Go | {cell} | DONE | - | Done |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    (message,) = [m for k, m in findings(text) if k == "always_holds"]
    assert "is read as `-`: it says only that the row fires" in message


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("not charge succeeds and retries exhausted", "not charge succeeds AND retries exhausted"),
        ("!badge ok or pin ok", "!badge ok OR pin ok"),
        ("if no blockers and ci green", "no blockers AND ci green"),
    ],
)
def test_a_negation_before_a_lower_case_join_is_refused_saying_what_to_write(
    cell: str, written: str
) -> None:
    # `not charge succeeds and retries exhausted` was the one guard
    # charge_succeeds_and_retries_exhausted not holding: the `not` of the whole phrase
    condition = parse_condition(cell, Lexicon.of(OWN_CODE), "", Words())
    assert condition.unknown == (cell,)
    (why,) = [w for _, w in condition.why]
    assert f"{written}`" in why


def test_a_negation_before_a_join_the_grammar_cannot_split_names_both_readings() -> None:
    # where the grammar cannot read each side, the refusal is the negation's own, and it
    # says both readings
    (why,) = own_phrases_why("not charge succeeds and card valid")
    assert "does not say whether `not` denies the whole phrase" in why
    assert "`not charge succeeds AND card valid`" in why
    assert "`NOT (charge succeeds and card valid)` for one guard" in why


def own_phrases_why(phrase: str) -> list[str]:
    found = own_condition(phrase)
    return [found] if isinstance(found, str) else []


def test_a_negation_of_a_join_in_parentheses_is_one_guard() -> None:
    assert read("not(a and b)") == ((own("a_and_b", False),),)
    assert read("NOT (a and b)") == ((own("a_and_b", False),),)


def test_a_lower_case_join_of_guards_asked_elsewhere_is_warned_with_the_capitals() -> None:
    # `charge declined and retries left` was silently one guard of its own, unrelated to
    # the rows asking `charge declined` and `retries left`
    text = spec(
        "| G1 | OPEN | Go | charge declined and retries left | DONE | - | Done |\n"
        "| G2 | OPEN | Go | charge declined | [BLOCKED] | - | Declined |\n"
        "| G3 | OPEN | Go | retries left | [BLOCKED] | - | Retry |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    (message,) = [m for k, m in findings(text) if k == "own_guard_joined"]
    assert "'charge declined', 'retries left' are guards of rules G2, G3" in message
    assert "write `charge declined AND retries left`" in message
    alone = spec(
        "| G1 | OPEN | Go | charge declined and retries left | DONE | - | Done |\n"
        "| G2 | OPEN | Go | charge declined | [BLOCKED] | - | Declined |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    assert "own_guard_joined" not in kinds(alone)


def test_a_lower_case_join_of_a_term_and_a_guard_is_warned_too() -> None:
    # `ready to ship and approved`, `ready to ship` a term: one guard of its own with no
    # word, its term never expanded
    text = spec(
        "| G1 | OPEN | Go | ready to ship and approved | DONE | - | Done |\n"
        "| G2 | OPEN | Go | approved | [BLOCKED] | - | Held |\n"
        "| G3 | OPEN | Go | NOT approved | [BLOCKED] | - | No |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |",
        terms="| ready to ship | paid AND in stock |",
    )
    (message,) = [m for k, m in findings(text) if k == "own_guard_joined"]
    assert "'ready to ship' is a term (line " in message
    assert "and 'approved' a guard of rules G2, G3" in message
    assert "write `ready to ship AND approved`" in message
    # a phrase neither a guard nor a term is no join
    other = text.replace("ready to ship and approved", "wrapped and approved")
    assert "own_guard_joined" not in kinds(other)


def test_a_lower_case_join_of_methods_names_is_warned() -> None:
    # `is_paid or is_waived` was one guard, a method is_paid_or_is_waived, with no word.
    text = spec(
        "| G1 | OPEN | Go | is_paid or is_waived | DONE | - | Done |\n"
        "| G2 | OPEN | Go | NOT (is_paid or is_waived) | [BLOCKED] | - | No |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    (message,) = [m for k, m in findings(text) if k == "own_guard_joined"]
    assert "'is_paid', 'is_waived' are written as methods' names" in message
    assert "write `is_paid OR is_waived`" in message
    # words of a guard of its own are no join
    prose = text.replace("is_paid or is_waived", "paid or waived")
    assert "own_guard_joined" not in kinds(prose)


# -- the default stays fail-closed ----------------------------------------------------


def test_without_the_opt_in_such_a_phrase_is_refused_naming_the_opt_in() -> None:
    text = spec(
        "| G1 | OPEN | Go | payment accepted | DONE | - | Paid |\n"
        "| G2 | OPEN | Go | NOT payment accepted | [BLOCKED] | - | No |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    found = findings(text, ReadOptions())
    messages = [m for k, m in found if k == "unknown_condition"]
    assert messages and "'payment accepted'" in messages[0]
    assert all("set own_code = true under [tool.spellbook]" in m for m in messages)


# -- the verifier proves gaps, overlaps and dead rules over them ----------------------


def test_a_guard_and_its_negation_cover_the_cell() -> None:
    text = spec(
        "| G1 | OPEN | Go | stock reserved | DONE | book courier | Shipped |\n"
        "| G2 | OPEN | Go | not stock reserved | [BLOCKED] | - | No stock |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    assert kinds(text) == []


def test_a_gap_between_two_guards_is_found() -> None:
    text = spec(
        "| G1 | OPEN | Go | stock reserved | DONE | - | Shipped |\n"
        "| G2 | OPEN | Go | order cancelled | [BLOCKED] | - | Cancelled |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    (gap,) = [m for k, m in findings(text) if k == "gap"]
    assert "no rule fires when" in gap
    assert "not stock reserved" in gap and "not order cancelled" in gap


def test_an_overlap_of_two_guards_is_found() -> None:
    text = spec(
        "| G1 | OPEN | Go | tests pass | DONE | - | Shipped |\n"
        "| G2 | OPEN | Go | review requested | [BLOCKED] | - | Wait |\n"
        "| G3 | OPEN | Go | tests fail AND NOT review requested | [BLOCKED] | - | Fix |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    (overlap,) = [m for k, m in findings(text) if k == "overlap"]
    assert "G1 and G2 both fire when" in overlap
    assert "gap" not in kinds(text)


def test_a_rule_hidden_by_guards_is_dead() -> None:
    text = spec(
        "| G1 | OPEN | Go | tests pass | DONE | - | Shipped |\n"
        "| G2 | OPEN | Go | tests fail | [BLOCKED] | - | Fix |\n"
        "| G3 | OPEN | Go | tests pass AND review requested | [BLOCKED] | - | Wait |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    assert "dead_rule" in kinds(text)


# -- a machine is the core's or the project's, never half of each --------------------


def test_core_facts_and_actions_in_a_machine_of_own_code_are_errors() -> None:
    text = spec(
        "| G1 | OPEN | Go | approved AND plan.md exists | DONE | Create plan.md | Done |\n"
        "| G2 | OPEN | Go | NOT approved | Same state | - | Wait |\n"
        "| G3 | OPEN | Go | NOT plan.md exists | [BLOCKED] | tell the author | No |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    messages = [m for k, m in findings(text) if k == "own_code"]
    assert any("rule G1: 'plan.md exists' is a fact the core checks" in m for m in messages)
    assert any("rule G1: 'Create plan.md' is an action the core carries out" in m for m in messages)
    assert any("rule G3 refuses the trigger" in m for m in messages)


def test_a_machine_without_own_code_is_the_cores_as_before() -> None:
    text = spec(
        "| G1 | OPEN | Go | plan.md exists | DONE | Create notes.md | Done |\n"
        "| G2 | OPEN | Go | plan.md missing | [BLOCKED] | - | No |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    assert "own_code" not in kinds(text)
    assert kinds(text) == kinds(text, ReadOptions())


# -- --explain ------------------------------------------------------------------------


def test_explain_names_each_guard_and_callback_with_its_identifier() -> None:
    text = spec(
        "| G1 | OPEN | Go | card authorised | DONE | notify buyer | Paid |\n"
        "| G2 | OPEN | Go | card declined | Same state | - | Declined |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |",
        "| card declined | NOT card authorised |",
    )
    reading = read_spec(parse_spec_text(text, options=OWN_CODE), OWN_CODE)
    lines = reading.lines()
    assert "guard card_authorised: 'card authorised', 'card declined' (rows G1, G2)" in lines
    assert "callback notify_buyer: 'notify buyer' (rows G1)" in lines
    again = spec(
        "| G1 | OPEN | Go | no blockers | DONE | - | Done |\n"
        "| G2 | OPEN | Go | NOT no blockers | Same state | - | Wait |\n"
        "| S1 | OPEN | Stop | - | Same state | - | Stopped |"
    )
    said = read_spec(parse_spec_text(again, options=OWN_CODE), OWN_CODE).lines()
    assert "guard blockers: 'blockers', 'no blockers' (rows G1, G2)" in said
    assert any("then: callback notify_buyer: notify buyer" in line for line in lines)
    assert json.loads(json.dumps(reading.json()))["own_code"][0]["name"] == "card_authorised"


def test_explain_names_no_state_file_for_a_machine_of_own_code() -> None:
    """The project's own code keeps the state: no state file, no workspace to name."""
    from codegen.analyse.report import _explained

    text = "# T\n\n| From | Event | To |\n|---|---|---|\n| open | close | closed |\n"
    said = _explained(parse_spec_text(text, options=OWN_CODE), OWN_CODE)
    assert "State: kept by the project's own code (own_code: no state file, no workspace)" in said
    assert not [line for line in said if "state.json" in line], said
    core = _explained(parse_spec_text(text), None)
    assert any(line.startswith("State file: state.json") for line in core), core


# -- the configuration ------------------------------------------------------------------


def test_own_code_is_configured_at_the_top_and_per_machine(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.spellbook]\nown_code = true\n\n[tool.spellbook.machines]\n"
        'a = "spec/A.md"\nb = { spec = "spec/B.md", own_code = false }\n',
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert [m.options.own_code for m in config.machines] == [True, False]
    assert config.options.own_code is True
    assert project_from(str(tmp_path), {}).own_code is False


def test_own_code_that_is_not_a_boolean_is_refused() -> None:
    with pytest.raises(ProjectError, match="own_code must be true or false"):
        project_from("/x", {"own_code": "yes"})
    with pytest.raises(ProjectError, match=r"machines\.m: own_code must be true or false"):
        project_from("/x", {"machines": {"m": {"spec": "s.md", "own_code": 1}}})


def test_a_guard_or_callback_named_like_a_trigger_or_a_builtin_is_an_error_naming_both() -> None:
    text = """\
# Vending

| From | To | Event | Guard | Effects |
|---|---|---|---|---|
| (start) | idle | Machine on | - | - |
| idle | vending | Customer pays | payment authorised | product dispensed |
| vending | idle | Product dispensed | product dispensed | - |
| vending | idle | Refund | open | - |
"""
    spec = parse_spec_text(text, "spec/V.md", options=ReadOptions(own_code=True))
    said = dict((f.line, f.message) for f in analyse(spec) if f.kind == "own_code")
    assert sorted(said) == [6, 7, 8]
    assert said[7].startswith(
        "the guard 'product dispensed' would be the model's method product_dispensed, "
        "which is the trigger 'Product dispensed'"
    )
    assert said[6].startswith("the callback 'product dispensed'")
    assert "(or Python's builtin) `open`" in said[8]


def test_each_row_s_own_fact_is_quoted_and_no_state_file_advice_is_given() -> None:
    text = (
        "# Invoice\n\n| From | Event | To | Guard | Effects |\n|---|---|---|---|---|\n"
        "| submitted | approve | approved | amount < 1000 | - |\n"
        "| submitted | approve | waiting | amount >= 1000 | notify cfo |\n"
        "| waiting | approve | approved | - | - |\n"
        "| waiting | reject | rejected | [amount > 0] | - |\n"
    )
    found = [f for f in analyse(parse_spec_text(text, options=OWN_CODE))]
    said = {f.rule: f.message for f in found if f.kind == "own_code"}
    assert said["R1"].startswith("rule R1: 'amount < 1000' is a fact"), said
    assert said["R2"].startswith("rule R2: 'amount ≥ 1000' is a fact"), said
    # The cell as written, where the core's reading says it otherwise.
    assert said["R4"].startswith("rule R4: '[amount > 0]', read by the core as 'amount ≥ 1', is")
    assert "without the file's name" not in said["R1"], said["R1"]
    assert "(`amount under 1000`, `invoice has lines`)" in said["R1"], said["R1"]
    assert not [f for f in found if f.kind in ("undefined_field", "never_counted")], found


# -- terms, grammar left over, names Python keeps -----------------------------------


@pytest.mark.parametrize(
    ("cell", "holds"),
    [
        ("unless blocked", False),
        ("no longer blocked", False),
        ("not blocked", False),
        ("!blocked", False),
        ("not(blocked)", False),
        ("if blocked", True),
        ("blocked ✓", True),
        ("NOT (blocked)", False),
    ],
)
def test_a_term_said_with_words_about_it_is_the_term_never_a_guard_named_like_it(
    cell: str, holds: bool
) -> None:
    # `unless blocked` was a guard `blocked` of its own beside the term's meaning.
    text = spec(f"| G1 | OPEN | Go | {cell} | DONE | - | ok |", terms="| blocked | NOT ready |")
    parsed = parse_spec_text(text, options=OWN_CODE)
    (row,) = [r for r in parsed.rows if r.id == "G1"]
    assert row.condition.clauses == ((own("ready", not holds),),)
    assert [a.param for a in parsed.own_guards] == ["ready"]


@pytest.mark.parametrize(
    ("cell", "why"),
    [
        ("a AND", "`AND` is left in it"),
        ("a OR OR b", "`OR` is left in it"),
        ("card NOT expired", "`NOT` is left in it"),
        ("(a OR b", "its parentheses do not pair"),
        ("NOT", "`NOT` is left in it"),
    ],
)
def test_the_grammar_s_words_left_in_a_clause_are_no_guard(cell: str, why: str) -> None:
    # `(a OR b` was one guard `a_or_b`, `a AND` a guard `a_and`, `NOT` a guard `not_`.
    said = findings(spec(f"| G1 | OPEN | Go | {cell} | DONE | - | ok |"))
    assert any(k == "unknown_condition" and why in m for k, m in said), said


def test_a_state_named_like_same_state_is_that_state() -> None:
    text = spec("| G1 | OPEN | Go | - | SAME | - | ok |").replace(
        "2. **DONE**", "2. **SAME**\n    - *Description*: same\n3. **DONE**"
    )
    parsed = parse_spec_text(text, options=OWN_CODE)
    (row,) = [r for r in parsed.rows if r.id == "G1"]
    assert row.target.name == "SAME"
    same = spec("| G1 | OPEN | Go | - | Same state | - | ok |")
    (stay,) = [r for r in parse_spec_text(same, options=OWN_CODE).rows if r.id == "G1"]
    assert stay.target.name is None


@pytest.mark.parametrize("name", ["__init__", "__class__", "__secret"])
def test_a_guard_or_callback_python_keeps_the_name_of_is_an_error(name: str) -> None:
    said = findings(spec(f"| G1 | OPEN | Go | {name} | DONE | {name} | ok |"))
    errors = [m for k, m in said if k == "own_code" and "a name Python keeps for itself" in m]
    assert len(errors) == 2 and f"(`{name.strip('_')}`)" in errors[0]


@pytest.mark.parametrize("cell", ["no action", "(no action)", "do nothing", "n/a"])
def test_an_action_cell_saying_nothing_is_no_callback(cell: str) -> None:
    parsed = parse_spec_text(spec(f"| G1 | OPEN | Go | - | DONE | {cell} | ok |"), options=OWN_CODE)
    (row,) = [r for r in parsed.rows if r.id == "G1"]
    assert row.actions == () and not parsed.callbacks


@pytest.mark.parametrize(
    ("cell", "write"),
    [
        ("-paid", "`NOT paid`"),
        ("\u2212 paid", "`NOT paid`"),
        ("paid is false", "`NOT paid`"),
        ("paid is not true", "`NOT paid`"),
        ("paid is true", "`paid`"),
    ],
)
def test_a_guard_signed_or_answered_after_is_is_no_guard_of_its_own(cell: str, write: str) -> None:
    # `-paid` read as `paid` holding; `paid is false` a guard `paid_is_false` of its own.
    said = findings(spec(f"| G1 | OPEN | Go | {cell} | DONE | - | ok |"))
    assert any(k == "unknown_condition" and f"write {write}" in m for k, m in said), said
