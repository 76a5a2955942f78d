"""The OpenAI Responses API, served: ``POST /v1/responses``, streamed or not (what the OpenAI
Agents SDK speaks by default).

``instructions`` and ``system``/``developer`` input messages are the system prompt; ``input``
(a string or items: messages, ``function_call``, ``function_call_output``) is the
conversation; function Tools are the declarations. The reply goes back as a ``response``
object, or as its event stream (``response.created`` ... ``response.completed``). Relayed:
text, function Tools, Tool calls and outputs. Not relayed (the pinned model's settings apply):
``temperature``, ``top_p``, ``max_output_tokens``, ``parallel_tool_calls``, ``store``,
``metadata``, ``user``, ``truncation``, ``include``, ``prompt_cache_key``, ``service_tier``,
``safety_identifier``, ``reasoning``. Refused (400, the Trial errors): a hosted Tool
(``web_search``, ``file_search``, ``computer_use``...), ``previous_response_id`` and
``conversation`` (the harness keeps no server-side state), ``background``, a ``tool_choice``
other than ``auto``, a ``text.format`` other than ``text``, input items other than the above.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from eval_core.hosts import ModelCallRequest, ModelReply
from eval_host_process.wire import (
    Refused,
    arguments_of,
    arguments_text,
    new_id,
    refuse_present,
    require,
    sse,
    text_of,
    tool_decls,
)

WIRE = "responses"
REFUSED = ("previous_response_id", "conversation", "background", "prompt", "top_logprobs")
_TEXT_PARTS = ("input_text", "output_text", "text", "refusal")


def request_of(body: dict[str, Any]) -> ModelCallRequest:
    """The binding's request for a Responses body, or :class:`Refused`."""
    refuse_present(body, WIRE, REFUSED)
    choice = body.get("tool_choice")
    require(choice in (None, "auto"), f"{WIRE}: tool_choice {choice!r} is not relayed")
    form = ((body.get("text") or {}).get("format") or {}).get("type", "text")
    require(form == "text", f"{WIRE}: text.format {form!r} is not relayed (structured output)")
    system: list[str] = []
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        system.append(body["instructions"])
    raw = body.get("input")
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
    require(isinstance(items, list), f"{WIRE}: 'input' must be text or a list of items")
    messages: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for item in items or ():
        require(isinstance(item, dict), f"{WIRE}: an input item is not an object")
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            text = text_of(item.get("content"), WIRE, _TEXT_PARTS)
            if role in ("system", "developer"):
                system.append(text)
            elif role == "user":
                messages.append({"role": "user", "content": text})
            elif role == "assistant":
                _assistant(messages)["content"] = text or None
            else:
                raise Refused(f"{WIRE}: a message with role {role!r} is not relayed")
        elif kind == "function_call":
            cid, name = str(item.get("call_id") or ""), str(item.get("name") or "")
            names[cid] = name
            call = {"call_id": cid, "name": name, "arguments": arguments_of(item.get("arguments"))}
            _assistant(messages, calling=True).setdefault("tool_calls", []).append(call)
        elif kind == "function_call_output":
            cid = str(item.get("call_id") or "")
            output = item.get("output")
            content = output if isinstance(output, str) else text_of(output, WIRE, _TEXT_PARTS)
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": cid,
                    "name": names.get(cid, ""),
                    "content": content,
                }
            )
        elif kind == "reasoning":
            continue  # the model's own summary of its reasoning: nothing to relay
        else:
            raise Refused(f"{WIRE}: an input item of type {kind!r} is not relayed")
    return ModelCallRequest(
        system="\n\n".join(system),
        messages=messages,
        tools=tool_decls(
            body.get("tools"), WIRE, kind="function", schema="parameters", untyped=None
        ),
    )


def _assistant(messages: list[dict[str, Any]], calling: bool = False) -> dict[str, Any]:
    """The assistant message a text or a call belongs to: calls after the text of one reply
    join it, as the model returned them together."""
    last = messages[-1] if messages else None
    if last is not None and last["role"] == "assistant" and (calling or not last.get("tool_calls")):
        return last
    message: dict[str, Any] = {"role": "assistant", "content": None}
    messages.append(message)
    return message


def _items(reply: ModelReply) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    text = (
        reply.text
        if reply.text is not None or reply.structured is None
        else arguments_text(reply.structured)
    )
    if text:
        part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
        items.append(
            {
                "type": "message",
                "id": new_id("msg_"),
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for call in reply.tool_calls:
        items.append(
            {
                "type": "function_call",
                "id": new_id("fc_"),
                "call_id": call.call_id or new_id("call_"),
                "name": call.name,
                "arguments": arguments_text(call.arguments),
                "status": "completed",
            }
        )
    return items


def _usage(reply: ModelReply) -> dict[str, Any]:
    usage = reply.usage
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": usage.cache_read_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _response(
    model: str, status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "id": new_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": output,
        "usage": usage,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": None,
        "top_p": None,
        "tool_choice": "auto",
        "tools": [],
    }


def response(reply: ModelReply, model: str) -> dict[str, Any]:
    """The reply as a ``response`` object."""
    return _response(model, "completed", _items(reply), _usage(reply))


def events(reply: ModelReply, model: str) -> Iterator[bytes]:
    """The reply as the Responses event stream."""
    done = response(reply, model)
    pending = {**done, "status": "in_progress", "output": [], "usage": None}
    number = 0

    def event(kind: str, **fields: Any) -> bytes:
        nonlocal number
        number += 1
        return sse({"type": kind, "sequence_number": number - 1, **fields}, event=kind)

    yield event("response.created", response=pending)
    yield event("response.in_progress", response=pending)
    for index, item in enumerate(done["output"]):
        if item["type"] == "message":
            part = item["content"][0]
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            where = {"item_id": item["id"], "output_index": index, "content_index": 0}
            yield event("response.content_part.added", **where, part={**part, "text": ""})
            yield event("response.output_text.delta", **where, delta=part["text"], logprobs=[])
            yield event("response.output_text.done", **where, text=part["text"], logprobs=[])
            yield event("response.content_part.done", **where, part=part)
        else:
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            where = {"item_id": item["id"], "output_index": index}
            yield event("response.function_call_arguments.delta", **where, delta=item["arguments"])
            yield event(
                "response.function_call_arguments.done",
                **where,
                arguments=item["arguments"],
                name=item["name"],
            )
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=done)
