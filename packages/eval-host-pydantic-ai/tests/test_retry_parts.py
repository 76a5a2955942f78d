"""A retry pydantic-ai asks of the model reaches it in the neutral request's roles: a Tool's
retry as that call's ``tool`` message, any other retry as a ``user`` message.

pydantic-ai 2 hands both on in newer parts (a ``ToolReturnPart`` with ``outcome='retried'``, a
``UserPromptPart``), which the example's Cases sweep (``a-malformed-order-id-is-repaired``). The
legacy parts built here are what pydantic-ai 1 sends, which the Host's pin
(``pydantic-ai-slim>=1``) still admits: no Case on the locked pydantic-ai can reach them.
"""

from __future__ import annotations

import warnings

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    RetryPromptPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo

from eval_host_pydantic_ai.model import request_of

INFO = AgentInfo(
    function_tools=[],
    allow_text_output=True,
    output_tools=[],
    model_settings=None,
    model_request_parameters=ModelRequestParameters(),
    instructions=None,
)


def _tool_retry() -> RetryPromptPart:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in pydantic-ai 2, the only shape in 1
        return RetryPromptPart(
            content="order ids look like A-1001", tool_name="lookup_order", tool_call_id="c1"
        )


def test_a_tools_retry_is_its_calls_tool_message_and_any_other_a_user_message() -> None:
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Where is order a 1001?")]),
        ModelResponse(parts=[ToolCallPart("lookup_order", {"order_id": "a 1001"}, "c1")]),
        ModelRequest(parts=[_tool_retry()]),
        ModelRequest(
            parts=[RetryFeedbackPart("Please return text.", retry=RetryInfo(cause="no_output"))]
        ),
    ]
    sent = request_of(messages, INFO).messages
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    retried = sent[2]
    assert (retried["tool_call_id"], retried["name"]) == ("c1", "lookup_order")
    assert retried["content"].startswith("order ids look like A-1001")
    assert sent[3]["content"] == "Please return text."
