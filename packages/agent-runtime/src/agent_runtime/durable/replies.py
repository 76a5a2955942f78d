"""Integration replies: a Turn's answer delivered back through the integration it came from.

A chat that arrived through an integration (a Slack thread, an email) is answered there: once
the Turn has settled, the runtime hands its answer to the integration's channel and settles the
Run by what the channel says. A reply that was not delivered is never reported as a success:

- ``failed``: the channel refused it for good; the Run fails (``delivery_failed: <code>``);
- ``retryable``: the channel may take it later; the Run waits on a redelivery, a retry wait of
  its own (``delivery_retryable: <code>``);
- ``ambiguous``: nobody knows whether it arrived, and sending it again might deliver it twice,
  so the Run needs a person to reconcile it (``delivery_ambiguous: <code>``).

The Turn itself succeeded either way: its Message is persisted, its status stays.
"""

from __future__ import annotations

import json
from typing import Literal, Protocol

import msgspec

from agent_runtime.durable import retry_waits
from agent_runtime.durable.runs import RunStore
from agent_runtime.store.storage import atomic

Outcome = Literal["failed", "retryable", "ambiguous"]
NEEDS_RECONCILIATION = "needs_reconciliation"
_SETTLED: dict[str, str] = {
    "failed": "failed",
    "retryable": "waiting",
    "ambiguous": NEEDS_RECONCILIATION,
}


class Delivery(msgspec.Struct, frozen=True):
    """What the integration's channel answered for one reply."""

    delivered: bool
    outcome: Outcome | None = None
    code: str | None = None


class ReplyChannel(Protocol):
    def deliver(self, conversation_id: str, run_id: str, text: str) -> Delivery: ...


def deliver_reply(store: RunStore, run_id: str, channel: ReplyChannel) -> str | None:
    """Deliver the Run's answer and settle the Run by the result; the Run's status after, or
    ``None`` when the Turn left no answer to deliver."""
    conn = store.conn
    row = conn.execute(
        "SELECT conversation_id, content FROM messages WHERE run_id = ? AND role = 'assistant' "
        "ORDER BY seq DESC LIMIT 1",
        (run_id,),
    ).fetchone()
    if row is None:
        return None
    text = json.loads(row[1]).get("content")
    result = channel.deliver(str(row[0]), run_id, text if isinstance(text, str) else "")
    with atomic(conn):
        payload = {"delivered": result.delivered, "outcome": result.outcome, "code": result.code}
        conn.execute(
            "INSERT INTO run_events (run_id, seq, type, participant, payload) "
            "VALUES (?, ?, 'delivery.result', 'runtime', ?)",
            (run_id, store.next_event_seq(run_id), json.dumps(payload)),
        )
        if result.delivered:
            return "succeeded"
        outcome = result.outcome or "ambiguous"  # a channel that cannot say is not sure
        status = _SETTLED[outcome]
        reason = f"delivery_{outcome}: {result.code or 'no code'}"
        if outcome == "retryable":
            retry_waits.schedule_redelivery(store, run_id, result.code)
        conn.execute(
            "UPDATE runs SET status = ?, reason = ? WHERE id = ?", (status, reason, run_id)
        )
    return status
