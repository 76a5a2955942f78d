"""What ``file_create`` writes: the content an Agent gave, rendered into the format it named.

Text formats are the content as UTF-8 (JSON and YAML are parsed first, so a draft never holds
a document its own format refuses). A PDF is one Helvetica text line per content line on US
Letter pages; a DOCX is a minimal WordprocessingML package, one paragraph per line; an XLSX
is one sheet, one row per line, cells split on commas. Every writer is deterministic: the same
content makes the same bytes.
"""

from __future__ import annotations

import io
import json

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
        raise RenderError("internal_error", "this runtime has no PPTX writer")
    return content.encode("utf-8")


def _pdf_text(line: str) -> str:
    latin = line.encode("latin-1", "replace").decode("latin-1")
    return latin.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _pdf(lines: list[str]) -> bytes:
    pages = [lines[i : i + _LINES_PER_PAGE] for i in range(0, len(lines), _LINES_PER_PAGE)] or [[]]
    objects: list[bytes] = [b"", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids: list[int] = []
    for page in pages:
        body = "".join(
            f"BT /F1 11 Tf 72 {720 - 14 * row} Td ({_pdf_text(text)}) Tj ET\n"
            for row, text in enumerate(page)
        ).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(body), body))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % len(objects)
        )
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    out = io.BytesIO(b"%PDF-1.4\n")
    out.seek(0, io.SEEK_END)
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    start = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, start)
    )
    return out.getvalue()


def _zip(entries: list[tuple[str, str]]) -> bytes:
    import zipfile  # with the first Office File written, not by every Sweep

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in entries:
            info = zipfile.ZipInfo(name, _ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, body.encode("utf-8"))
    return out.getvalue()


_XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
_PKG = "http://schemas.openxmlformats.org/package/2006"
_OFFICE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _types(overrides: dict[str, str]) -> str:
    parts = "".join(f'<Override PartName="{p}" ContentType="{t}"/>' for p, t in overrides.items())
    return (
        f'{_XML}<Types xmlns="{_PKG}/content-types">'
        f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        f'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        f"{parts}</Types>"
    )


def _rels(targets: list[tuple[str, str]]) -> str:
    rels = "".join(
        f'<Relationship Id="rId{i}" Type="{_OFFICE}/{kind}" Target="{target}"/>'
        for i, (kind, target) in enumerate(targets, start=1)
    )
    return f'{_XML}<Relationships xmlns="{_PKG}/relationships">{rels}</Relationships>'


def escape(text: str) -> str:
    """XML text escaping, written out: ``xml.sax.saxutils`` imports ``urllib`` and ``html``
    its entity table, tens of milliseconds of every command."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _docx(lines: list[str]) -> bytes:
    main = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
    body = "".join(
        f'<w:p><w:r><w:t xml:space="preserve">{escape(t)}</w:t></w:r></w:p>' for t in lines
    )
    document = (
        f'{_XML}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/'
        f'main"><w:body>{body}<w:sectPr/></w:body></w:document>'
    )
    return _zip(
        [
            ("[Content_Types].xml", _types({"/word/document.xml": main})),
            ("_rels/.rels", _rels([("officeDocument", "word/document.xml")])),
            ("word/document.xml", document),
        ]
    )


def _xlsx(lines: list[str]) -> bytes:
    sml = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    kind = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    rows = "".join(
        f'<row r="{r}">'
        + "".join(
            f'<c t="inlineStr"><is><t>{escape(cell)}</t></is></c>' for cell in line.split(",")
        )
        + "</row>"
        for r, line in enumerate(lines, start=1)
    )
    return _zip(
        [
            (
                "[Content_Types].xml",
                _types(
                    {
                        "/xl/workbook.xml": f"{kind}.sheet.main+xml",
                        "/xl/worksheets/sheet1.xml": f"{kind}.worksheet+xml",
                    }
                ),
            ),
            ("_rels/.rels", _rels([("officeDocument", "xl/workbook.xml")])),
            (
                "xl/workbook.xml",
                f'{_XML}<workbook xmlns="{sml}" xmlns:r="{_OFFICE}"><sheets><sheet name="Sheet1" '
                'sheetId="1" r:id="rId1"/></sheets></workbook>',
            ),
            ("xl/_rels/workbook.xml.rels", _rels([("worksheet", "worksheets/sheet1.xml")])),
            (
                "xl/worksheets/sheet1.xml",
                f'{_XML}<worksheet xmlns="{sml}"><sheetData>{rows}</sheetData></worksheet>',
            ),
        ]
    )
