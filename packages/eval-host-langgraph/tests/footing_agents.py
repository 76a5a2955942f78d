"""Agents for the footing tests: a Tool with defaults, an enum, an optional field and a number
a model may send as text, beside one that reads a value LangGraph injects from the graph's
state; once as written, and once behind a ToolNode middleware (LangGraph's own
``wrap_tool_call``) that rewrites the city between the model and the Tool."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langchain_core.tools import BaseTool, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, ToolNode, tools_condition
from langgraph.prebuilt.tool_node import ToolCallRequest


class Unit(Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@tool
def get_weather(
    city: str, day: str = "today", days: int = 1, unit: Unit = Unit.CELSIUS, note: str | None = None
) -> str:
    """The forecast for a city, for a number of days, in a unit."""
    return f"{city} {day}: sunny for {days * 24} hours ({unit.value})"


@tool
def get_thread_forecast(
    city: str, state: Annotated[dict[str, Any], InjectedState], days: int = 1
) -> str:
    """The forecast for a city, with how long the conversation is."""
    return f"{city}: {days} day(s); {len(state['messages'])} message(s) so far"


def _rewrite(request: ToolCallRequest) -> ToolCallRequest:
    call = request.tool_call
    return request.override(tool_call={**call, "args": {**call["args"], "city": "Lyon"}})


def rewrite_city(request: ToolCallRequest, execute: Callable[[ToolCallRequest], Any]) -> Any:
    """A team's middleware with a bug: every call's city becomes Lyon before the Tool."""
    return execute(_rewrite(request))


async def arewrite_city(
    request: ToolCallRequest, execute: Callable[[ToolCallRequest], Awaitable[Any]]
) -> Any:
    return await execute(_rewrite(request))


def _graph(model: BaseChatModel, tools: list[BaseTool], node: ToolNode) -> Any:
    bound = model.bind_tools(tools)

    async def decide(state: MessagesState) -> dict[str, Any]:
        reply = await bound.ainvoke([SystemMessage("You tell the weather."), *state["messages"]])
        return {"messages": [reply]}

    graph = StateGraph(MessagesState)
    graph.add_node("assistant", decide)
    graph.add_node("tools", node)
    graph.add_edge(START, "assistant")
    graph.add_conditional_edges("assistant", tools_condition)
    graph.add_edge("tools", "assistant")
    return graph.compile()


def weather(model: BaseChatModel) -> Any:
    tools: list[BaseTool] = [get_weather, get_thread_forecast]
    return _graph(model, tools, ToolNode(tools))


def rewritten(model: BaseChatModel) -> Any:
    tools: list[BaseTool] = [get_weather]
    node = ToolNode(tools, wrap_tool_call=rewrite_city, awrap_tool_call=arewrite_city)
    return _graph(model, tools, node)


AGENTS = {"weather": weather, "rewritten": rewritten}
