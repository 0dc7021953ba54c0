"""Which specs become which generated files, rendering them, and their freshness."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from . import load_spec
from .analyse import Finding, analyse, errors
from .config import Config, Machine, relative
from .render import render_diagram, render_machine

SPEC_DIR = "spec"


def targets(root: Path, config: Config, specs: list[str] | None) -> list[Machine]:
    """The machines to generate: the specs given, or every spec/*.md and listed spec."""
    if specs:
        chosen = [relative(s, root) for s in specs]
    else:
        chosen = sorted(
            {relative(p, root) for p in (root / SPEC_DIR).glob("*.md")}
            | {m.spec for m in config.machines}
        )
    return [config.machine_for(spec) for spec in chosen]


class NotGenerated(Exception):
    """A spec with error-level findings: generating from it would build a broken machine."""

    def __init__(self, spec: str, findings: list[Finding]) -> None:
        super().__init__(spec)
        self.spec = spec
        self.findings = findings


def render(
    target: Machine, root: Path, allow_errors: bool = False
) -> tuple[dict[str, str], list[Finding]]:
    """The files one spec generates, by name (the module and its diagram), and the errors
    it was generated despite. A spec with error-level findings is refused, unless its
    machine (or the caller) allows errors."""
    spec = load_spec(root / target.spec, shown=target.spec, dialect=target.dialect)
    found = errors(analyse(spec))
    if found and not (allow_errors or target.allow_errors):
        raise NotGenerated(target.spec, found)
    files = {
        f"{target.module}.py": render_machine(spec, target.module),
        f"{target.module}.mmd": render_diagram(spec),
    }
    return files, found


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
