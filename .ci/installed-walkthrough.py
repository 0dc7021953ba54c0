"""The docs' commands, as written, run by the installed wheel alone, outside the checkout.

Usage: installed-walkthrough.py VENV CHECKOUT

VENV holds the wheel installed with its `codegen` extra (and nothing of the checkout).
In scratch git repositories of their own, with only VENV's `bin` on the PATH before the
system's, this runs:

- README's "Five minutes in your own repository" block, line by line;
- every command block of docs/guide/your-own-workflow.md (install lines aside) in a copy of
  the project that page builds (examples/release), and `spellbook-verify` with no
  arguments there;
- the Claude Code hook command docs/guide/session.md gives, through `sh`, with a hook event
  on stdin;
- `spell diagram --format svg`, where graphviz is installed.

Each command must exit 0 (a command the doc marks as failing on purpose says so in its
comment). Any other outcome prints the command, its output, and exits 1.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TIMEOUT = 300


def blocks(text: str, heading: str | None = None) -> list[list[str]]:
    """The command lines of the ```bash blocks of `text` (under `heading` if given),
    comments and blank lines dropped."""
    if heading is not None:
        start = text.index(heading)
        end = text.find("\n## ", start + len(heading))
        text = text[start : end if end != -1 else len(text)]
    found = []
    for body in re.findall(r"```(?:bash|sh)\n(.*?)```", text, re.S):
        lines = [re.sub(r"\s+#.*$", "", line).rstrip() for line in body.splitlines()]
        found.append([line for line in lines if line and not line.startswith("#")])
    return found


def run(command: str, cwd: Path, env: dict[str, str], stdin: str = "") -> None:
    done = subprocess.run(
        ["sh", "-c", command],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    print(f"$ {command}  (exit {done.returncode})")
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
        raise SystemExit(f"installed walkthrough: `{command}` exited {done.returncode}")


def repository(at: Path) -> Path:
    """`at` (made if missing) as a git repository of its own."""
    at.mkdir(parents=True, exist_ok=True)
    for args in (
        ["init", "-q"],
        ["config", "user.email", "walkthrough@example.com"],
        ["config", "user.name", "Walkthrough"],
    ):
        subprocess.run(["git", *args], cwd=at, check=True)
    return at


def commit(at: Path) -> None:
    subprocess.run(["git", "add", "-A"], cwd=at, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "walkthrough"], cwd=at, check=True)


def main(venv: Path, checkout: Path) -> None:
    scratch = Path(tempfile.mkdtemp())
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "CLAUDE_PROJECT_DIR")
        and not key.startswith("SPELLBOOK_")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    try:
        # README's five minutes, in a repository of its own.
        readme = (checkout / "README.md").read_text(encoding="utf-8")
        five = repository(scratch / "five")
        for block in blocks(readme, "## Five minutes in your own repository"):
            for line in block:
                run(line, five, env)

        # docs/guide/your-own-workflow.md, in the project it builds.
        page = (checkout / "docs" / "guide" / "your-own-workflow.md").read_text(encoding="utf-8")
        own = scratch / "own"
        shutil.copytree(
            checkout / "examples" / "release",
            own,
            ignore=shutil.ignore_patterns("__pycache__", "generated"),
        )
        repository_at = repository(own)
        for block in blocks(page):
            for line in block:
                if line.startswith("pip install"):
                    continue  # the wheel is installed already
                if line.startswith("spell mcp"):
                    run(line, repository_at, env, stdin="")  # a server: ends with its input
                    continue
                run(line, repository_at, env)
            commit(repository_at)
        run("spellbook-verify", repository_at, env)

        # The documented hook command, through sh, on a write of the state file.
        session = (checkout / "docs" / "guide" / "session.md").read_text(encoding="utf-8")
        command = json.loads(
            '"' + re.search(r'"command": "((?:[^"\\]|\\.)*)"', session).group(1) + '"'  # type: ignore[union-attr]
        )
        hooked = repository(scratch / "hooked")
        state = hooked / ".claude" / "progress" / "state.json"
        event = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "cwd": str(hooked),
            "tool_input": {"file_path": str(state), "content": '{"state": "COMPLETE"}'},
        }
        done = subprocess.run(
            ["sh", "-c", command],
            cwd=hooked,
            env=env,
            input=json.dumps(event),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        print(f"$ {command}  (exit {done.returncode}, a skipped step refused)")
        if done.returncode != 2 or "refused" not in done.stderr:
            print(done.stdout, done.stderr, sep="\n", file=sys.stderr)
            raise SystemExit("installed walkthrough: the documented hook did not refuse")

        # A diagram as an image, where graphviz is installed.
        if shutil.which("dot"):
            run("spell diagram --format svg > diagram.svg", five, env)
            if "<svg" not in (five / "diagram.svg").read_text(encoding="utf-8"):
                raise SystemExit("installed walkthrough: spell diagram --format svg drew no svg")
        else:
            print("skipped: spell diagram --format svg (graphviz's dot is not installed)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("installed walkthrough ok")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
