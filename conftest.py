"""Fixtures every package's tests share: one throwaway PostgreSQL cluster per test session.

Also how xdist shares the tests out: every test under a directory of :data:`TOGETHER` runs on
one worker, so a resource those tests share (the Ray instance of ``eval-executor-ray``'s
tests, the wheels and the environment of ``offline-eval-harness``'s) is made once per session,
not once per worker.

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

TOGETHER = ("packages/eval-executor-ray/tests/", "packages/offline-eval-harness/tests/")
# The files whose tests take the longest (a real model, built wheels, scratch copies of the tree
# swept again, Node.js Trials): queued first, so the run ends on short tests that the other
# worker can steal, never on one long test with a worker idle (longest-processing-time first).
# Only the order changes: a file missing from this list still runs, just later.
LONGEST = (
    "packages/eval-bindings/tests/test_real_model.py",
    "tests/test_mutants_bench.py",
    "packages/eval-host-process/tests/test_ts_example.py",
    "tests/test_new_plugin.py",
    "tests/test_corpus_items.py",
    "packages/eval-record/tests/test_record_hosts.py",
    "tests/test_mutations.py",
    "tests/test_release.py",
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Keep the tests under a directory of :data:`TOGETHER` on one worker. (xdist's own
    ``--dist loadgroup`` would do it with a mark, but under pytest 9 the group it appends to a
    test's id no longer reaches the id.)

    ``--dist worksteal`` (the suite's): they head the first worker's queue, so they run there
    first, long before a steal (which takes the tail of a queue) could reach them; the files of
    :data:`LONGEST` come next, the rest after.
    ``--dist load``: they are one unit of work.
    """
    dist = config.getvalue("dist")
    if dist == "worksteal":
        from xdist.scheduler import WorkStealingScheduling

        class TogetherFirst(WorkStealingScheduling):
            def schedule(self) -> None:
                if self.collection is None and self._check_nodes_have_same_collection():
                    collection = next(iter(self.node2collection.values()))
                    self.collection = collection
                    self.pending[:] = sorted(
                        range(len(collection)), key=lambda i: _rank(collection[i])
                    )
                    if collection:
                        self.check_schedule()
                    return
                super().schedule()

        return TogetherFirst(config, log)
    if dist == "load":
        from xdist.scheduler import LoadScopeScheduling

        class Together(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return next((p for p in TOGETHER if nodeid.startswith(p)), nodeid)

        return Together(config, log)
    return None


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores this process may use. Many tests wait (on a
    deadline, a child process, a server's start, an fsync) rather than compute: a spare worker
    computes meanwhile. (``sched_getaffinity`` is Linux's; elsewhere every core counts.)"""
    usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else ()
    return (len(usable) or os.cpu_count() or 1) + 1


def _rank(nodeid: str) -> int:
    """0 for :data:`TOGETHER`, 1 for :data:`LONGEST`, 2 for the rest (a stable sort keeps the
    collection's order within each)."""
    if nodeid.startswith(TOGETHER):
        return 0
    return 1 if nodeid.startswith(LONGEST) else 2


@pytest.fixture(scope="session", autouse=True)
def _no_store_from_the_environment() -> Iterator[None]:
    saved = os.environ.pop("EVAL_STORE", None)
    yield
    if saved is not None:
        os.environ["EVAL_STORE"] = saved


@pytest.fixture(scope="session", autouse=True)
def _a_cache_and_seal_key_of_the_sessions_own(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """The caches' seal key (:mod:`eval_core._util.cache_entry`) lives in the user's state
    directory and the caches in the user's cache directory; the suite makes its own of both,
    so it runs where HOME cannot be written and never touches the user's. Child processes
    inherit them through the environment.

    One of each for the whole session, shared by the xdist workers (the directory above each
    worker's own): with a key a worker, the workers sealed the shared cache's entries each
    under its own key, so every ``eval`` a test started missed what another worker had just
    written and made it again (about 0.4 s of CPU a command). A test about the caches sets
    its own ``EVAL_CACHE_DIR`` or ``XDG_STATE_HOME``."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    saved = {name: os.environ.get(name) for name in ("XDG_STATE_HOME", "EVAL_CACHE_DIR")}
    os.environ["XDG_STATE_HOME"] = str(shared / "state")
    os.environ["EVAL_CACHE_DIR"] = str(shared / "cache")
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


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
