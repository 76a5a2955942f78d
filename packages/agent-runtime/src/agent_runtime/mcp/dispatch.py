"""MCP dispatch: a model's call of an exposed ``mcp_*`` Tool, through the account authority,
to the integration's server.

The dispatcher acts for the account :func:`agent_runtime.mcp.accounts.resolve` picks at the
moment of the call (after the approval wait), never for an account the model names: the
model's arguments travel unchanged as the ``tools/call`` arguments, over the connection that
account's credential authenticates. Which server serves an integration is host configuration
(:class:`McpEndpoints`) first; the ``transport.url`` the Soul's ``mcp.yaml`` declares serves
when the operator configured none. ``attempts`` counts what reached the dispatcher,
which is not what reached the server: a refused call never leaves the runtime.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_runtime.mcp.accounts import resolve
from agent_runtime.mcp.client import McpClients, ProviderUnavailable
from agent_runtime.mcp.integrations import McpTool
from agent_runtime.model import ToolCallRequest, ToolSpec
from agent_runtime.store.database import Connection
from agent_runtime.tools import ToolOutcome


def reviewed(tools: Sequence[ToolSpec], published: Mapping[str, McpTool]) -> list[ToolSpec]:
    """The Turn's Tools with every published MCP Tool whose review says ``requiresApproval``
    marked for review (an approval wait)."""
    return [
        replace(t, reviewed=True)
        if t.name in published and published[t.name].requires_approval
        else t
        for t in tools
    ]


class McpEndpoints:
    """Which server URL serves each integration (by server id): the operator's configuration,
    which overrides the URL the Soul declares."""

    __slots__ = ("_urls",)

    def __init__(self) -> None:
        self._urls: dict[str, str] = {}

    def connect(self, integration: str, url: str) -> None:
        self._urls[integration] = url

    def url(self, integration: str) -> str | None:
        return self._urls.get(integration)


class McpDispatcher:
    """Routes exposed MCP Tool calls of one chat to their servers, through the authority."""

    __slots__ = ("attempts", "clients", "conn", "conversation_id", "endpoints", "published")

    def __init__(
        self,
        conn: Connection,
        conversation_id: str,
        published: Mapping[str, McpTool],
        endpoints: McpEndpoints,
        clients: McpClients,
    ) -> None:
        self.conn = conn
        self.conversation_id = conversation_id
        self.published = published
        self.endpoints = endpoints
        self.clients = clients
        self.attempts = 0

    def handles(self, name: str) -> bool:
        return name in self.published

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.attempts += 1
        tool = self.published[call.name]
        decision = resolve(self.conn, self.conversation_id)
        if decision.account_id is None:
            return ToolOutcome("denied", None, decision.reason)
        url = self.endpoints.url(tool.integration) or tool.url
        arguments: dict[str, Any] = dict(call.arguments) if isinstance(call.arguments, dict) else {}
        try:
            is_error, structured, text = self.clients.call_tool(
                url, decision.credential or "", tool.tool, arguments
            )
        except ProviderUnavailable as error:
            return ToolOutcome("failed", None, str(error))
        if is_error:
            return ToolOutcome("failed", {"text": text}, f"the MCP provider refused: {text}")
        content = [{"type": "text", "text": text}]
        return ToolOutcome("succeeded", {"content": content, "structuredContent": structured})
