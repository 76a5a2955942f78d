"""The Office documents the runtime writes (``file_create``) and reads (``file_read``,
attachments), through the real libraries: what one writes, the other and the format's own
reader read back; the same content makes the same bytes; an archive whose XML declares a
document type (entity bombs, external entities) is refused, never expanded."""

from __future__ import annotations

import io
import zipfile

import pytest
from docx import Document
from openpyxl import load_workbook  # type: ignore[import-untyped]
from pptx import Presentation
from pypdf import PdfReader

from agent_runtime import documents
from agent_runtime.documents import DocumentRefused, extract
from agent_runtime.file_render import FORMATS, render

CONTENT = "Open audits,14\nLeiden,=1+1\n\nNext steps\nClose two a week.\nReport on Fridays."


def test_a_pptx_is_a_title_slide_then_one_slide_per_block() -> None:
    deck = Presentation(io.BytesIO(render("pptx", CONTENT, "Audit backlog")))
    slides = [
        [s.text_frame.text for s in slide.shapes if s.has_text_frame] for slide in deck.slides
    ]
    assert slides[0][0] == "Audit backlog"
    assert slides[1] == ["Open audits,14", "Leiden,=1+1"]
    assert slides[2] == ["Next steps", "Close two a week.\nReport on Fridays."]
    assert len(slides) == 3
    read = extract(FORMATS["pptx"][0], render("pptx", CONTENT, "Audit backlog")).text
    assert "Audit backlog" in read and "Report on Fridays." in read


def test_an_xlsx_cell_is_text_even_when_it_looks_like_a_formula() -> None:
    sheet = load_workbook(io.BytesIO(render("xlsx", CONTENT, None))).active
    assert [c.value for c in sheet[2]] == ["Leiden", "=1+1"]
    assert sheet["B2"].data_type == "s"  # not "f": an Agent's "=..." never computes
    assert sheet["B1"].value == "14"  # text as given, not a number guessed from it


def test_a_docx_is_one_paragraph_per_line() -> None:
    paragraphs = [p.text for p in Document(io.BytesIO(render("docx", CONTENT, "T"))).paragraphs]
    assert paragraphs == ["T", *CONTENT.splitlines()]


def test_a_pdf_is_one_text_line_per_content_line_on_letter_pages() -> None:
    lines = [f"Line {n}" for n in range(60)]
    reader = PdfReader(io.BytesIO(render("pdf", "\n".join(lines), None)))
    assert len(reader.pages) == 2 and float(reader.pages[0].mediabox.width) == 612
    assert (reader.pages[1].extract_text() or "").split("\n")[0] == "Line 48"


@pytest.mark.parametrize("fmt", ["pdf", "docx", "xlsx", "pptx"])
def test_the_same_content_makes_the_same_bytes(fmt: str) -> None:
    assert render(fmt, CONTENT + " é ☃ \x01", "T") == render(fmt, CONTENT + " é ☃ \x01", "T")


def _docx_with(document_xml: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", document_xml)
    return out.getvalue()


LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;">]>'
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    "<w:body><w:p><w:r><w:t>&d;</w:t></w:r></w:p></w:body></w:document>"
)
EXTERNAL = (
    '<?xml version="1.0"?><!DOCTYPE w [<!ENTITY x SYSTEM "file:///etc/hostname">]>'
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    "<w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>"
)


@pytest.mark.parametrize("xml", [LAUGHS, EXTERNAL], ids=["entity-expansion", "external-entity"])
def test_an_office_part_that_declares_a_document_type_is_refused(xml: str) -> None:
    with pytest.raises(DocumentRefused) as refused:
        extract(documents.DOCX, _docx_with(xml))
    assert refused.value.reason == documents.UNREADABLE
    assert "word/document.xml declares a document type" in refused.value.detail
