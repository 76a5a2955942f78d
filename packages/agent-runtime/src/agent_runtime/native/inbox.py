"""The durable native inbox: events from native channels, persisted, then claimed under a fence.

An event (a GitHub issue event for ``eval/native#42``...) is stored first, so a crash never
loses it. A worker claims it with a lease; each claim bumps the row's ``fence``, so a worker
whose lease was taken over can tell, and every write it makes afterwards is refused. Errors are
recorded on the row with stable codes, so an operator sees why an event started nothing.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import msgspec

from agent_runtime.native.routes import NativeRoutes
from agent_runtime.store.database import Connection, skip_locked
from agent_runtime.store.storage import atomic

Clock = Callable[[], float]
LEASE_SECONDS = 30.0


class InboxClaimRefusedError(Exception):
    """The event is not claimable: admitted already, or another worker holds a live lease."""


class InboxClaim(msgspec.Struct, frozen=True):
    """A worker's claim on one inbox event; ``fence`` guards every write it makes."""

    event_id: str
    owner: str
    fence: int


class InboxEvent(msgspec.Struct, frozen=True):
    """One inbox row as stored."""

    id: str
    channel: str
    destination: str
    routine: str
    account_id: str
    payload: Any
    status: str
    lease_owner: str | None
    fence: int
    run_id: str | None
    error_code: str | None
    error_message: str | None
    event_type: str | None = None
    """What happened at the channel (``issues.opened``), as the channel delivered it."""
    resolved_account: str | None = None
    """The account the account authority resolved when admission last ran (the payload's
    claim is never it)."""


_COLUMNS = (
    "id, channel, destination, routine, account_id, payload, status, lease_owner, fence, "
    "run_id, error_code, error_message, event_type, resolved_account"
)


class NativeInbox:
    """The inbox over one connection (one per worker: claims race through the database)."""

    __slots__ = ("clock", "conn")

    def __init__(self, conn: Connection, clock: Clock = time.time) -> None:
        self.conn = conn
        self.clock = clock

    def receive(
        self,
        channel: str,
        destination: str,
        account_id: str,
        payload: Any,
        *,
        event_id: str | None = None,
        event_type: str | None = None,
    ) -> str:
        """Persist an event routed by the current route of its destination; its id (the
        channel's own delivery id when it gives one)."""
        route = NativeRoutes(self.conn).get(destination)
        if route is None:
            raise LookupError(f"no native route for destination {destination}")
        event_id = event_id or f"inbox_{uuid.uuid4().hex[:16]}"
        with atomic(self.conn) as conn:
            conn.execute(
                "INSERT INTO native_inbox (id, channel, destination, routine, account_id, "
                "payload, status, fence, event_type) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?)",
                (
                    event_id,
                    channel,
                    destination,
                    route.routine,
                    account_id,
                    json.dumps(payload, separators=(",", ":")),
                    event_type,
                ),
            )
        return event_id

    def claim(self, event_id: str, owner: str, ttl: float = LEASE_SECONDS) -> InboxClaim:
        """Take the event's lease (pending, or claimed under an expired lease); bump the fence.

        One conditional UPDATE decides the race: of two claimers, exactly one changes the row
        (on PostgreSQL the other skips the row the winner has locked and is refused at once).
        """
        now = self.clock()
        with atomic(self.conn) as conn:
            cursor = conn.execute(
                "UPDATE native_inbox SET status = 'claimed', lease_owner = ?, "
                "lease_expires_at = ?, fence = fence + 1 WHERE id = (SELECT id FROM native_inbox "
                "WHERE id = ? AND run_id IS NULL AND "
                "(status = 'pending' OR (status = 'claimed' AND lease_expires_at <= ?))"
                f"{skip_locked(conn)})",
                (owner, now + ttl, event_id, now),
            )
            if cursor.rowcount != 1:
                raise InboxClaimRefusedError(f"inbox event {event_id} is not claimable by {owner}")
            fence = conn.execute(
                "SELECT fence FROM native_inbox WHERE id = ?", (event_id,)
            ).fetchone()[0]
        return InboxClaim(event_id, owner, int(fence))

    def revoke_claim(self, event_id: str) -> None:
        """The operator takes a claim back from its worker: the fence moves, so every later
        write of that worker's claim is refused, and the event goes back to the queue for the
        next worker (left claimed without a lease, no worker could ever claim it again)."""
        with atomic(self.conn) as conn:
            conn.execute(
                "UPDATE native_inbox SET status = 'pending', fence = fence + 1, "
                "lease_owner = NULL, lease_expires_at = NULL "
                "WHERE id = ? AND run_id IS NULL AND status IN ('claimed', 'admitting')",
                (event_id,),
            )

    def record_error(
        self, claim: InboxClaim, code: str, message: str, resolved_account: str | None = None
    ) -> None:
        """Note why admission refused the event, and the account it had resolved before it
        stopped (``None``: none), in its own transaction (after any rollback).

        A row another worker already admitted keeps its Run and no error.
        """
        with atomic(self.conn) as conn:
            conn.execute(
                "UPDATE native_inbox SET error_code = ?, error_message = ?, resolved_account = ?, "
                "status = CASE WHEN fence = ? THEN 'refused' ELSE status END "
                "WHERE id = ? AND run_id IS NULL",
                (code, message, resolved_account, claim.fence, claim.event_id),
            )

    def get(self, event_id: str) -> InboxEvent | None:
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM native_inbox WHERE id = ?",
            (event_id,),
        ).fetchone()
        if row is None:
            return None
        return InboxEvent(
            id=row[0],
            channel=row[1],
            destination=row[2],
            routine=row[3],
            account_id=row[4],
            payload=json.loads(row[5]),
            status=row[6],
            lease_owner=row[7],
            fence=int(row[8]),
            run_id=row[9],
            error_code=row[10],
            error_message=row[11],
            event_type=row[12],
            resolved_account=row[13],
        )
