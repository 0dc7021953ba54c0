"""States, spells and families matched by name across two specs, and renames found: a
new state that behaves like a removed one (the same Indicators, every spell doing the
same) is that state renamed; a `*Formerly*` name declares one."""

from __future__ import annotations

import difflib

from ..budget import check
from .cells import acts_differently
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
    for old_name in removed:
        if old_name in renames or old_name in diff.merged:
            continue
        check("matching removed states to added ones")
        alike = list(by_evidence.get(evidence[old_name], ()))
        if len(alike) <= MAX_RANKED:  # the closest name first; past that, in their order
            alike.sort(key=lambda n: -difflib.SequenceMatcher(None, old_name, n).ratio())
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
    diff.states_renamed = [Renamed(o, n, formerly.get(o) == n) for o, n in renames.items()]
    diff.states_added = [s for s in added if s not in renames.values()]
    diff.states_removed = [s for s in removed if s not in renames]


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
    for was in removed:
        for now in added:
            check("matching removed spells to added ones")
            if all(
                not acts_differently(
                    diff.old.cell(back.get(st, st), was), diff.new.cell(st, now), renames
                )
                for st in common
            ):
                diff.spells_renamed.append((was, now))
                added.remove(now)
                break
    renamed = {o for o, _ in diff.spells_renamed}
    diff.spells_added = added
    diff.spells_removed = [s for s in removed if s not in renamed]


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
