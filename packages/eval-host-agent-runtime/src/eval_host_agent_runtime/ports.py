"""The harness behind the runtime's ports: its model session, the Case's scripted Tools.

The runtime talks to a model through its own :class:`~agent_runtime.model.ModelPort` and runs
Tools through a :class:`~agent_runtime.tools.ToolExecutor`; these classes translate the
harness's model session and scripted Tool results into those two ports, nothing more.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from agent_runtime.model import (
    ModelFailure,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    ToolSpec,
    Usage,
)
from agent_runtime.tools import PLATFORM_TOOLS, ToolExecutor, ToolOutcome
from eval_core.hosts import (
    CaseBase,
    FilePart,
    ModelCallRequest,
    ModelError,
    ModelSession,
    ScriptedResult,
    ScriptedTools,
    TextPart,
    ToolCall,
    ToolDecl,
)


def tool_decl(spec: ToolSpec) -> ToolDecl:
    return ToolDecl(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        mutating=spec.mutating,
    )


PLATFORM: Mapping[str, ToolDecl] = MappingProxyType(
    {name: tool_decl(spec) for name, spec in PLATFORM_TOOLS.items()}
)


def tools_of(case: CaseBase) -> list[ToolSpec]:
    """The Case's hand-declared Tools, then the platform Tools it names."""
    tools = [
        ToolSpec(
            t.name,
            t.description or "",
            t.input_schema,
            t.mutating,
            side_effecting=t.side_effecting,
            participant_activity=t.participant_activity,
        )
        for t in case.tools
    ]
    tools.extend(PLATFORM_TOOLS[n] for n in case.platform_tools if n in PLATFORM_TOOLS)
    return tools


def message(role: str, parts: Sequence[Any]) -> dict[str, Any]:
    """A Case input message in the runtime's shape: its text, and the Files it references."""
    if len(parts) == 1 and type(parts[0]) is TextPart:  # most messages: one text, no File
        return {"role": role, "content": parts[0].text}
    text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
    out: dict[str, Any] = {"role": role, "content": text}
    files = [
        {"fileId": p.file_id, "mediaType": p.media_type, "name": p.name}
        for p in parts
        if isinstance(p, FilePart)
    ]
    if files:
        out["files"] = files
    return out


def messages(inputs: Sequence[Any]) -> list[dict[str, Any]]:
    return [message(m.role, m.parts) for m in inputs]


class ModelPort:
    """The harness's model session behind the runtime's model port: the request as the runtime
    built it (prompt, messages, the Tools it offered) goes to the session unchanged."""

    __slots__ = ("_decls", "_session")

    def __init__(self, session: ModelSession) -> None:
        self._session = session
        self._decls: dict[int, ToolDecl] = {}

    @property
    def model_id(self) -> str:
        """The model the session speaks to, as its binding names it (the receipt's modelId)."""
        return self._session.model_version or getattr(self._session, "model_id", None) or "unknown"

    def _decl(self, spec: ToolSpec) -> ToolDecl:
        decl = self._decls.get(id(spec))
        if decl is None:
            decl = self._decls[id(spec)] = tool_decl(spec)
        return decl

    def complete(self, request: ModelRequest) -> ModelResponse:
        call = ModelCallRequest(
            system=request.system,
            messages=request.messages,
            tools=[self._decl(t) for t in request.tools],
        )
        try:
            reply = self._session.complete(call)
        except ModelError as exc:
            raise ModelFailure(exc.reason, exc.message) from exc
        usage = reply.usage
        return ModelResponse(
            text=reply.text,
            tool_calls=[ToolCallRequest(c.call_id, c.name, c.arguments) for c in reply.tool_calls],
            structured=reply.structured,
            usage=Usage(
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
                usage.reasoning_tokens,
            ),
            finish_reason=reply.finish_reason,
        )


class ScriptedExecutor:
    """The Case's scripted Tool results behind the runtime's executor port.

    ``effects`` counts, per call id, how often a scripted Tool really ran: what the world
    saw, whatever the runtime believes it dispatched.
    """

    __slots__ = ("_tools", "effects")

    def __init__(self, results: list[ScriptedResult]) -> None:
        self._tools = ScriptedTools(results)
        self.effects: dict[str, int] = {}

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.effects[call.call_id] = self.effects.get(call.call_id, 0) + 1
        outcome = self._tools.execute(call.name, call.arguments)
        return ToolOutcome(outcome.status, outcome.output, outcome.reason, outcome.wait_id)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _copied(value: Any) -> Any:
    """A copy of a call's arguments as they are now: JSON values copied by hand (a third of
    ``copy.deepcopy``'s cost on every Tool call), anything else by ``deepcopy``."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if kind is list:
        return [_copied(v) for v in value]
    return copy.deepcopy(value)


class ToolWitness:
    """The Tool boundary, on the Host's side of the runtime's executor port: every call as the
    Tools received it (its arguments copied there and then), whatever the runtime records.

    It wraps the whole executor the Host hands the runtime, so a call the runtime's record says
    it refused, and ran anyway, is seen here; ``turn_index`` is set by the Host per Turn.
    """

    __slots__ = ("inner", "received", "turn_index")

    def __init__(self, inner: ToolExecutor | None = None) -> None:
        self.inner = inner
        self.received: list[ToolCall] = []
        self.turn_index = 1

    def around(self, inner: ToolExecutor) -> ToolWitness:
        """This witness's record, in front of ``inner`` (one executor per worker pass)."""
        seen = ToolWitness(inner)
        seen.received, seen.turn_index = self.received, self.turn_index
        return seen

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.received.append(
            ToolCall(
                call_id=call.call_id,
                name=call.name,
                arguments=_copied(call.arguments),
                turn_index=self.turn_index,
            )
        )
        if self.inner is None:
            raise RuntimeError("a ToolWitness with no Tools behind it")
        return self.inner.execute(call)
