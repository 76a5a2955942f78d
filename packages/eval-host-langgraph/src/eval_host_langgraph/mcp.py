"""The MCP services a LangGraph Trial offers the mcp family's fixture.

The fixture serves its real MCP provider on loopback and tells the Host which server ids it
serves and with which accounts. LangGraph has no account authority of its own, so the Host
hands the agent one langchain-mcp-adapters connection per served server id, authorised as the
account the chat acts for (the selected one, else the default, else the only one); the team's
builder receives them as ``connections`` and loads the Tools with its own MCP client. A Case
asking for what LangGraph has no notion of (grants, approvals, a non-active account) is refused
at load (:mod:`eval_host_langgraph.checks`), so nothing here is silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eval_core.records import McpAccount


class McpConnections:
    """The mcp fixture's host state for one Trial, as MCP connections by server id."""

    __slots__ = ("_accounts", "_default", "_selected", "_urls", "visibility")

    def __init__(self) -> None:
        self._urls: dict[str, str] = {}
        self._accounts: dict[str, str] = {}  # account id -> its credential at the provider
        self._default: str | None = None
        self._selected: str | None = None
        self.visibility = "private"

    def connect_integration(self, integration: str, url: str) -> None:
        self._urls[integration] = url

    def connect_chat(self, visibility: str) -> None:
        self.visibility = visibility

    def add_account(self, account: McpAccount) -> None:
        # its scope, status and expiry: refused at load unless they cannot matter
        self._accounts[account.account_id] = account.credential
        if account.is_default:
            self._default = account.account_id

    def grant(self, account_id: str) -> None:
        raise RuntimeError("the langgraph Host has no account grants (refused at load)")

    def select(self, account_id: str, shared_consent: bool) -> None:
        del shared_consent
        self._selected = account_id

    def revoke_grant(self, account_id: str) -> bool:
        raise RuntimeError("the langgraph Host has no account grants (refused at load)")

    def acting_for(self) -> str | None:
        """The account whose credential the agent's MCP client presents."""
        if self._selected is not None:
            return self._selected
        if self._default is not None:
            return self._default
        return next(iter(self._accounts), None)

    def connections(self) -> dict[str, dict[str, Any]]:
        """langchain-mcp-adapters connections, one per served server id (streamable HTTP)."""
        account = self.acting_for()
        headers = {} if account is None else {"Authorization": f"Bearer {self._accounts[account]}"}
        return {
            server: {"transport": "streamable_http", "url": url, "headers": dict(headers)}
            for server, url in self._urls.items()
        }


class NoApprovals:
    """LangGraph Trials park nothing for an operator: the fixture's revocation while an
    approval waits is refused at load, so ``while_pending`` is never asked for one."""

    __slots__ = ()

    def while_pending(self, action: Callable[[], None]) -> None:
        del action
        raise RuntimeError("the langgraph Host has no approvals (refused at load)")
