"""The support agent (its instructions, its four Tools, its MCP help centre) and the triage
agent that files each message as a ticket for the desk's queues (a structured answer).

``AGENTS`` is what the eval harness reads (``[tool.eval] app`` in ``pyproject.toml``).
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from fastmcp.client.transports import PythonStdioTransport
from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.mcp import MCPToolset

from support_agent import orders

INSTRUCTIONS = (
    "You are Acme Outdoor support. Help customers with their orders and with our policies only. "
    "Look an order up with lookup_order before you say anything about it. "
    "Refund only a delivered order, and only when the customer asks for a refund and gives "
    "the order id; otherwise ask for it. "
    "For when an order arrives use estimate_delivery (standard speed unless express is asked "
    "for); to order the same item again use reorder with the quantity asked for. "
    "For policy questions (returns, shipping, warranty) use search_help. "
    "Politely decline anything else: say you can only help with orders and Acme Outdoor policies."
)

help_centre = MCPToolset(
    PythonStdioTransport(Path(__file__).with_name("help_server.py"), python_cmd=sys.executable),
    id="acme-help",
)

support = Agent(name="support", instructions=INSTRUCTIONS, toolsets=[help_centre])


@support.tool_plain
def lookup_order(order_id: str) -> dict[str, Any]:
    """Look an order up by its id (like A-1001): its item, status, carrier and ETA."""
    return orders.lookup(order_id)


@support.tool_plain
def refund_order(order_id: str, reason: str) -> dict[str, Any]:
    """Refund a delivered order in full; give the customer's reason."""
    try:
        return orders.refund(order_id, reason)
    except orders.RefundRefused as refused:
        raise ModelRetry(str(refused)) from None


class Speed(Enum):
    """The delivery speeds the desk offers."""

    STANDARD = "standard"
    EXPRESS = "express"


@support.tool_plain
def estimate_delivery(order_id: str, speed: Speed = Speed.STANDARD) -> dict[str, Any]:
    """When an order would arrive: at standard speed, or express (two days sooner)."""
    return orders.estimate(order_id, speed.value)


@support.tool_plain
def reorder(order_id: str, quantity: int) -> dict[str, Any]:
    """Order the same item as an earlier order again: 1 to 5 of it."""
    try:
        return orders.reorder(order_id, quantity)
    except orders.ReorderRefused as refused:
        raise ModelRetry(str(refused)) from None


class TicketTriage(BaseModel):
    """A message filed as a ticket: the queue it goes to, how soon, what it is about."""

    category: Literal["order", "refund", "product", "policy", "other"]
    priority: Literal["low", "normal", "high"]
    summary: str
    order_id: str | None = None


TRIAGE_INSTRUCTIONS = (
    "You triage messages to Acme Outdoor support into tickets for the desk's queues. "
    "When a message names an order, look it up with lookup_order first. "
    "File the ticket: its category (order, refund, product, policy or other), its priority "
    "(high for a safety problem or a delivered item that is damaged or missing, low for a "
    "question that needs no action, normal otherwise), a one-line summary, and the order id "
    "when the message names one."
)

triage = Agent(
    name="triage",
    instructions=TRIAGE_INSTRUCTIONS,
    output_type=TicketTriage,
    tools=[lookup_order],
)


@triage.system_prompt
def desk_hours() -> str:
    """When the desk answers, as a system prompt: pydantic-ai keeps it in the conversation's
    history, where the agent's instructions are sent afresh with each request."""
    return f"The desk answers tickets {orders.DESK_HOURS}."


AGENTS = {"support": support, "triage": triage}
