"""A Case's input message as the runtime is handed it: its text, and the Files it references.

The loader refuses a message of no parts (``"content": []``), but the port is the Host's to
call directly too: such a message hands the runtime an empty text, never a fault of its own.
"""

from __future__ import annotations

from eval_core.hosts import FilePart, TextPart
from eval_host_agent_runtime.ports import message


def test_a_message_of_one_text_is_that_text() -> None:
    assert message("user", [TextPart(text="Where is order 4471?")]) == {
        "role": "user",
        "content": "Where is order 4471?",
    }


def test_a_message_of_no_parts_is_an_empty_text() -> None:
    assert message("user", []) == {"role": "user", "content": ""}


def test_a_message_with_a_file_names_it_beside_its_text() -> None:
    parts = [
        TextPart(text="The invoice is attached."),
        FilePart(file_id="f-1", media_type="application/pdf", name="invoice.pdf"),
        TextPart(text="Please check the total."),
    ]
    assert message("user", parts) == {
        "role": "user",
        "content": "The invoice is attached.\nPlease check the total.",
        "files": [{"fileId": "f-1", "mediaType": "application/pdf", "name": "invoice.pdf"}],
    }
