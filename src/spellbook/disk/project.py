"""A project's `[tool.spellbook]` in its pyproject.toml: its machines, and where they live.

    [tool.spellbook]
    generated = "generated"          # where spellbook-codegen writes the machines
    documents = ["README.md"]        # markdown whose <!-- spellbook: ... --> parts it refreshes
    default = "release"              # the machine `spell` drives without --machine
    templates = "templates"          # files `Create F from T` copies (relative to the root)
    vocabulary = "spell_workflow"    # for specs not listed below (or "words/ours.md")
    columns = { condition = ["Guard"] }
    unlisted = "rejected"            # a (state, spell) no row names is blocked, not an error
    own_code = false                 # true: phrases the core does not read are the project's code

    [tool.spellbook.machines]
    release = "spec/RELEASE.md"
    review = { spec = "spec/REVIEW.md", vocabulary = "", templates = "spec/review" }
    # report: where spellbook-codegen writes the machine's verification report
    audit = { spec = "spec/AUDIT.md", report = "docs/verification.md" }
    # section: in a file of several machines, one per section, the one this is
    refund = { spec = "spec/PAYMENTS.md", section = "Refund" }
    # unlisted: "rejected" for this machine alone (the top-level key is every machine's)
    orders = { spec = "spec/ORDERS.md", unlisted = "rejected" }
    # own_code: this machine's unread phrases are the project's guards and callbacks
    shop = { spec = "spec/SHOP.md", own_code = true }

The runtime reads it to know which machine `spell --machine NAME` means (a listed
one, generated into `<generated>/NAME.py`; `spell` and `session` are the machines
that ship with Spellbook, unless the project lists its own of that name) and the
compiler to know how each spec is read (`codegen.config` adds the column
roles). `own_code = true` (for every spec, or one machine's) lets a condition phrase the
core does not read be a guard of the project's own code, and an action phrase a
callback: the generated module lists them as methods for the model to define
(docs/guide/for-transitions-users.md); without it such a phrase is refused. Anything it
cannot take is a `ProjectError` naming the key: never a default put in its place.

A project is found the way git finds a repository: the nearest folder at or above
the start holding a pyproject.toml with a `[tool.spellbook` table, without leaving
the git repository the start is in, and only if the file belongs to the user (a
project is code: its generated modules, and a vocabulary it has in Python, are
imported).
"""

from __future__ import annotations

import os
import sys

from spellbook.records.errors import BadFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PYPROJECT = "pyproject.toml"
MARK = b"[tool.spellbook"
PROJECT_LIMIT = 1_000_000  # bytes of pyproject.toml read
DEFAULT_GENERATED = "generated"

# The machines that ship with Spellbook, by the name `spell --machine` gives them.
SHIPPED = {
    "spell": "spellbook.machines.spell_machine",
    "session": "spellbook.machines.session_machine",
}
# Where each keeps its state (its module's STATE_FILE, as a test checks): known without
# reading the module, for an action of a project's machine, which may not write them.
SHIPPED_STATE_FILES = (".ai/task/state.json", ".claude/progress/state.json")

KEYS = (
    "columns",
    "default",
    "documents",
    "generated",
    "machines",
    "own_code",
    "templates",
    "unlisted",
    "vocabulary",
)
MACHINE_KEYS = (
    "allow_errors",
    "columns",
    "own_code",
    "report",
    "section",
    "spec",
    "templates",
    "unlisted",
    "vocabulary",
)
# What `unlisted` may say: "" (a cell no row names is an error) or "rejected".
UNLISTED = ("", "rejected")


class ProjectError(BadFile):
    """`[tool.spellbook]` cannot be taken as written; the message names the key, and the
    line of pyproject.toml that writes it (`line`, 0 for the file as a whole)."""

    detail = ""  # the message without the file's name
    keys: tuple[str, ...] | None = None  # the key of [tool.spellbook] it is about
    value: str | None = None  # the value of that key it is about (one of a list's)
    line = 0
    source_line = ""

    def at(self, line: int, source_line: str) -> ProjectError:
        """This error at `line` of pyproject.toml, which reads `source_line`, said as a
        spec's error is (`file:line: message`, then the line)."""
        self.line, self.source_line = line, source_line
        said = f"{PYPROJECT}:{line}: {self.detail}"
        shown = source_line.strip()
        if shown:
            said += f"\n    {shown[:157] + '...' if len(shown) > 160 else shown}"
        self.args = (said,)
        return self


class Entry:
    """One machine of the project: its name (its module's), spec, and settings. A
    setting that is None is the project's (`Project.vocabulary`, ...)."""

    __slots__ = (
        "name",
        "spec",
        "vocabulary",
        "columns",
        "allow_errors",
        "templates",
        "report",
        "section",
        "unlisted",
        "own_code",
    )

    def __init__(
        self,
        name: str,
        spec: str,
        vocabulary: str | None = None,
        columns: dict[str, list[str]] | None = None,
        allow_errors: bool = False,
        templates: str | None = None,
        report: str = "",
        section: str = "",
        unlisted: str | None = None,
        own_code: bool | None = None,
    ) -> None:
        self.name = name
        self.spec = spec
        self.vocabulary = vocabulary
        self.columns = columns
        self.allow_errors = allow_errors
        self.templates = templates
        self.report = report  # where spellbook-codegen writes its verification report
        self.section = section  # the section of its spec it is read from ("" for all of it)
        self.unlisted = unlisted  # None: the project's
        self.own_code = own_code  # unread phrases are the project's guards and callbacks


class Project:
    """A project's `[tool.spellbook]`, read (`read_project`) from the folder `root`."""

    __slots__ = (
        "root",
        "generated",
        "default",
        "templates",
        "vocabulary",
        "columns",
        "machines",
        "documents",
        "unlisted",
        "own_code",
    )

    def __init__(
        self,
        root: str,
        generated: str = DEFAULT_GENERATED,
        default: str | None = None,
        templates: str = "",
        vocabulary: str = "",
        columns: dict[str, list[str]] | None = None,
        machines: tuple[Entry, ...] = (),
        documents: tuple[str, ...] = (),
        unlisted: str = "",
        own_code: bool = False,
    ) -> None:
        self.root = root
        self.unlisted = unlisted
        self.own_code = own_code
        self.documents = documents
        self.generated = generated
        self.default = default
        self.templates = templates
        self.vocabulary = vocabulary
        self.columns = columns
        self.machines = machines

    def machine(self, name: str) -> Entry | None:
        """The listed machine called `name`, or None."""
        for entry in self.machines:
            if entry.name == name:
                return entry
        return None

    def module_path(self, entry: Entry) -> str:
        """Where `spellbook-codegen` writes the machine's module."""
        return os.path.join(self.root, self.generated, f"{entry.name}.py")

    def templates_of(self, entry: Entry) -> str:
        """The machine's templates folder, relative to the root ("" for none)."""
        return self.templates if entry.templates is None else entry.templates

    def own_code_of(self, entry: Entry) -> bool:
        """Whether the machine's unread phrases are the project's guards and callbacks."""
        return self.own_code if entry.own_code is None else entry.own_code


def find_project(start: str) -> str | None:
    """The folder of the project `start` is in (see the module's doc), or None."""
    folder = os.path.abspath(start)
    while True:
        candidate = os.path.join(folder, PYPROJECT)
        if _configures(candidate):
            return folder
        if os.path.lexists(os.path.join(folder, ".git")) or os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)


def _configures(path: str) -> bool:
    """Whether `path` is the user's own pyproject.toml with a [tool.spellbook] table. One
    that is a symbolic link, or no regular file, is a ProjectError where it may hold the
    table (a link to a file that holds one, or to what cannot be read): never a project
    read from another folder, nor one dropped with no word."""
    if not os.path.isfile(path) or os.path.islink(path):
        if os.path.lexists(path) and not os.path.isdir(path):
            _linked(path)
        return False
    from spellbook.disk.user_cache import owned  # only where there is a pyproject.toml

    if not owned(path):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(PROJECT_LIMIT + 1)
    except OSError:
        return False
    # Past the read limit the table may be anywhere: the file counts as a project's, and
    # reading it says it is too large (a project never hides behind a padded file).
    return len(head) > PROJECT_LIMIT or has_table(head)


def _linked(path: str) -> None:
    """A ProjectError for the pyproject.toml `path`, a symbolic link or no regular file,
    unless it is a link to a regular file that holds no [tool.spellbook] table."""
    import stat

    try:
        info = os.stat(path)  # what a link leads to
        if os.path.islink(path) and stat.S_ISREG(info.st_mode):
            with open(path, "rb") as f:
                if not has_table(f.read(PROJECT_LIMIT + 1)):
                    return  # no project's, as it would be with the file itself
    except OSError:
        pass  # a dangling link, or one that cannot be read
    what = "a symbolic link" if os.path.islink(path) else "not a regular file"
    raise ProjectError(
        f"{path} is {what}: Spellbook reads a project's [tool.spellbook] only from a "
        "regular pyproject.toml in its folder (a link could make another folder's table "
        "this project's); put the file itself there"
    )


def has_table(data: bytes) -> bool:
    """Whether the bytes of a pyproject.toml hold a [tool.spellbook] table, as TOML reads
    it (bytes that are not TOML but may hold one count: reading them says what is wrong)."""
    if MARK in data:  # as the table is nearly always written: no need to parse
        return True
    if b"spellbook" not in data and b"\\u" not in data and b"\\U" not in data:
        return False  # no key of TOML can say `spellbook` without these bytes
    # `[ tool.spellbook ]`, `[tool."spellbook"]`, `tool.spellbook.x = ...`, a `\u` escape:
    # the same table to TOML, found as the parser finds it.
    try:
        tool = _toml().loads(data.decode("utf-8")).get("tool", {})
    except Exception:  # not TOML: read_project says what is wrong with it
        return True
    return isinstance(tool, dict) and "spellbook" in tool


def read_project(root: str) -> Project:
    """The `[tool.spellbook]` of the pyproject.toml in `root` (defaults without one)."""
    text, table = _table(os.path.join(root, PYPROJECT))
    try:
        return project_from(root, table)
    except ProjectError as err:
        raise located(err, text) from None


def project_from_text(root: str, text: str) -> Project:
    """The project at `root` whose pyproject.toml holds `text` (its committed text, say)."""
    try:
        return project_from(root, _parse(text))
    except ProjectError as err:
        raise located(err, text) from None


def located(err: ProjectError, text: str) -> ProjectError:
    """`err` at the line of `text` (the pyproject.toml's) that writes the key or value it
    is about; as it is where no line can be told, rather than at a wrong one."""
    if err.keys is None or err.line:
        return err
    from spellbook.disk.toml_lines import line_of

    line = line_of(text, err.keys, err.value)
    return err.at(line, text.split("\n")[line - 1]) if line else err


def spellbook_table(text: str) -> dict[str, object]:
    """The `[tool.spellbook]` table of a pyproject.toml's text ({} if it has none)."""
    return _parse(text)


def project_from(root: str, table: dict[str, object]) -> Project:
    """The project at `root` whose `[tool.spellbook]` is `table`."""
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise _fail(_unknown(unknown[0], KEYS), (unknown[0],))
    generated = _inside(table.get("generated", DEFAULT_GENERATED), ("generated",))
    templates = _inside(table.get("templates", ""), ("templates",), empty=True)
    vocabulary = _vocabulary(table, "", ())
    columns = _columns(table, ())
    listed = table.get("machines", {})
    if not isinstance(listed, dict):
        raise _fail('machines must be a table: name = "spec/FILE.md"', ("machines",))
    machines = tuple(_entry(str(name), value) for name, value in listed.items())
    from spellbook.disk.own_files import folded_name

    seen: dict[str, str] = {}
    for entry in machines:  # `release` and `Release`: one module on macOS and Windows
        other = seen.setdefault(folded_name(entry.name), entry.name)
        if other != entry.name:
            raise _fail(
                f"machines {other!r} and {entry.name!r} differ only in case or in how their "
                "letters are composed (Unicode normalization): their generated "
                f"modules ({generated}/{other}.py, {generated}/{entry.name}.py) are one file "
                "on a filesystem that ignores them (macOS, Windows), where one machine would "
                "run as the other; give one a name of its own",
                ("machines", entry.name),
            )
    default = table.get("default")
    if default is not None:
        if not isinstance(default, str) or default not in {m.name for m in machines}:
            names = ", ".join(m.name for m in machines) or "none are listed"
            raise _fail(
                f"default must name a machine of [tool.spellbook.machines] ({names})",
                ("default",),
            )
    elif machines:
        default = machines[0].name
    documents = table.get("documents", [])
    if not isinstance(documents, list):
        raise _fail(
            'documents must be a list of paths: ["README.md", "docs/verifier.md"]',
            ("documents",),
        )
    return Project(
        os.path.abspath(root),
        generated,
        default,
        templates,
        vocabulary,
        columns,
        machines,
        tuple(_inside(d, ("documents",)) for d in documents),
        _unlisted(table, ()),
        _own_code(table, ()),
    )


def _where(keys: tuple[str, ...]) -> str:
    """How a message names the key `keys`: `machines.NAME: key` for a machine's."""
    return f"machines.{keys[1]}: {'.'.join(keys[2:])}" if keys[:1] == ("machines",) else keys[0]


def _unlisted(table: dict[str, object], at: tuple[str, ...]) -> str:
    value = table.get("unlisted", "")
    if value not in UNLISTED:
        raise _fail(
            f'{_where((*at, "unlisted"))} must be "rejected" (a (state, spell) no row names '
            'is blocked) or "" (it is an error)',
            (*at, "unlisted"),
        )
    return str(value)


def _table(path: str) -> tuple[str, dict[str, object]]:
    """The text of the pyproject.toml at `path`, and its `[tool.spellbook]` table (a
    ProjectError for a symbolic link or no regular file that may hold one: `_linked`)."""
    if not os.path.isfile(path) or os.path.islink(path):
        if os.path.lexists(path) and not os.path.isdir(path):
            _linked(path)
        return "", {}
    try:
        with open(path, "rb") as f:
            data = f.read(PROJECT_LIMIT + 1)
    except OSError as err:
        raise _fail(f"cannot be read: {err}") from None
    if len(data) > PROJECT_LIMIT:
        raise _fail(f"pyproject.toml is larger than {PROJECT_LIMIT // 1_000_000} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        shown = data.split(b"\n")[line - 1].decode("utf-8", "replace")
        raise _fail(
            f"cannot be read: it is not UTF-8 (byte 0x{data[err.start]:02x} at line {line})"
        ).at(line, shown) from None
    from spellbook.disk.user_cache import cache_file, cached, remember

    cache = cache_file(os.path.dirname(os.path.abspath(path)))
    found = cached(cache, path, text, 4 * PROJECT_LIMIT)  # the table as JSON, at most
    if found is None:
        found = _parse(text)
        remember(cache, path, text, found)
    return text, found


def _toml() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


def _parse(text: str) -> dict[str, object]:
    tomllib = _toml()
    # Besides TOMLDecodeError, the parser fails on what it is given, anywhere in the file
    # (another tool's table too), with arrays or inline tables nested past Python's
    # recursion limit and an integer of more digits than Python converts (4,300).
    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError as err:
        raise _on_line(_fail(f"cannot be read: {err}"), text) from None
    except RecursionError as err:
        said = f"cannot be read: arrays or tables nested too deeply{_at(err)}"
        raise _on_line(_fail(said), text) from None
    except ValueError as err:
        said = f"cannot be read: {str(err).split(';')[0]}{_at(err)}"
        raise _on_line(_fail(said), text) from None
    found = tool.get("spellbook", {}) if isinstance(tool, dict) else {}
    if not isinstance(found, dict):
        raise located(_fail("must be a table", ()), text)
    return found


def _on_line(err: ProjectError, text: str) -> ProjectError:
    """`err` at the line its message says the parser stopped at (`(at line 6, ...)`), in
    `file:line` form, with the line."""
    import re  # only a pyproject.toml that cannot be read needs it

    found = re.search(r"\(at line (\d+)", err.detail)
    lines = text.split("\n")
    line = int(found.group(1)) if found else 0
    return err.at(line, lines[line - 1]) if 0 < line <= len(lines) else err


def _at(err: BaseException) -> str:
    """Where in the text the parser was when it raised `err` (" (at line N)"), read off
    its innermost frame that holds the text and a position in it; "" if none does."""
    found: tuple[str, int] | None = None
    trace = err.__traceback__
    while trace is not None:
        names = trace.tb_frame.f_locals
        src, pos = names.get("src"), names.get("pos")
        if isinstance(src, str) and isinstance(pos, int):
            found = (src, pos)
        trace = trace.tb_next
    return "" if found is None else f" (at line {found[0].count(chr(10), 0, found[1]) + 1})"


def _fail(
    message: str, keys: tuple[str, ...] | None = None, value: str | None = None
) -> ProjectError:
    """The error `message` about the key `keys` of [tool.spellbook] (and its `value`),
    found at its line by `located`."""
    err = ProjectError(f"{PYPROJECT}: [tool.spellbook] {message}")
    err.detail, err.keys, err.value = f"[tool.spellbook] {message}", keys, value
    return err


def _unknown(key: str, known: tuple[str, ...]) -> str:
    """What to say of the key `key`, not one of `known`: the one it may be a slip for."""
    from difflib import get_close_matches

    near = get_close_matches(key, known, n=1)
    meant = f" (did you mean {near[0]}?)" if near else ""
    return f"unknown key {key!r}{meant}; the keys are {', '.join(known)}"


def _inside(value: object, keys: tuple[str, ...], empty: bool = False) -> str:
    """A folder or file of the project, relative to its root, with '/'; nothing outside.
    `keys`: the key that gives it."""
    shown = f"machines.{keys[1]}: spec" if len(keys) == 2 and keys[0] == "machines" else None
    key = shown or _where(keys)
    if not isinstance(value, str) or not (value.strip() or empty):
        raise _fail(f"{key} must be a path inside the project", keys)
    if "\x00" in value:  # no file is named so: the system refuses such a path
        raise _fail(f"{key} = {value!r} is not a path: it holds a NUL character", keys, value)
    if not value:
        return ""
    import posixpath

    path = posixpath.normpath(value.replace("\\", "/"))
    if path.startswith(("/", "../")) or path == ".." or ":" in path.split("/")[0]:
        raise _fail(f"{key} = {value!r} is outside the project; give a path inside it", keys, value)
    return path


def _vocabulary(table: dict[str, object], default: str, at: tuple[str, ...]) -> str:
    value = table.get("vocabulary", default)
    if isinstance(value, str) and value.endswith(".md"):  # the project's own words, as data
        return _inside(value, (*at, "vocabulary"))
    if not isinstance(value, str) or not all(p.isidentifier() for p in value.split(".") if value):
        raise _fail(
            f"{_where((*at, 'vocabulary'))} must be the name of a vocabulary (a module's), the "
            'path of a vocabulary file of the project ending in .md, or "" for the core alone',
            (*at, "vocabulary"),
        )
    return value


def _columns(table: dict[str, object], at: tuple[str, ...]) -> dict[str, list[str]] | None:
    columns = table.get("columns")
    if columns is None:
        return None
    if not isinstance(columns, dict) or not all(
        isinstance(v, list) and all(isinstance(n, str) for n in v) for v in columns.values()
    ):
        raise _fail(
            f'{_where((*at, "columns"))} must map a role to header names: condition = ["Guard"]',
            (*at, "columns"),
        )
    return {str(k): list(v) for k, v in columns.items()}


def _own_code(table: dict[str, object], at: tuple[str, ...]) -> bool:
    value = table.get("own_code", False)
    if not isinstance(value, bool):
        raise _fail(f"{_where((*at, 'own_code'))} must be true or false", (*at, "own_code"))
    return value


def _entry(name: str, value: object) -> Entry:
    from keyword import iskeyword

    at = ("machines", name)
    where = f"machines.{name}: "
    if not name.isidentifier() or iskeyword(name) or name.startswith("__"):
        raise _fail(
            f"{where}a machine's name is its module's: a Python identifier, not a keyword "
            "(`class`) nor a name Python gives a module of its own (`__init__`)",
            at,
        )
    if isinstance(value, str):
        return Entry(name, _inside(value, at))
    if not isinstance(value, dict):
        raise _fail(f'{where}give the spec\'s path, or a table with spec = "..."', at)
    extra = sorted(set(value) - set(MACHINE_KEYS))
    if extra:
        raise _fail(f"{where}{_unknown(extra[0], MACHINE_KEYS)}", (*at, extra[0]))
    if not isinstance(value.get("spec"), str):
        said = "is not a path" if "spec" in value else "is missing"
        keys = (*at, "spec") if "spec" in value else at
        raise _fail(f'{where}spec {said}: give the spec\'s path, spec = "spec/FILE.md"', keys)
    allow = value.get("allow_errors", False)
    if not isinstance(allow, bool):
        raise _fail(f"{where}allow_errors must be true or false", (*at, "allow_errors"))
    templates = value.get("templates")
    report = value.get("report", "")
    section = value.get("section", "")
    if not isinstance(section, str) or ("section" in value and not section.strip()):
        raise _fail(
            f'{where}section must be the heading of a section of the spec: "Refund"',
            (*at, "section"),
        )
    return Entry(
        name,
        _inside(value["spec"], (*at, "spec")),
        _vocabulary(value, "", at) if "vocabulary" in value else None,
        _columns(value, at),
        allow,
        None if templates is None else _inside(templates, (*at, "templates"), empty=True),
        _inside(report, (*at, "report"), empty=True),
        section.strip(),
        _unlisted(value, at) if "unlisted" in value else None,
        _own_code(value, at) if "own_code" in value else None,
    )
