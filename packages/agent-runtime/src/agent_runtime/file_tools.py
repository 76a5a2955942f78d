"""``file_read`` and ``file_create``, run for real against the File store.

``file_read`` checks the requester may read the File, extracts its text with the document
limits and refuses what cannot be read. ``file_create`` is the real writer: it saves a draft
File owned by the Agent's principal and shares it with the requester and with every Role that
principal holds in the role-assignment rows (never with Roles a Soul merely lists). Any other
call passes to the executor it wraps.
"""

from __future__ import annotations

from typing import Any

from agent_runtime.attachments import pages_of
from agent_runtime.documents import PDF, DocumentRefused, extract
from agent_runtime.file_store import FileStore, StoredFile, digest
from agent_runtime.model import ToolCallRequest
from agent_runtime.tools import ToolExecutor, ToolOutcome

FILE_READ = "file_read"
FILE_CREATE = "file_create"
FILE_TOOLS = frozenset({FILE_READ, FILE_CREATE})
MAX_READ_CHARS = 100_000
MAX_CREATE_CHARS = 1_000_000


def user(requester: str) -> str:
    return f"user:{requester}"


def may_read(store: FileStore, file: StoredFile, requester: str) -> bool:
    """The owner, a share to the requester, or a share to a Role the requester holds."""
    if file.owner == user(requester):
        return True
    grants = set(store.shares(file.file_id))
    if user(requester) in grants:
        return True
    return any(f"role:{r}" in grants for r in store.roles_of(user(requester)))


class FileTools:
    """The File Tools of one requester and one Agent principal, over ``inner`` for the rest."""

    __slots__ = ("inner", "principal", "requester", "store")

    def __init__(
        self, inner: ToolExecutor, store: FileStore, *, requester: str, principal: str
    ) -> None:
        self.inner = inner
        self.store = store
        self.requester = requester
        self.principal = principal

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        if call.name == FILE_READ:
            return self.read(call.arguments)
        if call.name == FILE_CREATE:
            return self.create(call.arguments)
        return self.inner.execute(call)

    def read(self, arguments: Any) -> ToolOutcome:
        file_id = arguments.get("fileId") if isinstance(arguments, dict) else None
        if not isinstance(file_id, str) or not file_id:
            return ToolOutcome("invalid_arguments", reason="fileId must be a non-empty string")
        file = self.store.get(file_id)
        if file is None or not may_read(self.store, file, self.requester):
            return ToolOutcome("failed", reason=f"file_not_found: no File {file_id} you can read")
        try:
            document = extract(file.media_type, file.data)
        except DocumentRefused as refused:
            return ToolOutcome("failed", reason=f"{refused.reason}: {refused.detail}")
        text = document.text
        output: dict[str, Any] = {
            "fileId": file.file_id,
            "name": file.name,
            "mediaType": file.media_type,
            "text": text[:MAX_READ_CHARS],
        }
        if len(text) > MAX_READ_CHARS:
            output["truncated"] = True
        if file.media_type == PDF:
            output["pages"] = pages_of(document.pages)
        return ToolOutcome("succeeded", output)

    def create(self, arguments: Any) -> ToolOutcome:
        args = arguments if isinstance(arguments, dict) else {}
        name, media_type, content = args.get("name"), args.get("mediaType"), args.get("content")
        for label, value in (("name", name), ("mediaType", media_type), ("content", content)):
            if not isinstance(value, str) or not value.strip():
                return ToolOutcome("invalid_arguments", reason=f"{label} must be non-empty text")
        assert isinstance(name, str) and isinstance(media_type, str) and isinstance(content, str)
        if len(content) > MAX_CREATE_CHARS:
            return ToolOutcome("failed", reason=f"file_too_large: above {MAX_CREATE_CHARS} chars")
        data = content.encode("utf-8")
        file_id = "gen-" + digest(name.encode() + b"\0" + data)[:16]
        if self.store.get(file_id) is None:
            self.store.put(
                file_id,
                name,
                media_type,
                data,
                origin="generated",
                owner=self.principal,
                status="draft",
            )
            for grantee in audience(self.store, self.requester, self.principal):
                self.store.share(file_id, grantee)
        return ToolOutcome(
            "succeeded",
            {"fileId": file_id, "name": name, "mediaType": media_type, "status": "draft"},
        )


def audience(store: FileStore, requester: str, principal: str) -> list[str]:
    """Who a generated File is shared with: the requester, and the principal's assigned Roles."""
    return [user(requester), *(f"role:{r}" for r in store.roles_of(principal))]
