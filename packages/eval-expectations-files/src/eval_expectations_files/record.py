"""The files read-back: what the Trial did with Files, as the files fixture read it back.

:class:`FilesRecord` holds the Case Files as seeded (their bytes' SHA-256: the reference the
provider's parts are compared with), every request as the binding sent it with each part
attributed to the File it carries, every PDF model input with its pages (from the runtime's
events and ``file_read`` results), each generated File with the shares the Host's File
store holds and, for a Case that asks, the text its bytes hold. :func:`record_of` finds it by type.
"""

from __future__ import annotations

from typing import Any

import msgspec

from eval_core.kinds import Evidence
from eval_core.records import GeneratedFile

_CONFIG: dict[str, Any] = {"frozen": True, "kw_only": True, "rename": "camel"}


class SeededFile(msgspec.Struct, **_CONFIG):
    file_id: str
    name: str
    media_type: str
    origin: str
    sha256: str
    size: int


class ProviderPart(msgspec.Struct, **_CONFIG):
    """One part of a provider request: text, or a binary ``file`` / ``image``."""

    type: str
    role: str | None = None
    text: str | None = None
    file_id: str | None = None
    media_type: str | None = None
    filename: str | None = None
    sha256: str | None = None
    size: int | None = None


class PdfPage(msgspec.Struct, **_CONFIG):
    width: int
    height: int
    text: bool
    tokens: int


class PdfInput(msgspec.Struct, **_CONFIG):
    """A PDF that reached the model; ``text_refusal`` says why its text layer was not used
    (``needs_ocr``: a page has no text), in which case its text counts as absent."""

    file_id: str
    source: str
    pages: list[PdfPage]
    text_refusal: str | None = None

    def has_text(self) -> bool:
        return self.text_refusal is None and any(p.text for p in self.pages)


class GeneratedText(msgspec.Struct, **_CONFIG):
    """A generated File's text as this family read it from the bytes the store holds
    (:mod:`eval_expectations_files.drafts`); ``unreadable`` says why there is none."""

    file_id: str
    name: str
    text: str | None = None
    unreadable: str | None = None


class FilesRecord(msgspec.Struct, **_CONFIG):
    files: list[SeededFile]
    requests: list[list[ProviderPart]]
    pdf_inputs: list[PdfInput]
    generated: list[GeneratedFile]
    agent_roles: list[str] = msgspec.field(default_factory=list)
    generated_texts: list[GeneratedText] = msgspec.field(default_factory=list)
    """Read only for a Case that asks what a generated File holds."""

    def seeded(self, file_id: str) -> SeededFile | None:
        return next((f for f in self.files if f.file_id == file_id), None)


def record_of(ev: Evidence) -> FilesRecord | None:
    return ev.record(FilesRecord)
