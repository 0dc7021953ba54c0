"""Small specs in the project's table dialect, written by tests, and edits of a spec's text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

HEADER = (
    "| ID | Current State | Trigger | Condition | Next State | Action | Response |\n"
    "|----|---------------|---------|-----------|------------|--------|----------|\n"
)


def spec_text(
    states: Sequence[str],
    spells: Sequence[str],
    rows: Sequence[str],
    *,
    heading: str = "Transitions",
    valid_actions: dict[str, str] | None = None,
) -> str:
    """A spec with the given states, spells and table rows (each `| ... |` row text)."""
    lines = ["## Machine", "", "### Spells", ""]
    for i, spell in enumerate(spells, 1):
        lines += [f"{i}. **{spell}**", f"   - *Description*: does {spell}", ""]
    lines += ["### States", ""]
    for i, state in enumerate(states, 1):
        actions = (valid_actions or {}).get(state, ", ".join(spells))
        lines += [
            f"{i}. **{state}**",
            f"    - *Description*: the {state} state",
            "    - *Indicators*: none",
            f"    - *Valid Actions*: {actions}",
            "",
        ]
    lines += ["### Transition Rules", "", f"#### {heading}", ""]
    text = "\n".join(lines) + "\n" + HEADER + "".join(r.rstrip("\n") + "\n" for r in rows)
    return text


def row(
    rid: str,
    current: str,
    trigger: str,
    condition: str = "-",
    nxt: str = "Same state",
    action: str = "No state change",
    response: str = "Say so",
) -> str:
    return f"| {rid} | {current} | {trigger} | {condition} | {nxt} | {action} | {response} |"


def fill(states: Sequence[str], spells: Sequence[str], skip: Sequence[str] = ()) -> list[str]:
    """Rows that cover every (state, spell) not in `skip`, one explicit row per cell."""
    rows = []
    for st in states:
        for sp in spells:
            if f"{st}/{sp}" not in skip:
                rows.append(row(f"Z{len(rows) + 1}", st, sp))
    return rows


def spec_with(condition: str, terms: str = "") -> str:
    """States A and B, the spell Go: row T1 (A to B) has `condition`, T2 keeps A, and a
    Terms table holds `terms` (`| phrase | meaning |` lines) if given."""
    states, spells = ["A", "B"], ["Go"]
    rows = [row("T1", "A", "Go", condition, "B", "Update state to B"), row("T2", "A", "Go")]
    text = spec_text(states, spells, rows + fill(states, spells, ["A/Go"]))
    if terms:
        text = text.replace(
            "### Transition Rules",
            "| Phrase | Means |\n|---|---|\n" + terms + "\n\n### Transition Rules",
        )
    return text


def renamed(text: str, old: str, new: str, migration: bool) -> str:
    """`text` with the state `old` called `new` everywhere, saying `*Formerly*` if asked."""
    text = re.sub(rf"\b{old}(?![A-Za-z0-9])", new, text)  # and OLD_G, OLD_[G/A]
    if migration:
        text = text.replace(f"**{new}**\n", f"**{new}**\n    - *Formerly*: {old}\n", 1)
    return text


# The kinds about names and coverage: what a test of notation or naming looks at.
NAME_KINDS = frozenset(
    {
        "missing_cell",
        "unknown_state",
        "unknown_spell",
        "unknown_condition",
        "ga_notation",
        "duplicate_id",
        "duplicate_state",
        "duplicate_spell",
    }
)


def findings_of(text: str, kinds: frozenset[str] | set[str] = NAME_KINDS) -> list:  # type: ignore[type-arg]
    """The verifier's findings on a spec text, only of the given kinds."""
    from codegen import parse_spec_text
    from codegen.analyse import analyse

    return [f for f in analyse(parse_spec_text(text)) if f.kind in kinds]


def one_machine_cases(root: Path) -> list[Path]:
    """The spec of each golden case under `root`/tests/data/cases but those of a file of
    several machines (whose findings are listed under each machine's section)."""
    found = []
    for spec in sorted((root / "tests" / "data" / "cases").glob("*/spec.md")):
        findings = spec.parent / "findings.txt"
        if not (findings.is_file() and findings.read_text(encoding="utf-8").startswith("## ")):
            found.append(spec)
    return found
