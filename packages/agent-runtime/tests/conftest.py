"""Shared fixtures: the Eval Soul shipped in corpus/soul, loaded by the real loader, and the
durable store on each dialect (SQLite in memory; a throwaway PostgreSQL cluster, started once
per session by the repository's conftest)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_runtime.soul.loader import Soul, load_soul
from agent_runtime.store.storage import StoreTemplate, Template

EVAL_SOUL = Path(__file__).resolve().parents[3] / "corpus" / "soul"


@pytest.fixture(scope="session")
def eval_soul() -> Soul:
    return load_soul(EVAL_SOUL)


@pytest.fixture
def soul_copy(tmp_path: Path) -> Path:
    """A writable copy of the Eval Soul, for mutation and malformed-file tests."""
    import shutil

    target = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, target)
    return target


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def template(request: pytest.FixtureRequest) -> Iterator[StoreTemplate]:
    """A migrated template on each store; every ``fresh()`` is a database of its own."""
    made: StoreTemplate
    if request.param == "sqlite":
        made = Template()
    else:
        from agent_runtime.store.postgres import PostgresTemplate

        made = PostgresTemplate(request.getfixturevalue("postgres_url"))
    yield made
    made.close()
