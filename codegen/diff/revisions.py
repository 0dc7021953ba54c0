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
) -> tuple[Spec, tuple[Term, ...], tuple[str, str]]:
    """The older spec `where` names, read with `options`; phrases it uses without defining
    that `new` defines are read as `new` defines them (and returned, to be said); and
    which vocabulary each side was read with, in words ("" for each where the spec has
    no vocabulary file of the project's own).

    `where` is read as a git revision first (`REV:PATH`; `REV:` alone is the file `spec`,
    the new spec's path, at REV), of the repository the command runs in, and else as a
    file; one that is both is refused. The older spec's name says which it was. A
    revision's spec is read with the project's vocabulary file as it was at that
    revision; a file's, with it as it is now (a file names no revision of it)."""
    shown, data, at = _revision(where, spec)
    if data is None and not os.path.exists(where):
        raise OldSpecError(
            f"{where}: no such file (a git revision is written REV:PATH, "
            "e.g. origin/main:spec/STATE_MACHINE.md)"
        )
    options, vocabularies = _vocabulary_then(options, at)

    def read(with_options: ReadOptions) -> Spec:
        if data is None:
            return load_spec(where, options=with_options)
        return parse_spec_bytes(data, shown, with_options)

    old = read(options)
    borrowed = borrowed_terms(old, new)
    if borrowed:
        old = read(replace(options, terms=(*options.terms, *borrowed)))
    return old, borrowed, vocabularies


# The revision a spec was read at: the repository, the commit and how `--against` named
# it; None for a file.
At = tuple[git.Repository, str, str] | None


def _vocabulary_then(options: ReadOptions, at: At) -> tuple[ReadOptions, tuple[str, str]]:
    """`options` for the older spec, and which vocabulary each side is read with, said
    (`load_old`): at a revision, the project's vocabulary file as it was there (its
    `templates/` folder too), read from git's bytes."""
    vocabulary = options.vocabulary
    if not (vocabulary.endswith(".md") and os.path.isabs(vocabulary)):
        return options, ("", "")  # the core's words, or a vocabulary shipped with Spellbook
    from ..analyse.reading import shown_vocabulary

    shown = shown_vocabulary(vocabulary)
    now = f"{shown} as it is now"
    if at is None:
        return options, (
            f"{now} (a file names no revision of the vocabulary: a change of it is not "
            "compared; compare with --against REV: to read the old spec with the vocabulary "
            "as it was at REV)",
            now,
        )
    repository, commit, revision = at
    rel = repository.relative(vocabulary)
    then = f"{shown} at {revision} (commit {commit[:12]})"
    try:
        data = None if rel is None else repository.blob(commit, rel, VOCABULARY_LIMIT)
        with open(vocabulary, "rb") as f:
            current = f.read(VOCABULARY_LIMIT + 1)
        templates = {} if data is None else _templates_at(repository, commit, rel or "")
    except (git.GitError, OSError) as err:
        raise OldSpecError(f"{then}: cannot be read ({err})") from None
    if data is None:  # the project had no such file then: its words were not the spec's
        return replace(options, vocabulary=""), (
            f"the core's words and its own Terms ({shown} is not at {revision})",
            now,
        )
    now_templates = _templates_now(os.path.dirname(vocabulary))
    changed = sorted(
        k for k in {*templates, *now_templates} if templates.get(k) != now_templates.get(k)
    )
    if data == current and not changed:
        return options, (f"{then}, as it is now", now)
    from ..read.lexicon import remember
    from ..read.vocabulary_file import lexicon_at

    # Read from its bytes, never written anywhere: the name is no file's, so nothing
    # reads the file of that name for it.
    name = f"{vocabulary}@{commit}"
    remember(name, lexicon_at(name, data, templates, f"{rel} at {revision}"))
    since = [
        *(["changed since"] if data != current else []),
        *([f"templates/ changed since: {', '.join(changed)}"] if changed else []),
    ]
    return replace(options, vocabulary=name), (then, f"{now} ({'; '.join(since)})")


VOCABULARY_LIMIT = 1_000_000  # bytes of a vocabulary file or template read, as the reader


def _templates_at(repository: git.Repository, commit: str, rel: str) -> dict[str, bytes]:
    """The files of the `templates/` folder beside the vocabulary file `rel` at `commit`."""
    folder = posixpath.join(posixpath.dirname(rel), "templates")
    listed = repository.run("ls-tree", "-z", "--full-tree", commit, "--", folder + "/")
    found: dict[str, bytes] = {}
    for entry in listed.split(b"\0"):
        info, _, path = entry.decode("utf-8", "surrogateescape").partition("\t")
        name = posixpath.basename(path)
        if info.split()[1:2] == ["blob"] and not name.startswith("."):
            data = repository.blob(commit, path, VOCABULARY_LIMIT)
            if data is not None:
                found[name] = data
    return found


def _templates_now(folder: str) -> dict[str, bytes]:
    """The files of the `templates/` folder in `folder`, as they are now."""
    where = os.path.join(folder, "templates")
    if not os.path.isdir(where):
        return {}
    found: dict[str, bytes] = {}
    for name in os.listdir(where):
        path = os.path.join(where, name)
        if not name.startswith(".") and os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as f:
                found[name] = f.read(VOCABULARY_LIMIT + 1)
    return found


def _revision(where: str, spec: str | None) -> tuple[str, bytes | None, At]:
    """(its name, the bytes) of the file at the revision `where` names (`REV:PATH`), or
    (where, None) for a file: one written as a path (`./`, `../`, absolute), or with no
    colon. A `REV:` whose REV names no commit is an error, never a file of that name.

    git is run only against the repository the command runs in, found from the current
    folder and named explicitly (`spellbook.disk.git`): never one git would find from the
    spec's folder, whose files a pull request writes."""
    revision, colon, path = where.partition(":")
    if not colon or not revision or _written_as_path(where):
        return where, None, None
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
    return shown, data, (repository, commit, revision)


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
    try:
        root = find_project(os.path.dirname(os.path.abspath(spec)))
    except ProjectError:
        return None  # the spec's own reading says why
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
