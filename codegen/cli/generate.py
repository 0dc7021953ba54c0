"""Which specs become which generated files, rendering them, and their freshness."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .. import load_spec
from ..analyse.checks import Finding, analyse, errors
from ..config import Config, Machine, relative
from ..render.lower import fresh, machine_source, render_diagram

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


class Made:
    """A generated file: its text, and for a module the source black formats into it,
    formatted only when the text is asked for (`stale` can tell a fresh module from
    its fingerprint without formatting it)."""

    def __init__(self, text: str = "", source: str | None = None) -> None:
        self._text = text
        self.source = source

    @property
    def text(self) -> str:
        if self.source is not None and not self._text:
            from ..render.lower import finish

            self._text = finish(self.source)
        return self._text

    def matches(self, found: str) -> bool:
        """Whether `found` (the file on disk) is this file."""
        if self.source is not None and fresh(found, self.source):
            return True
        return found == self.text


def render(
    target: Machine, root: Path, allow_errors: bool = False
) -> tuple[dict[str, Made], list[Finding]]:
    """The files one spec generates, by name (the module and its diagram), and the errors
    it was generated despite. A spec with error-level findings is refused, unless its
    machine (or the caller) allows errors."""
    spec = load_spec(root / target.spec, shown=target.spec, dialect=target.dialect)
    found = errors(analyse(spec))
    if found and not (allow_errors or target.allow_errors):
        raise NotGenerated(target.spec, found)
    files = {
        f"{target.module}.py": Made(source=machine_source(spec, target.module)),
        f"{target.module}.mmd": Made(render_diagram(spec)),
    }
    return files, found


def stale(out: Path, files: dict[str, Made]) -> list[Path]:
    """Generated files whose content on disk is not what the specs produce now."""
    found = []
    for name, made in sorted(files.items()):
        path = out / name
        if not path.is_file() or not made.matches(path.read_text(encoding="utf-8")):
            found.append(path)
    return found


def orphans(out: Path, files: dict[str, Made]) -> list[Path]:
    """Generated-looking files that no spec produces any more."""
    if not out.is_dir():
        return []
    return sorted(
        p
        for p in out.iterdir()
        if p.suffix in (".py", ".mmd") and p.name not in files and p.name != "__init__.py"
    )


def write(path: Path, made: Made) -> bool:
    """Write atomically; False if the file already had this content."""
    if path.is_file() and made.matches(path.read_text(encoding="utf-8")):
        return False
    text = made.text
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
