"""The Routine worker's test seam: a scheduled Routine's Run driven pass after pass.

What production does between passes is done here with the runtime's own code (a worker that
crashed replaced once its lease ran out, a retry wait ended by a restart and the timer sweep,
an approver's grant, an operator re-queueing an undecided Run), so a test or a harness asks for
the scenario instead of re-implementing the worker's lifecycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent_runtime.durable import retry_waits
from agent_runtime.durable.runs import Minted
from agent_runtime.durable.scenario import MAX_PARKS_PER_TURN, Durable
from agent_runtime.routines.runs import RoutineRequest, WorkerCrashedError, run_routine, states


@dataclass
class RoutineDrive:
    """What driving the Routine's Run did: the worker crashes it survived and what the
    worker raised when it broke (``None`` when it never did)."""

    crashes: int = 0
    raised: str | None = None


@dataclass(frozen=True)
class RoutineOperator:
    """Who decides for the Run: ``approver`` grants the approvals it asks for (``granted()``
    after each), when there is one; with ``requeue_undecided`` the operator re-queues the Run
    once while its approval is undecided (the approval gate must park it again)."""

    approver: str | None
    requeue_undecided: bool
    granted: Callable[[], None]


def drive_routine(
    durable: Durable, run_id: str, request: Callable[[], RoutineRequest], operator: RoutineOperator
) -> RoutineDrive:
    """Worker pass after worker pass (``request()`` each pass's), until the Run settles or waits
    on something nobody decides. A worker that crashes is followed by a restart and, once its
    lease has run out, a new worker; a retry wait by a restart and the timer sweep; an approval
    by the operator's approver."""
    drive = RoutineDrive()
    approver, requeue_undecided = operator.approver, operator.requeue_undecided
    for passes in range(1, MAX_PARKS_PER_TURN + 1):
        this_pass = request()
        try:
            status = run_routine(durable.store, run_id, this_pass, worker=f"worker-{passes}")
        except WorkerCrashedError:
            drive.crashes += 1
            durable.restart()
            durable.outlive_lease()  # the dead worker's lease
            continue
        except Exception as error:  # the runtime's worker broke: a verdict, read back
            drive.raised = f"{type(error).__name__}: {error}"
            break
        if status != "waiting":
            break
        due = retry_waits.next_due(durable.conn, run_id)
        if due is not None:
            durable.restart()
            if not durable.wake(due):
                break
            continue
        store = durable.store
        tool = next(row for row in states(durable.conn, run_id) if row.kind == "tool")
        pending = store.pending_approvals(tool.state_id)
        if pending and approver is None and requeue_undecided:
            requeue_undecided = False  # re-queued undecided: the gate must hold
            store.requeue(Minted(run_id, tool.state_id, ""))
            continue
        if not pending or approver is None:
            break  # nobody in this scenario decides: the Run stays waiting
        for approval_id in pending:
            store.grant(approval_id, by=approver)
            operator.granted()
        store.requeue(Minted(run_id, tool.state_id, ""))
    # past MAX_PARKS_PER_TURN passes it parks without end: read back as it is
    return drive
