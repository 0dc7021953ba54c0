"""Rendering: the model as a Python module (jinja2, then black) and as a mermaid diagram.

The module declares the spec as the runtime's tables (`spellbook.schema`): the
states, one `Row` per row of the transition tables, the response formats split
into parts. `tables()` builds them here, from the model, as the very objects the
runtime will hold; `py()` prints them. Names, imports and ordering are computed
here; the template only loops and prints. Every value from the spec enters the
generated code through `py()`, a `repr` literal, so spec text never becomes code;
text longer than a line is printed split at its newlines and spaces, one piece
per line, so a changed word of the spec changes about one line of generated code.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import keyword
import os
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from spellbook import schema as runtime
from spellbook.responses import Writer
from spellbook.vocabulary import module_name

from ..analyse.findings import Analysis
from ..model import Atom, Literal, Rule, Spec, Specificity
from ..read.conditions import describe
from ..render.response_formats import DEFAULT_TEMPLATE, split

TEMPLATES = Path(__file__).parent / "templates"
# How black formats a generated module (black is imported only to format one).
LINE_LENGTH = 120
FINGERPRINT = "# Fingerprint: "
# Attributes the model has besides its guards, triggers and state checks.
RESERVED = frozenset({"state", "fired", "facts", "guards", "trigger", "may_trigger"})
# A guard is also a name of the generated module: none of the module's own names, nor a
# builtin (an annotation such as `tuple[str, ...]` must still mean the builtin).
MODULE_NAMES = frozenset(
    {"annotations", "build", "expand", "transitions", "transitions_from"} | set(dir(builtins))
)
# A text whose literal is longer than ONE_LINE characters, or that has a newline inside,
# is printed in pieces of at most PIECE characters, each on a line of its own.
ONE_LINE = 98
PIECE = 88


def py(value: object) -> str:
    """A Python literal for a value from the spec (or a table record made of them)."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, (int, bool)) or value is None:
        return repr(value)
    if isinstance(value, tuple):
        items = [py(v) for v in value]
        return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(py(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py(k)}: {py(v)}" for k, v in value.items()) + "}"
    if isinstance(value, runtime.Guard):  # in a row or a state: the guard's module name
        return _identifier(value.name)
    if isinstance(value, runtime.Literal):
        return ("" if value.holds else "~") + _identifier(value.guard.name)
    if isinstance(value, runtime._Record):
        return _record(value)
    raise TypeError(f"no literal for {type(value).__name__}")


def _identifier(name: str) -> str:
    """A name the compiler made (`_Names`), checked again before it enters code as such."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{name!r} is not a name the generated code can use")
    return name


def declare(guard: runtime.Guard) -> str:
    """`Guard(...)`: the guard's record, as the module declares it."""
    return _record(guard)


def _text(text: str) -> str:
    """A string literal; a long or many-line text as pieces on lines of their own."""
    literal = repr(text)
    if len(literal) <= ONE_LINE and "\n" not in text.rstrip("\n"):
        return literal
    pieces = _pieces(text)
    if len(pieces) == 1:
        return literal
    return "(\n" + "".join(f"    {p!r}\n" for p in pieces) + "    )"


def _pieces(text: str) -> list[str]:
    """`text` cut after each line (blank lines kept with the line next to them) and each
    sentence or clause (`. `, `; `, `? `, `! `; in a clause longer than PIECE, `, `),
    and at spaces where a piece's literal would be longer than PIECE; a single word
    longer than that stays whole. Cutting at clauses first keeps a changed word from
    moving the words of other clauses."""
    pieces: list[str] = []
    parts = [
        part
        for clause in _CLAUSES.findall(text)
        for part in (_COMMAS.findall(clause) if len(repr(clause)) > PIECE else [clause])
    ]
    for part in parts:
        words = part.split(" ")
        piece = words[0]
        for word in words[1:]:
            joined = f"{piece} {word}"
            if len(repr(joined)) > PIECE and piece.strip():
                pieces.append(piece + " ")
                piece = word
            else:
                piece = joined
        pieces.append(piece)
    return pieces or [""]


_CLAUSES = re.compile(r"\n*(?:[^\n]+?(?:[.;?!] (?=\S)|\n+|$))|\n+")
_COMMAS = re.compile(r"[^\n]+?(?:, (?=\S)|\n+|$)|\n+")

# How many of a record's arguments are printed by position; the rest by keyword,
# and only where they differ from the default.
_POSITIONAL = {"State": 1, "Row": 2, "Action": 4, "Guard": 4}


_PARAMETERS: dict[str, list[inspect.Parameter]] = {}


def _parameters(cls: type) -> list[inspect.Parameter]:
    found = _PARAMETERS.get(cls.__name__)
    if found is None:
        found = _PARAMETERS[cls.__name__] = list(inspect.signature(cls).parameters.values())
    return found


def _record(value: runtime._Record) -> str:
    """`Name(...)`: the first arguments by position (trailing defaults left out), the rest
    by keyword where they differ from their default."""
    name = type(value).__name__
    params = _parameters(type(value))
    positional = params[: _POSITIONAL[name]]
    values = [getattr(value, p.name) for p in positional]
    while values and values[-1] == positional[len(values) - 1].default:
        values.pop()
    args = [py(v) for v in values]
    for param in params[len(positional) :]:
        field = getattr(value, param.name)
        if param.default is inspect.Parameter.empty or field != param.default:
            args.append(f"{param.name}={py(field)}")
    return f"{name}(" + ", ".join(args) + ")"


def docstring(text: str, indent: int = 8) -> str:
    """A docstring literal: the text wrapped in triple quotes, where it can be."""
    if any(c in text for c in '"\\') or not text.isprintable():
        return repr(text)
    width = 100 - indent - 6
    return '"""' + ("\n" + " " * indent).join(textwrap.wrap(text, width)) + '"""'


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
    env.filters["declare"] = declare
    env.filters["docstring"] = docstring
    return env


class _Names:
    """Python identifiers for things the spec names, each unique."""

    def __init__(self, taken: frozenset[str] = RESERVED) -> None:
        self.taken: set[str] = set(taken)

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
class _Trigger:
    name: str
    spell: str


class Tables:
    """The tables a spec's machine declares, as the runtime's own objects, and the names
    of its guards and triggers."""

    def __init__(self, spec: Spec) -> None:
        names = _Names(RESERVED | MODULE_NAMES)
        self.triggers = [_Trigger(names.allocate(sp.trigger), sp.name) for sp in spec.spells]
        for t in self.triggers:
            names.taken.add(f"may_{t.name}")
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
                describe(Literal(a, True), words),
                describe(Literal(a, False), words),
            )
            for a in self.atoms
        }
        self.guards = [self.guard_of[a] for a in self.atoms]
        self.states = tuple(
            runtime.State(
                st.name,
                "" if spec.family_of(st.name).name == st.name else spec.family_of(st.name).name,
                st.description,
                tuple(a.spell for a in st.valid_actions),
                tuple(_wanted(self.guard_of, lit) for lit in st.evidence),
                st.inferable,
                _is_confirmation(spec, st.name),
            )
            for st in spec.states
        )
        self.spells = tuple(sp.name for sp in spec.spells)
        self._row_of = _rows(spec, self.guard_of, Analysis(spec), runtime.names(self.states))
        self.rows = tuple(self._row_of.values())
        self.rules = runtime.expand(self.rows, self.states, self.spells)
        self._rules = {(id(r.row), r.source, r.spell): r for r in self.rules}
        kinds = {"standard", "blocked", "noop", "confirmation"}
        written = {t.kind: t.text for t in spec.templates if t.kind in kinds}
        every = {k: split(written.get(k, DEFAULT_TEMPLATE), self.spells) for k in sorted(kinds)}
        asked = list(dict.fromkeys(a.file for a in self.atoms if a.probe == "exists"))
        self.writer = Writer(
            every, self.states, self.spells, spec.workspace, spec.schema.fields, asked
        )
        used = {self.writer.template_kind(r) for r in self.rules}
        # The formats the rules answer in, in the spec's order (the built-in ones last).
        order = [t.kind for t in spec.templates] + sorted(kinds)
        self.templates = {k: every[k] for k in dict.fromkeys(order) if k in used}

    def rule(self, rule: Rule) -> runtime.Rule:
        """The runtime's rule for a rule of the model."""
        return self._rules[(id(self._row_of[rule.order]), rule.source, rule.spell)]


def tables(spec: Spec) -> Tables:
    """The tables of `spec`'s machine (the last spec's are kept: previews ask again)."""
    if _LAST and _LAST[0][0] is spec:
        return _LAST[0][1]
    found = Tables(spec)
    _LAST[:] = [(spec, found)]
    return found


_LAST: list[tuple[Spec, Tables]] = []


def _is_confirmation(spec: Spec, state: str) -> bool:
    """A state whose Valid Actions offer a confirm and a cancel spell."""
    notes = " ".join(a.note.lower() for a in spec.state(state).valid_actions)
    return "confirm" in notes and "cancel" in notes


def _rows(
    spec: Spec,
    guard_of: dict[Atom, runtime.Guard],
    analysis: Analysis,
    named_as: dict[str, list[str]],
) -> dict[int, runtime.Row]:
    """One `Row` per row of the spec that applies somewhere, in the spec's order, by the
    order of the model's rules. A family all of whose members a row names is named by
    the family."""
    by_row: dict[int, list[Rule]] = {}
    for rule in spec.rules:
        by_row.setdefault(rule.order, []).append(rule)
    members = {fam.name: fam.members for fam in spec.families if len(fam.members) > 1}
    family_of = {m: family for family, ms in members.items() for m in ms}
    every = [st.name for st in spec.states]
    found = {}
    for order, group in by_row.items():
        first = group[0]
        dests = {r.source: r.dest for r in group}
        wildcard = first.specificity is Specificity.WILDCARD
        named = _by_family(
            [s for s in every if s not in dests] if wildcard else list(dests), members, family_of
        )
        # In the order the runtime lists them (`Row.states`), which `dest` follows.
        sources = [s for name in named for s in named_as[name]]
        if all(d == s for s, d in dests.items()):
            dest: str | tuple[str, ...] | dict[str, str] = ""
        elif len(set(dests.values())) == 1:
            dest = first.dest
        elif wildcard:
            dest = dests
        else:
            dest = tuple(dests[source] for source in sources)
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
                runtime.Action(a.verb, a.text, a.files, "" if a.verb == "set_state" else a.target)
                for a in first.actions
            ),
            response=first.response,
            never=tuple(
                (r.source, r.spell) for r in group if r not in analysis.winners(r.source, r.spell)
            ),
        )
    return found


def _wanted(guard_of: dict[Atom, runtime.Guard], lit: Literal) -> runtime.Wanted:
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


def machine_context(spec: Spec, module: str) -> dict[str, Any]:
    """Everything the template prints, computed here."""
    found = tables(spec)
    return {
        "module": module,
        "spec_path": spec.path,
        "sha256": spec.sha256,
        "title": spec.title or module,
        "state_file": spec.state_file,
        "workspace": spec.workspace,
        "vocabulary": module_name(spec.vocabulary) if spec.vocabulary else "",
        "initial": spec.initial,
        "spells": found.spells,
        "spell_word": spec.spell_word,
        "spell_descriptions": {sp.name: _sentences(sp.description, sp.usage) for sp in spec.spells},
        "targets": {sp.name: sp.target for sp in spec.spells if sp.target},
        "formerly": spec.formerly,
        "schema": spec.schema,
        "triggers": found.triggers,
        "states": found.states,
        "guards": found.guards,
        "templates": found.templates,
        "rows": found.rows,
    }


def _guard_name(atom: Atom, words: dict[Atom, tuple[str, str]]) -> str:
    """The spec's own words for the fact where it has short ones (a term `tests pass`
    is the guard `tests_pass`), else the file, probe and parameter."""
    said = words.get(atom, ("", ""))[0]
    slug = "_".join("".join(c if c.isalnum() else " " for c in said.lower()).split())
    return slug if slug and len(slug) <= 48 else atom.name


def render_machine(spec: Spec, module: str) -> str:
    """The generated module of `spec`, formatted, with its fingerprint."""
    return finish(machine_source(spec, module))


def machine_source(spec: Spec, module: str) -> str:
    """The generated module as the template prints it, before black formats it."""
    return _environment().get_template("machine.py.j2").render(machine_context(spec, module))


def finish(source: str) -> str:
    """`source` formatted by black, with a fingerprint line after its header: the hash of
    `source` (and of black's version and settings), and the hash of the rest of the file.
    A file whose fingerprint matches its source and its own text needs no formatting to
    be known fresh (`fresh`); a hand edit changes the second hash."""
    formatted = _black(source)
    head, rest = _header(formatted)
    return f"{head}{FINGERPRINT}{_source_hash(source)} {_hash(head + rest)}\n{rest}"


# The rows, formatted by black so many at a time: black's time and memory grow faster
# than the text it is given, and a row is formatted the same alone as among others.
ROWS_START = "\nROWS: tuple[Row, ...] = (\n"
# Two placeholders: black would join a tuple of one onto its line.
ROWS_HERE = "    ROWS_HERE,\n    ROWS_HERE,\n"
CHUNK = 100
# More chunks than this are formatted by fresh processes; fewer, on Linux, by this
# one and processes forked from it (black already loaded), sharing the text evenly,
# each at least FORK_SHARE characters of it; elsewhere by this one alone.
PARALLEL = 4
FORK_SHARE = 16_000


def _black(source: str) -> str:
    """`source` formatted by black: the rows (if any) in chunks of CHUNK, the rest at
    once, shared among as many processes as there are CPUs.

    Python's garbage collector is on while black works (its syntax trees are cycles),
    with what was made before left out of its walks (`gc.freeze`)."""
    import gc

    was = gc.isenabled()
    gc.freeze()
    gc.enable()
    try:
        return _black_rows(source)
    finally:
        if not was:
            gc.disable()
        gc.unfreeze()


def _black_rows(source: str) -> str:
    start = source.find(ROWS_START)
    if start < 0:
        return _format(source)
    start += len(ROWS_START)
    end = source.index("\n)\n", start) + 1
    rows = [row for row in re.split(r"(?m)^(?=    Row\()", source[start:end]) if row.strip()]
    rest = source[:start] + ROWS_HERE + source[end:]
    # No more processes than CPUs, nor than make a share of text worth a process.
    cpus = min(os.cpu_count() or 1, 1 + len(source) // FORK_SHARE)
    if len(rows) > CHUNK * PARALLEL and cpus > 1:
        done, formatted = _spawned(rows, rest)
    elif cpus > 1 and sys.platform == "linux":  # fork: where it is safe and cheap
        done, formatted = _forked(rows, rest, cpus)
    else:
        done, formatted = [_format(chunk) for chunk in _chunks(rows)], _format(rest)
    before, after = formatted.split(ROWS_HERE, 1)
    return before + "".join(chunk[len("x = (\n") : -len(")\n")] for chunk in done) + after


def _chunks(rows: list[str]) -> list[str]:
    """`rows` as snippets black can format, CHUNK rows each."""
    return ["x = (\n" + "".join(rows[at : at + CHUNK]) + ")\n" for at in range(0, len(rows), CHUNK)]


def _spawned(rows: list[str], rest: str) -> tuple[list[str], str]:
    """The chunks formatted by fresh processes (a forked one would carry this one's
    memory along, which a large spec makes large), the rest by this one."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn")) as pool:
        done = pool.map(_format, _chunks(rows))
        formatted = _format(rest)
        return list(done), formatted


def _forked(rows: list[str], rest: str, cpus: int) -> tuple[list[str], str]:
    """The text shared evenly by size among this process (the rest and the last rows)
    and cpus - 1 forked ones (the first rows): a fork starts at once, with black loaded."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    share = (len(rest) + sum(map(len, rows))) / cpus
    groups: list[list[str]] = []
    at = 0
    for _ in range(cpus - 1):
        size, group = 0, []
        while at < len(rows) and size + len(rows[at]) / 2 < share:
            size += len(rows[at])
            group.append(rows[at])
            at += 1
        if group:
            groups.append(group)
    if not groups:
        return [_format(chunk) for chunk in _chunks(rows)], _format(rest)
    with ProcessPoolExecutor(len(groups), mp_context=multiprocessing.get_context("fork")) as pool:
        others = [pool.submit(_format_all, _chunks(group)) for group in groups]
        own = [_format(chunk) for chunk in _chunks(rows[at:])]
        formatted = _format(rest)
        return [chunk for other in others for chunk in other.result()] + own, formatted


def _format_all(sources: list[str]) -> list[str]:
    return [_format(source) for source in sources]


def _format(source: str) -> str:
    import black
    from black.mode import Mode, TargetVersion

    mode = Mode(line_length=LINE_LENGTH, target_versions={TargetVersion.PY310})
    return black.format_str(source, mode=mode)


def fresh(text: str, source: str) -> bool:
    """Whether `text` (a generated module as found) is what `finish(source)` makes, told
    without black: its fingerprint says it was made from this very source by this black
    and that nothing in it has changed since, and its syntax tree is the source's.

    The hashes catch any edit; the tree comparison does not trust them, so an edit of
    what the code does is caught even if whoever made it recomputed the fingerprint."""
    head, rest = _header(text)
    if not rest.startswith(FINGERPRINT):
        return False
    line, _, rest = rest.partition("\n")
    made, _, own = line[len(FINGERPRINT) :].partition(" ")
    if made != _source_hash(source) or own != _hash(head + rest):
        return False
    try:
        return ast.dump(ast.parse(rest)) == ast.dump(ast.parse(source))
    except (SyntaxError, ValueError):
        return False


def _header(text: str) -> tuple[str, str]:
    """The header comment (the lines before the docstring) and the rest."""
    at = 0
    while text.startswith("# ", at) and not text.startswith(FINGERPRINT, at):
        at = text.index("\n", at) + 1
    return text[:at], text[at:]


def _source_hash(source: str) -> str:
    from importlib.metadata import version

    return _hash(f"black {version('black')}, line length {LINE_LENGTH}, py310\n{source}")


def _hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def moves(spec: Spec) -> list[tuple[str, str, str]]:
    """(source, dest, spells) for every move between states that can happen: the rules
    that win in some world (as the machine's `spellbook.schema.moves` draws them)."""
    return runtime.moves(tables(spec).rules)


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
