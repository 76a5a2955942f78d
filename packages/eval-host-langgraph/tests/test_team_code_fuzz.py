"""Fuzz target for the team-code boundary (issue 45, class 3) through the LangGraph Host and the
real ``eval``: generated hostile behaviour of a graph's Tools (one sync Tool, run on a worker
thread by the graph, and one async Tool, run on the graph's own event loop), the same
behaviours and the same promise as the pydantic-ai Host's target
(``packages/eval-core/tests/hostile_team.py``): the exit code is the Trials', a Trial the team's
code ended errors in one line, the Scorecard is whole, stderr holds no traceback, nothing is
left running, the command ends within its bound."""

from __future__ import annotations

from hostile_team import DO, fuzz_target

APP = (
    """
import asyncio, json, os, sys, threading, time
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
"""
    + DO
    + '''
@tool
def act(how: str) -> str:
    """Do what the Case asks."""
    return _do(json.loads(how))

@tool
async def act_async(how: str) -> str:
    """Do what the Case asks, on the graph's event loop (a sleep there blocks it)."""
    return _do(json.loads(how))

def probe(model):
    tools = [act, act_async]
    bound = model.bind_tools(tools)
    graph = StateGraph(MessagesState)
    graph.add_node("assistant", lambda state: {"messages": [bound.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "assistant")
    graph.add_conditional_edges("assistant", tools_condition)
    graph.add_edge("tools", "assistant")
    return graph.compile()

AGENTS = {"probe": probe}
'''
)


test_the_teams_code_never_ends_hangs_or_forges_the_sweep = fuzz_target(APP, "langgraph", 2)
