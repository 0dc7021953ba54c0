"""The hook's matcher of globs (`spellbook.doors.guarded.may_match`) names at least what bash
does: every name bash (with extglob) matches a pattern against, the matcher matches too,
over thousands of patterns built of every construct bash reads (brackets with `!`, `^`
and POSIX classes, escapes, extglob groups); it may match more, never less."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from spellbook.doors import guarded
from spellbook.doors.guarded import may_match, wildcards

# Each construct bash reads in a pattern, with names of the kind it may match.
PIECES = {
    "a": ["a"],
    "b": ["b"],
    ".": ["."],
    "-": ["-"],
    "*": ["", "a", "ab", ".b"],
    "?": ["a", "."],
    "[ab]": ["a", "b"],
    "[!a]": ["b", "."],
    "[^b]": ["a", "-"],
    "[a-b]": ["a", "b"],
    "[]a]": ["]", "a"],
    "[[:alpha:]]": ["a", "b"],
    "[[:punct:]]": [".", "-"],
    "\\a": ["a"],
    "\\*": ["*"],
    "@(a|b)": ["a", "b"],
    "+(a)": ["a", "aa"],
    "*(b|.)": ["", "b", "b."],
    "?(a)": ["", "a"],
    "!(a)": ["", "b", "aa"],
    "!(a|b)b": ["ab", "bb", ".b"],
    "@(a|+(b))": ["a", "bb"],
}


def _pairs(count: int, seed: int) -> list[tuple[str, str]]:
    """(pattern, name): a name made from the pattern's pieces, often, or at random."""
    chance = random.Random(seed)
    pairs = []
    for _ in range(count):
        pieces = [chance.choice(list(PIECES)) for _ in range(chance.randint(1, 5))]
        if chance.random() < 0.8:
            name = "".join(chance.choice(PIECES[p]) for p in pieces)
        else:
            name = "".join(chance.choice("ab.-*]") for _ in range(chance.randint(0, 6)))
        pairs.append(("".join(pieces), name))
    return pairs


def _bash_matches(pairs: list[tuple[str, str]]) -> list[bool]:
    """Whether bash's `[[ name == pattern ]]` (extglob on) holds, for each pair."""
    script = (
        "shopt -s extglob\n"
        "while IFS= read -r -d '' p && IFS= read -r -d '' n; do\n"
        "  if [[ $n == $p ]]; then printf 1; else printf 0; fi\n"
        "done\n"
    )
    data = "".join(f"{p}\0{n}\0" for p, n in pairs).encode()
    done = subprocess.run(
        ["bash", "-c", script], input=data, capture_output=True, timeout=120, check=True
    )
    said = done.stdout.decode()
    assert len(said) == len(pairs), done.stderr
    return [c == "1" for c in said]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_every_name_bash_matches_the_matcher_matches() -> None:
    pairs = _pairs(4000, seed=40)
    matched = _bash_matches(pairs)
    assert sum(matched) > 1000  # the patterns match often enough to tell
    missed = [
        (p, n) for (p, n), yes in zip(pairs, matched, strict=True) if yes and not may_match(p, n)
    ]
    assert not missed, missed[:20]


def test_the_matcher_still_tells_names_apart() -> None:
    """An over-approximation, not everything: a name a glob's plain characters rule out
    is not matched."""
    assert wildcards("state.json") is None
    assert not may_match("feature-list.jso[^x]", "state.json")
    assert not may_match("@(notes).md", "state.json")
    assert not may_match("*.md", "state.json")
    assert may_match("feature-list.js\\on", "feature-list.json")


@pytest.mark.timeout(20)
def test_a_long_glob_is_matched_in_linear_time() -> None:
    for pattern in ("*a" * 2000 + "*b", "[a" * 2000, "\\a" * 2000, "@(" * 2000, "?*" * 2000):
        may_match(pattern, "a" * 255)


def test_a_glob_s_part_is_read_once_whatever_it_is_matched_against(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A part is matched against every guarded folder's name and every name of a folder
    listed: it is read (`wildcards`, linear in its length) once, not once for each."""
    read: list[str] = []

    def counted(part: str) -> str | None:
        read.append(part)
        return wildcards(part)

    monkeypatch.setattr(guarded, "wildcards", counted)
    part = f"{id(read)}*" + "q*" * 2000  # a part no other test has read
    for name in ("state.json", ".claude", "progress", "q" * 255, *map(str, range(50))):
        may_match(part, name)
    assert read == [part]


def test_a_part_longer_than_any_name_matches_none() -> None:
    assert not may_match("q?" * 200, "q" * 255)
    assert may_match("q?" * 100, "qx" * 100)
    assert not may_match("st" + "e" * 300 + "*.json", "state.json")
