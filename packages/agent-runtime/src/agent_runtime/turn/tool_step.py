"""The Tool step: one batch of the model's calls, each through the gate and then the executor.

Every call passes the tool_call guards, the agent's capability restrictions, the hosting
floor, the repeat check and its autonomy ceiling before the executor sees it; a refusal goes
back to the model as a denial so it can explain instead of retrying. Arguments the Tool's schema
refuses are sent back for repair, within the repair budget.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent_runtime.guards.capabilities import approval_reason, demands_approval
from agent_runtime.guards.guardrails import WITHHELD_NOTICE, denial_reason
from agent_runtime.model import ModelResponse, ToolCallRequest, ToolSpec
from agent_runtime.tools import PARKED, ToolOutcome
from agent_runtime.turn import arguments
from agent_runtime.turn.events import (
    call_payload,
    compact_json,
    denied_payload,
    preview,
    result_payload,
)
from agent_runtime.turn.result import (
    INPUT_REQUESTED,
    REPAIR_BUDGET_EXHAUSTED,
    REPEATED_SIDE_EFFECT,
    REQUEST_INPUT,
    REQUEST_INPUT_FAILED,
    RETRY_WAIT,
    TOOL_CALL_LIMIT,
    Denial,
    DenialSource,
    TurnResult,
)
from agent_runtime.turn.state import TurnState

REPAIR_HINT = "Correct the arguments to match the Tool's input schema and call it again."


def _succeeded(message: Mapping[str, Any]) -> bool:
    """A Tool reply whose call ran its effect."""
    if message.get("role") != "tool":
        return False
    try:
        seen = json.loads(message.get("content") or "{}")
    except ValueError:
        return False
    return isinstance(seen, dict) and seen.get("status") == "succeeded"


class ToolStep(TurnState):
    """A Turn's state with its Tool step: :meth:`calls` records a batch and dispatches it."""

    __slots__ = ()

    def deny(self, call: ToolCallRequest, reason: str, source: DenialSource) -> None:
        self.result.denials.append(Denial(call, reason, source))
        self.listener("tool.denied", denied_payload(call, reason, source))
        if source == "repeat":  # the original keeps the rejected repeat in the record
            self.listener("tool.result", self._rejected_repeat(call, reason))
        self.reply(call, {"status": "denied", "reason": reason})

    def _rejected_repeat(self, call: ToolCallRequest, reason: str) -> dict[str, Any]:
        """The ``tool.result`` of a repeat refused before dispatch (no ``tool.call`` names it,
        so it names the Tool): ``error`` with ``errorCode: repeated_side_effect``."""
        payload: dict[str, Any] = {"callId": call.call_id, "status": "error"}
        payload |= {"errorCode": REPEATED_SIDE_EFFECT, "summary": reason, "name": call.name}
        payload["argsPreview"] = preview(call.arguments)
        spec = self.tools.get(call.name)
        if spec is not None and spec.participant_activity is not None:
            payload["participantActivity"] = spec.participant_activity
        return payload

    def dispatch(self, call: ToolCallRequest) -> bool:
        """Run one call through guards, restrictions, ceiling and executor; False ends the Turn
        (a repair limit, or a call parked for approval: ``result.awaiting`` tells which)."""
        refused = self.record(self.guards.check_tool_call(call))
        agent = self.agent
        if refused is not None:
            self.deny(call, denial_reason(refused), "guardrail")
            return True
        spec = self.tools.get(call.name)
        mutating = spec is not None and spec.mutating
        if (forbidden := agent.denial(call.name, mutating, call.arguments)) is not None:
            self.deny(call, forbidden, "capability")
            return True
        if (held := self.hosting.refusal(call.name)) is not None:
            self.deny(call, held, "hosting")
            return True
        if spec is None:
            outcome = ToolOutcome("failed", reason=f"unknown tool {call.name}: not declared")
            self.result.results.append((call, outcome))
            self.reply(call, {"status": "failed", "reason": outcome.reason})
            return True
        if spec.side_effecting and (earlier := self.ran_before(call)) is not None:
            self.deny(
                call,
                f"{REPEATED_SIDE_EFFECT}: {call.name} already ran with these arguments in this "
                f"Turn (call {earlier}); its effect is not repeated",
                "repeat",
            )
            return True
        return self.admit(call, spec)

    def admit(self, call: ToolCallRequest, spec: ToolSpec) -> bool:
        """A call past the gate's refusals: held for an approval above the ceiling, sent back
        for repair when its arguments are wrong, else executed."""
        agent = self.agent
        unapproved = call.call_id not in self.approved
        if spec.reviewed and unapproved:
            reason = f"{call.name} needs an approval, and none can be asked"
            return self.park_or_deny(call, spec, reason)
        if unapproved and demands_approval(agent.autonomy, spec.mutating, None):
            return self.park_or_deny(
                call, spec, approval_reason(call.name, agent.slug, agent.autonomy)
            )
        wrong = arguments.problem(spec.input_schema, call.arguments)
        if wrong is not None:  # the Tool never sees arguments its schema refuses
            return self.repair(call, ToolOutcome("invalid_arguments", reason=wrong))
        return self.execute(call)

    def park_or_deny(self, call: ToolCallRequest, spec: ToolSpec, reason: str) -> bool:
        """A call that needs an approval: parked (once its arguments are well formed: nobody is
        asked to approve a call that cannot run), or denied when none can be asked."""
        if self.approval is None or self.approval(call) != "park":
            self.deny(call, reason, "autonomy")
            return True
        wrong = arguments.problem(spec.input_schema, call.arguments)
        if wrong is not None:
            return self.repair(call, ToolOutcome("invalid_arguments", reason=wrong))
        self.result.awaiting = call
        return False

    def ran_before(self, call: ToolCallRequest) -> str | None:
        """The call id of an earlier call of this Turn with the same Tool and arguments whose
        effect ran (read from the Turn's messages, so a resumed Turn knows it too). A call is
        never among those that ran before it is dispatched, so an earlier call with its own id
        (a model that reuses ids, or sends none) is an earlier call too, never itself."""
        messages = self.result.messages
        ran = {m.get("tool_call_id") for m in messages if _succeeded(m)}
        same = compact_json(call.arguments)
        for message in messages:
            if message.get("role") != "assistant":
                continue
            for earlier in message.get("tool_calls") or ():
                if (
                    earlier.get("name") == call.name
                    and earlier.get("call_id") in ran
                    and compact_json(earlier.get("arguments")) == same
                ):
                    return str(earlier["call_id"])
        return None

    def execute(self, call: ToolCallRequest) -> bool:
        result = self.result
        result.tool_calls.append(call)
        activity = self.tools[call.name].participant_activity
        stamp = {"participantActivity": activity} if activity is not None else {}
        if activity is not None:
            result.activity.append(
                {"callId": call.call_id, "name": call.name, "participantActivity": activity}
            )
        self.listener("tool.call", {**call_payload(call), **stamp})
        outcome = self.executor.execute(call)
        result.results.append((call, outcome))
        self.pending.extend(outcome.attach)
        if outcome.status in PARKED:
            return self.park(call, outcome)
        screened = outcome.output if outcome.reason is None else [outcome.output, outcome.reason]
        withheld = self.record(self.guards.check_tool_result(call.name, screened)) is not None
        self.listener("tool.result", {**result_payload(call.call_id, outcome), **stamp})
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
            return self._asked(call, outcome)
        seen["repair"] = REPAIR_HINT
        self.reply(call, seen)
        self.repairs += 1
        return self.repairs <= self.limits.max_repair_attempts

    def _asked(self, call: ToolCallRequest, outcome: ToolOutcome) -> bool:
        """False when a ``request_input`` call ends the Turn (:data:`REQUEST_INPUT`)."""
        if call.name != REQUEST_INPUT:
            return True
        if outcome.status != "succeeded":
            self.stop = ("failed", REQUEST_INPUT_FAILED)
        elif isinstance(outcome.output, Mapping) and outcome.output.get("suspendRun") is True:
            self.stop = ("completed", INPUT_REQUESTED)
        return self.stop is None

    def park(self, call: ToolCallRequest, outcome: ToolOutcome) -> bool:
        """The Tool's provider is waiting (an approval it asked for, a retry it asked for): the
        call is parked, nothing is reported to the model, and the Turn stops here."""
        self.result.awaiting, self.result.parked = call, outcome
        return False

    def repair(self, call: ToolCallRequest, outcome: ToolOutcome) -> bool:
        """Arguments the schema refuses: the model is told why and may try again."""
        self.result.results.append((call, outcome))
        # rejected before dispatch: no tool.call names it, so this tool.result does
        payload = result_payload(call.call_id, outcome)
        self.listener(
            "tool.result",
            {**payload, "name": call.name, "argsPreview": preview(call.arguments)},
        )
        self.reply(
            call, {"status": outcome.status, "reason": outcome.reason, "repair": REPAIR_HINT}
        )
        self.repairs += 1
        return self.repairs <= self.limits.max_repair_attempts

    def calls(self, response: ModelResponse, dispatched: int) -> tuple[TurnResult | None, int]:
        """Record one batch the model asked for, then dispatch it."""
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
        self.listener("tool.batch", {"call_ids": [c.call_id for c in calls]})
        dispatched += len(calls)
        if dispatched > self.limits.max_tool_calls:
            return self.settle("failed", TOOL_CALL_LIMIT, "tool_calls"), dispatched
        self.checkpoint(list(calls), 0, dispatched)
        return self.batch(list(calls), 0, dispatched), dispatched

    def batch(self, calls: list[ToolCallRequest], start: int, dispatched: int) -> TurnResult | None:
        """Dispatch ``calls[start:]``, checkpointing after each; a result when the Turn ends."""
        for index in range(start, len(calls)):
            if not self.dispatch(calls[index]):
                if self.stop is not None:
                    return self.settle(*self.stop, "tool_calls")
                if self.result.awaiting is not None:
                    self.checkpoint(calls, index, dispatched)
                    parked = self.result.parked
                    if parked is not None and parked.status == "awaiting_retry":
                        return self.settle("awaiting_retry", RETRY_WAIT, "tool_calls")
                    return self.settle("waiting", "approval_required", "tool_calls")
                return self.settle("failed", REPAIR_BUDGET_EXHAUSTED, "tool_calls")
            self.checkpoint(calls, index + 1, dispatched)
        return None
