"""What each spell would do now, and what to do first, told without casting anything.

What each spell would do comes from a dry run of each trigger (`preview`); a
spell whose rule acts on files is told from the plan its cast would make now
(`foresee`). A spell that would not move the
workflow on is told what must hold first for one of its rules that would
(`first`). A workflow that casts again works all this out again only when
something it depends on may have changed (`telling`).
"""

from __future__ import annotations

from spellbook.cast.responses import First, spell_values, unmet_said
from spellbook.disk.paths import is_repository
from spellbook.disk.state_file import encode, today
from spellbook.facts.answers import NeedsRun
from spellbook.facts.probes import PROBES
from spellbook.records.errors import (
    ActionError,
    BadFile,
    SpellbookError,
    Undefined,
    UnsafePath,
    said,
)
from spellbook.records.outcome import Preview
from spellbook.verbs.actions import acts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from spellbook.cast.engine import Engine
    from spellbook.disk.looks import Looks
    from spellbook.disk.state_file import Record
    from spellbook.schema import Rule, Wanted

    Previews = dict[str, Preview | None]

TOLD_LIMIT = 64  # tellings kept (see `Foresight.telling`), by state


class Foresight:
    """What the spells of `engine`'s machine would do in its workspace now."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.writer = engine.writer
        # What each spell would do, by (state, every guard's value): a pure function of those.
        self._previews: dict[tuple[str, tuple[bool | None, ...]], Previews] = {}
        self._values: tuple[Any, dict[str, bool | None]] | None = None  # see `guards`
        self._lost: frozenset[str] | None = None  # the states standing for a lost file
        self._told: dict[tuple[str, str, str], tuple[Looks, dict[str, str]]] = {}  # `telling`
        self._timeless = all(g.probe != "over_minutes" for g in engine.machine.GUARDS)

    def preview(self, model: Any, machine: Any, state: str) -> Previews:
        """For each spell, what would happen now in `state`: the rule that would win
        (None if none would), or that it depends on running a command (which a preview
        never does), or that it cannot be told."""
        key = (state, tuple(self.guards(model).values()))
        known = self._previews.get(key)
        if known is None:
            known = self.dry_run(model, machine, state)
            # Why a file cannot be read is not in the key (a guard reading it is None).
            if not _cannot_tell(known):
                self._previews[key] = known
        return known

    def dry_run(self, model: Any, machine: Any, state: str) -> Previews:
        """Each spell's trigger fired on the machine in `state`, which is put back after."""
        rules = self.engine.rules
        found: Previews = {}
        for spell, trigger in self.engine.machine.TRIGGERS.items():
            if not self.engine.cell(state, spell):  # a gap of the spec: nothing to try
                found[spell] = Preview.uncovered(state)
                continue
            model.fired = model.refused = None
            told: Preview | None = None
            try:
                getattr(model, trigger)()
                chosen = model.fired or model.refused
                rule = rules.get((state, spell, chosen)) if chosen else None
                told = Preview.of(rule) if rule is not None else None
            except NeedsRun as need:
                told = Preview.depends(need.fact, self.engine.said(need.fact))
            except (SpellbookError, OSError) as err:  # undefined, or a file it cannot read
                told = Preview.unknown(said(err))
            machine.set_state(state, model=model)
            found[spell] = told
        return found

    def guards(self, model: Any) -> dict[str, bool | None]:
        """Every guard's value for the model's facts (`_guard`), worked out once for
        them: what each spell would do and what to do first both read them."""
        if self._values is None or self._values[0] is not model.facts:
            self._values = (
                model.facts,
                {g.name: _guard(model, g.name) for g in self.engine.machine.GUARDS},
            )
        return self._values[1]

    def foresee(self, model: Any, machine: Any, state: str) -> Previews:
        """`preview`, with each rule that would act on files planned as its cast would
        plan it now (`spellbook.verbs.actions.plan`, which changes nothing): what it would
        really create, archive or delete and where, or why its cast would be refused."""
        found = dict(self.preview(model, machine, state))
        engine = self.engine
        for spell, told in found.items():
            rule = told.rule if told is not None and told.kind == "rule" else None
            if rule is None or not acts(rule):
                continue
            from spellbook.verbs.actions import plan

            try:
                planned = plan(
                    rule,
                    engine.workspace,
                    model.facts.record,
                    vocabulary=engine.vocabulary,
                    templates=engine.template,
                    own=(engine.state_file,),
                    settable=engine.settable,
                    programs=engine.programs(),
                    others=engine.others,
                )
            except (ActionError, UnsafePath, BadFile) as err:
                found[spell] = Preview.refused(said(err), rule)
            except (SpellbookError, OSError) as err:  # a file it cannot read now
                found[spell] = Preview.unknown(said(err))
            else:
                words = self.writer.summary(rule, planned.done.did)
                found[spell] = Preview.planned(rule, words)
        return found

    def first(self, model: Any, state: str, previews: Previews) -> dict[str, First]:
        """What to do first, for each spell that would not move the workflow on: it is
        blocked or changes nothing, or it moves into a state that stands for a lost
        file (an error state, `moves.lost_file_states`), while another of its rules
        would move elsewhere once some facts changed. That rule, and what must hold
        for it to win, in the spec's words.

        Of the rules that would win then (the other facts as they are now), one that
        needs more than a counter of the state file changed (`attempts ≥ 2` is where
        repeated casts lead, not a step to aim for: `First.counted`), then the one
        needing the fewest facts changed, then the earlier in the spec's order; what it
        asks of a file that is not there yet counts as a fact to change."""
        facts = self.guards(model)
        found: dict[str, First] = {}
        for spell, told in previews.items():
            if told is not None and told.wins is None:
                continue  # it depends on a command's outcome, cannot be told, or is refused
            rule = told.wins if told is not None else None
            if rule is not None and rule.changes_state and not self.missing(rule.dest):
                continue  # it moves on
            elsewhere = rule.dest if rule is not None else None

            def onward(other: Rule, elsewhere: str | None = elsewhere) -> bool:
                return not self.missing(other.dest) and other.dest != elsewhere

            best = self._best(model, self.engine.cell(state, spell), facts, onward)
            if best is not None:
                found[spell] = best
        return found

    def unmet_of(self, model: Any, rule: Rule) -> str:
        """What of `rule`'s condition does not hold now, in the spec's words: of each way
        it may hold, the one that asks least ("" where none can be told, or it holds);
        a file to delete too, which `toward`'s advice never asks."""
        ways = _wanted(rule, self.guards(model))
        if not ways:
            return ""
        _, wanted = min(ways, key=lambda way: len(way[1]))
        return " and ".join(dict.fromkeys(w.said for w in wanted))

    def toward(self, model: Any, state: str, spell: str, dest: str) -> tuple[str, Rule] | None:
        """What must hold for a rule of `spell` in `state` that moves to `dest` to win (as
        `first` tells it), and that rule; None if no such rule would win by facts changed."""
        cell = self.engine.cell(state, spell)
        best = self._best(model, cell, self.guards(model), lambda other: other.dest == dest)
        return None if best is None else (best.once, best.rule)

    def _best(
        self,
        model: Any,
        cell: list[Rule],
        facts: dict[str, bool | None],
        wanted_rule: Callable[[Rule], bool],
    ) -> First | None:
        """Of the rules of `cell` that move the state and that `wanted_rule` takes, the
        one needing more than a counter changed, then the fewest facts changed to win
        (the other facts as they are now), then the earlier; what must hold for it, in
        the spec's words, and what holds now of the files to change that must still
        hold then (`keeping: ...`), so that following the advice is not refused. A
        checklist still its template's, untouched, has no items: what is asked of it is
        said so (`of its own`), and what holds of it now only because of that (no
        unchecked items) is asked, not kept (`_template_said`)."""
        best: tuple[bool, int, int, list[Wanted], Rule, list[Wanted]] | None = None
        for at, other in enumerate(cell):
            if not other.changes_state or not wanted_rule(other):
                continue
            for alternative, wanted in _wanted(other, facts):
                if any(not w.holds and w.guard.probe == "exists" for w in wanted):
                    continue  # advice never asks to delete a file
                world = {**facts, **{w.guard.name: w.holds for w in wanted}}
                world.update(self.implied(wanted))
                if any(_holds_in(earlier, world) for earlier in cell[:at]):
                    continue  # an earlier rule would still win
                # What it asks of a file not there yet must hold too.
                files = {w.guard.file for w in wanted if w.holds and w.guard.probe == "exists"}
                asked = wanted + [
                    w
                    for w in alternative
                    if w not in wanted
                    and w.guard.file in files
                    and PROBES[w.guard.probe].reads_content
                ]
                # What holds now of the files to change, and must still hold then.
                edited = {w.guard.file for w in asked}
                kept = [
                    w
                    for w in alternative
                    if w not in asked
                    and w.guard.file in edited
                    and PROBES[w.guard.probe].reads_content
                ]
                counted = all(w.guard.probe == "below" for w in asked)
                if best is None or (counted, len(asked), at) < best[:3]:
                    best = (counted, len(asked), at, asked, other, kept)
        if best is None:
            return None
        counted, _, _, asked, rule, kept = best
        template = self._template_said(model, [*asked, *kept])
        untouched = [w for w in kept if w in template]
        asked = asked + untouched
        kept = [w for w in kept if w not in untouched]
        said = " and ".join(
            dict.fromkeys(
                template[w] if template.get(w, w.said) != w.said else _in_kept(w, kept)
                for w in asked
            )
        )
        keeping = " and ".join(dict.fromkeys(w.said for w in kept))
        return First(said + (f" (keeping: {keeping})" if keeping else ""), rule, counted)

    def _template_said(self, model: Any, wanted: list[Wanted]) -> dict[Wanted, str]:
        """Of `wanted`, the facts of a checklist that is still its template's, untouched
        (`sections.real_items`: it has no items), with what to say of each: that the
        file have items of its own, where that is asked (the developer sees the
        template's items there; in the spec's words where it has words of its own); the
        spec's own words for a fact that holds now only because the template's items
        are none (`no unchecked items`), which is then asked of the items to come."""
        found: dict[Wanted, str] = {}
        for w in wanted:
            guard = w.guard
            if guard.probe not in ("items", "unchecked") or not _untouched(
                model.facts, guard.file, guard.param
            ):
                continue
            if guard.probe == "items" and w.holds:
                plain = PROBES["items"].yes.format(file=guard.file, param=guard.param)
                found[w] = (
                    f'{guard.file} has checklist items of its own under "{guard.param}" '
                    "(its template's, untouched, count as none)"
                    if w.said == plain
                    else f"{w.said} (its template's items, untouched, count as none)"
                )
            elif guard.probe == "unchecked" and not w.holds:
                found[w] = w.said
        return found

    def implied(self, wanted: list[Wanted]) -> dict[str, bool]:
        """The guards that hold wherever the wanted facts that must hold do (unchecked
        items are a section of a file that exists: `probes.implied`), by name."""
        from spellbook.facts.implications import implied

        names = {g.fact: g.name for g in self.engine.machine.GUARDS}
        return {
            names[fact]: True
            for w in wanted
            if w.holds
            for fact in implied(w.guard.probe, w.guard.file, w.guard.param)
            if fact in names
        }

    def missing(self, state: str) -> bool:
        """Whether `state` stands for a lost file (an error state: `moves.lost_file_states`)."""
        if self._lost is None:
            from spellbook.records.moves import lost_file_states

            machine = self.engine.machine
            self._lost = lost_file_states(
                {
                    st.name: [(w.guard.probe, w.guard.file, w.holds) for w in st.evidence]
                    for st in machine.STATES
                },
                [(r.source, r.dest) for r in machine.RULES if r.changes_state],
                [st.name for st in machine.STATES if st.goal],
            )
        return state in self._lost

    def telling(self, record: Record, state: str) -> dict[str, str]:
        """What a response says of what the workspace allows now in `state`: what each
        spell would do (`foresee`), what to do first (`first`), which files are there.

        Worked out again only when something it depends on may have changed: kept with
        what the files looked like (`Workspace.observe`) and used while they look the
        same (`Workspace.unchanged`), for the same state, state file fields and day
        (archive folders are named by the date). Not kept where a fact depends on the
        time of day (`over_minutes`), or where a file could not be looked at or was
        read within its filesystem's clock tick of changing (`Looks`)."""
        engine = self.engine
        workspace = engine.workspace
        key = None
        if self._timeless:
            try:
                key = (state, today(), encode(record.extra))
            except (TypeError, ValueError):
                key = None  # a field JSON cannot hold: not kept
        kept = self._told.get(key) if key is not None else None
        if kept is not None and workspace.unchanged(kept[0]):
            return dict(kept[1])
        model, machine = engine.ready(state, record)
        looks = workspace.observe()
        try:
            foreseen = self.foresee(model, machine, state)
            first = self.first(model, state, foreseen)
            word = engine.machine.SPELL_WORD
            values = spell_values(foreseen, self.writer, word, first)
            values["files"] = files_said(engine.files, self.there(model), engine.machine.WORKSPACE)
            unmet = self.unmet(model, state)
            if unmet:
                values["files"] += f"\n{unmet_said(state, unmet)}."
        finally:
            workspace.unobserve()
        # A spell that cannot be told may be told once something outside the workspace
        # is put right (its vocabulary installed, say): not kept.
        if key is not None and looks.settled and not _cannot_tell(foreseen):
            if len(self._told) >= TOLD_LIMIT:
                self._told.clear()
            self._told[key] = (looks, dict(values))
        return values

    def there(self, model: Any) -> dict[str, bool]:
        """Whether each file the rules ask about is there now (a file that cannot be
        looked at counts as not there)."""
        there = {}
        for file in self.engine.files:
            try:
                there[file] = model.facts.exists(file)
            except (SpellbookError, OSError):
                there[file] = False
        return there

    def unmet(self, model: Any, state: str) -> list[str]:
        """What the files say now against `state`'s Indicators, in the spec's words: a
        state file edited by hand or merged, a file removed by hand, or what the AI was
        just asked to write and has not yet (nothing said where a file cannot be read)."""
        try:
            return self.engine.states[state].contradicted(model.facts.check)
        except (SpellbookError, OSError, NeedsRun):
            return []

    def unhandled(self, state: str, spell: str, model: Any) -> list[str]:
        """The facts the rules of `spell` in `state` look at, as they are now, in words
        (for a cast no rule covers)."""
        guards = dict.fromkeys(g for r in self.engine.cell(state, spell) for g in r.guards)
        words = []
        for guard in guards:
            try:
                words.append(guard.words(getattr(model, guard.name)()))
            except Undefined:
                words.append(f"whether {guard.yes}")
            except NeedsRun:  # no rule got as far as needing the command: it was not run
                words.append(f"whether {guard.yes} (not run: no rule needed it)")
        return words


def _guard(model: Any, guard: str) -> bool | None:
    """A guard's value now, or None where it would have to run a command."""
    try:
        return bool(getattr(model, guard)())
    except (NeedsRun, SpellbookError, OSError):
        return None


# The probes of a section's items whose "no" says "has no section S with ...": said of the
# items alone where the section is kept (`absent`).
_SECTION_ITEMS = frozenset({"items", "unchecked"})


def _in_kept(wanted: Wanted, kept: list[Wanted]) -> str:
    """How to say a fact wanted not to hold where what is kept says its section is there:
    `plan.md has no unchecked items under "Risks"` rather than `... has no section
    "Risks" with unchecked items`, which reads as "delete the section"."""
    guard = wanted.guard
    probe = PROBES[guard.probe]
    if wanted.holds or guard.probe not in _SECTION_ITEMS:
        return wanted.said
    if wanted.said != probe.no.format(file=guard.file, param=guard.param):
        return wanted.said  # the spec's own words
    section = any(
        k.holds
        and k.guard.probe == "section"
        and (k.guard.file, k.guard.param) == (guard.file, guard.param)
        for k in kept
    )
    return probe.absent.format(file=guard.file, param=guard.param) if section else wanted.said


def _wanted(
    rule: Rule, facts: dict[str, bool | None]
) -> list[tuple[tuple[Wanted, ...], list[Wanted]]]:
    """Each alternative of `rule`'s condition that some facts keep from holding now,
    with those guards (`~g`: one that must be false). A command's outcome, which is
    not told before the cast runs it, is among what must hold ("and the tests pass");
    an alternative with another fact that cannot be told now is none."""
    found = []
    for alternative in rule.when:
        if any(facts.get(w.guard.name) is None and w.guard.probe != "passes" for w in alternative):
            continue
        wanted = [w for w in alternative if facts.get(w.guard.name) != w.holds]
        if all(w.guard.probe == "passes" for w in wanted):
            continue  # only the command's outcome: the spell's own preview says so
        if wanted:
            found.append((alternative, wanted))
    return found


def _untouched(facts: Any, file: str, section: str) -> bool:
    """Whether the section of `file` has checklist items but they are its template's
    own, untouched, so none counts (`sections.real_items`)."""
    from spellbook.facts.sections import checklist

    try:
        if not facts.exists(file) or facts.items(file, section):
            return False
        return any(item for _, item in checklist(facts.text(file), section))
    except (SpellbookError, OSError):
        return False


def _cannot_tell(previews: Previews) -> bool:
    """Whether some spell's preview says it cannot be told (or its cast would be refused)."""
    return any(told is not None and told.cannot_tell for told in previews.values())


def _holds_in(rule: Rule, world: dict[str, bool | None]) -> bool:
    """Whether some alternative of `rule`'s condition holds in `world` (guard values)."""
    return any(
        all(world.get(w.guard.name) == w.holds for w in alternative) for alternative in rule.when
    )


def files_said(files: Sequence[str], there: Mapping[str, bool], workspace: str) -> str:
    """Which of `files` are there: `Files there: `a`, `b`; not there: `c`.`, each named
    from the repository's top (one a fact names so, `/README.md`, is `README.md`)."""
    shown = {
        f: f[1:] if is_repository(f) else "/".join(p for p in (workspace, f) if p) for f in files
    }
    held = [f"`{shown[f]}`" for f in files if there[f]]
    missing = [f"`{shown[f]}`" for f in files if not there[f]]
    return f"Files there: {', '.join(held) or 'none'}; not there: {', '.join(missing) or 'none'}."
