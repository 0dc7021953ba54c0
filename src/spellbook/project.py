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

from spellbook import git
from spellbook.errors import BadFile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from types import CodeType, ModuleType
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
    """`[tool.spellbook]` cannot be taken as written; the message names the key."""


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


def owned(path: str) -> bool:
    """Whether `path` belongs to the user running this (always, where there are no users)."""
    try:
        return not hasattr(os, "geteuid") or os.lstat(path).st_uid == os.geteuid()
    except OSError:
        return False


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
    """Whether `path` is the user's own pyproject.toml with a [tool.spellbook] table."""
    if not os.path.isfile(path) or os.path.islink(path) or not owned(path):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(PROJECT_LIMIT + 1)
    except OSError:
        return False
    # Past the read limit the table may be anywhere: the file counts as a project's, and
    # reading it says it is too large (a project never hides behind a padded file).
    return len(head) > PROJECT_LIMIT or has_table(head)


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
    return project_from(root, _table(os.path.join(root, PYPROJECT)))


def project_from_text(root: str, text: str) -> Project:
    """The project at `root` whose pyproject.toml holds `text` (its committed text, say)."""
    return project_from(root, _parse(text))


def spellbook_table(text: str) -> dict[str, object]:
    """The `[tool.spellbook]` table of a pyproject.toml's text ({} if it has none)."""
    return _parse(text)


def project_from(root: str, table: dict[str, object]) -> Project:
    """The project at `root` whose `[tool.spellbook]` is `table`."""
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise _fail(f"unknown key {unknown[0]!r}; the keys are {', '.join(KEYS)}")
    generated = _inside(table.get("generated", DEFAULT_GENERATED), "generated", "")
    templates = _inside(table.get("templates", ""), "templates", "", empty=True)
    vocabulary = _vocabulary(table, "", "")
    columns = _columns(table, "")
    listed = table.get("machines", {})
    if not isinstance(listed, dict):
        raise _fail('machines must be a table: name = "spec/FILE.md"')
    machines = tuple(_entry(str(name), value) for name, value in listed.items())
    default = table.get("default")
    if default is not None:
        if not isinstance(default, str) or default not in {m.name for m in machines}:
            names = ", ".join(m.name for m in machines) or "none are listed"
            raise _fail(f"default must name a machine of [tool.spellbook.machines] ({names})")
    elif machines:
        default = machines[0].name
    documents = table.get("documents", [])
    if not isinstance(documents, list):
        raise _fail('documents must be a list of paths: ["README.md", "docs/verifier.md"]')
    return Project(
        os.path.abspath(root),
        generated,
        default,
        templates,
        vocabulary,
        columns,
        machines,
        tuple(_inside(d, "documents", "") for d in documents),
        _unlisted(table, ""),
        _own_code(table, ""),
    )


def _unlisted(table: dict[str, object], where: str) -> str:
    value = table.get("unlisted", "")
    if value not in UNLISTED:
        raise _fail(
            f'{where}unlisted must be "rejected" (a (state, spell) no row names is blocked) '
            'or "" (it is an error)'
        )
    return str(value)


def _table(path: str) -> dict[str, object]:
    if not os.path.isfile(path):
        return {}
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
        raise _fail(
            f"cannot be read: it is not UTF-8 (byte 0x{data[err.start]:02x} at line {line})"
        ) from None
    cache = _cache_file(os.path.dirname(os.path.abspath(path)))
    found = _cached(cache, path, text)
    if found is None:
        found = _parse(text)
        _remember(cache, path, text, found)
    return found


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
        raise _fail(f"cannot be read: {err}") from None
    except RecursionError as err:
        raise _fail(f"cannot be read: arrays or tables nested too deeply{_at(err)}") from None
    except ValueError as err:
        raise _fail(f"cannot be read: {str(err).split(';')[0]}{_at(err)}") from None
    found = tool.get("spellbook", {}) if isinstance(tool, dict) else {}
    if not isinstance(found, dict):
        raise _fail("must be a table")
    return found


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


# Parsing TOML costs `spell` more than a cast does (importing tomllib and the typing
# and datetime modules it needs). So the table is kept, with the exact text it was
# read from, in the user's own cache folder: it is used only while pyproject.toml
# holds that very text, and only from a file of the user's (a pull request cannot
# plant one, as it could in the repository). Anything amiss is a miss: parsed again.
CACHE_VERSION = 1


def _cache_file(root: str) -> str | None:
    """Where the cache keeps the `[tool.spellbook]` table of the project at `root`."""
    return _cache_entry("projects", root, ".json")


def _cache_entry(kind: str, of: str, suffix: str) -> str | None:
    """The cache file of `kind` for the file or folder `of`; None where there is no cache
    folder, or where it is inside the repository `of` is in: a repository's content is
    never taken for what Spellbook kept (a checkout could hold a cache of its own)."""
    base = cache_folder()
    if base is None:
        return None
    repository = git.find(of if os.path.isdir(of) else os.path.dirname(of))
    if repository is not None and repository.relative(base) is not None:
        return None
    import zlib

    key = zlib.crc32(of.encode("utf-8", "surrogateescape"))
    return os.path.join(base, kind, f"{key:08x}{suffix}")


def compiled(data: bytes, path: str) -> CodeType:
    """The code of the Python source `data` (the bytes of `path`): compiled, or this
    user's cache of exactly that compilation. Only Spellbook writes the cache, in the
    user's own cache folder (never one inside the module's repository), and a cache file
    is taken only when the source it keeps beside the code is byte for byte `data`, the
    Python and its optimization level the same and the path the same: so no bytecode a
    repository holds, or code of other bytes, ever runs in its place (parsing a 58 KB
    module costs about 11 ms a cold start, its cached code 0.2 ms)."""
    import marshal
    from types import CodeType

    cache = _code_file(path)
    python = f"{sys.implementation.cache_tag} -O{sys.flags.optimize}"
    head = f"spellbook code 1 {python} {len(data)}\n".encode()
    if cache is not None and owned(cache) and not os.path.islink(cache):
        try:
            with open(cache, "rb") as f:
                kept = f.read(len(head) + 5 * len(data) + 1_000_000)
            if kept.startswith(head) and kept[len(head) : len(head) + len(data)] == data:
                code = marshal.loads(kept[len(head) + len(data) :])
                if isinstance(code, CodeType) and code.co_filename == path:
                    return code
        except (OSError, ValueError, EOFError, TypeError):
            pass  # no cache, or one that is not ours to read: compiled afresh
    code = compile(data, path, "exec", dont_inherit=True)
    if cache is not None:
        _keep(cache, head + data + marshal.dumps(code))
    return code


def _code_file(path: str) -> str | None:
    """Where the cache keeps the compiled code of the module at `path`."""
    return _cache_entry("code", path, ".code")


def cache_folder() -> str | None:
    """Spellbook's cache folder for this user: `$SPELLBOOK_CACHE`, else
    `$XDG_CACHE_HOME/spellbook`, else `~/.cache/spellbook`; None where none can be named.
    A relative path in either variable is ignored (as XDG says of its own), so the
    current folder, a repository's, is never taken for it."""
    chosen = os.environ.get("SPELLBOOK_CACHE")
    if chosen is not None:
        return chosen if os.path.isabs(chosen) else None
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if home == "~" or not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "spellbook")


def _cached(cache: str | None, path: str, text: str) -> dict[str, object] | None:
    if cache is None or not owned(cache) or os.path.islink(cache):
        return None
    import json

    try:
        with open(cache, encoding="utf-8") as f:
            kept = json.loads(f.read(4 * PROJECT_LIMIT))
    except (OSError, ValueError):
        return None
    if (
        isinstance(kept, dict)
        and kept.get("version") == CACHE_VERSION
        and kept.get("path") == path
        and kept.get("text") == text
        and isinstance(kept.get("table"), dict)
    ):
        table: dict[str, object] = kept["table"]
        return table
    return None


def _remember(cache: str | None, path: str, text: str, table: dict[str, object]) -> None:
    if cache is None:
        return
    import json

    try:
        kept = json.dumps(
            {"version": CACHE_VERSION, "path": path, "text": text, "table": table},
            ensure_ascii=False,
        )
    except (TypeError, ValueError):  # a value JSON has no form for (a TOML date): not kept
        return
    _keep(cache, kept.encode("utf-8"))


def _keep(cache: str, data: bytes) -> None:
    """Write `data` to the cache file `cache`, readable by this user alone, atomically;
    a cache that cannot be written is only slower."""
    temporary = f"{cache}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(cache), mode=0o700, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, cache)
    except OSError:
        import contextlib  # not at start-up: `spell` need not load it

        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _fail(message: str) -> ProjectError:
    return ProjectError(f"pyproject.toml: [tool.spellbook] {message}")


def _inside(value: object, key: str, where: str, empty: bool = False) -> str:
    """A folder or file of the project, relative to its root, with '/'; nothing outside."""
    if not isinstance(value, str) or not (value.strip() or empty):
        raise _fail(f"{where}{key} must be a path inside the project")
    if not value:
        return ""
    import posixpath

    path = posixpath.normpath(value.replace("\\", "/"))
    if path.startswith(("/", "../")) or path == ".." or ":" in path.split("/")[0]:
        raise _fail(f"{where}{key} = {value!r} is outside the project; give a path inside it")
    return path


def _vocabulary(table: dict[str, object], default: str, where: str) -> str:
    value = table.get("vocabulary", default)
    if isinstance(value, str) and value.endswith(".md"):  # the project's own words, as data
        return _inside(value, "vocabulary", where)
    if not isinstance(value, str) or not all(p.isidentifier() for p in value.split(".") if value):
        raise _fail(
            f"{where}vocabulary must be the name of a vocabulary (a module's), the path of "
            'a vocabulary file of the project ending in .md, or "" for the core alone'
        )
    return value


def _columns(table: dict[str, object], where: str) -> dict[str, list[str]] | None:
    columns = table.get("columns")
    if columns is None:
        return None
    if not isinstance(columns, dict) or not all(
        isinstance(v, list) and all(isinstance(n, str) for n in v) for v in columns.values()
    ):
        raise _fail(f'{where}columns must map a role to header names: condition = ["Guard"]')
    return {str(k): list(v) for k, v in columns.items()}


def _own_code(table: dict[str, object], where: str) -> bool:
    value = table.get("own_code", False)
    if not isinstance(value, bool):
        raise _fail(f"{where}own_code must be true or false")
    return value


def _entry(name: str, value: object) -> Entry:
    where = f"machines.{name}: "
    if not name.isidentifier():
        raise _fail(f"{where}a machine's name is its module's: a Python identifier")
    if isinstance(value, str):
        return Entry(name, _inside(value, "spec", where))
    if not isinstance(value, dict) or not isinstance(value.get("spec"), str):
        raise _fail(f'{where}give the spec\'s path, or a table with spec = "..."')
    extra = sorted(set(value) - set(MACHINE_KEYS))
    if extra:
        raise _fail(f"{where}unknown key {extra[0]!r}; the keys are {', '.join(MACHINE_KEYS)}")
    allow = value.get("allow_errors", False)
    if not isinstance(allow, bool):
        raise _fail(f"{where}allow_errors must be true or false")
    templates = value.get("templates")
    report = value.get("report", "")
    section = value.get("section", "")
    if not isinstance(section, str) or ("section" in value and not section.strip()):
        raise _fail(f'{where}section must be the heading of a section of the spec: "Refund"')
    return Entry(
        name,
        _inside(value["spec"], "spec", where),
        _vocabulary(value, "", where) if "vocabulary" in value else None,
        _columns(value, where),
        allow,
        None if templates is None else _inside(templates, "templates", where, empty=True),
        _inside(report, "report", where, empty=True),
        section.strip(),
        _unlisted(value, where) if "unlisted" in value else None,
        _own_code(value, where) if "own_code" in value else None,
    )


def importable(root: str) -> None:
    """Let the project's own modules (a vocabulary) be imported from its root. Appended,
    so neither the standard library nor an installed package can be shadowed by a
    file of the project; and from their source alone (`source_only`)."""
    folder = os.path.abspath(root)
    source_only(folder)
    if folder not in sys.path:
        sys.path.append(folder)


_SOURCE_ONLY: set[str] = set()  # folders whose modules run from their source alone


def source_only(folder: str) -> None:
    """Modules and packages imported from `folder` (and the folders below it) run from
    their own source, compiled by `compiled`: no bytecode is read or written there (a
    `__pycache__` file beside a module, which Python would run without looking at the
    source), and no sourceless `.pyc` or compiled extension is imported from there. A
    repository's files are data until their source is what runs."""
    if not _SOURCE_ONLY:
        sys.path_hooks.insert(0, _source_only_hook())
    _SOURCE_ONLY.add(os.path.realpath(folder))
    for entry in list(sys.path_importer_cache):  # a finder made before: made again
        if _under_source_only(entry):
            del sys.path_importer_cache[entry]


def _under_source_only(path: str) -> bool:
    """Whether modules found in `path` run from their source alone: it is under a
    `source_only` folder, and not where this Python's packages are installed (a
    virtual environment inside a project is the user's installation, not its files)."""
    full = os.path.realpath(path or os.curdir)
    return _within(full, _SOURCE_ONLY) and not _within(full, _installed())


def _within(full: str, folders: Collection[str]) -> bool:
    return any(full == f or full.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


_INSTALLED: list[str] = []


def _installed() -> list[str]:
    """The folders of this Python's standard library and installed packages (a virtual
    environment's, inside a project too), and Spellbook's own package (in a source
    checkout, a folder of the project it is): never a whole prefix, which may hold a
    project (`/usr/src/app`)."""
    if not _INSTALLED:
        import site
        import sysconfig

        paths = sysconfig.get_paths()
        found = [paths.get(k, "") for k in ("stdlib", "platstdlib", "purelib", "platlib")]
        found += site.getsitepackages() if hasattr(site, "getsitepackages") else []
        found.append(site.getusersitepackages() if hasattr(site, "getusersitepackages") else "")
        found.append(os.path.dirname(os.path.realpath(__file__)))
        _INSTALLED.extend(os.path.realpath(p) for p in dict.fromkeys(found) if p)
    return _INSTALLED


def _source_only_hook() -> Any:
    """The path hook of `source_only`: for a folder under one of its folders, a finder of
    `.py` sources only, each loaded by a loader that compiles its bytes (made here, as
    the hook runs inside the import system and must import nothing)."""
    from importlib.machinery import SOURCE_SUFFIXES, FileFinder, SourceFileLoader

    class SourceOnly(SourceFileLoader):
        """A module's source, compiled by `compiled`; no bytecode read or written."""

        def get_code(self, fullname: str) -> CodeType:
            path = self.get_filename(fullname)
            return compiled(self.get_data(path), path)

        def set_data(self, path: str, data: Any, *, _mode: int = 0o666) -> None:
            return None  # never writes bytecode

    def hook(path: str) -> FileFinder:
        if not _under_source_only(path):
            raise ImportError("not a folder whose modules run from their source alone")
        return FileFinder(path, (SourceOnly, SOURCE_SUFFIXES))

    return hook


MODULE_LIMIT = 50_000_000  # bytes of a generated module read


def load_machine(project: Project, entry: Entry) -> ModuleType:
    """The project's generated module for `entry`, compiled from the bytes of its file.

    Only that source runs: no bytecode is read or written (Python's own import would
    run a `__pycache__/*.pyc` in its place, which `codegen --check` never reads)."""
    path = project.module_path(entry)
    shown = os.path.relpath(path, project.root)
    if not os.path.isfile(path) or os.path.islink(path):
        raise ProjectError(
            f"{shown} does not exist: the machine {entry.name} ({entry.spec}) is not "
            "generated yet; run `spellbook-codegen` in "
            f"{project.root}"
        )
    name = f"_spellbook_project_{entry.name}"
    found = sys.modules.get(name)
    if found is not None and getattr(found, "__file__", None) == path:
        return found
    data = read_at_most(path, MODULE_LIMIT, shown)
    importable(project.root)
    return run_machine(name, path, shown, data)


def stale(project: Project, entry: Entry, module: ModuleType) -> str | None:
    """What to say when the machine's spec has changed since its module was generated
    (its sha256 is not the module's `SPEC_SHA256`), else None.

    Two `stat`s are all a cast pays while the spec is older than the module. A spec
    newer but unchanged (a checkout writes `spec/` after `generated/`) is hashed once:
    the user's cache then keeps that this very file (path, time, size, inode) was found
    fresh, and the next cast reads that instead of hashing again (about 2.5 ms)."""
    spec = os.path.join(project.root, entry.spec)
    try:
        found = os.stat(spec)
        if found.st_mtime_ns <= os.stat(project.module_path(entry)).st_mtime_ns:
            return None
    except OSError:  # no spec to compare with: nothing to say
        return None
    recorded = getattr(module, "SPEC_SHA256", None)
    seen = (
        f"spellbook fresh 1 {found.st_mtime_ns} {found.st_size} {found.st_ino} {recorded} {spec}"
    ).encode("utf-8", "surrogateescape")
    cache = _cache_entry("fresh", spec, ".txt")
    if cache is not None and owned(cache) and not os.path.islink(cache):
        try:
            with open(cache, "rb") as f:
                if f.read(len(seen) + 1) == seen:
                    return None
        except OSError:
            pass
    try:
        with open(spec, "rb") as f:
            data = f.read(MODULE_LIMIT + 1)
    except OSError:
        return None
    import hashlib

    if hashlib.sha256(data).hexdigest() == recorded:
        if cache is not None:
            _keep(cache, seen)
        return None
    shown = os.path.relpath(project.module_path(entry), project.root)
    return (
        f"{entry.spec} has changed since {shown} was generated from it: this runs the "
        f"machine as generated; regenerate it with `spellbook-codegen` in {project.root}"
    )


def read_at_most(path: str, limit: int, shown: str) -> bytes:
    """The bytes of the file `path` (named `shown`), a ProjectError if it cannot be read
    or holds more than `limit` bytes (read no further than that)."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as err:
        raise ProjectError(f"{shown} cannot be read ({err.strerror})") from None
    if len(data) > limit:
        raise ProjectError(f"{shown} is larger than {limit // 1_000_000} MB")
    return data


def run_machine(name: str, path: str, shown: str, data: bytes) -> ModuleType:
    """The module `name` made by running the source `data` (the bytes of `path`, shown
    as `shown`), checked to be a machine Spellbook generated."""
    from importlib.machinery import ModuleSpec  # not util: 2 ms more
    from types import ModuleType

    module = ModuleType(name)
    module.__spec__ = ModuleSpec(name, None, origin=path)
    module.__file__ = path
    sys.modules[name] = module
    try:
        exec(compiled(data, path), module.__dict__)
    except (Exception, SystemExit) as err:  # its exit would end `spell` (a hook, allowing)
        del sys.modules[name]
        raise ProjectError(
            f"{shown} cannot be imported ({type(err).__name__}: {err}); "
            "regenerate it with `spellbook-codegen`"
        ) from None
    for needed in ("SPEC", "STATES", "RULES", "WORKSPACE", "build"):
        if not hasattr(module, needed):
            del sys.modules[name]
            raise ProjectError(
                f"{shown} is not a machine generated by Spellbook (it has no {needed}); "
                "regenerate it with `spellbook-codegen`"
            )
    return module
