"""How a Sweep keeps its Trials in flight: one after another, ``jobs`` at once on threads, or
on an executor's launcher; each finished Trial is recorded on the calling thread, in launch
order among those that finished together (:func:`eval_core._running.runner.run_sweep`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from eval_core._case.case import CaseBase
from eval_core._case.evidence import Evidence
from eval_core._plugins.executor import Launcher
from eval_core._running.trial import TrialResult

if TYPE_CHECKING:
    from concurrent.futures import Future


Pending = Sequence[tuple[int, CaseBase, int]]
Finished = tuple[CaseBase, TrialResult, Evidence | None]


def one_by_one(
    pending: Pending,
    one: Callable[[CaseBase, int], Finished],
    record: Callable[[int, Finished], None],
    stop: Callable[[], str | None],
) -> str | None:
    for index, case, number in pending:
        reason = stop()
        if reason:
            return reason
        record(index, one(case, number))
    return None


class Threads:
    """The core's own executor: ``jobs`` Trials at once on threads of this process (a Trial
    mostly waits on its model)."""

    def __init__(self, one: Callable[[CaseBase, int], Finished], jobs: int) -> None:
        from concurrent.futures import ThreadPoolExecutor  # with logging: only for --jobs

        self._one = one
        self._pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="eval-trial")
        self._in_flight: dict[Future[Finished], int] = {}
        self.capacity = jobs

    def launch(self, key: int, case: CaseBase, trial: int) -> None:
        self._in_flight[self._pool.submit(self._one, case, trial)] = key

    def wait(self) -> list[tuple[int, Finished]]:
        from concurrent.futures import FIRST_COMPLETED, wait

        finished, _ = wait(self._in_flight, return_when=FIRST_COMPLETED)
        return [(self._in_flight.pop(f), f.result()) for f in finished]

    def abandon(self) -> None:
        pass  # the binding's ``abandon`` cuts the model calls short; the pool drains on close

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class Remote:
    """An executor's :class:`~eval_core._plugins.executor.Launcher`, its finished Trials paired with
    their Case again (a Case does not travel back)."""

    def __init__(self, launcher: Launcher, cases: Mapping[str, CaseBase]) -> None:
        self._launcher = launcher
        self._cases = cases
        self.capacity = max(1, launcher.capacity)

    def launch(self, key: int, case: CaseBase, trial: int) -> None:
        self._launcher.launch(key, case, trial)

    def wait(self) -> list[tuple[int, Finished]]:
        return [
            (key, (self._cases[result.case_id], result, evidence))
            for key, result, evidence in self._launcher.wait()
        ]

    def abandon(self) -> None:
        self._launcher.abandon()

    def close(self) -> None:
        self._launcher.close()


def at_once(
    pending: Pending,
    running: Threads | Remote,
    record: Callable[[int, Finished], None],
    stop: Callable[[], str | None],
    abandon: Callable[[], None] | None,
) -> str | None:
    """Keep ``running.capacity`` Trials in flight; record each as it finishes, on this
    thread, in launch order among those that finished together."""
    in_flight = 0
    queue = iter(pending)
    reason: str | None = None
    try:
        while True:
            while reason is None and in_flight < running.capacity:
                item = next(queue, None)
                if item is None:
                    break
                reason = stop()
                if reason is None:
                    index, case, number = item
                    running.launch(index, case, number)
                    in_flight += 1
            if not in_flight:
                return reason
            for index, finished in sorted(running.wait(), key=lambda done: done[0]):
                in_flight -= 1
                record(index, finished)
    except BaseException:
        running.abandon()  # the Trials in flight end now; they are never recorded
        if abandon is not None:
            abandon()
        raise
    finally:
        running.close()
