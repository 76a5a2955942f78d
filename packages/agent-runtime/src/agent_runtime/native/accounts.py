"""The account authority: which native accounts may start a Routine (approved or revoked).

Admission asks this table, never the event: a native channel's payload says who sent it, but
only the authority says whether that account is still allowed to act.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from agent_runtime.store.database import Connection
from agent_runtime.store.storage import atomic

AccountStatus = Literal["approved", "revoked"]


class AccountRefusedError(Exception):
    """The authority does not let the account act; ``code`` is stable, for the inbox row."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ResolvedAccount(msgspec.Struct, frozen=True):
    account_id: str
    status: AccountStatus


class AccountAuthority:
    """Native accounts over one connection: set their status, resolve them for admission."""

    __slots__ = ("conn",)

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def set_status(self, account_id: str, status: AccountStatus) -> None:
        with atomic(self.conn) as conn:
            conn.execute("DELETE FROM native_accounts WHERE id = ?", (account_id,))
            conn.execute(
                "INSERT INTO native_accounts (id, status) VALUES (?, ?)", (account_id, status)
            )

    def resolve(self, account_id: str) -> ResolvedAccount:
        """The approved account, or :class:`AccountRefusedError` (unknown or revoked)."""
        row = self.conn.execute(
            "SELECT status FROM native_accounts WHERE id = ?", (account_id,)
        ).fetchone()
        if row is None:
            raise AccountRefusedError(
                "native_account_unknown", f"account {account_id} is not known to the authority"
            )
        if row[0] != "approved":
            raise AccountRefusedError(
                "native_account_revoked", f"account {account_id} is {row[0]}, not approved"
            )
        return ResolvedAccount(account_id, "approved")
