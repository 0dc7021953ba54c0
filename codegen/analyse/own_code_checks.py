"""Checks of a machine whose guards and callbacks are the project's own code (`own_code`).

Such a machine is driven by its generated `build(model)` in the project's code: the
model's methods answer its guards and carry out its callbacks, and no workspace is looked
at. `spell` does not drive it. So a machine is the core's or the project's, never half of
each: a fact the core checks about a workspace's files, or an action of the core's, in a
machine that has guards or callbacks of the project's own, would never be checked or
carried out, and is an error (`own_code`). So is a callback on a row that refuses the
trigger: `transitions` calls a transition's callbacks only when it happens. A guard
whose words are other guards of the spec joined by a lower-case `and` / `or` is one
question of its own, unrelated to them, and likely meant as them (`own_guard_joined`);
so is one whose words are another guard with a note in parentheses (`own_guard_noted`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from spellbook.verbs.actions import passive

from ..logic import describe
from ..model import CALL, MODULE_NAMES, OWN, RESERVED, Kind, Spec
from ..read.own_phrases import guard, signs
from .analysis import Analysis
from .findings import Finding

_WHY = (
    "this machine's guards and callbacks are the project's own code, which its "
    "generated build(model) runs, looking at no workspace, and `spell` does not drive it: "
    "a machine is the core's or the project's, never half of each"
)


def check_own_code(analysis: Analysis) -> Iterator[Finding]:
    spec = analysis.spec
    if not (spec.own_guards or spec.callbacks):
        return
    yield from _names_taken(spec)
    yield from _callbacks_alike(spec)
    yield from _joined_guards(spec)
    yield from _noted_guards(spec)
    for row in spec.rows:
        core = list(
            dict.fromkeys(
                lit for lit in row.condition.literals if lit.atom.probe not in (OWN, "unknown")
            )
        )
        if core:
            said = ", ".join(repr(describe(lit, spec.words)) for lit in core)
            written = " ".join(row.condition.text.split())
            if len(row.condition.literals) == 1 and _plain(written) != _plain(said.strip("'")):
                said = f"{written!r}, read by the core as {said},"  # `[amount > 0]`
            named = " without the file's name," if any(lit.atom.file for lit in core) else ""
            yield Finding(
                "own_code",
                f"rule {row.id}: {said} {'is a fact' if len(core) == 1 else 'are facts'} the "
                f"core checks in a workspace, but {_WHY}; say it in words of the project's "
                f"own,{named} words the core does not read as a fact (`amount under 1000`, "
                "`invoice has lines`), and let a method of the model check it",
                line=row.line,
                rule=row.id,
            )
        done = [a for a in row.actions if a.verb not in (CALL, "instruct") and not passive(a.verb)]
        if done:
            said = ", ".join(repr(a.text) for a in done)
            yield Finding(
                "own_code",
                f"rule {row.id}: {said} {'is an action' if len(done) == 1 else 'are actions'} "
                f"the core carries out when `spell` casts, but {_WHY}; say it in words of "
                "the project's own, and let a callback of the model do it",
                line=row.line,
                rule=row.id,
            )
        for action in (a for a in row.actions if a.verb == "instruct"):
            why = f" ({action.hint})" if action.hint else ""
            yield Finding(
                "own_code",
                f"rule {row.id}: {action.text!r} is not read as a callback{why}, so it "
                f"would be an instruction to the AI, but {_WHY}; name the callback in words "
                "of the project's own",
                line=row.line,
                rule=row.id,
            )
        calls = [a for a in row.actions if a.verb == CALL]
        if calls and row.target.kind is Kind.BLOCKED:
            said = ", ".join(repr(a.text) for a in calls)
            yield Finding(
                "own_code",
                f"rule {row.id} refuses the trigger ([BLOCKED]), so no transition happens "
                f"for `transitions` to call {said} after; a callback belongs to a row that "
                "moves the state or keeps it (Same state)",
                line=row.line,
                rule=row.id,
            )


def _callbacks_alike(spec: Spec) -> Iterator[Finding]:
    """A callback whose words differ from another's, naming the same method, only by
    signs the name drops (`refund 50%` and `refund 50`, `add tip of 5 €` and `add tip of
    5 $`, `log café` and `log cafe`): one method would do both, so each row after the first
    is an error at its line, as two such guards are."""
    first: dict[str, tuple[str, str]] = {}
    for row in spec.rows:
        for action in (a for a in row.actions if a.verb == CALL):
            words, rule = first.setdefault(action.target, (action.text, row.id))
            if signs(words) != signs(action.text):
                yield Finding(
                    "own_code",
                    f"rule {row.id}: the callback {action.text!r} and {words!r} (rule {rule}) "
                    f"name one method of the project's code, {action.target}, whose name drops "
                    "the signs that tell them apart: write the difference in words (`refund "
                    "half`, `add a tip of 5 dollars`, `log C plus plus build`)",
                    line=row.line,
                    rule=row.id,
                )


def _names_taken(spec: Spec) -> Iterator[Finding]:
    """A guard or callback whose name the model or the module has for something else (a
    trigger, `may_<trigger>`, `is_<state>`, the model's own attributes, a builtin): the
    model's method can be only one of them, so the name would have to change in the
    generated module, away from the one `--explain` shows. Each is an error naming both."""
    taken: dict[str, str] = {}
    for spell in spec.spells:
        taken[spell.trigger] = f"the trigger {spell.title or spell.name!r}"
        taken[f"may_{spell.trigger}"] = f"`may_{spell.trigger}`, which asks the trigger"
    for state in spec.states:
        taken[f"is_{state.name}"] = f"`is_{state.name}`, which asks the state"
    for name in RESERVED | {"str", "bool", "Callable"}:
        taken[name] = f"the model's own attribute `{name}`"
    for name in MODULE_NAMES:
        taken.setdefault(name, f"the generated module's (or Python's builtin) `{name}`")
    named: list[tuple[str, str, str]] = [
        (a.param, "guard", spec.words.get(a, (a.param, ""))[0] or a.param) for a in spec.own_guards
    ]
    named += [(a.target, "callback", a.text) for a in spec.callbacks]
    for name, what, words in named:
        other = taken.get(name)
        if other is None and name.startswith("__"):
            # `__init__`, `__class__`: every object's own; `__x`, a name Python mangles
            other = "a name Python keeps for itself (a method beginning with `__`)"
        if other is None:
            taken[name] = f"the {what} {words!r}"
            continue
        row = next(
            (
                r
                for r in spec.rows
                if (what == "guard" and any(a.param == name for a in r.condition.atoms))
                or (what == "callback" and any(a.target == name for a in r.actions))
            ),
            None,
        )
        reword = (
            f"write it without the underscores (`{name.strip('_')}`)"
            if name.startswith("__")
            else "a method is one of them; reword the "
            + ("guard (`" + words + " holds`, say)" if what == "guard" else "callback")
            + " so that its name is its own"
        )
        yield Finding(
            "own_code",
            f"the {what} {words!r} would be the model's method {name}, which is {other}: " + reword,
            line=row.line if row is not None else None,
            rule=row.id if row is not None else None,
        )


_LOWER_JOIN = re.compile(r"\s(and|or)\s")


def _joined_guards(spec: Spec) -> Iterator[Finding]:
    """A guard whose words are guards the spec asks elsewhere, or terms it defines, joined
    by a lower-case `and` / `or` (`charge succeeds and retries exhausted` beside rows
    asking `charge succeeds` and `retries exhausted`; `ready to ship and approved` where
    `ready to ship` is a term): one question of its own for the project's code, whose
    answer the analysis cannot relate to theirs. A warning naming the capitals to write
    for the guards joined."""
    guards = {a.param: a for a in spec.own_guards}
    terms = {_phrase(t.phrase): t for t in spec.terms}
    for atom in spec.own_guards:
        words = spec.words.get(atom, (atom.param, ""))[0] or atom.param
        parts = _LOWER_JOIN.split(words)[::2]
        others = [guards.get(guard(part)[0]) for part in parts]
        if len(parts) < 2 or any(
            (o is None and _phrase(part) not in terms and not _method_name(part)) or o == atom
            for o, part in zip(others, parts, strict=True)
        ):
            continue
        asked = ", ".join(dict.fromkeys(r for o in others if o for r in spec.rows_asking(o)))
        if all(others):
            known = ", ".join(repr(p) for p in parts) + f" are guards of rules {asked}"
        elif all(o is None and _method_name(p) for o, p in zip(others, parts, strict=True)):
            known = ", ".join(repr(p) for p in parts) + " are written as methods' names"
        else:  # each part said: `'ready to ship' is a term (line 7) and 'approved' a guard ...`
            said = [
                f"{p!r} a guard of rule{'s' if len(spec.rows_asking(o)) > 1 else ''} "
                + ", ".join(spec.rows_asking(o))
                if o is not None
                else f"{p!r} a method's name"
                if _phrase(p) not in terms
                else f"{p!r} a term (line {terms[_phrase(p)].line})"
                if terms[_phrase(p)].line
                else f"{p!r} a term of the vocabulary"
                for o, p in zip(others, parts, strict=True)
            ]
            known = said[0].replace(" a ", " is a ", 1) + "".join(
                f"{' and' if i == len(said) - 1 else ','} {part}"
                for i, part in enumerate(said[1:], 1)
            )
        written = _LOWER_JOIN.sub(lambda m: f" {m.group(1).upper()} ", words)
        rows = spec.rows_asking(atom)
        row = next(r for r in spec.rows if r.id == rows[0])
        yield Finding(
            "own_guard_joined",
            f"the guard {words!r} (rule{'s' if len(rows) > 1 else ''} {', '.join(rows)}) is "
            f"one question for the project's code, {atom.param}, though "
            + f"{known}, so the analysis cannot relate them: write "
            f"`{written}` for those guards joined, or reword it if it is a question of its own",
            line=row.line,
            rule=row.id,
        )


def _method_name(words: str) -> bool:
    """Whether words are written as a method's name (`is_paid`, `isPaid`): a question of
    the project's code of their own, never part of a guard's words."""
    return (
        re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]*)+", words.strip())
        is not None
    )


def _phrase(words: str) -> str:
    """Words as a term's phrase is matched: lower case, one space apart."""
    return " ".join(words.lower().split())


# A guard's words that end in a note in parentheses: `card ok (verified by Stripe)`.
_NOTED = re.compile(r"(?P<base>[^()]*\S)\s*\((?P<note>[^()]*)\)")


def _noted_guards(spec: Spec) -> Iterator[Finding]:
    """A guard whose words are a guard the spec asks elsewhere with a note in parentheses
    (`card ok (verified by Stripe)` beside `NOT card ok`): a question of its own for the
    project's code, `card_ok_verified_by_stripe`, which the analysis cannot relate to
    `card_ok`, so the cell's gap or overlap is not what the author meant. A warning
    saying to write the guard alone."""
    guards = {a.param: a for a in spec.own_guards}
    for atom in spec.own_guards:
        words = spec.words.get(atom, (atom.param, ""))[0] or atom.param
        m = _NOTED.fullmatch(words.strip())
        other = guards.get(guard(m["base"])[0]) if m else None
        if m is None or other is None or other == atom:
            continue
        rows, asked = spec.rows_asking(atom), spec.rows_asking(other)
        row = next(r for r in spec.rows if r.id == rows[0])
        yield Finding(
            "own_guard_noted",
            f"the guard {words!r} (rule{'s' if len(rows) > 1 else ''} {', '.join(rows)}) is "
            f"one question for the project's code, {atom.param}, its note "
            f"'({m['note']})' part of its name, though {m['base']!r} is the guard of "
            f"rule{'s' if len(asked) > 1 else ''} {', '.join(asked)}, so the analysis cannot "
            "relate them: write "
            f"the guard alone, `{m['base']}`, and the note in a column of its own, or reword "
            "it if it is a question of its own",
            line=row.line,
            rule=row.id,
        )


def _plain(text: str) -> str:
    """A condition's text with its signs in one spelling, to tell a reading that only
    respells it (`amount >= 1000`, `amount ≥ 1000`) from one that says it otherwise."""
    for sign, one in ((">=", "≥"), ("<=", "≤"), ("!=", "≠")):
        text = text.replace(sign, one)
    return " ".join(text.strip("[]() ").lower().split())
