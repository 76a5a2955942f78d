"""Admission of a Routine from a claimed native inbox event, in one database transaction.

Everything admission writes (the Run, its State, the request Artifact, the invocation and the
inbox row's correlation with the Run) commits together or not at all. The account is resolved
through the account authority, never the event payload; the route must still name the Routine
the event was routed to; the claim's fence is checked again by the very write that correlates
the inbox row, so a worker that lost its lease mid-admission leaves nothing behind. A refusal is
recorded on the inbox row with a stable code, after the rollback, in its own transaction, with
the account the authority had resolved by then (none when the authority refused it).

The admitted Run is a Routine Run (``source: routine``) whose identity says who it acts for, as
the original records it: initiated by the channel's integration, acting for the person who
approved the route, its guardrail context the inbox event
(``native-channel-inbox:<event id>``); its ``bundle`` is the published Routine the route's
approval pinned. Its request Artifact is the Routine's manual request:
``{slug, inputs: {nativeChannel: {channel, destination, eventType, eventId, payload}}}``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import msgspec

from agent_runtime.native.accounts import AccountAuthority, AccountRefusedError, ResolvedAccount
from agent_runtime.native.inbox import InboxClaim, InboxEvent, NativeInbox
from agent_runtime.native.routes import NativeRoutes, Route
from agent_runtime.store.database import Connection
from agent_runtime.store.storage import atomic

LEASE_LOST = "native_delivery_lease_lost"
ROUTE_CHANGED = "native_routine_route_changed"
APPROVAL_REQUIRED = "routine_approval_required"
"""The account authority does not let the Routine act for the account (unknown or revoked)."""
SOURCE = "routine"
GUARDRAIL_CONTEXT = "native-channel-inbox"

Hook = Callable[[Connection], None]


class AdmissionRefusedError(Exception):
    """Admission stopped; ``code`` is the stable code recorded on the inbox row."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Admitted(msgspec.Struct, frozen=True):
    run_id: str
    state_id: str


class Refused(msgspec.Struct, frozen=True):
    code: str
    message: str


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _held_event(conn: Connection, claim: InboxClaim) -> InboxEvent:
    """The claimed event, while ``claim`` still holds it (a write: it takes the lock first)."""
    cursor = conn.execute(
        "UPDATE native_inbox SET status = 'admitting' WHERE id = ? AND fence = ? AND "
        "lease_owner = ? AND status = 'claimed' AND run_id IS NULL",
        (claim.event_id, claim.fence, claim.owner),
    )
    event = NativeInbox(conn).get(claim.event_id)
    if cursor.rowcount != 1 or event is None:
        raise AdmissionRefusedError(
            LEASE_LOST, f"{claim.owner} no longer holds inbox event {claim.event_id}"
        )
    return event


def _resolve_account(conn: Connection, event: InboxEvent) -> ResolvedAccount:
    """Who may act, as the account authority says now (not as the event claims)."""
    try:
        return AccountAuthority(conn).resolve(event.account_id)
    except AccountRefusedError as refused:
        raise AdmissionRefusedError(APPROVAL_REQUIRED, str(refused)) from refused


def _current_route(conn: Connection, event: InboxEvent) -> Route:
    route = NativeRoutes(conn).get(event.destination)
    if route is None or route.routine != event.routine:
        now = "no route" if route is None else f"routine {route.routine}"
        raise AdmissionRefusedError(
            ROUTE_CHANGED,
            f"{event.destination} was routed to routine {event.routine}; it now has {now}",
        )
    return route


def identity(event: InboxEvent, route: Route) -> dict[str, Any]:
    """Who a Run admitted from ``event`` acts for."""
    subject = route.owner or route.agent
    return {
        "initiator": {"kind": "integration", "id": event.channel},
        "effectiveSubject": {"kind": "user" if route.owner else "agent", "id": subject},
        "guardrailContextRef": f"{GUARDRAIL_CONTEXT}:{event.id}",
    }


def _insert_run(conn: Connection, route: Route, who: dict[str, Any] | None = None) -> str:
    run_id, conversation_id = _new_id("run"), _new_id("conv")
    conn.execute(
        "INSERT INTO conversations (id, agent) VALUES (?, ?)", (conversation_id, route.agent)
    )
    conn.execute(
        "INSERT INTO runs (id, conversation_id, source, status, identity, bundle) "
        "VALUES (?, ?, ?, 'queued', ?, ?)",
        (
            run_id,
            conversation_id,
            SOURCE,
            None if who is None else _dump(who),
            None if route.bundle is None else _dump(dict(route.bundle)),
        ),
    )
    return run_id


def _insert_rest(
    conn: Connection,
    run_id: str,
    event: InboxEvent,
    route: Route,
    account: ResolvedAccount,
) -> str:
    """The Run's State, its request Artifact and the Routine invocation."""
    state_id = _new_id("state")
    conn.execute(
        "INSERT INTO states (id, run_id, kind, status, generation) "
        "VALUES (?, ?, 'invoke', 'queued', 0)",
        (state_id, run_id),
    )
    request = {
        "slug": route.routine,
        "inputs": {
            "nativeChannel": {
                "channel": event.channel,
                "destination": event.destination,
                "eventType": event.event_type,
                "eventId": event.id,
                "payload": event.payload,
            }
        },
    }
    conn.execute(
        "INSERT INTO request_artifacts (id, run_id, kind, content) VALUES (?, ?, 'request', ?)",
        (_new_id("artifact"), run_id, _dump(request)),
    )
    conn.execute(
        "INSERT INTO routine_invocations (id, run_id, state_id, routine, account_id, inbox_id) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (_new_id("invocation"), run_id, state_id, route.routine, account.account_id, event.id),
    )
    return state_id


def _correlate(conn: Connection, claim: InboxClaim, run_id: str, account: str) -> None:
    """The fenced write: the inbox row takes the Run id only under the claim's own fence."""
    cursor = conn.execute(
        "UPDATE native_inbox SET status = 'admitted', run_id = ?, lease_owner = NULL, "
        "lease_expires_at = NULL, error_code = NULL, error_message = NULL, resolved_account = ? "
        "WHERE id = ? AND fence = ? AND lease_owner = ?",
        (run_id, account, claim.event_id, claim.fence, claim.owner),
    )
    if cursor.rowcount != 1:
        raise AdmissionRefusedError(
            LEASE_LOST,
            f"the fence of inbox event {claim.event_id} moved past {claim.fence} during admission",
        )


def admit(
    conn: Connection, claim: InboxClaim, on_run_inserted: Hook | None = None
) -> Admitted | Refused:
    """Admit the Routine the claimed event names, or refuse it and record why.

    ``on_run_inserted`` runs inside the transaction right after the Run row exists (the seam a
    lost-lease fault uses).
    """
    resolved: str | None = None
    try:
        with atomic(conn):
            event = _held_event(conn, claim)
            account = _resolve_account(conn, event)
            resolved = account.account_id
            route = _current_route(conn, event)
            run_id = _insert_run(conn, route, identity(event, route))
            if on_run_inserted is not None:
                on_run_inserted(conn)
            state_id = _insert_rest(conn, run_id, event, route, account)
            _correlate(conn, claim, run_id, account.account_id)
    except AdmissionRefusedError as refused:
        NativeInbox(conn).record_error(claim, refused.code, str(refused), resolved)
        return Refused(refused.code, str(refused))
    return Admitted(run_id, state_id)
