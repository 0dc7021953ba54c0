"""Identifiers derived from names written as prose (`codegen.read.identifiers`)."""

from __future__ import annotations

import pytest

from codegen.read.identifiers import identifier, is_identifier


@pytest.mark.parametrize(
    ("written", "derived"),
    [
        ("PLAN_APPROVED", "PLAN_APPROVED"),
        ("code_review_failed", "code_review_failed"),
        ("paused-manual", "paused_manual"),
        ("Story newly created", "story_newly_created"),
        ("Facilitator archives (read-only retention)", "facilitator_archives_read_only_retention"),
        ("PAYMENT HELD", "PAYMENT_HELD"),
        ("3 retries", "_3_retries"),
        ("class", "class_"),
        ("Créé", "cree"),
        ("—", ""),
    ],
)
def test_a_name_written_as_prose_gets_one_identifier(written: str, derived: str) -> None:
    assert identifier(written) == derived
    assert derived == "" or is_identifier(derived)
