"""The files family's fixture: the Case's Files in the Host's File store, then the read-back.

Before the Trial the user's Files go into the Host's File store (``attachments`` sent with the
Turn, ``readable`` in the user's library) with the bytes their fixtures synthesise, and the
Agent principal gets its Roles; a File the Case replaces after a read is replaced, like a user
uploading over it, once the runtime's ``file_read`` of it succeeded. After the Trial:

- each request the binding sent, part by part, a part attributed to the File it carries: a
  binary part by its exact bytes (SHA-256 of a seeded File; of two Files with the same bytes,
  a ``file`` part goes to the one its file name names), a text part by the line the runtime
  writes before a document's text, ``<name>:`` and a blank line;
- each PDF that reached the model, with its pages as the runtime measured them: its
  ``file.attached`` events (``source`` ``prompt`` for an attachment, ``file_read`` for a File a
  ``file_read`` attached to the next request);
- each File the Agent generated, with the shares the store holds, and, when an Expectation
  asks what one holds, its text as this family reads the store's bytes (:mod:`.drafts`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import msgspec

from eval_core.kinds import (
    Evidence,
    FixtureRequest,
    SentPart,
    TrialFixture,
    own_cases,
    parts_of,
    preview_value,
)
from eval_core.records import GeneratedFile
from eval_expectations_files.drafts import text_of
from eval_expectations_files.fixtures import PDF, CaseFile
from eval_expectations_files.record import (
    FilesRecord,
    GeneratedText,
    PdfInput,
    PdfPage,
    ProviderPart,
    SeededFile,
)

FILE_READ = "file_read"
GENERATED_FILE_CONTAINS = "generated_file_contains"


class FileStore(Protocol):
    """The Host's File store for the Trial: the user's Files, the Agent's Roles, its Files."""

    def put(self, file_id: str, name: str, media_type: str, data: bytes, origin: str) -> None: ...

    def assign_role(self, role: str) -> None: ...

    def replace(self, file_id: str, data: bytes) -> None: ...

    def generated(self) -> Sequence[GeneratedFile]: ...

    def roles(self) -> Sequence[str]: ...


@runtime_checkable
class FileContent(Protocol):
    """A File store that also gives a File's bytes as it holds them now (what a user downloading
    it gets): what ``generated_file_contains`` reads. Optional, so a Host whose store does not
    offer it still runs every other files kind; that kind then fails, saying so."""

    def content(self, file_id: str) -> bytes | None: ...


class EventStream(Protocol):
    """The Host's live event stream."""

    def subscribe(self, subscriber: Callable[[str, dict[str, Any]], None]) -> None: ...


@own_cases  # its own fields: a Case without them is not asked
def _has_files(case: Any) -> bool:
    return any(case.field(f) is not None for f in ("attachments", "readable", "agent_roles"))


def _seed(store: FileStore, files: Sequence[CaseFile], origin: str) -> Iterator[SeededFile]:
    for file in files:
        data = file.fixture_bytes()
        store.put(file.file_id, file.name, file.media_type, data, origin)
        yield SeededFile(
            file_id=file.file_id,
            name=file.name,
            media_type=file.media_type,
            origin=origin,
            sha256=hashlib.sha256(data).hexdigest(),
            size=len(data),
        )


def _replace_after_read(store: FileStore, replacements: dict[str, bytes]) -> Any:
    reads: dict[str, Any] = {}  # callId -> the fileId a file_read call asked for

    def on_event(kind: str, payload: dict[str, Any]) -> None:
        if kind == "tool.call" and payload.get("name") == FILE_READ:
            arguments = preview_value(payload.get("argsPreview"))
            if isinstance(arguments, dict):
                reads[str(payload.get("callId"))] = arguments.get("fileId")
            return
        if kind != "tool.result" or payload.get("status") != "ok":
            return
        file_id = reads.pop(str(payload.get("callId")), None)
        if isinstance(file_id, str) and file_id in replacements:
            store.replace(file_id, replacements.pop(file_id))

    return on_event


def _files(request: FixtureRequest) -> Iterator[None]:
    case = request.case
    store = request.service(FileStore)
    attachments = case.field("attachments") or []
    readable = case.field("readable") or []
    seeded = [*_seed(store, attachments, "attachment"), *_seed(store, readable, "library")]
    for role in case.field("agent_roles") or ():
        store.assign_role(role)
    replacements = {
        f.file_id: data for f in readable if (data := f.replacement_bytes()) is not None
    }
    if replacements:
        request.service(EventStream).subscribe(_replace_after_read(store, replacements))
    yield
    ev = request.evidence
    request.record(
        FilesRecord(
            files=seeded,
            requests=[
                [_attributed(p, seeded) for p in parts_of(sent)] for sent in ev.model_requests or ()
            ],
            pdf_inputs=_pdf_inputs(ev, seeded),
            generated=[
                msgspec.convert(g, GeneratedFile, from_attributes=True) for g in store.generated()
            ],
            agent_roles=list(store.roles()),
            generated_texts=_texts(store) if any(_reads_drafts(case)) else [],
        )
    )


def _reads_drafts(case: Any) -> Iterator[bool]:
    return (e.kind_name == GENERATED_FILE_CONTAINS for e in case.expect)


def _texts(store: FileStore) -> list[GeneratedText]:
    found: list[GeneratedText] = []
    content = store.content if isinstance(store, FileContent) else None
    for file in store.generated():
        data = content(file.file_id) if content is not None else None
        text, unreadable = (
            text_of(file.media_type, data)
            if data is not None
            else (None, "the Host's File store gives no bytes for it")
        )
        found.append(
            GeneratedText(file_id=file.file_id, name=file.name, text=text, unreadable=unreadable)
        )
    return found


def _attributed(part: SentPart, seeded: Sequence[SeededFile]) -> ProviderPart:
    file_id: str | None = None
    if part.type in ("file", "image"):
        same = [f for f in seeded if f.sha256 == part.sha256]  # two Files may hold one blob
        named = [f for f in same if f.name == part.filename]  # a file part names its File
        file_id = next((f.file_id for f in (named or same)), None)
    elif part.text is not None and part.role == "user":
        file_id = next((f.file_id for f in seeded if part.text.startswith(f"{f.name}:\n\n")), None)
    return ProviderPart(
        type=part.type,
        role=part.role,
        text=part.text,
        file_id=file_id,
        media_type=part.media_type,
        filename=part.filename,
        sha256=part.sha256,
        size=part.size,
    )


def _pages(raw: Any) -> list[PdfPage]:
    return [
        PdfPage(
            width=int(p.get("width", 0)),
            height=int(p.get("height", 0)),
            text=bool(p.get("text")),
            tokens=int(p.get("tokens", 0)),
        )
        for p in raw or ()
        if isinstance(p, dict)
    ]


def _pdf_inputs(ev: Evidence, seeded: Sequence[SeededFile]) -> list[PdfInput]:
    pdfs = {f.file_id for f in seeded if f.media_type == PDF}
    found: list[PdfInput] = []
    for event in ev.events or ():
        payload = event.payload if isinstance(event.payload, dict) else {}
        if event.type == "file.attached" and payload.get("fileId") in pdfs:
            found.append(
                PdfInput(
                    file_id=str(payload["fileId"]),
                    source=str(payload.get("source", "prompt")),
                    pages=_pages(payload.get("pages")),
                    text_refusal=(
                        str(payload["textRefusal"]) if payload.get("textRefusal") else None
                    ),
                )
            )
    return found


FIXTURE = TrialFixture(name="files", applies=_has_files, run=_files, needs=(FileStore, EventStream))
