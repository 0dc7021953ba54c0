"""The probes: each kind of fact a guard can ask about the workspace, implemented once.

They are the runtime half of the glossary (`codegen/glossary.py`, which lists
the phrases for each probe):

- `exists(file)`: the file is in the workspace folder (a symbolic link counts,
  though the runtime will not follow it).
- `has_ac(file)`: the file's `Acceptance Criteria` section (a heading with those
  words, up to the next heading of the same or a higher level) has at least one
  checklist item, `- [ ]` or `- [x]` (`*`, `+` and `1.` bullets too).
- `has_unchecked_ac(file)`: that section has at least one `- [ ]` item.
- `has_atlassian_urls(file)`: the file links to Jira or Confluence: a URL on an
  `atlassian.net` host, or a `/browse/KEY-123` or `/wiki/` link.

Files are read once per cast, at most 1 MB, with bad bytes replaced.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from spellbook.errors import UnsafePath
from spellbook.store import Workspace

READ_LIMIT = 1_000_000

# Patterns as strings: `re` compiles each on first use (and caches it), so casts that
# never read a plan do not pay for compiling them.
_HEADING = r"^(#{1,6})\s+(.*?)\s*#*\s*$"
_FENCE = r"^\s{0,3}(```|~~~)"
_CHECKBOX = r"^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]"
_ATLASSIAN = (
    r"https?://[^\s)>\]]*(?:atlassian\.net[^\s)>\]]*|/browse/[A-Z][A-Z0-9]+-\d+|/wiki/[^\s)>\]]*)"
)


def checklist(text: str) -> list[bool]:
    """The items of the Acceptance Criteria section: True for checked, False for unchecked."""
    items: list[bool] = []
    level = 0
    fenced = False
    for line in text.splitlines():
        if re.match(_FENCE, line):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = re.match(_HEADING, line)
        if heading:
            depth = len(heading.group(1))
            if level and depth <= level:
                level = 0
            if not level and "acceptance criteria" in heading.group(2).lower():
                level = depth
            continue
        if level:
            box = re.match(_CHECKBOX, line)
            if box:
                items.append(box.group(1) != " ")
    return items


class Facts:
    """Answers the guards for one cast; each file is read at most once."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._text: dict[str, str] = {}
        self._exists: dict[str, bool] = {}

    def exists(self, name: str) -> bool:
        found = self._exists.get(name)
        if found is None:
            found = self._exists[name] = self.workspace.exists(name)
        return found

    def text(self, name: str) -> str:
        if name not in self._text:
            try:
                found = self.workspace.read_text(name, READ_LIMIT)
            except UnsafePath:
                found = None  # a link or an oversized file says nothing about the workflow
            self._text[name] = found or ""
        return self._text[name]

    def check(self, probe: str, arg: str) -> bool:
        return PROBES[probe](self, arg)


def _exists(facts: Facts, name: str) -> bool:
    return facts.exists(name)


def _has_ac(facts: Facts, name: str) -> bool:
    return bool(checklist(facts.text(name)))


def _has_unchecked_ac(facts: Facts, name: str) -> bool:
    return not all(checklist(facts.text(name)))


def _has_atlassian_urls(facts: Facts, name: str) -> bool:
    return bool(re.search(_ATLASSIAN, facts.text(name)))


PROBES: dict[str, Callable[[Facts, str], bool]] = {
    "exists": _exists,
    "has_ac": _has_ac,
    "has_unchecked_ac": _has_unchecked_ac,
    "has_atlassian_urls": _has_atlassian_urls,
}
