"""Real workspaces for runtime tests: files in .ai/task/ written the way a developer would."""

from __future__ import annotations

import json
import re
from pathlib import Path

TASK = ".ai/task"


def write(root: Path, name: str, text: str) -> Path:
    path = root / TASK / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def remove(root: Path, name: str) -> None:
    (root / TASK / name).unlink()


def plan(checked: int = 0, unchecked: int = 1, atlassian: bool = False) -> str:
    items = [f"- [x] done {i}" for i in range(checked)] + [
        f"- [ ] to do {i}" for i in range(unchecked)
    ]
    link = "\nSee https://acme.atlassian.net/browse/ENG-42\n" if atlassian else ""
    return "# Plan\n" + link + "\n## Acceptance Criteria\n\n" + "\n".join(items) + "\n\n## Notes\n"


def task(name: str = "first-task") -> str:
    return f"---\ntask_name: {name}\n---\n\n# Task\n\nDo the thing.\n"


def set_state(root: Path, state: str, history: list[object] | None = None) -> None:
    (root / TASK).mkdir(parents=True, exist_ok=True)
    data = {"current_state": state, "context": {}, "history": history or []}
    (root / TASK / "state.json").write_text(json.dumps(data), encoding="utf-8")


def executed(root: Path) -> None:
    """ACHIEVE_TASK_EXECUTED, ready for A2 (archive the task, draft the next)."""
    set_state(root, "ACHIEVE_TASK_EXECUTED")
    write(root, "plan.md", plan(unchecked=1))
    write(root, "task.md", task("safe-name"))
    write(root, "task-results.md", "the results\n")


def history_entries(n: int) -> list[dict[str, object]]:
    """`n` history entries as casts write them, each with its own cast id."""
    return [
        {
            "timestamp": "2026-01-01T00:00:00Z",
            "transition": "A → B",
            "trigger": "Lumos",
            "rule": "L1",
            "outcome": "noop",
            "cast": f"{i:012x}",
        }
        for i in range(n)
    ]


def history(root: Path) -> list[dict[str, object]]:
    data = json.loads((root / TASK / "state.json").read_text(encoding="utf-8"))
    entries = data["history"]
    assert isinstance(entries, list)
    return entries


def files(root: Path) -> dict[str, bytes]:
    """Every file under root, by relative path, with its bytes (the lock file aside)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".state.lock"
    }


# A task's results written to hurt whoever reads them in a terminal: a clipboard write
# (OSC 52), a window title, a cleared screen, a C1 control sequence, a right-to-left
# override, DEL and a carriage return that would write over the line.
HOSTILE = (
    "hi \x1b]52;c;cHduZWQ=\x07 \x1b]0;title\x07\x1b[2J\x9b31m \u202eevil\x7f done\r\n"
    "\tnext line\rover\n"
)
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")


def sealed(folder: Path, intent: dict[str, object]) -> str:
    """`intent` as a cast of this user's writes it in the workspace `folder` (with the
    seal of this user's key): the text of an intent record the runtime carries out."""
    from spellbook.cast.commit_point import seal
    from spellbook.disk.user_cache import seal_key

    key = seal_key(str(folder.resolve()), create=True)
    assert key is not None
    return json.dumps({**intent, "seal": seal(key, intent)})
