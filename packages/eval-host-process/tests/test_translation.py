"""The served wires translate faithfully, checked against the bindings' own encoders and
decoders (the other side of the same wires): a request the OpenAI or Anthropic binding would
put on the wire reads back as the very ``ModelCallRequest`` it was made from, and a reply the
harness serves decodes, by the binding's decoder, to the very ``ModelReply`` it was made from.
So what an agent sends reaches the binding unchanged, and what the binding answers reaches the
agent unchanged."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from eval_bindings.wire import anthropic, openai
from eval_core.hosts import ModelCallRequest, ModelReply, ModelToolCall, ToolDecl
from eval_host_process import chat_wire, messages_wire, responses_wire
from eval_host_process.wire import sse

text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=30)
names = st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=6,
)
arguments = st.dictionaries(names, json_values, max_size=3)


@st.composite
def calls(draw: st.DrawFn, prefix: str) -> list[dict[str, Any]]:
    count = draw(st.integers(0, 2))
    return [
        {"call_id": f"{prefix}-{i}", "name": draw(names), "arguments": draw(arguments)}
        for i in range(count)
    ]


@st.composite
def requests(draw: st.DrawFn) -> ModelCallRequest:
    """A conversation as a Host's loop makes one: user, then rounds of an assistant turn (text,
    Tool calls or both), its Tool results, and a user turn when no Tool was called."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": draw(text)}]
    for round_ in range(draw(st.integers(0, 3))):
        made = draw(calls(f"r{round_}"))
        said = draw(st.none() | text) if made else draw(text)
        assistant: dict[str, Any] = {"role": "assistant", "content": said}
        if made:
            assistant["tool_calls"] = made
        messages.append(assistant)
        for call in made:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call["call_id"],
                    "name": call["name"],
                    "content": json.dumps(draw(json_values)),
                }
            )
        if not made or draw(st.booleans()):
            messages.append({"role": "user", "content": draw(text)})
    tools = [
        ToolDecl(
            name=name,
            description=draw(text),
            input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
        )
        for name in draw(st.lists(names, max_size=3, unique=True))
    ]
    return ModelCallRequest(system=draw(text), messages=messages, tools=tools)


replies = st.builds(
    lambda said, made: ModelReply(
        text=said,
        tool_calls=[
            ModelToolCall(call_id=c["call_id"], name=c["name"], arguments=c["arguments"])
            for c in made
        ],
    ),
    st.none() | text,
    calls("c"),
)


@settings(max_examples=60, deadline=None)
@given(requests())
def test_a_chat_completions_request_reads_back_as_the_request_it_was_made_from(
    request: ModelCallRequest,
) -> None:
    body = openai.encode("m", request, 256)
    assert chat_wire.request_of(body) == request


@settings(max_examples=60, deadline=None)
@given(requests())
def test_a_messages_request_reads_back_as_the_request_it_was_made_from(
    request: ModelCallRequest,
) -> None:
    body = anthropic.encode("m", request, 256)
    assert messages_wire.request_of(body) == request


def _same(reply: ModelReply, decoded: ModelReply) -> None:
    assert decoded.text == (reply.text or None)
    assert [(c.call_id, c.name, c.arguments) for c in decoded.tool_calls] == [
        (c.call_id, c.name, c.arguments) for c in reply.tool_calls
    ]


@settings(max_examples=60, deadline=None)
@given(replies)
def test_a_served_reply_decodes_as_the_reply_it_was_made_from(reply: ModelReply) -> None:
    _same(reply, openai.decode(chat_wire.completion(reply, "m"), "m"))
    if reply.text or reply.tool_calls:  # Anthropic has no empty message
        _same(reply, anthropic.decode(messages_wire.message(reply, "m"), "m"))


def _events(stream: Any) -> list[dict[str, Any]]:
    lines = b"".join(stream).decode().splitlines()
    return [
        json.loads(line[6:])
        for line in lines
        if line.startswith("data: ") and line != "data: [DONE]"
    ]


@settings(max_examples=40, deadline=None)
@given(replies)
def test_a_streamed_reply_assembles_to_the_unstreamed_one(reply: ModelReply) -> None:
    # Chat Completions: the deltas, put together as a client does
    content, made = "", {}
    for chunk in _events(chat_wire.chunks(reply, "m", include_usage=True)):
        for choice in chunk["choices"]:
            content += choice["delta"].get("content") or ""
            for call in choice["delta"].get("tool_calls") or ():
                at = made.setdefault(call["index"], {"id": "", "name": "", "arguments": ""})
                at["id"] = call.get("id") or at["id"]
                at["name"] = call.get("function", {}).get("name") or at["name"]
                at["arguments"] += call.get("function", {}).get("arguments") or ""
    whole = chat_wire.completion(reply, "m")["choices"][0]["message"]
    assert content == (whole["content"] or "")
    assert [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in whole.get("tool_calls", [])
    ] == [(c["id"], c["name"], c["arguments"]) for _, c in sorted(made.items())]
    # Responses: the completed event carries the whole response
    done = [
        e for e in _events(responses_wire.events(reply, "m")) if e["type"] == "response.completed"
    ]
    assert [i["type"] for i in done[0]["response"]["output"]] == [
        i["type"] for i in responses_wire.response(reply, "m")["output"]
    ]
    # Messages: text deltas and input_json_delta put together
    blocks: list[dict[str, Any]] = []
    for event in _events(messages_wire.events(reply, "m")):
        if event["type"] == "content_block_start":
            blocks.append(dict(event["content_block"]))
        elif event["type"] == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                blocks[-1]["text"] += delta["text"]
            else:
                blocks[-1]["input"] = json.loads(delta["partial_json"])
    assert blocks == messages_wire.message(reply, "m")["content"]


def test_an_sse_event_is_one_data_line() -> None:
    assert sse({"a": "b\nc"}, event="x") == b'event: x\ndata: {"a":"b\\nc"}\n\n'
