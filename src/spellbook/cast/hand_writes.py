"""Judging a write made by hand of a workspace JSON file by what only casts change there.

A generated module's `KEPT` (`spellbook.schema.Kept`, which the compiler draws from
what the spec's casts write) says it: a list the casts address by a key keeps every
item, once, with its key, and the key they set on its items is set only by them (a new
item carries none of the values they write); a command a guard runs stays as written.
A hand may add items and edit their other keys. The words of a refusal are the spec's
names: the list `tickets` has items called "ticket", `check_command` is "the check
command". Imported only when such a file is written.
"""

from __future__ import annotations

import json
import re

from spellbook.disk.state_file import parse_json
from spellbook.records.errors import BadFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from spellbook.schema import Kept


def refusal(machine: object, name: str, before: str | None, after: str) -> str | None:
    """Why a hand-made write of the workspace file `name` (text `before` -> `after`) must
    be refused, or None."""
    kept = [k for k in getattr(machine, "KEPT", ()) if k.file == name]
    if not kept:
        return None
    try:
        proposed = parse_json(after, name)
    except BadFile as err:
        return f"the new {err}"
    try:
        current = parse_json(before, name) if before and before.strip() else {}
    except BadFile:
        current = {}  # the file on disk is broken: every item written now is new
    who = _who(str(getattr(machine, "TITLE", "")))
    for k in kept:
        why = _command(k, current, proposed, who) if k.command else _list(k, current, proposed, who)
        if why:
            return why
    return None


def _list(k: Kept, current: object, proposed: object, who: str) -> str | None:
    """Why `proposed` would change what the casts keep of the list `k.items`, or None."""
    item, items = _item_word(k.items), k.items.replace("_", " ")
    problem = _shape(k, proposed, item)
    if problem:
        return problem
    marked = " or ".join(_shown_value(v) for v in k.marked)
    kept = (
        f"a hand may add {items} (none {marked}) and edit their other keys, but every "
        f"{item} stays, once, with its {k.key}" + (f" and {k.marks}" if k.marks else "")
    )
    after = f", after running {_command_words(k.after)}" if k.after else ""
    marks = f"only the {who} marks it{after}: cast {' or '.join(k.spells)} instead"
    was, now = _items(current, k.items), _items(proposed, k.items)
    was_keys, now_keys = [f.get(k.key) for f in was], [f.get(k.key) for f in now]
    for at, entry in enumerate(was):
        wanted = entry.get(k.key)
        if wanted not in now_keys:
            other = now_keys[at] if at < len(now_keys) else None
            if other is not None and other not in was_keys:
                return f"{item} {_said(wanted)}'s {k.key} would change to {_said(other)}; {kept}"
            return f"{item} {_said(wanted)} would be removed; {kept}"
        if now_keys.count(wanted) > 1:
            return f"{item} {_said(wanted)} would be listed twice; {kept}"
        if not k.marks:
            continue
        written = next(f for f in now if f.get(k.key) == wanted)
        if _exact(written.get(k.marks)) != _exact(entry.get(k.marks)):
            return f"{_marked(item, wanted, written.get(k.marks))} by hand; {marks}"
    for entry in now:
        wanted = entry.get(k.key)
        if wanted in was_keys:
            continue
        if now_keys.count(wanted) > 1:
            return f"{item} {_said(wanted)} would be listed twice; {kept}"
        value = entry.get(k.marks) if k.marks else None
        if k.marks and k.marks in entry and _exact(value) in k.marked:
            return (
                f"{_marked(item, wanted, value)} by hand; a new {item} is never written "
                f"{marked}, and {marks}"
            )
    return None


def _command(k: Kept, current: object, proposed: object, who: str) -> str | None:
    """Why `proposed` would change the command `k.command`, once written, or None."""
    before = current.get(k.command) if isinstance(current, dict) else None
    after = proposed.get(k.command) if isinstance(proposed, dict) else None
    if before and _exact(after) != _exact(before):
        words = _command_words(k.command)
        return (
            f"{words} would change; it is what the {who}'s guards run, the developer's to "
            f"change, not the {who}'s"
        )
    return None


def _shape(k: Kept, value: object, item: str) -> str | None:
    """What keeps `value` from being a file whose list the casts can address."""
    entries = value.get(k.items) if isinstance(value, dict) else None
    if not isinstance(entries, list):
        return f'the new file must be an object with a "{k.items}" list'
    if not all(isinstance(f, dict) and isinstance(f.get(k.key), str) for f in entries):
        return f'every {item} of the new file must be an object with a text "{k.key}"'
    return None


def _items(value: object, items: str) -> list[dict[str, object]]:
    found = value.get(items) if isinstance(value, dict) else None
    return [f for f in found if isinstance(f, dict)] if isinstance(found, list) else []


def _item_word(items: str) -> str:
    """What one item of the list `items` is called: `tickets` -> "ticket"."""
    word = items.replace("_", " ")
    if word.endswith("ies") and len(word) > 3:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 1:
        return word[:-1]
    return f"item of {word}"


def _command_words(key: str) -> str:
    """`test_command` -> "the test command"; a key that does not say command, in
    backticks: "the command `check`"."""
    words = key.replace("_", " ").strip()
    return f"the {words}" if words.endswith("command") else f"the command `{key}`"


def _who(title: str) -> str:
    """Who casts, from the spec's title: "Session State Machine" -> "session"."""
    said = re.sub(r"\s*\b(?:state\s+)?machine$", "", title.strip(), flags=re.I).strip()
    return said.lower()[:60] or "workflow"


def _marked(item: str, key: object, value: object) -> str:
    return f"{item} {_said(key)} would be marked {_said(value)}"


def _shown_value(text: str) -> str:
    value = json.loads(text)
    return value if isinstance(value, str) else text


def _said(value: object) -> str:
    return str(value)[:80]


def _exact(value: object) -> str:
    return json.dumps(value, sort_keys=True)
