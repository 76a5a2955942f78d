"""The Tool boundary: where pydantic-ai hands a validated call to a Tool, every call is seen.

pydantic-ai assembles one toolset per run (the agent's function Tools, its MCP servers, its
other toolsets); a capability of ours wraps it (:meth:`AbstractCapability.get_wrapper_toolset`,
pydantic-ai's own extension point), so ``call_tool`` of :class:`WitnessToolset` is the last step
before the Tool itself, after pydantic-ai validated the arguments and ran its hooks. There the
call is recorded as the Tool received it (the witness ``tool``: defaults filled in, values
coerced, kept as JSON data), then answered from the Case's ``toolResults`` when the Case
scripts that Tool, or passed on to the team's real function (or MCP server) when it does not.
The Tools the run offered (their validators) are kept, so that the history's calls are read
on the same footing (:mod:`.arguments`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import msgspec
from pydantic_ai import ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.tools import Tool
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from eval_core.hosts import CaseBase, ScriptedTools, ToolCall, ToolResult
from eval_host_pydantic_ai.arguments import jsonable


class ToolEndedRun(Exception):  # noqa: N818 - it names an outcome
    """A Tool raised ``SystemExit`` (``sys.exit``) or another ``BaseException``: as an
    ``Exception`` it ends the run and errors the Trial in one line; left as it was, it would
    end the Host's loop thread (asyncio re-raises both out of the loop)."""

    def __init__(self, name: str, exc: BaseException) -> None:
        if isinstance(exc, SystemExit):
            what = f"called sys.exit({exc.code!r})"
        else:
            what = f"raised {type(exc).__name__} (a BaseException, not an Exception)"
        super().__init__(f"Tool {name!r} {what}: it ends this Trial, not the Sweep")


class ToolBoundary:
    """One Trial's Tool boundary: the calls the Tools received and what each returned."""

    def __init__(self, case: CaseBase) -> None:
        self.scripted = ScriptedTools(case.tool_results)
        self.scripted_names = frozenset(r.name for r in case.tool_results)
        self.received: list[ToolCall] = []
        self.results: list[ToolResult] = []
        self.tools: dict[str, ToolsetTool[Any]] = {}
        self.validation_context: Any = None

    def offered(self, tools: dict[str, ToolsetTool[Any]], validation_context: Any) -> None:
        """The Tools a run step offered, each with the validator pydantic-ai reads its calls by."""
        self.tools.update(tools)
        self.validation_context = validation_context

    async def call(self, name: str, arguments: dict[str, Any], call_id: str, real: Any) -> Any:
        """Record the call, then answer it: scripted, or ``real()`` (the team's Tool)."""
        received = jsonable(arguments)
        self.received.append(ToolCall(call_id=call_id, name=name, arguments=received))
        if name not in self.scripted_names:
            try:
                output = await real()
            except ModelRetry as retry:
                self._result(call_id, name, received, "invalid_arguments", reason=str(retry))
                raise
            except Exception as exc:
                self._result(call_id, name, received, "failed", reason=f"{type(exc).__name__}")
                raise
            except (asyncio.CancelledError, KeyboardInterrupt):
                raise
            except BaseException as exc:  # a sys.exit or BaseException of the team's Tool
                self._result(call_id, name, received, "failed", reason=f"{type(exc).__name__}")
                raise ToolEndedRun(name, exc) from None
            self._result(call_id, name, received, "succeeded", output=plain(output))
            return output
        outcome = self.scripted.execute(name, received)
        if outcome.status == "succeeded":
            self._result(call_id, name, received, "succeeded", output=outcome.output)
            return outcome.output
        # a wait (approval, retry) is refused at load: this Host parks no call (``parks_calls``)
        reason = outcome.reason or outcome.status
        status = outcome.status if outcome.status in ("failed", "denied") else "failed"
        if outcome.status == "invalid_arguments":
            self._result(call_id, name, received, "invalid_arguments", reason=reason)
            raise ModelRetry(reason)  # pydantic-ai's own repair path
        self._result(call_id, name, received, status, reason=reason)
        return {"status": status, "error": reason}

    def _result(
        self,
        call_id: str,
        name: str,
        arguments: Any,
        status: str,
        output: Any = None,
        reason: str | None = None,
    ) -> None:
        self.results.append(
            ToolResult(
                call_id=call_id,
                name=name,
                arguments=arguments,
                status=status,
                output=output,
                reason=reason,
            )
        )


def plain(value: Any) -> Any:
    """A Tool's return value as JSON-like data (a pydantic model, a dataclass...)."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    try:
        return msgspec.to_builtins(value, str_keys=True)
    except (TypeError, ValueError):
        return str(value)


@dataclass
class WitnessToolset(WrapperToolset[Any]):
    """The run's assembled toolset, every call through :class:`ToolBoundary`."""

    boundary: ToolBoundary | None = None

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools = await super().get_tools(ctx)
        if self.boundary is not None:
            self.boundary.offered(tools, ctx.validation_context)
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        assert self.boundary is not None

        async def real() -> Any:
            return await self.wrapped.call_tool(name, tool_args, ctx, tool)

        call_id = ctx.tool_call_id or f"{name}-{len(self.boundary.received) + 1}"
        return await self.boundary.call(name, tool_args, call_id, real)


@dataclass
class Witnessing(AbstractCapability[Any]):
    """The capability that puts :class:`WitnessToolset` around the run's toolset."""

    boundary: ToolBoundary | None = None

    def get_wrapper_toolset(self, toolset: AbstractToolset[Any]) -> AbstractToolset[Any]:
        return WitnessToolset(wrapped=toolset, boundary=self.boundary)


def declared_toolset(case: CaseBase, taken: frozenset[str]) -> FunctionToolset[Any] | None:
    """The Tools the Case declares itself (``tools``) and the agent does not have: offered to
    the model for this Trial with the Case's schema, and answered only from the script."""
    tools: list[Tool[Any]] = []
    for decl in case.tools:
        if decl.name in taken:
            continue  # the agent's own Tool of that name is the one pydantic-ai offers
        tools.append(
            Tool.from_schema(
                _unscripted(decl.name),
                name=decl.name,
                description=decl.description,
                json_schema=decl.input_schema or {"type": "object", "properties": {}},
            )
        )
    return FunctionToolset(tools) if tools else None


def _unscripted(name: str) -> Any:
    def answer(**_: Any) -> dict[str, str]:
        return {"status": "failed", "error": f'the Eval Case scripts no result for Tool "{name}"'}

    return answer
