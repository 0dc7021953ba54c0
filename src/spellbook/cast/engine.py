"""A generated machine made ready to run against one workspace, for all who work with it."""

from __future__ import annotations

from importlib import import_module

from spellbook.cast.responses import Writer
from spellbook.disk.paths import path_problem
from spellbook.disk.state_file import RUNTIME_FIELDS, StateFormat
from spellbook.facts.answers import Facts
from spellbook.records.errors import ActionError, SpellbookError, UnknownSpell

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from types import ModuleType
    from typing import Any, Protocol

    from spellbook.disk.state_file import Record
    from spellbook.disk.store import Workspace
    from spellbook.facts.commands import Run
    from spellbook.schema import Guard, Row, Rule, State

    class GeneratedMachine(Protocol):
        """What a generated module (`spellbook.machines.<name>`) provides."""

        SPEC: str
        SPEC_SHA256: str
        TITLE: str
        STATE_FILE: str
        WORKSPACE: str
        INITIAL: str
        FORMERLY: dict[str, str]
        STATE_KEY: str
        HISTORY_KEYS: tuple[str, ...]
        STATE_FIELDS: tuple[str, ...]
        SPELLS: tuple[str, ...]
        SPELL_WORD: str
        SPELL_DESCRIPTIONS: dict[str, str]
        TARGETS: dict[str, str]
        TRIGGERS: dict[str, str]
        STATES: tuple[State, ...]
        GUARDS: tuple[Guard, ...]
        TEMPLATES: dict[str, tuple[str, ...]]
        ROWS: tuple[Row, ...]
        RULES: tuple[Rule, ...]
        VOCABULARY: str
        Model: Any

        def build(
            self,
            model: Any,
            initial: str = ...,
            sources: Collection[str] | None = ...,
            machine_cls: Any = ...,
            **options: Any,
        ) -> Any: ...

        def transitions_from(self, state: str, model: Any = ...) -> list[dict[str, Any]]: ...


def foreign_template(key: str, spec: str) -> bool:
    """Whether the template a generated module carries under `key` (its path from the
    folder of the spec `spec`, which is relative to the repository) cannot be a file of
    the project's template folders, as the compiler takes only those: its key leads into
    a `.git` folder or, from the spec's folder, out of the repository. (That git does
    not ignore it is the compiler's to check: the runtime runs no program.)"""
    import posixpath

    inner = key.split("/")
    while inner[:1] == [".."]:  # the project's templates folder, beside the spec's folder
        inner = inner[1:]
    if path_problem("/".join(inner)):
        return True
    folder = posixpath.dirname(spec)
    if folder and (folder.startswith("/") or path_problem(folder)):
        return False  # a spec outside the repository: its own folder is the project's
    return bool(path_problem(posixpath.normpath(posixpath.join(folder, key))))


def kept_fields(machine: GeneratedMachine) -> tuple[tuple[str, ...], frozenset[str]]:
    """The fields the state file keeps, and which of them are counters: those the spec's
    State Persistence example shows, every counter a rule compares (`rounds < 3`) or
    counts (`Increment rounds`, `Reset rounds`), and `entered_at` if a condition asks
    how long the state has lasted; time in a state is recorded wherever it is asked."""
    from spellbook.verbs.actions import VERBS  # a verb that sets fields: `Verb.fields`

    counters = {g.param.partition("<")[0] for g in machine.GUARDS if g.probe == "below"}
    counters |= {
        a.target.partition("=")[0]
        for r in machine.RULES
        for a in r.actions
        if a.verb in VERBS and VERBS[a.verb].fields in ("adds", "rewrites")
    }
    timed = any(g.probe == "over_minutes" for g in machine.GUARDS)
    fields = [*machine.STATE_FIELDS, *sorted(counters), *(["entered_at"] if timed else [])]
    return tuple(dict.fromkeys(f for f in fields if f)), frozenset(counters)


def _ledger_file(param: str) -> str:
    """The file a ledger fact (`listed`, `unlisted`) reads."""
    from spellbook.facts.ledgers import ledger_parts  # only a spec with ledger facts

    return ledger_parts(param)[0]


def _sharer(root: str, machine: GeneratedMachine) -> Callable[[str], tuple[str, str, str] | None]:
    """Which other machine of the project at `root` keeps its state in `machine`'s state
    file and has a state (`spellbook.disk.shared_state`): looked up only when a state
    file names a state the machine does not have."""

    def sharer(state: str) -> tuple[str, str, str] | None:
        from spellbook.disk.shared_state import sharing

        return sharing(root, machine, state)

    return sharer


class Engine:
    """The machine `machine` (a generated module) for `workspace`: its states, rules and
    each (state, spell)'s rules by name, its state file's format, its words (`writer`,
    `said`), its vocabulary and templates, and its model and `transitions` machine,
    built once (`ready`)."""

    def __init__(self, machine: GeneratedMachine, workspace: Workspace) -> None:
        self.machine = machine
        self.workspace = workspace
        fields, counters = kept_fields(machine)
        self.format = StateFormat(
            machine.STATE_KEY,
            machine.HISTORY_KEYS,
            fields,
            getattr(machine, "FORMERLY", {}),  # machines generated before migrations: none
            machine.SPEC,
            counters,
        )
        self.format.sharer = _sharer(workspace.root, machine)
        self.state_file = machine.STATE_FILE[len(machine.WORKSPACE) :].lstrip("/")
        self._others: tuple[tuple[str, ...], ...] | None = None
        # The fields an action may set to a value: those the State Persistence example
        # declares, but the counters and the ones the runtime writes itself.
        owned = {machine.STATE_KEY, "context", "history", *RUNTIME_FIELDS}
        self.settable = frozenset(machine.STATE_FIELDS) - self.format.counters - owned
        self.states = {s.name: s for s in machine.STATES}
        self.rules: dict[tuple[str, str, str], Rule] = {
            (r.source, r.spell, r.id): r for r in machine.RULES
        }
        # The files the rules look at (a ledger too), said with every response and status.
        looked_at = [g.file for g in machine.GUARDS if g.probe == "exists"] + [
            name
            for g in machine.GUARDS
            for name in (
                g.file,
                _ledger_file(g.param) if g.probe in ("unlisted", "listed") else "",
            )
            if name
        ]
        self.files = tuple(dict.fromkeys(looked_at))
        self.writer = Writer(
            machine.TEMPLATES,
            machine.STATES,
            machine.SPELLS,
            machine.WORKSPACE,
            tuple(f for f in fields if f in machine.STATE_FIELDS or f in counters),
            self.files,
            machine.SPELL_WORD,
        )
        self.spells = {s.lower(): s for s in machine.SPELLS}
        self.spells.update({t: s for s, t in machine.TRIGGERS.items()})
        self._built: tuple[Any, Any] | None = None
        self._loaded: set[str] = set()
        self._vocabulary: ModuleType | None = None
        self._templates: dict[str, str] = {}
        self._cells: dict[tuple[str, str], list[Rule]] = {}

    @property
    def vocabulary(self) -> ModuleType | None:
        """The machine's vocabulary module, imported the first time it is needed."""
        name = getattr(self.machine, "VOCABULARY", "")
        if self._vocabulary is None and name:
            try:
                self._vocabulary = import_module(name)
            except (Exception, SystemExit) as err:  # not installed, or its own code failed
                raise SpellbookError(
                    f"the machine's vocabulary {name} cannot be imported "
                    f"({type(err).__name__}: {err}); install it, or regenerate the machine"
                ) from None
        return self._vocabulary

    def others(self) -> tuple[tuple[str, ...], ...]:
        """The state files of the project's machines an action of this workspace could
        name (`own_files.others_in`), which no action writes: read once, when an action
        that writes first asks."""
        if self._others is None:
            import os

            from spellbook.disk.own_files import others_in
            from spellbook.disk.project import PYPROJECT

            if not os.path.lexists(os.path.join(self.workspace.root, PYPROJECT)):
                self._others = ()  # no project: the shipped machines hold none of each other's
                return self._others
            from spellbook.disk.shared_state import state_files  # only rules that write files

            own = str(getattr(self.machine, "__file__", "") or "")
            found = state_files(self.workspace.root, exclude=own)
            self._others = others_in(self.workspace.folder, found)
        return self._others

    def programs(self) -> tuple[tuple[str, ...], ...]:
        """The files code is taken from that an action could name (`own_files.programs_in`):
        the folder the machine's module was generated into, and its vocabulary's module,
        where they are in or hold the workspace."""
        import os

        from spellbook.disk.own_files import programs_in  # only rules that write files

        module = getattr(self.machine, "__file__", None) or ""
        vocabulary = getattr(self.vocabulary, "__file__", None) or ""
        return programs_in(
            self.workspace.base, [os.path.dirname(module)] if module else [], [module, vocabulary]
        )

    def template(self, name: str) -> str:
        """The text of a template: one the machine carries (`FILES`), by its key or by the
        workspace file a `Create F from T` writes from it; else the vocabulary's template
        for a file of that name (carried in the machine for a vocabulary that is data); ""
        if there is none."""
        found = self._templates.get(name)
        if found is None:
            files: dict[str, str] = getattr(self.machine, "FILES", {})
            key = name if name in files else self._written_from().get(name, "")
            if key:
                if foreign_template(key, self.machine.SPEC):
                    raise ActionError(
                        f"the machine's template {key!r} is not a file of the project's "
                        "template folders (it leads into a .git folder or out of the "
                        "repository), so it is not used; generate the machine again"
                    )
                found = files[key]
            elif hasattr(self.machine, "VOCABULARY_FILES"):  # a vocabulary that is data
                carried: dict[str, str] = self.machine.VOCABULARY_FILES
                found = carried.get(name.rpartition("/")[2], "")
            else:
                from spellbook.records.vocabulary import template

                found = template(self.vocabulary, name)
            self._templates[name] = found
        return found

    def _written_from(self) -> dict[str, str]:
        """Workspace file -> the key of the template the machine creates it from."""
        files: dict[str, str] = getattr(self.machine, "FILES", {})
        return {
            action.files[0]: action.target
            for row in self.machine.ROWS
            for action in row.actions
            if action.verb == "create" and action.target in files
        }

    def facts(
        self,
        record: Record | None = None,
        runs: dict[tuple[str, str], Run] | None = None,
        recorded: bool = False,
    ) -> Facts:
        return Facts(self.workspace, record, runs, self.template, recorded, (self.state_file,))

    def spell(self, name: str) -> str:
        """The spell's name as the spec writes it; `accio`, `Accio` and `ACCIO` are one spell."""
        found: str | None = self.spells.get(name.strip().lower())
        if found is None:
            word = self.machine.SPELL_WORD
            raise UnknownSpell(
                f"unknown {word} {name!r}; the {word}s are {', '.join(self.machine.SPELLS)}"
            )
        return found

    def ready(
        self,
        state: str,
        record: Record | None = None,
        runs: dict[tuple[str, str], Run] | None = None,
        recorded: bool = False,
    ) -> tuple[Any, Any]:
        """The model and its machine, in `state`, with fresh facts; built once.

        The machine gets a state's rules the first time it is in that state: a cast
        needs only the rules from where it starts and from where it ends.
        """
        if self._built is None:
            model = self.machine.Model(self.facts())
            self._built = (model, self.machine.build(model, initial=state, sources=(state,)))
            self._loaded.add(state)
        model, machine = self._built
        if state not in self._loaded:
            machine.add_transitions(self.machine.transitions_from(state, model))
            self._loaded.add(state)
        model.facts = self.facts(record, runs, recorded)
        model.fired = model.refused = None
        machine.set_state(state, model=model)
        return model, machine

    def cell(self, state: str, spell: str) -> list[Rule]:
        """The rules of `spell` in `state`, in priority order."""
        cells = self._cells
        if not cells:
            for each in self.machine.RULES:
                cells.setdefault((each.source, each.spell), []).append(each)
        return cells.get((state, spell), [])

    def said(self, fact: tuple[str, str, str]) -> str:
        """A fact in the spec's words (the words for when it holds)."""
        for guard in self.machine.GUARDS:
            if guard.fact == fact:
                return guard.yes
        return " ".join(fact)
