"""The order desk the agent's Tools read and act on: a real, if small, order book."""

from __future__ import annotations

from typing import Any

ORDERS: dict[str, dict[str, Any]] = {
    "A-1001": {
        "item": "Trail tent, 2 person",
        "status": "shipped",
        "carrier": "Parcelways",
        "eta": "2026-12-04",
        "note": "customer asked for a gift wrap",
    },
    "A-1002": {
        "item": "Down sleeping bag",
        "status": "delivered",
        "carrier": "Parcelways",
        "eta": "2026-11-20",
        "note": "INTERNAL: fraud check passed manually",
    },
    "A-1003": {
        "item": "Camping stove",
        "status": "processing",
        "carrier": None,
        "eta": "2026-12-09",
        "note": "",
    },
}


class RefundRefused(Exception):  # noqa: N818 - what the desk answers
    """The order cannot be refunded (unknown, or not delivered yet)."""


def lookup(order_id: str) -> dict[str, Any]:
    """The order as the desk knows it, or ``{"found": False}``."""
    order = ORDERS.get(order_id.strip().upper())
    if order is None:
        return {"order_id": order_id, "found": False}
    return {"order_id": order_id.strip().upper(), "found": True, **order}


def refund(order_id: str, reason: str) -> dict[str, Any]:
    """A refund for a delivered order; anything else is refused with the desk's reason."""
    key = order_id.strip().upper()
    order = ORDERS.get(key)
    if order is None:
        raise RefundRefused(f"there is no order {order_id}")
    if order["status"] != "delivered":
        raise RefundRefused(
            f"order {key} is {order['status']}, not delivered: it cannot be refunded yet"
        )
    return {"refund_id": f"R-{key}", "order_id": key, "amount": "full", "reason": reason}
