"""An in-memory Turn that survives a failed checkpoint write: resume, never redo an effect.

Without a database a Turn still checkpoints (after each model batch and each Tool result) into
:class:`MemoryCheckpoints`, and its Tool effects go through an :class:`EffectLedger`. When a
checkpoint write fails, :func:`run_recovering` resumes the Turn from the last checkpoint that
was written: the batch in flight is dispatched again from its start, the ledger answers the
calls whose effects already ran, and the model is not asked again. ``fault`` is the store's
fault port: it may fail a write on purpose (chaos testing, an operator drill).
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from agent_runtime.model import ToolCallRequest
from agent_runtime.tools import PARKED, ToolExecutor, ToolOutcome
from agent_runtime.turn.contained import Unwinding
from agent_runtime.turn.loop import run_turn
from agent_runtime.turn.result import TurnResult
from agent_runtime.turn.settings import Checkpoint, TurnSettings, TurnStart

CheckpointFault = Callable[[Checkpoint], None]
"""Called before each write; raising :class:`CheckpointWriteError` fails that write."""

MAX_RECOVERIES = 2


class CheckpointWriteError(Unwinding):
    """A checkpoint could not be written: the Turn stops and resumes from the last one."""


class MemoryCheckpoints:
    """One Turn's checkpoints in memory, behind a fault port."""

    __slots__ = ("fault", "saved")

    def __init__(self, fault: CheckpointFault | None = None) -> None:
        self.fault = fault
        self.saved: list[Checkpoint] = []

    def save(self, checkpoint: Checkpoint) -> None:
        if self.fault is not None:
            self.fault(checkpoint)
        self.saved.append(checkpoint)

    def latest(self) -> Checkpoint | None:
        return self.saved[-1] if self.saved else None


class EffectLedger:
    """Runs each call's effect at most once per Turn: a replayed call gets its recorded outcome."""

    __slots__ = ("inner", "outcomes")

    def __init__(self, inner: ToolExecutor) -> None:
        self.inner = inner
        self.outcomes: dict[str, ToolOutcome] = {}

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        recorded = self.outcomes.get(call.call_id)
        if recorded is not None:
            return recorded
        outcome = self.inner.execute(call)
        if outcome.status not in PARKED:  # a provider that asked to wait ran no effect yet
            self.outcomes[call.call_id] = outcome
        return outcome


def run_recovering(
    settings: TurnSettings, start: TurnStart, checkpoints: MemoryCheckpoints
) -> TurnResult:
    """:func:`run_turn` with its checkpoints kept, resuming after a failed checkpoint write."""
    settings = replace(settings, executor=EffectLedger(settings.executor), checkpoints=checkpoints)
    for _ in range(MAX_RECOVERIES + 1):
        try:
            return run_turn(settings, start)
        except CheckpointWriteError:
            resume = checkpoints.latest()
            if resume is None:
                raise
            start = replace(start, resume=resume)
    raise CheckpointWriteError(f"the checkpoint store failed {MAX_RECOVERIES + 1} times")
