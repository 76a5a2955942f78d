"""The bindings' HTTP on httpx: kept connections, reconnects, bodies, bounds.

Each test runs a real loopback HTTP/1.1 server that keeps connections alive (unlike the
HTTP/1.0 vendors of ``conftest``) and counts what it saw: sockets accepted, sockets closed,
requests served. What the binding did is read back from those counts, never assumed.
"""

from __future__ import annotations

import gzip
import json
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bench.loopback import loopback_certificate
from eval_bindings.endpoint import EndpointBinding
from eval_bindings.wire import transport
from eval_bindings.wire.transport import Connections, VendorError, post_json
from eval_core._plugins.host import ModelCallRequest

REQUEST = ModelCallRequest(system="s", messages=[{"role": "user", "content": "hi"}], tools=[])
BODY = {"model": "m", "messages": []}
REPLY = {
    "model": "test-model-2025-01-01",
    "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 3},
}

Answer = Callable[["Handler", dict[str, Any]], None]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless an answer says otherwise
    origin: Origin

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no Nagle waits
        with self.origin.lock:
            self.origin.accepted += 1

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        with self.origin.lock:
            self.origin.served += 1
        try:
            self.origin.answer(self, body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def send(self, data: bytes, *, chunks: int = 0, headers: dict[str, str] | None = None) -> None:
        """``data`` with a Content-Length, or chunked in ``chunks`` pieces."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if not chunks:
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        step = -(-len(data) // chunks)
        for start in range(0, len(data), step):
            piece = data[start : start + step]
            self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")


class Origin(ThreadingHTTPServer):
    """A loopback server answering each POST with ``answer``; counts sockets and requests."""

    daemon_threads = True
    request_queue_size = 64  # 16 threads connect at once (socketserver's default backlog is 5)

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.lock = threading.Lock()
        self.accepted = self.closed = self.served = 0
        self.release = threading.Event()  # set at teardown: a stalled answer ends
        handler = type("Bound", (Handler,), {"origin": self})
        super().__init__(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1/chat/completions"
        threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def shutdown_request(self, request: Any) -> None:
        super().shutdown_request(request)
        with self.lock:
            self.closed += 1

    def wait_closed(self, count: int, within: float = 2.0) -> None:
        ends = time.monotonic() + within
        while self.closed < count and time.monotonic() < ends:
            time.sleep(0.002)
        assert self.closed >= count, (self.closed, count)


@pytest.fixture
def origin() -> Iterator[Callable[[Answer], Origin]]:
    servers: list[Origin] = []

    def start(answer: Answer) -> Origin:
        servers.append(Origin(answer))
        return servers[-1]

    yield start
    for server in servers:
        server.release.set()
        server.shutdown()
        server.server_close()


def reply(handler: Handler, body: dict[str, Any]) -> None:
    handler.send(json.dumps(REPLY).encode())


def binding(url: str, kit: Any) -> EndpointBinding:
    return EndpointBinding(kit.pin("openai", url.removesuffix("/chat/completions")), kit.FAKE_KEY)


def test_sixteen_threads_share_one_binding_on_at_most_sixteen_connections(
    origin: Any, kit: Any
) -> None:
    def slow_reply(handler: Handler, body: dict[str, Any]) -> None:
        time.sleep(0.01)  # the threads overlap, as Trials of --jobs 16 do
        reply(handler, body)

    server = origin(slow_reply)
    b = binding(server.url, kit)
    threads, calls, failures = 16, 5, []
    start = threading.Barrier(threads)

    def trial() -> None:
        start.wait()
        session = b.session(kit.make_case())
        for _ in range(calls):
            try:
                assert session.complete(REQUEST).text == "ok"
            except Exception as exc:  # recorded, asserted below
                failures.append(exc)

    workers = [threading.Thread(target=trial) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert failures == []
    assert server.served == threads * calls  # each call sent once
    assert 2 <= server.accepted <= threads  # one kept connection per thread, none per call
    b.close()
    server.wait_closed(server.accepted)  # close() closed every thread's connection


def test_a_content_length_reply_and_a_chunked_one_keep_the_connection(origin: Any) -> None:
    text = "z" * 50_000
    calls = iter(range(6))

    def alternate(handler: Handler, body: dict[str, Any]) -> None:
        data = json.dumps({"n": body["n"], "text": text}).encode()
        handler.send(data, chunks=7 if next(calls) % 2 else 0)

    server = origin(alternate)
    with Connections() as client:
        for n in range(6):
            answer = post_json(client, server.url, {}, {**BODY, "n": n}, 5.0)
            assert answer == {"n": n, "text": text}
    assert (server.served, server.accepted) == (6, 1)


def test_a_gzip_chunked_reply_is_inflated(origin: Any) -> None:
    def gzipped(handler: Handler, body: dict[str, Any]) -> None:
        handler.send(gzip.compress(b'{"ok": true}'), chunks=3, headers={"Content-Encoding": "gzip"})

    server = origin(gzipped)
    with Connections() as client:
        assert post_json(client, server.url, {}, BODY, 5.0) == {"ok": True}
        assert post_json(client, server.url, {}, BODY, 5.0) == {"ok": True}
    assert server.accepted == 1


def test_an_idle_connection_the_server_closed_is_replaced_and_nothing_is_sent_twice(
    origin: Any,
) -> None:
    def then_hang_up(handler: Handler, body: dict[str, Any]) -> None:
        reply(handler, body)  # no "Connection: close": the client believes it is kept...
        handler.close_connection = True  # ...and the server closes it once idle

    server = origin(then_hang_up)
    with Connections() as client:
        for n in range(4):
            assert post_json(client, server.url, {}, BODY, 5.0)["usage"]
            server.wait_closed(n + 1)  # the server has closed it before the next call
    assert (server.served, server.accepted) == (4, 4)


def test_a_server_that_hangs_up_after_reading_the_request_is_not_sent_it_again(
    origin: Any,
) -> None:
    def hang_up(handler: Handler, body: dict[str, Any]) -> None:
        handler.close_connection = True  # read the request, answer nothing

    server = origin(hang_up)
    with Connections() as client, pytest.raises(VendorError) as caught:
        post_json(client, server.url, {}, BODY, 5.0)
    assert caught.value.reason == "model_malformed_response"
    assert "closed the connection mid-reply" in str(caught.value)
    assert server.served == 1


@pytest.mark.parametrize(
    "garbage",
    [b"zz\r\n{}\r\n0\r\n\r\n", b"40\r\n" + b'{"partial": "cut', b"-5\r\nabc\r\n0\r\n\r\n"],
    ids=["not-hex", "hang-up-mid-chunk", "negative-size"],
)
def test_broken_chunking_is_malformed(garbage: bytes, origin: Any) -> None:
    def broken(handler: Handler, body: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(garbage)
        handler.close_connection = True

    server = origin(broken)
    with Connections() as client, pytest.raises(VendorError) as caught:
        post_json(client, server.url, {}, BODY, 5.0)
    assert caught.value.reason == "model_malformed_response"


def test_a_streamed_gzip_bomb_is_refused_before_the_server_has_sent_it(origin: Any) -> None:
    bomb = gzip.compress(b"[" + b" " * (16 * 1024 * 1024) + b"]", compresslevel=9)
    assert len(bomb) < 32 * 1024
    finished = threading.Event()

    def stream(handler: Handler, body: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Content-Encoding", "gzip")
        handler.end_headers()
        for start in range(0, len(bomb), 256):  # ~64 chunks, each inflating to ~256 KiB
            piece = bomb[start : start + 256]
            handler.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            handler.wfile.flush()
            time.sleep(0.003)
        handler.wfile.write(b"0\r\n\r\n")
        finished.set()

    server = origin(stream)
    with Connections() as client, pytest.raises(VendorError) as caught:
        post_json(client, server.url, {}, BODY, 5.0, max_bytes=1 << 20)
    assert caught.value.reason == "model_response_too_large"
    assert not finished.is_set()  # refused mid-stream, not after holding the whole reply


@pytest.mark.parametrize("when", ["before-the-status", "mid-body"])
def test_a_stalled_server_is_cut_at_the_deadline(when: str, origin: Any) -> None:
    def stall(handler: Handler, body: dict[str, Any]) -> None:
        if when == "mid-body":
            handler.send_response(200)
            handler.send_header("Content-Length", "100")
            handler.end_headers()
            handler.wfile.write(b'{"started": ')
            handler.wfile.flush()
        handler.server.release.wait(5)  # type: ignore[attr-defined]
        handler.close_connection = True

    server = origin(stall)
    with Connections() as client, pytest.raises(VendorError) as caught:
        started = time.monotonic()  # the call alone: a client's set-up is no part of its deadline
        try:
            post_json(client, server.url, {}, BODY, 0.5)
        finally:
            elapsed = time.monotonic() - started
    assert caught.value.reason == "model_timeout"
    said = "no reply from" if when == "before-the-status" else "did not finish its reply within"
    assert said in str(caught.value) and "0.5s" in str(caught.value)
    # the whole call's deadline: one more read timeout would end it at 1.0 s or later
    assert 0.5 <= elapsed < 0.5 + 0.4


def test_https_verifies_the_certificate_and_keeps_the_connection(
    origin: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = loopback_certificate(tmp_path)
    server = origin(reply)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    url = server.url.replace("http://", "https://")
    with Connections() as client, pytest.raises(VendorError) as caught:
        post_json(client, url, {}, BODY, 5.0)  # the process's own trust store: not this one
    assert caught.value.reason == "model_unreachable"
    assert "CERTIFICATE_VERIFY_FAILED" in str(caught.value)
    assert server.served == 0
    monkeypatch.setattr(transport, "_tls", lambda: ssl.create_default_context(cafile=cert))
    with Connections() as client:
        for _ in range(3):
            assert post_json(client, url, {}, BODY, 5.0)["usage"]
    assert (server.served, server.accepted) == (3, 1)


def test_the_binding_loads_httpx_only_with_its_first_call(origin: Any, kit: Any) -> None:
    server = origin(reply)
    script = f"""
import sys
from eval_bindings.endpoint import EndpointBinding
from eval_bindings.wire import transport
from eval_bindings.judge_client import JudgeClient
from eval_bindings.pins import ModelPin
from eval_core._case.case import CaseBase, Message
from eval_core._plugins.host import ModelCallRequest
pin = ModelPin(name="t", wire="openai", model="test-model-2025-01-01",
    base_url={server.url.removesuffix("/chat/completions")!r}, credential_env="K", dated=True,
    price_input_per_mtok=1.0, price_output_per_mtok=1.0)
b = EndpointBinding(pin, "k")
heavy = {{"httpx", "httpcore", "h11", "anyio", "click", "rich", "pygments"}}
started = sorted(heavy & {{m.split(".")[0] for m in sys.modules}})
case = CaseBase(id="c", tier="l2", agent="a", input=[Message(role="user", content="x")],
    script=[], expect=[])
text = b.session(case).complete(ModelCallRequest(system="s", messages=[], tools=[])).text
b.close()
print(started, text, "httpx" in {{m.split(".")[0] for m in sys.modules}})
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "ok", "True"]
    assert server.served == 1


def test_closing_the_connections_ends_the_calls_in_flight_on_other_threads(origin: Any) -> None:
    """An abandoned Sweep closes its binding while Trials wait on the vendor: each call in
    flight ends at once with an error (its connection shut), not at its deadline, and the
    server sees every connection go."""
    server = origin(lambda handler, body: server.release.wait(60))  # answers nothing
    client = Connections()
    ended: list[BaseException] = []

    def call() -> None:
        try:
            post_json(client, server.url, {}, BODY, 60.0)
        except BaseException as exc:
            ended.append(exc)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 10
    while server.served < 2 and time.monotonic() < deadline:
        time.sleep(0.002)
    assert server.served == 2, "both calls reached the server"
    client.close()
    for thread in threads:
        thread.join(timeout=10)  # a sixth of the call's deadline: cut, never waited out
    assert not any(t.is_alive() for t in threads), "a call in flight outlived the close"
    assert len(ended) == 2 and all(isinstance(e, VendorError) for e in ended), ended
    server.release.set()
    server.wait_closed(2, within=5)
