"""Specs written to exhaust the verifier end in a result or a clear error, never a hang:
the attack specs of `bench/attacks.py` are checked exactly (the dead rules and the
changed worlds named), and a run past its time budget stops with exit 2 naming the
spec and what it was doing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.attacks import alike_rows, alternatives, pairs, title
from codegen import parse_spec_text
from codegen.analyse import analyse
from codegen.cli import generate, verify
from tests.worlds import cell_atoms, holds, worlds


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.timeout(120)
def test_copies_of_a_row_of_64_alternatives_are_each_found_dead() -> None:
    found = analyse(parse_spec_text(alternatives(40), "spec/ALT.md"))
    dead = {f.rule: f.message for f in found if f.kind == "dead_rule"}
    assert set(dead) == {f"R{i}" for i in range(2, 41)}
    assert all("R1 comes first wherever it applies" in m for m in dead.values())
    assert not [f for f in found if f.kind in ("gap", "cell_too_complex")]


@pytest.mark.timeout(120)
def test_a_change_over_eight_pairs_of_facts_is_said_in_those_facts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _write(tmp_path, "new.md", pairs(2, True))
    old = _write(tmp_path, "old.md", pairs(2, False))
    assert verify.main(["--spec", str(new), "--against", str(old), "--format", "json"]) == 0
    out = capsys.readouterr().out
    # Where no pair holds, the cell now keeps its state: said as one world per missing
    # fact of each pair, over both cells' own files.
    assert '"spell": "Go"' in out and "a0_0.md missing" in out and "b1_7.md missing" in out


@pytest.mark.timeout(120)
def test_specs_differing_in_their_title_only_show_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _write(tmp_path, "new.md", title(60, "New"))
    old = _write(tmp_path, "old.md", title(60, "Old"))
    assert verify.main(["--spec", str(new), "--against", str(old)]) == 0
    assert capsys.readouterr().out.endswith(": no behaviour change\n")


@pytest.mark.parametrize("against", [False, True])
def test_past_its_budget_verify_stops_with_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], against: bool
) -> None:
    spec = _write(tmp_path, "alt.md", alternatives(4))
    args = ["--spec", str(spec), "--budget", "1e-9"]
    if against:
        args += ["--against", str(_write(tmp_path, "old.md", alternatives(3)))]
    assert verify.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {spec}: stopped after 1e-09 s, its time budget, while ")
    assert "--budget SECONDS" in err and "Traceback" not in err


def test_past_its_budget_codegen_stops_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "a"\n\n[tool.spellbook]\n')
    (tmp_path / "spec").mkdir()
    _write(tmp_path / "spec", "STATE_MACHINE.md", alternatives(4))
    monkeypatch.chdir(tmp_path)
    assert generate.main(["--budget", "1e-9", "--allow-errors"]) == 2
    err = capsys.readouterr().err
    assert "spec/STATE_MACHINE.md: stopped after" in err, err
    assert not (tmp_path / "generated").exists()


@pytest.mark.timeout(120)
def test_thousands_of_alike_rows_list_fifty_overlaps_and_count_the_rest() -> None:
    spec = parse_spec_text(alike_rows(3000), "spec/ALIKE.md")
    found = analyse(spec)
    dead = [f for f in found if f.kind == "dead_rule"]
    assert len(dead) == 3000 - 64  # all but the first row of each condition
    overlaps = [f for f in found if f.kind == "overlap"]
    assert len(overlaps) == 51
    assert [f.rule for f in overlaps].count(None) == 1  # the one that counts the rest


def test_the_overlaps_left_out_are_counted_exactly() -> None:
    # 300 rows over 4 conditions of 4 facts (and K, `-`): count the pairs by brute
    # force, world by world, as the first rule that fires and each other that does.
    spec = parse_spec_text(alike_rows(300, side=2), "spec/ALIKE.md")
    rules = spec.cell("A", "Go")
    atoms = cell_atoms(spec, "A", "Go")
    pairs = set()
    for world in worlds(atoms):
        firing = [i for i, rule in enumerate(rules) if holds(rule.condition, world)]
        pairs |= {(firing[0], j) for j in firing[1:]}
    (more,) = [f for f in analyse(spec) if f.kind == "overlap" and f.rule is None]
    assert f": {len(pairs) - 50} more pairs" in more.message, (len(pairs), more.message)
