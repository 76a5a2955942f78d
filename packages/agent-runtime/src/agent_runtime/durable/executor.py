"""The durable Turn executor: one claimed pass of a chat Run, through the same tool loop.

A pass resolves the Turn's context, loads the Soul with a fresh loader, reads the history from
the database (never from memory), and runs :func:`agent_runtime.turn.loop.run_turn` with a listener
that persists the loop's events, a checkpointer that commits, and an executor whose effects go
through a ledger so a replayed call never runs its effect twice. It then settles the Run:
``succeeded`` with the assistant Message persisted, ``waiting`` on an approval, or ``failed``.

Everything a pass writes is fenced by its lease's generation and lives in one transaction that
commits at each checkpoint and at the end: a pass that dies mid-Turn leaves nothing after its
last checkpoint behind. A pass whose own code raises (outside the Turn, which contains its own:
:mod:`agent_runtime.turn.contained`) is rolled back to that checkpoint and leaves the Run
``needs_reconciliation`` (``agent_loop_error``), as the original's worker does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import msgspec

from agent_runtime.durable import retry_waits
from agent_runtime.durable.runs import Lease, Minted, RunStore
from agent_runtime.model import ModelPort, ToolCallRequest, ToolSpec, Usage
from agent_runtime.soul.loader import Soul
from agent_runtime.tools import PARKED, ToolExecutor, ToolOutcome
from agent_runtime.turn.contained import (
    AGENT_LOOP_ERROR,
    TURN_EXECUTION_FAILED,
    RequestRefusedError,
    Unwinding,
    fault_of,
    passes_through,
)
from agent_runtime.turn.events import PARTICIPANT_EVENTS, Listener, finished_payload
from agent_runtime.turn.loop import run_turn
from agent_runtime.turn.result import RETRY_WAIT, TurnResult
from agent_runtime.turn.settings import (
    ApprovalPolicy,
    AttachmentCheck,
    Checkpoint,
    LoopLimits,
    TurnSettings,
    TurnStart,
)

T = TypeVar("T")
CONTEXT_UNRESOLVED = "context_unresolved"
NEEDS_RECONCILIATION = "needs_reconciliation"


class ContextUnresolvedError(Exception):
    """The Turn's context could not be resolved: the Run fails before the model is called."""


class TurnRequest(msgspec.Struct):
    """What a pass needs besides the store: how to get the Soul, the context, the Tools."""

    conversation_id: str
    agent: str
    turn_index: int
    load_soul: Callable[[], Soul]
    resolve_context: Callable[[], Mapping[str, Any]]
    tools: Sequence[ToolSpec]
    model: ModelPort
    executor: Callable[[Soul, Lease], ToolExecutor]
    approval: ApprovalPolicy | None = None
    limits: LoopLimits = msgspec.field(default_factory=LoopLimits)
    attachments: AttachmentCheck | None = None
    subscriber: Listener | None = None
    """Told of every event once it is persisted (a client's live stream)."""


class EventLog:
    """The loop's listener: every event appended to ``run_events``, fenced, in order, then
    passed to the subscriber.

    It also keeps, from the events it wrote, the attempt's Tool calls as the assistant
    Message's ``toolCalls`` metadata records them (see :meth:`tool_calls`)."""

    __slots__ = (
        "_batches",
        "_calls",
        "_started",
        "lease",
        "released",
        "seq",
        "store",
        "subscriber",
    )

    def __init__(self, store: RunStore, lease: Lease, subscriber: Listener | None = None) -> None:
        self.store = store
        self.lease = lease
        self.seq = store.next_event_seq(lease.run_id)
        self.subscriber = subscriber
        self._calls: dict[str, dict[str, Any]] = {}
        self._started: dict[str, float] = {}
        self._batches: dict[str, str] = {}
        self.released: list[str] = []
        """The participant text spans released so far (``text.delta``)."""
        # a resumed Turn (after an approval, a retry wait, a crash) keeps what its earlier
        # passes already did: their calls are this Turn's too (how long they took is not known)
        for _seq, kind, _who, payload in store.events(lease.run_id):
            if kind in ("tool.batch", "tool.call", "tool.result", "text.delta"):
                self._observe(kind, payload, replayed=True)

    def __call__(self, kind: str, payload: dict[str, Any]) -> None:
        participant = "participant" if kind in PARTICIPANT_EVENTS else "operator"
        self.store.append_event(self.lease, self.seq, kind, payload, participant)
        self.seq += 1
        self._observe(kind, payload)
        if self.subscriber is not None:
            self.subscriber(kind, payload)

    def _observe(self, kind: str, payload: dict[str, Any], *, replayed: bool = False) -> None:
        if kind == "tool.batch":
            number = len(set(self._batches.values())) + 1
            batch = f"{self.lease.turn_id}:{self.lease.generation}:batch:{number}"
            for call_id in payload.get("call_ids", []):
                self._batches[str(call_id)] = batch
        elif kind == "tool.call":
            call_id = str(payload["callId"])
            self._started[call_id] = time.monotonic()
            self._calls[call_id] = {
                "callId": call_id,
                "name": payload["name"],
                "argsDigest": payload["argsDigest"],
                "argsPreview": payload["argsPreview"],
            }
        elif kind == "tool.result":
            call_id = str(payload["callId"])
            entry = self._calls.setdefault(
                call_id, {"callId": call_id, "name": payload.get("name")}
            )
            started = self._started.get(call_id)
            if "resultPreview" in payload:
                entry["resultPreview"] = payload["resultPreview"]
            if not replayed and started is not None:
                entry["durationMs"] = round((time.monotonic() - started) * 1000)
            entry["outcome"] = payload["status"]
            if "errorCode" in payload:
                entry["errorCode"] = payload["errorCode"]
            if call_id in self._batches:
                entry["batchId"] = self._batches[call_id]
            if "participantActivity" in payload:
                entry["participantActivity"] = payload["participantActivity"]
        elif kind == "text.delta":
            self.released.append(str(payload.get("text", "")))

    def tool_calls(self) -> list[dict[str, Any]]:
        """``[{callId, name, argsDigest, argsPreview, resultPreview?, durationMs, outcome
        ok/error, errorCode?, batchId?, participantActivity?}]``: each call of this attempt
        that has a result, in the order the results came."""
        return [c for c in self._calls.values() if "outcome" in c]


class LedgerExecutor:
    """Runs each call's effect at most once per State: a replayed call gets its recorded outcome.

    A provider that asked to wait ran no effect, so its answer is not recorded; one that asks
    to be retried once more than the retry budget allows fails the call instead.
    """

    __slots__ = ("inner", "lease", "store")

    def __init__(self, store: RunStore, lease: Lease, inner: ToolExecutor) -> None:
        self.store = store
        self.lease = lease
        self.inner = inner

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        recorded = self.store.effect(self.lease.state_id, call.call_id)
        if recorded is not None:
            return ToolOutcome(recorded["status"], recorded.get("output"), recorded.get("reason"))
        outcome = self.inner.execute(call)
        if outcome.status in PARKED:
            state = self.lease.state_id
            tries = retry_waits.attempts(self.store.conn, state, call.call_id)
            if outcome.status != "awaiting_retry" or tries < retry_waits.MAX_RETRY_WAITS:
                return outcome
            why = f" ({outcome.reason})" if outcome.reason else ""
            outcome = ToolOutcome(
                "failed",
                reason=f"{retry_waits.RETRY_EXHAUSTED}: the provider of {call.name} asked to be "
                f"retried {tries + 1} times{why}",
            )
        self.store.record_effect(
            self.lease,
            call.call_id,
            {"status": outcome.status, "output": outcome.output, "reason": outcome.reason},
        )
        return outcome


class DbCheckpointer:
    """Each checkpoint is written, fenced, and committed: the durable point a resume starts from."""

    __slots__ = ("history", "lease", "store")

    def __init__(self, store: RunStore, lease: Lease, history: int) -> None:
        self.store = store
        self.lease = lease
        self.history = history

    def save(self, checkpoint: Checkpoint) -> None:
        self.store.save_checkpoint(
            self.lease, {"checkpoint": encode_checkpoint(checkpoint), "history": self.history}
        )
        conn = self.store.conn
        conn.execute("COMMIT")
        conn.execute("BEGIN")


def encode_checkpoint(checkpoint: Checkpoint) -> dict[str, Any]:
    """The checkpoint as JSON data. Its messages are JSON data already and are serialised at
    once, so they are not copied (``asdict`` deep-copied the whole conversation every time)."""
    data = {name: getattr(checkpoint, name) for name in checkpoint.__struct_fields__}
    data["batch"] = [
        {"call_id": c.call_id, "name": c.name, "arguments": c.arguments} for c in checkpoint.batch
    ]
    data["usage"] = msgspec.structs.asdict(checkpoint.usage)
    return data


def decode_checkpoint(data: Mapping[str, Any]) -> Checkpoint:
    return Checkpoint(
        messages=list(data["messages"]),
        batch=[ToolCallRequest(**call) for call in data["batch"]],
        next_call=int(data["next_call"]),
        iteration=int(data["iteration"]),
        model_calls=int(data["model_calls"]),
        repairs=int(data["repairs"]),
        dispatched=int(data["dispatched"]),
        awaiting=data.get("awaiting"),
        usage=Usage(**data.get("usage") or {}),
    )


def start_turn(
    store: RunStore,
    conversation_id: str,
    turn_index: int,
    messages: Sequence[Mapping[str, Any]],
) -> Minted:
    """Mint a chat Run for the Turn's incoming Messages (persisted with it) and queue it."""
    minted = store.mint(conversation_id, turn_index, source="chat")
    for message in messages:
        body = {k: v for k, v in message.items() if k != "role"}
        store.add_message_unfenced(minted, conversation_id, str(message["role"]), body)
    return minted


def execute_pass(
    store: RunStore, lease: Lease, request: TurnRequest, *, resume: bool = False
) -> TurnResult | None:
    """Run one claimed pass and settle it; ``None`` when context resolution failed.

    ``resume`` continues from the State's latest checkpoint with its granted approvals.
    """
    conn = store.conn
    store.fence(lease)
    conn.execute("BEGIN")
    try:
        result = _pass(store, lease, request, resume)
    except LetThrough as through:  # the Turn's own containment decided: the caller's
        _rolled_back(conn)
        raise through.error from None
    except SettlingError as settling:
        _rolled_back(conn)
        return _reconciled(store, lease, request, settling.error, settling.result)
    except BaseException as error:
        _rolled_back(conn)
        if passes_through(error):
            raise
        return _reconciled(store, lease, request, error, None)
    conn.execute("COMMIT")
    return result


class SettlingError(Exception):
    """What the pass's own code raised settling the Run, with the Turn it was settling."""

    def __init__(self, error: BaseException, result: TurnResult) -> None:
        super().__init__(str(error))
        self.error, self.result = error, result


class LetThrough(Unwinding):
    """What the Turn raised, past its own containment; the caller gets ``error`` itself."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def _theirs(callback: Callable[..., T], *args: Any) -> T:
    """A callback of the request (the Soul's loader, the context's resolver, the executor's
    factory): the caller's code, so what it raises reaches the caller, never contained here
    (a :class:`ContextUnresolvedError` is the one answer the pass takes from it)."""
    try:
        return callback(*args)
    except ContextUnresolvedError:
        raise
    except BaseException as error:
        raise LetThrough(error) from error


def _rolled_back(conn: Any) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _reconciled(
    store: RunStore,
    lease: Lease,
    request: TurnRequest,
    error: BaseException,
    turn: TurnResult | None,
) -> TurnResult:
    """The pass's own code raised, setting the Turn up or settling it (``turn``: the Turn it
    settled): what it wrote since its last checkpoint is rolled back, and the Run is left for
    an operator, as when the loop raises. Should that fail too, the first exception is raised."""
    fault = fault_of(error)
    if turn is None:
        turn = TurnResult(system_prompt="", messages=[])
    # what the Turn did stands (its calls, its model calls); no answer of it does
    result = replace(
        turn,
        status="failed",
        reason=TURN_EXECUTION_FAILED,
        fault=fault,
        output_text=None,
        output_structured=None,
        output_kind="none",
    )
    conn = store.conn
    conn.execute("BEGIN")
    try:
        events = EventLog(store, lease, request.subscriber)
        events("turn.finished", finished_payload("failed", None, NEEDS_RECONCILIATION, result))
        store.settle(lease, NEEDS_RECONCILIATION, f"{AGENT_LOOP_ERROR}: {result.fault}")
    except BaseException:
        _rolled_back(conn)
        raise error from None
    conn.execute("COMMIT")
    return result


def _pass(store: RunStore, lease: Lease, request: TurnRequest, resume: bool) -> TurnResult | None:
    events = EventLog(store, lease, request.subscriber)
    try:
        context = _theirs(request.resolve_context)
    except ContextUnresolvedError as error:
        # the Run cannot tell what the Turn would have done: an operator reconciles it
        events(
            "turn.finished",
            {"status": "failed", "messageId": None, "reason": TURN_EXECUTION_FAILED},
        )
        store.settle(lease, NEEDS_RECONCILIATION, f"{CONTEXT_UNRESOLVED}: {error}")
        return None
    soul = _theirs(request.load_soul)
    checkpoint: Checkpoint | None = None
    if resume:
        saved = store.latest_checkpoint(lease.state_id)
        if saved is None:
            raise RequestRefusedError(f"State {lease.state_id} has no checkpoint to resume from")
        checkpoint = decode_checkpoint(saved["checkpoint"])
        history_count = int(saved["history"])
        history: list[dict[str, Any]] = []
    else:
        history = store.history(request.conversation_id)
        history_count = len(history)
    settings = TurnSettings(
        soul=soul,
        agent_slug=request.agent,
        context=context,
        tools=request.tools,
        model=request.model,
        executor=LedgerExecutor(store, lease, _theirs(request.executor, soul, lease)),
        limits=request.limits,
        listener=events,
        approval=request.approval,
        checkpoints=DbCheckpointer(store, lease, history_count),
        attachments=request.attachments,
        announce_finish=False,
    )
    start = TurnStart(
        messages=history,
        resume=checkpoint,
        approved=store.granted_calls(lease.state_id),
        turn_id=lease.turn_id,
        attempt=lease.generation,
        conversation_id=request.conversation_id,
    )
    try:
        result = run_turn(settings, start)
    except BaseException as error:
        raise LetThrough(error) from error
    try:
        return _settled(store, lease, request, events, result, history_count)
    except BaseException as error:
        if passes_through(error):
            raise
        raise SettlingError(error, result) from error


def _settled(
    store: RunStore,
    lease: Lease,
    request: TurnRequest,
    events: EventLog,
    result: TurnResult,
    history_count: int,
) -> TurnResult:
    """The Run settled as the Turn ended: an answer, a wait, or a failure."""
    if result.fault is not None:
        # the loop raised: an effect may have landed after the last checkpoint, so the Run is
        # left for an operator to reconcile, never retried or answered as if nothing happened
        events("turn.finished", finished_payload("failed", None, NEEDS_RECONCILIATION, result))
        store.settle(lease, NEEDS_RECONCILIATION, f"{AGENT_LOOP_ERROR}: {result.fault}")
        return result
    if result.status == "awaiting_retry" and result.awaiting is not None:
        call, parked = result.awaiting, result.parked
        assert parked is not None
        wait_id, due = retry_waits.schedule(
            store,
            lease,
            call.call_id,
            call.name,
            parked.retry_after_ms,
            parked.reason,
            parked.wait_id,
        )
        events(
            "retry.scheduled",
            {
                "waitId": wait_id,
                "providerWaitId": parked.wait_id,
                "callId": call.call_id,
                "name": call.name,
                "code": parked.reason,
                "dueAt": due,
            },
        )
        store.settle(lease, "waiting", RETRY_WAIT)
        return result
    if result.status == "waiting" and result.awaiting is not None:
        call = result.awaiting
        approval_id = store.request_approval(lease, call.call_id, call.name, call.arguments)
        events(
            "approval.requested",
            {
                "waitId": approval_id,
                "intentId": approval_id,
                "callId": call.call_id,
                "summary": f"{call.name} needs an approval",
            },
        )
        store.settle(lease, "waiting", "approval_required")
        return result
    if result.status == "completed":
        message_id = store.add_message(
            lease,
            request.conversation_id,
            "assistant",
            {"content": result.output_text},
            message_metadata(lease, request, result, events, history_count, "succeeded"),
        )
        events("turn.finished", finished_payload("succeeded", message_id, result.reason, result))
        store.settle(lease, "succeeded", result.reason)
        return result
    failed_id = None
    if events.tool_calls() or "".join(events.released):
        # a failed attempt with safe history (Tool calls that finished, text already released)
        # still leaves the reader a Message of what happened
        failed_id = store.add_message(
            lease,
            request.conversation_id,
            "assistant",
            {"content": "".join(events.released)},
            message_metadata(lease, request, result, events, history_count, "failed"),
        )
    events("turn.finished", finished_payload("failed", failed_id, result.reason, result))
    store.settle(lease, "failed", result.reason)
    return result


def message_metadata(
    lease: Lease,
    request: TurnRequest,
    result: TurnResult,
    events: EventLog,
    history_count: int,
    outcome: str,
) -> dict[str, Any]:
    """The assistant Message's metadata: the original's ``toolCalls`` list, ``receipt`` and
    ``turnAttempt``, beside this runtime's own keys. ``turnAttempt.cursor`` is the sequence of
    the attempt's last event (its ``turn.finished``, written next)."""
    usage = result.usage
    latencies = result.model_latencies_ms
    receipt: dict[str, Any] = {
        "modelId": getattr(request.model, "model_id", None) or "unknown",
        "modelCallLatencyMs": latencies[-1] if latencies else 0,
        "totalModelCallLatencyMs": sum(latencies),
        "modelCallCount": result.model_calls,
        "usage": {
            "inputTokens": usage.input_tokens,
            "outputTokens": usage.output_tokens,
            "cacheReadTokens": usage.cache_read_tokens,
            "cacheWriteTokens": usage.cache_write_tokens,
            "reasoningTokens": usage.reasoning_tokens,
        },
    }
    provider = getattr(request.model, "provider", None)
    if provider:
        receipt["provider"] = provider
    return {
        "runId": lease.run_id,
        "turnIndex": request.turn_index,
        "agent": request.agent,
        "outputKind": result.output_kind,
        "historyMessages": history_count,
        "toolCalls": events.tool_calls(),
        "toolActivity": result.activity,
        "reason": result.reason,
        "receipt": receipt,
        "turnAttempt": {"cursor": events.seq, "outcome": outcome, "complete": True},
    }
