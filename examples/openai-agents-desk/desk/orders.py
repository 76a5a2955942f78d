"""The order book the desk's Tools read and change: fixed, small, fresh in every process."""

from __future__ import annotations

from typing import Any

ORDERS: dict[str, dict[str, Any]] = {
    "B-100": {
        "item": "trail running shoes",
        "status": "delivered",
        "delivered_on": "2026-11-18",
        "total": 129.0,
        "note": "INTERNAL: customer asked twice about sizing",
    },
    "B-200": {
        "item": "rain jacket",
        "status": "shipped",
        "eta": "2026-12-09",
        "carrier": "Parcelways",
        "total": 89.0,
        "note": "INTERNAL: none",
    },
    "B-300": {
        "item": "camping stove",
        "status": "processing",
        "total": 54.0,
        "note": "INTERNAL: stock check pending",
    },
}
REFUND_LIMIT = 200.0


def lookup(order_id: str) -> dict[str, Any]:
    order = ORDERS.get(order_id.strip().upper())
    if order is None:
        return {"order_id": order_id, "found": False}
    return {"order_id": order_id.strip().upper(), "found": True, **order}


def refund(order_id: str, reason: str, amount: float | None = None) -> dict[str, Any]:
    """A refund of a delivered order, in full unless ``amount`` says less."""
    key = order_id.strip().upper()
    order = ORDERS.get(key)
    if order is None:
        raise ValueError(f"no order {order_id}")
    if order["status"] != "delivered":
        raise ValueError(f"order {key} is {order['status']}, not delivered: it cannot be refunded")
    due = order["total"] if amount is None else amount
    if due > min(order["total"], REFUND_LIMIT):
        raise ValueError(f"a refund of {due:.2f} is more than order {key} allows")
    order["status"] = "refunded"
    return {"order_id": key, "refund_id": f"R-{key}", "amount": due, "reason": reason}
