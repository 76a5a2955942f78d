"""The model-call count is checked at L3 too: the Host reads back the count each durable Turn's
``turn.finished`` records (the runtime's own record, from the database) as its testimony, and
the core's always-on check holds it against the requests the binding received.

Each test runs a shipped L3 Case in-process on the scripted binding; the fault is put into the
runtime itself (its ``turn.finished`` payload miscounts), never into the Host or the Evidence.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.durable import executor as durable
from eval_core._case.evidence import Evidence
from eval_core._loading.corpus import Corpus
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from eval_core._running.trial import TrialResult
from tests.conftest import observed, over_the_soul, shipped_corpus

real_host = pytest.fixture(over_the_soul, scope="module", name="real_host")
corpus = pytest.fixture(shipped_corpus, scope="module", name="corpus")

JOURNEY = "l3-journey-sends-the-stored-history-oldest-first"
"""Two durable Turns, each calling the model: the count is summed over the Turns."""


def _run(plugins: PluginSet, host: Host, corpus: Corpus) -> tuple[TrialResult, Evidence]:
    return observed(corpus, host, plugins, JOURNEY)


def test_an_l3_trial_reports_the_count_its_turns_recorded(
    plugins: PluginSet, real_host: Host, corpus: Corpus
) -> None:
    result, evidence = _run(plugins, real_host, corpus)
    assert result.outcome == "passed", result.contradictions
    assert evidence.testimony is not None and evidence.model_requests is not None
    assert len({e.turn_index for e in evidence.events or [] if e.type == "turn.finished"}) == 2
    assert evidence.testimony.model_calls == len(evidence.model_requests) >= 2


def test_a_runtime_that_miscounts_its_model_calls_fails_at_l3(
    plugins: PluginSet, real_host: Host, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    honest = durable.finished_payload

    def miscounted(*args: Any) -> dict[str, Any]:
        payload = honest(*args)
        return {**payload, "modelCallCount": payload["modelCallCount"] + 1}

    monkeypatch.setattr(durable, "finished_payload", miscounted)
    result, evidence = _run(plugins, real_host, corpus)
    assert evidence.model_requests is not None
    sent = len(evidence.model_requests)
    assert result.outcome == "failed"
    assert result.contradictions == [
        f"reported model calls not counted: the runtime reported {sent + 2} model call(s), but "
        f"the binding received {sent} request(s)"
    ]


DIED = "l3-a-worker-killed-mid-batch-is-replaced-and-resumes-from-its-checkpoint"
"""A worker dies at its second Tool call and a new one resumes the Turn from its checkpoint."""


def test_an_l3_trial_whose_worker_died_testifies_to_no_count(
    plugins: PluginSet, real_host: Host, corpus: Corpus
) -> None:
    """A worker that dies takes what it did after its last commit with it (as in production),
    so the runtime's count may lack calls the binding received: the Host keeps no count it
    could hold against the binding, and testifies to none, nor to the tokens."""
    result, evidence = observed(corpus, real_host, plugins, DIED)
    assert result.outcome == "passed", result.contradictions
    assert evidence.testimony is not None and evidence.model_requests
    assert (evidence.testimony.model_calls, evidence.testimony.usage) == (None, None)
