"""Git settings that make git run a program, planted where a repository's content can put
them: a folder made to look like a repository (`HEAD`, `config`, `objects/`, `refs/`
committed as plain files), and a real repository's own configuration. Each program
leaves a mark file named for its setting, so a test can say which ran."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
GIT += ["-c", "init.defaultBranch=main"]
MISSING = "1111111111111111111111111111111111111111"  # an object no repository holds
HOOKS = (
    "pre-auto-gc",
    "post-checkout",
    "post-index-change",
    "reference-transaction",
    "fsmonitor-watchman",
)


def _mark(marks: Path, name: str) -> str:
    """A shell command that leaves the mark `name` and fails."""
    return f"touch {shlex.quote(str(marks / name))}; false"


def command_settings(marks: Path) -> dict[str, str]:
    """Every setting that names a program for git to run, each leaving its own mark."""
    return {
        "core.fsmonitor": _mark(marks, "fsmonitor"),
        "core.hooksPath": str(marks / "hooks"),
        "core.sshCommand": _mark(marks, "sshCommand"),
        "core.gitProxy": _mark(marks, "gitProxy"),
        "core.askPass": _mark(marks, "askPass"),
        "core.pager": _mark(marks, "pager"),
        "core.editor": _mark(marks, "editor"),
        "core.alternateRefsCommand": _mark(marks, "alternateRefsCommand"),
        "remote.origin.uploadpack": _mark(marks, "uploadpack"),
        "remote.origin.receivepack": _mark(marks, "receivepack"),
        "credential.helper": f"!{_mark(marks, 'credential')}",
        "diff.external": _mark(marks, "external-diff"),
        "diff.trap.textconv": _mark(marks, "textconv"),
        "diff.trap.command": _mark(marks, "diff-command"),
        "filter.trap.clean": _mark(marks, "filter-clean"),
        "filter.trap.smudge": _mark(marks, "filter-smudge"),
        "filter.trap.process": _mark(marks, "filter-process"),
        "uploadpack.packObjectsHook": _mark(marks, "packObjectsHook"),
        "gc.auto": "1",
    }


def _hooks(marks: Path) -> None:
    hooks = marks / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    for name in HOOKS:
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\n{_mark(marks, 'hook-' + name)}\n", encoding="utf-8")
        hook.chmod(0o755)


def _config_text(settings: dict[str, str]) -> str:
    lines: dict[str, list[str]] = {}
    for key, value in settings.items():
        section, _, name = key.rpartition(".")
        head, _, sub = section.partition(".")
        title = f'[{head} "{sub}"]' if sub else f"[{head}]"
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        lines.setdefault(title, []).append(f'\t{name} = "{escaped}"')
    return "".join(f"{title}\n" + "\n".join(body) + "\n" for title, body in lines.items())


def plant_lookalike(folder: Path, marks: Path) -> None:
    """Make `folder` look like a repository to git (a partial clone whose `origin/main`
    is missing, so reading it fetches), with every command setting in its `config`, and
    attributes that send its markdown through the filter and diff drivers."""
    _hooks(marks)
    (folder / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (folder / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    (folder / "refs" / "remotes" / "origin").mkdir(parents=True, exist_ok=True)
    (folder / "refs" / "remotes" / "origin" / "main").write_text(MISSING + "\n")
    (folder / "refs" / "heads" / "main").write_text(MISSING + "\n")
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    core = "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tworktree = .\n"
    extensions = "[extensions]\n\tpartialClone = origin\n"
    remote = f'[remote "origin"]\n\turl = {marks / "nowhere"}\n\tpromisor = true\n'
    (folder / "config").write_text(
        core + extensions + remote + _config_text(command_settings(marks))
    )
    (folder / ".gitattributes").write_text("* diff=trap filter=trap\n")


def plant_in_config(repository: Path, marks: Path) -> None:
    """Every command setting in a real repository's own `.git/config`, and attributes
    naming the drivers."""
    _hooks(marks)
    with (repository / ".git" / "config").open("a", encoding="utf-8") as f:
        f.write(_config_text(command_settings(marks)))
    info = repository / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("* diff=trap filter=trap\n")


def ran(marks: Path) -> list[str]:
    """The programs that ran (their marks), if any."""
    return sorted(p.name for p in marks.iterdir() if p.is_file()) if marks.exists() else []


def commit_all(repository: Path, message: str = "commit") -> str:
    """Commit every file of `repository`; its commit id."""
    subprocess.run([*GIT, "-C", str(repository), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(repository), "commit", "-qm", message], check=True)
    return head(repository)


def head(repository: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(repository), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def init(repository: Path) -> None:
    repository.mkdir(parents=True, exist_ok=True)
    subprocess.run([*GIT, "init", "-q", str(repository)], check=True)


def environment() -> dict[str, str]:
    """The environment with no git setting of the caller's (a test's own repository only)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
