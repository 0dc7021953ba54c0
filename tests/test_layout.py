"""The architecture, drawn from the imports: the compiler's stages import only the stages
before them, the IR imports nothing of the compiler, the runtime never imports the
compiler or its libraries, and no module imports itself through others.

Every `import` counts, those inside functions included (a lazy import is still an
import). docs/reference/development.md describes the same layout.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"codegen": ROOT / "codegen", "spellbook": ROOT / "src" / "spellbook"}

# The compiler's stages in order: a module may import its own stage's modules and
# those of the stages before it, never a later stage's.
STAGES = (
    ("codegen.model", "codegen.spec_error", "codegen.budget"),
    ("codegen.logic", "codegen.solver"),
    ("codegen.read",),
    ("codegen.expand", "codegen.config"),
    ("codegen.pipeline",),
    ("codegen.analyse",),
    ("codegen.render", "codegen.diff"),
    ("codegen.cli", "codegen.__main__"),
)
# The runtime's layers, in the same way (docs/reference/development.md's table).
RUNTIME = (
    ("spellbook.drawn",),
    (
        "spellbook.schema",
        "spellbook.errors",
        "spellbook.exits",
        "spellbook.vocabulary",
        "spellbook.terminal",
        "spellbook.subcommands",
    ),
    ("spellbook.git",),
    ("spellbook.diagram", "spellbook.machines", "spellbook.project"),
    ("spellbook.lock",),
    ("spellbook.state_file", "spellbook.store", "spellbook.outcome"),
    ("spellbook.interpreter", "spellbook.committed"),
    (
        "spellbook.values",
        "spellbook.globs",
        "spellbook.sections",
        "spellbook.names",
        "spellbook.patterns",
    ),
    ("spellbook.frontmatter",),
    ("spellbook.probes", "spellbook.commands"),
    ("spellbook.facts",),
    ("spellbook.actions", "spellbook.edits", "spellbook.responses"),
    ("spellbook.vocabularies",),
    ("spellbook.engine",),
    ("spellbook.journal", "spellbook.foresight", "spellbook.adapter"),
    ("spellbook.recall", "spellbook.kept"),
    ("spellbook.judge", "spellbook.repair"),
    ("spellbook.workflow",),
    ("spellbook.wire",),
    ("spellbook.repository", "spellbook.server"),
    ("spellbook.guarded", "spellbook.tool_paths"),
    ("spellbook.places",),
    ("spellbook.hook",),
    ("spellbook.cli", "spellbook.compiler", "spellbook.__main__"),
)
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


def _stage(name: str, stages: tuple[tuple[str, ...], ...] = STAGES) -> int | None:
    for index, stage in enumerate(stages):
        if any(name == prefix or name.startswith(prefix + ".") for prefix in stage):
            return index
    return None


def test_the_layout_is_read_from_every_module() -> None:
    assert "codegen.read.markdown" in MODULES and "spellbook.workflow" in MODULES
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


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("codegen")))
def test_a_compiler_stage_imports_only_the_stages_before_it(name: str) -> None:
    if name in ("codegen", "codegen.hatch_build"):  # the package's re-exports; a build hook
        return
    stage = _stage(name)
    assert stage is not None, f"{name} is in no stage of STAGES: add it, or move it"
    later = [m for m in GRAPH[name] if m.startswith("codegen") and (_stage(m) or 0) > stage]
    assert not later, f"{name} (stage {stage}) imports later stages: {later}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("spellbook.")))
def test_a_runtime_module_imports_only_the_layers_before_it(name: str) -> None:
    layer = _stage(name, RUNTIME)
    assert layer is not None, f"{name} is in no layer of RUNTIME: add it, or move it"
    later = [
        m for m in GRAPH[name] if m.startswith("spellbook.") and (_stage(m, RUNTIME) or 0) > layer
    ]
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
    """`spellbook.values.is_json` decides whether a file's values are its JSON or its
    frontmatter, for facts, actions, the reader and the verifier alike."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in PACKAGES.values()
        for path in sorted(folder.rglob("*.py"))
        if path.name != "values.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if 'endswith(".json")' in line
    ]
    assert not found, found
