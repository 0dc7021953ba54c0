"""States, spells, families and rows matched across two specs, and renames found: a
new state that behaves like a removed one (the same Indicators, every spell doing the
same) is that state renamed; a `*Formerly*` name declares one. Rows with written IDs
are matched by their ID; rows numbered by their place (a table with no ID column) by
what they say, so a row inserted above others is one row added, not every row below
it changed."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

from ..budget import check
from ..model import RuleRow, RuleSpec, spelled
from .cells import act_key, acts_differently, instructions, plain
from .result import Renamed, SpecDiff

# A removed state's candidates (added states with its Indicators) are ranked by how alike
# their names are when there are at most this many: ranking thousands costs minutes.
MAX_RANKED = 200


def match_states(diff: SpecDiff) -> None:
    added = [s.name for s in diff.new.states if s.name not in diff.old.states_by_name]
    removed = [s.name for s in diff.old.states if s.name not in diff.new.states_by_name]
    formerly = diff.new.formerly
    # Renames the spec declares: a new state that says it was a removed one.
    renames: dict[str, str] = {}
    for old_name in removed:
        taker = formerly.get(old_name)
        if taker in added and taker not in renames.values():
            renames[old_name] = taker
        elif taker is not None:
            diff.merged[old_name] = taker
    # Renames it does not: the same Indicators, and every spell doing the same.
    evidence = {s.name: s.evidence for s in diff.old.states}
    taken = set(renames.values())
    by_evidence: dict[object, list[str]] = {}
    for n in added:
        if n not in taken:
            by_evidence.setdefault(diff.new.state(n).evidence, []).append(n)
    candidates: dict[str, list[str]] = {}
    ties: dict[str, list[str]] = {}
    into: tuple[_Into, _Into] | None = None
    for old_name in removed:
        if old_name in renames or old_name in diff.merged:
            continue
        check("matching removed states to added ones")
        alike = list(by_evidence.get(evidence[old_name], ()))
        if len(alike) <= MAX_RANKED:
            # the one the same rows enter first (`close` in open when finished, both
            # before and after), then the closest name; past that, in their order
            if into is None:  # read once, on the first removed state ranked
                into = (_entering(diff.old.rules), _entering(diff.new.rules))
            was = into[0].get(old_name, set())
            entered = {n: len(was & into[1].get(n, set())) for n in alike}
            alike.sort(
                key=lambda n: (-entered[n], -difflib.SequenceMatcher(None, old_name, n).ratio())
            )
            # where two are entered alike, the name chose: said with the rename
            ties[old_name] = [n for n in alike if entered[n] == entered[alike[0]]]
        candidates[old_name] = alike
    tentative = dict(renames)
    chosen = set(tentative.values())
    for old_name, alike in candidates.items():
        for n in alike:
            if n not in chosen:
                tentative[old_name] = n
                chosen.add(n)
                break
    spells = diff.spell_map
    for old_name in candidates:
        taker = tentative.get(old_name)
        if taker is None:
            continue
        check("matching removed states to added ones")
        alike_everywhere = all(
            not acts_differently(
                diff.old.cell(old_name, spells[sp.name]), diff.new.cell(taker, sp.name), tentative
            )
            for sp in diff.new.spells
            if sp.name in spells
        )
        if alike_everywhere:
            renames[old_name] = taker
    # a state another rename took beyond doubt (entered by its rows alone) is no guess
    sure = {n for o, n in renames.items() if ties.get(o, [n]) == [n]}
    diff.states_renamed = [
        Renamed(
            o, n, formerly.get(o) == n, tuple(m for m in ties.get(o, ()) if m not in sure | {n})
        )
        for o, n in renames.items()
    ]
    diff.states_added = [s for s in added if s not in renames.values()]
    diff.states_removed = [s for s in removed if s not in renames]


# The moves into each state from another: (source, spell, condition as written).
_Into = dict[str, set[tuple[str, str, str]]]


def _entering(rules: Sequence[RuleSpec]) -> _Into:
    """The moves into each state from another, by the state: read in one pass."""
    found: _Into = {}
    for r in rules:
        if r.dest != r.source:
            found.setdefault(r.dest, set()).add(
                (r.source, r.spell, " ".join(r.condition.text.split()))
            )
    return found


def match_spells(diff: SpecDiff) -> None:
    """Spells by name; a new spell that does what a removed one did in every state is
    that spell renamed."""
    old = [s.name for s in diff.old.spells]
    new = [s.name for s in diff.new.spells]
    added = [s for s in new if s not in old]
    removed = [s for s in old if s not in new]
    renames = diff.renames
    back = {n: o for o, n in renames.items()}
    old_states = diff.old.states_by_name
    common = [s.name for s in diff.new.states if back.get(s.name, s.name) in old_states]

    def alike(was: str, now: str) -> bool:
        return all(
            not acts_differently(
                diff.old.cell(back.get(st, st), was), diff.new.cell(st, now), renames
            )
            for st in common
        )

    # Renames the spec declares: a new spell whose `*Formerly*` names a removed one.
    for was, now in _declared(diff, removed, added):
        check("matching removed spells to added ones")
        if now not in added:  # `*Formerly*: A, B`: one spell takes the place of one
            continue
        diff.spells_renamed.append((was, now))
        diff.spells_declared.append((was, now))
        if not alike(was, now):
            diff.spells_renamed_changed.append((was, now))
        added.remove(now)
        removed.remove(was)
    for was in removed:
        for now in added:
            check("matching removed spells to added ones")
            if alike(was, now):
                diff.spells_renamed.append((was, now))
                added.remove(now)
                break
    renamed = {o for o, _ in diff.spells_renamed}
    for was in [s for s in removed if s not in renamed]:
        taker = _taker(diff, was, added)
        if taker is not None:  # renamed, and doing something else too: its cells compared
            diff.spells_renamed.append((was, taker))
            diff.spells_renamed_changed.append((was, taker))
            added.remove(taker)
            renamed.add(was)
    diff.spells_added = added
    diff.spells_removed = [s for s in removed if s not in renamed]


def _declared(diff: SpecDiff, removed: list[str], added: list[str]) -> list[tuple[str, str]]:
    """(old, new) for each added spell whose `*Formerly*` names a removed spell, by its
    name or as a table wrote it; a removed spell two added ones claim is neither's."""
    names = {}
    for spell in diff.old.spells:
        if spell.name in removed:
            names[spelled(spell.name)] = spell.name
            if spell.title:
                names.setdefault(spelled(spell.title), spell.name)
    claims: dict[str, list[str]] = {}
    for spell in diff.new.spells:
        if spell.name in added:
            for former in spell.formerly:
                was = names.get(spelled(former))
                if was is not None and spell.name not in claims.setdefault(was, []):
                    claims[was].append(spell.name)
    return [(was, takers[0]) for was, takers in claims.items() if len(takers) == 1]


def _taker(diff: SpecDiff, was: str, added: list[str]) -> str | None:
    """The added spell that takes the removed spell `was`'s place in its rows, where it
    does not act the same everywhere: the one that the rows of the same ID and From
    states name where they named `was`, in at least half of those rows (and no other
    added spell as often)."""
    renames = diff.renames
    new_rows = {r.id: r for r in diff.new.rows}
    named = [r for r in diff.old.rows if was in r.triggers]
    counts = dict.fromkeys(added, 0)
    for row in named:
        twin = new_rows.get(row.id)
        if twin is None or _from(row, renames) != _from(twin, {}):
            continue
        for now in added:
            if tuple(now if t == was else t for t in row.triggers) == twin.triggers:
                counts[now] += 1
    best = sorted(counts.items(), key=lambda c: -c[1])[:2]
    if not best or best[0][1] * 2 < len(named) or best[0][1] == 0:
        return None
    if len(best) > 1 and best[1][1] == best[0][1]:
        return None  # two spells as likely: neither is said to be it
    return best[0][0]


def _from(row: RuleRow, renames: dict[str, str]) -> tuple[bool, tuple[str, ...]]:
    """The From states of a row, a renamed state by its new name."""
    return (row.current.wildcard, tuple(sorted(renames.get(n, n) for n in row.current.names)))


def match_families(diff: SpecDiff) -> None:
    renames = diff.renames
    # A state without siblings is a family of one: said with the states.
    old = {
        f.name: tuple(renames.get(m, m) for m in f.members)
        for f in diff.old.families
        if len(f.members) > 1
    }
    new = {f.name: f.members for f in diff.new.families if len(f.members) > 1}
    by_members = {members: name for name, members in new.items()}
    for name, members in old.items():
        if name in new:
            continue
        if members in by_members and by_members[members] not in old:
            diff.families_renamed.append((name, by_members[members]))
        else:
            diff.families_removed.append(name)
    renamed = {n for _, n in diff.families_renamed}
    diff.families_added = [n for n in new if n not in old and n not in renamed]


def _row_key(
    row: RuleRow, renames: dict[str, str], events: dict[str, str] | None = None
) -> dict[str, object]:
    """What a row says, each part compared apart; in an old row (`renames`, `events`: the
    renamed states and spells, old name -> new), a renamed state or spell by its new name."""

    def name(n: str | None) -> str | None:
        return renames.get(n, n) if n else n

    events = events or {}
    return {
        "states": _from(row, renames),
        "spells": tuple(events.get(t, t) for t in row.triggers),
        "condition": frozenset(frozenset(c) for c in row.condition.clauses),
        "next state": (row.target.kind, name(row.target.name)),
        "actions": act_key(row.actions),
        "response": plain(row.response or row.response_ref),
        "instructions": instructions(row.actions),
    }


def match_rows(diff: SpecDiff) -> None:
    """Rows with written IDs by their ID (a new ID saying exactly what a removed one said
    is that row renamed); rows numbered by their place (`RuleRow.numbered`) by what they
    say (`_by_what_they_say`), a row whose number moved said so."""
    renames = diff.renames
    events = dict(diff.spells_renamed)
    old = {r.id: _row_key(r, renames, events) for r in diff.old.rows if not r.numbered}
    new = {r.id: _row_key(r, {}) for r in diff.new.rows if not r.numbered}
    old_rows = {r.id: r for r in diff.old.rows}
    new_rows = {r.id: r for r in diff.new.rows}
    gone = [i for i in old if i not in new]
    came = [i for i in new if i not in old]
    for i in list(gone):
        twin = next((j for j in came if new[j] == old[i]), None)
        if twin is not None:
            diff.rules_renamed.append((i, twin))
            gone.remove(i)
            came.remove(twin)
    for i, key in new.items():
        if i in old:
            diff.rows_paired[i] = i
            _changed(diff, old_rows[i], new_rows[i], old[i], key)
    old_numbered = [r for r in diff.old.rows if r.numbered]
    new_numbered = [r for r in diff.new.rows if r.numbered]
    if old_numbered or new_numbered:
        # A table given an ID column (or losing one): its rows too are matched by what
        # they say, their numbers meaning nothing on the side that numbers them.
        if new_numbered:
            old_numbered += [r for r in diff.old.rows if r.id in gone]
            gone = []
        if old_numbered:
            new_numbered += [r for r in diff.new.rows if r.id in came]
            came = []
        _by_what_they_say(diff, old_numbered, new_numbered)
    diff.rules_removed = gone + diff.rules_removed
    diff.rules_added = came + diff.rules_added


# What a row says, for matching: its From states, its events, its condition and its To.
_SAYS = ("states", "spells", "condition", "next state")


def _by_what_they_say(diff: SpecDiff, old: Sequence[RuleRow], new: Sequence[RuleRow]) -> None:
    """Old and new rows paired by what they say: first the rows that say all the same,
    then those whose From, events, condition and To are the same (the rest changed),
    then those where one of the four changed; each old row, in order, with the first new
    row left that fits. A state or event renamed is its new name in the old rows."""
    renames = diff.renames
    spells = {was: now for was, now in diff.spells_renamed}

    def full(row: RuleRow, names: dict[str, str], events: dict[str, str]) -> tuple[object, ...]:
        return tuple(_row_key(row, names, events).values())

    def says(row: RuleRow, names: dict[str, str], events: dict[str, str]) -> tuple[object, ...]:
        key = _row_key(row, names, events)
        return tuple(key[k] for k in _SAYS)

    def one_changed(key: tuple[object, ...]) -> list[tuple[object, ...]]:
        return [(i, *key[:i], *key[i + 1 :]) for i in range(len(key))]

    old_keys = {r.id: (full(r, renames, spells), says(r, renames, spells)) for r in old}
    new_keys = {r.id: (full(r, {}, {}), says(r, {}, {})) for r in new}
    passes: list[Callable[[str, bool], list[tuple[object, ...]]]] = [
        lambda i, was: [old_keys[i][0] if was else new_keys[i][0]],
        lambda i, was: [old_keys[i][1] if was else new_keys[i][1]],
        lambda i, was: one_changed(old_keys[i][1] if was else new_keys[i][1]),
    ]
    left = [r.id for r in old]
    taken: set[str] = set()
    paired: list[tuple[str, str]] = []
    order = {r.id: n for n, r in enumerate(new)}
    old_rows, new_rows = {r.id: r for r in old}, {r.id: r for r in new}
    for keys_of in passes:
        check("matching the rows of the two specs")
        waiting: dict[tuple[object, ...], list[str]] = {}
        for r in new:
            if r.id not in taken:
                for k in keys_of(r.id, False):
                    waiting.setdefault(k, []).append(r.id)
        for i in list(left):
            fits = [j for k in keys_of(i, True) for j in waiting.get(k, ()) if j not in taken]
            if fits:
                j = min(fits, key=order.__getitem__)
                taken.add(j)
                left.remove(i)
                paired.append((i, j))
    for was, now in sorted(paired, key=lambda p: order[p[1]]):
        diff.rows_paired[now] = was
        if was != now:
            diff.rules_renumbered.append((was, now))
        before, after = _row_key(old_rows[was], renames, spells), _row_key(new_rows[now], {})
        _changed(diff, old_rows[was], new_rows[now], before, after)
    diff.rules_removed += left
    diff.rules_added += [r.id for r in new if r.id not in taken]


def _changed(
    diff: SpecDiff,
    was: RuleRow,
    now: RuleRow,
    before: dict[str, object],
    after: dict[str, object],
) -> None:
    """The row `now` (of the new spec; `was` of the old) changed where what they say
    (`_row_key`, `before` and `after`) differs; a spell renamed in it is said as such
    (`event renamed`, in the spec's word), never as other spells."""
    what = [k for k in after if before[k] != after[k]]
    if was.triggers != now.triggers and before["spells"] == after["spells"]:
        what.insert(0, f"{diff.new.spell_word} renamed")
    if what:
        diff.rules_changed.append((now.id, tuple(what)))
