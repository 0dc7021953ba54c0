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
    for at, first in enumerate(readable):
        for later in readable[at + 1 :]:
            if set(first.evidence) == set(later.evidence):
                initial = states[0].name
                unless = (
                    f" (or {initial}, the initial state, when the state file is simply gone)"
                    if initial == first.name
                    else ""
                )
                yield Finding(
                    "indicators_alike",
                    f"states {first.name} and {later.name}: their Indicators say the same "
                    f"({_said(first)}; {_said(later)}), so the files never tell them apart: "
                    f"`spell repair` of a lost or unreadable state file chooses {later.name}, "
                    f"listed later{unless}; give one an Indicator that tells them apart, or "
                    "`-` if the files cannot",
                    line=later.line,
                    states=(first.name, later.name),
                )


def _said(state: State) -> str:
    return f"{state.name}: {state.indicators.strip().rstrip('.')}"
