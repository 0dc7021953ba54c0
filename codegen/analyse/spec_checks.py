"""Checks of what is written: names, IDs, conditions, actions, links and repetition."""

from __future__ import annotations

import difflib
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from spellbook.disk.own_files import (
    MODULES,
    OWN_FILE,
    PROGRAM,
    STATE_OF_ANOTHER,
    another_state_file,
    folded,
    others_in,
    own_file,
    program_file,
)
from spellbook.doors.subcommands import COMMANDS
from spellbook.records.words import did, plural, verb

from ..model import RESERVED, ActionSpec, Condition, Kind, RuleRow, Spec, Spell, Term, spelled
from ..read.action_phrases import parse_actions, record_noun, split_phrases
from ..read.conditions import (
    AND_JOIN,
    OUTCOME,
    Words,
    examples,
    files_in,
    parse_condition,
    unbracketed,
)
from ..read.core_phrases import COMPARISON, shown_comparison
from ..read.identifiers import split_outside
from ..read.lexicon import Lexicon, ReadOptions, beside_workspace, normal, workspace_path
from ..read.near_verbs import Aim, aimed_at
from ..read.own_phrases import OTHERWISE, denied, path_in
from ..read.rows import SAME, written_row
from .analysis import Analysis
from .findings import Finding, Severity
from .knock_on import dropped_rows

_PREFIX = re.compile(r"[A-Za-z]+")
# The vocabularies that ship with Spellbook, offered when one reads a phrase a spec's doesn't.
VOCABULARIES = ("spell_workflow", "coding_session")
_FAMILY_REF = re.compile(r"\w+_\[[^\]]*\]")


def check_missing_cells(analysis: Analysis) -> Iterator[Finding]:
    """A (state, spell) no rule names; the first of each spell says the two ways to
    reject such cells: one wildcard row, or the policy that transitions not listed are."""
    spec = analysis.spec
    drops = dropped_rows(spec)  # a cell a row not read would fill is that row's to fix
    told: list[str] = []
    for state in spec.states:
        for spell in spec.spells:
            if not spec.cell(state.name, spell.name):
                fix = ""
                if spell.name not in told and not any(
                    d.touches(state.name, spell.name) for d in drops
                ):
                    fix = _reject_unlisted(spec, spell.name, len(told))
                    told.append(spell.name)
                yield Finding(
                    "missing_cell",
                    f"no rule says what {spell.name} does in state {state.name}{fix}",
                    line=state.line,
                    state=state.name,
                    spell=spell.name,
                )


def _reject_unlisted(spec: Spec, spell: str, before: int) -> str:
    """How to say that `spell` is refused wherever no row names it: a row in the spec's
    own columns, or the sentence (or setting) that makes every such cell refused. A
    table with no trigger column moves by `to_<state>` triggers its To cells name, so no
    row of it can refuse one: there only the sentence says it. `before` rows were
    suggested already: this one takes the next free ID, so all can be pasted at once."""
    taken = {r.id for r in spec.rows}
    free = (f"B{n}" for n in range(1, len(taken) + before + 2) if f"B{n}" not in taken)
    number = next(islice(free, before, None))
    where = f"in its section {spec.section!r}" if spec.section else "in the spec"
    sentence = (
        "say so once: `Transitions not listed are rejected.` "
        f'{where}, or `unlisted = "rejected"` under [tool.spellbook]'
    )
    layout = spec.layout or ("id", "current state", "trigger", "condition", "next state")
    if "trigger" not in layout:
        return (
            f"; a table without a trigger column moves by the trigger its To cell names "
            f"(`to_<state>`), so no row of it refuses {spell}: if every transition not "
            f"listed is refused, {sentence}"
        )
    # A machine of a file of several reads its states from its section's tables: a row
    # naming states by what they are (`Any state`) could be any section's, so the row
    # names the states it refuses the spell in.
    missing = [s.name for s in spec.states if not spec.cell(s.name, spell)]
    said = {
        "id": number,
        "current state": ", ".join(missing) if spec.section else "Any state",
        "trigger": spell,
        "condition": "-",
        "next state": "[BLOCKED]",
        "action": "-",
        "response": f"{spell} is not available here.",
    }
    row = written_row(layout, said, "")
    return (
        f"; if {spell} is refused wherever no row names it, add the row `{row}`; if every "
        f"transition not listed is refused, {sentence}"
    )


def check_unlisted(analysis: Analysis) -> Iterator[Finding]:
    """The policy that transitions not listed are rejected, and the cells it blocks: once."""
    spec = analysis.spec
    policy = spec.unlisted
    if policy is None:
        return
    blocked = [r for r in spec.rules if r.policy and not r.fills_gap]
    spells = ", ".join(dict.fromkeys(r.spell for r in blocked))
    pair = f"(state, {spec.spell_word})"
    what = (
        f"{len(blocked)} {pair} {plural('cell', len(blocked))} no row names "
        f"{'are' if len(blocked) != 1 else 'is'} blocked ({spells})"
        if blocked
        else f"every {pair} has a row, so it blocks nothing"
    )
    where = f"as {policy.where} says ({policy.said!r})"
    yield Finding(
        "unlisted_rejected",
        f"transitions not listed are rejected, {where}: {what}",
        line=policy.line or None,
    )


def check_unresolved_names(analysis: Analysis) -> Iterator[Finding]:
    word = analysis.spec.spell_word
    for ref in analysis.spec.unresolved:
        hint = f" (did you mean {ref.suggestion}?)" if ref.suggestion else ""
        detail = f": {ref.detail}" if ref.detail else ""
        what = word if ref.reason == "unknown_spell" else "state"
        if ref.reason == "ga_notation":
            message = (
                f"rule {ref.rule}: Next State {ref.name} takes the source state's suffix{detail}"
            )
        elif ref.column == "Target":
            message = f"{word} {ref.detail.split()[-1]}'s Target {ref.name!r} is not a state{hint}"
        elif ref.column == "Valid Actions":
            message = f"state {ref.state} lists unknown {what} {ref.name!r} in Valid Actions{hint}"
        else:
            message = (
                f"rule {ref.rule} names unknown {what} {ref.name!r} in {ref.column}{detail}{hint}"
            )
        yield Finding(
            ref.reason,
            message,
            line=ref.line,
            rule=ref.rule,
            state=ref.state,
            spell=ref.name if ref.reason == "unknown_spell" else None,
        )


_NOT = re.compile(r"^NOT\s+")
_LOWER_NOT = re.compile(r"not\s+(?P<rest>.+)", re.I)


def _closest(subject: str, lexicon: Lexicon, files: list[str]) -> str:
    """The phrase the core or the vocabulary reads that `subject`, no fact, most likely
    meant (`notes.md matchs ...`: `notes.md matches `pattern``), or ""."""
    known = examples(lexicon, [*files_in(subject), *files], subject)
    # `unless X` is close to X in letters and its opposite in sense: `NOT X` is meant.
    lower_not = _LOWER_NOT.fullmatch(subject)
    rest = denied(subject) or (lower_not["rest"] if lower_not else None)
    wanted = rest or subject
    close = [
        ("NOT " if rest else "") + c
        for c in difflib.get_close_matches(wanted, known, n=3, cutoff=0.6)
        if _alike(c, wanted)
    ]
    return close[0] if close else ""


def check_unknown_conditions(analysis: Analysis) -> Iterator[Finding]:
    """Each phrase no term, noun or core phrase defines, once, with the rows that use it.
    A procedure's step is one phrase whatever its outcome (`Checks X (finds some)`,
    `Checks X (finds none)`)."""
    spec = analysis.spec
    lexicon = analysis.lexicon
    terms = {normal(t.phrase) for t in spec.terms}
    phrases: dict[str, tuple[list[RuleRow], list[str], str]] = {}
    for row in spec.rows:
        why = dict(row.condition.why)
        for phrase in row.condition.unknown:
            if phrase not in why and normal(re.sub(_NOT, "", phrase)) in terms:
                continue  # a term of the spec whose meaning is reported as unknown_term
            # `X` and `NOT X`: one phrase no words define, said once; a phrase that
            # cannot be read for a reason of its own (its NOT, say) is said as written.
            fact = phrase if phrase in why else _NOT.sub("", phrase)
            m = OUTCOME.fullmatch(fact)
            subject, outcome = (m["body"], m["outcome"]) if m else (fact, "")
            rows, outcomes, reason = phrases.setdefault(subject, ([], [], why.get(phrase, "")))
            if row not in rows:
                rows.append(row)
            if outcome and outcome not in outcomes:
                outcomes.append(outcome)
    files = sorted({a.file for r in spec.rules for a in r.condition.atoms if a.file})
    for subject, (rows, outcomes, reason) in phrases.items():
        close = _closest(subject, lexicon, files)
        hint = f" (did you mean {close!r}?)" if close and not reason else ""
        said = f" (outcomes {', '.join(repr(o) for o in outcomes)})" if outcomes else ""
        ids = ", ".join(r.id for r in rows)
        if OTHERWISE.fullmatch(subject.strip("[]() ")):
            reason = _otherwise(subject, rows[0], spec)
        if reason:
            yield Finding(
                "unknown_condition",
                f"condition {subject!r}{said} in rule{'s' if len(rows) > 1 else ''} {ids} "
                f"cannot be read: {reason}",
                line=rows[0].line,
                rule=rows[0].id,
            )
            continue
        elsewhere = _defined_elsewhere(rows[0], spec)
        if elsewhere:
            fix = (
                f"the {elsewhere!r} vocabulary defines it: name it for this spec under "
                f"[tool.spellbook] (vocabulary = {elsewhere!r}) or pass --vocabulary {elsewhere}"
            )
        else:
            fix = (
                "define it in a Terms table (| Phrase | Means |) from facts the core checks "
                "(a file exists or matches a regular expression, a checklist, a JSON field, "
                "a counter, time in a state, a command's outcome), or give the workflow's "
                "vocabulary module a noun for it"
            )
        if not spec.own_code and not (files_in(subject) or path_in(subject)):
            fix += (
                "; or, if it is a guard of the project's own code (a method of a "
                "`transitions` model), set own_code = true under [tool.spellbook]"
            )
        yield Finding(
            "unknown_condition",
            f"condition {subject!r}{said} in rule{'s' if len(rows) > 1 else ''} {ids} is not "
            f"a fact this spec's words define{hint}; {fix}",
            line=rows[0].line,
            rule=rows[0].id,
        )


# What an action names as the file it makes (or moves into place).
_MAKES = frozenset({"create", "copy", "move"})


def check_file_names(analysis: Analysis) -> Iterator[Finding]:
    """near_file_name: a condition names a file that no action makes, close in its
    letters to one an action makes (`soruce.md` where a rule creates `source.md`): most
    likely a misspelling, which leaves a row waiting on a file nobody writes."""
    spec = analysis.spec
    made: dict[str, str] = {}  # file -> the rule that makes it
    for rule in spec.rules:
        for action in rule.actions:
            if action.verb in _MAKES and action.files:
                made.setdefault(action.files[-1], rule.id)
    said: set[str] = set()
    for row in spec.rows:
        mine = {f for a in row.actions if a.verb in _MAKES for f in a.files}
        for clause in row.condition.clauses:
            for lit in clause:
                file = lit.atom.file
                if not file or file in made or file in said or "*" in file:
                    continue
                # a misspelling: the same folder, the name close in letters; never a file
                # the row makes from this one (`sql/003.up.sql` to `sql/003.down.sql`)
                close = [
                    other
                    for other in made
                    if other not in mine
                    and os.path.dirname(other) == os.path.dirname(file)
                    and difflib.SequenceMatcher(
                        None, os.path.basename(file), os.path.basename(other)
                    ).ratio()
                    >= 0.85
                ][:1]
                if not close:
                    continue
                said.add(file)
                yield Finding(
                    "near_file_name",
                    f"rule {row.id}'s condition names {file}, which no action makes, while "
                    f"rule {made[close[0]]} makes {close[0]}: if it is that file, write "
                    f"{close[0]}; a condition on a file nobody writes waits for ever",
                    line=row.line,
                    rule=row.id,
                )


def check_vacuous_conditions(analysis: Analysis) -> Iterator[Finding]:
    """A comparison that always holds (`attempts >= 0`, `count of `x` in F ≠ -1`), read
    as always, once per phrase with the rows that use it: likely meant as something
    else, and if not, `-` says it."""
    phrases: dict[str, tuple[list[RuleRow], str]] = {}
    for row in analysis.spec.rows:
        for phrase, why in row.condition.vacuous:
            rows, _ = phrases.setdefault(phrase, ([], why))
            if row not in rows:
                rows.append(row)
    for phrase, (rows, why) in phrases.items():
        ids = ", ".join(r.id for r in rows)
        yield Finding(
            "always_holds",
            f"condition {phrase!r} in rule{'s' if len(rows) > 1 else ''} {ids} is read as "
            f"`-`: {why}; write `-` (or leave it out of a cell that says more), or the "
            "comparison meant",
            line=rows[0].line,
            rule=rows[0].id,
        )


_OR_WORD = re.compile(r"\s+OR\s+")


def check_mixed_and_or(analysis: Analysis) -> Iterator[Finding]:
    """A Condition cell that joins clauses by both `AND` and `OR` with no parentheses
    around them (`A OR B AND C`): read as `A OR (B AND C)`, since AND binds tighter, as
    in most languages; an author may have meant `(A OR B) AND C`, so the cell is said
    with the parentheses it is read with, once per cell text."""
    said: set[str] = set()
    for row in analysis.spec.rows:
        text = row.condition.text
        if text in said or row.condition.unknown or " OR " not in text:
            continue
        said.add(text)
        alternatives = [a.strip() for a in split_outside(text, _OR_WORD)]
        if len(alternatives) < 2:
            continue
        groups = [list(split_outside(a, AND_JOIN)) for a in alternatives]
        if all(len(g) == 1 for g in groups):
            continue
        # `a, b OR c`: a comma (or `;`) joins as AND does, and is said as what it is read as
        joined = "AND" if " AND " in text else "`,` or `;` (read as AND)"
        read = " OR ".join(
            f"({a})" if len(g) > 1 else a for a, g in zip(alternatives, groups, strict=True)
        )
        yield Finding(
            "mixed_and_or",
            f"rule {row.id}: condition {text!r} joins clauses by {joined} and by OR with no "
            f"parentheses: it is read as {read!r} (AND binds tighter than OR); write "
            "parentheses to say which grouping it means: that one, or another such as "
            "`(A OR B) AND C`",
            line=row.line,
            rule=row.id,
        )


def _otherwise(subject: str, row: RuleRow, spec: Spec) -> str:
    """What to write for `otherwise` (`else`): the negation of the conditions of the
    other rows of the row's cells, where every cell has the same ones and each reads.
    It is not read as that itself: which rows share its cells is the table's to say
    (a row may stand in several cells, each with rows of its own), not the cell's."""
    cells: dict[tuple[str, ...], str] = {}
    conditions: dict[str, Condition] = {}
    for rule in spec.rules:
        if rule.id == row.id and not rule.policy:
            others = [r for r in spec.cell(rule.source, rule.spell) if r.id != row.id]
            conditions |= {r.condition.text: r.condition for r in others if not r.policy}
            texts = tuple(dict.fromkeys(r.condition.text for r in others if not r.policy))
            cells.setdefault(texts, f"{rule.spell} in {rule.source}")
    (texts, cell) = next(iter(cells.items())) if len(cells) == 1 else ((), "")
    why = (
        f"{subject!r} is not a condition the core reads: write the negation of the other "
        f"rows' conditions in its cell{f' ({cell})' if cell else ''}, so the rows say "
        "which fires and not their order"
    )
    if not texts or any(
        conditions[t].unknown or conditions[t].always or not conditions[t].clauses for t in texts
    ):
        return why
    negations = []
    for text in texts:
        said = " ".join(unbracketed(text.strip()).split())
        alone = not re.search(r"\s(?:AND|OR)\s|[,;(]", said)
        negations.append(f"NOT {said}" if alone else f"NOT ({said})")
    return f"{why}: `{' AND '.join(negations)}`"


# What says a condition's sense beyond its words: comparisons, numbers, negations.
_SENSE = re.compile(rf"{COMPARISON}|\d+|\b(?:not|no|never|none|without|isn't|doesn't)\b", re.I)


def _alike(suggestion: str, written: str) -> bool:
    """Whether a close phrase says what `written` does but for its words' spelling: the
    same comparisons, numbers and negations (`attempts is 3` is not `attempts < 3`, nor
    `F is not empty` `F exists`)."""

    def sense(text: str) -> list[str]:
        return sorted(shown_comparison(m) for m in _SENSE.findall(text.lower()))

    return sense(suggestion) == sense(written)


def _defined_elsewhere(row: RuleRow, spec: Spec) -> str:
    """A vocabulary shipped with Spellbook that reads the row's condition in full."""
    for name in VOCABULARIES:
        if name == spec.vocabulary:
            continue
        lexicon = Lexicon.of(ReadOptions(name)).with_terms(list(spec.terms))
        if not parse_condition(row.condition.text, lexicon, spec.workspace, Words()).unknown:
            return name
    return ""


def check_terms(analysis: Analysis) -> Iterator[Finding]:
    """A term of the spec whose meaning has words nothing defines. A term a rule uses
    through other terms is used: in a Condition, in an Action, or as the noun of a
    `Record` (a Terms row naming a pattern)."""
    spec = analysis.spec
    lexicon = analysis.lexicon
    acted = _acted(spec, lexicon)
    named = _pattern_nouns(spec)
    # Each term's meaning read as a condition: the phrases in it that are not read.
    meanings = {
        normal(t.phrase): parse_condition(t.means, lexicon, spec.workspace, Words())
        for t in spec.terms
        if normal(t.phrase) not in acted
    }
    inside = {key: {normal(re.sub(_NOT, "", u)) for u in m.unknown} for key, m in meanings.items()}
    for term in spec.terms:
        phrase = normal(term.phrase)
        if phrase in acted:
            yield from _action_term(term, spec, lexicon, acted[phrase])
            continue
        if phrase in named:
            continue  # the pattern a rule's `Record` reads (or is told to name): no condition
        meaning = meanings[phrase]
        if not meaning.unknown:
            continue
        if not parse_condition(term.means, lexicon, spec.workspace, Words(), "F").unknown:
            continue  # about the file a procedure reads first: read where rows use it
        why = dict(meaning.why)
        files = files_in(term.means)
        for u in meaning.unknown:
            if u not in why and (close := _closest(_NOT.sub("", u), lexicon, files)):
                why[u] = f"did you mean {close!r}?"
        said = ", ".join(repr(u) + (f" ({why[u]})" if u in why else "") for u in meaning.unknown)
        users = [
            r.id
            for r in spec.rows
            if phrase
            in _reached({normal(re.sub(_NOT, "", u)) for u in r.condition.unknown}, inside)
        ]
        used = (
            f"; rule{'s' if len(users) > 1 else ''} {', '.join(users)} "
            f"use{'' if len(users) > 1 else 's'} it"
            if users
            else ""
        )
        yield Finding(
            "unknown_term",
            f"term {term.phrase!r} means {term.means!r}, but {said} in it is not a fact "
            f"this spec's words define{used or '; no rule uses it'}",
            line=term.line,
            # A glossary for readers, unused by the tables, changes nothing.
            level=None if users else Severity.INFO,
        )


def _reached(phrases: set[str], inside: dict[str, set[str]]) -> set[str]:
    """`phrases` and every phrase in the meaning of a term among them, and so on."""
    reached, todo = set(phrases), list(phrases)
    while todo:
        for phrase in inside.get(todo.pop(), ()):
            if phrase not in reached:
                reached.add(phrase)
                todo.append(phrase)
    return reached


def _acted(spec: Spec, lexicon: Lexicon | None = None) -> dict[str, list[str]]:
    """The phrases of the spec's Action cells (`normal`), and of the meanings of the
    terms among them, and so on -> the rules that use each."""
    terms = (lexicon or Lexicon().with_terms(list(spec.terms))).terms
    acted: dict[str, list[str]] = {}
    for row in spec.rows:
        todo = [normal(p) for p in split_phrases(row.action)]
        while todo:
            phrase = todo.pop()
            users = acted.setdefault(phrase, [])
            if row.id in users:
                continue
            users.append(row.id)
            term = terms.get(phrase)
            if term is not None:
                todo += [normal(p) for p in split_phrases(term.means)]
    return acted


def _pattern_nouns(spec: Spec) -> set[str]:
    """The nouns (`normal`) of the `Record NOUN ...` and `Extracts all NOUN from F` phrases
    of the rules' actions: a term among them names a pattern, or the row is told it must."""
    return {record_noun(a.text) for r in spec.rows for a in r.actions} - {""}


def _action_term(term: Term, spec: Spec, lexicon: Lexicon, users: list[str]) -> Iterator[Finding]:
    """A term that Action cells use (`users`), whose meaning has phrases the core does
    not read as actions (the rows pass the term to the AI as an instruction)."""
    unread = [a for a in parse_actions(term.means, spec.workspace, lexicon) if a.verb == "instruct"]
    if unread:
        counters = _counters(spec)
        said = "; ".join(
            repr(a.text) + (f" ({aim.said()})" if aim else "")
            for a in unread
            for aim in [aimed_at(a.text, lexicon, counters)]
        )
        yield Finding(
            "unknown_term",
            f"term {term.phrase!r} means {term.means!r}, but {said} in it is not an action "
            f"the core reads; rule{'s' if len(users) > 1 else ''} {', '.join(users)} "
            f"use{'' if len(users) > 1 else 's'} it in Actions",
            line=term.line,
        )


def check_term_conflicts(analysis: Analysis) -> Iterator[Finding]:
    """A phrase the Terms table defines twice, or one the core or the vocabulary already
    reads (the term wins, so rows that use the phrase mean something else than it says)."""
    spec = analysis.spec
    words = Lexicon.of(ReadOptions(spec.vocabulary))
    acted = _acted(spec)
    first: dict[str, int] = {}
    for term in spec.terms:
        key = normal(term.phrase)
        if key in first:
            yield Finding(
                "term_conflict",
                f"term {term.phrase!r} is defined again (first at line {first[key]}); "
                "the first definition is used",
                line=term.line,
            )
            continue
        first[key] = term.line
        if key in acted:
            # A term for an action redefines only an action the core reads.
            reads = parse_actions(term.phrase, spec.workspace, words)
            if reads and all(a.verb != "instruct" for a in reads):
                yield Finding(
                    "term_conflict",
                    f"term {term.phrase!r} redefines an action the core or the vocabulary "
                    f"reads on its own; where a row says it, it means {term.means!r}",
                    line=term.line,
                    level=Severity.WARNING,
                )
            continue
        plain = parse_condition(term.phrase, words, spec.workspace, Words())
        if not plain.unknown and not plain.always:
            yield Finding(
                "term_conflict",
                f"term {term.phrase!r} redefines a phrase the core or the vocabulary reads "
                f"on its own; where a row says it, it means {term.means!r}",
                line=term.line,
                level=Severity.WARNING,
            )


def check_reading(analysis: Analysis) -> Iterator[Finding]:
    """What the reader did that a reviewer should know: names recovered from a
    formatter's emphasis, the column read of two, rows cut off from their table."""
    for notice in analysis.spec.notices:
        yield Finding(notice.kind, notice.message, line=notice.line, rule=notice.rule)


def check_duplicates(analysis: Analysis) -> Iterator[Finding]:
    kinds = {"rule ID": "duplicate_id", "state": "duplicate_state", "spell": "duplicate_spell"}
    for dup in analysis.spec.duplicates:
        what = analysis.spec.spell_word if dup.what == "spell" else dup.what
        used = (
            "both rows are read, each a rule of its own under the one ID, so findings, "
            "--against and the generated machine cannot tell them apart: give this row an "
            "ID of its own"
            if dup.what == "rule ID"
            else "the first definition is used"
        )
        yield Finding(
            kinds[dup.what],
            f"{what} {dup.name} is defined again (first at line {dup.first_line}); {used}",
            line=dup.line,
            rule=dup.name if dup.what == "rule ID" else None,
            state=dup.name if dup.what == "state" else None,
            spell=dup.name if dup.what == "spell" else None,
        )


def check_spell_names(analysis: Analysis) -> Iterator[Finding]:
    """spell_shadowed: a spell named like a command of `spell` (`status`, `repair`, ...,
    `spellbook.doors.subcommands`), which `spell NAME` runs instead of casting it.
    trigger_renamed: a spell whose trigger is a name the generated model already has
    (`fired`, `trigger`, `is_<state>`, `may_<trigger>`), so the model calls it otherwise."""
    word = analysis.spec.spell_word
    yield from _triggers_renamed(analysis.spec)
    for spell in analysis.spec.spells:
        for name in dict.fromkeys((spell.title or spell.name, spell.name)):
            if name.lower() in COMMANDS:
                yield Finding(
                    "spell_shadowed",
                    f"{word} {name} cannot be {did(word)} as `spell {name.lower()}`: that runs "
                    f"the command {name.lower()} of `spell`; rename the {word}, or "
                    f"{verb(word)} it as `spell cast {name.lower()}`",
                    line=spell.line,
                    spell=spell.name,
                )
                break


def _triggers_renamed(spec: Spec) -> Iterator[Finding]:
    """Each spell whose trigger the generated model cannot call by its name: one of the
    model's own attributes (`model.RESERVED`), the state check `transitions` binds for a
    state (`is_<state>`), or another trigger's `may_<trigger>`."""
    taken = {
        f"is_{st.name}": f"the check that the model is in state {st.name}" for st in spec.states
    }
    taken |= {f"may_{sp.trigger}": f"the check whether {sp.trigger} may fire" for sp in spec.spells}
    taken |= {name: "a name the model already has" for name in RESERVED}
    for spell in spec.spells:
        why = taken.get(spell.trigger)
        if why is not None:
            yield Finding(
                "trigger_renamed",
                f"{spec.spell_word} {spell.title or spell.name}: its trigger cannot be "
                f"`{spell.trigger}()` on the generated model, as `{spell.trigger}` is {why}, "
                f"so it has another name there (the generated module's `TRIGGERS` says "
                f"which); rename the {spec.spell_word} to call it by its own",
                line=spell.line,
                spell=spell.name,
            )


def check_formerly(analysis: Analysis) -> Iterator[Finding]:
    """former_name: a `*Formerly*` name that cannot be a migration: not a name, still a
    state of the spec, or claimed by two states (a spell's: `_spells_formerly`)."""
    spec = analysis.spec
    names = spec.states_by_name
    for state in spec.states:
        for old in state.formerly:
            if not old.isidentifier():
                family = re.fullmatch(r"(\w+?)_\[([\w/]+)\]", old)
                hint = (
                    "; name each of the family's states: "
                    + ", ".join(f"{family[1]}_{x}" for x in family[2].split("/"))
                    if family
                    else "; write the names, separated by commas"
                )
                yield Finding(
                    "former_name",
                    f"state {state.name}: *Formerly* {old!r} is not a state name{hint}",
                    line=state.line,
                    state=state.name,
                )
            elif old in names:
                yield Finding(
                    "former_name",
                    f"state {state.name} says it was *Formerly* {old}, but {old} is a state "
                    f"of this spec: a state file naming {old} stays there; remove the name "
                    "or the state",
                    line=state.line,
                    state=state.name,
                )
    for old, takers in spec.former_claims.items():
        if len(takers) > 1 and old not in names:
            yield Finding(
                "former_name",
                f"states {', '.join(takers)} each say they were *Formerly* {old}: a state "
                f"file naming {old} could go to either, so it goes to neither; keep the "
                "name on one",
                line=spec.state(takers[1]).line,
                state=takers[1],
            )

    yield from _spells_formerly(spec)


def _spells_formerly(spec: Spec) -> Iterator[Finding]:
    """former_name of a spell: a `*Formerly*` name (which declares a rename to the diff)
    that is still a spell of the spec, or that two spells claim."""
    word = spec.spell_word

    current = {spelled(n): s.name for s in spec.spells for n in (s.name, s.title) if n}
    claims: dict[str, list[Spell]] = {}
    written: dict[str, str] = {}
    for spell in spec.spells:
        for old in spell.formerly:
            if spelled(old) in current:
                yield Finding(
                    "former_name",
                    f"{word} {spell.name} says it was *Formerly* {old}, but "
                    f"{current[spelled(old)]} is one of this spec's {plural(word)}: no rename "
                    "to declare; remove the name",
                    line=spell.line,
                    spell=spell.name,
                )
            else:
                claims.setdefault(spelled(old), []).append(spell)
                written.setdefault(spelled(old), old)
    for old, takers in claims.items():
        if len(takers) > 1:
            yield Finding(
                "former_name",
                f"{plural(word)} {', '.join(t.name for t in takers)} each say they were *Formerly* "
                f"{written[old]}: a rename names one {word}; keep the name on one",
                line=takers[1].line,
                spell=takers[1].name,
            )


def _archived_into(action: ActionSpec) -> tuple[str, ...]:
    """The folder an Archive moves its files into, as far as it is written out (one
    filled from values at cast time, `done/${date}/`, up to its first value)."""
    if action.verb != "archive" or not action.target:
        return ()
    folder = action.target.partition("${")[0].rstrip("/")
    return (folder,) if folder else ()


def _programs(spec: Spec) -> tuple[tuple[str, ...], ...]:
    """The project's generated folder as `own_files.program_file` compares it
    (`own_files.programs_in`): relative to the spec's workspace folder, or its modules
    where it is that folder."""
    if spec.generated.startswith(("/", "../")) or spec.generated in ("", ".."):
        return ()  # outside the project's root: no path of the workspace's
    generated = "" if spec.generated == "." else spec.generated.strip("/")
    workspace = spec.workspace.strip("/")
    if generated == workspace:  # the generated modules beside the workspace's files
        return ((MODULES,),)
    if not workspace:
        return (folded(generated),)
    if generated.startswith(workspace + "/"):
        return (folded(generated[len(workspace) + 1 :]),)
    return ()  # one that holds the workspace, or is beside it


def check_actions(analysis: Analysis) -> Iterator[Finding]:
    """Action phrases outside the vocabulary, unsafe paths (the machine's state file
    among them: the runtime refuses every cast of a rule that acts on it), and state
    updates that disagree with the rule's Next State."""
    spec = analysis.spec
    state_file = spec.state_file[len(spec.workspace) :].lstrip("/")
    programs = _programs(spec)
    others = others_in(
        spec.workspace, [f for f in spec.others if folded(f) != folded(spec.state_file)]
    )
    lexicon, counters = analysis.lexicon, _counters(spec)
    aims: dict[str, Aim | None] = {}  # specs repeat phrases word for word
    for row in spec.rows:
        unknown = []
        for action in row.actions:
            # A Terms phrase whose meaning is not read is the term's finding (unknown_term).
            unread = action.verb == "instruct" and normal(action.text) not in lexicon.terms
            if unread and action.text not in aims:
                aims[action.text] = aimed_at(action.text, lexicon, counters)
            aim = aims[action.text] if unread else None
            if aim is not None:
                yield _unread_verb(row, action, aim)
            elif action.verb == "instruct":
                unknown.append(action)
        if unknown:
            listed = "; ".join(repr(a.text) + (f" ({a.hint})" if a.hint else "") for a in unknown)
            yield Finding(
                "unknown_action",
                f"rule {row.id}: {listed} {'is' if len(unknown) == 1 else 'are'} not in the "
                "action vocabulary; passed to the AI as instructions",
                line=row.line,
                rule=row.id,
            )
        for action in row.actions:
            # Spellbook's own file first: whatever else is wrong, no action touches it
            problem = (
                next(
                    (
                        f"{f} {OWN_FILE}"
                        for f in action.files
                        if own_file(f, action.verb, [state_file])
                    ),
                    "",
                )
                or next(
                    (
                        # `.ai/task/plan.md` in the workspace `.ai/workflow`: written
                        # from the repository's top, made as `.ai/workflow/.ai/task/...`
                        beside_workspace(f, spec.workspace, True, action.text)
                        for f in (*action.files, *_archived_into(action))
                        if beside_workspace(f, spec.workspace, True, action.text)
                    ),
                    "",
                )
                or next(
                    (
                        f"{f} {STATE_OF_ANOTHER}"
                        for f in (*action.files, *_archived_into(action))
                        if another_state_file(f, action.verb, others)
                    ),
                    "",
                )
                or next(
                    (
                        f"{f} {PROGRAM}"
                        for f in (*action.files, *_archived_into(action))
                        if program_file(f, action.verb, programs)
                    ),
                    "",
                )
                or action.problem
            )
            if action.verb == "set_state_field" and not problem:
                problem = _state_field_problem(action, spec)
            elif action.verb == "set_field" and problem.endswith(OWN_FILE):
                key, value = json.loads(action.target)
                problem += (
                    "; to set a field the State Persistence example declares, write "
                    f"``Set `{key}` in the state file to {json.dumps(value)}``"
                )
            if problem:
                yield Finding(
                    "action_path",
                    f"rule {row.id}: cannot {action.verb} as written ({action.text!r}): {problem}",
                    line=row.line,
                    rule=row.id,
                )
    reported: set[tuple[str, str]] = set()
    for rule in analysis.spec.rules:
        for action in rule.actions:
            if action.verb == "set_state" and action.target != rule.dest:
                if (rule.id, action.target) in reported:
                    continue
                reported.add((rule.id, action.target))
                yield Finding(
                    "action_state",
                    f"rule {rule.id}: action says {action.text!r} but Next State is {rule.dest}; "
                    "the machine follows Next State",
                    line=rule.line,
                    rule=rule.id,
                    state=rule.source,
                )
            elif rule.changes_state and _says_same(action) and (rule.id, "") not in reported:
                reported.add((rule.id, ""))
                yield Finding(
                    "action_state",
                    f"rule {rule.id}: action says {action.text!r}, that the state does not "
                    f"change, but Next State moves it from {rule.source} to {rule.dest}; the "
                    "machine follows Next State",
                    line=rule.line,
                    rule=rule.id,
                    state=rule.source,
                )


def _says_same(action: ActionSpec) -> bool:
    """Whether an action says the state does not change: `No state change`, or an
    Action cell in the words a Next State cell says so with (`Same state`)."""
    if action.verb == "no_change":
        return True
    return action.verb == "instruct" and normal(action.text).rstrip(".") in SAME


def _unread_verb(row: RuleRow, action: ActionSpec, aim: Aim) -> Finding:
    """A phrase aimed at a core verb that does not read as it: the core would not do it."""
    why = f" ({action.hint})" if action.hint else ""
    if aim.verb == "steps":
        return Finding(
            "unread_verb",
            f"rule {row.id}: {action.text!r} is several steps written as one, so the core "
            f"would do none of them and the AI would be told them instead; {aim.said()}, or "
            "begin it with `Ask the AI to` if it is the AI's to do",
            line=row.line,
            rule=row.id,
        )
    return Finding(
        "unread_verb",
        f"rule {row.id}: {action.text!r} does not read as the core's verb `{aim.verb}`{why}, "
        f"so the core would not do it and the AI would be told it instead; {aim.said()}, or "
        "begin it with `Ask the AI to` if it is the AI's to do",
        line=row.line,
        rule=row.id,
    )


def _counters(spec: Spec) -> set[str]:
    """The state file's counters that the spec's conditions compare or its actions set."""
    found: set[str] = set()
    for row in spec.rows:
        found |= {a.param.partition("<")[0] for a in row.condition.atoms if a.probe == "below"}
        for action in row.actions:
            if action.verb != "set_state_field":  # a field set to a value is no counter
                found.update(action.writes)
    return found


def _state_field_problem(action: ActionSpec, spec: Spec) -> str:
    """Why ``Set `NAME` in the state file to ...`` cannot set NAME ("" if it can): it
    must be a field the State Persistence example declares, and not the state, the
    history, a field the runtime writes, or a counter (as `spellbook.cast.engine` keeps them)."""
    from spellbook.disk.state_file import COUNTER_FIELDS, RUNTIME_FIELDS

    name = json.loads(action.target)[0]
    counters = set(COUNTER_FIELDS)
    for row in spec.rows:
        counters |= {a.param.partition("<")[0] for a in row.condition.atoms if a.probe == "below"}
        counters |= {
            a.target.partition("=")[0] for a in row.actions if a.verb in ("increment", "reset")
        }
    if name in (spec.schema.state_key, "context", "history") or name in RUNTIME_FIELDS:
        return f"`{name}` is the state file's own, which only the runtime writes"
    if name in counters:
        return f"`{name}` is a counter: set it with `Reset {name} to N`"
    if name not in spec.schema.fields:
        return (
            f"`{name}` is not a field the State Persistence example declares; add "
            f'`"{name}": null` to its JSON example'
        )
    return ""


def check_suffix_preservation(analysis: Analysis) -> Iterator[Finding]:
    """A row over `NAME_[G/A]` sources whose Next State is one fixed `_G` or `_A` state
    sends both origins to the same place, so the origin is lost."""
    spec = analysis.spec
    members = {m for fam in spec.families if len(fam.members) > 1 for m in fam.members}
    for row in spec.rows:
        target = row.target.name
        if row.target.kind is not Kind.TRANSITION or target not in members:
            continue
        if any(_FAMILY_REF.fullmatch(name) for name in row.current.names):
            family = spec.family_of(target).name
            yield Finding(
                "suffix_preservation",
                f"rule {row.id}: sources written as NAME_[G/A] all go to {target}, so the "
                f"_G/_A origin is lost; write {family} to keep it",
                line=row.line,
                rule=row.id,
            )


def check_ids(analysis: Analysis) -> Iterator[Finding]:
    """Every row needs an ID, and the IDs of one table share a prefix (where at least
    three rows and two thirds of the table do)."""
    tables: dict[str, list[RuleRow]] = {}
    for row in analysis.spec.rows:
        if row.numbered:
            continue  # its table has no ID column: numbered by position (`light_tables`)
        if not row.id_written:
            yield Finding(
                "id_pattern",
                f"row has no ID; it is called {row.id} until it gets one",
                line=row.line,
                rule=row.id,
                level=Severity.WARNING,
            )
        else:
            tables.setdefault(row.group, []).append(row)
    for group, rows in tables.items():
        prefixes = Counter(_prefix(r.id) for r in rows)
        (usual, count), *_ = prefixes.most_common()
        if count < 3 or count * 3 < len(rows) * 2:
            continue  # no convention: too few rows share a prefix
        for row in rows:
            if _prefix(row.id) != usual:
                yield Finding(
                    "id_pattern",
                    f"rule {row.id}: the other IDs in {group!r} start with {usual!r}",
                    line=row.line,
                    rule=row.id,
                )


def _prefix(rule_id: str) -> str:
    m = _PREFIX.match(rule_id)
    return m.group(0) if m else ""


def check_responses(analysis: Analysis) -> Iterator[Finding]:
    """Response links to files that do not exist next to the spec; and a Response that
    is a link alone, with no text (no `Old Response` column beside it), to a file that
    does: its text is not read, so the AI is told only which rule fired."""
    spec = analysis.spec
    folder = Path(spec.path).parent
    if not (folder / Path(spec.path).name).is_file():
        return
    missing: dict[str, list[RuleRow]] = {}
    unread: list[RuleRow] = []
    for row in spec.rows:
        ref = row.response_ref
        if ref and "://" not in ref and not (folder / ref).is_file():
            missing.setdefault(str(Path(ref).parent), []).append(row)
        elif ref and "://" not in ref and not row.response.strip():
            unread.append(row)
    if unread:
        ids = ", ".join(r.id for r in unread)
        first = unread[0]
        yield Finding(
            "response_unread",
            f"the Response of rule{'s' if len(unread) > 1 else ''} {ids} is only a link to a "
            f"file ({first.response_ref}), whose text is not read: a response is made from "
            "the Response cell's words and the Response Format Templates, so the AI is told "
            f"only that {first.id} fired; write what it is told in the cell (or in an `Old "
            "Response` column beside it), with the link after it if the file says more",
            line=first.line,
            rule=first.id,
        )
    for parent, rows in missing.items():
        ids = ", ".join(r.id for r in rows)
        yield Finding(
            "missing_response",
            f"{len(rows)} linked response file{'s' if len(rows) > 1 else ''} in {parent}/ "
            f"do{'es' if len(rows) == 1 else ''} not exist (rules {ids}); responses are made "
            "from the Response Format Templates",
            line=rows[0].line,
            rule=rows[0].id,
        )


# A placeholder a Response asks the cast to fill (`spellbook.cast.responses`): its name,
# and its argument after a colon.
_PLACEHOLDER = re.compile(
    r"\{\{\s*(available_spells|next_steps|archive_path|does|content)\b"
    r"\s*(?::([^{}]*))?\}\}"
)
_GLOB = re.compile(r"[*?\[\]{}<>|]")
# Any `{{name}}` / `{{name:arg}}`, and an Action's `${name}`, written in a Response.
_ANY_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w-]*)\s*(?::[^{}]*)?\}\}|\$\{(\w+)\}")
# The names a cast fills besides `_PLACEHOLDER`'s: the standard response's own.
_FILLED = ("available_spells", "next_steps", "archive_path", "does", "content", "fields", "files")


def check_placeholders(analysis: Analysis) -> Iterator[Finding]:
    """The placeholders of the Responses and response templates that a cast cannot fill
    as they ask: `{{does:X}}` of no spell, `{{content:F}}` of no file of the workspace
    folder, a name missing, `{{archive_path}}` in a row that archives nothing. Each would
    be left as written, or say something untrue, in every cast."""
    spec = analysis.spec
    spells = [s.name for s in spec.spells]
    word = spec.spell_word
    texts: list[tuple[str, str, int, str, RuleRow | None]] = [
        (f"rule {r.id}: its Response", r.response, r.line, r.id, r) for r in spec.rows
    ]
    texts += [(f"the {t.kind} response template", t.text, t.line, "", None) for t in spec.templates]
    for where, text, line, rid, row in texts:
        for m in _PLACEHOLDER.finditer(text or ""):
            name, arg = m.group(1), (m.group(2) or "").strip()
            problem = ""
            if name == "does" and arg not in spells:
                near = difflib.get_close_matches(arg, spells, 1, 0.6) if arg else []
                problem = (
                    f"names no {word} (`{{{{does:{word.upper()}}}}}` says what it would do now), "
                    "so it is left as written: "
                    + (
                        f"did you mean `{{{{does:{near[0]}}}}}`?"
                        if near
                        else f"{plural(word)}: {', '.join(spells)}"
                    )
                )
            elif name == "content":
                inside = workspace_path(arg, spec.workspace) if arg else None
                if inside is None or _GLOB.search(arg):
                    problem = (
                        "names no file of the workspace folder "
                        f"({spec.workspace or 'the repository'}/), so a cast cannot show it: "
                        "name one file, relative to that folder (`{{content:notes.md}}`)"
                    )
                elif inside != arg:
                    problem = (
                        f"names the file from the repository's top, and a cast reads it in "
                        f"the workspace folder ({spec.workspace}/): write "
                        f"`{{{{content:{inside}}}}}`"
                    )
                elif (
                    row is not None
                    and not any(a.verb == "load" and arg in a.files for a in row.actions)
                    and (
                        gone := next(
                            (
                                a
                                for a in row.actions
                                if a.verb in ("archive", "delete", "move") and arg in a.files
                            ),
                            None,
                        )
                    )
                ):
                    problem = (
                        f"names {arg}, which the row's `{gone.text}` takes away before the "
                        "response is made: every cast says the file is not there; load it "
                        f"first (`(1) Load {arg} content`, then the {gone.verb})"
                    )
            elif name in ("available_spells", "next_steps") and m.group(2) is not None:
                problem = f"takes no argument, so it is left as written: write `{{{{{name}}}}}`"
            elif (
                name == "archive_path"
                and row is not None
                and not any(a.verb == "archive" for a in row.actions)
            ):
                problem = (
                    "is the folder an Archive action of the row moved files to, and the "
                    "row archives nothing: every cast says `(nothing was archived)` there; "
                    "add an Archive action, or drop the placeholder"
                )
            elif (
                name == "archive_path"
                and row is not None
                and len(
                    folders := list(
                        dict.fromkeys(a.target for a in row.actions if a.verb == "archive")
                    )
                )
                > 1
            ):
                problem = (
                    f"is one folder, and the row archives to {len(folders)} "
                    f"({', '.join(folders)}): every cast says the last; name the folder "
                    "meant in words, or archive to one"
                )
            if problem:
                yield Finding(
                    "response_placeholder",
                    f"{where}'s `{m.group(0)}` {problem}",
                    line=line,
                    rule=rid,
                )
        said: set[str] = set()
        for m in _ANY_PLACEHOLDER.finditer(text or ""):
            if m.group(1) in _FILLED or m.group(0) in said:
                continue  # `_PLACEHOLDER`'s, said above; or said once already
            said.add(m.group(0))
            if m.group(2):
                problem = (
                    "is filled in an Action's paths (`Archive F to done/${name}/`), never "
                    "in a Response, so every cast shows it as written: say "
                    "`{{archive_path}}` for the folder an Archive moved files to, or the "
                    "words themselves"
                )
            else:
                problem = (
                    "is no placeholder a cast fills, so every cast shows it as written: "
                    "the ones filled are `{{available_spells}}`, `{{does:"
                    f"{word.upper()}}}}}`, `{{{{next_steps}}}}`, `{{{{archive_path}}}}` and "
                    "`{{content:FILE}}`"
                )
            yield Finding(
                "response_placeholder",
                f"{where}'s `{m.group(0)}` {problem}",
                line=line,
                rule=rid,
            )


def check_consolidation(analysis: Analysis) -> Iterator[Finding]:
    """Rows that differ only in their Current State could be one row. A row whose
    sources all carry one suffix may write its `_G` names as `_[G/A]` for this."""
    spec = analysis.spec
    suffix_of = {
        member: (suffix, fam.name)
        for fam in spec.families
        if len(fam.members) > 1
        for member, suffix in zip(fam.members, fam.suffixes, strict=True)
    }
    sources: dict[int, set[str]] = {}
    for rule in spec.rules:
        sources.setdefault(rule.line, set()).add(rule.source)

    def canonical(text: str, row: RuleRow) -> str:
        suffixes = {suffix_of.get(s, ("", ""))[0] for s in sources.get(row.line, set())}
        if len(suffixes) != 1 or "" in suffixes:
            return text
        (suffix,) = suffixes

        def family(m: re.Match[str]) -> str:
            found = suffix_of.get(m.group(0))
            return found[1] if found and found[0] == suffix else m.group(0)

        return re.sub(r"\b\w+\b", family, text)

    groups: dict[tuple[object, ...], list[RuleRow]] = {}
    for row in spec.rows:
        key = (
            row.triggers,
            row.condition.clauses,
            row.target.kind,
            canonical(row.target.name or "", row),
            canonical(row.action, row),
            canonical(row.response, row),
            row.response_ref,
            row.current.wildcard,
        )
        groups.setdefault(key, []).append(row)
    for rows in groups.values():
        if len(rows) > 1:
            first, *others = rows
            for row in others:
                yield Finding(
                    "consolidation",
                    f"rule {row.id} does what rule {first.id} (line {first.line}) does, "
                    "for other states; the two rows could be one",
                    line=row.line,
                    rule=row.id,
                )
