"""Judging a move made by hand (`Workflow.judge`): every invalid and valid transition the
session's seed document lists (tests/fixtures/seed_session_patterns.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codegen.read.markdown import Code, Table, read_blocks
from tests.sessions import MACHINE, TEST_COMMAND, prepared

ROOT = Path(__file__).resolve().parents[2]
SEED = (ROOT / "tests" / "fixtures" / "seed_session_patterns.md").read_text(encoding="utf-8")


def seed_invalid_transitions() -> list[tuple[str, str, str]]:
    """(From, To, Why Blocked) rows of the seed's Invalid Transitions table, Any expanded."""
    (table,) = [
        b
        for b in read_blocks(SEED)
        if isinstance(b, Table)
        and [c.plain for c in b.header.cells] == ["From", "To", "Why Blocked"]
    ]
    rows = []
    for row in table.rows:
        source, target, why = (c.plain for c in row.cells)
        sources = [s.name for s in MACHINE.STATES] if source == "Any" else [source]
        rows.extend((s, target, why) for s in sources)
    return rows


def seed_valid_transitions() -> list[tuple[str, str]]:
    (code,) = [
        b for b in read_blocks(SEED) if isinstance(b, Code) and "VALID_TRANSITIONS" in b.text
    ]
    literal = code.text[code.text.index("{") : code.text.rindex("}") + 1]
    valid = ast.literal_eval(literal)
    return [(source, target) for source, targets in valid.items() for target in targets]


@pytest.mark.parametrize(("source", "target", "why"), seed_invalid_transitions())
def test_every_invalid_transition_of_the_seed_is_refused_with_its_reason(
    tmp_path: Path, source: str, target: str, why: str
) -> None:
    flow = prepared(tmp_path, source, passing=False, pending=1)
    allowed, reason = flow.judge(source, target)
    assert not allowed
    assert why.rstrip(".").lower() in reason.lower()


@pytest.mark.parametrize(("source", "target"), seed_valid_transitions())
def test_every_valid_transition_of_the_seed_is_allowed_where_its_condition_holds(
    tmp_path: Path, source: str, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPELLBOOK_TEST_COMMAND", TEST_COMMAND)  # also without a feature list
    worlds = [
        dict(passing=p, pending=n) for p in (False, True) for n in (None, 0, 1, 2)
    ]  # some world must allow it
    verdicts = []
    for n, world in enumerate(worlds):
        folder = tmp_path / str(n)
        verdicts.append(prepared(folder, source, **world).judge(source, target)[0])  # type: ignore[arg-type]
    assert any(verdicts)
