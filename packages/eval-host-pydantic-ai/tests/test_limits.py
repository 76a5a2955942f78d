"""Which usage limit ended a run, as pydantic-ai words it: each of its limits is named by the
Host's reason for it (a token limit is never taken for a tool-call limit). The exceptions are
pydantic-ai's own, raised by its own ``UsageLimits`` checks, so a change of its wording shows."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, cast

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelRetry, UsageLimitExceeded
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RunUsage, UsageLimits

from eval_core.hosts import Corpus
from eval_host_pydantic_ai.boundary import ToolBoundary
from eval_host_pydantic_ai.evidence import ended, leaf

CHECKS: list[tuple[str, Callable[[], None]]] = [
    (
        "iteration_limit",
        lambda: UsageLimits(request_limit=2).check_before_request(RunUsage(requests=2)),
    ),
    (
        "tool_call_limit",
        lambda: UsageLimits(tool_calls_limit=1).check_before_tool_call(RunUsage(tool_calls=2)),
    ),
    (
        "token_limit",
        lambda: UsageLimits(input_tokens_limit=5).check_tokens(RunUsage(input_tokens=9)),
    ),
    (
        "token_limit",
        lambda: UsageLimits(output_tokens_limit=5).check_tokens(RunUsage(output_tokens=9)),
    ),
    (
        "token_limit",
        lambda: UsageLimits(total_tokens_limit=5).check_tokens(RunUsage(input_tokens=9)),
    ),
]


@pytest.mark.parametrize(
    ("reason", "check"), CHECKS, ids=[f"{r}-{i}" for i, (r, _) in enumerate(CHECKS)]
)
def test_each_usage_limit_is_named_for_what_it_limits(
    example: Corpus, reason: str, check: Callable[[], None]
) -> None:
    with pytest.raises(UsageLimitExceeded) as raised:
        check()
    case = example.case("order-status-answers-from-a-scripted-lookup")
    evidence = ended(case, ToolBoundary(case), cast(Any, None), raised.value)
    assert (evidence.loop_status, evidence.loop_reason) == ("failed", reason)


def test_a_limit_raised_in_the_teams_own_task_group_still_ends_the_loop_by_that_limit(
    example: Corpus,
) -> None:
    """A team's Tool that fans its work out in an ``asyncio.TaskGroup`` (sub-agents sharing
    the run's usage) hands pydantic-ai's limit on wrapped in an exception group of one: the
    run still ended by that limit, never a Trial error of the Host's own making."""

    async def fan_out() -> None:
        async with asyncio.TaskGroup() as group:
            group.create_task(asyncio.sleep(0))
            group.create_task(asyncio.to_thread(CHECKS[0][1]))

    with pytest.raises(BaseExceptionGroup) as raised:
        asyncio.run(fan_out())
    assert len(raised.value.exceptions) == 1
    case = example.case("order-status-answers-from-a-scripted-lookup")
    evidence = ended(case, ToolBoundary(case), cast(Any, None), leaf(raised.value))
    assert (evidence.loop_status, evidence.loop_reason) == ("failed", "iteration_limit")


def test_a_retry_asked_for_outside_any_tool_ends_the_loop_as_retries_exhausted(
    example: Corpus,
) -> None:
    """pydantic-ai repairs a ``ModelRetry`` only inside a Tool or an output validator: one
    raised by the team's system prompt leaves the run as it is. The loop then ended failed,
    with pydantic-ai's words, holding what the boundary saw (nothing here); never a Trial
    error of the Host's own making, and never passed on as the team's crash."""
    agent = Agent(TestModel())

    @agent.system_prompt
    def prompt() -> str:
        raise ModelRetry("the order desk is closed")

    with pytest.raises(ModelRetry) as raised:
        agent.run_sync("Where is order 4471?")
    case = example.case("order-status-answers-from-a-scripted-lookup")
    evidence = ended(case, ToolBoundary(case), cast(Any, None), leaf(raised.value))
    assert (evidence.loop_status, evidence.loop_reason, evidence.tool_calls) == (
        "failed",
        "retries_exhausted: the order desk is closed",
        [],
    )
