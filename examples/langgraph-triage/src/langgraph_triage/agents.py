"""The triage agent: a hand-built LangGraph StateGraph with a ToolNode.

``AGENTS`` names each agent's builder. A builder makes the compiled graph around any LangChain
chat model (production passes its vendor's; the eval harness passes its own) and the MCP
servers to load Tools from (``connections``, langchain-mcp-adapters' shape by server id; the
``workspace`` server keeps the on-call team's notes).
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from langgraph_triage.tickets import (
    escalate_ticket,
    lookup_ticket,
    route_ticket,
    schedule_callback,
)

WORKSPACE = "workspace"
RECURSION_LIMIT = 24
"""Graph steps per request: a model turn and a Tool turn each, so at most 12 model turns."""

SYSTEM_PROMPT = """\
You are the support triage agent of the Acme help desk.
Look every ticket up with lookup_ticket before you route it, and route it to exactly one \
queue: billing, technical or account.
Use priority urgent only when a service is down for the customer; otherwise normal.
When the workspace notes are available, leave the on-call team a note for every urgent ticket.
When a customer asks to be called back, book it with schedule_callback within the hours asked \
for (by email unless they ask for a phone call).
When a customer asks for a person, escalate the ticket with escalate_ticket and say why.
If you are asked to promise a refund, answer: I cannot promise a refund; the billing team decides.
You only triage support tickets; for anything else, say: I can only triage support tickets."""


async def workspace_tools(connections: dict[str, Any]) -> list[Any]:
    """The workspace server's Tools, loaded by LangChain's own MCP client."""
    if WORKSPACE not in connections:
        return []
    client = MultiServerMCPClient({WORKSPACE: connections[WORKSPACE]}, tool_name_prefix=True)
    return list(await client.get_tools())


async def triage(model: BaseChatModel, connections: dict[str, Any] | None = None) -> Any:
    """The triage graph: the model decides, the ToolNode runs its Tool calls, until it answers."""
    tools = [
        lookup_ticket,
        route_ticket,
        schedule_callback,
        escalate_ticket,
        *await workspace_tools(connections or {}),
    ]
    bound = model.bind_tools(tools)

    async def decide(state: MessagesState) -> dict[str, Any]:
        reply = await bound.ainvoke([SystemMessage(SYSTEM_PROMPT), *state["messages"]])
        return {"messages": [reply]}

    graph = StateGraph(MessagesState)
    graph.add_node("triage", decide)
    graph.add_node("tools", ToolNode(tools, handle_tool_errors=True))
    graph.add_edge(START, "triage")
    graph.add_conditional_edges("triage", tools_condition)
    graph.add_edge("tools", "triage")
    return graph.compile().with_config(recursion_limit=RECURSION_LIMIT)


AGENTS = {"triage": triage}
