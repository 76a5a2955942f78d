"""Text extraction from Files (PDF, DOCX, XLSX, PPTX, text), with limits.

A document the runtime cannot read honestly is refused with a reason, never guessed at:
encrypted, malformed, empty and over-limit documents raise :class:`DocumentRefused`. Office
archives are read with ``zipfile`` and an XML parser so their limits (entries, inflated size)
are ours to enforce; PDFs are read with pypdf. A PDF also reports each page's size and a token
estimate, which is what a provider charges for a PDF input.
"""

from __future__ import annotations

import io
import math
import re
import zipfile
from dataclasses import dataclass
from xml.etree import ElementTree

MAX_BYTES = 10 * 1024 * 1024
MAX_ARCHIVE_ENTRIES = 256
MAX_INFLATED_BYTES = 50 * 1024 * 1024
MAX_PDF_PAGES = 200
PAGE_IMAGE_TOKENS = 258
"""Tokens a provider charges for one PDF page rendered as an image, before its text."""
CHARS_PER_TOKEN = 4

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_NUMBERED = re.compile(r"(\d+)\.xml$")


class DocumentRefused(Exception):  # noqa: N818 - it names an outcome
    """The document cannot be read; ``reason`` is a stable code such as ``file_encrypted``."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Page:
    """One PDF page: its size in points, whether it has a text layer, a token estimate."""

    width: int
    height: int
    has_text: bool
    tokens: int


@dataclass(frozen=True, slots=True)
class Extracted:
    text: str
    pages: tuple[Page, ...] = ()


def extract(media_type: str, data: bytes) -> Extracted:
    """The text of a File, or :class:`DocumentRefused` saying why it cannot be read."""
    if len(data) > MAX_BYTES:
        raise DocumentRefused("file_too_large", f"{len(data)} bytes, above {MAX_BYTES}")
    if not data:
        raise DocumentRefused("file_empty", "the File has no bytes")
    if media_type == PDF:
        return _pdf(data)
    if media_type in (DOCX, XLSX, PPTX):
        text = {DOCX: _docx, XLSX: _xlsx, PPTX: _pptx}[media_type](_archive(data))
    elif media_type.startswith("text/") or media_type in ("application/json",):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise DocumentRefused("file_malformed", f"not UTF-8 text: {error}") from error
    else:
        raise DocumentRefused("file_unsupported", f"no text can be read from {media_type}")
    if not text.strip():
        raise DocumentRefused("file_empty", "the document holds no text")
    return Extracted(text)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _pdf(data: bytes) -> Extracted:
    from pypdf import PdfReader  # imported on first PDF: it costs more than the rest of a Trial
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data), strict=True)
        if reader.is_encrypted:
            raise DocumentRefused("file_encrypted", "the PDF is encrypted")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise DocumentRefused("file_too_large", f"more than {MAX_PDF_PAGES} pages")
        pages: list[Page] = []
        texts: list[str] = []
        for page in reader.pages:
            text = page.extract_text() or ""
            box = page.mediabox
            pages.append(
                Page(
                    width=round(float(box.width)),
                    height=round(float(box.height)),
                    has_text=bool(text.strip()),
                    tokens=PAGE_IMAGE_TOKENS + estimate_tokens(text),
                )
            )
            texts.append(text)
    except DocumentRefused:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as error:
        raise DocumentRefused("file_malformed", f"the PDF cannot be parsed: {error}") from error
    if not pages:
        raise DocumentRefused("file_empty", "the PDF has no pages")
    return Extracted("\n\n".join(t.strip() for t in texts if t.strip()), tuple(pages))


def _archive(data: bytes) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as error:
        raise DocumentRefused("file_malformed", f"not a readable archive: {error}") from error
    if len(infos) > MAX_ARCHIVE_ENTRIES:
        raise DocumentRefused(
            "file_entry_limit", f"{len(infos)} archive entries, above {MAX_ARCHIVE_ENTRIES}"
        )
    if sum(i.file_size for i in infos) > MAX_INFLATED_BYTES:
        raise DocumentRefused("file_too_large", f"inflates above {MAX_INFLATED_BYTES} bytes")
    return archive


def _xml(archive: zipfile.ZipFile, name: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(archive.read(name))
    except KeyError as error:
        raise DocumentRefused("file_malformed", f"the archive lacks {name}") from error
    except (ElementTree.ParseError, zipfile.BadZipFile, OSError, EOFError) as error:
        raise DocumentRefused("file_malformed", f"{name} cannot be read: {error}") from error


def _numbered(archive: zipfile.ZipFile, prefix: str) -> list[str]:
    names = [n for n in archive.namelist() if n.startswith(prefix) and _NUMBERED.search(n)]
    return sorted(names, key=lambda n: int(_NUMBERED.search(n).group(1)))  # type: ignore[union-attr]


def _docx(archive: zipfile.ZipFile) -> str:
    root = _xml(archive, "word/document.xml")
    paragraphs = ["".join(t.text or "" for t in p.iter(f"{_W}t")) for p in root.iter(f"{_W}p")]
    return "\n".join(p for p in paragraphs if p)


def _xlsx(archive: zipfile.ZipFile) -> str:
    shared: list[str] = []
    if "xl/sharedStrings.xml" in archive.namelist():
        strings = _xml(archive, "xl/sharedStrings.xml")
        shared = ["".join(t.text or "" for t in si.iter(f"{_S}t")) for si in strings]
    lines: list[str] = []
    for name in _numbered(archive, "xl/worksheets/sheet"):
        for row in _xml(archive, name).iter(f"{_S}row"):
            cells: list[str] = []
            for cell in row.iter(f"{_S}c"):
                kind = cell.get("t")
                value = cell.find(f"{_S}v")
                if kind == "s" and value is not None and value.text is not None:
                    index = int(value.text)
                    cells.append(shared[index] if index < len(shared) else "")
                elif kind == "inlineStr":
                    cells.append("".join(t.text or "" for t in cell.iter(f"{_S}t")))
                elif value is not None:
                    cells.append(value.text or "")
            lines.append("\t".join(cells))
    return "\n".join(lines)


def _pptx(archive: zipfile.ZipFile) -> str:
    """Slide text, then each slide's speaker notes (a deck's facts often live in the notes)."""
    blocks: list[str] = []
    for name in _numbered(archive, "ppt/slides/slide"):
        blocks.append(" ".join(t.text or "" for t in _xml(archive, name).iter(f"{_A}t")))
    for name in _numbered(archive, "ppt/notesSlides/notesSlide"):
        notes = " ".join(t.text or "" for t in _xml(archive, name).iter(f"{_A}t"))
        blocks.append(f"Speaker notes: {notes}")
    return "\n".join(b for b in blocks if b.strip())
