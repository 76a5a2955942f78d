"""Fixtures every package's tests share: one throwaway PostgreSQL cluster per test session.

The cluster starts the first time a test asks for it and stops when the session ends. Without
PostgreSQL's server binaries the tests that need it are skipped, saying so; with them, a
cluster that fails to start is an error, never a skip. ``EVAL_STORE`` is cleared for the
session: each test chooses its store itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.postgres_cluster import ServerMissingError, ThrowawayCluster


@pytest.fixture(scope="session", autouse=True)
def _no_store_from_the_environment() -> Iterator[None]:
    saved = os.environ.pop("EVAL_STORE", None)
    yield
    if saved is not None:
        os.environ["EVAL_STORE"] = saved


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[ThrowawayCluster]:
    try:
        cluster = ThrowawayCluster()
    except ServerMissingError as missing:
        pytest.skip(f"PostgreSQL tests skipped: {missing}")
    with cluster:
        yield cluster


@pytest.fixture(scope="session")
def postgres_url(postgres_cluster: ThrowawayCluster) -> str:
    """A URL of the throwaway cluster, as a role with CREATEDB and nothing more."""
    return postgres_cluster.url
