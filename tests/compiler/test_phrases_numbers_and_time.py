"""Condition phrases of numbers and time: counters, time in a state, durations,
comparisons, the last run, and commands that pass or fail. Each beside its near misses,
read as its author means or refused (the corpus: tests/compiler/test_phrase_corpus.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.phrases import Lit, assert_reads, no, one, read, refused, yes

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
    # The other comparisons, each as the fact `below` says it of a whole number.
    one("core", "retries > 4", no("below", "", "retries<5")),
    one("core", "retries>4", no("below", "", "retries<5")),
    one("core", "retries <= 5", yes("below", "", "retries<6")),
    one("core", "retries ≤ 5", yes("below", "", "retries<6")),
    one("core", "retries = 5", no("below", "", "retries<5"), yes("below", "", "retries<6")),
    one("core", "retries == 5", no("below", "", "retries<5"), yes("below", "", "retries<6")),
    # `⩾` `⩽` `≧` `≦` are `≥` and `≤`, as of a JSON value.
    one("core", "retries ⩾ 5", no("below", "", "retries<5")),
    one("core", "retries ≧ 5", no("below", "", "retries<5")),
    one("core", "retries ⩽ 5", yes("below", "", "retries<6")),
    one("core", "retries ≦ 5", yes("below", "", "retries<6")),
    read("core", "retries != 5", [yes("below", "", "retries<5")], [no("below", "", "retries<6")]),
    read("core", "retries ≠ 5", [yes("below", "", "retries<5")], [no("below", "", "retries<6")]),
    one("core", "retries = 0", yes("below", "", "retries<1")),
    one("core", "retries != 0", no("below", "", "retries<1")),
    one("core", "retries > 0", no("below", "", "retries<1")),
    one("core", "retries <= 0", yes("below", "", "retries<1")),
    one("core", "NOT retries > 4", yes("below", "", "retries<5")),
    # A comparison that always holds of a counter is read as always (`condition_advice`
    # says to write `-`); one that never holds says nothing it could mean.
    read("core", "retries >= 0", []),
    read("core", "retries ≥ 0", []),
    read("core", "retries > -1", []),
    read("core", "retries != -1", []),
    read("core", "retries >= 0 AND a.md exists", [yes("exists", "a.md")]),
    read("core", "NOT retries >= 0"),
    refused("core", "retries < 0", "a counter < 0 never holds"),
    refused("core", "retries <= -1", "a counter ≤ -1 never holds"),
    refused("core", "retries = -1", "a counter = -1 never holds"),
    # Signs, words and units the core does not compare with.
    refused("core", "retries at least 5"),
    refused("core", "retries is at least 5"),
    refused("core", "retries is less than 5"),
    refused("core", "retries below 5"),
    refused("core", "fewer than 5 retries"),
    refused("core", "5 > retries"),
    refused("core", "retries =< 5", "`=<` is not a comparison the core reads"),
    refused("core", "retries => 5", "`=>` is not a comparison the core reads"),
    refused("core", "retries <> 5", "`<>` is not a comparison the core reads"),
    refused("core", "retries \uff1c 5"),  # a fullwidth <
    refused("core", "retries < 5 times"),
    refused("core", "retries < 5 minutes"),
    refused("core", "retries < five"),
    refused("core", "retries < 2.5"),
    refused("core", "retries < -1", "never holds"),
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

# What a time bounded at its own length is told (`at least`, `less than`, `N or more`).
_SIDE = "whichever side exactly that long is on"


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
    # At most N is N or less: the negation of more than N, which covers the cell with it.
    one("core", "in this state for at most 15 minutes", no("over_minutes", "", "15")),
    one("core", "in this state for no more than 24 hours", no("over_minutes", "", "1440")),
    one("core", "in this state for not more than 2 days", no("over_minutes", "", "2880")),
    refused("core", "in this state for at most fifteen minutes", "not a whole number"),
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
    # (the one instant of exactly N parts them from `more than N`: said, never offered
    # `more than N` alone, the opposite of `less than N`)
    refused("core", "in this state for at least 15 minutes", _SIDE),
    refused("core", "in this state for less than 15 minutes", _SIDE),
    refused("core", "in this state for 15 minutes or more", _SIDE),
    refused("core", "in this state for > 15 minutes"),
    refused("core", "in this state for more than 15 minutes ago"),
    refused("core", "in state for more than 15 minutes"),
    refused("core", "in the state for more than 15 minutes"),
    refused("core", "entered more than 15 minutes ago"),
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
    # `==` is `=`, `⩾` `≧` are `≥` and `⩽` `≦` are `≤`, as of a counter: one table of them.
    one("core", "tasks.json has `count` == 2", yes("value", "tasks.json", '["count", "=", 2]')),
    one("core", "tasks.json has `count` ⩾ 2", yes("value", "tasks.json", '["count", ">=", 2]')),
    one("core", "tasks.json has `count` ≧ 2", yes("value", "tasks.json", '["count", ">=", 2]')),
    one("core", "tasks.json has `count` ⩽ 2", yes("value", "tasks.json", '["count", "<=", 2]')),
    one("core", "tasks.json has `count` ≦ 2", yes("value", "tasks.json", '["count", "<=", 2]')),
    one(
        "core",
        'tasks.json has `status` == "done"',
        yes("value", "tasks.json", '["status", "=", "done"]'),
    ),
    refused("core", "tasks.json has `status` == done", "double quotes"),
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
    # What is not a comparison is told every one that is.
    refused(
        "core",
        "tasks.json has `count` =< 2",
        "`=<` is not a comparison the core reads: = (==), ≠ (!=), <, ≤ (<=, ⩽, ≦), > or "
        "≥ (>=, ⩾, ≧)",
    ),
    refused("core", "tasks.json has `count` => 2", "`=>` is not a comparison"),
    refused("core", "tasks.json has `count` <> 2", "`<>` is not a comparison"),
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


PHRASES = [*COUNTERS, *TIME, *DURATIONS, *COMPARISONS, *LAST_RUN, *COMMANDS]


@pytest.mark.parametrize(("words", "workspace", "text", "expected", "why"), PHRASES)
def test_phrase(
    words: str, workspace: str, text: str, expected: list[list[Lit]] | None, why: str
) -> None:
    assert_reads(words, workspace, text, expected, why)
