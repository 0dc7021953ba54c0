"""Checks of what the actions do (`effects`): an action that does nothing, files left
that the next state's Indicators rule out, and values an action reads that nothing
makes sure are there.

Findings that repeat across the members of a `NAME_[G/A]` family are reported once,
naming the states.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache

from spellbook.facts.json_values import is_json
from spellbook.facts.sections import checklist

from ..budget import check
from ..model import ActionSpec, Atom, Kind, LiteralSpec, RuleSpec, Spec
from .analysis import Analysis
from .effects import (
    Effect,
    Effects,
    Known,
    NoEffect,
    exists,
    implies_exists,
    mention,
    needs,
    source_of,
)
from .findings import Finding, Severity


def _winning(analysis: Analysis) -> list[tuple[RuleSpec, int]]:
    """Each rule that wins somewhere, in each state, with its place in its cell."""
    return analysis.effects.winning(analysis.cells)


Grouped = dict[tuple[object, ...], tuple[Finding, list[str]]]


def _group(found: Grouped, key: tuple[object, ...], finding: Finding, state: str) -> None:
    if key in found:
        found[key][1].append(state)
    else:
        found[key] = (finding, [state])


def _grouped(found: Grouped) -> Iterator[Finding]:
    for finding, states in found.values():
        states = list(dict.fromkeys(states))
        message = finding.message
        if len(states) > 1:
            message += f" (and likewise in {', '.join(states[1:])})"
        yield Finding(
            finding.kind,
            message,
            line=finding.line,
            rule=finding.rule,
            state=states[0],
            spell=finding.spell,
            world=finding.world,
            level=finding.level,
            states=tuple(states),
        )


def check_effects(analysis: Analysis) -> Iterator[Finding]:
    """action_no_effect, indicators_broken, indicators_unchecked and action_input."""
    spec = analysis.spec
    effects = analysis.effects
    found: Grouped = {}
    # A row's action that does nothing in every state the row wins in; in some of
    # them only, it is there for the others.
    rows: dict[tuple[str, int], list[Effect | None]] = {}
    for rule, at in _winning(analysis):
        check(f"checking what rule {rule.id} does in {rule.source}")
        effect = effects.effect(rule, at)
        rows.setdefault((rule.id, rule.line), []).append(effect)
        if effect is None:
            continue
        for key, finding in _indicators(spec, effect):
            _group(found, key, finding, rule.source)
    for expansions in rows.values():
        if any(effect is None for effect in expansions):
            continue
        every = [effect for effect in expansions if effect is not None]
        places = [{(g.index, g.file) for g in effect.no_effect} for effect in every]
        common = set.intersection(*places) if places else set()
        for effect in every:
            for gone in effect.no_effect:
                if (gone.index, gone.file) in common:
                    finding = _no_effect(spec, effect, gone)
                    key = ("no_effect", effect.rule.id, gone.index, gone.file, finding.level)
                    _group(found, key, finding, effect.rule.source)
    for key, finding, state in _inputs(analysis, effects):
        _group(found, key, finding, state)
    yield from _grouped(found)


# The facts that ask of a section's checklist that an item be there, or ticked: beside one,
# `F has no unchecked items under "S"` no longer holds of an untouched template.
_ASKS_ITEMS = frozenset({"items", "items_at_least", "checked_at_least"})


def _section_of(atom: Atom) -> str:
    """The section a checklist fact asks about: its parameter, after the count of one
    that counts (`3 Condition check` of `items_at_least`)."""
    if atom.probe.endswith("_at_least"):
        return atom.param.partition(" ")[2]
    return atom.param


def check_templates(analysis: Analysis) -> Iterator[Finding]:
    """What the files Create makes from templates hold: `untouched_checklist`
    (`_untouched`) and `template_placeholder`, a template holding `${date}` or another
    `${NAME}`, which Create copies as written (the date and extracted values are filled
    in paths and Append text only), once per template."""
    made: dict[tuple[str, str], tuple[str, str, str]] = {}  # (state, file) -> rule, template
    said: set[str] = set()
    for rule in analysis.spec.rules:
        for action in rule.actions:
            if action.verb != "create" or not action.target:
                continue
            for file in action.files:
                where, text = (
                    (action.target, action.content)
                    if action.content
                    else analysis.lexicon.template_of(file)
                )
                if text:
                    made.setdefault((rule.dest, file), (rule.id, action.target, text))
                placeholder = _placeholder_in(text) if text and where not in said else None
                if placeholder is not None:
                    said.add(where)
                    at = text.count("\n", 0, placeholder.start()) + 1
                    yield Finding(
                        "template_placeholder",
                        f"rule {rule.id} creates {file} from {where}, whose line {at} holds "
                        f"`{placeholder.group()}`: Create copies a template as written, so "
                        f"{file} holds `{placeholder.group()}` itself (the date and extracted "
                        "values are filled in paths and in Append text only: "
                        f'`Append "Started ${{date}}" to {file}`)',
                        line=rule.line,
                        rule=rule.id,
                    )
    yield from _untouched(analysis, made)


def _placeholder_in(text: str) -> re.Match[str] | None:
    """The first `${name}` of a template outside its code fences, and not a shell's
    variable (`${HOME}`, in capitals): one its author meant filled in."""
    fence = ""
    at = 0
    for line in text.split("\n"):
        marker = re.match(r" {0,3}(`{3,}|~{3,})", line)
        if marker is not None and (not fence or marker.group(1).startswith(fence)):
            fence = "" if fence else marker.group(1)
        elif not fence:
            for found in _placeholder().finditer(line):
                if not found.group()[2:-1].isupper():
                    return _placeholder().search(text, at + found.start())
        at += len(line) + 1
    return None


@cache
def _placeholder() -> re.Pattern[str]:
    """A placeholder the runtime fills in paths and Append text, never in a template."""
    return re.compile(r"\$\{[A-Za-z_][\w.-]*\}")


def _untouched(
    analysis: Analysis, made: dict[tuple[str, str], tuple[str, str, str]]
) -> Iterator[Finding]:
    """untouched_checklist: a rule that moves the workflow on says a file has no unchecked
    items under a section, in a state a rule enters having created the file from a template whose
    checklist there has unchecked items (`made`: by state and file, the rule, template
    and text), and nothing in the same clause asks that an item be there or ticked. A
    checklist still exactly its template's has no items, so the condition holds the
    moment the file is made, before anyone ticks a box."""
    spec = analysis.spec
    said: set[tuple[str, str, str]] = set()
    for rule in spec.rules:
        if rule.kind is not Kind.TRANSITION or rule.dest == rule.source:
            continue  # one that keeps the state may mean an untouched one: "none yet"
        for clause in rule.condition.clauses:
            for lit in clause:
                file, section = lit.atom.file, lit.atom.param
                entered = made.get((rule.source, file))
                if lit.atom.probe != "unchecked" or lit.positive or entered is None:
                    continue
                if (rule.id, file, section) in said or any(
                    o.positive
                    and o.atom.probe in _ASKS_ITEMS
                    and o.atom.file == file
                    and _section_of(o.atom) == section
                    for o in clause
                ):
                    continue
                creator, template, text = entered
                open_items = [t for done, t in checklist(text, section) if t and not done]
                if not open_items:
                    continue
                said.add((rule.id, file, section))
                items = f"{len(open_items)} unchecked item{'s' if len(open_items) > 1 else ''}"
                yield Finding(
                    "untouched_checklist",
                    f"rule {rule.id}: '{file} has no unchecked items under \"{section}\"' holds "
                    f"while {file} is still its template, as rule {creator} leaves it on entering "
                    f"{rule.source} (it creates {file} from {template}, whose checklist there has "
                    f"{items}, and a checklist still exactly its template's has none), so the "
                    "row fires before anyone ticks a box; to ask that every item is ticked, "
                    f'write `{file} has checklist items under "{section}" AND {file} has no '
                    f'unchecked items under "{section}"`',
                    line=rule.line,
                    rule=rule.id,
                    state=rule.source,
                    spell=rule.spell,
                )


def _what_makes(spec: Spec, effect: Effect, file: str, why: str, there: bool) -> str:
    """Why `file` is there (or not) where an action finds it."""
    if why:
        return why
    source = effect.rule.source
    said = {lit.atom for lit in spec.state(source).evidence if lit.positive == there}
    if effect.assumed and exists(file) in said:
        return f"the Indicators of {source} say it {'exists' if there else 'is missing'}"
    return f"the rule's condition says it {'exists' if there else 'is missing'}"


def _no_effect(spec: Spec, effect: Effect, gone: NoEffect) -> Finding:
    rule, action, file = effect.rule, gone.action, gone.file
    step = f"action ({gone.index}) ({action.text!r})"
    where = f"when it fires in {rule.source}"
    level = None
    copied = action.verb == "copy" and file != action.files[0]  # its copy, not the original
    if copied:
        level = None if gone.surely else Severity.INFO
        there = (
            f"which is always there {where} ({_what_makes(spec, effect, file, gone.why, True)})"
            if gone.surely
            else f"which may already be there {where} (nothing says it is missing)"
        )
        message = (
            f"rule {rule.id}: {step} copies {action.files[0]} to {file}, {there}: a copy "
            f"never overwrites, so the runtime then keeps the {file} there as it was, not the "
            f"latest {action.files[0]}; if it should be the latest, `Delete existing {file}` "
            "before it, or copy to a name of its own (`backup/${date}.md`)"
        )
    elif action.verb == "create" and not gone.surely and not effect.unnamed:
        level = Severity.INFO
        message = (
            f"rule {rule.id}: {step} creates {file}, which may already be there {where} "
            f"(neither the rule's condition nor the Indicators of {rule.source} say it is "
            f"missing): the runtime then keeps it as it is, while a reading that overwrites "
            f"it would start it afresh; if it should start afresh, `Delete existing {file}` "
            "before it, or check it in the condition"
        )
    elif action.verb == "create" and not gone.surely:
        index, told = effect.unnamed[0]
        message = (
            f"rule {rule.id}: {step} creates {file}, which may still be there {where}: "
            f"action ({index}) ({told.text!r}) is passed to the AI as text and names no file, "
            f"so the runtime creates {file} before anything is moved and keeps a file that is "
            "there; name the files and the folder in that action "
            f"(`Archive {file} to FOLDER/`) so that the runtime moves them first"
        )
    elif action.verb == "create":
        made = f"the template {action.target}" if action.target else "an empty file"
        message = (
            f"rule {rule.id}: {step} creates {file}, which is always there {where} "
            f"({_what_makes(spec, effect, file, gone.why, True)}): the runtime keeps the file "
            f"as it is, while a reading that overwrites it would replace it with {made}; say "
            f"which: `Delete existing {file}` before it, or drop the action, or check "
            f"`{file} missing` in the condition"
        )
    else:
        verb = {"archive": "archives", "delete": "deletes", "copy": "copies", "move": "moves"}
        message = (
            f"rule {rule.id}: {step} {verb.get(action.verb, action.verb)} {file}, which is "
            f"never there {where} ({_what_makes(spec, effect, file, gone.why, False)}), so "
            f"it does nothing to it: drop {file} from the action, or say what should be "
            "there instead"
        )
    return Finding(
        "action_no_effect",
        message,
        line=rule.line,
        rule=rule.id,
        state=rule.source,
        spell=rule.spell,
        world=f"{file} {'exists' if action.verb == 'create' or copied else 'missing'}",
        level=level,
    )


def _asked_of_ai(spec: Spec, rule: RuleSpec, file: str) -> bool:
    """Whether the rule's texts for the AI (its Response, its other columns) name `file`:
    the AI is asked to do something with it."""
    row = next((r for r in spec.rows if r.line == rule.line and r.id == rule.id), None)
    texts = [rule.response, *(text for _, text in (row.extra if row else ()))]
    pattern = mention(file)
    return any(pattern.search(text) for text in texts)


def _indicators(spec: Spec, effect: Effect) -> Iterator[tuple[tuple[object, ...], Finding]]:
    """The next state's Indicators that the files the rule leaves rule out."""
    rule = effect.rule
    dest = spec.state(rule.dest)
    for lit in dest.evidence:
        file = lit.atom.file
        if lit.atom.probe == "value":
            yield from _value_indicator(effect, lit)
        if lit.atom.probe == "unlisted" and lit.positive:
            yield from _ledger_indicator(effect, lit)
        if not file or file not in effect.after:
            continue
        if implies_exists(lit):
            need = True
        elif lit.atom.probe == "exists" and not lit.positive:
            need = False
        else:
            continue
        now = effect.after[file]
        if now is not (Known.GONE if need else Known.THERE):
            continue
        if not rule.changes_state and effect.before.get(file) is now:
            continue  # the state is kept, and the actions did not make it so
        said = f"{file} {'exists' if need else 'missing'}"
        if file in effect.by_ai:
            index, action = effect.by_ai[file]
            yield (
                ("unchecked", rule.id, file),
                Finding(
                    "indicators_unchecked",
                    f"rule {rule.id} leads to {rule.dest}, whose Indicators say {said}; "
                    f"action ({index}) ({action.text!r}) is passed to the AI as text, so "
                    f"whether {file} is {'made' if need else 'moved'} as they say is up to the "
                    "AI and is not checked; to have the runtime do it, write it as an action "
                    "the runtime carries out",
                    line=rule.line,
                    rule=rule.id,
                    state=rule.source,
                    spell=rule.spell,
                ),
            )
            continue
        why = effect.why.get(file, "")
        if need and (not why or _asked_of_ai(spec, rule, file)):
            continue  # the AI makes it in the new state, as the rule asks
        if need:
            how = f"{why}, and nothing makes it again"
            fix = f"drop that action, or lead to a state whose Indicators allow {file} missing"
        else:
            how = (
                f"{why}" if why else f"{_what_makes(spec, effect, file, '', True)}"
            ) + ", and no action removes it"
            if effect.unnamed:
                index, action = effect.unnamed[0]
                fix = (
                    f"action ({index}) ({action.text!r}) is passed to the AI as text and "
                    "names no file: name the files and the folder "
                    f"(`Archive {file} to FOLDER/`) so that the runtime moves them"
                )
            else:
                fix = (
                    f"add an action that removes it (`Archive {file} to FOLDER/`, "
                    f"`Delete existing {file}`), or lead to another state"
                )
        yield (
            ("broken", rule.id, file),
            Finding(
                "indicators_broken",
                f"rule {rule.id} leads to {rule.dest}, whose Indicators say {said}, but "
                f"{file} is {'missing' if need else 'still there'} after the rule ({how}); " + fix,
                line=rule.line,
                rule=rule.id,
                state=rule.source,
                spell=rule.spell,
                world=f"{file} {'missing' if need else 'exists'} after {rule.id}",
            ),
        )


def _value_indicator(
    effect: Effect, lit: LiteralSpec
) -> Iterator[tuple[tuple[object, ...], Finding]]:
    """A next state's Indicator about a value of a JSON file that an action of the rule
    sets otherwise (`Set `tickets[id=$ticket].status` in F to "open"`, into a
    state whose Indicators say it is "closed")."""
    from spellbook.facts.json_values import compare, comparison, each_value
    from spellbook.facts.wording import describe

    rule, atom = effect.rule, lit.atom
    query, op, operand = comparison(atom.param)
    found = effect.values.get((atom.file, query))
    if found is None:
        return
    value, why = found
    if any(compare(v, op, operand) for v in each_value([value])) == lit.positive:
        return
    said = describe(atom.probe, atom.file, atom.param, lit.positive)
    shown = json.dumps(value, ensure_ascii=False)
    yield (
        ("broken", rule.id, atom.file, atom.param),
        Finding(
            "indicators_broken",
            f"rule {rule.id} leads to {rule.dest}, whose Indicators say {said}, but {why} "
            f"{shown} (`{query}` in {atom.file}); set the value they say, or lead to a state "
            "whose Indicators allow it",
            line=rule.line,
            rule=rule.id,
            state=rule.source,
            spell=rule.spell,
            world=f"`{query}` in {atom.file} is {shown} after {rule.id}",
        ),
    )


def _ledger_indicator(
    effect: Effect, lit: LiteralSpec
) -> Iterator[tuple[tuple[object, ...], Finding]]:
    """A next state's Indicator that a file has matches a ledger does not list, where an
    action of the rule records every one of them (of the whole file, or of the section
    the Indicator asks about)."""
    from spellbook.facts.wording import describe

    rule, atom = effect.rule, lit.atom
    why = effect.all_listed(atom)
    if not why:
        return
    said = describe(atom.probe, atom.file, atom.param, True)
    yield (
        ("broken", rule.id, atom.file, atom.param),
        Finding(
            "indicators_broken",
            f"rule {rule.id} leads to {rule.dest}, whose Indicators say {said}, but {why}, "
            "so every one is listed after it; lead to a state whose Indicators say they are "
            'listed, or record another section (`under "S"`)',
            line=rule.line,
            rule=rule.id,
            state=rule.source,
            spell=rule.spell,
            world=f"every match is listed after {rule.id}",
        ),
    )


def established(analysis: Analysis, effects: Effects, fact: Atom) -> dict[str, bool]:
    """For each state, whether `fact` holds whenever the machine is in it: every rule
    that leads into it checks it, or leaves it as its source state had it, without
    touching the file (a greatest fixpoint; the initial state has nothing checked)."""
    spec = analysis.spec
    entering: dict[str, list[tuple[RuleSpec, int]]] = {st.name: [] for st in spec.states}
    for rule, at in _winning(analysis):
        entering[rule.dest].append((rule, at))
    holds = {st.name: st.name != spec.initial for st in spec.states}
    keeps: dict[tuple[str, str, int], tuple[bool, bool]] = {}
    for entries in entering.values():
        for rule, at in entries:
            effect = effects.effect(rule, at)
            where = effects.region(rule, at)
            if effect is None or where is None:
                keeps[(rule.source, rule.spell, at)] = (False, False)
                continue
            untouched = fact.file not in effect.touched
            checked = not where.possible(LiteralSpec(fact, False))
            keeps[(rule.source, rule.spell, at)] = (untouched and checked, untouched)
    changed = True
    while changed:
        changed = False
        for state, entries in entering.items():
            if not holds[state]:
                continue
            for rule, at in entries:
                checked, untouched = keeps[(rule.source, rule.spell, at)]
                if not (checked or (untouched and holds[rule.source])):
                    holds[state] = False
                    changed = True
                    break
    return holds


def _inputs(
    analysis: Analysis, effects: Effects
) -> Iterator[tuple[tuple[object, ...], Finding, str]]:
    """Values an action fills a folder's or a line's name with that some world reaching
    the rule does not provide."""
    known: dict[Atom, dict[str, bool]] = {}
    for rule, at in _winning(analysis):
        for index, action in enumerate(rule.actions, start=1):
            for name in sorted(needs(action)):
                source = source_of(rule, name)
                if source is None:
                    yield (
                        ("input", rule.id, name),
                        Finding(
                            "action_input",
                            f"rule {rule.id}: action ({index}) ({action.text!r}) uses "
                            f"${{{name}}}, which no action of the rule reads, so every cast "
                            f"of it is refused; add `Extract {name} from FILE frontmatter` "
                            "before it",
                            line=rule.line,
                            rule=rule.id,
                            state=rule.source,
                            spell=rule.spell,
                            level=Severity.ERROR,
                        ),
                        rule.source,
                    )
                    continue
                file = source.files[0]
                fact = Atom("field", file, name)
                where = effects.region(rule, at)
                if where is None:
                    continue
                if not where.possible(LiteralSpec(exists(file), True), LiteralSpec(fact, False)):
                    continue  # checked here, or the file is never there (a placeholder)
                if fact not in known:
                    known[fact] = established(analysis, effects, fact)
                if known[fact][rule.source]:
                    continue
                yield (
                    ("input", rule.id, name),
                    _input_finding(analysis, effects, rule, index, action, file, name),
                    rule.source,
                )


def _input_finding(
    analysis: Analysis,
    effects: Effects,
    rule: RuleSpec,
    index: int,
    action: ActionSpec,
    file: str,
    name: str,
) -> Finding:
    check_phrase = f"{file} has `{name}`" if is_json(file) else f"{file} frontmatter has `{name}`"
    read = "key" if is_json(file) else "frontmatter"
    at_first = _first_check(analysis, effects, rule, file)
    key = re.compile(rf"\^?\s*{re.escape(name)}\s*:")
    text = next(
        (
            lit.atom.param
            for lit in rule.condition.literals
            if lit.positive
            and lit.atom.probe == "matches"
            and lit.atom.file == file
            and key.match(lit.atom.param)
        ),
        None,
    )
    if text is not None:
        fix = (
            f"its condition matches `{text}` in {file}'s text, which may be any line of "
            f"it: say {check_phrase!r} instead (... matching `PATTERN` for the value's "
            "shape)"
        )
    elif at_first is None:
        fix = (
            f"check {check_phrase!r} in this rule's condition, with a rule for when it "
            "does not hold that says what to do"
        )
    else:
        fix = (
            f"check it where {file} is first there to check: add {check_phrase!r} to the "
            f"condition of rule {at_first.id} (line {at_first.line})"
        )
    return Finding(
        "action_input",
        f"rule {rule.id}: action ({index}) ({action.text!r}) fills ${{{name}}} from "
        f"{file}'s {read}, but nothing makes sure {file}'s {read} has `{name}` when the rule "
        f"fires in {rule.source}: when it exists without one, the cast is refused, after the work "
        f"is done; {fix}",
        line=rule.line,
        rule=rule.id,
        state=rule.source,
        spell=rule.spell,
        world=f"{file} exists, {file} has no `{name}`",
    )


def _first_check(
    analysis: Analysis, effects: Effects, rule: RuleSpec, file: str
) -> RuleSpec | None:
    """The first rule (by line) leading into `rule`'s state where `file` is always there
    and is not made or changed by the rule's own actions: where its values can be
    checked before the work they name is done."""
    found: list[RuleSpec] = []
    for other, at in _winning(analysis):
        if other.dest != rule.source or not other.changes_state:
            continue
        effect = effects.effect(other, at)
        where = effects.region(other, at)
        if effect is None or where is None or file in effect.touched:
            continue
        if where.known(exists(file)) is Known.THERE:
            found.append(other)
    return min(found, key=lambda r: r.line) if found else None
