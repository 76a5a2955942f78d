"""Testimony and witness on the same footing: LangGraph's record of a call (the model's
arguments in its state) is read through the Tool's own validation before the core compares it
with what the Tool received, so a default left out, a number sent as text or an enum's value is
no contradiction, while an argument changed between the model and the Tool still is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_core._loading.corpus import Corpus
from eval_core._plugins.plugin_set import PluginSet
from eval_host_langgraph.host import LangGraphHost
from eval_host_langgraph.trial import LangGraphTrial
from footing_sweeps import (
    contradicted,
    drawn_calls_agree,
    host_of_project,
    sweep_seen,
    the_plain_call_agrees,
    the_rewrite_is_named,
    weather_case,
)

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def footing_host() -> Iterator[LangGraphHost]:
    yield from host_of_project(HERE, lambda: LangGraphHost(HERE, app="footing_agents:AGENTS"))


def test_a_default_left_out_and_a_coerced_number_are_no_contradiction(
    tmp_path: Path, footing_host: LangGraphHost, plugins: PluginSet
) -> None:
    cases = [
        weather_case("plain", "weather", {"city": "Paris", "days": "3", "unit": "fahrenheit"}),
        weather_case("injected", "weather", {"city": "Oslo", "days": "2"}, "get_thread_forecast"),
    ]
    card, seen = sweep_seen(tmp_path, footing_host, plugins, cases)
    assert {t.case_id: (t.outcome, t.contradictions) for t in card.trials} == {
        "plain": ("passed", []),
        "injected": ("passed", []),
    }
    the_plain_call_agrees(seen)
    (thread,) = seen["injected"].tool_calls or []
    assert thread.arguments == {"city": "Oslo", "days": 2}  # the graph's state is LangGraph's
    (told,) = seen["injected"].tool_results or []
    assert told.output == "Oslo: 2 day(s); 2 message(s) so far"


def test_an_argument_rewritten_between_the_model_and_the_tool_is_a_contradiction(
    tmp_path: Path, footing_host: LangGraphHost, plugins: PluginSet
) -> None:
    the_rewrite_is_named(tmp_path, footing_host, plugins, "moved")


test_every_valid_call_agrees_as_written_and_disagrees_once_rewritten = drawn_calls_agree(6, 3)


def test_reading_the_record_as_the_model_wrote_it_turns_the_shipped_cases_fail(
    corpus: Corpus, host: LangGraphHost, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mutant: the Host adapter reads LangGraph's record without the Tool's validation (as
    it did before); the example's Cases with a default left out and a number sent as text are
    then contradicted by the witness."""
    chosen = [
        "arguments-a-callback-channel-left-out-is-the-tool-s-default",
        "arguments-callback-hours-sent-as-text-reach-the-tool-as-a-number",
        "arguments-normal-priority-is-left-to-the-default",
    ]

    assert contradicted(corpus, host, plugins, chosen) == {}
    monkeypatch.setattr(
        LangGraphTrial, "_reading", lambda self, graph: lambda name, call_id, args: args
    )
    failed = contradicted(corpus, host, plugins, chosen)
    assert sorted(failed) == sorted(chosen)
    assert (
        'but the Tool received {"ticket_id":"T-101","within_hours":4,"channel":"phone"}'
        in (failed[chosen[1]][0])
    )
