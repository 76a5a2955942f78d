"""The Tool boundary: every call as the team's Tool received it, on the Host's side of it.

LangGraph runs Tools from its ``ToolNode``; the Host puts a :class:`WitnessedTool` in front of
each Tool a ToolNode of the graph holds (after the team's code built the graph, before it
runs). The witness records the call there and then, its arguments as the Tool's own validation
hands them to its body (:mod:`.arguments`: defaults filled in, values coerced, without the
values LangGraph injects, such as the graph's state), then answers it from the Case's script
when the Case scripts that Tool (``toolResults``), or hands it to the team's real Tool
otherwise. What the framework's own state says it dispatched is its testimony, read through
the same validation (:meth:`WitnessedTool.read`) and checked against this record.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolNode
from pydantic import ConfigDict

from eval_core.hosts import ScriptedResult, ScriptedTools, ToolCall, compact_json
from eval_host_langgraph.arguments import validated


class ToolBoundary:
    """One Trial's Tool boundary: what each Tool received, and the Case's scripted results."""

    __slots__ = ("_lock", "_scripted", "denied", "injected", "received", "scripted_names")

    def __init__(self, results: list[ScriptedResult]) -> None:
        self._scripted = ScriptedTools(results)
        self.scripted_names = frozenset(r.name for r in results)
        self.received: list[ToolCall] = []
        self.injected: dict[str, dict[str, Any]] = {}
        """By call id, the values LangGraph injected into the call (lent to the validation of
        the model's own arguments, never recorded as theirs)."""
        self.denied: dict[str, str] = {}
        """By call id, the reason of each call the Case's script has its Tool deny: LangGraph's
        Tool message says only "error", so the Host keeps which errors were denials."""
        self._lock = threading.Lock()  # LangGraph may run a batch's Tools on threads

    def receive(
        self, call_id: str, name: str, arguments: dict[str, Any], injected: dict[str, Any]
    ) -> None:
        """``arguments`` are the Tool's reading (a fresh copy); ``injected`` LangGraph's."""
        with self._lock:
            self.received.append(ToolCall(call_id=call_id, name=name, arguments=arguments))
            if injected:
                self.injected[call_id] = injected

    def answer(self, call_id: str, name: str, arguments: dict[str, Any]) -> ToolMessage:
        """The scripted outcome, as the ``ToolMessage`` a Tool would have returned."""
        with self._lock:
            outcome = self._scripted.execute(name, arguments)
        if outcome.status == "succeeded":
            output = outcome.output
            content = output if isinstance(output, str) else compact_json(output) or ""
            return ToolMessage(content=content, name=name, tool_call_id=call_id)
        reason = outcome.reason or outcome.status
        if outcome.status == "denied":
            with self._lock:
                self.denied[call_id] = reason
        return ToolMessage(
            content=f"Error: {reason}", name=name, tool_call_id=call_id, status="error"
        )


def _fields(schema: Any) -> set[str]:
    """The argument names of a Tool schema (a pydantic model or a JSON Schema)."""
    if isinstance(schema, dict):
        return set(schema.get("properties") or {})
    fields = getattr(schema, "model_fields", None)
    return set(fields) if isinstance(fields, dict) else set()


def injected_names(tool: BaseTool) -> frozenset[str]:
    """The arguments LangGraph injects into the Tool (state, store, runtime), never the
    model's: as the ToolNode itself finds them, and what the model's schema leaves out."""
    names = set(tool.args) - _fields(tool.tool_call_schema)
    try:  # the ToolNode's own reading of the Tool (a private helper: absent, the schema rules)
        from langgraph.prebuilt.tool_node import _get_all_injected_args

        found = _get_all_injected_args(tool)
        names |= set(found.state) | {n for n in (found.store, found.runtime) if n}
    except Exception:
        pass
    return frozenset(names)


class WitnessedTool(BaseTool):
    """A team's Tool behind the witness: same name, description and schema for the graph."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseTool
    boundary: Any
    injected: frozenset[str] = frozenset()

    @classmethod
    def around(cls, inner: BaseTool, boundary: ToolBoundary) -> WitnessedTool:
        injected = injected_names(inner)
        return cls(
            name=inner.name,
            description=inner.description,
            args_schema=inner.args_schema,
            return_direct=inner.return_direct,
            response_format=inner.response_format,
            inner=inner,
            boundary=boundary,
            injected=injected,
        )

    def read(self, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
        """``arguments`` (with any values LangGraph injects) as the team's Tool's validation
        hands them to its body, without the injected ones; as they came where it refuses them."""
        found = validated(self.inner, arguments, call_id, self.injected)
        if found is not None:
            return found
        return copy.deepcopy({k: v for k, v in arguments.items() if k not in self.injected})

    def _call(self, tool_input: Any) -> tuple[str, dict[str, Any]]:
        """Record the call as the Tool receives it; its id and those arguments."""
        if isinstance(tool_input, dict) and tool_input.get("type") == "tool_call":
            call_id, args = str(tool_input.get("id") or ""), tool_input.get("args") or {}
        else:
            call_id, args = (
                "",
                tool_input if isinstance(tool_input, dict) else {"input": tool_input},
            )
        given = self.read(args, call_id)
        lent = {k: v for k, v in args.items() if k in self.injected}
        self.boundary.receive(call_id, self.name, given, lent)
        return call_id, given

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        call_id, given = self._call(input)
        if self.name in self.boundary.scripted_names:
            return self.boundary.answer(call_id, self.name, given)
        return self.inner.invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        call_id, given = self._call(input)
        if self.name in self.boundary.scripted_names:
            return self.boundary.answer(call_id, self.name, given)
        return await self.inner.ainvoke(input, config, **kwargs)

    def _run(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - invoke overrides it
        raise RuntimeError("a WitnessedTool is invoked, never run")


_DONE = object()


def tool_nodes(graph: Any) -> Iterator[ToolNode]:
    """Every ToolNode of a compiled graph and of its subgraphs, however deep they nest, in the
    order LangGraph's own ``get_subgraphs`` walks them. The walk keeps its own stack and enters
    each graph once: the graph is the team's object, so neither its depth nor a subgraph that
    holds its parent may end the Host in a ``RecursionError``."""
    seen = {id(graph)}
    stack: list[Iterator[Any]] = [iter(getattr(graph, "nodes", {}).values())]
    while stack:
        node = next(stack[-1], _DONE)
        if node is _DONE:
            stack.pop()
            continue
        bound = getattr(node, "bound", None)
        if isinstance(bound, ToolNode):
            yield bound
        for sub in reversed(list(getattr(node, "subgraphs", None) or ())):
            if id(sub) not in seen:
                seen.add(id(sub))
                stack.append(iter(getattr(sub, "nodes", {}).values()))


def witness(graph: Any, boundary: ToolBoundary) -> bool:
    """Put the witness in front of every Tool the graph's ToolNodes run; False when the graph
    has no ToolNode (its Tool calls, if any, cannot be observed)."""
    found = False
    for node in tool_nodes(graph):
        found = True
        tools = node.tools_by_name
        for name, tool in list(tools.items()):
            if not isinstance(tool, WitnessedTool):
                tools[name] = WitnessedTool.around(tool, boundary)
    return found


def witnessed(graph: Any) -> dict[str, WitnessedTool]:
    """The witnessed Tools of the graph's ToolNodes, by name (the first of a name)."""
    found: dict[str, WitnessedTool] = {}
    for node in tool_nodes(graph):
        for name, tool in node.tools_by_name.items():
            if isinstance(tool, WitnessedTool):
                found.setdefault(name, tool)
    return found


def tools_of(graph: Any) -> list[BaseTool]:
    """The team's Tools the graph's ToolNodes hold, in order, each once."""
    seen: dict[str, BaseTool] = {}
    for node in tool_nodes(graph):
        for name, tool in node.tools_by_name.items():
            seen.setdefault(name, tool.inner if isinstance(tool, WitnessedTool) else tool)
    return list(seen.values())
