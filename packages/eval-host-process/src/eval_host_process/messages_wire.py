"""Anthropic Messages, served: ``POST /v1/messages``, streamed or not.

``system`` (text or text blocks) is the system prompt; ``messages`` with ``text``, ``image``
(base64), ``document`` (base64 PDF), ``tool_use`` and ``tool_result`` blocks are the
conversation; ``tools`` (custom Tools) are the declarations. The reply goes back as a
``message``, or as its event stream (``message_start`` ... ``message_stop``). Not relayed (the
pinned model's settings apply): ``max_tokens``, ``temperature``, ``top_p``, ``top_k``,
``stop_sequences``, ``metadata``, ``service_tier``, ``cache_control`` marks. Refused (400, the
Trial errors): ``thinking``, ``mcp_servers``, ``container``, server Tools (a Tool with a
``type`` other than ``custom``), a ``tool_choice`` other than ``auto``, and blocks other than
the above.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from eval_bindings.wire import files
from eval_core.hosts import ModelCallRequest, ModelReply
from eval_host_process.wire import (
    Refused,
    kind_of,
    new_id,
    refuse_present,
    require,
    sse,
    stop_reason,
    text_of,
    tool_decls,
)

WIRE = "messages"
REFUSED = ("thinking", "mcp_servers", "container")
_TEXT_PARTS = ("text",)


def request_of(body: dict[str, Any]) -> ModelCallRequest:
    """The binding's request for a Messages body, or :class:`Refused`."""
    refuse_present(body, WIRE, REFUSED)
    choice = body.get("tool_choice")
    require(
        choice is None or (isinstance(choice, dict) and choice.get("type") == "auto"),
        f"{WIRE}: tool_choice {choice!r} is not relayed",
    )
    raw = body.get("messages")
    require(isinstance(raw, list) and bool(raw), f"{WIRE}: 'messages' must be a non-empty list")
    messages: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for turn in raw or ():
        require(isinstance(turn, dict), f"{WIRE}: a message is not an object")
        role, content = turn.get("role"), turn.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        require(isinstance(blocks, list), f"{WIRE}: a message's content is neither text nor blocks")
        if role == "assistant":
            messages.append(_assistant(blocks, names))
        elif role == "user":
            messages.extend(_user(blocks, names))
        else:
            raise Refused(f"{WIRE}: a message with role {role!r} is not relayed")
    return ModelCallRequest(
        system=text_of(body.get("system"), WIRE, _TEXT_PARTS),
        messages=messages,
        tools=tool_decls(
            body.get("tools"), WIRE, kind="custom", schema="input_schema", untyped="custom"
        ),
    )


def _assistant(blocks: list[Any], names: dict[str, str]) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in blocks:
        kind = kind_of(block)
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            cid, name = str(block.get("id") or ""), str(block.get("name") or "")
            names[cid] = name
            calls.append({"call_id": cid, "name": name, "arguments": block.get("input")})
        else:
            raise Refused(f"{WIRE}: an assistant block of type {kind!r} is not relayed")
    out: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        out["tool_calls"] = calls
    return out


def _user(blocks: list[Any], names: dict[str, str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    said: list[dict[str, Any]] = []
    for block in blocks:
        kind = kind_of(block)
        if kind == "tool_result":
            if said:
                out.append({"role": "user", "content": said})
                said = []
            cid = str(block.get("tool_use_id") or "")
            content = text_of(block.get("content"), WIRE, _TEXT_PARTS)
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": cid,
                    "name": names.get(cid, ""),
                    "content": content,
                }
            )
        elif kind == "text":
            said.append({"type": "text", "text": str(block.get("text") or "")})
        elif kind in ("image", "document"):
            source = block.get("source") or {}
            require(source.get("type") == "base64", f"{WIRE}: a {kind} is relayed from base64 only")
            neutral = "image" if kind == "image" else "file"
            said.append(
                files.neutral(
                    neutral, source.get("media_type"), block.get("title"), source.get("data")
                )
            )
        else:
            raise Refused(f"{WIRE}: a user block of type {kind!r} is not relayed")
    if said:
        only_text = all(p["type"] == "text" for p in said)
        joined: Any = "".join(p["text"] for p in said) if only_text else said
        out.append({"role": "user", "content": joined})
    return out


def _blocks(reply: ModelReply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    text = (
        reply.text
        if reply.text is not None or reply.structured is None
        else json.dumps(reply.structured)
    )
    if text:
        blocks.append({"type": "text", "text": text})
    for call in reply.tool_calls:
        arguments = call.arguments if isinstance(call.arguments, dict) else {"_raw": call.arguments}
        blocks.append(
            {
                "type": "tool_use",
                "id": call.call_id or new_id("toolu_"),
                "name": call.name,
                "input": arguments,
            }
        )
    return blocks


def _usage(reply: ModelReply) -> dict[str, Any]:
    usage = reply.usage
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
    }


def message(reply: ModelReply, model: str) -> dict[str, Any]:
    """The reply as a ``message`` body."""
    return {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _blocks(reply),
        "stop_reason": stop_reason(reply, tools="tool_use", length="max_tokens", end="end_turn"),
        "stop_sequence": None,
        "usage": _usage(reply),
    }


def events(reply: ModelReply, model: str) -> Iterator[bytes]:
    """The reply as the Messages event stream."""
    whole = message(reply, model)
    start = {
        **whole,
        "content": [],
        "stop_reason": None,
        "usage": {**whole["usage"], "output_tokens": 0},
    }
    yield sse({"type": "message_start", "message": start}, event="message_start")
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield sse(
            {"type": "content_block_start", "index": index, "content_block": opening},
            event="content_block_start",
        )
        yield sse(
            {"type": "content_block_delta", "index": index, "delta": delta},
            event="content_block_delta",
        )
        yield sse({"type": "content_block_stop", "index": index}, event="content_block_stop")
    ending = {"stop_reason": whole["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": whole["usage"]["output_tokens"]}
    yield sse({"type": "message_delta", "delta": ending, "usage": usage}, event="message_delta")
    yield sse({"type": "message_stop"}, event="message_stop")
