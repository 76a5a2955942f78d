"""Deterministic document bytes for File fixtures, made by real document libraries.

Fixture bytes are hashed into what a Trial compares, so every synthesis must give identical
bytes on every run: creation dates, document ids and zip timestamps are pinned, and nothing
random (AES initialisation vectors) is used. Defective archives are real bytes a real parser
refuses, never a scripted verdict.
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import UTC, datetime

from docx import Document
from fpdf import FPDF
from fpdf.enums import EncryptionMethod
from openpyxl import Workbook  # type: ignore[import-untyped]
from PIL import Image
from pptx import Presentation
from pptx.util import Inches

EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_CORE_DATE = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")
ENTRY_LIMIT_ENTRIES = 400
"""Entries in the ``entry-limit`` DOCX: above the runtime's archive entry limit."""

PDF_PAGE = (595, 842)
"""A4 in points: the page size every synthesised PDF page has."""


def _pdf() -> FPDF:
    pdf = FPDF(unit="pt", format=PDF_PAGE)
    pdf.set_creation_date(EPOCH)
    pdf.file_id = lambda: "<0123456789ABCDEF0123456789ABCDEF><0123456789ABCDEF0123456789ABCDEF>"  # type: ignore[method-assign]
    pdf.set_font("Helvetica", size=12)
    pdf.set_auto_page_break(True, margin=36)
    return pdf


def _scan_image() -> Image.Image:
    """A grey 'scanned page': pixels only, no text layer."""
    image = Image.new("L", (120, 160), color=235)
    for y in range(20, 150, 12):
        for x in range(12, 108):
            if (x * 7 + y) % 5:
                image.putpixel((x, y), 40)
    return image


def _text_page(pdf: FPDF, text: str) -> None:
    pdf.add_page()
    pdf.set_xy(48, 48)
    pdf.multi_cell(PDF_PAGE[0] - 96, 16, text)


def pdf_bytes(variant: str, content: str | None) -> bytes:
    """One PDF variant: text, scan, mixed, encrypted, malformed or layout."""
    if variant == "malformed":
        whole = pdf_bytes("text", "This document was cut short.")
        return whole[: len(whole) // 2]
    pdf = _pdf()
    if variant == "text":
        _text_page(pdf, content or "")
    elif variant == "scan":
        pdf.add_page()
        pdf.image(_scan_image(), x=48, y=48, w=PDF_PAGE[0] - 96)
    elif variant == "mixed":
        _text_page(pdf, content or "")
        pdf.add_page()
        pdf.image(_scan_image(), x=48, y=48, w=PDF_PAGE[0] - 96)
    elif variant == "layout":
        pdf.add_page()
        half = (PDF_PAGE[0] - 120) / 2
        words = (content or "").split()
        middle = len(words) // 2
        pdf.set_xy(48, 48)
        pdf.multi_cell(half, 16, " ".join(words[:middle]))
        pdf.set_xy(72 + half, 48)
        pdf.multi_cell(half, 16, " ".join(words[middle:]))
        pdf.add_page(format=(842, 595))  # a landscape second page: sizes are per page
        pdf.set_xy(48, 48)
        pdf.multi_cell(700, 16, "Appendix: layout reference page.")
    elif variant == "encrypted":
        pdf.set_encryption(
            owner_password="eval-owner",
            user_password="eval-user",
            encryption_method=EncryptionMethod.RC4,
        )
        _text_page(pdf, content or "Sealed quarterly figures.")
    else:
        raise ValueError(f"unknown PDF variant {variant!r}")
    return bytes(pdf.output())


def normalise_zip(data: bytes) -> bytes:
    """Rewrite an OOXML archive with pinned timestamps and pinned core-property dates."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            body = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = _CORE_DATE.sub(rb"\g<1>2024-01-01T00:00:00Z\g<3>", body)
            entry = zipfile.ZipInfo(info.filename, _ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, body)
    return out.getvalue()


def _saved(document: object) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)  # type: ignore[attr-defined]
    return normalise_zip(buffer.getvalue())


def filler(index: int) -> str:
    return f"Filler paragraph {index} of the fixture: routine background with no facts in it."


def docx_bytes(content: str | None, preceding: int = 0, variant: str | None = None) -> bytes:
    """A DOCX: ``preceding`` filler paragraphs then ``content``; or a defective variant."""
    if variant == "malformed":
        whole = docx_bytes("This archive is truncated.")
        return whole[: len(whole) - 200]
    document = Document()
    document.core_properties.created = EPOCH.replace(tzinfo=None)
    document.core_properties.modified = EPOCH.replace(tzinfo=None)
    document.core_properties.revision = 1
    if variant == "empty":
        return _saved(document)
    if variant is None:
        for index in range(1, preceding + 1):
            document.add_paragraph(filler(index))
        document.add_paragraph(content or "")
        return _saved(document)
    if variant == "entry-limit":
        document.add_paragraph("A document padded with many archive entries.")
        base = _saved(document)
        out = io.BytesIO(base)
        with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as archive:
            for index in range(ENTRY_LIMIT_ENTRIES):
                archive.writestr(zipfile.ZipInfo(f"customXml/pad{index}.xml", _ZIP_TIME), b"<a/>")
        return out.getvalue()
    raise ValueError(f"unknown DOCX variant {variant!r}")


def xlsx_bytes(content: str, preceding_rows: int = 0) -> bytes:
    """An XLSX whose one sheet has ``preceding_rows`` filler rows, then ``content`` in A."""
    workbook = Workbook()
    workbook.properties.created = EPOCH.replace(tzinfo=None)
    workbook.properties.modified = EPOCH.replace(tzinfo=None)
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "Data"
    for index in range(1, preceding_rows + 1):
        sheet.append([f"row {index}", "filler", index])
    sheet.append([content])
    return _saved(workbook)


def pptx_bytes(content: str) -> bytes:
    """A PPTX with one slide whose ``content`` is only in the speaker notes."""
    presentation = Presentation()
    presentation.core_properties.created = EPOCH.replace(tzinfo=None)
    presentation.core_properties.modified = EPOCH.replace(tzinfo=None)
    presentation.core_properties.revision = 1
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    if slide.shapes.title is not None:
        slide.shapes.title.text = "Quarterly review"
    slide.shapes.add_textbox(
        Inches(1), Inches(2), Inches(6), Inches(1)
    ).text_frame.text = "See the notes."
    notes = slide.notes_slide.notes_text_frame
    assert notes is not None
    notes.text = content
    return _saved(presentation)
