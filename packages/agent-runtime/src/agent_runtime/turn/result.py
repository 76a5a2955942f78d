"""What one Turn decided: its status and reason, its answer, and every call, denial and decision.

The loop fills a :class:`TurnResult` as it goes; the reasons a Turn ends with are named here so
the durable executor and the Host read the same words the loop writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from agent_runtime.guards.guardrails import GuardDecision
from agent_runtime.model import ModelRequest, ToolCallRequest, Usage
from agent_runtime.tools import ToolOutcome

LoopStatus = Literal["completed", "failed", "waiting", "awaiting_retry"]
OutputKind = Literal["text", "structured", "tool_calls", "none"]
DenialSource = Literal["guardrail", "capability", "hosting", "autonomy", "repeat"]

ITERATION_LIMIT = "iteration_limit"
TOOL_CALL_LIMIT = "tool_call_limit"
REPAIR_BUDGET_EXHAUSTED = "repair_budget_exhausted"
"""The loop's limit reasons: a limit fails the loop (status ``failed``) with one of these."""

RETRY_WAIT = "retry_wait"
"""The reason of a Turn parked because a Tool's provider asked to be retried later."""
REPEATED_SIDE_EFFECT = "repeated_side_effect"
REQUEST_INPUT = "request_input"
REQUEST_INPUT_FAILED = "request_input_failed"
INPUT_REQUESTED = "input_requested"
"""``request_input`` asks a person and ends the Turn, as in the original: it fails the loop
when the request could not be made, and completes it when the Tool suspends the Run for the
answer (``suspendRun: true``); either way no further call runs before the answer."""

OUTPUT_LIMIT_REASON = "output_truncated"
"""The completion guard's reason when the model stopped at its output limit (finish ``length``)."""


class Denial(msgspec.Struct, frozen=True):
    """A call refused before the executor: by a guard, the agent's capability restrictions or
    its autonomy ceiling."""

    call: ToolCallRequest
    reason: str
    source: DenialSource


@dataclass(slots=True)
class TurnResult:
    """Everything one Turn decided, in the order it decided it."""

    system_prompt: str
    messages: list[dict[str, Any]]
    requests: list[ModelRequest] = field(default_factory=list)
    model_calls: int = 0
    output_text: str | None = None
    output_structured: Any = None
    output_kind: OutputKind = "none"
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    batches: list[list[str]] = field(default_factory=list)
    results: list[tuple[ToolCallRequest, ToolOutcome]] = field(default_factory=list)
    denials: list[Denial] = field(default_factory=list)
    guard_decisions: list[GuardDecision] = field(default_factory=list)
    status: LoopStatus = "completed"
    reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    awaiting: ToolCallRequest | None = None
    parked: ToolOutcome | None = None
    """What the Tool's provider answered when it, not the runtime, parked ``awaiting``."""
    activity: list[dict[str, Any]] = field(default_factory=list)
    """Each dispatched call of a Tool that declares its participant activity."""
    model_latencies_ms: list[int] = field(default_factory=list)
    """How long each model call that answered took, in milliseconds (wall clock)."""
    fault: str | None = None
    """The exception a Turn that ended :data:`~agent_runtime.turn.contained.TURN_EXECUTION_FAILED`
    raised, one line, for the operator (:func:`~agent_runtime.turn.contained.fault_of`)."""
