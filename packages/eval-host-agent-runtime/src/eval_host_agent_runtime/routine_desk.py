"""The Routine desk an L3 Trial offers: what the operator schedules instead of a chat Turn.

A fixture schedules one Routine (its definition, its Tool's contract and provider, its inputs,
an extra guardrail policy, who approves), and may arm the fault port of the runtime's Routine
worker at a crash point. The runtime's own driver runs it
(:func:`agent_runtime.routines.scenario.drive_routine`) and the Trial leaves the outcome here,
read back from the database.
"""

from __future__ import annotations

from collections.abc import Callable

from agent_runtime.routines.runs import CRASH_POINTS, CrashPoint, WorkerCrashedError
from eval_core.records import RoutineOutcome, RoutineSchedule


class RoutineDeskService:
    """Routines the operator runs in this Trial, their approver, and the worker's fault port."""

    __slots__ = (
        "crash_point",
        "crashes",
        "fired",
        "grant_actions",
        "job",
        "raised",
        "requeue_once",
        "result",
    )

    def __init__(self) -> None:
        self.job: RoutineSchedule | None = None
        self.crash_point: CrashPoint | None = None
        self.fired = False
        self.crashes = 0
        self.result: RoutineOutcome | None = None
        self.grant_actions: list[Callable[[], None]] = []
        self.raised: str | None = None
        self.requeue_once = False

    def schedule(self, routine: RoutineSchedule) -> None:
        """Run this Routine instead of a chat Turn; its Tool's provider is at
        ``routine.provider_url``; ``routine.approver`` (when given) grants the approvals it
        asks for."""
        if self.job is not None:
            raise ValueError("one Routine per Trial")
        self.job = routine

    def crash_after(self, point: str) -> None:
        """The worker dies once at ``point`` (``effect_confirmed`` or ``state_succeeded``)."""
        if point not in CRASH_POINTS:
            raise ValueError(f"no crash point {point!r}; points: {', '.join(CRASH_POINTS)}")
        self.crash_point = point

    def on_grant(self, action: Callable[[], None]) -> None:
        """Run ``action`` each time the approver grants an approval, right after the grant (a
        fixture marks where its provider's log stood)."""
        self.grant_actions.append(action)

    def requeue_undecided(self) -> None:
        """The operator re-queues the Run once while its approval waits undecided (a retry
        button pressed): the approval gate must park it again."""
        self.requeue_once = True

    def granted(self) -> None:
        """The approver granted an approval (called by the Trial)."""
        for action in self.grant_actions:
            action()

    def fault(self, point: CrashPoint) -> None:
        """The runtime's fault port: called by the worker at each crash point."""
        if point == self.crash_point and not self.fired:
            self.fired = True
            raise WorkerCrashedError(f"the worker died after {point} (fault port)")

    def outcome(self) -> RoutineOutcome | None:
        return self.result
