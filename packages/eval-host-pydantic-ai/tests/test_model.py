"""pydantic-ai's messages and replies as the bindings' wires read them (``request_of``,
``response_of``): what no Case can tell apart, because the scripted binding reads only text and
costs nothing.

- History: each Tool call the model made with its id, name and arguments, and each Tool's answer
  as that call's ``tool`` message (a vendor pairs them by id).
- Retries: a Tool's retry as that call's ``tool`` message, any other as a ``user`` message.
  pydantic-ai 2 hands both on in newer parts, which the example's Cases sweep
  (``a-malformed-order-id-is-repaired``); the legacy parts built here are what pydantic-ai 1
  sends, which the Host's pin (``pydantic-ai-slim>=1``) still admits.
- A user prompt of several parts (the team's own ``agent.run(["Is this bulb mouldy?",
  BinaryContent(...)])``) as typed parts, as the provider received it (what the provider-prompt
  kinds compare, :func:`eval_core.kinds.parts_of`).
- A reply's usage, count by count under its own name: the team's agent reads it
  (``result.usage()``, a ``UsageLimits`` on output tokens), while a Trial's spend is the
  binding's record.
"""

from __future__ import annotations

import warnings

from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo

from eval_core.hosts import ModelReply, Usage, sent
from eval_core.kinds import parts_of
from eval_host_pydantic_ai.model import request_of, response_of

INFO = AgentInfo(
    function_tools=[],
    allow_text_output=True,
    output_tools=[],
    model_settings=None,
    model_request_parameters=ModelRequestParameters(),
    instructions=None,
)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)


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
    wire = request_of(messages, INFO).messages
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "tool"]
    assert wire[1]["tool_calls"] == [
        {"call_id": "c1", "name": "lookup_order", "arguments": {"order_id": "A-1002"}},
        {"call_id": "c2", "name": "lookup_order", "arguments": {"order_id": "A-1003"}},
    ]
    answers = [(m["tool_call_id"], m["name"]) for m in wire[2:]]
    assert answers == [("c1", "lookup_order"), ("c2", "lookup_order")]
    assert "Parcelways" in wire[2]["content"]
    assert "Camping stove" in wire[3]["content"]


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
    wire = request_of(messages, INFO).messages
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "user"]
    retried = wire[2]
    assert (retried["tool_call_id"], retried["name"]) == ("c1", "lookup_order")
    assert retried["content"].startswith("order ids look like A-1001")
    assert wire[3]["content"] == "Please return text."


def test_a_prompt_of_text_and_an_image_reaches_the_model_as_typed_parts() -> None:
    photo = BinaryContent(PNG, media_type="image/png", identifier="bulb.png")
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(["Is this bulb mouldy?", photo, "Order A-1001."])])
    ]
    request = request_of(messages, INFO)
    received = parts_of(sent(request.system, request.messages, []))
    assert [(p.type, p.role, p.text) for p in received[1:]] == [
        ("text", "user", "Is this bulb mouldy?"),
        ("image", "user", None),
        ("text", "user", "Order A-1001."),
    ]
    assert (received[2].media_type, received[2].size) == ("image/png", len(PNG))


def test_a_prompt_part_the_wire_has_no_type_for_reaches_the_model_as_text_naming_it() -> None:
    """A part that is neither text nor bytes (the team's ``ImageUrl``: the neutral wire carries
    no link) is still one of the prompt's parts, a text part that names it, never dropped."""
    link = ImageUrl("https://acme.example/tents/trail-2p.jpg")
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(["Is this the tent I ordered?", link])])
    ]
    request = request_of(messages, INFO)
    received = parts_of(sent(request.system, request.messages, []))
    assert [(p.type, p.role) for p in received[1:]] == [("text", "user"), ("text", "user")]
    assert received[1].text == "Is this the tent I ordered?"
    assert received[2].text is not None
    assert "https://acme.example/tents/trail-2p.jpg" in received[2].text


def test_each_count_of_a_replys_usage_reaches_pydantic_ai_under_its_own_name() -> None:
    usage = Usage(input_tokens=101, output_tokens=23, cache_read_tokens=64, cache_write_tokens=5)
    response = response_of(ModelReply(text="Your order ships today.", usage=usage), INFO)
    got = response.usage
    assert (got.input_tokens, got.output_tokens) == (101, 23)
    assert (got.cache_read_tokens, got.cache_write_tokens) == (64, 5)
