"""Every rule that can win fires through the runtime, with real files, and the history says so."""

from __future__ import annotations

from pathlib import Path

from codegen import load_spec
from codegen.model import RuleSpec
from spellbook import Workflow
from tests.support.workspaces import history, set_state
from tests.support.worlds import World, lay_out, winning_world

ROOT = Path(__file__).resolve().parents[2]
SPEC = load_spec(ROOT / "spec" / "STATE_MACHINE.md")


def fire(tmp: Path, rule: RuleSpec, world: World) -> tuple[str | None, str]:
    root = tmp / f"{rule.id}-{rule.source}"
    lay_out(root, world)
    set_state(root, rule.source)
    result = Workflow(root).cast(rule.spell)
    (entry,) = history(root)
    recorded = str(entry["transition"]).split(" → ")[0]
    assert recorded == rule.source
    return entry["rule"], result.after  # type: ignore[return-value]


def test_runtime_fires_every_rule_that_can_win(tmp_path: Path) -> None:
    winnable = [(r, w) for r in SPEC.rules if (w := winning_world(SPEC, r)) is not None]
    wrong = []
    for rule, world in winnable:
        fired, after = fire(tmp_path, rule, world)
        if (fired, after) != (rule.id, rule.dest):
            wrong.append(f"{rule.id}@{rule.source}: fired {fired} -> {after}")
    share = (len(winnable) - len(wrong)) / len(winnable)
    print(
        f"\nruntime fired {len(winnable) - len(wrong)} of {len(winnable)} rules that can win "
        f"({len(SPEC.rules)} expanded rules): {share:.0%}"
    )
    assert not wrong, wrong
    assert share == 1.0


def test_every_probe_of_the_core_is_implemented_and_every_guard_names_one() -> None:
    from spellbook.facts.answers import CHECKS
    from spellbook.facts.probes import PROBES
    from spellbook.machines import session_machine, spell_machine

    assert set(CHECKS) == set(PROBES)
    for machine in (spell_machine, session_machine):
        assert {guard.probe for guard in machine.GUARDS} <= set(CHECKS)
