"""One HTTP exchange with a vendor, every fault named as a ``model_*`` reason.

A vendor failure is never a verdict: whatever goes wrong on the wire (a status, a timeout, a
refused connection, a body that is not JSON) becomes a :class:`VendorError` the Host turns into
an errored Trial. ``transient`` marks the faults worth another attempt.
"""

from __future__ import annotations

import email.utils
import time
from typing import Any

import httpx

from eval_core.host import ModelError

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


def post_json(
    client: httpx.Client, url: str, headers: dict[str, str], body: dict[str, Any], timeout: float
) -> Any:
    """POST ``body`` and return the decoded JSON reply, or raise a :class:`VendorError`."""
    limits = httpx.Timeout(timeout, connect=min(timeout, 10.0))
    try:
        response = client.post(url, headers=headers, json=body, timeout=limits)
    except httpx.TimeoutException as exc:
        raise VendorError("model_timeout", f"no reply from {url} within {timeout:g}s") from exc
    except httpx.ConnectError as exc:
        raise VendorError("model_unreachable", f"cannot connect to {url}: {exc}") from exc
    except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
        raise VendorError(
            "model_malformed_response", f"{url} closed the connection mid-reply: {exc}"
        ) from exc
    except httpx.HTTPError as exc:
        raise VendorError("model_unreachable", f"{url}: {type(exc).__name__}: {exc}") from exc
    status = response.status_code
    if status == 429:
        raise VendorError(
            "model_rate_limited",
            f"{url} answered 429: {_snippet(response)}",
            retry_after=_retry_after(response.headers.get("retry-after")),
        )
    if status in (401, 403):
        raise VendorError("model_auth_failed", f"{url} answered {status}: {_snippet(response)}")
    if status >= 500:
        raise VendorError(
            "model_provider_unavailable",
            f"{url} answered {status}: {_snippet(response)}",
            retry_after=_retry_after(response.headers.get("retry-after")),
        )
    if status >= 400:
        raise VendorError(
            "model_request_rejected", f"{url} answered {status}: {_snippet(response)}"
        )
    try:
        return response.json()
    except ValueError as exc:
        raise VendorError(
            "model_malformed_response",
            f"{url} answered {status} with a body that is not JSON: {_snippet(response)}",
        ) from exc


def _snippet(response: httpx.Response, limit: int = 200) -> str:
    text = " ".join(response.text.split())
    return repr(text[:limit] + ("…" if len(text) > limit else ""))


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
