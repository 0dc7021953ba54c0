"""Globs as facts see them: which paths a pattern names, and which pattern is within
another, without a folder to look in (`Workspace.glob` walks one)."""

from __future__ import annotations


def glob_path(path: str, pattern: str) -> bool:
    """Whether a path (relative, `/` between folders) is one `pattern` names: its parts
    name by name (`walk.glob_name`), `**` for any number of folders whose names do not
    start with `.`; what `Workspace.glob` finds, without a folder to look in."""
    from spellbook.disk.walk import glob_name

    if path.startswith("/") != pattern.startswith("/"):
        return False  # one from the repository's top, one from the workspace folder
    parts = pattern.split("/")
    at = _past_any(parts, {0})
    for name in path.split("/"):
        nxt = set()
        for j in at:
            if j < len(parts) and parts[j] == "**":
                if not name.startswith("."):
                    nxt.add(j)
            elif j < len(parts) and glob_name(name, parts[j]):
                nxt.add(j + 1)
        at = _past_any(parts, nxt)
    return len(parts) in at


def _past_any(parts: list[str], at: set[int]) -> set[int]:
    """`at`, and past each `**` there, which may name no folder."""
    found = set(at)
    for j in sorted(at):
        while j < len(parts) and parts[j] == "**":
            j += 1
            found.add(j)
    return found


def glob_within(narrow: str, wide: str) -> bool:
    """Whether every path `narrow` names, `wide` names too, as far as a part-by-part
    comparison tells (never wrongly yes): `docs/a*.md` is within `docs/*.md`."""
    if narrow.startswith("/") != wide.startswith("/"):
        return False  # one from the repository's top, one from the workspace folder
    parts, others = narrow.split("/"), wide.split("/")
    if "**" in parts or "**" in others or len(parts) != len(others):
        return narrow == wide
    return all(_part_within(p, q) for p, q in zip(parts, others, strict=True))


def _part_within(narrow: str, wide: str) -> bool:
    """Whether every name `narrow` matches, `wide` matches too: a table of every pair of
    tails, filled from the ends (no recursion, so a long pattern cannot exhaust the
    stack; its size is bounded by the reader's phrase limit)."""
    if narrow.startswith(".") and not wide.startswith("."):
        return False  # `wide` names no hidden file
    n, m = len(narrow), len(wide)
    # later[j]: whether narrow[i + 1:] is within wide[j:], for the row below `i`.
    later = [False] * m + [True]  # narrow's empty tail: within an empty or all-`*` tail
    for j in range(m - 1, -1, -1):
        later[j] = wide[j] == "*" and later[j + 1]
    for i in range(n - 1, -1, -1):
        row = [False] * m + [False]  # a tail of narrow is never within an empty wide
        for j in range(m - 1, -1, -1):
            if wide[j] == "*":  # takes any of narrow's, a `*` too
                row[j] = row[j + 1] or later[j]
            elif narrow[i] != "*":
                row[j] = wide[j] in ("?", narrow[i]) and later[j + 1]
        later = row
    return later[0]


def partner(path: str, first: str, second: str) -> str | None:
    """The file `second` names for a path `first` names (each glob with one `*` and no
    `?` or `**`): what the star matched, put in place of `second`'s star
    (`sql/003.up.sql` by `sql/*.up.sql` is `sql/003.down.sql` by `sql/*.down.sql`);
    None where that is no plain path (a part `.` or `..`). A glob from the repository's
    top (`/sql/*.up.sql`) names such paths (`/sql/003.up.sql`)."""
    lead = "/" if second.startswith("/") else ""
    path, first, second = path.removeprefix("/"), first.removeprefix("/"), second.removeprefix("/")
    parts, names = first.split("/"), path.split("/")
    if len(parts) != len(names):
        return None
    at = next(i for i, part in enumerate(parts) if "*" in part)
    before, _, after = parts[at].partition("*")
    name = names[at]
    if len(name) < len(before) + len(after):
        return None
    star = name[len(before) : len(name) - len(after)]
    found = second.replace("*", star, 1)
    return None if any(p in ("", ".", "..") for p in found.split("/")) else lead + found
