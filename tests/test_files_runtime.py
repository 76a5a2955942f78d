"""The runtime's File code on real documents: extraction limits, the store, the File Tools."""

from __future__ import annotations

import sqlite3

import pytest

from agent_runtime.files import documents
from agent_runtime.files.documents import DocumentRefused, extract
from agent_runtime.files.store import MemoryFileStore, SqlFileStore, digest
from agent_runtime.files.tools import FileTools
from agent_runtime.model import ToolCallRequest
from agent_runtime.store.storage import Template
from agent_runtime.tools import ToolOutcome
from eval_expectations_files import synthesis


class Nothing:
    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        return ToolOutcome("failed", reason=f"unscripted {call.name}")


@pytest.mark.parametrize(
    ("media_type", "data", "reason"),
    [
        (documents.PDF, synthesis.pdf_bytes("encrypted", None), "encrypted"),
        (documents.PDF, synthesis.pdf_bytes("malformed", None), "unreadable"),
        (documents.DOCX, synthesis.docx_bytes(None, variant="malformed"), "unreadable"),
        (documents.DOCX, synthesis.docx_bytes(None, variant="empty"), "no_text_layer"),
        (documents.DOCX, synthesis.docx_bytes(None, variant="entry-limit"), "resource_limit"),
        (documents.DOCX, synthesis.docx_bytes(None, variant="external-dtd"), "unreadable"),
        ("text/plain", b"", "no_text_layer"),
        ("image/png", b"\x89PNG", "image_not_extractable"),
        ("application/zip", b"PK", "unsupported_media_type"),
    ],
)
def test_unreadable_documents_are_refused(media_type: str, data: bytes, reason: str) -> None:
    with pytest.raises(DocumentRefused) as refused:
        extract(media_type, data)
    assert refused.value.reason == reason


def test_over_limit_bytes_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_BYTES", 10)
    with pytest.raises(DocumentRefused, match="resource_limit"):
        extract("text/plain", b"more than ten bytes")


def test_office_text_is_read_past_any_preview() -> None:
    docx = extract(documents.DOCX, synthesis.docx_bytes("Last clause.", 100))
    assert docx.text.endswith("Last clause.")
    xlsx = extract(documents.XLSX, synthesis.xlsx_bytes("Closing 5", 300))
    assert "Inventory item 300\nClosing 5\n## Visible summary" in xlsx.text
    assert "Salaries" not in xlsx.text  # the hidden sheet is not the document's text
    pptx = extract(documents.PPTX, synthesis.pptx_bytes("Notes only."))
    assert "Notes only." in pptx.text


def test_pdf_pages_have_sizes_text_and_a_token_estimate() -> None:
    mixed = extract(documents.PDF, synthesis.pdf_bytes("mixed", "Typed words here."))
    assert [(p.width, p.height, p.has_text) for p in mixed.pages] == [
        (1224, 1584, True),
        (840, 1188, False),
    ]
    assert [p.tokens for p in mixed.pages] == [2586, 1331]
    assert (mixed.text, mixed.text_refusal) == ("", "needs_ocr")


@pytest.mark.parametrize("durable", [False, True])
def test_replacing_bytes_keeps_the_original_blob(durable: bool) -> None:
    template = Template() if durable else None
    store = SqlFileStore(template.fresh()) if template else MemoryFileStore()
    store.put("f", "f.txt", "text/plain", b"one", origin="library", owner="user:u")
    store.replace_bytes("f", b"two")
    current = store.get("f")
    assert current is not None and current.data == b"two" and current.sha256 == digest(b"two")
    if isinstance(store, SqlFileStore):
        blobs = {r[0] for r in store.conn.execute("SELECT sha256 FROM file_blobs")}
        assert digest(b"one") in blobs
    with pytest.raises((ValueError, sqlite3.IntegrityError)):
        store.put("f", "f.txt", "text/plain", b"three", origin="library", owner="user:u")


def test_a_file_replaced_after_a_read_is_refused_on_re_read() -> None:
    store = MemoryFileStore()
    scan = synthesis.pdf_bytes("scan", None)
    store.put("s", "s.pdf", documents.PDF, scan, origin="library", owner="user:u")
    tools = FileTools(Nothing(), store, requester="u", principal="agent:support")
    first = tools.execute(ToolCallRequest("1", "file_read", {"fileId": "s"}))
    assert first.status == "succeeded" and first.output["attached"] is True
    assert first.output["textRefusal"] == "needs_ocr" and first.attach == ("s",)
    store.replace_bytes("s", synthesis.pdf_bytes("malformed", None))  # the user uploads over it
    second = tools.execute(ToolCallRequest("2", "file_read", {"fileId": "s"}))
    assert second.status == "succeeded" and second.output["textRefusal"] == "unreadable"


def test_file_create_shares_with_assigned_roles_not_the_souls() -> None:
    store = MemoryFileStore()
    store.assign_role("agent:records-readonly", "records")
    tools = FileTools(Nothing(), store, requester="eval", principal="agent:records-readonly")
    made = tools.execute(
        ToolCallRequest("1", "file_create", {"filename": "a", "format": "markdown", "content": "A"})
    )
    assert made.status == "succeeded"
    [generated] = [f for f in store.files() if f.origin == "generated"]
    assert store.shares(generated.file_id) == ["role:records", "user:eval"]
    assert generated.status == "draft"
    other = FileTools(Nothing(), store, requester="someone-else", principal="agent:x")
    denied = other.execute(ToolCallRequest("2", "file_read", {"fileId": generated.file_id}))
    assert denied.status == "failed"
    assert denied.reason == f"not_found: file {generated.file_id} is not available"


def test_other_calls_pass_through() -> None:
    tools = FileTools(Nothing(), MemoryFileStore(), requester="u", principal="agent:a")
    assert (
        tools.execute(ToolCallRequest("1", "lookup_ticket", {})).reason
        == "unscripted lookup_ticket"
    )
