"""OpenAI Chat Completions: also what vLLM, llama.cpp and Ollama servers speak.

Tools go out as ``functions``; tool-call arguments come back as a JSON string (kept as the raw
string when it does not parse, so the Host's repair path sees what the model really sent).
Usage is ``prompt_tokens``/``completion_tokens``; cached and reasoning tokens are reported
alongside, never added.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any, TypeGuard

from eval_bindings.wire import neutral
from eval_bindings.wire.transport import VendorError
from eval_core.evidence import Usage
from eval_core.host import ModelCallRequest, ModelReply, ModelToolCall


def url(base_url: str) -> str:
    return base_url.rstrip("/") + "/chat/completions"


def headers(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}


def encode(
    model: str, request: ModelCallRequest, max_tokens: int, effort: str | None = None
) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        role = neutral.role(message)
        if role == "user":
            messages.append({"role": "user", "content": neutral.user_text(message)})
        elif role == "tool":
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": neutral.call_id(message),
                    "content": neutral.text_of(message) or "",
                }
            )
        else:
            out: dict[str, Any] = {"role": "assistant", "content": neutral.text_of(message)}
            calls = neutral.tool_calls(message)
            if calls:
                out["tool_calls"] = [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": name, "arguments": _arguments_text(args)},
                    }
                    for cid, name, args in calls
                ]
            messages.append(out)
    body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": max_tokens}
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description or "",
                    "parameters": tool.input_schema,
                },
            }
            for tool in request.tools
        ]
    if effort is not None:
        body["reasoning_effort"] = effort
    return body


def _arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def decode(body: Any, asked_model: str) -> ModelReply:
    """The reply, or a ``model_malformed_response`` / ``model_usage_missing`` fault."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
        text = message.get("content")
        if text is not None and not isinstance(text, str):
            raise TypeError("message.content is not a string")
        calls = [_tool_call(c) for c in message.get("tool_calls") or ()]
        finish = str(choice.get("finish_reason") or ("tool_calls" if calls else "stop"))
    except (KeyError, IndexError, TypeError) as exc:
        raise VendorError(
            "model_malformed_response",
            f"not a Chat Completions reply ({type(exc).__name__}: {exc})",
        ) from exc
    usage = decode_usage(body)
    reported = body.get("model")
    version = reported if isinstance(reported, str) and reported != asked_model else None
    return ModelReply(
        text=text,
        tool_calls=calls,
        usage=usage,
        finish_reason=finish,
        model_version=version,
    )


def decode_usage(body: Any) -> Usage:
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        raise VendorError("model_usage_missing", "the reply reports no usage")
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not _count(prompt) or not _count(completion):
        raise VendorError(
            "model_usage_missing",
            f"usage lacks prompt_tokens/completion_tokens counts: {json.dumps(usage)[:200]}",
        )
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    cached = prompt_details.get("cached_tokens") if isinstance(prompt_details, dict) else None
    reasoning = (
        completion_details.get("reasoning_tokens") if isinstance(completion_details, dict) else None
    )
    return Usage(
        input_tokens=prompt,
        output_tokens=completion,
        cache_read_tokens=cached if _count(cached) else 0,
        reasoning_tokens=reasoning if _count(reasoning) else 0,
    )


def _count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _tool_call(raw: Any) -> ModelToolCall:
    function = raw["function"]
    name = function["name"]
    if not isinstance(name, str) or not name:
        raise TypeError("tool call without a function name")
    arguments: Any = function.get("arguments")
    if isinstance(arguments, str):
        # a raw string that does not parse goes to the Host, whose repair path answers it
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments) if arguments.strip() else {}
    return ModelToolCall(call_id=str(raw.get("id") or ""), name=name, arguments=arguments)
