"""Vocabularies of the tests' own (Python modules, the kind a team that needs code writes),
and the words of Spellbook's own vocabularies, as their files say them."""

from __future__ import annotations

from codegen.read.lexicon import Lexicon, ReadOptions
from spellbook.facts.patterns import VOCABULARY


def shipped_pattern(vocabulary: str, noun: str) -> str:
    """The pattern of a noun of a vocabulary that ships with Spellbook, as its file writes
    it (without the mark that says it is the vocabulary's:
    `spellbook.facts.patterns.VOCABULARY`)."""
    found = Lexicon.of(ReadOptions(vocabulary)).noun(noun)
    assert found is not None and found.probe == "matches", noun
    return found.param.removeprefix(VOCABULARY)


# The spell workflow's Jira or Confluence link.
ATLASSIAN_URL = shipped_pattern("spell_workflow", "Atlassian URLs")
