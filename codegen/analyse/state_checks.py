"""Checks of the States list's Indicators: what `spell repair` can read off the files."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import StateSpec
from ..read.lexicon import EMPTY
from .analysis import Analysis
from .findings import Finding


def check_indicators(analysis: Analysis) -> Iterator[Finding]:
    """Indicators repair cannot use (`indicators_unread`), and two states whose
    Indicators say the same, so repair tells them apart only by the order they are
    listed in (`indicators_alike`)."""
    states = analysis.spec.states
    # Indicators that speak of the state file say on purpose that the files cannot tell.
    state_file = analysis.spec.state_file.rsplit("/", 1)[-1]
    for state in states:
        said = state.indicators.strip()
        if not state.inferable and said.lower() not in EMPTY and state_file not in said:
            yield Finding(
                "indicators_unread",
                f"state {state.name}: its Indicators ({said!r}) are not all facts about files "
                "that the core reads (an OR, or words no term defines), so `spell repair` "
                "never chooses "
                f"{state.name} from the files; write them as facts joined by AND or commas, "
                "or `-` to say the files cannot tell",
                line=state.line,
                state=state.name,
            )
    readable = [s for s in states if s.inferable and s.evidence]
    alike: dict[frozenset[object], list[StateSpec]] = {}  # one finding per group, not per pair
    for state in readable:
        alike.setdefault(frozenset(state.evidence), []).append(state)
    for group in alike.values():
        if len(group) < 2:
            continue
        first, last = group[0], group[-1]
        initial = states[0].name
        unless = (
            f" (or {initial}, the initial state, when the state file is simply gone)"
            if initial == first.name
            else ""
        )
        if len(group) == 2:
            named, said, listed = (
                f"{first.name} and {last.name}",
                f"{_said(first)}; {_said(last)}",
                "later",
            )
        else:
            shown = [s.name for s in group[:10]]
            more = f" and {len(group) - 10} more" if len(group) > 10 else ""
            named = ", ".join(shown[:-1]) + (
                f", {shown[-1]}{more}" if more else f" and {shown[-1]}"
            )
            said, listed = f"{_said(first)}, and likewise the others", "last"
        yield Finding(
            "indicators_alike",
            f"states {named}: their Indicators say the same ({said}), so the files never "
            f"tell them apart: `spell repair` of a lost or unreadable state file chooses "
            f"{last.name}, listed {listed}{unless}; give one an Indicator that tells them "
            "apart, or `-` if the files cannot",
            line=last.line,
            states=tuple(s.name for s in group),
        )


def _said(state: StateSpec) -> str:
    return f"{state.name}: {state.indicators.strip().rstrip('.')}"


# Names this long may differ by two edits and still be one name misspelt; shorter, by one.
_LONG = 10


def check_similar_names(analysis: Analysis) -> Iterator[Finding]:
    """similar_names: where the states are read from the tables (no States list says
    which there are), two of them whose names differ by a letter or two (`awaiting-payment`
    and `awaiting-paymnet`), one named by a single row: most likely one state misspelt,
    which the tables would otherwise make two."""
    spec = analysis.spec
    if not any(
        n.kind == "names_from_tables" and "states are read" in n.message for n in spec.notices
    ):
        return
    uses: dict[str, list[int]] = {}
    for row in spec.rows:
        named = list(row.current.names) if not row.current.wildcard else []
        if row.target.name is not None:
            named.append(row.target.name)
        for name in named:
            uses.setdefault(name, []).append(row.line)
    states = [s for s in spec.states if s.name in uses][:300]  # pairs grow as the square
    for at, first in enumerate(states):
        for second in states[at + 1 :]:
            a, b = first.name.lower(), second.name.lower()
            most = 2 if min(len(a), len(b)) >= _LONG else 1
            if min(len(a), len(b)) < 4 or _distance(a, b, most) > most:
                continue
            once = [s for s in (first, second) if len(uses[s.name]) == 1]
            if not once:
                continue
            odd = once[-1]
            other = first if odd is second else second
            yield Finding(
                "similar_names",
                f"states {other.title or other.name!r} and {odd.title or odd.name!r} "
                f"(line {uses[odd.name][0]}, its only row) differ by a letter or two: if "
                "they are one state, write it alike; the tables make them two",
                line=uses[odd.name][0],
                state=odd.name,
            )


def _distance(a: str, b: str, most: int) -> int:
    """Edits (a letter put in, taken out, changed, or two swapped) from `a` to `b`; any
    number over `most` is `most + 1`."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > most:
            return most + 1
        previous2, previous = previous, current
    return min(previous[-1], most + 1)
