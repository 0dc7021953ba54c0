"""Test options: `--update-cases` rewrites the golden files under tests/cases/."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-cases",
        action="store_true",
        help="rewrite the expected files of tests/cases/ from the current output",
    )


@pytest.fixture
def update_cases(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-cases"))
