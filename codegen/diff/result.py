"""What a comparison of two specs found: every difference, as records."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from spellbook.records.words import plural

from ..analyse import Finding
from ..model import Kind, Spec, Term
from ..read.above import SPELL_SECTIONS
from ..read.own_phrases import signs


@dataclass(frozen=True)
class Outcome:
    """What a cell's winning rule does, as far as the machine goes (or no rule: a gap)."""

    rule: str | None
    kind: str
    state: str
    actions: tuple[str, ...] = ()

    def said(self, show_actions: bool) -> str:
        if self.rule is None:
            return "no rule fires"
        if self.kind == Kind.BLOCKED:
            what = "blocked"
        elif self.kind == Kind.NOOP:
            what = "no change"
        else:
            what = self.state
        acts = f": {'; '.join(self.actions)}" if show_actions and self.actions else ""
        return f"{what} ({self.rule}{acts})"

    def json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "outcome": self.kind if self.rule else None,
            "state": self.state or None,
            "actions": list(self.actions),
        }


@dataclass(frozen=True)
class Change:
    """One difference in one spell, in some states, in the worlds `when` says."""

    spell: str
    states: tuple[str, ...]
    when: str
    was: Outcome
    now: Outcome
    # What differs: "behaviour" (next state, actions, blocked or no change) or "told".
    what: str = "behaviour"

    @property
    def where(self) -> str:
        return self.states[0] if len(self.states) == 1 else "states " + ", ".join(self.states)

    def said(self) -> str:
        when = f" when {self.when}" if self.when else ""
        if self.what == "told":
            ids = (
                self.was.rule
                if self.was.rule == self.now.rule
                else f"{self.was.rule}, now {self.now.rule}"
            )
            return f"{self.spell} in {self.where}{when}: what it says changed (was {ids})"
        acts = self.was.actions != self.now.actions
        return (
            f"{self.spell} in {self.where}{when}: was {self.was.said(acts)}, "
            f"now {self.now.said(acts)}"
        )

    def json(self) -> dict[str, object]:
        return {
            "spell": self.spell,
            "states": list(self.states),
            "when": self.when,
            "was": self.was.json(),
            "now": self.now.json(),
        }


@dataclass(frozen=True)
class Renamed:
    old: str
    new: str
    migrated: bool  # the new one says it was `*Formerly*` the old one
    # Other added states it could as well be: the same Indicators, spells and rows into
    # it, so only the names chose (a guess `*Formerly*` settles).
    alike: tuple[str, ...] = ()


@dataclass
class SpecDiff:
    old: Spec
    new: Spec
    states_added: list[str] = field(default_factory=list)
    states_removed: list[str] = field(default_factory=list)
    states_renamed: list[Renamed] = field(default_factory=list)
    # A removed state whose workspaces a state still standing takes over: old -> new.
    merged: dict[str, str] = field(default_factory=dict)
    families_added: list[str] = field(default_factory=list)
    families_removed: list[str] = field(default_factory=list)
    families_renamed: list[tuple[str, str]] = field(default_factory=list)
    spells_added: list[str] = field(default_factory=list)
    spells_removed: list[str] = field(default_factory=list)
    rules_added: list[str] = field(default_factory=list)
    rules_removed: list[str] = field(default_factory=list)
    rules_renamed: list[tuple[str, str]] = field(default_factory=list)
    rules_changed: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    # Rows numbered by their place whose number moved: (old number, new number).
    rules_renumbered: list[tuple[str, str]] = field(default_factory=list)
    # Each row both specs have: its ID in the new spec -> its ID in the old one.
    rows_paired: dict[str, str] = field(default_factory=dict)
    # Rows of one ID that both specs have, read as something else: (ID, was, now), each
    # reading in the core's canonical words (`analyse.reading`).
    readings_changed: list[tuple[str, str, str]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    told: list[Change] = field(default_factory=list)
    templates_changed: list[str] = field(default_factory=list)
    # Files rules create from a template whose text changed: (file, the rows creating it).
    file_templates_changed: list[tuple[str, list[str]]] = field(default_factory=list)
    not_compared: list[tuple[str, str]] = field(default_factory=list)
    findings_new: list[Finding] = field(default_factory=list)
    findings_gone: list[Finding] = field(default_factory=list)
    # Spells renamed or removed that Response cells of the new spec still name: (the old
    # name, the rows whose Response says it).
    still_named: list[tuple[str, list[str]]] = field(default_factory=list)
    # The errors of the new spec, new or not: the diff judges the change, but a spec
    # with errors is not generated, and the headline says so.
    errors: int = 0
    spells_renamed: list[tuple[str, str]] = field(default_factory=list)
    # Of those, the spells renamed that also do something else in some cell (the rows of
    # the same IDs name the new spell where they named the old): their changes are listed.
    spells_renamed_changed: list[tuple[str, str]] = field(default_factory=list)
    # Of those, the renames the new spec declares (`*Formerly*` under the new spell): the
    # team says it renamed it on purpose and updated what calls it.
    spells_declared: list[tuple[str, str]] = field(default_factory=list)
    # Where the workspace and its state are kept, and where a new one starts: (was, now).
    state_file: tuple[str, str] | None = None
    state_key: tuple[str, str] | None = None
    initial: tuple[str, str] | None = None
    # Migrations the old spec made that the new one no longer makes: former name -> state.
    migrations_dropped: dict[str, str] = field(default_factory=dict)
    # Former names the new spec gives that the old spec had no state of.
    formerly_unknown: list[tuple[str, str]] = field(default_factory=list)
    indicators_changed: list[str] = field(default_factory=list)
    descriptions_changed: list[str] = field(default_factory=list)
    # Phrases the old spec uses without defining, read as the new spec defines them.
    borrowed: tuple[Term, ...] = ()
    # Which vocabulary file of the project's own each side was read with, in words
    # (`revisions.load_old`); "" where neither has one.
    vocabularies: tuple[str, str] = ("", "")

    @property
    def renames(self) -> dict[str, str]:
        """Each renamed state's old name -> its new name."""
        return {r.old: r.new for r in self.states_renamed}

    @property
    def spell_map(self) -> dict[str, str]:
        """new spell -> old spell, for the spells both have (renamed ones included)."""
        old = {s.name for s in self.old.spells}
        found = {s.name: s.name for s in self.new.spells if s.name in old}
        found.update({now: was for was, now in self.spells_renamed})
        return found

    def _saved(self, state: str, still: str = "") -> str:
        """Where a workspace's state is kept under its name: a state file, or in a machine
        of the project's own code (no state file), the project's own storage."""
        if self.new.own_code:
            return f"a state {still}saved as {state} in the project's own storage"
        return f"a state file {still}naming {state}"

    def _formerly(self, old: str, new: str) -> str:
        """What to write so that `old` moves to `new` (to the state that takes its place
        where `new` is ""): its `*Formerly*` line, and in a spec whose states are read
        from its tables, the States list to write it in, each state as the tables write it."""
        line = f"`- *Formerly*: {old}`"
        if not _states_unlisted(self.new):
            return f"add {line} to {new or 'the state that takes its place'}"
        shown = {s.name: s.title or s.name for s in self.new.states}
        where = shown.get(new, new) if new else "the state that takes its place"
        items = ", ".join(
            f"`{i}. **{title}**`" + (f" with {line} under it" if name == new else "")
            for i, (name, title) in enumerate(shown.items(), 1)
        )
        return (
            f"this spec has no States list: add a `## States` list of its "
            f"{len(shown)} states as the tables write them, with {line} under {where}: {items}"
        )

    def _spell_formerly(self, old: str, new: str) -> str:
        """What to write to declare that the spell `old` is now `new`: its `*Formerly*` line
        under the new spell in the spec's list of spells, or in a spec whose spells are read
        from its tables, that list to write, each spell by its name in code."""
        line = f"`- *Formerly*: {old}`"
        word = self.new.spell_word
        heading = plural(word).capitalize() if plural(word) in SPELL_SECTIONS else "Spells"
        if not _spells_unlisted(self.new):
            return f"add {line} under {new} in the {heading} list"
        names = [s.name for s in self.new.spells]
        items = ", ".join(
            f"`{i}. **{name}**`" + (f" with {line} under it" if name == new else "")
            for i, name in enumerate(names, 1)
        )
        return (
            f"this spec has no list of its {plural(word)}: add a section `{heading}` listing "
            f"its {len(names)} {plural(word) if len(names) != 1 else word} by their names in "
            f"code, with {line} under {new}: {items}"
        )

    def same_row(self, was: str | None, now: str | None) -> bool:
        """Whether the old spec's rule `was` and the new one's `now` come of one row."""
        if was is None or now is None:
            return False
        if now in self._new_rows:
            return self.rows_paired.get(now) == was
        return was == now  # no row's ID (a cell not listed, rejected)

    @cached_property
    def _new_rows(self) -> frozenset[str]:
        return frozenset(r.id for r in self.new.rows)

    @property
    def breaking(self) -> list[str]:
        """Why a workspace left by the old machine, or the code that calls a machine of
        the project's own code, could stop working with the new one."""
        return self.breaking_workspaces + self.breaking_code

    @property
    def methods(self) -> tuple[list[str], list[str]]:
        """The methods of the project's own code (`own_code`) the model must now have and
        those it no longer needs: each guard's and callback's, `name (guard)`; none for a
        machine of the core's."""

        def of(spec: Spec) -> dict[str, str]:
            found = {a.param: f"{a.param} (guard)" for a in spec.own_guards}
            found.update({a.target: f"{a.target} (callback)" for a in spec.callbacks})
            return found

        old, new = of(self.old), of(self.new)
        return [new[m] for m in new if m not in old], [old[m] for m in old if m not in new]

    @property
    def methods_reworded(self) -> list[tuple[str, str, str]]:
        """The methods of the project's own code both specs have whose words changed by
        what their name drops (`amount over 100 €` to `amount over 100 $`, `below -5` to
        `below 5`): (the method, its words before, its words now). The machine does the
        same, but the method must now answer other words."""

        def of(spec: Spec) -> dict[str, str]:
            found = {
                a.param: spec.words.get(a, (a.param, ""))[0] or a.param for a in spec.own_guards
            }
            found.update({a.target: a.text for a in spec.callbacks})
            return found

        old, new = of(self.old), of(self.new)
        return [
            (name, old[name], words)
            for name, words in new.items()
            if name in old and signs(old[name]) != signs(words)
        ]

    @property
    def breaking_code(self) -> list[str]:
        """Why the code that calls a machine of the project's own code (`own_code`) could
        stop working: a trigger it calls, `model.<trigger>()` or `may_<trigger>()`, gone."""
        if not (self.old.own_code or self.new.own_code):
            return []
        old = {s.name: s.trigger for s in self.old.spells}
        new = {s.name: s.trigger for s in self.new.spells}
        same = " (its rows are the same otherwise)"
        why = [
            f"trigger {old[was]} is renamed {new[now]}"
            f"{'' if (was, now) in self.spells_renamed_changed else same}: "
            f"code that calls {old[was]}() or may_{old[was]}() on the model breaks (call "
            f"{new[now]}() and may_{new[now]}()); a rename made on purpose, its callers "
            f"updated in the same change, is declared so: {self._spell_formerly(was, now)}"
            for was, now in self.spells_renamed
            if (was, now) not in self.spells_declared
        ]
        why += [
            f"trigger {old[name]} is removed: code that calls {old[name]}() or "
            f"may_{old[name]}() on the model breaks"
            for name in self.spells_removed
        ]
        return why

    @property
    def breaking_workspaces(self) -> list[str]:
        """Why a workspace left by the old machine could stop working with the new one."""
        why = [
            f"state {r.old} is renamed {r.new} with no migration: {self._saved(r.old)} "
            f"stops working ({self._formerly(r.old, r.new)})"
            for r in self.states_renamed
            if not r.migrated
        ]
        why += [
            f"state {name} is removed with no migration: {self._saved(name)} stops "
            f"working ({self._formerly(name, '')})"
            for name in self.states_removed
            if name not in self.merged
        ]
        why += [
            f"the migration from {old} to {new} is gone: {self._saved(old, 'still ')} "
            f"(a workspace not cast since) stops working (keep `- *Formerly*: {old}`)"
            for old, new in self.migrations_dropped.items()
        ]
        if self.state_file:
            why.append(
                f"the state file moves from {self.state_file[0]} to {self.state_file[1]}: "
                "every workspace's state file is left where the new machine does not look"
            )
        if self.state_key:
            why.append(
                f"the state file keeps the state under {self.state_key[1]!r}, not "
                f"{self.state_key[0]!r}: every existing state file stops working"
            )
        return why

    @property
    def behaviour_changed(self) -> bool:
        return bool(
            self.changes
            or self.states_added
            or self.states_removed
            or self.spells_added
            or self.spells_removed
            or self.not_compared
            or self.initial
            or self.file_templates_changed
        )


def _spells_unlisted(spec: Spec) -> bool:
    """Whether the spec's spells are read from its transition tables (no Spells list)."""
    return any(n.kind == "names_from_tables" and "Spells list" in n.message for n in spec.notices)


def _states_unlisted(spec: Spec) -> bool:
    """Whether the spec's states are read from its transition tables (no States list)."""
    return any(n.kind == "names_from_tables" and "States" in n.message for n in spec.notices)
