"""The prompt splitter: one model request as the provider's parts.

Text parts carry the instructions and each message's text (an office attachment's preview is a
text part attributed to its File); a PDF or image the Turn attached becomes a binary ``file`` or
``image`` part with its media type, its file name and its stored bytes. A File the message only
mentions is never attached. Each part says which File it came from (``fileId``), so what was
attached is read from the split itself, never predicted.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from agent_runtime import attachments
from agent_runtime.attachments import is_binary
from agent_runtime.file_store import FileStore, StoredFile, digest


def _binary(stored: StoredFile) -> dict[str, Any]:
    return {
        "type": "image" if stored.media_type.startswith("image/") else "file",
        "fileId": stored.file_id,
        "mediaType": stored.media_type,
        "filename": stored.name,
        "sha256": digest(stored.data),
        "size": len(stored.data),
        "data": base64.b64encode(stored.data).decode("ascii"),
    }


def _text(role: str, text: str, file_id: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "role": role, "text": text}
    if file_id is not None:
        part["fileId"] = file_id
    return part


def split_prompt(
    system: str, messages: list[dict[str, Any]], store: FileStore
) -> list[dict[str, Any]]:
    """The provider parts of one request, in order."""
    parts = [_text("system", system)]
    for message in messages:
        role = str(message.get("role"))
        content = message.get("content")
        if isinstance(content, str) and content:
            parts.append(_text(role, content))
        if message.get("tool_calls"):
            parts.append(_text(role, json.dumps(message["tool_calls"], sort_keys=True)))
        for ref in message.get("files") or ():
            file_id = str(ref.get("fileId"))
            stored = store.get(file_id)
            if not attachments.attachable(stored):
                name = ref.get("name") or file_id
                parts.append(_text(role, f"[File {name} ({file_id}) is readable with file_read]"))
                continue
            assert stored is not None
            if is_binary(stored.media_type):
                parts.append(_binary(stored))
            elif isinstance(ref.get("text"), str):
                parts.append(_text(role, f"[File {stored.name}]\n{ref['text']}", file_id))
    return parts
