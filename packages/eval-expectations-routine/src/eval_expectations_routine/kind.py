"""``state_output_equals``: the value at a path of the Routine's captured output;
``routine_worker_crashes``: how many of the Routine's workers died at the fault port."""

from __future__ import annotations

from typing import Any

from eval_core.plugin import (
    Evidence,
    Expectation,
    Problems,
    Verdict,
    deep_equal,
    dot_path,
    failed,
    passed,
    render,
    resolve,
)
from eval_expectations_routine.setup import RoutineRecord


class StateOutputEquals(Expectation, tag="state_output_equals", frozen=True):
    path: str
    value: Any


def score(e: StateOutputEquals, ev: Evidence) -> Verdict:
    record = ev.record(RoutineRecord)
    if record is None:
        return failed(
            f"no Routine Run was read back (the Case needs 'routine'); cannot read {e.path}"
        )
    if not record.captured:
        reason = f" ({record.reason})" if record.reason else ""
        if record.raised:
            reason += f"; its worker raised {record.raised}"
        return failed(
            f"the capture State holds no output: the Run is {record.run_status}{reason}, its "
            f"Tool State {record.state_status}; expected {e.path} = {render(e.value)}"
        )
    found, value = resolve(record.state_output, e.path)
    if not found:
        return failed(f"the captured output has no {e.path}; expected {render(e.value)}")
    detail = f"captured output {e.path} = {render(value)}, expected {render(e.value)}"
    return passed(detail) if deep_equal(value, e.value) else failed(detail)


def check(e: StateOutputEquals, _case: object) -> Problems:
    return dot_path(e.path)


class RoutineWorkerCrashes(Expectation, tag="routine_worker_crashes", frozen=True):
    count: int


def score_crashes(e: RoutineWorkerCrashes, ev: Evidence) -> Verdict:
    """The Host's record of its workers: each death the fault port caused, caught as the worker
    raised it (a crash scripted with crashAfter that never happened proves nothing)."""
    record = ev.record(RoutineRecord)
    if record is None:
        return failed(
            f"no Routine Run was read back (the Case needs 'routine'); expected {e.count} "
            "worker crash(es)"
        )
    detail = (
        f"{record.crashes} worker(s) of the Routine died at the fault port, expected {e.count}; "
        f"the Run is {record.run_status}"
    )
    return passed(detail) if record.crashes == e.count else failed(detail)


def check_crashes(e: RoutineWorkerCrashes, _case: object) -> Problems:
    ok = isinstance(e.count, int) and e.count >= 0
    return [] if ok else [(".count", "must be an integer ≥ 0")]
