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
