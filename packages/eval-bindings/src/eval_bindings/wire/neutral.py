"""Reading the neutral chat shape of :class:`~eval_core.hosts.ModelCallRequest` messages.

Both wire formats read the same three roles; this module is the one place that knows the
neutral spelling (``call_id`` or ``tool_call_id``, a user message's parts, a declared Tool), so
a change to the Host's shape is a change here only.
"""

from __future__ import annotations

import json
from typing import Any

from eval_core.hosts import ModelError


def role(message: dict[str, Any]) -> str:
    value = message.get("role")
    if value not in ("user", "assistant", "tool"):
        raise ModelError("model_request_invalid", f"a message has role {value!r}")
    return str(value)


def parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A user message's parts in order: text parts (non-empty) and File parts."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [
        p
        for p in content or ()
        if isinstance(p, dict)
        and (p.get("type") in ("file", "image") or (p.get("type") == "text" and _text(p)))
    ]


def _text(part: dict[str, Any]) -> bool:
    return isinstance(part.get("text"), str) and bool(part["text"])


def user_text(message: dict[str, Any]) -> str:
    """The user's text parts, joined (a message without Files goes as plain text)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    texts = [
        str(p.get("text"))
        for p in content or ()
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    ]
    return "\n\n".join(t for t in texts if t)


def text_of(message: dict[str, Any]) -> str | None:
    content = message.get("content")
    if content is None:
        return None
    return content if isinstance(content, str) else json.dumps(content, sort_keys=True)


def call_id(message: dict[str, Any]) -> str:
    """The id of the call a ``tool`` message answers."""
    return str(message.get("tool_call_id") or message.get("call_id") or "")


def tool_calls(message: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """``(call_id, name, arguments)`` of each call an ``assistant`` message made."""
    return [
        (str(c.get("call_id") or c.get("id") or ""), str(c.get("name") or ""), c.get("arguments"))
        for c in message.get("tool_calls") or ()
        if isinstance(c, dict)
    ]


def offered(declared: list[dict[str, Any]], schema: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The Tools a wire body declares, as a request's record keeps them: their names, and each
    declaration in the neutral spelling ``{"name", "description", "inputSchema"}`` (the wire
    puts the schema under ``schema``)."""
    names = [d.get("name", "") for d in declared]
    spelt = [
        {
            "name": d.get("name", ""),
            "description": d.get("description"),
            "inputSchema": d.get(schema),
        }
        for d in declared
    ]
    return names, spelt
