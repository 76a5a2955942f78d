"""Agents for the Host's own tests: a ToolNode agent the conformance probes drive, one whose
Tool raises, and builders that are broken in the ways a team's can be."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

PROMPT = "You are a careful assistant. Answer briefly and use Tools when asked."


@tool
def probe_lookup(query: str) -> str:
    """Look an order up by its query."""
    return f"order {query!r}: shipped"


@tool
def explode() -> str:
    """A Tool whose own code raises."""
    raise ValueError("the team's Tool raised")


@tool
async def wait_forever() -> str:
    """A Tool that never answers (a hung MCP server, a stuck API)."""
    await asyncio.sleep(3600)
    return "never"


def _graph(model: BaseChatModel, tools: list[BaseTool]) -> Any:
    bound = model.bind_tools(tools)

    def decide(state: MessagesState) -> dict[str, Any]:
        from langchain_core.messages import SystemMessage

        return {"messages": [bound.invoke([SystemMessage(PROMPT), *state["messages"]])]}

    graph = StateGraph(MessagesState)
    graph.add_node("assistant", decide)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "assistant")
    graph.add_conditional_edges("assistant", tools_condition)
    graph.add_edge("tools", "assistant")
    return graph.compile()


def assistant(model: BaseChatModel) -> Any:
    return _graph(model, [probe_lookup])


def raiser(model: BaseChatModel) -> Any:
    return _graph(model, [probe_lookup, explode])


def sleeper(model: BaseChatModel) -> Any:
    return _graph(model, [wait_forever])


class _Interrupted:
    """A graph (the Host runs anything with ``ainvoke``) whose run is interrupted in the
    caller's own task: a Ctrl-C landing while the Host runs it."""

    async def ainvoke(self, state: Any, *args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt


def interrupted(model: BaseChatModel) -> Any:
    return _Interrupted()


def _one_node(node: Any) -> Any:
    """A compiled graph of ``node`` alone, entered from START."""
    graph = StateGraph(MessagesState)
    graph.add_node(node.__name__, node)
    graph.add_edge(START, node.__name__)
    return graph.compile()


def dozing(model: BaseChatModel) -> Any:
    """A graph whose one node sleeps before it answers: a Ctrl-C lands while it runs."""

    async def doze(state: MessagesState) -> dict[str, Any]:
        await asyncio.sleep(30)
        return {"messages": []}

    return _one_node(doze)


def stumbling(model: BaseChatModel) -> Any:
    """A graph whose first node raises before the model is ever asked: a team's bug."""

    def check(state: MessagesState) -> dict[str, Any]:
        raise RuntimeError("the team's graph fails before its model is called")

    return _one_node(check)


def chatter(model: BaseChatModel) -> Any:
    """A graph of one model node and no ToolNode: it only talks."""

    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    return _one_node(answer)


def not_a_graph(model: BaseChatModel) -> Any:
    return {"not": "a graph"}


AGENTS = {"assistant": assistant, "raiser": raiser, "sleeper": sleeper}
BROKEN = {"assistant": not_a_graph}
INTERRUPTED = {"assistant": interrupted}
DOZING = {"assistant": dozing}
STUMBLING = {"assistant": stumbling}
CHATTY = {"chatter": chatter}
EMPTY: dict[str, Any] = {}
