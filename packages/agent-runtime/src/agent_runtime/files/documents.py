"""Text extraction from Files (PDF, DOCX, XLSX, PPTX, text), with limits.

A document the runtime cannot read honestly is refused with a reason, never guessed at:
encrypted, malformed, empty and over-limit documents raise :class:`DocumentRefused` with the
original's codes (``unreadable``, ``encrypted``, ``no_text_layer``, ``resource_limit``,
``unsupported_media_type``). Office archives are read with ``zipfile`` so their limits (512
entries, 32 MiB expanded; 25 MiB per File; a workbook's 64 sheets, each part read once, and
100,000 cells, the cut said in the text) are ours to enforce, and each part with defusedxml's
ElementTree, which refuses a document type declaration: Office XML never has one, and an
uploaded archive's entity expansions (a "billion laughs") or external entities would otherwise
be the parser's to follow. PDFs are read with pypdf. A PDF also reports each page as the image
a provider renders (two pixels per point) and the fewest tokens that image costs; a PDF whose
text layer misses a page keeps its visual and has its text refused (``needs_ocr``).
"""

from __future__ import annotations

import io
import math
import re
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:  # imported with the first Office File, not by every Sweep
    import zipfile
    from xml.etree import ElementTree

MAX_BYTES = 25 * 1024 * 1024
"""The largest File a Turn may carry (25 MiB)."""
MAX_ARCHIVE_ENTRIES = 512
MAX_INFLATED_BYTES = 32 * 1024 * 1024
"""An Office archive may hold 512 entries and expand to 32 MiB."""
MAX_PDF_PAGES = 200
PIXELS_PER_POINT = 2
"""A PDF page is measured as the image a provider renders of it: two pixels per point."""
PIXELS_PER_TOKEN = 750
"""A rendered page costs at least one token per 750 pixels (width x height / 750)."""

UNREADABLE = "unreadable"
ENCRYPTED = "encrypted"
NO_TEXT_LAYER = "no_text_layer"
UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
NEEDS_OCR = "needs_ocr"
RESOURCE_LIMIT = "resource_limit"
IMAGE_NOT_EXTRACTABLE = "image_not_extractable"
REFUSAL_CODES = frozenset(
    {UNREADABLE, ENCRYPTED, NO_TEXT_LAYER, UNSUPPORTED_MEDIA_TYPE, NEEDS_OCR, RESOURCE_LIMIT}
)
"""The document refusals, as the original spells them (``image_not_extractable`` is the
extractor's answer for an image, which is sent as pixels instead)."""
TEXTUAL = frozenset({"text/plain", "text/markdown", "text/csv"})
"""The media types ``file_read`` returns as characters; anything else is attached."""

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_NUMBERED = re.compile(r"(\d+)\.xml$")


class DocumentRefused(Exception):  # noqa: N818 - it names an outcome
    """The document cannot be read; ``reason`` is one of :data:`REFUSAL_CODES`."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class Page(msgspec.Struct, frozen=True):
    """One PDF page as a provider sees it: its rendered size in pixels (two per point), whether
    it has a text layer, and the fewest tokens its image costs."""

    width: int
    height: int
    has_text: bool
    tokens: int


class Extracted(msgspec.Struct, frozen=True):
    """A document's text; a PDF also has its pages. A PDF whose text layer does not cover every
    page keeps its visual (the bytes still reach the model) but its text is refused
    (``text_refusal``, ``needs_ocr``) and ``text`` is empty: a partial text layer read as the
    whole document would leave out what only the picture shows."""

    text: str
    pages: tuple[Page, ...] = ()
    text_refusal: str | None = None


def extract(media_type: str, data: bytes) -> Extracted:
    """The text of a File, or :class:`DocumentRefused` saying why it cannot be read."""
    if len(data) > MAX_BYTES:
        raise DocumentRefused(RESOURCE_LIMIT, f"{len(data)} bytes, above {MAX_BYTES}")
    if not data:
        raise DocumentRefused(NO_TEXT_LAYER, "the File has no bytes")
    if media_type.startswith("image/"):
        raise DocumentRefused(IMAGE_NOT_EXTRACTABLE, "an image has pixels, not text")
    if media_type == PDF:
        return _pdf(data)
    if media_type in (DOCX, XLSX, PPTX):
        text = {DOCX: _docx, XLSX: _xlsx, PPTX: _pptx}[media_type](_archive(data))
    elif media_type.startswith("text/") or media_type in ("application/json",):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise DocumentRefused(UNREADABLE, f"not UTF-8 text: {error}") from error
    else:
        raise DocumentRefused(UNSUPPORTED_MEDIA_TYPE, f"no text can be read from {media_type}")
    if not text.strip():
        raise DocumentRefused(NO_TEXT_LAYER, "the document holds no text")
    return Extracted(text)


def page_tokens(width: int, height: int) -> int:
    """The fewest tokens one rendered page of ``width`` x ``height`` pixels costs."""
    return math.ceil(width * height / PIXELS_PER_TOKEN)


def _pdf(data: bytes) -> Extracted:
    from pypdf import PdfReader  # imported on first PDF: it costs more than the rest of a Trial
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data), strict=True)
        if reader.is_encrypted:
            raise DocumentRefused(ENCRYPTED, "the PDF is password-protected")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise DocumentRefused(RESOURCE_LIMIT, f"more than {MAX_PDF_PAGES} pages")
        pages: list[Page] = []
        texts: list[str] = []
        for page in reader.pages:
            text = page.extract_text() or ""
            box = page.mediabox
            width = round(float(box.width) * PIXELS_PER_POINT)
            height = round(float(box.height) * PIXELS_PER_POINT)
            pages.append(Page(width, height, bool(text.strip()), page_tokens(width, height)))
            texts.append(text)
    except DocumentRefused:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as error:
        raise DocumentRefused(UNREADABLE, f"the PDF cannot be parsed: {error}") from error
    if not pages:
        raise DocumentRefused(UNREADABLE, "the PDF has no pages")
    if not all(p.has_text for p in pages):
        return Extracted("", tuple(pages), NEEDS_OCR)
    return Extracted("\n\n".join(t.strip() for t in texts), tuple(pages))


def _archive(data: bytes) -> zipfile.ZipFile:
    import zipfile

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as error:
        raise DocumentRefused(UNREADABLE, f"not a readable archive: {error}") from error
    if len(infos) > MAX_ARCHIVE_ENTRIES:
        raise DocumentRefused(
            RESOURCE_LIMIT, f"{len(infos)} archive entries, above {MAX_ARCHIVE_ENTRIES}"
        )
    if sum(i.file_size for i in infos) > MAX_INFLATED_BYTES:
        raise DocumentRefused(RESOURCE_LIMIT, f"expands above {MAX_INFLATED_BYTES} bytes")
    return archive


def _xml(archive: zipfile.ZipFile, name: str) -> ElementTree.Element:
    import zipfile
    from xml.etree import ElementTree

    from defusedxml import DefusedXmlException  # type: ignore[import-untyped]
    from defusedxml.ElementTree import fromstring  # type: ignore[import-untyped]

    try:
        root: ElementTree.Element = fromstring(archive.read(name), forbid_dtd=True)
    except KeyError as error:
        raise DocumentRefused(UNREADABLE, f"the archive lacks {name}") from error
    except DefusedXmlException as error:
        raise DocumentRefused(
            UNREADABLE, f"{name} declares a document type (Office XML never does): {error}"
        ) from error
    except (ElementTree.ParseError, zipfile.BadZipFile, OSError, EOFError) as error:
        raise DocumentRefused(UNREADABLE, f"{name} cannot be read: {error}") from error
    return root


def _numbered(archive: zipfile.ZipFile, prefix: str) -> list[str]:
    names = [n for n in archive.namelist() if n.startswith(prefix) and _NUMBERED.search(n)]
    return sorted(names, key=lambda n: int(_NUMBERED.search(n).group(1)))  # type: ignore[union-attr]


def _docx(archive: zipfile.ZipFile) -> str:
    root = _xml(archive, "word/document.xml")
    paragraphs = ["".join(t.text or "" for t in p.iter(f"{_W}t")) for p in root.iter(f"{_W}p")]
    return "\n".join(p for p in paragraphs if p)


_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def _visible_sheets(archive: zipfile.ZipFile) -> list[tuple[str, str]]:
    """``(name, part)`` of each sheet the workbook shows, in its order; a hidden sheet is not
    read (it is hidden from whoever opens the workbook, so it is not the document's text)."""
    workbook = _xml(archive, "xl/workbook.xml")
    targets = {
        rel.get("Id"): str(rel.get("Target", "")).lstrip("/")
        for rel in _xml(archive, "xl/_rels/workbook.xml.rels").iter(f"{_REL}Relationship")
    }
    sheets: list[tuple[str, str]] = []
    for sheet in workbook.iter(f"{_S}sheet"):
        if sheet.get("state") in ("hidden", "veryHidden"):
            continue
        target = targets.get(sheet.get(f"{_R}id"), "")
        part = target if target.startswith("xl/") else f"xl/{target}"
        sheets.append((str(sheet.get("name", "")), part))
    return sheets


MAX_SHEETS = 64
"""Sheets of one workbook read; the rest are named in the text as cut."""
MAX_CELLS = 100_000
"""Cells of one workbook read, over all its sheets; the rest are said in the text as cut."""


def _xlsx(archive: zipfile.ZipFile) -> str:
    """Each visible sheet's rows, a tab between cells. A part listed under several sheets is
    read once (a workbook listing one sheet 3,000 times took 500 MB and 19 s), at most
    :data:`MAX_SHEETS` sheets and :data:`MAX_CELLS` cells are read, and what was cut is said
    in the text the model gets, never left out silently."""
    shared: list[str] = []
    if "xl/sharedStrings.xml" in archive.namelist():
        strings = _xml(archive, "xl/sharedStrings.xml")
        shared = ["".join(t.text or "" for t in si.iter(f"{_S}t")) for si in strings]
    sheets = _visible_sheets(archive)
    lines: list[str] = []
    read: dict[str, str] = {}  # part -> the title it was first read under
    cells = 0
    for number, (title, part) in enumerate(sheets):
        if number == MAX_SHEETS:
            lines.append(
                f"[cut: {len(sheets) - MAX_SHEETS} more sheets not read (the limit is "
                f"{MAX_SHEETS} sheets)]"
            )
            break
        lines.append(f"## {title}")
        if part in read:
            lines.append(f"[the same sheet as {read[part]!r}, shown above]")
            continue
        read[part] = title
        if cells >= MAX_CELLS:
            lines.append(f"[cut: not read (the limit is {MAX_CELLS:,} cells a workbook)]")
            continue
        for row in _xml(archive, part).iter(f"{_S}row"):
            if row.get("hidden") in ("1", "true"):
                continue
            values: list[str] = []
            for cell in row.iter(f"{_S}c"):
                if cells >= MAX_CELLS:
                    break
                cells += 1
                values.append(_cell(cell, shared))
            lines.append("\t".join(values).rstrip("\t"))
            if cells >= MAX_CELLS:
                lines.append(
                    f"[cut: the rest not read (the limit is {MAX_CELLS:,} cells a workbook)]"
                )
                break
    return "\n".join(lines)


def _cell(cell: ElementTree.Element, shared: list[str]) -> str:
    """A cell's text: a shared string by its index, an inline string, or its value."""
    kind = cell.get("t")
    value = cell.find(f"{_S}v")
    if kind == "s" and value is not None and value.text is not None:
        index = value.text.strip()
        return shared[int(index)] if index.isdigit() and int(index) < len(shared) else ""
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{_S}t"))
    return value.text or "" if value is not None else ""


def _pptx(archive: zipfile.ZipFile) -> str:
    """Slide text, then each slide's speaker notes (a deck's facts often live in the notes)."""
    blocks: list[str] = []
    for name in _numbered(archive, "ppt/slides/slide"):
        blocks.append(" ".join(t.text or "" for t in _xml(archive, name).iter(f"{_A}t")))
    for name in _numbered(archive, "ppt/notesSlides/notesSlide"):
        notes = " ".join(t.text or "" for t in _xml(archive, name).iter(f"{_A}t"))
        blocks.append(f"Speaker notes: {notes}")
    return "\n".join(b for b in blocks if b.strip())
