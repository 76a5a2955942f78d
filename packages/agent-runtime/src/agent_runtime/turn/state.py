"""The mutable state of one Turn, and the two ways it ends: an answer, or a settled status.

Every guard decision passes :meth:`TurnState.record` (the guard step), every answer
:meth:`TurnState.answer` (the output guards, then the streamed text), and every end
:meth:`TurnState.settle` (``turn.finished``, unless the caller announces it).
"""

from __future__ import annotations

from typing import Any

from agent_runtime.guards.guardrails import (
    FALLBACK_REFUSAL,
    GuardDecision,
    Guardrails,
    emit_decision,
)
from agent_runtime.model import ToolCallRequest, ToolSpec
from agent_runtime.soul.loader import Agent
from agent_runtime.turn.events import compact_json, finish_status, finished_payload, text_chunks
from agent_runtime.turn.result import LoopStatus, OutputKind, TurnResult
from agent_runtime.turn.settings import Checkpoint, TurnSettings


class TurnState:
    """What one Turn has done so far; lives only inside :func:`agent_runtime.turn.loop.run_turn`.

    The settings it uses on every call are copied into slots: ``tools`` by name, ``executor``,
    ``limits``, ``hosting``, ``approval``, ``checkpoints``, ``listener``.
    """

    __slots__ = (
        "agent",
        "announce_finish",
        "approval",
        "approved",
        "checkpoints",
        "deltas",
        "executor",
        "guards",
        "hosting",
        "iteration",
        "limits",
        "listener",
        "pending",
        "repairs",
        "result",
        "stop",
        "tools",
    )

    def __init__(
        self,
        settings: TurnSettings,
        agent: Agent,
        guards: Guardrails,
        result: TurnResult,
        approved: frozenset[str],
    ) -> None:
        self.agent = agent
        self.guards = guards
        self.result = result
        self.approved = approved
        self.tools: dict[str, ToolSpec] = {spec.name: spec for spec in settings.tools}
        self.executor = settings.executor
        self.limits = settings.limits
        self.hosting = settings.hosting
        self.approval = settings.approval
        self.checkpoints = settings.checkpoints
        self.listener = settings.listener
        self.announce_finish = settings.announce_finish
        self.iteration = 0
        self.repairs = 0
        self.deltas = 0
        self.stop: tuple[LoopStatus, str] | None = None  # request_input ended the Turn
        self.pending: list[str] = []  # Files a file_read attached to the next model request

    def record(self, decisions: list[GuardDecision]) -> GuardDecision | None:
        """Keep every decision; return the first refusal, if any.

        Every check that ran is an operator ``guardrail.checked`` event (so a stage that never
        ran is never read as having allowed something); a block is also the original's
        ``guardrail.decision`` record, and an input or output block a ``guardrail.blocked``."""
        self.result.guard_decisions.extend(decisions)
        refused = None
        for decision in decisions:
            emit_decision(self.listener, decision)
            if decision.blocked and refused is None:
                refused = decision
        if refused is not None and refused.stage in ("input", "output"):
            self.listener(
                "guardrail.blocked",
                {"stage": refused.stage, "reason": refused.reason, "guard": refused.guard},
            )
        return refused

    def settle(self, status: LoopStatus, reason: str | None, kind: OutputKind) -> TurnResult:
        result = self.result
        result.status, result.reason, result.output_kind = status, reason, kind
        finished = finish_status(status)
        if self.announce_finish and finished is not None:
            self.listener("turn.finished", finished_payload(finished, None, reason, result))
        return result

    def answer(
        self, text: str, structured: Any, reason: str | None, *, screen: bool = True
    ) -> TurnResult:
        """Screen a final answer with the output guards, stream it and settle the Turn."""
        kind: OutputKind = "text" if structured is None else "structured"
        refused = self.record(self.guards.check_output(text)) if screen else None
        if refused is not None:
            text, structured, kind = refused.refusal or FALLBACK_REFUSAL, None, "text"
        result = self.result
        result.output_text, result.output_structured = text, structured
        result.messages.append({"role": "assistant", "content": text})
        for chunk in text_chunks(text):
            self.listener("text.delta", {"text": chunk, "index": self.deltas})
            self.deltas += 1
        return self.settle("completed", reason, kind)

    def reply(self, call: ToolCallRequest, seen: dict[str, Any]) -> None:
        """What the model is shown of a call: one ``tool`` message."""
        self.result.messages.append(
            {
                "role": "tool",
                "tool_call_id": call.call_id,
                "name": call.name,
                "content": compact_json(seen),
            }
        )

    def checkpoint(self, batch: list[ToolCallRequest], next_call: int, dispatched: int) -> None:
        if self.checkpoints is None:
            return
        result = self.result
        awaiting = result.awaiting.call_id if result.awaiting is not None else None
        self.checkpoints.save(
            Checkpoint(
                messages=list(result.messages),
                batch=list(batch),
                next_call=next_call,
                iteration=self.iteration,
                model_calls=result.model_calls,
                repairs=self.repairs,
                usage=result.usage,
                dispatched=dispatched,
                awaiting=awaiting,
            )
        )
