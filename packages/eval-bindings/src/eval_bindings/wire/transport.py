"""One HTTP exchange with a vendor, every fault named as a ``model_*`` reason.

A vendor failure is never a verdict: whatever goes wrong on the wire (a status, a timeout, a
refused connection, a body that is not JSON) becomes a :class:`VendorError` the Host turns into
an errored Trial. ``transient`` marks the faults worth another attempt.

The standard library's ``http.client`` speaks HTTP/1.1 here: it loads with the first call (a
scripted Sweep never pays for it), reads no proxy from the environment, and verifies TLS with
one context per process, made on the first https call. :class:`Connections` keeps each
thread's persistent connection per (scheme, host, port), so the Trials of ``--jobs N`` that
share one binding each reuse their own.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import time
import zlib
from typing import TYPE_CHECKING, Any

from eval_core.plugin import ModelError, TooDeep, check_json_depth

if TYPE_CHECKING:  # http.client (and ssl with it) loads with the first call, not the binding
    import http.client
    import socket
    import ssl

TRANSIENT = frozenset({"model_rate_limited", "model_provider_unavailable", "model_timeout"})


class VendorError(ModelError):
    """A ``model_*`` failure of one attempt; ``retry_after`` is the vendor's own hint, seconds."""

    def __init__(self, reason: str, message: str = "", retry_after: float | None = None) -> None:
        super().__init__(reason, message)
        self.retry_after = retry_after
        self.narrowed = False  # a rate limit that shrank the concurrency window

    @property
    def transient(self) -> bool:
        return self.reason in TRANSIENT


DEFAULT_MAX_BYTES = 8 * 1024 * 1024
ACCEPTED = "gzip, deflate"  # the encodings ``_read`` inflates itself, under the cap
CONNECT_TIMEOUT = 10.0  # at most this long to connect, within the call's own deadline
USER_AGENT = "eval-bindings"
_CHUNK = 65536


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context per process: loading the CA bundle costs ~0.1 s each time."""
    import ssl

    return ssl.create_default_context()


class Connections:
    """Persistent HTTP/1.1 connections for the threads sharing one binding.

    Each thread has its own connection per (scheme, host, port), one request at a time on it,
    so no lock is held across a call. A connection whose thread has ended is closed when the
    next one opens; :meth:`close` closes them all (a later call opens new ones).
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[tuple[threading.Thread, http.client.HTTPConnection]] = []

    def connection(self, scheme: str, host: str, port: int | None) -> http.client.HTTPConnection:
        """This thread's connection to the origin (connected or not)."""
        mine: dict[tuple[str, str, int | None], http.client.HTTPConnection] | None
        mine = getattr(self._local, "connections", None)
        if mine is None:
            mine = self._local.connections = {}
        key = (scheme, host, port)
        conn = mine.get(key)
        if conn is None:
            import http.client

            if scheme == "https":
                conn = http.client.HTTPSConnection(host, port, context=_tls())
            else:
                conn = http.client.HTTPConnection(host, port)
            mine[key] = conn
            with self._lock:
                ended = [c for t, c in self._open if not t.is_alive()]
                self._open = [(t, c) for t, c in self._open if t.is_alive()]
                self._open.append((threading.current_thread(), conn))
            for old in ended:
                old.close()
        return conn

    def close(self) -> None:
        with self._lock:
            open_, self._open = self._open, []
            self._local = threading.local()
        for _, conn in open_:
            conn.close()

    def __enter__(self) -> Connections:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def post_json(
    client: Connections,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    timeout: float,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Any:
    """POST ``body`` and return the decoded JSON reply, or raise a :class:`VendorError`.

    ``timeout`` bounds the whole call, not each read: every wait (connect, write, status, each
    read of the body) is given only what is left of it, so a server that trickles its reply a
    byte at a time is cut off at the deadline. ``max_bytes`` bounds the reply as decompressed,
    counted while it streams: a small body that inflates to gigabytes is refused before it is
    held in memory. A kept connection the server closed while idle is replaced before the
    request is written; a request that may have reached the server is never sent again.
    """
    deadline = time.monotonic() + timeout
    scheme, host, port, path = _target(url)
    payload = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    offered = {
        "Accept": "application/json",
        "Accept-Encoding": ACCEPTED,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **headers,
    }
    conn = client.connection(scheme, host, port)
    try:
        sock = _connected(conn, url, deadline, timeout)
        answer = _send(conn, sock, path, payload.encode(), offered, url, deadline, timeout)
        try:
            status, retry_after = answer.status, answer.getheader("retry-after")
            data = _read(answer, sock, url, deadline, timeout, max_bytes)
        finally:
            answer.close()  # read whole, the connection carries the next request
    except BaseException:
        conn.close()  # in an unknown state: the next call connects afresh
        raise
    if status == 429:
        raise VendorError(
            "model_rate_limited",
            f"{url} answered 429: {_snippet(data)}",
            retry_after=_retry_after(retry_after),
        )
    if status in (401, 403):
        raise VendorError("model_auth_failed", f"{url} answered {status}: {_snippet(data)}")
    if status >= 500:
        raise VendorError(
            "model_provider_unavailable",
            f"{url} answered {status}: {_snippet(data)}",
            retry_after=_retry_after(retry_after),
        )
    if status >= 400:
        raise VendorError("model_request_rejected", f"{url} answered {status}: {_snippet(data)}")
    try:
        check_json_depth(data)
    except TooDeep as deep:
        raise VendorError("model_malformed_response", f"{url} answered JSON {deep}") from None
    try:
        return json.loads(data)
    except ValueError as exc:
        raise VendorError(
            "model_malformed_response",
            f"{url} answered {status} with a body that is not JSON: {_snippet(data)}",
        ) from exc


def _target(url: str) -> tuple[str, str, int | None, str]:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise VendorError("model_unreachable", f"cannot connect to {url}: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise VendorError("model_unreachable", f"cannot connect to {url}: not an http(s) URL")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path


def _no_reply(url: str, timeout: float) -> VendorError:
    return VendorError("model_timeout", f"no reply from {url} within {timeout:g}s")


def _unfinished(url: str, timeout: float) -> VendorError:
    return VendorError("model_timeout", f"{url} did not finish its reply within {timeout:g}s")


def _left(deadline: float) -> float:
    """What is left of the call's deadline, for the next wait; none left is a timeout."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _connected(
    conn: http.client.HTTPConnection, url: str, deadline: float, timeout: float
) -> socket.socket:
    """The connection's socket, connected now if it has none or the server closed it."""
    if conn.sock is not None and _closed_by_peer(conn.sock):
        conn.close()  # nothing was written to it: connecting again sends nothing twice
    if conn.sock is None:
        try:
            conn.timeout = min(CONNECT_TIMEOUT, _left(deadline))
            conn.connect()
        except TimeoutError:
            raise _no_reply(url, timeout) from None
        except OSError as exc:
            raise VendorError("model_unreachable", f"cannot connect to {url}: {exc}") from None
    sock = conn.sock
    assert sock is not None
    return sock


def _send(
    conn: http.client.HTTPConnection,
    sock: socket.socket,
    path: str,
    payload: bytes,
    headers: dict[str, str],
    url: str,
    deadline: float,
    timeout: float,
) -> http.client.HTTPResponse:
    """Write the request, and the reply's status and headers."""
    import http.client

    try:
        sock.settimeout(_left(deadline))
        conn.request("POST", path, body=payload, headers=headers)
    except TimeoutError:
        raise _no_reply(url, timeout) from None
    except (OSError, ValueError, http.client.HTTPException) as exc:
        raise VendorError("model_unreachable", f"{url}: {type(exc).__name__}: {exc}") from None
    # A timeout bounds each read, and headers trickled a byte at a time never trip it: at the
    # deadline the socket is shut, which ends whatever read is waiting.
    cutoff = threading.Timer(_left(deadline), _shut, (sock,))
    cutoff.daemon = True
    cutoff.start()
    try:
        sock.settimeout(_left(deadline))
        return conn.getresponse()
    except TimeoutError:
        raise _no_reply(url, timeout) from None
    except (OSError, ValueError, http.client.HTTPException) as exc:
        if time.monotonic() >= deadline:
            raise _no_reply(url, timeout) from None
        raise _mid_reply(url, exc) from None
    finally:
        cutoff.cancel()


def _shut(sock: socket.socket) -> None:
    import socket

    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _mid_reply(url: str, exc: BaseException) -> VendorError:
    said = str(exc) or type(exc).__name__
    return VendorError("model_malformed_response", f"{url} closed the connection mid-reply: {said}")


def _closed_by_peer(sock: socket.socket) -> bool:
    """Whether an idle kept connection has something to read: the server's close (or bytes it
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


def _read(
    response: http.client.HTTPResponse,
    sock: socket.socket,
    url: str,
    deadline: float,
    timeout: float,
    max_bytes: int,
) -> bytes:
    """The reply's bytes (de-chunked), inflated here so no single chunk can exceed the cap.

    ``sock`` is the connection's socket, kept: a ``Connection: close`` reply leaves the
    connection without one while its body is still being read.
    """
    import http.client

    inflate = _inflater(response.getheader("content-encoding") or "", url)
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            sock.settimeout(_left(deadline))
            raw = response.read1(_CHUNK)
        except TimeoutError:
            raise _unfinished(url, timeout) from None
        except (OSError, ValueError, http.client.HTTPException) as exc:
            raise _mid_reply(url, exc) from None
        if not raw:
            if response.length:  # the connection ended before the announced length
                raise _mid_reply(url, ValueError(f"{response.length} announced bytes missing"))
            return b"".join(chunks)
        pending = raw
        while pending:
            if inflate is None:
                chunk, pending = pending, b""
            else:
                try:
                    chunk = inflate.decompress(pending, max_bytes - size + 1)
                except zlib.error as exc:
                    raise VendorError(
                        "model_malformed_response",
                        f"{url} sent a body that does not inflate: {exc}",
                    ) from None
                pending = inflate.unconsumed_tail
            size += len(chunk)
            if size > max_bytes:
                raise VendorError(
                    "model_response_too_large",
                    f"{url} sent more than {max_bytes} bytes (decompressed); the reply was dropped",
                )
            chunks.append(chunk)
        if time.monotonic() > deadline:
            raise _unfinished(url, timeout)


def _inflater(encoding: str, url: str) -> Any:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise VendorError(
        "model_malformed_response",
        f"{url} answered in an encoding it was not offered: {encoding!r}",
    )


def _snippet(data: bytes, limit: int = 200) -> str:
    text = " ".join(data[: limit * 4].decode("utf-8", "replace").split())
    return repr(text[:limit] + ("…" if len(text) > limit or len(data) > limit * 4 else ""))


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date."""
    import email.utils

    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
