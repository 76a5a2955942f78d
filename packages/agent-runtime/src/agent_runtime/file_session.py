"""The Files of one conversation: seeded fixtures, the gate, the File Tools, and the read-back.

A harness (or a test) seeds the store with the user's Files and the Agent principal's Role
assignments, runs Turns with :attr:`gate`, :meth:`tools` and :meth:`observe_request` plugged
into the loop, and reads everything back with :meth:`record` as plain data: the original bytes'
digests as seeded, every provider request as split, every PDF model input, and each generated
File with the shares the store holds for it. Nothing in the record is predicted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agent_runtime.attachments import AttachmentGate
from agent_runtime.documents import PDF, DocumentRefused, Page, extract
from agent_runtime.file_store import FileStore, Origin, digest
from agent_runtime.file_tools import FileTools, pages_of
from agent_runtime.model import ModelPort, ModelRequest, ModelResponse
from agent_runtime.prompt_split import split_prompt
from agent_runtime.tools import ToolExecutor

REQUESTER = "eval-user"


def principal_of(agent: str) -> str:
    return f"agent:{agent}"


@dataclass(frozen=True, slots=True)
class SeedFile:
    """A File the user has before the Turn: sent with it, or in their library."""

    file_id: str
    name: str
    media_type: str
    data: bytes
    origin: Origin
    replace_after_read: bytes | None = None


class FileSession:
    __slots__ = ("agent", "gate", "originals", "pdf_inputs", "replacements", "requests", "store")

    def __init__(
        self, store: FileStore, agent: str, seeds: Iterable[SeedFile], roles: Iterable[str]
    ) -> None:
        self.store = store
        self.agent = agent
        self.originals: list[dict[str, Any]] = []
        self.replacements: dict[str, bytes] = {}
        for seed in seeds:
            store.put(
                seed.file_id,
                seed.name,
                seed.media_type,
                seed.data,
                origin=seed.origin,
                owner=f"user:{REQUESTER}",
            )
            self.originals.append(
                {
                    "fileId": seed.file_id,
                    "name": seed.name,
                    "mediaType": seed.media_type,
                    "origin": seed.origin,
                    "sha256": digest(seed.data),
                    "size": len(seed.data),
                }
            )
            if seed.replace_after_read is not None:
                self.replacements[seed.file_id] = seed.replace_after_read
        for role in roles:
            store.assign_role(principal_of(agent), role)
        self.gate = AttachmentGate(store)
        self.requests: list[list[dict[str, Any]]] = []
        self.pdf_inputs: list[dict[str, Any]] = []

    def tools(self, inner: ToolExecutor) -> FileTools:
        return FileTools(
            inner,
            self.store,
            requester=REQUESTER,
            principal=principal_of(self.agent),
            replacements=self.replacements,
            observe_pdf=self._observe_read,
        )

    def _observe_read(self, file_id: str, pages: tuple[Page, ...]) -> None:
        self.pdf_inputs.append({"fileId": file_id, "source": "file_read", "pages": pages_of(pages)})

    def observe_request(self, system: str, messages: list[dict[str, Any]]) -> None:
        """Split one request as the provider receives it; account every PDF it carries."""
        parts = split_prompt(system, messages, self.store)
        for part in parts:
            if part["type"] == "file" and part["mediaType"] == PDF:
                stored = self.store.get(part["fileId"])
                pages: list[dict[str, Any]] = []
                if stored is not None:
                    try:
                        pages = pages_of(extract(PDF, stored.data).pages)
                    except DocumentRefused:
                        pages = []
                self.pdf_inputs.append(
                    {"fileId": part["fileId"], "source": "prompt", "pages": pages}
                )
            part.pop("data", None)
        self.requests.append(parts)

    def record(self) -> dict[str, Any]:
        generated = [
            {
                "fileId": f.file_id,
                "name": f.name,
                "mediaType": f.media_type,
                "status": f.status,
                "owner": f.owner,
                "readableBy": self.store.shares(f.file_id),
            }
            for f in self.store.files()
            if f.origin == "generated"
        ]
        principal = principal_of(self.agent)
        return {
            "files": self.originals,
            "requests": self.requests,
            "pdfInputs": self.pdf_inputs,
            "generated": generated,
            "roleAssignments": {principal: self.store.roles_of(principal)},
        }


class ObservedModel:
    """The model port, with every request split by the prompt splitter on its way out."""

    __slots__ = ("inner", "session")

    def __init__(self, inner: ModelPort, session: FileSession) -> None:
        self.inner = inner
        self.session = session

    def complete(self, request: ModelRequest) -> ModelResponse:
        self.session.observe_request(request.system, request.messages)
        return self.inner.complete(request)
