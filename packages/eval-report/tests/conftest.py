"""Session fixtures of the report's tests: the Matrix, swept once, and one browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from report_fixtures import Matrix, build_matrix


@pytest.fixture(scope="session")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Matrix:
    return build_matrix(tmp_path_factory.mktemp("matrix"))


@pytest.fixture(scope="session")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the browser tests leave their screenshots."""
    return tmp_path_factory.mktemp("screenshots")


CHROMIUM = Path("/usr/bin/chromium")
# As the machine's notes say: Debian's Chromium, headless, with no background networking.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One real Chromium for the session, driven by Playwright; skipped, with the reason, only
    where it cannot be had (`.ci/run` installs Debian's chromium where apt-get can)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - playwright is a dev dependency
        pytest.skip(f"playwright is not installed: {exc}")
    if not CHROMIUM.exists():
        pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
