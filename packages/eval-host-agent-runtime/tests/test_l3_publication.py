"""An L3 Turn reads its Soul from the active publication; a tier that has none is a harness
fault, said as such. The Host publishes the base Soul as each Trial starts and ``publish``
always leaves one active, so no Case can reach it: the fault is built here."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import load_plugins
from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding
from eval_host_agent_runtime import l3
from eval_host_agent_runtime.host import AgentRuntimeHost

ROOT = Path(__file__).resolve().parents[3]
CASE = "l3-journey-sends-the-stored-history-oldest-first"


def test_a_turn_with_no_active_soul_publication_errs_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plugins = load_plugins()
    host = AgentRuntimeHost(ROOT / "corpus" / "soul")
    try:
        corpus = Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
        monkeypatch.setattr(l3, "active_bundle", lambda _conn: None)
        (trial,) = run_sweep(corpus, host, ScriptedBinding(), plugins, select=(CASE,)).trials
    finally:
        host.close()
    assert trial.outcome == "errored"
    assert "no active Soul publication" in (trial.error or ""), trial.error
