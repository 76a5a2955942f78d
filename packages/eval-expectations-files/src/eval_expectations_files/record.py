"""The files read-back: what the Host observed about Files, typed from its plain data.

The Host stores plain data under ``evidence.records["files"]``: the Case Files as seeded (the
original bytes' SHA-256), every provider request as the prompt splitter produced it, every PDF
model input with its pages, and each generated File with the shares the File store holds.
:func:`record_of` converts it; anything that does not convert is "not observed".
"""

from __future__ import annotations

from typing import Any

import msgspec

from eval_core.evidence import Evidence

RECORD = "files"

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
    file_id: str
    source: str
    pages: list[PdfPage]


class GeneratedFile(msgspec.Struct, **_CONFIG):
    file_id: str
    name: str
    media_type: str
    status: str
    owner: str
    readable_by: list[str]


class FilesRecord(msgspec.Struct, **_CONFIG):
    files: list[SeededFile]
    requests: list[list[ProviderPart]]
    pdf_inputs: list[PdfInput]
    generated: list[GeneratedFile]
    role_assignments: dict[str, list[str]] = msgspec.field(default_factory=dict)

    def seeded(self, file_id: str) -> SeededFile | None:
        return next((f for f in self.files if f.file_id == file_id), None)


def record_of(ev: Evidence) -> FilesRecord | None:
    raw = ev.records.get(RECORD)
    if isinstance(raw, FilesRecord):
        return raw
    if raw is None:
        return None
    try:
        return msgspec.convert(raw, FilesRecord)
    except msgspec.ValidationError:
        return None
