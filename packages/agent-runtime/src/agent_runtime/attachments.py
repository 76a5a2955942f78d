"""The attachment gate: the Files a Turn sent are read before the model is called.

An attachment that cannot be read (encrypted, malformed, empty, over a limit) ends the Turn
with a refusal and the model is never called: a model handed bytes nobody could read would
answer about a document it never saw. Readable office, text and PDF attachments get a bounded
text preview (``files[i]["text"]``; a PDF's is its text layer), which the input guard screens
and a text-only wire shows the model; the rest of a long document stays reachable through
``file_read``, and a PDF's bytes still reach the provider as a ``file`` part. A File the
message only mentions (a library File, not sent with this Turn) is not an attachment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_runtime.documents import PDF, DocumentRefused, extract
from agent_runtime.file_store import FileStore, StoredFile

PREVIEW_CHARS = 2000
"""Characters of an office or text attachment shown to the model with the message."""


@dataclass(frozen=True, slots=True)
class AttachmentRefusal:
    reason: str
    message: str


def attachable(stored: StoredFile | None) -> bool:
    """Only a File sent with a Turn is attached; a library File is reached with file_read."""
    return stored is not None and stored.origin == "attachment"


def is_binary(media_type: str) -> bool:
    """Sent to the provider as bytes (a ``file`` or ``image`` part), not as extracted text."""
    return media_type == PDF or media_type.startswith("image/")


def preview(text: str, file_id: str) -> str:
    if len(text) <= PREVIEW_CHARS:
        return text
    return (
        text[:PREVIEW_CHARS]
        + f"\n[preview ends: the File is longer; read all of it with file_read {file_id}]"
    )


class AttachmentGate:
    """Reads the latest user message's attachments from ``store``; refuses the unreadable."""

    __slots__ = ("store",)

    def __init__(self, store: FileStore) -> None:
        self.store = store

    def __call__(
        self, messages: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], AttachmentRefusal | None]:
        latest = next(
            (i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"),
            None,
        )
        if latest is None or not messages[latest].get("files"):
            return messages, None
        files: list[dict[str, Any]] = []
        for ref in messages[latest]["files"]:
            stored = self.store.get(str(ref.get("fileId")))
            if stored is None or not attachable(stored):
                files.append(ref)
                continue
            if stored.media_type.startswith("image/"):
                files.append(ref)  # an image goes to the provider as pixels: nothing to extract
                continue
            try:
                document = extract(stored.media_type, stored.data)
            except DocumentRefused as refused:
                return messages, AttachmentRefusal(
                    refused.reason,
                    f"I can't read the attached File {stored.name} ({refused.reason}: "
                    f"{refused.detail}). Please send a copy that can be opened.",
                )
            if is_binary(stored.media_type) and not document.text.strip():
                files.append(ref)  # a scan: its pixels are all there is
            else:  # a PDF's text layer rides along for a wire that cannot send the bytes
                files.append({**ref, "text": preview(document.text, stored.file_id)})
        updated = list(messages)
        updated[latest] = {**messages[latest], "files": files}
        return updated, None
