"""The generated module of a spec (jinja2, then black) and its mermaid diagram.

Names, imports and ordering are computed in Python (`machine_records`); the template
(`templates/machine.py.j2`) only loops and prints, every value through `py`.
"""

from __future__ import annotations

from keyword import iskeyword
from pathlib import Path
from typing import Any

import jinja2

from spellbook.disk.loading import source_sha256
from spellbook.records.words import plural

from ..analyse.kept import kept
from ..model import Spec
from ..read.lexicon import Lexicon, ReadOptions
from .freshness import finish
from .literals import declare, docstring, one_line, py, word
from .machine_records import machine_records, moves

TEMPLATES = Path(__file__).parent / "templates"


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["py"] = py
    env.filters["one_line"] = one_line
    env.filters["declare"] = declare
    env.filters["docstring"] = docstring
    env.filters["word"] = word
    return env


def machine_context(spec: Spec, module: str, root: Path | None = None) -> dict[str, Any]:
    """Everything the template prints, computed here; `root`, the project's folder, where
    the module is written into one (its files the machine is made from are named)."""
    found = machine_records(spec)
    kept_records = kept(spec)
    words = Lexicon.of(ReadOptions(spec.vocabulary)) if spec.vocabulary else None
    return {
        "module": module,
        "spec_path": spec.path,
        "sha256": spec.sha256,
        "title": spec.title or module,
        "state_file": spec.state_file,
        "workspace": spec.workspace,
        "vocabulary": words.module if words else "",
        "vocabulary_files": _carried(spec, words.carried) if words else {},
        "sources": made_from(spec, root) if root is not None else {},
        "initial": spec.initial,
        "spells": found.spells,
        "spell_word": spec.spell_word,
        # The word as the module's comments and docstrings say it: "spell", "spells", "Spell".
        "said": {"one": spec.spell_word, "many": plural(spec.spell_word)},
        "spell_descriptions": {
            sp.name: _sentences(sp.description or sp.title, sp.usage) for sp in spec.spells
        },
        "targets": {sp.name: sp.target for sp in spec.spells if sp.target},
        "formerly": spec.formerly,
        "schema": spec.schema,
        "triggers": found.triggers,
        # `is_<state>()`, which `transitions` binds for each state, declared for a type
        # checker where the project's own code subclasses the model.
        "state_tests": [
            name
            for name in (f"is_{st.name}" for st in spec.states)
            if name.isidentifier() and not iskeyword(name)
        ]
        if found.own
        else [],
        "states": found.states,
        "guards": found.guards,
        "templates": found.templates,
        "files": dict(sorted(found.files.items())),
        "rows": found.rows,
        # The methods of the project's own code (`own_code`): none for most machines.
        "own": found.own,
        # What a hand-made write of a workspace JSON file may not do: none for most.
        "kept": kept_records,
        "imports": _imports(bool(found.own), bool(kept_records)),
    }


def _imports(own: bool, kept: bool) -> list[str]:
    """What the module takes from `spellbook.schema`, in the order isort sorts them."""
    return [
        *(["NO_FACTS"] if own else []),
        *("Action", "Guard", "GuardedModel", *(["Kept"] if kept else []), "Row", "Rule", "State"),
        *("expand", "make_machine", *(["require"] if own else []), "transitions"),
    ]


def _carried(spec: Spec, templates: dict[str, str]) -> dict[str, str]:
    """The templates of a data vocabulary the machine asks for, by a file's name: those of
    the files its rules create or look at (a ledger too), as the runtime asks for them."""
    named = {a.file for a in machine_records(spec).atoms}
    named |= {a.param.partition(" ")[0] for a in machine_records(spec).atoms if a.probe in _LEDGERS}
    for rule in spec.rules:
        for action in rule.actions:
            named.update((*action.files, action.target))
    names = {name.rpartition("/")[2] for name in named}
    return {k: v for k, v in sorted(templates.items()) if k in names}


_LEDGERS = ("unlisted", "listed")  # facts whose parameter starts with a ledger's name


def render_machine(spec: Spec, module: str) -> str:
    """The generated module of `spec`, formatted, with its fingerprint."""
    return finish(machine_source(spec, module))


def machine_source(spec: Spec, module: str, root: Path | None = None) -> str:
    """The generated module as the template prints it, before black formats it."""
    context = machine_context(spec, module, root)
    return _environment().get_template("machine.py.j2").render(context)


def made_from(spec: Spec, root: Path) -> dict[str, str]:
    """The project's files other than the spec that the machine is made from, by path
    from `root`, with their sha256: its vocabulary file and the templates the machine
    carries (so `spell` can say when one has changed since). A file of Spellbook's own
    vocabularies is no file of the project, and not named."""
    named: list[Path] = []
    if spec.vocabulary.endswith(".md"):  # a vocabulary that is data, and its templates
        vocabulary = Path(spec.vocabulary)
        carried = _carried(spec, Lexicon.of(ReadOptions(spec.vocabulary)).carried)
        named += [vocabulary, *(vocabulary.parent / "templates" / name for name in carried)]
    folder = root / Path(spec.path).parent
    named += [folder / key for key in sorted(machine_records(spec).files)]
    found: dict[str, str] = {}
    for path in named:
        full = path if path.is_absolute() else root / path
        try:
            shown = full.resolve().relative_to(root.resolve()).as_posix()
            found[shown] = source_sha256(full.read_bytes())
        except (OSError, ValueError):  # not a file of the project: not named
            continue
    return found


def render_diagram(spec: Spec) -> str:
    """A mermaid state diagram of the moves between states, drawn by `transitions`.

    Only rules that win in some world are drawn: the moves that can happen.
    """
    from spellbook.records.diagram import mermaid

    states = [st.name for st in spec.states]
    return mermaid(states, moves(spec), spec.initial, spec.title)


def _sentences(*texts: str) -> str:
    """Texts joined as sentences: "Advances workflow. Progress through it."."""
    joined = ". ".join(t.strip().rstrip(".") for t in texts if t.strip())
    return joined + "." if joined else ""
