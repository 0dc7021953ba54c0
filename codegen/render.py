"""Rendering: the model as a Python module (jinja2, then black) and as a mermaid diagram.

Names, imports and ordering are computed here; the template only loops and
prints. Every value from the spec enters the generated code through the `py`
filter, a `repr` literal, so spec text never becomes code.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import black
import jinja2
from black.mode import Mode, TargetVersion

from spellbook.probes import PROBES
from spellbook.vocabulary import module_name

from .conditions import describe
from .findings import Analysis
from .model import Atom, Literal, Rule, Spec
from .responses import render_response, summary

TEMPLATES = Path(__file__).parent / "templates"
BLACK_MODE = Mode(line_length=100, target_versions={TargetVersion.PY310})
# Attributes the model has besides its guards, callbacks and triggers.
RESERVED = frozenset({"state", "fired", "facts", "trigger", "may_trigger"})


def py(value: object) -> str:
    """A Python literal for a value from the spec."""
    if isinstance(value, (str, int, bool)) or value is None:
        return repr(value)
    if isinstance(value, tuple):
        items = [py(v) for v in value]
        return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(py(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py(k)}: {py(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no literal for {type(value).__name__}")


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
    return env


class _Names:
    """Python identifiers for things the spec names, each unique."""

    def __init__(self) -> None:
        self.taken: set[str] = set(RESERVED)

    def allocate(self, wanted: str) -> str:
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in wanted).strip("_") or "x"
        if name[0].isdigit() or keyword.iskeyword(name):
            name = "_" + name
        candidate, n = name, 2
        while candidate in self.taken:
            candidate, n = f"{name}_{n}", n + 1
        self.taken.add(candidate)
        return candidate


@dataclass(frozen=True)
class _Guard:
    name: str
    probe: str
    file: str
    param: str
    doc: str


@dataclass(frozen=True)
class _Trigger:
    name: str
    spell: str
    doc: str


def machine_context(spec: Spec, module: str) -> dict[str, Any]:
    """Everything the template prints, computed here."""
    names = _Names()
    triggers = [
        _Trigger(names.allocate(sp.trigger), sp.name, f"Cast {sp.name}: {sp.description}".strip())
        for sp in spec.spells
    ]
    trigger_of = {t.spell: t.name for t in triggers}
    for t in triggers:
        names.taken.add(f"may_{t.name}")
    atoms = sorted(
        {lit.atom for rule in spec.rules for lit in rule.condition.literals}
        | {lit.atom for st in spec.states for lit in st.evidence}
    )
    words = spec.words
    guard_of: dict[Atom, str] = {atom: names.allocate(_guard_name(atom, words)) for atom in atoms}
    guards = [
        _Guard(
            guard_of[a],
            a.probe,
            a.file,
            a.param,
            f"{describe(Literal(a, True), words)}. {PROBES[a.probe].meaning}",
        )
        for a in atoms
    ]
    ordered = _priority_order(spec)
    callback_of = {
        rid: names.allocate(f"fired_{rid}") for rid in dict.fromkeys(r.id for r in ordered)
    }
    responses: dict[str, int] = {}
    rules = []
    for rule in ordered:
        text = render_response(spec, rule)
        index = responses.setdefault(text, len(responses))
        # A rule with alternatives (OR) is one transition per alternative, in order.
        for clause in rule.condition.clauses:
            rules.append(
                {
                    "id": rule.id,
                    "line": rule.line,
                    "source": rule.source,
                    "spell": rule.spell,
                    "trigger": trigger_of[rule.spell],
                    "kind": rule.kind.value,
                    "dest": rule.dest,
                    "conditions": tuple(guard_of[lit.atom] for lit in clause if lit.positive),
                    "unless": tuple(guard_of[lit.atom] for lit in clause if not lit.positive),
                    "actions": [
                        {"verb": a.verb, "files": a.files, "target": a.target, "text": a.text}
                        for a in rule.actions
                    ],
                    "response": index,
                    "callback": callback_of[rule.id],
                    "summary": summary(spec, rule),
                }
            )
    return {
        "module": module,
        "spec_path": spec.path,
        "sha256": spec.sha256,
        "title": spec.title or module,
        "state_file": spec.state_file,
        "workspace": spec.workspace,
        "vocabulary": module_name(spec.vocabulary) if spec.vocabulary else "",
        "initial": spec.initial,
        "spells": tuple(sp.name for sp in spec.spells),
        "spell_word": spec.spell_word,
        "spell_descriptions": {sp.name: _sentences(sp.description, sp.usage) for sp in spec.spells},
        "targets": {sp.name: sp.target for sp in spec.spells if sp.target},
        "schema": spec.schema,
        "triggers": triggers,
        "states": [
            {
                "name": st.name,
                "family": spec.family_of(st.name).name,
                "description": st.description,
                "indicators": st.indicators,
                "valid_actions": tuple(a.spell for a in st.valid_actions),
                "evidence": tuple((guard_of[lit.atom], lit.positive) for lit in st.evidence),
                "inferable": st.inferable,
            }
            for st in spec.states
        ],
        "atoms": [
            (
                g.name,
                g.probe,
                g.file,
                g.param,
                describe(Literal(a, True), words),
                describe(Literal(a, False), words),
            )
            for g, a in zip(guards, atoms, strict=True)
        ],
        "guards": guards,
        "callbacks": sorted(callback_of.items(), key=lambda item: item[1]),
        # transitions binds is_<state> to each state's name, which parse made an identifier.
        "state_checks": [{"method": st.name} for st in spec.states],
        "responses": list(responses),
        "rules": rules,
        "moves": moves(spec),
    }


def _guard_name(atom: Atom, words: dict[Atom, tuple[str, str]]) -> str:
    """The spec's own words for the fact where it has short ones (a term `tests pass`
    is the guard `tests_pass`), else the file, probe and parameter."""
    said = words.get(atom, ("", ""))[0]
    slug = "_".join("".join(c if c.isalnum() else " " for c in said.lower()).split())
    return slug if slug and len(slug) <= 48 else atom.name


def _priority_order(spec: Spec) -> list[Rule]:
    """Every rule, cell by cell (states and spells in document order), in priority order."""
    return [r for st in spec.states for sp in spec.spells for r in spec.cell(st.name, sp.name)]


def render_machine(spec: Spec, module: str) -> str:
    source = _environment().get_template("machine.py.j2").render(machine_context(spec, module))
    return black.format_str(source, mode=BLACK_MODE)


def moves(spec: Spec) -> list[tuple[str, str, str]]:
    """(source, dest, spells) for every move between states that can happen: the
    rules that win in some world."""
    analysis = Analysis(spec)
    found: dict[tuple[str, str], list[str]] = {}
    for rule in (r for st in spec.states for r in analysis.moves[st.name]):
        labels = found.setdefault((rule.source, rule.dest), [])
        if rule.spell not in labels:
            labels.append(rule.spell)
    return [(src, dst, " / ".join(labels)) for (src, dst), labels in found.items()]


def render_diagram(spec: Spec) -> str:
    """A mermaid state diagram of the moves between states, drawn by `transitions`.

    Only rules that win in some world are drawn: the moves that can happen.
    """
    from spellbook.diagram import mermaid

    states = [st.name for st in spec.states]
    return mermaid(states, moves(spec), spec.initial, spec.title)


def _sentences(*texts: str) -> str:
    """Texts joined as sentences: "Advances workflow. Progress through it."."""
    joined = ". ".join(t.strip().rstrip(".") for t in texts if t.strip())
    return joined + "." if joined else ""
