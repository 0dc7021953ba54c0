"""`spellbook-codegen` (in a checkout, `python -m codegen`): generate the machines from
the specs, or check they are fresh.

Which specs become which generated files (`config.targets`), rendering them (`render`), and
writing them or telling whether the files on disk are fresh (`stale`, `orphans`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from spellbook.records.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK

from ..analyse import Finding, analyse, errors
from ..analyse.report import format_finding, format_text, to_markdown
from ..budget import add_arguments, budget, disarm, out_of_memory, stage
from ..config import (
    SPEC_DIR,
    Config,
    Machine,
    forget_configs,
    importable,
    load_config,
    relative,
    targets,
)
from ..model import Spec
from ..pipeline import SeveralMachines, load_spec, quick, shared_state
from ..read.identifiers import identifier
from ..render import finish, fresh, machine_source, relaid, render_diagram, stray_bytecode
from ..render.documents import fenced, refresh
from ..spec_error import SpecError
from .outputs import check_outputs, unwritten
from .streams import SafeArgumentParser, UnwrittenOutput, cannot_write, emit, say


def unlisted(root: Path, config: Config) -> list[str]:
    """The specs in spec/ that a project listing its machines does not list."""
    if not config.machines:
        return []
    listed = {m.spec for m in config.machines}
    return sorted(
        spec
        for spec in (relative(p, root) for p in (root / SPEC_DIR).glob("*.md"))
        if spec not in listed
    )


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

    def __init__(
        self, text: str = "", source: str | None = None, spec: str = "", exact: bool = False
    ) -> None:
        self._text = text
        self.source = source
        self.spec = spec  # the spec a module is made from
        # A document of the user's: compared and written as it is, its line endings
        # and byte order mark kept (a generated file is LF, UTF-8 without one).
        self.exact = exact

    @property
    def text(self) -> str:
        if self.source is not None and not self._text:
            self._text = finish(self.source)
        return self._text

    def matches(self, found: str) -> bool:
        """Whether `found` (the file on disk) is this file."""
        if self.source is not None and fresh(found, self.source):
            return True
        return found == self.text


class Checked:
    """A spec as it was generated: the model, every finding, and its diagram."""

    def __init__(self, target: Machine, spec: Spec, findings: list[Finding], diagram: str):
        self.target = target
        self.spec = spec
        self.findings = findings
        self.diagram = diagram

    def part(self, kind: str) -> str:
        """What a document's `<!-- spellbook: KIND MACHINE -->` part shows of it."""
        if kind == "diagram":
            return fenced("mermaid", self.diagram)
        command = f"{VERIFY} --spec {self.target.spec}"
        return fenced("text", f"$ {command}\n{format_text(self.spec, self.findings)}")


def render(
    target: Machine, root: Path, allow_errors: bool = False
) -> tuple[dict[str, Made], list[Finding], Checked]:
    """The files one spec generates, by name (the module and its diagram), the errors
    it was generated despite, and the spec as checked. A spec with error-level findings
    is refused, unless its machine (or the caller) allows errors."""
    stage("reading the spec", target.spec)
    try:
        spec = load_spec(root / target.spec, shown=target.spec, options=target.options)
    except SeveralMachines as err:
        raise _list_them(target, err) from None
    try:
        findings = analyse(spec)
    except SpecError as err:
        raise err.locate(target.spec, None) from None
    found = errors(findings)
    if found and not (allow_errors or target.allow_errors):
        raise NotGenerated(target.spec, found)
    diagram = render_diagram(spec)
    files = {
        f"{target.module}.py": Made(
            source=machine_source(spec, target.module, root), spec=target.spec
        ),
        f"{target.module}.mmd": Made(_marked(diagram, target.spec)),
    }
    return files, found, Checked(target, spec, findings, diagram)


def _list_them(target: Machine, err: SeveralMachines) -> SpecError:
    """The error for a spec of several machines that one machine names without saying
    its section: each is a module of its own, which the project lists one by one."""
    entries = "; ".join(
        f"{target.module}_{identifier(s.name).lower() or 'section'} = "
        f'{{ spec = "{target.spec}", section = {json.dumps(s.name)} }}'
        for s in err.sections
    )
    listed = ", ".join(f"{s.name!r} (line {s.line})" for s in err.sections)
    err.message = (
        f"this file holds {len(err.sections)} machines, one per section: {listed}; each is "
        "generated as a module of its own, from an entry of its own: list them under "
        f"[tool.spellbook.machines], each with its section: {entries}"
    )
    return err


def documents(
    root: Path, config: Config, checked: dict[str, Checked], every: bool
) -> dict[str, Made]:
    """The files that show the machines, by path from the root: each machine's
    verification report, and (when `every` machine was generated) the project's
    documents with their spellbook parts refreshed. Where they go is checked first
    (`outputs.check_outputs`): codegen never writes over what it does not own."""
    found: dict[str, Made] = {}
    for c in checked.values():
        if c.target.report:
            path = root / c.target.report
            if not _begins(path, REPORT_MARK):
                raise SpecError(
                    "named as a machine's verification report, but it is a file "
                    f"{CODEGEN} did not write (it does not begin `# Verification of`): "
                    "move it, or name another file as the report",
                    0,
                ).locate(c.target.report, None)
            found[c.target.report] = Made(to_markdown(c.spec, c.findings))
    if not every:
        return found
    for shown in config.documents:
        path = root / shown
        data = path.read_bytes() if path.is_file() else None
        if data is None:
            raise SpecError(
                "listed in [tool.spellbook] documents, but there is no such file", 0
            ).locate(shown, None)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SpecError(
                "listed in [tool.spellbook] documents, but it is not UTF-8 text", 0
            ).locate(shown, None) from None
        bom = text.startswith("\ufeff")

        def part(kind: str, machine: str) -> str | None:
            return checked[machine].part(kind) if machine in checked else None

        # Each line keeps its own ending, and the document its byte order mark.
        refreshed = refresh(shown, text.removeprefix("\ufeff"), part)
        found[shown] = Made(("\ufeff" if bom else "") + refreshed, exact=True)
    return found


# Compiling a module of thousands of rows takes tens of megabytes for its syntax tree:
# done in a process of its own, so the generator's memory stays what its spec needs.
_COMPILE = (
    "import sys\n"
    "try:\n"
    "    compile(sys.stdin.buffer.read(), sys.argv[1], 'exec', dont_inherit=True)\n"
    "except (SyntaxError, ValueError) as err:\n"
    "    print(err)\n"
    "    sys.exit(1)\n"
)


def _compiles(text: str, name: str) -> str:
    """Why `text` does not compile as Python, or "" if it does."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _COMPILE, name],
        input=text.encode("utf-8"),
        capture_output=True,
        timeout=600,
    )
    if done.returncode == 0:
        return ""
    return done.stdout.decode("utf-8", "replace").strip() or "the compiler failed"


def stale(out: Path, files: dict[str, Made]) -> list[Path]:
    """Generated files whose content on disk is not what the specs produce now."""
    found = []
    for name, made in sorted(files.items()):
        path = out / name
        if not path.is_file() or not made.matches(_on_disk(path, made)):
            found.append(path)
    return found


def _on_disk(path: Path, made: Made) -> str:
    """The file's text, as `made` is compared with it."""
    if made.exact:
        return path.read_bytes().decode("utf-8", "replace")
    return _as_written(path)


def _as_written(path: Path) -> str:
    """A generated file's text, as Python would read a module with no coding line: UTF-8,
    strictly, with no byte order mark ("" if it is not, which no generated file is)."""
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        return ""
    try:
        return data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        return ""


def _relaid(path: Path, files: dict[str, Made]) -> str:
    """What to add where a stale module is the generator's output laid out otherwise: a
    formatter was most likely run over it, and will make it stale again."""
    made = files.get(path.name)
    if made is None or made.source is None or not path.is_file():
        return ""
    if not relaid(_as_written(path), made.text):
        return ""
    return (
        " (its code is the generator's, laid out otherwise: a formatter was run over it; "
        "leave the generated folder out of the formatter's files, e.g. `extend-exclude` "
        "for ruff or black)"
    )


def orphans(out: Path, files: dict[str, Made]) -> list[Path]:
    """Generated-looking files that no spec produces any more."""
    if not out.is_dir():
        return []
    return sorted(
        p
        for p in out.iterdir()
        if p.suffix in (".py", ".mmd")
        and p.name not in files
        and p.name != "__init__.py"
        and _ours(p)  # a hand's setup.py or diagram is no leftover of ours
    )


# How every verification report begins (`analyse.report.to_markdown`).
REPORT_MARK = b"# Verification of "
# How every module the generator writes begins (`render/templates/machine.py.j2`; its
# earlier releases named the command otherwise).
GENERATED_MARK = b"# DO NOT EDIT: generated by "


# How every diagram the generator writes begins: a comment in its front matter, which
# mermaid reads only at the top (`_marked`); a checkout may end its lines with `\r\n`.
@cache
def _diagram_mark() -> re.Pattern[bytes]:
    return re.compile(rb"---\r?\n" + re.escape(GENERATED_MARK))


# How its earlier releases' diagrams began: the title, then `stateDiagram-v2` and its
# direction (`spellbook.records.diagram.mermaid`).
@cache
def _unmarked_diagram() -> re.Pattern[bytes]:
    return re.compile(
        rb"---\r?\ntitle: [^\r\n]*\r?\n---\r?\nstateDiagram-v2\r?\n  direction LR\r?\n"
    )


def _marked(diagram: str, spec: str) -> str:
    """A diagram as its file holds it: saying, in its front matter, who wrote it."""
    head, _, rest = diagram.partition("\n")
    return f"{head}\n{GENERATED_MARK.decode()}`{CODEGEN}` from {spec!r}.\n{rest}"


def _ours(path: Path) -> bool:
    """Whether a module or diagram may be written at `path`: no file is there, or one the
    generator wrote (its first lines say so); never a hand's (`setup.py` under
    `generated = "."`, a diagram of the team's own)."""
    if path.suffix == ".py":
        return _begins(path, GENERATED_MARK)
    if path.suffix == ".mmd":
        return _begins(path, _diagram_mark()) or _begins(path, _unmarked_diagram())
    return True


def _begins(path: Path, mark: bytes | re.Pattern[bytes]) -> bool:
    """Whether the file at `path` is none, or one that begins with `mark` (only that much
    of it is read; a pattern's, at most 512 bytes)."""
    if not path.is_file():
        return True
    try:
        with path.open("rb") as f:
            if isinstance(mark, bytes):
                return f.read(len(mark)) == mark
            return mark.match(f.read(512)) is not None
    except OSError:
        return True  # writing it says why it cannot be


def write(path: Path, made: Made) -> bool:
    """Write atomically; False if the file already had this content."""
    if path.is_file() and made.matches(_on_disk(path, made)):
        return False
    text = made.text
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="" if made.exact else "\n") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return True


def _stray(root: Path, out: Path) -> list[str]:
    """A line for each piece of compiled code that Python could run in place of a
    generated module (`stray_bytecode`), saying how to delete it."""
    found = []
    for path, why in stray_bytecode(out):
        shown = path.relative_to(root).as_posix()
        if path.parent.name == "__pycache__":  # Python makes its cache again from the source
            command = f"rm -r {path.parent.relative_to(root).as_posix()}"
        else:
            command = f"rm {'-r ' if path.is_dir() else ''}{shown}"
        found.append(f"{shown}: {why}; delete it: {command}")
    return found


# How to see a spec's findings and regenerate, in what the commands tell the user: the
# installed commands (a checkout's development install has them too).
VERIFY = "spellbook-verify"
CODEGEN = "spellbook-codegen"


def _arguments(argv: Sequence[str] | None, prog: str) -> argparse.Namespace:
    parser = SafeArgumentParser(
        prog=prog,
        description="Generate a transitions machine and a mermaid diagram from each spec "
        "(every spec/*.md, or the ones given), into the generated/ folder.",
        epilog=f"Exit status: {EXIT_OK} done (or fresh, with --check), {EXIT_FAILED} stale "
        f"files (--check) or a spec with errors, {EXIT_BAD_INPUT} unusable input.",
    )
    parser.add_argument("--spec", action="append", metavar="PATH", help="spec to generate from")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming each stale file"
    )
    parser.add_argument(
        "--allow-errors",
        action="store_true",
        help="generate even from a spec with error-level findings (they are printed as "
        "warnings); a machine can allow this for itself with allow_errors = true",
    )
    add_arguments(parser, "checking the specs")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, prog: str = "python -m codegen") -> int:
    try:
        with quick():
            return _main(argv, prog)
    except UnwrittenOutput as err:
        return cannot_write(err, "the output")


def _main(argv: Sequence[str] | None, prog: str) -> int:
    forget_configs()  # a run reads the project's files afresh
    args = _arguments(argv, prog)
    with budget(args.budget, memory=args.memory):
        try:
            return _run(args)
        except MemoryError:  # anywhere: reading, checking, formatting, comparing
            say(f"error: {out_of_memory()}")
            return EXIT_BAD_INPUT


def _run(args: argparse.Namespace) -> int:
    root = Path.cwd()
    importable(root)
    try:
        config = load_config(root)
    except SpecError as err:
        say(f"error: {err}")
        return EXIT_BAD_INPUT
    out = root / config.out
    chosen = targets(root, config, args.spec)
    if not chosen:
        say(f"error: no specs found in {root / 'spec'} (use --spec PATH)")
        return EXIT_BAD_INPUT
    try:  # before anything is read, made or written
        check_outputs(root, config, chosen, every=not args.spec, writing=not args.check)
        with budget(args.budget, "pyproject.toml", args.memory):  # it reads every spec
            shared_state(root, chosen)
    except SpecError as err:
        say(f"error: {err}")
        return EXIT_BAD_INPUT
    files: dict[str, Made] = {}
    checked: dict[str, Checked] = {}
    try:
        for target in chosen:
            made, despite, checked[target.module] = render(target, root, args.allow_errors)
            files.update(made)
            if despite and not args.check:
                say(
                    f"warning: {target.spec}: generated despite {len(despite)} error(s) "
                    f"(`{VERIFY} --spec {target.spec}`)"
                )
    except SpecError as err:
        say(f"error: {err}")
        return EXIT_BAD_INPUT
    except NotGenerated as err:
        for finding in err.findings:
            say(format_finding(err.spec, finding))
        say(
            f"error: {err.spec} has {len(err.findings)} error(s); fix them before generating "
            f"(see them all with `{VERIFY} --spec {err.spec}`), or generate anyway with "
            "--allow-errors or, for this machine, allow_errors = true under [tool.spellbook]"
        )
        return EXIT_FAILED
    try:
        shown = documents(root, config, checked, every=not args.spec)
    except SpecError as err:
        say(f"error: {err}")
        return EXIT_BAD_INPUT
    leftover = orphans(out, files) if not args.spec else []
    for name in sorted(files):
        if not _ours(out / name):
            say(
                f"error: {(out / name).relative_to(root).as_posix()} is a file that "
                f"{CODEGEN} did not write (its first line is not the generator's), where a "
                f"machine's {'diagram' if name.endswith('.mmd') else 'module'} would go; "
                "nothing was written. Move it, or name the machine or the `generated` "
                "folder otherwise under [tool.spellbook]"
            )
            return EXIT_BAD_INPUT
    if args.check:
        outdated = stale(out, files) + stale(root, shown)
        for path in outdated:
            say(f"{path.relative_to(root)}: stale; run {CODEGEN}{_relaid(path, files)}")
        for path in leftover:
            say(f"{path.relative_to(root)}: no spec generates it; delete it")
        stray = _stray(root, out)
        for line in stray:
            say(line)
        if outdated or leftover or stray:
            return EXIT_FAILED
        emit(f"{len(files) + len(shown)} generated files are fresh\n")
        return EXIT_OK
    for name, file in sorted(files.items()):
        stage("formatting the generated module with black", file.spec or None)
        problem = "" if file.source is None else _compiles(file.text, name)
        if problem:  # a module that would not even compile is never written, nor any other
            say(
                f"error: {file.spec}: the module generated from it does not compile "
                f"({problem}); nothing was written. This is a defect of the generator: "
                "please report it with the spec"
            )
            return EXIT_BAD_INPUT
    disarm()  # every file is made: writing them is never cut short
    written = [(out / name, file) for name, file in sorted(files.items())]
    written += [(root / name, file) for name, file in sorted(shown.items())]
    said: list[str] = []  # written once every file is: a failing stdout never leaves one unwritten
    for path, file in written:
        try:
            done = write(path, file)
        except OSError as err:  # its place was checked: a full disk, a file made since
            emit("".join(said))
            say(f"error: {unwritten(err, path.relative_to(root).as_posix())}")
            return EXIT_BAD_INPUT
        said.append(f"{'wrote' if done else 'unchanged'} {path.relative_to(root).as_posix()}\n")
    emit("".join(said))
    for path in leftover:
        say(f"warning: {path.relative_to(root)}: no spec generates it")
    for line in _stray(root, out):
        say(f"warning: {line}")
    if not args.spec:
        for spec in unlisted(root, config):
            say(f"note: {spec} is not generated: [tool.spellbook.machines] does not list it")
    return EXIT_OK
