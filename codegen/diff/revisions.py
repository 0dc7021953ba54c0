"""An older revision of a spec, from a file or from git (`origin/main:spec/STATE_MACHINE.md`)."""

from __future__ import annotations

import os
import posixpath
from dataclasses import replace

from spellbook.disk import git
from spellbook.disk.project import PROJECT_LIMIT

from ..model import Spec, Term
from ..pipeline import SPEC_LIMIT, load_spec, parse_spec_bytes
from ..read.lexicon import ReadOptions
from .changes import borrowed_terms


class OldSpecError(Exception):
    """The older spec cannot be had (no such file, no such revision, no git)."""


class NewSince(OldSpecError):
    """The spec is not at the revision `--against REV:` names: a machine new since then,
    with nothing to compare and no workspace that could be in its states. `shown` names
    the file at that revision."""

    def __init__(self, message: str, shown: str) -> None:
        super().__init__(message)
        self.shown = shown


def load_old(
    where: str, new: Spec, options: ReadOptions, spec: str | None = None
) -> tuple[Spec, tuple[Term, ...]]:
    """The older spec `where` names, read with `options`; phrases it uses without defining
    that `new` defines are read as `new` defines them (and returned, to be said).

    `where` is read as a git revision first (`REV:PATH`; `REV:` alone is the file `spec`,
    the new spec's path, at REV), of the repository the command runs in, and else as a
    file; one that is both is refused. The older spec's name says which it was."""
    shown, data = _revision(where, spec)
    if data is None and not os.path.exists(where):
        raise OldSpecError(
            f"{where}: no such file (a git revision is written REV:PATH, "
            "e.g. origin/main:spec/STATE_MACHINE.md)"
        )

    def read(with_options: ReadOptions) -> Spec:
        if data is None:
            return load_spec(where, options=with_options)
        return parse_spec_bytes(data, shown, with_options)

    old = read(options)
    borrowed = borrowed_terms(old, new)
    if borrowed:
        old = read(replace(options, terms=(*options.terms, *borrowed)))
    return old, borrowed


def _revision(where: str, spec: str | None) -> tuple[str, bytes | None]:
    """(its name, the bytes) of the file at the revision `where` names (`REV:PATH`), or
    (where, None) for a file: one written as a path (`./`, `../`, absolute), or with no
    colon. A `REV:` whose REV names no commit is an error, never a file of that name.

    git is run only against the repository the command runs in, found from the current
    folder and named explicitly (`spellbook.disk.git`): never one git would find from the
    spec's folder, whose files a pull request writes."""
    revision, colon, path = where.partition(":")
    if not colon or not revision or _written_as_path(where):
        return where, None
    as_file = f"a file is written ./{where}"
    try:
        repository = git.find(os.getcwd())
    except OSError:
        repository = None
    if repository is None:
        raise OldSpecError(
            f"{where}: the current folder is in no git repository, so {revision!r} names "
            f"no revision; {as_file}"
        )
    try:
        commit = repository.commit(revision)
    except git.GitError as err:
        raise OldSpecError(
            f"{where}: git cannot tell whether {revision!r} is a revision ({err})"
        ) from None
    if commit is None:
        raise OldSpecError(f"{where}: {_missing(repository, revision)}; {as_file}")
    if os.path.lexists(where):
        raise OldSpecError(
            f"{where}: both a file and a revision ({revision} is commit {commit[:12]}); "
            f"write ./{where} for the file, or {commit}:{path} for the revision"
        )
    rel = _in_repository(repository, path, spec, where)
    shown = f"{rel} at {revision} (commit {commit[:12]})"
    try:
        data = repository.blob(commit, rel, SPEC_LIMIT)
    except git.GitError as err:
        raise OldSpecError(f"{shown}: git cannot show it ({err})") from None
    if data is None and not path:  # `REV:` alone: the spec itself, moved or new since REV
        before = _moved_from(repository, commit, spec)
        if before is None:
            raise NewSince(f"{shown}: no such file at that revision", shown)
        rel, shown = before, f"{before} at {revision} (commit {commit[:12]})"
        try:
            data = repository.blob(commit, rel, SPEC_LIMIT)
        except git.GitError as err:
            raise OldSpecError(f"{shown}: git cannot show it ({err})") from None
    if data is None:
        raise OldSpecError(f"{shown}: no such file at that revision")
    return shown, data


def _moved_from(repository: git.Repository, commit: str, spec: str | None) -> str | None:
    """Where the machine whose spec is `spec` (by its name in the project's
    `[tool.spellbook.machines]`) kept its spec at `commit`, relative to the top, when that
    was another file; None where the project had no such machine then: a new machine.
    An OldSpecError where that cannot be told (the configuration there cannot be read),
    since a moved spec is never to be taken for a new one, whose changes break nothing."""
    from spellbook.disk.project import (
        PYPROJECT,
        ProjectError,
        find_project,
        project_from_text,
        read_project,
    )

    if spec is None:
        return None
    root = find_project(os.path.dirname(os.path.abspath(spec)))
    config = None if root is None else repository.relative(os.path.join(root, PYPROJECT))
    if root is None or config is None:
        return None
    try:
        now = read_project(root)
        named = os.path.relpath(os.path.abspath(spec), root).replace(os.sep, "/")
        names = {e.name for e in now.machines if posixpath.normpath(e.spec) == named}
        data = repository.blob(commit, config, PROJECT_LIMIT)
        then = None if data is None else project_from_text(root, data.decode("utf-8"))
    except (ProjectError, git.GitError, OSError, UnicodeDecodeError) as err:
        raise OldSpecError(
            f"{spec} is not at that revision, and whether its machine is new there cannot be "
            f"told from {config} ({err})"
        ) from None
    for entry in () if then is None else then.machines:
        if entry.name in names:
            top = os.path.realpath(repository.top)
            return os.path.relpath(os.path.join(os.path.realpath(root), entry.spec), top).replace(
                os.sep, "/"
            )
    return None


def _written_as_path(where: str) -> bool:
    """Whether `where` is written as a path, not as `REV:PATH`: from the current folder
    (`./`, `../`), absolute, or a drive (`C:\\`)."""
    if where.startswith(("./", "../", ".\\", "..\\")) or os.path.isabs(where):
        return True
    return os.name == "nt" and len(where) > 1 and where[1] == ":"


def _in_repository(repository: git.Repository, path: str, spec: str | None, where: str) -> str:
    """The file a revision's PATH names, relative to the repository's top: `spec` for an
    empty PATH; a PATH starting `./` or `../` from the current folder (as git reads it);
    any other PATH from the top."""
    if not path:
        if spec is None:
            raise OldSpecError(f"{where}: a revision alone needs the spec's path")
        rel = repository.relative(spec, as_named=True)
        if rel is None:
            raise OldSpecError(
                f"{where}: {spec} is not in the repository the command runs in "
                f"({repository.top}); run it there, or name the file as REV:PATH"
            )
        return rel
    if path.startswith(("./", "../")) or path in (".", ".."):
        rel = repository.relative(os.path.join(os.getcwd(), path), as_named=True)
        if rel is None:
            raise OldSpecError(f"{where}: {path} is outside the repository")
        return rel
    return path


def _missing(repository: git.Repository, revision: str) -> str:
    """Why `revision` names no commit: a remote the repository does not have, said
    plainly (with the ones it has), or a revision not fetched yet."""
    remote, slash, _ = revision.partition("/")
    if slash and remote:
        try:
            remotes = repository.run("remote").decode("utf-8", "replace").split()
        except git.GitError:
            remotes = None
        if remotes is not None and remote not in remotes:
            have = f"its remotes are {', '.join(remotes)}" if remotes else "it has no remote"
            return (
                f"the repository at {repository.top} has no remote named {remote!r} ({have}); "
                f"add it (`git remote add {remote} URL` and `git fetch {remote}`) or compare "
                f"with a revision it has, --against REVISION:"
            )
    try:
        head = repository.commit("HEAD")
    except git.GitError:
        head = "unknown"  # git could not tell: the general reason below
    if head is None:
        return (
            f"the repository at {repository.top} has no commit yet, so {revision!r} names "
            "none: compare with a copy of the spec before the change, --against PATH, or "
            "commit the spec first"
        )
    return (
        f"{revision!r} is no revision of the repository at {repository.top} "
        "(not fetched yet? `git fetch` it first)"
    )
