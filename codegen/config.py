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

A machine is a module name and its spec, or a table with `spec`, `vocabulary`
(a module of `spellbook.vocabularies`, or any importable module; "" for the
core alone), `columns` and `allow_errors`. A spec that is not listed is read
with the top-level `vocabulary` and `columns`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import SpecError
from .lexicon import Dialect

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
        raise _fail(f"{where}vocabulary must be a module name")
    columns = table.get("columns")
    if columns is None:
        return Dialect(vocabulary, default.columns)
    if not isinstance(columns, dict) or not all(
        isinstance(v, list) and all(isinstance(n, str) for n in v) for v in columns.values()
    ):
        raise _fail(f'{where}columns must map a role to header names: condition = ["Guard"]')
    return Dialect(vocabulary, tuple((str(k), tuple(v)) for k, v in columns.items()))


def load_config(root: Path) -> Config:
    """The project's `[tool.spellbook]`; defaults where there is none."""
    path = root / "pyproject.toml"
    table: dict[str, object] = {}
    if path.is_file():
        try:
            with path.open("rb") as f:
                tool = tomllib.load(f).get("tool", {})
        except (tomllib.TOMLDecodeError, OSError) as err:
            raise _fail(f"cannot be read: {err}") from None
        found = tool.get("spellbook", {}) if isinstance(tool, dict) else {}
        table = found if isinstance(found, dict) else {}
    out = table.get("generated", DEFAULT_OUT)
    default = _dialect(table, Dialect(), "")
    machines = []
    listed = table.get("machines", {})
    for module, entry in (listed if isinstance(listed, dict) else {}).items():
        where = f"machines.{module}: "
        if isinstance(entry, str):
            machines.append(Machine(str(module), entry, default))
        elif isinstance(entry, dict) and isinstance(entry.get("spec"), str):
            allow = entry.get("allow_errors", False)
            machines.append(
                Machine(str(module), entry["spec"], _dialect(entry, default, where), allow is True)
            )
        else:
            raise _fail(f'{where}give the spec\'s path, or a table with spec = "..."')
    return Config(out if isinstance(out, str) else DEFAULT_OUT, tuple(machines), default)


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
    return load_config(root).machine_for(relative(path, root)).dialect
