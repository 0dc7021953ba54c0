"""What changes between two specs: the two machines compared, not the two texts.

States, families, spells and rows are matched by name; a state of the new spec
that behaves like a removed one (the same Indicators, and every spell doing
the same in it) is a rename, and one whose `*Formerly*` names a removed state
carries that state's workspaces across (a migration). Then every (state, spell)
is examined in every world its old and new conditions can see (`codegen.worlds`):
wherever the winning rule's outcome (next state, file actions, blocked or no
change) differs, that is a behaviour change, said in the facts that tell those
worlds apart. A reordering that changes no outcome, a renamed column, a
formatter's rewriting or a condition reworded with the same meaning changes
nothing and prints nothing.

What the developer and the AI are told (a rule's Response, its instructions,
the response templates) is compared as well and reported apart, and so are the
verifier's findings that appear or disappear.

A change can break existing workspaces when a state that a state file may name
is gone with no state saying it was `*Formerly*` that name.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from spellbook.schema import PASSIVE_VERBS

from ..analyse.cells import MAX_ATOMS, clause_masks, closure, consistent_worlds
from ..analyse.checks import analyse
from ..analyse.findings import Finding
from ..model import Action, Atom, Kind, Literal, Rule, RuleRow, Spec
from ..read.conditions import describe
from ..read.lexicon import Term, normal

Clauses = tuple[tuple[Literal, ...], ...]

# Findings about how the markdown was read, not about what the machine does: a
# formatter's rewriting shows up here and means nothing to the machine.
READING_KINDS = frozenset({"name_recovered", "column_choice", "table_skipped"})


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
    changes: list[Change] = field(default_factory=list)
    told: list[Change] = field(default_factory=list)
    templates_changed: list[str] = field(default_factory=list)
    not_compared: list[tuple[str, str]] = field(default_factory=list)
    findings_new: list[Finding] = field(default_factory=list)
    findings_gone: list[Finding] = field(default_factory=list)
    spells_renamed: list[tuple[str, str]] = field(default_factory=list)
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

    @property
    def breaking(self) -> list[str]:
        """Why a workspace left by the old machine could stop working with the new one."""
        why = [
            f"state {r.old} is renamed {r.new} with no migration: a state file naming "
            f"{r.old} stops working (add `- *Formerly*: {r.old}` to {r.new})"
            for r in self.states_renamed
            if not r.migrated
        ]
        why += [
            f"state {name} is removed with no migration: a state file naming it stops "
            "working (add `- *Formerly*: " + name + "` to the state that takes its place)"
            for name in self.states_removed
            if name not in self.merged
        ]
        why += [
            f"the migration from {old} to {new} is gone: a state file still naming {old} "
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
        )


def compare(old: Spec, new: Spec, borrowed: tuple[Term, ...] = ()) -> SpecDiff:
    """Everything that differs between what `old` and `new` make the machine do."""
    diff = SpecDiff(old, new, borrowed=borrowed)
    _match_states(diff)
    _match_spells(diff)
    _families(diff)
    _storage(diff)
    _described(diff)
    _rows(diff)
    _cells(diff)
    _templates(diff)
    _findings(diff)
    return diff


# -- names --


def _match_spells(diff: SpecDiff) -> None:
    """Spells by name; a new spell that does what a removed one did in every state is
    that spell renamed."""
    old = [s.name for s in diff.old.spells]
    new = [s.name for s in diff.new.spells]
    added = [s for s in new if s not in old]
    removed = [s for s in old if s not in new]
    renames = _renames(diff)
    back = {n: o for o, n in renames.items()}
    old_states = diff.old.states_by_name
    common = [s.name for s in diff.new.states if back.get(s.name, s.name) in old_states]
    for was in removed:
        for now in added:
            if all(
                not _acts_differently(
                    diff.old.cell(back.get(st, st), was), diff.new.cell(st, now), renames
                )
                for st in common
            ):
                diff.spells_renamed.append((was, now))
                added.remove(now)
                break
    renamed = {o for o, _ in diff.spells_renamed}
    diff.spells_added = added
    diff.spells_removed = [s for s in removed if s not in renamed]


def _spell_map(diff: SpecDiff) -> dict[str, str]:
    """new spell -> old spell, for the spells both have (renamed ones included)."""
    old = {s.name for s in diff.old.spells}
    found = {s.name: s.name for s in diff.new.spells if s.name in old}
    found.update({now: was for was, now in diff.spells_renamed})
    return found


def _storage(diff: SpecDiff) -> None:
    """Where workspaces keep their state, where a new one starts, and the migrations."""
    old, new = diff.old, diff.new
    if old.state_file != new.state_file:
        diff.state_file = (old.state_file, new.state_file)
    if old.schema.state_key != new.schema.state_key:
        diff.state_key = (old.schema.state_key, new.schema.state_key)
    renames = _renames(diff)
    if renames.get(old.initial, old.initial) != new.initial:
        diff.initial = (old.initial, new.initial)
    diff.migrations_dropped = {
        was: now
        for was, now in old.formerly.items()
        if was not in new.formerly and was not in new.states_by_name
    }
    old_names = {*old.states_by_name, *old.formerly}
    diff.formerly_unknown = [(w, n) for w, n in new.formerly.items() if w not in old_names]


def _described(diff: SpecDiff) -> None:
    """Each state's Indicators (what `spell repair` reads from the files) and the
    descriptions of states and spells."""
    old, new = diff.old, diff.new
    back = {n: o for o, n in _renames(diff).items()}
    old_states = old.states_by_name
    for state in new.states:
        was = back.get(state.name, state.name)
        if was not in old_states:
            continue
        before = old.state(was)
        if set(before.evidence) != set(state.evidence):
            diff.indicators_changed.append(state.name)
        if _plain(before.description) != _plain(state.description):
            diff.descriptions_changed.append(f"state {state.name}")
    spells = {s.name: s for s in old.spells}
    spell_map = _spell_map(diff)
    for spell in new.spells:
        was_spell = spells.get(spell_map.get(spell.name, ""))
        if was_spell is not None and (_plain(was_spell.description), _plain(was_spell.usage)) != (
            _plain(spell.description),
            _plain(spell.usage),
        ):
            diff.descriptions_changed.append(f"spell {spell.name}")


def _match_states(diff: SpecDiff) -> None:
    added = [s.name for s in diff.new.states if s.name not in diff.old.states_by_name]
    removed = [s.name for s in diff.old.states if s.name not in diff.new.states_by_name]
    formerly = diff.new.formerly
    # Renames the spec declares: a new state that says it was a removed one.
    renames: dict[str, str] = {}
    for old_name in removed:
        taker = formerly.get(old_name)
        if taker in added and taker not in renames.values():
            renames[old_name] = taker
        elif taker is not None:
            diff.merged[old_name] = taker
    # Renames it does not: the same Indicators, and every spell doing the same.
    evidence = {s.name: s.evidence for s in diff.old.states}
    candidates: dict[str, list[str]] = {}
    for old_name in removed:
        if old_name in renames or old_name in diff.merged:
            continue
        alike = [
            n
            for n in added
            if n not in renames.values() and diff.new.state(n).evidence == evidence[old_name]
        ]
        alike.sort(key=lambda n: -difflib.SequenceMatcher(None, old_name, n).ratio())
        candidates[old_name] = alike
    tentative = dict(renames)
    for old_name, alike in candidates.items():
        for n in alike:
            if n not in tentative.values():
                tentative[old_name] = n
                break
    spells = _spell_map(diff)
    for old_name in candidates:
        taker = tentative.get(old_name)
        if taker is None:
            continue
        alike_everywhere = all(
            not _acts_differently(
                diff.old.cell(old_name, spells[sp.name]), diff.new.cell(taker, sp.name), tentative
            )
            for sp in diff.new.spells
            if sp.name in spells
        )
        if alike_everywhere:
            renames[old_name] = taker
    diff.states_renamed = [Renamed(o, n, formerly.get(o) == n) for o, n in renames.items()]
    diff.states_added = [s for s in added if s not in renames.values()]
    diff.states_removed = [s for s in removed if s not in renames]


def _renames(diff: SpecDiff) -> dict[str, str]:
    return {r.old: r.new for r in diff.states_renamed}


def _families(diff: SpecDiff) -> None:
    renames = _renames(diff)
    # A state without siblings is a family of one: said with the states.
    old = {
        f.name: tuple(renames.get(m, m) for m in f.members)
        for f in diff.old.families
        if len(f.members) > 1
    }
    new = {f.name: f.members for f in diff.new.families if len(f.members) > 1}
    by_members = {members: name for name, members in new.items()}
    for name, members in old.items():
        if name in new:
            continue
        if members in by_members and by_members[members] not in old:
            diff.families_renamed.append((name, by_members[members]))
        else:
            diff.families_removed.append(name)
    renamed = {n for _, n in diff.families_renamed}
    diff.families_added = [n for n in new if n not in old and n not in renamed]


# -- rows --


def _row_key(row: RuleRow, renames: dict[str, str]) -> dict[str, object]:
    def name(n: str | None) -> str | None:
        return renames.get(n, n) if n else n

    return {
        "states": (row.current.wildcard, tuple(sorted(name(n) or "" for n in row.current.names))),
        "spells": tuple(row.triggers),
        "condition": frozenset(frozenset(c) for c in row.condition.clauses),
        "next state": (row.target.kind, name(row.target.name)),
        "actions": _act_key(row.actions),
        "response": _plain(row.response or row.response_ref),
        "instructions": _instructions(row.actions),
    }


def _rows(diff: SpecDiff) -> None:
    renames = _renames(diff)
    old = {r.id: _row_key(r, renames) for r in diff.old.rows}
    new = {r.id: _row_key(r, {}) for r in diff.new.rows}
    gone = [i for i in old if i not in new]
    came = [i for i in new if i not in old]
    for i in list(gone):
        twin = next((j for j in came if new[j] == old[i]), None)
        if twin is not None:
            diff.rules_renamed.append((i, twin))
            gone.remove(i)
            came.remove(twin)
    diff.rules_removed, diff.rules_added = gone, came
    for i, key in new.items():
        if i in old and old[i] != key:
            diff.rules_changed.append((i, tuple(k for k in key if old[i][k] != key[k])))


# -- cells --


def _acts(actions: Iterable[Action]) -> tuple[str, ...]:
    """The actions that change files or fields, as the spec writes them."""
    return tuple(a.text for a in actions if a.verb not in PASSIVE_VERBS)


def _act_key(actions: Sequence[Action]) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """What the actions do: an extract of "every key the archive folders name" is said
    by those keys, as when the spec names them."""
    named = {v for a in actions if a.verb == "archive" for v in _VARIABLE.findall(a.target)}
    wanted = ",".join(sorted(named - {"date"}))  # the date is the runtime's own
    return tuple(
        (a.verb, a.files, a.target or (wanted if a.verb == "extract" else ""))
        for a in actions
        if a.verb not in PASSIVE_VERBS
    )


_VARIABLE = re.compile(r"\$\{(\w+)\}")


def _instructions(actions: Iterable[Action]) -> tuple[str, ...]:
    """What the AI is told to do beyond what the runtime does, as compared: "Archives
    task files" and "Archive task files" say one thing."""
    return tuple(_imperative(_plain(a.text).lower()) for a in actions if a.verb == "instruct")


def _imperative(text: str) -> str:
    """The first word as an imperative: "copies" -> "copy", "archives" -> "archive"."""
    word, space, rest = text.partition(" ")
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith(("ches", "shes", "sses", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word + space + rest


def _behaviour(rule: Rule | None, renames: dict[str, str]) -> tuple[object, ...]:
    if rule is None:
        return ("gap",)
    dest = renames.get(rule.dest, rule.dest) if rule.kind == Kind.TRANSITION else ""
    return (rule.kind, dest, _act_key(rule.actions))


def _told(rule: Rule | None) -> tuple[str, ...]:
    if rule is None:
        return ()
    return (_plain(rule.response or rule.response_ref), *_instructions(rule.actions))


def _outcome(rule: Rule | None, renames: dict[str, str]) -> Outcome:
    if rule is None:
        return Outcome(None, "", "")
    dest = renames.get(rule.dest, rule.dest) if rule.kind == Kind.TRANSITION else ""
    return Outcome(rule.id, rule.kind.value, dest, _acts(rule.actions))


@cache
def _pairs(
    old: tuple[Clauses, ...], new: tuple[Clauses, ...]
) -> tuple[tuple[Atom, ...], dict[tuple[int, int], tuple[int, ...]]] | None:
    """For each (old winner, new winner), by index (-1: none fires), the worlds where
    they win; None when the conditions see too many facts to go world by world."""
    atoms = closure(lit.atom for clauses in (*old, *new) for c in clauses for lit in c)
    if len(atoms) > MAX_ATOMS:
        return None

    def winner(alternatives: list[list[tuple[int, int]]], world: int) -> int:
        for i, alts in enumerate(alternatives):
            if any(world & need == need and not world & ban for need, ban in alts):
                return i
        return -1

    was, now = clause_masks(atoms, old), clause_masks(atoms, new)
    found: dict[tuple[int, int], list[int]] = {}
    for world in consistent_worlds(atoms):
        found.setdefault((winner(was, world), winner(now, world)), []).append(world)
    return atoms, {k: tuple(v) for k, v in found.items()}


def _differences(
    old: Sequence[Rule], new: Sequence[Rule], renames: dict[str, str]
) -> list[tuple[Rule | None, Rule | None, tuple[Atom, ...], tuple[int, ...], str]]:
    """Where one cell's old and new rules do different things: (old winner, new winner,
    atoms, worlds, "behaviour" or "told"); one entry with no worlds if the cell cannot
    be compared world by world."""
    paired = _pairs(
        tuple(r.condition.clauses for r in old), tuple(r.condition.clauses for r in new)
    )
    if paired is None:
        same = [(r.condition.clauses, _behaviour(r, renames)) for r in old] == [
            (r.condition.clauses, _behaviour(r, {})) for r in new
        ]
        return [] if same else [(None, None, (), (), "too complex")]
    atoms, pairs = paired
    found = []
    for (i, j), worlds in pairs.items():
        was = old[i] if i >= 0 else None
        now = new[j] if j >= 0 else None
        changed = _behaviour(was, renames) != _behaviour(now, {})
        if changed:
            found.append((was, now, atoms, worlds, "behaviour"))
        # What is said changes with the rule that wins; said apart when the rule is the
        # same (or the behaviour is), so a new instruction is never hidden.
        same_rule = was is not None and now is not None and was.id == now.id
        if (same_rule or not changed) and _told(was) != _told(now):
            found.append((was, now, atoms, worlds, "told"))
    return found


def _acts_differently(old: Sequence[Rule], new: Sequence[Rule], renames: dict[str, str]) -> bool:
    """Whether the cell behaves differently in some world (what it says aside: a renamed
    state or spell is named in its texts)."""
    return any(what != "told" for *_, what in _differences(old, new, renames))


def _cells(diff: SpecDiff) -> None:
    renames = _renames(diff)
    back = {n: o for o, n in renames.items()}
    old_states = diff.old.states_by_name
    spells = _spell_map(diff)
    # A fact in the words both specs give it; where they differ (a term redefined),
    # in the core's own words, which mean the same in both.
    old_terms = {normal(t.phrase): normal(t.means) for t in (*diff.old.terms, *diff.borrowed)}
    new_terms = {normal(t.phrase): normal(t.means) for t in diff.new.terms}
    redefined = {p for p in {*old_terms, *new_terms} if old_terms.get(p) != new_terms.get(p)}
    when_in = _describer(
        {
            atom: said
            for atom, said in {**diff.old.words, **diff.new.words}.items()
            if diff.old.words.get(atom, said) == diff.new.words.get(atom, said)
            and not {normal(said[0]), normal(said[1])} & redefined
        }
    )
    # (as said, the state in the old spec, the state in the new): each state both have,
    # and each removed state whose workspaces another takes over, against that one.
    pairs = [
        (s.name, back.get(s.name, s.name), s.name)
        for s in diff.new.states
        if back.get(s.name, s.name) in old_states  # a new state is listed as added
    ]
    pairs += [(f"{was} (its workspaces in {now})", was, now) for was, now in diff.merged.items()]
    grouped: dict[tuple[str, str, str, Outcome, Outcome], list[str]] = {}
    for label, was_named, state in pairs:
        for spell in diff.new.spells:
            if spell.name not in spells:
                continue
            old_rules = diff.old.cell(was_named, spells[spell.name])
            new_rules = diff.new.cell(state, spell.name)
            for was, now, atoms, worlds, what in _differences(old_rules, new_rules, renames):
                if what == "too complex":
                    diff.not_compared.append((label, spell.name))
                    continue
                when = when_in(atoms, frozenset(worlds))
                key = (
                    what,
                    spell.name,
                    when,
                    _relative(_outcome(was, renames), state, diff),
                    _relative(_outcome(now, {}), state, diff),
                )
                grouped.setdefault(key, []).append(label)
    for (what, spell_name, when, was_out, now_out), states in grouped.items():
        change = Change(spell_name, _families_of(diff, states), when, was_out, now_out, what)
        (diff.changes if what == "behaviour" else diff.told).append(change)


def _relative(outcome: Outcome, source: str, diff: SpecDiff) -> Outcome:
    """A destination that keeps the source state's family suffix, written `NAME_[G/A]`,
    so the members of a family that change alike are said once."""
    family = diff.new.family_of(source)
    if len(family.members) < 2 or not outcome.state:
        return outcome
    suffix = source[len(family.base) + 1 :]
    if not outcome.state.endswith("_" + suffix):
        return outcome
    if outcome.state not in diff.new.states_by_name:
        return outcome
    target = diff.new.family_of(outcome.state)
    if len(target.members) < 2:
        return outcome
    return Outcome(outcome.rule, outcome.kind, target.name, outcome.actions)


def _families_of(diff: SpecDiff, states: list[str]) -> tuple[str, ...]:
    """The states, with a whole family said by its name."""
    named: list[str] = []
    for state in states:
        if state not in diff.new.states_by_name:  # a removed state, said with its taker
            named.append(state)
            continue
        family = diff.new.family_of(state)
        if len(family.members) > 1 and all(m in states for m in family.members):
            if family.name not in named:
                named.append(family.name)
        else:
            named.append(state)
    return tuple(named)


def _describer(
    words: dict[Atom, tuple[str, str]],
) -> Callable[[tuple[Atom, ...], frozenset[int]], str]:
    """`when(atoms, worlds)`: the worlds in plain words, in `words`, each description
    made once per comparison."""

    @cache
    def when(atoms: tuple[Atom, ...], worlds: frozenset[int]) -> str:
        """The fewest facts that pick the worlds out among the worlds that can be,
        alternatives joined by "or" ("" when it is every world)."""
        every = list(consistent_worlds(atoms))
        if len(worlds) == len(every):
            return ""
        full = (1 << len(atoms)) - 1
        remaining = set(worlds)
        said: list[str] = []
        while remaining:
            start = min(remaining)
            fixed = full
            for i in range(len(atoms)):
                trial = fixed & ~(1 << i)
                if all(w in worlds for w in every if w & trial == start & trial):
                    fixed = trial
            remaining -= {w for w in every if w & fixed == start & fixed}
            said.append(
                ", ".join(
                    describe(Literal(atom, bool(start >> i & 1)), words)
                    for i, atom in enumerate(atoms)
                    if fixed >> i & 1
                )
            )
        return " or ".join(said)

    return when


# -- what is said --


_MARKS = re.compile(r"\\(?=[^\w\s])|[*_`]+")


def _plain(text: str) -> str:
    """Text as compared: no emphasis marks or escapes, one space between words."""
    return " ".join(_MARKS.sub("", text).split())


def _templates(diff: SpecDiff) -> None:
    old = {t.kind: _plain(t.text) for t in diff.old.templates}
    new = {t.kind: _plain(t.text) for t in diff.new.templates}
    diff.templates_changed = [k for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k)]


_LINE = re.compile(r" \(line \d+\)|\blines? \d+(?:(?:, | and | to )\d+)*")


def _findings(diff: SpecDiff) -> None:
    renames = _renames(diff)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, renames)) + r")\b") if renames else None

    def key(f: Finding, mapped: bool) -> tuple[str, str]:
        # The same finding, moved, or quoting a phrase reworded in another person, is
        # the same finding.
        message = _LINE.sub("", f.message)
        if mapped and pattern is not None:
            message = pattern.sub(lambda m: renames[m.group(1)], message)
        return f.kind, " ".join(_imperative(w) for w in message.lower().split())

    skip = set(READING_KINDS)
    if not (os.path.isfile(diff.old.path) and os.path.isfile(diff.new.path)):
        skip.add("missing_response")  # response files beside a spec read from git: unseen
    old = [f for f in analyse(diff.old) if f.kind not in skip]
    new = [f for f in analyse(diff.new) if f.kind not in skip]
    old_keys = {key(f, True) for f in old}
    new_keys = {key(f, False) for f in new}
    diff.findings_new = [f for f in new if key(f, False) not in old_keys]
    diff.findings_gone = [f for f in old if key(f, True) not in new_keys]


def borrowed_terms(old: Spec, new: Spec) -> tuple[Term, ...]:
    """The new spec's terms for phrases the old one uses without defining."""
    unknown = {normal(p) for r in old.rows for p in r.condition.unknown}
    return tuple(t for t in new.terms if normal(t.phrase) in unknown)
