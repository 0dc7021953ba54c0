"""How the compiler reads a project's `[tool.spellbook]` (pyproject.toml).

The table itself, its keys and what each may hold, belong to the runtime
(`spellbook.disk.project`, which documents them): `spell --machine NAME` and `python -m
codegen` read the same machines from it. Here each machine gets its `ReadOptions`: the
vocabulary module and the header names, by column role, that its spec is read
with (`columns = { condition = ["Wenn"] }`; the roles are `codegen.read.rows.ROLES`),
and whether its unread phrases are the project's own code (`own_code`).
A spec that is not listed is read with the top-level `vocabulary`, `columns`, `unlisted`
and `own_code`.
"""

from __future__ import annotations

import keyword
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from spellbook.disk.loading import importable as _importable
from spellbook.disk.loading import outside_projects
from spellbook.disk.paths import is_git
from spellbook.disk.project import (
    PROJECT_LIMIT,
    PYPROJECT,
    Entry,
    Project,
    ProjectError,
    find_project,
    read_project,
)
from spellbook.disk.toml_lines import line_of
from spellbook.records.vocabulary import PACKAGE, module_name

from .read.lexicon import ReadOptions, is_data, normal
from .read.rows import ROLES
from .spec_error import SpecError

DEFAULT_OUT = "generated"
SPEC_DIR = "spec"  # where specs no machine lists are found


@dataclass(frozen=True)
class Machine:
    module: str
    spec: str
    options: ReadOptions  # with where its templates are found (`with_templates`)
    allow_errors: bool = False
    report: str = ""  # the verification report written beside the module ("" for none)


@dataclass(frozen=True)
class Config:
    out: str
    machines: tuple[Machine, ...]
    options: ReadOptions  # for specs no machine lists
    templates: str = ""
    root: str = ""
    documents: tuple[str, ...] = ()  # markdown whose spellbook parts codegen refreshes

    def machines_for(self, spec: str) -> list[Machine]:
        """Every machine the project lists for a spec (one per section of a file of
        several), or the one it reads an unlisted spec as."""
        return [m for m in self.machines if m.spec == spec] or [self.machine_for(spec)]

    def machine_for(self, spec: str, section: str | None = None) -> Machine:
        """The machine a spec (relative to the project root, with '/') is configured as:
        with `section`, read from that section (as the entry listing it is, if one
        does). A spec listed for several sections is read whole, with the first one's
        settings: each of its machines on its own."""
        listed = [m for m in self.machines if m.spec == spec]
        if section is not None:
            found = next((m for m in listed if normal(m.options.section) == normal(section)), None)
            chosen = found or (listed[0] if listed else self.machine_for(spec))
            return replace(chosen, options=replace(chosen.options, section=section))
        if len(listed) > 1:
            return replace(listed[0], options=replace(listed[0].options, section=""))
        if listed:
            return listed[0]
        options = self.options
        if self.root:
            options = with_templates(options, Path(self.root), spec, self.templates)
        return Machine(module_for(spec), spec, options)


def targets(root: Path, config: Config, specs: list[str] | None) -> list[Machine]:
    """The machines to generate or verify: the specs given; else the machines the project
    lists (a scratch copy in spec/ is not one), or every spec/*.md where it lists none."""
    if specs:
        chosen = [relative(s, root) for s in specs]
    elif config.machines:
        return list(config.machines)
    else:
        chosen = sorted({relative(p, root) for p in (root / SPEC_DIR).glob("*.md")})
    return [m for spec in dict.fromkeys(chosen) for m in config.machines_for(spec)]


def module_for(spec: str) -> str:
    """The module an unlisted spec becomes: its file's name as an identifier, so the
    module can be imported (`spec/Release plan.md` is `release_plan`)."""
    name = re.sub(r"\W+", "_", Path(spec).stem.lower()).strip("_") or "machine"
    return f"_{name}" if name[0].isdigit() or keyword.iskeyword(name) else name


def _fail(message: str) -> SpecError:
    return SpecError(message, 0).locate(PYPROJECT, None)


def setting_error(root: Path, keys: tuple[str, ...], value: str | None, message: str) -> SpecError:
    """A SpecError at the line of the project's pyproject.toml that writes the key `keys`
    of `[tool.spellbook]` (with `value`: the line of that value, one of a list's), with
    that line shown; at the file as a whole where no line can be told (a default, a
    spelling this does not follow). The runtime finds the line (`located`)."""
    try:
        with open(root / PYPROJECT, "rb") as f:
            text = f.read(PROJECT_LIMIT).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return SpecError(message, 0).locate(PYPROJECT, None)
    return SpecError(message, line_of(text, keys, value)).locate(PYPROJECT, text)


def _read_options(
    vocabulary: str,
    columns: dict[str, list[str]] | None,
    default: ReadOptions,
    own_code: bool,
    root: str = "",
    at: tuple[str, ...] = (),
    vocabulary_at: tuple[str, ...] = ("vocabulary",),
) -> ReadOptions:
    """`at`: the machine whose columns these are (`()`: the top level's); `vocabulary_at`:
    the key that names the vocabulary (a machine's, or the top level's it inherits)."""
    if root and vocabulary.endswith(".md") and not Path(vocabulary).is_absolute():
        # once: the default's is made so
        vocabulary = vocabulary_file(vocabulary, Path(root), keys=vocabulary_at)
    if columns is None:
        return ReadOptions(vocabulary, default.columns, own_code=own_code)
    unknown = [k for k in columns if k.replace("_", " ").lower() not in ROLES]
    if unknown:
        where = f"machines.{at[1]}: " if at else ""
        message = (
            f"[tool.spellbook] {where}columns: {', '.join(map(repr, unknown))} is not a column "
            f"role; the roles are {', '.join(r.replace(' ', '_') for r in ROLES)}"
        )
        if not root:
            raise _fail(message)
        raise setting_error(Path(root), (*at, "columns", unknown[0]), None, message)
    return ReadOptions(
        vocabulary, tuple((k, tuple(v)) for k, v in columns.items()), own_code=own_code
    )


def load_config(root: Path) -> Config:
    """The project's `[tool.spellbook]` (`spellbook.disk.project`), with each machine's way of
    reading its spec; defaults where there is none, an error (a SpecError naming
    pyproject.toml) for anything it cannot take. Read once while its pyproject.toml is
    the same file: a run over a project's N machines asks it for each (N x N machines
    built, 81 s for 1,000, where it is read once)."""
    try:
        seen = os.stat(os.path.join(root, PYPROJECT))
        key = (os.path.realpath(root), seen.st_mtime_ns, seen.st_size, seen.st_ino)
    except OSError:
        key = None  # no pyproject.toml (defaults), or one `read_project` says why of
    if key is not None and key in _CONFIGS:
        return _CONFIGS[key]
    try:
        project = read_project(str(root))
    except ProjectError as err:
        found = SpecError(err.detail or str(err).removeprefix(f"{PYPROJECT}: "), err.line)
        found.source_line = err.source_line or None
        raise found.locate(PYPROJECT, None) from None
    config = config_of(project)
    if key is not None:
        if len(_CONFIGS) >= 8:
            _CONFIGS.clear()
        _CONFIGS[key] = config
    return config


_CONFIGS: dict[tuple[str, int, int, int], Config] = {}


def forget_configs() -> None:
    """Read each project's configuration afresh from now on (a command's run starts so:
    the files it names, a vocabulary's, may have changed, its pyproject.toml not)."""
    _CONFIGS.clear()


def config_of(project: Project) -> Config:
    default = replace(
        _read_options(
            project.vocabulary, project.columns, ReadOptions(), project.own_code, project.root
        ),
        unlisted=project.unlisted,
    )
    return Config(
        project.generated,
        tuple(_machine(project, entry, default) for entry in project.machines),
        default,
        project.templates,
        project.root,
        project.documents,
    )


def _machine(project: Project, entry: Entry, default: ReadOptions) -> Machine:
    at = ("machines", entry.name)
    vocabulary = default.vocabulary if entry.vocabulary is None else entry.vocabulary
    unlisted = default.unlisted if entry.unlisted is None else entry.unlisted
    options = with_templates(
        replace(
            _read_options(
                vocabulary,
                entry.columns,
                default,
                project.own_code_of(entry),
                project.root,
                at,
                ("vocabulary",) if entry.vocabulary is None else (*at, "vocabulary"),
            ),
            section=entry.section,
            unlisted=unlisted,
        ),
        Path(project.root),
        entry.spec,
        project.templates_of(entry),
        ("templates",) if entry.templates is None else (*at, "templates"),
    )
    from spellbook.disk.shared_state import state_files

    options = replace(
        options,
        generated=relative(Path(project.root, project.generated), Path(project.root)),
        others=tuple(state_files(project.root, exclude=project.module_path(entry))),
    )
    return Machine(entry.name, entry.spec, options, entry.allow_errors, entry.report)


def with_templates(
    options: ReadOptions,
    root: Path,
    spec: str,
    templates: str,
    keys: tuple[str, ...] = ("templates",),
    project: Path | None = None,
) -> ReadOptions:
    """The read options, finding templates as the spec `spec` (relative to the project `root`)
    does: `Create F from T` relative to the spec's folder; `Create F` in the configured
    templates folder (relative to the root), else in `templates/` beside the spec; none
    outside the root (the spec's folder, for a spec outside it). `keys`: the key of the
    `project`'s pyproject.toml (`root`'s, if None) that names `templates`."""
    project = root if project is None else project
    folder = (root / spec).resolve().parent
    root = root.resolve()
    if root not in (folder, *folder.parents):
        root = folder
    found = root / templates if templates else folder / "templates"
    if templates and not _is_folder(found):  # a `Create F` would make F empty, saying nothing
        where = f"machines.{keys[1]}: " if keys[0] == "machines" else ""
        raise setting_error(
            project,
            keys,
            None,
            f"[tool.spellbook] {where}templates = {templates!r} is not a folder of the project "
            f"({found}); create it, or remove the key",
        )
    return replace(
        options,
        folder=str(folder),
        templates=str(found.resolve()) if _is_folder(found) else "",
        root=str(root),
    )


def _is_folder(path: Path) -> bool:
    """Whether `path` is a folder; a name too long to look up, or one this user may not
    look at, is none (Path.is_dir raises on those before Python 3.12)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def importable(root: Path) -> None:
    """Let a project's own vocabulary modules be imported, as the runtime does."""
    _importable(str(root))


def relative(path: str | Path, root: Path) -> str:
    """The path as it is shown in generated files: relative to the root, with '/'."""
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def project_of(path: str | Path) -> Path | None:
    """The project that holds the file `path` (`spellbook.disk.project.find_project`)."""
    found = _found(str(Path(path).resolve().parent))
    return None if found is None else Path(found)


def _found(start: str) -> str | None:
    """`find_project(start)`, a SpecError naming pyproject.toml where it cannot be taken
    (a symbolic link)."""
    try:
        return find_project(start)
    except ProjectError as err:
        raise SpecError(str(err), 0).locate(PYPROJECT, None) from None


def options_for(
    path: str | Path,
    fallback: Path | None = None,
    trust: bool = False,
    vocabulary: str | None = None,
    section: str | None = None,
) -> ReadOptions:
    """How the project that holds `path` reads it (or the project at `fallback`, for a
    file outside any project); the core alone when neither configures one. `vocabulary`
    replaces the one the project names; `section` the section it reads (as the entry
    listing that section does, if one does).

    The trust boundary: a vocabulary is Python, so one that does not ship with
    Spellbook is imported only from the project this command runs in (the current
    folder's), or with `trust`. A spec someone sent, in a project of its own, is read
    with the shipped vocabularies only, and a SpecError says why any other is not."""
    root = project_of(path)
    trusted = trust or root is None or _here() == root.resolve()
    if root is None:
        root = fallback
    if root is None:
        spec = Path(path).resolve()
        return with_templates(ReadOptions(section=section or ""), spec.parent, spec.name, "")
    config = load_config(root)
    options = config.machine_for(relative(path, root), section).options
    if vocabulary is not None:
        options = replace(options, vocabulary=_own_file(vocabulary, root, cli=True))
    if not trusted:
        _refuse_untrusted(options.vocabulary, root)
    else:
        importable(root)
        _refuse_outside(options.vocabulary, root)
    options = replace(options, generated=relative(Path(root, config.out), root))
    if options.folder != str(Path(path).resolve().parent):  # outside the root
        spec = Path(path).resolve()
        return with_templates(
            options, spec.parent, spec.name, config.templates, project=Path(config.root)
        )
    return options


def unlisted_note(path: str | Path, options: ReadOptions) -> str:
    """Where a spec no machine of its project lists is read with other words than the
    listed machines are (a copy of one, `spec/x.md`, read without its vocabulary file):
    a sentence naming them and the option that reads it as they are; else ""."""
    root = project_of(path)
    if root is None:
        return ""
    config = load_config(root)
    spec = relative(path, root)
    if any(m.spec == spec for m in config.machines):
        return ""
    other = [
        m for m in config.machines if m.options.vocabulary.endswith(".md")
        and m.options.vocabulary != options.vocabulary
    ]  # fmt: skip
    if not other:
        return ""
    first = other[0]
    words = relative(first.options.vocabulary, root)
    return (
        f"{spec} is no machine pyproject.toml lists, so it is read with the project's own "
        f"settings, not a listed machine's: {first.module.rsplit('.', 1)[-1]} reads "
        f"{first.spec} with {words}; --vocabulary {words} reads this one with it"
    )


def _here() -> Path | None:
    """The project the command runs in: the one that holds the current folder."""
    found = _found(str(Path.cwd()))
    return None if found is None else Path(found).resolve()


def _own_file(vocabulary: str, root: Path, cli: bool = False) -> str:
    """`vocabulary`, a project's own vocabulary file (`.md`) made an absolute path."""
    return vocabulary_file(vocabulary, root, cli) if vocabulary.endswith(".md") else vocabulary


def vocabulary_file(
    written: str, root: Path, cli: bool = False, keys: tuple[str, ...] = ("vocabulary",)
) -> str:
    """The absolute path of the project's own vocabulary file `written` (relative to the
    project's `root`): a file of the project, as a template is, with no `..` out of it,
    not in a `.git` folder, no link out of it, and not one git ignores (a generated
    module made from it is committed). A SpecError at the pyproject.toml line naming it
    (or `--vocabulary`, with `cli`) says why not."""
    from .read.lexicon import TemplateFiles

    def refused(why: str) -> SpecError:
        message = f"vocabulary = {written!r}: {why}"
        if cli:
            return SpecError(f"--vocabulary {written!r}: {why}", 0).locate("--vocabulary", None)
        return setting_error(root, keys, written, message)

    path = written.strip().replace("\\", "/")
    parts = path.split("/")
    if not path or path.startswith(("/", "~")) or ":" in parts[0] or ".." in parts:
        raise refused(
            "a vocabulary file's path is relative to the project's root, inside it, "
            f"with no `..` ({root})"
        )
    full = (root / path).resolve()
    boundary = root.resolve()
    if boundary != full and boundary not in full.parents:
        raise refused(f"it is {full}, outside the project ({boundary}): a link leads out")
    if any(is_git(part) for part in full.relative_to(boundary).parts):
        raise refused("it is in a .git folder, which Spellbook never reads")
    if not full.is_file():
        raise refused(f"there is no such file in the project (looked for {full})")
    ignored = TemplateFiles(str(boundary), "", str(boundary))._git_ignores(str(full))
    if ignored:
        raise refused(ignored.replace("a template is carried", "its words are carried"))
    return str(full)


def _refuse_outside(vocabulary: str, root: Path) -> None:
    """A SpecError where the project's vocabulary is a Python module that would be
    imported from outside it (an installed package, `vocabulary = "jinja2"`): its words
    in Python are its own modules, found from its root, and naming another would run that
    module's code."""
    if not vocabulary or is_data(vocabulary) or module_name(vocabulary).startswith(f"{PACKAGE}."):
        return
    where = outside_projects(module_name(vocabulary))
    if where:
        raise SpecError(
            f"the project's vocabulary {vocabulary!r} is no module of the project: it would "
            f"be imported from {where}; a vocabulary in Python is a module of the project, "
            "found from its root (`words`, `my_project.words`), and importing another runs "
            "its code",
            0,
        ).locate(str(root / "pyproject.toml"), None)


def _refuse_untrusted(vocabulary: str, root: Path) -> None:
    """A SpecError unless `vocabulary` is none, data (a file of words: shipped with
    Spellbook, or the project's own `.md`), or a Python module that ships with Spellbook."""
    if not vocabulary or is_data(vocabulary) or module_name(vocabulary).startswith(f"{PACKAGE}."):
        return
    raise SpecError(
        f"the project at {root} names the vocabulary {vocabulary!r}, a Python module of "
        "its own; it is imported only from the project this command runs in, since "
        "importing it runs its code. Run the command in that project, or pass --trust "
        "if you trust its code",
        0,
    ).locate(str(root / "pyproject.toml"), None)
