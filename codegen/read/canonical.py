"""The reading in canonical words: each fact, condition and action cell said as the
core says it, in words the reader reads back to the same facts (`conditions`) and
the same actions (`action_phrases`).

A fact is said in its probe's own words (`spellbook.facts.wording.describe`, from the
`Probe` record's `yes` and `no`), whatever words the spec wrote it in: a term's
name or a vocabulary's noun is spelt out. The one exception is a fact about a
vocabulary's pattern, which only the vocabulary's noun names (the same pattern
written in a spec would be run as a spec's pattern). A condition is its
alternatives joined by `OR`, each its facts joined by `AND`; a phrase the reader
could not read is shown as written. An action is its verb's canonical form
(`_VERBS`), one per verb; an instruction to the AI is its words as written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from spellbook.facts.implications import implied
from spellbook.facts.json_values import is_json
from spellbook.facts.ledgers import record_parts
from spellbook.facts.patterns import VOCABULARY
from spellbook.facts.probes import PROBES
from spellbook.facts.wording import describe, named

from ..logic import DNF
from ..model import ActionSpec, Condition, LiteralSpec
from .conditions import NEVER
from .lexicon import Lexicon, ReadOptions

# What a condition that always holds is said as (`-` is too, in a cell).
ALWAYS = "always"


def lexicon_for(options: ReadOptions) -> Lexicon:
    """The words canonical words are read back with: the core's and the vocabulary's (its
    nouns, its templates), never a spec's own Terms, which may give a core phrase another
    meaning (a term `task.md exists` meaning `other.md exists`)."""
    return Lexicon.of(ReadOptions(options.vocabulary, own_code=options.own_code)).with_files(
        options
    )


def fact_words(literal: LiteralSpec, lexicon: Lexicon | None = None) -> str:
    """One fact, holding or not, in the words the reader reads back as it."""
    atom = literal.atom
    if atom.probe == "unknown":  # not read: the phrase as written
        return atom.param if literal.positive else f"NOT {atom.param}"
    if VOCABULARY in atom.param and lexicon is not None:
        said = _vocabulary_words(literal, lexicon)
        if said:
            return said
    return describe(atom.probe, atom.file, atom.param, literal.positive)


def _vocabulary_words(literal: LiteralSpec, lexicon: Lexicon) -> str:
    """A fact about a vocabulary's pattern, in its noun's words: the noun itself (`plan.md
    has ticket links`), or its matches a ledger lacks (`... not listed in .refs`)."""
    atom = literal.atom
    noun = lexicon.noun_for(atom.probe, atom.param)
    if noun is not None:
        return (noun.yes if literal.positive else noun.no).format(file=named(atom.file))
    ledger, _, pattern = atom.param.partition(" ")
    noun = lexicon.noun_for("matches", pattern)
    if noun is None or atom.probe != "unlisted":
        return ""
    has = "has" if literal.positive else "has no"
    return f"{named(atom.file)} {has} {noun.name} not listed in {named(ledger)}"


def dnf_words(clauses: DNF, lexicon: Lexicon | None = None) -> str:
    """Alternatives of facts: `(a AND b) OR c`. AND binds tighter, as the reader reads
    it; the parentheses show the grouping all the same, where a cell written `c OR a
    AND b` may have meant another."""
    if any(not clause for clause in clauses):
        return ALWAYS
    if not clauses:
        return NEVER
    said = [_clause_words(clause, lexicon) for clause in clauses]
    if len(said) == 1:
        return said[0]
    return " OR ".join(f"({s})" if " AND " in s else s for s in said)


def _clause_words(clause: Sequence[LiteralSpec], lexicon: Lexicon | None) -> str:
    """Facts joined by AND; a fact about a section that does not hold, beside the fact
    that the section is there, said in one phrase as the reader reads it (`plan.md has
    no unchecked items under "Risks"`)."""
    said: list[str] = []
    taken: set[int] = set()
    for i, lit in enumerate(clause):
        if i in taken:
            continue
        atom = lit.atom
        if not lit.positive and PROBES[atom.probe].absent and i + 1 < len(clause):
            # The reader reads the one phrase as the two facts, in this order.
            there = [f for f in implied(atom.probe, atom.file, atom.param) if f[0] == "section"]
            after = clause[i + 1]
            if after.positive and (after.atom.probe, after.atom.file, after.atom.param) in there:
                taken.add(i + 1)
                said.append(describe(atom.probe, atom.file, atom.param, False, absent=True))
                continue
        said.append(fact_words(lit, lexicon))
    return " AND ".join(said)


def condition_words(condition: Condition, lexicon: Lexicon | None = None) -> str:
    """A Condition cell's reading (one that can never hold, whose alternatives all
    contradict themselves, is `never`)."""
    return dnf_words(condition.clauses, lexicon)


def action_words(action: ActionSpec, lexicon: Lexicon | None = None) -> str:
    """One action in its verb's canonical words; a phrase no verb reads, an action that
    cannot be carried out, and a vocabulary's own verb, as written."""
    form = _VERBS.get(action.verb)
    said = form(action, lexicon) if form is not None and not action.problem else ""
    return said or " ".join(action.text.split())


def actions_words(actions: Sequence[ActionSpec], lexicon: Lexicon | None = None) -> str:
    """An Action cell's reading, as a cell writes it: `-`, one phrase, or `(1) ...; (2) ...`."""
    if not actions:
        return "-"
    said = [action_words(a, lexicon) for a in actions]
    if len(said) == 1:
        return said[0]
    return "; ".join(f"({i}) {words}" for i, words in enumerate(said, 1))


def shown(action: ActionSpec, lexicon: Lexicon | None = None) -> str:
    """One action for a reader: an instruction to the AI said to be one, and a callback
    of the project's own code with its method's name."""
    words = action_words(action, lexicon)
    if action.verb == "call":  # the project's own code (`own_code`)
        return f"callback {action.target}: {words}"
    return f"instruction to the AI: {words}" if action.verb == "instruct" else words


def _quoted(text: str) -> str:
    """Text in the first quotes it holds none of: backticks, double quotes, curly ones."""
    for left, right in (("`", "`"), ('"', '"'), ("“", "”")):
        if left not in text and right not in text:
            return f"{left}{text}{right}"
    return ""


def _files(files: Sequence[str]) -> str:
    return " and ".join(_name(f) for f in files)


def _name(file: str) -> str:
    """A file as an action names it: bare with an extension, else in backticks."""
    return named(file)


def _create(action: ActionSpec, lexicon: Lexicon | None) -> str:
    file = _name(action.files[0])
    if not action.target:
        return f"Create empty {file}"
    by_name = lexicon.files.by_name(action.files[0])[0] if lexicon and lexicon.files else ""
    if action.target == by_name or (not action.content and action.target == action.files[0]):
        return f"Create {file} from its template"
    return f"Create {file} from `{action.target}`"


def _reset(action: ActionSpec, lexicon: Lexicon | None) -> str:
    counter, _, value = action.target.partition("=")
    return f"Reset {counter} to {value}"


def _extract(action: ActionSpec, lexicon: Lexicon | None) -> str:
    file = action.files[0]
    if not action.target:
        return f"Read {_name(file)} frontmatter"
    place = "" if is_json(file) else " frontmatter"
    return f"Extract {action.target} from {_name(file)}{place}"


def _append(action: ActionSpec, lexicon: Lexicon | None) -> str:
    line = _quoted(action.target.replace("\n", "<br>"))  # a cell's line break
    return f"Append {line} to {_name(action.files[0])}" if line else ""


def _set_field(action: ActionSpec, lexicon: Lexicon | None) -> str:
    key, value = json.loads(action.target)
    said = json.dumps(value, ensure_ascii=False)
    return f"Set `{key}` in {_name(action.files[0])} to {said}"


def _set_state_field(action: ActionSpec, lexicon: Lexicon | None) -> str:
    name, how, value = json.loads(action.target)
    if how == "first":
        return f"Set `{name}` in the state file to the first `{value}` of {_name(action.files[0])}"
    return f"Set `{name}` in the state file to {json.dumps(value, ensure_ascii=False)}"


def _append_item(action: ActionSpec, lexicon: Lexicon | None) -> str:
    key, value = json.loads(action.target)
    said = json.dumps(value, ensure_ascii=False)
    return f"Append {said} to `{key}` in {_name(action.files[0])}"


def _record(action: ActionSpec, lexicon: Lexicon | None) -> str:
    source, ledger = action.files
    pattern, section = record_parts(action.target)
    noun = lexicon.noun_for("matches", pattern) if lexicon is not None else None
    if noun is not None:
        what = noun.name
    elif VOCABULARY in pattern or "`" in pattern:
        return ""
    else:
        what = f"matches of `{pattern}`"
    if section:
        what += f' under "{section}"'
    return f"Record {what} of {_name(source)} in {_name(ledger)}"


# The core's verbs whose words as written are their canonical words: `fill` and `find`
# keep nothing the words do not say, and `instruct` is the words themselves. So is a
# vocabulary's own verb (`mark`, `select`): its vocabulary's pattern reads it.
AS_WRITTEN = frozenset({"fill", "find", "instruct", "call"})
# Each other verb's canonical form.
_VERBS: dict[str, Callable[[ActionSpec, Lexicon | None], str]] = {
    "no_change": lambda a, _: "No state change",
    "set_state": lambda a, _: f"Update state to {a.target}",
    "increment": lambda a, _: f"Increment {a.target}",
    "reset": _reset,
    "create": _create,
    "archive": lambda a, _: f"Archive {_files(a.files)} to {a.target}",
    "delete": lambda a, _: f"Delete {_files(a.files)}",
    "load": lambda a, _: f"Load {_name(a.files[0])} content",
    "extract": _extract,
    "copy": lambda a, _: f"Copy {_name(a.files[0])} to {_name(a.files[1])}",
    "move": lambda a, _: f"Move {_name(a.files[0])} to {_name(a.files[1])}",
    "append": _append,
    "set_field": _set_field,
    "set_state_field": _set_state_field,
    "append_item": _append_item,
    "record": _record,
}
