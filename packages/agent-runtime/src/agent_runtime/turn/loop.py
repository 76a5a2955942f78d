"""The tool loop: one Turn from the user's message to a settled answer.

Order is the production order: assemble the prompt, screen the input, then call the model and
dispatch its Tool calls until it answers or a limit is hit. Every call passes the tool_call
guards, the agent's capability restrictions and its autonomy ceiling before the executor sees it;
a refusal goes back to the model as a denial so it can explain instead of retrying.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from functools import lru_cache
from typing import Any, Literal, Protocol

import msgspec

from agent_runtime.guards.capabilities import approval_reason, demands_approval
from agent_runtime.guards.guardrails import (
    FALLBACK_REFUSAL,
    INPUT_REFUSAL,
    WITHHELD_NOTICE,
    GuardDecision,
    GuardrailConfig,
    Guardrails,
    denial_reason,
    emit_decision,
)
from agent_runtime.hosting import INDEPENDENT, Hosting
from agent_runtime.model import (
    ModelFailure,
    ModelPort,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    ToolSpec,
    Usage,
)
from agent_runtime.soul.loader import Agent, Soul
from agent_runtime.tools import PARKED, ToolExecutor, ToolOutcome
from agent_runtime.turn import arguments
from agent_runtime.turn.compaction import compact
from agent_runtime.turn.context import assemble_system_prompt

Listener = Callable[[str, dict[str, Any]], None]
LoopStatus = Literal["completed", "failed", "waiting", "awaiting_retry"]
TurnFinish = Literal["succeeded", "failed", "cancelled"]
"""The status of the ``turn.finished`` event: a Turn that parked has not finished."""

ITERATION_LIMIT = "iteration_limit"
TOOL_CALL_LIMIT = "tool_call_limit"
REPAIR_BUDGET_EXHAUSTED = "repair_budget_exhausted"
"""The loop's limit reasons: a limit fails the loop (status ``failed``) with one of these."""
OutputKind = Literal["text", "structured", "tool_calls", "none"]
DenialSource = Literal["guardrail", "capability", "hosting", "autonomy", "repeat"]

RETRY_WAIT = "retry_wait"
"""The reason of a Turn parked because a Tool's provider asked to be retried later."""
REPEATED_SIDE_EFFECT = "repeated_side_effect"
REQUEST_INPUT = "request_input"
REQUEST_INPUT_FAILED = "request_input_failed"
INPUT_REQUESTED = "input_requested"
"""``request_input`` asks a person and ends the Turn, as in the original: it fails the loop
when the request could not be made, and completes it when the Tool suspends the Run for the
answer (``suspendRun: true``); either way no further call runs before the answer."""

Approval = Literal["deny", "park"]

AttachmentCheck = Callable[[list[dict[str, Any]]], Any]
"""Reads the latest user message's attachments before anything else and returns a
:class:`agent_runtime.files.attachments.Rendered`: the messages with the Files rendered as
parts, the PDF model inputs, and a refusal (``.reason``, ``.message``) when one cannot be read."""
ApprovalPolicy = Callable[[ToolCallRequest], Approval]
"""What happens to a mutating call above the autonomy ceiling: refuse it (no durable store to
wait on, as in memory), or park the Turn until someone approves it."""

OUTPUT_LIMIT_REASON = "output_truncated"
"""The completion guard's reason when the model stopped at its output limit (finish ``length``)."""

REPAIR_HINT = "Correct the arguments to match the Tool's input schema and call it again."
_CHUNK = re.compile(r"[^.!?\n]*(?:[.!?]+|\n)\s*|[^.!?\n]+")


class LoopLimits(msgspec.Struct, frozen=True):
    """Bounds on one Turn: model calls, Tool calls, and argument repairs."""

    max_iterations: int = 8
    max_tool_calls: int = 16
    max_repair_attempts: int = 2


DEFAULT_LIMITS = LoopLimits()


class Denial(msgspec.Struct, frozen=True):
    """A call refused before the executor: by a guard, the agent's capability restrictions or
    its autonomy ceiling."""

    call: ToolCallRequest
    reason: str
    source: DenialSource


class Checkpoint(msgspec.Struct, frozen=True):
    """Where a Turn can resume: the conversation so far and the batch being dispatched.

    Written after every model response that asked for Tools (``next_call`` 0) and after every
    Tool result. ``awaiting`` names the call parked for approval, when the Turn is waiting.
    """

    messages: list[dict[str, Any]]
    batch: list[ToolCallRequest]
    next_call: int
    iteration: int
    model_calls: int
    repairs: int
    dispatched: int
    awaiting: str | None = None


class Checkpointer(Protocol):
    """Where checkpoints go (a database in production); a save that raises ends the Turn."""

    def save(self, checkpoint: Checkpoint) -> None: ...


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


def finish_status(status: LoopStatus) -> TurnFinish | None:
    """The ``turn.finished`` status of a loop status; ``None`` while the Turn is parked."""
    if status == "completed":
        return "succeeded"
    if status == "failed":
        return "failed"
    return None


def finished_payload(
    status: TurnFinish, message_id: str | None, reason: str | None, result: TurnResult
) -> dict[str, Any]:
    """The ``turn.finished`` payload: status, the Message it produced (``None`` without one),
    the reason, and how many model calls the Turn made."""
    payload: dict[str, Any] = {"status": status, "messageId": message_id}
    if reason is not None:
        payload["reason"] = reason
    payload["modelCallCount"] = result.model_calls
    return payload


PARTICIPANT_EVENTS = frozenset(
    {"turn.started", "text.delta", "tool.call", "tool.result", "approval.requested"}
    | {"guardrail.blocked", "turn.finished"}
)
"""The events of the participant audience; every other event is for the operator."""

PREVIEW_BYTES = 65_536
"""The most of a value's JSON a ``tool.call``/``tool.result`` preview carries."""


def preview(value: Any) -> dict[str, Any]:
    """``{json, bytes, truncated?}``: a value's compact JSON, cut at :data:`PREVIEW_BYTES`."""
    text = _compact(value)
    size = len(text.encode())
    if size <= PREVIEW_BYTES:
        return {"json": text, "bytes": size}
    cut = text.encode()[:PREVIEW_BYTES].decode(errors="ignore")
    return {"json": cut, "bytes": size, "truncated": True}


def result_payload(call_id: str, outcome: ToolOutcome) -> dict[str, Any]:
    """A ``tool.result`` payload: ``ok`` or ``error`` with the dispatch status as ``errorCode``
    and the reason as ``summary``; the output as a preview."""
    payload: dict[str, Any] = {"callId": call_id}
    if outcome.status == "succeeded":
        payload["status"] = "ok"
    else:
        payload["status"] = "error"
        payload["errorCode"] = outcome.status
    if outcome.reason is not None:
        payload["summary"] = outcome.reason
    if outcome.output is not None:
        payload["resultPreview"] = preview(outcome.output)
    return payload


def call_payload(call: ToolCallRequest) -> dict[str, Any]:
    """A ``tool.call`` payload: the call's id and name, a digest and a preview of its arguments."""
    return {
        "callId": call.call_id,
        "name": call.name,
        "argsDigest": canonical_digest(call.arguments),
        "argsPreview": preview(call.arguments),
    }


def denied_payload(call: ToolCallRequest, reason: str, source: DenialSource) -> dict[str, Any]:
    """A ``tool.denied`` payload: the call as the model made it, why, and who refused it."""
    return {
        "call_id": call.call_id,
        "name": call.name,
        "arguments": call.arguments,
        "reason": reason,
        "source": source,
    }


def canonical_digest(value: Any) -> str:
    """``sha256:<hex>`` of a canonical JSON encoding (keys sorted, no whitespace)."""
    encoded = _CANONICAL.encode(value)
    return "sha256:" + hashlib.sha256(encoded.encode()).hexdigest()


@lru_cache(maxsize=64)
def policy_digest(policy: GuardrailConfig) -> str:
    """The guard policy's digest, once per policy (a Turn's most expensive digest)."""
    return canonical_digest(policy)


@lru_cache(maxsize=256)
def context_digest(agent_slug: str, system: str) -> str:
    """The digest of an agent's assembled prompt, once per prompt (Turns share prompts)."""
    return canonical_digest({"id": agent_slug, "prompt": system})


def _plain(value: Any) -> Any:
    if isinstance(value, msgspec.Struct):  # its fields, as a dataclass's are (the policy)
        return {name: getattr(value, name) for name in value.__struct_fields__}
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


def text_chunks(text: str) -> list[str]:
    """The streamed pieces of an answer: sentence by sentence, joining back to ``text``."""
    return _CHUNK.findall(text)


# What json.dumps builds per call, built once (an encoder keeps no state between encodes).
_CANONICAL = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_plain
)
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)


def _compact(value: Any) -> str:
    return _COMPACT.encode(value)


def _succeeded(message: Mapping[str, Any]) -> bool:
    """A Tool reply whose call ran its effect."""
    if message.get("role") != "tool":
        return False
    try:
        seen = json.loads(message.get("content") or "{}")
    except ValueError:
        return False
    return isinstance(seen, dict) and seen.get("status") == "succeeded"


def _latest_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The latest user message's text, a rendered attachment's text parts included."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(
            p["text"]
            for p in content or ()
            if isinstance(p, Mapping) and p.get("type") == "text" and isinstance(p.get("text"), str)
        )
    return ""


class _Turn:
    """The mutable state of one Turn; lives only inside :func:`run_turn`."""

    __slots__ = (
        "agent",
        "announce_finish",
        "approval",
        "approved",
        "checkpoints",
        "deltas",
        "emit",
        "executor",
        "guards",
        "hosting",
        "iteration",
        "limits",
        "pending",
        "repairs",
        "result",
        "stop",
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
        approval: ApprovalPolicy | None = None,
        approved: frozenset[str] = frozenset(),
        checkpoints: Checkpointer | None = None,
        hosting: Hosting = INDEPENDENT,
    ) -> None:
        self.agent = agent
        self.hosting = hosting
        self.approval = approval
        self.approved = approved
        self.checkpoints = checkpoints
        self.iteration = 0
        self.guards = guards
        self.tools = tools
        self.executor = executor
        self.limits = limits
        self.result = result
        self.emit = emit
        self.repairs = 0
        self.deltas = 0
        self.announce_finish = True
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
            if self.emit is not None:
                emit_decision(self.emit, decision)
            if decision.blocked and refused is None:
                refused = decision
        if refused is not None and refused.stage in ("input", "output") and self.emit is not None:
            self.emit(
                "guardrail.blocked",
                {"stage": refused.stage, "reason": refused.reason, "guard": refused.guard},
            )
        return refused

    def settle(self, status: LoopStatus, reason: str | None, kind: OutputKind) -> TurnResult:
        result = self.result
        result.status, result.reason, result.output_kind = status, reason, kind
        finished = finish_status(status)
        if self.emit is not None and self.announce_finish and finished is not None:
            self.emit("turn.finished", finished_payload(finished, None, reason, result))
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
        if self.emit is not None:
            for chunk in _CHUNK.findall(text):
                self.emit("text.delta", {"text": chunk, "index": self.deltas})
                self.deltas += 1
        return self.settle("completed", reason, kind)

    def deny(self, call: ToolCallRequest, reason: str, source: DenialSource) -> None:
        self.result.denials.append(Denial(call, reason, source))
        if self.emit is not None:
            self.emit("tool.denied", denied_payload(call, reason, source))
            if source == "repeat":  # the original keeps the rejected repeat in the record
                self.emit("tool.result", self._rejected_repeat(call, reason))
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
        effect ran (read from the Turn's messages, so a resumed Turn knows it too)."""
        messages = self.result.messages
        ran = {m.get("tool_call_id") for m in messages if _succeeded(m)}
        same = _compact(call.arguments)
        for message in messages:
            if message.get("role") != "assistant":
                continue
            for earlier in message.get("tool_calls") or ():
                if (
                    earlier.get("name") == call.name
                    and earlier.get("call_id") != call.call_id
                    and earlier.get("call_id") in ran
                    and _compact(earlier.get("arguments")) == same
                ):
                    return str(earlier["call_id"])
        return None

    def execute(self, call: ToolCallRequest) -> bool:
        result = self.result
        result.tool_calls.append(call)
        activity = self.tools[call.name].participant_activity
        stamp = {"participant_activity": activity} if activity is not None else {}
        if activity is not None:
            result.activity.append(
                {"callId": call.call_id, "name": call.name, "participantActivity": activity}
            )
        if self.emit is not None:
            self.emit("tool.call", {**call_payload(call), **stamp})
        outcome = self.executor.execute(call)
        result.results.append((call, outcome))
        self.pending.extend(outcome.attach)
        if outcome.status in PARKED:
            return self.park(call, outcome, stamp)
        screened = outcome.output if outcome.reason is None else [outcome.output, outcome.reason]
        withheld = self.record(self.guards.check_tool_result(call.name, screened)) is not None
        if self.emit is not None:
            self.emit("tool.result", {**result_payload(call.call_id, outcome), **stamp})
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

    def park(self, call: ToolCallRequest, outcome: ToolOutcome, stamp: dict[str, Any]) -> bool:
        """The Tool's provider is waiting (an approval it asked for, a retry it asked for): the
        call is parked, nothing is reported to the model, and the Turn stops here."""
        self.result.awaiting, self.result.parked = call, outcome
        return False

    def repair(self, call: ToolCallRequest, outcome: ToolOutcome) -> bool:
        """Arguments the schema refuses: the model is told why and may try again."""
        self.result.results.append((call, outcome))
        if self.emit is not None:  # rejected before dispatch: no tool.call names it, so this does
            payload = result_payload(call.call_id, outcome)
            self.emit(
                "tool.result",
                {**payload, "name": call.name, "argsPreview": preview(call.arguments)},
            )
        self.reply(
            call, {"status": outcome.status, "reason": outcome.reason, "repair": REPAIR_HINT}
        )
        self.repairs += 1
        return self.repairs <= self.limits.max_repair_attempts

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
                dispatched=dispatched,
                awaiting=awaiting,
            )
        )

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
        if self.emit is not None:
            self.emit("tool.batch", {"call_ids": [c.call_id for c in calls]})
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


def _attach_read_files(
    turn: _Turn, attachments: AttachmentCheck | None, listener: Listener | None
) -> list[dict[str, Any]]:
    """The Files the last batch's ``file_read`` calls attached, as one user message appended to
    the history (so later requests keep them), re-read from the store now."""
    file_ids, turn.pending = list(dict.fromkeys(turn.pending)), []
    attach = getattr(attachments, "attach", None)
    if attach is None:
        return []
    attached = attach(file_ids)
    if listener is not None:
        for announced in attached.inputs:
            listener("file.attached", announced)
    if not attached.parts:
        return []
    message = {"role": "user", "content": attached.parts}
    turn.result.messages.append(message)
    return [message]


def run_turn(
    soul: Soul,
    agent_slug: str,
    *,
    context: Mapping[str, Any],
    messages: Sequence[dict[str, Any]],
    tools: Sequence[ToolSpec],
    model: ModelPort,
    executor: ToolExecutor,
    limits: LoopLimits = DEFAULT_LIMITS,
    listener: Listener | None = None,
    approval: ApprovalPolicy | None = None,
    checkpoints: Checkpointer | None = None,
    resume: Checkpoint | None = None,
    approved: frozenset[str] = frozenset(),
    attachments: AttachmentCheck | None = None,
    context_budget: int | None = None,
    hosting: Hosting = INDEPENDENT,
    turn_id: str = "turn-1",
    attempt: int = 1,
    conversation_id: str | None = None,
    announce_finish: bool = True,
) -> TurnResult:
    """Run one Turn of ``agent_slug`` over ``messages`` and return what it decided.

    ``approval`` decides what a mutating call above the autonomy ceiling does (``None``
    denies it); ``checkpoints`` receives a checkpoint after each model batch and Tool result;
    ``resume`` continues a Turn from a checkpoint (its ``messages`` replace ``messages``), with
    the call ids in ``approved`` let past the ceiling. ``context_budget`` (tokens) compacts
    what each model call is sent (:mod:`agent_runtime.turn.compaction`). ``hosting`` says who hosts
    the Soul's repository and whether the platform's safety floor applies
    (:mod:`agent_runtime.hosting`).

    Every driven Turn opens with ``turn.started`` (``turn_id``, ``attempt``) and
    ``context.assembled`` (digests of the prompt and the guard policy) and, unless it parked,
    ends with ``turn.finished``; ``announce_finish`` False leaves that last event to the caller
    (the durable executor writes it once the Message it names is stored).
    """
    agent = soul.agent(agent_slug)
    declared = list(tools)
    by_name = {spec.name: spec for spec in declared}
    if len(by_name) != len(declared):
        raise ValueError("two Tools share a name")
    system = assemble_system_prompt(soul, agent, context, declared)
    history = list(resume.messages if resume is not None else messages)
    refusal = None
    inputs: list[dict[str, Any]] = []
    screened_files: list[str] = []
    if attachments is not None and resume is None:
        rendered = attachments(history)
        history, refusal, inputs = rendered.messages, rendered.refusal, rendered.inputs
        screened_files = list(getattr(rendered, "screened", ()))
    result = TurnResult(system_prompt=system, messages=history)
    policy = hosting.guardrails(soul.guardrails)
    if listener is not None:
        started: dict[str, Any] = {"turnId": turn_id, "attempt": attempt, "agentId": agent.slug}
        if conversation_id is not None:
            started["conversationId"] = conversation_id
        listener("turn.started", started)
        listener(
            "context.assembled",
            {
                "contextDigest": context_digest(agent.slug, system),
                "guardrailDigest": policy_digest(policy),
                "messageCount": len(history),
            },
        )
    turn = _Turn(
        agent,
        Guardrails.from_config(policy),
        by_name,
        executor,
        limits,
        result,
        listener,
        approval,
        approved,
        checkpoints,
        hosting,
    )
    turn.announce_finish = announce_finish
    dispatched = 0
    first = 1
    if refusal is not None:  # an attachment nobody can read: the model never sees the Turn
        return turn.answer(refusal.message, None, refusal.reason, screen=False)
    if listener is not None:
        for attached in inputs:
            listener("file.attached", attached)
    if resume is None:
        # the user's own text, then the attachments' file names, then each extracted text
        for text in (_latest_user_text(messages), *screened_files):
            if turn.record(turn.guards.check_input(text)) is not None:
                return turn.answer(INPUT_REFUSAL, None, "input_refused", screen=False)
    else:
        result.model_calls = resume.model_calls
        turn.repairs = resume.repairs
        turn.iteration = resume.iteration
        dispatched = resume.dispatched
        first = resume.iteration + 1
        result.batches.append([c.call_id for c in resume.batch])
        settled = turn.batch(list(resume.batch), resume.next_call, dispatched)
        if settled is not None:
            return settled

    for iteration in range(first, limits.max_iterations + 1):
        turn.iteration = iteration
        sent = list(result.messages)
        if context_budget is not None:
            sent, folded = compact(system, sent, context_budget)
            if folded is not None and listener is not None:
                listener(
                    "context.compacted",
                    {
                        "tokensBefore": folded.before,
                        "tokensAfter": folded.after,
                        "budget": context_budget,
                        "folded": folded.folded,
                        "dropped": folded.dropped,
                    },
                )
        if turn.pending:
            sent = [*sent, *_attach_read_files(turn, attachments, listener)]
        request = ModelRequest(system, sent, declared)
        result.requests.append(request)
        if listener is not None:
            listener(
                "model.request",
                {"iteration": iteration, "messages": len(request.messages), "tools": len(declared)},
            )
        asked = time.monotonic()
        try:
            response = model.complete(request)
        except ModelFailure as failure:
            return turn.settle("failed", failure.reason, "none")
        result.model_latencies_ms.append(round((time.monotonic() - asked) * 1000))
        result.model_calls += 1
        result.usage = result.usage + response.usage
        if response.finish_reason == "length":
            # the completion guard: a truncated answer is never delivered as if it were whole
            return turn.settle("failed", OUTPUT_LIMIT_REASON, "none")
        if response.tool_calls:
            settled, dispatched = turn.calls(response, dispatched)
            if settled is not None:
                return settled
            continue
        if response.structured is not None:
            return turn.answer(_compact(response.structured), response.structured, None)
        if response.text is not None and response.text.strip():
            return turn.answer(response.text, None, None)
        return turn.settle("failed", "empty_model_output", "none")
    return turn.settle("failed", ITERATION_LIMIT, "tool_calls")
