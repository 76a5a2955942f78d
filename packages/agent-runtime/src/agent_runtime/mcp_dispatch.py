"""MCP dispatch: a model's call of an exposed ``mcp_*`` Tool, through the account authority,
to the provider.

The dispatcher acts for the account :func:`agent_runtime.mcp_accounts.resolve` picks at the
moment of the call (after the approval wait), never for an account the model names: the
model's arguments are passed through as ``arguments``; the namespace and account are host
state. ``attempts`` counts what reached the dispatcher, which is not what reached the provider:
a refused call never leaves the runtime.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_runtime.mcp_accounts import resolve
from agent_runtime.mcp_client import McpProvider, ProviderUnavailable
from agent_runtime.mcp_integrations import McpTool
from agent_runtime.model import ToolCallRequest, ToolSpec
from agent_runtime.tools import ToolOutcome

CALLS_RESOURCE = "eval://calls/{namespace}"


def reviewed(tools: Sequence[ToolSpec], published: Mapping[str, McpTool]) -> list[ToolSpec]:
    """The Turn's Tools with every published MCP Tool marked for review (an approval wait)."""
    return [replace(t, reviewed=True) if t.name in published else t for t in tools]


class McpDispatcher:
    """Routes exposed MCP Tool calls of one chat to the provider, through the authority."""

    __slots__ = ("attempts", "conn", "conversation_id", "namespace", "provider", "published")

    def __init__(
        self,
        conn: sqlite3.Connection,
        conversation_id: str,
        published: Mapping[str, McpTool],
        provider: McpProvider | None,
        namespace: str,
    ) -> None:
        self.conn = conn
        self.conversation_id = conversation_id
        self.published = published
        self.provider = provider
        self.namespace = namespace
        self.attempts = 0

    def handles(self, name: str) -> bool:
        return name in self.published

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.attempts += 1
        tool = self.published[call.name]
        decision = resolve(self.conn, self.conversation_id)
        if decision.account_id is None:
            return ToolOutcome("denied", None, decision.reason)
        if self.provider is None:
            return ToolOutcome("failed", None, "the MCP provider is not running")
        arguments: dict[str, Any] = dict(call.arguments) if isinstance(call.arguments, dict) else {}
        try:
            is_error, structured, text = self.provider.call_tool(
                tool.tool,
                {
                    "namespace": self.namespace,
                    "account_id": decision.account_id,
                    "arguments": arguments,
                },
            )
        except ProviderUnavailable as error:
            return ToolOutcome("failed", None, str(error))
        if is_error:
            return ToolOutcome("failed", {"text": text}, f"the MCP provider refused: {text}")
        return ToolOutcome("succeeded", {"structuredContent": structured, "text": text})


def provider_calls(provider: McpProvider | None, namespace: str) -> int | None:
    """The ``tools/call`` requests the provider says it served in ``namespace``; ``None`` when
    it cannot be asked (not observed is never zero)."""
    if provider is None:
        return None
    try:
        data = provider.read_json(CALLS_RESOURCE.format(namespace=namespace))
    except ProviderUnavailable:
        return None
    count = data.get("toolsCall") if isinstance(data, dict) else None
    return count if isinstance(count, int) else None
