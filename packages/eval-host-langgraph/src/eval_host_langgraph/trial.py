"""An L2 Trial on LangGraph: the team's graph, built around the binding, run once, read back.

The graph runs unchanged (its own prompt assembly, its own ToolNode loop, its own recursion
limit); the Host only stands at the two boundaries it does not control: the chat model (the
binding's session, whose requests are the binding's record) and the Tools (the witness in
front of each). The answer and how the loop ended are what ``ainvoke`` returned or raised; the
Tool messages in the final state are LangGraph's own record, kept as its testimony, each call's
arguments read through its Tool's own validation as the witness's are (:mod:`.arguments`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.errors import GraphRecursionError

from eval_core.hosts import (
    CaseBase,
    Denial,
    Evidence,
    ModelError,
    ModelSession,
    Testimony,
    TextPart,
    ToolCall,
    ToolResult,
    Usage,
)
from eval_host_langgraph.app import Builder, build
from eval_host_langgraph.chat_model import SessionChatModel, text_of
from eval_host_langgraph.mcp import McpConnections
from eval_host_langgraph.quiet import loop_exception
from eval_host_langgraph.tools import ToolBoundary, tools_of, witness, witnessed

SERVICES: tuple[type, ...] = (McpConnections,)
ITERATION_LIMIT = "iteration_limit"
"""Our reason for a loop stopped by its limit: LangGraph's recursion limit maps to it."""

Reading = Callable[[str, str, Any], Any]
"""A call's arguments as its Tool's validation reads them: ``(name, call_id, arguments)``."""


def messages_of(case: CaseBase) -> list[BaseMessage]:
    """The Case's input as LangChain messages (Files are refused at load)."""
    out: list[BaseMessage] = []
    for message in case.input:
        content = message.content
        text = (
            content
            if isinstance(content, str)
            else "\n".join(p.text for p in content if isinstance(p, TextPart))
        )
        out.append(HumanMessage(text) if message.role == "user" else AIMessage(text))
    return out


class GraphTimeout(Exception):  # noqa: N818 - what the Trial reports
    """The graph outlived the Trial's bound: it was cancelled (the Trial errors)."""


class LangGraphTrial:
    """One Trial of a Case on the team's graph."""

    __slots__ = (
        "boundary",
        "builder",
        "case",
        "mcp",
        "model",
        "recursion_limit",
        "timeout",
    )

    def __init__(
        self,
        builder: Builder,
        case: CaseBase,
        model: ModelSession,
        recursion_limit: int | None,
        timeout: float,
    ) -> None:
        self.builder = builder
        self.case = case
        self.model = model
        self.recursion_limit = recursion_limit
        self.timeout = timeout
        self.boundary = ToolBoundary(case.tool_results)
        self.mcp = McpConnections()

    def services(self) -> tuple[object, ...]:
        return (self.mcp,)

    def run(self) -> Evidence:
        """The graph on a loop of this Trial's own, whose noise is counted, not printed."""
        with asyncio.Runner() as runner:
            runner.get_loop().set_exception_handler(loop_exception)
            return runner.run(self._bounded())

    async def _bounded(self) -> Evidence:
        """The run, cancelled past the Trial's bound (a TimeoutError of the team's own code
        is its own, not the bound's)."""
        bound = asyncio.timeout(self.timeout)
        try:
            async with bound:
                return await self._run()
        except TimeoutError:
            if bound.expired():
                raise GraphTimeout(
                    f"the graph outlived its bound of {self.timeout:g} s and was cancelled"
                ) from None
            raise

    async def _run(self) -> Evidence:
        model = SessionChatModel.of(self.model)
        graph = await build(self.builder, model, self.mcp.connections())
        observed = witness(graph, self.boundary)
        given = messages_of(self.case)
        config: dict[str, Any] = {}
        if self.recursion_limit is not None:
            config["recursion_limit"] = self.recursion_limit
        status, reason, state = "completed", None, None
        try:
            state = await graph.ainvoke({"messages": given}, config=config or None)
        except GraphRecursionError:
            status, reason = "failed", ITERATION_LIMIT
        except ModelError as failure:
            status, reason = "failed", failure.reason
        messages = _messages(state)[len(given) :] if state is not None else []
        known = frozenset(t.name for t in tools_of(graph))
        received = self.boundary.received if observed else None
        return evidence_of(
            messages,
            status,
            reason,
            received,
            known,
            self._reading(graph),
            dict(self.boundary.denied),
        )

    def _reading(self, graph: Any) -> Reading:
        """The testimony's arguments on the witness's footing: through the named Tool's own
        validation, with the values LangGraph injected into that call lent to it."""
        tools = witnessed(graph)
        lent = self.boundary.injected

        def read(name: str, call_id: str, arguments: Any) -> Any:
            tool = tools.get(name)
            if tool is None or not isinstance(arguments, dict):
                return arguments
            return tool.read({**arguments, **lent.get(call_id, {})}, call_id)

        return read

    def close(self) -> None:
        pass


def _messages(state: Any) -> list[BaseMessage]:
    found = state.get("messages") if isinstance(state, dict) else None
    return [m for m in found or [] if isinstance(m, BaseMessage)]


def _output(content: Any) -> Any:
    text = content if isinstance(content, str) else text_of(content)
    try:
        return json.loads(text)
    except ValueError:
        return text


def evidence_of(
    messages: Sequence[BaseMessage],
    status: str,
    reason: str | None,
    received: list[ToolCall] | None,
    known: frozenset[str],
    read: Reading,
    denied: Mapping[str, str] | None = None,
) -> Evidence:
    """The run read back: the Tool calls the witness saw, the answer and end from the loop,
    and the Tool messages of the final state as LangGraph's own record, each dispatched call's
    arguments as ``read`` gives them. A Tool message for a Tool the graph does not have
    (``known``) is the ToolNode's refusal: a denial, not a call. A call whose Tool denied it
    (``denied``: the scripted denials, by call id, with their reasons) is a denial by the Tool,
    not a failure: the Tool received it."""
    denied = denied or {}
    asked: dict[str, tuple[str, Any]] = {}
    input_tokens = output_tokens = 0
    for message in messages:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                asked[call.get("id") or ""] = (call["name"], call["args"])
            if message.usage_metadata is not None:
                input_tokens += message.usage_metadata["input_tokens"]
                output_tokens += message.usage_metadata["output_tokens"]
    results: list[ToolResult] = []
    dispatched: list[ToolCall] = []
    denials: list[Denial] = []
    for message in messages:
        if not isinstance(message, ToolMessage):
            continue
        name, arguments = asked.get(message.tool_call_id, (message.name or "", None))
        if (message.name or name) not in known:
            why = text_of(message.content)
            denials.append(
                Denial(
                    call_id=message.tool_call_id,
                    name=name,
                    arguments=arguments,
                    reason=why,
                    source="langgraph",
                )
            )
            results.append(
                ToolResult(
                    call_id=message.tool_call_id,
                    name=name,
                    arguments=arguments,
                    status="denied",
                    reason=why,
                )
            )
            continue
        failed = message.status == "error"
        refused = denied.get(message.tool_call_id) if failed else None
        if refused is not None:
            denials.append(
                Denial(
                    call_id=message.tool_call_id,
                    name=message.name or name,
                    arguments=arguments,
                    reason=refused,
                    source="tool",
                )
            )
        results.append(
            ToolResult(
                call_id=message.tool_call_id,
                name=message.name or name,
                arguments=arguments,
                status="denied" if refused is not None else "failed" if failed else "succeeded",
                output=None if failed else _output(message.content),
                reason=refused or (text_of(message.content) if failed else None),
            )
        )
        called = message.name or name
        dispatched.append(
            ToolCall(
                call_id=message.tool_call_id,
                name=called,
                arguments=read(called, message.tool_call_id, arguments),
            )
        )
    last = messages[-1] if messages else None
    answer = (
        text_of(last.content)
        if isinstance(last, AIMessage) and not last.tool_calls and status == "completed"
        else None
    )
    return Evidence(
        tier="l2",
        testimony=Testimony(tool_calls=dispatched),
        output_text=answer,
        output_kind="text" if answer else "none",
        tool_calls=None if received is None else list(received),
        tool_results=results,
        denials=denials,
        loop_status=status,
        loop_reason=reason,
        usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
    )
