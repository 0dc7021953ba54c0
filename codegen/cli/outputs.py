"""Where `python -m codegen` writes: every output's place, checked before anything is.

The modules and diagrams go into the `generated` folder, the reports and documents
where pyproject.toml says, and a pull request can commit anything at those places.
So each place is checked first, and one that fails stops the run before a file is
written, naming the line of pyproject.toml that names it: no part of the path may be a
symbolic link (codegen would write wherever it points) or git's own folder, in any
case (git runs what `.git` holds); a folder on the way must be a folder and the file
itself a regular file or nothing yet; and, when writing, the folder it goes into must
be one codegen can write in. Reports and documents are moreover markdown files that
codegen does not already read or write as something else.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from spellbook.disk.paths import is_git, kind_of
from spellbook.records.errors import said

from ..config import Config, Machine, setting_error
from ..spec_error import SpecError


@dataclass(frozen=True)
class Output:
    """A file codegen writes: its path from the project root ('/' between folders), and
    the pyproject.toml setting that puts it there (its key in [tool.spellbook] and value,
    and what it is)."""

    path: str
    key: tuple[str, ...]
    value: str
    what: str


def outputs(config: Config, chosen: list[Machine], every: bool) -> list[Output]:
    """Every file a run writes for the machines `chosen` (and, when it makes `every`
    machine, the project's documents)."""
    folder = config.out
    found = [
        Output(f"{folder}/{m.module}.{ext}", ("generated",), folder, "the generated folder")
        for m in chosen
        for ext in ("py", "mmd")
    ]
    found += [
        Output(m.report, ("machines", m.module, "report"), m.report, f"{m.module}'s report")
        for m in chosen
        if m.report
    ]
    if every:
        found += [Output(d, ("documents",), d, "a document") for d in config.documents]
    return found


def check_outputs(
    root: Path, config: Config, chosen: list[Machine], every: bool, writing: bool
) -> None:
    """A SpecError for the first output codegen may not write (`writing`: also where it
    cannot), at the line of pyproject.toml that names it; None if all may be written."""
    read = {m.spec for m in (*config.machines, *chosen)}  # the markdown codegen reads
    shown: set[str] = set()
    for output in outputs(config, chosen, every):
        problem = place_problem(root, output.path, writing)
        if not problem and output.key != ("generated",):
            problem = _markdown_problem(root, output.path, read | shown)
            shown.add(output.path)
        if problem:
            raise setting_error(
                root,
                output.key,
                output.value,
                f'{output.what} "{output.value}": {problem}; nothing was written',
            )


def place_problem(root: Path, path: str, writing: bool) -> str:
    """Why codegen may not write the file `path` (from `root`, '/' between folders), or
    "". Looked at part by part from the root, without following any link."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(is_git(p) for p in parts):
        return "it is in .git, whose hooks and config git runs; codegen never writes there"
    here = deepest = root
    for at, part in enumerate(parts, 1):
        here = here / part
        name = "/".join(parts[:at])
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            break
        except OSError as err:
            return f"{name} cannot be looked at ({said(err)})"
        if stat.S_ISLNK(mode):
            return (
                f"{name} is a symbolic link, and codegen never writes through one (it "
                "would write wherever the link points); make it a folder or file of its own"
            )
        if at < len(parts):
            if not stat.S_ISDIR(mode):
                return f"{name} is {kind_of(mode)}, where a folder should be"
            deepest = here
        elif not stat.S_ISREG(mode):
            return f"{name} is {kind_of(mode)}, not a file codegen can write"
    if writing and not os.access(deepest, os.W_OK | os.X_OK):
        where = deepest.relative_to(root).as_posix()
        return f"the folder {'of the project' if where == '.' else where} cannot be written in"
    return ""


def _markdown_problem(root: Path, path: str, taken: set[str]) -> str:
    """Why a report or document cannot be `path`: not markdown, or a file codegen
    already reads or writes (`taken`), even under another case of its name (the same
    file on a case-insensitive filesystem) or another name of it (a hard link)."""
    if not path.lower().endswith(".md"):
        return "it is not a markdown file (.md)"
    if path.casefold() in {t.casefold() for t in taken} or any(
        _same(root / path, root / t) for t in taken
    ):
        return (
            "codegen already reads or writes this file (a spec, or another report or "
            "document); give it a path of its own"
        )
    return ""


def _same(one: Path, other: Path) -> bool:
    """Whether both name one existing file (a hard link, another case of its name)."""
    try:
        return one.exists() and other.exists() and os.path.samefile(one, other)
    except OSError:
        return False


def unwritten(error: OSError, path: str) -> SpecError:
    """A write that failed all the same (a full disk): the error, naming the file."""
    return SpecError(f"cannot be written ({said(error)})", 0).locate(path, None)
