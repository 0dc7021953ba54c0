"""State diagrams of a machine, drawn by `transitions`' diagrams extension.

Mermaid text for the committed `generated/<machine>.mmd` and for `spell diagram` and
the MCP server; SVG or PNG drawn by Graphviz for `spell diagram --format svg|png`,
where the optional `graphviz` package (the `diagrams` extra) and Graphviz's `dot`
program are installed. Each starts (`[*] -->`) at the machine's initial state and
highlights the current one (`transitions`' `active` style: mermaid's `s_active`
class, Graphviz's red outline), which is the initial state in the committed file.
"""

from __future__ import annotations

from collections.abc import Iterable

from spellbook.records.errors import SpellbookError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The start's node in a Graphviz drawing: no state's identifier can be it.
START = "[*]"
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


def _graph(machine: Any, model: Any, current: str | None) -> Any:
    """The graph of `model` put in its `current` state (if not the initial one): the
    graph made anew highlights it, and the machine still starts at its initial state."""
    if current is None or current == machine.initial:
        return model.get_graph()
    machine.set_state(current, model)
    return model.get_graph(force_new=True)


def mermaid(
    states: Iterable[str],
    moves: Iterable[tuple[str, str, str]],
    initial: str,
    title: str,
    current: str | None = None,
) -> str:
    """The diagram: every state, one arrow per (source, dest, label) move, starting at
    `initial`, with `current` (the initial state unless given) highlighted."""
    title = title or "State machine"
    from transitions.extensions.diagrams import GraphMachine

    class Diagram:
        """The model the diagram is drawn for."""

    model = Diagram()
    machine = GraphMachine(
        model=model,
        states=list(states),
        transitions=[{"trigger": label, "source": s, "dest": d} for s, d, label in moves],
        initial=initial,
        auto_transitions=False,
        graph_engine="mermaid",
        title=title,
    )
    text = str(_graph(machine, model, current).draw(None))
    # transitions writes the title as bare front matter; mermaid reads a `title:` key.
    prefix = f"---\n{title}\n---\n"
    if text.startswith(prefix):
        text = f"---\ntitle: {title}\n---\n" + text[len(prefix) :]
    return "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines()) + "\n"


def drawing(
    states: Iterable[str],
    moves: Iterable[tuple[str, str, str]],
    initial: str,
    title: str,
    format: str,
    current: str | None = None,
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
    machine = GraphMachine(
        model=model,
        states=list(states),
        transitions=[
            {"trigger": f"move{n}", "source": s, "dest": d, "label": label}
            for n, (s, d, label) in enumerate(moves)
        ],
        initial=initial,
        auto_transitions=False,
        graph_engine="graphviz",
        title=title or "State machine",
    )
    graph = _graph(machine, model, current)
    # transitions' Graphviz engine marks no start: the mermaid `[*] -->` drawn as a dot.
    graph.node(START, label="", shape="point", width="0.15", fillcolor="black")
    graph.edge(START, initial)
    try:
        drawn = graph.draw(None, format=format, prog="dot")
    except graphviz.ExecutableNotFound:
        raise no_graphviz(format) from None
    return bytes(drawn)
