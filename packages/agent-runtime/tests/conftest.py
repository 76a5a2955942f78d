"""Shared fixtures: the Eval Soul shipped in corpus/soul, loaded by the real loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.soul import Soul, load_soul

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
