"""The Tool execution port and the catalogue of platform Tools the runtime ships.

The loop decides *whether* a call may run (guards, capability, autonomy); a :class:`ToolExecutor`
decides *what* it returns. The declarations in :data:`PLATFORM_TOOLS` are what a model is shown,
so their descriptions are precise sentences: harnesses hash them and ground Expectations in them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, Protocol

import msgspec

from agent_runtime.declarations import (
    files,
    github,
    integrations,
    platform,
    records,
    slack,
    soul,
)
from agent_runtime.model import ToolCallRequest, ToolSpec

ToolStatus = Literal[
    "succeeded", "failed", "denied", "invalid_arguments", "awaiting_approval", "awaiting_retry"
]
PARKED: frozenset[str] = frozenset({"awaiting_approval", "awaiting_retry"})
"""Outcomes that are no answer yet: the Tool's provider waits on an approval, or asks to be
retried later. The loop parks the call; nothing is reported to the model or recorded as an
effect."""


class ToolOutcome(msgspec.Struct, frozen=True):
    """What one executed call returned; ``reason`` explains anything but success.

    A parked outcome names what the provider waits on (``wait_id``) and, for a retry, when to
    come back (``retry_after_ms``; the runtime's default backoff when the provider is silent).
    """

    status: ToolStatus
    output: Any = None
    reason: str | None = None
    wait_id: str | None = None
    retry_after_ms: int | None = None
    attach: tuple[str, ...] = ()
    """Files this call attaches to the next model request (a ``file_read`` of a PDF, an image
    or an office document): re-read from the store when that request is made."""


class ToolExecutor(Protocol):
    """Runs a call that every gate let through."""

    def execute(self, call: ToolCallRequest) -> ToolOutcome: ...


PLATFORM_TOOLS: Mapping[str, ToolSpec] = MappingProxyType(
    {
        t.name: t
        for domain in (platform, files, github, slack, soul, records, integrations)
        for t in domain.DECLARED
    }
)
"""The shipped platform Tool declarations, by name (:mod:`agent_runtime.declarations`)."""
