"""One HTTP exchange with a vendor, every fault named as a ``model_*`` reason.

A vendor failure is never a verdict: whatever goes wrong on the wire (a status, a timeout, a
refused connection, a body that is not JSON) becomes a :class:`VendorError` the Host turns into
an errored Trial. ``transient`` marks the faults worth another attempt: a rate limit, a 5xx, a
timeout, and a refused connection (``model_unreachable``: the request never reached the
server, so sending it again is safe, and a server restarted mid-Sweep is back a moment later);
a URL that can never be reached (not http(s), no host, a port out of range) is final.

httpx speaks HTTP/1.1 here (pooling, de-chunking): it loads with the first call (a scripted
Sweep never imports it), reads no proxy from the environment, follows no redirect, and verifies
TLS with one context per process. What httpx does not bound, the binding does on its transport:
the whole call's deadline (:mod:`eval_bindings.wire.deadline`), the reply's size as
decompressed, counted while it streams (inflated here from httpx's raw bytes, at most the cap
at a time: httpx would inflate a whole network read at once), and the reply's JSON depth.
:class:`Connections` is one httpx client for the threads sharing one binding, so the Trials
of ``--jobs N`` each reuse a kept connection from its pool.
"""

from __future__ import annotations

import functools
import json
import threading
import time
import zlib
from typing import TYPE_CHECKING, Any

from eval_core.hosts import ModelError, TooDeep, check_json_depth

if TYPE_CHECKING:  # httpx (and ssl with it) loads with the first call, not the binding
    import ssl

    import httpx

    from eval_bindings.wire.deadline import Backend

TRANSIENT = frozenset(
    {"model_rate_limited", "model_provider_unavailable", "model_timeout", "model_unreachable"}
)


class VendorError(ModelError):
    """A ``model_*`` failure of one attempt; ``retry_after`` is the vendor's own hint, seconds."""

    def __init__(
        self,
        reason: str,
        message: str = "",
        retry_after: float | None = None,
        *,
        final: bool = False,
    ) -> None:
        super().__init__(reason, message)
        self.retry_after = retry_after
        self.narrowed = False  # a rate limit that shrank the concurrency window
        self.final = final  # never worth another attempt (the Trial's time is spent)

    @property
    def transient(self) -> bool:
        return self.reason in TRANSIENT and not self.final


DEFAULT_MAX_BYTES = 8 * 1024 * 1024
ACCEPTED = "gzip, deflate"  # the encodings ``_read`` inflates itself, under the cap
CONNECT_TIMEOUT = 10.0  # at most this long to connect, within the call's own deadline
USER_AGENT = "eval-bindings"
MAX_CONNECTIONS = 64  # kept connections of one binding's pool (``--jobs`` threads share it)


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context per process: loading the CA bundle costs ~0.1 s each time."""
    import ssl

    return ssl.create_default_context()


class Connections:
    """The httpx client of the threads sharing one binding, made with the first call.

    httpx's pool is thread-safe: each call takes an idle kept connection to its origin or
    opens one, and gives it back once the reply is read whole. :meth:`close` shuts them all,
    the calls in flight on other threads included (an abandoned Sweep: they end at once, never
    at their deadline), and closes the client (a later call makes a new one).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None
        self._backend: Backend | None = None

    def client(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                import httpx

                from eval_bindings.wire.deadline import transport

                made, self._backend = transport(_tls(), MAX_CONNECTIONS)
                self._client = httpx.Client(
                    transport=made,
                    trust_env=False,
                    follow_redirects=False,
                    headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPTED},
                )
            return self._client

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
            backend, self._backend = self._backend, None
        if backend is not None:
            backend.abandon()
        if client is not None:
            client.close()

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
    request is written (httpx checks it); a request that may have reached the server is never
    sent again (no retries).
    """
    import httpx

    from eval_bindings.wire.deadline import until

    deadline = time.monotonic() + timeout
    _target(url)
    payload = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    offered = {"Accept": "application/json", "Content-Type": "application/json", **headers}
    http = client.client()
    limits = httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout))
    with until(deadline):
        request = http.build_request(
            "POST", url, content=payload.encode(), headers=offered, timeout=limits
        )
        try:
            answer = http.send(request, stream=True)
        except httpx.TimeoutException:
            raise _no_reply(url, timeout) from None
        except httpx.ConnectError as exc:
            raise VendorError("model_unreachable", f"cannot connect to {url}: {exc}") from None
        except httpx.HTTPError as exc:
            if time.monotonic() >= deadline:
                raise _no_reply(url, timeout) from None
            raise _mid_reply(url, exc) from None
        try:
            status, retry_after = answer.status_code, answer.headers.get("retry-after")
            data = _read(answer, url, deadline, timeout, max_bytes)
        finally:
            answer.close()  # read whole, its connection goes back to the pool; else closed
    if status == 429:
        raise VendorError(
            "model_rate_limited",
            f"{url} answered 429: {_snippet(data)}",
            retry_after=_retry_after(retry_after),
        )
    if status in (401, 403):
        raise VendorError("model_auth_failed", f"{url} answered {status}: {_snippet(data)}")
    if status >= 500 and _refuses_request(data):
        raise VendorError(
            "model_request_rejected",
            f"{url} answered {status}, naming the request as what it cannot take "
            f"(not retried): {_snippet(data)}",
        )
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


def _target(url: str) -> None:
    """Only an http(s) URL with a host is an endpoint (httpx would try others, or raise)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port out of range raises here
    except ValueError as exc:
        raise VendorError(
            "model_unreachable", f"cannot connect to {url}: {exc}", final=True
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise VendorError(
            "model_unreachable", f"cannot connect to {url}: not an http(s) URL", final=True
        )


def _no_reply(url: str, timeout: float) -> VendorError:
    return VendorError("model_timeout", f"no reply from {url} within {timeout:g}s")


def _unfinished(url: str, timeout: float) -> VendorError:
    return VendorError("model_timeout", f"{url} did not finish its reply within {timeout:g}s")


def _mid_reply(url: str, exc: BaseException) -> VendorError:
    said = str(exc) or type(exc).__name__
    return VendorError("model_malformed_response", f"{url} closed the connection mid-reply: {said}")


def _read(
    response: httpx.Response, url: str, deadline: float, timeout: float, max_bytes: int
) -> bytes:
    """The reply's bytes (de-chunked by httpx), inflated here so no read can exceed the cap."""
    import httpx

    inflate = _inflater(response.headers.get("content-encoding", ""), url)
    chunks: list[bytes] = []
    size = 0
    raw_chunks = response.iter_raw()  # as they arrive: a chunk size would wait to fill it
    while True:
        try:
            raw = next(raw_chunks, b"")
        except httpx.TimeoutException:
            raise _unfinished(url, timeout) from None
        except httpx.HTTPError as exc:
            if time.monotonic() >= deadline:
                raise _unfinished(url, timeout) from None
            raise _mid_reply(url, exc) from None
        if not raw:
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


_UNSUPPORTED = ("not supported", "unsupported")


def _refuses_request(data: bytes) -> bool:
    """A 5xx whose JSON error says the request is at fault, not the server: an
    ``invalid_request_error``, or a part of it the server does not support (llama.cpp answers
    500 "image input is not supported" to an image sent to a text-only model). Sent again, it
    would be refused again: it is not retried as if the provider were down."""
    try:
        check_json_depth(data[:65536])
        error = json.loads(data[:65536]).get("error")
    except (ValueError, AttributeError, TooDeep):
        return False
    if not isinstance(error, dict):
        return False
    if error.get("type") == "invalid_request_error":
        return True
    message = error.get("message")
    return isinstance(message, str) and any(w in message.lower() for w in _UNSUPPORTED)


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
