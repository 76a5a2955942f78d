"""OpenAI Chat Completions, served: ``POST /v1/chat/completions``, streamed or not.

A request becomes the binding's :class:`~eval_core.hosts.ModelCallRequest` (the system and
developer messages joined as its system prompt, the conversation in the neutral shape, the
function Tools as declarations); the binding's reply goes back as a ``chat.completion`` or as
``chat.completion.chunk`` events. Relayed: text and image parts (an image as a ``data:`` URL),
function Tools, Tool calls and their results. Not relayed (the pinned model's own settings
apply): ``temperature``, ``top_p``, ``max_tokens``, ``max_completion_tokens``, ``seed``,
``stop``, ``parallel_tool_calls``, ``user``, ``metadata``, ``store``, ``service_tier``.
Refused (400, the Trial errors): the rest of :data:`REFUSED`, a ``tool_choice`` other than
``auto``, and a ``response_format`` other than ``text``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from eval_bindings.wire import files
from eval_core.hosts import ModelCallRequest, ModelReply, ToolDecl
from eval_host_process.wire import (
    Refused,
    arguments_of,
    arguments_text,
    kind_of,
    new_id,
    refuse_present,
    require,
    sse,
    stop_reason,
    text_of,
    tool_decl,
)

WIRE = "chat completions"
_TEXT_PARTS = ("text", "refusal")
REFUSED = (
    "logprobs",
    "top_logprobs",
    "audio",
    "prediction",
    "functions",
    "function_call",
    "logit_bias",
    "web_search_options",
)


def request_of(body: dict[str, Any]) -> ModelCallRequest:
    """The binding's request for a Chat Completions body, or :class:`Refused`."""
    refuse_present(body, WIRE, REFUSED)
    require(body.get("n") in (None, 1), f"{WIRE}: n={body.get('n')!r}: one choice only")
    modalities = body.get("modalities")
    require(modalities in (None, ["text"]), f"{WIRE}: modalities {modalities!r}: text only")
    choice = body.get("tool_choice")
    require(choice in (None, "auto"), f"{WIRE}: tool_choice {choice!r} is not relayed")
    form = body.get("response_format")
    require(
        form is None or (isinstance(form, dict) and form.get("type") == "text"),
        f"{WIRE}: response_format {form!r} is not relayed (structured output)",
    )
    raw = body.get("messages")
    require(isinstance(raw, list) and bool(raw), f"{WIRE}: 'messages' must be a non-empty list")
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for message in raw or ():
        require(isinstance(message, dict), f"{WIRE}: a message is not an object")
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            system.append(text_of(content, WIRE, _TEXT_PARTS))
        elif role == "user":
            messages.append({"role": "user", "content": _user(content)})
        elif role == "assistant":
            out: dict[str, Any] = {
                "role": "assistant",
                "content": text_of(content, WIRE, _TEXT_PARTS) or None,
            }
            calls = []
            for call in message.get("tool_calls") or ():
                require(
                    isinstance(call, dict) and call.get("type", "function") == "function",
                    f"{WIRE}: an assistant Tool call that is not a function call",
                )
                function = call.get("function") or {}
                cid, name = str(call.get("id") or ""), str(function.get("name") or "")
                names[cid] = name
                arguments = arguments_of(function.get("arguments"))
                calls.append({"call_id": cid, "name": name, "arguments": arguments})
            if calls:
                out["tool_calls"] = calls
            messages.append(out)
        elif role == "tool":
            cid = str(message.get("tool_call_id") or "")
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": cid,
                    "name": names.get(cid, ""),
                    "content": text_of(content, WIRE, _TEXT_PARTS),
                }
            )
        else:
            raise Refused(f"{WIRE}: a message with role {role!r} is not relayed")
    return ModelCallRequest(
        system="\n\n".join(system), messages=messages, tools=_tools(body.get("tools"))
    )


def _tools(raw: Any) -> list[ToolDecl]:
    tools: list[ToolDecl] = []
    for tool in raw or ():
        require(
            isinstance(tool, dict) and tool.get("type") == "function",
            f"{WIRE}: only function Tools are relayed, not {kind_of(tool)!r}",
        )
        function = tool.get("function") or {}
        tools.append(
            tool_decl(
                function.get("name"), function.get("description"), function.get("parameters"), WIRE
            )
        )
    return tools


def _user(content: Any) -> Any:
    if not isinstance(content, list):
        return text_of(content, WIRE, _TEXT_PARTS)
    parts: list[dict[str, Any]] = []
    for part in content:
        kind = kind_of(part)
        if kind == "text":
            parts.append({"type": "text", "text": str(part.get("text") or "")})
        elif kind == "image_url":
            media, data = files.from_data_url((part.get("image_url") or {}).get("url"))
            require(media is not None, f"{WIRE}: an image is relayed from a data: URL only")
            parts.append(files.neutral("image", media, None, data))
        else:
            raise Refused(f"{WIRE}: a user part of type {kind!r} is not relayed")
    return parts


def _calls(reply: ModelReply) -> list[dict[str, Any]]:
    return [
        {
            "id": call.call_id or new_id("call_"),
            "type": "function",
            "function": {"name": call.name, "arguments": arguments_text(call.arguments)},
        }
        for call in reply.tool_calls
    ]


def _finish(reply: ModelReply) -> str:
    return stop_reason(reply, tools="tool_calls", length="length", end="stop")


def _usage(reply: ModelReply) -> dict[str, Any]:
    usage = reply.usage
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read_tokens},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
    }


def completion(reply: ModelReply, model: str) -> dict[str, Any]:
    """The reply as a ``chat.completion`` body."""
    message: dict[str, Any] = {"role": "assistant", "content": _answer(reply), "refusal": None}
    calls = _calls(reply)
    if calls:
        message["tool_calls"] = calls
    return {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": _finish(reply), "logprobs": None}
        ],
        "usage": _usage(reply),
    }


def _answer(reply: ModelReply) -> str | None:
    if reply.text is None and reply.structured is not None:
        return arguments_text(reply.structured)
    return reply.text


def chunks(reply: ModelReply, model: str, include_usage: bool) -> Iterator[bytes]:
    """The reply as ``chat.completion.chunk`` events, then ``[DONE]``."""
    head = {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return sse({**head, "choices": [choice]})

    yield chunk({"role": "assistant", "content": ""})
    text = _answer(reply)
    if text:
        yield chunk({"content": text})
    for index, call in enumerate(_calls(reply)):
        function = call["function"]
        opening = {"index": index, "id": call["id"], "type": "function"}
        yield chunk(
            {"tool_calls": [{**opening, "function": {"name": function["name"], "arguments": ""}}]}
        )
        yield chunk(
            {"tool_calls": [{"index": index, "function": {"arguments": function["arguments"]}}]}
        )
    yield chunk({}, _finish(reply))
    if include_usage:
        yield sse({**head, "choices": [], "usage": _usage(reply)})
    yield sse("[DONE]")
