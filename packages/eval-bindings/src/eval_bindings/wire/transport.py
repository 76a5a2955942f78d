"""One HTTP exchange with a vendor, every fault named as a ``model_*`` reason.

A vendor failure is never a verdict: whatever goes wrong on the wire (a status, a timeout, a
refused connection, a body that is not JSON) becomes a :class:`VendorError` the Host turns into
an errored Trial. ``transient`` marks the faults worth another attempt.
"""

from __future__ import annotations

import email.utils
import json
import time
import zlib
from typing import Any

import httpx

from eval_core.host import ModelError
from eval_core.limits import TooDeep, check_json_depth

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


def post_json(
    client: httpx.Client,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    timeout: float,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Any:
    """POST ``body`` and return the decoded JSON reply, or raise a :class:`VendorError`.

    ``timeout`` bounds the whole call, not each read: a server that trickles its reply a byte
    at a time is cut off at the deadline (a read already waiting may add one read timeout).
    ``max_bytes`` bounds the reply as decompressed, counted while it streams: a small body
    that inflates to gigabytes is refused before it is held in memory.
    """
    deadline = time.monotonic() + timeout
    limits = httpx.Timeout(timeout, connect=min(timeout, 10.0))
    try:
        offered = {"Accept-Encoding": ACCEPTED, **headers}
        with client.stream("POST", url, headers=offered, json=body, timeout=limits) as response:
            status, retry_after = response.status_code, response.headers.get("retry-after")
            data = _read(response, url, deadline, timeout, max_bytes)
    except httpx.TimeoutException as exc:
        raise VendorError("model_timeout", f"no reply from {url} within {timeout:g}s") from exc
    except httpx.ConnectError as exc:
        raise VendorError("model_unreachable", f"cannot connect to {url}: {exc}") from exc
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.DecodingError) as exc:
        raise VendorError(
            "model_malformed_response", f"{url} closed the connection mid-reply: {exc}"
        ) from exc
    except httpx.HTTPError as exc:
        raise VendorError("model_unreachable", f"{url}: {type(exc).__name__}: {exc}") from exc
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


def _read(
    response: httpx.Response, url: str, deadline: float, timeout: float, max_bytes: int
) -> bytes:
    """The reply's bytes, inflated here (not by httpx) so no single chunk can exceed the cap."""
    inflate = _inflater(response.headers.get("content-encoding", ""), url)
    chunks: list[bytes] = []
    size = 0
    for raw in response.iter_raw():
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
            raise VendorError(
                "model_timeout", f"{url} did not finish its reply within {timeout:g}s"
            )
    return b"".join(chunks)


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
