"""The probes: each kind of fact a guard can ask about the workspace, implemented once.

They are the runtime half of the glossary (`codegen/glossary.py`, which lists
the phrases for each probe):

- `exists(file)`: the file is in the workspace folder (a symbolic link counts,
  though the runtime will not follow it).
- `has_ac(file)`: the file's `Acceptance Criteria` section (a heading with those
  words, up to the next heading of the same or a higher level) has at least one
  checklist item, `- [ ]` or `- [x]` (`*`, `+` and `1.` bullets too).
- `has_unchecked_ac(file)`: that section has at least one `- [ ]` item.
- `has_atlassian_urls(file)`: the file links to Jira or Confluence: a URL on an
  `atlassian.net` host, or a `/browse/KEY-123` or `/wiki/` link.
- `has_pending(file)`: the feature list (`{"features": [{"id", "status"}]}`) has a
  feature whose status is `pending`; `has_next(file)`: one other than the current
  feature (`feature_id` in the state file).
- `tests_pass`: the project's test command exits 0. It is `SPELLBOOK_TEST_COMMAND`,
  or `test_command` in the workspace's `feature-list.json`; it runs in the repository
  root. Previews ("what would each spell do") never run it.
- `below(counter<limit)`: a counter of the state file (`attempts`) is below the limit.
- `over_minutes(n)`: the state was entered (`entered_at`) more than n minutes ago.

Files are read once per cast, at most 1 MB, with bad bytes replaced.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable

from spellbook.errors import ActionError, UnsafePath
from spellbook.formats import Record
from spellbook.store import Workspace

READ_LIMIT = 1_000_000
FEATURE_LIST = "feature-list.json"
TEST_COMMAND_ENV = "SPELLBOOK_TEST_COMMAND"
TEST_TIMEOUT = 3600

# Patterns as strings: `re` compiles each on first use (and caches it), so casts that
# never read a plan do not pay for compiling them.
_HEADING = r"^(#{1,6})\s+(.*?)\s*#*\s*$"
_FENCE = r"^\s{0,3}(```|~~~)"
_CHECKBOX = r"^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]"
_ATLASSIAN = (
    r"https?://[^\s)>\]]*(?:atlassian\.net[^\s)>\]]*|/browse/[A-Z][A-Z0-9]+-\d+|/wiki/[^\s)>\]]*)"
)


def checklist(text: str) -> list[bool]:
    """The items of the Acceptance Criteria section: True for checked, False for unchecked."""
    items: list[bool] = []
    level = 0
    fenced = False
    for line in text.splitlines():
        if re.match(_FENCE, line):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = re.match(_HEADING, line)
        if heading:
            depth = len(heading.group(1))
            if level and depth <= level:
                level = 0
            if not level and "acceptance criteria" in heading.group(2).lower():
                level = depth
            continue
        if level:
            box = re.match(_CHECKBOX, line)
            if box:
                items.append(box.group(1) != " ")
    return items


class NeedsRun(Exception):
    """A guard that would have to run a command, asked where commands are not run."""


class TestRun:
    """What running the test command gave."""

    def __init__(self, command: str, status: int, output: str) -> None:
        self.command = command
        self.status = status
        self.output = output


class Facts:
    """Answers the guards for one cast; each file is read, and each command run, at most once.

    `record` is the state file as read (for the current feature, counters, entry
    time); with `run` False, guards that must run a command raise NeedsRun.
    """

    def __init__(
        self, workspace: Workspace, record: Record | None = None, run: bool = True
    ) -> None:
        self.workspace = workspace
        self.record = record if record is not None else Record("")
        self.run = run
        self.tests: TestRun | None = None
        self._text: dict[str, str] = {}
        self._exists: dict[str, bool] = {}

    def exists(self, name: str) -> bool:
        found = self._exists.get(name)
        if found is None:
            found = self._exists[name] = self.workspace.exists(name)
        return found

    def text(self, name: str) -> str:
        if name not in self._text:
            try:
                found = self.workspace.read_text(name, READ_LIMIT)
            except UnsafePath:
                found = None  # a link or an oversized file says nothing about the workflow
            self._text[name] = found or ""
        return self._text[name]

    def check(self, probe: str, arg: str) -> bool:
        return PROBES[probe](self, arg)


def _exists(facts: Facts, name: str) -> bool:
    return facts.exists(name)


def _has_ac(facts: Facts, name: str) -> bool:
    return bool(checklist(facts.text(name)))


def _has_unchecked_ac(facts: Facts, name: str) -> bool:
    return not all(checklist(facts.text(name)))


def _has_atlassian_urls(facts: Facts, name: str) -> bool:
    return bool(re.search(_ATLASSIAN, facts.text(name)))


def features(text: str) -> list[dict[str, object]]:
    """The features of a feature list's text ([] if it is not one)."""
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError:
        return []
    found = value.get("features") if isinstance(value, dict) else None
    return [f for f in found if isinstance(f, dict)] if isinstance(found, list) else []


def _pending(facts: Facts, name: str) -> list[object]:
    return [f.get("id") for f in features(facts.text(name)) if f.get("status") == "pending"]


def _has_pending(facts: Facts, name: str) -> bool:
    return bool(_pending(facts, name))


def _has_next(facts: Facts, name: str) -> bool:
    current = facts.record.extra.get("feature_id")
    return any(i != current for i in _pending(facts, name))


def test_command(facts: Facts) -> str:
    command = os.environ.get(TEST_COMMAND_ENV)
    if not command:
        try:
            value = json.loads(facts.text(FEATURE_LIST) or "{}")
        except ValueError:
            value = {}
        command = value.get("test_command") if isinstance(value, dict) else None
    if not isinstance(command, str) or not command.strip():
        raise ActionError(
            f"no test command: set test_command in {facts.workspace.shown(FEATURE_LIST)} "
            f"or {TEST_COMMAND_ENV}"
        )
    return command


def _tests_pass(facts: Facts, _: str) -> bool:
    if facts.tests is None:
        if not facts.run:
            raise NeedsRun("tests pass")
        import subprocess  # only casts that run the tests pay for it

        command = test_command(facts)
        try:
            done = subprocess.run(
                command,
                shell=True,
                cwd=facts.workspace.root,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=TEST_TIMEOUT,
            )
            facts.tests = TestRun(command, done.returncode, done.stdout + done.stderr)
        except subprocess.TimeoutExpired:
            facts.tests = TestRun(command, -1, f"timed out after {TEST_TIMEOUT} s")
    return facts.tests.status == 0


def _below(facts: Facts, arg: str) -> bool:
    counter, _, limit = arg.partition("<")
    value = facts.record.extra.get(counter, 0)
    return isinstance(value, int) and value < int(limit)


def _over_minutes(facts: Facts, arg: str) -> bool:
    entered = facts.record.extra.get("entered_at")
    if not isinstance(entered, str):
        return False
    import calendar  # imports datetime and locale: only for this probe

    try:
        since = calendar.timegm(time.strptime(entered[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return False
    return time.time() - since > int(arg) * 60


PROBES: dict[str, Callable[[Facts, str], bool]] = {
    "exists": _exists,
    "has_ac": _has_ac,
    "has_unchecked_ac": _has_unchecked_ac,
    "has_atlassian_urls": _has_atlassian_urls,
    "has_pending": _has_pending,
    "has_next": _has_next,
    "tests_pass": _tests_pass,
    "below": _below,
    "over_minutes": _over_minutes,
}
