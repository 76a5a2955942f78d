"""The durable tier's test seam: a Run driven through what production does to it.

A lease that runs out, the worker that lost it coming back late, a process restart, the timer
sweep that ends a retry wait, an earlier pass whose worker went away: each is done here with
the runtime's own code, so that a test or a harness (the eval Host) asks for the scenario and
never re-implements the lifecycle. The runtime owns its failure-injection seams.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_runtime.durable import retry_waits
from agent_runtime.durable.executor import EventLog, TurnRequest, execute_pass
from agent_runtime.durable.run_rows import rows_landed, run_rows
from agent_runtime.durable.runs import LEASE_SECONDS, Lease, Minted, RunStore, StaleGenerationError
from agent_runtime.model import ModelRequest, ModelResponse
from agent_runtime.store.storage import StoreTemplate
from agent_runtime.tools import ToolOutcome
from agent_runtime.turn.contained import Unwinding
from agent_runtime.turn.events import canonical_digest, preview, result_payload
from agent_runtime.turn.result import TurnResult

MAX_PARKS_PER_TURN = 16


class WorkerDiedError(Unwinding):
    """The chat worker's process died (a fault port's drill): it runs no more of its code, and
    what its transaction had not committed is gone."""


class ScenarioClock:
    """Real time, moved forward when the scenario lets a wait run out (nobody sleeps through a
    retry's backoff or a lease)."""

    __slots__ = ("offset",)

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance_to(self, when: float) -> None:
        self.offset += max(0.0, when - self()) + 0.001


class SwappableConnection:
    """The database connection as everything in the scenario holds it; a restart swaps the
    session it speaks through."""

    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    @property
    def dialect(self) -> Any:
        return self.inner.dialect

    @property
    def in_transaction(self) -> bool:
        return bool(self.inner.in_transaction)

    @property
    def transaction(self) -> object | None:
        return self.inner.transaction  # type: ignore[no-any-return]

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any:
        return self.inner.execute(sql, parameters)

    def close(self) -> None:
        self.inner.close()


class Durable:
    """One process's view of a database copy: its session (swapped by :meth:`restart`), its
    clock and the Run store over them. ``on_restart`` runs first at each restart (what the
    dying process holds in memory, closed)."""

    __slots__ = ("clock", "conn", "on_restart", "restarts", "store", "template")

    def __init__(self, template: StoreTemplate, conn: Any) -> None:
        self.template = template
        self.clock = ScenarioClock()
        self.conn: Any = SwappableConnection(conn)
        self.store = RunStore(self.conn, self.clock)
        self.restarts = 0
        self.on_restart: list[Callable[[], None]] = []

    def restart(self) -> None:
        """The process restarts: its memory and connections are gone; the database is what it
        had committed."""
        for hook in self.on_restart:
            hook()
        dying = self.conn.inner
        self.conn.inner = self.template.reopen(self.conn.inner)
        self.store = RunStore(self.conn, self.clock)
        if self.conn.inner is not dying:  # a restart that kept its session restarted nothing
            self.restarts += 1

    def outlive_lease(self) -> None:
        """Let the clock run past a lease taken now (a dead worker's)."""
        self.clock.advance_to(self.clock() + LEASE_SECONDS)

    def wake(self, due: float) -> list[str]:
        """The timer sweep after a restart: it ticks once before the wait is due (a State it
        wakes then was woken early, and its provider sees the call come back sooner than it
        asked), then again once the clock reached the due time."""
        early = retry_waits.wake_due(self.store)
        if early:
            return early
        self.clock.advance_to(due)
        return retry_waits.wake_due(self.store)

    def release(self) -> None:
        self.template.release(self.conn.inner)


class LateWorker:
    """The model port of the worker that parked a Run and comes back after its lease was
    taken: what it would say is not what is measured; its writes are."""

    def complete(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(text="A worker that lost its lease answers late.")


@dataclass(frozen=True)
class LateReturn:
    """The late worker's pass: ``landed``, the Run's rows it changed, read from the database;
    ``raised``, whether the runtime said it refused the write (its word only)."""

    raised: bool
    landed: list[str]
    detail: str


@dataclass
class TurnDrive:
    """What driving one Turn's Run did: the last pass's result, the late workers' returns and
    the worker passes that died (what they did after their last commit is gone)."""

    result: TurnResult | None = None
    late: list[LateReturn] = field(default_factory=list)
    lost_passes: int = 0


def seed_prior_pass(
    store: RunStore, minted: Minted, text: str, calls: Sequence[tuple[str, str, str]]
) -> None:
    """An earlier pass of the Turn, in the runtime's own events under a lease of its own: the
    Tool calls it finished (``(call_id, name, "ok" | "error")``) and the text it released; then
    its worker is gone and the State re-queued."""
    lease = store.claim(minted, owner="worker-1.prior")
    log = EventLog(store, lease)
    for call_id, name, outcome in calls:
        log(
            "tool.call",
            {
                "callId": call_id,
                "name": name,
                "argsDigest": canonical_digest({}),
                "argsPreview": preview({}),
            },
        )
        done = (
            ToolOutcome("succeeded", {})
            if outcome == "ok"
            else ToolOutcome("failed", reason="failed in an earlier pass")
        )
        log("tool.result", result_payload(call_id, done))
    if text:
        log("text.delta", {"text": text, "index": 0})
    store.settle(lease, "waiting", "worker_lost")
    store.requeue(minted)


def come_back_late(durable: Durable, stale: Lease, request: TurnRequest) -> LateReturn:
    """The worker that parked comes back with its old lease: the fence must refuse it. What it
    met is read from the database: the Run's rows before its pass and after (nothing else
    writes in between), beside whether the runtime raised."""
    before = run_rows(durable.conn, stale.run_id)
    try:
        execute_pass(durable.store, stale, request, resume=True)
    except StaleGenerationError as refused:
        raised, detail = True, str(refused)
    else:
        raised = False
        detail = (
            f"worker {stale.owner} passed with generation {stale.generation} after the "
            "lease moved on, and nothing refused it"
        )
    return LateReturn(raised, rows_landed(before, run_rows(durable.conn, stale.run_id)), detail)


@dataclass(frozen=True)
class TurnHooks:
    """What the process around the Run does: ``rebuild()``, a worker's request as a process
    after a restart makes it; ``late()``, the request of the worker that comes back late;
    ``parked()`` before the operator grants an approval, ``requeued()`` once the Run is
    re-queued."""

    rebuild: Callable[[], TurnRequest]
    late: Callable[[], TurnRequest]
    parked: Callable[[], None]
    requeued: Callable[[], None]


class TurnScenario:
    """One Turn's Run driven until it settles or waits on something nobody decides. A retry
    wait: a restart, then the timer sweep re-queues it. An approval: ``parked()``, the operator
    grants it and re-queues the Run, the worker that parked comes back late, then
    ``requeued()``. A worker that dies (:class:`WorkerDiedError`): a restart and, once its
    lease ran out, a new worker resumes."""

    __slots__ = ("drive", "durable", "hooks", "minted")

    def __init__(self, durable: Durable, minted: Minted, hooks: TurnHooks) -> None:
        self.durable = durable
        self.minted = minted
        self.hooks = hooks
        self.drive = TurnDrive()

    def run(self, worker: str, request: TurnRequest) -> TurnDrive:
        """Claim the Run as ``worker`` and drive it, ``request`` its first pass's."""
        durable, minted, hooks = self.durable, self.minted, self.hooks
        lease = durable.store.claim(minted, owner=worker)
        result, lease = self._pass(lease, request)
        parks = 0
        while durable.store.statuses(minted)[1] == "waiting":
            parks += 1
            if parks > MAX_PARKS_PER_TURN:
                break  # it parks without end: the Run stays waiting, read back as it is
            due = retry_waits.next_due(durable.conn, minted.run_id)
            if due is not None:  # a provider asked to be retried: the wait must survive
                durable.restart()
                if minted.state_id not in durable.wake(due):
                    break  # the restarted runtime lost the wait: the Run stays waiting
                request = hooks.rebuild()
                lease = durable.store.claim(minted, owner=f"{worker}.{parks}")
            else:
                store = durable.store
                hooks.parked()
                pending = store.pending_approvals(minted.state_id)
                if not pending:
                    break  # waiting on nothing the operator can grant: it stays waiting
                for approval_id in pending:
                    store.grant(approval_id)
                store.requeue(minted)
                stale, lease = lease, store.claim(minted, owner=f"{worker}.{parks}")
                self.drive.late.append(come_back_late(durable, stale, hooks.late()))
                hooks.requeued()
            result, lease = self._pass(lease, request, resume=True)
        self.drive.result = result
        return self.drive

    def _pass(
        self, lease: Lease, request: TurnRequest, *, resume: bool = False
    ) -> tuple[TurnResult | None, Lease]:
        """One worker's pass. A worker that dies in it is followed by a restart and, once its
        lease has run out, a new worker that resumes the Run from the State's latest
        checkpoint (or runs the Turn afresh when none was committed)."""
        durable, minted = self.durable, self.minted
        try:
            return execute_pass(durable.store, lease, request, resume=resume), lease
        except WorkerDiedError:
            self.drive.lost_passes += 1
            durable.restart()
            durable.outlive_lease()  # the dead worker's lease
            lease = durable.store.claim(minted, owner=f"{lease.owner}.replaced")
            request = self.hooks.rebuild()
            resume = durable.store.latest_checkpoint(minted.state_id) is not None
            return execute_pass(durable.store, lease, request, resume=resume), lease
