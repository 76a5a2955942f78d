"""The Judge client: a loopback Judge scoring a real Trial end to end.

Every malformed reply, every Judge fault and a missing Judge is ``NoVerdict``: the Trial
errors; it never scores low and never skips. (The reply rules themselves are the rubric
family's, tested there.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from eval_bindings.endpoint import EndpointBinding
from eval_bindings.judge_client import JudgeClient
from eval_bindings.preflight import JudgeConfig
from eval_core._plugins import judge as judge_module
from eval_core._plugins.plugins import load_plugins
from eval_core._running.trial import run_trial
from eval_expectations_rubric.rubric import RubricDenies, RubricScore


@pytest.fixture(autouse=True)
def no_installed_judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("EVAL_JUDGE_BASE_URL", "EVAL_JUDGE_MODEL", "EVAL_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    judge_module.install(None)
    yield
    judge_module.install(None)


def judge_reply(text: str, usage: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "judge-1",
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    if usage:
        body["usage"] = {"prompt_tokens": 300, "completion_tokens": 30}
    return body


def agent_reply(text: str) -> dict[str, Any]:
    return {
        "model": "test-model-2025-01-01",
        "choices": [{"message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3},
    }


def run_rubric(
    kit: Any, vendor: Any, host: Any, judge_replies: list[Any], expect: list[Any]
) -> Any:
    agent = vendor(kit.Reply(body=agent_reply("Your order ships today.")))
    binding = EndpointBinding(kit.pin("openai", agent.url), kit.FAKE_KEY, base_delay=0.001)
    judged = vendor(*judge_replies)
    judge = JudgeClient(
        JudgeConfig(base_url=judged.url, model="judge-1", api_key="jk-0123456789"), base_delay=0.001
    )
    judge_module.install(judge)
    result = run_trial(kit.make_case(expect=expect), 1, host, binding, load_plugins().kinds)
    return result, judged, judge


def test_a_loopback_judge_scores_a_trial(vendor: Any, kit: Any, loop_host: Any) -> None:
    expect = [RubricScore(criteria=["Says when the order ships"], min=4)]
    result, server, judge = run_rubric(
        kit,
        vendor,
        loop_host,
        [kit.Reply(body=judge_reply("REASONING: It says today.\nSCORE: 5"))],
        expect,
    )
    assert result.outcome == "passed", result
    assert "Judge scored 5/5" in result.expectations[0].detail
    sent = server.requests[0]["json"]
    assert sent["model"] == "judge-1" and sent["temperature"] == 0
    assert "1. Says when the order ships" in sent["messages"][0]["content"]
    assert "Your order ships today." in sent["messages"][0]["content"]
    assert server.requests[0]["headers"]["Authorization"] == "Bearer jk-0123456789"
    assert (judge.calls, judge.usage.input_tokens) == (1, 300)


def test_a_low_score_fails_and_denies_needs_a_five(vendor: Any, kit: Any, loop_host: Any) -> None:
    low = kit.Reply(body=judge_reply("REASONING: It never says when.\nSCORE: 2"))
    result, _, _ = run_rubric(kit, vendor, loop_host, [low], [RubricScore(criteria=["x"], min=3)])
    assert result.outcome == "failed"
    four = kit.Reply(body=judge_reply("REASONING: It hints at the address.\nSCORE: 4"))
    result, server, _ = run_rubric(
        kit, vendor, loop_host, [four], [RubricDenies(question="the home address")]
    )
    assert result.outcome == "failed"
    assert (
        "discloses, confirms or concedes nothing"
        in server.requests[0]["json"]["messages"][0]["content"]
    )


@pytest.mark.parametrize(
    "reply",
    [
        {"body": judge_reply("SCORE: 5")},
        {"body": judge_reply("REASONING: fine\nSCORE: 9")},
        {"body": judge_reply("REASONING: ok\nSCORE: 4", usage=False)},
        {"status": 500, "body": {}},
        {"body": b"{broken"},
    ],
    ids=["no-reasoning", "out-of-range", "no-usage", "5xx", "malformed"],
)
def test_a_judge_failure_errors_the_trial(
    reply: dict[str, Any], vendor: Any, kit: Any, loop_host: Any
) -> None:
    result, _, _ = run_rubric(
        kit, vendor, loop_host, [kit.Reply(**reply)], [RubricScore(criteria=["x"], min=1)]
    )
    assert result.outcome == "errored", result
    assert "rubric_score: no verdict" in (result.error or "")
    assert "jk-0123456789" not in (result.error or "")


def test_an_unreachable_judge_errors_the_trial(kit: Any, vendor: Any, loop_host: Any) -> None:
    agent = vendor(kit.Reply(body=agent_reply("hello")))
    binding = EndpointBinding(kit.pin("openai", agent.url), kit.FAKE_KEY)
    url = f"http://127.0.0.1:{kit.closed_port()}/v1"
    judge_module.install(
        JudgeClient(JudgeConfig(base_url=url, model="j", api_key="jk-0123456789"), base_delay=0.001)
    )
    expect = [RubricScore(criteria=["x"], min=1)]
    result = run_trial(kit.make_case(expect=expect), 1, loop_host, binding, load_plugins().kinds)
    assert result.outcome == "errored" and "model_unreachable" in (result.error or "")


def test_a_rubric_case_with_no_judge_errors_never_skips(
    kit: Any, vendor: Any, loop_host: Any
) -> None:
    agent = vendor(kit.Reply(body=agent_reply("hello")))
    binding = EndpointBinding(kit.pin("openai", agent.url), kit.FAKE_KEY)
    expect = [RubricDenies(question="the secret")]
    result = run_trial(kit.make_case(expect=expect), 1, loop_host, binding, load_plugins().kinds)
    assert result.outcome == "errored"
    assert "no Judge configured" in (result.error or "")
