"""The attachment gate: the Files a Turn sent are read, then rendered into the model's request.

An attachment that cannot be read (encrypted, malformed, empty, over a limit) ends the Turn
with a refusal and the model is never called: a model handed bytes nobody could read would
answer about a document it never saw. The refusal is one assistant Message naming the File and
what the participant can do (:func:`refusal_message`). A readable attachment becomes parts of
the user's message, which a binding sends as the vendor's own parts:

- an image: an ``image`` part with its stored bytes;
- a PDF: a ``file`` part with its media type, its file name and its stored bytes, always (a
  PDF whose text layer misses a page keeps its visual; its text is refused, ``needs_ocr``);
- an office or text document: ONE text part ``"<name>:\\n\\n<full extracted text>"`` (capped
  at :data:`DOCUMENT_TEXT_CHARS`), no bytes.

What the input guard screens, in order, after the user's own text: each attachment's file
name, then each extracted text (:attr:`Rendered.screened`). A File the message only mentions (a
library File, not sent with this Turn) is not attached: the message says it is readable with
``file_read``. Each PDF that reaches the model is announced with its pages (:attr:`Rendered.
inputs`), which the loop emits as a ``file.attached`` event; :meth:`AttachmentGate.attach`
does the same for the Files a ``file_read`` attaches to the next model request, re-reading them
from the store at that moment.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from agent_runtime.files.documents import (
    ENCRYPTED,
    NO_TEXT_LAYER,
    PDF,
    RESOURCE_LIMIT,
    UNSUPPORTED_MEDIA_TYPE,
    DocumentRefused,
    Extracted,
    Page,
    extract,
)
from agent_runtime.files.store import FileStore, StoredFile

DOCUMENT_TEXT_CHARS = 200_000
"""Characters of an office or text document sent to the model with the message."""

_ADVICE = {
    ENCRYPTED: ("is password-protected", "Upload an unlocked copy."),
    NO_TEXT_LAYER: ("has no readable text", "Upload a document containing text."),
    RESOURCE_LIMIT: ("exceeds the document processing limits", "Upload a smaller document."),
    UNSUPPORTED_MEDIA_TYPE: ("is not a document type I can read", "Upload a PDF or text file."),
}
_UNREADABLE = ("could not be read", "Upload a new copy.")


def refusal_message(name: str, reason: str) -> str:
    """What the participant is told about an attachment nobody can read: the file name as
    literal escaped text (a JSON string, so a name carries no newline or markup), what is wrong
    and what to do."""
    problem, advice = _ADVICE.get(reason, _UNREADABLE)
    return f"The attached file {json.dumps(name)} {problem}. {advice}"


class AttachmentRefusal(msgspec.Struct, frozen=True):
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Rendered:
    """The messages with the latest user message's Files rendered, or why the Turn stops. A
    dataclass, not a Struct: tests derive variants of it with :func:`dataclasses.replace`."""

    messages: list[dict[str, Any]]
    refusal: AttachmentRefusal | None = None
    inputs: list[dict[str, Any]] = field(default_factory=list)
    screened: list[str] = field(default_factory=list)
    """The attachments' file names, then their extracted texts: screened by the input guard
    after the user's own text, in this order."""


class Attached(msgspec.Struct, frozen=True):
    """What a ``file_read`` attaches to the next model request."""

    parts: list[dict[str, Any]]
    inputs: list[dict[str, Any]]


def attachable(stored: StoredFile | None) -> bool:
    """Only a File sent with a Turn is attached; a library File is reached with file_read."""
    return stored is not None and stored.origin == "attachment"


def is_binary(media_type: str) -> bool:
    """Sent to the provider as bytes (a ``file`` or ``image`` part), not as extracted text."""
    return media_type == PDF or media_type.startswith("image/")


def document_text(stored: StoredFile, text: str) -> str:
    """The one text part of an office or text document: its name, a blank line, its text."""
    return f"{stored.name}:\n\n{text[:DOCUMENT_TEXT_CHARS]}"


def pages_of(pages: tuple[Page, ...]) -> list[dict[str, Any]]:
    return [
        {"width": p.width, "height": p.height, "text": p.has_text, "tokens": p.tokens}
        for p in pages
    ]


def pdf_input(file_id: str, source: str, document: Extracted) -> dict[str, Any]:
    announced: dict[str, Any] = {
        "fileId": file_id,
        "source": source,
        "pages": pages_of(document.pages),
    }
    if document.text_refusal is not None:
        announced["textRefusal"] = document.text_refusal
    return announced


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
        names: list[str] = []
        texts: list[str] = []
        for ref in message["files"]:
            file_id = str(ref.get("fileId"))
            stored = self.store.get(file_id)
            if stored is None or not attachable(stored):
                name = ref.get("name") or file_id
                parts.append(_text(f"[File {name} ({file_id}) is readable with file_read]"))
                continue
            names.append(stored.name)
            if stored.media_type.startswith("image/"):
                parts.append(_binary(stored))  # pixels: nothing to extract
                continue
            try:
                document = extract(stored.media_type, stored.data)
            except DocumentRefused as refused:
                return Rendered(
                    messages,
                    AttachmentRefusal(refused.reason, refusal_message(stored.name, refused.reason)),
                )
            if document.text:
                texts.append(document.text)
            if stored.media_type == PDF:
                parts.append(_binary(stored))
                inputs.append(pdf_input(file_id, "prompt", document))
            else:
                parts.append(_text(document_text(stored, document.text)))
        updated = list(messages)
        updated[latest] = {**message, "content": parts}
        return Rendered(updated, inputs=inputs, screened=[*names, *texts])

    def attach(self, file_ids: Iterable[str]) -> Attached:
        """The Files a ``file_read`` attached, read again from the store now: what reaches the
        next model request is the File as it is when that request is made. One that can no
        longer be read is left out, with a note saying so."""
        parts: list[dict[str, Any]] = []
        inputs: list[dict[str, Any]] = []
        for file_id in file_ids:
            stored = self.store.get(file_id)
            if stored is None:
                continue
            if stored.media_type.startswith("image/"):
                parts.append(_binary(stored))
                continue
            try:
                document = extract(stored.media_type, stored.data)
            except DocumentRefused as refused:
                parts.append(_text(f"[file_read: {refusal_message(stored.name, refused.reason)}]"))
                continue
            if stored.media_type == PDF:
                parts.append(_binary(stored))
                inputs.append(pdf_input(file_id, "file_read", document))
            else:
                parts.append(_text(document_text(stored, document.text)))
        return Attached(parts, inputs)
