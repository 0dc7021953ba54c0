"""The compiler's pipeline: a spec file read, expanded and modelled, as functions.

bytes -> text (`parse_spec_bytes`) -> located blocks (`read.markdown`) -> a
document still named as written (`read.document`) -> the model, names resolved
and notation expanded (`expand`). `load_spec` starts from a file, read with the
read options its project configures (`config`). Every problem with the spec is a
`SpecError` naming the file and line.

A file of several machines, one per section (`read.sections`), is read one section
at a time: the section its read options name (`load_spec`), or each (`load_machines`).

`shared_state` reads where each machine of a project keeps its state: two machines
whose state files are one file (one path once `.` and `//` are gone, in any case, as
a case-insensitive filesystem makes them one) are an error of the project.
"""

from __future__ import annotations

import errno
import gc
import os
import posixpath
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from spellbook.disk.loading import source_sha256
from spellbook.disk.own_files import folded

from .budget import stage
from .config import Machine, options_for
from .expand import build_spec
from .model import Notice, Spec
from .read.diagram_blocks import diagram_language
from .read.document import parse_document, state_file_of
from .read.guards import read_guards, usage_guards
from .read.lexicon import ReadOptions
from .read.markdown import Block, normalize_newlines, read_blocks
from .read.rows import with_extra_names
from .read.sections import Section, machines, read_from, select, unread_above
from .spec_error import SpecError

# Larger files are refused before parsing: time and memory grow with the file.
SPEC_LIMIT = 2_000_000


@dataclass(frozen=True)
class SectionSpec:
    """One machine of a spec file: the section it is read from ("" and 0 for the whole
    file), where that section starts, and the machine."""

    section: str
    line: int
    spec: Spec


def load_spec(
    path: str | Path, shown: str | None = None, options: ReadOptions | None = None
) -> Spec:
    """Read and compile one spec file; any problem with it raises `SpecError` with file:line.

    `shown` is how the file is named in messages and generated files (default: `path`);
    `options` says how to read it (its vocabulary and column names, and which section
    is the machine in a file of several); by default, as the project that holds the
    file configures it (`config.options_for`).
    """
    shown = shown if shown is not None else str(path)
    if options is None:
        options = options_for(path)
    return parse_spec_bytes(_load(path, shown), shown, options)


def load_machines(
    path: str | Path, shown: str | None = None, options: ReadOptions | None = None
) -> tuple[SectionSpec, ...]:
    """Every machine of one spec file, read and compiled: one per section in a file of
    several machines (`read.sections`), else the file's one (or the section `options`
    names)."""
    shown = shown if shown is not None else str(path)
    if options is None:
        options = options_for(path)
    text, _, sha256 = _decoded(_load(path, shown), shown)
    return parse_machines_text(text, shown, sha256, options)


def _load(path: str | Path, shown: str) -> bytes:
    """The bytes of the spec file at `path` (named `shown`): a SpecError for anything
    that is not a regular file of at most SPEC_LIMIT bytes."""
    stage("reading the spec")
    _confined(str(path), shown)
    try:
        data = _read_file(path)
    except FileNotFoundError:
        raise SpecError("no such file", 0).locate(shown, None) from None
    except IsADirectoryError:
        raise SpecError("is a directory, not a spec file", 0).locate(shown, None) from None
    except OSError as err:
        raise SpecError(f"cannot read: {err.strerror or err}", 0).locate(shown, None) from None
    if data is None:
        raise SpecError(
            "is not a regular file (a FIFO, a device or a socket): a spec is read from a "
            "file, never waited for",
            0,
        ).locate(shown, None)
    if len(data) > SPEC_LIMIT:
        raise SpecError(
            f"over {SPEC_LIMIT // 1_000_000} MB: not read (a spec of 24 states is about 60 kB; "
            "this limit keeps a runaway file from taking minutes and gigabytes)",
            0,
        ).locate(shown, None)
    return data


def _confined(path: str, shown: str) -> None:
    """A SpecError for a spec file in a `.git` folder, or that is, once links are
    resolved, outside the git repository its path is in (or in its `.git`): a link a
    pull request adds must not make the verifier read, and quote, a file of the machine
    it runs on (`/proc/self/environ`, a credentials file) or git's own."""
    from spellbook.disk.git import find
    from spellbook.disk.paths import is_git

    given = os.path.abspath(path)
    if any(is_git(part) for part in given.split(os.sep)):
        raise SpecError("is in a .git folder, which Spellbook never reads as a spec", 0).locate(
            shown, None
        )
    repository = find(os.path.dirname(given))
    if repository is None:
        return
    real, top = os.path.realpath(given), os.path.realpath(repository.top)
    if os.path.commonpath([real, top]) != top:
        raise SpecError(
            f"is a link to {real}, outside the repository ({top}): a spec is read from "
            "the repository's own files",
            0,
        ).locate(shown, None)
    if any(is_git(part) for part in os.path.relpath(real, top).split(os.sep)):
        raise SpecError(
            "is a link into the repository's .git folder, which Spellbook never reads as a spec",
            0,
        ).locate(shown, None)


def _read_file(path: str | Path) -> bytes | None:
    """The first SPEC_LIMIT + 1 bytes of the regular file at `path`; None for anything
    else that can be opened (a FIFO, which would block until a writer came, a device).
    Opened without blocking, and looked at before anything is read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    with open(fd, "rb") as f:
        found = os.fstat(fd).st_mode
        if stat.S_ISDIR(found):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        if not stat.S_ISREG(found):
            return None
        return f.read(SPEC_LIMIT + 1)


def parse_spec_bytes(data: bytes, path: str, options: ReadOptions | None = None) -> Spec:
    return parse_spec_text(*_decoded(data, path), options)


def _decoded(data: bytes, path: str) -> tuple[str, str, str]:
    """The text of a spec's bytes, its name and their sha256; a SpecError where they are
    not UTF-8."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise SpecError(
            f"not UTF-8 text: byte 0x{data[err.start]:02x} at column {column}", line
        ).locate(path, normalize_newlines(data.decode("utf-8", "replace"))) from None
    return text, path, source_sha256(data)


def parse_spec_text(
    text: str, path: str = "<spec>", sha256: str | None = None, options: ReadOptions | None = None
) -> Spec:
    """The spec `text` as one machine: the file's, or the section its read options name; a
    SpecError for a file of several machines without one named."""
    found = parse_machines_text(text, path, sha256, options, one=True)
    return found[0].spec


def parse_machines_text(
    text: str,
    path: str = "<spec>",
    sha256: str | None = None,
    options: ReadOptions | None = None,
    one: bool = False,
) -> tuple[SectionSpec, ...]:
    """Every machine of the spec `text` (see `load_machines`); with `one`, a file of
    several machines without a section named is an error saying how to name one."""
    if sha256 is None:
        sha256 = source_sha256(text.encode("utf-8"))
    text = normalize_newlines(text)
    try:
        if "\x00" in text:
            line = text.count("\n", 0, text.index("\x00")) + 1
            raise SpecError("contains NUL bytes: this is not a text file", line)
        blocks = read_blocks(text)
        roles = with_extra_names(options.columns if options else ())
        if options is not None and options.section:
            chosen, read = select(blocks, options.section, roles)
            above = unread_above(blocks, chosen, roles)
            spec = _build(read, options, path, sha256, above)
            return (SectionSpec(chosen.name, chosen.line, spec),)
        found = machines(blocks, roles)
        if not found:
            return (SectionSpec("", 0, _build(blocks, options, path, sha256)),)
        if one:
            _several(found)
        return tuple(
            SectionSpec(s.name, s.line, _build_section(blocks, s, found, options, path, sha256))
            for s in found
        )
    except SpecError as err:
        raise err.locate(path, text) from None
    except RecursionError:
        raise SpecError("markdown nested too deeply to read", 1).locate(path, None) from None


def _build(
    blocks: tuple[Block, ...],
    options: ReadOptions | None,
    path: str,
    sha256: str,
    above: tuple[Notice, ...] = (),
) -> Spec:
    """One machine read from `blocks`; `above`: what is written above the sections of a
    file of several machines that no machine reads, said in this one's report."""
    spec = build_spec(parse_document(blocks, options), path, sha256)
    if options is not None and options.generated:
        spec = replace(spec, generated=options.generated, others=options.others)
    if above:
        spec = replace(spec, notices=(*spec.notices, *above))
    guards = read_guards(blocks) + usage_guards(spec.spells)
    if guards:
        spec = replace(spec, guards=guards)
    if not any(diagram_language(b) for b in blocks):
        return spec  # no diagram: its reader is not even imported
    from .read.mermaid import read_diagrams

    return replace(spec, diagrams=read_diagrams(blocks))


def _build_section(
    blocks: tuple[Block, ...],
    section: Section,
    found: tuple[Section, ...],
    options: ReadOptions | None,
    path: str,
    sha256: str,
) -> Spec:
    """One machine of a file of several, read from its section; an error in it says which
    section it is in (one about the file as a whole, at its first line, at the section's)."""
    try:
        return _build(
            read_from(blocks, section, found),
            replace(options or ReadOptions(), section=section.name),
            path,
            sha256,
            unread_above(blocks, section, with_extra_names(options.columns if options else ())),
        )
    except SpecError as err:
        err.message = f"in section {section.name!r}: {err.message}"
        err.line = section.line if err.line == 1 else err.line
        raise


@dataclass(frozen=True)
class StateFileOf:
    """Where one machine of a project keeps its state: the state file as its spec names
    it, and the line naming it (where none does, its section's heading, or the file's
    first line, where the default is taken)."""

    machine: str
    spec: str
    section: str
    path: str
    line: int
    named: bool

    def said(self) -> str:
        where = f"{self.machine} ({self.spec}:{self.line}"
        if self.named:
            return f"{where}, `{self.path}`)"
        of = f"section {self.section!r}" if self.section else "the spec"
        return f"{where}: {of} names no state file, so the default `{self.path}`)"


def state_file_of_machine(root: Path, machine: Machine) -> StateFileOf | None:
    """Where `machine` (a spec of the project at `root`) keeps its state; None where its
    spec cannot be read so far (verifying or generating it says why)."""
    try:
        text, _, _ = _decoded(_load(root / machine.spec, machine.spec), machine.spec)
        blocks = read_blocks(normalize_newlines(text))
        roles = with_extra_names(machine.options.columns)
        section, heading = "", 1
        if machine.options.section:
            chosen, blocks = select(blocks, machine.options.section, roles)
            section, heading = chosen.name, chosen.line
        elif machines(blocks, roles):
            return None  # several machines read as one: an error of its own
        path, line = state_file_of(blocks)
    except (SpecError, RecursionError):
        return None
    return StateFileOf(machine.module, machine.spec, section, path, line or heading, bool(line))


def shared_state(root: Path, listed: list[Machine]) -> None:
    """A SpecError (of the project's pyproject.toml) where two or more of the machines
    `listed` keep their state in one file: each cast of one would take the file from
    the other, and `spell repair` of one would set the other's state aside. A machine of
    the project's own code keeps its state in its model (`build(model)`), which `spell`
    never drives: it keeps no state file."""
    chosen = list({m.module: m for m in listed if not m.options.own_code}.values())
    if len(chosen) < 2:
        return
    kept: dict[str, list[StateFileOf]] = {}
    for machine in chosen:
        of = state_file_of_machine(root, machine)
        if of is not None:
            kept.setdefault("/".join(folded(posixpath.normpath(of.path))), []).append(of)
    clashes = [found for found in kept.values() if len(found) > 1]
    if not clashes:
        return
    said = []
    for found in clashes:
        paths = list(dict.fromkeys(f.path for f in found))
        one = " and ".join(f"`{p}`" for p in paths)
        if len({posixpath.normpath(p) for p in paths}) > 1:
            one += (
                " (one file on a filesystem that ignores case or how letters are composed, "
                "or drops a name's trailing dots, as macOS and Windows do)"
            )
        elif len(paths) > 1:
            one += " (one file, written two ways)"
        example = posixpath.join(
            posixpath.dirname(posixpath.normpath(found[0].path)), found[0].machine, "state.json"
        )
        named = [f.said() for f in found]
        said.append(
            f"the machines {', '.join(named[:-1])} and {named[-1]} keep their state in one "
            f"file, {one}: each cast of one would take the file from the other. Give each "
            "machine a state file of its own, named in its spec (a machine of a file of "
            f"several names it in its own section: State is kept in `{example}`.)"
        )
    raise SpecError("; ".join(said), 0).locate("pyproject.toml [tool.spellbook.machines]", None)


class SeveralMachines(SpecError):
    """A file of several machines read as one: `sections` are its machines."""

    def __init__(self, message: str, sections: tuple[Section, ...]) -> None:
        super().__init__(message, sections[0].line)
        self.sections = sections


def _several(found: tuple[Section, ...]) -> None:
    """The error for a file of several machines read as one."""
    listed = ", ".join(f"{s.name!r} (line {s.line})" for s in found)
    raise SeveralMachines(
        f"this file holds {len(found)} machines, one per section: {listed}; read one with "
        f'section = "{found[0].name}" in its entry of [tool.spellbook.machines] (or '
        "spellbook-verify --section), or verify each on its own with "
        "spellbook-verify and no section",
        found,
    )


@contextmanager
def quick() -> Iterator[None]:
    """Python's cyclic garbage collector off while a command compiles a spec: reading
    a spec makes many small objects and no cycles worth collecting, and the collector
    walking them all, again and again, costs a large spec's verification a fifth of
    its time. It is switched back on after (if it was on)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
