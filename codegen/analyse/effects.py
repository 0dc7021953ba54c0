"""What a rule's actions do to the files, in the worlds the rule wins in.

A rule wins in the worlds its cell gives it (`cells`). There, the files are those
its source state's Indicators promise, when the rule wins in some world they allow
(a rule for a world they rule out, an error's recovery, is taken as it is written).
So each file an action names is always there, never there, or either, when the rule
fires. The actions are then carried out on that knowledge, in order, the way
`spellbook.verbs.actions.plan` carries them out on the files: a create keeps a file that is
there, an archive or a delete moves the files that are there, and so on. An action
passed to the AI as text may do anything to the files it names.

What an action reads is checked the same way: a value extracted from a file's
frontmatter (or a JSON file's key) for a folder's name is there when the rule's
condition checks it, or when every rule that leads into the rule's state did, with no
action since touching the file (a greatest fixpoint over the states).
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from spellbook.facts.json_values import fields_in, variables
from spellbook.facts.ledgers import ledger_parts, record_parts
from spellbook.verbs.actions import VERBS

from ..logic import MAX_ATOMS, MAX_FACTS, Worlds, closure, implied
from ..model import ActionSpec, Atom, LiteralSpec, RuleSpec, Spec
from .cells import CellResult, Signature, signature

# A value a folder's or a line's `${name}` is filled with, and where it comes from.
_VARIABLE = re.compile(r"\$\{(\w+)\}")
# Verbs that are always filled without reading a file.
_GIVEN = frozenset({"date"})
# The start of an instruction to the AI that moves or removes files.
_FILE_VERB = re.compile(
    r"(?:\(\d+\)\s*)?(?:archive|delete|remove|move|rename|clean|clear|trash)s?\b", re.I
)


def _effect(verb: str) -> str:
    """What a verb does to the files it names (`Verb.effect`); a vocabulary's own verb
    may do anything to them ("changes")."""
    found = VERBS.get(verb)
    return found.effect if found is not None else "changes"


class Known(enum.Enum):
    """What is known of a file when a rule fires, or after one of its actions."""

    THERE = "there"
    GONE = "gone"
    EITHER = "either"


@dataclass(frozen=True)
class NoEffect:
    """An action that does nothing to a file in every world the rule wins in (or, for a
    create, may do nothing because an instruction to the AI before it names no file)."""

    index: int  # 1-based, as the Action cell numbers its phrases
    action: ActionSpec
    file: str
    why: str  # what makes the file so: "" (as the rule finds it) or an earlier action
    surely: bool = True


@dataclass
class Effect:
    """One rule, in one source state: what its actions leave."""

    rule: RuleSpec
    before: dict[str, Known]
    after: dict[str, Known]
    assumed: bool  # the source state's Indicators were taken to hold
    # Why each file is as it is after the actions: "" (as it was), or the action.
    why: dict[str, str] = field(default_factory=dict)
    no_effect: list[NoEffect] = field(default_factory=list)
    # Files an instruction to the AI names (the AI may do anything to them), and
    # instructions that move or remove files without naming any.
    by_ai: dict[str, tuple[int, ActionSpec]] = field(default_factory=dict)
    unnamed: list[tuple[int, ActionSpec]] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)
    # What the actions leave at a place of a JSON file: (file, query) -> (value, the
    # action that set it). A Set of `tickets[id=$ticket].status` to "closed" makes
    # that query select "closed" (the cast stops where it names no one item).
    values: dict[tuple[str, str], tuple[object, str]] = field(default_factory=dict)
    # The state file's fields the actions set to a literal: name -> (value, the action
    # that set it). A field set from a query's first result is not known.
    fields: dict[str, tuple[object, str]] = field(default_factory=dict)
    # What the actions leave recorded in a ledger: (source, ledger, pattern, section) ->
    # the action that recorded it. After a Record, every match of the pattern in the
    # source (in its section, for one scoped to a section) is listed in the ledger, until
    # another action changes either file.
    recorded: dict[tuple[str, str, str, str], str] = field(default_factory=dict)

    def all_listed(self, atom: Atom) -> str:
        """The action after which the ledger fact `atom` (`unlisted`) is known not to hold
        (every match it asks about is listed), or "": a Record of the same pattern of the
        same file in the same ledger, of the whole file or of a section whose words the
        fact's section has (a Record under "Tables" says nothing of the file's other
        lines)."""
        if atom.probe != "unlisted":
            return ""
        ledger, pattern, section = ledger_parts(atom.param)
        for (source, into, recorded, scope), why in self.recorded.items():
            same = (source, into, recorded) == (atom.file, ledger, pattern)
            if same and (not scope or (section and scope.lower() in section.lower())):
                return why
        return ""


class Region:
    """The worlds in which one rule of a cell wins, over the cell's facts and more."""

    def __init__(
        self,
        sig: Signature,
        index: int,
        evidence: tuple[LiteralSpec, ...],
        extra: tuple[Atom, ...],
        cell: frozenset[Atom],
    ) -> None:
        """`cell`: the atoms of `sig`'s conditions, each once."""
        atoms = closure([*cell, *(lit.atom for lit in evidence), *extra])
        self.atoms = atoms
        self._asked: dict[tuple[LiteralSpec, ...], bool] = {}
        if len(atoms) <= MAX_ATOMS:
            space = Worlds(atoms)
            taken = 0
            for _, clauses in sig[:index]:
                taken |= space.condition(clauses)
            won = space.consistent & space.condition(sig[index][1]) & ~taken
            held = won & space.condition((evidence,))
            self.assumed = bool(held)
            self._worlds = held or won
            self._space: Worlds | None = space
            return
        from ..solver import Formula

        self._space = None
        self._formula = f = Formula(atoms)
        firsts, _ = f.firsts([f.condition(c) for _, c in sig[: index + 1]])
        self._won = firsts[index]
        evident = f.condition((evidence,))
        self.assumed = f.holds([self._won, evident])
        self._base = [self._won, evident] if self.assumed else [self._won]

    def close(self) -> None:
        """Let go of the solver, where there is one."""
        if self._space is None:
            self._formula.close()

    def possible(self, *literals: LiteralSpec) -> bool:
        """Whether the literals hold together in some world of the region."""
        key = tuple(literals)
        if key not in self._asked:
            if self._space is not None:
                self._asked[key] = bool(self._worlds & self._space.condition((key,)))
            else:
                f = self._formula
                lits = [f.var[lit.atom] if lit.positive else -f.var[lit.atom] for lit in key]
                self._asked[key] = f.holds([*self._base, *lits])
        return self._asked[key]

    def known(self, atom: Atom) -> Known:
        """Whether the fact always holds in the region, never does, or either."""
        can = self.possible(LiteralSpec(atom, True))
        cannot = self.possible(LiteralSpec(atom, False))
        if can and not cannot:
            return Known.THERE
        if cannot and not can:
            return Known.GONE
        return Known.EITHER


def exists(file: str) -> Atom:
    return Atom("exists", file, "")


def needs(action: ActionSpec) -> set[str]:
    """The `${name}`s an action fills from values it reads (not `${date}`)."""
    if action.verb in ("archive", "append"):
        text = action.target
    elif action.verb in ("copy", "move") and len(action.files) > 1:
        text = action.files[1]
    else:
        return set()
    return set(_VARIABLE.findall(text)) - _GIVEN


def source_of(rule: RuleSpec, name: str) -> ActionSpec | None:
    """The extract action of `rule` that reads `name`, if one does: by its key, or one
    that reads every key the folders name (`Reads F frontmatter`)."""
    extracts = [a for a in rule.actions if a.verb == "extract" and a.files]
    return next((a for a in extracts if a.target == name), None) or next(
        (a for a in extracts if not a.target), None
    )


def input_fact(rule: RuleSpec, name: str) -> Atom | None:
    """The fact that says the value `name` is there to be read, for `rule`."""
    action = source_of(rule, name)
    return Atom("field", action.files[0], name) if action else None


class Effects:
    """Every rule's effect, in every state it can win in, computed once."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.inputs = tuple(
            dict.fromkeys(
                fact
                for rule in spec.rules
                for action in rule.actions
                for name in sorted(needs(action))
                if (fact := input_fact(rule, name)) is not None
            )
        )
        self.files = _files(spec)
        self._named = {f: mention(f) for f in self.files}
        self._effects: dict[tuple[str, str, int], Effect | None] = {}
        # Rules of alike cells, in states of alike Indicators, share one region.
        self._regions: dict[tuple[object, ...], Region] = {}
        self._placed: dict[tuple[str, str, int], Region | None] = {}
        self._signatures: dict[tuple[str, str], tuple[Signature, int, frozenset[Atom]] | None] = {}
        self._alike: dict[Signature, int] = {}
        self._winning: list[tuple[RuleSpec, int]] | None = None
        self._carried: dict[tuple[object, ...], Effect] = {}

    def winning(self, cells: Mapping[tuple[str, str], CellResult]) -> list[tuple[RuleSpec, int]]:
        """Each rule that wins somewhere, in each state, with its place in its cell."""
        if self._winning is None:
            self._winning = [
                (rule, at)
                for (state, spell), result in cells.items()
                if not result.too_big
                for at, (rule, won) in enumerate(
                    zip(self.spec.cell(state, spell), result.wins, strict=True)
                )
                if won is not None
            ]
        return self._winning

    def close(self) -> None:
        """Let go of every solver the regions hold."""
        for found in self._regions.values():
            found.close()
        self._regions.clear()
        self._placed.clear()
        self._signatures.clear()
        self._alike.clear()

    def region(self, rule: RuleSpec, at: int) -> Region | None:
        """The worlds in which `rule`, at `at` in its cell, wins; None where the cell is
        not checked (too many facts)."""
        place = (rule.source, rule.spell, at)
        if place not in self._placed:
            self._placed[place] = self._region(rule, at)
        return self._placed[place]

    def _region(self, rule: RuleSpec, at: int) -> Region | None:
        found = self._signature(rule.source, rule.spell)
        if found is None:
            return None
        sig, alike, cell = found
        evidence = self.spec.state(rule.source).evidence
        wanted = tuple(sorted({*self._files_of(rule), *self.inputs}))
        key = (alike, at, evidence, wanted)
        if key not in self._regions:
            self._regions[key] = Region(sig, at, evidence, wanted, cell)
        return self._regions[key]

    def _signature(self, state: str, spell: str) -> tuple[Signature, int, frozenset[Atom]] | None:
        """The cell's signature, read once for all its rules, the number it shares with
        every alike cell (a signature of thousands of rules is hashed once, not at each of
        its rules), and its atoms; None for a cell of more facts than are checked."""
        cell = (state, spell)
        if cell not in self._signatures:
            rules = self.spec.cell(state, spell)
            atoms = frozenset(lit.atom for r in rules for c in r.condition.clauses for lit in c)
            sig = signature(rules)
            alike = self._alike.setdefault(sig, len(self._alike))
            self._signatures[cell] = None if len(atoms) > MAX_FACTS else (sig, alike, atoms)
        return self._signatures[cell]

    def _files_of(self, rule: RuleSpec) -> Iterable[Atom]:
        for action in rule.actions:
            for file in _touched(action):
                yield exists(file)
        for lit in self.spec.state(rule.dest).evidence:
            if lit.atom.file:
                yield exists(lit.atom.file)

    def effect(self, rule: RuleSpec, at: int) -> Effect | None:
        key = (rule.source, rule.spell, at)
        if key not in self._effects:
            self._effects[key] = self._carry_out(rule, at)
        return self._effects[key]

    def _carry_out(self, rule: RuleSpec, at: int) -> Effect | None:
        where = self.region(rule, at)
        if where is None:
            return None
        dest = self.spec.state(rule.dest).evidence
        # Alike rules (one row's states, a family's members) in alike regions do alike.
        key = (id(where), rule.actions, dest)
        if key in self._carried:
            return replace(self._carried[key], rule=rule)
        files = {f for a in rule.actions for f in _touched(a)} | {
            lit.atom.file for lit in dest if lit.atom.file
        }
        before = {f: where.known(exists(f)) for f in sorted(files)}
        now = dict(before)
        done = Effect(rule, before, now, where.assumed)
        for index, action in enumerate(rule.actions, start=1):
            _carry(done, index, action, self._named)
        self._carried[key] = done
        return done


def _carry(done: Effect, index: int, action: ActionSpec, named: dict[str, re.Pattern[str]]) -> None:
    """One action, carried out on what is known of the files."""
    _carry_values(done, index, action)
    now, why = done.after, done.why
    verb, effect = action.verb, _effect(action.verb)
    if effect == "makes":
        name = action.files[0]
        if now.get(name) is Known.THERE:
            done.no_effect.append(NoEffect(index, action, name, why.get(name, "")))
        elif now.get(name) is Known.EITHER:
            done.no_effect.append(NoEffect(index, action, name, why.get(name, ""), False))
        now[name] = Known.THERE
        why[name] = f"action ({index}) creates it"
        done.touched.add(name)
    elif effect == "removes":
        for name in action.files:
            if now.get(name) is Known.GONE:
                done.no_effect.append(NoEffect(index, action, name, why.get(name, "")))
            now[name] = Known.GONE
            why[name] = f"action ({index}) {verb}s it"
            done.touched.add(name)
    elif effect in ("copies", "moves") and len(action.files) > 1:
        source, dest = action.files[0], _destination(action)
        if now.get(source) is Known.GONE:
            done.no_effect.append(NoEffect(index, action, source, why.get(source, "")))
        if "${" not in dest:
            was = now.get(dest, Known.EITHER)
            if effect == "copies" and was is not Known.GONE and now.get(source) is not Known.GONE:
                # a copy never overwrites: one already there is kept as it was
                done.no_effect.append(
                    NoEffect(index, action, dest, why.get(dest, ""), was is Known.THERE)
                )
            if now.get(source) is Known.THERE:
                now[dest] = Known.THERE
            elif was is not Known.THERE:
                now[dest] = Known.EITHER
            why[dest] = f"action ({index}) {effect} it there"
            done.touched.add(dest)
        if effect == "moves":
            now[source] = Known.GONE
            why[source] = f"action ({index}) moves it"
        done.touched.add(source)
    elif effect == "writes":
        name = action.files[0]
        now[name] = Known.THERE
        why[name] = f"action ({index}) writes it"
        done.touched.add(name)
    elif effect == "records" and len(action.files) > 1:
        ledger = action.files[1]
        if now.get(ledger) is not Known.THERE:
            now[ledger] = Known.EITHER
        why[ledger] = f"action ({index}) may write it"
        done.touched.add(ledger)
    elif effect == "anything":
        mentioned = [f for f, pattern in named.items() if pattern.search(action.text)]
        for name in mentioned:
            done.by_ai.setdefault(name, (index, action))
            done.touched.add(name)
        if not mentioned and _FILE_VERB.match(action.text.strip()):
            done.unnamed.append((index, action))
    elif effect == "changes":
        for name in action.files:  # a vocabulary's verb: anything may happen to them
            if now.get(name) is not None:
                now[name] = Known.EITHER
            why[name] = f"action ({index}) ({action.text!r}) may change it"
            done.touched.add(name)


def _carry_records(done: Effect, index: int, action: ActionSpec) -> None:
    """What one action leaves recorded in ledgers: a Record, its matches; any other
    change to a source or a ledger leaves nothing known of what it records."""
    records = action.verb == "record" and not action.problem and len(action.files) > 1
    changed = set(_touched(action)) if not records else set()
    if _effect(action.verb) == "anything":
        changed |= {name for key in done.recorded for name in key[:2]}
    for key in list(done.recorded):
        if changed & set(key[:2]):
            del done.recorded[key]
    if records:
        pattern, section = record_parts(action.target)
        key = (action.files[0], action.files[1], pattern, section)
        done.recorded[key] = f"action ({index}) records them"


def _carry_values(done: Effect, index: int, action: ActionSpec) -> None:
    _carry_fields(done, index, action)
    _carry_records(done, index, action)
    """What one action leaves at places of JSON files: a `set_field` the value it sets,
    where the query it writes selects it; any other change to a file (or to a state
    file field a query names, `$name`) leaves nothing known of the file's places."""
    sets = action.verb == "set_field" and not action.problem and action.target.startswith("[")
    if not done.values and not sets:
        return
    changed = set(_touched(action))
    if _effect(action.verb) == "anything":
        changed |= {file for file, _ in done.values}  # the AI may change any of them
    written = set(action.writes)
    for place in list(done.values):
        file, query = place
        if file in changed or written & set(variables(query)):
            del done.values[place]
    if sets:
        query, value = json.loads(action.target)
        if not fields_in(value):  # `"$owner"` is whatever the state file holds then
            done.values[(action.files[0], query)] = (value, f"action ({index}) sets it to")


def _carry_fields(done: Effect, index: int, action: ActionSpec) -> None:
    """What one action leaves in the state file's fields: a literal a Set gives one is
    known after it; any other write of a field (a query's first result, a counter, a
    vocabulary's verb) leaves nothing known of it."""
    for name in action.writes:
        done.fields.pop(name, None)
    if action.verb == "set_state_field" and not action.problem:
        name, how, value = json.loads(action.target)
        if how == "value":
            done.fields[name] = (value, f"action ({index}) sets it to")


def _destination(action: ActionSpec) -> str:
    """Where a copy or a move puts its file: the name given, or the file's own name in
    the folder given (one ending in `/`), as `spellbook.verbs.edits` does."""
    source, dest = action.files[0], action.files[1]
    return dest + source.rsplit("/", 1)[-1] if dest.endswith("/") else dest


def _touched(action: ActionSpec) -> Sequence[str]:
    """The files an action may change, as written (a copy's or a move's destination
    with a `${name}` in it is not a file the verifier can name)."""
    effect = _effect(action.verb)
    if effect in ("", "anything"):
        return ()
    if effect in ("copies", "moves") and len(action.files) > 1:
        source, dest = action.files[0], _destination(action)
        return (source,) if "${" in dest else (source, dest)
    if effect == "records" and len(action.files) > 1:
        return action.files[1:2]
    return action.files


def _files(spec: Spec) -> tuple[str, ...]:
    """Every file the spec names: in conditions, Indicators and actions."""
    found: dict[str, None] = {}
    for rule in spec.rules:
        for atom in rule.condition.atoms:
            if atom.file:
                found[atom.file] = None
        for action in rule.actions:
            for name in _touched(action):
                found[name] = None
    for state in spec.states:
        for lit in state.evidence:
            if lit.atom.file:
                found[lit.atom.file] = None
    return tuple(found)


def mention(file: str) -> re.Pattern[str]:
    """The file named in a text: its path, or its name where it has no folder."""
    return re.compile(r"(?<![\w.\-])" + re.escape(file) + r"(?![\w\-]|\.\w)")


def implies_exists(lit: LiteralSpec) -> bool:
    """Whether the literal holds only where its file exists."""
    if lit.atom.probe == "exists":
        return lit.positive
    return lit.positive and exists(lit.atom.file) in implied(lit.atom)
