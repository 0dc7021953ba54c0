"""What a generated machine declares: its guards, its states, its rows and their actions.

A generated module (`spellbook.machines.<name>`) declares the spec as constants: one
`Guard` per fact its conditions and Indicators look at, one `State` per state, one
`Row` per row of the transition tables, the response formats split into parts
(`spellbook.cast.responses`), and a `Model` whose methods are its guards
(`GuardedModel`). The runtime interprets them: `expand` turns the rows into the `Rule`s
of each (state, spell), in priority order, and `transitions` into the machine's
transitions. They are plain slotted classes so that importing a machine costs little
more than importing `transitions`.
"""

from __future__ import annotations

from spellbook.records.callbacks import FIRED, REFUSED, available_spells, rule_callback
from spellbook.records.callbacks import NO_FACTS as NO_FACTS  # what generated modules import
from spellbook.records.callbacks import MissingCode as MissingCode
from spellbook.records.callbacks import require as require

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping
    from typing import Any, Protocol

    class Facts(Protocol):
        """Answers a guard: does `probe` hold for `arg` in the workspace right now?"""

        def check(self, probe: str, file: str, param: str) -> bool: ...


class _Record:
    """Equality and repr over `__slots__`, for the tables below."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Guard(_Record):
    """A fact a rule's condition or a state's Indicators look at: the probe of the generic
    core (`spellbook.facts.probes`) applied to `file` (relative to the workspace folder) with
    `param`, and the spec's words for it when it holds (`yes`) and when not (`no`). The
    model's method called `name` checks it.

    In a row's `when` or a state's `evidence`, a guard stands for "it holds", and
    `~guard` (a `Literal`) for "it does not": either answers `guard`, `holds` and `said`.
    """

    __slots__ = ("name", "probe", "file", "param", "yes", "no")
    holds = True  # as a literal: the guard holds

    def __init__(
        self, name: str, probe: str, file: str = "", param: str = "", yes: str = "", no: str = ""
    ) -> None:
        self.name = name
        self.probe = probe
        self.file = file
        self.param = param
        self.yes = yes
        self.no = no

    def __invert__(self) -> Literal:
        return Literal(self, False)

    @property
    def guard(self) -> Guard:
        return self

    @property
    def said(self) -> str:
        return self.yes

    @property
    def fact(self) -> tuple[str, str, str]:
        """(probe, file, parameter): what `Facts.check` is asked."""
        return (self.probe, self.file, self.param)

    def words(self, holds: bool) -> str:
        """The fact in the spec's words, as it holds or not."""
        return self.yes if holds else self.no


class Literal(_Record):
    """A guard and whether a condition wants it to hold (or a state's Indicators say it
    does): `~guard` is the one that does not; the guard itself stands for the one that
    does."""

    __slots__ = ("guard", "holds")

    def __init__(self, guard: Guard, holds: bool = True) -> None:
        self.guard = guard
        self.holds = holds

    def __invert__(self) -> Guard | Literal:
        return self.guard if not self.holds else Literal(self.guard, False)

    @property
    def said(self) -> str:
        """What it wants, in the spec's words."""
        return self.guard.words(self.holds)


# A guard, or its negation, as a row's condition or a state's Indicators write it.
Wanted = Guard | Literal


# The probe of a guard, and the verb of an action, of the project's own code
# (`own_code`): the model's methods, which `build(model)` needs (`require`).
OWN, CALL = "own", "call"


class GuardedModel:
    """The base of a generated machine's model. `facts` answers its guards, one method per
    `Guard` of the class's `guards`, each made when the class is defined. After a trigger
    in a state that has rules for it, `fired` is the ID of the row whose rule fired and
    `refused` that of the row whose rule refused the spell (a blocked rule: the trigger
    returns False); both are None when none of its rules applies. `may_<trigger>()`
    asks afresh: `fired` None, and `refused` the rule that would refuse. A trigger the
    state has no rules for leaves both None (each trigger of a machine `build` made
    starts afresh). `fired` is set before the state changes, so
    `on_exit_*` and `on_enter_*` callbacks read it. The machine binds its triggers and
    state checks."""

    guards: tuple[Guard, ...] = ()
    triggers: Mapping[str, str] = {}  # spell -> its trigger method (the machine's TRIGGERS)
    # What the machine binds on every model (a generated `Model` declares its triggers).
    state: str
    trigger: Callable[[str], bool]
    may_trigger: Callable[[str], bool]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for guard in cls.guards:
            if guard.probe != OWN:  # the project's own guard: the subclass's method
                setattr(cls, guard.name, guard_method(guard))

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.fired: str | None = None
        self.refused: str | None = None

    def clear_rule(self, *args: Any, **kwargs: Any) -> None:
        """A trigger starts: no rule chosen yet."""
        self.fired = self.refused = None

    def unrefused(self, *args: Any, **kwargs: Any) -> bool:
        """No rule before this one refused the spell."""
        return self.refused is None

    def available_spells(self, *args: Any, **kwargs: Any) -> list[str]:
        """The spells a trigger would carry out now (`may_<trigger>()` holds), in the
        spec's order: none the state refuses, whatever the machine's `get_triggers`
        lists (every trigger with a rule from the state, a refusing one too). The
        arguments are passed on to the guards."""
        return available_spells(self, self.triggers, *args, **kwargs)

    def available_triggers(self, *args: Any, **kwargs: Any) -> list[str]:
        """`available_spells()` as the names of the model's trigger methods (`renew` for
        the spell `Renew`): the names `model.trigger(name)` takes."""
        return [self.triggers[spell] for spell in self.available_spells(*args, **kwargs)]

    if not TYPE_CHECKING:  # unseen by a type checker, so `model.submitt()` is an error there

        def __getattr__(self, name: str) -> Callable[..., Any]:
            # Only names not found otherwise: the callbacks of one rule, by its ID.
            found = rule_callback(self, name)
            if found is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            return found


def guard_method(guard: Guard) -> Callable[[GuardedModel], bool]:
    """The model's method that checks `guard`."""
    probe, file, param = guard.fact

    def check(model: GuardedModel) -> bool:
        return model.facts.check(probe, file, param)

    check.__name__ = check.__qualname__ = guard.name
    check.__doc__ = f"Whether {guard.yes}; see `spellbook.facts.probes`."
    return check


class State(_Record):
    """A state, with the words the spec uses for it.

    `evidence` is what its Indicators say about the files, as guards that hold there
    (`~guard`: that does not); `inferable` says that is all they say, so `spell repair`
    may choose it.
    `confirmation` says its Valid Actions offer a confirm and a cancel spell: a rule
    into it answers in the spec's confirmation format. `family` is the family it is a
    member of (`NAME_[G/A]`), or "" for a state without siblings. `goal` says the spec
    declares it a state the workflow aims for (`*Goal*`): never an error state.
    """

    __slots__ = (
        "name",
        "family",
        "description",
        "valid_actions",
        "evidence",
        "inferable",
        "confirmation",
        "goal",
    )

    def __init__(
        self,
        name: str,
        family: str = "",
        description: str = "",
        valid_actions: tuple[str, ...] = (),
        evidence: tuple[Wanted, ...] = (),
        inferable: bool = False,
        confirmation: bool = False,
        goal: bool = False,
    ) -> None:
        self.name = name
        self.family = family
        self.description = description
        self.valid_actions = valid_actions
        self.evidence = evidence
        self.inferable = inferable
        self.confirmation = confirmation
        self.goal = goal

    def contradicted(self, check: Callable[[str, str, str], bool]) -> list[str]:
        """What the files say against its Indicators, in the spec's words (`check`
        answers a fact of the core: `Facts.check`)."""
        return [(~lit).said for lit in self.evidence if check(*lit.guard.fact) != lit.holds]


class Action(_Record):
    """One verb of a rule's Action cell, with the phrase it was read from (see the action
    vocabulary in `codegen.read.action_phrases`): the `files` it works on, and its `target` (the
    template of a created file, the folder pattern of an archive, a key to extract).
    A `set_state` action's state is its rule's `dest`.
    """

    __slots__ = ("verb", "text", "files", "target")

    def __init__(self, verb: str, text: str, files: tuple[str, ...] = (), target: str = "") -> None:
        self.verb = verb
        self.text = text
        self.files = files
        self.target = target


class Kept(_Record):
    """What a write made by hand of the workspace JSON file `file` may not do, drawn from
    what the spec's casts write there (`spellbook.cast.hand_writes` judges it). Either a list the
    casts address by a key, ``Set `items[key=...].marks` ...``: `items` keeps every item,
    once, with its `key`; `marks` is set only by casts (to the JSON values `marked`,
    which no new item may carry), casts of `spells`, whose rules all run the command
    `after` of the file first ("" if not all do). Or a command a guard runs (``the command
    `command` of F passes``), which stays as written.
    """

    __slots__ = ("file", "items", "key", "marks", "marked", "spells", "after", "command")

    def __init__(
        self,
        file: str,
        items: str = "",
        key: str = "",
        marks: str = "",
        marked: tuple[str, ...] = (),
        spells: tuple[str, ...] = (),
        after: str = "",
        command: str = "",
    ) -> None:
        self.file = file
        self.items = items
        self.key = key
        self.marks = marks
        self.marked = marked
        self.spells = spells
        self.after = after
        self.command = command


class Row(_Record):
    """One row of the spec's transition tables, as the machine declares it: for `spell`
    (or, a row with several Triggers, each of a tuple of spells).

    It applies to each of `sources`, or, written `any_state_but`, to every state but
    those (a wildcard row, which any row naming the state beats); a family's name
    (`NAME_[G/A]`) there stands for each of its members. `when` is its
    condition: alternatives, each guards that must all hold (`!guard`: must not);
    `((),)` always holds. `kind` is "transition", "blocked" or "noop"; `dest` is the
    state after it fires: a state; "" for the source itself; where it depends on the
    source (a `NAME_[G/A]` destination), one per source state (in the order `sources`
    names them) or, for a wildcard row, a mapping from source to destination.
    `response` is the row's own Response text.
    `never` lists the (source, spell) pairs where the row never fires, whatever the
    files say (a row before it always wins).
    """

    __slots__ = (
        "id",
        "spell",
        "sources",
        "any_state_but",
        "when",
        "kind",
        "dest",
        "actions",
        "response",
        "never",
    )

    def __init__(
        self,
        id: str,
        spell: str | tuple[str, ...],
        sources: tuple[str, ...] = (),
        any_state_but: tuple[str, ...] | None = None,
        when: tuple[tuple[Wanted, ...], ...] = ((),),
        kind: str = "transition",
        dest: str | tuple[str, ...] | Mapping[str, str] = "",
        actions: tuple[Action, ...] = (),
        response: str = "",
        never: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.id = id
        self.spell = spell
        self.sources = sources
        self.any_state_but = any_state_but
        self.when = when
        self.kind = kind
        self.dest = dest
        self.actions = actions
        self.response = response
        self.never = never

    def __hash__(self) -> int:
        return hash((self.id, self.spell))

    @property
    def spells(self) -> tuple[str, ...]:
        return (self.spell,) if isinstance(self.spell, str) else self.spell

    @property
    def wildcard(self) -> bool:
        return self.any_state_but is not None

    def states(self, named: Mapping[str, list[str]]) -> list[str]:
        """The states it applies to, in order: `named` gives the states a name stands for
        (a state, itself; a family, its members), and, in document order, every state
        under the key ``"*"``."""
        if self.any_state_but is None:
            return [state for name in self.sources for state in named[name]]
        left_out = {state for name in self.any_state_but for state in named[name]}
        return [state for state in named["*"] if state not in left_out]

    def dests(self, sources: list[str]) -> list[str]:
        """The state after it fires from each of `sources` (as `states` lists them)."""
        dest = self.dest
        if isinstance(dest, str):
            return [dest or source for source in sources]
        if isinstance(dest, tuple):
            return list(dest)
        return [dest[source] for source in sources]


class Rule(_Record):
    """A row applied to one (source state, spell): its guards, its outcome, its response.

    `kind` is "transition", "blocked" or "noop"; `dest` is the state after the rule
    fires (the source itself when the state does not change). Some alternative of
    `when` must hold for the rule to fire (see `Row`). `priority` orders the rules of
    one (state, spell): a row naming the state beats a wildcard row; among equals the
    earlier row wins.
    """

    __slots__ = ("row", "source", "spell", "dest", "priority", "_hash")

    def __init__(
        self, row: Row, source: str, spell: str, dest: str, priority: tuple[int, int]
    ) -> None:
        self.row = row
        self.source = source
        self.spell = spell
        self.dest = dest
        self.priority = priority
        # A cast looks rules up by themselves (what each spell does now, say): their
        # hash is taken once, when first asked, not over the whole row each time.
        self._hash: int | None = None

    def _values(self) -> tuple[object, ...]:
        # The row itself: two rows may share an ID in a spec generated despite errors.
        return (self.row, self.source, self.spell, self.dest)

    def __hash__(self) -> int:
        found = self._hash
        if found is None:
            found = self._hash = hash(self._values())
        return found

    def __repr__(self) -> str:
        return f"Rule({self.id}: {self.source} --{self.spell}--> {self.dest})"

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def kind(self) -> str:
        return self.row.kind

    @property
    def when(self) -> tuple[tuple[Wanted, ...], ...]:
        return self.row.when

    @property
    def actions(self) -> tuple[Action, ...]:
        return self.row.actions

    @property
    def response(self) -> str:
        return self.row.response

    @property
    def guards(self) -> list[Guard]:
        """Every guard its condition looks at, each once."""
        return list(dict.fromkeys(lit.guard for clause in self.when for lit in clause))

    @property
    def changes_state(self) -> bool:
        return self.dest != self.source

    @property
    def can_fire(self) -> bool:
        """False where the spec's analysis found it never fires (see `Row.never`)."""
        return (self.source, self.spell) not in self.row.never

    def transitions(self, trigger: str, first: bool = False) -> list[dict[str, Any]]:
        """This rule as `transitions` transitions, one per alternative of its condition;
        a rule that keeps the state is internal. When one fires, the model's `fired` is
        the rule's ID; a blocked rule's fail once its condition holds, leaving its ID in
        `refused` (see `GuardedModel`). The callbacks of the project's own code (`call`
        actions) are its `after`. `first`: the first rule of its cell."""
        blocked = self.kind == "blocked"
        calls = [a.target for a in self.row.actions if a.verb == CALL]
        return [
            {
                "trigger": trigger,
                "source": self.source,
                "dest": self.dest if self.changes_state else None,
                "prepare": ["clear_rule"] if first and n == 0 else [],
                "conditions": ["unrefused"] + [lit.guard.name for lit in clause if lit.holds],
                "unless": [lit.guard.name for lit in clause if not lit.holds]
                + ([_refusal(self.row.id, clause)] if blocked else []),
                "before": FIRED + self.row.id,
                **({"after": list(calls)} if calls and not blocked else {}),
            }
            for n, clause in enumerate(self.row.when)
        ]


def _refusal(rule: str, clause: tuple[Wanted, ...]) -> str:
    """The name of the callback that refuses the spell for `rule` where `clause` holds."""
    import json

    wanted = [[lit.guard.name, lit.holds] for lit in clause]
    return REFUSED + json.dumps([rule, wanted], separators=(",", ":"))


def priority(wildcard: bool, order: int) -> tuple[int, int]:
    """A rule's place among the rules of its (state, spell), the lowest first: a rule of a
    row naming the state beats one of a wildcard row; among equals, the earlier row's
    (`order`, its place in the spec) wins. The one rule of it, which the compiler's
    model sorts by too."""
    return (1 if wildcard else 0, order)


def expand(rows: Iterable[Row], states: Iterable[State], spells: Iterable[str]) -> tuple[Rule, ...]:
    """Every (state, spell)'s rules, cell by cell (states and spells in document order),
    each cell in priority order."""
    named = names(states)
    spells = tuple(spells)
    # A cell's rules from rows naming the state, then from wildcard rows, each in the
    # rows' order: the `priority` order, without sorting (this runs at every import).
    naming: dict[tuple[str, str], list[Rule]] = {}
    wild: dict[tuple[str, str], list[Rule]] = {}
    for order, row in enumerate(rows):
        place = priority(row.wildcard, order)
        into = wild if row.wildcard else naming
        sources = row.states(named)
        each = row.spells
        for source, dest in zip(sources, row.dests(sources), strict=True):
            for spell in each:
                rule = Rule(row, source, spell, dest, place)
                cell = into.get((source, spell))
                if cell is None:
                    into[(source, spell)] = [rule]
                else:
                    cell.append(rule)
    found: list[Rule] = []
    for state in named["*"]:
        for spell in spells:
            cell = naming.get((state, spell))
            if cell:
                found += cell
            cell = wild.get((state, spell))
            if cell:
                found += cell
    return tuple(found)


def names(states: Iterable[State]) -> dict[str, list[str]]:
    """The states each name a row may use stands for: a state, itself; a family, its
    members; ``"*"``, every state; each list in document order."""
    found: dict[str, list[str]] = {"*": []}
    for state in states:
        found["*"].append(state.name)
        found[state.name] = [state.name]
        if state.family:
            found.setdefault(state.family, []).append(state.name)
    return found


def transitions(
    rules: Iterable[Rule],
    triggers: Mapping[str, str],
    model: Any = None,
    sources: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """The transitions of `rules` (those from `sources`, if given), in priority order.
    They are the same for every model (`model` is not read)."""
    found: list[dict[str, Any]] = []
    started: set[tuple[str, str]] = set()
    for rule in rules:
        if sources is not None and rule.source not in sources:
            continue
        cell = (rule.source, rule.spell)
        made = rule.transitions(triggers[rule.spell], cell not in started)
        if made:  # a rule that can never fire (no alternative) makes none
            found += made
            started.add(cell)
    return found


# What `build(model)` gives a `transitions` Machine unless its caller says otherwise: no
# `to_<STATE>()` (a move no rule of the spec makes), and a trigger the state has no rules
# for (a machine built with `sources`, a spec with a gap) answering False rather than
# raising MachineError. A trigger the machine does not have is an AttributeError
# whatever these say (`make_machine`).
MACHINE_DEFAULTS: dict[str, Any] = {"auto_transitions": False, "ignore_invalid_triggers": True}


def make_machine(
    machine_cls: type[Any],
    model: object,
    states: Iterable[State],
    rules: Iterable[Rule],
    triggers: Mapping[str, str],
    sources: Collection[str] | None,
    initial: str,
    title: str,
    options: Mapping[str, Any],
    formerly: Mapping[str, str] | None = None,
) -> Any:
    """A Machine of `machine_cls` (`GraphMachine`, `LockedMachine`, `AsyncMachine`, ...)
    over `model`, starting in `initial`, with the transitions of `rules` and `options` for
    it (`graph_engine="mermaid"`, ...) over `MACHINE_DEFAULTS`: what a generated module's
    `build(model)` returns. With `sources`, only the rules from those states are added
    (more can be added later with the module's `transitions_from`); a process that casts
    once needs only a few. A `GraphMachine` is titled with the spec's title and draws
    only the moves between states that can happen, labelled with the spells
    (`spellbook.records.moves`).

    `initial` and `sources` name states, or their former names (`formerly`: the
    module's `FORMERLY`), as a state file does (`records.callbacks.state_named`); a
    trigger name starts afresh or is refused as `records.callbacks.checked_triggers`
    says."""
    import sys

    from spellbook.records.callbacks import checked_triggers, state_named

    if not isinstance(model, GuardedModel) and not hasattr(model, "clear_rule"):
        raise TypeError(
            f"{type(model).__name__} is no model of this machine: make it of the generated "
            "module's Model, or give it what the machine needs with "
            "spellbook.attach(model, machine, workspace)"
        )
    states = tuple(states)
    known = [state.name for state in states]
    initial = state_named(initial, known, formerly or {}, title)
    if sources is not None:
        sources = [state_named(source, known, formerly or {}, title) for source in sources]
    rules = tuple(rules)
    options = {**MACHINE_DEFAULTS, **options}
    diagrams = sys.modules.get("transitions.extensions.diagrams")  # loaded to pass one
    graph = diagrams is not None and issubclass(machine_cls, diagrams.GraphMachine)
    if graph:
        options.setdefault("title", title)
    machine = machine_cls(
        model=model,
        states=known,
        transitions=transitions(rules, triggers, sources=sources),
        initial=initial,
        **options,
    )
    # Every spell is a trigger of the model, also one no rule from the states given
    # covers (a spec with a gap, a state no rule leaves, a spell no state allows):
    # it answers False there, as in any state without rules for it. An event without
    # sources is bound to the models with no transition.
    for trigger in triggers.values():
        if trigger not in machine.events:
            machine.add_transition(trigger, [], None)
    for each in machine.models:
        checked_triggers(machine, each)
    if graph:
        from spellbook.records.moves import drawing_moves_only

        spells = {trigger: spell for spell, trigger in triggers.items()}
        never = {(rule.source, FIRED + rule.row.id) for rule in rules if not rule.can_fire}
        machine.graph_cls = drawing_moves_only(machine.graph_cls, spells, never)
        for each in machine.models:
            each.get_graph(force_new=True)
    return machine
