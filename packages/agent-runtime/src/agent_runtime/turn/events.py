"""The events a Turn emits and their payloads: what a listener hears, and how values are shown.

A Turn always has a listener: :data:`NO_LISTENER` hears nothing, so the loop never asks whether
someone listens. Payloads carry digests and bounded previews, never a whole value of unbounded
size.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Literal

import msgspec

from agent_runtime.guards.guardrails import GuardrailConfig
from agent_runtime.model import ToolCallRequest
from agent_runtime.tools import ToolOutcome
from agent_runtime.turn import plain_json
from agent_runtime.turn.result import DenialSource, LoopStatus, TurnResult

Listener = Callable[[str, dict[str, Any]], None]
TurnFinish = Literal["succeeded", "failed", "cancelled"]
"""The status of the ``turn.finished`` event: a Turn that parked has not finished."""


def _hears_nothing(name: str, payload: dict[str, Any]) -> None:
    """The listener of a Turn nobody listens to."""


NO_LISTENER: Listener = _hears_nothing

PARTICIPANT_EVENTS = frozenset(
    {"turn.started", "text.delta", "tool.call", "tool.result", "approval.requested"}
    | {"guardrail.blocked", "turn.finished"}
)
"""The events of the participant audience; every other event is for the operator."""

PREVIEW_BYTES = 65_536
"""The most of a value's JSON a ``tool.call``/``tool.result`` preview carries."""

_CHUNK = re.compile(r"[^.!?\n]*(?:[.!?]+|\n)\s*|[^.!?\n]+")


def finish_status(status: LoopStatus) -> TurnFinish | None:
    """The ``turn.finished`` status of a loop status; ``None`` while the Turn is parked."""
    if status == "completed":
        return "succeeded"
    if status == "failed":
        return "failed"
    return None


def finished_payload(
    status: TurnFinish, message_id: str | None, reason: str | None, result: TurnResult
) -> dict[str, Any]:
    """The ``turn.finished`` payload: status, the Message it produced (``None`` without one),
    the reason, and how many model calls the Turn made."""
    payload: dict[str, Any] = {"status": status, "messageId": message_id}
    if reason is not None:
        payload["reason"] = reason
    payload["modelCallCount"] = result.model_calls
    return payload


def preview(value: Any) -> dict[str, Any]:
    """``{json, bytes, truncated?}``: a value's compact JSON, cut at :data:`PREVIEW_BYTES`."""
    text = compact_json(value)
    size = len(text.encode())
    if size <= PREVIEW_BYTES:
        return {"json": text, "bytes": size}
    cut = text.encode()[:PREVIEW_BYTES].decode(errors="ignore")
    return {"json": cut, "bytes": size, "truncated": True}


def result_payload(call_id: str, outcome: ToolOutcome) -> dict[str, Any]:
    """A ``tool.result`` payload: ``ok`` or ``error`` with the dispatch status as ``errorCode``
    and the reason as ``summary``; the output as a preview."""
    payload: dict[str, Any] = {"callId": call_id}
    if outcome.status == "succeeded":
        payload["status"] = "ok"
    else:
        payload["status"] = "error"
        payload["errorCode"] = outcome.status
    if outcome.reason is not None:
        payload["summary"] = outcome.reason
    if outcome.output is not None:
        payload["resultPreview"] = preview(outcome.output)
    return payload


def call_payload(call: ToolCallRequest) -> dict[str, Any]:
    """A ``tool.call`` payload: the call's id and name, a digest and a preview of its arguments."""
    return {
        "callId": call.call_id,
        "name": call.name,
        "argsDigest": canonical_digest(call.arguments),
        "argsPreview": preview(call.arguments),
    }


def denied_payload(call: ToolCallRequest, reason: str, source: DenialSource) -> dict[str, Any]:
    """A ``tool.denied`` payload: the call as the model made it, why, and who refused it."""
    return {
        "call_id": call.call_id,
        "name": call.name,
        "arguments": call.arguments,
        "reason": reason,
        "source": source,
    }


def canonical_digest(value: Any) -> str:
    """``sha256:<hex>`` of a canonical JSON encoding (keys sorted, no whitespace)."""
    encoded = _CANONICAL(value)
    return "sha256:" + hashlib.sha256(encoded.encode()).hexdigest()


@lru_cache(maxsize=64)
def policy_digest(policy: GuardrailConfig) -> str:
    """The guard policy's digest, once per policy (a Turn's most expensive digest)."""
    return canonical_digest(policy)


@lru_cache(maxsize=256)
def context_digest(agent_slug: str, system: str) -> str:
    """The digest of an agent's assembled prompt, once per prompt (Turns share prompts)."""
    return canonical_digest({"id": agent_slug, "prompt": system})


def _plain(value: Any) -> Any:
    if isinstance(value, msgspec.Struct):  # its fields (the guard policy)
        return {name: getattr(value, name) for name in value.__struct_fields__}
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


def text_chunks(text: str) -> list[str]:
    """The streamed pieces of an answer: sentence by sentence, joining back to ``text``."""
    return _CHUNK.findall(text)


# What json.dumps builds per call, built once (an encoder keeps no state between encodes);
# a plain value is spelt by msgspec, the same text (:mod:`agent_runtime.turn.plain_json`).
_CANONICAL = plain_json.encoder(sort_keys=True, default=_plain)
_COMPACT = plain_json.encoder(sort_keys=False, default=str)


def compact_json(value: Any) -> str:
    """A value's JSON with no whitespace, keys in their order (what the model is shown)."""
    return _COMPACT(value)
