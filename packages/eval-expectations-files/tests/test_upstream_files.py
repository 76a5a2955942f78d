"""The File fixtures as the original synthesises them (issue 21, section 4), parsed back with
real libraries: pypdf for PDFs, ``zipfile`` for the DOCX archive, openpyxl and python-pptx for
the workbook and the deck. One test per fixture row of the reference table."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import msgspec
import pytest
from openpyxl import load_workbook  # type: ignore[import-untyped]
from pptx import Presentation
from pypdf import PageObject, PdfReader

from eval_core._case.evidence import Evidence
from eval_expectations_files import bytes_cache, synthesis
from eval_expectations_files.fixtures import PDF, PPTX, PPTX_SLIDE_TEXT, CaseFile, PptxFixture
from eval_expectations_files.kinds import (
    PdfInputAccounted,
    PdfPageSize,
    ProviderPromptFileExact,
    ProviderPromptOmitsFile,
    kind_specs,
)
from eval_expectations_files.record import FilesRecord

SPECS = {spec.name: spec for spec in kind_specs()}


def _reader(data: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(data), strict=True)


def _sizes(reader: PdfReader) -> list[tuple[float, float]]:
    return [(float(p.mediabox.width), float(p.mediabox.height)) for p in reader.pages]


def _runs(page: PageObject) -> list[tuple[str, float, float, float, str]]:
    """Each text run on ``page``: its text, its origin (x, y) in points, its size, its font."""
    found: list[tuple[str, float, float, float, str]] = []

    def visit(text: str, cm: Any, tm: Any, font: Any, size: float) -> None:
        if text.strip():
            base = str(font.get("/BaseFont")) if font else ""
            found.append((text.strip(), float(tm[4]), float(tm[5]), float(size), base))

    page.extract_text(visitor_text=visit)
    return found


def _images(page: PageObject) -> list[Any]:
    xobjects = page["/Resources"].get("/XObject", {})
    return [
        xobjects[name].get_object()
        for name in xobjects
        if xobjects[name].get_object().get("/Subtype") == "/Image"
    ]


def test_text_pdf_is_one_letter_page_with_the_line_at_72_720_in_12_pt_helvetica() -> None:
    reader = _reader(synthesis.pdf_bytes("text", "Invoice 7 totals 12 EUR."))
    assert _sizes(reader) == [(612, 792)]
    (text, x, y, size, font) = _runs(reader.pages[0])[0]
    assert text == "Invoice 7 totals 12 EUR."
    assert (round(x), round(y), size) == (72, 720, 12)
    assert font.endswith("Helvetica")
    default = _reader(synthesis.pdf_bytes("text", None))
    assert "The warranty lasts 47 days." in (default.pages[0].extract_text() or "")


def test_scan_pdf_is_a_letter_page_covered_by_a_2x2_rgb_image_and_nothing_else() -> None:
    reader = _reader(synthesis.pdf_bytes("scan", None))
    assert _sizes(reader) == [(612, 792)]
    page = reader.pages[0]
    [image] = _images(page)
    assert (image["/Width"], image["/Height"], image["/ColorSpace"]) == (2, 2, "/DeviceRGB")
    assert not (page.extract_text() or "").strip()
    content = page.get_contents().get_data()  # type: ignore[union-attr]
    assert b"612" in content and b"792" in content  # drawn over the whole page


def test_mixed_pdf_is_a_text_letter_page_then_an_image_only_420_by_594_page() -> None:
    reader = _reader(synthesis.pdf_bytes("mixed", "Typed page."))
    assert _sizes(reader) == [(612, 792), (420, 594)]
    assert "Typed page." in (reader.pages[0].extract_text() or "")
    assert not (reader.pages[1].extract_text() or "").strip()
    assert len(_images(reader.pages[1])) == 1 and not _images(reader.pages[0])


def test_encrypted_pdf_is_rc4_40_with_the_fixture_passwords() -> None:
    data = synthesis.pdf_bytes("encrypted", None)
    reader = _reader(data)
    assert reader.is_encrypted
    handler = reader.trailer["/Encrypt"].get_object()
    assert (handler["/Filter"], handler["/V"], handler["/R"]) == ("/Standard", 1, 2)
    assert handler.get("/Length", 40) == 40
    assert int(handler["/P"]) & 0xFFFFFFFF == (-4) & 0xFFFFFFFF
    assert reader.decrypt("fixture-reader") == 1  # the user password
    assert "The warranty lasts 47 days." in (reader.pages[0].extract_text() or "")
    assert _reader(data).decrypt("fixture-owner") == 2  # the owner password
    assert _sizes(reader) == [(612, 792)]


def test_malformed_pdf_is_the_literal_three_lines() -> None:
    assert synthesis.pdf_bytes("malformed", None) == b"%PDF-1.4\nnot a document\n%%EOF"


def test_layout_pdf_is_one_page_with_heading_content_code_and_a_table() -> None:
    reader = _reader(synthesis.pdf_bytes("layout", "Orders need two approvers."))
    assert _sizes(reader) == [(612, 792)]
    runs = {
        text: (round(x), round(y), size, font) for text, x, y, size, font in _runs(reader.pages[0])
    }
    assert runs["Approval handbook"][3].endswith("Helvetica-Bold")
    assert runs["Orders need two approvers."][:2] == (72, 680)
    assert runs["if ready:"][3].endswith("Courier")
    assert runs["publish()"][3].endswith("Courier")  # "    publish()", stripped
    assert [runs[t][:2] for t in ("Region", "Amount", "Pune", "731")] == [
        (72, 590),
        (252, 590),
        (72, 570),
        (252, 570),
    ]


def test_plain_content_with_the_pdf_media_type_is_a_minimal_letter_page() -> None:
    file = CaseFile(file_id="p", media_type=PDF, name="p.pdf", content="One page only.")
    reader = _reader(file.fixture_bytes())
    assert _sizes(reader) == [(612, 792)]
    assert (reader.pages[0].extract_text() or "").strip() == "One page only."


def test_docx_is_a_stored_zip_of_three_parts_with_policy_paragraphs_then_the_content() -> None:
    archive = zipfile.ZipFile(io.BytesIO(synthesis.docx_bytes("The clause.", 3)))
    assert archive.namelist() == ["[Content_Types].xml", "_rels/.rels", "word/document.xml"]
    assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_STORED}
    body = archive.read("word/document.xml").decode()
    paragraphs = [p.split("<w:t>")[1].split("</w:t>")[0] for p in body.split("<w:p>")[1:]]
    assert paragraphs == [
        "Policy paragraph 1.",
        "Policy paragraph 2.",
        "Policy paragraph 3.",
        "The clause.",
    ]


def test_docx_variants_are_cut_empty_and_over_the_entry_limit() -> None:
    whole = synthesis.docx_bytes("Policy.", 0)
    malformed = synthesis.docx_bytes(None, variant="malformed")
    assert len(malformed) == 64 and whole.startswith(malformed)
    with pytest.raises(zipfile.BadZipFile):
        zipfile.ZipFile(io.BytesIO(malformed))
    empty = zipfile.ZipFile(io.BytesIO(synthesis.docx_bytes(None, variant="empty")))
    assert "<w:p>" not in empty.read("word/document.xml").decode()
    limit = zipfile.ZipFile(io.BytesIO(synthesis.docx_bytes(None, variant="entry-limit")))
    names = limit.namelist()
    assert len(names) == 513
    assert names[3:] == [f"customXml/item{n}.xml" for n in range(1, 511)]


def test_xlsx_has_three_sheets_the_middle_one_hidden_and_the_content_last() -> None:
    book = load_workbook(io.BytesIO(synthesis.xlsx_bytes("Closing 9", 4)))
    assert book.sheetnames == ["Visible inventory", "Private budget", "Visible summary"]
    assert [s.sheet_state for s in book.worksheets] == ["visible", "hidden", "visible"]
    inventory = book["Visible inventory"]
    column = [row[0] for row in inventory.iter_rows(values_only=True)]
    assert column[-5:] == [*(f"Inventory item {n}" for n in range(1, 5)), "Closing 9"]
    assert inventory["B2"].is_date and inventory["C2"].number_format == "0%"
    assert inventory["E2"].value == "=D2*4" and inventory["A3"].hyperlink is not None
    assert "B3:C3" in {str(r) for r in inventory.merged_cells.ranges}
    assert inventory.row_dimensions[4].hidden and inventory.column_dimensions["F"].hidden


def test_an_xlsx_with_shared_strings_holds_the_same_cells_with_no_inline_string() -> None:
    inline = synthesis.xlsx_bytes("Closing 9", 2)
    shared = synthesis.xlsx_bytes("Closing 9", 2, "shared")
    archive = zipfile.ZipFile(io.BytesIO(shared))
    sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/sheet")]
    assert sheets and not any(b"inlineStr" in archive.read(n) for n in sheets)
    assert b'<t xml:space="preserve">Closing 9</t>' in archive.read("xl/sharedStrings.xml")

    def cells(data: bytes) -> list[list[object]]:
        book = load_workbook(io.BytesIO(data))
        return [list(row) for sheet in book.worksheets for row in sheet.iter_rows(values_only=True)]

    assert cells(shared) == cells(inline)


def test_pptx_has_two_slides_and_the_content_only_in_the_first_slides_notes() -> None:
    deck = Presentation(io.BytesIO(synthesis.pptx_bytes("Only in the notes.")))
    first, second = deck.slides
    shown = [s.text_frame.text for slide in deck.slides for s in slide.shapes if s.has_text_frame]
    assert not any("Only in the notes." in text for text in shown)
    assert first.notes_slide.notes_text_frame.text == "Only in the notes."
    assert second.has_notes_slide is False
    kinds = {shape.shape_type for shape in first.shapes}
    assert any(shape.has_table for shape in first.shapes if hasattr(shape, "has_table"))
    assert len(kinds) >= 3  # title and body placeholders, a table, a picture


def test_a_decks_slide_text_is_what_its_file_gives_a_reader_besides_its_content() -> None:
    """What the deck shows on its slides, read back by python-pptx, is ``PPTX_SLIDE_TEXT`` in
    order; a pptx File gives a reader that and its content (so a Case may ground an Expectation
    in the slide text), and a File with no fixture only its content."""
    deck = Presentation(io.BytesIO(synthesis.pptx_bytes("Only in the notes.")))
    shown: list[str] = []
    for slide in deck.slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                shown.extend(p.text for p in shape.text_frame.paragraphs if p.text)
            if getattr(shape, "has_table", False):
                shown.extend(cell.text for row in shape.table.rows for cell in row.cells)
    assert shown == list(PPTX_SLIDE_TEXT)
    deck_file = CaseFile(
        file_id="deck",
        media_type=PPTX,
        name="review.pptx",
        content="Only in the notes.",
        pptx=PptxFixture(speaker_notes=True),
    )
    assert deck_file.given_text() == ["Only in the notes.", *PPTX_SLIDE_TEXT]
    memo = CaseFile(file_id="memo", media_type="text/plain", name="memo.txt", content="Hello.")
    assert memo.given_text() == ["Hello."]
    blank = CaseFile(file_id="blank", media_type="text/plain", name="blank.txt")
    assert blank.given_text() == []


def test_the_bytes_cache_key_names_the_generator_format() -> None:
    assert bytes_cache.FORMAT == 3 and "format=3" in bytes_cache.generator()
    assert "pypdf=" in bytes_cache.generator()


# -- the provider-prompt kinds as the original scores them ----------------------------------------

_SHA = "cd" * 32


def _record(requests: list[list[dict[str, Any]]], **extra: Any) -> FilesRecord:
    return msgspec.convert(
        {
            "files": [
                {
                    "fileId": "scan",
                    "name": "scan.pdf",
                    "mediaType": PDF,
                    "origin": "library",
                    "sha256": _SHA,
                    "size": 7,
                }
            ],
            "requests": requests,
            "pdfInputs": [],
            "generated": [],
            "agentRoles": [],
            **extra,
        },
        FilesRecord,
    )


def _score(expectation: Any, record: FilesRecord, **evidence: Any) -> tuple[bool, str]:
    ev = Evidence(tier="l3", **evidence)
    ev.put(record)
    verdict = SPECS[expectation.kind_name].scorer(expectation, ev)
    return verdict.passed, verdict.detail


def test_file_exact_finds_a_file_read_attached_to_a_later_request() -> None:
    asked = [{"type": "text", "role": "user", "text": "Read scan.pdf."}]
    attached = {
        "type": "file", "role": "user", "fileId": "scan", "mediaType": PDF,
        "filename": "scan.pdf", "sha256": _SHA, "size": 7,
    }  # fmt: skip
    ok, detail = _score(
        ProviderPromptFileExact(file_id="scan", part="file"), _record([asked, [*asked, attached]])
    )
    assert ok and "request 2" in detail
    ok, _ = _score(ProviderPromptFileExact(file_id="scan", part="file"), _record([asked, asked]))
    assert not ok


def test_omits_file_reads_bytes_only_and_holds_when_the_model_was_never_called() -> None:
    named = {"type": "text", "role": "user", "text": "scan.pdf:\n\ntext", "fileId": "scan"}
    assert _score(ProviderPromptOmitsFile(file_id="scan"), _record([[named]]))[0]
    assert _score(ProviderPromptOmitsFile(file_id="scan"), _record([]), model_calls=0)[0]
    assert not _score(ProviderPromptOmitsFile(file_id="scan"), _record([]))[0]


def test_pdf_text_counts_as_absent_when_its_text_layer_was_refused() -> None:
    page = {"width": 1224, "height": 1584, "text": True, "tokens": 2586}
    refused = {"fileId": "scan", "source": "prompt", "pages": [page], "textRefusal": "needs_ocr"}
    accounted = PdfInputAccounted(
        file_id="scan", pages=[PdfPageSize(width=1224, height=1584)], text="absent",
        minimum_tokens=2586,
    )  # fmt: skip
    assert _score(accounted, _record([], pdfInputs=[refused]))[0]
    kept = {**refused, "textRefusal": None}
    ok, detail = _score(accounted, _record([], pdfInputs=[kept]))
    assert not ok and "present" in detail
