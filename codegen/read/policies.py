"""Policies a spec states in one sentence: "Transitions not listed are rejected".

A sentence of a paragraph or a list item that says every transition the tables do
not list is refused (`Any transition not listed here is denied.`, `Transitions not
listed are rejected`, `Anything else is rejected.`) is the spec's `Policy`: the
(state, spell) cells no row names are blocked (`expand.policy_rules`). Only a whole
sentence counts: `In archived, anything else is rejected` is about one state. A
sentence of that shape that limits the refusal (`... rejected by the API gateway, not
by this machine`, `... except in DRAFT`) is not the policy, and is said to be not
(`unlisted_unread`, a warning): its author may have meant it as one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from ..model import Notice, Policy
from .lexicon import normal
from .markdown import Block, Inline, ItemList, Paragraph, Quote

_REFUSED = (
    r"(?:denied|rejected|refused|blocked|invalid|forbidden|disallowed|illegal"
    r"|not (?:allowed|permitted|valid))"
)
_MOVES = r"(?:transitions?|moves?|state changes?|changes? of state|events?|triggers?)"
_WHERE = r"(?: (?:here|above|below|in (?:this|the) (?:table|document|spec|section|list)s?))?"
_UNLISTED = (
    rf"(?:(?:any|all|every) (?:other )?)?{_MOVES} (?:that (?:is|are) )?"
    rf"(?:not (?:listed|shown|defined|specified|documented|in (?:this|the) table)|unlisted)"
    rf"{_WHERE}"
    rf"|unlisted {_MOVES}{_WHERE}"
    rf"|(?:any|all) other {_MOVES}"
    r"|(?:anything|everything|all) else"
)
_SENTENCE = re.compile(
    rf"(?:{_UNLISTED}) (?:is|are|will be|must be|should be) (?:always )?{_REFUSED}"
    r"(?:\b[ ,;:(].*)?"
)
_SPLIT = re.compile(r"(?<=[.!?])\s+")


# Words after the refusal that make it less than every transition, everywhere: `...
# rejected, except in DRAFT`, `... rejected only by the gateway`, `... until paid`.
@cache
def _qualified() -> re.Pattern[str]:
    return re.compile(
        r"\b(?:except|(?<!\bno )(?<!\bwithout )exceptions?|unless|until|only|but|if|when"
        r"|where|while|ignored|sometimes|usually|mostly|generally|typically|some|most)\b"
    )


# Who refuses, where the sentence says: `by the API gateway`, `by the server`. Only this
# machine's own refusal is the machine's policy.
@cache
def _by() -> re.Pattern[str]:
    return re.compile(r"\b(?:not )?by (?P<who>(?:the |this |our |its )?[\w-]+(?: [\w-]+)?)")


_THIS = re.compile(r"(?:this|the|our) (?:state )?(?:machine|workflow|spec)|spellbook")
# The form a spec writes to have its machine reject what its tables do not list.
POLICY_FORM = "Transitions not listed are rejected."


def says_unlisted_rejected(sentence: str) -> bool:
    """Whether one sentence says every transition not listed is refused by this machine
    (with no word after it that limits where or when: `except`, `unless`, `until`,
    `only`, ...; nor another that refuses them: `by the API gateway`)."""
    return _limit(sentence) == ""


def _limit(sentence: str) -> str | None:
    """None where the sentence does not say transitions not listed are refused; ""
    where it says so of this machine, everywhere; else the words that limit it."""
    text = normal(sentence.strip(" -*>"))
    found = _SENTENCE.fullmatch(text)
    if found is None:
        return None
    refused = re.search(_REFUSED, text[: found.end()])
    tail = text[refused.end() :] if refused is not None else ""
    limited = _qualified().search(tail)
    if limited is not None:
        return tail[limited.start() :].strip(" .()")
    for by in _by().finditer(tail):
        if by[0].startswith("not ") or not _THIS.fullmatch(by["who"]):
            return tail[by.start() :].strip(" .()")
    return ""


def unlisted_policy(blocks: Iterable[Block]) -> Policy | None:
    """The first sentence of the document's prose saying transitions not listed are
    rejected by this machine, as the spec's policy; None where no sentence says so."""
    for line, text in _prose(blocks):
        for sentence in _SPLIT.split(text):
            bare = _unlabelled(sentence)
            if says_unlisted_rejected(sentence) or says_unlisted_rejected(bare):
                return Policy(re.sub(r"^\s*\[!\w+\]", "", sentence).strip(), line)
    return None


def unread_policies(blocks: Iterable[Block]) -> Iterator[Notice]:
    """A warning for each sentence that says transitions not listed are rejected but
    limits it (`... by the API gateway, not by this machine`, `... except in DRAFT`), or
    that says so in a block quote (which may quote another system's manual): not the
    machine's policy, which its author may have meant it to be."""
    for line, text in _prose(blocks, quoted=True):
        for sentence in _SPLIT.split(text):
            bare = _unlabelled(sentence)
            if says_unlisted_rejected(sentence) or says_unlisted_rejected(bare):
                yield Notice(
                    "unlisted_unread",
                    f"{sentence.strip()!r} is in a block quote, which may quote another "
                    "system, so it is not taken as this machine's policy for transitions "
                    "not listed; if it is this machine's, write it outside the quote: "
                    f"{POLICY_FORM!r}",
                    line,
                )
    for line, text in _prose(blocks):
        for sentence in _SPLIT.split(text):
            limit = _limit(sentence)
            if limit:
                yield Notice(
                    "unlisted_unread",
                    f"{sentence.strip()!r} is not taken as this machine's policy for "
                    f"transitions not listed: it limits the refusal ({limit!r}), so a "
                    "(state, spell) no row names is a missing cell; if this machine rejects "
                    f"every transition its tables do not list, say so: {POLICY_FORM!r}",
                    line,
                )


def _unlabelled(sentence: str) -> str:
    """A sentence without a note's label before it (`Note: Transitions not listed ...`,
    a GitHub alert's `[!IMPORTANT]`)."""
    sentence = re.sub(r"^\s*\[!\w+\]\s*", "", sentence)
    return re.sub(r"^\W*(?:note|important|rule|policy)\W*:\W*", "", sentence, flags=re.I)


def _prose(blocks: Iterable[Block], quoted: bool = False) -> Iterator[tuple[int, str]]:
    """(line, text) of each paragraph and list item, lines joined, a GitHub alert's
    (`> [!IMPORTANT]`: the document's own note) among them; with `quoted`, those of
    plain block quotes alone (`> Transitions not listed are rejected.`), in a list item
    too."""
    for block in blocks:
        if isinstance(block, Paragraph) and not quoted:
            yield from _joined(block.lines)
        elif isinstance(block, ItemList):
            for item in block.items:
                yield from _prose(item.blocks, quoted)
        elif isinstance(block, Quote) and block.alert:
            yield from () if quoted else _prose(block.blocks)
        elif isinstance(block, Quote):
            yield from _prose(block.blocks) if quoted else ()


def _joined(lines: tuple[Inline, ...]) -> Iterator[tuple[int, str]]:
    if lines:
        yield lines[0].line, " ".join(line.plain for line in lines)
