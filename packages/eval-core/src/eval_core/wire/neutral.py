"""Reading the neutral chat shape of :class:`~eval_core.host.ModelCallRequest` messages.

Both wire formats read the same three roles; this module is the one place that knows the
neutral spelling (``call_id`` or ``tool_call_id``, ``files`` on a user message), so a change to
the Host's shape is a change here only.
"""

from __future__ import annotations

import json
from typing import Any

from eval_core.host import ModelError


def role(message: dict[str, Any]) -> str:
    value = message.get("role")
    if value not in ("user", "assistant", "tool"):
        raise ModelError("model_request_invalid", f"a message has role {value!r}")
    return str(value)


def user_text(message: dict[str, Any]) -> str:
    """The user's text, with each attached File's extracted text after it, named."""
    parts = [str(message.get("content") or "")]
    for file in message.get("files") or ():
        if not isinstance(file, dict):
            continue
        text = file.get("text", file.get("content"))
        if isinstance(text, str):
            name = file.get("name") or file.get("filename") or file.get("id") or "file"
            parts.append(f"[File {name}]\n{text}")
    return "\n\n".join(p for p in parts if p)


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
