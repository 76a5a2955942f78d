"""Fixtures of the report's tests: the Matrix, swept once a session, and a browser a module."""

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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One real Chromium for a module's tests, driven by Playwright; skipped, with the reason,
    only where it cannot be had (`.ci/run` installs Debian's chromium where apt-get can).

    A module, not the session: Playwright's sync API keeps its event loop running in the test's
    thread while it lives, so every later test on that worker calling ``asyncio.run`` (the MCP
    provider's, the framework Hosts') would fail with "cannot be called from a running event
    loop". Stopped with its module, it leaves the worker's thread as it found it."""
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
