"""A pytest plug-in for ``bench/covering.py``'s map: each test's lines are labelled with its id.

Passed with ``-p covering_plugin`` to a pytest run whose every Python process measures coverage
from its start (``COVERAGE_PROCESS_START``: the controller, the xdist workers, and the children
the tests start, such as ``eval`` run as a command). In the process running a test, the dynamic
context is switched to the test's node id for its setup, call and teardown. A child process
has no pytest in it: the node id reaches it through ``MUTANTS_TEST_CONTEXT``, set here for the
duration of each test, which the coverage configuration names as its static context, read when
the child starts. Each test's duration is written next to the coverage data, so the bench can
run the quickest covering tests first.

Limits: a child started without the environment (``env={...}`` built from nothing) or one that
ends without running its exit handlers (``os._exit``, a kill) is not measured; a line run only
at import (a module constant, a ``def``'s defaults) carries the empty context, as imports
happen while pytest collects.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import coverage
import pytest

CONTEXT_VARIABLE = "MUTANTS_TEST_CONTEXT"
DURATIONS_VARIABLE = "MUTANTS_DURATIONS_DIR"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    measuring = coverage.Coverage.current()
    os.environ[CONTEXT_VARIABLE] = item.nodeid
    if measuring is not None:
        measuring.switch_context(item.nodeid)
    started = time.perf_counter()
    try:
        return (yield)
    finally:
        if measuring is not None:
            measuring.switch_context("")
        os.environ.pop(CONTEXT_VARIABLE, None)
        record(item.nodeid, time.perf_counter() - started)


def record(nodeid: str, seconds: float) -> None:
    """Append the test's duration to this process's file (an xdist worker ends without
    ``pytest_unconfigure`` reaching a plug-in of its own, so nothing waits for the end)."""
    into = os.environ.get(DURATIONS_VARIABLE)
    if into:
        with (Path(into) / f"durations-{os.getpid()}.jsonl").open("a") as out:
            out.write(json.dumps([nodeid, seconds]) + "\n")
