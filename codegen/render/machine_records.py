"""The machine's records: the model as the runtime's own records, what a generated
module declares.

`machine_records(spec)` gives the spec's machine as `spellbook.schema` objects: its guards
(one per fact its conditions and Indicators use, each with a Python name), its
states, one `Row` per row that applies somewhere, the response formats split into
parts, and the names of its triggers. The generated module prints them (`module`);
the verifier's previews of responses (`render_response`) use the runtime's own
writer on them.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass

from spellbook import schema as runtime
from spellbook.cast.responses import Writer
from spellbook.records.moves import moves as moves_of

from ..analyse import Analysis
from ..logic import describe
from ..model import (
    CALL,
    MODULE_NAMES,
    OWN,
    RESERVED,
    ActionSpec,
    Atom,
    LiteralSpec,
    RuleSpec,
    Spec,
    Specificity,
)
from ..read.identifiers import folded
from .response_formats import default_template, split


class _Names:
    """Python identifiers for things the spec names, each unique."""

    def __init__(self, taken: frozenset[str] = RESERVED) -> None:
        self.taken: set[str] = set(taken)

    @staticmethod
    def clean(wanted: str) -> str:
        """`wanted` as an ASCII identifier, before it is made unique. ASCII only: Python
        reads identifiers in NFKC, so full-width `key` would be the name `key`, and `x²` is no
        identifier at all; letters are `folded` as names are read (`é` is `e`, `ß` `ss`),
        the rest dropped."""
        if wanted.isascii() and wanted.isidentifier() and not keyword.iskeyword(wanted):
            return wanted  # an identifier already (`return_`, as the reading made it)
        plain = folded(wanted)
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in plain).strip("_") or "x"
        if name[0].isdigit() or keyword.iskeyword(name):
            name = "_" + name
        return name

    def allocate(self, wanted: str) -> str:
        name = self.clean(wanted)
        candidate, n = name, 2
        while candidate in self.taken:
            candidate, n = f"{name}_{n}", n + 1
        self.taken.add(candidate)
        return candidate


@dataclass(frozen=True)
class _Trigger:
    name: str
    spell: str


class MachineRecords:
    """A spec's machine as the runtime's own records (what its generated module
    declares), and the names of its guards and triggers."""

    def __init__(self, spec: Spec) -> None:
        # Triggers are the model's methods only (and MCP tools' names): `open` and `list`
        # stay as the spec writes them, but not the names the model's annotations use.
        # Guards are the module's names too.
        names = _Names(RESERVED | {"str", "bool", "Callable"})
        # `transitions` gives the model `may_<trigger>` for each trigger and `is_<state>`
        # for each state: no trigger may take one (a spell `May_open` beside `Open`).
        names.taken |= {f"may_{_Names.clean(sp.trigger)}" for sp in spec.spells}
        names.taken |= {f"is_{st.name}" for st in spec.states}
        self.triggers = [_Trigger(names.allocate(sp.trigger), sp.name) for sp in spec.spells]
        for t in self.triggers:
            names.taken.add(f"may_{t.name}")
        names.taken |= MODULE_NAMES
        self.atoms = sorted(
            {lit.atom for rule in spec.rules for lit in rule.condition.literals}
            | {lit.atom for st in spec.states for lit in st.evidence}
        )
        for st in spec.states:  # transitions binds is_<state>: the names must stay free
            names.taken.add(f"is_{st.name}")
        words = spec.words
        self.guard_of = {
            a: runtime.Guard(
                names.allocate(_guard_name(a, words)),
                a.probe,
                a.file,
                a.param,
                describe(LiteralSpec(a, True), words),
                describe(LiteralSpec(a, False), words),
            )
            for a in self.atoms
        }
        self.guards = [self.guard_of[a] for a in self.atoms]
        # The callbacks of the project's own code, by their identifier (`Action.target`).
        self.callback_of = {a.target: names.allocate(a.target) for a in spec.callbacks}
        self.own = _own_code(spec, self.guard_of, self.callback_of)
        self.states = tuple(
            runtime.State(
                st.name,
                "" if spec.family_of(st.name).name == st.name else spec.family_of(st.name).name,
                st.description or st.title,
                tuple(a.spell for a in st.valid_actions),
                tuple(_wanted(self.guard_of, lit) for lit in st.evidence),
                st.inferable,
                _is_confirmation(spec, st.name),
                st.goal,
            )
            for st in spec.states
        )
        self.spells = tuple(sp.name for sp in spec.spells)
        self._row_of = _rows(
            spec, self.guard_of, Analysis(spec), runtime.names(self.states), self.callback_of
        )
        self.rows = tuple(self._row_of.values())
        # The templates of the project's own that `create` actions write from, by key.
        self.files = {
            a.target: a.content
            for rule in spec.rules
            for a in rule.actions
            if a.verb == "create" and a.target and a.content and not a.problem
        }
        self.rules = runtime.expand(self.rows, self.states, self.spells)
        self._rules = {(id(r.row), r.source, r.spell): r for r in self.rules}
        kinds = {"standard", "blocked", "noop", "confirmation"}
        written = {t.kind: t.text for t in spec.templates if t.kind in kinds}
        built_in = default_template(spec.spell_word)
        every = {k: split(written.get(k, built_in), self.spells) for k in sorted(kinds)}
        asked = list(dict.fromkeys(a.file for a in self.atoms if a.probe == "exists"))
        self.writer = Writer(
            every,
            self.states,
            self.spells,
            spec.workspace,
            spec.schema.fields,
            asked,
            spec.spell_word,
        )
        used = {self.writer.template_kind(r) for r in self.rules}
        # The formats the rules answer in, in the spec's order (the built-in ones last).
        order = [t.kind for t in spec.templates] + sorted(kinds)
        self.templates = {k: every[k] for k in dict.fromkeys(order) if k in used}

    def rule(self, rule: RuleSpec) -> runtime.Rule:
        """The runtime's rule for a rule of the model."""
        return self._rules[(id(self._row_of[rule.order]), rule.source, rule.spell)]


def machine_records(spec: Spec) -> MachineRecords:
    """`spec`'s machine as the runtime's records (the last spec's are kept: previews ask
    again)."""
    if _LAST and _LAST[0][0] is spec:
        return _LAST[0][1]
    found = MachineRecords(spec)
    _LAST[:] = [(spec, found)]
    return found


_LAST: list[tuple[Spec, MachineRecords]] = []


def _is_confirmation(spec: Spec, state: str) -> bool:
    """A state whose Valid Actions offer a confirm and a cancel spell."""
    notes = " ".join(a.note.lower() for a in spec.state(state).valid_actions)
    return "confirm" in notes and "cancel" in notes


def _rows(
    spec: Spec,
    guard_of: dict[Atom, runtime.Guard],
    analysis: Analysis,
    named_as: dict[str, list[str]],
    callback_of: dict[str, str],
) -> dict[int, runtime.Row]:
    """One `Row` per row of the spec that applies somewhere, in the spec's order, by the
    order of the model's rules. A family all of whose members a row names is named by
    the family."""
    by_row: dict[int, list[RuleSpec]] = {}
    for rule in spec.rules:
        by_row.setdefault(rule.order, []).append(rule)
    members = {fam.name: fam.members for fam in spec.families if len(fam.members) > 1}
    family_of = {m: family for family, ms in members.items() for m in ms}
    every = [st.name for st in spec.states]
    found = {}
    for order, group in by_row.items():
        first = group[0]
        dests = {r.source: r.dest for r in group}
        wildcard = first.specificity is not Specificity.EXPLICIT  # the policy's: last
        named = _by_family(
            [s for s in every if s not in dests] if wildcard else list(dests), members, family_of
        )
        if all(d == s for s, d in dests.items()):
            dest: str | tuple[str, ...] | dict[str, str] = ""
        elif len(set(dests.values())) == 1:
            dest = first.dest
        elif wildcard:
            dest = dests
        else:
            # One per source, in the order the runtime lists a row's states (`Row.states`).
            listed = runtime.Row(first.id, first.spell, sources=named).states(named_as)
            dest = tuple(dests[source] for source in listed)
        found[order] = runtime.Row(
            first.id,
            spells
            if len(spells := tuple(dict.fromkeys(r.spell for r in group))) > 1
            else spells[0],
            sources=() if wildcard else named,
            any_state_but=named if wildcard else None,
            when=tuple(
                tuple(_wanted(guard_of, lit) for lit in clause)
                for clause in first.condition.clauses
            ),
            kind=first.kind.value,
            dest=dest,
            actions=tuple(
                runtime.Action(a.verb, a.text, a.files, _target(a, callback_of))
                for a in first.actions
            ),
            response=first.response,
            never=tuple(
                (r.source, r.spell) for r in group if r not in analysis.winners(r.source, r.spell)
            ),
        )
    return found


def _target(action: ActionSpec, callback_of: dict[str, str]) -> str:
    """An action's target as the machine declares it: a callback's, its method's name."""
    if action.verb == "set_state":
        return ""
    return callback_of[action.target] if action.verb == CALL else action.target


@dataclass(frozen=True)
class OwnMethod:
    """A method of the project's own code the model defines: a guard (`returns` "bool")
    or a callback ("None"), the spec's words for it, and the rows that need it."""

    name: str
    returns: str
    words: str
    rows: tuple[str, ...]

    @property
    def doc(self) -> str:
        """Its docstring: the spec's words, and the rows that need it."""
        return f"{self.words} Row{'s' if len(self.rows) > 1 else ''} {', '.join(self.rows)}."


def _own_code(
    spec: Spec, guard_of: dict[Atom, runtime.Guard], callback_of: dict[str, str]
) -> list[OwnMethod]:
    """The guards, then the callbacks, of the project's own code, in the spec's order."""
    found = []
    for atom in spec.own_guards:
        rows = spec.rows_asking(atom)
        said = spec.words.get(atom, ("", ""))
        no = f" (not: {said[1]})" if said[1] and said[1] != f"not {said[0]}" else ""
        words = f"Whether {said[0] or atom.param}{no}"
        found.append(OwnMethod(guard_of[atom].name, "bool", words + ".", rows))
    for action in spec.callbacks:
        rows = spec.rows_calling(action.target)
        text = action.text[:1].upper() + action.text[1:]
        found.append(OwnMethod(callback_of[action.target], "None", text + ".", rows))
    return found


def _wanted(guard_of: dict[Atom, runtime.Guard], lit: LiteralSpec) -> runtime.Wanted:
    """The guard of a literal of the model, or its negation."""
    guard = guard_of[lit.atom]
    return guard if lit.positive else ~guard


def _by_family(
    states: list[str], members: dict[str, tuple[str, ...]], family_of: dict[str, str]
) -> tuple[str, ...]:
    """`states` with every family all of whose members are there named by the family."""
    given = set(states)
    found: list[str] = []
    for state in states:
        family = family_of.get(state)
        if family is None or not given.issuperset(members[family]):
            found.append(state)
        elif family not in found:
            found.append(family)
    return tuple(found)


def _guard_name(atom: Atom, words: dict[Atom, tuple[str, str]]) -> str:
    """The spec's own words for the fact where it has short ones (a term `tests pass`
    is the guard `tests_pass`), else the file, probe and parameter."""
    if atom.probe == OWN:  # the project's own guard: its identifier (`read.own_phrases`)
        return atom.param
    said = words.get(atom, ("", ""))[0]
    slug = "_".join("".join(c if c.isalnum() else " " for c in said.lower()).split())
    return slug if slug and len(slug) <= 48 else atom.name


def moves(spec: Spec) -> list[tuple[str, str, str]]:
    """(source, dest, spells) for every move between states that can happen: the rules
    that win in some world (as the machine's `spellbook.records.moves.moves` draws them)."""
    return moves_of(machine_records(spec).rules)


def template_kind(spec: Spec, rule: RuleSpec) -> str:
    """The response format the rule answers in (see `spellbook.cast.responses`)."""
    found = machine_records(spec)
    return found.writer.template_kind(found.rule(rule))


def render_response(spec: Spec, rule: RuleSpec) -> str:
    """The rule's response as a cast makes it, before the runtime's placeholders are filled."""
    found = machine_records(spec)
    return found.writer.response(found.rule(rule))
