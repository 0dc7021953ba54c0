"""What a file a condition reads is known to hold: the headings of its template, the keys
of a JSON template, and which queries select objects (a list of them, or one).

A query's own syntax says some of it: a filter (`tickets[status=open]`) selects the
objects it keeps. Where the vocabulary's nouns filter a key of a file, that key holds
objects there; where the file has a template (`Lexicon.template_of`: by name, or the
one a row creates it from, which `document` adds), its headings are the sections the
file has, and a JSON template's top-level keys and values
show the rest. A file with no template, or one that says nothing (no heading; not a
JSON object with keys), is not checked.
"""

from __future__ import annotations

import difflib
import json
import re

from spellbook.facts.json_values import comparison, is_json, select
from spellbook.facts.sections import headings, titled

from .lexicon import Lexicon

# A query's steps, as `spellbook.facts.json_values.select` reads them: a key, or a filter.
_STEP = re.compile(r"([^.\[\]]+)|\[[^\]]*\]")


def keys_of(query: str) -> str:
    """The query without its filters: `tickets[status=open].id` is `tickets.id`."""
    return ".".join(m.group(1).strip() for m in _STEP.finditer(query) if m.group(1))


def ends_in_a_filter(query: str) -> bool:
    """Whether the query's last step is a filter, which selects objects."""
    return query.rstrip().endswith("]")


def _filtered(query: str) -> set[str]:
    """The keys (as `keys_of` writes them) that a query filters: each holds objects."""
    found: set[str] = set()
    keys: list[str] = []
    for m in _STEP.finditer(query):
        if m.group(1):
            keys.append(m.group(1).strip())
        elif keys:
            found.add(".".join(keys))
    return found


class Shapes:
    """What the lexicon's vocabulary and templates tell of a spec's files."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon

    def template(self, file: str) -> tuple[str, str]:
        return self.lexicon.template_of(file)

    def headings(self, file: str) -> tuple[str, list[str]]:
        """(template, headings) of a Markdown file's template; no headings when it has no
        template or its template has none (a template that gives the file no sections)."""
        if is_json(file):
            return "", []
        where, text = self.template(file)
        return where, headings(text) if where else []

    def missing_section(self, file: str, section: str) -> str:
        """Why the file cannot have the section, or "": its template has headings and none
        of them has the section's words (as `spellbook.facts.sections` finds a section)."""
        where, titles = self.headings(file)
        if not titles or any(titled(title, section) for title in titles):
            return ""
        shown = ", ".join(f'"{t}"' for t in titles)
        close = difflib.get_close_matches(section.lower(), [t.lower() for t in titles], 1, 0.6)
        hint = next(
            (f'; did you mean "{t}"?' for t in titles if close and t.lower() == close[0]), ""
        )
        return (
            f'{file}\'s template ({where}) has no heading with "{section}" in it, so the '
            f"section is never there: its headings are {shown}{hint}"
        )

    def json_template(self, file: str) -> tuple[str, dict[str, object]]:
        """(template, its object) of a JSON file whose template is an object with keys."""
        if not is_json(file):
            return "", {}
        where, text = self.template(file)
        try:
            value = json.loads(text) if where else None
        except (ValueError, RecursionError):
            value = None
        return (where, value) if isinstance(value, dict) and value else ("", {})

    def missing_key(self, file: str, query: str) -> str:
        """Why the query's first key is not the file's, or "": the file's JSON template
        has keys, and not that one."""
        where, value = self.json_template(file)
        first = keys_of(query).split(".")[0]
        if not value or first in value:
            return ""
        keys = list(value)
        close = difflib.get_close_matches(first, keys, 1, 0.6)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        shown = ", ".join(f"`{k}`" for k in keys)
        return f"{file}'s template ({where}) has no key `{first}`: its keys are {shown}{hint}"

    def objects(self, file: str, query: str) -> bool:
        """Whether the query can select only objects (or lists of them): it ends in a
        filter, the vocabulary's queries of the file filter its keys, or the file's JSON
        template holds objects there."""
        if ends_in_a_filter(query):
            return True
        keys = keys_of(query)
        for _, noun in self.lexicon.nouns:
            if noun.probe in ("field", "value", "count_at_least") and noun.file in ("", file):
                param = noun.param
                if noun.probe == "value":
                    param = comparison(param)[0]
                elif noun.probe == "count_at_least":
                    param = param.partition(" ")[2]
                if keys in _filtered(param):
                    return True
        _, value = self.json_template(file)
        found = select(value, keys, {}) if value else []
        return bool(found) and all(_only_objects(v) for v in found)

    def has_key(self, file: str, query: str) -> bool:
        """Whether the file's JSON template has a value at the query's keys."""
        _, value = self.json_template(file)
        return bool(value) and bool(select(value, keys_of(query), {}))


def _only_objects(value: object) -> bool:
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
