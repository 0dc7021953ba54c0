"""`Facts`: the answers to a machine's guards for one cast, each file read once.

Files are read at most once per cast, at most `READ_LIMIT` bytes, with bad bytes
replaced; a file that is larger, not a regular file, or (for a query) not JSON
stops the cast with an error naming it: it is never taken for an empty one. The
same holds of a file's modification time, and a glob that would look at more than
`walk.GLOB_LIMIT` names stops the cast too (`Workspace.glob`).
"""

from __future__ import annotations

from spellbook.disk.state_file import Record, parse_json
from spellbook.disk.store import READ_LIMIT
from spellbook.facts.probes import PROBES
from spellbook.records.errors import ActionError, BadFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from spellbook.disk.store import Workspace
    from spellbook.facts.commands import Run

# Each probe's check, by name, as `Facts.check` looks it up for every guard.
CHECKS = {name: probe.check for name, probe in PROBES.items()}


class NeedsRun(Exception):
    """A guard that would have to run a command, asked where commands are not run."""

    def __init__(self, fact: tuple[str, str, str]) -> None:
        super().__init__(fact)
        self.fact = fact


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
        own: tuple[str, ...] = (),
    ) -> None:
        self.workspace = workspace
        self.own = own  # the machine's state file: no glob of a condition names it
        self.record = record if record is not None else Record("")
        self.template = template
        self.recorded = recorded
        self._text: dict[str, str] = {}
        self._exists: dict[str, bool] = {}
        self._json: dict[str, object] = {}
        self._items: dict[tuple[str, str], list[bool]] = {}
        self._lines: dict[tuple[str, str], list[str]] = {}
        self._mtimes: dict[str, int | None] = {}
        self._globs: dict[str, list[str]] = {}
        self._commands: dict[tuple[str, str], Run] = dict(runs or {})
        self._trusted: dict[tuple[str, str], int | None] = {}  # recorded runs, judged

    def check(self, probe: str, file: str, param: str) -> bool:
        return CHECKS[probe](self, file, param)

    def exists(self, name: str) -> bool:
        """Whether the file is there. Something else by its name (a folder, a FIFO, a
        link) is an error for the cast that asks, as for reading: never a file there."""
        found = self._exists.get(name)
        if found is None:
            found = self._exists[name] = self.workspace.is_file(name)
        return found

    def there(self, name: str) -> bool:
        """Whether anything is by the name (a file, a folder): a glob's partner."""
        return self.workspace.exists(name)

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
        not JSON is an error naming its line. Any other file's value is its YAML
        frontmatter, a mapping ({} without one; dates as their ISO text); frontmatter
        that cannot be read is an error naming the file."""
        from spellbook.facts.json_values import is_json  # a JSON fact needs values anyway

        if name not in self._json:
            text = self.text(name)
            if not text.strip(" \t\r\n\ufeff"):
                self._json[name] = None
            elif is_json(name):
                self._json[name] = parse_json(text, self.workspace.shown(name))
            else:
                self._json[name] = _frontmatter(text, self.workspace.shown(name))
        return self._json[name]

    def items(self, name: str, section: str) -> list[bool]:
        """The section's real checklist items, checked or not (`sections.real_items`)."""
        found = self._items.get((name, section))
        if found is None:
            template = self.template(name) if self.template is not None else ""
            from spellbook.facts.sections import real_items  # only a spec with checklists needs it

            found = self._items[(name, section)] = real_items(self.text(name), template, section)
        return found

    def lines(self, name: str, section: str) -> list[str]:
        """The section's lines of text, not its template's (`sections.real_lines`)."""
        found = self._lines.get((name, section))
        if found is None:
            template = self.template(name) if self.template is not None else ""
            from spellbook.facts.sections import real_lines

            found = self._lines[(name, section)] = real_lines(self.text(name), template, section)
        return found

    def mtime(self, name: str) -> int | None:
        """When the file was last modified (ns), None if it does not exist; a file that
        cannot be read (a folder, a symbolic link) is an error, as for `text`."""
        if name not in self._mtimes:
            self._mtimes[name] = self.workspace.mtime(name)
        return self._mtimes[name]

    def glob(self, pattern: str) -> list[str]:
        """The paths in the workspace folder the glob names (`Workspace.glob`), but the
        runtime's own (the state file, its backups, `.history/`, ...): `no *.json` is
        asked of the workflow's files, and the state file would make it never hold."""
        found = self._globs.get(pattern)
        if found is None:
            from spellbook.disk.own_files import own_file

            found = [p for p in self.workspace.glob(pattern) if not own_file(p, "glob", self.own)]
            self._globs[pattern] = found
        return found

    def status(self, name: str, key: str) -> int:
        """The exit status of the command under `key` (of the JSON file `name`): of the
        run this cast made, or, `recorded`, of the run the state file records if it
        still holds; else NeedsRun."""
        done = self._commands.get((name, key))
        if done is not None:
            return done.status
        if self.recorded:
            if (name, key) not in self._trusted:  # the digest is taken once per cast
                self._trusted[(name, key)] = self._recorded_status(name, key)
            status = self._trusted[(name, key)]
            if status is not None:
                return status
        raise NeedsRun(("passes", name, key))

    def _recorded_status(self, name: str, key: str) -> int | None:
        """The exit status of the last run the state file records for `key`, if the
        command and the repository's files are what they were then; else None."""
        from spellbook.facts.commands import repository_digest  # only a judge of a move needs it

        last = self.record.extra.get("runs", {})
        last = last.get(key) if isinstance(last, dict) else None
        if (
            isinstance(last, dict)
            and isinstance(last.get("status"), int)
            and last.get("command") == self._command_or_none(name, key)
            and last.get("fingerprint")
            and last.get("fingerprint") == repository_digest(self.workspace)
        ):
            return int(last["status"])
        return None

    def _command_or_none(self, name: str, key: str) -> str | None:
        from spellbook.facts.commands import command

        try:
            return command(self, name, key)
        except ActionError:
            return None


def _frontmatter(text: str, shown: str) -> dict[str, object]:
    """A Markdown file's frontmatter as a fact reads it: values as YAML reads them, a
    date as its ISO text; frontmatter that cannot be read is a BadFile."""
    from spellbook.facts.frontmatter import frontmatter  # only a spec that reads frontmatter

    try:
        found = frontmatter(text, shown)
    except ActionError as err:
        raise BadFile(str(err)) from None
    return {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in found.items()}
