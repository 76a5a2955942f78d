"""A Tool's provider reached over HTTP, as a Routine's Tool State calls it.

The runtime POSTs ``{"tool", "arguments"}`` with an ``Idempotency-Key`` header and classifies
the reply: 2xx is a success whose JSON body is the output; 429 and 503 ask to be retried
(``Retry-After`` in seconds, or ``error.retryAfterMs`` in the body); anything else is a
failure whose ``error.code`` is kept, and an answer that is not HTTP (or a chunked body cut
short) is a ``malformed_reply`` failure, never a crash of the worker. A reply is read whole up
to :data:`MAX_REPLY_BYTES`: a provider may pad a large answer, and half a body is not an answer.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import urlsplit

import msgspec

if TYPE_CHECKING:  # http.client (with ssl) loads with the first Routine's provider call
    import http.client

MAX_REPLY_BYTES = 1 << 20
RETRYABLE = frozenset({429, 503})


class ProviderReply(msgspec.Struct, frozen=True):
    """What the provider answered: ``success`` with an output, ``retry`` after a while, or a
    ``failure`` with a code."""

    status: Literal["success", "retry", "failure"]
    output: Any = None
    retry_after_ms: int | None = None
    code: str | None = None


class ToolProvider(Protocol):
    def call(self, tool: str, arguments: Any, idempotency_key: str) -> ProviderReply: ...


class HttpToolProvider:
    """One provider endpoint; a connection per call (a provider is reached rarely)."""

    __slots__ = ("timeout", "url")

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.url = url
        self.timeout = timeout

    def call(self, tool: str, arguments: Any, idempotency_key: str) -> ProviderReply:
        import http.client

        target = urlsplit(self.url)
        body = json.dumps({"tool": tool, "arguments": arguments}).encode()
        headers = {"Content-Type": "application/json", "Idempotency-Key": idempotency_key}
        conn = http.client.HTTPConnection(target.hostname or "", target.port, timeout=self.timeout)
        try:
            conn.request("POST", target.path or "/", body, headers)
            response = conn.getresponse()
            data = read_whole(response)
        except OSError as error:
            return ProviderReply("failure", code=f"provider_unreachable: {error}")
        except http.client.HTTPException as error:  # an answer that is not HTTP, or cut short
            return ProviderReply("failure", code=f"malformed_reply ({type(error).__name__})")
        finally:
            conn.close()
        return classify(response.status, response.getheader("Retry-After"), data)


def read_whole(response: http.client.HTTPResponse) -> bytes:
    """The body, all of it (one byte over the limit tells an oversized reply)."""
    return response.read(MAX_REPLY_BYTES + 1)


def classify(status: int, retry_after: str | None, data: bytes) -> ProviderReply:
    if len(data) > MAX_REPLY_BYTES:
        return ProviderReply("failure", code="reply_too_large")
    try:
        decoded: Any = json.loads(data) if data.strip() else None
    except ValueError:
        return ProviderReply("failure", code=f"malformed_reply (HTTP {status})")
    if 200 <= status < 300:
        return ProviderReply("success", output=decoded)
    error = decoded.get("error") if isinstance(decoded, dict) else None
    error = error if isinstance(error, dict) else {}
    code = str(error.get("code") or f"http_{status}")
    if status in RETRYABLE:
        after = error.get("retryAfterMs")
        if not isinstance(after, int) and retry_after is not None and retry_after.isdigit():
            after = int(retry_after) * 1000
        return ProviderReply(
            "retry", retry_after_ms=after if isinstance(after, int) else None, code=code
        )
    return ProviderReply("failure", code=code)
