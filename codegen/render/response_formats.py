"""Response formats: the spec's Response Format Templates split into parts.

A generated machine carries each Response Format Template it uses as parts:
literal text and, between, the name of a slot the runtime fills at cast time
(`spellbook.cast.responses`, which also says how a rule's template is chosen). The
template's sections are found by their headings (here, with the markdown reader,
so the runtime needs no markdown parser):

| section                     | its `<...>` slots become                               |
|-----------------------------|--------------------------------------------------------|
| Response to the AI          | slot `ai`: the rule's Response text, AI steps, files   |
| What Just Happened          | slot `happened`: the reason, or what the actions did   |
| Where We Are                | slot `where`: the state after the rule                 |
| Available ... (Spells, ...) | what each listed spell would do now (placeholders)     |
| Next Steps                  | the spells that would move the workflow now            |

`<Spell>` is slot `spell`, the spell cast; the other `<...>` of a section are its
slot; a section without slots is kept as written. A spec without one of the
templates gets the built-in one of the same shape below, its list headed with what
the spec calls its spells (`### Available Events`).

`machine_records.render_response` previews one rule's response, made by the runtime's own
writer from these parts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spellbook.cast.responses import SLOTS, placeholder
from spellbook.records.words import plural

from ..read.markdown import Heading, read_blocks

DEFAULT_TEMPLATE = """## Response to the AI

<Instructions for the AI>

## Response to the Developer

### What Just Happened
<What happened>

### Where We Are
<Where the workflow is now>

### Available {words}
- **Spell1**: <What it would do now>

### Next Steps
<What to do next>
"""


def default_template(word: str = "spell") -> str:
    """The built-in template, its list headed with what the spec calls its spells."""
    return DEFAULT_TEMPLATE.replace("{words}", plural(word).title())


ROLES = {
    "response to the ai": "ai",
    "what just happened": "happened",
    "where we are": "where",
    "next steps": "next",
}
# What a role's slots become: a slot the runtime fills, or a placeholder it fills later.
_FILLED = {"next": placeholder("next_steps")}

_SLOT = re.compile(r"<[^<>\n]+>")
_SPELL_ENTRY = re.compile(r"(?P<lead>\s*[-*+]\s+\*\*(?P<name>[^*]+)\*\*\s*:\s*)<[^<>\n]*>\s*")


def split(template: str, spells: Sequence[str]) -> tuple[str, ...]:
    """A template as parts: literal text at even places, slot names at odd places."""
    lines = template.strip("\n").split("\n")
    headings = [b for b in read_blocks("\n".join(lines)) if isinstance(b, Heading)]
    if not headings:
        return ("\n".join(lines) + "\n",)
    ends = [h.line - 1 for h in headings[1:]] + [len(lines)]
    parts = _Parts()
    preamble = lines[: headings[0].line - 1]
    parts.text("".join(line + "\n" for line in preamble))
    for n, (heading, end) in enumerate(zip(headings, ends, strict=True)):
        parts.text(("\n" if n else "") + lines[heading.line - 1] + "\n")
        body = "\n".join(lines[heading.line : end])
        name = " ".join(heading.text.lower().split())
        if name.startswith("available "):
            parts.text(_spells_section(body, spells))
        else:
            _section(parts, ROLES.get(name, ""), body)
    return parts.done()


class _Parts:
    """Literal text and slot names, alternating; adjacent texts joined."""

    def __init__(self) -> None:
        self.parts: list[str] = [""]

    def text(self, text: str) -> None:
        self.parts[-1] += text

    def slot(self, name: str) -> None:
        assert name in SLOTS
        self.parts += [name, ""]

    def done(self) -> tuple[str, ...]:
        return tuple(self.parts)


def _section(parts: _Parts, role: str, body: str) -> None:
    """`<Spell>` is the spell; any other slot is the role's value, if it has one."""
    has_value = role in SLOTS or role in _FILLED
    at = 0
    for m in _SLOT.finditer(body):
        parts.text(body[at : m.start()])
        if m.group(0).lower() == "<spell>":
            parts.slot("spell")
        elif role in _FILLED:
            parts.text(_FILLED[role])
        elif has_value:
            parts.slot(role)
        else:
            parts.text(m.group(0))
        at = m.end()
    parts.text(body[at:])


def _spells_section(body: str, spells: Sequence[str]) -> str:
    """`- **Accio**: <...>` lines name what that spell does now; any other list is replaced
    by the list of all spells."""
    lines = body.split("\n")
    entries = [_SPELL_ENTRY.fullmatch(ln) for ln in lines if ln.strip()]
    if entries and all(m is not None and m.group("name") in spells for m in entries):
        out = []
        for ln in lines:
            m = _SPELL_ENTRY.fullmatch(ln)
            out.append(m.group("lead") + placeholder("does", m.group("name")) if m else ln)
        return "\n".join(out)
    start = len(body) - len(body.lstrip())
    return body[:start] + placeholder("available_spells") + body[len(body.rstrip()) :]
