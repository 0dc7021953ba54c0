"""What the spec was read as: every row's and every term's reading in canonical words
(`read.canonical`), which the reader reads back as the same facts and actions.

`--explain` prints it, the markdown and JSON reports carry it, and the diff of two
specs names the rows whose reading changed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

from spellbook.records.words import plural
from spellbook.verbs.actions import passive

from ..logic import DNF
from ..model import ActionSpec, Condition, Kind, LiteralSpec, RuleRow, Spec, SpecGuard, Term
from ..read.action_phrases import parse_actions, term_pattern
from ..read.canonical import action_words, condition_words, dnf_words, lexicon_for, shown
from ..read.conditions import parse_condition
from ..read.guards import resolve
from ..read.lexicon import Lexicon, ReadOptions, normal
from .kept import kept_said

# The Next State of a row that does not move the state.
_STAYS = {Kind.BLOCKED: "[BLOCKED]", Kind.NOOP: "same state"}


@dataclass(frozen=True)
class RowReading:
    """One row read: where and on what it fires, when, what it does, where it goes."""

    id: str
    line: int
    states: str
    spells: tuple[str, ...]
    when: str
    then: tuple[str, ...]
    next: str
    # The condition's phrases no fact reads, shown as written in `when`.
    unread: tuple[str, ...] = ()
    # What two revisions of the row compare by: `when` with its alternatives and facts in
    # a fixed order (one meaning written in another order is the same), and the actions
    # that do something (not an instruction to the AI, whose words the diff compares as
    # what the AI is told, nor a verb that only says what Next State says).
    same: str = ""
    does: tuple[str, ...] = ()

    def said(self) -> str:
        """`R1 fires in A on Go when: ...; then: ...; → B`."""
        return f"{self.id} fires {self.body()}"

    def body(self) -> str:
        """What the row does, without its ID (two revisions' rows compare by it)."""
        # Numbered as a cell numbers them, so one phrase holding a `;` is not two.
        then = (
            "; ".join(f"({i}) {t}" for i, t in enumerate(self.then, 1))
            if len(self.then) > 1
            else (self.then[0] if self.then else "nothing")
        )
        on = " or ".join(self.spells)
        unread = f" (not read: {'; '.join(map(repr, self.unread))})" if self.unread else ""
        return f"in {self.states} on {on} when: {self.when}{unread}; then: {then}; → {self.next}"

    def key(self) -> str:
        """What the row does, in words two revisions of it compare by."""
        on = " or ".join(self.spells)
        does = "; ".join(self.does)
        return f"in {self.states} on {on} when: {self.same}; does: {does}; → {self.next}"

    def json(self) -> dict[str, object]:
        return {
            "rule": self.id,
            "line": self.line,
            "states": self.states,
            "spells": list(self.spells),
            "when": self.when,
            "then": list(self.then),
            "next": self.next,
            "unread": list(self.unread),
            "reading": self.said(),
        }


@dataclass(frozen=True)
class TermReading:
    """One term of the spec's Terms table read: as a condition, as actions, or neither
    (`unread`, with the phrases no fact or verb reads)."""

    phrase: str
    line: int
    means: str
    reading: str
    kind: str  # "condition", "action", "pattern" or "unread"
    # The vocabulary that defines it, as reports name it; "" for a term of the spec's own.
    vocabulary: str = ""

    def said(self) -> str:
        term = f"term {self.phrase!r}" + (f" (of {self.vocabulary})" if self.vocabulary else "")
        if self.kind == "unread":
            return f"{term} is not read: {self.reading}"
        return f"{term} means the {self.kind}: {self.reading}"

    def json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "phrase": self.phrase,
            "line": self.line,
            "means": self.means,
            "as": self.kind,
            "reading": self.reading,
        }
        if self.vocabulary:
            found["vocabulary"] = self.vocabulary
        return found


@dataclass(frozen=True)
class OwnReading:
    """A phrase read as a guard or a callback of the project's own code (`own_code`)."""

    kind: str  # "guard" or "callback"
    name: str  # its identifier, the model's method
    phrases: tuple[str, ...]  # the spec's words for it
    rows: tuple[str, ...]

    def said(self) -> str:
        words = ", ".join(repr(p) for p in self.phrases)
        return f"{self.kind} {self.name}: {words} (rows {', '.join(self.rows)})"

    def json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "name": self.name,
            "phrases": list(self.phrases),
            "rows": list(self.rows),
        }


@dataclass(frozen=True)
class GuardReading:
    """One item of the State Guards list read against the machine's names: the spell it
    is about and the states it says the spell is allowed and blocked in (a state it says
    nothing of is in neither), or why it is not read (`problem`)."""

    guard: SpecGuard
    spell: str = ""
    allowed: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()
    problem: str = ""
    said: str = ""

    def json(self) -> dict[str, object]:
        return {
            "guard": self.guard.title,
            "line": self.guard.line,
            "source": "usage" if self.guard.usage else "guards",
            "spell": self.spell,
            "allowed": list(self.allowed),
            "blocked": list(self.blocked),
            "comment": list(self.guard.notes),
            "unread": self.problem,
            "reading": self.said,
        }


@dataclass(frozen=True)
class Reading:
    rows: tuple[RowReading, ...]
    terms: tuple[TermReading, ...]
    # "Transitions not listed are rejected", as the spec or its project says it, and the
    # cells it blocks ("" where it says no such thing).
    policy: str = ""
    own: tuple[OwnReading, ...] = ()
    # What a hand-made write of a workspace JSON file may not do, from what casts write.
    kept: tuple[str, ...] = ()
    guards: tuple[GuardReading, ...] = ()

    def lines(self) -> list[str]:
        said = [r.said() for r in self.rows] + [t.said() for t in self.terms]
        said += [self.policy] if self.policy else []
        said += [g.said for g in self.guards]
        return said + [o.said() for o in self.own] + list(self.kept)

    def json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "rows": [r.json() for r in self.rows],
            "terms": [t.json() for t in self.terms],
        }
        if self.policy:
            found["policy"] = self.policy
        if self.own:
            found["own_code"] = [o.json() for o in self.own]
        if self.kept:
            found["kept"] = list(self.kept)
        if self.guards:
            found["guards"] = [g.json() for g in self.guards]
        return found


def read_spec(spec: Spec, options: ReadOptions | None = None) -> Reading:
    """The spec's reading; `options` says where its project keeps templates (a `Create`
    from a template by name is said so only where that can be told)."""
    options = options or ReadOptions(spec.vocabulary, own_code=spec.own_code)
    words = lexicon_for(options)
    own = Lexicon.of(options).with_terms([*spec.terms, *options.terms]).with_files(options)
    said = _Said(words)
    scoped: dict[int, list[str]] = {}
    for rule in spec.rules:
        if rule.order < len(spec.rows) and spec.rows[rule.order].current.scope:
            scoped.setdefault(rule.order, []).append(rule.source)
    rows = tuple(
        _row(row, said, list(dict.fromkeys(scoped.get(order, []))))
        for order, row in enumerate(spec.rows)
    )
    terms = tuple(_term(t, spec.workspace, own, words) for t in spec.terms)
    terms += _vocabulary_terms(spec, own, words)
    return Reading(
        rows, terms, policy_said(spec), _own_code(spec), kept_said(spec), guards_read(spec)
    )


def guards_read(spec: Spec) -> tuple[GuardReading, ...]:
    """Each item of the spec's State Guards list (`read.guards`) read against its spells
    and states, with what it was read as in words; then each spell's `*Usage*` claim
    where the list says nothing of that spell (where it does, the list's item is the
    precise word and the Usage its summary)."""
    listed = [g for g in spec.guards if not g.usage and _claimed(spec, g)]
    covered = {_spell_named(spec, g) for g in listed}
    usage = [g for g in spec.guards if g.usage and g.title not in covered]
    return tuple(_guard_said(spec, _guard(spec, g)) for g in (*listed, *usage))


def _claimed(spec: Spec, guard: SpecGuard) -> bool:
    """Whether an item is a guard of the list: it says a claim, or its name is one of
    the spell's. An item that does neither (`**isPaid**: the provider confirmed the
    charge`, under `## Guards`) defines a guard of the tables' own, not a State Guard."""
    return bool(guard.claim) or not guard.title or bool(_spell_named(spec, guard))


def _spell_named(spec: Spec, guard: SpecGuard) -> str:
    """The spell a guard's title names (`Expecto Guard`, `Expecto`), or ""."""
    named = re.sub(r"\s+guard$", "", guard.title, flags=re.I).strip()
    return next(
        (
            sp.name
            for sp in spec.spells
            if named and named.casefold() in (sp.name.casefold(), sp.title.casefold())
        ),
        "",
    )


def _guard(spec: Spec, guard: SpecGuard) -> GuardReading:
    if guard.problem:
        return GuardReading(guard, problem=guard.problem)
    named = re.sub(r"\s+guard$", "", guard.title, flags=re.I).strip()
    spell = _spell_named(spec, guard)
    if not spell:
        spells = ", ".join(sp.name for sp in spec.spells)
        return GuardReading(
            guard,
            problem=f"{named!r} is no {spec.spell_word} of the machine (its "
            f"{plural(spec.spell_word)}: {spells})",
        )
    states = [s.name for s in spec.states]
    families = {f.name: f.members for f in spec.families}
    families.update({f.base: f.members for f in spec.families})
    sets = []
    for written in (guard.names, guard.excepted):
        found: dict[str, None] = {}
        for name in written:
            members = resolve(name, states, families)
            if not members:
                return GuardReading(
                    guard,
                    spell,
                    problem=f"{name!r} is no state, family or `WORD states` of the machine",
                )
            found.update(dict.fromkeys(members))
        sets.append(found)
    named_states, excepted = sets
    outside = [s for s in excepted if s not in named_states]
    if outside:
        return GuardReading(
            guard,
            spell,
            problem=f"its `except` names {', '.join(outside)}, which the states before it "
            "do not include",
        )
    for note in guard.notes:
        # a comment that names a state says something of it that is not read
        mentioned = [
            t
            for t in re.findall(r"[A-Za-z][\w\[\]/]*", note)
            if (t in states or t in families) and t != t.lower()
        ]
        if mentioned:
            return GuardReading(
                guard,
                spell,
                problem=f"its comment {note!r} names {mentioned[0]}, which is not read: name "
                "every state the guard is about before the comment",
            )
    inside = [s for s in states if s in named_states and s not in excepted]
    if not inside:
        return GuardReading(guard, spell, problem="its `except` leaves it no state")
    out = [s for s in states if s in excepted]
    if guard.claim == "only":
        rest = [s for s in states if s not in inside]
        return GuardReading(guard, spell, tuple(inside), tuple(rest))
    if guard.claim == "blocked":
        return GuardReading(guard, spell, tuple(out), tuple(inside))
    return GuardReading(guard, spell, tuple(inside), tuple(out))


def _guard_said(spec: Spec, read: GuardReading) -> GuardReading:
    """The reading with its words: `guard 'Expecto Guard' (line 369): ...`."""
    guard = read.guard
    head = guard_named(guard) + f" (line {guard.line})"
    if read.problem:
        return replace(read, said=f"{head} is not read: {read.problem}")
    parts = []
    if guard.claim == "only":
        parts.append(f"{read.spell} allowed only in {shown_states(spec, read.allowed)}")
        count = len(read.blocked)
        parts.append(
            f"blocked (or a no-op) in the {count} other {'state' if count == 1 else 'states'}: "
            + shown_states(spec, read.blocked)
            if read.blocked
            else "that is every state"
        )
    else:
        if read.blocked:
            parts.append(f"{read.spell} blocked (or a no-op) in {_every(spec, read.blocked)}")
        if read.allowed:
            parts.append(
                f"{'allowed' if read.blocked else read.spell + ' allowed'} in "
                f"{_every(spec, read.allowed)}"
            )
        if len(read.blocked) + len(read.allowed) < len(spec.states):
            parts.append("nothing said of the other states")
    if guard.notes:
        parts.append("comment, not read: " + "; ".join(repr(n) for n in guard.notes))
    return replace(read, said=f"{head}: " + "; ".join(parts))


def _every(spec: Spec, states: tuple[str, ...]) -> str:
    return "every state" if len(states) == len(spec.states) else shown_states(spec, states)


def guard_title(guard: SpecGuard) -> str:
    """A guard's name: its title (`Expecto Guard`), or `Usage of Expecto` for one a
    Spells list's `*Usage*` field says."""
    return f"Usage of {guard.title}" if guard.usage else guard.title or guard.text


def guard_named(guard: SpecGuard) -> str:
    """How a guard is named in what is said of it: `guard 'Expecto Guard'`, or `Usage
    of Expecto`."""
    return guard_title(guard) if guard.usage else f"guard {guard_title(guard)!r}"


def shown_states(spec: Spec, states: tuple[str, ...]) -> str:
    """States as the spec writes them: a family whose members are all there by its name
    (`PR_REVIEW_[G/A]`)."""
    chosen = set(states)
    out = []
    done: set[str] = set()
    for state in states:
        if state in done:
            continue
        family = next((f for f in spec.families if state in f.members), None)
        if family is not None and len(family.members) > 1 and chosen >= set(family.members):
            out.append(family.name)
            done.update(family.members)
        else:
            out.append(state)
            done.add(state)
    return ", ".join(out)


def policy_said(spec: Spec) -> str:
    """The policy that transitions not listed are rejected, where it is said, and the
    cells it blocks; "" for a spec without it."""
    policy = spec.unlisted
    if policy is None:
        return ""
    blocked = [r for r in spec.rules if r.policy and not r.fills_gap]
    cells = ", ".join(f"{r.spell} in {r.source}" for r in blocked[:8])
    more = f" and {len(blocked) - 8} more" if len(blocked) > 8 else ""
    return (
        f"policy ({policy.where}: {policy.said!r}): transitions not listed are rejected; "
        + (f"it blocks {len(blocked)} cells no row names: {cells}{more}" if blocked else "")
        + ("every cell is named by a row, so it blocks none" if not blocked else "")
    )


def _own_code(spec: Spec) -> tuple[OwnReading, ...]:
    """Each guard and callback of the project's own code, with the spec's words for it
    (a guard's when it holds and, where the spec says it, when not)."""
    found = []
    for atom in spec.own_guards:
        said = tuple(p for p in spec.words.get(atom, ("", "")) if p)
        found.append(OwnReading("guard", atom.param, said or (atom.param,), spec.rows_asking(atom)))
    for action in spec.callbacks:
        rows = spec.rows_calling(action.target)
        found.append(OwnReading("callback", action.target, (action.text,), rows))
    return tuple(found)


class _Said:
    """Canonical words, each worked out once: specs repeat cells word for word."""

    def __init__(self, words: Lexicon) -> None:
        self.words = words
        self._conditions: dict[str, tuple[str, str]] = {}
        self._actions: dict[ActionSpec, tuple[str, str]] = {}

    def condition(self, condition: Condition) -> tuple[str, str]:
        """The condition's words, and its words in a fixed order (`RowReading.same`)."""
        found = self._conditions.get(condition.text)
        if found is None:
            found = self._conditions[condition.text] = (
                condition_words(condition, self.words),
                dnf_words(_sorted(condition.clauses)),
            )
        return found

    def action(self, action: ActionSpec) -> tuple[str, str]:
        """The action shown (an instruction said to be one), and in its verb's words."""
        found = self._actions.get(action)
        if found is None:
            found = self._actions[action] = (
                shown(action, self.words),
                action_words(action, self.words),
            )
        return found


def _row(row: RuleRow, said: _Said, scoped: list[str] | None = None) -> RowReading:
    current = row.current
    if current.scope:
        # Which states `any terminal` stood for is worked out from the rows: said.
        states = f"any {current.scope} state ({', '.join(scoped or []) or 'none'})"
    elif current.wildcard:
        states = "any state" + (f" except {', '.join(current.names)}" if current.names else "")
    else:
        states = ", ".join(current.names)
    target = _STAYS.get(row.target.kind) or row.target.name or ""
    if current.scope:
        selects_target = row.target.name in (scoped or [])
    else:
        selects_target = (row.target.name in current.names) != current.wildcard
    if row.target.kind is Kind.TRANSITION and selects_target:
        # A row that names the state it fires in as its Next State keeps it there, as
        # `Same state` does (its time in the state too): said, since it reads as a move.
        alone = not current.wildcard and current.names == (target,)
        target += (
            " (it stays, as with Same state)"
            if alone
            else (f" (from {target} itself it stays, as with Same state)")
        )
    when, same = said.condition(row.condition)
    return RowReading(
        row.id,
        row.line,
        states,
        tuple(row.triggers),
        when,
        tuple(said.action(a)[0] for a in row.actions),
        target,
        row.condition.unknown,
        same,
        tuple(said.action(a)[1] for a in row.actions if not passive(a.verb)),
    )


def _sorted(clauses: DNF) -> DNF:
    """Alternatives and their facts in one order, whatever order they were written in."""
    each = (tuple(sorted(clause, key=_order)) for clause in clauses)
    return tuple(sorted(each, key=lambda clause: [_order(lit) for lit in clause]))


def _order(literal: LiteralSpec) -> tuple[str, str, str, bool]:
    atom = literal.atom
    return (atom.probe, atom.file, atom.param, literal.positive)


def _vocabulary_terms(spec: Spec, own: Lexicon, words: Lexicon) -> tuple[TermReading, ...]:
    """The terms of the spec's vocabulary its Condition and Action cells use (a spec's own
    term of that phrase is the spec's), each as the spec reads it, in the vocabulary's
    order: so the reading shows every phrase it rests on, not only the spec's own."""
    if not words.terms:
        return ()
    mine = {normal(t.phrase) for t in spec.terms}
    cells = " ".join(dict.fromkeys(normal(f"{r.condition.text} {r.action}") for r in spec.rows))
    used = [
        term
        for key, term in words.terms.items()
        if key not in mine
        and key in cells  # most terms are in no cell: no pattern to make for them
        and re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", cells)
    ]
    named = shown_vocabulary(spec.vocabulary) or "the vocabulary"
    return tuple(replace(_term(t, spec.workspace, own, words), vocabulary=named) for t in used)


def shown_vocabulary(name: str) -> str:
    """A vocabulary as a report names it: a project's own file (kept by its absolute
    path) from the current folder, as the spec is named."""
    if not os.path.isabs(name):
        return name
    try:
        return os.path.relpath(name).replace(os.sep, "/")
    except ValueError:  # another drive
        return name


def _term(term: Term, workspace: str, own: Lexicon, words: Lexicon) -> TermReading:
    """A term as the spec reads it (its own terms and vocabulary), said in the core's."""
    condition = parse_condition(term.means, own, workspace)
    if not condition.unknown:
        said = condition_words(condition, words)
        return TermReading(term.phrase, term.line, term.means, said, "condition")
    actions = parse_actions(term.means, workspace, own)
    if actions and all(a.verb != "instruct" for a in actions):
        said = "; ".join(shown(a, words) for a in actions)
        return TermReading(term.phrase, term.line, term.means, said, "action")
    pattern = term_pattern(term.means)
    if pattern:  # a noun `Record NOUN of F in G` and `Extract all NOUN from F` read
        said = f"matches of `{pattern}`, a noun the ledger verbs read"
        return TermReading(term.phrase, term.line, term.means, said, "pattern")
    unread = "; ".join(repr(p) for p in condition.unknown)
    said = f"no fact of the core reads {unread}, nor any verb all of it"
    return TermReading(term.phrase, term.line, term.means, said, "unread")


def changed(
    old: Reading,
    new: Reading,
    renames: dict[str, str] | None = None,
    paired: dict[str, str] | None = None,
) -> list[tuple[str, str, str]]:
    """(row ID, was, now) for each row both revisions have whose reading differs; a state
    renamed (`renames`, old name -> new) is no difference of its own. `paired` says which
    row of the old is which of the new (new ID -> old ID); by default, the one of its ID."""
    if renames:
        names = re.compile(r"\b(" + "|".join(map(re.escape, renames)) + r")(?![\w\[])")

        def renamed(text: str) -> str:
            return names.sub(lambda m: renames[m.group(1)], text)

        old = Reading(
            tuple(replace(r, states=renamed(r.states), next=renamed(r.next)) for r in old.rows),
            old.terms,
        )
    was = {r.id: r for r in old.rows}
    pairs = {r.id: r.id for r in new.rows} if paired is None else paired
    return [
        (r.id, was[pairs[r.id]].body(), r.body())
        for r in new.rows
        if pairs.get(r.id) in was and was[pairs[r.id]].key() != r.key()
    ]
