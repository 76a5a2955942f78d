"""Testimony and witness on the same footing: pydantic-ai's history of a call (the model's
arguments) is read through the Tool's own validator before the core compares it with what the
Tool received, so a default left out, a number sent as text or an enum's value is no
contradiction, while an argument changed between the model and the Tool still is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_core.hosts import Corpus, Host, PluginSet
from eval_host_pydantic_ai import evidence
from eval_host_pydantic_ai.host import PydanticAiHost
from footing_sweeps import (
    contradicted,
    drawn_calls_agree,
    host_of_project,
    sweep_seen,
    the_plain_call_agrees,
    the_rewrite_is_named,
    weather_case,
)

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def footing_host() -> Iterator[PydanticAiHost]:
    yield from host_of_project(HERE, lambda: PydanticAiHost(HERE, app="footing_app:AGENTS"))


def test_a_default_left_out_and_a_coerced_number_are_no_contradiction(
    tmp_path: Path, footing_host: PydanticAiHost, plugins: PluginSet
) -> None:
    asked = {"city": "Paris", "days": "3", "unit": "fahrenheit"}
    card, seen = sweep_seen(
        tmp_path, footing_host, plugins, [weather_case("plain", "weather", asked)]
    )
    (trial,) = card.trials
    assert (trial.outcome, trial.contradictions) == ("passed", [])
    the_plain_call_agrees(seen)


def test_an_argument_rewritten_between_the_model_and_the_tool_is_a_contradiction(
    tmp_path: Path, footing_host: PydanticAiHost, plugins: PluginSet
) -> None:
    the_rewrite_is_named(tmp_path, footing_host, plugins, "rewritten")


def test_the_history_is_read_with_the_runs_validation_context(
    tmp_path: Path, footing_host: PydanticAiHost, plugins: PluginSet
) -> None:
    """A Tool validator that reads the agent's validation context (the team's country) gives
    the Tool ``Paris, FR``; the history read with the same context agrees, read without it
    (``Paris``) it would contradict the witness."""
    case = weather_case("regional", "regional", {"city": "Paris"})
    case["platformTools"] = ["get_local_weather"]
    case["script"][0]["calls"][0]["name"] = "get_local_weather"
    case["expect"] = [
        {
            "kind": "tool_argument_equals",
            "name": "get_local_weather",
            "path": "city",
            "value": "Paris, FR",
        }
    ]
    card, seen = sweep_seen(tmp_path, footing_host, plugins, [case])
    (trial,) = card.trials
    assert (trial.outcome, trial.contradictions) == ("passed", [])
    (said,) = (seen["regional"].testimony and seen["regional"].testimony.tool_calls) or []
    assert said.arguments == {"city": "Paris, FR"}


test_every_valid_call_agrees_as_written_and_disagrees_once_rewritten = drawn_calls_agree(8, 4)


def test_reading_the_history_as_the_model_wrote_it_turns_the_shipped_cases_fail(
    example: Corpus, example_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mutant: the Host adapter reads the history's arguments without the Tool's validator
    (as it did before); the example's Cases with a default left out and a number sent as text
    are then contradicted by the witness."""
    chosen = [
        "delivery-speed-left-out-is-the-tool-s-default",
        "a-reorder-quantity-sent-as-text-reaches-the-tool-as-a-number",
    ]

    assert contradicted(example, example_host, plugins, chosen) == {}
    monkeypatch.setattr(evidence, "validated", lambda tool, raw, context: None)
    failed = contradicted(example, example_host, plugins, chosen)
    assert sorted(failed) == sorted(chosen)
    assert 'but the Tool received {"order_id":"A-1002","quantity":2}' in failed[chosen[1]][0]
    assert (
        'but the Tool received {"order_id":"A-1003","speed":"standard"}' in (failed[chosen[0]][0])
    )
