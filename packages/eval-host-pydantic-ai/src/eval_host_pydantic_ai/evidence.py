"""One pydantic-ai run read back as Evidence, and the Case's conversation as pydantic-ai's.

The Tool calls are what the Tool boundary received (:mod:`.boundary`), the answer and status
what ``agent.run`` returned or raised; pydantic-ai's own message history (the Tool calls it
says it dispatched, its count of requests) is its testimony, which the core checks against
the witnesses; its calls' arguments are read through each Tool's own validator first
(:mod:`.arguments`), as the witness sees them. pydantic-ai's usage limits map onto the loop
reasons of the reference runtime.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.exceptions import ModelRetry, UnexpectedModelBehavior, UsageLimitExceeded
from pydantic_ai.messages import (
    BaseToolReturnPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)

from eval_core.hosts import CaseBase, Evidence, Message, ModelError, Testimony, ToolCall, Usage
from eval_host_pydantic_ai.arguments import validated
from eval_host_pydantic_ai.boundary import ToolBoundary, plain
from eval_host_pydantic_ai.model import SessionModel

LIMITS = (
    ("request_limit", "iteration_limit"),
    ("tool_calls_limit", "tool_call_limit"),
    ("tokens_limit", "token_limit"),
)


def leaf(exc: BaseException) -> BaseException:
    """The exception that ended a run, out of any exception group around it."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _text(message: Message) -> str:
    if isinstance(message.content, str):
        return message.content
    return "\n".join(
        getattr(p, "text", f"[file {getattr(p, 'name', '')}]") for p in message.content
    )


def conversation(messages: list[Message]) -> tuple[str, list[ModelMessage]]:
    """The Case's input as pydantic-ai takes it: the last user message as the prompt, the
    turns before it as message history."""
    history: list[ModelMessage] = []
    for message in messages[:-1]:
        if message.role == "user":
            history.append(ModelRequest(parts=[UserPromptPart(content=_text(message))]))
        else:
            history.append(ModelResponse(parts=[TextPart(content=_text(message))]))
    return (_text(messages[-1]) if messages else ""), history


def evidence_of(
    case: CaseBase, boundary: ToolBoundary, model: SessionModel, result: Any
) -> Evidence:
    """A completed run: its answer, the calls its Tools received, its history as testimony."""
    output = result.output
    text = output if isinstance(output, str) else None
    messages = list(result.new_messages())
    spent = Usage(
        input_tokens=int(result.usage.input_tokens), output_tokens=int(result.usage.output_tokens)
    )
    return Evidence(
        tier=case.tier,
        output_text=text,
        output_structured=None if text is not None else plain(output),
        output_kind="text" if text is not None else "structured",
        tool_calls=list(boundary.received),
        tool_results=list(boundary.results),
        loop_status="completed",
        loop_reason="stop",
        usage=spent,
        testimony=Testimony(
            model_calls=int(result.usage.requests),
            tool_calls=dispatched(messages, model.output_tools, boundary),
            usage=spent,
        ),
    )


def ended(
    case: CaseBase, boundary: ToolBoundary, model: SessionModel, exc: BaseException
) -> Evidence:
    """A run that raised: a usage limit or pydantic-ai giving up is how the loop ended; a
    vendor failure and the agent's own exceptions propagate (the Trial errors, one line)."""
    if isinstance(exc, UsageLimitExceeded):
        message = str(exc)
        reason = next((ours for theirs, ours in LIMITS if theirs in message), "usage_limit")
        return _failed(case, boundary, reason)
    if isinstance(exc, UnexpectedModelBehavior) and not isinstance(exc.__cause__, ModelError):
        return _failed(case, boundary, f"retries_exhausted: {str(exc).splitlines()[0]}")
    if isinstance(exc, ModelRetry):
        return _failed(case, boundary, f"retries_exhausted: {exc}")
    raise exc


def _failed(case: CaseBase, boundary: ToolBoundary, reason: str) -> Evidence:
    return Evidence(
        tier=case.tier,
        output_kind="none",
        tool_calls=list(boundary.received),
        tool_results=list(boundary.results),
        loop_status="failed",
        loop_reason=reason,
    )


def dispatched(
    messages: list[ModelMessage], output_tools: set[str], boundary: ToolBoundary
) -> list[ToolCall]:
    """The calls pydantic-ai's history says a Tool answered (not the output Tool's, not the
    ones it sent back for a retry): its testimony of what it dispatched, each call's arguments
    as the Tool's validator reads the model's (the model's own where it refuses them)."""
    answered = {
        part.tool_call_id
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, BaseToolReturnPart) and getattr(part, "outcome", "success") == "success"
    }
    return [
        ToolCall(
            call_id=part.tool_call_id, name=part.tool_name, arguments=_arguments(part, boundary)
        )
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart)
        and part.tool_name not in output_tools
        and part.tool_call_id in answered
    ]


def _arguments(part: ToolCallPart, boundary: ToolBoundary) -> Any:
    read = validated(boundary.tools.get(part.tool_name), part.args, boundary.validation_context)
    return part.args_as_dict() if read is None else read
