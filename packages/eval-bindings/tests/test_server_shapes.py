"""Loopback fakes of vLLM's and Ollama's Chat Completions, where they differ from llama.cpp.

Each fake is a real HTTP server on 127.0.0.1 that answers 400 to what that server refuses (as
its documentation and request conversion say) and a plain reply to the rest. Every request shape
the OpenAI wire produces for a Host's loop is sent through the real binding to each; the shapes
a server refuses are pinned here as refusals (a one-line ``model_request_rejected``, never
retried), so a change of the wire that makes a new one shows up.

- vLLM: ``tool_choice: "auto"`` needs the server started with ``--enable-auto-tool-choice`` and
  ``--tool-call-parser``; without them, a pin sets ``tool_choice = "required"`` (vLLM >= 0.8.3)
  and ``tool_choice_after_result = "none"``.
- Ollama (``/v1`` compatibility): content parts are ``text`` and ``image_url`` only; an image is a
  base64 ``data:`` URL of JPEG, PNG or WebP; a message without content needs Tool calls; a Tool
  call's arguments must be JSON; ``reasoning_effort`` is high, medium, low or none;
  ``tool_choice`` is not read (accepted, ignored).
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from eval_bindings.endpoint import EndpointBinding
from eval_bindings.wire.options import RequestOptions
from eval_bindings.wire.transport import VendorError
from eval_core._plugins.host import ModelCallRequest
from request_shapes import LOOKUP, shapes

Check = Callable[[dict[str, Any]], str | None]
OK = {
    "model": "test-model-2025-01-01",
    "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 1},
}


def vllm(auto_tool_choice: bool) -> Check:
    """What vLLM's OpenAI server refuses that llama.cpp takes: ``auto`` without its flags."""

    def check(body: dict[str, Any]) -> str | None:
        if not body.get("tools"):
            return None
        choice = body.get("tool_choice", "auto")  # vLLM's default when Tools are offered
        if choice == "auto" and not auto_tool_choice:
            return (
                '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser '
                "to be set"
            )
        if choice not in ("auto", "required", "none") and not isinstance(choice, dict):
            return f"invalid tool_choice {choice!r}"
        return None

    return check


IMAGE = re.compile(r"^data:(image/(jpeg|jpg|png|webp))?;base64,")
EFFORTS = ("high", "medium", "low", "none")


def ollama(body: dict[str, Any]) -> str | None:
    """What Ollama's OpenAI-compatible endpoint refuses when it converts a request."""
    effort = body.get("reasoning_effort")
    if effort is not None and effort not in EFFORTS:
        return f"invalid reasoning value: '{effort}'"
    for message in body["messages"]:
        content, calls = message.get("content"), message.get("tool_calls")
        for call in calls or ():
            try:
                json.loads(call["function"]["arguments"])
            except (ValueError, TypeError):
                return "invalid tool call arguments"
        if isinstance(content, list):
            for part in content:
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "text" and isinstance(part.get("text"), str):
                    continue
                if kind != "image_url":
                    return "invalid message format"
                url = (part.get("image_url") or {}).get("url", "")
                if not IMAGE.match(url):
                    return "invalid image input"
                try:
                    base64.b64decode(IMAGE.sub("", url), validate=True)
                except ValueError:
                    return "invalid message format"
        elif not isinstance(content, str) and calls is None:
            return f"invalid message content type: {type(content).__name__}"
    return None


@pytest.fixture
def fake() -> Iterator[Callable[[Check], tuple[str, list[dict[str, Any]]]]]:
    """``fake(check)`` serves a Chat Completions endpoint refusing what ``check`` names."""
    servers: list[ThreadingHTTPServer] = []

    def start(check: Check) -> tuple[str, list[dict[str, Any]]]:
        seen: list[dict[str, Any]] = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                seen.append(body)
                why = check(body)
                status, answer = (200, OK) if why is None else (400, {"error": why})
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1", seen

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00"
PDF = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer\n%%EOF\n"


def _file(kind: str, media: str, name: str, data: bytes) -> dict[str, Any]:
    return {
        "type": kind,
        "mediaType": media,
        "filename": name,
        "data": base64.b64encode(data).decode(),
    }


def _with(part: dict[str, Any]) -> ModelCallRequest:
    text = {"type": "text", "text": "What does this show?"}
    return ModelCallRequest(
        system="s", messages=[{"role": "user", "content": [text, part]}], tools=[]
    )


def loop_shapes() -> dict[str, ModelCallRequest]:
    """The shapes of a Host's tool loop (:func:`request_shapes.shapes`), and an image part."""
    return {**shapes(), "a PNG image": _with(_file("image", "image/png", "shot.png", PNG))}


def send(kit: Any, url: str, request: ModelCallRequest, **pin: Any) -> Any:
    """One call through the real binding: the reply (or the VendorError raised) and the calls."""
    options = RequestOptions(**pin.pop("options", {}))
    endpoint = EndpointBinding(
        replace(kit.pin("openai", url, **pin), options=options), kit.FAKE_KEY, base_delay=0.001
    )
    session = endpoint.session(None)  # type: ignore[arg-type]
    try:
        return session.complete(request), session.calls
    except VendorError as fault:
        return fault, session.calls
    finally:
        endpoint.close()


SERVERS = {
    "vllm --enable-auto-tool-choice": (vllm(auto_tool_choice=True), {}),
    "vllm, tool_choice required": (
        vllm(auto_tool_choice=False),
        {"tool_choice": "required", "tool_choice_after_result": "none"},
    ),
    "ollama": (ollama, {}),
}


@pytest.mark.parametrize("server", list(SERVERS))
def test_every_loop_shape_the_wire_produces_is_accepted(fake: Any, kit: Any, server: str) -> None:
    check, options = SERVERS[server]
    url, seen = fake(check)
    for name, request in loop_shapes().items():
        reply, calls = send(kit, url, request, options=dict(options))
        assert not isinstance(reply, VendorError), (server, name, str(reply))
        assert reply.text == "ok" and calls == 1, (server, name)
    assert len(seen) == len(loop_shapes())


def test_vllm_without_auto_tool_choice_refuses_the_default_pin_in_one_line(
    fake: Any, kit: Any
) -> None:
    url, _ = fake(vllm(auto_tool_choice=False))
    fault, calls = send(kit, url, loop_shapes()["first call, Tools offered"])
    assert isinstance(fault, VendorError) and fault.reason == "model_request_rejected"
    assert "--enable-auto-tool-choice" in str(fault) and "\n" not in str(fault)
    assert calls == 1  # a 4xx naming the request is never retried
    reply, _ = send(kit, url, loop_shapes()["first call, no Tools"])  # no Tools: nothing to choose
    assert not isinstance(reply, VendorError)


@pytest.mark.parametrize(
    ("name", "request_", "why"),
    [
        ("a GIF image", _with(_file("image", "image/gif", "a.gif", GIF)), "invalid image input"),
        ("a PDF", _with(_file("file", "application/pdf", "a.pdf", PDF)), "invalid message format"),
        (
            "unparsable Tool-call arguments echoed back",
            ModelCallRequest(
                system="s",
                messages=[
                    {"role": "user", "content": "u"},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {"call_id": "c1", "name": "lookup_order", "arguments": "{4471"}
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "name": "lookup_order", "content": "x"},
                ],
                tools=[LOOKUP],
            ),
            "invalid tool call arguments",
        ),
    ],
)
def test_what_ollama_refuses_of_the_wires_shapes_is_one_rejected_call(
    fake: Any, kit: Any, name: str, request_: ModelCallRequest, why: str
) -> None:
    """Shapes llama.cpp takes that Ollama refuses: a GIF (JPEG, PNG, WebP only), a PDF ``file``
    part (text and images only), and a Tool call whose raw arguments (kept as the model sent
    them) are not JSON. Each errs the Trial ``model_request_rejected`` naming why, not retried."""
    url, _ = fake(ollama)
    fault, calls = send(kit, url, request_)
    assert isinstance(fault, VendorError), name
    assert fault.reason == "model_request_rejected" and why in str(fault), (name, str(fault))
    assert calls == 1


def test_ollama_takes_its_own_efforts_only(fake: Any, kit: Any) -> None:
    url, seen = fake(ollama)
    request = loop_shapes()["first call, no Tools"]
    reply, _ = send(kit, url, request, effort="low")
    assert not isinstance(reply, VendorError) and seen[-1]["reasoning_effort"] == "low"
    refused, _ = send(kit, url, request, effort="minimal")
    assert isinstance(refused, VendorError) and "invalid reasoning value" in str(refused)
