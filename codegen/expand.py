"""Notation expansion: rows as written become concrete rules, one per (source state, spell).

`NAME_[G/A]` in Current State means each member of the family; in Next State it
means the member whose suffix is the source state's suffix; as a States list item,
it declares each member, with the item's fields. `Any state` and
`Any state except ...` are wildcards (lower priority than rows naming the
state); so are `any terminal` and `any non-terminal`, where a terminal state is
one no row leads out of (a row naming it whose Next State is another state;
wildcard rows are not counted, so `any terminal -> idle` does not make its own
states non-terminal). `A / B` in Current State is `A, B` where every part is a
state. Names that do not resolve are kept as `Unresolved` for the verifier,
never raised: the rest of the row still expands, and the hint it carries is a
form that reads, never a name of the opposite meaning (`any non-completed` is
not `completed`).

Where the spec says transitions not listed are rejected (`Policy`), each
(state, spell) no row names gets a rule of the policy's: blocked, always.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from functools import cache, lru_cache
from typing import TypeVar

from spellbook.records.words import plural

from .model import (
    ActionSpec,
    Condition,
    Duplicate,
    Family,
    Kind,
    Policy,
    RuleRow,
    RuleSpec,
    Spec,
    Specificity,
    Spell,
    StateSchema,
    StateSpec,
    Unresolved,
)
from .read.document import Document
from .read.lexicon import normal
from .read.markdown import html_comment_in_cell
from .read.rows import SAME, STAY

_FAMILY_MEMBER = re.compile(r"(?P<base>[A-Za-z0-9_]+?)_(?P<suffix>[A-Z])")
_FAMILY_REF = re.compile(r"(?P<base>[A-Za-z0-9_]+?)_\[(?P<suffixes>[^\]]*)\]")


def build_spec(document: Document, path: str, sha256: str) -> Spec:
    """Resolve and expand a parsed document into the model."""
    declared = tuple(_declared(document.states))
    states = _first_of_each(declared)
    spells = _first_of_each(document.spells)
    families = group_families(states)
    resolver = _Resolver(states, spells, families, document.spell_word)
    resolver.rows = document.rows
    rules: list[RuleSpec] = []
    for order, row in enumerate(document.rows):
        rules.extend(resolver.expand(row, order))
    # A Valid Actions entry names its spell as the spell is named (`Lumos` for `lumos`),
    # as a row's Trigger cell does.
    states = tuple(
        replace(
            state,
            valid_actions=tuple(
                replace(
                    action,
                    spell=resolver.spell(
                        action.spell, "Valid Actions", action.line, None, state.name
                    )
                    or action.spell,
                )
                for action in state.valid_actions
            ),
        )
        for state in states
    )
    rules += policy_rules(document.unlisted, states, spells, rules, len(document.rows))
    for spell in spells:
        if spell.target and spell.target not in resolver.known_states:
            resolver.unresolved.append(
                Unresolved(
                    "unknown_state",
                    spell.target,
                    "Target",
                    spell.line,
                    None,
                    Suggester(resolver.state_names)(spell.target),
                    f"the target of {spell.name}",
                )
            )
    return Spec(
        path=path,
        sha256=sha256,
        title=document.title,
        state_file=document.state_file,
        templates=document.templates,
        spells=spells,
        states=states,
        families=families,
        rows=document.rows,
        rules=tuple(rules),
        unresolved=tuple(resolver.unresolved),
        duplicates=tuple(_duplicates(document, declared)),
        schema=state_schema(document.state_example, {s.name for s in states}),
        spell_word=document.spell_word,
        vocabulary=document.vocabulary,
        own_code=document.own_code,
        words=dict(document.words),
        terms=document.terms,
        notices=document.notices,
        unlisted=document.unlisted,
        layout=document.layout,
        section=document.section,
        started=document.started,
        state_line=document.state_line,
    )


# The ID of the rules that stand for "transitions not listed are rejected".
POLICY_ID = "not listed"
_ALWAYS = Condition("-", ((),))


def policy_rules(
    policy: Policy | None,
    states: tuple[StateSpec, ...],
    spells: tuple[Spell, ...],
    rules: list[RuleSpec],
    after: int,
) -> list[RuleSpec]:
    """With the policy, a blocked rule for each (state, spell) no rule names, one
    group per spell (ordered after the spec's `after` rows); and, last in each cell
    whose rules all have conditions, one that refuses the spell where none of them
    fires (a gap the policy covers: `Specificity.POLICY`, below every row, one group
    per spell after those); none without it."""
    if policy is None:
        return []
    covered = {(r.source, r.spell) for r in rules}
    always = {(r.source, r.spell) for r in rules if r.condition.always}
    found = []
    for at, spell in enumerate(spells):
        for state in states:
            cell = (state.name, spell.name)
            if cell in always:
                continue
            gap = cell in covered
            found.append(
                RuleSpec(
                    id=POLICY_ID,
                    line=policy.line,
                    order=after + at + (len(spells) if gap else 0),
                    group="",
                    kind=Kind.BLOCKED,
                    source=state.name,
                    spell=spell.name,
                    condition=_ALWAYS,
                    dest=state.name,
                    action="",
                    actions=(),
                    response=f"{spell.name} is not listed for this state"
                    + (" when none of its rows' conditions holds" if gap else "")
                    + ", and transitions not listed are rejected.",
                    response_ref="",
                    specificity=Specificity.POLICY if gap else Specificity.EXPLICIT,
                    policy=True,
                )
            )
    return found


def state_schema(example: dict[str, object] | None, states: set[str]) -> StateSchema:
    """The state file's shape from the spec's example; the spell workflow's by default."""
    if not example:
        return StateSchema()
    state_key = next(
        (k for k, v in example.items() if isinstance(v, str) and v in states),
        "current_state" if "current_state" in example else "state",
    )
    history = example.get("history")
    first = history[0] if isinstance(history, list) and history else None
    entry_keys = tuple(first) if isinstance(first, dict) else StateSchema().entry_keys
    fields = tuple(k for k in example if k not in (state_key, "context", "history"))
    return StateSchema(state_key, entry_keys, fields)


_Named = TypeVar("_Named", StateSpec, Spell)


def _first_of_each(items: Iterable[_Named]) -> tuple[_Named, ...]:
    """Definitions in document order; a repeated name keeps its first definition."""
    seen: dict[str, _Named] = {}
    for item in items:
        seen.setdefault(item.name, item)
    return tuple(seen.values())


def _declared(states: Iterable[StateSpec]) -> Iterator[StateSpec]:
    """The States list's items, each family (`**NAME_[G/A]**`) as its members in the
    notation's order, each with the family's fields. A *Formerly* family name,
    `OLD_[G/A]`, names the former state with the member's own suffix."""
    for state in states:
        family = _family(state.name)
        if family is None:
            yield state
            continue
        base, _, suffixes = family
        for suffix in suffixes:
            formerly = tuple(dict.fromkeys(_with_suffix(old, suffix) for old in state.formerly))
            yield replace(state, name=f"{base}_{suffix}", formerly=formerly)


def _with_suffix(name: str, suffix: str) -> str:
    """`OLD_[G/A]` with the suffix `G` is `OLD_G`; any other name stays as written."""
    family = _family(name)
    return f"{family[0]}_{suffix}" if family is not None and suffix in family[1] else name


@lru_cache(maxsize=256)
def _family(name: str) -> tuple[str, frozenset[str], tuple[str, ...]] | None:
    """A name written `BASE_[G/A]` as its base and suffixes (as a set, and in order); None
    for any other name. Read once per name: a family of thousands asks it per member."""
    ref = _FAMILY_REF.fullmatch(name)
    if not ref:
        return None
    suffixes = tuple(_suffixes(ref.group("suffixes")))
    return ref.group("base"), frozenset(suffixes), suffixes


def family_members(name: str) -> tuple[str, ...] | None:
    """The states `NAME_[G/A]` stands for, in the notation's order (NAME_G, NAME_A);
    None for a name not written as a family."""
    family = _family(name)
    return tuple(f"{family[0]}_{suffix}" for suffix in family[2]) if family else None


def _duplicates(document: Document, states: tuple[StateSpec, ...]) -> Iterator[Duplicate]:
    for what, items in (
        ("state", [(s.name, s.line) for s in states]),
        ("spell", [(s.name, s.line) for s in document.spells]),
        ("rule ID", [(r.id, r.line) for r in document.rows if r.id_written]),
    ):
        first: dict[str, int] = {}
        for name, line in items:
            if name in first:
                yield Duplicate(what, name, line, first[name])
            else:
                first[name] = line


def group_families(states: tuple[StateSpec, ...]) -> tuple[Family, ...]:
    """States `BASE_X` sharing a base with another `BASE_Y` form the family `BASE_[X/Y]`."""
    by_base: dict[str, list[StateSpec]] = {}
    for state in states:
        m = _FAMILY_MEMBER.fullmatch(state.name)
        if m:
            by_base.setdefault(m.group("base"), []).append(state)
    families: list[Family] = []
    grouped: set[str] = set()
    for state in states:
        if state.name in grouped:
            continue
        m = _FAMILY_MEMBER.fullmatch(state.name)
        members = by_base.get(m.group("base"), []) if m else []
        if m and len(members) > 1:
            suffixes = tuple(s.name[len(m.group("base")) + 1 :] for s in members)
            base = m.group("base")
            families.append(
                Family(
                    f"{base}_[{'/'.join(suffixes)}]",
                    base,
                    tuple(s.name for s in members),
                    suffixes,
                    state.line,
                )
            )
            grouped.update(s.name for s in members)
        else:
            families.append(Family(state.name, state.name, (state.name,), ("",), state.line))
    return tuple(families)


class _Resolver:
    def __init__(
        self,
        states: tuple[StateSpec, ...],
        spells: tuple[Spell, ...],
        families: tuple[Family, ...],
        spell_word: str = "spell",
    ) -> None:
        self.spell_word = spell_word
        self.state_names = [s.name for s in states]
        self.known_states = set(self.state_names)
        self.spells = {s.name.lower(): s.name for s in spells}
        self.families = families
        self.suffix_of: dict[str, str] = {
            member: suffix
            for fam in families
            if len(fam.members) > 1
            for member, suffix in zip(fam.members, fam.suffixes, strict=True)
        }
        self.unresolved: list[Unresolved] = []
        self._seen: set[tuple[str, str, str, int, str]] = set()
        self.suggest_state = Suggester([f.name for f in families] + self.state_names)
        self.suggest_spell = Suggester(list(self.spells.values()))
        self.rows: tuple[RuleRow, ...] = ()
        self._terminal: set[str] | None = None

    # -- reporting --

    def _unknown(
        self,
        reason: str,
        name: str,
        column: str,
        row_line: tuple[int, str | None],
        suggest: Suggester,
        detail: str = "",
        state: str | None = None,
    ) -> None:
        """Record a name that does not resolve, once per row, name and detail."""
        line, rule = row_line
        if "<!--" in name and not detail:
            suggest, detail = Suggester.fixed(name, None), html_comment_in_cell("name")
        key = (reason, name, column, line, detail)
        if key in self._seen:
            return
        self._seen.add(key)
        self.unresolved.append(
            Unresolved(reason, name, column, line, rule, suggest(name), detail, state)
        )

    def _unknown_state(self, name: str, column: str, row: RuleRow, detail: str = "") -> None:
        suggest = self.suggest_state
        if column == "Current State" and not detail:
            hint, detail = selector_hint(name, self.suggest_state, self.state_names, self.families)
            suggest = Suggester.fixed(name, hint)
        elif column == "Next State" and not detail and "*" in name:
            suggest = Suggester.fixed(name, None)
            detail = (
                "a `*` is not read as a wildcard: a Next State names one state, or a family "
                "(`NAME_[G/A]`) whose member the source state's suffix picks"
            )
        elif column == "Next State" and not detail:
            hint = target_hint(name)
            if hint is not None:
                suggest = Suggester.fixed(name, hint)
        self._unknown("unknown_state", name, column, (row.line, row.id), suggest, detail)

    # -- names --

    def spell(
        self, name: str, column: str, line: int, rule: str | None, state: str | None = None
    ) -> str | None:
        found = self.spells.get(name.lower())
        if found is None:
            detail = self._trigger_hint(name) if column == "Trigger" else ""
            suggest = Suggester.fixed(name, None) if detail else self.suggest_spell
            self._unknown("unknown_spell", name, column, (line, rule), suggest, detail, state)
        return found

    def _trigger_hint(self, name: str) -> str:
        """Why a Trigger cell's name that is no spell may be read whole: a parenthesis
        after a spell (`Reparo (confirm)`), or spells joined by a slash, `and`, `or`, `&`,
        `+` or `;` (`Expecto / Finite`), where a comma parts them; "" for any other."""
        text = " ".join(name.split())
        said = re.fullmatch(r"(?P<spell>[^()]+?)\s*(?P<note>\(.*\))", text)
        if said is not None and said["spell"].lower() in self.spells:
            spell = self.spells[said["spell"].lower()]
            return (
                f"the parenthesis is read as part of the name (a Trigger cell names "
                f"{plural(self.spell_word)} alone): write `{spell}`, and say what "
                f"`{said['note']}` adds in the Condition cell where it limits when the row fires"
            )
        parts = re.split(r"\s*[/&+;]\s*|\s+(?:and|or)\s+", text, flags=re.I)
        if len(parts) > 1 and all(p.lower() in self.spells for p in parts):
            spells = ", ".join(self.spells[p.lower()] for p in parts)
            return (
                f"several {plural(self.spell_word)} are written with a comma between them, "
                f"`{spells}` (or on a row each)"
            )
        return ""

    def sources(self, row: RuleRow) -> list[str]:
        """The concrete states a Current State cell selects, in document order."""
        named: list[str] = []
        for name in row.current.names:
            named.extend(self._states_named(name, row))
        if not row.current.wildcard:
            return list(dict.fromkeys(named))
        excluded = set(named)
        scope = row.current.scope
        if scope:
            terminal = self.terminal()
            excluded |= {s for s in self.state_names if (s in terminal) != (scope == "terminal")}
        return [s for s in self.state_names if s not in excluded]

    def terminal(self) -> set[str]:
        """The states no row leads out of: no row naming the state (wildcard rows are not
        counted) has a Next State other than the state itself."""
        if self._terminal is None:
            saved = (self.unresolved, self._seen)
            self.unresolved, self._seen = [], set()  # names are reported by `expand`
            try:
                out = {
                    source
                    for row in self.rows
                    if not row.current.wildcard and row.target.kind is Kind.TRANSITION
                    for source in self.sources(row)
                    if self.dest(row, source) != source
                }
            finally:
                self.unresolved, self._seen = saved
            self._terminal = {s for s in self.state_names if s not in out}
        return self._terminal

    def _states_named(self, name: str, row: RuleRow) -> list[str]:
        if name in self.known_states:
            return [name]
        parts = _slashed(name)
        if parts:
            return self._parts(name, parts, row)
        members = family_members(name)
        if members is not None:
            found = [member for member in members if member in self.known_states]
            if not found:  # the family itself is unknown (a typo): said once
                self._unknown_state(name, "Current State", row)
            for member in members if found else ():
                if member not in self.known_states:
                    self._unknown_state(name, "Current State", row, f"no state {member}")
            return found
        self._unknown_state(name, "Current State", row)
        return []

    def dest(self, row: RuleRow, source: str) -> str | None:
        target = row.target
        if target.kind is not Kind.TRANSITION or target.name is None:
            return source
        name = target.name
        if name in self.known_states:
            return name
        ref = _FAMILY_REF.fullmatch(name)
        if ref is None:
            self._unknown_state(name, "Next State", row)
            return None
        suffix = self.suffix_of.get(source)
        suffixes = _suffixes(ref.group("suffixes"))
        if suffix is None or suffix not in suffixes:
            detail = (
                f"source state {source} has no suffix to follow"
                if suffix is None
                else f"source state {source} has suffix _{suffix}, not one of {'/'.join(suffixes)}"
            )
            self.unresolved.append(
                Unresolved(
                    "ga_notation", name, "Next State", row.line, row.id, None, detail, source
                )
            )
            return None
        member = f"{ref.group('base')}_{suffix}"
        if member not in self.known_states:
            family = [f"{ref.group('base')}_{s}" for s in suffixes]
            if not any(m in self.known_states for m in family):  # a typo: said once
                self._unknown_state(name, "Next State", row)
            else:
                self._unknown_state(name, "Next State", row, f"no state {member}")
            return None
        return member

    def _action(self, action: ActionSpec, source: str) -> ActionSpec:
        """`Update state to NAME_[G/A]` names the member with the source's suffix."""
        if action.verb != "set_state":
            return action
        ref = _FAMILY_REF.fullmatch(action.target)
        suffix = self.suffix_of.get(source)
        if ref is None or suffix is None or suffix not in _suffixes(ref.group("suffixes")):
            return action
        return ActionSpec(action.verb, action.text, action.files, f"{ref.group('base')}_{suffix}")

    def _parts(self, name: str, parts: list[str], row: RuleRow) -> list[str]:
        """`A / B` as `A, B`, where every part is a state or a family; else the name is
        unknown, with the parts that are not and the list that would read."""
        found: list[str] = []
        unknown = []
        for part in parts:
            members = family_members(part)
            if part in self.known_states:
                found.append(part)
            elif members and all(m in self.known_states for m in members):
                found.extend(members)
            else:
                unknown.append(part)
        if not unknown:
            return found
        fixed = [part if part not in unknown else self.suggest_state(part) for part in parts]
        listed = ", ".join(f or "NAME" for f in fixed)
        detail = (
            f"{', '.join(unknown)} {'is not a state' if len(unknown) == 1 else 'are not states'}"
            f"; several states are written `{listed}`"
        )
        self._unknown(
            "unknown_state",
            name,
            "Current State",
            (row.line, row.id),
            Suggester.fixed(name, None),
            detail,
        )
        return []

    # -- rows --

    def expand(self, row: RuleRow, order: int) -> Iterator[RuleSpec]:
        resolved = (self.spell(t, "Trigger", row.line, row.id) for t in row.triggers)
        spells = list(dict.fromkeys(s for s in resolved if s is not None))
        for source in self.sources(row):
            dest = self.dest(row, source)
            if dest is None:
                continue
            for spell in spells:
                yield RuleSpec(
                    id=row.id,
                    line=row.line,
                    order=order,
                    group=row.group,
                    kind=row.target.kind,
                    source=source,
                    spell=spell,
                    condition=row.condition,
                    dest=dest,
                    action=row.action,
                    actions=tuple(self._action(a, source) for a in row.actions),
                    response=row.response,
                    response_ref=row.response_ref,
                    specificity=row.specificity,
                )


def _slashed(name: str) -> list[str]:
    """`A / B` (or `A/B/C`) as its parts; [] for a name with no `/` outside a family's
    brackets (`NAME_[G/A]` is one name)."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(name):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "/" and depth == 0:
            parts.append(name[start:at])
            start = at + 1
    if not parts:
        return []
    parts.append(name[start:])
    found = [p.strip().strip("`").strip() for p in parts]
    return found if all(found) else []


# The forms a Current State cell reads in, offered where one does not.
SELECTOR_FORMS = (
    "the forms that read are `Any state`, `Any state except NAME`, `any terminal`, "
    "`any non-terminal`, or the states themselves, `A, B`"
)


# A negated selector: `any non-X`, `not X`, `anything except X`, `all but X`, ...
@cache
def _negated() -> re.Pattern[str]:
    return re.compile(
        r"(?:(?:any|all|every)(?:thing)?\s+)?(?:states?\s+)?"
        r"(?:non[-_ ]?|not[-_ ]|except\s+|but\s+|other\s+than\s+|besides\s+)"
        r"(?P<rest>.+?)(?:\s+states?)?",
        re.IGNORECASE,
    )


_QUANTIFIED = re.compile(r"(?:any|all|every|each)(?:thing|one)?\b.*|\*.*")


def selector_hint(
    name: str, suggest: Suggester, states: Sequence[str], families: Sequence[Family] = ()
) -> tuple[str | None, str]:
    """What to offer for a Current State name that does not resolve: (did-you-mean,
    detail). A name with a `*` in it (`ACHIEVE_*`) is told that no wildcard reads, with
    the states it would match, never one of them as the name meant; a negated name is
    offered `Any state except X` (never X, its opposite); one that says `any ...` the
    forms that read; any other name the closest state."""
    known = set(states)
    text = " ".join(name.split())
    text = re.sub(r"^\*\s*(?=(?:except|but|other than|besides)\s)", "any ", text, flags=re.I)
    text = re.sub(r"\(\s*((?:except|but)\s[^()]*?)\s*\)$", r"\1", text, flags=re.I)
    if "*" in text and text.strip("* "):
        return None, _wildcard_hint(text, states, families)
    # A name written as an identifier (`NOT_STARTED`) is a name, offered the closest.
    worded = " " in text or re.match(r"non-\w", text, re.IGNORECASE) is not None
    negated = _negated().fullmatch(text) if worded else None
    signed = re.fullmatch(r"(?:!=?|~|\^|-|\u2260|\u00ac)\s*(?P<rest>\w.*)", text)
    negation = negated or signed
    if negation is not None:
        rest = negation.group("rest").strip("` ")
        parts = [p.strip("` ") for p in re.split(r"\s*(?:,|\bor\b|\band\b)\s*", rest)]
        found = [suggest(p) if p not in known else p for p in parts if p]
        if found and all(found):
            return f"`Any state except {', '.join(str(f) for f in found)}`", ""
        return None, f"every state but some is written `Any state except NAME`; {SELECTOR_FORMS}"
    if _QUANTIFIED.fullmatch(text.lower()):
        return None, SELECTOR_FORMS
    parts = [p.strip("` ") for p in re.split(r"\s+(?:and|or|&|\+)\s+|\s*;\s*", text)]
    if len(parts) > 1 and all(p in known for p in parts):
        return f"`{', '.join(parts)}`", ""  # `A and B`, `A or B`: several states
    return suggest(name), ""


def _wildcard_hint(name: str, states: Sequence[str], families: Sequence[Family]) -> str:
    """The detail for a Current State name written with a `*` (`ACHIEVE_*`, `*_MISSING`):
    a wildcard is not read; the states it would match are listed (a family whose every
    member matches as the family) where they are a few."""
    matched = [s for s in states if fnmatch.fnmatchcase(s, name)]
    for family in families:
        if len(family.members) > 1 and all(m in matched for m in family.members):
            at = matched.index(family.members[0])
            matched = [m for m in matched if m not in family.members]
            matched.insert(at, family.name)
    listed = (
        f"; the states it would match are written `{', '.join(matched)}`"
        if 0 < len(matched) <= 8
        else ""
    )
    return (
        f"a `*` is not read as a wildcard, so {name!r} names no state{listed}; states are "
        "named as themselves (`A, B`), as families (`NAME_[G/A]`), or as `Any state`, "
        "`Any state except NAME`, `any terminal` or `any non-terminal`"
    )


@cache
def _same_words() -> re.Pattern[str]:
    # The words of the cells that say the state does not change (`rows.SAME`, `rows.STAY`).
    words = sorted({w.strip("()") for w in SAME | STAY}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b")


@cache
def _blocked_words() -> re.Pattern[str]:
    return re.compile(r"\b(?:blocked|rejected|reject|denied|refused|invalid|forbidden)\b")


def target_hint(name: str) -> str | None:
    """The form a Next State that is no state may mean: `Same state` or `[BLOCKED]`."""
    text = normal(name)
    if _same_words().search(text):
        return "`Same state`"
    if _blocked_words().search(text):
        return "`[BLOCKED]`"
    return None


def _polarity(name: str) -> tuple[bool, str]:
    """Whether a name is negated (`non-X`, `NOT_X`, `no X`, `X except ...`), and the rest."""
    text = name.lower().strip()
    m = re.match(r"(?:non|not|no|without)[-_ ]?(.+)", text)
    if m and (text.startswith(("non", "not_", "not ", "not-", "no_", "no ", "no-", "without"))):
        return True, m.group(1)
    if re.search(r"\b(?:except|but)\b", text.replace("_", " ")):
        return True, text
    return False, text


def inverts(name: str, candidate: str) -> bool:
    """Whether `candidate` says the opposite of `name`: one is negated and the other not
    (`non-completed` and `completed`, `NOT_STARTED` and `STARTED`, `unpaid` and `paid`)."""
    negated, other = _polarity(name)[0], _polarity(candidate)[0]
    if negated != other:
        return True
    a, b = name.lower(), candidate.lower()
    for x, y in ((a, b), (b, a)):
        if x.startswith("un") and not y.startswith("un"):
            stem = x[2:].lstrip("-_ ")
            if difflib.SequenceMatcher(None, stem, y).ratio() >= 0.8:
                return True
    return False


def _suffixes(text: str) -> list[str]:
    """`G/A` (or `G|A`, the bar escaped in a table) -> ['G', 'A']."""
    return [s.strip() for s in re.split(r"[/|]", text) if s.strip()]


class Suggester:
    """The closest known name to a name that does not resolve, for a did-you-mean hint.

    Worked out once per distinct name, and only against a few candidates that could be
    close: those sharing the name's first or last three letters (case and a family's
    `_[G/A]` aside), at most POOL of them, those with the longest common start first,
    of a length that can reach difflib's cutoff. A spec naming many unknown states
    costs time in proportion to its size, not to the product of names and states.
    """

    CUTOFF = 0.6
    ENDS = 3
    POOL = 64

    def __init__(self, candidates: list[str]) -> None:
        self.exact: dict[str, str] = {}
        self.bases: dict[str, str] = {}
        self.index: dict[tuple[str, str], list[str]] = {}
        for candidate in candidates:
            upper = candidate.upper()
            self.exact.setdefault(upper, candidate)
            if candidate.endswith("]"):  # a family, by its base name
                self.bases.setdefault(candidate.split("_[", 1)[0].upper(), candidate)
            for key in self._keys(upper):
                self.index.setdefault(key, []).append(upper)
        self.found: dict[str, str | None] = {}

    def _keys(self, upper: str) -> tuple[tuple[str, str], tuple[str, str]]:
        base = upper.split("_[", 1)[0]
        return ("<", base[: self.ENDS]), (">", base[-self.ENDS :])

    def __call__(self, name: str) -> str | None:
        if name not in self.found:
            self.found[name] = self._closest(name)
        return self.found[name]

    @staticmethod
    def fixed(name: str, hint: str | None) -> Suggester:
        """A suggester that offers `hint` for `name` (a form, not a name)."""
        found = Suggester([])
        found.found[name] = hint
        return found

    def _closest(self, name: str) -> str | None:
        upper = name.upper()
        found = self.exact.get(upper) or self.bases.get(upper)
        if found:
            return found
        size = len(upper)
        # difflib's ratio is at most 2 * min(len) / (sum of lengths).
        near = {
            c
            for key in self._keys(upper)
            for c in self.index.get(key, ())
            if 2 * min(size, len(c)) >= self.CUTOFF * (size + len(c))
        }
        pool = sorted(near, key=lambda c: (-_common_start(c, upper), c))[: self.POOL]
        close = difflib.get_close_matches(upper, pool, n=3, cutoff=self.CUTOFF)
        # Never a name that says the opposite (`non-completed` is not `completed`).
        return next((self.exact[c] for c in close if not inverts(name, c)), None)


def _common_start(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
