"""The channels an L3 Trial's chat and the operator's events come through: MCP host state and
the integrations' servers, the native channel's inbox (its deliveries admitted by the runtime's
own driver, :func:`agent_runtime.native.scenario.admit_all`), and the integration a Turn's
answer is delivered back through. Each reads back what the runtime stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent_runtime.durable.replies import Delivery as ReplyDelivery
from agent_runtime.mcp import accounts as mcp_accounts
from agent_runtime.mcp.dispatch import McpEndpoints
from agent_runtime.native import admission
from agent_runtime.native.accounts import AccountAuthority
from agent_runtime.native.inbox import NativeInbox
from agent_runtime.native.routes import NativeRoutes, Route
from agent_runtime.native.scenario import Delivery
from agent_runtime.store.database import Connection
from eval_core.records import Admission, McpAccount, NativeEvent, NativeRoute, Redelivery


class McpHostService:
    """MCP host state of the Trial's chat (accounts, grants, consent, selection) and which
    server serves each integration: operator configuration, never model input."""

    __slots__ = ("conn", "conversation_id", "endpoints")

    def __init__(self, conn: Connection, conversation_id: str, endpoints: McpEndpoints):
        self.conn = conn
        self.conversation_id = conversation_id
        self.endpoints = endpoints

    def connect_integration(self, integration: str, url: str) -> None:
        self.endpoints.connect(integration, url)

    def connect_chat(self, visibility: str) -> None:
        mcp_accounts.connect_chat(self.conn, self.conversation_id, visibility)

    def add_account(self, account: McpAccount) -> None:
        row = mcp_accounts.Account(
            account.account_id,
            account.scope,
            account.status,
            account.credential,
            is_default=account.is_default,
            expires_at=account.expires_at,
        )
        mcp_accounts.add_account(self.conn, self.conversation_id, row)

    def grant(self, account_id: str) -> None:
        mcp_accounts.grant(self.conn, self.conversation_id, account_id)

    def select(self, account_id: str, shared_consent: bool) -> None:
        mcp_accounts.select(self.conn, self.conversation_id, account_id, shared_consent)

    def revoke_grant(self, account_id: str) -> bool:
        return mcp_accounts.revoke_grant(self.conn, self.conversation_id, account_id)


class NativeChannelService:
    """The native channel: accounts and routes as operator state, events delivered to the
    durable inbox. A Trial that delivers events has the runtime's driver claim and admit them
    instead of running a chat Turn."""

    __slots__ = ("conn", "deliveries")

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.deliveries: list[Delivery] = []

    def set_account(self, account_id: str, status: str) -> None:
        AccountAuthority(self.conn).set_status(account_id, status)  # type: ignore[arg-type]

    def set_route(self, route: NativeRoute) -> None:
        NativeRoutes(self.conn).set(
            Route(route.destination, route.routine, route.agent, route.owner, route.bundle)
        )

    def deliver(self, event: NativeEvent) -> str:
        received = NativeInbox(self.conn).receive(
            event.channel,
            event.destination,
            event.account_id,
            event.payload,
            event_id=event.event_id,
            event_type=event.event_type,
        )
        self.deliveries.append(Delivery(received))
        return received

    def after_claim(self, event_id: str, action: Callable[[], None]) -> None:
        """Run ``action`` between the worker's claim and admission (host state moving)."""
        self._delivery(event_id).after_claim.append(action)

    def during_admission(self, event_id: str, action: Callable[[], None]) -> None:
        """Run ``action`` inside admission's transaction, right after the Run row exists."""
        self._delivery(event_id).during_admission.append(action)

    def revoke_claim(self, event_id: str) -> None:
        """The operator takes the event's claim back from its worker (the fence moves)."""
        NativeInbox(self.conn).revoke_claim(event_id)

    def claim_again(self, event_id: str) -> None:
        """Once the first worker's admission ended (admitted, or refused as its claim was
        taken back), a second worker tries to claim the event (a redelivery, a stale listing of
        the queue, the next worker) and, when the inbox lets it, goes on to admit it."""
        self._delivery(event_id).claimed_again = True

    def admission(self, event_id: str) -> Admission:
        return _admission(self.conn, event_id)

    def _delivery(self, event_id: str) -> Delivery:
        for delivery in self.deliveries:
            if delivery.event_id == event_id:
                return delivery
        raise KeyError(f"no native event {event_id} was delivered in this Trial")


def _count(conn: Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def _admission(conn: Connection, event_id: str) -> Admission:
    event = NativeInbox(conn).get(event_id)
    invocation = conn.execute(
        "SELECT run_id, state_id, account_id FROM routine_invocations WHERE inbox_id = ?",
        (event_id,),
    ).fetchone()
    run_id = invocation[0] if invocation is not None else None
    columns = "id, status, source, identity, bundle"
    run_row = (
        conn.execute(f"SELECT {columns} FROM runs WHERE id = ?", (run_id,)).fetchone()
        if run_id is not None
        else conn.execute(
            f"SELECT {columns} FROM runs WHERE source = ? ORDER BY id LIMIT 1",
            (admission.SOURCE,),
        ).fetchone()
    )
    run = (
        None
        if run_row is None
        else {
            "id": run_row[0],
            "status": run_row[1],
            "source": run_row[2],
            "identity": None if run_row[3] is None else json.loads(run_row[3]),
        }
        | ({} if run_row[4] is None else {"bundle": json.loads(run_row[4])})
    )
    state = request = None
    if run is not None:
        state = conn.execute("SELECT status FROM states WHERE run_id = ?", (run["id"],)).fetchone()
        request = conn.execute(
            "SELECT content FROM request_artifacts WHERE run_id = ? AND kind = 'request'",
            (run["id"],),
        ).fetchone()
    inbox_run = event.run_id if event is not None else None
    return Admission(
        run_count=_count(conn, "runs"),
        state_count=_count(conn, "states"),
        artifact_count=_count(conn, "request_artifacts"),
        invocation_count=_count(conn, "routine_invocations"),
        run=run,
        state_status=None if state is None else state[0],
        request=None if request is None else json.loads(request[0]),
        account_id=(
            invocation[2]
            if invocation is not None
            else (None if event is None else event.resolved_account)
        ),
        inbox_run_id=inbox_run,
        inbox_correlated=inbox_run is not None and run is not None and inbox_run == run["id"],
        error=None if event is None else event.error_code,
        inbox_status=None if event is None else event.status,
        error_message=None if event is None else event.error_message,
    )


class ReplyChannelService:
    """The integration the Trial's chat arrived through: each Turn's answer is delivered back
    through the channel a fixture provides (the integration's provider), and the runtime
    settles the Run by what that channel answers; the redeliveries it stored are read back
    from the database."""

    __slots__ = ("channel", "conn")

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.channel: Callable[[str], Any] | None = None

    def route_replies(self, deliver: Callable[[str], Any]) -> None:
        """``deliver(text)`` answers with ``delivered``, ``outcome`` and ``code``."""
        self.channel = deliver

    def deliver(self, conversation_id: str, run_id: str, text: str) -> ReplyDelivery:
        """The runtime's reply channel port, over the fixture's channel."""
        assert self.channel is not None
        answer = self.channel(text)
        return ReplyDelivery(bool(answer.delivered), answer.outcome, answer.code)

    def redeliveries(self) -> list[Redelivery]:
        """Every redelivery wait the database holds, in the order stored."""
        rows = self.conn.execute(
            "SELECT run_id, status, code FROM retry_waits WHERE kind = 'delivery' "
            "ORDER BY due_at, id"
        ).fetchall()
        return [Redelivery(str(run), str(status), code) for run, status, code in rows]
