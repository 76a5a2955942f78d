"""Which usage limit ended a run, as pydantic-ai words it: each of its limits is named by the
Host's reason for it (a token limit is never taken for a tool-call limit). The exceptions are
pydantic-ai's own, raised by its own ``UsageLimits`` checks, so a change of its wording shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.usage import RunUsage, UsageLimits

from eval_core.hosts import Corpus
from eval_host_pydantic_ai.boundary import ToolBoundary
from eval_host_pydantic_ai.evidence import ended

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
