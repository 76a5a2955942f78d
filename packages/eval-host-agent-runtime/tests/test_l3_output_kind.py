"""An L3 Trial's Evidence says why it has no answer as the loop does at L2: a Turn stopped by
a limit (iterations, Tool calls, the repair budget) ended on the model's Tool calls
(``tool_calls``), any other Turn without an answer gave none (``none``), whether or not the
failed attempt left a Message of what it did (one that released no text is no answer). Read
back from the database, never from the loop's memory. No Case can tell ``tool_calls`` from
``none``: ``output_absent`` passes on either, and only the wording of an output Expectation's
failure differs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_core._loading.corpus import Corpus
from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import PluginSet, load_plugins
from eval_host_agent_runtime.host import AgentRuntimeHost
from tests.conftest import observed

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def loaded() -> Iterator[tuple[PluginSet, AgentRuntimeHost, Corpus]]:
    plugins = load_plugins()
    host = AgentRuntimeHost(ROOT / "corpus" / "soul")
    try:
        yield plugins, host, Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
    finally:
        host.close()


@pytest.mark.parametrize(
    ("case_id", "reason", "kind"),
    [
        # its Tool calls ran: the failed attempt's Message holds them, and no text
        (
            "l3-a-turn-stopped-by-its-iteration-limit-gives-no-answer",
            "iteration_limit",
            "tool_calls",
        ),
        # none ran: no Message at all
        ("l3-an-oversized-batch-runs-nothing-and-gives-no-answer", "tool_call_limit", "tool_calls"),
        ("l3-fault-model-not-configured-fails-the-run", "model_not_configured", "none"),
    ],
)
def test_a_turn_stopped_by_a_limit_ended_on_tool_calls_and_any_other_unanswered_on_none(
    loaded: tuple[PluginSet, AgentRuntimeHost, Corpus], case_id: str, reason: str, kind: str
) -> None:
    plugins, host, corpus = loaded
    result, evidence = observed(corpus, host, plugins, case_id)
    assert result.outcome == "passed", result.error or result.contradictions
    assert (evidence.loop_reason, evidence.output_text) == (reason, None)
    assert evidence.output_kind == kind
