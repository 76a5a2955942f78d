"""httpx's transport with the binding's whole-call deadline under it.

httpx bounds each socket operation (connect, each read, each write), never a call: a vendor
that trickles its headers or its body a byte at a time, each inside the read timeout, would
hold a Trial for ever. Here httpcore's own socket backend is wrapped so that every read,
write, connect and TLS handshake is given only what is left of the deadline the calling thread
set (:func:`until`); none left is a timeout, raised as httpcore raises its own. httpx runs a
synchronous request on the calling thread, so the deadline is the thread's.

The backend also knows its open sockets, so that an abandoned Sweep (Ctrl-C with Trials in
flight) cuts every call short at once (:meth:`Backend.abandon`): closing a socket from another
thread never wakes a thread blocked reading it, shutting it down does.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

if TYPE_CHECKING:
    import ssl


class _Deadline(threading.local):
    at: float | None = None


_THREAD = _Deadline()


@contextlib.contextmanager
def until(at: float) -> Iterator[None]:
    """Every socket wait of this thread's requests ends by ``at`` (``time.monotonic()``)."""
    previous, _THREAD.at = _THREAD.at, at
    try:
        yield
    finally:
        _THREAD.at = previous


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    if _THREAD.at is None:
        return timeout
    left = _THREAD.at - time.monotonic()
    if left <= 0:
        raise error("the call's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    """One connection's socket, each wait cut to the deadline."""

    def __init__(self, inner: httpcore.NetworkStream, backend: Backend) -> None:
        self._inner = inner
        self._backend = backend
        backend.opened(self)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._backend.closed(self)
        self._inner.close()

    def shut(self) -> None:
        """End the connection now, waking a thread blocked on it (its read sees the end)."""
        sock = self._inner.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        wait = _left(timeout, httpcore.ConnectTimeout)
        tls = self._inner.start_tls(ssl_context, server_hostname, wait)
        self._backend.closed(self)  # the TLS stream is the connection's from now on
        return _Stream(tls, self._backend)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class Backend(httpcore.NetworkBackend):
    """httpcore's synchronous socket backend, its streams bounded by the deadline."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()
        self._lock = threading.Lock()
        self._open: set[_Stream] = set()

    def opened(self, stream: _Stream) -> None:
        with self._lock:
            self._open.add(stream)

    def closed(self, stream: _Stream) -> None:
        with self._lock:
            self._open.discard(stream)

    def abandon(self) -> None:
        """Shut every open connection: each call in flight ends now with a dropped connection."""
        with self._lock:
            streams = list(self._open)
        for stream in streams:
            stream.shut()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        wait = _left(timeout, httpcore.ConnectTimeout)
        inner = self._inner.connect_tcp(host, port, wait, local_address, socket_options)
        return _Stream(inner, self)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("the binding speaks TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def transport(tls: ssl.SSLContext, connections: int) -> tuple[httpx.HTTPTransport, Backend]:
    """httpx's HTTP/1.1 transport (no proxy, no retry) on the bounded backend, and that backend:
    its pool is rebuilt with the same settings and :class:`Backend` (httpx takes no backend
    argument)."""
    backend = Backend()
    made = httpx.HTTPTransport(verify=tls, trust_env=False, retries=0)
    made._pool = httpcore.ConnectionPool(
        ssl_context=tls,
        max_connections=connections,
        max_keepalive_connections=connections,
        keepalive_expiry=30.0,
        http1=True,
        http2=False,
        retries=0,
        network_backend=backend,
    )
    return made, backend
