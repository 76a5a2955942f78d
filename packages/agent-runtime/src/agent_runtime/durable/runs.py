"""Runs and their States: minting, claiming with a lease, the generation fence, settling.

A Run is one execution (a chat Turn here); its ``invoke`` State is what a worker claims. A claim
takes a lease (owner + expiry) and bumps the State's generation. Every later write the worker
makes carries that generation and is refused with :class:`StaleGenerationError` once another
claim has bumped it: a worker that lost its lease can never overwrite its successor's work.

Both are decided by the database, not by a read followed by a write: a claim is one conditional
UPDATE (on PostgreSQL through ``FOR UPDATE SKIP LOCKED``, so of two claimers exactly one changes
the row and the other is refused at once), and the fence is a conditional UPDATE of the State
row that holds its lock to the end of the writer's transaction, so no claim can move the
generation under a write in flight.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import msgspec

from agent_runtime.store.database import Connection, skip_locked
from agent_runtime.store.storage import atomic
from agent_runtime.turn.contained import Unwinding

Clock = Callable[[], float]
LEASE_SECONDS = 30.0
TURN_COMPLETED = frozenset({"succeeded", "failed"})
"""The statuses a Turn row takes once it completed; any other leaves it NULL."""


class ClaimRefusedError(Exception):
    """The State is not claimable: it is settled, or another worker holds a live lease."""


class StaleGenerationError(Unwinding):
    """A write carried a generation older than the State's: the writer lost its lease."""

    def __init__(self, state_id: str, held: int, current: int | None) -> None:
        super().__init__(
            f"stale generation: the write to State {state_id} carries generation {held}, "
            f"the State is at {current}"
        )
        self.state_id = state_id
        self.held = held
        self.current = current


class Minted(msgspec.Struct, frozen=True):
    run_id: str
    state_id: str
    turn_id: str


class Lease(msgspec.Struct, frozen=True):
    """A worker's claim on a State: every write it makes is fenced by ``generation``."""

    run_id: str
    state_id: str
    turn_id: str
    owner: str
    generation: int


def _dump(value: Any) -> str:
    """A row's JSON: readable text, or escaped where it holds what UTF-8 cannot (a lone
    surrogate, as a model's reply can carry from a JSON ``\\ud800``), never an error."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":"), default=str)
    return text


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


class RunStore:
    """Runs, States, Turns, events, Messages, approvals and checkpoints over one connection."""

    __slots__ = ("_fenced", "clock", "conn")

    def __init__(self, conn: Connection, clock: Clock = time.time) -> None:
        self.conn = conn
        self.clock = clock
        self._fenced: tuple[str, int, object] | None = None

    # -- conversations and Runs ---------------------------------------------------------------

    def start_conversation(self, agent: str) -> str:
        conversation_id = _new_id("conv")
        with atomic(self.conn):
            self.conn.execute(
                "INSERT INTO conversations (id, agent) VALUES (?, ?)", (conversation_id, agent)
            )
        return conversation_id

    def mint(self, conversation_id: str, turn_index: int, source: str = "chat") -> Minted:
        """A queued Run with its ``invoke`` State and its Turn row (status not yet known)."""
        minted = Minted(_new_id("run"), _new_id("state"), _new_id("turn"))
        with atomic(self.conn) as conn:
            conn.execute(
                "INSERT INTO runs (id, conversation_id, source, status) VALUES (?, ?, ?, 'queued')",
                (minted.run_id, conversation_id, source),
            )
            conn.execute(
                "INSERT INTO states (id, run_id, kind, status, generation) "
                "VALUES (?, ?, 'invoke', 'queued', 0)",
                (minted.state_id, minted.run_id),
            )
            conn.execute(
                "INSERT INTO turns (id, run_id, conversation_id, turn_index) VALUES (?, ?, ?, ?)",
                (minted.turn_id, minted.run_id, conversation_id, turn_index),
            )
        return minted

    def claim(self, minted: Minted, owner: str, ttl: float = LEASE_SECONDS) -> Lease:
        """Take the State's lease: it must be queued, or running under an expired lease.

        One conditional UPDATE decides the race: of two claimers, exactly one changes the row.
        """
        now = self.clock()
        self._fenced = None
        with atomic(self.conn) as conn:
            cursor = conn.execute(
                "UPDATE states SET status = 'running', lease_owner = ?, lease_expires_at = ?, "
                "generation = generation + 1 WHERE id = (SELECT id FROM states WHERE id = ? AND "
                "(status = 'queued' OR (status = 'running' AND lease_expires_at <= ?))"
                f"{skip_locked(conn)})",
                (owner, now + ttl, minted.state_id, now),
            )
            if cursor.rowcount != 1:
                raise ClaimRefusedError(self._unclaimable(minted.state_id, now))
            generation = conn.execute(
                "SELECT generation FROM states WHERE id = ?", (minted.state_id,)
            ).fetchone()[0]
            conn.execute("UPDATE runs SET status = 'running' WHERE id = ?", (minted.run_id,))
        return Lease(minted.run_id, minted.state_id, minted.turn_id, owner, int(generation))

    def _unclaimable(self, state_id: str, now: float) -> str:
        """Why a claim changed nothing, as the committed row says."""
        row = self.conn.execute(
            "SELECT status, lease_expires_at FROM states WHERE id = ?", (state_id,)
        ).fetchone()
        if row is None:
            return f"no State {state_id}"
        status, expires = row
        if status == "running" and (expires is None or expires > now):
            return f"State {state_id} is running under a live lease"
        if status in ("queued", "running"):
            return f"State {state_id} is held by another worker's transaction"
        return f"State {state_id} is {status}"

    def fence(self, lease: Lease) -> None:
        """Refuse the write unless ``lease`` still holds the State's current generation.

        The check is a write (a conditional UPDATE that changes nothing): it takes the State's
        row lock, which the writer keeps until its transaction ends, so the generation cannot
        move between this check and the write it guards, nor before the transaction ends: where
        the connection can tell its transaction, a lease fenced once in it is not fenced again.
        """
        transaction = self.conn.transaction
        held = (lease.state_id, lease.generation, transaction)
        if transaction is not None and self._fenced == held:
            return
        cursor = self.conn.execute(
            "UPDATE states SET generation = generation WHERE id = ? AND generation = ?",
            (lease.state_id, lease.generation),
        )
        if cursor.rowcount == 1:
            self._fenced = held if transaction is not None else None
            return
        row = self.conn.execute(
            "SELECT generation FROM states WHERE id = ?", (lease.state_id,)
        ).fetchone()
        raise StaleGenerationError(
            lease.state_id, lease.generation, None if row is None else int(row[0])
        )

    # -- fenced writes of a claimed State -------------------------------------------------------

    def append_event(
        self, lease: Lease, seq: int, kind: str, payload: Any, participant: str
    ) -> None:
        self.fence(lease)
        self.conn.execute(
            "INSERT INTO run_events (run_id, seq, type, participant, payload) "
            "VALUES (?, ?, ?, ?, ?)",
            (lease.run_id, seq, kind, participant, _dump(payload)),
        )

    def next_event_seq(self, run_id: str) -> int:
        row = self.conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = ?", (run_id,)
        ).fetchone()
        return int(row[0]) + 1

    def save_checkpoint(self, lease: Lease, data: Any) -> None:
        self.fence(lease)
        self.conn.execute(
            "INSERT INTO checkpoints (state_id, seq, generation, data) VALUES (?, (SELECT "
            "COALESCE(MAX(seq), 0) + 1 FROM checkpoints WHERE state_id = ?), ?, ?)",
            (lease.state_id, lease.state_id, lease.generation, _dump(data)),
        )

    def latest_checkpoint(self, state_id: str) -> Any:
        row = self.conn.execute(
            "SELECT data FROM checkpoints WHERE state_id = ? ORDER BY seq DESC LIMIT 1",
            (state_id,),
        ).fetchone()
        return None if row is None else json.loads(row[0])

    def effect(self, state_id: str, call_id: str) -> Any:
        row = self.conn.execute(
            "SELECT outcome FROM tool_effects WHERE state_id = ? AND call_id = ?",
            (state_id, call_id),
        ).fetchone()
        return None if row is None else json.loads(row[0])

    def record_effect(self, lease: Lease, call_id: str, outcome: Any) -> None:
        self.fence(lease)
        self.conn.execute(
            "INSERT INTO tool_effects (state_id, call_id, outcome) VALUES (?, ?, ?)",
            (lease.state_id, call_id, _dump(outcome)),
        )

    def add_message(
        self, lease: Lease, conversation_id: str, role: str, content: Any, metadata: Any
    ) -> str:
        """Store a Message of the leased Run; its id (``<conversation>/<seq>``)."""
        self.fence(lease)
        return self._insert_message(conversation_id, lease.run_id, role, content, metadata)

    def _insert_message(
        self, conversation_id: str, run_id: str, role: str, content: Any, metadata: Any
    ) -> str:
        self.conn.execute(
            "INSERT INTO messages (conversation_id, seq, run_id, role, content, metadata) "
            "VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE "
            "conversation_id = ?), ?, ?, ?, ?)",
            (conversation_id, conversation_id, run_id, role, _dump(content), _dump(metadata)),
        )
        seq = self.conn.execute(
            "SELECT MAX(seq) FROM messages WHERE conversation_id = ?", (conversation_id,)
        ).fetchone()[0]
        return f"{conversation_id}/{seq}"

    def add_message_unfenced(
        self, minted: Minted, conversation_id: str, role: str, content: Any
    ) -> None:
        """A Message that starts a Run (written with the mint, before any claim)."""
        with atomic(self.conn):
            self._insert_message(conversation_id, minted.run_id, role, content, {})

    def request_approval(self, lease: Lease, call_id: str, tool: str, arguments: Any) -> str:
        self.fence(lease)
        approval_id = _new_id("appr")
        self.conn.execute(
            "INSERT INTO approvals (id, run_id, state_id, call_id, tool, arguments, status) "
            "VALUES (?, ?, ?, ?, ?, ?, 'requested')",
            (approval_id, lease.run_id, lease.state_id, call_id, tool, _dump(arguments)),
        )
        return approval_id

    def settle(self, lease: Lease, status: str, reason: str | None) -> None:
        """The State and Run take their final (or waiting) status; the lease is released.

        The Turn's status is ``succeeded`` or ``failed`` once it completed, and stays ``NULL``
        (not completed) while it waits or needs reconciliation.
        """
        self.fence(lease)
        self.conn.execute(
            "UPDATE states SET status = ?, lease_owner = NULL, lease_expires_at = NULL "
            "WHERE id = ? AND generation = ?",
            (status, lease.state_id, lease.generation),
        )
        self.conn.execute(
            "UPDATE runs SET status = ?, reason = ? WHERE id = ?", (status, reason, lease.run_id)
        )
        self.conn.execute(
            "UPDATE turns SET status = ?, reason = ? WHERE id = ?",
            (status if status in TURN_COMPLETED else None, reason, lease.turn_id),
        )

    # -- the operator's side: approvals and re-queueing ----------------------------------------

    def grant(self, approval_id: str, by: str | None = None) -> tuple[str, str]:
        """Approve a requested call (``by`` names the approver); its call id and the Run id."""
        with atomic(self.conn) as conn:
            row = conn.execute(
                "SELECT run_id, call_id, status FROM approvals WHERE id = ?", (approval_id,)
            ).fetchone()
            if row is None or row[2] != "requested":
                raise ValueError(f"approval {approval_id} is not waiting for a decision")
            conn.execute("UPDATE approvals SET status = 'granted' WHERE id = ?", (approval_id,))
            seq = self.next_event_seq(row[0])
            conn.execute(
                "INSERT INTO run_events (run_id, seq, type, participant, payload) "
                "VALUES (?, ?, 'approval.granted', 'operator', ?)",
                (row[0], seq, _dump({"approvalId": approval_id, "callId": row[1], "by": by})),
            )
        return row[1], row[0]

    def granted_calls(self, state_id: str) -> frozenset[str]:
        rows = self.conn.execute(
            "SELECT call_id FROM approvals WHERE state_id = ? AND status = 'granted'", (state_id,)
        )
        return frozenset(r[0] for r in rows)

    def pending_approvals(self, state_id: str) -> list[str]:
        rows = self.conn.execute(
            "SELECT id FROM approvals WHERE state_id = ? AND status = 'requested' ORDER BY id",
            (state_id,),
        )
        return [r[0] for r in rows]

    def requeue(self, minted: Minted) -> None:
        """A waiting State goes back to the queue (its approvals decided)."""
        with atomic(self.conn) as conn:
            cursor = conn.execute(
                "UPDATE states SET status = 'queued' WHERE id = ? AND status = 'waiting'",
                (minted.state_id,),
            )
            if cursor.rowcount != 1:
                raise ClaimRefusedError(f"State {minted.state_id} is not waiting")
            conn.execute("UPDATE runs SET status = 'queued' WHERE id = ?", (minted.run_id,))

    # -- reads -------------------------------------------------------------------------------

    def history(self, conversation_id: str) -> list[dict[str, Any]]:
        """The conversation as persisted: user and assistant Messages, in order."""
        rows = self.conn.execute(
            "SELECT role, content FROM messages WHERE conversation_id = ? ORDER BY seq",
            (conversation_id,),
        )
        history: list[dict[str, Any]] = []
        for role, content in rows:
            message = json.loads(content)
            history.append({"role": role, **message})
        return history

    def statuses(self, minted: Minted) -> tuple[str | None, str | None, str | None, str | None]:
        """(Run status, State status, Turn status, Run reason) as stored."""
        row = self.conn.execute(
            "SELECT (SELECT status FROM runs WHERE id = ?), (SELECT status FROM states WHERE "
            "id = ?), (SELECT status FROM turns WHERE id = ?), (SELECT reason FROM runs WHERE "
            "id = ?)",
            (minted.run_id, minted.state_id, minted.turn_id, minted.run_id),
        ).fetchone()
        return row[0], row[1], row[2], row[3]

    def events(self, run_id: str) -> list[tuple[int, str, str, Any]]:
        rows = self.conn.execute(
            "SELECT seq, type, participant, payload FROM run_events WHERE run_id = ? ORDER BY seq",
            (run_id,),
        )
        return [(seq, kind, who, json.loads(payload)) for seq, kind, who, payload in rows]

    def messages(self, run_id: str) -> list[tuple[str, Any, Any]]:
        rows = self.conn.execute(
            "SELECT role, content, metadata FROM messages WHERE run_id = ? ORDER BY seq",
            (run_id,),
        )
        return [(role, json.loads(c), json.loads(m)) for role, c, m in rows]

    def run_count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
