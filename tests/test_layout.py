"""The architecture, drawn from the imports: the compiler's stages import only the stages
before them, the runtime's layers only the layers before them, the IR imports nothing of
the compiler, the runtime never imports the compiler or its libraries, and no module
imports itself through others.

Every `import` counts, those inside functions included (a lazy import is still an
import). The stages and layers are read from docs/reference/architecture.md, their one
source.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"codegen": ROOT / "codegen", "spellbook": ROOT / "src" / "spellbook"}

# The layers, one table per package in import order: docs/reference/architecture.md.
ARCHITECTURE = ROOT / "docs" / "reference" / "architecture.md"
# The compiler's own libraries, which the runtime never loads.
COMPILER_LIBRARIES = {"mistune", "jinja2", "black", "codegen"}


def _module_name(path: Path, package: str, root: Path) -> str:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path, package, root): path
        for package, root in PACKAGES.items()
        for path in root.rglob("*.py")
        if "__pycache__" not in path.parts
    }


MODULES = _modules()


def _imported(name: str, path: Path) -> Iterator[str]:
    """Every module `name` imports (absolute names), wherever in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:  # `from . import x` may import the module `x`
                full = f"{module}.{alias.name}"
                yield full if full in MODULES else module


def _project_imports(name: str) -> set[str]:
    """The project's modules `name` imports, each by its own name."""
    return {
        found
        for imported in _imported(name, MODULES[name])
        for found in [_owner(imported)]
        if found is not None and found != name
    }


def _owner(imported: str) -> str | None:
    """The project module an import names (a name inside a module names the module)."""
    while imported and imported not in MODULES:
        imported = imported.rpartition(".")[0]
    return imported or None


GRAPH = {name: _project_imports(name) for name in MODULES}


_HEADING = re.compile(r"^#+ .*?`(?P<folder>[\w/.]+/)`", re.MULTILINE)
_ROW = re.compile(r"^\|(?P<first>[^|\n]*)\|.*\|[ \t]*$", re.MULTILINE)


def _tables(text: str) -> dict[str, list[list[str]]]:
    """Each package's table on the page: its folder (from the heading above it) -> its
    rows in order, each the paths (files, or folders ending in `/`) its first cell names."""
    found: dict[str, list[list[str]]] = {}
    headings = list(_HEADING.finditer(text))
    for at, heading in enumerate(headings):
        end = headings[at + 1].start() if at + 1 < len(headings) else len(text)
        rows = [
            re.findall(r"`([^`]+)`", row["first"])
            for row in _ROW.finditer(text, heading.end(), end)
            if "`" in row["first"]
        ]
        if rows:
            found[heading["folder"]] = rows
    return found


TABLES = _tables(ARCHITECTURE.read_text(encoding="utf-8"))


def _layer(name: str) -> tuple[int, ...]:
    """Where `name` sits: its row in the table of each folder it is in, outermost first.
    A package's `__init__` sits in the tables above its own folder only."""
    path = MODULES[name].relative_to(ROOT).as_posix()
    inside = path.rpartition("/")[0] + "/" if path.endswith("/__init__.py") else path
    found = []
    for folder, rows in sorted(TABLES.items(), key=lambda item: len(item[0])):
        if not inside.startswith(folder) or inside == folder:
            continue
        here = path[len(folder) :]
        hits = [
            i
            for i, row in enumerate(rows)
            for p in row
            if here == p or (p.endswith("/") and here.startswith(p))
        ]
        assert hits, (
            f"{name} ({path}) is in no layer of {folder}: add it to a row of the table of "
            f"{folder} in {ARCHITECTURE.relative_to(ROOT)}, or move it"
        )
        found.append(hits[0])
    assert found, f"{name} ({path}) is in no table of {ARCHITECTURE.relative_to(ROOT)}"
    return tuple(found)


def _after(one: tuple[int, ...], other: tuple[int, ...]) -> bool:
    """Whether the layer `one` is below `other`, where their tables are the same."""
    common = min(len(one), len(other))
    return one[:common] > other[:common]


def test_the_layout_is_read_from_every_module() -> None:
    assert "codegen.read.markdown" in MODULES and "spellbook.cast.workflow" in MODULES
    assert len(MODULES) > 50


def test_no_module_imports_itself_through_others() -> None:
    circles = []
    for start in GRAPH:
        seen, stack = set(), [(start, (start,))]
        while stack:
            current, path = stack.pop()
            for nxt in GRAPH[current]:
                if nxt == start:
                    circles.append(" -> ".join((*path, start)))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, (*path, nxt)))
    assert not circles, circles


def test_the_ir_imports_nothing_of_the_compiler() -> None:
    assert not {m for m in GRAPH["codegen.model"] if m.startswith("codegen")}


def test_the_layer_map_names_only_modules_there_are() -> None:
    assert {"codegen/", "src/spellbook/", "src/spellbook/facts/"} <= set(TABLES), TABLES.keys()
    missing = [
        folder + path
        for folder, rows in TABLES.items()
        for row in rows
        for path in row
        if not (ROOT / folder / path).exists()
    ]
    assert not missing, f"{ARCHITECTURE.relative_to(ROOT)} names what is not there: {missing}"
    twice = [
        folder + path
        for folder, rows in TABLES.items()
        for path in {p for row in rows for p in row}
        if sum(row.count(path) for row in rows) > 1
    ]
    assert not twice, f"{ARCHITECTURE.relative_to(ROOT)} names these in two rows: {twice}"


def test_every_folder_of_modules_has_its_own_table() -> None:
    """Each folder that holds modules (the compiler's stages as well as the runtime's
    layers) orders them in a table of its own, so a module there is in exactly one row."""
    folders = {
        path.parent.relative_to(ROOT).as_posix() + "/"
        for path in MODULES.values()
        if path.name != "__init__.py"
    }
    assert {"codegen/read/", "codegen/analyse/", "codegen/cli/"} <= folders
    missing = sorted(folders - set(TABLES))
    assert not missing, f"{ARCHITECTURE.relative_to(ROOT)} has no table of {missing}"


def test_a_module_in_no_layer_is_named() -> None:
    with pytest.raises(AssertionError, match=r"spellbook.doors.cli .* is in no layer of src/"):
        saved = TABLES["src/spellbook/doors/"]
        TABLES["src/spellbook/doors/"] = [row for row in saved if "cli.py" not in row]
        try:
            _layer("spellbook.doors.cli")
        finally:
            TABLES["src/spellbook/doors/"] = saved


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("codegen")))
def test_a_compiler_stage_imports_only_the_stages_before_it(name: str) -> None:
    if name in ("codegen", "codegen.hatch_build"):  # the package's re-exports; a build hook
        return
    stage = _layer(name)
    later = [m for m in GRAPH[name] if m.startswith("codegen.") and _after(_layer(m), stage)]
    assert not later, f"{name} (stage {stage}) imports later stages: {later}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("spellbook.")))
def test_a_runtime_module_imports_only_the_layers_before_it(name: str) -> None:
    layer = _layer(name)
    later = [m for m in GRAPH[name] if m.startswith("spellbook.") and _after(_layer(m), layer)]
    assert not later, f"{name} (layer {layer}) imports later layers: {later}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("spellbook")))
def test_the_runtime_never_imports_the_compiler_or_its_libraries(name: str) -> None:
    found = {m.split(".")[0] for m in _imported(name, MODULES[name])} & COMPILER_LIBRARIES
    assert not found, f"{name} imports {found}"


def test_the_generated_machines_import_only_the_runtime() -> None:
    for path in sorted((ROOT / "generated").glob("*.py")):
        found = set(_imported(f"generated.{path.stem}", path))
        roots = {m.split(".")[0] for m in found}
        assert roots <= {"__future__", "transitions", "spellbook", "collections", "typing"}, (
            path.name,
            roots,
        )


def test_whether_a_file_holds_json_or_frontmatter_is_decided_in_one_place() -> None:
    """`spellbook.facts.json_values.is_json` decides whether a file's values are its JSON or its
    frontmatter, for facts, actions, the reader and the verifier alike."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in PACKAGES.values()
        for path in sorted(folder.rglob("*.py"))
        if path.name != "json_values.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if 'endswith(".json")' in line
    ]
    assert not found, found


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("spellbook")))
def test_no_runtime_module_is_over_650_lines(name: str) -> None:
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= 650, f"{name} has {lines} lines: split it by subject"


@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n, path in MODULES.items()
        if n.startswith("spellbook.") and path.name == "__init__.py" and n != "spellbook.machines"
    ),
)
def test_a_runtime_folder_costs_no_import(name: str) -> None:
    """A layer's folder is a docstring only: importing one of its modules loads nothing
    more (the cold start of `spell` is measured)."""
    body = ast.parse(MODULES[name].read_text(encoding="utf-8")).body
    assert len(body) == 1 and isinstance(body[0], ast.Expr), f"{name} does more than say"


def test_no_class_name_is_defined_in_both_the_compiler_and_the_runtime() -> None:
    """One name, one thing: the compiler's records (`StateSpec`, `RuleSpec`, ...) are named
    apart from the runtime's (`State`, `Rule`, ...), which generated modules import."""
    defined: dict[str, dict[str, list[str]]] = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    where = str(path.relative_to(ROOT))
                    defined.setdefault(node.name, {}).setdefault(package, []).append(where)
    shared = {name: found for name, found in defined.items() if len(found) > 1}
    assert not shared, shared
