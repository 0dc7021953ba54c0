"""Checks of a machine whose guards and callbacks are the project's own code (`own_code`).

Such a machine is driven by its generated `build(model)` in the project's code: the
model's methods answer its guards and carry out its callbacks, and no workspace is looked
at. `spell` does not drive it. So a machine is the core's or the project's, never half of
each: a fact the core checks about a workspace's files, or an action of the core's, in a
machine that has guards or callbacks of the project's own, would never be checked or
carried out, and is an error (`own_code`). So is a callback on a row that refuses the
trigger: `transitions` calls a transition's callbacks only when it happens.
"""

from __future__ import annotations

from collections.abc import Iterator

from spellbook.actions import passive

from ..logic import describe
from ..model import CALL, OWN, Kind, Literal
from .analysis import Analysis
from .findings import Finding

_WHY = (
    "this machine's guards and callbacks are the project's own code, which its "
    "generated build(model) runs, looking at no workspace, and `spell` does not drive it: "
    "a machine is the core's or the project's, never half of each"
)


def check_own_code(analysis: Analysis) -> Iterator[Finding]:
    spec = analysis.spec
    if not (spec.own_guards or spec.callbacks):
        return
    for row in spec.rows:
        core = [a for a in row.condition.atoms if a.probe not in (OWN, "unknown")]
        if core:
            said = ", ".join(repr(describe(Literal(a, True), spec.words)) for a in core)
            yield Finding(
                "own_code",
                f"rule {row.id}: {said} {'is a fact' if len(core) == 1 else 'are facts'} the "
                f"core checks in a workspace, but {_WHY}; say it in words of the project's "
                "own, without the file's name, and let a method of the model check it",
                line=row.line,
                rule=row.id,
            )
        done = [a for a in row.actions if a.verb not in (CALL, "instruct") and not passive(a.verb)]
        if done:
            said = ", ".join(repr(a.text) for a in done)
            yield Finding(
                "own_code",
                f"rule {row.id}: {said} {'is an action' if len(done) == 1 else 'are actions'} "
                f"the core carries out when `spell` casts, but {_WHY}; say it in words of "
                "the project's own, and let a callback of the model do it",
                line=row.line,
                rule=row.id,
            )
        for action in (a for a in row.actions if a.verb == "instruct"):
            why = f" ({action.hint})" if action.hint else ""
            yield Finding(
                "own_code",
                f"rule {row.id}: {action.text!r} is not read as a callback{why}, so it "
                f"would be an instruction to the AI, but {_WHY}; name the callback in words "
                "of the project's own",
                line=row.line,
                rule=row.id,
            )
        calls = [a for a in row.actions if a.verb == CALL]
        if calls and row.target.kind is Kind.BLOCKED:
            said = ", ".join(repr(a.text) for a in calls)
            yield Finding(
                "own_code",
                f"rule {row.id} refuses the trigger ([BLOCKED]), so no transition happens "
                f"for `transitions` to call {said} after; a callback belongs to a row that "
                "moves the state or keeps it (Same state)",
                line=row.line,
                rule=row.id,
            )
