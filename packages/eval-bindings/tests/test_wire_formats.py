"""Both wire formats against real loopback servers: Tool calls round-trip, usage is parsed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval_bindings.endpoint import EndpointBinding
from eval_bindings.wire import anthropic, openai
from eval_bindings.wire.options import RequestOptions
from eval_core._plugins.host import ModelCallRequest
from eval_core._plugins.plugins import load_plugins
from eval_core._running.trial import run_trial


def openai_reply(
    *,
    text: str | None = None,
    calls: list[tuple[str, str, str]] = (),
    model: str = "test-model-2025-01-01",
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
            for cid, name, args in calls
        ]
    return {
        "id": "x",
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": usage if usage is not None else {"prompt_tokens": 100, "completion_tokens": 20},
    }


def anthropic_reply(
    *,
    text: str | None = None,
    calls: list[tuple[str, str, dict[str, Any]]] = (),
    model: str = "test-model-2025-01-01",
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    for cid, name, args in calls:
        content.append({"type": "tool_use", "id": cid, "name": name, "input": args})
    return {
        "id": "msg",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "usage": usage if usage is not None else {"input_tokens": 100, "output_tokens": 20},
    }


def test_openai_tool_calls_round_trip(vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(
        kit.Reply(body=openai_reply(text=None, calls=[("call_1", "echo", '{"text": "hi"}')])),
        kit.Reply(
            body=openai_reply(
                text="hello",
                usage={
                    "prompt_tokens": 150,
                    "completion_tokens": 5,
                    "prompt_tokens_details": {"cached_tokens": 64},
                },
            )
        ),
    )
    binding = EndpointBinding(kit.pin("openai", server.url), kit.FAKE_KEY, base_delay=0.001)
    result = run_trial(kit.make_case(), 1, loop_host, binding, load_plugins().kinds)
    assert result.outcome == "passed" and result.vacuous  # expects nothing: the wire is the point
    assert result.output == "hello"
    assert result.model_calls == 2 and result.retries == 0
    assert (result.usage.input_tokens, result.usage.output_tokens) == (250, 25)
    assert result.usage.cache_read_tokens == 64
    assert result.model_version is None  # the vendor reported the id asked for
    first, second = (r["json"] for r in server.requests)
    assert server.requests[0]["path"] == "/v1/chat/completions"
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {kit.FAKE_KEY}"
    assert first["messages"][0] == {"role": "system", "content": "You are a careful helper."}
    assert first["tools"][0]["function"]["name"] == "echo"
    assert first["tools"][0]["function"]["parameters"]["type"] == "object"
    assistant, tool = second["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert assistant["tool_calls"][0]["function"] == {"name": "echo", "arguments": '{"text": "hi"}'}
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": '{"ok":true}'}


def test_openai_decodes_arguments_and_keeps_unparsable_ones_raw(vendor: Any, kit: Any) -> None:
    server = vendor(
        kit.Reply(body=openai_reply(calls=[("a", "echo", '{"text": "x"}'), ("b", "echo", "{oops")]))
    )
    binding = EndpointBinding(kit.pin("openai", server.url), kit.FAKE_KEY)
    reply = binding.session(kit.make_case()).complete(
        ModelCallRequest(system="s", messages=[{"role": "user", "content": "u"}], tools=[kit.ECHO])
    )
    assert [c.arguments for c in reply.tool_calls] == [{"text": "x"}, "{oops"]
    assert reply.finish_reason == "tool_calls"


def test_anthropic_tool_calls_round_trip(vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(
        kit.Reply(
            body=anthropic_reply(text="Let me echo.", calls=[("tu_1", "echo", {"text": "hi"})])
        ),
        kit.Reply(
            body=anthropic_reply(
                text="hello",
                model="test-model-2025-02-02",
                usage={
                    "input_tokens": 120,
                    "output_tokens": 7,
                    "cache_read_input_tokens": 30,
                    "cache_creation_input_tokens": 10,
                },
            )
        ),
    )
    binding = EndpointBinding(kit.pin("anthropic", server.url), kit.FAKE_KEY)
    result = run_trial(kit.make_case(), 1, loop_host, binding, load_plugins().kinds)
    assert result.output == "hello"
    assert result.model_calls == 2
    assert (result.usage.input_tokens, result.usage.output_tokens) == (220, 27)
    assert (result.usage.cache_read_tokens, result.usage.cache_write_tokens) == (30, 10)
    assert result.model_version == "test-model-2025-02-02"  # differs from the id asked for
    first, second = (r["json"] for r in server.requests)
    assert server.requests[0]["path"] == "/v1/messages"
    assert server.requests[0]["headers"]["x-api-key"] == kit.FAKE_KEY
    assert server.requests[0]["headers"]["anthropic-version"]
    assert first["system"] == "You are a careful helper."
    assert first["tools"][0] == {
        "name": "echo",
        "description": "Echo the text back.",
        "input_schema": kit.ECHO.input_schema,
    }
    assistant, results = second["messages"][-2:]
    assert assistant == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me echo."},
            {"type": "tool_use", "id": "tu_1", "name": "echo", "input": {"text": "hi"}},
        ],
    }
    assert results == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": '{"ok":true}'}],
    }


def test_anthropic_merges_consecutive_tool_results_into_one_user_turn(kit: Any) -> None:
    from eval_bindings.wire import anthropic

    body = anthropic.encode(
        "m",
        ModelCallRequest(
            system="",
            messages=[
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"call_id": "1", "name": "echo", "arguments": {}},
                        {"call_id": "2", "name": "echo", "arguments": {}},
                    ],
                },
                {"role": "tool", "call_id": "1", "name": "echo", "content": "a"},
                {"role": "tool", "call_id": "2", "name": "echo", "content": "b"},
            ],
            tools=[],
        ),
        64,
    )
    assert [t["role"] for t in body["messages"]] == ["user", "assistant", "user"]
    assert [b["tool_use_id"] for b in body["messages"][2]["content"]] == ["1", "2"]
    assert "system" not in body and "tools" not in body


def _options(**switches: Any) -> RequestOptions:
    return RequestOptions(**switches)


TOOL_RESULT_TURN = [
    {"role": "user", "content": "u"},
    {"role": "assistant", "content": None, "tool_calls": [{"call_id": "c1", "name": "echo"}]},
    {"role": "tool", "tool_call_id": "c1", "name": "echo", "content": '{"ok":true}'},
]


@pytest.mark.parametrize(
    ("switches", "first", "after_result"),
    [
        ({}, "auto", "auto"),
        ({"tool_choice": "required"}, "required", "auto"),  # the reset: no forced loop
        ({"tool_choice": "required", "tool_choice_after_result": "none"}, "required", "none"),
        ({"tool_choice": "none"}, "none", "none"),
        ({"tool_choice_after_result": "required"}, "auto", "required"),
    ],
)
def test_tool_choice_goes_out_whenever_tools_are_offered(
    kit: Any, switches: dict[str, Any], first: str, after_result: str
) -> None:
    options = _options(**switches)
    opening = ModelCallRequest(system="s", messages=TOOL_RESULT_TURN[:1], tools=[kit.ECHO])
    answering = ModelCallRequest(system="s", messages=TOOL_RESULT_TURN, tools=[kit.ECHO])
    assert openai.encode("m", opening, 8, None, options)["tool_choice"] == first
    assert openai.encode("m", answering, 8, None, options)["tool_choice"] == after_result
    anthropic_names = {"auto": "auto", "required": "any", "none": "none"}
    assert anthropic.encode("m", opening, 8, options)["tool_choice"] == {
        "type": anthropic_names[first]
    }
    bare = ModelCallRequest(system="s", messages=TOOL_RESULT_TURN[:1], tools=[])
    assert "tool_choice" not in openai.encode("m", bare, 8, None, options)
    assert "tool_choice" not in anthropic.encode("m", bare, 8, options)


def test_sampling_switches_go_out_only_when_a_pin_sets_them(kit: Any) -> None:
    request = ModelCallRequest(system="s", messages=TOOL_RESULT_TURN[:1], tools=[kit.ECHO])
    unset = openai.encode("m", request, 8)
    assert not {"temperature", "seed", "parallel_tool_calls"} & set(unset)
    options = _options(temperature=0.0, seed=7, parallel_tool_calls=False)
    body = openai.encode("m", request, 8, None, options)
    assert (body["temperature"], body["seed"], body["parallel_tool_calls"]) == (0.0, 7, False)
    messages = anthropic.encode("m", request, 8, options)
    assert messages["temperature"] == 0.0 and "seed" not in messages
    assert messages["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}


@given(
    text=st.one_of(st.none(), st.text(max_size=20)),
    calls=st.lists(st.sampled_from(["echo", "lookup"]), max_size=3),
)
def test_an_assistant_message_never_goes_out_with_null_content(
    text: str | None, calls: list[str]
) -> None:
    """llama.cpp answers 500 to ``"content": null`` and some templates fail on a missing key."""
    assistant: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        assistant["tool_calls"] = [
            {"call_id": f"c{i}", "name": n, "arguments": {}} for i, n in enumerate(calls)
        ]
    request = ModelCallRequest(
        system="", messages=[{"role": "user", "content": "u"}, assistant], tools=[]
    )
    sent = openai.encode("m", request, 8)["messages"][1]
    assert isinstance(sent["content"], str) and sent["content"] == (text or "")


def test_a_user_message_whose_parts_are_not_a_list_goes_out_as_its_joined_text() -> None:
    """A Host built in Python may hand over a user message's parts as a tuple: its text parts
    go out joined, empty ones and any part that is not text left out."""
    parts = (
        {"type": "text", "text": "first"},
        {"type": "text", "text": ""},
        {"type": "note", "text": "not a text part"},
        "junk",
        {"type": "text", "text": "second"},
    )
    request = ModelCallRequest(system="", messages=[{"role": "user", "content": parts}], tools=[])
    assert openai.encode("m", request, 8)["messages"][-1] == {
        "role": "user",
        "content": "first\n\nsecond",
    }


def test_each_wire_records_the_tool_declarations_it_put_on_the_wire(kit: Any) -> None:
    """What ``tool_offered`` reads: the declaration as the vendor received it, not the Case's."""
    request = ModelCallRequest(system="s", messages=TOOL_RESULT_TURN[:1], tools=[kit.ECHO])
    for record in (
        openai.recorded(openai.encode("m", request, 8)),
        anthropic.recorded(anthropic.encode("m", request, 8)),
    ):
        assert record.tools == [kit.ECHO.name]
        assert record.offered is not None
        (declared,) = record.offered
        assert declared.name == kit.ECHO.name
        assert declared.description == (kit.ECHO.description or "")
        assert declared.input_schema == kit.ECHO.input_schema
