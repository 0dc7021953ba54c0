"""Spellbook's own files in a workspace, which no action of a spec touches: the trash, the
intent record, the state file's lock and old history, and the state file itself, compared
as a filesystem that folds names compares them."""

from __future__ import annotations

import posixpath

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

# The folder of the workspace that deleted files are moved into (`.trash/<time>/`).
TRASH = ".trash"
# The runtime's own files and folders in a workspace, which no action of a spec touches
# (the journal's intent record, the state file's lock and old history, the trash).
RUNTIME_FILES = frozenset({TRASH, ".history", ".intent.json", ".state.lock"})
# How repair names a state file it sets aside (`state.json.bad-20261127T101500Z`), which
# it reads again to choose a state: the runtime's own, as the state file is.
BACKUP = ".bad-"
# The verbs that only read the files they name, and so may name the state file.
READING_VERBS = frozenset({"load", "find"})
OWN_FILE = "is Spellbook's own file; no action of a spec touches it"
STATE_OF_ANOTHER = (
    "is (or holds) the state file of another machine of the project (or of a project in "
    "a folder of it); no action of a spec touches it, as a cast of that machine alone "
    "writes it"
)


def own_file(path: str, verb: str, own: Collection[str] = ()) -> bool:
    """Whether an action of `verb` naming `path` (relative to the workspace folder) would
    touch a file only Spellbook writes: one of `own` (the machine's state file), or one
    of the runtime's, of this workspace or of another machine's in it (`RUNTIME_FILES`
    anywhere in the path, a folder's content too); a verb that only reads
    (`READING_VERBS`) touches none. Names are compared as a
    filesystem that ignores case and Unicode normalization, or drops trailing dots and
    spaces (macOS, Windows), takes them: `State.json` is the state file there. One rule,
    which the compiler checks a spec's actions by and the runtime every action it plans."""
    if verb in READING_VERBS or not path:
        return False
    parts = folded(path)  # RUNTIME_FILES are folded already
    return bool(parts) and (
        any(part in RUNTIME_FILES for part in parts)  # any machine's, in any workspace
        or any(parts == folded(f) or _backup(parts, folded(f)) for f in own)
    )


PROGRAM = (
    "is a file Spellbook or Claude Code takes code or settings from (a generated machine, "
    "a vocabulary module, a pyproject.toml, Claude Code's settings or MCP servers); no action "
    "of a spec "
    "touches it"
)
# Claude Code's settings in a `.claude` folder: each can carry hooks, or turn them off.
_SETTINGS = frozenset({"settings.json", "settings.local.json"})


def program_file(path: str, verb: str, programs: Collection[tuple[str, ...]] = ()) -> bool:
    """Whether an action of `verb` naming `path` (relative to the workspace folder) would
    write a file a program takes its code or settings from, which a cast must not make
    out of what a hand wrote: any `pyproject.toml` (its `[tool.spellbook]` says which
    machine runs, with which vocabulary), a `.claude` folder or its settings files, a
    `.mcp.json` (the MCP servers Claude Code starts, and their environment), or
    one of `programs` (`programs_in`), what it holds or a folder holding it; a program
    ending in `*.py` is every Python module (and `__pycache__`) of its folder. The same
    as the hook guards from a hand; a verb that only reads (`READING_VERBS`) writes none."""
    if verb in READING_VERBS or not path:
        return False
    parts = folded(path)
    if not parts or parts[-1] in ("pyproject.toml", ".claude", ".mcp.json"):
        return bool(parts)
    if any(parts[i] == ".claude" and parts[i + 1] in _SETTINGS for i in range(len(parts) - 1)):
        return True
    for program in programs:
        if program[-1:] == (MODULES,):
            folder = program[:-1]
            name = parts[len(folder)] if len(parts) > len(folder) else ""
            if parts[: len(folder)] == folder and (name.endswith(".py") or name == "__pycache__"):
                return True
        elif parts[: len(program)] == program or program[: len(parts)] == parts:
            return True
    return False


MODULES = "*.py"  # in `programs`: every module of a folder


def programs_in(
    base: str, folders: Collection[str], files: Collection[str]
) -> tuple[tuple[str, ...], ...]:
    """`folders` and `files` (absolute) as `program_file` compares them, relative to the
    workspace folder `base` and folded: a folder or file in the workspace as itself; the
    workspace folder itself as its modules (`*.py`: a generated folder that is the
    workspace); none for one that holds the workspace or is elsewhere."""
    import os

    found: list[tuple[str, ...]] = []
    here = os.path.realpath(base)
    for path, folder in [*((f, True) for f in folders), *((f, False) for f in files)]:
        if not path:
            continue
        rel = os.path.relpath(os.path.realpath(path), here).replace(os.sep, "/")
        parts = [p for p in rel.split("/") if p and p != "."]
        if not parts and folder:
            found.append((MODULES,))
        elif parts and ".." not in parts:
            found.append(folded("/".join(parts)))
    return tuple(found)


def backup_of(path: str, own: str) -> bool:
    """Whether `path` is a backup repair made of `own`, the state file
    (`state.json.bad-<time>`), compared as `folded` compares names."""
    return _backup(folded(path), folded(own))


def others_in(folder: str, state_files: Collection[str]) -> tuple[tuple[str, ...], ...]:
    """The state files of `state_files` (paths from the repository's top, as
    `shared_state.state_files` gives them) that are in the workspace `folder` (from the
    top too; "" for the top), as `folded` paths from it: those an action could name."""
    mine = folded(folder)
    return tuple(
        theirs[len(mine) :]
        for theirs in map(folded, state_files)
        if len(theirs) > len(mine) and theirs[: len(mine)] == mine
    )


def another_state_file(path: str, verb: str, others: Collection[tuple[str, ...]]) -> bool:
    """Whether an action of `verb` naming `path` (relative to the workspace folder) would
    write, move or remove the state file of another machine, `others` (`others_in`): the
    file, a backup `spell repair` keeps of it, or a folder holding it, compared as
    `own_file` compares; written there, the AI's file would be that machine's state."""
    if verb in READING_VERBS or not path:
        return False
    parts = folded(posixpath.normpath(path.replace("\\", "/")))
    return bool(parts) and any(
        parts == theirs[: len(parts)] or _backup(parts, theirs) for theirs in others
    )


def _backup(parts: tuple[str, ...], own: tuple[str, ...]) -> bool:
    same_folder = bool(own) and len(parts) == len(own) and parts[:-1] == own[:-1]
    return same_folder and parts[-1].startswith(own[-1] + BACKUP)


def folded(path: str) -> tuple[str, ...]:
    """A path's names as a filesystem that ignores case and Unicode normalization, and
    drops trailing dots and spaces, tells them apart: two paths that fold alike may be
    one file there."""
    return tuple(folded_name(part) for part in path.replace("\\", "/").split("/") if part)


def folded_name(name: str) -> str:
    """One name as `folded` folds each of a path's."""
    return (name if name.isascii() else _nfc(name)).casefold().rstrip(". ")


def _nfc(text: str) -> str:
    import unicodedata  # only for a name that is not ASCII: most casts never load it

    return unicodedata.normalize("NFC", text)
