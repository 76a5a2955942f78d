"""The MCP account authority: which account, if any, an MCP call may act for in a chat.

Accounts, shared grants, shared consent, the chat's visibility and the selected account are
durable runtime state (tables of the ``MCP accounts`` migration), written by the operator's
side, never by model arguments. :func:`resolve` is the one decision every MCP dispatch goes
through, at the moment of the call (after any approval wait), so a grant revoked while a call
waited for approval blocks it. It never falls back: when the chosen account cannot act, the
call is refused, naming why.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from agent_runtime.store.database import Connection

DENIED = "account access denied"
REQUIRED = "account required"
SELECTION = "account selection required"
EXPIRED = "account expired"
PRIVATE = "private context required"
CONSENT = "shared consent required"
"""Each refusal begins with the original's reason, then says which account and why."""

DDL = """
CREATE TABLE mcp_chats (
    conversation_id TEXT PRIMARY KEY,
    visibility TEXT NOT NULL CHECK (visibility IN ('private', 'shared'))
);
CREATE TABLE mcp_accounts (
    conversation_id TEXT NOT NULL,
    id TEXT NOT NULL,
    scope TEXT NOT NULL CHECK (scope IN ('personal', 'shared')),
    status TEXT NOT NULL CHECK (status IN ('active', 'action_required', 'revoked')),
    is_default INTEGER NOT NULL,
    expires_at TEXT,
    PRIMARY KEY (conversation_id, id)
);
CREATE TABLE mcp_grants (
    conversation_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('granted', 'revoked')),
    PRIMARY KEY (conversation_id, account_id)
);
CREATE TABLE mcp_selections (
    conversation_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    shared_consent INTEGER NOT NULL
)
"""


class Decision(msgspec.Struct, frozen=True):
    """The authority's answer: the account to act for (with the credential it connects with),
    or the reason the call is refused."""

    account_id: str | None
    reason: str | None = None
    credential: str | None = None


class Account(msgspec.Struct, frozen=True):
    """One connected account of a chat; ``credential`` authenticates it at the provider."""

    id: str
    scope: str
    status: str
    credential: str
    is_default: bool = False
    expires_at: str | None = None


def connect_chat(conn: Connection, conversation_id: str, visibility: str) -> None:
    """The chat's MCP visibility (``private`` or ``shared``): operator state."""
    conn.execute(
        "INSERT INTO mcp_chats (conversation_id, visibility) VALUES (?, ?)",
        (conversation_id, visibility),
    )


def add_account(conn: Connection, conversation_id: str, account: Account) -> None:
    conn.execute(
        "INSERT INTO mcp_accounts (conversation_id, id, scope, status, is_default, expires_at, "
        "credential) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            conversation_id,
            account.id,
            account.scope,
            account.status,
            1 if account.is_default else 0,
            account.expires_at,
            account.credential,
        ),
    )


def grant(conn: Connection, conversation_id: str, account_id: str) -> None:
    """A durable shared grant of a shared account to the chat."""
    conn.execute("INSERT INTO mcp_grants VALUES (?, ?, 'granted')", (conversation_id, account_id))


def select(conn: Connection, conversation_id: str, account_id: str, shared_consent: bool) -> None:
    """The account the chat selected, and whether the user consented to sharing it."""
    conn.execute(
        "INSERT INTO mcp_selections VALUES (?, ?, ?)",
        (conversation_id, account_id, 1 if shared_consent else 0),
    )


def revoke_grant(conn: Connection, conversation_id: str, account_id: str) -> bool:
    """Revoke a durable shared grant; true when a granted grant was revoked."""
    cursor = conn.execute(
        "UPDATE mcp_grants SET status = 'revoked' "
        "WHERE conversation_id = ? AND account_id = ? AND status = 'granted'",
        (conversation_id, account_id),
    )
    return cursor.rowcount > 0


def _expired(expires_at: str | None, now: datetime) -> bool:
    if not expires_at:
        return False
    moment = datetime.fromisoformat(expires_at.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment <= now


def resolve(conn: Connection, conversation_id: str, now: datetime | None = None) -> Decision:
    """The account an MCP call in this chat acts for, or why none may."""
    now = now or datetime.now(UTC)
    chat = conn.execute(
        "SELECT visibility FROM mcp_chats WHERE conversation_id = ?", (conversation_id,)
    ).fetchone()
    if chat is None:
        return Decision(None, f"{REQUIRED}: no MCP account is connected to this chat")
    visibility = chat[0]
    accounts = {
        row[0]: row[1:]
        for row in conn.execute(
            "SELECT id, scope, status, is_default, expires_at, credential FROM mcp_accounts "
            "WHERE conversation_id = ? ORDER BY id",
            (conversation_id,),
        )
    }
    selection = conn.execute(
        "SELECT account_id, shared_consent FROM mcp_selections WHERE conversation_id = ?",
        (conversation_id,),
    ).fetchone()
    chosen = _chosen(accounts, selection)
    if isinstance(chosen, Decision):
        return chosen
    found = accounts.get(chosen)
    if found is None:
        return Decision(None, f"{REQUIRED}: account {chosen} is not connected")
    refused = _account_refusal(chosen, found, visibility, now)
    if refused is None and found[0] == "shared":
        refused = _shared_refusal(conn, conversation_id, chosen, selection)
    if refused is not None:
        return Decision(None, refused)
    return Decision(chosen, credential=found[4])


def _chosen(accounts: dict[str, Any], selection: Any) -> str | Decision:
    """The account the chat selected; else its personal default or its one account; else why
    none is chosen (a lone default that is not personal is shared: it acts only when selected)."""
    if selection is not None:
        chosen: str = selection[0]
    else:
        defaults = [a for a, row in accounts.items() if row[2]]
        personal = [a for a in defaults if accounts[a][0] == "personal"]
        if personal:
            chosen = personal[0]  # the personal default is preferred
        elif len(defaults) == 1 and accounts[defaults[0]][0] == "shared":
            reason = f"shared account {defaults[0]} acts only when selected"
            return Decision(None, f"{REQUIRED}: {reason}")
        elif len(accounts) == 1:
            chosen = next(iter(accounts))
        else:
            return Decision(None, f"{SELECTION}: several accounts could act; select one")
    return chosen


def _account_refusal(chosen: str, found: Any, visibility: str, now: datetime) -> str | None:
    """Why the chosen account itself may not act: not active, expired, or personal in a
    shared chat."""
    scope, status, _default, expires_at, _credential = found
    if status != "active":
        return f"{DENIED}: account {chosen} is {status}"
    if _expired(expires_at, now):
        return f"{EXPIRED}: account {chosen} expired; reconnect it"
    if scope == "personal" and visibility == "shared":
        return f"{PRIVATE}: personal account {chosen} cannot enter a shared chat"
    return None


def _shared_refusal(
    conn: Connection, conversation_id: str, chosen: str, selection: Any
) -> str | None:
    """Why a shared account may not act: no shared consent with its selection, or no grant
    (or a revoked one) to this chat."""
    consent = selection is not None and bool(selection[1])
    if not consent:
        return f"{CONSENT}: shared account {chosen} needs shared consent"
    grant = conn.execute(
        "SELECT status FROM mcp_grants WHERE conversation_id = ? AND account_id = ?",
        (conversation_id, chosen),
    ).fetchone()
    if grant is None:
        return f"{DENIED}: shared account {chosen} has no grant"
    if grant[0] != "granted":
        return f"{DENIED}: the grant of shared account {chosen} was revoked"
    return None
