"""One chat's MCP wiring for a host-run Turn: its account state, its dispatcher, what it saw.

A Host (the eval adapter) builds one per conversation: the chat's accounts, grants, consent
and selection are installed as host state; the Tools the model sees are marked for review from
the *published* bundle; the approval wait is the place a pending grant revocation lands; and
:meth:`observed` reads back, as plain data, the provider's own count of ``tools/call`` requests
beside the dispatcher's attempts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_runtime.mcp_accounts import install, revoke_grant
from agent_runtime.mcp_client import McpProvider
from agent_runtime.mcp_dispatch import McpDispatcher, provider_calls, reviewed
from agent_runtime.mcp_integrations import mcp_integrations_from_bundle
from agent_runtime.model import ToolSpec


class McpChat:
    """The MCP side of one conversation, isolated at the provider by its own namespace."""

    __slots__ = ("conn", "conversation_id", "dispatcher", "pending_revocation", "revoked")

    def __init__(
        self,
        conn: sqlite3.Connection,
        conversation_id: str,
        fixture: dict[str, Any],
        provider: McpProvider | None,
    ) -> None:
        self.conn = conn
        self.conversation_id = conversation_id
        install(conn, conversation_id, fixture)
        self.pending_revocation: str | None = fixture.get("revokeGrantBeforeApproval")
        self.revoked: list[str] = []
        self.dispatcher = McpDispatcher(conn, conversation_id, {}, provider, conversation_id)

    def tools(self, bundle: Path, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        """The Turn's Tools, the published MCP ones marked for an approval wait."""
        return reviewed(tools, mcp_integrations_from_bundle(bundle))

    def executor_for(self, bundle: Path) -> McpDispatcher:
        """The dispatcher, reading the integrations of the bundle this pass loaded."""
        self.dispatcher.published = mcp_integrations_from_bundle(bundle)
        return self.dispatcher

    def while_approval_pends(self) -> None:
        """Host state changes while an approval waits: the Case's grant revocation, once."""
        account = self.pending_revocation
        if account is not None:
            self.pending_revocation = None
            if revoke_grant(self.conn, self.conversation_id, account):
                self.revoked.append(account)

    def observed(self) -> dict[str, Any]:
        """Plain read-back: ``providerCalls`` is ``None`` when the provider could not be asked."""
        dispatcher = self.dispatcher
        return {
            "providerCalls": provider_calls(dispatcher.provider, dispatcher.namespace),
            "dispatcherAttempts": dispatcher.attempts,
            "revokedGrants": list(self.revoked),
        }
