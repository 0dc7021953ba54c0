"""Which specs become which generated files: configuration, rendering, freshness."""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import load_spec
from .analyse import Finding, analyse, errors
from .render import render_diagram, render_machine

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_OUT = "generated"
SPEC_DIR = "spec"


@dataclass(frozen=True)
class Target:
    spec: str
    module: str


@dataclass(frozen=True)
class Config:
    out: str
    machines: dict[str, str]  # spec path -> module name

    def module_for(self, spec: str) -> str:
        return self.machines.get(spec) or Path(spec).stem.lower()


def load_config(root: Path) -> Config:
    """`[tool.spellbook]` in pyproject.toml: `generated` folder and `machines` (module = spec)."""
    path = root / "pyproject.toml"
    table: dict[str, object] = {}
    if path.is_file():
        with path.open("rb") as f:
            tool = tomllib.load(f).get("tool", {})
        found = tool.get("spellbook", {}) if isinstance(tool, dict) else {}
        table = found if isinstance(found, dict) else {}
    machines = table.get("machines", {})
    out = table.get("generated", DEFAULT_OUT)
    return Config(
        out=out if isinstance(out, str) else DEFAULT_OUT,
        machines={str(spec): str(module) for module, spec in dict(machines).items()}
        if isinstance(machines, dict)
        else {},
    )


def relative(path: str | Path, root: Path) -> str:
    """The path as it is shown in generated files: relative to the root, with '/'."""
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def targets(root: Path, config: Config, specs: list[str] | None) -> list[Target]:
    if specs:
        chosen = [relative(s, root) for s in specs]
    else:
        chosen = sorted(relative(p, root) for p in (root / SPEC_DIR).glob("*.md"))
    return [Target(spec, config.module_for(spec)) for spec in chosen]


class NotGenerated(Exception):
    """A spec with error-level findings: generating from it would build a broken machine."""

    def __init__(self, spec: str, findings: list[Finding]) -> None:
        super().__init__(spec)
        self.spec = spec
        self.findings = findings


def render(target: Target, root: Path) -> dict[str, str]:
    """The files one spec generates, by name: the module and its diagram."""
    spec = load_spec(root / target.spec, shown=target.spec)
    found = errors(analyse(spec))
    if found:
        raise NotGenerated(target.spec, found)
    return {
        f"{target.module}.py": render_machine(spec, target.module),
        f"{target.module}.mmd": render_diagram(spec),
    }


def stale(out: Path, files: dict[str, str]) -> list[Path]:
    """Generated files whose content on disk is not what the specs produce now."""
    found = []
    for name, text in sorted(files.items()):
        path = out / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            found.append(path)
    return found


def orphans(out: Path, files: dict[str, str]) -> list[Path]:
    """Generated-looking files that no spec produces any more."""
    if not out.is_dir():
        return []
    return sorted(
        p
        for p in out.iterdir()
        if p.suffix in (".py", ".mmd") and p.name not in files and p.name != "__init__.py"
    )


def write(path: Path, text: str) -> bool:
    """Write atomically; False if the file already had this content."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return True
