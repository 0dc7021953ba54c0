"""Which code blocks of a spec are diagrams to read, and in which language: a
```` ```mermaid ```` block is Mermaid; a ```` ```plantuml ```` (or `puml`, `uml`) block,
or any code block whose first line is `@startuml`, is PlantUML. Kept apart from their
reader (`read.mermaid`), which is imported only for a spec that has such a block."""

from __future__ import annotations

import re

from .markdown import Block, Code

MERMAID = "Mermaid"
PLANTUML = "PlantUML"

_PLANTUML_INFO = frozenset({"plantuml", "puml", "uml"})
_STARTUML = re.compile(r"@startuml\b", re.IGNORECASE)


def diagram_language(block: Block) -> str | None:
    """The language of the diagram a block may draw (`MERMAID`, `PLANTUML`), or None
    for a block that is no code block or whose code is some other."""
    if not isinstance(block, Code):
        return None
    info = block.info.strip().lower().split()[:1]
    if info == ["mermaid"]:
        return MERMAID
    if info and info[0] in _PLANTUML_INFO:
        return PLANTUML
    first = next((line.strip() for line in block.text.split("\n") if line.strip()), "")
    return PLANTUML if _STARTUML.match(first) else None
