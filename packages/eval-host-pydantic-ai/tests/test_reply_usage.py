"""What a reply cost reaches the team's agent as the vendor counted it, kind by kind.

A Trial's spend is the binding's record, never pydantic-ai's; but the team's agent reads its
own usage (``result.usage()``, a ``UsageLimits`` on output tokens), so each count must reach
pydantic-ai under its own name. A scripted reply costs nothing, so no Case can tell two of
them apart: this test can."""

from __future__ import annotations

from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo

from eval_core.hosts import ModelReply, Usage
from eval_host_pydantic_ai.model import response_of

INFO = AgentInfo(
    function_tools=[],
    allow_text_output=True,
    output_tools=[],
    model_settings=None,
    model_request_parameters=ModelRequestParameters(),
    instructions=None,
)


def test_each_count_of_a_replys_usage_reaches_pydantic_ai_under_its_own_name() -> None:
    usage = Usage(input_tokens=101, output_tokens=23, cache_read_tokens=64, cache_write_tokens=5)
    response = response_of(ModelReply(text="Your order ships today.", usage=usage), INFO)
    got = response.usage
    assert (got.input_tokens, got.output_tokens) == (101, 23)
    assert (got.cache_read_tokens, got.cache_write_tokens) == (64, 5)
