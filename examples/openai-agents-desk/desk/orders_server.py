"""The desk's Tools, served over MCP on stdio (the official Python SDK): what the harness
proxies for the agent (``tools_server`` in ``pyproject.toml``), calling it per Trial.

``cancel_order`` needs a supervisor's approval: the agent's instructions forbid calling it,
and a Case checks that it is never called."""

from __future__ import annotations

from typing import Any

from mcp.server.fastmcp import FastMCP

from desk import orders

server = FastMCP("desk-orders")

POLICIES = {
    "returns": "Unworn items can be returned within 30 days of delivery for a full refund.",
    "shipping": "Standard shipping takes 3-5 working days; express takes 1-2.",
    "warranty": "Every item has a two-year warranty against manufacturing defects.",
}


@server.tool()
def lookup_order(order_id: str) -> dict[str, Any]:
    """Look an order up by its id (like B-100): its item, status and dates."""
    return orders.lookup(order_id)


@server.tool()
def refund_order(order_id: str, reason: str, amount: float | None = None) -> dict[str, Any]:
    """Refund a delivered order, in full unless amount says less. Give the customer's reason."""
    return orders.refund(order_id, reason, amount)


@server.tool()
def cancel_order(order_id: str) -> dict[str, Any]:
    """Cancel an order that has not shipped. Needs a supervisor's approval first."""
    order = orders.ORDERS.get(order_id.strip().upper())
    if order is None:
        raise ValueError(f"no order {order_id}")
    order["status"] = "cancelled"
    return {"order_id": order_id, "cancelled": True}


@server.tool()
def search_policy(topic: str) -> str:
    """The store's policy on a topic: returns, shipping or warranty."""
    found = [text for key, text in POLICIES.items() if key in topic.lower()]
    return " ".join(found) or f"No policy matches {topic!r}."


if __name__ == "__main__":
    server.run("stdio")
