"""Test options: `--update-cases` rewrites the golden files under tests/data/cases/."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-cases",
        action="store_true",
        help="rewrite the expected files of tests/data/cases/ from the current output",
    )


@pytest.fixture
def update_cases(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-cases"))


def pytest_configure(config: pytest.Config) -> None:
    """The commands the tests run keep what they cache (a project's parsed
    `[tool.spellbook]`) in a folder of this run, not the user's."""
    import os
    import tempfile

    if "SPELLBOOK_CACHE" not in os.environ:
        os.environ["SPELLBOOK_CACHE"] = tempfile.mkdtemp(prefix="spellbook-cache-")
        config.stash[_CACHE] = os.environ["SPELLBOOK_CACHE"]


def pytest_unconfigure(config: pytest.Config) -> None:
    import shutil

    folder = config.stash.get(_CACHE, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


_CACHE = pytest.StashKey[str]()
