"""The project's own code: phrases the core does not read, as its guards and callbacks.

With `own_code = true` in `[tool.spellbook]`, a clause of a Condition cell that no core
phrase, noun or term reads is a guard of the project's own: a boolean the model's method
answers. The grammar splits the cell (`AND`, `;`, `,`, `OR`); a clause it leaves whole
is one guard, ` and ` and ` or ` in lower case included: `confirmed by reviewer or PR
state` is one question for the project's code (was it confirmed, by either?), never
two guards of which one is `PR state`. Each guard is named by `identifier` of its
words, with its negation understood:

- `not X`, `no X` are X not holding (`no blockers` is `blockers` not holding), and so
  are `unless X`, `except when X`, `not yet X`, `no longer X`; `if X`, `only if X`,
  `when X` are X;
- `X fails` (`fail`, `failed`, `failing`) is `X passes` (`pass`, ...) not holding;
- `X is not Y` (`isn't`, `are not`, `aren't`, `was not`, `were not`) is `X is Y`
  not holding;
- except where X counts (`all tests fail`, `some items are not shipped`, `at least one
  check failed`): `all tests fail` is not `not all tests pass`, so it is a guard of its
  own;
- a term of the spec's Terms table means its meaning (`| card declined | NOT card
  authorised |`), as for the core's facts.

Phrases whose words give one identifier are one guard (`Payment accepted.` and
`payment accepted`). `yes`, `true`, `✓` say only that the row fires: always, as `-`
(`always`). A negation before a lower-case `and` / `or` (`not a and b`) is refused: the
words do not say what it denies. An Action cell's phrase no verb reads is split at
`;`, a line break, `,`, ` / `, `->`, `→` (outside backticks and quotes) into callbacks,
in order, each named by `identifier` of its words.
"""

from __future__ import annotations

import re

from ..model import CALL, OWN, ActionSpec, Atom, LiteralSpec
from .identifiers import identifier, split_outside

DNF = tuple[tuple[LiteralSpec, ...], ...]

_NOT = re.compile(r"(?:(?:not|no)\s+|[!~¬]\s*)(?P<rest>.+)", re.I)
# `not(locked)`, `!(locked)`: the negation of what the parentheses hold.
_NOT_CALL = re.compile(r"(?:not|[!~¬])\s*\(\s*(?P<rest>[^()]+?)\s*\)", re.I)
# Words before a guard that say only that it is one: `if paid`, `only if paid`.
_IF = re.compile(
    r"(?:only\s+(?:if|when)|if|when|whenever|provided(?:\s+that)?)\s+(?P<rest>.+)", re.I
)
# Words before a guard that deny it: `unless held`, `except when held`, `not yet
# held`, `no longer held` are `held` not holding.
_UNLESS = re.compile(
    r"(?:unless|except\s+(?:if|when)|not\s+yet|no\s+longer|but\s+not)\s+(?P<rest>.+)"
    r"|except\s+(?P<kept>(?:on|during|for|in|at|while|with)\s+.+)",
    re.I,
)
# A guard that says where it does not hold after its words (`funds available unless
# weekend`, `open but not locked`, `open except on weekends`): two guards, joined by a
# word the grammar does not read.
_DENIED_AFTER = re.compile(
    r"(?P<first>\S.*?)\s+(?P<word>unless|but\s+not|except(?:\s+(?:if|when))?)\s+(?P<rest>\S.*)",
    re.I,
)
# A row that fires where the cell's other rows do not, said as a guard (`otherwise`,
# UML's `[else]`): not read as a guard, nor as always (`analyse.spec_checks` says what
# to write instead: the negation of the other rows' conditions).
OTHERWISE = re.compile(
    r"(?:otherwise|else|default|(?:in )?(?:any|all) other cases?|everything else)", re.I
)
# An operator a guard's name would drop (`credit >= price` and `credit < price` would
# be one guard, `credit_price`): comparisons, and C's joins.
_OPERATOR = re.compile(r"&&|\|\||[<>]=?|[!=]=|(?<![\w`])=(?![\w`])|[≥≤≠]")
# A comparison in a callback's words (`refund if amount > 0`), which its name would drop.
_COMPARES = re.compile(r"[<>]=?|[!=]=|[≥≤≠]")
_QUOTED_TEXT = re.compile(r"`[^`]*`|\"[^\"]*\"|“[^”]*”")
_IS_NOT = re.compile(
    r"(?P<subject>.+?)\s+(?P<verb>is|are|was|were)(?:\s+not|n't)\s+(?P<rest>.+)", re.I
)
_FAILS = re.compile(r"(?P<subject>.+?)\s+(?P<verb>fails|fail|failed|failing)", re.I)
_PASSES = {"fails": "passes", "fail": "pass", "failed": "passed", "failing": "passing"}
# A subject that counts (`all tests`, `some items`, `at least one check`, `3 retries`):
# `all tests fail` is not `not all tests pass`, so such a phrase is a guard of its own.
_QUANTIFIED = re.compile(
    r"(?:all|any|some|every|each|most|many|few|several|both|either|neither|none|at least"
    r"|at most|more than|less than|fewer than|one of|\d+)\b",
    re.I,
)
# Where an Action cell's phrase no verb reads is several callbacks, in order: `;`, a
# line break, `,` (not between digits, `1,000`), ` / `, `->`, `→`, `=>`, outside
# backticks, quotes and parentheses (`Remove from queue, log`, `charge card / send
# receipt`, `print label -> hand to courier`; not `log event (type, id)`).
_STEP = re.compile(r";|<br\s*/?>|(?<!\d),|,(?!\d)|\s/\s|\s*(?:->|→|=>)\s*", re.I)
# A guard that says only that the row fires (`yes`, `true`, `✓`): always, as `-` is.
_ALWAYS = re.compile(r"yes|true|y|✓|✔|☑|✅", re.I)
# A negation before a lower-case `and` / `or` (`not charge succeeds and retries
# exhausted`): of the whole phrase, or of its first part? The words do not say.
_NEGATED_JOIN = re.compile(r"(?P<not>(?:not|no)\b|[!~¬])\s*(?P<rest>.*?\s(?:and|or)\s.+)", re.I)
_LOWER_JOIN = re.compile(r"\s(and|or)\s")
# A name in camel case: a small letter, then a capital (`isApproved`, `sha256Matches`).
_CAMEL = re.compile(r"[a-z].*?[A-Z]")


# A name in backticks that is a path (`.ai/task/.refs`, `docs/a`): a file, not a word.
_PATH = re.compile(r"`([^`\s]*(?:/|^\.|\.\w)[^`\s]*)`")


def path_in(phrase: str) -> str:
    """A path the phrase names in backticks, or ""."""
    m = _PATH.search(phrase)
    return m.group(1) if m else ""


def guard(phrase: str) -> tuple[str, str, bool]:
    """(identifier, the words of the guard holding, whether the phrase says it holds);
    the identifier is "" for a phrase with no word to name it by."""
    text = _stated(phrase)
    positive = True
    # `NOT no blockers` is `blockers`; `!locked`, `not(locked)` are `locked` not holding
    while (m := _NOT_CALL.fullmatch(text) or _NOT.fullmatch(text)) is not None:
        text, positive = m.group("rest"), not positive
    if _QUANTIFIED.match(text):
        pass  # its own guard: a count's negation is not its opposite's
    elif (m := _IS_NOT.fullmatch(text)) is not None:
        text, positive = f"{m['subject']} {m['verb'].lower()} {m['rest']}", not positive
    elif (m := _FAILS.fullmatch(text)) is not None:
        text, positive = f"{m['subject']} {_PASSES[m['verb'].lower()]}", not positive
    return method_name(text), text, positive


def denied(text: str) -> str | None:
    """The words a phrase denies, where it opens with words that deny them (`unless
    paid`, `except when paid`, `not yet paid`, `but not paid`, `except on weekends`):
    `paid`, `on weekends`; None for any other phrase. The one list of those words, for
    guards of the project's own code and for what an unread condition is offered."""
    m = _UNLESS.fullmatch(text)
    return None if m is None else m.group("rest") or m.group("kept")


def _stated(phrase: str) -> str:
    """The phrase without the words that say only that it is a guard (`if paid`), and
    with `not` for the words that deny it (`unless paid` is `not paid`)."""
    text = " ".join(phrase.split()).rstrip(".").strip()
    if (m := _IF.fullmatch(text)) is not None:
        text = m.group("rest")
    rest = denied(text)
    return text if rest is None else "not " + rest


# What a guard's name keeps of its words, and the signs it drops that change their sense:
# a sign before a number, `++`, `#`, a currency or a percent.
_SIGNS = re.compile(r"[-+\u2212](?=\d)|\+\+|[#$\u20ac\u00a3\u00a5%]|[^\W_]+")


def signs(words: str) -> tuple[str, ...]:
    """The words with the signs a method's name drops, to tell apart two phrases that
    name one method (`temperature below -5`, `temperature below 5`)."""
    return tuple(_SIGNS.findall(words.lower()))


def method_name(words: str) -> str:
    """The model's method a guard's or a callback's words name: `identifier` of them in
    lower case, so that `Approved`, `APPROVED` and `approved` are one guard, as
    `Payment accepted` and `payment accepted` are; a name written in camel case
    (`isApproved`) is kept as written."""
    name = identifier(words)
    return name if _CAMEL.search(name) else identifier(name.lower())


def always(phrase: str) -> str:
    """Why a guard that says only that the row fires (`yes`, `true`, `✓`) is read as
    always, as `-` is; "" for any other phrase."""
    if _ALWAYS.fullmatch(phrase.strip().strip("[]() ")) is None:
        return ""
    return "it says only that the row fires"


# Marks and answers that say yes or no of a guard's words (`in stock ✗`, `❌ shipped`,
# `paid: no`), which its method's name would drop: `in stock ✗` would be `in_stock` holding.
_YES_MARKS, _NO_MARKS = "\u2713\u2714\u2611\u2705", "\u2717\u2718\u274c\u2612\u2716\u2a2f"
_MARK = re.compile(f"[{_YES_MARKS}{_NO_MARKS}]\ufe0f?")
_ANSWER = re.compile(r"(?P<words>.*?\w.*?)\s*[:?]\s*(?P<answer>yes|no|true|false|y|n)", re.I)
_NEVER = re.compile(r"no|false|n", re.I)
# A sign before a guard's words that says no (`-paid`, a minus sign too): no negation a name keeps.
_SIGNED = re.compile(r"\s*(?P<sign>[-\u2212])\s*(?P<rest>[^\W\d_].*)")
# `paid is false`, `paid is not true`: words answered yes or no after `is`.
_IS_ANSWER = re.compile(
    r"(?P<words>.*?\w.*?)\s+(?:is|are|==|=)\s+(?P<not>not\s+)?(?P<answer>true|false|yes|no)",
    re.I,
)


def _marked(phrase: str) -> str:
    """Why a guard marked yes or no (`in stock ✗`, `❌ shipped`, `paid: no`, `paid: yes`)
    is not read, and what to write; "" for any other: `paid ✓` is `paid`, as its name
    says (a mark alone that says yes is `always`'s)."""
    text = " ".join(phrase.split()).rstrip(".").strip()
    mark = _MARK.search(text)
    answer = _ANSWER.fullmatch(text) if mark is None else None
    if mark is None and answer is None:
        if _NEVER.fullmatch(text.strip("[]() ")):
            return f"'{text}' says the row never fires, which no guard says: remove the row"
        return ""
    said = mark.group() if mark is not None else answer["answer"] if answer else ""
    if mark is not None and said[0] in _YES_MARKS:
        return ""  # `paid ✓` is `paid`, as its method's name says
    words = _MARK.sub(" ", text) if mark is not None else answer["words"] if answer else ""
    words = " ".join(words.split()).strip(" :?-")
    no = said[0] in _NO_MARKS or _NEVER.fullmatch(said) is not None
    if not words:
        return f"'{text}' says the row never fires, which no guard says: remove the row"
    read = (
        f"marks its words with `{said}`, which the name of a guard of the project's code "
        f"drops, so it would read as `{words}` holding"
        if mark is not None
        else f"answers its words with `{said}`, which would make a guard of its own, "
        f"{method_name(text)}, unrelated to `{words}`"
    )
    return f"'{text}' {read}: write " + (
        f"`NOT {words}` if the row fires where it does not hold" if no else f"`{words}`"
    )


def own_condition(phrase: str) -> tuple[DNF, list[tuple[Atom, str, str]]] | str:
    """A clause as one guard of the project's own, with its words when it holds and when
    not; or why it cannot be."""
    name, words, positive = guard(phrase)
    if OTHERWISE.fullmatch(phrase.strip().strip("[]() ")):
        return f"{phrase.strip()!r} says the other rows' cases, which no guard answers"
    text = _stated(phrase)
    if (m := _DENIED_AFTER.fullmatch(text)) is not None:
        return (
            f"'{phrase.strip()}' says where the guard does not hold after its words "
            f"(`{m['word']}`), which the grammar does not join: write `{m['first']} AND NOT "
            f"{m['rest']}` for two guards, or words of one guard the project's code answers"
        )
    if _NOT_CALL.fullmatch(text) is None and (m := _NEGATED_JOIN.fullmatch(text)):
        joins = _LOWER_JOIN.findall(m["rest"])
        two = _LOWER_JOIN.sub(lambda j: f" {j.group(1).upper()} ", text)
        return (
            f"'{phrase.strip()}' does not say whether `{m['not']}` denies the whole phrase or "
            f"only its words before `{joins[0]}`: write `{two}` for guards joined by the "
            f"grammar, or `NOT ({m['rest']})` for one guard"
        )
    signed = _SIGNED.match(phrase)
    if signed is not None:  # `-paid`: a sign the method's name drops, `paid` holding
        return (
            f"'{phrase.strip()}' opens with `{signed['sign']}`, which the name of a guard of "
            f"the project's code drops, so it would read as `{signed['rest']}` holding: write "
            f"`NOT {signed['rest']}` where it does not hold"
        )
    answered = _IS_ANSWER.fullmatch(" ".join(phrase.split()).rstrip("."))
    if answered is not None:  # `paid is false`: a guard of its own, unrelated to `paid`
        no = (answered["answer"].lower() in ("false", "no")) != bool(answered["not"])
        words = answered["words"]
        return (
            f"'{phrase.strip()}' answers its words with `{answered['answer']}`, which would "
            f"make a guard of its own, {method_name(phrase)}, unrelated to `{words}`: write "
            + (f"`NOT {words}`" if no else f"`{words}`")
        )
    if why := _marked(phrase):
        return why
    operator = _OPERATOR.search(words)
    if operator is not None:
        return (
            f"'{phrase.strip()}' compares or joins with `{operator.group()}`, which the name "
            f"of a guard of the project's code ({name or 'none'}) would drop, making it one "
            "guard with any other of its words (`credit >= price` and `credit < price`): "
            "write what the project's method answers in words (`credit covers price`), and "
            "join guards with AND, OR and NOT"
        )
    if not name:
        return f"'{phrase.strip()}' has no word to name a guard of the project's code by"
    atom = Atom(OWN, "", name)
    # Its words when it does not hold: the phrase, where it says more than `not X`.
    plain = positive or re.match(r"not\s", phrase.strip(), re.I) is not None
    said = [(atom, words, "" if plain else " ".join(phrase.split()).rstrip("."))]
    return ((LiteralSpec(atom, positive),),), said


def callbacks(phrase: str) -> list[ActionSpec] | str | None:
    """An Action phrase no verb reads, as callbacks of the project's own, in order (split
    at `;`, a line break, `,`, ` / `, `->`, outside backticks, quotes and parentheses);
    None if a part has no word to name one by; why not, for a part that compares
    (`refund if amount > 0`), whose name would drop the comparison."""
    found: list[ActionSpec] = []
    for part in split_outside(phrase, _STEP):
        text = " ".join(part.split()).rstrip(".")
        if not text:
            continue
        if (operator := _COMPARES.search(_QUOTED_TEXT.sub("", text))) is not None:
            return (
                f"its name, {method_name(text)}, would drop the `{operator.group()}` in "
                f"'{text}', one callback with any other of its words (`refund if amount > 0`"
                " and `refund if amount < 0`): say what the callback does in words, and a "
                "condition on the move in its Guard"
            )
        name = method_name(text)
        if not name:
            return None
        found.append(ActionSpec(CALL, text, target=name))
    return found
