"""The session's reply reaches the team's graph as a vendor's chat model would hand it over.

A graph may branch on an ``AIMessage``'s ``response_metadata`` (a reply cut off by the token
limit says ``finish_reason: "length"``) or read its ``usage_metadata``; the example's graph reads
neither, so no Case of its Corpus sees them, and this test reads what a graph would.
"""

from __future__ import annotations

from eval_core.hosts import ModelReply, ModelToolCall, Usage
from eval_host_langgraph.chat_model import message_of


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
