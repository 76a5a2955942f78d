"""Cross-package fixtures: the real plug-in set, the real Host, a temporary Corpus."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eval_core.corpus import Loader
from eval_core.host import Host
from eval_core.plugins import PluginSet, load_plugins

ROOT = Path(__file__).resolve().parent.parent
SOUL = ROOT / "corpus" / "soul"


@pytest.fixture(scope="session")
def plugins() -> PluginSet:
    return load_plugins()


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    """An empty Corpus directory beside a copy of the real Eval Soul."""
    directory = tmp_path / "corpus"
    directory.mkdir()
    shutil.copytree(SOUL, directory / "soul")
    return directory


@pytest.fixture
def host(plugins: PluginSet, corpus_dir: Path) -> Host:
    return plugins.hosts["agent-runtime"](corpus_dir / "soul")


@pytest.fixture
def loader(plugins: PluginSet, host: Host) -> Loader:
    return Loader(plugins, host, judge="no-judge")


def minimal_case(case_id: str = "c", **overrides: Any) -> dict[str, Any]:
    """A small valid L2 Case; tests override one field at a time."""
    case: dict[str, Any] = {
        "id": case_id,
        "tier": "l2",
        "agent": "support",
        "input": [{"role": "user", "content": "Where is my order of tulip bulbs?"}],
        "script": [{"kind": "text", "text": "Your tulip bulbs ship within 2 business days."}],
        "expect": [{"kind": "output_contains", "text": "tulip bulbs"}],
    }
    case.update(overrides)
    return case


WriteCase = Callable[..., Path]


@pytest.fixture
def write_case(corpus_dir: Path) -> WriteCase:
    def write(case: dict[str, Any] | str | bytes, name: str | None = None) -> Path:
        if isinstance(case, dict):
            name = name or f"{case.get('id', 'c')}.json"
            data = json.dumps(case, indent=2)
        else:
            assert name is not None
            data = case if isinstance(case, str) else case.decode()
        path = corpus_dir / name
        path.write_text(data)
        return path

    return write
