"""The tool loop: one Turn from the user's message to a settled answer.

Order is the production order: assemble the prompt, screen the input, then call the model and
dispatch its Tool calls (:mod:`agent_runtime.turn.tool_step`) until it answers or a limit is
hit. What the Turn is given is one :class:`~agent_runtime.turn.settings.TurnSettings`; where it
starts, one :class:`~agent_runtime.turn.settings.TurnStart`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from agent_runtime.guards.guardrails import INPUT_REFUSAL, GuardrailConfig, Guardrails
from agent_runtime.model import ModelFailure, ModelRequest, ModelResponse, ToolSpec
from agent_runtime.soul.loader import Agent
from agent_runtime.turn.compaction import compact
from agent_runtime.turn.contained import (
    TURN_EXECUTION_FAILED,
    FromModelPort,
    RequestRefusedError,
    fault_of,
    passes_through,
)
from agent_runtime.turn.context import assemble_system_prompt
from agent_runtime.turn.events import (
    Listener,
    compact_json,
    context_digest,
    finished_payload,
    policy_digest,
)
from agent_runtime.turn.result import ITERATION_LIMIT, OUTPUT_LIMIT_REASON, TurnResult
from agent_runtime.turn.settings import AttachmentCheck, Checkpoint, TurnSettings, TurnStart
from agent_runtime.turn.tool_step import ToolStep


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


def _attach_read_files(
    turn: ToolStep, attachments: AttachmentCheck | None, listener: Listener
) -> None:
    """The Files the last batch's ``file_read`` calls attached, as one user message appended to
    the history (so later requests keep them), re-read from the store now."""
    file_ids, turn.pending = list(dict.fromkeys(turn.pending)), []
    attach = getattr(attachments, "attach", None)
    if attach is None:
        return
    attached = attach(file_ids)
    for announced in attached.inputs:
        listener("file.attached", announced)
    if attached.parts:
        turn.result.messages.append({"role": "user", "content": attached.parts})


def _announce(
    listener: Listener,
    start: TurnStart,
    agent_slug: str,
    result: TurnResult,
    policy: GuardrailConfig,
) -> None:
    """``turn.started`` (the Turn's identity) and ``context.assembled`` (digests of the prompt
    and the guard policy, and how many messages the Turn starts from)."""
    started: dict[str, Any] = {"turnId": start.turn_id, "attempt": start.attempt}
    started["agentId"] = agent_slug
    if start.conversation_id is not None:
        started["conversationId"] = start.conversation_id
    listener("turn.started", started)
    listener(
        "context.assembled",
        {
            "contextDigest": context_digest(agent_slug, result.system_prompt),
            "guardrailDigest": policy_digest(policy),
            "messageCount": len(result.messages),
        },
    )


def _resume(turn: ToolStep, resume: Checkpoint) -> tuple[TurnResult | None, int]:
    """Continue from a checkpoint: its counters back, then the rest of its batch."""
    turn.result.model_calls = resume.model_calls
    turn.result.usage = resume.usage
    turn.repairs = resume.repairs
    turn.iteration = resume.iteration
    turn.result.batches.append([c.call_id for c in resume.batch])
    return turn.batch(list(resume.batch), resume.next_call, resume.dispatched), resume.dispatched


def run_turn(settings: TurnSettings, start: TurnStart) -> TurnResult:
    """Run one Turn of ``settings.agent_slug`` from ``start`` and return what it decided.

    Every driven Turn opens with ``turn.started`` and ``context.assembled`` and, unless it
    parked, ends with ``turn.finished`` (unless ``settings.announce_finish`` is False). A Turn
    whose own code raises ends ``failed``, :data:`TURN_EXECUTION_FAILED`, with the exception as
    its fault; what ends a pass on purpose passes through (:mod:`agent_runtime.turn.contained`).
    """
    agent = settings.soul.agent(settings.agent_slug)  # an agent the Soul lacks: SoulError
    if len({spec.name for spec in settings.tools}) != len(settings.tools):
        raise RequestRefusedError("two Tools share a name")
    result = TurnResult(system_prompt="", messages=[])
    try:
        return _drive(settings, start, agent, result)
    except FromModelPort as outside:
        raise outside.error from None
    except Exception as error:
        if passes_through(error):
            raise
        result.status, result.reason, result.output_kind = "failed", TURN_EXECUTION_FAILED, "none"
        result.fault = fault_of(error)
        if settings.announce_finish:
            payload = finished_payload("failed", None, TURN_EXECUTION_FAILED, result)
            settings.listener("turn.finished", payload)
        return result


def _drive(
    settings: TurnSettings, start: TurnStart, agent: Agent, result: TurnResult
) -> TurnResult:
    soul, resume, messages = settings.soul, start.resume, start.messages
    declared = list(settings.tools)
    result.system_prompt = assemble_system_prompt(soul, agent, settings.context, declared)
    history = list(resume.messages if resume is not None else messages)
    refusal, inputs, screened_files = None, [], []
    if settings.attachments is not None and resume is None:
        rendered = settings.attachments(history)
        history, refusal, inputs = rendered.messages, rendered.refusal, rendered.inputs
        screened_files = list(getattr(rendered, "screened", ()))
    result.messages = history
    policy = settings.hosting.guardrails(soul.guardrails)
    _announce(settings.listener, start, agent.slug, result, policy)
    turn = ToolStep(settings, agent, Guardrails.from_config(policy), result, start.approved)
    if refusal is not None:  # an attachment nobody can read: the model never sees the Turn
        return turn.answer(refusal.message, None, refusal.reason, screen=False)
    for attached in inputs:
        settings.listener("file.attached", attached)
    if resume is None:
        # the user's own text, then the attachments' file names, then each extracted text
        for text in (_latest_user_text(messages), *screened_files):
            if turn.record(turn.guards.check_input(text)) is not None:
                return turn.answer(INPUT_REFUSAL, None, "input_refused", screen=False)
        first, dispatched = 1, 0
    else:
        settled, dispatched = _resume(turn, resume)
        if settled is not None:
            return settled
        first = resume.iteration + 1
    return _model_calls(turn, settings, declared, first, dispatched)


def _model_calls(
    turn: ToolStep, settings: TurnSettings, declared: list[ToolSpec], first: int, dispatched: int
) -> TurnResult:
    """Call the model from iteration ``first`` until it answers or a limit ends the Turn."""
    result, limits, listener = turn.result, settings.limits, settings.listener
    system, context_budget = result.system_prompt, settings.context_budget
    attachments, own = settings.attachments, len(result.messages)
    for iteration in range(first, limits.max_iterations + 1):
        turn.iteration = iteration
        if turn.pending:  # the Files the last batch read ride in the request the budget covers
            _attach_read_files(turn, attachments, listener)
        sent = list(result.messages)
        if context_budget is not None:
            sent, folded = compact(system, sent, context_budget, own)
            if folded is not None:
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
        request = ModelRequest(system, sent, declared)
        result.requests.append(request)
        listener(
            "model.request",
            {"iteration": iteration, "messages": len(request.messages), "tools": len(declared)},
        )
        asked = time.monotonic()
        try:
            response = settings.model.complete(request)
        except ModelFailure as failure:
            return turn.settle("failed", failure.reason, "none")
        except Exception as error:
            raise FromModelPort(error) from error
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
        return _answer(turn, response)
    return turn.settle("failed", ITERATION_LIMIT, "tool_calls")


def _answer(turn: ToolStep, response: ModelResponse) -> TurnResult:
    """A response that asked for no Tool: its structured output or text is the answer."""
    if response.structured is not None:
        return turn.answer(compact_json(response.structured), response.structured, None)
    if response.text is not None and response.text.strip():
        return turn.answer(response.text, None, None)
    return turn.settle("failed", "empty_model_output", "none")
