"""The MCP host state a LangGraph Trial offers fixtures: MCP connections by server id.

A fixture serving MCP servers on loopback tells the Host which server ids it serves and with
which accounts. LangGraph has no account authority of its own, so the Host hands the agent one
langchain-mcp-adapters connection per served server id, authorised as the account the chat acts
for (the selected one, else the default, else the only one); the team's builder receives them
as ``connections`` and loads the Tools with its own MCP client. The Host offers no account
authority (grants, revocations) and no approval desk: a family that needs them asks at load
whether the Host offers them and refuses the Case there, so nothing here is silently ignored.
"""

from __future__ import annotations

from typing import Any

from eval_core.records import McpAccount


class McpConnections:
    """The mcp fixture's host state for one Trial, as MCP connections by server id."""

    __slots__ = ("_accounts", "_default", "_selected", "_urls")

    def __init__(self) -> None:
        self._urls: dict[str, str] = {}
        self._accounts: dict[str, str] = {}  # account id -> its credential at the provider
        self._default: str | None = None
        self._selected: str | None = None

    def connect_integration(self, integration: str, url: str) -> None:
        self._urls[integration] = url

    def connect_chat(self, visibility: str) -> None:
        del visibility  # a graph has no shared chats: nothing here reads who may see one

    def add_account(self, account: McpAccount) -> None:
        # its scope, status and expiry: refused at load unless they cannot matter
        self._accounts[account.account_id] = account.credential
        if account.is_default:
            self._default = account.account_id

    def select(self, account_id: str, shared_consent: bool) -> None:
        del shared_consent
        self._selected = account_id

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
