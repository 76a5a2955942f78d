"""The files Cases over a real wire: the provider-prompt kinds score the bytes the vendor received.

The shipped Cases that attach a PDF and an image are swept through the real runtime, the model
reached over each wire format on loopback (a vendor answering as each Case's script says). They
pass; with one byte of every attached File flipped in the runtime, or with a wire that sends
every File as text, the exact-bytes Expectation fails (a verdict, not an error): the record is
read back from the body on the wire, not from the request the runtime handed the binding.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from agent_runtime.files import attachments
from eval_bindings.wire import files
from tests.conftest import Sweep

CASES = [
    "l3-file-pdf-text-is-sent-with-its-exact-bytes",
    "files-text-and-image-attachments-reach-the-provider-prompt",
]


def flip_one_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runtime attaches every binary File with its middle byte flipped."""
    real = attachments._binary

    def flipped(stored: Any) -> dict[str, Any]:
        part = real(stored)
        data = bytearray(base64.b64decode(part["data"]))
        data[len(data) // 2] ^= 0x01
        return {**part, "data": base64.b64encode(bytes(data)).decode("ascii")}

    monkeypatch.setattr(attachments, "_binary", flipped)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_the_files_cases_pass_over_the_wire_on_the_bytes_it_carried(
    sweep: Sweep, wire: str
) -> None:
    card, vendor = sweep.over_the_wire(CASES, wire)
    found = {t.case_id: (t.outcome, t.error, t.expectations) for t in card.trials}
    assert {c: o for c, (o, _, _) in found.items()} == dict.fromkeys(CASES, "passed"), found
    kinds = {
        p["type"]
        for body in vendor.bodies
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for p in m["content"]
    }  # the Files went as the vendor's own binary parts
    assert kinds >= ({"file", "image_url"} if wire == "openai" else {"document", "image"})


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_flipped_byte_fails_the_exact_bytes_expectation(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch, wire: str
) -> None:
    flip_one_byte(monkeypatch)
    card, _ = sweep.over_the_wire(CASES, wire)
    failing = {t.case_id: {e.kind for e in t.expectations if not e.passed} for t in card.trials}
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(CASES, "failed"), failing
    assert failing == {  # a PDF, like an image, goes as its bytes alone: nothing else names it
        CASES[0]: {"provider_prompt_file_exact", "prompt_attaches"},
        CASES[1]: {"provider_prompt_file_exact", "prompt_attaches"},
    }


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_wire_that_sends_files_as_text_fails_the_exact_bytes_expectation(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch, wire: str
) -> None:
    """The record is the body on the wire, not the request the runtime handed the binding."""
    monkeypatch.setattr(files, "sent_as", lambda part: "text")
    card, _ = sweep.over_the_wire(CASES, wire)
    failing = {t.case_id: {e.kind for e in t.expectations if not e.passed} for t in card.trials}
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(CASES, "failed"), failing
    assert all("provider_prompt_file_exact" in kinds for kinds in failing.values()), failing
