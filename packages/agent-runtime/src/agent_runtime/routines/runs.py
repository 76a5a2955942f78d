"""Routine Runs: a Routine's States run in order by workers, with no model.

:func:`start_routine` mints the Run (``source`` routine), one State per definition State, and
the request artifact holding the inputs. :func:`run_routine` is one worker's pass: it claims
each State that has not succeeded, in order, and runs it, reading everything it needs from the
database (the inputs, the Tool State's output), never from a previous worker's memory.

A Tool State is the one place a Routine acts on the world, through its effect broker:

1. guards, approval and arguments are checked, and the dispatch is recorded (a ``tool.call``
   event) and committed before the provider is called;
2. the provider is called with an idempotency key;
3. a success is recorded in the effect ledger and committed: the effect is confirmed;
4. the State's output is written and the State succeeds, committed.

A worker that dies after 3 leaves a confirmed effect: the next worker finds it in the ledger
and never calls the provider again. A provider that asks to be retried parks the State in a
retry wait (:mod:`agent_runtime.durable.retry_waits`); one that needs an approval first parks it
on an approval request. The fault port (:data:`RoutineFaults`) is where an operator drill kills the
worker: after the effect is confirmed, or after the State succeeded.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Literal, cast

import msgspec

from agent_runtime.durable import retry_waits
from agent_runtime.durable.runs import Lease, Minted, RunStore
from agent_runtime.guards.guardrails import (
    GuardrailConfig,
    Guardrails,
    denial_reason,
    emit_decision,
)
from agent_runtime.model import ToolCallRequest
from agent_runtime.routines.definitions import Routine, RoutineState, resolve
from agent_runtime.routines.tool_providers import ProviderReply, ToolProvider
from agent_runtime.store.database import Connection
from agent_runtime.store.storage import atomic
from agent_runtime.tools import ToolOutcome, ToolStatus
from agent_runtime.turn import arguments as argument_schema
from agent_runtime.turn.events import call_payload, denied_payload, preview, result_payload

SOURCE = "routine"
EFFECT = "effect"
CrashPoint = Literal["effect_confirmed", "state_succeeded"]
CRASH_POINTS: tuple[CrashPoint, ...] = ("effect_confirmed", "state_succeeded")
RoutineFaults = Callable[[CrashPoint], None]
"""Called at each crash point; raising :class:`WorkerCrashedError` there kills the worker."""


class WorkerCrashedError(Exception):
    """The worker died (a fault port's drill): whatever it had committed stays."""


class ToolContract(msgspec.Struct, frozen=True):
    """The Tool a Routine's Tool State calls, as the Soul publishes it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    mutating: bool = False
    requires_approval: bool = False


class RoutineRequest(msgspec.Struct, frozen=True):
    """What a worker needs besides the store: the definition, its Tool, its guards."""

    routine: Routine
    contract: ToolContract
    provider: ToolProvider
    guardrails: GuardrailConfig
    faults: RoutineFaults | None = None


class StateRow(msgspec.Struct, frozen=True):
    state_id: str
    key: str
    kind: str
    status: str
    output: Any
    reason: str | None


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def start_routine(
    store: RunStore, agent: str, slug: str, routine: Routine, inputs: Mapping[str, Any]
) -> str:
    """Mint a queued Routine Run with its States and its request; the Run id."""
    run_id = f"run_{uuid.uuid4().hex[:16]}"
    with atomic(store.conn) as conn:
        conversation = f"conv_{uuid.uuid4().hex[:16]}"
        conn.execute("INSERT INTO conversations (id, agent) VALUES (?, ?)", (conversation, agent))
        conn.execute(
            "INSERT INTO runs (id, conversation_id, source, status) VALUES (?, ?, ?, 'queued')",
            (run_id, conversation, SOURCE),
        )
        for position, state in enumerate(routine.states):
            conn.execute(
                "INSERT INTO states (id, run_id, kind, status, generation, state_key, position) "
                "VALUES (?, ?, ?, 'queued', 0, ?, ?)",
                (f"state_{uuid.uuid4().hex[:16]}", run_id, state.type, state.key, position),
            )
        conn.execute(
            "INSERT INTO request_artifacts (id, run_id, kind, content) VALUES (?, ?, 'request', ?)",
            (f"req_{uuid.uuid4().hex[:16]}", run_id, _dump({"routine": slug, "inputs": inputs})),
        )
    return run_id


def states(conn: Connection, run_id: str) -> list[StateRow]:
    """The Run's States in order, as stored."""
    rows = conn.execute(
        "SELECT id, state_key, kind, status, output, reason FROM states WHERE run_id = ? "
        "ORDER BY position",
        (run_id,),
    )
    return [
        StateRow(i, key, kind, status, None if out is None else json.loads(out), reason)
        for i, key, kind, status, out, reason in rows
    ]


def run_status(conn: Connection, run_id: str) -> tuple[str, str | None]:
    row = conn.execute("SELECT status, reason FROM runs WHERE id = ?", (run_id,)).fetchone()
    return str(row[0]), row[1]


def _inputs(conn: Connection, run_id: str) -> Any:
    row = conn.execute(
        "SELECT content FROM request_artifacts WHERE run_id = ? AND kind = 'request'", (run_id,)
    ).fetchone()
    return json.loads(row[0]).get("inputs") or {}


def run_routine(store: RunStore, run_id: str, request: RoutineRequest, worker: str) -> str:
    """One worker's pass over the Run: each State not yet succeeded, in order; the Run's status
    when the pass ends (``waiting`` when a State parked)."""
    for row in states(store.conn, run_id):
        if row.status == "succeeded":
            continue
        if row.status in ("waiting", "failed"):
            return run_status(store.conn, run_id)[0]
        lease = store.claim(Minted(run_id, row.state_id, ""), owner=worker)
        state = next(s for s in request.routine.states if s.key == row.key)
        worker_state = _Worker(store, lease, request, state)
        done = worker_state.tool() if state.type == "tool" else worker_state.capture()
        if done != "succeeded":
            return done
    with atomic(store.conn) as conn:
        conn.execute("UPDATE runs SET status = 'succeeded' WHERE id = ?", (run_id,))
    return "succeeded"


class _Worker:
    """One claimed State of a Routine Run and the writes its lease fences."""

    __slots__ = ("lease", "request", "state", "store")

    def __init__(
        self, store: RunStore, lease: Lease, request: RoutineRequest, state: RoutineState
    ) -> None:
        self.store = store
        self.lease = lease
        self.request = request
        self.state = state

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        store = self.store
        store.append_event(
            self.lease, store.next_event_seq(self.lease.run_id), kind, payload, "runtime"
        )

    def settle(self, status: str, reason: str | None, output: Any = None) -> str:
        """The State, and unless it succeeded the Run, take ``status``; the lease is released."""
        store, lease = self.store, self.lease
        store.fence(lease)
        store.conn.execute(
            "UPDATE states SET status = ?, reason = ?, output = ?, lease_owner = NULL, "
            "lease_expires_at = NULL WHERE id = ?",
            (status, reason, None if output is None else _dump(output), lease.state_id),
        )
        if status != "succeeded":
            store.conn.execute(
                "UPDATE runs SET status = ?, reason = ? WHERE id = ?",
                (status, reason, lease.run_id),
            )
        return status

    def fault(self, point: CrashPoint) -> None:
        if self.request.faults is not None:
            self.request.faults(point)

    def tool(self) -> str:
        store, lease, request = self.store, self.lease, self.request
        contract, conn = request.contract, store.conn
        with atomic(conn):
            store.fence(lease)
            recorded = store.effect(lease.state_id, EFFECT)
        if recorded is None:
            arguments = resolve(self.state.arguments, {"inputs": _inputs(conn, lease.run_id)})
            call = ToolCallRequest(lease.state_id, contract.name, arguments)
            with atomic(conn):
                refused = self.before_dispatch(call)
            if refused is not None:
                return refused
            reply = request.provider.call(contract.name, arguments, f"{lease.state_id}:{EFFECT}")
            with atomic(conn):
                settled = self.after_reply(call, reply)
            if settled is not None:
                return settled
            self.fault("effect_confirmed")
            output = reply.output
        elif recorded.get("status") != "succeeded":
            with atomic(conn):
                return self.settle("failed", recorded.get("reason"))
        else:
            output = recorded.get("output")
        with atomic(conn):
            self.settle("succeeded", None, output)
        self.fault("state_succeeded")
        return "succeeded"

    def before_dispatch(self, call: ToolCallRequest) -> str | None:
        """Guards, approval and arguments; the dispatch on record. A status when it stops."""
        store, lease, contract = self.store, self.lease, self.request.contract
        guards = Guardrails.from_config(self.request.guardrails)
        blocked = None
        for decision in guards.check_tool_call(call):
            emit_decision(self.emit, decision)
            blocked = blocked or (decision if decision.blocked else None)
        if blocked is not None:
            reason = denial_reason(blocked)
            self.emit("tool.denied", denied_payload(call, reason, "guardrail"))
            return self.settle("failed", reason)
        if contract.requires_approval and call.call_id not in store.granted_calls(lease.state_id):
            approval = store.request_approval(lease, call.call_id, call.name, call.arguments)
            self.emit(
                "approval.requested",
                {
                    "waitId": approval,
                    "intentId": approval,
                    "callId": call.call_id,
                    "summary": f"{call.name} needs an approval",
                },
            )
            return self.settle("waiting", "approval_required")
        wrong = argument_schema.problem(dict(contract.input_schema), call.arguments)
        if wrong is not None:
            self.result(call, "invalid_arguments", None, wrong)
            return self.settle("failed", f"invalid_arguments: {wrong}")
        self.emit("tool.call", call_payload(call))
        return None

    def after_reply(self, call: ToolCallRequest, reply: ProviderReply) -> str | None:
        """Record what the provider answered; a status unless the effect was confirmed."""
        store, lease = self.store, self.lease
        store.fence(lease)
        if reply.status == "retry":
            tries = retry_waits.attempts(store.conn, lease.state_id, call.call_id)
            if tries < retry_waits.MAX_RETRY_WAITS:
                wait_id, due = retry_waits.schedule(
                    store, lease, call.call_id, call.name, reply.retry_after_ms, reply.code, None
                )
                self.result(call, "awaiting_retry", None, reply.code)
                self.emit(
                    "retry.scheduled",
                    {"waitId": wait_id, "callId": call.call_id, "code": reply.code, "dueAt": due},
                )
                return self.settle("waiting", "retry_wait")
            reply = ProviderReply(
                "failure",
                code=f"{retry_waits.RETRY_EXHAUSTED}: retried {tries} times ({reply.code})",
            )
        if reply.status == "failure":
            store.record_effect(lease, EFFECT, {"status": "failed", "reason": reply.code})
            self.result(call, "failed", None, reply.code)
            return self.settle("failed", reply.code)
        store.record_effect(lease, EFFECT, {"status": "succeeded", "output": reply.output})
        guards = Guardrails.from_config(self.request.guardrails)
        withheld = [d for d in guards.check_tool_result(call.name, reply.output) if d.blocked]
        self.result(call, "succeeded", reply.output, None, withheld=bool(withheld))
        if withheld:
            return self.settle("failed", f"{withheld[0].guard}: {withheld[0].detail}")
        return None

    def result(
        self,
        call: ToolCallRequest,
        status: str,
        output: Any,
        reason: str | None,
        withheld: bool = False,
    ) -> None:
        payload = result_payload(
            call.call_id, ToolOutcome(cast(ToolStatus, status), output, reason)
        )
        payload.update(name=call.name, argsPreview=preview(call.arguments))
        if withheld:
            payload["withheld"] = True
        self.emit("tool.result", payload)

    def capture(self) -> str:
        """The captured output, built from the Tool State's output as the database holds it."""
        store, lease = self.store, self.lease
        with atomic(store.conn) as conn:
            store.fence(lease)
            outputs = {row.key: {"output": row.output} for row in states(conn, lease.run_id)}
            scope = {"inputs": _inputs(conn, lease.run_id), "states": outputs}
            return self.settle("succeeded", None, resolve(self.state.output, scope))
