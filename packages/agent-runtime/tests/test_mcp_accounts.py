"""The MCP account authority's operator side on real SQLite and PostgreSQL: revoking a shared
grant says whether it revoked one, and the next decision honours it."""

from __future__ import annotations

from agent_runtime.mcp import accounts
from agent_runtime.store.storage import StoreTemplate


def test_a_revoke_says_whether_it_revoked_a_grant(template: StoreTemplate) -> None:
    conn = template.fresh()
    chat = "conv-revoke"
    accounts.connect_chat(conn, chat, "shared")
    accounts.add_account(conn, chat, accounts.Account("team", "shared", "active", "cred-team"))
    accounts.select(conn, chat, "team", shared_consent=True)
    assert not accounts.revoke_grant(conn, chat, "team")  # never granted: nothing to revoke
    accounts.grant(conn, chat, "team")
    assert accounts.resolve(conn, chat).account_id == "team"
    assert accounts.revoke_grant(conn, chat, "team")
    assert not accounts.revoke_grant(conn, chat, "team")  # already revoked
    refused = accounts.resolve(conn, chat)
    assert refused.account_id is None
    assert refused.reason == "account access denied: the grant of shared account team was revoked"


def test_a_chat_no_account_was_connected_to_acts_for_none(template: StoreTemplate) -> None:
    """A published MCP Tool called in a chat the operator never connected (no ``mcp_chats``
    row) is refused with the reason, not a crash: accounts connected to another chat do not
    count."""
    conn = template.fresh()
    accounts.connect_chat(conn, "conv-other", "private")
    accounts.add_account(conn, "conv-other", accounts.Account("mine", "personal", "active", "c"))
    refused = accounts.resolve(conn, "conv-never-connected")
    assert refused.account_id is None and refused.credential is None
    assert refused.reason == "account required: no MCP account is connected to this chat"
