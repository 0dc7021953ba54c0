"""Checks of the States list's Indicators: what `spell repair` can read off the files."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import State
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
    alike: dict[frozenset[object], list[State]] = {}  # one finding per group, not per pair
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


def _said(state: State) -> str:
    return f"{state.name}: {state.indicators.strip().rstrip('.')}"
