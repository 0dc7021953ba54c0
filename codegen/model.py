"""The IR: one normalized model of a state-machine spec.

Everything after parsing works on these objects: the verifier's checks, the
coverage report and the code generator. They are plain frozen dataclasses with
tuple fields; conditions are literals over named atoms and actions are text,
never callables. Every object carries the source `line` it came from.

A `RuleRow` is one table row as written (its Current State cell still a
selector, its Next State cell still a target). Expansion turns each row into
`Rule`s, one per concrete (source state, spell), and keeps every name it could
not resolve as an `Unresolved` reference, so the verifier can report it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property


class Kind(str, enum.Enum):
    """What a rule does to the state: move it, refuse the spell, or leave it."""

    TRANSITION = "transition"
    BLOCKED = "blocked"
    NOOP = "noop"


class Specificity(enum.IntEnum):
    """Priority class of a rule within one cell; lower wins."""

    EXPLICIT = 0  # the row names the state
    WILDCARD = 1  # `Any state` / `Any state except ...`


@dataclass(frozen=True)
class Spell:
    """A spell (a trigger). `target` is the state it asks for, when it asks for one:
    a hook that sees a state file edited to that state judges the edit by this spell."""

    name: str
    description: str
    usage: str
    line: int
    target: str = ""

    @property
    def trigger(self) -> str:
        """The spell's trigger name in the generated machine."""
        return self.name.lower()


@dataclass(frozen=True)
class ValidAction:
    """One entry of a state's Valid Actions list, e.g. `Finite (no-op)`."""

    spell: str
    note: str
    line: int


@dataclass(frozen=True)
class State:
    """A state. `evidence` is what its Indicators say about the workspace's files;
    `inferable` is true when that is all they say, so the files alone point to it."""

    name: str
    description: str
    indicators: str
    valid_actions: tuple[ValidAction, ...]
    line: int
    evidence: tuple[Literal, ...] = ()
    inferable: bool = False


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
    """A fact about the workspace that a guard can check: `probe` applied to `arg`.

    The probes, their phrases and their implications live in `codegen.glossary`.
    """

    probe: str
    arg: str

    @property
    def name(self) -> str:
        slug = "".join(c if c.isalnum() else "_" for c in self.arg.lower()).strip("_")
        while "__" in slug:
            slug = slug.replace("__", "_")
        if not slug:
            return self.probe
        return f"{self.probe}_{slug}" if slug[0].isdigit() else f"{slug}_{self.probe}"


@dataclass(frozen=True)
class Literal:
    atom: Atom
    positive: bool


@dataclass(frozen=True)
class Condition:
    """A conjunction of literals as written in a Condition cell; empty means always."""

    text: str
    literals: tuple[Literal, ...]
    unknown: tuple[str, ...] = ()

    @property
    def always(self) -> bool:
        return not self.literals


@dataclass(frozen=True)
class Selector:
    """A Current State cell: listed names, or every state except the listed names."""

    wildcard: bool
    names: tuple[str, ...]


@dataclass(frozen=True)
class Target:
    """A Next State cell: a state name (maybe `NAME_[G/A]`), `[BLOCKED]` or `Same state`."""

    kind: Kind
    name: str | None


@dataclass(frozen=True)
class Action:
    """One phrase of an Action cell, as a verb of the action vocabulary (`codegen.actions`).

    `files` are relative to the workspace folder; `target` is the template (create),
    the folder pattern (archive), the frontmatter key (extract) or the state (set_state).
    `problem` says why the phrase cannot be carried out safely, if it cannot.
    """

    verb: str
    text: str
    files: tuple[str, ...] = ()
    target: str = ""
    problem: str = ""


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
    actions: tuple[Action, ...]
    response: str
    response_ref: str

    @property
    def specificity(self) -> Specificity:
        return Specificity.WILDCARD if self.current.wildcard else Specificity.EXPLICIT


@dataclass(frozen=True)
class Rule:
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
    actions: tuple[Action, ...]
    response: str
    response_ref: str
    specificity: Specificity

    @property
    def priority(self) -> tuple[int, int]:
        return (int(self.specificity), self.order)

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
class Duplicate:
    """A rule ID, state or spell defined more than once."""

    what: str
    name: str
    line: int
    first_line: int


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
    states: tuple[State, ...]
    families: tuple[Family, ...]
    rows: tuple[RuleRow, ...]
    rules: tuple[Rule, ...]
    unresolved: tuple[Unresolved, ...]
    duplicates: tuple[Duplicate, ...]
    schema: StateSchema = StateSchema()
    spell_word: str = "spell"

    @property
    def workspace(self) -> str:
        """The folder the rules' files live in: the state file's folder."""
        folder, _, _ = self.state_file.rpartition("/")
        return folder

    @property
    def initial(self) -> str:
        """The first state listed is the initial state."""
        return self.states[0].name

    @cached_property
    def _cells(self) -> dict[tuple[str, str], tuple[Rule, ...]]:
        cells: dict[tuple[str, str], list[Rule]] = {
            (st.name, sp.name): [] for st in self.states for sp in self.spells
        }
        for rule in self.rules:
            cells.setdefault((rule.source, rule.spell), []).append(rule)
        return {key: tuple(sorted(rules, key=lambda r: r.priority)) for key, rules in cells.items()}

    def cell(self, state: str, spell: str) -> tuple[Rule, ...]:
        """The rules for one (state, spell), in priority order: the first whose
        condition holds fires."""
        return self._cells.get((state, spell), ())

    @cached_property
    def _family_of(self) -> dict[str, Family]:
        return {member: fam for fam in self.families for member in fam.members}

    def family_of(self, state: str) -> Family:
        return self._family_of[state]

    def state(self, name: str) -> State:
        return next(s for s in self.states if s.name == name)
