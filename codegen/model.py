"""The IR: one normalized model of a state-machine spec.

This module imports nothing of the compiler: every stage imports it. Everything
after reading works on these objects: the verifier's checks, the
coverage report and the code generator. They are plain frozen dataclasses with
tuple fields; conditions are literals over named atoms and actions are text,
never callables. Every object carries the source `line` it came from.

A `RuleRow` is one table row as written (its Current State cell still a
selector, its Next State cell still a target). Expansion turns each row into
`RuleSpec`s, one per concrete (source state, spell), and keeps every name it could
not resolve as an `Unresolved` reference, so the verifier can report it.

A record with a twin among the generated machine's (`spellbook.schema`: `State`,
`Rule`, `Action`, `Literal`) is named with `Spec` after it (`StateSpec`, `RuleSpec`,
...): the spec's state as read, against the state a generated module declares.
"""

from __future__ import annotations

import builtins
import enum
from dataclasses import dataclass, field
from functools import cached_property

from spellbook.schema import priority

# The probe of a guard of the project's own code, and the verb of its callback: a phrase
# the core does not read, in a machine whose project says so (`own_code`). The atom's
# parameter is the guard's identifier; the action's target the callback's.
OWN = "own"
CALL = "call"


# Attributes the model has besides its guards, triggers and state checks.
RESERVED = frozenset(
    {
        "state",
        "fired",
        "refused",
        "clear_rule",
        "unrefused",
        "facts",
        "guards",
        "triggers",
        "available_spells",
        "available_triggers",
        "trigger",
        "may_trigger",
        "repair_state_file",  # the MCP server's tool (spellbook.doors.server.REPAIR_TOOL)
    }
)
# A guard is also a name of the generated module: none of the module's own names, nor a
# builtin (an annotation such as `tuple[str, ...]` must still mean the builtin).
MODULE_NAMES = frozenset(
    {"annotations", "build", "expand", "make_machine", "transitions", "transitions_from"}
    | set(dir(builtins))
)


class Kind(str, enum.Enum):
    """What a rule does to the state: move it, refuse the spell, or leave it."""

    TRANSITION = "transition"
    BLOCKED = "blocked"
    NOOP = "noop"


class Specificity(enum.IntEnum):
    """Priority class of a rule within one cell; lower wins."""

    EXPLICIT = 0  # the row names the state
    WILDCARD = 1  # `Any state` / `Any state except ...`
    POLICY = 2  # transitions not listed are rejected: below every row, in a cell with rows


@dataclass(frozen=True)
class Spell:
    """A spell (a trigger). `target` is the state it asks for, when it asks for one:
    a hook that sees a state file edited to that state judges the edit by this spell."""

    name: str
    description: str
    usage: str
    line: int
    target: str = ""
    # The name as a table wrote it, where that is not an identifier (`Facilitator
    # pauses`); `name` is the identifier code uses (`read.identifiers`). "" otherwise.
    title: str = ""
    # The line of its `*Usage*` field (0 where it has none).
    usage_line: int = field(default=0, compare=False)
    # Names it had in earlier revisions of the spec (`*Formerly*`): a rename the spec
    # declares, so the diff (`--against`) takes it as deliberate, not as breaking.
    formerly: tuple[str, ...] = ()

    @property
    def trigger(self) -> str:
        """The spell's trigger name in the generated machine."""
        return self.name.lower()


def spelled(name: str) -> str:
    """A spell's name as a `*Formerly*` name is compared with it: `Retry payment`,
    `retry-payment` and `retry_payment` are one name."""
    return "_".join(name.replace("-", " ").split()).lower()


@dataclass(frozen=True)
class Term:
    """A phrase a spec or a vocabulary defines by other phrases; `line` 0 for a vocabulary's."""

    phrase: str
    means: str
    line: int = 0


@dataclass(frozen=True)
class ValidAction:
    """One entry of a state's Valid Actions list, e.g. `Finite (no-op)`."""

    spell: str
    note: str
    line: int


@dataclass(frozen=True)
class StateSpec:
    """A state. `evidence` is what its Indicators say about the workspace's files;
    `inferable` is true when that is all they say, so the files alone point to it.
    `goal` is true when the spec declares it a state the workflow aims for (`*Goal*`)."""

    name: str
    description: str
    indicators: str
    valid_actions: tuple[ValidAction, ...]
    line: int
    evidence: tuple[LiteralSpec, ...] = ()
    inferable: bool = False
    goal: bool = False
    # Names the state had in earlier revisions of the spec (`*Formerly*`): a state file
    # naming one of them is moved to this state.
    formerly: tuple[str, ...] = ()
    # The name as written, where that is not an identifier (`paused-manual`, `Deleted
    # logically`); `name` is the identifier code uses (`read.identifiers`). "" otherwise.
    title: str = ""


@dataclass(frozen=True)
class Family:
    """States that differ only in a one-letter suffix, written `NAME_[G/A]`.

    A state without siblings is a family of one, named like the state.
    """

    name: str
    base: str
    members: tuple[str, ...]
    suffixes: tuple[str, ...]
    line: int


@dataclass(frozen=True, order=True)
class Atom:
    """A fact about the workspace that a guard can check: a probe of the generic core
    (`spellbook.facts.probes`) applied to a file, relative to the workspace folder, and a
    parameter (a section heading, a pattern, a query, ...)."""

    probe: str
    file: str
    param: str = ""

    @property
    def name(self) -> str:
        """A Python identifier for the guard, made from the file, probe and parameter."""
        param = _slug(self.param)
        if not param or len(param) > 40:
            import hashlib

            param = hashlib.sha1(self.param.encode()).hexdigest()[:8] if self.param else ""
        name = "_".join(p for p in (_slug(self.file), self.probe, param) if p)
        return "_" + name if name[0].isdigit() else name


def _slug(text: str) -> str:
    slug = "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")
    while "__" in slug:
        slug = slug.replace("__", "_")
    return slug


@dataclass(frozen=True)
class LiteralSpec:
    atom: Atom
    positive: bool


@dataclass(frozen=True)
class Condition:
    """A Condition cell: alternatives (OR) of conjunctions (AND) of literals.

    `clauses` is `((),)` for a condition that always holds, and `()` for one that
    never can. `unknown` lists the phrases no vocabulary or term defines.
    """

    text: str
    clauses: tuple[tuple[LiteralSpec, ...], ...]
    unknown: tuple[str, ...] = ()
    # (unknown phrase, why it could not be read), where the reader knows why.
    why: tuple[tuple[str, str], ...] = ()
    # (phrase, why it always holds): a comparison read as always (`attempts >= 0`).
    vacuous: tuple[tuple[str, str], ...] = ()

    @property
    def always(self) -> bool:
        return any(not clause for clause in self.clauses)

    @property
    def literals(self) -> tuple[LiteralSpec, ...]:
        """Every literal of every alternative, each once."""
        return tuple(dict.fromkeys(lit for clause in self.clauses for lit in clause))

    @property
    def atoms(self) -> tuple[Atom, ...]:
        return tuple(dict.fromkeys(lit.atom for lit in self.literals))


@dataclass(frozen=True)
class Selector:
    """A Current State cell: listed names, or every state except the listed names.

    `scope` narrows a wildcard: "terminal" (`any terminal`) is every state no row
    leads out of, "non-terminal" (`any non-terminal`) every other state, wildcard
    rows not counted (`expand.terminal_states`); "" is every state."""

    wildcard: bool
    names: tuple[str, ...]
    scope: str = ""


@dataclass(frozen=True)
class Target:
    """A Next State cell: a state name (maybe `NAME_[G/A]`), `[BLOCKED]` or `Same state`."""

    kind: Kind
    name: str | None


@dataclass(frozen=True)
class ActionSpec:
    """One phrase of an Action cell, as a verb of the action vocabulary (`read.action_phrases`).

    `files` are relative to the workspace folder; `target` is the template (create; ""
    for an empty file), the folder pattern (archive), the frontmatter key (extract; ""
    for every key the archive folders name) or the state (set_state).
    `problem` says why the phrase cannot be carried out safely, if it cannot.
    """

    verb: str
    text: str
    files: tuple[str, ...] = ()
    target: str = ""
    problem: str = ""
    # Why a phrase that looks like a verb was not read as one (for `unknown_action`).
    hint: str = ""
    # create: the template's text, when the spec's project keeps the template (`target`
    # is then its path relative to the spec's folder); "" for a vocabulary's template.
    content: str = ""
    # The state file's fields it sets: a counter it counts or resets, a vocabulary
    # verb's `writes`.
    writes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ResponseTemplate:
    """One of the spec's Response Format Templates: standard, blocked, noop or confirmation."""

    kind: str
    text: str
    line: int


@dataclass(frozen=True)
class RuleRow:
    """One row of a transition table, as written."""

    id: str
    id_written: bool
    line: int
    group: str
    group_kind: Kind
    current: Selector
    triggers: tuple[str, ...]
    condition: Condition
    target: Target
    action: str
    actions: tuple[ActionSpec, ...]
    response: str
    response_ref: str
    # Columns that have no role (`Implementation`, `Notes`, `Old Response`, a column
    # read in another one's place): (header, cell as written).
    extra: tuple[tuple[str, str], ...] = ()
    # The ID is the row's place (`R3`), its table having no ID column (`read.light_tables`).
    numbered: bool = False

    @property
    def specificity(self) -> Specificity:
        return Specificity.WILDCARD if self.current.wildcard else Specificity.EXPLICIT


@dataclass(frozen=True)
class RuleSpec:
    """One row expanded to one concrete (source state, spell)."""

    id: str
    line: int
    order: int
    group: str
    kind: Kind
    source: str
    spell: str
    condition: Condition
    dest: str
    action: str
    actions: tuple[ActionSpec, ...]
    response: str
    response_ref: str
    specificity: Specificity
    # A rule no row wrote: the spec's policy that transitions not listed are rejected.
    policy: bool = False

    @property
    def fills_gap(self) -> bool:
        """A rule of the policy in a cell with rows: it refuses where none of them fires."""
        return self.specificity is Specificity.POLICY

    @property
    def priority(self) -> tuple[int, int]:
        """Its place in its cell, as the generated machine orders it (`spellbook.schema.
        priority`): a rule of the policy, whose order is after every row's, is below every
        wildcard row as it is below every row naming the state."""
        return priority(self.specificity is not Specificity.EXPLICIT, self.order)

    @property
    def changes_state(self) -> bool:
        return self.dest != self.source


@dataclass(frozen=True)
class Unresolved:
    """A name in a row or a Valid Actions list that does not resolve.

    `reason` is the finding kind: unknown_state, unknown_spell or ga_notation.
    """

    reason: str
    name: str
    column: str
    line: int
    rule: str | None
    suggestion: str | None
    detail: str = ""
    state: str | None = None


@dataclass(frozen=True)
class Policy:
    """ "Transitions not listed are rejected": every (state, spell) no row names is
    blocked. `said` is the sentence of the spec that says so (at `line`), or the
    project's setting (`line` 0)."""

    said: str
    line: int = 0

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.line else "[tool.spellbook] in pyproject.toml"


@dataclass(frozen=True)
class Duplicate:
    """A rule ID, state or spell defined more than once."""

    what: str
    name: str
    line: int
    first_line: int


@dataclass(frozen=True)
class Notice:
    """Something the reader did that a reviewer should know of, with its line: a name a
    formatter mangled and how it was read (`name_recovered`), the column read where a
    table has two for one role (`column_choice`), rule rows a blank line cut off from
    their table (`detached_row`). `kind` is the finding kind it becomes."""

    kind: str
    message: str
    line: int
    rule: str | None = None


@dataclass(frozen=True)
class DiagramArrow:
    """One arrow of a spec's state diagram, `source --> dest: label` (`[*]` is
    ""), with its line; `within` is the composite state it is drawn in ("" at the top)."""

    source: str
    dest: str
    label: str
    line: int
    within: str = ""


@dataclass(frozen=True)
class SpecDiagram:
    """A state diagram of the spec (a Mermaid `stateDiagram` block or a PlantUML one, as
    `language` says), as drawn: its arrows, the long names its states are given (`state
    "Long name" as S`), its composite states with the states drawn in each (the first of
    them where its `[*]` leads, if it draws one), its choice, fork and join states, and
    the lines not read, each with the reason."""

    line: int
    moves: tuple[DiagramArrow, ...]
    names: tuple[tuple[str, str], ...] = ()
    composites: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    pseudo: tuple[tuple[str, int], ...] = ()
    unread: tuple[tuple[int, str], ...] = ()
    language: str = "Mermaid"


@dataclass(frozen=True)
class SpecGuard:
    """One item of the spec's State Guards list (`read.guards`), `**Expecto Guard**: Only
    allowed in GATHER states`, with its names still as written. `claim` says what the
    item says of the states it `names`: `only` (the spell is allowed there and blocked in
    every other state), `blocked` (blocked there, nothing said of the others) or
    `allowed` (allowed there, nothing said of the others); the states `excepted` (`except
    X`) are taken out of `names` with the opposite meaning. `notes` are its words read as
    a comment, not a rule (`(must Accio to finish current review)`). `problem` says why
    the item is not read ("" where it is)."""

    line: int
    title: str
    text: str
    claim: str = ""
    names: tuple[str, ...] = ()
    excepted: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    problem: str = ""
    # Said by a spell's `*Usage*` field in the Spells list (`Only allowed in GATHER
    # states`), its title the spell's name, not by an item of the State Guards list.
    usage: bool = False


@dataclass(frozen=True)
class StateSchema:
    """The state file's shape, from the spec's State Persistence example: the key that
    holds the state, the keys of a history entry, and the other fields it keeps."""

    state_key: str = "current_state"
    entry_keys: tuple[str, ...] = ("timestamp", "transition", "trigger")
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class Spec:
    path: str
    sha256: str
    title: str
    state_file: str
    templates: tuple[ResponseTemplate, ...]
    spells: tuple[Spell, ...]
    states: tuple[StateSpec, ...]
    families: tuple[Family, ...]
    rows: tuple[RuleRow, ...]
    rules: tuple[RuleSpec, ...]
    unresolved: tuple[Unresolved, ...]
    duplicates: tuple[Duplicate, ...]
    schema: StateSchema = StateSchema()
    spell_word: str = "spell"
    vocabulary: str = ""
    # `own_code`: phrases the core does not read are the project's guards (`own` atoms)
    # and callbacks (`call` actions).
    own_code: bool = False
    # How the facts the conditions use are said: atom -> (when it holds, when not).
    words: dict[Atom, tuple[str, str]] = field(default_factory=dict, compare=False)
    terms: tuple[Term, ...] = ()
    notices: tuple[Notice, ...] = ()
    # Where the spec says that transitions not listed are rejected (None: it does not).
    unlisted: Policy | None = None
    # The roles of the first transition table's columns, in order ("" for a column with
    # none): a row suggested to the author is written in them.
    layout: tuple[str, ...] = ()
    # The section of a file of several machines this machine is read from ("" for the
    # file): a sentence suggested to the author goes there.
    section: str = field(default="", compare=False)
    # The spec's state diagrams (Mermaid, PlantUML) in the section it is read from (`read.mermaid`).
    diagrams: tuple[SpecDiagram, ...] = field(default=(), compare=False)
    # The items of its State Guards list in the section it is read from (`read.guards`).
    guards: tuple[SpecGuard, ...] = field(default=(), compare=False)
    # The line that says where the machine starts, and its words ("" where none does).
    started: str = field(default="", compare=False)
    # The line that names the state file (0: none does, so it is the default).
    state_line: int = field(default=0, compare=False)
    # The project's generated folder, relative to its root ("": not known).
    generated: str = field(default="", compare=False)
    # The state files of the project's machines, from its root (`ReadOptions.others`).
    others: tuple[str, ...] = field(default=(), compare=False)

    @property
    def workspace(self) -> str:
        """The folder the rules' files live in: the state file's folder."""
        folder, _, _ = self.state_file.rpartition("/")
        return folder

    @cached_property
    def own_guards(self) -> tuple[Atom, ...]:
        """The project's own guards its conditions name, each once, in the rows' order."""
        return tuple(
            dict.fromkeys(a for row in self.rows for a in row.condition.atoms if a.probe == OWN)
        )

    def rows_asking(self, atom: Atom) -> tuple[str, ...]:
        """The IDs of the rows whose condition asks `atom`, each once, in order."""
        return tuple(dict.fromkeys(r.id for r in self.rows if atom in r.condition.atoms))

    def rows_calling(self, callback: str) -> tuple[str, ...]:
        """The IDs of the rows with the project's own callback `callback`, each once."""
        return tuple(
            dict.fromkeys(
                r.id for r in self.rows for a in r.actions if (a.verb, a.target) == (CALL, callback)
            )
        )

    @cached_property
    def callbacks(self) -> tuple[ActionSpec, ...]:
        """The project's own callbacks its actions name, each once, in the rows' order."""
        found: dict[str, ActionSpec] = {}
        for row in self.rows:
            for action in row.actions:
                if action.verb == CALL:
                    found.setdefault(action.target, action)
        return tuple(found.values())

    @property
    def initial(self) -> str:
        """The first state listed is the initial state."""
        return self.states[0].name

    @cached_property
    def former_claims(self) -> dict[str, list[str]]:
        """Each name a state says it was (`*Formerly*`) -> the states that say so (a part
        that is not a name is a finding, not a claim)."""
        claims: dict[str, list[str]] = {}
        for state in self.states:
            for old in state.formerly:
                if old.isidentifier():
                    claims.setdefault(old, []).append(state.name)
        return claims

    @cached_property
    def formerly(self) -> dict[str, str]:
        """Each former name of a state -> the state that took its place; a name two
        states claim, or one still a state of the spec, is not a migration."""
        return {
            old: takers[0]
            for old, takers in self.former_claims.items()
            if len(takers) == 1 and old not in self.states_by_name
        }

    @property
    def goals(self) -> tuple[str, ...]:
        """The states the spec declares the workflow aims for."""
        return tuple(s.name for s in self.states if s.goal)

    @cached_property
    def _cells(self) -> dict[tuple[str, str], tuple[RuleSpec, ...]]:
        cells: dict[tuple[str, str], list[RuleSpec]] = {
            (st.name, sp.name): [] for st in self.states for sp in self.spells
        }
        for rule in self.rules:
            cells.setdefault((rule.source, rule.spell), []).append(rule)
        return {key: tuple(sorted(rules, key=lambda r: r.priority)) for key, rules in cells.items()}

    def cell(self, state: str, spell: str) -> tuple[RuleSpec, ...]:
        """The rules for one (state, spell), in priority order: the first whose
        condition holds fires."""
        return self._cells.get((state, spell), ())

    @cached_property
    def _family_of(self) -> dict[str, Family]:
        return {member: fam for fam in self.families for member in fam.members}

    def family_of(self, state: str) -> Family:
        return self._family_of[state]

    @cached_property
    def states_by_name(self) -> dict[str, StateSpec]:
        return {s.name: s for s in self.states}

    def state(self, name: str) -> StateSpec:
        return self.states_by_name[name]
