"""The compiler's pipeline: a spec file read, expanded and modelled, as functions.

bytes -> text (`parse_spec_bytes`) -> located blocks (`read.markdown`) -> a
document still named as written (`read.document`) -> the model, names resolved
and notation expanded (`expand`). `load_spec` starts from a file, read with the
dialect its project configures (`config`). Every problem with the spec is a
`SpecError` naming the file and line.
"""

from __future__ import annotations

import errno
import gc
import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .budget import stage
from .config import dialect_for
from .expand import build_spec
from .model import Spec
from .read.document import parse_document
from .read.lexicon import Dialect
from .read.markdown import normalize_newlines, read_blocks
from .spec_error import SpecError

# Larger files are refused before parsing: time and memory grow with the file.
SPEC_LIMIT = 2_000_000


def load_spec(path: str | Path, shown: str | None = None, dialect: Dialect | None = None) -> Spec:
    """Read and compile one spec file; any problem with it raises `SpecError` with file:line.

    `shown` is how the file is named in messages and generated files (default: `path`);
    `dialect` says how to read it (its vocabulary and column names); by default, as the
    project that holds the file configures it (`config.dialect_for`).
    """
    shown = shown if shown is not None else str(path)
    stage("reading the spec")
    if dialect is None:
        dialect = dialect_for(path)
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
    return parse_spec_bytes(data, shown, dialect)


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


def parse_spec_bytes(data: bytes, path: str, dialect: Dialect | None = None) -> Spec:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise SpecError(
            f"not UTF-8 text: byte 0x{data[err.start]:02x} at column {column}", line
        ).locate(path, normalize_newlines(data.decode("utf-8", "replace"))) from None
    return parse_spec_text(text, path, hashlib.sha256(data).hexdigest(), dialect)


def parse_spec_text(
    text: str, path: str = "<spec>", sha256: str | None = None, dialect: Dialect | None = None
) -> Spec:
    if sha256 is None:
        sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    text = normalize_newlines(text)
    try:
        if "\x00" in text:
            line = text.count("\n", 0, text.index("\x00")) + 1
            raise SpecError("contains NUL bytes: this is not a text file", line)
        document = parse_document(read_blocks(text), dialect)
        return build_spec(document, path, sha256)
    except SpecError as err:
        raise err.locate(path, text) from None
    except RecursionError:
        raise SpecError("markdown nested too deeply to read", 1).locate(path, None) from None


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
