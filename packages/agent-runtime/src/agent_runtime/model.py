"""The model port: the runtime's own request/response types and the protocol a model implements.

The loop only ever talks to a model through :class:`ModelPort`, so a scripted replay, a vendor SDK
and a local server are interchangeable. Types are frozen msgspec Structs, cheap to build on the
hot path and at import, owned by the runtime, not by any caller; :class:`ToolSpec` stays a
dataclass, since callers derive variants of it with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import msgspec


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A Tool as the model sees it; ``mutating`` is what the autonomy ceiling reads.

    ``reviewed`` Tools (MCP Tools) wait for an approval whatever the agent's autonomy.
    ``side_effecting`` Tools act on the world, so the same call is never run twice in a Turn;
    ``participant_activity`` (``visible`` or ``represented``) says how the participant is shown
    the Tool's activity, and is stamped on its events and the Turn's Message."""

    name: str
    description: str
    input_schema: dict[str, Any]
    mutating: bool = False
    reviewed: bool = False
    side_effecting: bool = False
    participant_activity: str | None = None


class ToolCallRequest(msgspec.Struct, frozen=True):
    """One Tool call the model asked for."""

    call_id: str
    name: str
    arguments: Any


class ModelRequest(msgspec.Struct, frozen=True):
    """One model call exactly as sent: the assembled system prompt, the conversation, the Tools.

    ``messages`` use the neutral chat shape: ``{"role": "user", "content": str, "files"?: [...]}``,
    ``{"role": "assistant", "content": str | None, "tool_calls": [{"call_id", "name",
    "arguments"}]}`` and ``{"role": "tool", "tool_call_id": str, "name": str, "content": str}``.
    """

    system: str
    messages: list[dict[str, Any]]
    tools: list[ToolSpec]


class Usage(msgspec.Struct, frozen=True):
    """Token counts of one call (or, summed, of a Turn)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


class ModelResponse(msgspec.Struct, frozen=True):
    """What the model answered: text, Tool calls, or a structured value."""

    text: str | None = None
    tool_calls: list[ToolCallRequest] = msgspec.field(default_factory=list)
    structured: Any = None
    usage: Usage = msgspec.field(default_factory=Usage)
    finish_reason: str = "stop"


class ModelPort(Protocol):
    """Anything that can answer a :class:`ModelRequest`."""

    def complete(self, request: ModelRequest) -> ModelResponse: ...


class ModelFailure(Exception):  # noqa: N818 - the port's public name
    """A vendor failure (rate limit, outage, no configuration): the Turn fails with ``reason``.

    ``reason`` always starts with ``model_`` so a caller can tell a vendor fault from a verdict.
    """

    def __init__(self, reason: str, message: str = "") -> None:
        if not reason.startswith("model_"):
            raise ValueError(f"a ModelFailure reason starts with 'model_', got {reason!r}")
        super().__init__(f"{reason}: {message}" if message else reason)
        self.reason = reason
        self.message = message
