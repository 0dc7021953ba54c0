"""An older revision of a spec, from a file or from git (`origin/main:spec/STATE_MACHINE.md`)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace

from ..model import Spec, Term
from ..pipeline import SPEC_LIMIT, load_spec, parse_spec_bytes
from ..read.lexicon import Dialect
from .changes import borrowed_terms

GIT_TIMEOUT = 60  # seconds: `git show` of one file, even from a slow network filesystem


class OldSpecError(Exception):
    """The older spec cannot be had (no such file, no such revision, no git)."""


def load_old(
    where: str, new: Spec, dialect: Dialect, spec: str | None = None
) -> tuple[Spec, tuple[Term, ...]]:
    """The older spec `where` names, read in `dialect`; phrases it uses without defining
    that `new` defines are read as `new` defines them (and returned, to be said).

    `REV:` with no path is the file `spec` (the new spec's path) at revision REV."""
    if where.endswith(":") and spec is not None and not os.path.exists(where):
        # The spec's own file at that revision, asked of the repository that holds it.
        folder = os.path.dirname(os.path.abspath(spec))
        shown = f"{spec} at {where[:-1]}"
        data = git_show(f"{where}./{os.path.basename(spec)}", folder, shown)
        where = shown
    elif os.path.exists(where):
        data = None
    elif ":" in where:
        data = git_show(where)
    else:
        raise OldSpecError(
            f"{where}: no such file (a git revision is written REV:PATH, "
            "e.g. origin/main:spec/STATE_MACHINE.md)"
        )

    def read(with_dialect: Dialect) -> Spec:
        if data is None:
            return load_spec(where, dialect=with_dialect)
        return parse_spec_bytes(data, where, with_dialect)

    old = read(dialect)
    borrowed = borrowed_terms(old, new)
    if borrowed:
        old = read(replace(dialect, terms=(*dialect.terms, *borrowed)))
    return old, borrowed


def git_show(where: str, folder: str | None = None, shown: str | None = None) -> bytes:
    """`git show REV:PATH`, run in `folder` (default: the current one; a PATH starting
    `./` is relative to it, otherwise to the repository's top, as git reads it)."""
    revision = where.partition(":")[0]
    name = shown or where
    if revision.startswith("-"):
        raise OldSpecError(f"{name}: a revision cannot start with '-'")
    try:
        done = subprocess.run(
            ["git", "show", "--no-textconv", where, "--"],
            capture_output=True,
            cwd=folder,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise OldSpecError(f"{name}: git is not installed, so no revision can be read") from None
    except subprocess.TimeoutExpired:
        raise OldSpecError(f"{name}: git took over {GIT_TIMEOUT} s to show it") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = said[0].removeprefix("fatal: ") if said else f"git exited {done.returncode}"
        raise OldSpecError(f"{name}: git cannot show it ({why})")
    if len(done.stdout) > SPEC_LIMIT:
        raise OldSpecError(f"{name}: over {SPEC_LIMIT // 1_000_000} MB, not read")
    return done.stdout
