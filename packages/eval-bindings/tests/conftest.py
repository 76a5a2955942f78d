"""Loopback vendor servers and a minimal port-level Host for the real-binding tests.

The servers are real HTTP servers on 127.0.0.1 (``ThreadingHTTPServer`` in a thread) that
speak a wire format or misbehave on purpose; nothing of ours is mocked. The Host here is a
port implementation the size of a test (call the model, run each Tool call as an echo, feed the
result back), so the binding is exercised through the real ``run_trial``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from eval_bindings.pins import ModelPin
from eval_core._case.case import CaseBase, Message, ToolDecl
from eval_core._case.evidence import Evidence, ToolCall
from eval_core._case.kinds import Expectation
from eval_core._plugins.host import ContextRules, ModelCallRequest, ModelSession

FAKE_KEY = "sk-test-FAKE-4f1c9b2e7d6a"


@dataclass
class Reply:
    """One scripted HTTP answer: ``body`` dict is JSON-encoded; ``truncate`` cuts it short;
    ``trickle`` sends it one byte per that many seconds; ``trickle_headers`` does the same
    with its status line and headers."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    truncate: bool = False
    trickle: float = 0.0
    trickle_headers: float = 0.0


@dataclass
class Vendor:
    url: str
    replies: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    served: int = 0

    def next_reply(self) -> Reply:
        index = min(self.served, len(self.replies) - 1)
        self.served += 1
        return self.replies[index]


def _handler(vendor: Vendor) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            raw = self.rfile.read(length)
            vendor.requests.append(
                {"path": self.path, "headers": dict(self.headers), "json": json.loads(raw)}
            )
            reply = vendor.next_reply()
            if reply.delay:
                time.sleep(reply.delay)
            body = reply.body
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            if reply.trickle_headers:
                head = f"HTTP/1.1 {reply.status} OK\r\nContent-Type: application/json\r\n"
                try:
                    for index in range(len(head)):
                        self.wfile.write(head[index : index + 1].encode())
                        self.wfile.flush()
                        time.sleep(reply.trickle_headers)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True
                return
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data) + (50 if reply.truncate else 0)))
                self.end_headers()
                if reply.trickle:
                    for index in range(len(data)):
                        self.wfile.write(data[index : index + 1])
                        self.wfile.flush()
                        time.sleep(reply.trickle)
                else:
                    self.wfile.write(data)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return
            if reply.truncate:
                self.close_connection = True

    return Handler


@pytest.fixture
def vendor() -> Iterator[Any]:
    """``vendor(*replies)`` starts a loopback server answering them in order (the last repeats)."""
    servers: list[ThreadingHTTPServer] = []

    def start(*replies: Reply) -> Vendor:
        state = Vendor(url="", replies=list(replies) or [Reply(body={})])
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
        server.daemon_threads = True
        state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        servers.append(server)
        return state

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def pin(wire: str, url: str, **extra: Any) -> ModelPin:
    values: dict[str, Any] = {
        "name": f"test-{wire}",
        "wire": wire,
        "model": "test-model-2025-01-01",
        "base_url": url,
        "credential_env": "TEST_KEY",
        "dated": True,
        "price_input_per_mtok": 1.0,
        "price_output_per_mtok": 2.0,
        "timeout_s": 5.0,
    }
    values.update(extra)
    return ModelPin(**values)


ECHO = ToolDecl(
    name="echo",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
    description="Echo the text back.",
)


def make_case(case_id: str = "c1", expect: Sequence[Expectation] = ()) -> CaseBase:
    return CaseBase(
        id=case_id,
        tier="l2",
        agent="helper",
        input=[Message(role="user", content="Say hello, then echo 'hi'.")],
        script=[],
        expect=list(expect),
        tools=[ECHO],
    )


class LoopHost:
    """The smallest Host: one system prompt, Tools run as echo, up to 4 model calls."""

    name = "test-loop"
    tiers = frozenset({"l2"})
    system = "You are a careful helper."

    def agents(self) -> frozenset[str]:
        return frozenset({"helper"})

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return {}

    def context_rules(self) -> ContextRules:
        return ContextRules(allowed=frozenset(), soul_owned=frozenset())

    def given_text(self, case: CaseBase) -> Sequence[str]:
        return [self.system]

    def services(self, tier: str) -> Sequence[type]:
        return ()

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> _LoopTrial:
        return _LoopTrial(self.system, case, model)

    def close(self) -> None:
        pass


class _LoopTrial:
    """One Trial of the :class:`LoopHost`: no services, a loop of at most 4 model calls."""

    def __init__(self, system: str, case: CaseBase, model: ModelSession) -> None:
        self.system, self.case, self.model = system, case, model

    def services(self) -> Sequence[object]:
        return ()

    def run(self) -> Evidence:
        case, model = self.case, self.model
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Say hello."}]
        calls: list[ToolCall] = []
        text: str | None = None
        for _ in range(4):
            reply = model.complete(
                ModelCallRequest(system=self.system, messages=messages, tools=case.tools)
            )
            if not reply.tool_calls:
                text = reply.text
                break
            messages.append(
                {
                    "role": "assistant",
                    "content": reply.text,
                    "tool_calls": [
                        {"call_id": c.call_id, "name": c.name, "arguments": c.arguments}
                        for c in reply.tool_calls
                    ],
                }
            )
            for c in reply.tool_calls:
                calls.append(ToolCall(call_id=c.call_id, name=c.name, arguments=c.arguments))
                messages.append(
                    {"role": "tool", "call_id": c.call_id, "name": c.name, "content": '{"ok":true}'}
                )
        return Evidence(
            tier="l2",
            system_prompt=self.system,
            output_text=text,
            output_kind="text" if text is not None else "none",
            tool_calls=calls,
            loop_status="completed",
            model_calls=model.calls,
            usage=model.usage,
        )

    def close(self) -> None:
        pass


@pytest.fixture
def loop_host() -> LoopHost:
    return LoopHost()


@pytest.fixture
def tmp_models(tmp_path: Path) -> Path:
    return tmp_path / "models.toml"


@pytest.fixture
def kit() -> Any:
    """The helpers above, for test modules (``--import-mode=importlib`` cannot import conftest)."""
    import types

    return types.SimpleNamespace(
        Reply=Reply,
        pin=pin,
        make_case=make_case,
        closed_port=closed_port,
        FAKE_KEY=FAKE_KEY,
        ECHO=ECHO,
    )
