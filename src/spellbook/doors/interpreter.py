"""Where the Python that runs the hook loads code from: what a tool call must not write,
since a `.pth` file, a `sitecustomize` or a module written there would run at the
hook's next call, outside the assistant's permission prompts.

Its installation is guarded whole (`guarded`'s trees): its prefixes (a virtual
environment's, its scripts too), the `bin` and `lib` folders of the base installation
it was made from (the interpreter, its shared library, the standard library's zip),
its executable and the script it was started as (`spell`, pipx's link to it), each
with its folder (links resolved), site-packages and the user's, the standard library,
Spellbook's own package and machines; and every entry of its module path (`sys.path`)
that packages are installed in (one holding a `.dist-info`: `PYTHONPATH` or a `.pth`
file may name one).

Every other entry of the module path (a folder a `.pth` file adds, such as a project
installed in editable mode, its `src/`; `PYTHONPATH`; the current folder of
`python -m`; a zip file) is guarded by the names Python takes from it in the hook
(`guarded`'s entries): the entry itself, the folders holding it, and what it holds
under a name the hook's Python imports of its own accord (`imported`): `sitecustomize`
and `usercustomize`, run at start-up, a module of the standard library, of an
installed package, of Spellbook, and bytecode (`__pycache__`). Any other module the
hook imports while it judges (a project's vocabulary, and what that imports) runs
from the installation or as the repository's HEAD holds it, never from such an entry
(`spellbook.doors.committed`): so the rest of the entry stays the project's to write.
"""

from __future__ import annotations

import os
import sys

BASE_FOLDERS = ("bin", "lib", "lib64")  # of a base installation: its programs, its libraries
INSTALLED_MARK = ".dist-info"  # a folder packages are installed in holds one for each


def guarded() -> tuple[list[str], list[str]]:
    """(trees, entries): the installation's folders and files, guarded whole, and the
    other entries of the module path, guarded by name (see the module's doc). Absolute,
    as written."""
    trees = list(_installation())
    folders = [os.path.join(os.path.realpath(f), "") for f in trees]
    entries: list[str] = []
    for entry in sys.path:
        if not isinstance(entry, str):
            continue
        full = os.path.abspath(entry or os.curdir)  # "": the current folder
        if any(os.path.join(os.path.realpath(full), "").startswith(f) for f in folders):
            continue  # a virtual environment's own (one inside a project too)
        (trees if _packages_in(full) else entries).append(full)
    return list(dict.fromkeys(trees)), list(dict.fromkeys(entries))


def installed() -> list[str]:
    """The installation (`guarded`'s trees) as it is now, links resolved."""
    return list(dict.fromkeys(os.path.realpath(f) for f in guarded()[0]))


_INSTALLATION: list[str] = []  # the same while the process lasts


def _installation() -> list[str]:
    """The installation of the Python running this, but for the entries of its module
    path that packages are installed in (which change with the path)."""
    if _INSTALLATION:
        return _INSTALLATION
    from spellbook import machines

    found = [sys.prefix, sys.exec_prefix, os.path.dirname(os.__file__)]  # os: the standard library
    for base in dict.fromkeys((sys.base_prefix, sys.base_exec_prefix)):
        found += [os.path.join(base, name) for name in BASE_FOLDERS]
    for program in (sys.executable, getattr(sys, "_base_executable", ""), _started_as()):
        if program:
            real = os.path.realpath(program)
            found += [program, real, os.path.dirname(real)]
    found += _site_folders()
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # spellbook
    found += [package, *machines.__path__]
    _INSTALLATION.extend(dict.fromkeys(os.path.abspath(f) for f in found if f))
    return _INSTALLATION


def _site_folders() -> list[str]:
    """site-packages, and the user's."""
    import site

    found = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    found.append(site.getusersitepackages() if hasattr(site, "getusersitepackages") else "")
    return [f for f in found if f]


def _started_as() -> str:
    """The script the hook was started as (`spell`, or a link to it that pipx put on
    PATH), if it was started as one."""
    argv = getattr(sys, "argv", None) or [""]
    started = argv[0] if isinstance(argv[0], str) else ""
    return os.path.abspath(started) if started and os.path.isfile(started) else ""


def _packages_in(folder: str) -> bool:
    """Whether packages are installed in `folder` (it holds a `.dist-info`)."""
    return any(name.endswith(INSTALLED_MARK) for name in _listed(folder))


_IMPORTED: list[frozenset[str]] = []


def imported() -> frozenset[str]:
    """The names (folded as `schema.folded_name` folds) of the modules the hook's Python
    may import of its own accord: at start-up, of the standard library, of each
    package installed (in site-packages, or an entry of the module path packages are
    installed in), of Spellbook, and of any module it has imported so far."""
    if not _IMPORTED:
        from spellbook.disk.own_files import folded_name

        names: set[str] = {"sitecustomize", "usercustomize", "spellbook", "__pycache__"}
        names.update(sys.stdlib_module_names, sys.builtin_module_names)
        names.update(name.partition(".")[0] for name in list(sys.modules))
        sites = _site_folders()
        for folder in dict.fromkeys([*sites, *(e for e in sys.path if isinstance(e, str) and e)]):
            listed = _listed(folder)
            if folder in sites or any(name.endswith(INSTALLED_MARK) for name in listed):
                names.update(module_name(name) for name in listed)
        _IMPORTED.append(frozenset(folded_name(name) for name in names))
    return _IMPORTED[0]


def module_name(name: str) -> str:
    """The module a file or folder of a module path's entry is imported as (`json.py`,
    `json.cpython-311-x86_64-linux-gnu.so`, the package `json`: `json`)."""
    return name.partition(".")[0]


def _listed(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except (OSError, ValueError):
        return []
