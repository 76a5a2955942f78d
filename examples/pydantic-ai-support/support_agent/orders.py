"""The order desk the agent's Tools read and act on: a real, if small, order book."""

from __future__ import annotations

from datetime import date, timedelta
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


EXPRESS_DAYS_SOONER = 2
DESK_HOURS = "Monday to Friday, 08:00 to 18:00 CET"
MAX_REORDER = 5


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


def estimate(order_id: str, speed: str) -> dict[str, Any]:
    """When an order would arrive at a delivery speed: express comes two days sooner."""
    key = order_id.strip().upper()
    order = ORDERS.get(key)
    if order is None:
        return {"order_id": order_id, "found": False}
    eta = date.fromisoformat(order["eta"])
    if speed == "express":
        eta -= timedelta(days=EXPRESS_DAYS_SOONER)
    return {"order_id": key, "found": True, "speed": speed, "eta": eta.isoformat()}


class ReorderRefused(Exception):  # noqa: N818 - what the desk answers
    """The item cannot be ordered again (an unknown order, a quantity out of range)."""


def reorder(order_id: str, quantity: int) -> dict[str, Any]:
    """A new order of the same item, 1 to 5 of it; anything else is refused with the reason."""
    key = order_id.strip().upper()
    order = ORDERS.get(key)
    if order is None:
        raise ReorderRefused(f"there is no order {order_id}")
    if not 1 <= quantity <= MAX_REORDER:
        raise ReorderRefused(f"a reorder is 1 to {MAX_REORDER} items, not {quantity}")
    return {"reorder_of": key, "item": order["item"], "quantity": quantity, "status": "processing"}
