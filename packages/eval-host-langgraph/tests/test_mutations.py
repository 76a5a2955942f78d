"""Regressions inside LangGraph's own code path turn the example's Cases FAIL: a ToolNode that
stops running the Tools it is asked for, and a chat-model path that loses the system prompt.
The Host does not see them coming: its witnesses (the Tool boundary, the binding's requests)
do."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import SystemMessage, ToolMessage
from langgraph.prebuilt import ToolNode

from eval_core._loading.corpus import Corpus
from eval_core._plugins.plugin_set import PluginSet
from eval_core._running.runner import run_sweep
from eval_core._running.scorecard import Scorecard
from eval_core._running.scripted import ScriptedBinding
from eval_host_langgraph.host import LangGraphHost

LOCAL = [
    "tool-choice-billing-ticket-goes-to-billing",
    "arguments-ticket-id-is-passed-verbatim",
    "multi-step-two-tickets-in-one-batch",
    "prompt-the-three-queues-are-named",
    "refusal-off-topic-requests-are-declined",
]


def sweep(corpus: Corpus, host: LangGraphHost, plugins: PluginSet) -> Scorecard:
    return run_sweep(corpus, host, ScriptedBinding(), plugins, select=LOCAL)


def outcomes(card: Scorecard) -> dict[str, str]:
    return {t.case_id: t.outcome for t in card.trials}


def test_a_toolnode_that_drops_its_tool_calls_turns_the_tool_cases_fail(
    corpus: Corpus, host: LangGraphHost, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def dropped(self: ToolNode, call: Any, *args: Any, **kwargs: Any) -> ToolMessage:
        """The mutant: it answers the model as if the Tool ran, and never runs it."""
        return ToolMessage(
            content='{"status": "routed"}', name=call["name"], tool_call_id=call["id"]
        )

    assert set(outcomes(sweep(corpus, host, plugins)).values()) == {"passed"}
    monkeypatch.setattr(ToolNode, "_arun_one", dropped)
    card = sweep(corpus, host, plugins)
    assert outcomes(card) == {
        "tool-choice-billing-ticket-goes-to-billing": "failed",
        "arguments-ticket-id-is-passed-verbatim": "failed",
        "multi-step-two-tickets-in-one-batch": "failed",
        "prompt-the-three-queues-are-named": "failed",
        "refusal-off-topic-requests-are-declined": "passed",  # it calls no Tool
    }
    billing = next(t for t in card.trials if t.case_id == LOCAL[0])
    assert any("but no Tool received it" in c for c in billing.contradictions)


def test_a_chat_model_path_that_loses_the_system_prompt_turns_the_prompt_case_fail(
    corpus: Corpus, host: LangGraphHost, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = BaseChatModel._agenerate_with_cache

    async def altered(self: BaseChatModel, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        """The mutant: LangChain's call path drops the system messages on the way."""
        kept = [m for m in messages if not isinstance(m, SystemMessage)]
        return await original(self, kept, *args, **kwargs)

    monkeypatch.setattr(BaseChatModel, "_agenerate_with_cache", altered)
    card = sweep(corpus, host, plugins)
    prompt = next(t for t in card.trials if t.case_id == "prompt-the-three-queues-are-named")
    assert prompt.outcome == "failed"
    assert all(not e.passed for e in prompt.expectations)
    assert {t.outcome for t in card.trials if t is not prompt} == {"passed"}
