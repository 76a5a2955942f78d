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

import msgspec
import pytest

from agent_runtime import attachments
from eval_bindings.endpoint import EndpointBinding
from eval_bindings.pins import ModelPin
from eval_bindings.wire import files
from eval_core._loading.corpus import Corpus
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from eval_core._running.runner import run_sweep
from eval_core._running.scorecard import Scorecard
from tests.conftest import ScriptedVendor

CASES = [
    "l3-file-pdf-text-is-sent-with-its-exact-bytes",
    "files-text-and-image-attachments-reach-the-provider-prompt",
]


def swept(corpus: Corpus, host: Host, plugins: PluginSet, wire: str) -> tuple[Scorecard, Any]:
    vendor = ScriptedVendor([msgspec.to_builtins(corpus.case(c)) for c in CASES])
    pin = ModelPin(
        name=f"loopback-{wire}",
        wire="openai" if wire == "openai" else "anthropic",
        model="loopback-2025-01-01",
        base_url=vendor.url,
        credential_env="UNUSED",
        dated=True,
    )
    binding = EndpointBinding(pin, "sk-loopback-0123456789abcdef", base_delay=0.001)
    try:
        return run_sweep(corpus, host, binding, plugins, select=CASES), vendor
    finally:
        binding.close()
        vendor.close()


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
    corpus: Corpus, real_host: Host, plugins: PluginSet, wire: str
) -> None:
    card, vendor = swept(corpus, real_host, plugins, wire)
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
    corpus: Corpus,
    real_host: Host,
    plugins: PluginSet,
    monkeypatch: pytest.MonkeyPatch,
    wire: str,
) -> None:
    flip_one_byte(monkeypatch)
    card, _ = swept(corpus, real_host, plugins, wire)
    failing = {t.case_id: {e.kind for e in t.expectations if not e.passed} for t in card.trials}
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(CASES, "failed"), failing
    assert failing == {  # a PDF, like an image, goes as its bytes alone: nothing else names it
        CASES[0]: {"provider_prompt_file_exact", "prompt_attaches"},
        CASES[1]: {"provider_prompt_file_exact", "prompt_attaches"},
    }


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_wire_that_sends_files_as_text_fails_the_exact_bytes_expectation(
    corpus: Corpus,
    real_host: Host,
    plugins: PluginSet,
    monkeypatch: pytest.MonkeyPatch,
    wire: str,
) -> None:
    """The record is the body on the wire, not the request the runtime handed the binding."""
    monkeypatch.setattr(files, "sent_as", lambda part: "text")
    card, _ = swept(corpus, real_host, plugins, wire)
    failing = {t.case_id: {e.kind for e in t.expectations if not e.passed} for t in card.trials}
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(CASES, "failed"), failing
    assert all("provider_prompt_file_exact" in kinds for kinds in failing.values()), failing
