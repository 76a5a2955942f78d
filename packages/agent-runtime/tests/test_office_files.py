"""The Office documents the runtime writes (``file_create``) and reads (``file_read``,
attachments), through the real libraries: what one writes, the other and the format's own
reader read back; the same content makes the same bytes; an archive whose XML declares a
document type (entity bombs, external entities) is refused, never expanded."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import pytest
from docx import Document
from openpyxl import load_workbook  # type: ignore[import-untyped]
from pptx import Presentation
from pypdf import PdfReader

from agent_runtime.files import documents
from agent_runtime.files.documents import DocumentRefused, extract
from agent_runtime.files.render import FORMATS, render

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


def test_a_one_line_block_is_a_slide_with_its_title_and_an_empty_body() -> None:
    """A block the Agent wrote as one line (a section heading, a closing "Questions?") is a
    slide of its own: that line its title, its body left empty."""
    content = "Agenda\n\nOpen audits\n14 open\n\nQuestions?"
    deck = Presentation(io.BytesIO(render("pptx", content, None)))
    slides = [
        [s.text_frame.text for s in slide.shapes if s.has_text_frame] for slide in deck.slides
    ]
    assert slides == [["Agenda", ""], ["Open audits", "14 open"], ["Questions?", ""]]


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


def test_each_pdf_page_sets_its_lines_in_one_closed_text_object() -> None:
    """A text object opens with BT and must close with ET (ISO 32000-1, 9.4.1); pypdf and
    most viewers read an unclosed one anyway, so only the page's operators show it."""
    reader = PdfReader(io.BytesIO(render("pdf", "\n".join(f"Line {n}" for n in range(60)), None)))
    for page in reader.pages:
        contents = page.get_contents()
        assert contents is not None
        operators = [operator for _operands, operator in contents.operations]
        assert operators[0] == b"BT" and operators[-1] == b"ET", operators[-3:]
        assert operators.count(b"BT") == operators.count(b"ET") == 1


@pytest.mark.parametrize("fmt", ["docx", "xlsx", "pptx"])
def test_an_office_drafts_parts_are_plain_readable_files(fmt: str) -> None:
    """A draft is downloaded and may be unpacked by anyone: each part is an ordinary file its
    owner may write and everyone may read (0644), dated alike, whoever's machine wrote it."""
    with zipfile.ZipFile(io.BytesIO(render(fmt, CONTENT, "T"))) as archive:
        infos = archive.infolist()
    assert infos and {(i.external_attr >> 16, i.date_time) for i in infos} == {
        (0o644, (1980, 1, 1, 0, 0, 0))
    }


@pytest.mark.parametrize("fmt", ["pdf", "docx", "xlsx", "pptx"])
def test_the_same_content_makes_the_same_bytes(fmt: str) -> None:
    assert render(fmt, CONTENT + " é ☃ \x01", "T") == render(fmt, CONTENT + " é ☃ \x01", "T")


@pytest.mark.parametrize("fmt", ["docx", "xlsx", "pptx"])
def test_an_office_draft_is_dated_with_the_pinned_epoch(fmt: str) -> None:
    """openpyxl stamps a workbook "modified" with the moment it saves it: unpinned, the same
    content would make other bytes (and another draft id) each second."""
    with zipfile.ZipFile(io.BytesIO(render(fmt, CONTENT, "T"))) as archive:
        core = archive.read("docProps/core.xml").decode()
    for field in ("created", "modified"):
        assert f">2024-01-01T00:00:00Z</dcterms:{field}>" in core, (field, core)


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


def _with_part(archive: bytes, name: str, edit: Callable[[str], str]) -> bytes:
    """The archive with its part ``name`` (an XML text) replaced by ``edit`` of it, every other
    part as it was: how these tests build what openpyxl will not write."""
    edited = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(archive)) as source,
        zipfile.ZipFile(edited, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == name:
                data = edit(data.decode()).encode()
            out.writestr(info, data)
    return edited.getvalue()


def _listing_one_sheet(times: int, rows: int = 400) -> bytes:
    """A real workbook (openpyxl) whose ``workbook.xml`` is then edited to list its one sheet
    ``times`` times, each under its own name: the archive stays small, the sheets many."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Audits"
    for n in range(rows):
        sheet.append([f"audit {n}", n, "Leiden", "open", "=1+1"])
    made = io.BytesIO()
    book.save(made)

    def listed(text: str) -> str:
        start = text.index("<sheet ")
        end = text.index("/>", start) + 2
        one = text[start:end]
        many = "".join(
            one.replace('name="Audits"', f'name="Audits {n}"').replace(
                'sheetId="1"', f'sheetId="{n + 1}"'
            )
            for n in range(times)
        )
        return text[:start] + many + text[end:]

    return _with_part(made.getvalue(), "xl/workbook.xml", listed)


def test_a_workbook_listing_one_sheet_3000_times_reads_it_once_and_says_what_was_cut() -> None:
    """Before: every listing parsed the sheet again (500 MB and 19 s for a larger sheet)."""
    import time
    import tracemalloc

    data = _listing_one_sheet(3000)
    tracemalloc.start()
    started = time.perf_counter()
    text = extract(documents.XLSX, data).text
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert text.count("audit 399\t399\tLeiden\topen") == 1  # the sheet's text, once
    assert text.startswith("## Audits 0\naudit 0\t0\tLeiden")
    assert "## Audits 1\n[the same sheet as 'Audits 0', shown above]" in text
    cut = 3000 - documents.MAX_SHEETS
    assert text.endswith(f"[cut: {cut} more sheets not read (the limit is 64 sheets)]")
    assert seconds < 2.0, seconds
    assert peak < 50 << 20, peak


def test_a_workbook_over_the_cell_limit_is_cut_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_CELLS", 1000)
    text = extract(documents.XLSX, _listing_one_sheet(1)).text
    assert text.endswith(  # 200 rows of 5 cells (a formula's cell has no value yet)
        "audit 199\t199\tLeiden\topen\n"
        "[cut: the rest not read (the limit is 1,000 cells a workbook)]"
    )
    assert "audit 200" not in text


def test_a_sheet_after_the_cell_limit_is_named_and_said_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sheet the limit leaves no cells for is named, then said not read: its rows are never
    parsed, and the text has no empty row standing for it."""
    from openpyxl import Workbook

    book = Workbook()
    first = book.active
    first.title = "Audits"
    for n in range(10):
        first.append([f"audit {n}", n])
    second = book.create_sheet("Visits")
    for n in range(3):
        second.append([f"visit {n}", n])
    made = io.BytesIO()
    book.save(made)
    monkeypatch.setattr(documents, "MAX_CELLS", 20)
    text = extract(documents.XLSX, made.getvalue()).text
    assert text.endswith(
        "audit 9\t9\n"
        "[cut: the rest not read (the limit is 20 cells a workbook)]\n"
        "## Visits\n"
        "[cut: not read (the limit is 20 cells a workbook)]"
    ), text
    assert "visit" not in text


def _one_sheet_of(rows: int, columns: int) -> bytes:
    """A real workbook (openpyxl) whose one sheet's XML is then replaced by ``rows`` rows of
    ``columns`` numeric cells, cell ``n`` holding ``n`` (openpyxl would take seconds to write
    a hundred thousand cells)."""
    cells = "".join(
        "<row>" + "".join(f"<c><v>{r * columns + c}</v></c>" for c in range(columns)) + "</row>"
        for r in range(rows)
    )

    def filled(text: str) -> str:
        start = text.index("<sheetData>") + len("<sheetData>")
        end = text.index("</sheetData>")
        return text[:start] + cells + text[end:]

    return _with_part(_listing_one_sheet(1, rows=1), "xl/worksheets/sheet1.xml", filled)


def test_a_workbook_is_read_up_to_its_100000th_cell() -> None:
    """The limit the docs give (docs/libraries.md: at most 100,000 cells), at its edge: a sheet
    of 100,100 cells is read to cell 99,999 (the 100,000th), and the text says the rest was cut."""
    text = extract(documents.XLSX, _one_sheet_of(1001, 100)).text
    *rows, cut = text.split("\n")[1:]
    assert cut == "[cut: the rest not read (the limit is 100,000 cells a workbook)]"
    values = [value for row in rows for value in row.split("\t")]
    assert values == [str(n) for n in range(100_000)]


def test_a_row_the_cell_limit_falls_inside_is_cut_at_the_limits_cell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The limit counts cells, not rows: a row it falls inside keeps its cells up to the
    limit's own and no further, and the text says the rest was cut."""
    monkeypatch.setattr(documents, "MAX_CELLS", 10)
    text = extract(documents.XLSX, _one_sheet_of(5, 3)).text
    assert text.split("\n")[1:] == [
        "0\t1\t2",
        "3\t4\t5",
        "6\t7\t8",
        "9",
        "[cut: the rest not read (the limit is 10 cells a workbook)]",
    ], text


def _sheet_rows(rows: str, shared: str | None = None) -> bytes:
    """A real workbook (openpyxl) whose one sheet holds ``rows`` (its ``<row>`` XML), with
    ``shared`` as its shared-string table's ``<si>`` items when given."""

    def filled(text: str) -> str:
        start = text.index("<sheetData>") + len("<sheetData>")
        return text[:start] + rows + text[text.index("</sheetData>") :]

    data = _with_part(_listing_one_sheet(1, rows=1), "xl/worksheets/sheet1.xml", filled)
    if shared is None:
        return data
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a") as archive:
        archive.writestr("xl/sharedStrings.xml", f'<sst xmlns="{_MAIN}">{shared}</sst>')
    return out.getvalue()


_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


@pytest.mark.parametrize("hidden", ["1", "true"], ids=["as-excel-writes-it", "as-libreoffice"])
def test_a_hidden_row_is_not_read(hidden: str) -> None:
    """Excel writes a hidden row's flag as ``1``, LibreOffice as ``true``: both are hidden from
    whoever opens the workbook, so neither is the document's text."""
    rows = (
        '<row r="1"><c r="A1" t="inlineStr"><is><t>Tulip bulbs</t></is></c></row>'
        f'<row r="2" hidden="{hidden}"><c r="A2" t="inlineStr"><is><t>Cost price 3.10</t></is>'
        '</c></row><row r="3" hidden="0"><c r="A3" t="inlineStr"><is><t>Crocus bulbs</t></is>'
        "</c></row>"
    )
    assert (
        extract(documents.XLSX, _sheet_rows(rows)).text == "## Audits 0\nTulip bulbs\nCrocus bulbs"
    )


def test_a_shared_string_index_the_table_lacks_reads_as_an_empty_cell() -> None:
    """A cell pointing past the shared-string table, or at no number, is an empty cell: the rest
    of the workbook is still read."""
    rows = (
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>'
        '<c r="C1" t="s"><v>first</v></c><c r="D1"><v>40</v></c></row>'
    )
    text = extract(documents.XLSX, _sheet_rows(rows, "<si><t>Tulip bulbs</t></si>")).text
    assert text == "## Audits 0\nTulip bulbs\t\t\t40"
