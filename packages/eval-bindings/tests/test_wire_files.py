"""Files go over the wire as the vendors define them, and are recorded as the vendor got them.

A loopback server of each wire receives a request with a PDF, an image, a text File and a File
of a type no vendor takes as bytes; the test decodes the body the server received and compares
bytes, media type and file name. The session's record is read back from that same body, so it
carries the digest of exactly the bytes on the wire, like the scripted binding's record does.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from eval_bindings.endpoint import EndpointBinding
from eval_core._case.sent import parts_of, sent
from eval_core._plugins.host import ModelCallRequest

PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\n\x00\xff trailer\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
CSV = b"sku,qty\ntulip,12\n"
ZIP = b"PK\x03\x04\x14\x00\x00\x00"


def part(kind: str, media: str, name: str, data: bytes) -> dict[str, Any]:
    encoded = base64.b64encode(data).decode()
    return {"type": kind, "mediaType": media, "filename": name, "data": encoded}


REQUEST = ModelCallRequest(
    system="You are a careful helper.",
    messages=[
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Here is the invoice and a photo."},
                part("file", "application/pdf", "invoice.pdf", PDF),
                {"type": "text", "text": "[File invoice.pdf (inv-1)]\nInvoice INV-7 totals 9 EUR."},
                part("image", "image/png", "damage.png", PNG),
                part("file", "text/csv", "stock.csv", CSV),
                part("file", "application/zip", "bundle.zip", ZIP),
            ],
        }
    ],
    tools=[],
)
OPENAI_OK = {
    "model": "test-model-2025-01-01",
    "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 1},
}
ANTHROPIC_OK = {
    "model": "test-model-2025-01-01",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 10, "output_tokens": 1},
}


def received(kit: Any, vendor: Any, wire: str) -> tuple[list[Any], list[Any]]:
    """The user content the server received, and the session's record of the request."""
    server = vendor(kit.Reply(body=OPENAI_OK if wire == "openai" else ANTHROPIC_OK))
    binding = EndpointBinding(kit.pin(wire, server.url), kit.FAKE_KEY)
    session = binding.session(kit.make_case())
    session.complete(REQUEST)
    binding.close()
    (request,) = server.requests
    user = [m for m in request["json"]["messages"] if m["role"] == "user"]
    return user[0]["content"], session.sent


def data_url(url: str) -> tuple[str, bytes]:
    head, _, data = url.partition(",")
    assert head.startswith("data:") and head.endswith(";base64"), head
    return head[len("data:") : -len(";base64")], base64.b64decode(data, validate=True)


def scored_alike(record: Any) -> None:
    """The wire's record has the scripted binding's parts (an image loses only its name)."""
    scripted = parts_of(sent(REQUEST.system, REQUEST.messages, []))
    wire = parts_of(record)
    assert wire[:4] == scripted[:4]  # the instructions, the text, the PDF, the label
    assert wire[4] == scripted[4].__class__(**{**_fields(scripted[4]), "filename": None})
    assert [p.type for p in wire[5:]] == ["text", "text"]  # neither vendor takes CSV or ZIP
    pdf, image = wire[2], wire[4]
    assert (pdf.sha256, pdf.size) == (hashlib.sha256(PDF).hexdigest(), len(PDF))
    assert (image.sha256, image.size) == (hashlib.sha256(PNG).hexdigest(), len(PNG))


def _fields(p: Any) -> dict[str, Any]:
    return {f: getattr(p, f) for f in p.__struct_fields__}


def test_openai_sends_image_url_and_file_parts_with_the_exact_bytes(kit: Any, vendor: Any) -> None:
    content, record = received(kit, vendor, "openai")
    text, pdf, label, image, csv, zipped = content
    assert text == {"type": "text", "text": "Here is the invoice and a photo."}
    assert pdf["type"] == "file" and pdf["file"]["filename"] == "invoice.pdf"
    assert data_url(pdf["file"]["file_data"]) == ("application/pdf", PDF)
    assert label["text"].startswith("[File invoice.pdf (inv-1)]")
    assert image["type"] == "image_url"
    assert data_url(image["image_url"]["url"]) == ("image/png", PNG)
    assert csv == {"type": "text", "text": "[File stock.csv]\nsku,qty\ntulip,12\n"}
    assert (
        zipped["type"] == "text" and "bundle.zip (application/zip) was not sent" in zipped["text"]
    )
    scored_alike(record[0])


def test_anthropic_sends_image_and_document_blocks_with_the_exact_bytes(
    kit: Any, vendor: Any
) -> None:
    content, record = received(kit, vendor, "anthropic")
    text, pdf, label, image, csv, zipped = content
    assert text == {"type": "text", "text": "Here is the invoice and a photo."}
    assert pdf["type"] == "document" and pdf["title"] == "invoice.pdf"
    assert pdf["source"]["type"] == "base64"
    assert pdf["source"]["media_type"] == "application/pdf"
    assert base64.b64decode(pdf["source"]["data"], validate=True) == PDF
    assert label["text"].startswith("[File invoice.pdf (inv-1)]")
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"], validate=True) == PNG
    assert csv == {"type": "text", "text": "[File stock.csv]\nsku,qty\ntulip,12\n"}
    assert (
        zipped["type"] == "text" and "bundle.zip (application/zip) was not sent" in zipped["text"]
    )
    scored_alike(record[0])


def test_a_message_without_files_stays_plain_text_on_both_wires(kit: Any, vendor: Any) -> None:
    from eval_bindings.wire import anthropic, openai

    plain = ModelCallRequest(system="s", messages=[{"role": "user", "content": "hi"}], tools=[])
    assert openai.encode("m", plain, 8)["messages"][1] == {"role": "user", "content": "hi"}
    assert anthropic.encode("m", plain, 8)["messages"][0]["content"] == [
        {"type": "text", "text": "hi"}
    ]
