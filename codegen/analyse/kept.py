"""What a write made by hand of a workspace JSON file may not do, drawn from the casts.

A list the spec's casts address by a key (``Set `items[key=$name].marks` in F.json to
"done"``, or a literal in the filter) is theirs to keep whole: a hand-made write may not
remove an item, change its key or list one twice, and the key they set (`marks`) only
casts set, to the values they write. A command a guard runs (``the command `key` of
F.json passes``) stays as written. The generated module declares these as `KEPT`
(`spellbook.schema.Kept`); the runtime judges a write by them (`spellbook.cast.hand_writes`).
"""

from __future__ import annotations

import json
import re
from functools import cache

from spellbook import schema as runtime
from spellbook.facts.json_values import fields_in, is_json

from ..model import Spec


# `items[key=value].marks`: one item of a top-level list, chosen by its key.
@cache
def _addressed() -> re.Pattern[str]:
    return re.compile(r"(?P<items>[^.\[\]]+)\[(?P<key>[^\]=!<>]+)=[^\]]*\]\.(?P<marks>[^.\[\]]+)")


def kept(spec: Spec) -> tuple[runtime.Kept, ...]:
    """The lists and commands of the workspace's JSON files that only casts change, in
    the order the spec first names them."""
    found: dict[tuple[str, str, str, str], dict[str, list[str]]] = {}
    afters: dict[tuple[str, str, str, str], set[str]] = {}
    for rule in spec.rules:
        if rule.policy:
            continue
        for action in rule.actions:
            if action.verb != "set_field" or action.problem or not action.files:
                continue
            query, value = json.loads(action.target)
            m = _addressed().fullmatch(query)
            if m is None or fields_in(value):  # a mark the state file's field names
                continue
            file = action.files[0]
            at = (file, m["items"].strip(), m["key"].strip(), m["marks"].strip())
            seen = found.setdefault(at, {"marked": [], "spells": []})
            seen["marked"].append(json.dumps(value, sort_keys=True))
            seen["spells"].append(rule.spell)
            ran = {a.param for a in rule.condition.atoms if a.probe == "passes" and a.file == file}
            afters[at] = afters[at] & ran if at in afters else ran
    lists = [
        runtime.Kept(
            file,
            items,
            key,
            marks,
            tuple(sorted(set(seen["marked"]))),
            tuple(dict.fromkeys(seen["spells"])),
            min(afters[(file, items, key, marks)], default=""),
        )
        for (file, items, key, marks), seen in found.items()
    ]
    commands = dict.fromkeys(
        (a.file, a.param)
        for rule in spec.rules
        for a in rule.condition.atoms
        if a.probe == "passes" and is_json(a.file)
    )
    return (*lists, *(runtime.Kept(file, command=key) for file, key in commands))


def kept_said(spec: Spec) -> tuple[str, ...]:
    """What `kept` finds, one line a file, in words (`--explain`, the reports)."""
    lines: dict[str, list[str]] = {}
    for k in kept(spec):
        if k.command:
            said = f"the command `{k.command}` stays as written"
        else:
            marks = ", ".join(k.marked)
            said = (
                f"every item of `{k.items}` stays, once, with its `{k.key}`, and its "
                f"`{k.marks}` is set only by casts of {' or '.join(k.spells)} (to {marks}, "
                "which no new item may carry)"
            )
        lines.setdefault(k.file, []).append(said)
    return tuple(
        f"a hand-made write of {file} is refused unless {'; '.join(said)}"
        for file, said in lines.items()
    )
