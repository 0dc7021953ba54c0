"""Rendering: the model as a generated Python module and a mermaid diagram.

`machine_records` turns the model into the runtime's own records (`spellbook.schema`);
`literals` prints them as Python; `module` fills the template (jinja2) with them;
`format` runs black; `freshness` writes and checks the fingerprint that tells a
generated module is what its spec makes now, and finds compiled code Python would run
in its place; `documents` refreshes the parts of markdown documents that show a
machine; `response_formats` splits the spec's Response Format Templates into parts.
"""

from __future__ import annotations

from .freshness import finish, fresh, relaid, stray_bytecode
from .module import machine_source, render_diagram, render_machine

__all__ = [
    "finish",
    "fresh",
    "machine_source",
    "relaid",
    "render_diagram",
    "render_machine",
    "stray_bytecode",
]
