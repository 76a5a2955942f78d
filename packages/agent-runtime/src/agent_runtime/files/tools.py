"""``file_read``, ``file_create`` and ``file_list``, run for real against the File store.

``file_read`` checks the requester may read the File. A text File (plain, Markdown, CSV) comes
back as characters (at most 32 000); anything else (a PDF, an image, an office document, or a
text File whose text is refused) is attached to the next model request, which re-reads it from
the store then, and the result says so (``kind: "attached"``). ``file_create`` renders the
content in the format asked for and saves a draft File owned by the Agent's principal, shared
with the requester and with every Role that principal holds in the role-assignment rows (never
with Roles a Soul merely lists). ``file_list`` lists the Files the requester may read. Any
other call passes to the executor it wraps.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from agent_runtime.files.documents import IMAGE_NOT_EXTRACTABLE, TEXTUAL, DocumentRefused, extract
from agent_runtime.files.render import FORMATS, RenderError, render
from agent_runtime.files.store import FileStore, StoredFile, digest
from agent_runtime.model import ToolCallRequest
from agent_runtime.tools import ToolExecutor, ToolOutcome

FILE_READ = "file_read"
FILE_CREATE = "file_create"
FILE_LIST = "file_list"
FILE_TOOLS = frozenset({FILE_READ, FILE_CREATE, FILE_LIST})
MAX_READ_CHARS = 32_000
MAX_CREATE_CHARS = 1_000_000
MAX_FILENAME_CHARS = 200
DRAFT_TTL = timedelta(hours=24)
DEFAULT_LIST_LIMIT = 20
MAX_LIST_LIMIT = 50
_SOURCE = {"attachment": "chat", "library": "upload", "generated": "agent"}


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


def _error(code: str, message: str) -> ToolOutcome:
    return ToolOutcome("failed", reason=f"{code}: {message}")


def _identity(file: StoredFile) -> dict[str, Any]:
    return {
        "fileId": file.file_id,
        "filename": file.name,
        "mediaType": file.media_type,
        "sizeBytes": len(file.data),
    }


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
        if call.name == FILE_LIST:
            return self.list(call.arguments)
        return self.inner.execute(call)

    def read(self, arguments: Any) -> ToolOutcome:
        file_id = arguments.get("fileId") if isinstance(arguments, dict) else None
        if not isinstance(file_id, str) or not file_id:
            return ToolOutcome("invalid_arguments", reason="fileId must be a non-empty string")
        file = self.store.get(file_id)
        if file is None or not may_read(self.store, file, self.requester):
            return _error("not_found", f"file {file_id} is not available")
        refusal: str | None = None
        try:
            document = extract(file.media_type, file.data)
            refusal = document.text_refusal
        except DocumentRefused as refused:
            document, refusal = None, refused.reason
        if file.media_type in TEXTUAL and document is not None and refusal is None:
            text = document.text
            return ToolOutcome(
                "succeeded",
                {
                    **_identity(file),
                    "kind": "text",
                    "text": text[:MAX_READ_CHARS],
                    "truncated": len(text) > MAX_READ_CHARS,
                    "maxChars": MAX_READ_CHARS,
                },
            )
        output: dict[str, Any] = {
            **_identity(file),
            "kind": "attached",
            "attached": True,
            "note": f"{file.name} is attached to the next message for you to read.",
        }
        if refusal is not None and refusal != IMAGE_NOT_EXTRACTABLE:
            output["textRefusal"] = refusal
        return ToolOutcome("succeeded", output, attach=(file.file_id,))

    def create(self, arguments: Any) -> ToolOutcome:
        args = arguments if isinstance(arguments, dict) else {}
        filename, fmt = args.get("filename"), args.get("format")
        content, title = args.get("content"), args.get("title")
        wrong = _create_problem(filename, fmt, content, title)
        if wrong is not None:
            return wrong
        assert (
            isinstance(filename, str) and isinstance(fmt, str) and isinstance(content, str)
        )  # checked
        media_type, extension = FORMATS[fmt]
        try:
            data = render(fmt, content, title)
        except RenderError as error:
            return _error(error.code, str(error))
        name = filename.strip()
        if not name.lower().endswith(f".{extension}"):
            name = f"{name}.{extension}"
        draft_id = "draft-" + digest(name.encode() + b"\0" + data)[:16]
        if self.store.get(draft_id) is None:
            self.store.put(
                draft_id,
                name,
                media_type,
                data,
                origin="generated",
                owner=self.principal,
                status="draft",
            )
            for grantee in audience(self.store, self.requester, self.principal):
                self.store.share(draft_id, grantee)
        expires = (datetime.now(UTC) + DRAFT_TTL).isoformat().replace("+00:00", "Z")
        return ToolOutcome(
            "succeeded",
            {
                "status": "draft",
                "draftId": draft_id,
                "filename": name,
                "mediaType": media_type,
                "sizeBytes": len(data),
                "expiresAt": expires,
                "downloadUrl": f"/api/v1/file-drafts/{draft_id}/content",
                "saveUrl": f"/api/v1/file-drafts/{draft_id}/save",
            },
        )

    def list(self, arguments: Any) -> ToolOutcome:
        args = arguments if isinstance(arguments, dict) else {}
        scope = args.get("scope", "all")
        limit = args.get("limit", DEFAULT_LIST_LIMIT)
        if isinstance(limit, float) and limit.is_integer():  # JSON has one number: 10.0 is 10,
            limit = int(limit)  # as the schema check already took it
        if scope not in ("mine", "shared", "all"):
            return _error("validation_error", "scope must be mine, shared or all")
        if (
            not isinstance(limit, int)
            or isinstance(limit, bool)
            or not 1 <= limit <= MAX_LIST_LIMIT
        ):
            return _error("validation_error", f"limit must be 1 to {MAX_LIST_LIMIT}")
        mine = user(self.requester)
        files = [
            f
            for f in self.store.files()
            if may_read(self.store, f, self.requester)
            and (scope == "all" or (f.owner == mine) == (scope == "mine"))
        ][:limit]
        listed = [
            {**_identity(f), "origin": f.origin, "source": _SOURCE.get(f.origin, f.origin)}
            for f in files
        ]
        return ToolOutcome(
            "succeeded", {"scope": scope, "files": listed, "count": len(listed), "limit": limit}
        )


def audience(store: FileStore, requester: str, principal: str) -> list[str]:
    """Who a generated File is shared with: the requester, and the principal's assigned Roles."""
    return [user(requester), *(f"role:{r}" for r in store.roles_of(principal))]


def _create_problem(filename: Any, fmt: Any, content: Any, title: Any) -> ToolOutcome | None:
    """What is wrong with ``file_create``'s arguments, checked in the original's order."""
    if not isinstance(filename, str) or not 1 <= len(filename.strip()) <= MAX_FILENAME_CHARS:
        return _error("validation_error", "filename must be 1 to 200 characters")
    if not isinstance(fmt, str) or fmt not in FORMATS:
        return _error("validation_error", f"format must be one of {', '.join(FORMATS)}")
    if not isinstance(content, str):
        return _error("validation_error", "content must be text")
    if title is not None and not isinstance(title, str):
        return _error("validation_error", "title must be text")
    if len(content) > MAX_CREATE_CHARS:
        return _error("oversize_value", f"content is above {MAX_CREATE_CHARS} characters")
    return None
