"""Mermaid state diagrams of a machine, drawn by `transitions`' diagrams extension.

Used for the committed `generated/<machine>.mmd` (from the initial state) and by
`spell diagram` and the MCP server (from the current state, highlighted).
"""

from __future__ import annotations

from collections.abc import Iterable


def mermaid(
    states: Iterable[str], moves: Iterable[tuple[str, str, str]], current: str, title: str
) -> str:
    """The diagram: every state, one arrow per (source, dest, label) move."""
    title = title or "State machine"
    from transitions.extensions.diagrams import GraphMachine

    class Diagram:
        """The model the diagram is drawn for."""

    model = Diagram()
    GraphMachine(
        model=model,
        states=list(states),
        transitions=[{"trigger": label, "source": s, "dest": d} for s, d, label in moves],
        initial=current,
        auto_transitions=False,
        graph_engine="mermaid",
        title=title,
    )
    text = str(model.get_graph().draw(None))  # type: ignore[attr-defined]
    # transitions writes the title as bare front matter; mermaid reads a `title:` key.
    prefix = f"---\n{title}\n---\n"
    if text.startswith(prefix):
        text = f"---\ntitle: {title}\n---\n" + text[len(prefix) :]
    return "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines()) + "\n"
