"""Judging a move made by hand: a new state, a new state file, a write of a judged file."""

from __future__ import annotations

from spellbook.disk.state_file import STATE_LIMIT, TIME_FIELDS
from spellbook.records.errors import StateFileError, UnknownState
from spellbook.verbs.actions import acts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from spellbook.cast.commit_point import Journal
    from spellbook.cast.engine import Engine
    from spellbook.cast.preview import Foresight
    from spellbook.schema import Rule


class Judge:
    """Whether the spec of `engine`'s machine allows a move made by hand, and why. No
    command is run: a guard on a command's outcome is answered by the run the state
    file records, if the command and the repository's files are what they were then."""

    def __init__(self, engine: Engine, journal: Journal, foresight: Foresight) -> None:
        self.engine = engine
        self.journal = journal
        self.foresight = foresight

    def judge(self, before: str, after: str) -> tuple[bool, str]:
        """Whether the spec allows the state to go from `before` to `after` now, and why.

        Refused when the spell that asks for `after` (its Target) is blocked in `before`
        now, with that rule's reason (so a move to START is refused even from START).
        Otherwise allowed when `before` is `after`, or when some spell's winning rule in
        `before`, with the files as they are, leads to `after`. A guard on a command's
        outcome with no recorded run that still holds refuses the move, and names the
        spell that runs it ("cast Advance instead"). Any other refusal names the rule
        that leads there and what it needs that does not hold now, or says that no
        rule leads from `before` to `after`.
        """
        allowed, why, _ = self._judged(before, after)
        return allowed, why

    def _judged(self, before: str, after: str) -> tuple[bool, str, tuple[str, Rule] | None]:
        """`judge`, with the spell and its rule that allow the move (None if none does)."""
        engine = self.engine
        formerly = engine.format.formerly
        before = formerly.get(before, before)  # a former name is the state
        after = formerly.get(after, after)
        for name in (before, after):
            if name not in engine.states:
                raise UnknownState(
                    f"unknown state {name!r}; the states are {', '.join(engine.states)}"
                )
        model, machine = engine.ready(before, self.journal.read(), recorded=True)
        found = self.foresight.dry_run(model, machine, before)
        refused = f"{before} → {after} refused"
        for spell, target in engine.machine.TARGETS.items():
            told = found.get(spell)
            rule = told.rule if told is not None and told.kind == "rule" else None
            if target == after and rule is not None and rule.kind == "blocked":
                why = engine.writer.refusal(rule)
                return False, f"{refused}: {why[:1].upper()}{why[1:]} (rule {rule.id})", None
        if before == after:
            return True, f"{before} stays {before}", None
        leading = [
            (spell, rule)
            for spell, told in found.items()
            for rule in [told.rule if told is not None and told.kind == "rule" else None]
            if rule is not None and rule.changes_state and rule.dest == after
        ]
        if leading:
            spell, rule = min(leading, key=lambda each: acts(each[1]))  # one without actions
            return True, f"{before} → {after} by {spell} (rule {rule.id})", (spell, rule)
        could = [
            spell
            for spell, told in found.items()
            if told is not None
            and told.kind != "rule"
            and any(r.dest == after and r.changes_state for r in engine.cell(before, spell))
        ]
        for spell in could:
            told = found[spell]
            if told is not None and told.kind == "depends":
                return (
                    False,
                    (
                        f"{refused}: it depends on whether "
                        f"{engine.said(told.fact)}, and no run since the files last changed says "
                        f"so; cast {spell} instead (it runs it)"
                    ),
                    None,
                )
        word = engine.machine.SPELL_WORD
        if could:
            told = found[could[0]]
            why = told.why if told is not None else ""
            return False, f"{refused}: {word} {could[0]} might lead there, but {why}", None
        return False, f"{refused}: {self._missing(model, before, after)}", None

    def _missing(self, model: Any, before: str, after: str) -> str:
        """Why no rule leads from `before` to `after` now: the rule that would, and
        every fact it needs that does not hold now; or that no rule of the spec does."""
        engine = self.engine
        word = engine.machine.SPELL_WORD
        for spell in engine.machine.TRIGGERS:
            needed = self.foresight.toward(model, before, spell, after)
            if needed is not None:
                needs, rule = needed
                return (
                    f"rule {rule.id} ({word} {spell}) leads there once {needs}; that does not "
                    f"hold now: once it does, cast {spell} instead"
                )
        for spell in engine.machine.TRIGGERS:
            for rule in engine.cell(before, spell):
                if rule.changes_state and rule.dest == after:
                    needs = self.foresight.unmet_of(model, rule)
                    if needs:  # what no advice asks: a file deleted, say
                        return (
                            f"rule {rule.id} ({word} {spell}) leads there only when its "
                            f"condition holds ({needs}), which it does not now; {spell} cast "
                            "now does not lead there"
                        )
                    return (
                        f"rule {rule.id} ({word} {spell}) leads there, but not with the files "
                        f"as they are now (another rule of {spell} wins); cast {spell} to see "
                        "what it needs"
                    )
        sources = sorted(
            {r.source for r in engine.machine.RULES if r.changes_state and r.dest == after}
        )
        if sources:
            return (
                f"no rule of the spec leads from {before} to {after}: rules lead there from "
                f"{', '.join(sources)} only"
            )
        return f"no rule of the spec leads to {after} from any state"

    def judge_file(self, data: bytes) -> tuple[bool, str]:
        """`judge` for a proposed new state file, against the state file as it is."""
        engine = self.engine
        shown = f"proposed {engine.workspace.shown(engine.state_file)}"
        try:
            proposed = engine.format.read(data, shown, engine.states)
        except StateFileError as err:
            return False, str(err).split("; run")[0]
        current = self.journal.read()
        # The move first: where it is refused, or a cast makes it, that is the reason to
        # give (naming the spell to cast), whatever else a whole file written anew changes.
        allowed, why, by = self._judged(current.state, proposed.state)
        if not allowed:
            return allowed, why
        if by is not None and acts(by[1]):
            spell, rule = by
            return False, (
                f"{why.rsplit(' by ', 1)[0]} refused as a move made by hand: rule {rule.id} "
                f"({engine.machine.SPELL_WORD} {spell}) makes it and "
                f"{engine.writer.effects(rule) or 'acts on files'}, which a state file "
                f"written by hand would leave undone; cast {spell} instead"
            )
        ran = "the record of the commands casts ran; only a cast that runs them writes it"
        if "runs" in proposed.extra and proposed.extra["runs"] != current.extra.get("runs"):
            return False, f"{shown} changes `runs`, {ran}"
        if _exact(proposed.history) != _exact(current.history):
            return False, (
                f"{shown} changes `history`, the record of the casts: only a cast writes it "
                "(an entry added, changed or removed by hand would tell of casts never made)"
            )
        fields = engine.format.fields  # counters, the current item...: the casts' to keep
        for name in fields:
            if name in proposed.extra and proposed.extra[name] != current.extra.get(name):
                return False, f"{shown} changes `{name}`, which only casts change"
        for name in ("runs", *fields):
            # Left out, the record of a run would be gone, a counter would count from 0
            # again, the current item would be none, and the time in a state the
            # file stays in would be from now: changes only casts make. (A move made
            # by hand starts the time in the new state afresh.)
            kept = name in proposed.extra or current.extra.get(name) in (None, 0, "")
            if not kept and (name not in TIME_FIELDS or proposed.state == current.state):
                said = ran if name == "runs" else "which only casts change"
                return False, f"{shown} leaves out `{name}`, {said}"
        return allowed, why

    def judge_write(self, rel: str, proposed: str) -> tuple[bool, str]:
        """Whether a write made by hand of the workspace file `rel` (not the state file)
        may happen: what the machine's `KEPT` keeps of it (`spellbook.cast.hand_writes`), then the
        vocabulary's `judge_write`, where it has one."""
        engine = self.engine
        shown = engine.workspace.shown(rel)
        judge = getattr(engine.vocabulary, "judge_write", None)
        if not judged(engine, rel):
            return True, f"{shown} is not guarded"
        engine.workspace.fresh()
        current = engine.workspace.read_text(rel, STATE_LIMIT)
        why = None
        if rel in _kept_files(engine):
            from spellbook.cast.hand_writes import refusal  # only a write of a kept file needs it

            why = refusal(engine.machine, rel, current, proposed)
        if not why and judge is not None and rel in getattr(engine.vocabulary, "JUDGED", ()):
            why = judge(rel, current, proposed)
        if why:
            return False, f"{shown}: refused: {why}"
        return True, f"{shown}: allowed"


def _exact(value: object) -> str:
    """`value` (JSON) as text that tells apart what `==` does not (`1`, `1.0`, `true`)."""
    import json

    return json.dumps(value, sort_keys=True, allow_nan=True)


def judged(engine: Engine, rel: str) -> bool:
    """Whether a write made by hand of the workspace file `rel` is judged: the state
    file, the files the machine's `KEPT` names (what only casts change there), and the
    files the vocabulary names in `JUDGED` (its `judge_write` says)."""
    return rel in judged_files(engine)


def judged_files(engine: Engine) -> tuple[str, ...]:
    """The state file, then every other workspace file a hand-made write of is judged."""
    judged = (*_kept_files(engine), *getattr(engine.vocabulary, "JUDGED", ()))
    return (engine.state_file, *dict.fromkeys(judged))


def _kept_files(engine: Engine) -> tuple[str, ...]:
    """The files the machine's `KEPT` names, each once (no import for a machine with none)."""
    kept = getattr(engine.machine, "KEPT", ())
    return tuple(dict.fromkeys(k.file for k in kept))
