"""Make a larger spec by cloning every state family of a spec N times.

    python bench/clone_spec.py N [SPEC] [--unknown] > cloned.md

Clone k of state `NAME` is `NAME_Ck` (`NAME_Ck_G`/`NAME_Ck_A` for a family
member), so families stay families. Rows that name states are copied once per
clone with the names renamed; wildcard rows (`Any state ...`) stay one row,
their except-lists naming every clone and a named destination becoming clone 0's.

With `--unknown` (`clone(..., unknown=True)`), the wildcard rows keep naming the
original states, which no longer exist: a spec with many unknown names, each
one a finding with a did-you-mean among many similar states.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codegen import load_spec
from codegen.model import Spec

HEADER = (
    "| ID | Current State | Trigger | Condition | Next State | Action | Old Response |\n"
    "|----|---------------|---------|-----------|------------|--------|--------------|\n"
)


def _renamer(spec: Spec, k: int) -> tuple[re.Pattern[str], dict[str, str]]:
    names: dict[str, str] = {}
    for fam in spec.families:
        if len(fam.members) > 1:
            names[fam.name] = f"{fam.base}_C{k}_[{'/'.join(fam.suffixes)}]"
            for member, suffix in zip(fam.members, fam.suffixes, strict=True):
                names[member] = f"{fam.base}_C{k}_{suffix}"
        else:
            names[fam.name] = f"{fam.name}_C{k}"
    ordered = sorted(names, key=len, reverse=True)
    pattern = re.compile("|".join(r"(?<![\w\[])" + re.escape(n) + r"(?![\w\[])" for n in ordered))
    return pattern, names


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def clone(spec: Spec, copies: int, unknown: bool = False) -> str:
    renamers = [_renamer(spec, k) for k in range(copies)]

    def rename(text: str, k: int) -> str:
        pattern, names = renamers[k]
        return pattern.sub(lambda m: names[m.group(0)], text)

    lines = [f"# {spec.title} x{copies}", "", "### Spells", ""]
    for i, sp in enumerate(spec.spells, 1):
        lines += [f"{i}. **{sp.name}**", f"   - *Description*: {sp.description}", ""]
    lines += ["### States", ""]
    n = 0
    for k in range(copies):
        for st in spec.states:
            n += 1
            actions = ", ".join(
                a.spell + (f" ({a.note})" if a.note else "") for a in st.valid_actions
            )
            lines += [
                f"{n}. **{rename(st.name, k)}**",
                f"    - *Description*: {st.description}",
                f"    - *Valid Actions*: {actions}",
                *(["    - *Goal*: yes"] if st.goal else []),
                "",
            ]
    lines += ["### State Persistence", "", f"State: `{spec.state_file}`.", ""]
    if spec.terms:
        lines += ["### Terms", "", "| Phrase | Means |", "|---|---|"]
        lines += [f"| {_cell(t.phrase)} | {_cell(t.means)} |" for t in spec.terms]
        lines.append("")
    lines += ["### Transition Rules", "", "#### Rules", "", HEADER.rstrip("\n")]
    for row in spec.rows:
        trigger = ", ".join(row.triggers)
        target = row.target.name or (
            "[BLOCKED]" if row.target.kind.value == "blocked" else "Same state"
        )
        if row.current.wildcard:
            if unknown:  # the original names, which are no states of the clone
                excluded = list(row.current.names)
            else:
                excluded = [rename(name, k) for k in range(copies) for name in row.current.names]
            current = "Any state" + (" except " + ", ".join(excluded) if excluded else "")
            # A named destination goes to clone 0's state; the row stays one wildcard row.
            cells = [
                row.id,
                current,
                trigger,
                row.condition.text,
                target if unknown else rename(target, 0),
                row.action if unknown else rename(row.action, 0),
                row.response,
            ]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
            continue
        for k in range(copies):
            cells = [
                f"{row.id}_{k}",
                rename(", ".join(row.current.names), k),
                trigger,
                row.condition.text,
                rename(target, k),
                rename(row.action, k),
                row.response,
            ]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--unknown"]
    copies = int(args[0])
    source = args[1] if len(args) > 1 else "spec/STATE_MACHINE.md"
    sys.stdout.write(clone(load_spec(source), copies, "--unknown" in sys.argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
