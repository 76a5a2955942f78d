"""The tool loop: one Turn from the user's message to a settled answer.

Order is the production order: assemble the prompt, screen the input, then call the model and
dispatch its Tool calls until it answers or a limit is hit. Every call passes the tool_call
guards, the agent's capability allowlist and its autonomy ceiling before the executor sees it;
a refusal goes back to the model as a denial so it can explain instead of retrying.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_runtime.context import assemble_system_prompt
from agent_runtime.guardrails import (
    INPUT_REFUSAL,
    OUTPUT_REFUSAL,
    WITHHELD_NOTICE,
    GuardDecision,
    Guardrails,
)
from agent_runtime.model import (
    ModelFailure,
    ModelPort,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    ToolSpec,
    Usage,
)
from agent_runtime.soul import Agent, Soul
from agent_runtime.tools import ToolExecutor, ToolOutcome

Listener = Callable[[str, dict[str, Any]], None]
LoopStatus = Literal["completed", "failed", "limit_exceeded"]
OutputKind = Literal["text", "structured", "tool_calls", "none"]
DenialSource = Literal["guardrail", "capability", "autonomy"]

REPAIR_HINT = "Correct the arguments to match the Tool's input schema and call it again."
_CHUNK = re.compile(r"[^.!?\n]*(?:[.!?]+|\n)\s*|[^.!?\n]+")


@dataclass(frozen=True, slots=True)
class LoopLimits:
    """Bounds on one Turn: model calls, Tool calls, and argument repairs."""

    max_iterations: int = 8
    max_tool_calls: int = 16
    max_repair_attempts: int = 2


@dataclass(frozen=True, slots=True)
class Denial:
    """A call refused before the executor: by a guard, the allowlist or the autonomy ceiling."""

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


def text_chunks(text: str) -> list[str]:
    """The streamed pieces of an answer: sentence by sentence, joining back to ``text``."""
    return _CHUNK.findall(text)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _latest_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        texts = [message["content"]] if isinstance(message.get("content"), str) else []
        texts.extend(
            f["text"] for f in message.get("files") or () if isinstance(f.get("text"), str)
        )
        return "\n".join(texts)
    return ""


class _Turn:
    """The mutable state of one Turn; lives only inside :func:`run_turn`."""

    __slots__ = (
        "agent",
        "emit",
        "executor",
        "guards",
        "limits",
        "repairs",
        "result",
        "tools",
    )

    def __init__(
        self,
        agent: Agent,
        guards: Guardrails,
        tools: dict[str, ToolSpec],
        executor: ToolExecutor,
        limits: LoopLimits,
        result: TurnResult,
        emit: Listener | None,
    ) -> None:
        self.agent = agent
        self.guards = guards
        self.tools = tools
        self.executor = executor
        self.limits = limits
        self.result = result
        self.emit = emit
        self.repairs = 0

    def record(self, decisions: list[GuardDecision]) -> GuardDecision | None:
        """Keep every decision; return the first refusal, if any."""
        self.result.guard_decisions.extend(decisions)
        refused = None
        for decision in decisions:
            if self.emit is not None:
                self.emit(
                    "guardrail.decision",
                    {
                        "stage": decision.stage,
                        "guard": decision.guard,
                        "blocked": decision.blocked,
                        "detail": decision.detail,
                    },
                )
            if decision.blocked and refused is None:
                refused = decision
        return refused

    def settle(self, status: LoopStatus, reason: str | None, kind: OutputKind) -> TurnResult:
        result = self.result
        result.status, result.reason, result.output_kind = status, reason, kind
        if self.emit is not None:
            self.emit("turn.settled", {"status": status, "reason": reason, "output_kind": kind})
        return result

    def answer(
        self, text: str, structured: Any, reason: str | None, *, screen: bool = True
    ) -> TurnResult:
        """Screen a final answer with the output guards, stream it and settle the Turn."""
        kind: OutputKind = "text" if structured is None else "structured"
        if screen and self.record(self.guards.check_output(text)) is not None:
            text, structured, kind = OUTPUT_REFUSAL, None, "text"
        result = self.result
        result.output_text, result.output_structured = text, structured
        result.messages.append({"role": "assistant", "content": text})
        if self.emit is not None:
            for chunk in _CHUNK.findall(text):
                self.emit("text.delta", {"text": chunk})
        return self.settle("completed", reason, kind)

    def deny(self, call: ToolCallRequest, reason: str, source: DenialSource) -> None:
        self.result.denials.append(Denial(call, reason, source))
        if self.emit is not None:
            self.emit(
                "tool.denied",
                {"call_id": call.call_id, "name": call.name, "reason": reason, "source": source},
            )
        self.reply(call, {"status": "denied", "reason": reason})

    def reply(self, call: ToolCallRequest, seen: dict[str, Any]) -> None:
        self.result.messages.append(
            {
                "role": "tool",
                "tool_call_id": call.call_id,
                "name": call.name,
                "content": _compact(seen),
            }
        )

    def dispatch(self, call: ToolCallRequest) -> bool:
        """Run one call through guards, allowlist, ceiling and executor; False ends the Turn."""
        refused = self.record(self.guards.check_tool_call(call))
        agent = self.agent
        if refused is not None:
            self.deny(
                call, f"{call.name} was refused by the {refused.guard} guardrail", "guardrail"
            )
            return True
        if call.name not in agent.tools:
            self.deny(
                call,
                f"{call.name} is not in the tools allowlist of agent {agent.slug}",
                "capability",
            )
            return True
        spec = self.tools.get(call.name)
        if spec is None:
            outcome = ToolOutcome("failed", reason=f"unknown tool {call.name}: not declared")
            self.result.results.append((call, outcome))
            self.reply(call, {"status": "failed", "reason": outcome.reason})
            return True
        if spec.mutating and agent.autonomy == "read":
            self.deny(
                call,
                f"{call.name} changes data, which is above the autonomy ceiling (read) "
                f"of agent {agent.slug}",
                "autonomy",
            )
            return True
        return self.execute(call)

    def execute(self, call: ToolCallRequest) -> bool:
        result = self.result
        result.tool_calls.append(call)
        if self.emit is not None:
            self.emit(
                "tool.call",
                {"call_id": call.call_id, "name": call.name, "arguments": call.arguments},
            )
        outcome = self.executor.execute(call)
        result.results.append((call, outcome))
        screened = outcome.output if outcome.reason is None else [outcome.output, outcome.reason]
        withheld = self.record(self.guards.check_tool_result(call.name, screened)) is not None
        if self.emit is not None:
            self.emit(
                "tool.result",
                {
                    "call_id": call.call_id,
                    "name": call.name,
                    "status": outcome.status,
                    "output": outcome.output,
                    "reason": outcome.reason,
                    "withheld": withheld,
                },
            )
        seen: dict[str, Any] = {"status": outcome.status}
        if withheld:
            seen["output"] = {"withheld": WITHHELD_NOTICE}
        else:
            if outcome.output is not None:
                seen["output"] = outcome.output
            if outcome.reason is not None:
                seen["reason"] = outcome.reason
        if outcome.status != "invalid_arguments":
            self.reply(call, seen)
            return True
        seen["repair"] = REPAIR_HINT
        self.reply(call, seen)
        self.repairs += 1
        return self.repairs <= self.limits.max_repair_attempts

    def calls(self, response: ModelResponse) -> TurnResult | None:
        """Dispatch one batch; a settled result when a limit ends the Turn."""
        calls = response.tool_calls
        result = self.result
        result.messages.append(
            {
                "role": "assistant",
                "content": response.text,
                "tool_calls": [
                    {"call_id": c.call_id, "name": c.name, "arguments": c.arguments} for c in calls
                ],
            }
        )
        result.batches.append([c.call_id for c in calls])
        dispatched = sum(len(batch) for batch in result.batches)
        if dispatched > self.limits.max_tool_calls:
            return self.settle("limit_exceeded", "max_tool_calls", "tool_calls")
        for call in calls:
            if not self.dispatch(call):
                return self.settle("limit_exceeded", "max_repair_attempts", "tool_calls")
        return None


def run_turn(
    soul: Soul,
    agent_slug: str,
    *,
    context: Mapping[str, Any],
    messages: Sequence[dict[str, Any]],
    tools: Sequence[ToolSpec],
    model: ModelPort,
    executor: ToolExecutor,
    limits: LoopLimits = LoopLimits(),
    listener: Listener | None = None,
) -> TurnResult:
    """Run one Turn of ``agent_slug`` over ``messages`` and return what it decided."""
    agent = soul.agent(agent_slug)
    declared = list(tools)
    by_name = {spec.name: spec for spec in declared}
    if len(by_name) != len(declared):
        raise ValueError("two Tools share a name")
    system = assemble_system_prompt(soul, agent, context, declared)
    result = TurnResult(system_prompt=system, messages=list(messages))
    turn = _Turn(
        agent, Guardrails.from_config(soul.guardrails), by_name, executor, limits, result, listener
    )

    screened = turn.guards.check_input(_latest_user_text(result.messages))
    if turn.record(screened) is not None:
        return turn.answer(INPUT_REFUSAL, None, "input_refused", screen=False)

    for iteration in range(1, limits.max_iterations + 1):
        request = ModelRequest(system, list(result.messages), declared)
        result.requests.append(request)
        if listener is not None:
            listener(
                "model.request",
                {"iteration": iteration, "messages": len(request.messages), "tools": len(declared)},
            )
        try:
            response = model.complete(request)
        except ModelFailure as failure:
            return turn.settle("failed", failure.reason, "none")
        result.model_calls += 1
        result.usage = result.usage + response.usage
        if response.tool_calls:
            settled = turn.calls(response)
            if settled is not None:
                return settled
            continue
        if response.structured is not None:
            return turn.answer(_compact(response.structured), response.structured, None)
        if response.text is not None and response.text.strip():
            return turn.answer(response.text, None, None)
        return turn.settle("failed", "empty_model_output", "none")
    return turn.settle("limit_exceeded", "max_iterations", "tool_calls")
