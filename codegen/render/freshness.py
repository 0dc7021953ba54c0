"""The fingerprint a generated module carries, whether a module on disk is fresh, and
whether Python would run it: no compiled code beside it runs in its place."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from .format import LINE_LENGTH, black_format

FINGERPRINT = "# Fingerprint: "


def finish(source: str) -> str:
    """`source` formatted by black, with a fingerprint line after its header: the hash of
    `source` (and of black's version and settings), and the hash of the rest of the file.
    A file whose fingerprint matches its source and its own text needs no formatting to
    be known fresh (`fresh`); a hand edit changes the second hash."""
    formatted = black_format(source)
    head, rest = _header(formatted)
    return f"{head}{FINGERPRINT}{_source_hash(source)} {_hash(head + rest)}\n{rest}"


def fresh(text: str, source: str) -> bool:
    """Whether `text` (a generated module as found) is what `finish(source)` makes, told
    without black: its fingerprint says it was made from this very source by this black
    and that nothing in it has changed since, and its syntax tree is the source's.

    The hashes catch any edit; the tree and the comments are compared without trusting
    them, so an edit is caught even if whoever made it recomputed the fingerprint: the
    module is the generator's output token for token, layout (spaces, blank lines, line
    ends) aside. The header must be the source's own, so no line can change how Python
    decodes the rest (a coding declaration); `text` is read as strict UTF-8 with no byte
    order mark (`stale`), as Python reads a module without one."""
    head, rest = _header(text)
    if not rest.startswith(FINGERPRINT) or head != _header(source)[0]:
        # Only the generator's own header lines: a line it did not write there, such as
        # `# -*- coding: utf-7 -*-`, changes how Python reads the comments below, which
        # the syntax tree does not hold.
        return False
    line, _, rest = rest.partition("\n")
    made, _, own = line[len(FINGERPRINT) :].partition(" ")
    if made != _source_hash(source) or own != _hash(head + rest):
        return False
    try:
        same_code = ast.dump(ast.parse(rest)) == ast.dump(ast.parse(source))
        return same_code and _comments(rest) == _comments(_header(source)[1])
    except (SyntaxError, ValueError):
        return False


def relaid(text: str, made: str) -> bool:
    """Whether `text` (a generated module as found, not fresh) is `made` (the generator's
    output) laid out otherwise: the same syntax tree and comments, other line breaks or
    spaces, as a formatter run over the generated folder leaves it (black moves the
    closing quotes of a docstring, and indents its lines: docstrings are compared by
    their lines' words)."""
    try:
        same_code = _code(text) == _code(made)
        return same_code and _comments(text) == _comments(made)
    except (SyntaxError, ValueError):
        return False


def _code(text: str) -> str:
    """The syntax tree of a module, its docstrings made their lines' words."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                value.value = "\n".join(" ".join(line.split()) for line in value.value.split("\n"))
                value.value = value.value.strip()
    return ast.dump(tree)


def _comments(text: str) -> list[str]:
    """The comments of a module, in order: what its syntax tree leaves out."""
    import io
    import tokenize

    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return [t.string for t in tokens if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return ["(cannot be read)"]


def _header(text: str) -> tuple[str, str]:
    """The header comment (the lines before the docstring) and the rest."""
    at = 0
    while text.startswith("# ", at) and not text.startswith(FINGERPRINT, at):
        at = text.index("\n", at) + 1
    return text[:at], text[at:]


def _source_hash(source: str) -> str:
    from importlib.metadata import version

    return _hash(f"black {version('black')}, line length {LINE_LENGTH}, py310\n{source}")


def _hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


# Run in a process of its own (marshal is not meant for data made to hurt): for each
# source, whether the code Python's import would run for it, from a cached .pyc of
# this interpreter where it takes one, is the code of the source itself.
_RUNS_ITS_SOURCE = (
    "import sys\n"
    "from importlib.machinery import SourceFileLoader\n"
    "for source in sys.argv[1:]:\n"
    "    try:\n"
    "        code = SourceFileLoader('_checked', source).get_code('_checked')\n"
    "        with open(source, 'rb') as f:\n"
    "            own = compile(f.read(), source, 'exec', dont_inherit=True)\n"
    "        print(int(code == own))\n"
    "    except Exception:\n"
    "        print(0)\n"
)
_OPTIMIZED = {"": (), "opt-1": ("-O",), "opt-2": ("-OO",)}  # a .pyc's level, by its name


def stray_bytecode(folder: Path) -> list[tuple[Path, str]]:
    """Compiled code in the folder of generated modules that Python could run in place
    of a module's checked source, each with why: bytecode (`.pyc`) or an extension
    module beside the modules, which Python imports without a source (an extension even
    before it); a package folder named like a module; and, in `__pycache__/`, bytecode
    that is not the code of the source beside it yet would be run for it (hash-based,
    which Python runs without looking at the source unless it checks the hash, or
    written with the source's time and size, which an archive of a commit gives its
    files). Python's own cache of a source is the code of that source; bytecode for
    another Python can be checked only by that one, and is stray here."""
    from importlib.machinery import BYTECODE_SUFFIXES, EXTENSION_SUFFIXES

    if not folder.is_dir():
        return []
    found = []
    compiled = (*BYTECODE_SUFFIXES, *EXTENSION_SUFFIXES)
    for entry in sorted(folder.iterdir()):
        if entry.name.endswith(compiled) and not entry.is_dir():
            found.append((entry, "compiled code, which Python imports without a source"))
        elif (folder / f"{entry.name}.py").is_file() and any(entry.glob("__init__.*")):
            found.append((entry, f"a package, which Python imports in place of {entry.name}.py"))
    cache = folder / "__pycache__"
    checked: dict[str, list[tuple[Path, Path]]] = {}
    for pyc in sorted(cache.glob("*.pyc")) if cache.is_dir() else []:
        parts = pyc.name.split(".")
        source = folder / f"{parts[0]}.py"
        level = parts[2] if len(parts) == 4 else ""
        if len(parts) not in (3, 4) or level not in _OPTIMIZED or not source.is_file():
            continue  # a cache Python never reads: no source of its name, no such level
        if parts[1] == sys.implementation.cache_tag:
            checked.setdefault(level, []).append((pyc, source))
        else:
            found.append(
                (pyc, f"bytecode for another Python ({parts[1]}), which this one cannot check")
            )
    for level, pairs in checked.items():
        runs = _runs_its_source([source for _, source in pairs], _OPTIMIZED[level])
        found += [
            (pyc, f"bytecode that Python would run in place of {source.name}, but not its code")
            for (pyc, source), same in zip(pairs, runs, strict=True)
            if not same
        ]
    return found


def _runs_its_source(sources: list[Path], options: tuple[str, ...]) -> list[bool]:
    """For each source, whether Python (with `options`) runs its own code for it."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", *options, "-c", _RUNS_ITS_SOURCE, *map(str, sources)],
        capture_output=True,
        timeout=300,
    )
    said = done.stdout.split()
    if done.returncode != 0 or len(said) != len(sources):
        return [False] * len(sources)  # bytecode that crashes its reader is no module's
    return [line == b"1" for line in said]
