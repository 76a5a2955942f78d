"""The process Host's tests: a project in a temporary folder (:mod:`process_project`), swept."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from eval_core.hosts import Corpus, Loader, PluginSet, load_plugins
from eval_core.records import Scorecard
from process_project import RUN, Sweep, write_project


@pytest.fixture(scope="session", autouse=True)
def run_mark() -> Iterator[str]:
    """This run's value of :data:`process_project.RUN`, in the environment agents inherit."""
    value = uuid.uuid4().hex
    os.environ[RUN] = value
    yield value
    del os.environ[RUN]


@pytest.fixture(scope="session")
def plugins() -> PluginSet:
    return load_plugins()


@pytest.fixture
def sweep(plugins: PluginSet, tmp_path: Path) -> Iterator[Sweep]:
    """Write Cases into a fresh project, load them through the process Host, sweep them."""
    hosts: list[Any] = []

    def run(
        cases: Sequence[Mapping[str, Any]], binding: Any = None, **options: Any
    ) -> tuple[Scorecard, dict[str, Any]]:
        from eval_core._running.runner import run_sweep
        from eval_core._running.scripted import ScriptedBinding
        from eval_host_process.host import ProcessHost

        corpus = write_project(tmp_path / "team", **options)
        for case in cases:
            (corpus / f"{case['id']}.json").write_text(json.dumps(case))
        host = ProcessHost(corpus)
        hosts.append(host)
        loaded: Corpus = Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus)
        seen: dict[str, Any] = {}
        try:
            card = run_sweep(
                loaded,
                host,
                binding or ScriptedBinding(),
                plugins,
                on_evidence=lambda c, e: seen.__setitem__(c.id, e),
            )
        finally:
            host.close()  # as ``eval sweep`` does at the Sweep's end: its zygotes end with it
        return card, seen

    yield run
    for host in hosts:
        host.close()
