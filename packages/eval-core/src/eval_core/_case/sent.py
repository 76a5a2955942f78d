"""What a binding sent: each model request recorded as it went out, read as the provider's parts.

A request's messages use the neutral shape of :class:`eval_core._plugins.host.ModelCallRequest`; a
message's ``content`` is a string or a list of parts (``{"type": "text", "text"}``,
``{"type": "file" | "image", "mediaType", "filename", "data": <base64>}``). A binding records
each request with :func:`sent`, which keeps a binary part's SHA-256 and size instead of its
bytes: the scripted binding the request it was handed, a real wire the body it put on its
transport, read back into this same shape (a File part as the vendor received it: an image
carries no file name on either vendor's wire). :func:`parts_of` reads a recorded request as the
parts a provider received, which is what the provider-prompt kinds compare.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from eval_core._case.evidence import ModelRequest, OfferedTool, RepliedCall, SentPart

BINARY = ("file", "image")


def digest(data: bytes) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def _recorded(part: Any) -> Any:
    """A part as recorded: a binary part's bytes become their digest."""
    if not isinstance(part, Mapping) or part.get("type") not in BINARY:
        return part
    try:
        data = base64.b64decode(str(part.get("data", "")), validate=True)
    except (binascii.Error, ValueError):
        data = b""
    return {**{k: v for k, v in part.items() if k != "data"}, **digest(data)}


def _message(message: Mapping[str, Any]) -> Mapping[str, Any]:
    content = message.get("content")
    if not isinstance(content, list):
        return message
    return {**message, "content": [_recorded(p) for p in content]}


def _offered(declaration: Mapping[str, Any]) -> OfferedTool:
    description = declaration.get("description")
    return OfferedTool(
        name=str(declaration.get("name", "")),
        description=description if isinstance(description, str) else None,
        input_schema=declaration.get("inputSchema"),
    )


def sent(
    system: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[str],
    offered: Sequence[Mapping[str, Any] | OfferedTool] | None = None,
    replied: list[RepliedCall] | None = None,
) -> ModelRequest:
    """The record of one request as sent (binary parts as digests, never their bytes).

    ``offered``: each Tool's declaration as put on the wire, ``{"name", "description",
    "inputSchema"}`` (or already an :class:`OfferedTool`); left out, the declarations are not
    recorded. ``replied``: the scripted binding's own calls in reply (see ModelRequest)."""
    return ModelRequest(
        system=system,
        messages=[_message(m) for m in messages],
        tools=list(tools),
        replied=replied,
        offered=None
        if offered is None
        else [d if isinstance(d, OfferedTool) else _offered(d) for d in offered],
    )


def _content_parts(role: str, content: Any) -> Iterator[SentPart]:
    if isinstance(content, str):
        if content:
            yield SentPart(type="text", role=role, text=content)
        return
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            yield SentPart(type="text", role=role, text=part["text"])
        elif kind in BINARY:
            yield SentPart(
                type="image" if kind == "image" else "file",
                role=role,
                media_type=part.get("mediaType"),
                filename=part.get("filename"),
                sha256=part.get("sha256"),
                size=part.get("size"),
            )


def parts_of(request: ModelRequest) -> list[SentPart]:
    """The instructions, then each message's parts in order (Tool calls as their JSON)."""
    parts = [SentPart(type="text", role="system", text=request.system)]
    for message in request.messages:
        if not isinstance(message, Mapping):
            continue
        role = str(message.get("role"))
        parts.extend(_content_parts(role, message.get("content")))
        if message.get("tool_calls"):
            text = json.dumps(message["tool_calls"], sort_keys=True, ensure_ascii=False)
            parts.append(SentPart(type="text", role=role, text=text))
    return parts
