"""Responses at run time: the generated text with its placeholders filled.

What each spell would do now comes from dry-running its trigger on the machine
(after `may_<trigger>` says whether any rule applies), so the list is always the
spec's own answer for the current files.
"""

from __future__ import annotations

import re

from spellbook.tables import Rule, placeholder


def fill(text: str, values: dict[str, str]) -> str:
    """Replace each `{{name}}` / `{{name:arg}}` whose key is in `values`; leave others.

    One pass over the text, no regular expression: a cast fills one response, and
    compiling a pattern would cost more than the filling.
    """
    if "{{" not in text:
        return text
    first, *rest = text.split("{{")
    out = [first]
    for part in rest:
        braces = len(part) - len(part.lstrip("{"))  # `{{{x}}`: a brace, then `{{x}}`
        key, closed, after = part[braces:].partition("}}")
        if closed and key in values:
            out += ("{" * braces, values[key], after)
        else:
            out += ("{{", part)
    return "".join(out)


class CannotTell(str):
    """What a spell would do, where a rule's condition is one the spec does not define:
    said, but never offered as a next step (casting it is refused)."""


def does(rule: Rule | str | None) -> str:
    """What casting a spell does now, given the rule that would win (or a note)."""
    if rule is None:
        return "nothing: no rule of the spec applies now"
    if isinstance(rule, str):
        return rule
    return rule.summary or rule.kind


def spell_values(previews: dict[str, Rule | str | None], word: str = "spell") -> dict[str, str]:
    """The placeholders about spells (or what the spec calls them, `word`): each one's
    effect, the full list, and next steps."""
    values = {f"does:{spell}": does(rule) for spell, rule in previews.items()}
    values["available_spells"] = "\n".join(
        f"- **{spell}**: {does(rule)}" for spell, rule in previews.items()
    )
    moving = [
        (s, r)
        for s, r in previews.items()
        if (isinstance(r, str) and not isinstance(r, CannotTell))
        or (isinstance(r, Rule) and r.changes_state)
    ]
    values["next_steps"] = (
        "\n".join(f"- Cast **{spell}**: {does(rule)}" for spell, rule in moving)
        if moving
        else f"No {word} moves on from here right now; see the {word}s above."
    )
    return values


def fenced(text: str | None) -> str:
    """A file's text as a fenced block that its own backticks cannot close."""
    if text is None:
        return "_(the file is not there)_"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}markdown\n{text.rstrip()}\n{fence}"


def unhandled(
    spell: str, state: str, description: str, facts: list[str], spec: str, word: str = "spell"
) -> str:
    """The response when no rule covers the cell for the files as they are."""
    when = ", ".join(facts) if facts else "the files are as they are"
    return (
        "## Response to the AI\n\n"
        f"No rule in {spec} covers {spell} in {state} when {when}. Nothing was changed. "
        f"Tell the developer, and suggest one of the {word}s below.\n\n"
        "## Response to the Developer\n\n"
        "### What Just Happened\n"
        f"You cast **{spell}**, but the spec has no rule for it in **{state}** when {when}. "
        "Nothing changed.\n\n"
        "### Where We Are\n"
        f"**{state}**: {description}\n\n"
        f"### Available {word.title()}s\n"
        f"{placeholder('available_spells')}\n\n"
        "### Next Steps\n"
        f"{placeholder('next_steps')}\n"
    )


def with_notes(text: str, notes: list[str]) -> str:
    if not notes:
        return text
    return text.rstrip("\n") + "\n\n### Notes\n" + "".join(f"- {n}\n" for n in notes)
