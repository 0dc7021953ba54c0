"""The fingerprint a generated module carries, and whether a module on disk is fresh."""

from __future__ import annotations

import ast

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
