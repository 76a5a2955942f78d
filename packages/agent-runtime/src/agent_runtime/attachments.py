"""The attachment gate: the Files a Turn sent are read, then rendered into the model's request.

An attachment that cannot be read (encrypted, malformed, empty, over a limit) ends the Turn
with a refusal and the model is never called: a model handed bytes nobody could read would
answer about a document it never saw. A readable attachment becomes parts of the user's
message, which a binding sends as the vendor's own parts:

- a PDF or an image: a binary ``file`` / ``image`` part with its media type, its file name and
  its stored bytes; a PDF with a text layer also gets that text as a labelled text part, so the
  input guard screens it and a model without document support still reads it;
- an office or text document: a labelled text part with a bounded preview (the rest of a long
  document stays reachable through ``file_read``).

A labelled part starts with ``[File <name> (<fileId>)]``. A File the message only mentions (a
library File, not sent with this Turn) is not attached: the message says it is readable with
``file_read``. Each PDF that reaches the model is announced with its pages (:attr:`Rendered.
inputs`), which the loop emits as a ``file.attached`` event.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from agent_runtime.documents import PDF, DocumentRefused, Page, extract
from agent_runtime.file_store import FileStore, StoredFile

PREVIEW_CHARS = 2000
"""Characters of an office or text attachment shown to the model with the message."""


@dataclass(frozen=True, slots=True)
class AttachmentRefusal:
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Rendered:
    """The messages with the latest user message's Files rendered, or why the Turn stops."""

    messages: list[dict[str, Any]]
    refusal: AttachmentRefusal | None = None
    inputs: list[dict[str, Any]] = field(default_factory=list)


def attachable(stored: StoredFile | None) -> bool:
    """Only a File sent with a Turn is attached; a library File is reached with file_read."""
    return stored is not None and stored.origin == "attachment"


def is_binary(media_type: str) -> bool:
    """Sent to the provider as bytes (a ``file`` or ``image`` part), not as extracted text."""
    return media_type == PDF or media_type.startswith("image/")


def label(stored: StoredFile) -> str:
    return f"[File {stored.name} ({stored.file_id})]"


def preview(text: str, file_id: str) -> str:
    if len(text) <= PREVIEW_CHARS:
        return text
    return (
        text[:PREVIEW_CHARS]
        + f"\n[preview ends: the File is longer; read all of it with file_read {file_id}]"
    )


def pages_of(pages: tuple[Page, ...]) -> list[dict[str, Any]]:
    return [
        {"width": p.width, "height": p.height, "text": p.has_text, "tokens": p.tokens}
        for p in pages
    ]


def _binary(stored: StoredFile) -> dict[str, Any]:
    return {
        "type": "image" if stored.media_type.startswith("image/") else "file",
        "mediaType": stored.media_type,
        "filename": stored.name,
        "data": base64.b64encode(stored.data).decode("ascii"),
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


class AttachmentGate:
    """Reads the latest user message's attachments from ``store``; refuses the unreadable."""

    __slots__ = ("store",)

    def __init__(self, store: FileStore) -> None:
        self.store = store

    def __call__(self, messages: list[dict[str, Any]]) -> Rendered:
        latest = next(
            (i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"),
            None,
        )
        if latest is None or not messages[latest].get("files"):
            return Rendered(messages)
        message = messages[latest]
        parts: list[dict[str, Any]] = []
        if isinstance(message.get("content"), str) and message["content"]:
            parts.append(_text(message["content"]))
        inputs: list[dict[str, Any]] = []
        for ref in message["files"]:
            file_id = str(ref.get("fileId"))
            stored = self.store.get(file_id)
            if stored is None or not attachable(stored):
                name = ref.get("name") or file_id
                parts.append(_text(f"[File {name} ({file_id}) is readable with file_read]"))
                continue
            if stored.media_type.startswith("image/"):
                parts.append(_binary(stored))  # pixels: nothing to extract
                continue
            try:
                document = extract(stored.media_type, stored.data)
            except DocumentRefused as refused:
                return Rendered(
                    messages,
                    AttachmentRefusal(
                        refused.reason,
                        f"I can't read the attached File {stored.name} ({refused.reason}: "
                        f"{refused.detail}). Please send a copy that can be opened.",
                    ),
                )
            if is_binary(stored.media_type):
                parts.append(_binary(stored))
                inputs.append(
                    {"fileId": file_id, "source": "prompt", "pages": pages_of(document.pages)}
                )
            if document.text.strip():
                parts.append(_text(f"{label(stored)}\n{preview(document.text, file_id)}"))
        updated = list(messages)
        updated[latest] = {**message, "content": parts}
        return Rendered(updated, inputs=inputs)
