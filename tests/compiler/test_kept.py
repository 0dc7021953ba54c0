"""What a hand-made write of a workspace JSON file may not do, drawn from what the
spec's casts write there (`codegen.analyse.kept`), declared by the generated module
(`KEPT`) and said by the verifier (`--explain`, the reports)."""

from __future__ import annotations

from pathlib import Path

from codegen import load_spec, parse_spec_text
from codegen.analyse.kept import kept
from codegen.analyse.reading import read_spec
from codegen.render import render_machine
from spellbook.schema import Kept
from tests.support.kept_specs import TICKETS

ROOT = Path(__file__).resolve().parents[2]


def test_a_list_the_casts_address_by_a_key_and_a_command_a_guard_runs_are_kept() -> None:
    spec = parse_spec_text(TICKETS, "spec.md")
    assert kept(spec) == (
        Kept(
            "tickets.json",
            items="tickets",
            key="id",
            marks="state",
            marked=('"closed"', '"stuck"'),
            spells=("Close",),
            after="check",
        ),
        Kept("tickets.json", command="check"),
    )
    assert "KEPT: tuple[Kept, ...] = (" in render_machine(spec, "tickets_machine")
    (said,) = read_spec(spec).kept
    assert said == (
        "a hand-made write of tickets.json is refused unless every item of `tickets` stays, "
        'once, with its `id`, and its `state` is set only by casts of Close (to "closed", '
        '"stuck", which no new item may carry); the command `check` stays as written'
    )


def test_a_set_that_addresses_no_item_by_its_key_keeps_nothing() -> None:
    """A top-level key, or a filter that is no key's value (`!=`), names no kept list;
    a spec with neither declares no `KEPT` at all."""
    text = TICKETS.replace("`tickets[id=$ticket].state`", "`tickets_done`")
    text = text.replace("the command `check` of tickets.json", "tickets.json has `tickets`")
    spec = parse_spec_text(text, "spec.md")
    assert kept(spec) == ()
    assert "KEPT" not in render_machine(spec, "tickets_machine")
    assert read_spec(spec).kept == ()


def test_the_session_keeps_its_feature_list_from_its_own_words() -> None:
    spec = load_spec(ROOT / "spec" / "SESSION_STATE_MACHINE.md")
    assert [(k.items, k.key, k.marks, k.marked, k.command) for k in kept(spec)] == [
        ("features", "id", "status", ('"blocked"', '"tested"'), ""),
        ("", "", "", (), "test_command"),
    ]
    assert kept(load_spec(ROOT / "spec" / "STATE_MACHINE.md")) == ()
