"""OpenAI Chat Completions: also what vLLM, llama.cpp and Ollama servers speak.

Tools go out as ``functions``, with the ``tool_choice`` of :mod:`.options` (llama.cpp renders no
Tools without one); tool-call arguments come back as a JSON string (kept as the raw
string when it does not parse, so the Host's repair path sees what the model really sent).
A user message with Files is an array of parts: ``text``, ``image_url`` with a ``data:`` URL,
and ``file`` with the file name and a ``data:`` URL for a PDF (:mod:`.files`).
Usage is ``prompt_tokens``/``completion_tokens``; cached and reasoning tokens are reported
alongside, never added. :func:`recorded` reads a request body back as the neutral record.
An assistant message's ``content`` is never ``null``: servers that render it through a chat
template refuse ``null`` (llama.cpp answers 500) and some refuse a missing key, so it is ``""``.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from eval_bindings.wire import files, neutral, tokens
from eval_bindings.wire.options import DEFAULT, RequestOptions
from eval_bindings.wire.transport import VendorError
from eval_core.hosts import ModelCallRequest, ModelReply, ModelRequest, ModelToolCall, Usage, sent


def url(base_url: str) -> str:
    return base_url.rstrip("/") + "/chat/completions"


def headers(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}


def encode(
    model: str,
    request: ModelCallRequest,
    max_tokens: int,
    effort: str | None = None,
    options: RequestOptions = DEFAULT,
) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        role = neutral.role(message)
        if role == "user":
            messages.append({"role": "user", "content": _user_content(message)})
        elif role == "tool":
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": neutral.call_id(message),
                    "content": neutral.text_of(message) or "",
                }
            )
        else:
            text = neutral.text_of(message) or ""
            out: dict[str, Any] = {"role": "assistant", "content": text}
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
        body["tool_choice"] = options.choice(request.messages)
        if options.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = options.parallel_tool_calls
    if effort is not None:
        body["reasoning_effort"] = effort
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.seed is not None:
        body["seed"] = options.seed
    return body


def _user_content(message: dict[str, Any]) -> str | list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return neutral.user_text(message)
    parts: list[dict[str, Any]] = []
    for part in neutral.parts(message):
        if not files.is_file(part):
            parts.append({"type": "text", "text": part["text"]})
        elif files.sent_as(part) == "image":
            parts.append({"type": "image_url", "image_url": {"url": files.data_url(part)}})
        elif files.sent_as(part) == "document":
            file = {"filename": part.get("filename") or "file", "file_data": files.data_url(part)}
            parts.append({"type": "file", "file": file})
        else:
            parts.append({"type": "text", "text": files.as_text(part)})
    return parts or ""


def recorded(body: dict[str, Any]) -> ModelRequest:
    """The request as this wire sent it, in the neutral shape (File bytes as their digest)."""
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    for message in body.get("messages") or ():
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            system.append(content if isinstance(content, str) else "")
        elif role == "user":
            messages.append({"role": "user", "content": _neutral_content(content)})
        elif role == "tool":
            messages.append(
                {"role": "tool", "tool_call_id": message.get("tool_call_id"), "content": content}
            )
        else:
            out: dict[str, Any] = {"role": "assistant", "content": content}
            calls = message.get("tool_calls")
            if calls:
                out["tool_calls"] = [
                    {
                        "call_id": c.get("id"),
                        "name": c.get("function", {}).get("name"),
                        "arguments": _arguments_of(c.get("function", {}).get("arguments")),
                    }
                    for c in calls
                ]
            messages.append(out)
    functions = [t.get("function") or {} for t in body.get("tools") or ()]
    tools, offered = neutral.offered(functions, "parameters")
    return sent("\n\n".join(system), messages, tools, offered)


def _neutral_content(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    parts: list[Any] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "image_url":
            media, data = files.from_data_url(part.get("image_url", {}).get("url"))
            parts.append(files.neutral("image", media, None, data))
        elif kind == "file":
            file = part.get("file", {})
            media, data = files.from_data_url(file.get("file_data"))
            parts.append(files.neutral("file", media, file.get("filename"), data))
        else:
            parts.append(part)
    return parts


def _arguments_of(text: Any) -> Any:
    if isinstance(text, str):
        with contextlib.suppress(ValueError):
            return json.loads(text)
    return text


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
    usage, prompt, completion = tokens.reported(body, "prompt_tokens", "completion_tokens")
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    cached = prompt_details.get("cached_tokens") if isinstance(prompt_details, dict) else None
    reasoning = (
        completion_details.get("reasoning_tokens") if isinstance(completion_details, dict) else None
    )
    return Usage(
        input_tokens=prompt,
        output_tokens=completion,
        cache_read_tokens=cached if tokens.count(cached) else 0,
        reasoning_tokens=reasoning if tokens.count(reasoning) else 0,
    )


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
