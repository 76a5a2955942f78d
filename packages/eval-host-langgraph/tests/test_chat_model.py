"""The session's reply reaches the team's graph as a vendor's chat model would hand it over.

A graph may branch on an ``AIMessage``'s ``response_metadata`` (a reply cut off by the token
limit says ``finish_reason: "length"``) or read its ``usage_metadata``; the example's graph reads
neither, so no Case of its Corpus sees them, and this test reads what a graph would.
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from eval_core.hosts import ModelReply, ModelToolCall, Usage
from eval_host_langgraph.chat_model import message_of, request_of


def test_a_reply_cut_off_at_the_limit_says_so_in_the_messages_metadata() -> None:
    reply = ModelReply(
        text="The ticket is",
        usage=Usage(input_tokens=40, output_tokens=7),
        finish_reason="length",
        model_version="model-2026-01",
    )
    message = message_of(reply)
    assert message.content == "The ticket is"
    assert message.response_metadata == {"finish_reason": "length", "model_name": "model-2026-01"}
    assert message.usage_metadata == {"input_tokens": 40, "output_tokens": 7, "total_tokens": 47}


def test_a_reply_asking_for_tools_carries_each_call_with_its_id() -> None:
    reply = ModelReply(
        tool_calls=[ModelToolCall(call_id="c1", name="lookup_ticket", arguments={"id": "T-1"})],
        finish_reason="tool_calls",
    )
    message = message_of(reply)
    assert message.response_metadata["finish_reason"] == "tool_calls"
    assert [(c["id"], c["name"], c["args"]) for c in message.tool_calls] == [
        ("c1", "lookup_ticket", {"id": "T-1"})
    ]


def test_a_tool_bound_in_openais_shape_without_parameters_is_offered_as_an_object() -> None:
    """A graph may bind a Tool of no arguments as OpenAI's dict, leaving ``parameters`` out
    (or empty): ``bind_tools`` passes it on as written, and the model is offered it with the
    schema of no arguments, as a vendor's chat model would send it."""
    bare = {"type": "function", "function": {"name": "desk_status", "description": "Is it up?"}}
    empty = {"type": "function", "function": {"name": "queue_depth", "parameters": {}}}
    bound = [convert_to_openai_tool(t) for t in (bare, empty)]  # as bind_tools binds them
    request = request_of([HumanMessage("Is the desk up?")], bound)
    assert [(t.name, t.description, t.input_schema) for t in request.tools] == [
        ("desk_status", "Is it up?", {"type": "object"}),
        ("queue_depth", None, {"type": "object"}),
    ]
