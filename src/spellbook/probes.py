"""The generic core: every kind of fact a guard can ask about a workspace, implemented once.

A fact is an atom: a probe applied to a file (named relative to the workspace
folder) and a parameter. The compiler reads what each probe means and what it
implies from here (`PROBES`, `implied`); the runtime answers them
(`Facts.check`). A workflow's own words for facts are defined in its
vocabulary module (`spellbook.vocabularies`), and a spec's in its
Terms table, always in terms of these probes:

| probe          | file        | parameter          | holds when                               |
|----------------|-------------|--------------------|------------------------------------------|
| `exists`       | a file      |                    | the file is in the workspace folder      |
| `matches`      | a file      | a regular expr.    | some line of the file matches it         |
| `items`        | a file      | a section heading  | the section's checklist has an item      |
| `unchecked`    | a file      | a section heading  | ... has an unchecked item                |
| `field`        | a JSON file | a query            | the query selects a value                |
| `below`        |             | `counter<limit`    | a state-file counter is below the limit  |
| `over_minutes` |             | minutes            | the state was entered longer ago         |
| `passes`       | a JSON file | a key              | the command under the key exits with 0   |
| `unknown`      |             | a phrase           | never answered: the spec does not say    |

Checklists: a section is a heading whose words contain the parameter, up to the
next heading of the same or a higher level; its items are `- [ ]` / `- [x]`
lines (`*`, `+` and `1.` bullets too) outside code fences. An item with no text,
or with the text of an item of the file's own template, is not counted: a fresh
file made from its template has no items yet.

Queries (`field`): keys joined by dots, each optionally followed by filters on
list items, `[key=value]` or `[key!=value]`; `$name` in a value is the state
file's field `name`. `items[status=open][id!=$current]` selects the open
items other than the state file's current one.

Commands (`passes`): the environment variable `SPELLBOOK_<KEY>` if it is set,
else the text under the key in the JSON file; run by a cast in the repository
root, at most once per cast, outside the workspace's lock (`run`). Guards never
run one: previews ("what would each spell do now") say it depends, and a judge
of a move made by hand uses the run the state file records, if the repository's
files are as they were then.

Files are read once per cast, at most 1 MB, with bad bytes replaced; a file
that is larger, not a regular file, or (for `field`) not JSON stops the cast
with an error naming it: it is never taken for an empty one.
"""

from __future__ import annotations

import json
import os
import re
import time

from spellbook.errors import ActionError, Undefined
from spellbook.state_file import Record, parse_json
from spellbook.store import READ_LIMIT, Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

COMMAND_TIMEOUT = 3600
COMMAND_ENV = "SPELLBOOK_"


class Probe:
    """A kind of fact: its words when it holds and when not, its meaning, and the probes
    it implies for the same file (`exists` for every probe that reads a file)."""

    __slots__ = ("name", "yes", "no", "meaning", "implies")

    def __init__(
        self, name: str, yes: str, no: str, meaning: str, implies: tuple[str, ...] = ()
    ) -> None:
        self.name = name
        self.yes = yes
        self.no = no
        self.meaning = meaning
        self.implies = implies


PROBES: dict[str, Probe] = {
    p.name: p
    for p in (
        Probe(
            "exists", "{file} exists", "{file} missing", "The file exists in the workspace folder."
        ),
        Probe(
            "matches",
            "{file} matches `{param}`",
            "{file} does not match `{param}`",
            "Some line of the file matches the regular expression.",
            ("exists",),
        ),
        Probe(
            "items",
            "{file} has checklist items under {param}",
            "{file} has no checklist items under {param}",
            "The file's section with this heading has a checklist item (`- [ ]` or `- [x]`) "
            "that is not empty and not its template's own.",
            ("exists",),
        ),
        Probe(
            "unchecked",
            "{file} has unchecked items under {param}",
            "{file} has no unchecked items under {param}",
            "The file's section with this heading has an unchecked item (`- [ ]`) that is "
            "not empty and not its template's own.",
            ("items",),
        ),
        Probe(
            "edited",
            "{file} is filled in",
            "{file} is still its template",
            "The file exists and is not its template left as it was (the vocabulary's "
            "template for it, whitespace aside); a file without a template is filled in "
            "once it exists.",
            ("exists",),
        ),
        Probe(
            "field",
            "{file} has `{param}`",
            "{file} has no `{param}`",
            "The query selects a value in the JSON file.",
            ("exists",),
        ),
        Probe(
            "below",
            "{counter} < {limit}",
            "{counter} ≥ {limit}",
            "A counter of the state file is below the limit.",
        ),
        Probe(
            "over_minutes",
            "in this state for more than {param} minutes",
            "in this state for {param} minutes or less",
            "The current state was entered (`entered_at` in the state file) more than so many "
            "minutes ago.",
        ),
        Probe(
            "passes",
            "the command `{param}` of {file} passes",
            "the command `{param}` of {file} fails",
            "The command exits with status 0: the environment variable SPELLBOOK_<KEY> if set, "
            "else the text under the key in the JSON file. It is run, not judged.",
        ),
        Probe(
            "unknown",
            "'{param}' holds",
            "'{param}' does not hold",
            "A phrase the spec does not define; no guard can check it.",
        ),
    )
}


def implied(probe: str, file: str, param: str) -> list[tuple[str, str, str]]:
    """Every fact that must hold when this one does (transitively), excluding itself.

    A query with more filters implies the same query with fewer:
    `items[status=open][id!=$x]` implies `items[status=open]`.
    """
    out: list[tuple[str, str, str]] = []
    stack = [(probe, file, param)]
    while stack:
        name, arg, detail = stack.pop()
        found = [
            (p, arg, detail if p in ("items", "unchecked") else "") for p in PROBES[name].implies
        ]
        if name == "field" and detail.endswith("]") and "[" in detail:
            found.append(("field", arg, detail[: detail.rindex("[")]))
        for fact in found:
            if fact not in out:
                out.append(fact)
                stack.append(fact)
    return out


def implies(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """Whether fact `b` must hold when fact `a` does, for two limits of one measure:
    `attempts < 3` implies `attempts < 5`; more than 30 minutes implies more than 10."""
    if a[0] != b[0] or a == b:
        return False
    if a[0] == "below":
        counter, _, limit = a[2].partition("<")
        other, _, other_limit = b[2].partition("<")
        return (
            counter == other
            and limit.isdigit()
            and other_limit.isdigit()
            and (int(limit) <= int(other_limit))
        )
    if a[0] == "over_minutes":
        return a[2].isdigit() and b[2].isdigit() and int(a[2]) >= int(b[2])
    return False


def describe(probe: str, file: str, param: str, positive: bool) -> str:
    """The fact in the core's plain words, e.g. `plan.md exists` or `task.md missing`."""
    words = PROBES[probe].yes if positive else PROBES[probe].no
    counter, _, limit = param.partition("<")
    return words.format(file=file, param=param, counter=counter, limit=limit)


# -- the runtime half ----------------------------------------------------------------


class NeedsRun(Exception):
    """A guard that would have to run a command, asked where commands are not run."""

    def __init__(self, fact: tuple[str, str, str]) -> None:
        super().__init__(fact)
        self.fact = fact


class Run:
    """What running a command gave: its exit status (negative: killed by that signal; -1
    also when it timed out), the tail of its output, how long it took, and a fingerprint
    of the repository's files just after it ran."""

    def __init__(
        self,
        key: str,
        command: str,
        status: int,
        output: str,
        seconds: float = 0.0,
        fingerprint: str = "",
    ) -> None:
        self.key = key
        self.command = command
        self.status = status
        self.output = output
        self.seconds = seconds
        self.fingerprint = fingerprint

    def recorded(self) -> dict[str, object]:
        """How the state file keeps it (`runs.<key>`), for a later judge of the state."""
        return {
            "command": self.command,
            "status": self.status,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "seconds": round(self.seconds, 1),
            "fingerprint": self.fingerprint,
        }


class Facts:
    """Answers the guards for one cast; each file is read at most once.

    `record` is the state file as read (for counters, the entry time and `$fields`
    of queries). A guard on a command's outcome is answered from `runs` (the commands
    the cast ran, outside the workspace's lock, before asking); with `recorded`, also
    from the state file's record of the last run (`runs.<key>`) if the command and the
    repository's files are what they were then. Otherwise it raises NeedsRun: guards
    never run anything themselves. `template` gives the text of a file's template,
    for checklist items that are only the template's own.
    """

    def __init__(
        self,
        workspace: Workspace,
        record: Record | None = None,
        runs: dict[tuple[str, str], Run] | None = None,
        template: Callable[[str], str] | None = None,
        recorded: bool = False,
    ) -> None:
        self.workspace = workspace
        self.record = record if record is not None else Record("")
        self.template = template
        self.recorded = recorded
        self._text: dict[str, str] = {}
        self._exists: dict[str, bool] = {}
        self._json: dict[str, object] = {}
        self._items: dict[tuple[str, str], list[bool]] = {}
        self._commands: dict[tuple[str, str], Run] = dict(runs or {})
        self._trusted: dict[tuple[str, str], int | None] = {}  # recorded runs, judged

    def exists(self, name: str) -> bool:
        found = self._exists.get(name)
        if found is None:
            found = self._exists[name] = self.workspace.exists(name)
        return found

    def text(self, name: str) -> str:
        """The file's text ("" if it does not exist). A file that cannot be read (too
        large, a folder or FIFO, a symbolic link, no permission) is an error for the
        cast that asks, never read as empty."""
        found = self._text.get(name)
        if found is None:
            found = self._text[name] = self.workspace.read_text(name, READ_LIMIT) or ""
        return found

    def json(self, name: str) -> object:
        """The file's JSON value (None if it does not exist or is empty); a file that is
        not JSON is an error naming its line."""
        if name not in self._json:
            text = self.text(name)
            self._json[name] = (
                parse_json(text, self.workspace.shown(name))
                if text.strip(" \t\r\n\ufeff")
                else None
            )
        return self._json[name]

    def check(self, probe: str, file: str, param: str) -> bool:
        return CHECKS[probe](self, file, param)


def _exists(facts: Facts, file: str, _: str) -> bool:
    return facts.exists(file)


def _edited(facts: Facts, file: str, _: str) -> bool:
    if not facts.exists(file):
        return False
    template = facts.template(file) if facts.template is not None else ""
    text = facts.text(file).lstrip("\ufeff")  # a byte order mark is no edit
    return not template.strip() or text.split() != template.lstrip("\ufeff").split()


def _matches(facts: Facts, file: str, pattern: str) -> bool:
    # A missing file matches nothing, not even a pattern that an empty text would.
    return facts.exists(file) and re.search(pattern, facts.text(file), re.MULTILINE) is not None


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, read without a regular expression."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    return level, rest.strip().rstrip("#").strip()


_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\](.*)")


def checklist(text: str, section: str) -> list[tuple[bool, str]]:
    """The checklist items of the section whose heading has `section`'s words:
    (checked, text) each."""
    wanted = section.lower()
    items: list[tuple[bool, str]] = []
    level = 0
    fenced = False
    for line in text.splitlines():
        start = line.lstrip()[:3]
        if start in ("```", "~~~") and len(line) - len(line.lstrip()) <= 3:
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _heading(line)
        if heading is not None:
            depth, title = heading
            if level and depth <= level:
                level = 0
            if not level and wanted in title.lower():
                level = depth
            continue
        if level:
            box = _ITEM.match(line)
            if box:
                items.append((box.group(1) != " ", " ".join(box.group(2).split())))
    return items


def real_items(facts: Facts, file: str, section: str) -> list[bool]:
    """The section's real items, checked or not: none empty, none the template's own."""
    found = facts._items.get((file, section))
    if found is None:
        own = _own(facts.template(file), section) if facts.template is not None else frozenset()
        found = facts._items[(file, section)] = [
            done for done, text in checklist(facts.text(file), section) if text and text not in own
        ]
    return found


_OWN: dict[tuple[str, str], frozenset[str]] = {}


def _own(template: str, section: str) -> frozenset[str]:
    """The item texts of a template's section (templates do not change while we run)."""
    found = _OWN.get((template, section))
    if found is None:
        found = _OWN[(template, section)] = frozenset(t for _, t in checklist(template, section))
    return found


def _items(facts: Facts, file: str, section: str) -> bool:
    return bool(real_items(facts, file, section))


def _unchecked(facts: Facts, file: str, section: str) -> bool:
    return not all(real_items(facts, file, section))


def _field(facts: Facts, file: str, query: str) -> bool:
    return any(_has_value(v) for v in select(facts.json(file), query, facts))


def _has_value(value: object) -> bool:
    """null, false and empty text, lists and objects are no value; 0 is one."""
    return not (value is None or value is False or value in ("", [], {}))


def _as_json(value: object) -> str:
    """A JSON value as a query writes it: `true`, `null`, `3`, `done`."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return str(value)


_STEP = re.compile(r"([^.\[\]]+)|\[([^\]=!]+)(!?=)([^\]]*)\]")


def select(value: object, query: str, facts: Facts) -> list[object]:
    """The values `query` selects in `value` (see the module's docstring)."""
    found: list[object] = [value]
    for m in _STEP.finditer(query):
        key, field, op, wanted = m.groups()
        if key is not None:
            nxt: list[object] = []
            for item in found:
                for each in item if isinstance(item, list) else [item]:
                    if isinstance(each, dict) and key.strip() in each:
                        nxt.append(each[key.strip()])
            found = nxt
        else:
            target = wanted.strip()
            if target.startswith("$"):
                target = _as_json(facts.record.extra.get(target[1:]))
            nxt = []
            for item in found:
                for each in item if isinstance(item, list) else [item]:
                    if isinstance(each, dict) and field.strip() in each:
                        same = _as_json(each[field.strip()]) == target
                        if same == (op == "="):
                            nxt.append(each)
            found = nxt
    return found


def command(facts: Facts, file: str, key: str) -> str:
    """The command under `key`: SPELLBOOK_<KEY> if set, else the JSON file's `key`."""
    env = COMMAND_ENV + key.upper()
    found = os.environ.get(env)
    if not found:
        value = facts.json(file)
        found = value.get(key) if isinstance(value, dict) else None
    if not isinstance(found, str) or not found.strip():
        raise ActionError(f"no {key}: set {key} in {facts.workspace.shown(file)} or {env}")
    return found


def _passes(facts: Facts, file: str, key: str) -> bool:
    done = facts._commands.get((file, key))
    if done is not None:
        return done.status == 0
    if facts.recorded:
        if (file, key) not in facts._trusted:  # the fingerprint is taken once per cast
            facts._trusted[(file, key)] = _recorded_status(facts, file, key)
        status = facts._trusted[(file, key)]
        if status is not None:
            return status == 0
    raise NeedsRun(("passes", file, key))


def _recorded_status(facts: Facts, file: str, key: str) -> int | None:
    """The exit status of the last run the state file records for `key`, if the command
    and the repository's files are what they were then; else None."""
    last = facts.record.extra.get("runs", {})
    last = last.get(key) if isinstance(last, dict) else None
    if (
        isinstance(last, dict)
        and isinstance(last.get("status"), int)
        and last.get("command") == _command_or_none(facts, file, key)
        and last.get("fingerprint")
        and last.get("fingerprint") == fingerprint(facts.workspace)
    ):
        return int(last["status"])
    return None


def _command_or_none(facts: Facts, file: str, key: str) -> str | None:
    try:
        return command(facts, file, key)
    except ActionError:
        return None


# -- running a command (a cast does this outside the workspace's lock) -------------

OUTPUT_LINES = 20
OUTPUT_BYTES = 65_536
GRACE = 1.0  # seconds a command's leftover processes may keep its output open
FINGERPRINT_FILES = 200_000


def run(key: str, text: str, root: str, skip: str, timeout: float | None = None) -> Run:
    """Run `text` through the shell in `root`, in a process group of its own.

    Its output (stdout and stderr) is kept to its last OUTPUT_LINES lines and at most
    OUTPUT_BYTES; when the timeout passes, or GRACE seconds after the shell exits
    while something it started still holds the output open, the whole group is
    killed, so nothing it started outlives it. The fingerprint of the repository's
    files (`skip`, the workspace folder, left out) is taken when it has finished.
    """
    import contextlib
    import select
    import signal
    import subprocess

    timeout = COMMAND_TIMEOUT if timeout is None else timeout
    started = time.monotonic()
    deadline = started + timeout
    if "\0" in text:
        raise ActionError(f"the {key.replace('_', ' ')} holds a NUL character; it cannot run")
    proc = subprocess.Popen(
        text,
        shell=True,
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    tail = bytearray()
    ended: float | None = None
    timed_out = closed = False
    try:
        while True:
            now = time.monotonic()
            if ended is None and proc.poll() is not None:
                ended = now
            if ended is not None and (closed or now - ended > GRACE):
                break  # the shell is done; what it left running may hold the output
            if now > deadline:
                timed_out = True
                break
            if closed:  # nothing holds the output: wait for the shell alone
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=max(0.0, min(1.0, deadline - now)))
                continue
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                chunk = os.read(fd, 65_536)
                if not chunk:
                    closed = True  # everything that held the output has closed it
                    continue
                tail += chunk
                if len(tail) > 2 * OUTPUT_BYTES:
                    del tail[:-OUTPUT_BYTES]
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the shell's group: whatever is left
        proc.wait()
        proc.stdout.close()
    said = bytes(tail[-OUTPUT_BYTES:]).decode("utf-8", "replace")
    # No terminal control (escape sequences) reaches the developer's terminal.
    said = "".join(c if c.isprintable() or c in "\n\t" else "\ufffd" for c in said)
    lines = said.splitlines()[-OUTPUT_LINES:]
    output = "\n".join(lines)
    status = proc.returncode
    if timed_out:
        status = -1
        output += f"\n(timed out after {timeout:g} s; its processes were stopped)"
    seconds = time.monotonic() - started
    return Run(key, text, status, output, seconds, fingerprint(root, skip))


def fingerprint(workspace: Workspace | str, skip: str = "") -> str:
    """A digest of the repository's files (name, size, modification time), the workspace
    folder left out: git's tracked and untracked-but-not-ignored files where the root
    is a git repository, else every file outside hidden folders and `__pycache__`.
    Empty (matching nothing) where there are more than FINGERPRINT_FILES files."""
    import hashlib
    import subprocess

    if isinstance(workspace, Workspace):
        root, skip = workspace.root, workspace.folder
    else:
        root = workspace
    prefix = skip.strip("/") + "/" if skip else "\0"
    names: list[str] = []
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            timeout=60,
        )
        if listed.returncode != 0:
            raise OSError(listed.returncode)
        names = [n for n in os.fsdecode(listed.stdout).split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = [d for d in subfolders if not d.startswith(".") and d != "__pycache__"]
            rel = os.path.relpath(folder, root)
            names += [f if rel == "." else f"{rel}/{f}".replace(os.sep, "/") for f in files]
            if len(names) > FINGERPRINT_FILES:
                return ""
    if len(names) > FINGERPRINT_FILES:
        return ""
    digest = hashlib.sha256()
    for name in sorted(names):
        if name.startswith(prefix):
            continue
        try:
            info = os.lstat(os.path.join(root, name))
            said = f"{info.st_size}:{info.st_mtime_ns}"
        except OSError:
            said = "-"
        digest.update(f"{name}\0{said}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:32]


def _below(facts: Facts, _: str, param: str) -> bool:
    counter, _, limit = param.partition("<")
    value = facts.record.extra.get(counter, 0)
    return isinstance(value, int) and value < int(limit)


def _over_minutes(facts: Facts, _: str, minutes: str) -> bool:
    entered = facts.record.extra.get("entered_at")
    if not isinstance(entered, str):
        return False
    import calendar  # imports datetime and locale: only for this probe

    try:
        since = calendar.timegm(time.strptime(entered[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return False
    return time.time() - since > int(minutes) * 60


def _unknown(facts: Facts, _: str, phrase: str) -> bool:
    raise Undefined(
        f"the spec's condition {phrase!r} is not defined, so no guard can check it; "
        "define it in the spec's Terms table"
    )


CHECKS: dict[str, Callable[[Facts, str, str], bool]] = {
    "exists": _exists,
    "matches": _matches,
    "edited": _edited,
    "items": _items,
    "unchecked": _unchecked,
    "field": _field,
    "below": _below,
    "over_minutes": _over_minutes,
    "passes": _passes,
    "unknown": _unknown,
}

# The probes that read a file's content. What one says of a missing file ("plan.md has
# no unchecked criteria") holds for want of the file: no evidence of a state.
READS_CONTENT = frozenset({"matches", "edited", "items", "unchecked", "field"})
