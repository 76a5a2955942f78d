"""``state_output_equals``: the value at a path of the Routine's captured output;
``routine_worker_crashes``: how many of the Routine's workers died at the fault port."""

from __future__ import annotations

from typing import Any

from eval_core.kinds import (
    Evidence,
    Expectation,
    Problems,
    Verdict,
    deep_equal,
    dot_path,
    failed,
    need,
    render,
    resolve,
    scorer,
)
from eval_expectations_routine.setup import RoutineRecord


class StateOutputEquals(Expectation, tag="state_output_equals", frozen=True):
    path: str
    value: Any


def _record(ev: Evidence, cannot: str) -> RoutineRecord:
    """The Routine's read-back, or the scorer fails: none, and what it ``cannot`` do."""
    why = f"no Routine Run was read back (the Case needs 'routine'); {cannot}"
    return need(ev.record(RoutineRecord), why)


@scorer
def score(e: StateOutputEquals, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot read {e.path}")
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
    return Verdict(deep_equal(value, e.value), detail)


def check(e: StateOutputEquals, _case: object) -> Problems:
    return dot_path(e.path)


class RoutineWorkerCrashes(Expectation, tag="routine_worker_crashes", frozen=True):
    count: int


@scorer
def score_crashes(e: RoutineWorkerCrashes, ev: Evidence) -> Verdict:
    """The Host's record of its workers: each death the fault port caused, caught as the worker
    raised it (a crash scripted with crashAfter that never happened proves nothing)."""
    record = _record(ev, f"expected {e.count} worker crash(es)")
    detail = (
        f"{record.crashes} worker(s) of the Routine died at the fault port, expected {e.count}; "
        f"the Run is {record.run_status}"
    )
    return Verdict(record.crashes == e.count, detail)
