"""What the runtime contains when its own code raises inside a Turn, and what it lets through.

A bug in a Tool, a converter or the loop itself must not take the worker down with it, and must
not pass for an answer: the Turn ends ``failed`` with reason :data:`TURN_EXECUTION_FAILED`, the
exception kept as its :attr:`~agent_runtime.turn.result.TurnResult.fault` for the operator (never
shown to the participant). A durable Run whose loop raised needs reconciliation: an effect may
have landed after its last checkpoint.

Some exceptions are never contained. Those that end a *pass* on purpose are :class:`Unwinding`
(a failed checkpoint write, which the Turn resumes from; a lease that moved on, which the fence
refuses; a worker that died, which a restart resumes), and so is any error of the database
driver, whose transaction may be dead: only a new pass can write again. A request the Turn does
not take is the caller's mistake, raised to the caller: :class:`RequestRefusedError`. And the
model port's own exceptions are the model's side, not the Turn's code: a port reports a vendor
failure as :class:`~agent_runtime.model.ModelFailure`, and anything else it raises reaches the
caller as it was raised (:class:`FromModelPort` carries it out of the Turn).
"""

from __future__ import annotations

import traceback
from pathlib import Path

TURN_EXECUTION_FAILED = "turn_execution_failed"
"""The reason of a Turn whose execution raised (the original's ``turn.finished`` reason)."""
AGENT_LOOP_ERROR = "agent_loop_error"
"""Why a durable Run whose loop raised needs reconciliation (the original's word)."""

_DRIVERS = frozenset({"sqlite3", "psycopg"})
FAULT_CHARS = 300
"""The most of an exception's message a fault keeps: one line for the operator."""


class Unwinding(Exception):  # noqa: N818 - it names what the exception does, not a bug
    """An exception that ends the pass it is raised in; the loop never contains it."""


class RequestRefusedError(ValueError):
    """The caller asked the Turn for what it does not take (a context key or value, two Tools of
    one name): raised to the caller, never a failed Turn."""


class FromModelPort(Unwinding):
    """What the model port raised, carried past containment; the caller gets ``error`` itself."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def passes_through(error: BaseException) -> bool:
    """An exception the Turn must not contain: not an ``Exception`` (an interrupt, an exit), a
    memory error, an :class:`Unwinding`, a :class:`RequestRefusedError`, or the database
    driver's own."""
    if not isinstance(error, Exception) or isinstance(
        error, (Unwinding, RequestRefusedError, MemoryError)
    ):
        return True
    return type(error).__module__.partition(".")[0] in _DRIVERS


def fault_of(error: BaseException) -> str:
    """``TypeError: ... (at tool_step.py:212)``: the exception and where it was raised, one line."""
    message = " ".join(str(error).split())
    if len(message) > FAULT_CHARS:
        message = message[:FAULT_CHARS] + "..."
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    name = type(error).__name__
    return (f"{name}: {message}" if message else name) + where
