"""The behavioural diff of two specs (`changes.compare`) as text, markdown or JSON."""

from __future__ import annotations

from typing import Any

from spellbook.records.words import plural

from ..analyse import Finding
from ..analyse.report import finding_json, printable
from ..analyse.report import md_text as _md
from .result import Change, SpecDiff


def verdict(diff: SpecDiff) -> str:
    """One line: whether the machine behaves differently, and whether that can break a
    workspace the old machine left."""
    count = len(diff.changes)
    said = (
        "no behaviour change"
        if not diff.behaviour_changed
        else f"{count} behaviour change{'s' if count != 1 else ''}"
        if count
        else f"behaviour changed ({_what_changed(diff)})"
    )
    reworded = len(diff.methods_reworded)
    if reworded:
        said += (
            f"; {reworded} method{'s' if reworded != 1 else ''} of the project's code "
            "must answer other words"
        )
    told = len(_told(diff))
    if told:
        plural = "s" if told != 1 else ""
        said += f"; {told} change{plural} to what the developer and the AI are told"
    if diff.breaking:
        # What can break first; then the rest, which a state renamed with no migration or
        # a trigger renamed (no cell behaving otherwise) leaves as before.
        broken = [
            f"{len(why)} change{'s' if len(why) != 1 else ''} can break {what}"
            for why, what in (
                (diff.breaking_workspaces, "existing workspaces"),
                (diff.breaking_code, "the code that calls the machine"),
            )
            if why
        ]
        if not diff.behaviour_changed:
            said = said.replace("no behaviour change", "otherwise the machine behaves as before")
        return f"BREAKING: {'; '.join(broken)}; {said}{_errors(diff)}"
    said += "; existing workspaces carry across" if diff.behaviour_changed or diff.merged else ""
    return said + _errors(diff)


def _errors(diff: SpecDiff) -> str:
    """What the headline says of the new spec's own errors (none: nothing)."""
    if not diff.errors:
        return ""
    errors = f"{diff.errors} {plural('error', diff.errors)}"
    return (
        f"; the spec has {errors}, so spellbook-codegen refuses it (but for a machine that "
        "allows errors): run the verifier without --against"
    )


def _what_changed(diff: SpecDiff) -> str:
    """What makes a machine behave otherwise where no cell both specs have does: the
    states and spells added or removed, a new initial state, cells not compared."""
    word = diff.new.spell_word
    said = [
        f"{len(names)} {what}{'s' if len(names) != 1 else ''} {how}"
        for names, what, how in (
            (diff.states_added, "state", "added"),
            (diff.states_removed, "state", "removed"),
            (diff.spells_added, word, "added"),
            (diff.spells_removed, word, "removed"),
            (diff.not_compared, "cell", "not compared world by world"),
            (diff.file_templates_changed, "file template", "changed"),
        )
        if names
    ]
    if diff.initial:
        said.append("another initial state")
    return ", ".join(said) + (": see below" if said else "")


def _names(items: list[str]) -> str:
    return ", ".join(items)


def _structure(diff: SpecDiff) -> list[str]:
    """Lines naming what was added, removed or renamed."""
    lines: list[str] = []
    if diff.state_file:
        lines.append(f"State file: was {diff.state_file[0]}, now {diff.state_file[1]}")
    if diff.state_key:
        lines.append(f"State file key: was {diff.state_key[0]!r}, now {diff.state_key[1]!r}")
    if diff.initial:
        lines.append(
            f"Initial state (where a new workspace starts): was {diff.initial[0]}, "
            f"now {diff.initial[1]}"
        )
    states = []
    if diff.states_added:
        states.append(f"added {_names(diff.states_added)}")
    if diff.states_removed:
        states.append(f"removed {_names(diff.states_removed)}")
    for r in diff.states_renamed:
        how = "with a migration" if r.migrated else "NO migration"
        if r.alike:
            how += (
                f"; a guess: {_names(list(r.alike))} behaves alike, so only the names chose, "
                f"and `- *Formerly*: {r.old}` under the state it became settles it"
            )
        states.append(f"renamed {r.old} → {r.new} ({how})")
    for old, new in diff.merged.items():
        states.append(f"workspaces in {old} move to {new} (a migration)")
    for old, new in diff.migrations_dropped.items():
        states.append(f"the migration from {old} to {new} is gone")
    for old, new in diff.formerly_unknown:
        states.append(f"{new} says it was *Formerly* {old}, which the old spec has no state of")
    if diff.indicators_changed:
        states.append(
            f"Indicators changed (what repair reads from the files): "
            f"{_names(diff.indicators_changed)}"
        )
    if states:
        lines.append("States: " + "; ".join(states))
    families = [f"added {f}" for f in diff.families_added]
    families += [f"removed {f}" for f in diff.families_removed]
    families += [f"renamed {o} → {n}" for o, n in diff.families_renamed]
    if families:
        lines.append("Families: " + "; ".join(families))
    spells = [f"added {s}" for s in diff.spells_added]
    spells += [f"removed {s}" for s in diff.spells_removed]
    spells += [
        f"renamed {o} → {n}"
        + (" (declared: *Formerly*)" if (o, n) in diff.spells_declared else "")
        + (
            " (and what it does changed: see Behaviour)"
            if (o, n) in diff.spells_renamed_changed
            else ""
        )
        for o, n in diff.spells_renamed
    ]
    if spells:
        lines.append(_heading(diff) + ": " + "; ".join(spells))
    if not (diff.old.own_code or diff.new.own_code):  # its code's calls: `breaking_code`
        before = {s.name: s.trigger for s in diff.old.spells}
        after = {s.name: s.trigger for s in diff.new.spells}
        callers = [f"`{before[o]}` is now `{after[n]}`" for o, n in diff.spells_renamed]
        callers += [f"`{before[s]}` is gone" for s in diff.spells_removed]
        if callers:
            lines.append(
                "Callers: the `spell` commands and MCP tools named after them change ("
                + "; ".join(callers)
                + "): update what names them (instructions to the AI, hooks, scripts)"
            )
    else:  # a rename declared: not breaking, but its callers are still named
        before = {s.name: s.trigger for s in diff.old.spells}
        after = {s.name: s.trigger for s in diff.new.spells}
        callers = [
            f"{before[o]}() and may_{before[o]}() are now {after[n]}() and may_{after[n]}()"
            for o, n in diff.spells_declared
        ]
        if callers:
            lines.append(
                "Callers: the model's triggers renamed as the spec declares (*Formerly*) ("
                + "; ".join(callers)
                + "): code that still calls the old names breaks (`mypy` finds it)"
            )
    for name, rows in diff.still_named:
        lines.append(
            f"Responses: {_names(rows)} still {'names' if len(rows) == 1 else 'name'} {name}, "
            f"which is no {diff.new.spell_word} of the spec now: the AI and the developer "
            "would be told to cast it"
        )
    for file, rows in diff.file_templates_changed:
        lines.append(
            f"Templates: {file}'s template changed, so the {file} that {_names(rows)} "
            f"{'creates' if len(rows) == 1 else 'create'} is another text"
        )
    added, removed = diff.methods
    methods = [f"the model must now have {_names(added)}"] if added else []
    methods += [f"it no longer needs {_names(removed)}"] if removed else []
    methods += [
        f"{name} keeps its name, but its words changed from {was!r} to {now!r}, which the "
        "name does not tell apart: check that the method answers the new words"
        for name, was, now in diff.methods_reworded
    ]
    if methods:
        lines.append("Model methods (the project's own code): " + "; ".join(methods))
    rules = []
    if diff.rules_added:
        rules.append(f"added {_names(diff.rules_added)}")
    if diff.rules_removed:
        rules.append(f"removed {_names(diff.rules_removed)}")
    if diff.rules_renamed:
        rules.append("renamed " + ", ".join(f"{o} → {n}" for o, n in diff.rules_renamed))
    if diff.rules_renumbered:
        rules.append(", ".join(f"{o} is now {n}" for o, n in diff.rules_renumbered))
    if diff.rules_changed:
        rules.append(
            "changed " + ", ".join(f"{i} ({', '.join(what)})" for i, what in diff.rules_changed)
        )
    if rules:
        lines.append("Rows: " + "; ".join(rules))
    if diff.rules_renumbered:
        was, _ = diff.rules_renumbered[0]
        lines.append(
            "Rows are numbered by their place (no ID column), and some numbers moved: code "
            f'that compares a row\'s number (`model.fired == "{was}"`) now means another row '
            "or none"
        )
    return lines


def _heading(diff: SpecDiff) -> str:
    """The new spec's word for its spells, as a heading: "Spells", "Events"."""
    return plural(diff.new.spell_word).capitalize()


def _told(diff: SpecDiff) -> list[str]:
    lines = [c.said() for c in diff.told]
    lines += [f"the description of {what} changed" for what in diff.descriptions_changed]
    lines += [f"the {kind} response template changed" for kind in diff.templates_changed]
    return lines


def _finding(f: Finding, spec: str) -> str:
    where = f"{spec}:{f.line}" if f.line else spec
    return f"{f.severity.value} {where}: [{f.kind}] {f.message}"


def _borrowed(diff: SpecDiff) -> str:
    return (
        "The old spec uses phrases it does not define, read as the new one defines them: "
        + "; ".join(f'"{t.phrase}" ({diff.new.path}:{t.line})' for t in diff.borrowed)
    )


def _vocabularies(diff: SpecDiff) -> str:
    """Which vocabulary each side was read with, or "" where neither has a file of its own."""
    old, new = diff.vocabularies
    if not (old or new):
        return ""
    return f"Vocabulary: the old spec read with {old}; the new with {new}"


def format_text(diff: SpecDiff) -> str:
    out = [f"{diff.new.path} against {diff.old.path}: {verdict(diff)}", ""]
    if _vocabularies(diff):
        out += [_vocabularies(diff), ""]
    if diff.borrowed:
        out += [_borrowed(diff), ""]
    if diff.changes:
        out.append(f"Behaviour ({len(diff.changes)}):")
        out += [f"  {c.said()}" for c in diff.changes]
        out.append("")
    if diff.not_compared:
        cells = ", ".join(f"{sp} in {st}" for st, sp in diff.not_compared)
        out += [f"Not compared world by world (over 16 facts), and changed: {cells}", ""]
    structure = _structure(diff)
    if structure:
        out += [*structure, ""]
    told = _told(diff)
    if told:
        out.append(f"What the developer and the AI are told ({len(told)}):")
        out += [f"  {line}" for line in told]
        out.append("")
    if diff.readings_changed:
        out.append(f"Rows read differently ({len(diff.readings_changed)}):")
        for rid, was, now in diff.readings_changed:
            out += [f"  {rid} was read: {was}", f"  {rid} now reads: {now}"]
        out.append("")
    if diff.findings_new or diff.findings_gone:
        out.append(f"Findings: {len(diff.findings_new)} new, {len(diff.findings_gone)} gone")
        out += [f"  new   {_finding(f, diff.new.path)}" for f in diff.findings_new]
        out += [f"  gone  {_finding(f, diff.old.path)}" for f in diff.findings_gone]
        out.append("")
    for why in diff.breaking:
        out.append(f"breaking: {why}")
    # The verdict stays one line, for a reader that looks for it (`BREAKING`).
    return printable("\n".join([out[0], *map(_wrapped, out[1:])]).rstrip("\n") + "\n")


WIDTH = 100  # the text report's lines, each item's own lines indented under its first


def _wrapped(line: str) -> str:
    """A line of the text report, wrapped at WIDTH between words (a path or a name longer
    than that stays whole), its later lines indented four more than its first."""
    import textwrap

    if len(line) <= WIDTH:
        return line
    indent = " " * (len(line) - len(line.lstrip(" ")) + 4)
    return textwrap.fill(
        line,
        WIDTH,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _md_outcome(change: Change, now: bool) -> str:
    outcome = change.now if now else change.was
    return _md(outcome.said(change.was.actions != change.now.actions))


def to_markdown(diff: SpecDiff) -> str:
    """A report to paste into a pull request."""
    out = [
        f"# Spec change: `{_md(diff.new.path)}` against `{_md(diff.old.path)}`",
        "",
        f"**{verdict(diff)}**",
        "",
    ]
    if diff.breaking:
        out += [f"- :warning: {_md(why)}" for why in diff.breaking] + [""]
    if _vocabularies(diff):
        out += [_md(_vocabularies(diff)), ""]
    if diff.borrowed:
        out += [_md(_borrowed(diff)), ""]
    if diff.changes:
        out += [
            f"## Behaviour ({len(diff.changes)})",
            "",
            f"| {diff.new.spell_word.capitalize()} | In | When | Was | Now |",
            "|---|---|---|---|---|",
        ]
        for c in diff.changes:
            out.append(
                f"| {_md(c.spell)} | {_md(', '.join(c.states))} | {_md(c.when) or 'always'} "
                f"| {_md_outcome(c, False)} | {_md_outcome(c, True)} |"
            )
        out.append("")
    if diff.not_compared:
        out += [
            "Not compared world by world (over 16 facts), and changed: "
            + _md(", ".join(f"{sp} in {st}" for st, sp in diff.not_compared)),
            "",
        ]
    structure = _structure(diff)
    if structure:
        out += [f"## States, {plural(diff.new.spell_word)} and rows", ""] + [
            f"- {_md(line)}" for line in structure
        ]
        out.append("")
    told = _told(diff)
    if told:
        out += [f"## What the developer and the AI are told ({len(told)})", ""]
        out += [f"- {_md(line)}" for line in told] + [""]
    if diff.readings_changed:
        out += [
            f"## Rows read differently ({len(diff.readings_changed)})",
            "",
            "| Row | Was read | Now reads |",
            "|---|---|---|",
        ]
        out += [f"| {_md(i)} | {_md(was)} | {_md(now)} |" for i, was, now in diff.readings_changed]
        out.append("")
    if diff.findings_new or diff.findings_gone:
        out += [
            f"## Findings: {len(diff.findings_new)} new, {len(diff.findings_gone)} gone",
            "",
        ]
        out += [f"- new: {_md(_finding(f, diff.new.path))}" for f in diff.findings_new]
        out += [f"- gone: {_md(_finding(f, diff.old.path))}" for f in diff.findings_gone]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def to_json(diff: SpecDiff) -> dict[str, Any]:
    return {
        "old": {"spec": diff.old.path, "sha256": diff.old.sha256},
        "new": {"spec": diff.new.path, "sha256": diff.new.sha256},
        "verdict": verdict(diff),
        "behaviour_changed": diff.behaviour_changed,
        "breaking": diff.breaking,
        "changes": [c.json() for c in diff.changes],
        "not_compared": [{"state": st, "spell": sp} for st, sp in diff.not_compared],
        "states": {
            "added": diff.states_added,
            "removed": diff.states_removed,
            "renamed": [
                {"old": r.old, "new": r.new, "migrated": r.migrated, "alike": list(r.alike)}
                for r in diff.states_renamed
            ],
            "migrated": [{"old": o, "new": n} for o, n in diff.merged.items()],
        },
        "families": {
            "added": diff.families_added,
            "removed": diff.families_removed,
            "renamed": [{"old": o, "new": n} for o, n in diff.families_renamed],
        },
        "spells": {
            "added": diff.spells_added,
            "removed": diff.spells_removed,
            "renamed": [
                {
                    "old": o,
                    "new": n,
                    "behaviour_changed": (o, n) in diff.spells_renamed_changed,
                    "declared": (o, n) in diff.spells_declared,
                }
                for o, n in diff.spells_renamed
            ],
            "still_named": [{"spell": n, "rows": rows} for n, rows in diff.still_named],
        },
        "methods": {
            "added": diff.methods[0],
            "removed": diff.methods[1],
            "reworded": [{"name": n, "old": o, "new": w} for n, o, w in diff.methods_reworded],
        },
        "state_file": list(diff.state_file) if diff.state_file else None,
        "state_key": list(diff.state_key) if diff.state_key else None,
        "initial": list(diff.initial) if diff.initial else None,
        "migrations_dropped": [{"old": o, "new": n} for o, n in diff.migrations_dropped.items()],
        "indicators_changed": diff.indicators_changed,
        "descriptions_changed": diff.descriptions_changed,
        "rules": {
            "added": diff.rules_added,
            "removed": diff.rules_removed,
            "renamed": [{"old": o, "new": n} for o, n in diff.rules_renamed],
            "renumbered": [{"old": o, "new": n} for o, n in diff.rules_renumbered],
            "changed": [{"rule": i, "what": list(w)} for i, w in diff.rules_changed],
        },
        "read_differently": [
            {"rule": i, "was": was, "now": now} for i, was, now in diff.readings_changed
        ],
        "told": [c.json() for c in diff.told],
        "templates_changed": diff.templates_changed,
        "file_templates_changed": [
            {"file": f, "rows": rows} for f, rows in diff.file_templates_changed
        ],
        "findings": {
            "new": [finding_json(f) for f in diff.findings_new],
            "gone": [finding_json(f) for f in diff.findings_gone],
        },
        "borrowed_terms": [{"phrase": t.phrase, "means": t.means} for t in diff.borrowed],
        "vocabulary": {"old": diff.vocabularies[0] or None, "new": diff.vocabularies[1] or None},
    }
