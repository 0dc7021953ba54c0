"""The generated module: it behaves as the spec says, rule by rule and in every world;
spec text never becomes code, only literals; long text is cut into pieces, formatted by
black in pieces as it would be whole; it is fresh only for the source it was made
from, type-checks under mypy --strict and runs without the compiler's libraries."""

from __future__ import annotations

import ast
import hashlib
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen import load_spec, parse_spec_text
from codegen.model import Kind, RuleSpec, Spec
from codegen.render import machine_source, render_machine
from codegen.render.literals import py
from spellbook.machines import spell_machine
from tests.support.specs import fill, row, spec_text
from tests.support.worlds import World, WorldFacts, cell_atoms, winner, winning_world, worlds

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec(ROOT / "spec" / "STATE_MACHINE.md", shown="spec/STATE_MACHINE.md")


def fire(spec: Spec, state: str, spell: str, world: World) -> spell_machine.Model:
    model = spell_machine.Model(WorldFacts(world))
    spell_machine.build(model, initial=state)
    trigger = getattr(model, spell_machine.TRIGGERS[spell])
    trigger()
    return model


@pytest.mark.parametrize("rule", SPEC.rules, ids=lambda r: f"{r.id}@{r.source}")
def test_rule_fires_where_it_wins(rule: RuleSpec) -> None:
    world = winning_world(SPEC, rule)
    if world is None:
        # Never first in any world: the machine must never fire it either.
        for other in worlds(cell_atoms(SPEC, rule.source, rule.spell)):
            assert fire(SPEC, rule.source, rule.spell, other).fired != rule.id
        return
    model = fire(SPEC, rule.source, rule.spell, world)
    if rule.kind is Kind.BLOCKED:  # it refuses the spell: no transition
        assert (model.fired, model.refused) == (None, rule.id)
    else:
        assert (model.fired, model.refused) == (rule.id, None)
    assert model.state == rule.dest


@pytest.mark.parametrize(
    ("spec_file", "module"),
    [("STATE_MACHINE.md", "spell_machine"), ("SESSION_STATE_MACHINE.md", "session_machine")],
)
def test_machine_agrees_with_the_priority_policy_in_every_world(
    spec_file: str, module: str
) -> None:
    """Every cell, every consistent world: the generated machine fires the rule the
    policy picks, or nothing when no rule's condition holds."""
    spec = load_spec(ROOT / "spec" / spec_file)
    machine = import_module(f"spellbook.machines.{module}")
    checked = 0
    for state in spec.states:
        for spell in spec.spells:
            for world in worlds(cell_atoms(spec, state.name, spell.name)):
                expected = winner(spec, state.name, spell.name, world)
                model = machine.Model(WorldFacts(world))
                machine.build(model, initial=state.name)
                trigger = machine.TRIGGERS[spell.name]
                may = getattr(model, f"may_{trigger}")()
                moved = getattr(model, trigger)()
                # A trigger succeeds (and `may_` says it would) where a rule fires;
                # where one refuses the spell, or none applies, it fails.
                done = expected is not None and expected.kind is not Kind.BLOCKED
                assert may is moved is done
                if expected is None:
                    got = (model.fired, model.refused, model.state)
                    assert got == (None, None, state.name)
                elif expected.kind is Kind.BLOCKED:
                    got = (model.fired, model.refused, model.state)
                    assert got == (None, expected.id, state.name)
                else:
                    got = (model.fired, model.refused, model.state)
                    assert got == (expected.id, None, expected.dest)
                checked += 1
    print(f"\n{module}: {checked} (state, spell, world) combinations agree with the spec")
    assert checked > len(spec.states) * len(spec.spells)


def test_rule_win_figures() -> None:
    can_win = [r for r in SPEC.rules if winning_world(SPEC, r) is not None]
    never = sorted(
        {f"{r.id}@{r.source}" for r in SPEC.rules} - {f"{r.id}@{r.source}" for r in can_win}
    )
    print(f"\n{len(can_win)} of {len(SPEC.rules)} expanded rules can fire; never first: {never}")
    assert can_win


def test_generated_tables_match_the_model() -> None:
    assert spell_machine.SPEC == "spec/STATE_MACHINE.md"
    assert SPEC.sha256 == spell_machine.SPEC_SHA256
    assert [s.name for s in spell_machine.STATES] == [s.name for s in SPEC.states]
    assert spell_machine.INITIAL == SPEC.initial == "GATHER_NEEDS_PLAN"
    ordered = [
        (r.id, r.source, r.spell, r.dest)
        for st in SPEC.states
        for sp in SPEC.spells
        for r in SPEC.cell(st.name, sp.name)
    ]
    assert [(r.id, r.source, r.spell, r.dest) for r in spell_machine.RULES] == ordered


def test_machine_has_one_trigger_per_spell_and_internal_moves_for_kept_states() -> None:
    model = spell_machine.Model(WorldFacts({}))
    machine = spell_machine.build(model)
    assert sorted(machine.events) == sorted(spell_machine.TRIGGERS.values())
    internal = [
        t
        for ev in machine.events.values()
        for ts in ev.transitions.values()
        for t in ts
        if t.dest is None
    ]
    kept = [r for r in spell_machine.RULES if not r.changes_state]
    assert len(internal) == len(kept)


def test_may_trigger_answers_without_moving() -> None:
    from codegen.model import Atom

    world = {Atom("exists", "plan.md"): True}
    model = spell_machine.Model(WorldFacts(world))
    spell_machine.build(model, initial="GATHER_NEEDS_PLAN")
    assert model.may_accio() is True
    assert model.state == "GATHER_NEEDS_PLAN" and model.fired is None


def test_header_names_the_spec_and_its_hash() -> None:
    text = (ROOT / "generated" / "spell_machine.py").read_text(encoding="utf-8")
    digest = hashlib.sha256((ROOT / "spec" / "STATE_MACHINE.md").read_bytes()).hexdigest()
    head = text.splitlines()[:2]
    assert head[0].startswith("# DO NOT EDIT: generated by `spellbook-codegen` from ")
    assert "spec/STATE_MACHINE.md" in head[0]
    assert digest in head[1]


def test_generated_module_passes_mypy_strict() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(ROOT / "generated")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout


EVIL = [
    "a \"quoted\" 'word'",
    "back\\slash \\n \\x00",
    "\"\"\"triple\"\"\" and '''more'''",
    "__import__('os').system('echo owned')",
    "line1<br>line2 {{available_spells}} ${date} # not a comment",
]


def _evil_spec(text: str) -> str:
    states, spells = ["A", "B"], ["Go"]
    rows = [
        row(
            "X1",
            "A",
            "Go",
            nxt="B",
            action=f"(1) Create new x.md template; (2) {text}",
            response=text,
        ),
        row('I"D\\1', "B", "Go", nxt="[BLOCKED]", response=f'Explain: "{text}"'),
    ]
    return (
        spec_text(states, spells, rows, heading=text)
        .replace("the A state", text)
        .replace("does Go", text)
        .replace("## Machine", f"## Machine {text}")
    )


def _shape(source: str) -> str:
    """The module's AST with every string constant blanked: its code, not its data."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree, include_attributes=False)


@pytest.mark.parametrize("text", EVIL)
def test_spec_text_never_becomes_code(text: str) -> None:
    benign = render_machine(parse_spec_text(_evil_spec("plain words")), "m")
    evil = render_machine(parse_spec_text(_evil_spec(text)), "m")
    compile(evil, "<generated>", "exec")
    assert _shape(evil) == _shape(benign)
    assert "owned" not in _shape(evil)


def test_py_filter_makes_literals() -> None:
    for value in ['x"y', "a\nb", "\\", ("one",), ("a", "b"), {"k": ("v",)}, 3, None, True]:
        assert ast.literal_eval(py(value)) == value
    with pytest.raises(TypeError):
        py(object())


BLOCKED_IMPORTS = """
import sys

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"mistune", "jinja2", "black", "codegen"}:
            raise ImportError("refused: " + name)
        return None

sys.meta_path.insert(0, Refuse())
from spellbook.machines import spell_machine as m

class Facts:
    def check(self, probe, file, param):
        return probe == "exists" and file == "plan.md"

model = m.Model(Facts())
m.build(model)
model.accio()
assert (model.state, model.fired) == ("GATHER_EDITING", "G1"), (model.state, model.fired)
tools = {"mistune", "jinja2", "black", "codegen"}
loaded = sorted(n for n in sys.modules if n.split(".")[0] in tools)
assert not loaded, loaded
print("cast without build tools")
"""


def test_generated_machine_runs_without_mistune_jinja2_black() -> None:
    result = subprocess.run(
        [sys.executable, "-c", BLOCKED_IMPORTS], capture_output=True, text=True, cwd="/", timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "cast without build tools" in result.stdout


def test_rows_for_every_kind_generate_a_working_module(tmp_path: Path) -> None:
    states, spells = ["A", "B"], ["Go", "Stop"]
    rows = [
        row("G1", "A", "Go", condition="x.md exists", nxt="B"),
        row("G2", "A", "Go", condition="x.md missing", nxt="Same state"),
        row("S1", "Any state", "Stop", nxt="[BLOCKED]"),
        *fill(states, spells, skip=["A/Go", "A/Stop", "B/Stop"]),
    ]
    source = render_machine(parse_spec_text(spec_text(states, spells, rows)), "m")
    namespace: dict[str, object] = {}
    exec(compile(source, "m.py", "exec"), namespace)
    build, model_cls = namespace["build"], namespace["Model"]

    class Facts:
        def __init__(self, present: bool) -> None:
            self.present = present

        def check(self, probe: str, file: str, param: str) -> bool:
            return self.present

    for present, fired, state in ((True, "G1", "B"), (False, "G2", "A")):
        model = model_cls(Facts(present))  # type: ignore[operator]
        build(model)  # type: ignore[operator]
        assert model.go() is True
        assert (model.fired, model.refused, model.state) == (fired, None, state)
        assert model.may_stop() is False and model.stop() is False  # refused
        assert (model.fired, model.refused, model.state) == (None, "S1", state)


def test_fresh_holds_only_for_the_source_it_was_made_from() -> None:
    from codegen import load_spec
    from codegen.render import finish, fresh, machine_source

    source = machine_source(load_spec(ROOT / "spec" / "SESSION_STATE_MACHINE.md"), "m")
    made = finish(source)
    assert fresh(made, source)
    assert not fresh(made, source.replace("Advance", "Advanced", 1))
    assert not fresh(made.replace("    ", "  ", 1), source)
    assert not fresh(made.replace("# Fingerprint: ", "# Fingerprint:  ", 1), source)


def test_rows_formatted_in_pieces_and_in_parallel_are_formatted_as_a_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import black
    from black.mode import Mode, TargetVersion

    from codegen import load_spec
    from codegen.render import format, machine_source

    source = machine_source(load_spec(ROOT / "spec" / "STATE_MACHINE.md"), "m")
    whole = black.format_str(
        source, mode=Mode(line_length=format.LINE_LENGTH, target_versions={TargetVersion.PY310})
    )
    monkeypatch.setattr(format, "CHUNK", 7)
    monkeypatch.setattr(format.os, "cpu_count", lambda: 3)  # this process and 2 forked
    assert format.black_format(source) == whole
    monkeypatch.setattr(format.os, "cpu_count", lambda: 1)
    assert format.black_format(source) == whole
    monkeypatch.setattr(format.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(format, "CHUNK", 30)
    monkeypatch.setattr(format, "PARALLEL", 1)  # 3 chunks: on fresh processes
    assert format.black_format(source) == whole


def test_a_row_alone_in_its_piece_is_formatted_as_a_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # A short row alone: black would join a tuple of one onto one line.
    from codegen.render import format

    text = spec_text(
        ["A"], ["Go"], [row("R1", "A", "Go", nxt="[BLOCKED]", action="-", response="No")]
    )
    namespace: dict[str, object] = {}
    exec(compile(render_machine(parse_spec_text(text), "m"), "m.py", "exec"), namespace)
    rows = namespace["ROWS"]
    assert isinstance(rows, tuple) and [r.id for r in rows] == ["R1"]
    two = spec_text(
        ["A"],
        ["Go", "Stop"],
        [
            row(f"R{n}", "A", s, nxt="[BLOCKED]", action="-", response="No")
            for n, s in ((1, "Go"), (2, "Stop"))
        ],
    )
    source = machine_source(parse_spec_text(two), "m")
    whole = format._format(source)
    monkeypatch.setattr(format, "CHUNK", 1)
    monkeypatch.setattr(format.os, "cpu_count", lambda: 1)
    assert format.black_format(source) == whole


@given(st.text(st.sampled_from("ab \n\"'\\é"), max_size=400))
def test_long_text_is_cut_into_pieces_that_join_to_it(text: str) -> None:
    from codegen.render.literals import PIECE, _pieces

    pieces = _pieces(text)
    assert "".join(pieces) == text
    for piece in pieces:
        # A piece is longer than PIECE only when it is one word (with its newlines).
        assert (
            len(repr(piece)) <= PIECE
            or len(piece.strip("\n").split(" ")) == 1
            or (piece.endswith(" ") and len(piece.rstrip(" ").split(" ")) == 1)
        )
    assert ast.literal_eval(py(text)) == text


@pytest.mark.parametrize("module", ["spell_machine", "session_machine"])
def test_generated_lines_fit_in_120_characters_but_for_one_long_word(module: str) -> None:
    text = (ROOT / "generated" / f"{module}.py").read_text(encoding="utf-8")
    long = [ln for ln in text.splitlines() if len(ln) > 120 and " " in ln.strip()]
    assert not long


def test_a_clause_whose_space_passes_the_width_leaves_no_empty_piece() -> None:
    from codegen.render.literals import PIECE, _pieces

    # "a...a b," is exactly PIECE long as a literal; its clause's space makes it one more.
    text = "a" * (PIECE - 5) + " b, c."
    pieces = _pieces(text)
    assert "".join(pieces) == text
    assert "" not in pieces
    assert all(len(repr(piece)) <= PIECE for piece in pieces)


@pytest.mark.parametrize("length", [99, 100, 140])
def test_a_spec_at_a_long_path_generates_a_module_that_compiles(
    tmp_path: Path, length: int
) -> None:
    """The header comment names the spec's path on one line, however long the path, with
    spaces or not: a path cut in pieces there left code outside the comment."""
    from codegen import load_spec
    from codegen.render import finish, machine_source

    folder = tmp_path / "my specs"
    folder.mkdir()
    pad = length - len(repr(str(folder / "S.md")))
    if pad < 0:
        pytest.skip(f"the temporary folder's path is longer than {length} characters")
    path = folder / ("x" * pad + "S.md")
    assert len(repr(str(path))) == length
    path.write_text((ROOT / "spec" / "SESSION_STATE_MACHINE.md").read_text(encoding="utf-8"))
    made = finish(machine_source(load_spec(path), "m"))
    compile(made, "m.py", "exec")
    assert made.splitlines()[0].endswith(f"from {str(path)!r}.")
