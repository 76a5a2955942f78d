"""pydantic-ai's history as the neutral request the bindings' wires read: each Tool call the
model made with its id, name and arguments, and each Tool's answer as that call's ``tool``
message (a vendor pairs them by id; the scripted binding reads only the text, so no Case can)."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
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


def test_each_tool_answer_is_its_calls_tool_message_after_the_call_with_its_arguments() -> None:
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Who delivers A-1002, and what is A-1003?")]),
        ModelResponse(
            parts=[
                ToolCallPart("lookup_order", {"order_id": "A-1002"}, "c1"),
                ToolCallPart("lookup_order", {"order_id": "A-1003"}, "c2"),
            ]
        ),
        ModelRequest(
            parts=[
                ToolReturnPart("lookup_order", {"carrier": "Parcelways"}, "c1"),
                ToolReturnPart("lookup_order", {"item": "Camping stove"}, "c2"),
            ]
        ),
    ]
    sent = request_of(messages, INFO).messages
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool"]
    assert sent[1]["tool_calls"] == [
        {"call_id": "c1", "name": "lookup_order", "arguments": {"order_id": "A-1002"}},
        {"call_id": "c2", "name": "lookup_order", "arguments": {"order_id": "A-1003"}},
    ]
    answers = [(m["tool_call_id"], m["name"]) for m in sent[2:]]
    assert answers == [("c1", "lookup_order"), ("c2", "lookup_order")]
    assert "Parcelways" in sent[2]["content"]
    assert "Camping stove" in sent[3]["content"]
