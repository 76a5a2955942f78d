"""A Tool behind the witness is answered the same whether it is called synchronously or not.

The Host runs a graph with ``ainvoke``, so its ``ToolNode`` calls each Tool's ``ainvoke`` and the
example's Cases never reach ``invoke``; team code calling a Tool itself (a node of its own that
runs one) does. Either way a scripted Tool is answered from the script and never runs, and an
unscripted one runs the team's code; both are recorded as received.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from eval_core.hosts import ScriptedResult
from eval_host_langgraph.tools import ToolBoundary, WitnessedTool, witness

RAN: list[str] = []


@tool
def lookup_ticket(ticket_id: str) -> dict[str, Any]:
    """Look a support ticket up by its id."""
    RAN.append(ticket_id)
    return {"ticketId": ticket_id, "subject": "from the team's own desk"}


def _call(call_id: str, ticket_id: str) -> dict[str, Any]:
    return {
        "type": "tool_call",
        "id": call_id,
        "name": "lookup_ticket",
        "args": {"ticket_id": ticket_id},
    }


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_a_scripted_tool_is_answered_from_the_script_and_an_unscripted_one_runs(how: str) -> None:
    RAN.clear()
    scripted = ToolBoundary([ScriptedResult(name="lookup_ticket", output={"subject": "scripted"})])
    unscripted = ToolBoundary([])

    def call(boundary: ToolBoundary, call_id: str) -> Any:
        witnessed = WitnessedTool.around(lookup_ticket, boundary)
        if how == "invoke":
            return witnessed.invoke(_call(call_id, "T-101"))
        return asyncio.run(witnessed.ainvoke(_call(call_id, "T-101")))

    answered = call(scripted, "c1")
    assert answered.content == '{"subject":"scripted"}' and RAN == []
    ran = call(unscripted, "c2")
    assert "from the team's own desk" in str(ran.content) and RAN == ["T-101"]
    for boundary, call_id in ((scripted, "c1"), (unscripted, "c2")):
        [received] = boundary.received
        assert (received.call_id, received.arguments) == (call_id, {"ticket_id": "T-101"})


def _nested(depth: int) -> Any:
    """A graph whose only ToolNode sits ``depth`` subgraphs down."""
    builder = StateGraph(MessagesState)
    if depth == 0:
        builder.add_node("tools", ToolNode([lookup_ticket]))
        builder.add_edge(START, "tools")
        builder.add_edge("tools", END)
    else:
        builder.add_node("desk", _nested(depth - 1))
        builder.add_edge(START, "desk")
        builder.add_edge("desk", END)
    return builder.compile()


def test_a_tool_node_however_deep_its_subgraph_nests_is_witnessed() -> None:
    """LangGraph walks subgraphs to any depth, so the witness does: a Tool ten subgraphs down
    is answered from the script, never run, and its call recorded as received."""
    RAN.clear()
    boundary = ToolBoundary([ScriptedResult(name="lookup_ticket", output={"subject": "scripted"})])
    graph = _nested(10)
    assert witness(graph, boundary)
    asked = AIMessage(content="", tool_calls=[_call("c1", "T-104")])
    state = asyncio.run(graph.ainvoke({"messages": [asked]}))
    assert state["messages"][-1].content == '{"subject":"scripted"}' and RAN == []
    [received] = boundary.received
    assert (received.call_id, received.arguments) == ("c1", {"ticket_id": "T-104"})


class _Node:
    """A node of a team's own graph-like object, as the walk reads one."""

    def __init__(self, bound: Any = None, subgraphs: tuple[Any, ...] = ()) -> None:
        self.bound, self.subgraphs = bound, subgraphs


class _Graph:
    def __init__(self, **nodes: _Node) -> None:
        self.nodes = nodes


def test_the_walk_of_a_teams_graph_ends_whatever_its_depth_or_cycles() -> None:
    """The graph is the team's object: one nested deeper than Python's recursion limit, or one
    whose subgraph holds its parent, is walked to its end, each graph once, in LangGraph's
    order (a node's own ToolNode, then its subgraphs', then the next node's)."""
    from eval_host_langgraph.tools import tool_nodes

    first, second, deep = ToolNode([lookup_ticket]), ToolNode([lookup_ticket]), ToolNode([])
    bottom: Any = _Graph(tools=_Node(deep))
    for _ in range(5000):
        bottom = _Graph(desk=_Node(subgraphs=(bottom,)))
    parent = _Graph(a=_Node(first), b=_Node(second, subgraphs=(bottom,)))
    parent.nodes["loop"] = _Node(subgraphs=(parent, bottom))  # holds itself and a seen graph
    assert list(tool_nodes(parent)) == [first, second, deep]
