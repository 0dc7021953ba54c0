"""Two specs compared cell by cell: where the winning rule's outcome, or what it says,
differs, in which worlds (`logic`), said in the facts that tell those worlds apart."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

from spellbook.verbs.actions import passive

from ..budget import check
from ..logic import MAX_ATOMS, MAX_FACTS, Worlds, WorldSet, closure, describer, lowest
from ..model import ActionSpec, Atom, Kind, LiteralSpec, RuleSpec
from ..read.lexicon import normal
from .result import Change, Outcome, SpecDiff

Clauses = tuple[tuple[LiteralSpec, ...], ...]


def _acts(actions: Iterable[ActionSpec], files: bool = False) -> tuple[str, ...]:
    """The actions that change files or fields, as the spec writes them; with `files`,
    each followed by the files it acts on (a file group's, which its words do not name)."""
    return tuple(
        f"{a.text} ({', '.join(a.files)})" if files and a.files else a.text
        for a in actions
        if not passive(a.verb)
    )


def act_key(actions: Sequence[ActionSpec]) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """What the actions do: an extract of "every key the archive folders name" is said
    by those keys, as when the spec names them."""
    named = {v for a in actions if a.verb == "archive" for v in _VARIABLE.findall(a.target)}
    wanted = ",".join(sorted(named - {"date"}))  # the date is the runtime's own
    return tuple(
        (a.verb, a.files, a.target or (wanted if a.verb == "extract" else ""))
        for a in actions
        if not passive(a.verb)
    )


_VARIABLE = re.compile(r"\$\{(\w+)\}")


def instructions(actions: Iterable[ActionSpec]) -> tuple[str, ...]:
    """What the AI is told to do beyond what the runtime does, as compared: "Archives
    task files" and "Archive task files" say one thing."""
    return tuple(imperative(plain(a.text).lower()) for a in actions if a.verb == "instruct")


def imperative(text: str) -> str:
    """The first word as an imperative: "copies" -> "copy", "archives" -> "archive"."""
    word, space, rest = text.partition(" ")
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith(("ches", "shes", "sses", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word + space + rest


def _kind(rule: RuleSpec) -> Kind:
    """What the rule does as the runtime says it (`CastResult.outcome`): a transition
    that leads back to its own state is a no-op."""
    return Kind.NOOP if rule.kind == Kind.TRANSITION and not rule.changes_state else rule.kind


def _behaviour(rule: RuleSpec | None, renames: dict[str, str]) -> tuple[object, ...]:
    if rule is None:
        return ("gap",)
    kind = _kind(rule)
    dest = renames.get(rule.dest, rule.dest) if kind == Kind.TRANSITION else ""
    return (kind, dest, act_key(rule.actions))


def _told(rule: RuleSpec | None) -> tuple[str, ...]:
    if rule is None:
        return ()
    return (plain(rule.response or rule.response_ref), *instructions(rule.actions))


def _outcome(rule: RuleSpec | None, renames: dict[str, str], files: bool = False) -> Outcome:
    if rule is None:
        return Outcome(None, "", "")
    kind = _kind(rule)
    dest = renames.get(rule.dest, rule.dest) if kind == Kind.TRANSITION else ""
    return Outcome(rule.id, kind.value, dest, _acts(rule.actions, files))


def _outcomes(
    was: RuleSpec | None, now: RuleSpec | None, renames: dict[str, str]
) -> tuple[Outcome, Outcome]:
    """What the old and new rules do; where their actions read alike and act on other
    files (a file group that gained a file, a vocabulary changed), with those files."""
    before, after = _outcome(was, renames), _outcome(now, {})
    if (
        was is not None
        and now is not None
        and before.actions == after.actions
        and act_key(was.actions) != act_key(now.actions)
    ):
        return _outcome(was, renames, True), _outcome(now, {}, True)
    return before, after


@lru_cache(maxsize=256)
def _pairs(
    old: tuple[Clauses, ...], new: tuple[Clauses, ...]
) -> tuple[tuple[Atom, ...], dict[tuple[int, int], WorldSet]] | None:
    """For each (old winner, new winner), by index (-1: none fires), the worlds where
    they win (a set, `Worlds`, or past MAX_ATOMS facts a formula), in the order of the
    first world of each; None past MAX_FACTS facts."""
    atoms = closure(lit.atom for clauses in (*old, *new) for c in clauses for lit in c)
    if len(atoms) > MAX_FACTS:
        return None
    if len(atoms) > MAX_ATOMS:
        return atoms, _held_pairs(old, new, atoms)
    space = Worlds(atoms)

    def winners(conditions: tuple[Clauses, ...]) -> list[tuple[int, int]]:
        found, taken = [], 0
        for i, clauses in enumerate(conditions):
            worlds = space.condition(clauses) & space.consistent & ~taken
            taken |= worlds
            found.append((i, worlds))
        return [*found, (-1, space.consistent & ~taken)]

    found: dict[tuple[int, int], WorldSet] = {}
    for i, was in winners(old):
        for j, now in winners(new):
            if was & now:
                found[(i, j)] = was & now
    ordered = sorted(found.items(), key=lambda item: lowest(item[1]) or 0)  # type: ignore[arg-type]
    return atoms, dict(ordered)


def _held_pairs(
    old: tuple[Clauses, ...], new: tuple[Clauses, ...], atoms: tuple[Atom, ...]
) -> dict[tuple[int, int], WorldSet]:
    """`_pairs` with a SAT solver, for a cell of more than MAX_ATOMS facts."""
    from ..solver import Formula, Held

    f = Formula(atoms)

    def winners(conditions: tuple[Clauses, ...]) -> list[tuple[int, int]]:
        won, none = f.firsts([f.condition(c) for c in conditions])
        return [*enumerate(won), (-1, none)]

    first: dict[tuple[int, int], tuple[int, WorldSet]] = {}
    for i, was in winners(old):
        for j, now in winners(new):
            both = f.all_of([was, now])
            at = f.least([both])
            if at is not None:
                first[(i, j)] = (at, Held(f, both))
    return {k: held for k, (_, held) in sorted(first.items(), key=lambda item: item[1][0])}


def _differences(
    old: Sequence[RuleSpec],
    new: Sequence[RuleSpec],
    renames: dict[str, str],
    same_row: Callable[[str | None, str | None], bool] | None = None,
) -> list[tuple[RuleSpec | None, RuleSpec | None, tuple[Atom, ...], WorldSet, str]]:
    """Where one cell's old and new rules do different things: (old winner, new winner,
    atoms, worlds (a set, `Worlds`), "behaviour" or "told"); one entry with no worlds if
    the cell cannot be compared world by world. `same_row` says whether an old and a new
    rule come of one row (`SpecDiff.same_row`; by default, of one ID)."""
    paired = _pairs(
        tuple(r.condition.clauses for r in old), tuple(r.condition.clauses for r in new)
    )
    if paired is None:
        same = [(r.condition.clauses, _behaviour(r, renames)) for r in old] == [
            (r.condition.clauses, _behaviour(r, {})) for r in new
        ]
        return [] if same else [(None, None, (), 0, "too complex")]
    atoms, pairs = paired
    found = []
    for (i, j), worlds in pairs.items():
        was = old[i] if i >= 0 else None
        now = new[j] if j >= 0 else None
        changed = _behaviour(was, renames) != _behaviour(now, {})
        if changed:
            found.append((was, now, atoms, worlds, "behaviour"))
        # What is said changes with the rule that wins; said apart when the rule is the
        # same (or the behaviour is), so a new instruction is never hidden.
        if same_row is None:
            same_rule = was is not None and now is not None and was.id == now.id
        else:
            same_rule = same_row(was.id if was else None, now.id if now else None)
        if (same_rule or not changed) and _told(was) != _told(now):
            found.append((was, now, atoms, worlds, "told"))
    return found


def acts_differently(
    old: Sequence[RuleSpec], new: Sequence[RuleSpec], renames: dict[str, str]
) -> bool:
    """Whether the cell behaves differently in some world (what it says aside: a renamed
    state or spell is named in its texts)."""
    return any(what != "told" for *_, what in _differences(old, new, renames))


def compare_cells(diff: SpecDiff) -> None:
    renames = diff.renames
    back = {n: o for o, n in renames.items()}
    old_states = diff.old.states_by_name
    spells = diff.spell_map
    # A fact in the words both specs give it; where they differ (a term redefined),
    # in the core's own words, which mean the same in both.
    old_terms = {normal(t.phrase): normal(t.means) for t in (*diff.old.terms, *diff.borrowed)}
    new_terms = {normal(t.phrase): normal(t.means) for t in diff.new.terms}
    redefined = {p for p in {*old_terms, *new_terms} if old_terms.get(p) != new_terms.get(p)}
    when_in = describer(
        {
            atom: said
            for atom, said in {**diff.old.words, **diff.new.words}.items()
            if diff.old.words.get(atom, said) == diff.new.words.get(atom, said)
            and not {normal(said[0]), normal(said[1])} & redefined
        }
    )
    # (as said, the state in the old spec, the state in the new): each state both have,
    # and each removed state whose workspaces another takes over, against that one.
    pairs = [
        (s.name, back.get(s.name, s.name), s.name)
        for s in diff.new.states
        if back.get(s.name, s.name) in old_states  # a new state is listed as added
    ]
    pairs += [(f"{was} (its workspaces in {now})", was, now) for was, now in diff.merged.items()]
    grouped: dict[tuple[str, str, str, Outcome, Outcome], list[tuple[str, str]]] = {}
    for label, was_named, state in pairs:
        for spell in diff.new.spells:
            if spell.name not in spells:
                continue
            check(f"comparing {spell.name} in {state}")
            old_rules = diff.old.cell(was_named, spells[spell.name])
            new_rules = diff.new.cell(state, spell.name)
            for was, now, atoms, worlds, what in _differences(
                old_rules, new_rules, renames, diff.same_row
            ):
                if what == "too complex":
                    diff.not_compared.append((label, spell.name))
                    continue
                when = when_in(atoms, worlds)
                before, after = _outcomes(was, now, renames)
                key = (
                    what,
                    spell.name,
                    when,
                    _relative(before, state, diff),
                    _relative(after, state, diff),
                )
                grouped.setdefault(key, []).append((label, state))
    # A machine of the project's own code says nothing to a developer or an AI: no
    # responses, no instructions (a rejection's words only name the trigger refused).
    own_code = diff.old.own_code and diff.new.own_code
    for (what, spell_name, when, was_out, now_out), members in grouped.items():
        if own_code and what == "told":
            continue
        for states, before, after in _said(diff, members, was_out, now_out):
            change = Change(spell_name, states, when, before, after, what)
            (diff.changes if what == "behaviour" else diff.told).append(change)


def _said(
    diff: SpecDiff, members: list[tuple[str, str]], was: Outcome, now: Outcome
) -> Iterator[tuple[tuple[str, ...], Outcome, Outcome]]:
    """The states of one change (each `(label, state)`), with its outcomes: a family whose
    members all changed alike said once with its destination's family (`_relative`), and
    a state said alone with its own destination (`ROLLING_BACK_S`, not `_[S/P]`)."""
    labels = [label for label, _ in members]
    relative = {was.state, now.state} & {f.name for f in diff.new.families if len(f.members) > 1}
    whole = [m for m in members if not relative or _whole_family(diff, m[1], labels)]
    if whole:
        yield _families_of(diff, [label for label, _ in whole]), was, now
    alone: dict[tuple[Outcome, Outcome], list[str]] = {}
    for label, state in members:
        if (label, state) not in whole:
            outcomes = (_member(was, state, diff), _member(now, state, diff))
            alone.setdefault(outcomes, []).append(label)
    for (before, after), said in alone.items():
        yield tuple(said), before, after


def _relative(outcome: Outcome, source: str, diff: SpecDiff) -> Outcome:
    """A destination that keeps the source state's family suffix, written `NAME_[G/A]`,
    so the members of a family that change alike are said once."""
    family = diff.new.family_of(source)
    if len(family.members) < 2 or not outcome.state:
        return outcome
    suffix = source[len(family.base) + 1 :]
    if not outcome.state.endswith("_" + suffix):
        return outcome
    if outcome.state not in diff.new.states_by_name:
        return outcome
    target = diff.new.family_of(outcome.state)
    if len(target.members) < 2:
        return outcome
    return Outcome(outcome.rule, outcome.kind, target.name, outcome.actions)


def _whole_family(diff: SpecDiff, state: str, labels: list[str]) -> bool:
    """Whether `state` is of a family of several states all of which are in `labels`."""
    if state not in diff.new.states_by_name:
        return False
    family = diff.new.family_of(state)
    return len(family.members) > 1 and all(m in labels for m in family.members)


def _member(outcome: Outcome, source: str, diff: SpecDiff) -> Outcome:
    """An outcome said for one state: a destination `_relative` wrote as its family
    (`ROLLING_BACK_[S/P]`) is the member of the source's suffix (`ROLLING_BACK_S`)."""
    if not outcome.state or outcome.state in diff.new.states_by_name:
        return outcome
    family = diff.new.family_of(source)
    target = next((f for f in diff.new.families if f.name == outcome.state), None)
    if target is None or len(family.members) < 2:
        return outcome
    member = f"{target.base}_{source[len(family.base) + 1 :]}"
    return Outcome(outcome.rule, outcome.kind, member, outcome.actions)


def _families_of(diff: SpecDiff, states: list[str]) -> tuple[str, ...]:
    """The states, with a whole family said by its name."""
    named: list[str] = []
    for state in states:
        if state not in diff.new.states_by_name:  # a removed state, said with its taker
            named.append(state)
            continue
        family = diff.new.family_of(state)
        if len(family.members) > 1 and all(m in states for m in family.members):
            if family.name not in named:
                named.append(family.name)
        else:
            named.append(state)
    return tuple(named)


_MARKS = re.compile(r"\\(?=[^\w\s])|[*_`]+")


def plain(text: str) -> str:
    """Text as compared: no emphasis marks or escapes, one space between words."""
    return " ".join(_MARKS.sub("", text).split())
