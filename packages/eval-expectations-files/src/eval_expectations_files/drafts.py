"""What a File the Agent generated holds, read from the bytes the Host's File store keeps.

The runtime's ``file_create`` answers with a name, a type and a size: its word. This reads the
draft itself, with readers the runtime does not use (python-pptx, openpyxl and pypdf, not the
runtime's own document extractor), so a draft that lost the lines the model gave it is seen
here whatever the Tool said. A format this family cannot read is said so, never guessed.
"""

from __future__ import annotations

import io
from typing import Any

from eval_expectations_files.fixtures import PDF, PPTX, XLSX

TEXTUAL = ("text/", "application/json", "application/xml", "application/yaml")
"""Media types whose bytes are their text (UTF-8): the text, Markdown, CSV, JSON, XML and YAML
drafts."""


def text_of(media_type: str, data: bytes) -> tuple[str | None, str | None]:
    """(the text a reader of the draft is shown, ``None``) or (``None``, why it is unreadable)."""
    try:
        if media_type.startswith(TEXTUAL):
            return data.decode("utf-8"), None
        if media_type == PPTX:
            return _pptx(data), None
        if media_type == XLSX:
            return _xlsx(data), None
        if media_type == PDF:
            return _pdf(data), None
    except Exception as exc:  # a draft that does not open is what the scorer reports
        said = " ".join(f"{type(exc).__name__}: {exc}".split())
        return None, f"the {media_type} draft does not open: {said}"[:300]
    return None, f"the files family reads no {media_type} draft"


def _pptx(data: bytes) -> str:
    """One block of lines per slide (its shapes' texts, then its notes; a blank shape shows
    nothing), the slides parted by a blank line: as file_create is given a deck's slides."""
    from pptx import Presentation

    slides: list[str] = []
    for slide in Presentation(io.BytesIO(data)).slides:
        lines = [text for shape in slide.shapes for text in _shape_text(shape)]
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            lines.append(slide.notes_slide.notes_text_frame.text)
        slides.append("\n".join(line for line in lines if line))
    return "\n\n".join(slides)


def _shape_text(shape: Any) -> list[str]:
    if getattr(shape, "has_text_frame", False):
        return [shape.text_frame.text]
    if getattr(shape, "has_table", False):
        return [cell.text for row in shape.table.rows for cell in row.cells]
    return []


def _xlsx(data: bytes) -> str:
    from openpyxl import load_workbook  # type: ignore[import-untyped]

    workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        return "\n".join(
            "\t".join("" if v is None else str(v) for v in row)
            for sheet in workbook.worksheets
            for row in sheet.iter_rows(values_only=True)
        )
    finally:
        workbook.close()


def _pdf(data: bytes) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)
