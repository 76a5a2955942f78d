"""Routines end to end: a Routine run with no model against its fixture provider on loopback.

A crash at ``effect_confirmed`` and at ``state_succeeded`` resumes the Routine with the effect
applied exactly once, read back from the database (the effect ledger, the dispatch events, the
States) and from the provider's own counters. Then each mechanism is broken on purpose and the
Cases that measure it turn FAIL (never errored).
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.durable.runs import RunStore
from agent_runtime.routines import runs as routine_runs
from agent_runtime.routines import tool_providers
from agent_runtime.routines.tool_providers import ProviderReply
from eval_core._case.evidence import Evidence
from eval_core._plugins.fixtures import SweepResources, run_with_fixtures
from eval_core._running.scripted import ScriptedBinding
from eval_expectations_durable.run_events import RunRecord
from eval_expectations_routine.setup import RoutineRecord
from tests.conftest import Sweep, grant_every_call

CRASHES = {
    "effect_confirmed": "l3-routine-crash-after-effect-confirmed-applies-it-once",
    "state_succeeded": "l3-routine-crash-after-state-succeeded-resumes-at-the-capture",
}
RETRIES = [
    "l3-routine-waits-out-a-rate-limit-and-retries",
    "l3-routine-gives-up-after-its-retry-budget",
]
APPROVALS = [
    "l3-routine-waits-for-its-approver-before-the-effect",
    "l3-routine-without-an-approver-never-reaches-the-provider",
]
LARGE = ["l3-routine-reads-a-large-provider-reply-whole"]
PLAIN = ["l3-routine-books-an-invoice-and-captures-the-receipt"]
ROUTINES = [*CRASHES.values(), *RETRIES, *APPROVALS, *LARGE, *PLAIN]


def run_and_read(sweep: Sweep, case_id: str) -> tuple[Evidence, dict[str, Any]]:
    """Run one Trial through its fixtures; the Evidence and the rows its database holds."""
    host, plugins = sweep.host, sweep.plugins
    case = sweep.corpus.case(case_id)
    binding = ScriptedBinding()
    scope = host.open_trial(case, binding.session(case), 1)
    shared = SweepResources()
    try:
        evidence = run_with_fixtures(case, 1, scope, host.name, plugins.fixtures, shared)
        conn = scope.durable.conn  # type: ignore[attr-defined]
        rows = {
            "effects": conn.execute("SELECT outcome FROM tool_effects").fetchall(),
            "calls": conn.execute(
                "SELECT COUNT(*) FROM run_events WHERE type = 'tool.call'"
            ).fetchone()[0],
            "states": conn.execute("SELECT kind, status FROM states ORDER BY position").fetchall(),
            "generations": [
                row[0] for row in conn.execute("SELECT generation FROM states WHERE kind = 'tool'")
            ],
        }
    finally:
        scope.close()
        shared.close()
    return evidence, rows


@pytest.mark.parametrize("point", sorted(CRASHES))
def test_a_crash_resumes_the_routine_with_the_effect_applied_exactly_once(
    sweep: Sweep, point: str
) -> None:
    evidence, rows = run_and_read(sweep, CRASHES[point])
    record = evidence.record(RoutineRecord)
    assert record is not None
    assert record.crashes == 1  # the worker did die at the point
    assert (record.run_status, record.state_status) == ("succeeded", "succeeded")
    assert record.state_output == {"receiptId": "rcpt-7781", "invoiceId": "INV-2024-0117"}
    assert (record.provider_requests, record.provider_effects) == (1, 1)  # the provider's own
    assert len(rows["effects"]) == 1 and '"succeeded"' in rows["effects"][0][0]  # the ledger
    assert rows["calls"] == 1  # one dispatch on record, across both workers
    assert rows["states"] == [("tool", "succeeded"), ("capture", "succeeded")]
    # after effect_confirmed the Tool State was claimed again by a new worker (generation 2);
    # after state_succeeded it was done, and only the capture was left to claim
    assert rows["generations"] == [2 if point == "effect_confirmed" else 1]


def test_a_routines_run_is_filed_as_the_cases_turn_1_as_a_chat_turn_is(sweep: Sweep) -> None:
    """What the run-events kinds read of a Routine: one Turn, numbered 1 (a Case's
    ``turnIndex: 1`` names it), holding the Run its events belong to."""
    evidence, _ = run_and_read(sweep, PLAIN[0])
    run = evidence.record(RunRecord)
    assert run is not None and [t.turn_index for t in run.turns] == [1]
    [turn] = run.turns
    assert (turn.run_status, turn.state_status, turn.turn_status) == (
        "succeeded",
        "succeeded",
        None,
    )
    assert run.events and {e.turn_index for e in run.events} == {1}
    assert turn.run_id.startswith("run_"), turn.run_id  # the Routine runner's own id


def test_the_routine_cases_pass_against_the_real_runtime(sweep: Sweep) -> None:
    sweep.green(ROUTINES)


def test_a_runtime_that_never_records_the_confirmed_effect_applies_it_twice(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RunStore, "record_effect", lambda self, lease, call_id, outcome: None)
    sweep.red([CRASHES["effect_confirmed"]])
    sweep.green(PLAIN)


def test_a_capture_built_from_the_workers_memory_loses_the_output_after_a_crash(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The capture reads what its own worker saw the Tool return, not the database."""
    seen: dict[int, tuple[RunStore, dict[str, Any]]] = {}  # stores stay alive: ids unique
    real_settle = routine_runs._Worker.settle

    def remembering(self: Any, status: str, reason: str | None, output: Any = None) -> str:
        if self.state.type == "tool" and status == "succeeded":
            seen.setdefault(id(self.store), (self.store, {}))[1][self.state.key] = output
        return real_settle(self, status, reason, output)

    def from_memory(self: Any) -> str:
        memory = seen.get(id(self.store), (self.store, {}))[1]
        scope = {"states": {k: {"output": v} for k, v in memory.items()}, "inputs": {}}
        with routine_runs.atomic(self.store.conn):
            return real_settle(
                self, "succeeded", None, routine_runs.resolve(self.state.output, scope)
            )

    monkeypatch.setattr(routine_runs._Worker, "settle", remembering)
    monkeypatch.setattr(routine_runs._Worker, "capture", from_memory)
    sweep.red([CRASHES["state_succeeded"]])


def test_a_runtime_that_fails_a_call_its_provider_asked_to_retry_fails_the_retry_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_classify = tool_providers.classify

    def no_retry(status: int, retry_after: str | None, data: bytes) -> ProviderReply:
        reply = real_classify(status, retry_after, data)
        return ProviderReply("failure", code=reply.code) if reply.status == "retry" else reply

    monkeypatch.setattr(tool_providers, "classify", no_retry)
    sweep.red(RETRIES)
    sweep.green(PLAIN)


def test_a_runtime_that_skips_the_approval_fails_the_approval_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    grant_every_call(monkeypatch)
    sweep.red(APPROVALS)


def test_a_runtime_that_reads_only_the_head_of_a_reply_fails_the_large_reply_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_providers, "read_whole", lambda response: response.read(65536))
    sweep.red(LARGE)
    sweep.green(PLAIN)
