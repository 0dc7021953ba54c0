"""Wheel build hook: the generated machines and the spec compiler go inside `spellbook`.

Each machine listed in pyproject.toml's `[tool.spellbook.machines]` (module name
-> spec) is copied from the `generated` folder into `spellbook.machines`; a wheel
built from a checkout whose generated files are missing fails here, naming the
file. The compiler (this folder) becomes `spellbook.codegen`, for the
`spellbook-verify` and `spellbook-codegen` commands of the `codegen` extra.
Nothing named `generated` or `codegen` is installed at the top level.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class MachinesHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        with open(os.path.join(self.root, "pyproject.toml"), "rb") as f:
            config = tomllib.load(f)["tool"]["spellbook"]
        folder = config.get("generated", "generated")
        for name in config.get("machines", {}):
            source = os.path.join(self.root, folder, f"{name}.py")
            if not os.path.isfile(source):
                raise FileNotFoundError(f"{source} is missing: run `python -m codegen`")
            build_data["force_include"][source] = f"spellbook/machines/{name}.py"
        here = os.path.dirname(os.path.abspath(__file__))
        for folder, dirs, files in os.walk(here):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for file in files:
                path = os.path.join(folder, file)
                if file.endswith((".py", ".j2")) and path != os.path.abspath(__file__):
                    inside = os.path.relpath(path, here).replace(os.sep, "/")
                    build_data["force_include"][path] = f"spellbook/codegen/{inside}"
