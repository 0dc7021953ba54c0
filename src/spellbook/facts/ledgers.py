"""Ledgers, as the `unlisted` and `listed` facts and the `record` action name them: the
ledger file and the pattern (and a section) in one parameter, and the matches a ledger
lists or not."""

from __future__ import annotations


def ledger_param(ledger: str, pattern: str, section: str = "") -> str:
    """A ledger fact's parameter: `LEDGER PATTERN`, or, scoped to a section (or where
    the plain form would read as a scoped one), the JSON list `[LEDGER, PATTERN, SECTION]`."""
    plain = f"{ledger} {pattern}"
    if not section and ledger_parts(plain) == (ledger, pattern, ""):
        return plain
    import json

    return json.dumps([ledger, pattern, section], ensure_ascii=False)


def ledger_parts(param: str) -> tuple[str, str, str]:
    """A ledger fact's parameter read back: (ledger, pattern, section; "" for the file)."""
    scope = _scope(param, 3)
    if scope is not None:
        return scope[0], scope[1], scope[2]
    ledger, _, pattern = param.partition(" ")
    return ledger, pattern, ""


def record_target(pattern: str, section: str = "") -> str:
    """What a `record` action records: its pattern, or, scoped to a section (or where the
    pattern would read as a scoped one), the JSON list `[PATTERN, SECTION]`."""
    if not section and _scope(pattern, 2) is None:
        return pattern
    import json

    return json.dumps([pattern, section], ensure_ascii=False)


def record_parts(target: str) -> tuple[str, str]:
    """A `record` action's target read back: (pattern, section; "" for the file)."""
    scope = _scope(target, 2)
    return (scope[0], scope[1]) if scope is not None else (target, "")


def _scope(text: str, size: int) -> list[str] | None:
    """`text` as a JSON list of `size` strings, or None."""
    if not text.startswith('["'):
        return None
    import json

    try:
        found = json.loads(text)
    except ValueError:
        return None
    if isinstance(found, list) and len(found) == size and all(isinstance(s, str) for s in found):
        return found
    return None


def scoped(text: str, section: str) -> str:
    """The text a ledger's pattern is searched in: the file's, or its section's lines
    (`sections.section_text`; "" where the file has no such section)."""
    if not section:
        return text
    from spellbook.facts.sections import section_text

    return section_text(text, section)


def entry(text: str) -> str:
    """A match as a ledger line: its words joined by one space."""
    return " ".join(text.split())


def listed_lines(text: str) -> set[str]:
    """The entries of a ledger: its lines (as markdown ends them, `sections.lines_of`)
    that are not empty."""
    from spellbook.facts.sections import lines_of

    return {entry(line) for line in lines_of(text) if line.strip()}


def unlisted_matches(text: str, pattern: str, ledger: str) -> list[str]:
    """The matches of `pattern` in `text` that the ledger's text does not list, once
    each, in the order they are found."""
    from spellbook.facts.patterns import found as matches

    listed = listed_lines(ledger)
    found: dict[str, None] = {}
    for match in matches(pattern, text):
        line = entry(match)
        if line and line not in listed:
            found.setdefault(line, None)
    return list(found)
