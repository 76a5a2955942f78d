"""One pydantic-ai Host over the example project for the whole session: it imports the team's
agents and starts their MCP help centre (a child process) once. The example's Corpus has no
Eval Soul: the agents are the team's code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_core.hosts import Corpus, Loader, PluginSet, load_plugins

EXAMPLE = Path(__file__).parents[3] / "examples" / "pydantic-ai-support"
CORPUS = EXAMPLE / "corpus"


@pytest.fixture(scope="session")
def plugins() -> PluginSet:
    return load_plugins()


@pytest.fixture(scope="session")
def example_host() -> Iterator[object]:
    from eval_host_pydantic_ai.host import PydanticAiHost

    host = PydanticAiHost(CORPUS)
    yield host
    host.close()


@pytest.fixture(scope="session")
def example(plugins: PluginSet, example_host: object) -> Corpus:
    """The example's Corpus, loaded through the pydantic-ai Host."""
    loader = Loader(plugins, example_host, judge="no-judge", needs_soul=False)  # type: ignore[arg-type]
    return loader.load(CORPUS)
