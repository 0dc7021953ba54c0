"""The words a spec may use beyond the core's: its vocabulary's and its own Terms.

A `Dialect` says how one machine's spec is read: which vocabulary module
(`spellbook.vocabularies.<name>`, see `spellbook.vocabulary`) and which extra
column names (`[tool.spellbook]` in pyproject.toml). A `Lexicon` is that
vocabulary loaded for the compiler (its patterns compiled), plus the terms the
spec defines in its own Terms table, which come first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import ModuleType

from spellbook.vocabulary import Noun, Verb, load

from .errors import SpecError


@dataclass(frozen=True)
class Dialect:
    """How a machine's spec is read: its vocabulary module ("" for the core alone) and,
    by column role, extra header names to look for, preferred to the built-in ones."""

    vocabulary: str = ""
    columns: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Term:
    """A phrase a spec or a vocabulary defines by other phrases; `line` 0 for a vocabulary's."""

    phrase: str
    means: str
    line: int = 0


def normal(text: str) -> str:
    """A phrase as looked up: lower case, one space between words, no backticks or final period."""
    return " ".join(text.replace("`", "").split()).rstrip(".").strip().lower()


@dataclass
class Lexicon:
    """Nouns, terms, file groups, verbs and templates, ready for the condition and action
    parsers. `terms` maps a phrase (`normal`) to its definition; the spec's come first."""

    vocabulary: str = ""
    nouns: list[tuple[re.Pattern[str], Noun]] = field(default_factory=list)
    terms: dict[str, Term] = field(default_factory=dict)
    file_groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    verbs: list[tuple[re.Pattern[str], Verb]] = field(default_factory=list)
    templates: str = ""

    @classmethod
    def of(cls, dialect: Dialect) -> Lexicon:
        return _lexicon(dialect.vocabulary)

    def with_terms(self, terms: list[Term]) -> Lexicon:
        """This lexicon with a spec's own terms, which take precedence."""
        own = {normal(t.phrase): t for t in terms}
        return Lexicon(
            self.vocabulary,
            self.nouns,
            {**own, **{k: v for k, v in self.terms.items() if k not in own}},
            self.file_groups,
            self.verbs,
            self.templates,
        )

    def noun(self, words: str) -> Noun | None:
        text = " ".join(words.replace("`", "").split())
        return next((noun for regex, noun in self.nouns if regex.fullmatch(text)), None)

    def noun_for(self, probe: str, param: str) -> Noun | None:
        """The vocabulary's noun for a fact, for its words."""
        return next((n for _, n in self.nouns if (n.probe, n.param) == (probe, param)), None)

    def has_template(self, name: str) -> bool:
        import os

        return bool(self.templates) and os.path.isfile(
            os.path.join(self.templates, os.path.basename(name))
        )


_LOADED: dict[str, Lexicon] = {}


def _lexicon(name: str) -> Lexicon:
    found = _LOADED.get(name)
    if found is None:
        try:
            module: ModuleType | None = load(name)
        except ImportError as err:
            raise SpecError(
                f"vocabulary {name!r} cannot be loaded ({err}); name a module of "
                "spellbook.vocabularies, or an importable module, under [tool.spellbook]",
                0,
            ) from None
        found = _LOADED[name] = Lexicon(
            name,
            [(re.compile(n.pattern, re.IGNORECASE), n) for n in getattr(module, "NOUNS", ())],
            {
                normal(phrase): Term(phrase, means)
                for phrase, means in getattr(module, "TERMS", {}).items()
            },
            {normal(k): tuple(v) for k, v in getattr(module, "FILE_GROUPS", {}).items()},
            [(re.compile(v.pattern, re.IGNORECASE), v) for v in getattr(module, "VERBS", ())],
            getattr(module, "TEMPLATES", "") or "",
        )
    return found
