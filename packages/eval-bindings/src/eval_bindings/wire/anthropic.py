"""Anthropic Messages: ``tools``, ``tool_use``/``tool_result`` content blocks, usage.

The system prompt is a top-level field; tool results are ``tool_result`` blocks in a user turn,
consecutive results merged into one turn as the API requires. A File goes as an ``image``
block or a ``document`` block (a PDF, titled with its file name), each with a base64 source
(:mod:`.files`). Usage is ``input_tokens`` and ``output_tokens``; cache reads and writes are
reported alongside, never added. :func:`recorded` reads a request body back as the neutral
record.
"""

from __future__ import annotations

from typing import Any

from eval_bindings.wire import files, neutral, tokens
from eval_bindings.wire.options import DEFAULT, RequestOptions, ToolChoice
from eval_bindings.wire.transport import VendorError
from eval_core.hosts import ModelCallRequest, ModelReply, ModelRequest, ModelToolCall, Usage, sent

API_VERSION = "2023-06-01"
_CHOICE: dict[ToolChoice, str] = {"auto": "auto", "required": "any", "none": "none"}


def url(base_url: str) -> str:
    return base_url.rstrip("/") + "/messages"


def headers(api_key: str) -> dict[str, str]:
    return {
        "x-api-key": api_key,
        "anthropic-version": API_VERSION,
        "Content-Type": "application/json",
    }


def encode(
    model: str,
    request: ModelCallRequest,
    max_tokens: int,
    options: RequestOptions = DEFAULT,
) -> dict[str, Any]:
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for message in request.messages:
        role = neutral.role(message)
        if role == "user":
            add("user", _user_blocks(message))
        elif role == "tool":
            add(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": neutral.call_id(message),
                        "content": neutral.text_of(message) or "",
                    }
                ],
            )
        else:
            blocks: list[dict[str, Any]] = []
            text = neutral.text_of(message)
            if text:
                blocks.append({"type": "text", "text": text})
            for cid, name, args in neutral.tool_calls(message):
                blocks.append({"type": "tool_use", "id": cid, "name": name, "input": _input(args)})
            add("assistant", blocks or [{"type": "text", "text": " "}])
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": turns}
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [
            {
                "name": tool.name,
                "description": tool.description or "",
                "input_schema": tool.input_schema,
            }
            for tool in request.tools
        ]
        choice: dict[str, Any] = {"type": _CHOICE[options.choice(request.messages)]}
        if options.parallel_tool_calls is False and choice["type"] != "none":
            choice["disable_parallel_tool_use"] = True
        body["tool_choice"] = choice
    if options.temperature is not None:
        body["temperature"] = options.temperature
    return body


def _user_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in neutral.parts(message):
        if not files.is_file(part):
            blocks.append({"type": "text", "text": part["text"]})
        elif files.sent_as(part) == "image":
            blocks.append({"type": "image", "source": _source(part)})
        elif files.sent_as(part) == "document":
            document = {"type": "document", "source": _source(part)}
            blocks.append({**document, "title": part.get("filename") or "file"})
        else:
            blocks.append({"type": "text", "text": files.as_text(part)})
    return blocks or [{"type": "text", "text": " "}]


def _source(part: dict[str, Any]) -> dict[str, Any]:
    return {"type": "base64", "media_type": part.get("mediaType"), "data": part.get("data", "")}


def recorded(body: dict[str, Any]) -> ModelRequest:
    """The request as this wire sent it, in the neutral shape (File bytes as their digest)."""
    messages: list[dict[str, Any]] = []
    for turn in body.get("messages") or ():
        content = turn.get("content")
        blocks: Any = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if turn.get("role") == "assistant":
            messages.append(_assistant(blocks or []))
            continue
        said: list[Any] = []
        for block in blocks or ():
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result":
                if said:
                    messages.append({"role": "user", "content": said})
                    said = []
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": block.get("tool_use_id"),
                        "content": _text(block.get("content")),
                    }
                )
            elif kind in ("image", "document"):
                source = block.get("source") or {}
                data = source.get("data") if source.get("type") == "base64" else ""
                neutral_kind = "image" if kind == "image" else "file"
                said.append(
                    files.neutral(neutral_kind, source.get("media_type"), block.get("title"), data)
                )
            else:
                said.append(block)
        if said:
            messages.append({"role": "user", "content": said})
    system = body.get("system")
    tools, offered = neutral.offered(list(body.get("tools") or ()), "input_schema")
    return sent(_text(system), messages, tools, offered)


def _assistant(blocks: list[Any]) -> dict[str, Any]:
    texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    calls = [
        {"call_id": b.get("id"), "name": b.get("name"), "arguments": b.get("input")}
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]
    out: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    if calls:
        out["tool_calls"] = calls
    return out


def _text(content: Any) -> str:
    """A ``system`` or ``tool_result`` content: a string, or text blocks joined."""
    if isinstance(content, str):
        return content
    return "".join(
        b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text"
    )


def _input(arguments: Any) -> dict[str, Any]:
    """``tool_use.input`` must be an object: a raw string the model sent is wrapped, not lost."""
    if isinstance(arguments, dict):
        return arguments
    return {"_raw": arguments}


def decode(body: Any, asked_model: str) -> ModelReply:
    """The reply, or a ``model_malformed_response`` / ``model_usage_missing`` fault."""
    try:
        blocks = body["content"]
        if not isinstance(blocks, list):
            raise TypeError("content is not a list")
        texts: list[str] = []
        calls: list[ModelToolCall] = []
        for block in blocks:
            kind = block["type"]
            if kind == "text":
                if not isinstance(block["text"], str):
                    raise TypeError("a text block's text is not a string")
                texts.append(block["text"])
            elif kind == "tool_use":
                name = block["name"]
                if not isinstance(name, str) or not name:
                    raise TypeError("a tool_use block without a name")
                calls.append(
                    ModelToolCall(call_id=str(block["id"]), name=name, arguments=block["input"])
                )
        stop = body.get("stop_reason")
    except (KeyError, TypeError) as exc:
        raise VendorError(
            "model_malformed_response", f"not a Messages reply ({type(exc).__name__}: {exc})"
        ) from exc
    usage = decode_usage(body)
    reported = body.get("model")
    return ModelReply(
        text="".join(texts) if texts else None,
        tool_calls=calls,
        usage=usage,
        finish_reason="tool_calls" if stop == "tool_use" else str(stop or "stop"),
        model_version=reported if isinstance(reported, str) and reported != asked_model else None,
    )


def decode_usage(body: Any) -> Usage:
    usage, given, made = tokens.reported(body, "input_tokens", "output_tokens")
    read, write = usage.get("cache_read_input_tokens"), usage.get("cache_creation_input_tokens")
    return Usage(
        input_tokens=given,
        output_tokens=made,
        cache_read_tokens=read if tokens.count(read) else 0,
        cache_write_tokens=write if tokens.count(write) else 0,
    )
