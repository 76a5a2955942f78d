"""The team's ticket desk: the tickets the agent may look up, and where it routes them.

These are the agent's real Tools. ``lookup_ticket`` reads the desk; ``route_ticket`` checks
the queue and priority the way the desk does and refuses what it would refuse;
``schedule_callback`` books the customer a callback within a number of hours, by email unless
the phone is asked for; ``escalate_ticket`` hands a ticket to a human lead, counting from the
graph's own state how often the customer has written in this conversation.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

from langchain_core.messages import HumanMessage
from langchain_core.tools import ToolException, tool
from langgraph.prebuilt import InjectedState

QUEUES = ("billing", "technical", "account")
PRIORITIES = ("low", "normal", "urgent")

TICKETS: dict[str, dict[str, Any]] = {
    "T-101": {
        "subject": "Charged twice for the March invoice",
        "customer": "Northwind Traders",
        "plan": "business",
    },
    "T-102": {
        "subject": "The dashboard returns 502 for every user since 09:00",
        "customer": "Contoso",
        "plan": "enterprise",
    },
    "T-103": {
        "subject": "Please change the account owner to dana@fabrikam.example",
        "customer": "Fabrikam",
        "plan": "starter",
    },
    "T-104": {
        "subject": "CSV export drops the last column",
        "customer": "Tailspin Toys",
        "plan": "business",
    },
}


@tool
def lookup_ticket(ticket_id: str) -> dict[str, Any]:
    """Look a support ticket up by its id (T-nnn): its subject, customer and plan."""
    found = TICKETS.get(ticket_id.strip().upper())
    if found is None:
        raise ToolException(f"no ticket {ticket_id!r} on the desk")
    return {"ticketId": ticket_id, **found}


@tool
def route_ticket(ticket_id: str, queue: str, priority: str = "normal") -> dict[str, Any]:
    """Route a ticket to one queue (billing, technical or account) with a priority (low,
    normal or urgent)."""
    if queue not in QUEUES:
        raise ToolException(f"unknown queue {queue!r}; queues: {', '.join(QUEUES)}")
    if priority not in PRIORITIES:
        raise ToolException(f"unknown priority {priority!r}; priorities: {', '.join(PRIORITIES)}")
    return {"ticketId": ticket_id, "queue": queue, "priority": priority, "status": "routed"}


class Channel(Enum):
    """How the desk calls a customer back."""

    EMAIL = "email"
    PHONE = "phone"


MAX_CALLBACK_HOURS = 72


@tool
def schedule_callback(
    ticket_id: str, within_hours: int, channel: Channel = Channel.EMAIL
) -> dict[str, Any]:
    """Book the customer of a ticket a callback within a number of hours (1 to 72), by email
    unless the customer asks for a phone call."""
    if ticket_id.strip().upper() not in TICKETS:
        raise ToolException(f"no ticket {ticket_id!r} on the desk")
    if not 1 <= within_hours <= MAX_CALLBACK_HOURS:
        raise ToolException(f"a callback is within 1 to {MAX_CALLBACK_HOURS} hours")
    return {
        "ticketId": ticket_id,
        "channel": channel.value,
        "withinMinutes": within_hours * 60,
        "status": "booked",
    }


@tool
def escalate_ticket(
    ticket_id: str,
    reason: str,
    hours_affected: int,
    state: Annotated[dict[str, Any], InjectedState],
) -> dict[str, Any]:
    """Hand a ticket to a human lead, with the reason and how many hours the customer has been
    affected; the lead also sees how often the customer has written in this conversation."""
    if ticket_id.strip().upper() not in TICKETS:
        raise ToolException(f"no ticket {ticket_id!r} on the desk")
    written = sum(isinstance(m, HumanMessage) for m in state.get("messages", []))
    return {
        "ticketId": ticket_id,
        "reason": reason,
        "hoursAffected": hours_affected,
        "customerMessages": written,
        "status": "escalated",
    }
