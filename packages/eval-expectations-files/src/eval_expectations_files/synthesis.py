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
from xml.sax.saxutils import escape

from fpdf import FPDF
from openpyxl import Workbook  # type: ignore[import-untyped]
from PIL import Image
from pptx import Presentation
from pptx.util import Inches

from eval_expectations_files.fixtures import PPTX_SLIDE_TEXT

EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_CORE_DATE = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")
ENTRY_LIMIT_PADDING = 510
"""``customXml`` parts added to the ``entry-limit`` DOCX: 513 entries, one above the limit."""

LETTER = (612, 792)
"""US Letter in points: the page of every synthesised PDF (and page 1 of ``mixed``)."""
HALF_PAGE = (420, 594)
"""The image-only second page of the ``mixed`` PDF."""
OWNER_PASSWORD = "fixture-owner"
USER_PASSWORD = "fixture-reader"
MALFORMED_PDF = b"%PDF-1.4\nnot a document\n%%EOF"
DEFAULT_PDF_CONTENT = "The warranty lasts 47 days."
_FILE_ID = "<0123456789ABCDEF0123456789ABCDEF><0123456789ABCDEF0123456789ABCDEF>"
PAGE_LIMIT_PAGES = 201
"""The ``page-limit`` variant's pages: one over the 200 a provider reads of one PDF (the
original's limit), so a reader that keeps to it refuses the File whole."""


def _pdf() -> FPDF:
    pdf = FPDF(unit="pt", format=LETTER)
    pdf.set_creation_date(EPOCH)
    pdf.file_id = lambda: _FILE_ID  # type: ignore[method-assign]
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    return pdf


def _scan_image() -> Image.Image:
    """Two by two RGB pixels (white, black / black, white): a 'scan' with no text layer."""
    image = Image.new("RGB", (2, 2), color=(255, 255, 255))
    image.putpixel((1, 0), (0, 0, 0))
    image.putpixel((0, 1), (0, 0, 0))
    return image


def _line(
    pdf: FPDF,
    x: float,
    baseline: float,
    text: str,
    style: str = "",
    size: int = 12,
    family: str = "Helvetica",
) -> None:
    """``text`` with its baseline at (``x``, ``baseline``), PDF coordinates (origin bottom left)."""
    pdf.set_font(family, style=style, size=size)
    pdf.text(x, pdf.h - baseline, text)


def _text_page(pdf: FPDF, content: str) -> None:
    pdf.add_page(format=LETTER)
    _line(pdf, 72, 720, content)


def _image_page(pdf: FPDF, size: tuple[int, int]) -> None:
    pdf.add_page(format=size)
    pdf.image(_scan_image(), x=0, y=0, w=size[0], h=size[1])


def _ascii(content: str) -> str:
    if not all(32 <= ord(c) < 127 or c in "\n\r\t" for c in content):
        raise ValueError("PDF fixture content must be printable ASCII")
    return content


def pdf_bytes(variant: str, content: str | None) -> bytes:
    """One PDF variant: text, scan, mixed, encrypted, malformed, no-pages, layout or page-limit
    (its text on the first of :data:`PAGE_LIMIT_PAGES` pages, the rest blank), on US Letter
    pages."""
    if variant == "malformed":
        return MALFORMED_PDF
    if variant == "no-pages":
        return _no_pages()
    text = _ascii(content if content is not None else DEFAULT_PDF_CONTENT)
    pdf = _pdf()
    if variant in ("text", "encrypted"):
        _text_page(pdf, text)
    elif variant == "scan":
        _image_page(pdf, LETTER)
    elif variant == "mixed":
        _text_page(pdf, text)
        _image_page(pdf, HALF_PAGE)
    elif variant == "page-limit":
        _text_page(pdf, text)
        for _ in range(PAGE_LIMIT_PAGES - 1):
            pdf.add_page(format=LETTER)
    elif variant == "layout":
        pdf.add_page(format=LETTER)
        _line(pdf, 72, 720, "Approval handbook", style="B", size=24)
        _line(pdf, 72, 680, text)
        _line(pdf, 72, 640, "if ready:", family="Courier", size=10)
        _line(pdf, 72, 626, "    publish()", family="Courier", size=10)
        _line(pdf, 72, 590, "Region", style="B")
        _line(pdf, 252, 590, "Amount", style="B")
        _line(pdf, 72, 570, "Pune")
        _line(pdf, 252, 570, "731")
    else:
        raise ValueError(f"unknown PDF variant {variant!r}")
    made = bytes(pdf.output())
    return _encrypted(made) if variant == "encrypted" else made


def _no_pages() -> bytes:
    """A well-formed PDF whose page tree is empty, as pypdf writes one (no date, no file id)."""
    from pypdf import PdfWriter

    out = io.BytesIO()
    PdfWriter().write(out)
    return out.getvalue()


def _encrypted(plain: bytes) -> bytes:
    """``plain`` sealed with the PDF standard security handler, RC4 40-bit (V1, R2), P -4."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(plain)))
    writer.encrypt(
        user_password=USER_PASSWORD,
        owner_password=OWNER_PASSWORD,
        permissions_flag=-4,  # type: ignore[arg-type]
        algorithm="RC4-40",
    )
    identifier = writer._ID  # the key derives from the first half; the random second is pinned
    assert identifier is not None
    writer._ID = ArrayObject((identifier[0], identifier[0]))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


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
    return f"Policy paragraph {index}."


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)


EXTERNAL_DTD = '<!DOCTYPE w:document SYSTEM "http://dtd.eval.example/probe.dtd">'
"""The ``external-dtd`` DOCX's document type: a reference to a DTD on another host, as an
XML external entity probe carries one (Office XML never declares a document type)."""


def _document_xml(paragraphs: list[str], doctype: str = "") -> str:
    body = "".join(f"<w:p><w:r><w:t>{escape(p)}</w:t></w:r></w:p>" for p in paragraphs)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{doctype}<w:document xmlns:w="http://schemas.'
        f'openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}<w:sectPr/></w:body>'
        "</w:document>"
    )


def _stored_zip(entries: list[tuple[str, str]]) -> bytes:
    """A ZIP whose entries are stored uncompressed, with pinned timestamps."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name, body in entries:
            entry = zipfile.ZipInfo(name, _ZIP_TIME)
            entry.compress_type = zipfile.ZIP_STORED
            archive.writestr(entry, body.encode("utf-8"))
    return out.getvalue()


def _docx_parts(paragraphs: list[str], doctype: str = "") -> list[tuple[str, str]]:
    """The three parts of a minimal WordprocessingML package, and nothing else."""
    return [
        ("[Content_Types].xml", _CONTENT_TYPES),
        ("_rels/.rels", _RELS),
        ("word/document.xml", _document_xml(paragraphs, doctype)),
    ]


def docx_bytes(content: str | None, preceding: int = 0, variant: str | None = None) -> bytes:
    """A DOCX: ``Policy paragraph N.`` for N up to ``preceding``, then ``content``; or a
    defective variant (``malformed``: the first 64 bytes; ``empty``: no paragraph;
    ``entry-limit``: 513 archive entries; ``external-dtd``: its document part declares an
    external DTD, :data:`EXTERNAL_DTD`)."""
    if variant == "malformed":
        return _stored_zip(_docx_parts(["Policy."]))[:64]
    if variant == "empty":
        return _stored_zip(_docx_parts([]))
    if variant == "entry-limit":
        padding = [
            (f"customXml/item{index}.xml", "<item/>") for index in range(1, ENTRY_LIMIT_PADDING + 1)
        ]
        return _stored_zip([*_docx_parts(["Policy."]), *padding])
    if variant == "external-dtd":
        return _stored_zip(_docx_parts(["Policy."], EXTERNAL_DTD))
    if variant is not None:
        raise ValueError(f"unknown DOCX variant {variant!r}")
    paragraphs = [filler(index) for index in range(1, preceding + 1)]
    return _stored_zip(_docx_parts([*paragraphs, content or ""]))


def xlsx_bytes(
    content: str, preceding_rows: int = 0, strings: str = "inline", following_sheets: int = 0
) -> bytes:
    """A three-sheet workbook: "Visible inventory" (a header, typed rows, ``preceding_rows``
    rows ``Inventory item N``, then ``content``), a hidden "Private budget" and a
    "Visible summary", then ``following_sheets`` sheets "Month N" of one row ``Month N
    stock``. Its text cells are inline strings (as openpyxl writes them) or, with
    ``strings="shared"``, indexes into one shared-string table (as Excel saves every
    workbook)."""
    workbook = Workbook()
    workbook.properties.created = EPOCH.replace(tzinfo=None)
    workbook.properties.modified = EPOCH.replace(tzinfo=None)
    inventory = workbook.active
    assert inventory is not None
    inventory.title = "Visible inventory"
    inventory.append(["Item", "Received", "Share", "Price", "Total"])
    inventory.append(["Tulip bulbs", datetime(2024, 3, 1), 0.25, 12.5, "=D2*4"])
    inventory["B2"].number_format = "yyyy-mm-dd"
    inventory["C2"].number_format = "0%"
    inventory["D2"].number_format = '"EUR "#,##0.00'
    inventory.append(["Catalogue", "", "", "", ""])
    inventory["A3"].hyperlink = "https://example.com/catalogue"
    inventory.merge_cells("B3:C3")
    inventory.append(["Hidden row", "", "", "", ""])
    inventory.row_dimensions[4].hidden = True
    inventory.column_dimensions["F"].hidden = True
    for index in range(1, preceding_rows + 1):
        inventory.append([f"Inventory item {index}"])
    inventory.append([content])
    budget = workbook.create_sheet("Private budget")
    budget.sheet_state = "hidden"
    budget.append(["Line", "Amount"])
    budget.append(["Salaries", 125000])
    summary = workbook.create_sheet("Visible summary")
    summary.append(["Summary", "See the inventory sheet."])
    for month in range(1, following_sheets + 1):
        workbook.create_sheet(f"Month {month}").append([f"Month {month} stock"])
    saved = _saved(workbook)
    return _with_shared_strings(saved) if strings == "shared" else saved


_INLINE = re.compile(rb'<c ([^>]*?) ?t="inlineStr"([^>]*)><is><t(?: [^>]*)?>(.*?)</t></is></c>')
_SHARED_TYPE = b"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
_SHARED_REL = b"http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"


def _with_shared_strings(data: bytes) -> bytes:
    """The workbook as Excel saves it: every inline string of every sheet moved into
    ``xl/sharedStrings.xml`` (each distinct text once), its cells holding the index."""
    source = zipfile.ZipFile(io.BytesIO(data))
    table: dict[bytes, int] = {}

    def shared(match: re.Match[bytes]) -> bytes:
        index = table.setdefault(match.group(3), len(table))
        attributes = b" ".join(a for a in (match.group(1), match.group(2).strip()) if a)
        return b'<c %s t="s"><v>%d</v></c>' % (attributes, index)

    parts = {info.filename: source.read(info.filename) for info in source.infolist()}
    for name in sorted(parts):
        if name.startswith("xl/worksheets/") and name.endswith(".xml"):
            parts[name] = _INLINE.sub(shared, parts[name]).replace(b' t="inlineStr"></c>', b"/>")
    items = b"".join(b'<si><t xml:space="preserve">%s</t></si>' % text for text in table)
    parts["xl/sharedStrings.xml"] = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        b'count="%d" uniqueCount="%d">%s</sst>' % (len(table), len(table), items)
    )
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>",
        b'<Override PartName="/xl/sharedStrings.xml" ContentType="%s"/></Types>' % _SHARED_TYPE,
    )
    parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(
        b"</Relationships>",
        b'<Relationship Id="rIdShared" Type="%s" Target="sharedStrings.xml"/></Relationships>'
        % _SHARED_REL,
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name, body in parts.items():
            entry = zipfile.ZipInfo(name, _ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, body)
    return out.getvalue()


def pptx_bytes(content: str) -> bytes:
    """Two slides; ``content`` is only in the first slide's speaker notes. The first slide has a
    title, a body with a bullet, a 2x2 table and a picture; the second is a follow-up."""
    presentation = Presentation()
    presentation.core_properties.created = EPOCH.replace(tzinfo=None)
    presentation.core_properties.modified = EPOCH.replace(tzinfo=None)
    presentation.core_properties.revision = 1
    title, overview, rollout, *cells, follow_up = PPTX_SLIDE_TEXT
    first = presentation.slides.add_slide(presentation.slide_layouts[1])
    assert first.shapes.title is not None
    first.shapes.title.text = title
    body = first.placeholders[1].text_frame
    body.text = overview
    bullet = body.add_paragraph()
    bullet.text = rollout
    bullet.level = 1
    table = first.shapes.add_table(2, 2, Inches(1), Inches(4), Inches(4), Inches(1)).table
    for index, text in enumerate(cells):
        table.cell(index // 2, index % 2).text = text
    picture = io.BytesIO()
    _scan_image().save(picture, format="PNG")
    picture.seek(0)
    first.shapes.add_picture(picture, Inches(6), Inches(4), Inches(1), Inches(1))
    notes = first.notes_slide.notes_text_frame
    assert notes is not None
    notes.text = content
    second = presentation.slides.add_slide(presentation.slide_layouts[5])
    assert second.shapes.title is not None
    second.shapes.title.text = follow_up
    return _saved(presentation)
