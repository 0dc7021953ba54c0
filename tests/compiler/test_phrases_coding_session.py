"""Condition phrases of the `coding_session` vocabulary. Each beside its near misses, read
as its author means or refused (the corpus: tests/compiler/test_phrase_corpus.py)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.phrases import (
    OTHER_PENDING,
    PENDING,
    Lit,
    assert_reads,
    no,
    one,
    read,
    refused,
    yes,
)

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


PHRASES = [*SESSION]


@pytest.mark.parametrize(("words", "workspace", "text", "expected", "why"), PHRASES)
def test_phrase(
    words: str, workspace: str, text: str, expected: list[list[Lit]] | None, why: str
) -> None:
    assert_reads(words, workspace, text, expected, why)
