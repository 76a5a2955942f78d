"""The support agent: its instructions, its two Tools and its MCP help centre.

``AGENTS`` is what the eval harness reads (``[tool.eval] app`` in ``pyproject.toml``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from fastmcp.client.transports import PythonStdioTransport
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.mcp import MCPToolset

from support_agent import orders

INSTRUCTIONS = (
    "You are Acme Outdoor support. Help customers with their orders and with our policies only. "
    "Look an order up with lookup_order before you say anything about it. "
    "Refund only a delivered order, and only when the customer asks for a refund and gives "
    "the order id; otherwise ask for it. "
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


AGENTS = {"support": support}
