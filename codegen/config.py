"""A project's configuration: `[tool.spellbook]` in its pyproject.toml.

    [tool.spellbook]
    generated = "generated"          # where python -m codegen writes
    vocabulary = "spell_workflow"    # for specs that are not listed below

    [tool.spellbook.machines]
    spell_machine = "spec/STATE_MACHINE.md"
    session_machine = { spec = "spec/SESSION_STATE_MACHINE.md", vocabulary = "coding_session" }

    [tool.spellbook.machines.later]
    spec = "spec/LATER.md"
    columns = { condition = ["Wenn"] }   # header names to read, before the built-in ones
    allow_errors = true                  # generate even while the verifier finds errors

A machine is a module name (a Python identifier) and its spec, or a table with
`spec`, `vocabulary` (a module of `spellbook.vocabularies`, or a module of the
project, importable from its root; "" for the core alone), `columns` and
`allow_errors`. A spec that is not listed is read with the top-level
`vocabulary` and `columns`. Any other key, or a value of the wrong type, is an
error naming it.
"""

from __future__ import annotations

import posixpath
import sys
from dataclasses import dataclass
from pathlib import Path

from .read.lexicon import Dialect
from .read.rows import ROLES
from .spec_error import SpecError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_OUT = "generated"


@dataclass(frozen=True)
class Machine:
    module: str
    spec: str
    dialect: Dialect
    allow_errors: bool = False


@dataclass(frozen=True)
class Config:
    out: str
    machines: tuple[Machine, ...]
    dialect: Dialect  # for specs no machine lists

    def machine_for(self, spec: str) -> Machine:
        """The machine a spec (relative to the project root, with '/') is configured as."""
        for machine in self.machines:
            if machine.spec == spec:
                return machine
        return Machine(Path(spec).stem.lower(), spec, self.dialect)


def _fail(message: str) -> SpecError:
    return SpecError(f"[tool.spellbook] {message}", 0).locate("pyproject.toml", None)


def _dialect(table: dict[str, object], default: Dialect, where: str) -> Dialect:
    vocabulary = table.get("vocabulary", default.vocabulary)
    if not isinstance(vocabulary, str):
        raise _fail(f'{where}vocabulary must be a module name, or "" for the core alone')
    columns = table.get("columns")
    if columns is None:
        return Dialect(vocabulary, default.columns)
    if not isinstance(columns, dict) or not all(
        isinstance(v, list) and all(isinstance(n, str) for n in v) for v in columns.values()
    ):
        raise _fail(f'{where}columns must map a role to header names: condition = ["Guard"]')
    unknown = [k for k in columns if str(k).replace("_", " ").lower() not in ROLES]
    if unknown:
        raise _fail(
            f"{where}columns: {', '.join(map(repr, unknown))} is not a column role; the roles "
            f"are {', '.join(r.replace(' ', '_') for r in ROLES)}"
        )
    return Dialect(vocabulary, tuple((str(k), tuple(v)) for k, v in columns.items()))


_KEYS = {"generated", "vocabulary", "columns", "machines"}
_MACHINE_KEYS = {"spec", "vocabulary", "columns", "allow_errors"}


def load_config(root: Path) -> Config:
    """The project's `[tool.spellbook]`; defaults where there is none, an error (a
    SpecError naming pyproject.toml) for anything it cannot take."""
    path = root / "pyproject.toml"
    table: dict[str, object] = {}
    if path.is_file():
        try:
            with path.open("rb") as f:
                tool = tomllib.load(f).get("tool", {})
        except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as err:
            raise _fail(f"cannot be read: {err}") from None
        found = tool.get("spellbook", {}) if isinstance(tool, dict) else {}
        if not isinstance(found, dict):
            raise _fail("must be a table")
        table = found
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise _fail(f"unknown key {unknown[0]!r}; the keys are {', '.join(sorted(_KEYS))}")
    out = table.get("generated", DEFAULT_OUT)
    if not isinstance(out, str) or not out.strip():
        raise _fail("generated must be the folder generated files go to")
    default = _dialect(table, Dialect(), "")
    listed = table.get("machines", {})
    if not isinstance(listed, dict):
        raise _fail('machines must be a table: module = "spec/FILE.md"')
    machines = []
    for module, entry in listed.items():
        where = f"machines.{module}: "
        if not str(module).isidentifier():
            raise _fail(f"{where}a machine's name is its module's: a Python identifier")
        if isinstance(entry, str):
            machines.append(Machine(str(module), _spec_path(entry), default))
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str):
            raise _fail(f'{where}give the spec\'s path, or a table with spec = "..."')
        extra = sorted(set(entry) - _MACHINE_KEYS)
        if extra:
            raise _fail(f"{where}unknown key {extra[0]!r}")
        allow = entry.get("allow_errors", False)
        if not isinstance(allow, bool):
            raise _fail(f"{where}allow_errors must be true or false")
        machines.append(
            Machine(str(module), _spec_path(entry["spec"]), _dialect(entry, default, where), allow)
        )
    return Config(out, tuple(machines), default)


def _spec_path(written: str) -> str:
    """A spec's path as the machines compare it: `./spec//A.md` is `spec/A.md`."""
    return posixpath.normpath(written.replace("\\", "/"))


def importable(root: Path) -> None:
    """Let a project's own vocabulary modules be imported, as `python -m` in it would."""
    folder = str(root.resolve())
    if folder not in sys.path:
        sys.path.insert(0, folder)


def relative(path: str | Path, root: Path) -> str:
    """The path as it is shown in generated files: relative to the root, with '/'."""
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def project_of(path: str | Path) -> Path | None:
    """The folder of the nearest pyproject.toml above `path` that has [tool.spellbook]."""
    here = Path(path).resolve().parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if "[tool.spellbook" in text:
                return folder
    return None


def dialect_for(path: str | Path, fallback: Path | None = None) -> Dialect:
    """How the project that holds `path` reads it (or the project at `fallback`, for a
    file outside any project); the core alone when neither configures one."""
    root = project_of(path)
    if root is None:
        root = fallback
    if root is None:
        return Dialect()
    importable(root)
    return load_config(root).machine_for(relative(path, root)).dialect
