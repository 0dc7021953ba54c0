"""What changes between two specs: the two machines compared, not the two texts.

States, families, spells and rows are matched by name; a state of the new spec
that behaves like a removed one (the same Indicators, and every spell doing
the same in it) is a rename, and one whose `*Formerly*` names a removed state
carries that state's workspaces across (a migration). Then every (state, spell)
is examined in every world its old and new conditions can see (`logic`):
wherever the winning rule's outcome (next state, file actions, blocked or no
change) differs, that is a behaviour change, said in the facts that tell those
worlds apart. A reordering that changes no outcome, a renamed column, a
formatter's rewriting or a condition reworded with the same meaning changes
nothing and prints nothing.

What the developer and the AI are told (a rule's Response, its instructions,
the response templates) is compared as well and reported apart, and so are the
verifier's findings that appear or disappear.

A change can break existing workspaces when a state that a state file may name
is gone with no state saying it was `*Formerly*` that name; in a machine of the
project's own code (`own_code`), it can break the code that calls the machine
when a trigger is removed or renamed.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from ..analyse import Finding, Severity, analyse
from ..analyse.reading import Reading, changed, read_spec
from ..budget import stage
from ..model import Spec, Term
from ..read.lexicon import Lexicon, ReadOptions, normal
from .cells import compare_cells, imperative, plain
from .match import match_families, match_rows, match_spells, match_states
from .result import SpecDiff

# Findings about how the markdown was read, not about what the machine does: a
# formatter's rewriting shows up here and means nothing to the machine.
READING_KINDS = frozenset({"name_recovered", "column_choice", "table_skipped", "blocked_reasons"})
# Notes said once of a whole spec, whose words count and list its states and spells: the
# same note in both specs, recounted, is no news (a note that appears or goes still is).
SPEC_NOTES = frozenset({"names_from_tables", "unlisted_rejected"})


def compare(old: Spec, new: Spec, borrowed: tuple[Term, ...] = ()) -> SpecDiff:
    """Everything that differs between what `old` and `new` make the machine do."""
    diff = SpecDiff(old, new, borrowed=borrowed)
    stage("matching the states and spells of the two specs")
    match_states(diff)
    match_spells(diff)
    match_families(diff)
    _storage(diff)
    stage("comparing the rows of the two specs")
    _described(diff)
    match_rows(diff)
    diff.readings_changed = changed(
        _events_renamed(read_spec(old), dict(diff.spells_renamed)),
        read_spec(new),
        diff.renames,
        diff.rows_paired,
    )
    compare_cells(diff)
    _templates(diff)
    _file_templates(diff)
    _still_named(diff)
    stage("comparing the findings of the two specs")
    _findings(diff)
    return diff


def _still_named(diff: SpecDiff) -> None:
    """The spells renamed or removed whose old name a Response cell of the new spec still
    says (`then Approve.`, `` `spell approve` ``), with the rows saying it: what the AI
    and the developer are told names a spell that is gone."""
    gone = [old for old, _ in diff.spells_renamed] + list(diff.spells_removed)
    triggers = {s.name: s.trigger for s in diff.old.spells}
    for name in gone:
        # the spell as the spec names it, or its command (`reparo`, `spell reparo`): not
        # the word in prose (`the reparo step`)
        trigger = re.escape(triggers.get(name, name))
        word = re.escape(diff.old.spell_word)
        pattern = re.compile(
            rf"(?<![\w-]){re.escape(name)}(?![\w-])|`{trigger}`"
            rf"|\bspell (?:cast )?{trigger}\b|(?<![\w/])/{trigger}\b"
            rf"|\bthe {trigger} {word}\b"
        )
        rows = [r.id for r in diff.new.rows if pattern.search(r.response)]
        if rows:
            diff.still_named.append((name, list(dict.fromkeys(rows))))


def _events_renamed(reading: Reading, events: dict[str, str]) -> Reading:
    """The old spec's reading with each renamed spell (`events`, old name -> new) by its
    new name: a row that only names a renamed spell is not read differently."""
    if not events:
        return reading
    rows = tuple(replace(r, spells=tuple(events.get(s, s) for s in r.spells)) for r in reading.rows)
    return replace(reading, rows=rows)


def _storage(diff: SpecDiff) -> None:
    """Where workspaces keep their state, where a new one starts, and the migrations."""
    old, new = diff.old, diff.new
    if old.state_file != new.state_file:
        diff.state_file = (old.state_file, new.state_file)
    if old.schema.state_key != new.schema.state_key:
        diff.state_key = (old.schema.state_key, new.schema.state_key)
    renames = diff.renames
    if renames.get(old.initial, old.initial) != new.initial:
        diff.initial = (old.initial, new.initial)
    diff.migrations_dropped = {
        was: now
        for was, now in old.formerly.items()
        if was not in new.formerly and was not in new.states_by_name
    }
    old_names = {*old.states_by_name, *old.formerly}
    diff.formerly_unknown = [(w, n) for w, n in new.formerly.items() if w not in old_names]


def _described(diff: SpecDiff) -> None:
    """Each state's Indicators (what `spell repair` reads from the files) and the
    descriptions of states and spells."""
    old, new = diff.old, diff.new
    back = {n: o for o, n in diff.renames.items()}
    old_states = old.states_by_name
    for state in new.states:
        was = back.get(state.name, state.name)
        if was not in old_states:
            continue
        before = old.state(was)
        if set(before.evidence) != set(state.evidence):
            diff.indicators_changed.append(state.name)
        if plain(before.description) != plain(state.description):
            diff.descriptions_changed.append(f"state {state.name}")
    spells = {s.name: s for s in old.spells}
    spell_map = diff.spell_map
    for spell in new.spells:
        was_spell = spells.get(spell_map.get(spell.name, ""))
        if was_spell is not None and (plain(was_spell.description), plain(was_spell.usage)) != (
            plain(spell.description),
            plain(spell.usage),
        ):
            diff.descriptions_changed.append(f"{new.spell_word} {spell.name}")


def _templates(diff: SpecDiff) -> None:
    old = {t.kind: plain(t.text) for t in diff.old.templates}
    new = {t.kind: plain(t.text) for t in diff.new.templates}
    diff.templates_changed = [k for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k)]


def _file_templates(diff: SpecDiff) -> None:
    """The files rules create from a template (`Create notes.md`) whose template's text
    changed between the specs' vocabularies (the older read as it was at its revision):
    what the machine writes is another text, though no row changed. Each with the rows
    of the new spec that create it."""

    def made(spec: Spec) -> dict[str, tuple[str, list[str]]]:
        lexicon = Lexicon.of(ReadOptions(spec.vocabulary, own_code=spec.own_code))
        found: dict[str, tuple[str, list[str]]] = {}
        for row in spec.rows:
            for action in row.actions:
                if action.verb != "create" or action.content:
                    continue
                for file in action.files:
                    text = lexicon.template_of(file)[1]
                    if text:
                        found.setdefault(file, (text, []))[1].append(row.id)
        return found

    if not (diff.old.vocabulary or diff.new.vocabulary):
        return
    old, new = made(diff.old), made(diff.new)
    diff.file_templates_changed = [
        (file, list(dict.fromkeys(rows)))
        for file, (text, rows) in new.items()
        if file in old and old[file][0] != text
    ]


_LINE = re.compile(r" \(line \d+\)|\blines? \d+(?:(?:, | and | to )\d+)*")
# An action quoted after its number, `action (2) ('Archives task files')`: its number says
# which one, whatever words the spec's dialect gives it.
_QUOTED_ACTION = re.compile(r"(action \(\d+\)) \((?:'[^']*'|\"[^\"]*\")\)")


def _findings(diff: SpecDiff) -> None:
    renames = {**diff.renames, **dict(diff.spells_renamed)}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, renames)) + r")\b") if renames else None

    def key(f: Finding, mapped: bool) -> tuple[str, str]:
        # The same finding, moved, or quoting a phrase reworded in another person, is
        # the same finding.
        if f.kind in SPEC_NOTES:
            return f.kind, ""
        message = _QUOTED_ACTION.sub(r"\1", _LINE.sub("", f.message))
        if mapped and pattern is not None:
            message = pattern.sub(lambda m: renames[m.group(1)], message)
        return f.kind, " ".join(imperative(w) for w in message.lower().split())

    skip = set(READING_KINDS)
    if not (os.path.isfile(diff.old.path) and os.path.isfile(diff.new.path)):
        skip.add("missing_response")  # response files beside a spec read from git: unseen
    old = [f for f in analyse(diff.old) if f.kind not in skip]
    found = analyse(diff.new)
    diff.errors = sum(f.severity is Severity.ERROR for f in found)
    new = [f for f in found if f.kind not in skip]
    old_keyed = [(key(f, True), f) for f in old]
    new_keyed = [(key(f, False), f) for f in new]
    old_keys = {k for k, _ in old_keyed}
    new_keys = {k for k, _ in new_keyed}
    diff.findings_new = [f for k, f in new_keyed if k not in old_keys]
    diff.findings_gone = [f for k, f in old_keyed if k not in new_keys]


def borrowed_terms(old: Spec, new: Spec) -> tuple[Term, ...]:
    """The new spec's terms for phrases the old one uses without defining."""
    unknown = {normal(p) for r in old.rows for p in r.condition.unknown}
    return tuple(t for t in new.terms if normal(t.phrase) in unknown)
