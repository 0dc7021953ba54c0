"""Responses: every rule's response, rendered at generation time from the spec's templates.

The template is chosen by what the rule does: `blocked` for `[BLOCKED]` rules;
`noop` for rules that keep the state and whose Response is a reason
(`Explain: "..."`); `confirmation` for rules into a state whose Valid Actions
are a confirm/cancel choice; `standard` for the rest. A spec without one of the
templates gets the built-in one of the same shape below.

The template's sections are filled by their headings:

| section                     | filled with                                           |
|-----------------------------|-------------------------------------------------------|
| Response to the AI          | the rule's Response text, its AI steps, file context  |
| What Just Happened          | the reason (blocked, no-op) or what the actions did   |
| Where We Are                | the state after the rule, with its description        |
| Available ... (Spells, ...) | what each listed spell would do now (placeholders)    |
| Next Steps                  | the spells that would move the workflow now           |

`<Spell>` becomes the spell cast; the other `<...>` slots of a section become
its text; a section without slots is kept as written. What only the runtime
knows stays a placeholder (`spellbook.tables.placeholder`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spellbook.tables import placeholder

from .markdown import Heading, read_blocks
from .model import Action, Kind, Rule, Spec

DEFAULT_TEMPLATE = """## Response to the AI

<Instructions for the AI>

## Response to the Developer

### What Just Happened
<What happened>

### Where We Are
<Where the workflow is now>

### Available Spells
- **Spell1**: <What it would do now>

### Next Steps
<What to do next>
"""

ROLES = {
    "response to the ai": "ai",
    "what just happened": "happened",
    "where we are": "where",
    "next steps": "next",
}

_SLOT = re.compile(r"<[^<>\n]+>")
_SPELL_SLOT = re.compile(r"<spell>", re.IGNORECASE)
_SPELL_ENTRY = re.compile(r"(?P<lead>\s*[-*+]\s+\*\*(?P<name>[^*]+)\*\*\s*:\s*)<[^<>\n]*>\s*")
_EXPLAIN = re.compile(r"\s*explain:\s*[\"“](?P<reason>.+)[\"”]\s*", re.IGNORECASE | re.DOTALL)
_TELL_USER = re.compile(r"\s*tell (?:the )?user (?:that )?they\b", re.IGNORECASE)


def template_kind(spec: Spec, rule: Rule) -> str:
    if rule.kind is Kind.BLOCKED:
        return "blocked"
    if rule.kind is Kind.NOOP and reason(rule.response) is not None:
        return "noop"
    if rule.changes_state and is_confirmation(spec, rule.dest):
        return "confirmation"
    return "standard"


def is_confirmation(spec: Spec, state: str) -> bool:
    """A state whose Valid Actions offer a confirm and a cancel spell."""
    notes = " ".join(a.note.lower() for a in spec.state(state).valid_actions)
    return "confirm" in notes and "cancel" in notes


def reason(text: str) -> str | None:
    """The developer-facing reason in a Response: `Explain: "..."`, or `Tell user they ...`."""
    m = _EXPLAIN.fullmatch(text)
    if m:
        return m.group("reason").strip()
    if _TELL_USER.match(text):
        return "you" + text[_TELL_USER.match(text).end() :]  # type: ignore[union-attr]
    return None


def render_response(spec: Spec, rule: Rule) -> str:
    kind = template_kind(spec, rule)
    template = next((t.text for t in spec.templates if t.kind == kind), DEFAULT_TEMPLATE)
    values = {
        "ai": _ai_text(spec, rule),
        "happened": _happened(spec, rule, kind),
        "where": _where(spec, rule.dest),
        "next": placeholder("next_steps"),
    }
    return fill(template, values, rule.spell, [s.name for s in spec.spells])


def fill(template: str, values: dict[str, str], spell: str, spells: Sequence[str]) -> str:
    """Fill a template's sections, found by their headings, with `values` by role."""
    lines = template.strip("\n").split("\n")
    headings = [b for b in read_blocks("\n".join(lines)) if isinstance(b, Heading)]
    if not headings:
        return "\n".join(lines) + "\n"
    ends = [h.line - 1 for h in headings[1:]] + [len(lines)]
    out = lines[: headings[0].line - 1]
    for heading, end in zip(headings, ends, strict=True):
        out.append(lines[heading.line - 1])
        body = "\n".join(lines[heading.line : end])
        name = " ".join(heading.text.lower().split())
        role = "spells" if name.startswith("available ") else ROLES.get(name, "")
        out.append(_fill_section(role, body, values, spell, spells))
    return "\n".join(out).rstrip("\n") + "\n"


def _fill_section(
    role: str, body: str, values: dict[str, str], spell: str, spells: Sequence[str]
) -> str:
    if role == "spells":
        return _spells_section(body, spells)
    body = _SPELL_SLOT.sub(lambda _: spell, body)
    value = values.get(role)
    if value is None or not _SLOT.search(body):
        return body
    if _SLOT.fullmatch(body.strip()):
        start = len(body) - len(body.lstrip())
        end = len(body.rstrip())
        return body[:start] + value + body[end:]
    return _SLOT.sub(lambda _: value, body)


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


def _path(spec: Spec, file: str) -> str:
    return f"`{spec.workspace}/{file}`" if spec.workspace else f"`{file}`"


def _files(spec: Spec, files: Sequence[str]) -> str:
    named = [_path(spec, f) for f in files]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def _did(spec: Spec, action: Action, would: bool = False) -> str | None:
    """What an action did (or, `would`, does), in the developer's words; None for
    actions with nothing to show."""
    verb = {
        "create": ("creates", "created"),
        "archive": ("archives", "archived"),
        "delete": ("deletes", "deleted"),
        "load": ("loads", "loaded"),
    }.get(action.verb)
    if verb is None:
        return None
    says = verb[0] if would else verb[1]
    if action.verb == "create":
        if action.target:
            return f"{says} {_path(spec, action.files[0])} from its template"
        return f"{says} an empty {_path(spec, action.files[0])}"
    if action.verb == "archive":
        folder = action.target if would else placeholder("archive_path")
        return f"{says} {_files(spec, action.files)} to `{folder}`"
    if action.verb == "delete":
        return f"{says} {_files(spec, action.files)}"
    return f"{says} {_path(spec, action.files[0])} for the AI"


def _happened(spec: Spec, rule: Rule, kind: str) -> str:
    if kind in ("blocked", "noop"):
        return _clause(reason(rule.response) or rule.response or "the spec says so", spec)
    if kind == "confirmation":
        return _clause(rule.response or f"{rule.spell} needs confirmation", spec)
    done = [d for d in (_did(spec, a) for a in rule.actions) if d]
    first = f"You cast **{rule.spell}**" + (": " + "; ".join(done) + "." if done else ".")
    if rule.changes_state:
        return f"{first} The workflow moved from **{rule.source}** to **{rule.dest}**."
    return f"{first} The workflow stays in **{rule.source}**."


def _clause(text: str, spec: Spec) -> str:
    """A sentence made fit to follow "because ...": no final period, lower-case start
    unless it starts with a name."""
    text = " ".join(text.split()).rstrip(".")
    first = text.split(" ", 1)[0].strip("\"'*`,")
    names = {s.name for s in spec.spells} | {s.name for s in spec.states}
    # Lower-case an ordinary capitalised word ("Cannot"), not a name ("INIT's").
    ordinary = len(first) > 1 and first[0].isupper() and first[1].islower()
    if ordinary and first not in names:
        text = text[0].lower() + text[1:]
    return text


def _where(spec: Spec, state: str) -> str:
    description = spec.state(state).description
    return f"**{state}**: {description}" if description else f"**{state}**"


def _ai_text(spec: Spec, rule: Rule) -> str:
    parts = [rule.response or f"{rule.spell} fired rule {rule.id}; tell the developer."]
    steps = [a.text for a in rule.actions if a.verb == "instruct"]
    if steps:
        parts.append(
            "Steps from the spec's Action column:\n"
            + "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))
        )
    for action in rule.actions:
        if action.verb == "archive":
            archived = _files(spec, action.files)
            parts.append(f"Archived {archived} to `{placeholder('archive_path')}`.")
        elif action.verb == "load":
            parts.append(
                f"Content of {_path(spec, action.files[0])}:\n\n"
                + placeholder("content", action.files[0])
            )
    return "\n\n".join(parts)


def summary(spec: Spec, rule: Rule) -> str:
    """What casting the spell does when this rule wins, in one line."""
    if rule.kind is Kind.BLOCKED:
        return "blocked: " + _clause(
            reason(rule.response) or rule.response or "not allowed here", spec
        )
    done = [d for d in (_did(spec, a, would=True) for a in rule.actions) if d]
    if rule.changes_state:
        return f"moves to **{rule.dest}**" + (": " + "; ".join(done) if done else "")
    if done:
        return "; ".join(done)
    why = reason(rule.response)
    return (
        "no effect: " + _clause(why, spec)
        if why
        else "no state change: " + _clause(rule.response or "nothing to do", spec)
    )
