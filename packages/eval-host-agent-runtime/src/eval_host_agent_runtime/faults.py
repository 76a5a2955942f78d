"""The fault ports of an L3 Trial's dependencies, armed by a fixture: its context service, its
model port (and the binding's session behind it) and the chat worker's process.

Each port only decides where the fault strikes; the runtime's own seam takes it from there (a
worker that dies raises :class:`agent_runtime.durable.scenario.WorkerDiedError`, which the
runtime's scenario driver answers with a restart and a new worker).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from agent_runtime.durable.scenario import WorkerDiedError
from agent_runtime.model import (
    ModelFailure,
    ModelPort,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from agent_runtime.tools import ToolExecutor, ToolOutcome
from eval_core.hosts import ModelCallRequest, ModelReply, ModelSession

FAULT_REASON = "model_not_configured"


class DependencyFaultService:
    """The fault ports of the runtime's dependencies: its context service, its model port, and
    the process of the chat worker."""

    __slots__ = ("_armed", "_fault", "_fired", "_kill")

    def __init__(self) -> None:
        self._fault: str | None = None
        self._armed = False
        self._fired = False
        self._kill = 0  # 1: the worker dies at its second Tool call; 2: its first went through

    def fail_context(self) -> None:
        """Context resolution fails: the Run fails before the model is called."""
        self._fault = "context"

    def unconfigure_model(self) -> None:
        """The model port throws ``model_not_configured`` on every call."""
        self._fault, self._armed = "model", True

    def fail_model_after_requeue(self) -> None:
        """The model port fails once a parked Run was re-queued (after its approval)."""
        self._fault = "model_after_requeue"

    def limit_output(self) -> None:
        """Every text answer comes back cut at the output limit (finish reason ``length``), as
        the binding's reply: the Host translates it to the runtime like any model's reply."""
        self._fault = "output_limit"

    def fired(self) -> bool:
        """The injected fault took effect at least once."""
        return self._fired

    def resolve_context(self, context: Mapping[str, Any]) -> Mapping[str, Any]:
        if self._fault == "context":
            from agent_runtime.durable.executor import ContextUnresolvedError

            self._fired = True
            raise ContextUnresolvedError("the context service did not answer (fault: context)")
        return context

    def requeued(self) -> None:
        if self._fault == "model_after_requeue":
            self._armed = True

    def kill_worker(self) -> None:
        """The chat worker dies once, as it hands its second Tool call to the Tools (the first
        call's result checkpointed): the Host restarts, and a new worker takes the Run over."""
        self._kill = 1

    def worker(self, inner: ToolExecutor) -> ToolExecutor:
        """The worker's side of its executor port: where the armed worker dies."""
        return _DyingWorker(inner, self) if self._kill else inner

    def session(self, inner: ModelSession) -> ModelSession:
        """The binding's session, its replies cut when the fault says so (before the Host's
        translation, where a vendor's truncated reply enters)."""
        return _CutSession(inner, self) if self._fault == "output_limit" else inner

    def model(self, inner: ModelPort) -> ModelPort:
        faulty = self._fault is not None and self._fault != "output_limit"
        return _FaultyModel(inner, self) if faulty else inner


class _DyingWorker:
    __slots__ = ("faults", "inner")

    def __init__(self, inner: ToolExecutor, faults: DependencyFaultService) -> None:
        self.inner = inner
        self.faults = faults

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        faults = self.faults
        if faults._kill == 2 and not faults._fired:
            faults._fired = True
            raise WorkerDiedError(
                f"the worker died handing call {call.call_id} to its Tool (fault port)"
            )
        faults._kill = 2  # the first call reached its Tool: the worker dies at the next
        return self.inner.execute(call)


class _CutSession:
    """A binding's session whose every text reply comes back with finish reason ``length``;
    anything else it answers (its record of what was sent included) is the session's own."""

    __slots__ = ("faults", "inner")

    def __init__(self, inner: ModelSession, faults: DependencyFaultService) -> None:
        self.inner = inner
        self.faults = faults

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def complete(self, request: ModelCallRequest) -> ModelReply:
        reply = self.inner.complete(request)
        if reply.tool_calls:
            return reply
        self.faults._fired = True
        return msgspec.structs.replace(reply, finish_reason="length")


class _FaultyModel:
    __slots__ = ("faults", "inner")

    def __init__(self, inner: ModelPort, faults: DependencyFaultService) -> None:
        self.inner = inner
        self.faults = faults

    @property
    def model_id(self) -> str | None:
        return getattr(self.inner, "model_id", None)

    def complete(self, request: ModelRequest) -> ModelResponse:
        faults = self.faults
        if faults._armed:
            faults._fired = True
            raise ModelFailure(FAULT_REASON, "no model is configured (fault port)")
        return self.inner.complete(request)
