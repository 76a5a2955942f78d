"""The one module that adapts this runtime to the eval harness's Host port.

Registered by entry point (``eval.plugins``); nothing on the runtime's own paths imports it.
It hands a Case to the real assembler and the real tool loop, with the harness's model session
behind the model port and the Case's scripted Tools behind the executor port, then reads back
what the Turn decided as Evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from eval_core.case import CaseBase, FilePart, TextPart, ToolDecl
from eval_core.evidence import Denial, Evidence, GuardDecision, ModelRequest, ToolCall, ToolResult
from eval_core.evidence import Usage as EvalUsage
from eval_core.hookspecs import hookimpl
from eval_core.host import ContextRules, ModelCallRequest, ModelError, ModelSession
from eval_core.scripted import ScriptedTools

from agent_runtime.context import (
    RETIRED_CONTEXT_KEYS,
    SOUL_OWNED_CONTEXT_KEYS,
    TURN_CONTEXT_KEYS,
    assemble_system_prompt,
)
from agent_runtime.loop import TurnResult, run_turn
from agent_runtime.model import (
    ModelFailure,
    ModelRequest as RuntimeRequest,
    ModelResponse,
    ToolCallRequest,
    ToolSpec,
    Usage,
)
from agent_runtime.soul import Soul, load_soul
from agent_runtime.tools import PLATFORM_TOOLS, ToolOutcome

HOST_NAME = "agent-runtime"


def _decl(spec: ToolSpec) -> ToolDecl:
    return ToolDecl(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        mutating=spec.mutating,
    )


_PLATFORM: Mapping[str, ToolDecl] = MappingProxyType(
    {name: _decl(spec) for name, spec in PLATFORM_TOOLS.items()}
)


class _Model:
    """The harness's model session behind the runtime's model port."""

    __slots__ = ("_decls", "_session")

    def __init__(self, session: ModelSession, decls: list[ToolDecl]) -> None:
        self._session = session
        self._decls = decls

    def complete(self, request: RuntimeRequest) -> ModelResponse:
        call = ModelCallRequest(system=request.system, messages=request.messages, tools=self._decls)
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


class _ScriptedExecutor:
    """The Case's scripted Tool results behind the runtime's executor port."""

    __slots__ = ("_tools",)

    def __init__(self, tools: ScriptedTools) -> None:
        self._tools = tools

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        outcome = self._tools.execute(call.name, call.arguments)
        return ToolOutcome(outcome.status, outcome.output, outcome.reason)


def _message(role: str, parts: Sequence[Any]) -> dict[str, Any]:
    text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
    message: dict[str, Any] = {"role": role, "content": text}
    files = [
        {"fileId": p.file_id, "mediaType": p.media_type, "name": p.name}
        for p in parts
        if isinstance(p, FilePart)
    ]
    if files:
        message["files"] = files
    return message


class AgentRuntimeHost:
    """The reference runtime as the system under test."""

    name = HOST_NAME

    def __init__(self, soul_dir: Path) -> None:
        self.soul_dir = soul_dir
        self.soul: Soul = load_soul(soul_dir)
        self._agents = frozenset(self.soul.agents)
        self._rules = ContextRules(
            allowed=TURN_CONTEXT_KEYS,
            soul_owned=SOUL_OWNED_CONTEXT_KEYS,
            retired=frozenset(RETIRED_CONTEXT_KEYS),
        )

    def agents(self) -> frozenset[str]:
        return self._agents

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return _PLATFORM

    def context_rules(self) -> ContextRules:
        return self._rules

    def given_text(self, case: CaseBase) -> Sequence[str]:
        """What the Soul gives the model for this Case: the real assembled system prompt."""
        agent = self.soul.agents.get(case.agent)
        if agent is None:
            return ()
        return (assemble_system_prompt(self.soul, agent, {}, self.tools_of(case)),)

    def tools_of(self, case: CaseBase) -> list[ToolSpec]:
        tools = [
            ToolSpec(t.name, t.description or "", t.input_schema, t.mutating) for t in case.tools
        ]
        tools.extend(PLATFORM_TOOLS[n] for n in case.platform_tools if n in PLATFORM_TOOLS)
        return tools

    def run_trial(self, case: CaseBase, model: ModelSession, trial: int) -> Evidence:
        tools = self.tools_of(case)
        result = run_turn(
            self.soul,
            case.agent,
            context=case.context or {},
            messages=[_message(m.role, m.parts) for m in case.input],
            tools=tools,
            model=_Model(model, [_decl(t) for t in tools]),
            executor=_ScriptedExecutor(ScriptedTools(case.tool_results)),
        )
        return evidence_of(result, case.tier)

    def close(self) -> None:
        """Nothing to release: an L2 Trial holds no resources."""


def evidence_of(result: TurnResult, tier: str, turn_index: int = 1) -> Evidence:
    """Read one Turn's decisions back as Evidence (never predicted from the Case)."""
    results = [
        ToolResult(
            call_id=call.call_id,
            name=call.name,
            arguments=call.arguments,
            status=outcome.status,
            output=outcome.output,
            reason=outcome.reason,
            turn_index=turn_index,
        )
        for call, outcome in result.results
    ]
    denials = [
        Denial(
            call_id=d.call.call_id,
            name=d.call.name,
            arguments=d.call.arguments,
            reason=d.reason,
            source=d.source,
            turn_index=turn_index,
        )
        for d in result.denials
    ]
    # a denial the Tool itself returned is a denial the model saw, too
    denials.extend(
        Denial(
            call_id=r.call_id,
            name=r.name,
            arguments=r.arguments,
            reason=r.reason or "",
            source="tool",
            turn_index=turn_index,
        )
        for r in results
        if r.status == "denied"
    )
    usage = result.usage
    return Evidence(
        tier=tier,
        system_prompt=result.system_prompt,
        model_requests=[
            ModelRequest(system=r.system, messages=r.messages, tools=[t.name for t in r.tools])
            for r in result.requests
        ],
        model_calls=result.model_calls,
        output_text=result.output_text,
        output_structured=result.output_structured,
        output_kind=result.output_kind,
        tool_calls=[
            ToolCall(call_id=c.call_id, name=c.name, arguments=c.arguments, turn_index=turn_index)
            for c in result.tool_calls
        ],
        tool_batches=result.batches,
        tool_results=results,
        denials=denials,
        guard_decisions=[
            GuardDecision(
                stage=d.stage,
                guard=d.guard,
                blocked=d.blocked,
                detail=d.detail,
                turn_index=turn_index,
            )
            for d in result.guard_decisions
        ],
        loop_status=result.status,
        loop_reason=result.reason,
        usage=EvalUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            reasoning_tokens=usage.reasoning_tokens,
        ),
    )


@hookimpl
def eval_hosts() -> Mapping[str, Any]:
    return {HOST_NAME: AgentRuntimeHost}
