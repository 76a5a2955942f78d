"""The File fixture of a Case (``attachments`` / ``readable``) and the bytes it stands for.

A File declares what it is (id, media type, name), optionally its text ``content``, and at
most one format fixture (``pdf``, ``docx``, ``xlsx``, ``pptx``). Its bytes are synthesised
deterministically from that declaration (:mod:`eval_expectations_files.synthesis`); a File with
neither content nor fixture is the placeholder ``eval-bytes:<fileId>``. The Host asks the File
for its bytes (``fixture_bytes``), so the runtime never needs this package.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

import msgspec

from eval_core.kinds import BLOCK
from eval_expectations_files import bytes_cache

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"


PPTX_SLIDE_TEXT: tuple[str, ...] = (
    "Quarterly review",
    "Launch plan overview",
    "Regional rollout",
    "Region",
    "Status",
    "Lisbon",
    "Planned",
    "Follow-up",
)
"""The text every synthesised deck shows on its slides, besides the speaker notes that hold the
Case's ``content``: the first slide's title, body, bullet and 2x2 table (row by row), then the
second slide's title. A reader is given it, so an Expectation may be grounded in it."""


PdfVariant = Literal[
    "text", "scan", "mixed", "encrypted", "malformed", "no-pages", "layout", "page-limit"
]


class PdfFixture(msgspec.Struct, **BLOCK):
    variant: PdfVariant
    replace_after_read: Literal["malformed", "encrypted"] | None = None


class DocxFixture(msgspec.Struct, **BLOCK):
    variant: Literal["malformed", "empty", "entry-limit", "external-dtd"] | None = None
    preceding_paragraphs: int | None = None


class XlsxFixture(msgspec.Struct, **BLOCK):
    preceding_rows: int
    strings: Literal["inline", "shared"] = "inline"
    """Where the text cells hold their text: in the cell (openpyxl's way) or in the
    workbook's shared-string table (Excel's way, so every workbook a user saves in Excel)."""
    following_sheets: int = 0
    """Visible sheets after "Visible summary": "Month 1" to "Month N", each one row
    ``Month N stock`` (a workbook of a sheet a month, past the sheets a reader keeps to)."""


class PptxFixture(msgspec.Struct, **BLOCK):
    speaker_notes: bool


class CaseFile(msgspec.Struct, **BLOCK):
    """One File of a Case; ``content`` is given text, its id and name are not."""

    file_id: str
    media_type: str
    name: str
    content: str | None = None
    pdf: PdfFixture | None = None
    docx: DocxFixture | None = None
    xlsx: XlsxFixture | None = None
    pptx: PptxFixture | None = None

    def formats(self) -> list[str]:
        return [n for n in ("pdf", "docx", "xlsx", "pptx") if getattr(self, n) is not None]

    def given_text(self) -> list[str]:
        """The text a reader of the File is given: its declared ``content``, and what a
        synthesised deck shows on its slides (never its id or name)."""
        shown = [self.content] if self.content else []
        if self.pptx is not None:
            shown.extend(PPTX_SLIDE_TEXT)
        return shown

    def is_pdf(self) -> bool:
        return self.pdf is not None or self.media_type == PDF

    def fixture_bytes(self) -> bytes:
        """The File's bytes, identical on every run."""
        return _synthesise(self)

    def replacement_bytes(self) -> bytes | None:
        """The bytes that replace the stored File once a ``file_read`` of it succeeded."""
        if self.pdf is None or self.pdf.replace_after_read is None:
            return None
        variant = self.pdf.replace_after_read
        return bytes_cache.cached(
            {"replacement": variant},
            lambda: _synthesis().pdf_bytes(variant, "Replaced after it was read."),
        )


def _synthesis() -> Any:
    from eval_expectations_files import synthesis  # the document libraries, only when needed

    return synthesis


@lru_cache(maxsize=256)
def _synthesise(file: CaseFile) -> bytes:
    content = file.content
    if not file.formats() and (file.media_type != PDF or content is None):
        return (
            content.encode("utf-8")
            if content is not None
            else f"eval-bytes:{file.file_id}".encode()
        )
    declaration = msgspec.to_builtins(file)
    declaration.pop("fileId", None)
    declaration.pop("name", None)
    return bytes_cache.cached(declaration, lambda: _make(file))


def _make(file: CaseFile) -> bytes:
    synthesis = _synthesis()
    made: bytes
    content = file.content
    if file.pdf is not None:
        made = synthesis.pdf_bytes(file.pdf.variant, content)
    elif file.docx is not None:
        made = synthesis.docx_bytes(content, file.docx.preceding_paragraphs or 0, file.docx.variant)
    elif file.xlsx is not None:
        made = synthesis.xlsx_bytes(
            content or "", file.xlsx.preceding_rows, file.xlsx.strings, file.xlsx.following_sheets
        )
    elif file.pptx is not None:
        made = synthesis.pptx_bytes(content or "")
    else:
        made = synthesis.pdf_bytes("text", content)
    return made
