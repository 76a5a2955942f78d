"""The family reads a generated draft from its bytes with readers of its own: each format it
opens gives back the text the document shows (a deck's slides, table and notes; a workbook's
cells, inline or shared; a PDF's text layer; a text format's bytes); a format it cannot read,
or bytes that do not open, are said so in one line, never a traceback."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core.records import GeneratedFile
from eval_expectations_files import setup, synthesis
from eval_expectations_files.drafts import text_of
from eval_expectations_files.fixtures import DOCX, PDF, PPTX, PPTX_SLIDE_TEXT, XLSX

SAID = "Fourteen audits are open."


def test_a_deck_gives_back_its_slides_its_table_and_its_notes() -> None:
    text, unreadable = text_of(PPTX, synthesis.pptx_bytes(SAID))
    assert unreadable is None and text is not None
    assert all(shown in text for shown in (*PPTX_SLIDE_TEXT, SAID))
    first, second = text.split("\n\n")  # one block a slide, its notes last
    assert first.endswith(f"\n{SAID}") and second == PPTX_SLIDE_TEXT[-1]


@pytest.mark.parametrize("strings", ["inline", "shared"])
def test_a_workbook_gives_back_its_cells_wherever_they_keep_their_text(strings: str) -> None:
    text, unreadable = text_of(XLSX, synthesis.xlsx_bytes(SAID, 2, strings))
    assert unreadable is None and text is not None and SAID in text


def test_a_pdf_gives_back_its_text_layer() -> None:
    text, unreadable = text_of(PDF, synthesis.pdf_bytes("text", SAID))
    assert unreadable is None and text is not None and SAID in text


@pytest.mark.parametrize("media_type", ["text/plain", "text/markdown", "application/json"])
def test_a_text_format_is_its_bytes(media_type: str) -> None:
    assert text_of(media_type, f"# {SAID}\n".encode()) == (f"# {SAID}\n", None)


def test_a_format_the_family_cannot_read_is_said_so() -> None:
    assert text_of(DOCX, synthesis.docx_bytes(SAID)) == (
        None,
        f"the files family reads no {DOCX} draft",
    )


@settings(max_examples=30, deadline=None)
@given(data=st.binary(max_size=256), media_type=st.sampled_from([PPTX, XLSX, PDF, "text/csv"]))
def test_bytes_that_do_not_open_are_one_line_never_a_traceback(
    data: bytes, media_type: str
) -> None:
    text, unreadable = text_of(media_type, data)
    assert (text is None) != (unreadable is None)
    if unreadable is not None:
        assert "\n" not in unreadable and len(unreadable) <= 300


class _Store:
    """A Host's File store as the family's port sees it, holding one generated draft."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def put(self, file_id: str, name: str, media_type: str, data: bytes, origin: str) -> None: ...

    def assign_role(self, role: str) -> None: ...

    def replace(self, file_id: str, data: bytes) -> None: ...

    def roles(self) -> list[str]:
        return []

    def generated(self) -> list[GeneratedFile]:
        return [
            GeneratedFile(
                file_id="d1",
                name="note.txt",
                media_type="text/plain",
                status="draft",
                owner="agent:a",
                readable_by=["user:u"],
            )
        ]


class _StoreWithContent(_Store):
    def content(self, file_id: str) -> bytes | None:
        return self.data if file_id == "d1" else None


def test_a_store_that_gives_no_bytes_still_runs_and_the_draft_is_said_unread() -> None:
    [unread] = setup._texts(_Store(SAID.encode()))
    assert (unread.text, unread.unreadable) == (None, "the Host's File store gives no bytes for it")
    [read] = setup._texts(_StoreWithContent(SAID.encode()))
    assert (read.file_id, read.name, read.text, read.unreadable) == ("d1", "note.txt", SAID, None)
