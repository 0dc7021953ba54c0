"""Specs written to exhaust the analysis: the resource attacks of `bench/attacks.py`
at full size and `tests/compiler/test_budgets.py` at a smaller one."""

from __future__ import annotations

from itertools import combinations


def spec_of(title: str, states: list[str], rows: list[str], terms: list[str] = ()) -> str:
    lines = [f"# {title}", "", "## States", ""]
    lines += [f"- **{s}**: the {s} state" for s in states]
    lines += ["", "## Spells", "", "- **Go**: move on", ""]
    if terms:
        lines += ["## Terms", "", "| Phrase | Means |", "|---|---|", *terms, ""]
    lines += [
        "## Spell Transitions",
        "",
        "| Rule | From | Spell | Condition | Action | Next State |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
    ]
    return "\n".join(lines)


def alternatives(copies: int) -> str:
    """`copies` rows of one condition: a term of 64 alternatives over 16 facts."""
    facts = [f"`f{i}.md` exists" for i in range(16)]
    pairs = list(combinations(range(16), 2))[:64]
    term = " OR ".join(f"({facts[a]} AND {facts[b]})" for a, b in pairs)
    rows = [f"| R{i} | A | Go | the work is ready | - | B |" for i in range(1, copies + 1)]
    rows += [
        "| N1 | A | Go | - | - | Same state |",
        "| N2 | B | Go | - | - | Same state |",
    ]
    return spec_of("Alternatives", ["A", "B"], rows, [f"| the work is ready | {term} |"])


def alike_rows(count: int, side: int = 8) -> str:
    """One cell of `count` rows over side² conditions of two facts each (2 x side facts):
    every row past the first side² is dead, and rows overlap in pairs by the million."""
    rows = [
        f"| R{i} | A | Go | `f{i % side}.md` exists AND NOT `g{i // side % side}.md` exists "
        "| - | B |"
        for i in range(count)
    ]
    rows += ["| K | A | Go | - | - | Same state |", "| D | B | Go | - | - | Same state |"]
    return spec_of("Alike", ["A", "B"], rows)


def wide(facts: int, changed: bool = False) -> str:
    """One cell whose rules use `facts` files: R1 when every f exists, R2 when some g is
    missing (`changed`: when some g exists), K otherwise, and R3, a dead copy of R1."""
    ored = min(facts // 2, 50)  # a condition has at most 64 alternatives
    first = " AND ".join(f"`f{i}.md` exists" for i in range(facts - ored))
    second = " OR ".join(f"`g{i}.md` {'exists' if changed else 'missing'}" for i in range(ored))
    rows = [
        f"| R1 | A | Go | {first} | - | B |",
        f"| R2 | A | Go | {second} | - | B |",
        f"| R3 | A | Go | {first} | - | Same state |",
        "| K | A | Go | - | - | Same state |",
        "| D | B | Go | - | - | Same state |",
    ]
    return spec_of("Wide", ["A", "B"], rows)


def repeated_term(count: int) -> str:
    """One row whose condition is `count` copies of a term of 64 alternatives over 6
    files, joined by AND: each copy multiplies 64 by 64 alternatives, simplified back to
    64, all while the row is read (no loop of the analysis to check the budget in)."""
    alternatives = (
        "("
        + " AND ".join(f"`b{k}.md` {'exists' if i >> k & 1 else 'missing'}" for k in range(6))
        + ")"
        for i in range(64)
    )
    condition = "`z.md` exists AND " + " AND ".join(["t"] * count)
    rows = [
        f"| R1 | A | Go | {condition} | - | B |",
        "| K | A | Go | - | - | Same state |",
        "| D | B | Go | - | - | Same state |",
    ]
    return spec_of("Repeated", ["A", "B"], rows, [f"| t | {' OR '.join(alternatives)} |"])


def pairs(cells: int, changed: bool) -> str:
    """`cells` states whose Go moves on when one of 8 pairs of facts holds (`changed`),
    or always (not `changed`)."""
    states = [f"S{i}" for i in range(cells)] + ["DONE"]
    rows = []
    for i in range(cells):
        if changed:
            held = " OR ".join(f"(`a{i}_{k}.md` exists AND `b{i}_{k}.md` exists)" for k in range(8))
            rows += [
                f"| R{i} | S{i} | Go | {held} | - | DONE |",
                f"| K{i} | S{i} | Go | - | - | Same state |",
            ]
        else:
            rows.append(f"| R{i} | S{i} | Go | - | - | DONE |")
    rows.append("| D1 | DONE | Go | - | - | Same state |")
    return spec_of("Pairs", states, rows)


def title(states: int, name: str) -> str:
    """`states` states in a ring, each moving on when one of 8 pairs of facts of its
    own holds: a cell of 16 facts per state, none like another."""
    names = [f"S{i}" for i in range(states)]
    rows = []
    for i, s in enumerate(names):
        nxt = names[(i + 1) % states]
        held = " OR ".join(f"(`a{i}_{k}.md` exists AND `b{i}_{k}.md` exists)" for k in range(8))
        rows += [
            f"| R{i} | {s} | Go | {held} | - | {nxt} |",
            f"| K{i} | {s} | Go | - | - | Same state |",
        ]
    return spec_of(name, names, rows)
