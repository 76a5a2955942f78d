"""The runtime's own MCP client on the wire: against the real fixture provider (the official SDK's
server over streamable HTTP, answering as SSE streams, and again as JSON bodies), and against
loopback servers written here that misbehave on purpose (dying, stalling, trickling, answering too
much or nonsense). Every failure is a one-line :class:`ProviderUnavailable` within the timeout.

The provider runs as the program the Sweep runs (``python -m eval_expectations_mcp.provider``),
started here as a server process: the runtime, tests included, imports nothing of the harness."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from agent_runtime.mcp import client as mcp_client
from agent_runtime.mcp.client import MAX_ANSWER, PROTOCOL_VERSION, McpClients, ProviderUnavailable
from agent_runtime.mcp.sdk_noise import dropped, loop_exception
from bench.loopback import loopback_certificate

SLACK = 1.5  # seconds a loaded 2-core machine may add to a bounded wait


class Provider:
    """The fixture provider's process: its URL, its accounts, its own ``tools/call`` count."""

    def __init__(self, *options: str) -> None:
        self.options = options
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def ensure(self) -> None:
        """Started, or started again if a test killed it."""
        if self.process is not None and self.process.poll() is None:
            return
        self.process = subprocess.Popen(
            [sys.executable, "-m", "eval_expectations_mcp.provider", *self.options],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        ready = self.process.stdout.readline().split()
        assert len(ready) == 2 and ready[0] == "READY", ready
        self.url = ready[1]

    def admin(self, method: str, route: str, body: bytes | None = None) -> Any:
        where = urlsplit(self.url)
        conn = http.client.HTTPConnection(where.hostname or "", where.port, timeout=5)
        try:
            conn.request(method, route, body=body, headers={"Content-Type": "application/json"})
            answer = conn.getresponse()
            assert answer.status == 200
            return json.loads(answer.read())
        finally:
            conn.close()

    def register(self, accounts: dict[str, str]) -> None:
        """The accounts, in a sandbox of their own (as each Trial's are)."""
        sandbox = f"test-{os.urandom(6).hex()}"
        self.admin("PUT", f"/eval/sandboxes/{sandbox}", json.dumps(accounts).encode())

    def calls(self, credentials: list[str]) -> int:
        query = "&".join(f"credential={c}" for c in credentials)
        count: int = self.admin("GET", f"/eval/calls?{query}")["toolsCall"]
        return count

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="session")
def sse_provider() -> Iterator[Provider]:
    """The fixture provider as the Sweep runs it: every answer an SSE stream."""
    found = Provider()
    found.ensure()
    try:
        yield found
    finally:
        found.stop()


@pytest.fixture(scope="session")
def json_provider() -> Iterator[Provider]:
    """The same provider (the same SDK server) told to answer with JSON bodies."""
    found = Provider("--json-response")
    found.ensure()
    try:
        yield found
    finally:
        found.stop()


def live(provider: Provider, accounts: dict[str, str]) -> str:
    """The provider's URL, restarted if a test killed it, with ``accounts`` registered."""
    provider.ensure()
    provider.register(accounts)
    return provider.url


def raw_post(url: str, message: dict[str, Any], **headers: str) -> tuple[int, str, bytes]:
    """One POST as the transport specifies it, read back as bytes: (status, type, body)."""
    where = urlsplit(url)
    conn = http.client.HTTPConnection(where.hostname or "", where.port, timeout=5)
    try:
        conn.request(
            "POST",
            where.path,
            body=json.dumps(message).encode(),
            headers={
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
                **headers,
            },
        )
        answer = conn.getresponse()
        return answer.status, answer.getheader("content-type") or "", answer.read()
    finally:
        conn.close()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


def single_line(error: ProviderUnavailable, url: str) -> str:
    text = str(error)
    assert "\n" not in text and "\r" not in text and "Traceback" not in text
    assert error.__cause__ is None and error.__suppress_context__
    assert url in text
    return text


# -- the real provider ---------------------------------------------------------------------------


@pytest.mark.parametrize("answers", ["sse", "json"])
def test_a_call_returns_the_structured_result_the_provider_computed(
    answers: str, request: pytest.FixtureRequest
) -> None:
    provider: Provider = request.getfixturevalue(f"{answers}_provider")  # only the one needed
    credential = f"cred-{answers}-1"
    url = live(provider, {credential: f"acct-{answers}"})
    status, kind, _ = raw_post(url, INITIALIZE)  # the provider does answer the way named
    assert status == 200 and kind.startswith(
        "text/event-stream" if answers == "sse" else "application/json"
    )
    clients = McpClients()
    try:
        first = clients.call_tool(url, credential, "status", {"probe": "p-1"})
        second = clients.call_tool(url, credential, "create_note", {"text": "hello"})
    finally:
        clients.close()
    assert first == (
        False,
        {"probe": "p-1", "status": "operational", "accountId": f"acct-{answers}"},
        "operational",
    )
    is_error, note, _text = second
    assert not is_error and note["accountId"] == f"acct-{answers}" and note["text"] == "hello"
    assert provider.calls([credential]) == 2  # the provider's own count: two tools/call


def test_the_provider_refusing_the_account_is_an_error_result_not_an_outage(
    sse_provider: Provider,
) -> None:
    url = live(sse_provider, {})
    clients = McpClients()
    try:
        is_error, structured, text = clients.call_tool(
            url, "cred-nobody-1", "status", {"probe": "p"}
        )
    finally:
        clients.close()
    assert is_error and structured is None and "belongs to no connected account" in text
    assert sse_provider.calls(["cred-nobody-1"]) == 1


def test_one_session_per_credential_shared_by_threads(sse_provider: Provider) -> None:
    url = live(sse_provider, {"cred-threads": "acct-t"})
    clients = McpClients()
    results: list[Any] = []
    errors: list[BaseException] = []

    def calls() -> None:
        try:
            for n in range(5):
                results.append(clients.call_tool(url, "cred-threads", "status", {"probe": f"{n}"}))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=calls) for _ in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    finally:
        clients.close()
    assert not errors and len(results) == 20
    assert all(r[1]["accountId"] == "acct-t" for r in results)
    assert sse_provider.calls(["cred-threads"]) == 20


def test_close_ends_the_session_on_the_server(sse_provider: Provider) -> None:
    url = live(sse_provider, {"cred-close": "acct-c"})
    clients = McpClients()
    clients.call_tool(url, "cred-close", "status", {"probe": "p"})
    session_id = clients._open[(url, "cred-close")].session_id  # what the server named it
    assert session_id
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "status"}}
    clients.close()
    status, _, body = raw_post(
        url, call, **{"Mcp-Session-Id": session_id, "MCP-Protocol-Version": PROTOCOL_VERSION}
    )
    assert status == 404, body  # terminated by our DELETE: "Invalid or expired session ID"


def test_close_ends_the_loop_and_its_thread(sse_provider: Provider) -> None:
    """What the first call started ends with ``close()``: the loop's thread stopped and its
    event loop closed (its selector and wake-up pipe released there, not whenever the
    garbage collector finds it, with asyncio's "unclosed event loop" warning)."""
    url = live(sse_provider, {"cred-loop": "acct-l"})
    clients = McpClients()
    clients.call_tool(url, "cred-loop", "status", {"probe": "p"})
    assert clients._loop is not None
    loop, thread = clients._loop.loop, clients._loop.thread
    clients.close()
    assert not thread.is_alive()
    assert loop.is_closed()


def test_a_client_that_forgets_the_session_id_is_refused_by_the_real_server(
    sse_provider: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The provider checks what we send: drop the header and the call is an outage, so these
    tests would see a client that stopped carrying its session."""
    from agent_runtime.mcp import session as mcp_session

    url = live(sse_provider, {"cred-forget": "acct-f"})

    def forgetful(self: Any, request: Any) -> Any:
        del request.headers["Mcp-Session-Id"]  # KeyError on initialize: nothing to forget yet
        return request

    def careful(self: Any, request: Any) -> Any:
        return forgetful(self, request) if "mcp-session-id" in request.headers else request

    monkeypatch.setattr(mcp_session._Bounded, "outgoing", careful)
    clients = McpClients()
    try:
        with pytest.raises(ProviderUnavailable) as caught:
            clients.call_tool(url, "cred-forget", "status", {"probe": "p"})
    finally:
        clients.close()
    assert "HTTP 400" in single_line(caught.value, url) and "session" in str(caught.value)
    assert sse_provider.calls(["cred-forget"]) == 0


def test_the_provider_killed_mid_turn_is_unavailable_within_the_timeout(
    json_provider: Provider,
) -> None:
    """Killed between two calls of one Turn, with the session's connection open (the provider
    that answers JSON: fewer tests need it again, each restart costs a second)."""
    url = live(json_provider, {"cred-kill": "acct-k"})
    clients = McpClients(timeout=2.0)
    try:
        assert not clients.call_tool(url, "cred-kill", "status", {"probe": "p"})[0]
        assert json_provider.process is not None
        os.kill(json_provider.process.pid, signal.SIGKILL)
        json_provider.process.wait()
        started = time.monotonic()
        with pytest.raises(ProviderUnavailable) as caught:
            clients.call_tool(url, "cred-kill", "status", {"probe": "p"})
        assert time.monotonic() - started < 2.0 + SLACK
    finally:
        clients.close()
    single_line(caught.value, url)


def test_the_sdk_loads_with_the_first_call_not_with_the_runtime(sse_provider: Provider) -> None:
    url = live(sse_provider, {"cred-imports": "acct-i"})
    program = (
        "import sys; import agent_runtime.mcp.dispatch; from agent_runtime.mcp.client import "
        "McpClients; c = McpClients(); heavy = {'mcp', 'httpx', 'httpcore', 'anyio', "
        "'pydantic', 'starlette', 'asyncio'}; "
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules})); "
        f"assert not c.call_tool({url!r}, 'cred-imports', 'status', {{'probe': 'p'}})[0]; "
        "c.close(); print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=30, check=True
    )
    before, after = out.stdout.splitlines()
    assert before == "[]", out
    assert "mcp" in after and "httpx" in after, out  # the call went through the SDK


# -- loopback servers that misbehave -------------------------------------------------------------


Behaviour = Callable[["Handler", dict[str, Any]], None]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Loopback

    def log_message(self, *_args: Any) -> None:
        pass

    def send_json(self, payload: Any, status: int = 200) -> None:
        self.send_body(json.dumps(payload).encode(), status)

    def send_body(self, body: bytes, status: int = 200) -> None:
        """``body`` as a JSON answer with its length (bytes as given: padded, cut, malformed)."""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def start_events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        message = json.loads(body)
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.seen.append(("POST", message.get("method"), headers))
        if message.get("method") == "initialize":
            self.server.initialize(self, message)
        elif "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.server.behaviour(self, message)

    def do_DELETE(self) -> None:
        self.server.seen.append(("DELETE", None, {k.lower(): v for k, v in self.headers.items()}))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


def initialized(handler: Handler, message: dict[str, Any], version: str = PROTOCOL_VERSION) -> None:
    result = {
        "protocolVersion": version,
        "capabilities": {},
        "serverInfo": {"name": "loop", "version": "0"},
    }
    body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Mcp-Session-Id", "loop-session-1")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class Loopback(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, behaviour: Behaviour) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.behaviour = behaviour
        self.initialize: Callable[[Handler, dict[str, Any]], None] = initialized
        self.seen: list[tuple[str, str | None, dict[str, str]]] = []
        self.connections: list[tuple[str, int]] = []  # each TCP connection accepted

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.connections.append(client_address)
        return True

    def handle_error(self, *_args: Any) -> None:
        pass  # a client that hung up on purpose

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/mcp"


@pytest.fixture
def loopback() -> Iterator[Callable[[Behaviour], Loopback]]:
    servers: list[Loopback] = []

    def start(behaviour: Behaviour) -> Loopback:
        server = Loopback(behaviour)
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def result(message: dict[str, Any], text: str = "ok") -> bytes:
    content = {"content": [{"type": "text", "text": text}], "structuredContent": {"n": 1}}
    return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": content}).encode()


def test_an_event_stream_with_notifications_finds_its_answer(
    loopback: Callable[[Behaviour], Loopback],
) -> None:
    def answer(handler: Handler, message: dict[str, Any]) -> None:
        handler.start_events()
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x"}}
        handler.chunk(
            b": keep-alive\r\nid: 1\r\nevent: message\r\ndata: " + json.dumps(note).encode()
        )
        handler.chunk(b"\r\n\r\n")
        handler.chunk(b"event: message\ndata: " + result(message, "streamed") + b"\n\n")
        handler.wfile.write(b"0\r\n\r\n")

    server = loopback(answer)
    clients = McpClients()
    try:
        assert clients.call_tool(server.url, "k", "t", {}) == (False, {"n": 1}, "streamed")
        assert clients.call_tool(server.url, "k", "t", {}) == (False, {"n": 1}, "streamed")
    finally:
        clients.close()
    methods = [(verb, method) for verb, method, _ in server.seen]
    assert methods == [
        ("POST", "initialize"),
        ("POST", "notifications/initialized"),
        ("POST", "tools/call"),
        ("POST", "tools/call"),
        ("DELETE", None),
    ]
    first, *later = [headers for _, _, headers in server.seen]
    assert first["accept"] == "application/json, text/event-stream"
    assert first["authorization"] == "Bearer k" and "mcp-session-id" not in first
    for headers in later:
        assert headers["mcp-session-id"] == "loop-session-1"
        assert headers["mcp-protocol-version"] == PROTOCOL_VERSION
        assert headers["authorization"] == "Bearer k"


def test_the_client_names_itself_and_its_version_in_initialize(
    loopback: Callable[[Behaviour], Loopback],
) -> None:
    """``initialize`` tells the server which client it talks to: the runtime, at the version
    installed (what a server logs, or gates a feature on), not a number frozen in the code."""
    told: list[dict[str, Any]] = []

    def greeted(handler: Handler, message: dict[str, Any]) -> None:
        told.append(message["params"])
        initialized(handler, message)

    def answer(handler: Handler, message: dict[str, Any]) -> None:
        handler.send_body(result(message))

    server = loopback(answer)
    server.initialize = greeted
    clients = McpClients()
    try:
        assert clients.call_tool(server.url, "k", "t", {}) == (False, {"n": 1}, "ok")
    finally:
        clients.close()
    [params] = told
    assert params["clientInfo"] == {"name": "agent-runtime", "version": version("agent-runtime")}


def test_each_answer_gives_its_connection_back_to_the_pool(
    loopback: Callable[[Behaviour], Loopback],
) -> None:
    """A session's calls share the pooled keep-alive connection: each answer read is closed, so
    its connection goes back to the pool rather than being held while the next request opens
    another (a client that held them would run out of connections mid-Sweep)."""

    def answer(handler: Handler, message: dict[str, Any]) -> None:
        handler.send_body(result(message))

    server = loopback(answer)
    clients = McpClients()
    try:
        for _ in range(6):
            assert clients.call_tool(server.url, "k", "t", {}) == (False, {"n": 1}, "ok")
    finally:
        clients.close()
    requests = len(server.seen)
    assert requests == 9  # initialize, initialized, six calls, the closing DELETE
    assert len(server.connections) <= 2, f"{len(server.connections)} connections for {requests}"


def test_a_json_rpc_error_is_unavailable_and_keeps_the_session(
    loopback: Callable[[Behaviour], Loopback],
) -> None:
    def answer(handler: Handler, message: dict[str, Any]) -> None:
        error = {"code": -32602, "message": "bad\narguments"}
        handler.send_json({"jsonrpc": "2.0", "id": message["id"], "error": error})

    server = loopback(answer)
    clients = McpClients()
    try:
        for _ in range(2):
            with pytest.raises(ProviderUnavailable) as caught:
                clients.call_tool(server.url, "k", "t", {})
            assert single_line(caught.value, server.url).endswith("failed: bad arguments")
    finally:
        clients.close()
    assert [m for _, m, _ in server.seen].count("initialize") == 1


def test_a_long_error_message_is_cut_to_its_first_2000_characters_and_marked_cut(
    loopback: Callable[[Behaviour], Loopback],
) -> None:
    """A server that answers with its whole stack trace: the model is told the start of it, in
    one line, and that the rest was cut (an ellipsis as the 2000th character)."""
    frames = [f'  File "/srv/index.py", line {n}, in rebuild' for n in range(1, 200)]
    trace = "Traceback (most recent call last):\n" + "\n".join(frames)

    def answer(handler: Handler, message: dict[str, Any]) -> None:
        error = {"code": -32603, "message": trace}
        handler.send_json({"jsonrpc": "2.0", "id": message["id"], "error": error})

    server = loopback(answer)
    clients = McpClients()
    try:
        with pytest.raises(ProviderUnavailable) as caught:
            clients.call_tool(server.url, "k", "t", {})
    finally:
        clients.close()
    text = str(caught.value)
    assert "\n" not in text and caught.value.__cause__ is None
    reason = text.removeprefix(f"the MCP server {server.url} failed: ")
    line = " ".join(trace.split())
    assert len(line) > 2000 and len(reason) == 2000
    assert reason == line[:1999] + "…"


def test_a_version_the_client_does_not_speak_is_refused(
    loopback: Callable[[Behaviour], Loopback],
) -> None:
    server = loopback(lambda handler, message: handler.send_json({}))
    server.initialize = lambda handler, message: initialized(handler, message, "1999-01-01")
    clients = McpClients()
    with pytest.raises(ProviderUnavailable) as caught:
        clients.call_tool(server.url, "k", "t", {})
    clients.close()
    assert "1999-01-01" in single_line(caught.value, server.url)
    assert [m for _, m, _ in server.seen] == ["initialize"]  # no call, no DELETE


def oversized_body(handler: Handler, message: dict[str, Any]) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(MAX_ANSWER + 1))
    handler.end_headers()
    handler.wfile.write(b"{" * 1024)


def oversized_stream(handler: Handler, message: dict[str, Any]) -> None:
    handler.start_events()
    comment = b": " + b"x" * 65534 + b"\n"
    for _ in range(MAX_ANSWER // len(comment) + 2):
        handler.chunk(comment)


def malformed_json(handler: Handler, message: dict[str, Any]) -> None:
    handler.send_body(b'{"jsonrpc": "2.0", "id": ' + b"[" * 100_000)


def malformed_event(handler: Handler, message: dict[str, Any]) -> None:
    handler.start_events()
    handler.chunk(b"data: {not json}\n\n")
    handler.wfile.write(b"0\r\n\r\n")


def not_utf8(handler: Handler, message: dict[str, Any]) -> None:
    handler.start_events()
    handler.chunk(b"data: \xff\xfe\n\n")
    handler.wfile.write(b"0\r\n\r\n")


def no_answer_in_stream(handler: Handler, message: dict[str, Any]) -> None:
    handler.start_events()
    handler.chunk(b'data: {"jsonrpc": "2.0", "method": "notifications/progress"}\n\n')
    handler.wfile.write(b"0\r\n\r\n")


def wrong_type(handler: Handler, message: dict[str, Any]) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Content-Length", "2")
    handler.end_headers()
    handler.wfile.write(b"<p")


def server_error(handler: Handler, message: dict[str, Any]) -> None:
    error = {"code": -32603, "message": "Internal\nerror"}
    handler.send_json({"jsonrpc": "2.0", "id": message["id"], "error": error}, status=500)


def hangs_up(handler: Handler, message: dict[str, Any]) -> None:
    handler.close_connection = True
    handler.connection.shutdown(socket.SHUT_RDWR)  # dies with the request read, unanswered


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        (oversized_body, f"exceeds {MAX_ANSWER} bytes"),
        (oversized_stream, f"exceeds {MAX_ANSWER} bytes"),
        (malformed_json, "not a JSON-RPC message"),
        (malformed_event, "not a JSON-RPC message"),
        (not_utf8, "not a JSON-RPC message"),
        (no_answer_in_stream, "the event stream ended without a response"),
        (wrong_type, "unexpected content type 'text/html'"),
        (server_error, "HTTP 500 Internal Server Error: Internal error"),
        (hangs_up, "failed: Server disconnected without sending a response"),
    ],
)
def test_a_bad_answer_is_unavailable_in_one_line(
    behaviour: Behaviour, reason: str, loopback: Callable[[Behaviour], Loopback]
) -> None:
    server = loopback(behaviour)
    clients = McpClients(timeout=3.0)
    started = time.monotonic()
    try:
        with pytest.raises(ProviderUnavailable) as caught:
            clients.call_tool(server.url, "k", "t", {})
    finally:
        clients.close()
    assert time.monotonic() - started < 3.0 + SLACK
    text = single_line(caught.value, server.url)
    assert text.startswith(f"the MCP server {server.url} failed: ") and reason in text, text
    assert ("DELETE", None) not in [
        (v, m) for v, m, _ in server.seen
    ]  # a broken session is dropped


def test_an_answer_of_exactly_the_limit_is_read(loopback: Callable[[Behaviour], Loopback]) -> None:
    """The limit is the largest answer read whole (one byte more is refused, above)."""

    def at_the_limit(handler: Handler, message: dict[str, Any]) -> None:
        result = {"content": [{"type": "text", "text": "12 boxes"}], "structuredContent": {"n": 12}}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        handler.send_body(body + b" " * (MAX_ANSWER - len(body)))  # JSON's whitespace: same answer

    server = loopback(at_the_limit)
    clients = McpClients()
    try:
        assert clients.call_tool(server.url, "k", "t", {}) == (False, {"n": 12}, "12 boxes")
    finally:
        clients.close()


def test_a_server_that_accepts_and_never_answers_is_unavailable_within_the_timeout() -> None:
    with socket.socket() as listener:  # the kernel completes the handshake; nobody reads
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        clients = McpClients(timeout=0.5)
        started = time.monotonic()
        with pytest.raises(ProviderUnavailable) as caught:
            clients.call_tool(url, "k", "t", {})
        waited = time.monotonic() - started
        clients.close()
    assert 0.5 <= waited < 0.5 + SLACK
    assert single_line(caught.value, url) == f"the MCP server {url} did not answer within 0.5s"


def test_a_session_given_up_on_lets_go_of_its_connection() -> None:
    """A server that never answers is dropped at the timeout: the request it holds is
    abandoned then, its connection closed, not kept open for as long as the client lives."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        clients = McpClients(timeout=0.3)
        try:
            with pytest.raises(ProviderUnavailable):
                clients.call_tool(url, "k", "t", {})
            accepted, _ = listener.accept()
            with accepted:
                accepted.settimeout(5.0)  # a bound on a hang, not a measure
                received = b""
                while chunk := accepted.recv(65536):  # b"": the client closed it
                    received += chunk
        finally:
            clients.close()
    assert b'"method":"initialize"' in received.replace(b" ", b"")


def test_a_stream_that_trickles_forever_is_cut_at_the_timeout(
    loopback: Callable[[Behaviour], Loopback],
) -> None:
    """Each read gets bytes in time, the answer never comes: the timeout bounds the request,
    not one read."""

    def trickle(handler: Handler, message: dict[str, Any]) -> None:
        handler.start_events()
        for _ in range(200):
            handler.chunk(b": still here\n")
            time.sleep(0.05)

    server = loopback(trickle)
    clients = McpClients(timeout=0.6)
    started = time.monotonic()
    with pytest.raises(ProviderUnavailable) as caught:
        clients.call_tool(server.url, "k", "t", {})
    waited = time.monotonic() - started
    clients.close()
    assert 0.6 <= waited < 0.6 + SLACK
    assert "did not answer within 0.6s" in single_line(caught.value, server.url)


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_nothing_listening_is_unavailable_at_once(scheme: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"{scheme}://127.0.0.1:{probe.getsockname()[1]}/mcp"  # bound, not listening
        clients = McpClients(timeout=60.0)
        started = time.monotonic()
        with pytest.raises(ProviderUnavailable) as caught:
            clients.call_tool(url, "k", "t", {})
    # refused at once, not after the request's timeout; the bound leaves room for a loaded
    # machine's first import of the MCP SDK, which made a tighter one flaky
    assert time.monotonic() - started < 15.0
    text = single_line(caught.value, url)
    assert text.startswith(f"cannot connect to the MCP server {url}: ")
    assert "not an http(s) URL" not in text  # https is tried as http is, not refused unread


def test_an_https_server_whose_certificate_is_not_trusted_is_never_called(
    loopback: Callable[[Behaviour], Loopback], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process's trust store decides: a server behind a certificate it does not trust is
    unavailable before any request reaches it; once the certificate is trusted, the same server
    answers."""
    cert, key = loopback_certificate(tmp_path)
    server = loopback(lambda handler, message: handler.send_body(result(message)))
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    url = server.url.replace("http://", "https://")
    clients = McpClients(timeout=5.0)
    try:
        with pytest.raises(ProviderUnavailable) as caught:
            clients.call_tool(url, "k", "t", {})
    finally:
        clients.close()
    text = single_line(caught.value, url)
    assert text.startswith(f"cannot connect to the MCP server {url}: "), text
    assert "CERTIFICATE_VERIFY_FAILED" in text, text
    assert server.seen == []
    monkeypatch.setattr(mcp_client, "_tls", lambda: ssl.create_default_context(cafile=cert))
    clients = McpClients(timeout=5.0)
    try:
        assert clients.call_tool(url, "k", "t", {}) == (False, {"n": 1}, "ok")
    finally:
        clients.close()


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/mcp", "http://127.0.0.1:99999/mcp", "mcp"])
def test_a_url_that_is_no_http_server_is_unavailable(url: str) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        McpClients().call_tool(url, "k", "t", {})
    assert single_line(caught.value, url).startswith(f"cannot connect to the MCP server {url}: ")


def closes_mid_answer(handler: Handler, message: dict[str, Any]) -> None:
    handler.start_events()
    handler.chunk(b'data: {"jsonrpc": "2.0", "id": ' + str(message["id"]).encode())
    handler.close_connection = True
    handler.connection.shutdown(socket.SHUT_RDWR)  # the answer cut in the middle of an event


def notification_flood(handler: Handler, message: dict[str, Any]) -> None:
    handler.start_events()
    bad = b'data: {"jsonrpc": "2.0", "method": "notifications/progress"}\n\n'
    for _ in range(200):
        handler.chunk(bad * 10)
    handler.chunk(b"data: " + result(message) + b"\n\n")
    handler.wfile.write(b"0\r\n\r\n")


@pytest.mark.parametrize(
    ("behaviour", "answer"),
    [
        (malformed_event, "not a JSON-RPC message"),
        (not_utf8, "not a JSON-RPC message"),
        (malformed_json, "not a JSON-RPC message"),
        (closes_mid_answer, "the answer was cut off: "),
        (no_answer_in_stream, "ended without a response"),
        (notification_flood, "OK ok"),
    ],
)
def test_the_sdk_s_own_failures_never_reach_stderr(
    behaviour: Behaviour, answer: str, loopback: Callable[[Behaviour], Loopback]
) -> None:
    """The SDK logs these with tracebacks (and on the root logger, which installs a stderr
    handler): the reason is the call's one line, the SDK's records are counted, stderr is
    empty, even where the application configured logging (a stderr handler on the root
    logger). A child process, so stderr is the real one."""
    server = loopback(behaviour)
    program = (
        "import logging\n"
        "logging.basicConfig()\n"
        "from agent_runtime.mcp.client import McpClients\n"
        "from agent_runtime.mcp.sdk_noise import dropped\n"
        "c = McpClients(timeout=3.0)\n"
        "try:\n"
        f"    print('OK', c.call_tool({server.url!r}, 'k', 't', {{}})[2])\n"
        "except Exception as e:\n"
        "    print('ERR', e)\n"
        "c.close()\n"
        "print(sum(dropped().values()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=30, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == "", out.stderr
    said, count = out.stdout.splitlines()
    assert answer in said and "\n" not in said, said
    assert int(count) >= (0 if behaviour is closes_mid_answer else 1)


def test_an_answer_announced_over_the_limit_lets_go_of_its_connection() -> None:
    """An answer whose Content-Length is above the limit is refused unread, and its connection
    is closed then: not held, with the server still writing, for as long as the client lives
    (a client that held them would run out of pooled connections mid-Sweep)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        clients = McpClients(timeout=3.0)
        caught: list[BaseException] = []

        def call() -> None:
            try:
                clients.call_tool(url, "k", "t", {})
            except ProviderUnavailable as error:
                caught.append(error)

        caller = threading.Thread(target=call)
        caller.start()
        try:
            accepted, _ = listener.accept()
            with accepted:
                accepted.settimeout(5.0)  # a bound on a hang, not a measure
                received = b""
                while b"\r\n\r\n" not in received or not received.rstrip().endswith(b"}"):
                    received += accepted.recv(65536)
                accepted.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n{" % (MAX_ANSWER + 1)
                )
                caller.join(5.0)
                try:
                    closed = accepted.recv(65536) == b""  # b"": the client closed it
                except ConnectionResetError:  # closed with the answer unread
                    closed = True
                except TimeoutError:  # still held open
                    closed = False
        finally:
            clients.close()
            caller.join(5.0)
    assert b'"method":"initialize"' in received.replace(b" ", b"")
    assert [f"exceeds {MAX_ANSWER} bytes" in str(e) for e in caught] == [True]
    assert closed, "the connection of a refused answer is still held open"


def test_what_asyncio_would_print_is_counted_under_asyncio() -> None:
    """The runtime's loop hands what asyncio would print (a task's exception nobody retrieved)
    to :func:`loop_exception`: counted under ``asyncio``, the name the Host's noise reports."""
    before = dropped().get("asyncio", 0)
    loop = asyncio.new_event_loop()
    try:
        loop.set_exception_handler(loop_exception)
        loop.call_exception_handler({"message": "Task exception was never retrieved"})
    finally:
        loop.close()
    assert dropped().get("asyncio", 0) == before + 1


@pytest.mark.parametrize("work", ["failed", "answered"])
def test_a_request_settled_as_the_session_breaks_reports_by_its_own_outcome(work: str) -> None:
    """A request and the session's break seen in the same turn of the loop (the server cut off
    as its answer arrives): a request that failed reports the session's reason (its own error is
    only the SDK's echo of the cut), a request that was answered keeps its answer."""
    from agent_runtime.mcp.session import Broken, Session

    async def race() -> Any:
        loop = asyncio.get_running_loop()
        session = Session("http://127.0.0.1:9/mcp", "token", pool=None)  # type: ignore[arg-type]
        broken: asyncio.Future[str] = loop.create_future()
        broken.set_result("the MCP server closed the stream")
        session._broken = broken
        request: asyncio.Future[Any] = loop.create_future()
        if work == "failed":
            request.set_exception(RuntimeError("ClosedResourceError"))
        else:
            request.set_result({"content": []})
        return await session._race(request, 1.0)

    if work == "failed":
        with pytest.raises(Broken, match="the MCP server closed the stream"):
            asyncio.run(race())
    else:
        assert asyncio.run(race()) == {"content": []}
