"""A small spec whose casts address a JSON list by a key and whose guard runs a command:
what a hand-made write of that file may not do is drawn from it (`KEPT`)."""

from __future__ import annotations

from tests.support.specs import row, spec_text

TICKETS = (
    spec_text(
        ["OPEN", "DONE"],
        ["Pick", "Close"],
        [
            row(
                "P1",
                "OPEN",
                "Pick",
                "tickets.json has `tickets[state=open]`",
                "Same state",
                "Set `ticket` in the state file to the first `tickets[state=open].id` of "
                "tickets.json",
            ),
            row(
                "C1",
                "OPEN",
                "Close",
                "the command `check` of tickets.json passes",
                "Same state",
                'Set `tickets[id=$ticket].state` in tickets.json to "closed"',
            ),
            row(
                "C2",
                "OPEN",
                "Close",
                "the command `check` of tickets.json fails",
                "Same state",
                'Set `tickets[id=$ticket].state` in tickets.json to "stuck"',
            ),
            row("D1", "DONE", "Pick, Close"),
        ],
    )
    + "\n### State Persistence\n\nKept in `.t/state.json`:\n\n"
    + '```json\n{"state": "OPEN", "ticket": "T1"}\n```\n'
)
