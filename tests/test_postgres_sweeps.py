"""The L3 tier on PostgreSQL, end to end (every L3 Case's verdicts on both stores are compared
in test_corpus_smoke.py, beside the SQLite Sweep they are compared with).

A Trial killed mid-Turn leaves nothing for the next Trial, and no database behind once the Host
closes; `eval sweep` reaches the store through `--host-option store=URL`.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from eval_core._loading.corpus import Corpus
from eval_core._loading.loader import Loader
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from eval_host_agent_runtime.l3 import L3Trial
from tests.conftest import ROOT, SOUL, killed_mid_turn_then_rerun
from tests.postgres_cluster import ThrowawayCluster


@pytest.fixture
def pg_host(plugins: PluginSet, postgres_url: str) -> Iterator[Host]:
    """The reference runtime whose L3 tier keeps its Runs on the throwaway cluster."""
    host = plugins.hosts["agent-runtime"](SOUL, store=postgres_url)
    yield host
    host.close()


@pytest.fixture
def pg_corpus(plugins: PluginSet, pg_host: Host) -> Corpus:
    return Loader(plugins, pg_host, judge="no-judge").load(ROOT / "corpus")


def eval_databases(cluster: ThrowawayCluster) -> list[str]:
    return [name for name in cluster.databases() if name.startswith("eval_")]


def test_a_trial_killed_mid_turn_leaves_no_run_on_postgresql(
    pg_corpus: Corpus,
    pg_host: Host,
    plugins: PluginSet,
    postgres_cluster: ThrowawayCluster,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def runs(trial: L3Trial) -> tuple[int, list[str | None]]:
        statuses = [r[0] for r in trial.durable.conn.execute("SELECT status FROM runs")]
        return trial.durable.store.run_count(), statuses

    seen = killed_mid_turn_then_rerun(pg_corpus, pg_host, plugins, monkeypatch, runs)
    assert seen == [(1, ["succeeded"])]  # the second Trial's database: its own Run, nothing else
    pg_host.close()
    assert eval_databases(postgres_cluster) == []  # every clone and the template were dropped


def test_the_store_may_come_from_the_environment(
    plugins: PluginSet, postgres_cluster: ThrowawayCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_STORE", postgres_cluster.url)
    host = plugins.hosts["agent-runtime"](SOUL)
    try:
        assert [n for n in eval_databases(postgres_cluster) if n.startswith("eval_tpl_")]
    finally:
        host.close()
    assert eval_databases(postgres_cluster) == []


def test_eval_sweep_reaches_postgresql_through_a_host_option(
    tmp_path: Any, postgres_url: str
) -> None:
    cases = [
        "l3-support-answers-from-a-durable-lookup",
        "l3-native-routine-approved-route-account",
    ]
    argv = [sys.executable, "-m", "eval_cli", "sweep", str(ROOT / "corpus")]
    argv += [f"--case={c}" for c in cases] + ["--host-option", f"store={postgres_url}"]
    done = subprocess.run(
        argv, capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("CLEARED")
