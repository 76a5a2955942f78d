"""One native-channel admission, driven end to end on a real database, then read back.

A ``nativeRoutine`` Case exercises admission only (no chat Turn): the account authority and the
route are seeded, a native event is persisted in the inbox and claimed, the Case's fault breaks
one dependency, :func:`agent_runtime.admission.admit` runs, and the rows it left are read back
as plain data. Nothing here is predicted: every observed value is a database read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from agent_runtime import admission
from agent_runtime.accounts import AccountAuthority
from agent_runtime.native_inbox import NativeInbox
from agent_runtime.native_routes import NativeRoutes, Route

CHANNEL = "github"
ROUTINE = "native-issue-triage"
CHANGED_ROUTINE = "native-issue-triage-v2"
FAULTS = ("lease_lost", "route_changed", "account_revoked")


def _github_issue_event(destination: str, account_id: str, text: str) -> dict[str, Any]:
    """What the native channel delivered: it claims an approved sender; only the authority knows."""
    repo, _, number = destination.partition("#")
    return {
        "action": "opened",
        "repository": {"full_name": repo},
        "issue": {"number": int(number) if number.isdigit() else number, "body": text},
        "sender": {"account": {"id": account_id, "status": "approved"}},
    }


def _bump_fence(event_id: str) -> Callable[[sqlite3.Connection], None]:
    def lose_lease(conn: sqlite3.Connection) -> None:
        conn.execute(
            "UPDATE native_inbox SET fence = fence + 1, lease_owner = 'worker-b' WHERE id = ?",
            (event_id,),
        )

    return lose_lease


def run_native_admission(
    conn: sqlite3.Connection,
    *,
    destination: str,
    account_id: str,
    agent: str,
    text: str,
    fault: str | None = None,
) -> dict[str, Any]:
    """Seed, receive, claim, inject ``fault``, admit; the admission observation."""
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"unknown native fault {fault!r}")
    AccountAuthority(conn).set_status(account_id, "approved")
    NativeRoutes(conn).set(Route(destination, ROUTINE, agent))
    inbox = NativeInbox(conn)
    event_id = inbox.receive(
        CHANNEL, destination, account_id, _github_issue_event(destination, account_id, text)
    )
    claim = inbox.claim(event_id, owner="worker-a")
    if fault == "route_changed":
        NativeRoutes(conn).set(Route(destination, CHANGED_ROUTINE, agent))
    elif fault == "account_revoked":
        AccountAuthority(conn).set_status(account_id, "revoked")
    hook = _bump_fence(event_id) if fault == "lease_lost" else None
    admission.admit(conn, claim, on_run_inserted=hook)
    return observe(conn, event_id)


def _count(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def observe(conn: sqlite3.Connection, event_id: str) -> dict[str, Any]:
    """The admission observation, read from the rows admission left (camelCase, plain data)."""
    event = NativeInbox(conn).get(event_id)
    invocation = conn.execute(
        "SELECT run_id, state_id, account_id FROM routine_invocations WHERE inbox_id = ?",
        (event_id,),
    ).fetchone()
    run_id = invocation[0] if invocation is not None else None
    run_row = (
        conn.execute("SELECT id, status, source FROM runs WHERE id = ?", (run_id,)).fetchone()
        if run_id is not None
        else conn.execute(
            "SELECT id, status, source FROM runs WHERE source = ? ORDER BY id LIMIT 1",
            (admission.SOURCE,),
        ).fetchone()
    )
    run = (
        None if run_row is None else {"id": run_row[0], "status": run_row[1], "source": run_row[2]}
    )
    state = (
        conn.execute("SELECT status FROM states WHERE run_id = ?", (run["id"],)).fetchone()
        if run is not None
        else None
    )
    request = (
        conn.execute(
            "SELECT content FROM request_artifacts WHERE run_id = ? AND kind = 'request'",
            (run["id"],),
        ).fetchone()
        if run is not None
        else None
    )
    inbox_run = event.run_id if event is not None else None
    return {
        "runCount": _count(conn, "runs"),
        "stateCount": _count(conn, "states"),
        "artifactCount": _count(conn, "request_artifacts"),
        "invocationCount": _count(conn, "routine_invocations"),
        "run": run,
        "stateStatus": None if state is None else state[0],
        "request": None if request is None else json.loads(request[0]),
        "accountId": None if invocation is None else invocation[2],
        "inboxRunId": inbox_run,
        "inboxCorrelated": inbox_run is not None and run is not None and inbox_run == run["id"],
        "error": None if event is None else event.error_code,
    }
