"""The runtime's MCP client: a small synchronous client of MCP's streamable-HTTP transport.

An integration's server is reached over streamable HTTP: JSON-RPC 2.0 POSTs (``initialize``,
``notifications/initialized``, ``tools/call``) answered as JSON or as a stream of server-sent
events, the session named by the ``Mcp-Session-Id`` the server gave and ended by a DELETE on
close. Each connected account is its own authenticated session (its credential as a bearer
token), so the provider always knows which account a ``tools/call`` acts for and the model's
arguments travel unchanged. :class:`McpClients` keeps one persistent connection per (server,
credential), one request at a time on each. Every request is bounded by a timeout and every
answer by a size: a server that dies, stalls or answers nonsense mid-Turn is a
:class:`ProviderUnavailable` the dispatcher records as a failed Tool result, never a hang.
The standard library only: no MCP SDK, no event loop, no thread.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # http.client and ssl load with the first MCP call, not with the runtime
    import http.client
    import socket
    import ssl

DEFAULT_TIMEOUT = 5.0
MAX_ANSWER = 8 * 1024 * 1024  # bytes of one answer (JSON body or event stream)
PROTOCOL_VERSION = "2025-11-25"  # what ``initialize`` asks for
# The revisions whose streamable-HTTP transport this client speaks (2024-11-05 had another).
SUPPORTED_VERSIONS = frozenset({"2025-03-26", "2025-06-18", "2025-11-25"})
CLIENT_INFO = {"name": "agent-runtime", "version": "0.1.0"}
_DRAIN = 1.0  # at most this long to read the rest of an answered event stream
_REASON = 2000  # characters of a server's error message kept in a refusal


class ProviderUnavailable(Exception):  # noqa: N818 - it names a state, not a bug
    """The provider could not be reached, died, or did not answer in time."""


class _BrokenAnswerError(Exception):
    """The server answered, but not as the transport says (one line, for the refusal)."""


class _RpcError(Exception):
    """The server answered the request with a JSON-RPC error."""


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context per process: loading the CA bundle costs ~80 ms each time."""
    import ssl

    return ssl.create_default_context()


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _REASON else line[: _REASON - 1] + "…"


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


class EventStream:
    """Server-sent events parsed from bytes as they arrive (the WHATWG ``text/event-stream``
    format): ``feed`` returns the (event type, data) of every event its bytes completed.
    Comments, ``id`` and ``retry`` fields are read and ignored; a partial event at the end of
    the stream is never dispatched."""

    __slots__ = ("_buffer", "_data", "_event")
    _EOL = re.compile(rb"\r\n|\r|\n")

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[str] = []
        self._event = ""

    def feed(self, chunk: bytes, *, final: bool = False) -> list[tuple[str, str]]:
        buffer, start, events = self._buffer + chunk, 0, []
        for end in self._EOL.finditer(buffer):
            if end.group() == b"\r" and end.end() == len(buffer) and not final:
                break  # a CR at the end may be the first half of a CRLF
            event = self._line(buffer[start : end.start()])
            if event is not None:
                events.append(event)
            start = end.end()
        self._buffer = b"" if final else buffer[start:]
        return events

    def _line(self, raw: bytes) -> tuple[str, str] | None:
        if not raw:  # a blank line dispatches the event
            event, data = self._event or "message", self._data
            self._event, self._data = "", []
            return (event, "\n".join(data)) if data else None
        try:
            line = raw.decode()
        except UnicodeDecodeError:
            raise _BrokenAnswerError("the event stream is not UTF-8") from None
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
        return None


def _answer_to(message: Any, request_id: int) -> dict[str, Any] | None:
    """The response to ``request_id`` in one JSON-RPC message (or batch), if it is there."""
    for one in message if isinstance(message, list) else [message]:
        if not isinstance(one, dict):
            raise _BrokenAnswerError("a JSON-RPC message is not an object")
        found = one.get("id")
        if found == request_id and not isinstance(found, bool) and "method" not in one:
            return one
    return None


def _result(response: dict[str, Any]) -> dict[str, Any]:
    if "error" in response:
        error = response["error"]
        message = error.get("message") if isinstance(error, dict) else None
        raise _RpcError(str(message) if message is not None else json.dumps(error))
    result = response.get("result")
    if not isinstance(result, dict):
        raise _BrokenAnswerError("the response carries no result object")
    return result


def _parse(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise _BrokenAnswerError("the answer is not JSON") from None


class _Session:
    """One connection and the MCP session on it, for one (url, credential)."""

    __slots__ = (
        "authorization",
        "connection",
        "host",
        "https",
        "key",
        "lock",
        "next_id",
        "path",
        "port",
        "session_id",
        "url",
        "version",
    )

    def __init__(self, url: str, credential: str) -> None:
        from urllib.parse import urlsplit

        self.url, self.key = url, (url, credential)
        self.authorization = f"Bearer {credential}"
        self.lock = threading.Lock()
        self.connection: http.client.HTTPConnection | None = None
        self.session_id: str | None = None
        self.version: str | None = None
        self.next_id = 0
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as error:
            raise ProviderUnavailable(f"cannot connect to the MCP server {url}: {error}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ProviderUnavailable(
                f"cannot connect to the MCP server {url}: not an http(s) URL"
            ) from None
        self.https = parts.scheme == "https"
        self.host, self.port = parts.hostname, port
        self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    # -- the connection ------------------------------------------------------------------------

    def _connected(self, deadline: float) -> http.client.HTTPConnection:
        """The open connection, or a new one: one the server closed while idle is replaced
        before a request is written to it, so no request is ever sent twice."""
        import http.client

        conn = self.connection
        if conn is not None and conn.sock is not None and _closed_by_peer(conn.sock):
            conn.close()
        if conn is None:
            if self.https:
                conn = http.client.HTTPSConnection(self.host, self.port, context=_tls())
            else:
                conn = http.client.HTTPConnection(self.host, self.port)
            self.connection = conn
        if conn.sock is None:
            conn.timeout = _left(deadline)
            try:
                conn.connect()
            except TimeoutError:
                raise
            except OSError as error:
                conn.close()
                raise ProviderUnavailable(
                    f"cannot connect to the MCP server {self.url}: {_one_line(str(error))}"
                ) from None
        return conn

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    # -- one exchange --------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {
            "Authorization": self.authorization,
            "Accept": "application/json, text/event-stream",
        }
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self.version is not None:
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def _send(
        self, method: str, body: bytes | None, deadline: float
    ) -> tuple[socket.socket, http.client.HTTPResponse]:
        """The answer and the socket it arrives on (kept: a ``Connection: close`` answer
        leaves the connection without one while its body is still being read)."""
        conn = self._connected(deadline)
        headers = self._headers()
        if body is not None:
            headers["Content-Type"] = "application/json"
        sock = conn.sock
        assert sock is not None
        sock.settimeout(_left(deadline))
        conn.request(method, self.path, body=body, headers=headers)
        sock.settimeout(_left(deadline))
        return sock, conn.getresponse()

    def exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """POST one JSON-RPC message; the response to it (``None`` for a notification)."""
        deadline = time.monotonic() + timeout
        request_id = message.get("id")
        body = json.dumps(message, ensure_ascii=False).encode()
        sock, answer = self._send("POST", body, deadline)
        if request_id is None and 200 <= answer.status < 300:  # 202 Accepted, as a rule
            _read(sock, answer, deadline, limit=65536)
            return None
        if answer.status != 200:
            raise _BrokenAnswerError(
                _status_line(answer, _read(sock, answer, deadline, limit=65536))
            )
        if message.get("method") == "initialize":
            session_id = answer.getheader("mcp-session-id")
            if session_id is not None and not re.fullmatch(r"[\x21-\x7e]+", session_id):
                raise _BrokenAnswerError("the session id is not visible ASCII")
            self.session_id = session_id
        assert isinstance(request_id, int)
        kind = (answer.getheader("content-type") or "").split(";")[0].strip().lower()
        if kind == "application/json":
            found = _answer_to(_parse(_read(sock, answer, deadline)), request_id)
            if found is None:
                raise _BrokenAnswerError(
                    f"the JSON answer holds no response to request {request_id}"
                )
            return found
        if kind == "text/event-stream":
            return _from_events(self, sock, answer, deadline, request_id)
        raise _BrokenAnswerError(f"unexpected content type {kind or 'none'!r}")

    def request(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        response = self.exchange(message, timeout)
        assert response is not None
        return _result(response)

    def initialize(self, timeout: float) -> None:
        result = self.request(
            "initialize",
            {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO},
            timeout,
        )
        version = result.get("protocolVersion")
        if version not in SUPPORTED_VERSIONS:
            raise _BrokenAnswerError(
                f"the server speaks protocol version {version!r}, not one of ours"
            )
        self.version = str(version)
        self.exchange({"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout)

    def end(self, timeout: float) -> None:
        """DELETE the session (best effort), then close the connection."""
        try:
            if self.session_id is not None:
                deadline = time.monotonic() + timeout
                sock, answer = self._send("DELETE", None, deadline)
                _read(sock, answer, deadline, limit=65536)
        except (OSError, ProviderUnavailable, _BrokenAnswerError, _http_errors()):
            pass  # the server may be gone already: ending it is a courtesy
        finally:
            self.close()


def _closed_by_peer(sock: Any) -> bool:
    """Whether an idle connection has something to read: the server's close (or bytes it
    should not have sent), either way not a connection to write a request to."""
    import select

    try:
        if hasattr(select, "poll"):  # no FD_SETSIZE ceiling
            poll = select.poll()
            poll.register(sock, select.POLLIN)
            return bool(poll.poll(0))
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


@functools.cache
def _http_errors() -> type[Exception]:
    import http.client

    return http.client.HTTPException


def _read(
    sock: socket.socket,
    answer: http.client.HTTPResponse,
    deadline: float,
    limit: int = MAX_ANSWER,
) -> bytes:
    """The whole body, within the deadline and ``limit`` bytes."""
    length = answer.getheader("content-length")
    if length is not None and length.strip().isdigit() and int(length) > limit:
        raise _BrokenAnswerError(f"the answer exceeds {limit} bytes ({int(length)} announced)")
    chunks: list[bytes] = []
    size = 0
    while True:
        sock.settimeout(_left(deadline))
        chunk = answer.read1(65536)
        if not chunk:
            if answer.length:  # the connection ended before the announced length
                raise _BrokenAnswerError("the answer was cut off")
            answer.close()  # read1 leaves an empty body open; the connection is free again
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise _BrokenAnswerError(f"the answer exceeds {limit} bytes")
        chunks.append(chunk)


def _from_events(
    session: _Session,
    sock: socket.socket,
    answer: http.client.HTTPResponse,
    deadline: float,
    request_id: int,
) -> dict[str, Any]:
    """The response to ``request_id`` from an event stream; notifications and the server's
    own requests on it are ignored. The rest of the stream is read so the connection can carry
    the next request; a server that keeps it open loses the connection instead."""
    stream, size, found = EventStream(), 0, None
    while found is None:
        sock.settimeout(_left(deadline))
        chunk = answer.read1(65536)
        size += len(chunk)
        if size > MAX_ANSWER:
            raise _BrokenAnswerError(f"the answer exceeds {MAX_ANSWER} bytes")
        for event, data in stream.feed(chunk, final=not chunk):
            if event == "message" and data and found is None:
                found = _answer_to(_parse(data.encode()), request_id)
        if not chunk and found is None:
            raise _BrokenAnswerError(
                f"the event stream ended without a response to request {request_id}"
            )
    drain = min(deadline, time.monotonic() + _DRAIN)
    try:
        while not answer.isclosed():
            sock.settimeout(_left(drain))
            chunk = answer.read1(65536)
            size += len(chunk)
            if size > MAX_ANSWER:
                break
            if not chunk:
                answer.close()  # the whole body was read (read1 may leave it open)
                break
    except (OSError, _http_errors()):
        pass
    if not answer.isclosed():
        session.close()  # the stream stays open: the next request gets a new connection
    return found


def _status_line(answer: http.client.HTTPResponse, body: bytes) -> str:
    """``HTTP 404 Not Found``, with the JSON-RPC error message the body carries, if any."""
    line = f"HTTP {answer.status} {answer.reason}".rstrip()
    try:
        error = json.loads(body).get("error", {})
        message = error.get("message") if isinstance(error, dict) else None
    except (ValueError, RecursionError, AttributeError):
        message = None
    return f"{line}: {message}" if isinstance(message, str) and message else line


class McpClients:
    """Sessions to MCP servers, one per (url, credential), usable from synchronous code and
    from several threads at once (each session takes one request at a time)."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._open: dict[tuple[str, str], _Session] = {}

    def _session(self, url: str, credential: str) -> _Session:
        with self._lock:
            session = self._open.get((url, credential))
            if session is None:
                session = self._open[(url, credential)] = _Session(url, credential)
            return session

    def call_tool(
        self, url: str, credential: str, name: str, arguments: dict[str, Any]
    ) -> tuple[bool, Any, str]:
        """One ``tools/call`` for the account ``credential`` authenticates: (is_error,
        structuredContent, text)."""
        session = self._session(url, credential)
        with session.lock:
            try:
                if session.version is None:
                    session.initialize(self.timeout)
                result = session.request(
                    "tools/call", {"name": name, "arguments": arguments}, self.timeout
                )
            except _RpcError as error:  # the server answered: its session is still good
                if session.version is None:
                    self._drop(session)
                raise ProviderUnavailable(
                    f"the MCP server {url} failed: {_one_line(str(error))}"
                ) from None
            except ProviderUnavailable:
                self._drop(session)
                raise
            except TimeoutError:
                self._drop(session)
                raise ProviderUnavailable(
                    f"the MCP server {url} did not answer within {self.timeout:g}s"
                ) from None
            except (_BrokenAnswerError, OSError, _http_errors()) as error:
                self._drop(session)
                reason = str(error) or type(error).__name__
                raise ProviderUnavailable(
                    f"the MCP server {url} failed: {_one_line(reason)}"
                ) from None
            except BaseException:  # an interrupt mid-answer: the connection is unusable
                self._drop(session)
                raise
        content = result.get("content")
        parts = content if isinstance(content, list) else []
        text = "".join(
            p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
        return bool(result.get("isError")), result.get("structuredContent"), text

    def _drop(self, session: _Session) -> None:
        """Forget a session whose connection failed (its server is not asked to end it)."""
        with self._lock:
            if self._open.get(session.key) is session:
                del self._open[session.key]
        session.close()

    def close(self) -> None:
        """End every session (a DELETE each, best effort) and close its connection."""
        with self._lock:
            sessions, self._open = list(self._open.values()), {}
        for session in sessions:
            with session.lock:
                session.end(self.timeout)
