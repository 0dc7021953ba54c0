"""State diagrams of a machine, drawn by `transitions`' diagrams extension.

Mermaid text for the committed `generated/<machine>.mmd` (from the initial state) and
for `spell diagram` and the MCP server (from the current state, highlighted); SVG or
PNG drawn by Graphviz for `spell diagram --format svg|png`, where the optional
`graphviz` package (the `diagrams` extra) and Graphviz's `dot` program are installed.
"""

from __future__ import annotations

from collections.abc import Iterable

from spellbook.records.errors import SpellbookError

# The formats `spell diagram --format` draws: mermaid text, or Graphviz's.
FORMATS = ("mermaid", "svg", "png")
NO_GRAPHVIZ = (
    "spell diagram --format {format} draws with Graphviz, which is not installed: "
    "{install} (the graphviz package), and Graphviz's dot program (apt-get install "
    "graphviz, brew install graphviz); or leave out --format for the mermaid text"
)


def no_graphviz(format: str) -> NoGraphviz:
    """What to install for a diagram in `format`, said for this installation."""
    from spellbook.records.errors import install_hint

    return NoGraphviz(NO_GRAPHVIZ.format(format=format, install=install_hint("diagrams")))


class NoGraphviz(SpellbookError):
    """An SVG or PNG diagram was asked for where Graphviz is not installed."""


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


def drawing(
    states: Iterable[str],
    moves: Iterable[tuple[str, str, str]],
    current: str,
    title: str,
    format: str,
) -> bytes:
    """The diagram `mermaid` draws, as Graphviz draws it in `format` (svg or png).
    NoGraphviz where the graphviz package or its dot program is missing."""
    try:
        import graphviz
    except ImportError:
        raise no_graphviz(format) from None
    from transitions.extensions.diagrams import GraphMachine

    class Diagram:
        """The model the diagram is drawn for."""

    model = Diagram()
    GraphMachine(
        model=model,
        states=list(states),
        transitions=[
            {"trigger": f"move{n}", "source": s, "dest": d, "label": label}
            for n, (s, d, label) in enumerate(moves)
        ],
        initial=current,
        auto_transitions=False,
        graph_engine="graphviz",
        title=title or "State machine",
    )
    try:
        drawn = model.get_graph().draw(None, format=format, prog="dot")  # type: ignore[attr-defined]
    except graphviz.ExecutableNotFound:
        raise no_graphviz(format) from None
    return bytes(drawn)
