"""What ``file_create`` writes: the content an Agent gave, rendered into the format it named.

Text formats are the content as UTF-8 (JSON and YAML are parsed first, so a draft never holds
a document its own format refuses). The documents are written by the document libraries, each
imported with the first File of its format: a PDF (pypdf) is one Helvetica text line per
content line on US Letter pages; a DOCX (python-docx) is one paragraph per line; an XLSX
(openpyxl) is one sheet, one row per line, cells split on commas and always text (a cell that
starts with ``=`` is not a formula); a PPTX (python-pptx) is a title slide for the title, then
one slide per block of lines (blank lines between blocks), its first line the slide's title and
the rest its body. Every writer is deterministic: creation dates, the PDF's id and the archive's
timestamps are pinned (a PDF carries none), so the same content makes the same bytes.
"""

from __future__ import annotations

import io
import json
from typing import Any

import yaml

FORMATS: dict[str, tuple[str, str]] = {
    "pdf": ("application/pdf", "pdf"),
    "docx": ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"),
    "pptx": ("application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"),
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    "json": ("application/json", "json"),
    "xml": ("application/xml", "xml"),
    "yaml": ("application/yaml", "yaml"),
    "markdown": ("text/markdown", "md"),
    "text": ("text/plain", "txt"),
    "csv": ("text/csv", "csv"),
}
"""``format`` -> (media type, file name extension)."""

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_EPOCH = (2024, 1, 1)  # the creation and modification date every written document carries
_LINES_PER_PAGE = 48


class RenderError(Exception):
    """The content cannot be written in the format asked for; ``code`` is the Tool's error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def render(fmt: str, content: str, title: str | None) -> bytes:
    if fmt == "json":
        try:
            json.loads(content)
        except ValueError as error:
            raise RenderError("validation_error", f"content is not JSON: {error}") from error
    elif fmt == "yaml":
        try:
            yaml.safe_load(content)
        except yaml.YAMLError as error:
            raise RenderError("validation_error", f"content is not YAML: {error}") from error
    lines = ([title] if title else []) + content.splitlines()
    if fmt == "pdf":
        return _pdf(lines)
    if fmt == "docx":
        return _docx(lines)
    if fmt == "xlsx":
        return _xlsx(lines)
    if fmt == "pptx":
        return _pptx(title, content.splitlines())
    return content.encode("utf-8")


def _epoch() -> Any:
    from datetime import datetime

    return datetime(*_EPOCH)


def _pdf(lines: list[str]) -> bytes:
    """Written by pypdf, the library the runtime reads PDFs with: a content stream per page that
    sets each line in the standard Helvetica (no font file, so nothing of fontTools, which costs
    fpdf2 half a second to import). pypdf writes no date and no file id: the bytes are pinned."""
    from pypdf import PdfWriter
    from pypdf.generic import ContentStream, DictionaryObject, NameObject

    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    writer = PdfWriter()
    pages = [lines[i : i + _LINES_PER_PAGE] for i in range(0, len(lines), _LINES_PER_PAGE)]
    for rows in pages or [[]]:
        page = writer.add_blank_page(612, 792)  # US Letter, in points
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        shown = b"".join(b"(%s) Tj T*\n" % _pdf_string(row) for row in rows)
        content = ContentStream(None, None)
        content.set_data(b"BT /F1 11 Tf 14 TL 72 720 Td\n" + shown + b"ET")
        page.replace_contents(content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _pdf_string(text: str) -> bytes:
    """``text`` as the body of a PDF literal string: Latin-1 (the standard font's encoding;
    anything else becomes ``?``), every byte outside printable ASCII and the three delimiters
    escaped in octal."""
    return b"".join(
        bytes((byte,)) if 32 <= byte < 127 and byte not in b"()\\" else b"\\%03o" % byte
        for byte in text.encode("latin-1", "replace")
    )


def _pinned(data: bytes) -> bytes:
    """An OOXML archive rewritten with pinned timestamps and core-property dates."""
    import re
    import zipfile

    dates = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            part = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                part = dates.sub(rb"\g<1>2024-01-01T00:00:00Z\g<3>", part)
            entry = zipfile.ZipInfo(info.filename, _ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, part)
    return out.getvalue()


def _saved(document: Any) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return _pinned(out.getvalue())


def _xml_text(text: str) -> str:
    """``text`` without the control characters XML 1.0 cannot hold (they would refuse the save)."""
    return "".join(c for c in text if c in "\t\n\r" or ord(c) >= 32)


def _docx(lines: list[str]) -> bytes:
    from docx import Document

    document = Document()
    document.core_properties.created = document.core_properties.modified = _epoch()
    for line in lines:
        document.add_paragraph(_xml_text(line))
    return _saved(document)


def _xlsx(lines: list[str]) -> bytes:
    from openpyxl import Workbook  # type: ignore[import-untyped]

    workbook = Workbook()
    workbook.properties.created = workbook.properties.modified = _epoch()
    sheet = workbook.active
    sheet.title = "Sheet1"
    for row, line in enumerate(lines, start=1):
        for column, value in enumerate(line.split(","), start=1):
            cell = sheet.cell(row=row, column=column, value=_xml_text(value))
            cell.data_type = "s"  # text as given: "=..." is not made a formula
    return _saved(workbook)


def _pptx(title: str | None, lines: list[str]) -> bytes:
    from pptx import Presentation

    deck = Presentation()
    deck.core_properties.created = deck.core_properties.modified = _epoch()
    deck.core_properties.revision = 1
    if title:
        slide = deck.slides.add_slide(deck.slide_layouts[0])  # Title Slide
        assert slide.shapes.title is not None
        slide.shapes.title.text = _xml_text(title)
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(_xml_text(line))
        elif blocks[-1]:
            blocks.append([])
    for block in (b for b in blocks if b):
        slide = deck.slides.add_slide(deck.slide_layouts[1])  # Title and Content
        assert slide.shapes.title is not None
        slide.shapes.title.text = block[0]
        body = slide.placeholders[1].text_frame
        body.text = block[1] if len(block) > 1 else ""
        for line in block[2:]:
            body.add_paragraph().text = line
    return _saved(deck)
