"""The scripted binding and scripted Tools: the Case's own data, replayed, so CI runs free.

The binding replays ``script`` one step per model call and bills nothing; an exhausted script
errors the Trial. Each reply still carries token counts (:func:`handed`: synthetic, and unlike
for input and output), so a Host that drops or swaps the usage it translates is seen. Each
request it records keeps the calls its script made in reply, which the witness checks against
the Tools that request offered.

Scripted Tools follow the dispatch semantics exactly: a call consumes the next unconsumed result
of its name (only results whose ``when`` deep-equals the arguments, when set); once exhausted
the last served result repeats; a Tool with no scripted result fails, naming itself;
``invalidArguments`` takes the loop's repair path and ``denied`` is a denial; ``approvalId``
and ``retryWaitId`` say the Tool's provider is waiting (on an approval, or to be retried),
which the runtime must park rather than report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from eval_core._case.case import (
    CaseBase,
    ScriptedResult,
    ScriptStep,
    StructuredStep,
    TextStep,
    ToolCallsStep,
)
from eval_core._case.evidence import ModelRequest, OfferedTool, RepliedCall, Usage
from eval_core._case.sent import sent
from eval_core._plugins.host import ModelCallRequest, ModelReply, ModelToolCall


def handed(call: int, request: ModelCallRequest) -> Usage:
    """The tokens the ``call``-th reply says it used: synthetic, never billed, and never equal
    for input and output."""
    return Usage(input_tokens=100 * call + len(request.messages), output_tokens=call)


class ScriptExhaustedError(Exception):
    """The model was called more often than the Case scripted: the Trial errors."""


class ScriptedSession:
    """Replays one Case's script. ``usage`` (the bill) stays zero: the scripted model is free;
    ``handed`` sums what its replies said they used."""

    model_id = "scripted"

    __slots__ = (
        "_case_id",
        "_cursor",
        "_steps",
        "calls",
        "handed",
        "model_version",
        "replied",
        "retries",
        "sent",
        "usage",
    )

    def __init__(self, case: CaseBase, steps: list[Any] | None = None) -> None:
        self._case_id = case.id
        self._steps = (case.script or []) if steps is None else steps
        self._cursor = 0
        self.usage = Usage()
        self.handed = Usage()
        self.calls = 0
        self.retries = 0
        self.model_version: str | None = None
        self.sent: list[ModelRequest] = []
        self.replied: list[list[str]] = []

    def begin_turn(self, steps: Sequence[ScriptStep] | None) -> None:
        """A later Turn begins: replay its own steps, or carry on when it has none."""
        if steps is not None:
            self._steps = list(steps)
            self._cursor = 0

    def complete(self, request: ModelCallRequest) -> ModelReply:
        if self._cursor >= len(self._steps):
            raise ScriptExhaustedError(
                f"script exhausted: the model was called {self._cursor + 1} times but "
                f"{self._case_id} scripts {len(self._steps)} step(s)"
            )
        step = self._steps[self._cursor]
        self._cursor += 1
        self.calls += 1
        offered = [
            OfferedTool(
                name=str(t.name),
                description=t.description if isinstance(t.description, str) else None,
                input_schema=t.input_schema,
            )
            for t in request.tools
        ]
        replied = (  # what the script answered, to check against tools
            [RepliedCall(call_id=c.call_id, name=c.name, unoffered=c.unoffered) for c in step.calls]
            if isinstance(step, ToolCallsStep)
            else None
        )
        self.sent.append(
            sent(
                request.system, request.messages, [t.name for t in request.tools], offered, replied
            )
        )
        usage = handed(self.calls, request)
        self.handed = self.handed.plus(usage)
        if isinstance(step, TextStep):
            return ModelReply(text=step.text, usage=usage)
        if isinstance(step, ToolCallsStep):
            calls = [
                ModelToolCall(call_id=c.call_id, name=c.name, arguments=c.arguments)
                for c in step.calls
            ]
            self.replied.append([c.call_id for c in calls])
            return ModelReply(
                text=step.text, tool_calls=calls, finish_reason="tool_calls", usage=usage
            )
        assert isinstance(step, StructuredStep)
        return ModelReply(structured=step.value, usage=usage)


class ScriptedBinding:
    """The free binding: the Case is told what to say, so it can never be promoted."""

    model_id = "scripted"
    scripted = True

    def session(self, case: CaseBase) -> ScriptedSession:
        return ScriptedSession(case)


Status = Literal[
    "succeeded", "failed", "denied", "invalid_arguments", "awaiting_approval", "awaiting_retry"
]


class ScriptedOutcome(msgspec.Struct, frozen=True):
    """A scripted Tool's answer; ``wait_id`` names what its provider waits on."""

    status: Status
    output: Any = None
    reason: str | None = None
    wait_id: str | None = None


class ScriptedTools:
    """One Trial's scripted Tool results, consumed as the spec's dispatch rules say."""

    __slots__ = ("_consumed", "_last", "_results")

    def __init__(self, results: list[ScriptedResult]) -> None:
        self._results = results
        self._consumed = [False] * len(results)
        self._last: dict[str, int] = {}

    def execute(self, name: str, arguments: Any) -> ScriptedOutcome:
        named = [i for i, r in enumerate(self._results) if r.name == name]
        if not named:
            return ScriptedOutcome("failed", reason=unscripted(name))
        matching = [i for i in named if _matches(self._results[i].when, arguments)]
        fresh = next((i for i in matching if not self._consumed[i]), None)
        if fresh is not None:
            self._consumed[fresh] = True
            self._last[name] = fresh
            return _outcome(self._results[fresh])
        last = self._last.get(name)
        if last is not None and last in matching:
            return _outcome(self._results[last])
        if matching:
            return _outcome(self._results[matching[-1]])
        return ScriptedOutcome(
            "failed", reason=f"{unscripted(name)} matching arguments {arguments!r}"
        )


def unscripted(name: str) -> str:
    """The failure reason of a call with no scripted result, in the original's words."""
    return f'the Eval Case scripts no result for Tool "{name}"'


def _matches(when: Any, arguments: Any) -> bool:
    return when is None or bool(when == arguments)


def _outcome(result: ScriptedResult) -> ScriptedOutcome:
    if result.invalid_arguments is not None:
        return ScriptedOutcome("invalid_arguments", reason=result.invalid_arguments)
    if result.denied is not None:
        return ScriptedOutcome("denied", reason=result.denied)
    if result.error is not None:
        return ScriptedOutcome("failed", reason=result.error)
    if result.approval_id is not None:
        return ScriptedOutcome("awaiting_approval", wait_id=result.approval_id)
    if result.retry_wait_id is not None:
        return ScriptedOutcome("awaiting_retry", wait_id=result.retry_wait_id)
    return ScriptedOutcome("succeeded", output={} if result.output is None else result.output)
