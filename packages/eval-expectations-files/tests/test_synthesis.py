"""Fixture bytes are real documents, identical on every synthesis (they are hashed)."""

from __future__ import annotations

import io
import zipfile

import pytest
from pypdf import PdfReader

from eval_expectations_files import synthesis
from eval_expectations_files.fixtures import DOCX, PDF, CaseFile, PdfFixture

MAKERS = {
    "pdf-text": lambda: synthesis.pdf_bytes("text", "Invoice 7 totals 12 EUR."),
    "pdf-scan": lambda: synthesis.pdf_bytes("scan", None),
    "pdf-mixed": lambda: synthesis.pdf_bytes("mixed", "Typed page."),
    "pdf-encrypted": lambda: synthesis.pdf_bytes("encrypted", None),
    "pdf-malformed": lambda: synthesis.pdf_bytes("malformed", None),
    "pdf-no-pages": lambda: synthesis.pdf_bytes("no-pages", None),
    "pdf-layout": lambda: synthesis.pdf_bytes("layout", "left words and right words"),
    "pdf-page-limit": lambda: synthesis.pdf_bytes("page-limit", "Chapter one."),
    "docx-text": lambda: synthesis.docx_bytes("Final clause.", 5),
    "docx-empty": lambda: synthesis.docx_bytes(None, variant="empty"),
    "docx-malformed": lambda: synthesis.docx_bytes(None, variant="malformed"),
    "docx-entry-limit": lambda: synthesis.docx_bytes(None, variant="entry-limit"),
    "docx-external-dtd": lambda: synthesis.docx_bytes(None, variant="external-dtd"),
    "xlsx": lambda: synthesis.xlsx_bytes("Total 5", 3),
    "xlsx-shared": lambda: synthesis.xlsx_bytes("Total 5", 3, "shared"),
    "xlsx-months": lambda: synthesis.xlsx_bytes("Total 5", 0, "inline", 3),
    "pptx": lambda: synthesis.pptx_bytes("Only in the notes."),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_two_syntheses_are_byte_equal(name: str) -> None:
    assert MAKERS[name]() == MAKERS[name]()


def test_pdf_variants_are_what_they_claim() -> None:
    text = PdfReader(io.BytesIO(MAKERS["pdf-text"]()))
    assert "Invoice 7" in (text.pages[0].extract_text() or "")
    scan = PdfReader(io.BytesIO(MAKERS["pdf-scan"]()))
    assert not (scan.pages[0].extract_text() or "").strip()
    assert PdfReader(io.BytesIO(MAKERS["pdf-encrypted"]())).is_encrypted
    layout = PdfReader(io.BytesIO(MAKERS["pdf-layout"]()))
    assert [(p.mediabox.width, p.mediabox.height) for p in layout.pages] == [(612, 792)]
    long = PdfReader(io.BytesIO(MAKERS["pdf-page-limit"]()))
    assert len(long.pages) == synthesis.PAGE_LIMIT_PAGES == 201
    assert "Chapter one." in (long.pages[0].extract_text() or "")
    assert len(PdfReader(io.BytesIO(MAKERS["pdf-no-pages"]())).pages) == 0


def test_defective_docx_archives_are_really_defective() -> None:
    with pytest.raises(zipfile.BadZipFile):
        zipfile.ZipFile(io.BytesIO(MAKERS["docx-malformed"]())).infolist()
    entries = zipfile.ZipFile(io.BytesIO(MAKERS["docx-entry-limit"]())).infolist()
    assert len(entries) == 3 + synthesis.ENTRY_LIMIT_PADDING == 513
    empty = zipfile.ZipFile(io.BytesIO(MAKERS["docx-empty"]()))
    assert b"<w:p>" not in empty.read("word/document.xml")
    probe = zipfile.ZipFile(io.BytesIO(MAKERS["docx-external-dtd"]())).read("word/document.xml")
    assert probe.startswith(
        b'<?xml version="1.0" encoding="UTF-8"?>' + synthesis.EXTERNAL_DTD.encode()
    )
    assert b"<w:t>Policy.</w:t>" in probe


def test_ooxml_timestamps_are_pinned() -> None:
    archive = zipfile.ZipFile(io.BytesIO(MAKERS["docx-text"]()))
    assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_a_file_without_content_or_fixture_is_a_placeholder() -> None:
    file = CaseFile(file_id="f1", media_type="image/png", name="a.png")
    assert file.fixture_bytes() == b"eval-bytes:f1"
    text = CaseFile(file_id="t", media_type="text/plain", name="t.txt", content="hi")
    assert text.fixture_bytes() == b"hi"
    pdf = CaseFile(file_id="p", media_type=PDF, name="p.pdf", content="One page.")
    assert pdf.fixture_bytes().startswith(b"%PDF")
    docx = CaseFile(file_id="d", media_type=DOCX, name="d.docx")
    assert docx.replacement_bytes() is None


def test_replacement_bytes_follow_replace_after_read() -> None:
    file = CaseFile(
        file_id="s",
        media_type=PDF,
        name="s.pdf",
        pdf=PdfFixture(variant="scan", replace_after_read="encrypted"),
    )
    replacement = file.replacement_bytes()
    assert replacement is not None
    assert PdfReader(io.BytesIO(replacement)).is_encrypted
    assert replacement != file.fixture_bytes()


def test_following_sheets_are_visible_months_after_the_summary() -> None:
    from openpyxl import load_workbook

    workbook = load_workbook(io.BytesIO(MAKERS["xlsx-months"]()))
    assert workbook.sheetnames == [
        "Visible inventory", "Private budget", "Visible summary", "Month 1", "Month 2", "Month 3"
    ]  # fmt: skip
    assert workbook["Month 3"]["A1"].value == "Month 3 stock"
    assert workbook["Month 3"].sheet_state == "visible"
