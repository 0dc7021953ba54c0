"""The words a spec may use beyond the core's: its vocabulary's and its own Terms.

`ReadOptions` are how one machine's spec is read, as its project configures it
(`codegen.config`, from `[tool.spellbook]` in pyproject.toml): which vocabulary (a file
of words that ships with Spellbook or is the project's own, read by `vocabulary_file`,
or a module in Python; see `spellbook.records.vocabulary`), which extra header names
(the column roles and their built-in names are `codegen.read.rows.ROLES`), and the rest
of its settings (below). Not to be confused with a dialect, a way of writing a spec
(full tables, or the light `From | To | Event` tables of `codegen.read.light_tables`),
which the reader recognises from the spec itself. A `Lexicon` is that vocabulary loaded for
the compiler (its patterns compiled), plus the terms the spec defines in its own
Terms table, which come first.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import ModuleType

from spellbook.disk.paths import is_git, path_problem
from spellbook.disk.walk import glob_name
from spellbook.facts.patterns import VOCABULARY
from spellbook.facts.probes import PROBES
from spellbook.records.vocabulary import (
    NotAVocabulary,
    Noun,
    Verb,
    load,
    module_name,
    template_file,
)

from ..model import Term
from ..spec_error import SpecError


@dataclass(frozen=True)
class ReadOptions:
    """How a machine's spec is read: its vocabulary ("" for the core alone; a project's
    own vocabulary file by its absolute path, `codegen.config`); by column role, extra
    header names to look for, preferred to the built-in ones of `codegen.read.rows.ROLES`;
    and the settings below."""

    vocabulary: str = ""
    columns: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Terms read as if the spec defined them after its own (a phrase an older revision
    # of a spec uses, defined by the newer one it is compared with).
    terms: tuple[Term, ...] = ()
    # Where templates are found (absolute paths; "" for none): the spec's own folder, which
    # `Create F from T` finds T in, as a link in the spec would be; the folder `Create F`
    # finds F's template in by name; the project's root, which no template may leave.
    folder: str = ""
    templates: str = ""
    root: str = ""
    # The section of a file of several machines that is this machine ("" for the file).
    section: str = ""
    # "rejected": every (state, spell) no row names is blocked ("" : a missing cell).
    unlisted: str = ""
    # `own_code = true`: a phrase the core does not read is the project's own guard (a
    # condition) or callback (an action), not an error.
    own_code: bool = False
    # The project's generated folder, relative to its root ("": not known), which no
    # action of the spec may write (`own_files.program_file`).
    generated: str = ""
    # The state files of the project's machines (from its root), which no action of the
    # spec may write but its own (`own_files.another_state_file`).
    others: tuple[str, ...] = ()


# What a cell with nothing in it may say: no condition (always), no action.
EMPTY = frozenset({"", "-", "\u2013", "\u2014", "none", "(none)"})


def normal(text: str) -> str:
    """A phrase as looked up: lower case, one space between words, no backticks or final period."""
    return " ".join(text.replace("`", "").split()).rstrip(".").strip().lower()


def workspace_path(written: str, workspace: str) -> str | None:
    """A file named in a spec, relative to the workspace folder (`./.ai/task/plan.md` and
    `plan.md` are `plan.md` when the workspace is `.ai/task`); None for a path that
    would leave it (absolute, `~`, `..`, a backslash)."""
    path = written.strip().strip("`").strip()
    while path.startswith("./"):
        path = path[2:]
    prefix = workspace.strip("/") + "/" if workspace.strip("/") else ""
    if prefix and path.startswith(prefix):
        path = path[len(prefix) :]
    while path.startswith("./"):
        path = path[2:]
    parts = path.split("/")
    if not path or path.startswith(("/", "~")) or "\\" in path or ".." in parts:
        return None
    if len(path) > 1 and path[1] == ":":
        return None  # `C:/x.md`: a drive, which the runtime refuses too
    if any(is_git(p) for p in parts):
        return None  # git's own folder, which runs what it holds: never a workspace file
    return path


def repository_path(written: str, workspace: str) -> tuple[str | None, str]:
    """A file (or glob) named from the repository's top (`/tests/test_a.py`): the path as
    a fact keeps it and "", or None and why it is not one. A workspace at the top has
    its files named so too; no other may reach into the workspace folder, in any case
    (its files are named from it, so that a fact about one has one name)."""
    name = written.strip().strip("`").strip()
    inner = name[1:]
    problem = path_problem(inner)
    if problem == ".git":
        return None, f"`{name}` is in a .git folder, which Spellbook never touches"
    if problem:
        return None, (
            f"`{name}` is not a path inside the repository: name its files from its top, "
            "`/tests/test_a.py`, with no `..`, `.`, `~` or empty folder"
        )
    folders = [p for p in workspace.strip("/").split("/") if p]
    if not folders:
        return inner, ""  # the workspace is the repository's top
    if _reaches(inner.split("/"), folders):
        top = "/".join(folders)
        rest = inner[len(top) + 1 :] if inner.startswith(top + "/") else ""
        return None, (
            f"`{name}` is (or may be) in the workspace folder {top}/: name the workspace's "
            f"files from it, without `/`{f' (`{rest}`)' if rest else ''}"
        )
    return name, ""


def beside_workspace(path: str, workspace: str, acting: bool = False, written: str = "") -> str:
    """Why `path` (relative to the workspace folder, as `workspace_path` gives it) names
    no file of it, where it starts with the folder the workspace is in (`.ai/plan.md`
    in the workspace `.ai/task`): written from the repository's top, it would be read as
    `.ai/task/.ai/plan.md`; else "", and for a path `written` with the workspace in
    front (`docs/site/docs/index.md` in the workspace `docs/site`). `acting`: an
    action's, which writes only the workspace's files."""
    folder = workspace.strip("/")
    top = folder.split("/")[0]
    if not top or not (path + "/").startswith(top + "/"):
        return ""
    if f"{folder}/{path}" in written:  # named with the workspace in front: its own file
        return ""
    if acting:
        name = path.rsplit("/", 1)[-1] or path
        return (
            f"{path} is not in the workspace folder {folder}, whose files an action names "
            f"relative to it, or with it in front (`{name}` is {folder}/{name}): as written "
            f"it would be {folder}/{path}; an action changes only the workspace's files"
        )
    return (
        f"{path} is not in the workspace folder {folder} (files are named "
        "relative to it, or with it in front; a file of the repository outside it from the "
        f"repository's top, `/{path}`)"
    )


def outside_hint(written: str, workspace: str) -> str:
    """For a path that leaves the workspace folder (`../../tests/a.py`): how to name it
    from the repository's top, if it is in the repository; else ""."""
    name = written.strip().strip("`").strip()
    if name.startswith(("/", "~")) or "\\" in name:
        return ""
    joined = posixpath.normpath(posixpath.join(workspace.strip("/") or ".", name))
    if path_problem(joined):
        return ""
    return f": to read a file of the repository, name it from its top, `/{joined}`"


def _reaches(parts: list[str], folders: list[str]) -> bool:
    """Whether some path the pattern's `parts` name is the workspace folder (`folders`)
    or inside it, without case (`**` enters no folder starting with `.`)."""
    if not folders:
        return True
    if not parts:
        return False
    if parts[0] == "**":
        return _reaches(parts[1:], folders) or (
            not folders[0].startswith(".") and _reaches(parts, folders[1:])
        )
    return glob_name(folders[0].casefold(), parts[0].casefold()) and _reaches(
        parts[1:], folders[1:]
    )


@dataclass
class Lexicon:
    """Nouns, terms, file groups, verbs and templates, ready for the condition and action
    parsers. `terms` maps a phrase (`normal`) to its definition; the spec's come first."""

    vocabulary: str = ""
    nouns: list[tuple[re.Pattern[str], Noun]] = field(default_factory=list)
    terms: dict[str, Term] = field(default_factory=dict)
    file_groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    verbs: list[tuple[re.Pattern[str], Verb]] = field(default_factory=list)
    templates: str = ""
    files: TemplateFiles | None = None
    # A file's name -> its template by name (`template_of`), read once.
    known: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Phrases the core does not read are the project's own guards and callbacks.
    own_code: bool = False
    # The module the runtime imports for the vocabulary's verbs and templates: a Python
    # vocabulary's; "" for a data vocabulary, whose templates (by a file's name) the
    # generated module carries instead (`carried`).
    module: str = ""
    carried: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, options: ReadOptions) -> Lexicon:
        found = _lexicon(options.vocabulary)
        return replace(found, own_code=True) if options.own_code else found

    def with_terms(self, terms: list[Term]) -> Lexicon:
        """This lexicon with a spec's own terms, which take precedence."""
        own: dict[str, Term] = {}
        for term in terms:  # a phrase defined twice: the first definition (and a finding)
            own.setdefault(normal(term.phrase), term)
        return Lexicon(
            self.vocabulary,
            self.nouns,
            {**own, **{k: v for k, v in self.terms.items() if k not in own}},
            self.file_groups,
            self.verbs,
            self.templates,
            own_code=self.own_code,
            module=self.module,
            carried=self.carried,
        )

    def noun(self, words: str) -> Noun | None:
        text = " ".join(words.replace("`", "").split())
        return next((noun for regex, noun in self.nouns if regex.fullmatch(text)), None)

    def noun_for(self, probe: str, param: str) -> Noun | None:
        """The vocabulary's noun for a fact, for its words."""
        return next((n for _, n in self.nouns if (n.probe, n.param) == (probe, param)), None)

    def has_template(self, name: str) -> bool:
        return bool(template_file(self.templates, name)) or self._carried_only(name) is not None

    def _carried_only(self, file: str) -> str | None:
        """The template a vocabulary read from data, with no folder on disk (its text at
        a revision, `remember`), carries for a file by its name; None for any other."""
        if self.templates or self.module:
            return None
        return self.carried.get(os.path.basename(file))

    def with_files(self, options: ReadOptions) -> Lexicon:
        """This lexicon, finding templates where `options` says its project keeps them."""
        copy = replace(self, known={})
        copy.files = TemplateFiles(options.folder, options.templates, options.root)
        return copy

    def template_of(self, file: str) -> tuple[str, str]:
        """(where, text) of the template `Create F` makes the file from by its name: the
        project's templates folder's, else the vocabulary's; ("", "") where it has none,
        or none that can be used."""
        found = self.known.get(file)
        if found is None:
            key, text, problem = self.files.by_name(file) if self.files else ("", "", "")
            if not key and not problem:
                path = template_file(self.templates, file)
                where = f"the {self.vocabulary} vocabulary's {os.path.basename(path or file)}"
                key, text = (where, _read_text(path)) if path else ("", "")
                carried = self._carried_only(file)
                if not key and carried is not None:
                    key, text = where, carried
            found = self.known[file] = (key, text) if key and not problem else ("", "")
        return found


TEMPLATE_LIMIT = 1_000_000  # bytes of a template file: the runtime's READ_LIMIT


class TemplateFiles:
    """The template files a spec's `Create` actions name, read once and carried into the
    generated module (a template changed is a machine to regenerate, as a spec changed).

    A template is a file of the project's template folders: the spec's own folder (for
    `Create F from T`, T written without `..`) and its templates folder (for `Create F`
    by name), as the file is once links are resolved; never in a `.git` folder, and
    never a file git ignores (the secrets a repository keeps out of its commits, `.env`
    say), which the generated module, a committed file, would otherwise carry."""

    def __init__(self, folder: str, templates: str, root: str) -> None:
        self.folder = folder
        self.templates = templates
        self.root = root or folder
        self._ignored: dict[str, str] = {}  # a file's real path -> why git ignores it, or ""

    def named(self, written: str) -> tuple[str, str, str]:
        """`Create F from T`: (T's key, its text, "") or ("", "", why it cannot be used).
        T is relative to the spec's folder; its key is that path, with '/'."""
        path = written.strip().strip("`").strip().replace("\\", "/")
        parts = path.split("/")
        if not path or path.startswith(("/", "~")) or ":" in parts[0]:
            return "", "", f"the template {written!r} must be a path relative to the spec's folder"
        if ".." in parts:
            return (
                "",
                "",
                (
                    f"the template {written!r} leads out of the spec's folder (`..`); keep "
                    "templates in the spec's folder, or in the project's templates folder and "
                    "write `Create F from template`"
                ),
            )
        key = posixpath.normpath(path)
        folder = self.folder or os.getcwd()
        return self._read(os.path.join(folder, key), key, written, folder)

    def by_name(self, file: str) -> tuple[str, str, str]:
        """`Create F`: (key, text, "") of F's template in the templates folder; ("", "", "")
        if it has none there, ("", "", why) if it has one that cannot be used."""
        if not self.templates:
            return "", "", ""
        candidate = os.path.join(self.templates, os.path.basename(file))
        if not (os.path.isfile(candidate) or os.path.islink(candidate)):
            return "", "", ""
        key = os.path.relpath(candidate, self.folder or os.getcwd()).replace(os.sep, "/")
        return self._read(candidate, key, key, self.templates)

    def _read(self, path: str, key: str, written: str, within: str) -> tuple[str, str, str]:
        real = os.path.realpath(path)
        boundary = os.path.realpath(self.root or os.getcwd())
        if os.path.commonpath([real, boundary]) != boundary:
            return "", "", f"the template {written!r} is outside the project ({boundary})"
        folder = os.path.realpath(within)
        if os.path.commonpath([real, folder]) != folder:  # a link that leads out of it
            return (
                "",
                "",
                (
                    f"the template {written!r} is {os.path.relpath(real, boundary)}, not a file "
                    f"of the project's template folder {os.path.relpath(folder, boundary)}"
                ),
            )
        if any(is_git(part) for part in os.path.relpath(real, boundary).split(os.sep)):
            return "", "", f"the template {written!r} is in a .git folder, which is no template"
        if not os.path.isfile(real):
            where = self.folder or os.getcwd()
            return (
                "",
                "",
                f"the template {written!r} does not exist (looked for {path}; a "
                f"template's path is relative to the spec's folder, {where})",
            )
        ignored = self._git_ignores(real)
        if ignored:
            return "", "", f"the template {written!r} {ignored}"
        try:
            with open(real, "rb") as f:
                data = f.read(TEMPLATE_LIMIT + 1)
        except OSError as err:
            return "", "", f"the template {written!r} cannot be read: {err.strerror or err}"
        if len(data) > TEMPLATE_LIMIT:
            return "", "", f"the template {written!r} is over {TEMPLATE_LIMIT // 1_000_000} MB"
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return "", "", f"the template {written!r} is not UTF-8 text"
        return key, text.replace("\r\n", "\n"), ""

    def _git_ignores(self, real: str) -> str:
        """Why git keeps the file `real` out of its repository's commits ("" if it does
        not): it is untracked and ignored (`.gitignore`, `.git/info/exclude`, the user's
        excludes file). git is run as `spellbook.disk.git` runs it (the repository named, every
        setting that runs a program off); a file in no repository is ignored by none, and
        one git cannot be asked about is not taken."""
        if real not in self._ignored:
            from spellbook.disk.git import GitError, find

            repository = find(os.path.dirname(real))
            relative = repository.relative(real) if repository is not None else None
            said = ""
            if repository is not None and relative is not None:
                try:
                    listed = repository.run(
                        "ls-files", "--others", "--ignored", "--exclude-standard", "-z", "--",
                        relative,
                    )  # fmt: skip
                except GitError as err:
                    if not str(err).startswith("not a git repository"):
                        said = f"cannot be checked against what git ignores ({err})"
                else:
                    if listed.split(b"\0")[0] == os.fsencode(relative):
                        said = (
                            "is a file git ignores, kept out of the repository's commits; a "
                            "template is carried in the generated module, which is committed: "
                            "commit the template, or keep it out of what git ignores"
                        )
            self._ignored[real] = said
        return self._ignored[real]


def _read_text(path: str) -> str:
    """A vocabulary's template, as `spellbook.records.vocabulary.template` reads it (bounded)."""
    try:
        with open(path, "rb") as f:
            return f.read(TEMPLATE_LIMIT).decode("utf-8", "replace").replace("\r\n", "\n")
    except OSError:
        return ""


FILE_NAME = "vocabulary.md"  # a shipped data vocabulary's file, in the folder of its name
_LOADED: dict[str, Lexicon] = {}
# The reader of vocabularies that are data (`vocabulary_file.data_lexicon`): it reads
# tables and conditions, which read with lexicons, so it plugs itself in here
# (`reads_data`) as the package `codegen.read` is imported.
_DATA: list[Callable[[str, str], Lexicon]] = []


def reads_data(reader: Callable[[str, str], Lexicon]) -> Callable[[str, str], Lexicon]:
    """Make `reader(name, shipped file)` the reader of vocabularies that are data."""
    _DATA[:] = [reader]
    return reader


def shipped_file(name: str) -> str:
    """The file of the data vocabulary called `name` that ships with Spellbook
    (`spellbook/vocabularies/NAME/vocabulary.md`), or ""."""
    if not name.isidentifier():
        return ""
    import spellbook.vocabularies as shipped

    folder = os.path.dirname(os.path.abspath(shipped.__file__))
    path = os.path.join(folder, name, FILE_NAME)
    return path if os.path.isfile(path) else ""


def remember(name: str, lexicon: Lexicon) -> None:
    """Keep `lexicon` as the vocabulary `name` for this run: one read from data, not
    from a file or module of that name (a vocabulary file as it was at a revision)."""
    _LOADED[name] = lexicon


def is_data(name: str) -> bool:
    """Whether the vocabulary `name` is data (a file of words), not a Python module."""
    return name.endswith(".md") or bool(shipped_file(name))


def _lexicon(name: str) -> Lexicon:
    key = name
    if name.endswith(".md"):  # the project's own file: read again once it changes
        try:
            stat = os.stat(name)
            key = f"{name}\0{stat.st_mtime_ns}\0{stat.st_size}"
        except OSError:
            pass  # read_vocabulary says why it cannot be read
    found = _LOADED.get(key)
    if found is None:
        shipped = shipped_file(name)
        if name.endswith(".md") or shipped:
            found = _LOADED[key] = _DATA[0](name, shipped)
            return found
        try:
            module: ModuleType | None = load(name)
        except NotAVocabulary as err:
            raise SpecError(
                f"vocabulary {name!r}: {err}; name a vocabulary of Spellbook's, a file of "
                "the project's ending in .md, or a module of the project's that defines "
                "its words, under [tool.spellbook]",
                0,
            ) from None
        except ImportError as err:
            raise SpecError(
                f"vocabulary {name!r} cannot be loaded ({err}); name a vocabulary of "
                "Spellbook's, a file of the project's ending in .md, or an importable "
                "module, under [tool.spellbook]",
                0,
            ) from None
        except Exception as err:  # its own code failed: say so, never a traceback
            raise SpecError(
                f"vocabulary {name!r} failed as it was imported: {type(err).__name__}: {err}", 0
            ) from None
        found = _LOADED[name] = _compiled(name, module)
    return found


def _compiled(name: str, module: ModuleType | None) -> Lexicon:
    """The vocabulary's words, checked and compiled; a SpecError says what is wrong."""
    nouns = getattr(module, "NOUNS", ())
    terms = getattr(module, "TERMS", {})
    groups = getattr(module, "FILE_GROUPS", {})
    verbs = getattr(module, "VERBS", ())
    templates = getattr(module, "TEMPLATES", "") or ""

    def wrong(what: str) -> SpecError:
        return SpecError(f"vocabulary {name!r}: {what}", 0)

    if not isinstance(nouns, (tuple, list)) or not all(isinstance(n, Noun) for n in nouns):
        raise wrong("NOUNS must be a tuple of spellbook.records.vocabulary.Noun")
    if not isinstance(verbs, (tuple, list)) or not all(isinstance(v, Verb) for v in verbs):
        raise wrong("VERBS must be a tuple of spellbook.records.vocabulary.Verb")
    if not all(isinstance(w, str) for v in verbs for w in v.writes):
        raise wrong("a Verb's writes must be the names of state-file fields")
    if not isinstance(terms, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in terms.items()
    ):
        raise wrong('TERMS must map phrases to their meanings: {"phrase": "meaning"}')
    if not isinstance(groups, dict) or not all(
        isinstance(k, str) and isinstance(v, (tuple, list)) and all(isinstance(f, str) for f in v)
        for k, v in groups.items()
    ):
        raise wrong('FILE_GROUPS must map names to file names: {"name": ("a.md",)}')
    if not isinstance(templates, str):
        raise wrong("TEMPLATES must be a folder's path")
    for noun in nouns:
        if noun.probe not in PROBES or noun.probe == "unknown":
            raise wrong(f"noun {noun.name!r}: {noun.probe!r} is not a probe of the core")
    try:
        return Lexicon(
            name,
            [(re.compile(n.pattern, re.IGNORECASE), _marked(n)) for n in nouns],
            {normal(phrase): Term(phrase, means) for phrase, means in terms.items()},
            {normal(k): tuple(v) for k, v in groups.items()},
            [(re.compile(v.pattern, re.IGNORECASE), v) for v in verbs],
            templates,
            module=module_name(name) if name else "",
        )
    except (re.error, OverflowError, RecursionError) as err:
        raise wrong(f"a pattern is not a regular expression ({err})") from None


def _marked(noun: Noun) -> Noun:
    """A noun whose fact is a regular expression, with its pattern marked as the
    vocabulary's (`spellbook.facts.patterns.VOCABULARY`): the vocabulary's Python code, run with
    Python's `re` and bounded by its author, where a spec's patterns run with RE2."""
    if noun.probe != "matches":
        return noun
    param = VOCABULARY + noun.param.removeprefix(VOCABULARY)
    return Noun(noun.name, noun.pattern, noun.probe, param, noun.file, noun.yes, noun.no)
