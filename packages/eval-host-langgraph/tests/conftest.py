"""The example project, the installed plug-in set and one Host over it, shared by the tests
(LangGraph and LangChain take seconds to import: one Host per module, not per test)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_core._loading.corpus import Corpus
from eval_core._loading.loader import Loader
from eval_core._plugins.plugin_set import PluginSet
from eval_core._plugins.plugins import load_plugins
from eval_host_langgraph.host import LangGraphHost

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "langgraph-triage"
CORPUS = EXAMPLE / "corpus"
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def plugins() -> PluginSet:
    return load_plugins()


@pytest.fixture(scope="module")
def host() -> Iterator[LangGraphHost]:
    made = LangGraphHost(CORPUS)  # the Corpus has no Eval Soul: the agents are the team's
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(scope="module")
def corpus(plugins: PluginSet, host: LangGraphHost) -> Corpus:
    return Loader(plugins, host, judge="no-judge", needs_soul=False).load(CORPUS)


@pytest.fixture
def probe_path() -> Iterator[None]:
    """The probe agents of these tests (``probe_agents``) importable by module path."""
    sys.path.insert(0, str(HERE))
    try:
        yield
    finally:
        sys.path.remove(str(HERE))
