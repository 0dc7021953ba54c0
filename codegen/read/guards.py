"""A spec's State Guards list: each item read into what it says of the states a spell
is allowed or blocked in, or the reason it is not read.

Under a heading `State Guards` (or `Guards`, `Spell Guards`, ...), each list item (or
paragraph line) that opens with a name in bold or in backticks is a guard:

    1. **Expecto Guard**: Only allowed in GATHER states
    2. **Reparo Guard**: Blocked if PR_APPLIED_PENDING_ARCHIVE (must Accio to finish)
    3. **Reverto Guard**: Only allowed in PR states (except PR_APPLIED_PENDING_ARCHIVE)

Its sentence opens with what it claims: `Only allowed in` (`Only available in`, `Allowed
only in`, `Only in`): allowed in those states and blocked in every other; `Blocked in`
(`Blocked if`, `Not allowed in`, `Never allowed in`, `Never in`, ...): blocked there; `Allowed in`
(`Available in`): allowed there. What follows names states (`resolve`), joined by
commas, `and` or `or`; `except X` (in parentheses or not) takes states out with the
opposite meaning. A parenthesis that is no `except`, and words after `where`, `because`,
`since`, `as`, `;`, a dash or the end of the sentence, are a comment: kept to be shown,
not read as a rule; a comment that opens with a claim of its own (`Allowed in paid;
never in new`) makes the item unread, since it says more than the sentence read. A
guard limited by a condition (`if`, `when`, `unless`, `until`, `while`, `only`, ... in
what would be its states or its comment) is not read, since the
tables' conditions say that: it is said, with why, never read as something else. The
names are resolved against the machine's states and families when it is read
(`analyse.reading.guards_read`) and checked (`analyse.guard_checks`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cache

from ..model import SpecGuard, Spell
from .identifiers import identifier
from .light_cells import guard_word
from .markdown import Block, Heading, Inline, Item, ItemList, Paragraph

# The words that say the spell is allowed only in the states that follow, blocked in
# them, or allowed in them.
_ALLOW = r"(?:allowed|available|valid|permitted|possible)"
_ONLY = rf"only\s+{_ALLOW}\s+in|{_ALLOW}\s+only\s+in|only\s+in"
_BLOCK = r"blocked|not\s+allowed|not\s+available|never\s+allowed|disallowed|forbidden|refused"
_BLOCKED = rf"(?:{_BLOCK}|never)\s+(?:if\s+in|when\s+in|while\s+in|if|in)"
_ALLOWED = rf"{_ALLOW}\s+in"

# What the forms that read are, said where an item does not read.
FORMS = (
    "a guard reads as `**SPELL Guard**: Only allowed in STATES`, `Blocked in STATES` "
    "or `Allowed in STATES`, where STATES are state names, families (`NAME_[G/A]` or "
    "`NAME`), `WORD states` (each state whose name starts `WORD_`) or `all states`, "
    "joined by commas, `and` or `or`, with `except STATES` after them (in parentheses or not)"
)


@cache
def _head() -> re.Pattern[str]:
    return re.compile(
        rf"\s*(?:(?P<only>{_ONLY})|(?P<blocked>{_BLOCKED})|(?P<allowed>{_ALLOWED}))\b(?P<rest>.*)",
        re.I | re.S,
    )


def _limiting(text: str) -> str:
    """The word that limits a guard by a condition in `text` (the words that may begin
    a guard, `light_cells.GUARD_WORDS`: the tables' conditions say such a thing), or "".
    `except` and `but` are this list's own words (`except X`, `but not X`) and a
    comment's (`but Lumos still works`), never a condition here."""
    for found in guard_word().finditer(text):
        word = " ".join(found.group("word").lower().split())
        if word not in ("except", "but"):
            return word
    return ""


# `only` after a guard's states (`Allowed in TRYING only`), its comment cut off.
@cache
def _last_only() -> re.Pattern[str]:
    return re.compile(r"\s+only\s*$", re.I)


# Where a comment starts after the states: a word that gives a reason, `;`, a dash, or
# the end of the sentence (`Blocked in DONE. Use Accio.`).
@cache
def _comment() -> re.Pattern[str]:
    return re.compile(r"\s*(?:[;:\u2014\u2013]|\.\s|\s-\s|\b(?:where|because|since|as)\b)", re.I)


@cache
def _heading() -> re.Pattern[str]:
    return re.compile(
        r"(?:\d+[.)]?\s+)?(?:(?:state|spell|trigger|event|command|action|transition)\s+)?"
        r"guards\s*:?",
        re.I,
    )


def guard_heading(text: str) -> bool:
    """Whether a heading heads a State Guards list (`State Guards`, `Guards`, `3. Spell
    Guards`)."""
    return _heading().fullmatch(text.strip()) is not None


def read_guards(blocks: Sequence[Block]) -> tuple[SpecGuard, ...]:
    """Every guard of the State Guards lists among `blocks` (those under such a heading,
    a sub-heading of it too), each read or said not to be."""
    found: list[SpecGuard] = []
    stack: list[Heading] = []
    # The document's title heads the whole file, never its State Guards list (`# Guards`
    # over a spec's Spells and States lists).
    title = next((b for b in blocks if isinstance(b, Heading)), None)
    for block in blocks:
        if isinstance(block, Heading):
            while stack and stack[-1].level >= block.level:
                stack.pop()
            if block is not title or block.level > 1:
                stack.append(block)
        elif under_guards(stack):
            found += _guards_of(block)
    return tuple(found)


def usage_guards(spells: Sequence[Spell]) -> tuple[SpecGuard, ...]:
    """The guards the Spells list's `*Usage*` fields say (`- *Usage*: Only allowed in
    GATHER states`), each read as an item of the State Guards list is, titled by its
    spell; a Usage that opens with no claim (`Progress through the workflow`) says none."""
    return tuple(
        _claim(SpecGuard(spell.usage_line, spell.name, " ".join(spell.usage.split()), usage=True))
        for spell in spells
        if spell.usage_line and _head().match(spell.usage)
    )


def under_guards(headings: Sequence[Heading]) -> bool:
    """Whether a block under `headings` (outermost first) is in a State Guards section,
    or in a section under one."""
    return any(guard_heading(h.text) for h in headings)


def _guards_of(block: Block) -> Iterator[SpecGuard]:
    if isinstance(block, ItemList):
        for item in block.items:
            yield _item(item)
    elif isinstance(block, Paragraph):
        for line in block.lines:
            if _titled(line) is not None:
                yield _guard(line.line, (line,))


def _item(item: Item) -> SpecGuard:
    first = item.blocks[0] if item.blocks else None
    if not isinstance(first, Paragraph) or not first.lines:
        return SpecGuard(item.line, "", "", problem="the item does not open with a line of text")
    guard = _guard(first.lines[0].line, first.lines)
    if len(item.blocks) > 1:
        return replace(
            guard,
            problem="the item holds more than its line (a nested list or a second paragraph), "
            "which is not read",
        )
    return guard


def _titled(line: Inline) -> int | None:
    """The index of the segment that holds a line's title: its first, in bold or in
    backticks, after a number (`2.`) where a paragraph numbers it; None for a line
    without one."""
    segments = [s for s in line.segments if s.text.strip()]
    at = 0
    if segments and segments[0].kind == "text" and re.fullmatch(r"\s*\d+[.)]\s*", segments[0].text):
        at = 1
    if at < len(segments) and segments[at].kind in ("strong", "code"):
        return line.segments.index(segments[at])
    return None


def _guard(line: int, lines: tuple[Inline, ...]) -> SpecGuard:
    at = _titled(lines[0])
    written = " ".join(ln.recovered()[0] for ln in lines).strip()
    if at is None:
        return SpecGuard(
            line, "", written, problem="it does not open with the guard's name in bold"
        )
    title = lines[0].segments[at].text.strip()
    rest = Inline(line, lines[0].segments[at + 1 :]).recovered()[0]
    rest = " ".join([rest, *(ln.recovered()[0] for ln in lines[1:])]).strip()
    if title.endswith(":"):
        title = title[:-1].strip()
    elif rest[:1] in (":", "\u2014", "\u2013", "-"):
        rest = rest[1:]
    else:
        return SpecGuard(line, title, rest, problem="its name is not followed by a colon")
    return _claim(SpecGuard(line, title, rest.strip()))


def _claim(guard: SpecGuard) -> SpecGuard:
    """The guard with what its sentence claims read, or the reason it is not."""
    text = guard.text.strip().rstrip(".").strip()
    m = _head().fullmatch(text)
    if m is None:
        return replace(
            guard,
            problem="its sentence does not open with `Only allowed in`, `Blocked in` "
            "or `Allowed in`",
        )
    claim = next(k for k in ("only", "blocked", "allowed") if m.group(k))
    try:
        main, notes = _outside_parentheses(m.group("rest"))
    except ValueError as err:
        return replace(guard, claim=claim, problem=str(err))
    excepted = [n[len("except") :] for n in notes if re.match(r"except\b", n, re.I)]
    notes = [n for n in notes if not re.match(r"except\b", n, re.I)]
    parts = re.split(r"(?:,\s*|\s+)(?:except|but not)\b", main, maxsplit=1, flags=re.I)
    if len(parts) == 2:
        main = parts[0]
        excepted.append(parts[1])
    if len(excepted) > 1:
        return replace(guard, claim=claim, problem="it says `except` twice")
    starred = _starred(" ".join((main, *excepted)))
    if starred:
        return replace(guard, claim=claim, problem=_wildcard(starred))
    names, said = _names(main)
    notes += said
    last = _last_only().search(names[-1]) if names else None
    if last is not None:
        if claim == "blocked":
            return replace(
                guard,
                claim=claim,
                problem="`only` after the states of `Blocked in` is not read: write `Only "
                "allowed in` the states where it is allowed, or `Blocked in` the states alone",
            )
        # `Allowed in TRYING only`: the `only` claim, its word after the states
        claim, names = "only", (*names[:-1], names[-1][: last.start()])
    out: tuple[str, ...] = ()
    if excepted:
        out, said = _names(excepted[0])
        notes += said
        if not out:
            return replace(guard, claim=claim, problem="its `except` names no state")
    limited = next((n for n in (*names, *excepted, *notes) if _limiting(n)), None)
    if limited is not None:
        return replace(
            guard,
            claim=claim,
            problem=f"it is limited by a condition ({_limiting(limited)!r} in "
            f"{limited.strip()!r}), which a guard does not say: the tables' conditions do",
        )
    claiming = next((n for n in notes if _claiming().match(n)), None)
    if claiming is not None:
        return replace(guard, claim=claim, problem=_second_claim(claiming, claim, names))
    if not names:
        return replace(guard, claim=claim, problem="it names no state")
    return replace(
        guard, claim=claim, names=names, excepted=out, notes=tuple(n.strip() for n in notes)
    )


# Words of a comment that says where the spell is allowed or blocked: a claim of its
# own where it opens with them (`Allowed in paid; never in new`, `Allowed in paid
# (nowhere else)`), never a reason (`where the refund is available`).
@cache
def _claiming() -> re.Pattern[str]:
    return re.compile(
        rf"[\s.;:,]*(?:{_BLOCK}|{_ALLOW}|never|nowhere|elsewhere|everywhere|anywhere|not\s+in)\b",
        re.I,
    )


def _second_claim(note: str, claim: str, names: Sequence[str]) -> str:
    """Why a guard whose comment makes a claim of its own is not read, and what reads."""
    states = ", ".join(names) or "STATES"
    only = (
        f"`Only allowed in {states}` if it is allowed nowhere else"
        if claim == "allowed"
        else "one claim naming every state it is about"
    )
    return (
        f"its comment {note.strip(' .;:,')!r} says where the spell is allowed or blocked too, "
        f"which a comment is not read for: write one sentence that says it all, {only}"
    )


def _starred(text: str) -> str:
    """The first name in `text` written with a `*` wildcard (`OPEN_*`, `*_MISSING`), or ""."""
    return next(
        (t for t in re.findall(r"[\w\[\]/*]+", text) if "*" in t and re.search(r"[^\W_]", t)),
        "",
    )


def _wildcard(written: str) -> str:
    """Why a guard naming states with a wildcard (`OPEN_*`) is not read, and what reads."""
    word = written.rstrip("*").rstrip("_")
    as_word = (
        f"`{word} states` (each state whose name is {word} or starts {word}_)"
        if "*" not in word and word
        else "`WORD states` (each state whose name is WORD or starts `WORD_`)"
    )
    return (
        f"{written!r} is a wildcard, which is not read: name the states as {as_word}, "
        "as a family (`NAME_[G/A]`) or each by its name"
    )


def _outside_parentheses(text: str) -> tuple[str, list[str]]:
    """The text without its parentheses, and what each held (brackets, `[G/A]`, and code
    spans are no parentheses); a ValueError for parentheses that do not close."""
    main: list[str] = []
    held: list[str] = []
    depth = 0
    bracket = 0
    code = False
    for ch in text:
        if ch == "`":
            code = not code
        elif not code and ch == "[":
            bracket += 1
        elif not code and ch == "]":
            bracket = max(0, bracket - 1)
        elif not code and not bracket and ch == "(":
            depth += 1
            if depth == 1:
                held.append("")
                continue
        elif not code and not bracket and ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError("a parenthesis in it closes none")
            if depth == 0:
                continue
        if depth:
            held[-1] += ch
        else:
            main.append(ch)
    if depth:
        raise ValueError("a parenthesis in it does not close")
    return "".join(main).strip(), [h.strip() for h in held]


def _names(text: str) -> tuple[tuple[str, ...], list[str]]:
    """The names a guard's states are written as, and a comment after them (`where ...`,
    `; ...`)."""
    text = re.sub(r"\s+as\s+well\s+as\s+", " and ", text, flags=re.I)  # one more state
    comment = _comment().search(text)
    said = []
    if comment is not None:
        said = [text[comment.start() :].strip(" ;:\u2014\u2013-")]
        text = text[: comment.start()]
    names = [n.strip().strip("`*").strip() for n in _split(text)]
    return tuple(re.sub(r"^the\s+", "", n, flags=re.I) for n in names if n), said


def _split(text: str) -> list[str]:
    """Names joined by commas, `and`, `or` or `&`, outside brackets."""
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|\s*&\s*", text, flags=re.I)
    # a family's brackets hold a slash, never a comma: nothing to join back
    return parts


def resolve(
    name: str, states: Sequence[str], families: dict[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """The states a guard's name stands for, in the machine's order: a state, a family
    (`NAME_[G/A]`, or its base `NAME`), `WORD states` (each state whose name is WORD or
    starts `WORD_`, in any case), `all states`; () for a name that is none of these."""
    if re.fullmatch(r"(?:all|any|every)\s+states?", name, re.I):
        return tuple(states)
    exact = _named(name, states, families)
    if exact:
        return exact
    m = re.fullmatch(r"(?P<word>\S+)\s+states?", name, re.I)
    if m is None:
        return ()
    word = m.group("word").strip("`*")
    exact = _named(word, states, families)
    if exact:
        return exact
    prefix = word.upper() + "_"
    return tuple(s for s in states if s.upper().startswith(prefix))


def _named(
    name: str, states: Sequence[str], families: dict[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """The states `name` names: a state or a family as written, else the one whose name
    is its identifier in any case (`in review`, the state `in_review`; `gather_a`,
    `GATHER_A`)."""
    if name in states:
        return (name,)
    if name in families:
        return families[name]
    key = (identifier(name) or name).casefold()
    folded = [s for s in states if s.casefold() == key]
    if len(folded) == 1:
        return (folded[0],)
    same = [f for f in families if f.casefold() == key]
    return families[same[0]] if len(same) == 1 else ()
