"""Retry waits: a call whose provider asked to be retried later, parked in the database.

A Tool's provider may answer "not now, come back in N ms" (a rate limit, a provider busy).
The runtime parks the call's State ``waiting`` with a row here saying when it is due, instead
of failing the call or sleeping in a worker. The runtime's timer sweep (:func:`wake_due`) puts
due States back in the queue, and the next worker to claim one resumes it from its checkpoint
and dispatches the call again. Everything lives in the row, not in a worker: a wait survives a
restart of the process between the wait and the retry.

A call is retried at most :data:`MAX_RETRY_WAITS` times; after that its outcome is a failure
the model sees (``retry_exhausted``).
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from agent_runtime.store.database import Connection
from agent_runtime.store.storage import atomic

if TYPE_CHECKING:
    from agent_runtime.durable.runs import Lease, RunStore

DEFAULT_RETRY_AFTER_MS = 1000
"""How long to wait when the provider asked to retry without saying when."""
MAX_RETRY_WAITS = 3
RETRY_EXHAUSTED = "retry_exhausted"


def schedule(
    store: RunStore,
    lease: Lease,
    call_id: str | None,
    tool: str | None,
    retry_after_ms: int | None,
    code: str | None,
    provider_wait_id: str | None,
    kind: str = "tool",
) -> tuple[str, float]:
    """Park the leased State's call until it is due (a fenced write); its id and due time."""
    store.fence(lease)
    wait_id = f"wait_{uuid.uuid4().hex[:16]}"
    after = retry_after_ms if retry_after_ms and retry_after_ms > 0 else DEFAULT_RETRY_AFTER_MS
    due = store.clock() + after / 1000
    store.conn.execute(
        "INSERT INTO retry_waits (id, run_id, state_id, call_id, tool, kind, provider_wait_id, "
        "code, due_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting')",
        (wait_id, lease.run_id, lease.state_id, call_id, tool, kind, provider_wait_id, code, due),
    )
    return wait_id, due


def schedule_redelivery(store: RunStore, run_id: str, code: str | None) -> tuple[str, float]:
    """Park a settled Run's undelivered reply until a redelivery is due (no State holds it)."""
    wait_id = f"wait_{uuid.uuid4().hex[:16]}"
    due = store.clock() + DEFAULT_RETRY_AFTER_MS / 1000
    store.conn.execute(
        "INSERT INTO retry_waits (id, run_id, kind, code, due_at, status) "
        "VALUES (?, ?, 'delivery', ?, ?, 'waiting')",
        (wait_id, run_id, code, due),
    )
    return wait_id, due


def attempts(conn: Connection, state_id: str, call_id: str) -> int:
    """How many times this call has been parked in a retry wait."""
    row = conn.execute(
        "SELECT COUNT(*) FROM retry_waits WHERE state_id = ? AND call_id = ?", (state_id, call_id)
    ).fetchone()
    return int(row[0])


def next_due(conn: Connection, run_id: str) -> float | None:
    """When the Run's earliest waiting retry is due; ``None`` when it waits on none."""
    row = conn.execute(
        "SELECT MIN(due_at) FROM retry_waits WHERE run_id = ? AND status = 'waiting' "
        "AND state_id IS NOT NULL",
        (run_id,),
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def wake_due(store: RunStore) -> list[str]:
    """The timer sweep: every due wait woken, its State and Run queued again, one event each;
    the State ids woken. One transaction: a sweep that dies wakes nothing."""
    now = store.clock()
    woken: list[str] = []
    with atomic(store.conn) as conn:
        due = conn.execute(
            "SELECT id, run_id, state_id, call_id FROM retry_waits WHERE status = 'waiting' "
            "AND state_id IS NOT NULL AND due_at <= ? ORDER BY due_at, id",
            (now,),
        ).fetchall()
        for wait_id, run_id, state_id, call_id in due:
            conn.execute("UPDATE retry_waits SET status = 'woken' WHERE id = ?", (wait_id,))
            moved = conn.execute(
                "UPDATE states SET status = 'queued' WHERE id = ? AND status = 'waiting'",
                (state_id,),
            )
            if moved.rowcount != 1:
                continue
            conn.execute("UPDATE runs SET status = 'queued' WHERE id = ?", (run_id,))
            seq = store.next_event_seq(run_id)
            conn.execute(
                "INSERT INTO run_events (run_id, seq, type, participant, payload) "
                "VALUES (?, ?, 'retry.woke', 'runtime', ?)",
                (run_id, seq, json.dumps({"waitId": wait_id, "callId": call_id})),
            )
            woken.append(state_id)
    return woken
