"""A Routine worker's pass over a Run another pass already settled or parked: it runs nothing
and answers the Run's status as the database holds it (``run_routine``'s contract). The Host's
scheduler never passes over a parked State (each pass after the first follows a requeue, a timer
wake or a grant, which queue it again) and stops at the first pass that does not wait, so no
Case meets a second scheduler passing over the same Run; this test is that scheduler."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.durable.runs import RunStore
from agent_runtime.durable.scenario import MAX_PARKS_PER_TURN, Durable
from agent_runtime.guards.guardrails import GuardrailConfig
from agent_runtime.routines.definitions import parse
from agent_runtime.routines.runs import (
    RoutineRequest,
    ToolContract,
    run_routine,
    run_status,
    start_routine,
    states,
)
from agent_runtime.routines.scenario import RoutineOperator, drive_routine
from agent_runtime.routines.tool_providers import ProviderReply
from agent_runtime.store.storage import StoreTemplate, connect, migrate

DEFINITION = {
    "description": "Books an approved invoice and keeps its receipt.",
    "inputs": {"invoiceId": {"type": "string"}},
    "states": [
        {
            "key": "push",
            "type": "tool",
            "tool": "invoice_push",
            "arguments": {"invoiceId": {"$from": "inputs.invoiceId"}},
        },
        {
            "key": "receipt",
            "type": "capture",
            "output": {"receiptId": {"$from": "states.push.output.receiptId"}},
        },
    ],
}
SCHEMA = {
    "type": "object",
    "properties": {"invoiceId": {"type": "string"}},
    "required": ["invoiceId"],
    "additionalProperties": False,
}


class Provider:
    """The accounting system's endpoint: books the invoice, counting each request."""

    def __init__(self) -> None:
        self.requests = 0

    def call(self, tool: str, arguments: Any, idempotency_key: str) -> ProviderReply:
        self.requests += 1
        return ProviderReply("success", output={"receiptId": "rcpt-7781"})


@pytest.mark.parametrize(
    ("contract", "inputs", "settled"),
    [
        (
            ToolContract("invoice_push", "Books one invoice.", SCHEMA, True, True),
            "INV-1",
            "waiting",
        ),
        (ToolContract("invoice_push", "Books one invoice.", SCHEMA, True), 117, "failed"),
    ],
    ids=["parked-on-its-approval", "failed-on-its-arguments"],
)
def test_a_second_pass_over_a_settled_or_parked_run_runs_nothing_and_answers_its_status(
    contract: ToolContract, inputs: Any, settled: str
) -> None:
    conn = connect()
    migrate(conn)
    store = RunStore(conn, lambda: 1000.0)
    routine = parse(DEFINITION)
    provider = Provider()
    request = RoutineRequest(routine, contract, provider, GuardrailConfig())
    run_id = start_routine(store, "finance", "invoice-push", routine, {"invoiceId": inputs})
    assert run_routine(store, run_id, request, "worker-1") == settled
    assert run_routine(store, run_id, request, "worker-2") == settled
    assert run_status(conn, run_id)[0] == settled
    assert provider.requests == 0


class Broken:
    """A provider whose client breaks: what it raises is no reply the runtime classifies."""

    def __init__(self) -> None:
        self.requests = 0

    def call(self, tool: str, arguments: Any, idempotency_key: str) -> ProviderReply:
        self.requests += 1
        raise RuntimeError("the accounting client broke")


def test_a_worker_that_raises_is_read_back_and_driven_no_further(template: StoreTemplate) -> None:
    """The scheduler seam (``drive_routine``) takes a worker that raised (a runtime that broke)
    as the scenario's end: it says what was raised and starts no further pass, and the Run is
    read back as that worker left it."""
    durable = Durable(template, template.fresh())
    try:
        routine = parse(DEFINITION)
        provider = Broken()
        contract = ToolContract("invoice_push", "Books one invoice.", SCHEMA, True)
        request = RoutineRequest(routine, contract, provider, GuardrailConfig())
        run_id = start_routine(
            durable.store, "finance", "invoice-push", routine, {"invoiceId": "I"}
        )
        operator = RoutineOperator(approver=None, requeue_undecided=False, granted=lambda: None)
        drive = drive_routine(durable, run_id, lambda: request, operator)
        assert drive.raised == "RuntimeError: the accounting client broke"
        assert (drive.crashes, provider.requests) == (0, 1)
        assert run_status(durable.conn, run_id)[0] == "running"  # its State still claimed
    finally:
        durable.release()


def test_a_run_that_settled_is_driven_no_further_and_nothing_more_is_decided(
    template: StoreTemplate,
) -> None:
    """The seam stops at the first pass whose Run does not wait: it is read back as it is. A
    broken gate that leaves an approval requested under a Run that went on and succeeded (the
    second fault a catalogue drill makes) is not granted afterwards by the seam's approver, so
    the read-back shows the approval nobody decided, never one the scenario decided late."""
    durable = Durable(template, template.fresh())
    try:
        routine = parse(DEFINITION)
        provider = Provider()
        granted: list[str] = []

        def gate_left_open(point: str) -> None:
            if point == "state_succeeded":  # an approval requested that nothing waited on
                tool = next(r for r in states(durable.conn, run_id) if r.kind == "tool")
                durable.conn.execute(
                    "INSERT INTO approvals (id, run_id, state_id, call_id, tool, arguments, "
                    "status) VALUES ('appr-left', ?, ?, 'c-left', 'invoice_push', '{}', "
                    "'requested')",
                    (run_id, tool.state_id),
                )

        contract = ToolContract("invoice_push", "Books one invoice.", SCHEMA, True)
        request = RoutineRequest(routine, contract, provider, GuardrailConfig(), gate_left_open)
        run_id = start_routine(
            durable.store, "finance", "invoice-push", routine, {"invoiceId": "I"}
        )
        operator = RoutineOperator(
            approver="ops", requeue_undecided=False, granted=lambda: granted.append("granted")
        )
        drive = drive_routine(durable, run_id, lambda: request, operator)
        assert (drive.crashes, drive.raised, provider.requests) == (0, None, 1)
        assert run_status(durable.conn, run_id)[0] == "succeeded"
        assert granted == []
        status = durable.conn.execute(
            "SELECT status FROM approvals WHERE id = 'appr-left'"
        ).fetchone()
        assert status[0] == "requested"
    finally:
        durable.release()


def test_a_runtime_that_never_honours_a_grant_is_driven_a_bounded_number_of_passes(
    template: StoreTemplate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runtime that forgets every grant asks for the approval again on every pass, so the
    Routine's Run parks without end. The seam grants and re-queues it pass after pass, each by
    a worker of its own, and stops after MAX_PARKS_PER_TURN passes: the Run is read back as it
    is (never settled), the provider never reached."""
    monkeypatch.setattr(RunStore, "granted_calls", lambda _self, _state_id: frozenset())
    durable = Durable(template, template.fresh())
    try:
        routine = parse(DEFINITION)
        provider = Provider()
        contract = ToolContract("invoice_push", "Books one invoice.", SCHEMA, True, True)
        request = RoutineRequest(routine, contract, provider, GuardrailConfig())
        run_id = start_routine(
            durable.store, "finance", "invoice-push", routine, {"invoiceId": "I"}
        )
        passes: list[RoutineRequest] = []

        def next_pass() -> RoutineRequest:
            passes.append(request)
            return request

        granted: list[str] = []
        operator = RoutineOperator(
            approver="ops", requeue_undecided=False, granted=lambda: granted.append("granted")
        )
        drive = drive_routine(durable, run_id, next_pass, operator)
        assert (drive.crashes, drive.raised, provider.requests) == (0, None, 0)
        assert len(passes) == MAX_PARKS_PER_TURN
        assert len(granted) == MAX_PARKS_PER_TURN  # one grant after each pass that parked
        # never settled: the last pass parked it, and the seam's grant re-queued it
        assert run_status(durable.conn, run_id)[0] in ("waiting", "queued")
    finally:
        durable.release()
