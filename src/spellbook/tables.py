"""The tables a generated machine is made of: its states, its rules and their actions.

A generated module (`spellbook.machines.<name>`) holds these as constants built
from its spec; the runtime reads them. They are plain slotted classes so that
importing a machine costs little more than importing `transitions`.

Responses are pre-rendered at generation time. What only the runtime knows is
left in them as a placeholder made by `placeholder()`, filled by plain string
substitution:

| placeholder             | filled with                                  |
|-------------------------|----------------------------------------------|
| `{{available_spells}}`  | what every spell would do now, as a list     |
| `{{does:SPELL}}`        | what SPELL would do now                      |
| `{{next_steps}}`        | the spells that would move the workflow now  |
| `{{archive_path}}`      | the folder an archive action moved files to  |
| `{{content:FILE}}`      | the text of FILE, for the AI                 |
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any, Protocol

    class Facts(Protocol):
        """Answers a guard: does `probe` hold for `arg` in the workspace right now?"""

        def check(self, probe: str, file: str, param: str) -> bool: ...

    class GeneratedMachine(Protocol):
        """What a generated module (`spellbook.machines.<name>`) provides."""

        SPEC: str
        SPEC_SHA256: str
        TITLE: str
        STATE_FILE: str
        WORKSPACE: str
        INITIAL: str
        STATE_KEY: str
        HISTORY_KEYS: tuple[str, ...]
        STATE_FIELDS: tuple[str, ...]
        SPELLS: tuple[str, ...]
        SPELL_WORD: str
        SPELL_DESCRIPTIONS: dict[str, str]
        TARGETS: dict[str, str]
        TRIGGERS: dict[str, str]
        STATES: tuple[State, ...]
        ATOMS: dict[str, tuple[str, str, str, str, str]]
        RESPONSES: tuple[str, ...]
        RULES: tuple[Rule, ...]
        MOVES: tuple[tuple[str, str, str], ...]
        VOCABULARY: str
        Model: Any

        def build(
            self, model: Any, initial: str = ..., sources: Collection[str] | None = ...
        ) -> Any: ...

        def transitions_from(self, state: str) -> list[dict[str, Any]]: ...


def placeholder(name: str, arg: str = "") -> str:
    """The text a response carries where the runtime fills in `name` (for `arg`)."""
    return "{{" + name + (":" + arg if arg else "") + "}}"


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


class State(_Record):
    """A state, with the words the spec uses for it.

    `evidence` is what its Indicators say about the files, as (guard, expected)
    pairs; `inferable` says that is all they say, so `spell repair` may choose it.
    """

    __slots__ = (
        "name",
        "family",
        "description",
        "indicators",
        "valid_actions",
        "evidence",
        "inferable",
    )

    def __init__(
        self,
        name: str,
        family: str,
        description: str,
        indicators: str,
        valid_actions: tuple[str, ...],
        evidence: tuple[tuple[str, bool], ...] = (),
        inferable: bool = False,
    ) -> None:
        self.name = name
        self.family = family
        self.description = description
        self.indicators = indicators
        self.valid_actions = valid_actions
        self.evidence = evidence
        self.inferable = inferable


class Action(_Record):
    """One verb of a rule's Action cell (see the action vocabulary in `codegen.actions`)."""

    __slots__ = ("verb", "files", "target", "text")

    def __init__(self, verb: str, files: tuple[str, ...], target: str, text: str) -> None:
        self.verb = verb
        self.files = files
        self.target = target
        self.text = text


class Rule(_Record):
    """One rule for one (source state, spell): its guards, its outcome and its response.

    `kind` is "transition", "blocked" or "noop"; `dest` is the state after the rule
    fires (the source itself when the state does not change). `conditions` must all
    hold and `unless` must all fail for the rule to fire. `summary` says in a line
    what casting the spell does when this rule wins.
    """

    __slots__ = (
        "id",
        "line",
        "source",
        "spell",
        "trigger",
        "kind",
        "dest",
        "conditions",
        "unless",
        "actions",
        "response",
        "callback",
        "summary",
    )

    def __init__(
        self,
        id: str,
        line: int,
        source: str,
        spell: str,
        trigger: str,
        kind: str,
        dest: str,
        conditions: tuple[str, ...],
        unless: tuple[str, ...],
        actions: tuple[Action, ...],
        response: str,
        callback: str,
        summary: str = "",
    ) -> None:
        self.id = id
        self.line = line
        self.source = source
        self.spell = spell
        self.trigger = trigger
        self.kind = kind
        self.dest = dest
        self.conditions = conditions
        self.unless = unless
        self.actions = actions
        self.response = response
        self.callback = callback
        self.summary = summary

    @property
    def changes_state(self) -> bool:
        return self.dest != self.source

    @property
    def acts(self) -> bool:
        """Whether any of its actions has something to do at run time."""
        return any(a.verb not in PASSIVE_VERBS for a in self.actions)

    def transition(self) -> dict[str, Any]:
        """This rule as a `transitions` transition; rules that keep the state are internal."""
        return {
            "trigger": self.trigger,
            "source": self.source,
            "dest": self.dest if self.changes_state else None,
            "conditions": list(self.conditions),
            "unless": list(self.unless),
            "after": self.callback,
        }


# The verbs that need nothing done at run time: every other verb is carried out by
# `spellbook.actions` or by the machine's vocabulary. `fill` names a placeholder of the
# response that the runtime fills anyway (a loaded file's text, an archive's folder).
PASSIVE_VERBS = frozenset({"set_state", "no_change", "instruct", "fill"})


class Done:
    """What a rule's actions did, for its response."""

    def __init__(self) -> None:
        self.archive_path = ""
        self.contents: dict[str, str | None] = {}
        self.notes: list[str] = []
